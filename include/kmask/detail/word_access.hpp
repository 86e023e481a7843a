#ifndef KMASK_DETAIL_WORD_ACCESS_HPP
#define KMASK_DETAIL_WORD_ACCESS_HPP

// Reading 32 bits of a mask from any bit offset, never touching a word past the last one the
// requested bits occupy: the bounds are the condition, checked before the read.

#include <kmask/types.hpp>

#include <cstdint>

namespace kmask {
namespace detail {

// A source mask as the CPU form of the kernels sees it. An inverted source (source_mask::invert)
// carries its flag in bit 62 of begin_bit, which no accepted begin bit uses (they are at most
// max_bits = 2^62 - 1), so the reference stays 16 bytes.
struct source_ref {
  const word_type* data;
  size_type begin_bit;

  static constexpr size_type invert_flag = size_type{1} << 62;
  KOKKOS_FORCEINLINE_FUNCTION size_type begin() const { return begin_bit & ~invert_flag; }
  // 0, or ~0 for an inverted source: XORed into every word read.
  KOKKOS_FORCEINLINE_FUNCTION word_type flip() const {
    return (begin_bit & invert_flag) != 0 ? ~word_type{0} : word_type{0};
  }
};

// The same in 8 bytes, for the GPU form: every call copies one per source to the device (2.6 MB
// of 16-byte references for 160,000 sources took ~60 us of a ~200 us call on the H200), and each
// team loads them before its first word. Holds the address of the word the source's bits start in,
// shifted left by 4, the bit offset within that word in the low 5 bits, and the invert flag in bit
// 5 (a word address has its low 2 bits clear, which land on bits 4 and 5, so none of them overlap).
// Unpacking shifts back arithmetically: every address whose top five bits agree packs, which is
// every canonical address of a 48- or 57-bit address space; pack() refuses the others.
struct packed_source_ref {
  std::uint64_t bits;

  static constexpr std::uint64_t invert_bit = std::uint64_t{1} << 5;

  // False (and *this unchanged) if `data` + begin_bit / 32 does not survive the round trip.
  bool pack(const word_type* data, size_type begin_bit, bool invert = false) {
    const word_type* first = data + begin_bit / word_bits;
    const std::uint64_t p  = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(first));
    const packed_source_ref r{(p << 4) | (invert ? invert_bit : 0) | static_cast<std::uint64_t>(begin_bit % word_bits)};
    if (r.first() != first) return false;
    *this = r;
    return true;
  }
  KOKKOS_FORCEINLINE_FUNCTION const word_type* first() const {
    return reinterpret_cast<const word_type*>(static_cast<std::intptr_t>(bits) >> 4 & ~std::intptr_t{3});
  }
  KOKKOS_FORCEINLINE_FUNCTION int shift() const { return static_cast<int>(bits & (word_bits - 1)); }
  KOKKOS_FORCEINLINE_FUNCTION word_type flip() const {
    return static_cast<word_type>(0) - static_cast<word_type>((bits >> 5) & 1);
  }
};

// Bits [shift, shift + 32) of the 64-bit pair hi:lo, for shift in [0, 32). One funnel shift on a
// GPU; unlike `(lo >> shift) | (hi << (32 - shift))` it is defined for shift == 0.
KOKKOS_FORCEINLINE_FUNCTION word_type funnel_shift(word_type lo, word_type hi, int shift) {
  return static_cast<word_type>(((static_cast<std::uint64_t>(hi) << word_bits) | lo) >> shift);
}

// A source positioned for word-relative reads: word `w` of the view is bits [32w, 32w + 32) from
// `first`'s bit `shift`, XORed with `flip` (0, or ~0 for an inverted source); `last` is the last
// word index (relative to `first`) the view's bits occupy, so no read may go past first[last].
// Readers that load words themselves apply `flip` after the funnel shift, as word() does; bits past
// size_bits come out complemented too, and every caller clears them as it does for a plain source.
struct positioned_source {
  const word_type* first;
  int shift;
  size_type last;
  word_type flip;

  KOKKOS_FORCEINLINE_FUNCTION positioned_source(const source_ref& src, size_type size_bits)
      : first(src.data + src.begin() / word_bits),
        shift(static_cast<int>(src.begin() % word_bits)),
        last((src.begin() + size_bits - 1) / word_bits - src.begin() / word_bits),
        flip(src.flip()) {}
  KOKKOS_FORCEINLINE_FUNCTION positioned_source(const packed_source_ref& src, size_type size_bits)
      : first(src.first()), shift(src.shift()), last((shift + size_bits - 1) / word_bits), flip(src.flip()) {}

  // Word `w` of the view, `w` < num_words(size_bits); the word after first[w] is read only when
  // the view's bits reach into it.
  KOKKOS_FORCEINLINE_FUNCTION word_type word(size_type w) const {
    const word_type lo = first[w];
    if (shift == 0) return lo ^ flip;
    return funnel_shift(lo, w + 1 <= last ? first[w + 1] : word_type{0}, shift) ^ flip;
  }
};

// Word `w` of the view of `src` that starts at its begin_bit and is `size_bits` long; bits past
// size_bits in that word are whatever the mask holds there (callers clear them).
template <class SourceRef>
KOKKOS_FORCEINLINE_FUNCTION word_type load_shifted_word(const SourceRef& src, size_type w, size_type size_bits) {
  return positioned_source(src, size_bits).word(w);
}

// Words p[0..3] into w[0..3]: one 16-byte load on a GPU (p must then be 16-byte aligned), four
// word loads elsewhere. Four times the bytes one instruction keeps in flight.
KOKKOS_FORCEINLINE_FUNCTION void load_four_words(const word_type* p, word_type* w) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  const uint4 v = *reinterpret_cast<const uint4*>(p);
  w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
#else
  for (int k = 0; k < 4; ++k) w[k] = p[k];
#endif
}

// w[0..3] into p[0..3]: one 16-byte store on a GPU (p must then be 16-byte aligned), four word
// stores elsewhere.
KOKKOS_FORCEINLINE_FUNCTION void store_four_words(word_type* p, const word_type* w) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  *reinterpret_cast<uint4*>(p) = make_uint4(w[0], w[1], w[2], w[3]);
#else
  for (int k = 0; k < 4; ++k) p[k] = w[k];
#endif
}

// Whether p may be given to load_four_words / store_four_words.
KOKKOS_FORCEINLINE_FUNCTION bool four_word_aligned(const word_type* p) {
  return (reinterpret_cast<std::uintptr_t>(p) & 15) == 0;
}

// Bits of destination word `w` that lie inside [0, size_bits).
KOKKOS_FORCEINLINE_FUNCTION word_type valid_bits_of_word(size_type w, size_type size_bits) {
  const size_type rest = size_bits - w * word_bits;
  return rest >= word_bits ? ~word_type{0} : (word_type{1} << rest) - 1;
}

}  // namespace detail
}  // namespace kmask

#endif
