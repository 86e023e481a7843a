#ifndef KMASK_COPY_BITMASK_HPP
#define KMASK_COPY_BITMASK_HPP

/// \file copy_bitmask.hpp
/// \brief Copying a bit range of a mask into a new mask that starts at bit 0.

#include <kmask/detail/copy_bitmask_call.hpp>
#include <kmask/detail/segmented_calls.hpp>
#include <kmask/types.hpp>

namespace kmask {

/// \brief A new mask holding bits [begin_bit, end_bit) of `mask`, bit `begin_bit` becoming bit 0.
///
/// A padded allocation as create_mask() makes; bits past end_bit - begin_bit and padding words
/// are zero. An absent mask (null view) gives an all-valid mask. Asynchronous: valid after
/// `exec.fence()`.
/// \throws std::invalid_argument if `begin_bit` < 0 or `end_bit` < `begin_bit`;
///         std::out_of_range if `end_bit` > 32 * mask.extent(0).
template <class ExecSpace>
Kokkos::View<word_type*, typename ExecSpace::memory_space> copy_bitmask(
    const ExecSpace& exec, const Kokkos::View<const word_type*, typename ExecSpace::memory_space>& mask,
    size_type begin_bit, size_type end_bit) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::copy_bitmask: the first argument must be a Kokkos execution space");
  constexpr const char* fn = "kmask::copy_bitmask";
  detail::scoped_region region(fn);
  return detail::copy_bitmask_call(exec, detail::arg_names{fn}, detail::as_source(mask), begin_bit, end_bit);
}

/// copy_bitmask() of a raw mask: bits [begin_bit, end_bit) counted from `mask.begin_bit`. An inverted
/// mask (source_mask::invert) is copied complemented (an inverted absent one gives all null).
template <class ExecSpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
Kokkos::View<word_type*, typename ExecSpace::memory_space> copy_bitmask(const ExecSpace& exec, const source_mask& mask,
                                                                        size_type begin_bit, size_type end_bit) {
  constexpr const char* fn = "kmask::copy_bitmask";
  detail::scoped_region region(fn);
  detail::arg_names names{fn};
  names.pointers = true;
  return detail::copy_bitmask_call(exec, names, mask, begin_bit, end_bit);
}

/// copy_bitmask() on the execution space of the view's memory space.
template <class View, class = std::enable_if_t<Kokkos::is_view<View>::value>>
Kokkos::View<word_type*, typename detail::space_of<View>::memory_space> copy_bitmask(const View& mask,
                                                                                     size_type begin_bit,
                                                                                     size_type end_bit) {
  return copy_bitmask(detail::space_of<View>{}, mask, begin_bit, end_bit);
}

}  // namespace kmask

#endif
