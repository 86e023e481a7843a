#ifndef KMASK_DETAIL_COUNT_CALLS_HPP
#define KMASK_DETAIL_COUNT_CALLS_HPP

// The counting calls behind count.hpp: one range counted by one launch that fences, many ranges in
// one asynchronous launch.

#include <kmask/detail/batch_count.hpp>
#include <kmask/detail/compat.hpp>
#include <kmask/detail/count_kernels.hpp>
#include <kmask/detail/host_range_count.hpp>
#include <kmask/detail/validation.hpp>
#include <kmask/types.hpp>

#include <algorithm>
#include <cstdint>
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
// [ranges[2r], ranges[2r+1]) for r < num_bounds / 2 (`ranges` in host memory), counted from
// mask.begin_bit; ranges and counts checked.
// The ranges travel in a staging lease, so nothing is allocated. An absent mask has every bit set
// (an inverted absent one none).
//
// GPU form, ranges of at most count_gpu_thread_range_words words: a thread per range, one launch.
// Otherwise the batch count's launch over the ranges as a batch of one mask (batch_count.hpp:
// teams of several passes, per-range tickets, no start kernel).
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
    const size_type b = base + ranges[2 * r], e = base + ranges[2 * r + 1];
    return absent || e <= b ? size_type{0} : (e - 1) / word_bits + 1 - b / word_bits;
  };
  size_type longest = 0;
  for (std::size_t r = 0; r < n; ++r) longest = std::max(longest, words_of(r));
  if (uses_cpu_kernels<ExecSpace>() || longest > launch_tuning<ExecSpace>::count_gpu_thread_range_words) {
    const batch_teams teams = plan_batch_teams(fn, exec, n, words_of);
    enqueue_batch_counts(pre, exec, teams, n, [&](std::size_t r) {
      return batch_range{absent ? nullptr : mask.words, base + ranges[2 * r], base + ranges[2 * r + 1],
                         unset ? 1 : 0};
    }, counts);
    return;
  }
  auto lease        = staging_pool<ExecSpace>::acquire(exec, 2 * n, 2 * n, pre + "ranges");
  size_type* bounds = reinterpret_cast<size_type*>(lease.host());
  for (std::size_t r = 0; r < 2 * n; ++r) bounds[r] = base + ranges[r];
  lease.upload(0, 2 * n);
  Kokkos::parallel_for(pre + "short_ranges",
                       Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(exec, 0, static_cast<size_type>(n)),
                       short_range_count_functor<ExecSpace>{mask.words, reinterpret_cast<const size_type*>(lease.device()),
                                                            counts, unset});
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
