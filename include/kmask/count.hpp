#ifndef KMASK_COUNT_HPP
#define KMASK_COUNT_HPP

/// \file count.hpp
/// \brief Counting valid (set) and null (unset) bits over bit ranges of a mask.

#include <kmask/detail/compat.hpp>
#include <kmask/detail/count_kernels.hpp>
#include <kmask/detail/host_checks.hpp>
#include <kmask/types.hpp>

#include <vector>

namespace kmask {

/// \brief Number of set bits of `mask` in bits [begin_bit, end_bit).
///
/// Synchronous (the count comes back to the host). Reads only the words the range occupies.
/// \throws std::invalid_argument if `begin_bit` < 0, `end_bit` < `begin_bit`, or `mask` is a null
///         view and the range is not empty; std::out_of_range if `end_bit` > 32 * mask.extent(0).
template <class ExecSpace>
size_type count_set_bits(const ExecSpace& exec,
                         const Kokkos::View<const word_type*, typename ExecSpace::memory_space>& mask,
                         size_type begin_bit, size_type end_bit) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::count_set_bits: the first argument must be a Kokkos execution space");
  constexpr const char* fn = "kmask::count_set_bits";
  detail::scoped_region region(fn);
  detail::check_bit_range(fn, "mask", detail::extent_of(mask), begin_bit, end_bit);
  if (end_bit == begin_bit) return 0;
  size_type total       = 0;
  const word_type* m    = mask.data();
  const size_type first = begin_bit / word_bits, stop = (end_bit - 1) / word_bits + 1;
  if constexpr (detail::runs_on_host<ExecSpace>()) {
    // A host thread per chunk of words, counted by a loop that vectorises (detail::count_words_on_cpu).
    constexpr size_type chunk = detail::cpu_count_chunk_words;
    Kokkos::parallel_reduce(
        "kmask::count_set_bits::words",
        Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(exec, 0, (stop - first + chunk - 1) / chunk),
        KOKKOS_LAMBDA(size_type c, size_type & acc) {
          const size_type w0 = first + c * chunk;
          acc += detail::count_words_on_cpu(m, w0, stop - w0 < chunk ? stop : w0 + chunk, begin_bit, end_bit);
        },
        total);
  } else {
    Kokkos::parallel_reduce(
        "kmask::count_set_bits::words", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(exec, first, stop),
        KOKKOS_LAMBDA(size_type w, size_type & acc) { acc += detail::set_bits_in_range(m[w], w, begin_bit, end_bit); },
        total);
  }
  exec.fence();
  return total;
}

/// Number of unset (null) bits of `mask` in [begin_bit, end_bit). As count_set_bits().
template <class ExecSpace>
size_type count_unset_bits(const ExecSpace& exec,
                           const Kokkos::View<const word_type*, typename ExecSpace::memory_space>& mask,
                           size_type begin_bit, size_type end_bit) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::count_unset_bits: the first argument must be a Kokkos execution space");
  detail::scoped_region region("kmask::count_unset_bits");
  detail::check_bit_range("kmask::count_unset_bits", "mask", detail::extent_of(mask), begin_bit, end_bit);
  return (end_bit - begin_bit) - count_set_bits(exec, mask, begin_bit, end_bit);
}

/// \brief Set bits of `mask` in each range [ranges[2r], ranges[2r+1]).
///
/// Returns a device view of ranges.size() / 2 counts. Asynchronous: valid after `exec.fence()`.
/// All ranges are counted in one launch, however many and however long they are.
/// \throws std::invalid_argument for an odd ranges.size(), a negative begin, end < begin, or a null
///         mask with a non-empty range; std::out_of_range for an end past 32 * mask.extent(0).
template <class ExecSpace>
Kokkos::View<size_type*, typename ExecSpace::memory_space> segmented_count_set_bits(
    const ExecSpace& exec, const Kokkos::View<const word_type*, typename ExecSpace::memory_space>& mask,
    const std::vector<size_type>& ranges) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::segmented_count_set_bits: the first argument must be a Kokkos execution space");
  constexpr const char* fn = "kmask::segmented_count_set_bits";
  detail::scoped_region region(fn);
  detail::check_ranges(fn, detail::extent_of(mask), ranges);
  return detail::count_ranges(fn, exec, mask, ranges).counts;
}

/// Unset bits of `mask` in each range; as segmented_count_set_bits().
template <class ExecSpace>
Kokkos::View<size_type*, typename ExecSpace::memory_space> segmented_count_unset_bits(
    const ExecSpace& exec, const Kokkos::View<const word_type*, typename ExecSpace::memory_space>& mask,
    const std::vector<size_type>& ranges) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::segmented_count_unset_bits: the first argument must be a Kokkos execution space");
  constexpr const char* fn = "kmask::segmented_count_unset_bits";
  detail::scoped_region region(fn);
  detail::check_ranges(fn, detail::extent_of(mask), ranges);
  const auto set    = detail::count_ranges(fn, exec, mask, ranges);
  const auto counts = set.counts;
  const auto bounds = set.ranges;
  Kokkos::parallel_for(
      "kmask::segmented_count_unset_bits::complement",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(exec, 0, static_cast<size_type>(counts.extent(0))),
      KOKKOS_LAMBDA(size_type r) { counts(r) = (bounds(2 * r + 1) - bounds(2 * r)) - counts(r); });
  return counts;
}

/// count_set_bits() on the default execution space.
inline size_type count_set_bits(const Kokkos::View<const word_type*, Kokkos::DefaultExecutionSpace::memory_space>& mask,
                                size_type begin_bit, size_type end_bit) {
  return count_set_bits(Kokkos::DefaultExecutionSpace{}, mask, begin_bit, end_bit);
}
/// count_unset_bits() on the default execution space.
inline size_type count_unset_bits(
    const Kokkos::View<const word_type*, Kokkos::DefaultExecutionSpace::memory_space>& mask, size_type begin_bit,
    size_type end_bit) {
  return count_unset_bits(Kokkos::DefaultExecutionSpace{}, mask, begin_bit, end_bit);
}
/// segmented_count_set_bits() on the default execution space.
inline Kokkos::View<size_type*, Kokkos::DefaultExecutionSpace::memory_space> segmented_count_set_bits(
    const Kokkos::View<const word_type*, Kokkos::DefaultExecutionSpace::memory_space>& mask,
    const std::vector<size_type>& ranges) {
  return segmented_count_set_bits(Kokkos::DefaultExecutionSpace{}, mask, ranges);
}
/// segmented_count_unset_bits() on the default execution space.
inline Kokkos::View<size_type*, Kokkos::DefaultExecutionSpace::memory_space> segmented_count_unset_bits(
    const Kokkos::View<const word_type*, Kokkos::DefaultExecutionSpace::memory_space>& mask,
    const std::vector<size_type>& ranges) {
  return segmented_count_unset_bits(Kokkos::DefaultExecutionSpace{}, mask, ranges);
}

}  // namespace kmask

#endif
