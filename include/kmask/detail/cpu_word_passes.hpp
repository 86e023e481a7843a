#ifndef KMASK_DETAIL_CPU_WORD_PASSES_HPP
#define KMASK_DETAIL_CPU_WORD_PASSES_HPP

// The inner loops of the segmented binop's CPU form: up to four sources streamed together over
// one block of words, in loops a compiler vectorises for the baseline instruction set (SSE2 on
// x86-64: no popcnt, no variable per-lane shifts needed).

#include <kmask/detail/word_access.hpp>
#include <kmask/types.hpp>

namespace kmask {
namespace detail {

// Sources one CPU pass streams together. Four keeps every stream's loads and the running word in
// registers (two loads per shifted source) and, for the common 2-4 masks per segment, makes the
// whole segment one pass: no accumulator round trip through L1 at all.
constexpr int cpu_pass_sources = 4;  // cpu_pass names its four streams

// The set bits of `v` as two 16-bit fields: (set bits of the low half) + (set bits of the high
// half) << 16. Every step is a shift, a mask or an add, which vectorises where popcount does not
// (x86-64's baseline lacks popcnt and GCC calls a library routine per word); summed over at most
// max_half_count_words words, the fields cannot carry into each other.
KOKKOS_FORCEINLINE_FUNCTION word_type set_bits_in_halves(word_type v) {
  v = v - ((v >> 1) & 0x55555555u);
  v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
  v = (v + (v >> 4)) & 0x0F0F0F0Fu;
  return (v & 0x00FF00FFu) + ((v >> 8) & 0x00FF00FFu);
}
constexpr size_type max_half_count_words = 65535 / 16;

KOKKOS_FORCEINLINE_FUNCTION size_type fold_halves(word_type sum) {
  return static_cast<size_type>((sum & 0xFFFFu) + (sum >> 16));
}

// Word k of a source positioned at `p` with shift `sh` in [1, 32): reads p[k] and p[k + 1].
KOKKOS_FORCEINLINE_FUNCTION word_type shifted_word(const word_type* p, size_type k, int sh) {
  return (p[k] >> sh) | (p[k + 1] << (word_bits - sh));
}

// Combines G sources over words [0, n) of a block, left to right after what `acc` holds
// (FromAcc) or after op.identity(). p[g] points at the block's first word of source g, whose words
// are XORed with fl[g] once positioned (0, or ~0 for an inverted source). The first S sources
// (S = 0, 1 or G) are shifted: their sh[g] is in [1, 32) and p[g][n] must be readable; the others
// are word-aligned and only p[g][0, n) is read. ToOut: the words go to out[0, n) and their set
// bits are returned (n <= max_half_count_words); otherwise they go to acc and 0 is returned.
//
// `out` may be one of the sources (a destination read from bit 0): word k is written after every
// source's word k, and word k + 1 of it is read only before it is written, as in the plain loop.
template <int G, int S, bool FromAcc, bool ToOut, class Op>
KOKKOS_INLINE_FUNCTION size_type cpu_pass(const Op& op, const word_type* const (&p)[cpu_pass_sources],
                          const int (&sh)[cpu_pass_sources], const word_type (&fl)[cpu_pass_sources], size_type n,
                          word_type* acc, word_type* out) {
  static_assert(G >= 1 && G <= cpu_pass_sources, "kmask::detail::cpu_pass: 1 to cpu_pass_sources sources");
  static_assert(S == 0 || S == 1 || S == G, "kmask::detail::cpu_pass: none, the first or every source shifted");
  const word_type* p0 = p[0];
  const word_type* p1 = p[G > 1 ? 1 : 0];
  const word_type* p2 = p[G > 2 ? 2 : 0];
  const word_type* p3 = p[G > 3 ? 3 : 0];
  const int s0 = sh[0], s1 = sh[G > 1 ? 1 : 0], s2 = sh[G > 2 ? 2 : 0], s3 = sh[G > 3 ? 3 : 0];
  const word_type f0 = fl[0], f1 = fl[G > 1 ? 1 : 0], f2 = fl[G > 2 ? 2 : 0], f3 = fl[G > 3 ? 3 : 0];
  word_type halves = 0;
  for (size_type k = 0; k < n; ++k) {
    word_type v = FromAcc ? acc[k] : op.identity();
    v = op(v, (S > 0 ? shifted_word(p0, k, s0) : p0[k]) ^ f0);
    if (G > 1) v = op(v, (S > 1 ? shifted_word(p1, k, s1) : p1[k]) ^ f1);
    if (G > 2) v = op(v, (S > 2 ? shifted_word(p2, k, s2) : p2[k]) ^ f2);
    if (G > 3) v = op(v, (S > 3 ? shifted_word(p3, k, s3) : p3[k]) ^ f3);
    if (ToOut) {
      out[k] = v;
      halves += set_bits_in_halves(v);
    } else {
      acc[k] = v;
    }
  }
  return ToOut ? fold_halves(halves) : 0;
}

template <int G, int S, class Op>
KOKKOS_INLINE_FUNCTION size_type cpu_pass(const Op& op, const word_type* const (&p)[cpu_pass_sources],
                          const int (&sh)[cpu_pass_sources], const word_type (&fl)[cpu_pass_sources], size_type n,
                          bool from_acc, bool to_out, word_type* acc, word_type* out) {
  if (from_acc)
    return to_out ? cpu_pass<G, S, true, true>(op, p, sh, fl, n, acc, out)
                  : cpu_pass<G, S, true, false>(op, p, sh, fl, n, acc, out);
  return to_out ? cpu_pass<G, S, false, true>(op, p, sh, fl, n, acc, out)
                : cpu_pass<G, S, false, false>(op, p, sh, fl, n, acc, out);
}

// cpu_pass over the first `g` (1 to cpu_pass_sources) entries of p, sh and fl.
template <class Op>
KOKKOS_INLINE_FUNCTION size_type cpu_pass(const Op& op, int g, bool shifted, const word_type* const (&p)[cpu_pass_sources],
                          const int (&sh)[cpu_pass_sources], const word_type (&fl)[cpu_pass_sources], size_type n,
                          bool from_acc, bool to_out, word_type* acc, word_type* out) {
  if (shifted) {
    switch (g) {
      case 1: return cpu_pass<1, 1>(op, p, sh, fl, n, from_acc, to_out, acc, out);
      case 2: return cpu_pass<2, 2>(op, p, sh, fl, n, from_acc, to_out, acc, out);
      case 3: return cpu_pass<3, 3>(op, p, sh, fl, n, from_acc, to_out, acc, out);
      default: return cpu_pass<4, 4>(op, p, sh, fl, n, from_acc, to_out, acc, out);
    }
  }
  switch (g) {
    case 1: return cpu_pass<1, 0>(op, p, sh, fl, n, from_acc, to_out, acc, out);
    case 2: return cpu_pass<2, 0>(op, p, sh, fl, n, from_acc, to_out, acc, out);
    case 3: return cpu_pass<3, 0>(op, p, sh, fl, n, from_acc, to_out, acc, out);
    default: return cpu_pass<4, 0>(op, p, sh, fl, n, from_acc, to_out, acc, out);
  }
}

}  // namespace detail
}  // namespace kmask

#endif
