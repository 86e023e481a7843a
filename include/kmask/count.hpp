#ifndef KMASK_COUNT_HPP
#define KMASK_COUNT_HPP

/// \file count.hpp
/// \brief Counting valid (set) and null (unset) bits over bit ranges of a mask.
///
/// Every function takes the mask as a view (bits counted from the view's bit 0) or as a
/// source_mask (bits counted from its `begin_bit`). An absent mask (null view, or null words with
/// extent 0) has every bit set. An inverted source_mask (source_mask::invert) is counted complemented:
/// its set bits are the words' unset bits, and an inverted absent mask has none set.

#include <kmask/detail/count_calls.hpp>
#include <kmask/detail/mask_lists.hpp>
#include <kmask/types.hpp>

#include <type_traits>
#include <vector>

namespace kmask {

/// \brief Number of set bits of `mask` in bits [begin_bit, end_bit).
///
/// Synchronous: waits for `exec` to bring the count back. Reads only the words the range occupies.
/// \throws std::invalid_argument if `begin_bit` < 0 or `end_bit` < `begin_bit`;
///         std::out_of_range if `end_bit` > 32 * mask.extent(0).
template <class ExecSpace>
size_type count_set_bits(const ExecSpace& exec,
                         const Kokkos::View<const word_type*, typename ExecSpace::memory_space>& mask,
                         size_type begin_bit, size_type end_bit) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::count_set_bits: the first argument must be a Kokkos execution space");
  constexpr const char* fn = "kmask::count_set_bits";
  detail::scoped_region region(fn);
  return detail::count_set_bits_call(fn, exec, detail::as_source(mask), begin_bit, end_bit);
}

/// count_set_bits() of a raw mask (bits counted from `mask.begin_bit`).
template <class ExecSpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
size_type count_set_bits(const ExecSpace& exec, const source_mask& mask, size_type begin_bit, size_type end_bit) {
  constexpr const char* fn = "kmask::count_set_bits";
  detail::scoped_region region(fn);
  return detail::count_set_bits_call(fn, exec, mask, begin_bit, end_bit);
}

/// Number of unset (null) bits of `mask` in [begin_bit, end_bit). As count_set_bits().
template <class ExecSpace>
size_type count_unset_bits(const ExecSpace& exec,
                           const Kokkos::View<const word_type*, typename ExecSpace::memory_space>& mask,
                           size_type begin_bit, size_type end_bit) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::count_unset_bits: the first argument must be a Kokkos execution space");
  constexpr const char* fn = "kmask::count_unset_bits";
  detail::scoped_region region(fn);
  return (end_bit - begin_bit) - detail::count_set_bits_call(fn, exec, detail::as_source(mask), begin_bit, end_bit);
}

/// count_unset_bits() of a raw mask (bits counted from `mask.begin_bit`).
template <class ExecSpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
size_type count_unset_bits(const ExecSpace& exec, const source_mask& mask, size_type begin_bit, size_type end_bit) {
  constexpr const char* fn = "kmask::count_unset_bits";
  detail::scoped_region region(fn);
  return (end_bit - begin_bit) - detail::count_set_bits_call(fn, exec, mask, begin_bit, end_bit);
}

/// \brief Set bits of `mask` in each range [ranges[2r], ranges[2r+1]).
///
/// Returns a device view of ranges.size() / 2 counts. Asynchronous: valid after `exec.fence()`.
/// All ranges are counted in one launch, however many and however long they are.
/// \throws std::invalid_argument for an odd ranges.size(), a negative begin or end < begin;
///         std::out_of_range for an end past 32 * mask.extent(0).
template <class ExecSpace>
Kokkos::View<size_type*, typename ExecSpace::memory_space> segmented_count_set_bits(
    const ExecSpace& exec, const Kokkos::View<const word_type*, typename ExecSpace::memory_space>& mask,
    const std::vector<size_type>& ranges) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::segmented_count_set_bits: the first argument must be a Kokkos execution space");
  constexpr const char* fn = "kmask::segmented_count_set_bits";
  detail::scoped_region region(fn);
  return detail::segmented_count_call(fn, exec, detail::as_source(mask), ranges, false);
}

/// segmented_count_set_bits() of a raw mask (ranges counted from `mask.begin_bit`).
template <class ExecSpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
Kokkos::View<size_type*, typename ExecSpace::memory_space> segmented_count_set_bits(
    const ExecSpace& exec, const source_mask& mask, const std::vector<size_type>& ranges) {
  constexpr const char* fn = "kmask::segmented_count_set_bits";
  detail::scoped_region region(fn);
  return detail::segmented_count_call(fn, exec, mask, ranges, false);
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
  return detail::segmented_count_call(fn, exec, detail::as_source(mask), ranges, true);
}

/// segmented_count_unset_bits() of a raw mask (ranges counted from `mask.begin_bit`).
template <class ExecSpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
Kokkos::View<size_type*, typename ExecSpace::memory_space> segmented_count_unset_bits(
    const ExecSpace& exec, const source_mask& mask, const std::vector<size_type>& ranges) {
  constexpr const char* fn = "kmask::segmented_count_unset_bits";
  detail::scoped_region region(fn);
  return detail::segmented_count_call(fn, exec, mask, ranges, true);
}

/// \brief segmented_count_set_bits() into the caller's `counts` (counts(r) for range r), allocating
/// nothing: the form a table's per-column counts use when they stay on the device. Asynchronous.
/// \throws as segmented_count_set_bits(), and std::invalid_argument for a null `counts` /
///         std::out_of_range for counts.extent(0) < ranges.size() / 2, before anything is written.
template <class ExecSpace>
void inplace_segmented_count_set_bits(const ExecSpace& exec,
                                      const Kokkos::View<const word_type*, typename ExecSpace::memory_space>& mask,
                                      const std::vector<size_type>& ranges,
                                      const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::inplace_segmented_count_set_bits: the first argument must be a Kokkos execution space");
  constexpr const char* fn = "kmask::inplace_segmented_count_set_bits";
  detail::scoped_region region(fn);
  detail::inplace_segmented_count_call(fn, exec, detail::as_source(mask), ranges, counts, false);
}

/// inplace_segmented_count_set_bits() of a raw mask (ranges counted from `mask.begin_bit`).
template <class ExecSpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void inplace_segmented_count_set_bits(const ExecSpace& exec, const source_mask& mask,
                                      const std::vector<size_type>& ranges,
                                      const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts) {
  constexpr const char* fn = "kmask::inplace_segmented_count_set_bits";
  detail::scoped_region region(fn);
  detail::inplace_segmented_count_call(fn, exec, mask, ranges, counts, false);
}

/// Unset bits of `mask` in each range into `counts`; as inplace_segmented_count_set_bits().
template <class ExecSpace>
void inplace_segmented_count_unset_bits(const ExecSpace& exec,
                                        const Kokkos::View<const word_type*, typename ExecSpace::memory_space>& mask,
                                        const std::vector<size_type>& ranges,
                                        const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::inplace_segmented_count_unset_bits: the first argument must be a Kokkos execution space");
  constexpr const char* fn = "kmask::inplace_segmented_count_unset_bits";
  detail::scoped_region region(fn);
  detail::inplace_segmented_count_call(fn, exec, detail::as_source(mask), ranges, counts, true);
}

/// inplace_segmented_count_unset_bits() of a raw mask (ranges counted from `mask.begin_bit`).
template <class ExecSpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void inplace_segmented_count_unset_bits(const ExecSpace& exec, const source_mask& mask,
                                        const std::vector<size_type>& ranges,
                                        const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts) {
  constexpr const char* fn = "kmask::inplace_segmented_count_unset_bits";
  detail::scoped_region region(fn);
  detail::inplace_segmented_count_call(fn, exec, mask, ranges, counts, true);
}

/// count_set_bits() on the execution space of the view's memory space.
template <class View, class = std::enable_if_t<Kokkos::is_view<View>::value>>
size_type count_set_bits(const View& mask, size_type begin_bit, size_type end_bit) {
  return count_set_bits(detail::space_of<View>{}, mask, begin_bit, end_bit);
}
/// count_unset_bits() on the execution space of the view's memory space.
template <class View, class = std::enable_if_t<Kokkos::is_view<View>::value>>
size_type count_unset_bits(const View& mask, size_type begin_bit, size_type end_bit) {
  return count_unset_bits(detail::space_of<View>{}, mask, begin_bit, end_bit);
}
/// segmented_count_set_bits() on the execution space of the view's memory space.
template <class View, class = std::enable_if_t<Kokkos::is_view<View>::value>>
Kokkos::View<size_type*, typename detail::space_of<View>::memory_space> segmented_count_set_bits(
    const View& mask, const std::vector<size_type>& ranges) {
  return segmented_count_set_bits(detail::space_of<View>{}, mask, ranges);
}
/// segmented_count_unset_bits() on the execution space of the view's memory space.
template <class View, class = std::enable_if_t<Kokkos::is_view<View>::value>>
Kokkos::View<size_type*, typename detail::space_of<View>::memory_space> segmented_count_unset_bits(
    const View& mask, const std::vector<size_type>& ranges) {
  return segmented_count_unset_bits(detail::space_of<View>{}, mask, ranges);
}
/// inplace_segmented_count_set_bits() on the execution space of the views' memory space.
template <class View, class Counts, class = std::enable_if_t<Kokkos::is_view<View>::value>>
void inplace_segmented_count_set_bits(const View& mask, const std::vector<size_type>& ranges, const Counts& counts) {
  inplace_segmented_count_set_bits(detail::space_of<View>{}, mask, ranges, counts);
}
/// inplace_segmented_count_unset_bits() on the execution space of the views' memory space.
template <class View, class Counts, class = std::enable_if_t<Kokkos::is_view<View>::value>>
void inplace_segmented_count_unset_bits(const View& mask, const std::vector<size_type>& ranges, const Counts& counts) {
  inplace_segmented_count_unset_bits(detail::space_of<View>{}, mask, ranges, counts);
}

}  // namespace kmask

#endif
