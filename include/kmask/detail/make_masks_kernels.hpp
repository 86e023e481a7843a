#ifndef KMASK_DETAIL_MAKE_MASKS_KERNELS_HPP
#define KMASK_DETAIL_MAKE_MASKS_KERNELS_HPP

// The kernels that build a mask bit by bit (valid_if, bools_to_mask, gather_bits) and the one
// that spreads a mask into booleans (mask_to_bools).
//
// Building: CUDA builds each output word from 32 lanes, one bit each, with one warp ballot (cudf's
// design): the lanes' reads of booleans or indices are then contiguous, a line per warp load. Kokkos
// has no portable ballot, so every other space (the host, and the GPU form emulated on it) has one
// thread compute a whole word from its 32 bits: no cross-lane step, words written contiguously
// across the team, on a CPU a 32-bit loop that vectorises for simple predicates. Both evaluate each
// predicate exactly once. Each team reduces its null count (and, for gather_policy::check, the first
// bad index position) and adds it with one atomic.

#include <kmask/detail/compat.hpp>
#include <kmask/detail/launch_shape.hpp>
#include <kmask/detail/launch_tuning.hpp>
#include <kmask/detail/validation.hpp>
#include <kmask/detail/word_access.hpp>
#include <kmask/types.hpp>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

namespace kmask {
namespace detail {

// "No bad index found": the identity of the first-bad-position minimum.
constexpr size_type no_bad_position = std::numeric_limits<size_type>::max();

// *p = min(*p, v) atomically, for non-negative positions (the unsigned 64-bit form is native on CUDA).
KOKKOS_FORCEINLINE_FUNCTION void atomic_min_position(size_type* p, size_type v) noexcept {
  Kokkos::atomic_fetch_min(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}

// Bits of valid_if: bit i = pred(i).
template <class Pred>
struct predicate_bits {
  Pred pred;
  static constexpr bool reports_bad = false;
  KOKKOS_INLINE_FUNCTION bool bit(size_type i, bool&) const { return pred(i); }
  KOKKOS_INLINE_FUNCTION word_type word(size_type first, int bits, size_type&) const {
    word_type w = 0;
    for (int k = 0; k < bits; ++k) w |= static_cast<word_type>(pred(first + k) ? 1u : 0u) << k;
    return w;
  }
};

// Bit k of the result: whether byte k of `x` is non-zero (x read little-endian, as every kmask
// target is): the high bit of each byte after adding 0x7F to its low seven bits, gathered by one
// multiply. A dozen operations per 8 bytes, where a byte-at-a-time loop does not vectorise.
KOKKOS_FORCEINLINE_FUNCTION word_type nonzero_bytes(std::uint64_t x) {
  const std::uint64_t high = (((x & 0x7F7F7F7F7F7F7F7Full) + 0x7F7F7F7F7F7F7F7Full) | x) & 0x8080808080808080ull;
  return static_cast<word_type>(((high >> 7) * 0x0102040810204080ull) >> 56);
}

// Bits of bools_to_mask: bit i = values[i] != 0 (bool or std::uint8_t).
template <class T>
struct bool_bits {
  static_assert(sizeof(T) == 1, "one byte per value");
  const T* values;
  static constexpr bool reports_bad = false;
  KOKKOS_INLINE_FUNCTION bool bit(size_type i, bool&) const { return static_cast<std::uint8_t>(values[i]) != 0; }
  KOKKOS_INLINE_FUNCTION word_type word(size_type first, int bits, size_type&) const {
    const T* v  = values + first;
    word_type w = 0;
    if (bits == static_cast<int>(word_bits)) {
      for (int q = 0; q < 4; ++q) {
        std::uint64_t x;
        std::memcpy(&x, v + 8 * q, sizeof x);  // any alignment; one load
        w |= nonzero_bytes(x) << (8 * q);
      }
      return w;
    }
    for (int k = 0; k < bits; ++k) w |= static_cast<word_type>(static_cast<std::uint8_t>(v[k]) != 0 ? 1u : 0u) << k;
    return w;
  }
};

// Bits of gather_bits: bit i = source bit `base + indices[i]`, `mask` null meaning all valid.
// `check` indices outside [0, size_bits) give 0 and report their position (nullify gives the same
// 0 without reporting); `CheckBounds` false is dont_check: the caller promised every index is in range.
template <class Index, bool CheckBounds, bool Report>
struct gathered_bits {
  const word_type* mask;  // null: every in-range bit is 1
  size_type base;         // absolute bit of source bit 0
  size_type size_bits;    // the source's bits
  const Index* indices;
  word_type flip = 0;     // 1: the source is inverted (its in-range bits read complemented)
  static constexpr bool reports_bad = Report;
  // Bit i; an out-of-range index (CheckBounds) gives 0 and sets `bad`.
  KOKKOS_INLINE_FUNCTION bool bit(size_type i, bool& bad) const {
    const size_type j = static_cast<size_type>(indices[i]);
    if (CheckBounds && (j < 0 || j >= size_bits)) {
      bad = true;
      return false;
    }
    const size_type q = base + j;
    return ((mask == nullptr ? 1u : (mask[q / word_bits] >> (q % word_bits)) & 1u) ^ flip) != 0;
  }
  KOKKOS_INLINE_FUNCTION word_type word(size_type first, int bits, size_type& first_bad) const {
    word_type w = 0;
    for (int k = 0; k < bits; ++k) {
      const size_type j = static_cast<size_type>(indices[first + k]);
      if (CheckBounds && (j < 0 || j >= size_bits)) {
        if (Report && first + k < first_bad) first_bad = first + k;
        continue;
      }
      const size_type q = base + j;
      const word_type b = (mask == nullptr ? 1u : (mask[q / word_bits] >> (q % word_bits)) & 1u) ^ flip;
      w |= b << k;
    }
    return w;
  }
};

// Teams over the output words: each thread builds words with Bits::word(), writes them (bits past
// size_bits and words past num_words(size_bits) as 0) and the team adds its null count, and for a
// reporting gather its first bad position, with one atomic each.
template <class ExecSpace, class Bits>
struct build_words_functor {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  Bits bits;
  word_type* dest;
  size_type size_bits;
  size_type words;  // written: num_words(size_bits) or a padded allocation's words
  size_type words_per_team;
  size_type* null_count;
  size_type* first_bad;  // only when Bits::reports_bad

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const size_type w0 = static_cast<size_type>(team.league_rank()) * words_per_team;
    const size_type w1 = w0 + words_per_team < words ? w0 + words_per_team : words;
    const size_type used = num_words(size_bits);
    size_type nulls = 0, bad = no_bad_position;
#if defined(__CUDA_ARCH__)
    // 32 vector lanes per team thread (a warp): lane k evaluates bit k, one ballot makes the word.
    // Every lane ends with the same counts, so the team reduction (over team threads) sees them.
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, w0, w1), [&](size_type w) {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, static_cast<int>(word_bits)), [&](int lane) {
        if (w >= used) {
          if (lane == 0) dest[w] = 0;
          return;
        }
        const size_type rest = size_bits - w * word_bits;
        const int n          = rest >= word_bits ? static_cast<int>(word_bits) : static_cast<int>(rest);
        bool is_bad          = false;
        const bool b         = lane < n && bits.bit(w * word_bits + lane, is_bad);
        const word_type v    = __ballot_sync(0xffffffffu, b);
        if (lane == 0) dest[w] = v;
        nulls += n - popcount32(v);
        if (Bits::reports_bad) {
          const word_type bad_lanes = __ballot_sync(0xffffffffu, is_bad);
          if (bad_lanes != 0 && w * word_bits + __ffs(bad_lanes) - 1 < bad) bad = w * word_bits + __ffs(bad_lanes) - 1;
        }
      });
    });
#else
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, w0, w1), [&](size_type w) {
      if (w >= used) {
        dest[w] = 0;
        return;
      }
      const size_type rest = size_bits - w * word_bits;
      const int n          = rest >= word_bits ? static_cast<int>(word_bits) : static_cast<int>(rest);
      const word_type v    = bits.word(w * word_bits, n, bad);
      dest[w]              = v;
      nulls += n - popcount32(v);
    });
#endif
    team.team_reduce(Kokkos::Sum<size_type>(nulls));
    if constexpr (Bits::reports_bad) team.team_reduce(Kokkos::Min<size_type>(bad));
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      if (nulls != 0) atomic_add_count(null_count, nulls);
      if constexpr (Bits::reports_bad) {
        if (bad != no_bad_position) atomic_min_position(first_bad, bad);
      }
    });
  }
};

// Whether ExecSpace builds words by warp ballot (lanes per bit): CUDA only, see the top.
template <class ExecSpace>
constexpr bool builds_by_ballot() {
#if defined(KOKKOS_ENABLE_CUDA)
  return std::is_same<ExecSpace, Kokkos::Cuda>::value;
#else
  return false;
#endif
}

// Words one team builds: CUDA teams of make_gpu_ballot_warps warps x make_gpu_ballot_words words,
// other GPU teams of make_gpu_team threads x make_gpu_items words, host teams of one thread
// walking make_cpu_team_words words.
template <class ExecSpace>
constexpr size_type make_team_words() {
  using t = launch_tuning<ExecSpace>;
  if (runs_on_host<ExecSpace>()) return t::make_cpu_team_words;
  if (builds_by_ballot<ExecSpace>()) return size_type{t::make_gpu_ballot_warps} * t::make_gpu_ballot_words;
  return size_type{t::make_gpu_team} * t::make_gpu_items;
}

// Enqueues the build of `words` words into `dest`; *null_count (and *first_bad) must hold their
// starting values (0, no_bad_position) on `exec` before the kernel runs. League size checked first.
template <class ExecSpace, class Bits>
void enqueue_build(const char* fn, const ExecSpace& exec, const Bits& bits, word_type* dest, size_type size_bits,
                   size_type words, size_type* null_count, size_type* first_bad) {
  if (words == 0) return;
  using t                      = launch_tuning<ExecSpace>;
  constexpr size_type per_team = make_team_words<ExecSpace>();
  const size_type league       = (words + per_team - 1) / per_team;
  check_league_size(fn, league);
  const build_words_functor<ExecSpace, Bits> f{bits, dest, size_bits, words, per_team, null_count, first_bad};
  const std::string label = std::string(fn) + "::words";
  if constexpr (builds_by_ballot<ExecSpace>()) {
    Kokkos::parallel_for(label,
                         Kokkos::TeamPolicy<ExecSpace>(exec, static_cast<int>(league), t::make_gpu_ballot_warps,
                                                       static_cast<int>(word_bits)),
                         f);
  } else {
    const int team = runs_on_host<ExecSpace>() ? 1 : t::make_gpu_team;
    Kokkos::parallel_for(label, Kokkos::TeamPolicy<ExecSpace>(exec, static_cast<int>(league), team), f);
  }
}

// Bits 0..7 of `b` as the bytes 0 / 1 of a little-endian 64-bit word (three spreading steps).
KOKKOS_FORCEINLINE_FUNCTION std::uint64_t bits_to_bytes(std::uint64_t b) {
  b = (b | (b << 28)) & 0x0000000F0000000Full;
  b = (b | (b << 14)) & 0x0003000300030003ull;
  return (b | (b << 7)) & 0x0101010101010101ull;
}

// Enqueues out[i] = bit (base + i) of `mask` for i in [0, n) (`mask` null: all true). The GPU form
// writes one boolean per thread (coalesced bytes; the word each reads is shared by 32 neighbours);
// the CPU form one word's 32 booleans per iteration, eight at a time.
template <class ExecSpace>
void enqueue_mask_to_bools(const char* fn, const ExecSpace& exec, bool* out, const word_type* mask, size_type base,
                           size_type n, bool invert = false) {
  const word_type flip = invert ? ~word_type{0} : word_type{0};
  if (n == 0) return;
  using range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>;
  const std::string label = std::string(fn) + "::bools";
  if constexpr (uses_cpu_kernels<ExecSpace>()) {
    Kokkos::parallel_for(label, range(exec, 0, num_words(n)), KOKKOS_LAMBDA(size_type g) {
      const size_type first = g * word_bits;
      const int count       = n - first >= word_bits ? static_cast<int>(word_bits) : static_cast<int>(n - first);
      word_type w           = ~word_type{0};
      if (mask != nullptr) {
        // Bits [base + first, base + first + count) of the mask, from at most two words.
        const size_type q   = base + first;
        const int shift     = static_cast<int>(q % word_bits);
        const size_type wi  = q / word_bits;
        const bool two      = shift + count > word_bits;
        w = funnel_shift(mask[wi], two ? mask[wi + 1] : word_type{0}, shift);
      }
      w ^= flip;
      bool* o = out + first;
      if (count == static_cast<int>(word_bits)) {
        for (int q = 0; q < 4; ++q) {
          const std::uint64_t bytes = bits_to_bytes((w >> (8 * q)) & 0xFFu);
          std::memcpy(o + 8 * q, &bytes, sizeof bytes);  // eight bools (bytes 0 / 1) at once
        }
        return;
      }
      for (int k = 0; k < count; ++k) o[k] = ((w >> k) & 1u) != 0;
    });
  } else {
    Kokkos::parallel_for(label, range(exec, 0, n), KOKKOS_LAMBDA(size_type i) {
      const size_type q = base + i;
      out[i] = ((mask == nullptr ? 1u : (mask[q / word_bits] >> (q % word_bits)) & 1u) ^ (flip & 1u)) != 0;
    });
  }
}

}  // namespace detail
}  // namespace kmask

#endif
