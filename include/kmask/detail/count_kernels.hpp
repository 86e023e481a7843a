#ifndef KMASK_DETAIL_COUNT_KERNELS_HPP
#define KMASK_DETAIL_COUNT_KERNELS_HPP

// Counting set bits over bit ranges. A range is cut into blocks of words; each team reduces one
// block and adds it to its range's counter with one atomic, so a few huge ranges fill the device
// as well as many small ones do.

#include <kmask/detail/compat.hpp>
#include <kmask/detail/cpu_word_passes.hpp>
#include <kmask/detail/launch_shape.hpp>
#include <kmask/detail/staging_pool.hpp>
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

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#define KMASK_HOST_POPCNT 1
// Set bits of words [lo, hi) of `m` with the popcnt instruction, 64 bits at a time and four sums
// apart (its latency is 3 cycles, its throughput one a cycle). Compiled for popcnt whatever the
// build targets; called only where the processor has it (host_has_popcnt).
__attribute__((target("popcnt"))) inline size_type popcnt_words(const word_type* m, size_type lo, size_type hi) {
  std::uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  size_type w = lo;
  for (; w + 8 <= hi; w += 8) {
    std::uint64_t x[4];
    std::memcpy(x, m + w, sizeof(x));
    s0 += static_cast<std::uint64_t>(__builtin_popcountll(x[0]));
    s1 += static_cast<std::uint64_t>(__builtin_popcountll(x[1]));
    s2 += static_cast<std::uint64_t>(__builtin_popcountll(x[2]));
    s3 += static_cast<std::uint64_t>(__builtin_popcountll(x[3]));
  }
  for (; w < hi; ++w) s0 += static_cast<std::uint64_t>(__builtin_popcount(m[w]));
  return static_cast<size_type>(s0 + s1 + s2 + s3);
}
inline bool host_has_popcnt() {
  static const bool yes = __builtin_cpu_supports("popcnt");
  return yes;
}
#endif

// Set bits of words [first, stop) of `m` inside bits [begin, end), on one CPU thread: the words
// wholly inside the range with popcnt where the processor has it, else through a loop of shifts,
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
#if defined(KMASK_HOST_POPCNT) && !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__) && \
    !defined(__SYCL_DEVICE_ONLY__)
  if (host_has_popcnt()) return set + popcnt_words(m, lo, hi);
#endif
  for (size_type w0 = lo; w0 < hi; w0 += max_half_count_words) {
    const size_type w1 = hi - w0 < max_half_count_words ? hi : w0 + max_half_count_words;
    word_type halves   = 0;
    for (size_type w = w0; w < w1; ++w) halves += set_bits_in_halves(m[w]);
    set += fold_halves(halves);
  }
  return set;
}

// count_set_bits' GPU form: one reduction index per `group` words at a multiple of that many, so
// each thread has a group's loads in flight at once (one word per index kept too few bytes in
// flight to reach the memory's rate); with `Aligned` (the mask's words 16-byte aligned) they are
// 16-byte loads. Groups cut by [first, stop) load word by word.
template <bool Aligned>
struct count_groups_functor {
  // 32 words, eight 16-byte loads: Kokkos' range reduction runs at most 256 x 256 threads on CUDA.
  static constexpr size_type group = 32;
  const word_type* m;
  size_type first, stop, begin, end;

  KOKKOS_INLINE_FUNCTION void operator()(size_type g, size_type& acc) const {
    const size_type w0 = g * group;
    int set            = 0;
    if (w0 >= first && w0 + group <= stop) {
      word_type w[group];
      if constexpr (Aligned) {
        for (int k = 0; k < static_cast<int>(group); k += 4) load_four_words(m + w0 + k, w + k);
      } else {
        for (int k = 0; k < static_cast<int>(group); ++k) w[k] = m[w0 + k];
      }
      for (int k = 0; k < static_cast<int>(group); ++k) set += set_bits_in_range(w[k], w0 + k, begin, end);
    } else {
      const size_type lo = w0 > first ? w0 : first, hi = w0 + group < stop ? w0 + group : stop;
      for (size_type k = lo; k < hi; ++k) set += set_bits_in_range(m[k], k, begin, end);
    }
    acc += set;
  }
};

// Set bits of the words first + t, first + t + T, ... below `stop` of `m` inside bits
// [begin, end): part t of T of a GPU team's block of at most T x Items words (thread t of T reads
// them, so each load instruction of a warp reads 32 consecutive words), `Items` loads unrolled so
// all are in flight before any is counted. The caller sums the T parts.
template <int Items>
KOKKOS_FORCEINLINE_FUNCTION size_type count_block_on_gpu(size_type t, size_type threads, const word_type* m,
                                                         size_type first, size_type stop, size_type begin,
                                                         size_type end) {
  const size_type w0 = first + t;
  word_type words[Items];
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    const size_type w = w0 + i * threads;
    words[i]          = w < stop ? m[w] : word_type{0};
  }
  size_type set = 0;
#pragma unroll
  for (int i = 0; i < Items; ++i) set += set_bits_in_range(words[i], w0 + i * threads, begin, end);
  return set;
}

template <class ExecSpace>
struct range_count_functor {
  using memory_space = typename ExecSpace::memory_space;
  using member_type  = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  const word_type* mask;
  const size_type* ranges;      // begin0, end0, begin1, end1, ... (bits of `mask`)
  const size_type* first_team;  // num_ranges + 1: teams before range r
  Kokkos::View<size_type*, memory_space> counts;
  size_type num_ranges;
  size_type words_per_team;
  bool unset;  // counts start at the range's length and the set bits are taken off
  // Host teams are one thread each (count_shape_for): they count with a vectorised loop instead.
  static constexpr bool on_host = runs_on_host<ExecSpace>();

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const size_type t = team.league_rank();
    // The range whose teams include t: the last r with first_team[r] <= t (bounds are the loop).
    size_type lo = 0, hi = num_ranges;
    while (hi - lo > 1) {
      const size_type mid = lo + (hi - lo) / 2;
      if (first_team[mid] <= t) lo = mid; else hi = mid;
    }
    const size_type r     = lo;
    const size_type begin = ranges[2 * r], end = ranges[2 * r + 1];
    const size_type first = begin / word_bits + (t - first_team[r]) * words_per_team;
    const size_type last_word = (end - 1) / word_bits + 1;
    const size_type stop  = first + words_per_team < last_word ? first + words_per_team : last_word;
    const word_type* m    = mask;
    size_type set = 0;
    if constexpr (on_host) {
      set = count_words_on_cpu(m, first, stop, begin, end);
    } else {
      constexpr int items = static_cast<int>(launch_tuning<ExecSpace>::count_gpu_items);
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, team.team_size()),
          [&](int t, size_type& acc) {
            acc += count_block_on_gpu<items>(t, team.team_size(), m, first, stop, begin, end);
          },
          set);
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() { atomic_add_count(&counts(r), unset ? -set : set); });
  }
};

// Enqueues counts(r) = set bits (or, `unset`, unset bits) of `mask` in its bits
// [ranges[2r], ranges[2r+1]) for every r, counted from mask.begin_bit; ranges and counts checked.
// The ranges travel in a staging lease, so nothing is allocated. An absent mask has every bit set
// (an inverted absent one none).
template <class ExecSpace>
void count_ranges_into(const char* fn, const ExecSpace& exec, const source_mask& mask,
                       const std::vector<size_type>& ranges, bool unset,
                       const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts) {
  const std::string pre = std::string(fn) + "::";
  const size_type n     = static_cast<size_type>(ranges.size() / 2);
  if (n == 0) return;
  // The set bits of an inverted mask are the unset bits of the mask it complements.
  unset = unset != mask.invert;
  const size_type base = mask.words == nullptr ? 0 : mask.begin_bit;
  // Size the teams for the longest range, then give each range as many teams as it needs.
  size_type longest = 0;
  for (size_type r = 0; r < n; ++r)
    if (ranges[2 * r + 1] > ranges[2 * r])
      longest = std::max(longest, (base + ranges[2 * r + 1] - 1) / word_bits + 1 - (base + ranges[2 * r]) / word_bits);
  const team_shape shape = count_shape_for<ExecSpace>(std::max<size_type>(longest, 1));
  const std::size_t words = static_cast<std::size_t>(3 * n + 1);
  auto lease              = staging_pool<ExecSpace>::acquire(exec, words, words, pre + "ranges");
  size_type* bounds     = reinterpret_cast<size_type*>(lease.host());
  size_type* first_team = bounds + 2 * n;
  first_team[0]         = 0;
  // Teams per range by a shift where a team's words are a power of two (the GPU shapes): a
  // division per range was most of the host pass over 100,000 ranges.
  const std::uint64_t per_team = static_cast<std::uint64_t>(shape.words_per_team);
  int team_shift               = -1;
  if ((per_team & (per_team - 1)) == 0)
    for (team_shift = 0; (std::uint64_t{1} << team_shift) < per_team;) ++team_shift;
  for (size_type r = 0; r < n; ++r) {
    const size_type b = base + ranges[2 * r], e = base + ranges[2 * r + 1];
    bounds[2 * r]         = b;
    bounds[2 * r + 1]     = e;
    const std::uint64_t words =
        e > b ? static_cast<std::uint64_t>((e - 1) / word_bits + 1 - b / word_bits) : std::uint64_t{0};
    const std::uint64_t teams = team_shift >= 0 ? (words + per_team - 1) >> team_shift : (words + per_team - 1) / per_team;
    first_team[r + 1]         = first_team[r] + static_cast<size_type>(teams);
  }
  const size_type league = mask.words == nullptr ? 0 : first_team[n];
  check_league_size(fn, league);
  lease.upload(0, words);
  const size_type* dev = reinterpret_cast<const size_type*>(lease.device());
  // Every count starts as what an all-valid range would give; the kernel then adds set bits.
  const bool absent = mask.words == nullptr;
  Kokkos::parallel_for(
      pre + "start_counts", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(exec, 0, n),
      KOKKOS_LAMBDA(size_type r) {
        const size_type len = dev[2 * r + 1] - dev[2 * r];
        counts(r)           = absent ? (unset ? 0 : len) : (unset ? len : 0);
      });
  if (league == 0) return;
  range_count_functor<ExecSpace> f{mask.words, dev, dev + 2 * n, counts, n, shape.words_per_team, unset};
  Kokkos::parallel_for(pre + "words", Kokkos::TeamPolicy<ExecSpace>(exec, static_cast<int>(league), shape.team_size),
                       f);
}

// count_ranges_into() a new view of ranges.size() / 2 counts, labelled "<fn>::counts".
template <class ExecSpace>
Kokkos::View<size_type*, typename ExecSpace::memory_space> count_ranges(const char* fn, const ExecSpace& exec,
                                                                        const source_mask& mask,
                                                                        const std::vector<size_type>& ranges,
                                                                        bool unset) {
  using memory_space = typename ExecSpace::memory_space;
  Kokkos::View<size_type*, memory_space> counts(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, std::string(fn) + "::counts"),
      static_cast<size_type>(ranges.size() / 2));
  count_ranges_into(fn, exec, mask, ranges, unset, counts);
  return counts;
}

}  // namespace detail
}  // namespace kmask

#endif
