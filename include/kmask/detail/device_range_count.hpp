#ifndef KMASK_DETAIL_DEVICE_RANGE_COUNT_HPP
#define KMASK_DETAIL_DEVICE_RANGE_COUNT_HPP

// Segmented counts whose ranges already live where the kernels read them (offsets an engine built
// on the device). Nothing crosses to the device, and the host cannot read the ranges to check them,
// so the device does: a check launch marks the first bad range (and lists the long ranges, which
// the count launch splits over teams: range_count_kernel.hpp), the count launch writes nothing
// when one is marked, and the call reads the mark back (its one wait) and throws the host check's
// message for that range.

#include <kmask/detail/count_calls.hpp>
#include <kmask/detail/count_kernels.hpp>
#include <kmask/detail/launch_tuning.hpp>
#include <kmask/detail/range_count_kernel.hpp>
#include <kmask/detail/staging_pool.hpp>
#include <kmask/detail/validation.hpp>
#include <kmask/types.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace kmask {
namespace detail {

// scratch[0] = max(scratch[0], n - r) for every range r that range_bounds_ok() refuses: n - (the
// first bad range), 0 when every range is good, so the mark can start in a lease's zeroed word.
// A good range longer than list.long_words words is listed while the list has room
// (long_range_list); scratch[2] and scratch[3] count the ranges and slices asked for either way.
struct range_check_functor {
  const size_type* bounds;
  size_type n;
  source_mask mask;
  size_type* scratch;
  long_range_list list;
  KOKKOS_INLINE_FUNCTION void operator()(size_type r) const {
    const size_type b = bounds[2 * r], e = bounds[2 * r + 1];
    if (!range_bounds_ok(mask, b, e)) {
      atomic_max_count(&scratch[0], n - r);
      return;
    }
    const size_type lo = mask.begin_bit + b, hi = mask.begin_bit + e;
    if (!list.is_long(mask.words, lo, hi)) return;
    const size_type slices = (words_of_bits(lo, hi) + list.long_words - 1) / list.long_words;
    const size_type k      = atomic_fetch_add_count(&scratch[2], 1);
    const size_type first  = atomic_fetch_add_count(&scratch[3], slices);
    if (k >= list.listed_cap || first + slices > list.slice_cap) return;  // the count launch splits nothing
    size_type* entry = list.longs + 6 * k;
    entry[0] = r, entry[1] = lo, entry[2] = hi, entry[3] = first, entry[4] = 0, entry[5] = 0;
    for (size_type j = first; j < first + slices; ++j) list.owner[j] = k;
  }
};

// The arguments the host can check: the list's length, the mask, a null ranges view.
inline void check_device_range_args(const char* fn, const source_mask& mask, const size_type* bounds,
                                    std::size_t num_bounds) {
  check_range_list(fn, mask, num_bounds);
  check_range_view(fn, num_bounds, bounds == nullptr);
}

// counts(r) = set bits (or, `unset`, unset bits) of `mask` in its bits [bounds[2r], bounds[2r+1])
// for r < num_bounds / 2, the bounds in memory `exec` reads, the host's checks passed. The ranges
// are checked before a count is written; waits for `exec`.
template <class ExecSpace>
void count_device_ranges_checked(const char* fn, const ExecSpace& exec, const source_mask& mask,
                                 const size_type* bounds, std::size_t num_bounds, bool unset,
                                 const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts) {
  const std::size_t n = num_bounds / 2;
  if (n == 0) return;
  if constexpr (uses_cpu_kernels<ExecSpace>()) {
    // The host reads the ranges itself (once the work that wrote them is done): the host-range path.
    exec.fence();
    count_checked_ranges(fn, exec, mask, bounds, num_bounds, unset, [&] { return counts; });
  } else {
    const std::string pre = std::string(fn) + "::";
    const size_type count = static_cast<size_type>(n);
    // Room to list every long range of a list whose ranges do not overlap: each is over long_words
    // words, so there are at most spans = extent / long_words of them, and their slices number at
    // most spans + 1 plus one a range (lists of overlapping ranges past that are counted unsplit).
    long_range_list list;
    list.long_words       = launch_tuning<ExecSpace>::count_gpu_range_long_words;
    const size_type spans = mask.words == nullptr ? 0 : mask.extent_words / list.long_words;
    const size_type most_long = std::min<size_type>(count, spans);
    list.listed_cap = most_long;
    list.slice_cap  = spans + 2 + most_long;
    const std::size_t list_words = most_long == 0 ? 0 : static_cast<std::size_t>(6 * list.listed_cap + list.slice_cap);
    const auto lease = staging_pool<ExecSpace>::acquire_scratch(exec, pre + "verdict", 1 + list_words);
    auto* scratch    = reinterpret_cast<size_type*>(lease.zeroed());
    auto* verdict    = reinterpret_cast<size_type*>(lease.result_word(0));
    if (most_long > 0) {  // device words past word 0 (the result word where kernels cannot write host words)
      list.longs = reinterpret_cast<size_type*>(lease.device()) + 1;
      list.owner = list.longs + 6 * list.listed_cap;
    }
    Kokkos::parallel_for(pre + "check_ranges",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(exec, 0, count),
                         range_check_functor{bounds, count, mask, scratch, list});
    // The host cannot read the ranges: lanes for the tiling's length.
    const size_type tiling_words = mask.words == nullptr ? 0 : mask.extent_words / count;
    enqueue_range_counts(pre + "device_ranges", exec, mask, bounds, count, unset, counts.data(), tiling_words, scratch,
                         verdict, list);
    const auto mark = static_cast<size_type>(lease.read_result(0));
    if (mark != 0) {
      const std::size_t r = n - static_cast<std::size_t>(mark);
      Kokkos::View<size_type[2], Kokkos::HostSpace> pair(pre + "bad_range");
      Kokkos::deep_copy(pair, Kokkos::View<const size_type[2], typename ExecSpace::memory_space,
                                           Kokkos::MemoryTraits<Kokkos::Unmanaged>>(bounds + 2 * r));
      report_refused_range(fn, mask, r, pair(0), pair(1));
    }
  }
}

// In place: every check, then the counts into the caller's view.
template <class ExecSpace>
void inplace_device_range_count_call(const char* fn, const ExecSpace& exec, const source_mask& mask,
                                     const size_type* bounds, std::size_t num_bounds, bool unset,
                                     const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts) {
  check_device_range_args(fn, mask, bounds, num_bounds);
  check_counter_extent(fn, "counts", static_cast<size_type>(counts.extent(0)), static_cast<size_type>(num_bounds / 2),
                       counts.data() == nullptr);
  count_device_ranges_checked(fn, exec, mask, bounds, num_bounds, unset, counts);
}

// Into a new view of num_bounds / 2 counts, labelled "<fn>::counts" (dropped when a range is bad).
template <class ExecSpace>
Kokkos::View<size_type*, typename ExecSpace::memory_space> device_range_count_call(const char* fn,
                                                                                   const ExecSpace& exec,
                                                                                   const source_mask& mask,
                                                                                   const size_type* bounds,
                                                                                   std::size_t num_bounds, bool unset) {
  check_device_range_args(fn, mask, bounds, num_bounds);
  Kokkos::View<size_type*, typename ExecSpace::memory_space> counts(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, std::string(fn) + "::counts"),
      static_cast<size_type>(num_bounds / 2));
  count_device_ranges_checked(fn, exec, mask, bounds, num_bounds, unset, counts);
  return counts;
}

}  // namespace detail
}  // namespace kmask

#endif
