#ifndef KMASK_DETAIL_COUNT_CALLS_HPP
#define KMASK_DETAIL_COUNT_CALLS_HPP

// The counting calls behind count.hpp: one range counted by one launch that fences, many ranges in
// one asynchronous launch.

#include <kmask/detail/batch_count.hpp>
#include <kmask/detail/compat.hpp>
#include <kmask/detail/count_kernels.hpp>
#include <kmask/detail/host_range_count.hpp>
#include <kmask/detail/range_count_kernel.hpp>
#include <kmask/detail/staging_pool.hpp>
#include <kmask/detail/validation.hpp>
#include <kmask/types.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace kmask {
namespace detail {
// count_set_bits' GPU form (count_stride_functor), enqueued on `exec`: one launch of at most
// count_gpu_teams_per_sm teams per SM, each thread's loads strided by the whole launch. Its total
// and ticket are the staging lease's zeroed words, its count the lease's result word. Returns
// after the fence.
template <class ExecSpace>
size_type count_on_gpu(const char* label, const ExecSpace& exec, const word_type* m, size_type first, size_type stop,
                       size_type b, size_type e) {
  using tuning           = launch_tuning<ExecSpace>;
  constexpr int items    = static_cast<int>(tuning::count_gpu_items);
  const int team         = runs_on_host<ExecSpace>() ? 1 : tuning::count_gpu_team;  // emulated: host teams are one thread
  // Units of 4 words (count_words_by_units' loads), counted from the words the range touches.
  const size_type units  = (stop - first) / 4;
  const size_type most   = tuning::count_gpu_teams_per_sm * device_shape_of(exec).multiprocessors;
  const size_type league = std::max<size_type>(1, std::min<size_type>(most, (units + team - 1) / team));
  const size_type threads = league * team;
  const auto lease        = staging_pool<ExecSpace>::acquire_scratch(exec, std::string(label) + "::result");
  auto* result            = reinterpret_cast<size_type*>(lease.result_word(0));
  auto* scratch           = reinterpret_cast<size_type*>(lease.zeroed());
  static_assert(tuning::count_gpu_team % 32 == 0, "whole warps: a CUDA warp's sum is one part");
  using functor           = count_stride_functor<ExecSpace, items>;
  Kokkos::parallel_for(label, Kokkos::TeamPolicy<ExecSpace>(exec, static_cast<int>(league), team),
                       functor{m, first, stop, b, e, threads, scratch, result});
  return static_cast<size_type>(lease.read_result(0));
}

template <class ExecSpace>
size_type count_set_bits_call(const char* fn, const ExecSpace& exec, const source_mask& mask, size_type begin_bit,
                              size_type end_bit) {
  if (mask.invert) {
    // The set bits of the complement are the unset bits of the mask (checked in the inner call).
    const size_type set = count_set_bits_call(fn, exec, inverted(mask), begin_bit, end_bit);
    return (end_bit - begin_bit) - set;
  }
  if (!check_bit_range(fn, "mask", mask, begin_bit, end_bit)) return end_bit - begin_bit;  // absent: all set
  if (end_bit == begin_bit) return 0;
  const size_type b = mask.begin_bit + begin_bit, e = mask.begin_bit + end_bit;
  const word_type* m    = mask.words;
  const size_type first = b / word_bits, stop = (e - 1) / word_bits + 1;
  if constexpr (uses_cpu_kernels<ExecSpace>()) {
    // A host thread per chunk of words, counted by count_words_on_cpu (popcnt, or a loop that vectorises).
    constexpr size_type chunk = launch_tuning<ExecSpace>::count_cpu_chunk_words;
    size_type total           = 0;
    Kokkos::parallel_reduce(
        "kmask::count_set_bits::words",
        Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(exec, 0, (stop - first + chunk - 1) / chunk),
        KOKKOS_LAMBDA(size_type c, size_type & acc) {
          const size_type w0 = first + c * chunk;
          acc += count_words_on_cpu(m, w0, stop - w0 < chunk ? stop : w0 + chunk, b, e);
        },
        total);
    exec.fence();
    return total;
  } else {
    return count_on_gpu("kmask::count_set_bits::words", exec, m, first, stop, b, e);
  }
}

// Enqueues counts(r) = set bits (or, `unset`, unset bits) of `mask` in its bits
// [ranges[2r], ranges[2r+1]) for r < num_bounds / 2 (`ranges` in host memory, checked), counted
// from mask.begin_bit, by the batch count's launch over the ranges as a batch of one mask
// (batch_count.hpp: teams of several passes, a long range split over teams, per-range tickets, no
// start kernel). Nothing is allocated. An absent mask has every bit set (an inverted absent one none).
template <class ExecSpace>
void count_ranges_into(const char* fn, const ExecSpace& exec, const source_mask& mask, const size_type* ranges,
                       std::size_t num_bounds, bool unset,
                       const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts) {
  const std::string pre = std::string(fn) + "::";
  const std::size_t n   = num_bounds / 2;
  if (n == 0) return;
  // The set bits of an inverted mask are the unset bits of the mask it complements.
  unset = unset != mask.invert;
  const bool absent    = mask.words == nullptr;
  const size_type base = absent ? 0 : mask.begin_bit;
  const auto words_of  = [&](std::size_t r) {
    return absent ? size_type{0} : words_of_bits(base + ranges[2 * r], base + ranges[2 * r + 1]);
  };
  const batch_teams teams = plan_batch_teams(fn, exec, n, words_of);
  enqueue_batch_counts(pre, exec, teams, n, [&](std::size_t r) {
    return batch_range{absent ? nullptr : mask.words, base + ranges[2 * r], base + ranges[2 * r + 1], unset ? 1 : 0};
  }, counts);
}

// The GPU form's pass over host ranges, on the calling thread: each chunk of the list is checked,
// copied into a staging lease and its upload enqueued before the next chunk is read, so the link
// carries one chunk while the thread checks the next. Also sums the words the ranges touch and
// finds the longest. A refused range throws the host check's message (the chunks before it went
// up to the lease's device words; nothing is counted).
template <class ExecSpace>
struct staged_ranges {
  typename staging_pool<ExecSpace>::lease lease;
  size_type words   = 0;
  size_type longest = 0;
};

template <class ExecSpace>
staged_ranges<ExecSpace> stage_checked_ranges(const char* fn, const ExecSpace& exec, const source_mask& mask,
                                              const size_type* ranges, std::size_t num_bounds) {
  constexpr std::size_t chunk = launch_tuning<ExecSpace>::count_gpu_stage_chunk_ranges;
  const std::size_t n         = num_bounds / 2;
  staged_ranges<ExecSpace> s{staging_pool<ExecSpace>::acquire(exec, 2 * n, 2 * n, std::string(fn) + "::ranges")};
  auto* staged         = reinterpret_cast<size_type*>(s.lease.host());
  const bool absent    = mask.words == nullptr;
  const size_type base = absent ? 0 : mask.begin_bit;
  const size_type limit = range_end_limit(mask);  // range_bounds_ok()'s, hoisted
  for (std::size_t c0 = 0; c0 < n; c0 += chunk) {
    const std::size_t c1 = std::min(n, c0 + chunk);
    std::memcpy(staged + 2 * c0, ranges + 2 * c0, 2 * (c1 - c0) * sizeof(size_type));
    bool ok = true;
    size_type words = 0, longest = s.longest;
    for (std::size_t r = c0; r < c1; ++r) {
      const size_type b = ranges[2 * r], e = ranges[2 * r + 1];
      const bool good   = range_within(b, e, limit);
      ok &= good;
      // A refused range reads as empty: base + e cannot overflow once e <= limit.
      const size_type gb = good ? b : 0, ge = good ? e : 0;
      const size_type counted = absent ? 0 : words_of_bits(base + gb, base + ge);
      words += counted;
      longest = counted > longest ? counted : longest;
    }
    if (!ok) check_range_pairs(fn, mask, ranges, 2 * c1);  // throws the first refused pair's message
    s.words += words;
    s.longest = longest;
    s.lease.upload(2 * c0, 2 * c1);
  }
  return s;
}

// Counts of the num_bounds / 2 ranges at `ranges` (memory the host reads, a list whose shape
// check_range_list() passed) into counts_after_checks(), which is called once every range is
// checked (a refused range throws first, with nothing written). Where host_range_list_pays, the
// space's threads check and count the list (host_range_count.hpp); otherwise the calling thread
// checks it and one launch counts it.
template <class ExecSpace, class CountsAfterChecks>
auto count_checked_ranges(const char* fn, const ExecSpace& exec, const source_mask& mask, const size_type* ranges,
                          std::size_t num_bounds, bool unset, const CountsAfterChecks& counts_after_checks) {
  if constexpr (uses_cpu_kernels<ExecSpace>()) {
    if (host_range_list_pays<ExecSpace>(num_bounds / 2)) {
      const auto list = check_host_ranges(fn, exec, mask, ranges, num_bounds);
      auto counts     = counts_after_checks();
      if (list.whole) count_host_ranges(fn, exec, list, mask, unset, counts);
      else count_ranges_into(fn, exec, mask, ranges, num_bounds, unset, counts);
      return counts;
    }
  }
  if constexpr (!uses_cpu_kernels<ExecSpace>()) {
    // The GPU form: the list staged and checked by chunks, then one launch, the lanes that share a
    // range sized for the mean range. A list with a range longer than a group of lanes reads well
    // goes to the batch launch, which splits long ranges over teams (the host knows their lengths).
    const auto staged = stage_checked_ranges(fn, exec, mask, ranges, num_bounds);
    auto counts       = counts_after_checks();
    const auto n      = static_cast<size_type>(num_bounds / 2);
    if (n == 0) return counts;
    const size_type mean = staged.words / n;
    if (staged.longest > launch_tuning<ExecSpace>::count_gpu_range_long_words) {
      count_ranges_into(fn, exec, mask, ranges, num_bounds, unset, counts);
      return counts;
    }
    const auto scratch_lease = staging_pool<ExecSpace>::acquire_scratch(exec, std::string(fn) + "::ranges_scratch");
    // The mark (scratch[0]) stays zero: the host checked every range. The verdict word is unread.
    auto* scratch = reinterpret_cast<size_type*>(scratch_lease.zeroed());
    enqueue_range_counts(std::string(fn) + "::ranges", exec, mask,
                         reinterpret_cast<const size_type*>(staged.lease.device()), n, unset, counts.data(), mean,
                         scratch, reinterpret_cast<size_type*>(scratch_lease.result_word(0)));
    return counts;
  }
  check_range_pairs(fn, mask, ranges, num_bounds);
  auto counts = counts_after_checks();
  count_ranges_into(fn, exec, mask, ranges, num_bounds, unset, counts);
  return counts;
}

// A new view of ranges.size() / 2 counts, labelled "<fn>::counts", allocated once the ranges pass.
template <class ExecSpace>
Kokkos::View<size_type*, typename ExecSpace::memory_space> segmented_count_call(const char* fn, const ExecSpace& exec,
                                                                                const source_mask& mask,
                                                                                const std::vector<size_type>& ranges,
                                                                                bool unset) {
  using counts_view = Kokkos::View<size_type*, typename ExecSpace::memory_space>;
  check_range_list(fn, mask, ranges.size());
  return count_checked_ranges(fn, exec, mask, ranges.data(), ranges.size(), unset, [&] {
    return counts_view(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, std::string(fn) + "::counts"),
                       static_cast<size_type>(ranges.size() / 2));
  });
}

// The in-place form: the counts go into the caller's view (nothing allocated), its extent checked
// after the ranges.
template <class ExecSpace>
void inplace_segmented_count_call(const char* fn, const ExecSpace& exec, const source_mask& mask,
                                  const std::vector<size_type>& ranges,
                                  const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts, bool unset) {
  check_range_list(fn, mask, ranges.size());
  count_checked_ranges(fn, exec, mask, ranges.data(), ranges.size(), unset, [&] {
    check_counter_extent(fn, "counts", static_cast<size_type>(counts.extent(0)),
                         static_cast<size_type>(ranges.size() / 2), counts.data() == nullptr);
    return counts;
  });
}
}  // namespace detail
}  // namespace kmask

#endif
