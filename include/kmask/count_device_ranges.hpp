#ifndef KMASK_COUNT_DEVICE_RANGES_HPP
#define KMASK_COUNT_DEVICE_RANGES_HPP

/// \file count_device_ranges.hpp
/// \brief Segmented counts over ranges that are already in device memory.
///
/// An engine often has its segments' bounds on the device (a list column's offsets, turned into
/// {begin0, end0, begin1, end1, ...} by its own kernel). These overloads of the segmented counts
/// (count.hpp) take those bounds as a rank-1 contiguous view of size_type that `exec` can read, so
/// nothing crosses to the device, however many ranges there are. The host cannot read the bounds,
/// so the device checks them, with the host form's rules, before any count is written, and the
/// call waits for that check (it is synchronous, once): a bad range throws the host form's message
/// (`kmask::inplace_segmented_count_set_bits: ranges[7] = 5 is less than ranges[6] = 10`) and
/// writes no count. The counts stay on the device.

#include <kmask/detail/device_range_count.hpp>
#include <kmask/detail/mask_lists.hpp>
#include <kmask/detail/segmented_calls.hpp>
#include <kmask/types.hpp>

#include <type_traits>

namespace kmask {
namespace detail {
// A view of range bounds that ExecSpace reads: rank 1, size_type, contiguous.
template <class ExecSpace, class Ranges>
constexpr bool device_ranges_of() {
  static_assert(Ranges::rank == 1, "kmask: device ranges are a rank-1 view");
  static_assert(std::is_same<typename Ranges::non_const_value_type, size_type>::value,
                "kmask: device ranges are a view of kmask::size_type");
  static_assert(!std::is_same<typename Ranges::array_layout, Kokkos::LayoutStride>::value,
                "kmask: device ranges are a contiguous view (LayoutLeft or LayoutRight)");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Ranges::memory_space>::accessible,
                "kmask: device ranges must be in memory the execution space reads");
  return true;
}
template <class ExecSpace, class Ranges>
using if_device_ranges =
    std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value && Kokkos::is_view<Ranges>::value>;
}  // namespace detail

/// \brief counts(r) = set bits of `mask` in [ranges(2r), ranges(2r+1)), the ranges in device
/// memory. Synchronous (waits for the device's check of the ranges); the counts stay on the device.
/// \throws as the host-range form: std::invalid_argument for an odd ranges.extent(0), a negative
/// begin, an end below its begin, a null `counts` or `ranges` with entries; std::out_of_range for
/// an end past the mask's bits or counts.extent(0) < ranges.extent(0) / 2. Nothing is written then.
template <class ExecSpace, class Ranges, class = detail::if_device_ranges<ExecSpace, Ranges>>
void inplace_segmented_count_set_bits(const ExecSpace& exec,
                                      const Kokkos::View<const word_type*, typename ExecSpace::memory_space>& mask,
                                      const Ranges& ranges,
                                      const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts) {
  static_assert(detail::device_ranges_of<ExecSpace, Ranges>(), "");
  constexpr const char* fn = "kmask::inplace_segmented_count_set_bits";
  detail::scoped_region region(fn);
  detail::inplace_device_range_count_call(fn, exec, detail::as_source(mask), ranges.data(), ranges.extent(0), false,
                                          counts);
}

/// The same of a raw mask (ranges counted from `mask.begin_bit`).
template <class ExecSpace, class Ranges, class = detail::if_device_ranges<ExecSpace, Ranges>>
void inplace_segmented_count_set_bits(const ExecSpace& exec, const source_mask& mask, const Ranges& ranges,
                                      const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts) {
  static_assert(detail::device_ranges_of<ExecSpace, Ranges>(), "");
  constexpr const char* fn = "kmask::inplace_segmented_count_set_bits";
  detail::scoped_region region(fn);
  detail::inplace_device_range_count_call(fn, exec, mask, ranges.data(), ranges.extent(0), false, counts);
}

/// Unset bits of `mask` in each device range into `counts`; as above.
template <class ExecSpace, class Ranges, class = detail::if_device_ranges<ExecSpace, Ranges>>
void inplace_segmented_count_unset_bits(const ExecSpace& exec,
                                        const Kokkos::View<const word_type*, typename ExecSpace::memory_space>& mask,
                                        const Ranges& ranges,
                                        const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts) {
  static_assert(detail::device_ranges_of<ExecSpace, Ranges>(), "");
  constexpr const char* fn = "kmask::inplace_segmented_count_unset_bits";
  detail::scoped_region region(fn);
  detail::inplace_device_range_count_call(fn, exec, detail::as_source(mask), ranges.data(), ranges.extent(0), true,
                                          counts);
}

/// The same of a raw mask (ranges counted from `mask.begin_bit`).
template <class ExecSpace, class Ranges, class = detail::if_device_ranges<ExecSpace, Ranges>>
void inplace_segmented_count_unset_bits(const ExecSpace& exec, const source_mask& mask, const Ranges& ranges,
                                        const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts) {
  static_assert(detail::device_ranges_of<ExecSpace, Ranges>(), "");
  constexpr const char* fn = "kmask::inplace_segmented_count_unset_bits";
  detail::scoped_region region(fn);
  detail::inplace_device_range_count_call(fn, exec, mask, ranges.data(), ranges.extent(0), true, counts);
}

/// \brief A new device view of ranges.extent(0) / 2 counts: set bits of `mask` in each device
/// range. Synchronous, as inplace_segmented_count_set_bits() with device ranges.
template <class ExecSpace, class Ranges, class = detail::if_device_ranges<ExecSpace, Ranges>>
Kokkos::View<size_type*, typename ExecSpace::memory_space> segmented_count_set_bits(
    const ExecSpace& exec, const Kokkos::View<const word_type*, typename ExecSpace::memory_space>& mask,
    const Ranges& ranges) {
  static_assert(detail::device_ranges_of<ExecSpace, Ranges>(), "");
  constexpr const char* fn = "kmask::segmented_count_set_bits";
  detail::scoped_region region(fn);
  return detail::device_range_count_call(fn, exec, detail::as_source(mask), ranges.data(), ranges.extent(0), false);
}

/// The same of a raw mask (ranges counted from `mask.begin_bit`).
template <class ExecSpace, class Ranges, class = detail::if_device_ranges<ExecSpace, Ranges>>
Kokkos::View<size_type*, typename ExecSpace::memory_space> segmented_count_set_bits(const ExecSpace& exec,
                                                                                    const source_mask& mask,
                                                                                    const Ranges& ranges) {
  static_assert(detail::device_ranges_of<ExecSpace, Ranges>(), "");
  constexpr const char* fn = "kmask::segmented_count_set_bits";
  detail::scoped_region region(fn);
  return detail::device_range_count_call(fn, exec, mask, ranges.data(), ranges.extent(0), false);
}

/// Unset bits of `mask` in each device range, a new view; as segmented_count_set_bits() above.
template <class ExecSpace, class Ranges, class = detail::if_device_ranges<ExecSpace, Ranges>>
Kokkos::View<size_type*, typename ExecSpace::memory_space> segmented_count_unset_bits(
    const ExecSpace& exec, const Kokkos::View<const word_type*, typename ExecSpace::memory_space>& mask,
    const Ranges& ranges) {
  static_assert(detail::device_ranges_of<ExecSpace, Ranges>(), "");
  constexpr const char* fn = "kmask::segmented_count_unset_bits";
  detail::scoped_region region(fn);
  return detail::device_range_count_call(fn, exec, detail::as_source(mask), ranges.data(), ranges.extent(0), true);
}

/// The same of a raw mask (ranges counted from `mask.begin_bit`).
template <class ExecSpace, class Ranges, class = detail::if_device_ranges<ExecSpace, Ranges>>
Kokkos::View<size_type*, typename ExecSpace::memory_space> segmented_count_unset_bits(const ExecSpace& exec,
                                                                                      const source_mask& mask,
                                                                                      const Ranges& ranges) {
  static_assert(detail::device_ranges_of<ExecSpace, Ranges>(), "");
  constexpr const char* fn = "kmask::segmented_count_unset_bits";
  detail::scoped_region region(fn);
  return detail::device_range_count_call(fn, exec, mask, ranges.data(), ranges.extent(0), true);
}

/// inplace_segmented_count_set_bits() with device ranges on the execution space of the views'
/// memory space.
template <class View, class Ranges, class Counts,
          class = std::enable_if_t<Kokkos::is_view<View>::value && Kokkos::is_view<Ranges>::value>>
void inplace_segmented_count_set_bits(const View& mask, const Ranges& ranges, const Counts& counts) {
  inplace_segmented_count_set_bits(detail::space_of<View>{}, mask, ranges, counts);
}
/// inplace_segmented_count_unset_bits() with device ranges on the views' execution space.
template <class View, class Ranges, class Counts,
          class = std::enable_if_t<Kokkos::is_view<View>::value && Kokkos::is_view<Ranges>::value>>
void inplace_segmented_count_unset_bits(const View& mask, const Ranges& ranges, const Counts& counts) {
  inplace_segmented_count_unset_bits(detail::space_of<View>{}, mask, ranges, counts);
}

}  // namespace kmask

#endif
