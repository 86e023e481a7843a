#ifndef KMASK_DETAIL_COUNT_KERNELS_HPP
#define KMASK_DETAIL_COUNT_KERNELS_HPP

// Counting set bits over bit ranges. A range is cut into blocks of words; each team reduces one
// block and adds it to its range's counter with one atomic, so a few huge ranges fill the device
// as well as many small ones do.

#include <kmask/detail/compat.hpp>
#include <kmask/detail/cpu_word_passes.hpp>
#include <kmask/detail/host_simd.hpp>
#include <kmask/detail/launch_shape.hpp>
#include <kmask/detail/staging_pool.hpp>
#include <kmask/detail/team_total.hpp>
#include <kmask/detail/validation.hpp>
#include <kmask/types.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>
namespace kmask {
namespace detail {

// Set bits of word `w` that fall inside bits [begin, end).
KOKKOS_FORCEINLINE_FUNCTION int set_bits_in_range(word_type word, size_type w, size_type begin, size_type end) {
  const size_type lo = w * word_bits;
  if (begin > lo) word &= ~word_type{0} << (begin - lo);
  if (end < lo + word_bits) word &= (word_type{1} << (end - lo)) - 1;
  return popcount32(word);
}

// Set bits of words [first, stop) of `m` inside bits [begin, end), on one CPU thread: the words
// wholly inside the range with AVX-512 or popcnt where the processor has it, else through a loop of shifts,
// masks and adds that vectorises (x86-64's baseline has no popcnt: a word at a time, that loop
// ran at ~1 GB/s per core on the H200's host); the at most two partial words at the range's ends
// one by one.
KOKKOS_INLINE_FUNCTION size_type count_words_on_cpu(const word_type* m, size_type first, size_type stop,
                                                    size_type begin, size_type end) {
  const size_type inside_lo = (begin + word_bits - 1) / word_bits, inside_hi = end / word_bits;
  const size_type lo = first > inside_lo ? first : inside_lo;
  const size_type hi = stop < inside_hi ? stop : inside_hi;
  size_type set      = 0;
  if (lo >= hi) {
    for (size_type w = first; w < stop; ++w) set += set_bits_in_range(m[w], w, begin, end);
    return set;
  }
  for (size_type w = first; w < lo; ++w) set += set_bits_in_range(m[w], w, begin, end);
  for (size_type w = hi; w < stop; ++w) set += set_bits_in_range(m[w], w, begin, end);
#if defined(KMASK_HOST_POPCNT)
  if (host_has_popcnt()) return set + host_popcount_words(m, lo, hi);
#endif
  for (size_type w0 = lo; w0 < hi; w0 += max_half_count_words) {
    const size_type w1 = hi - w0 < max_half_count_words ? hi : w0 + max_half_count_words;
    word_type halves   = 0;
    for (size_type w = w0; w < w1; ++w) halves += set_bits_in_halves(m[w]);
    set += fold_halves(halves);
  }
  return set;
}

// Set bits of the whole words [first, stop) of `m`, thread g of T's share: the 16-byte aligned
// units among them with one load each, thread g reading units g, g + T, ..., Items loads in flight
// a pass (a pass wholly inside loads without a bound check); the at most 3 words before the first
// unit and 3 after the last are thread 0's. Bits outside a range in its edge words are the
// caller's to take off (bits_outside_range).
template <int Items>
KOKKOS_INLINE_FUNCTION size_type count_words_by_units(size_type g, size_type T, const word_type* m, size_type first,
                                                      size_type stop) {
  const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(m + first);
  const size_type head    = static_cast<size_type>((16 - at % 16) % 16 / sizeof(word_type));
  const size_type a       = stop - first > head ? first + head : stop;
  const size_type units   = (stop - a) / 4;
  const word_type* u      = m + a;
  size_type set           = 0;
  for (size_type p = g; p < units; p += Items * T) {
    word_type w[Items][4];
    if (p + (Items - 1) * T < units) {
#pragma unroll
      for (int i = 0; i < Items; ++i) load_four_words(u + 4 * (p + i * T), w[i]);
    } else {
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        if (p + i * T < units) load_four_words(u + 4 * (p + i * T), w[i]);
        else for (int k = 0; k < 4; ++k) w[i][k] = 0;
      }
    }
#pragma unroll
    for (int i = 0; i < Items; ++i)
      for (int k = 0; k < 4; ++k) set += popcount32(w[i][k]);
  }
  if (g == 0) {
    for (size_type w = first; w < a; ++w) set += popcount32(m[w]);
    for (size_type w = a + 4 * units; w < stop; ++w) set += popcount32(m[w]);
  }
  return set;
}

// Set bits of the range [b, e)'s first and last words that lie outside it, for those of the two
// that are among words [first, stop).
KOKKOS_INLINE_FUNCTION size_type bits_outside_range(const word_type* m, size_type first, size_type stop, size_type b,
                                                    size_type e) {
  const size_type lo = b / word_bits, hi = (e - 1) / word_bits;
  size_type out      = 0;
  if (lo >= first && lo < stop) out += popcount32(m[lo]) - set_bits_in_range(m[lo], lo, b, e);
  if (hi != lo && hi >= first && hi < stop) out += popcount32(m[hi]) - set_bits_in_range(m[hi], hi, b, e);
  return out;
}

// Thread g of T's share of the set bits of [b, e) within words [first, stop): its units
// (count_words_by_units), thread 0 then taking off the bits of the edge words outside the range
// (where they are among these words). count_set_bits' and the batch count's GPU forms.
template <int Items>
KOKKOS_INLINE_FUNCTION size_type count_range_share(size_type g, size_type T, const word_type* m, size_type first,
                                                   size_type stop, size_type b, size_type e) {
  size_type set = count_words_by_units<Items>(g, T, m, first, stop);
  if (g == 0) set -= bits_outside_range(m, first, stop, b, e);
  return set;
}

// count_set_bits' GPU form: every thread of the launch counts its share of the range
// (count_range_share), the launch's T threads striding over the 16-byte units together. The parts
// reach `result` through a ticket (team_total.hpp), so the launch needs no clearing before it and no
// reduction pass after it: on CUDA a warp's sum by shuffles, each warp a part (no team barrier);
// elsewhere Kokkos' team reduction, each team a part; one atomic a part where the total and ticket
// pack into one word (add_part).
template <class ExecSpace, int Items>
struct count_stride_functor {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  const word_type* m;
  size_type first, stop;  // words holding bits of [begin, end)
  size_type begin, end;
  size_type threads;      // of the whole launch
  size_type* scratch;     // zero before the launch and after it
  size_type* result;

  KOKKOS_INLINE_FUNCTION size_type thread_count(size_type g) const {
    return count_range_share<Items>(g, threads, m, first, stop, begin, end);
  }

  KOKKOS_INLINE_FUNCTION void finish(size_type parts, size_type set) const {
    add_part(scratch, parts, end - begin, set, result);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const size_type g0 = static_cast<size_type>(team.league_rank()) * team.team_size();
#if KMASK_HAS_LANE_SHUFFLE
    // Teams are whole warps (count_on_gpu): lane = team rank mod 32.
    const size_type set = warp_sum(thread_count(g0 + team.team_rank()));
    if (team.team_rank() % 32 == 0) finish(threads / 32, set);
#else
    size_type set = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, team.team_size()), [&](int r, size_type& acc) { acc += thread_count(g0 + r); },
        set);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { finish(team.league_size(), set); });
#endif
  }
};

// Words of bits [lo, hi) (absolute positions, so never negative: the divisions are shifts), 0 when
// empty.
KOKKOS_INLINE_FUNCTION size_type words_of_bits(size_type lo, size_type hi) {
  const auto l = static_cast<std::uint64_t>(lo), h = static_cast<std::uint64_t>(hi);
  return hi <= lo ? 0 : static_cast<size_type>((h - 1) / word_bits + 1 - l / word_bits);
}

// What a range's count starts from before its set bits are added (or, `unset`, taken off): an
// absent mask has every bit set (an inverted absent one none).
KOKKOS_FORCEINLINE_FUNCTION size_type range_count_start(size_type len, bool absent, bool unset) {
  return absent ? (unset ? 0 : len) : (unset ? len : 0);
}

}  // namespace detail
}  // namespace kmask

#endif
