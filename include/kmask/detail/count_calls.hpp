#ifndef KMASK_DETAIL_COUNT_CALLS_HPP
#define KMASK_DETAIL_COUNT_CALLS_HPP

// The counting calls behind count.hpp: one range counted by a reduction, many ranges in one launch.

#include <kmask/detail/compat.hpp>
#include <kmask/detail/count_kernels.hpp>
#include <kmask/detail/validation.hpp>
#include <kmask/types.hpp>

#include <cstdint>
#include <vector>

namespace kmask {
namespace detail {
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
  size_type total       = 0;
  const word_type* m    = mask.words;
  const size_type first = b / word_bits, stop = (e - 1) / word_bits + 1;
  if constexpr (uses_cpu_kernels<ExecSpace>()) {
    // A host thread per chunk of words, counted by count_words_on_cpu (popcnt, or a loop that vectorises).
    constexpr size_type chunk = launch_tuning<ExecSpace>::count_cpu_chunk_words;
    Kokkos::parallel_reduce(
        "kmask::count_set_bits::words",
        Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(exec, 0, (stop - first + chunk - 1) / chunk),
        KOKKOS_LAMBDA(size_type c, size_type & acc) {
          const size_type w0 = first + c * chunk;
          acc += count_words_on_cpu(m, w0, stop - w0 < chunk ? stop : w0 + chunk, b, e);
        },
        total);
  } else {
    // A range-policy reduction over groups of words: a team-per-block reduction (the segmented
    // counts' kernel) measured 1.7-3.2x slower here on the H200 with Kokkos 3.4.
    constexpr size_type group = count_groups_functor<true>::group;
    const Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>> groups(exec, first / group,
                                                                              (stop + group - 1) / group);
    if (reinterpret_cast<std::uintptr_t>(m) % 16 == 0) {
      Kokkos::parallel_reduce("kmask::count_set_bits::words", groups, count_groups_functor<true>{m, first, stop, b, e},
                              total);
    } else {
      Kokkos::parallel_reduce("kmask::count_set_bits::words", groups,
                              count_groups_functor<false>{m, first, stop, b, e}, total);
    }
  }
  exec.fence();
  return total;
}

template <class ExecSpace>
Kokkos::View<size_type*, typename ExecSpace::memory_space> segmented_count_call(const char* fn, const ExecSpace& exec,
                                                                                const source_mask& mask,
                                                                                const std::vector<size_type>& ranges,
                                                                                bool unset) {
  check_ranges(fn, mask, ranges);
  return count_ranges(fn, exec, mask, ranges, unset);
}

// The in-place form: the counts go into the caller's view (nothing allocated).
template <class ExecSpace>
void inplace_segmented_count_call(const char* fn, const ExecSpace& exec, const source_mask& mask,
                                  const std::vector<size_type>& ranges,
                                  const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts, bool unset) {
  check_ranges(fn, mask, ranges);
  check_counter_extent(fn, "counts", static_cast<size_type>(counts.extent(0)), static_cast<size_type>(ranges.size() / 2),
                       counts.data() == nullptr);
  count_ranges_into(fn, exec, mask, ranges, unset, counts);
}
}  // namespace detail
}  // namespace kmask

#endif
