#ifndef KMASK_COPY_BITMASK_HPP
#define KMASK_COPY_BITMASK_HPP

/// \file copy_bitmask.hpp
/// \brief Copying a bit range of a mask into a new mask that starts at bit 0.

#include <kmask/binop.hpp>

#include <vector>

namespace kmask {

/// \brief A new mask holding bits [begin_bit, end_bit) of `mask`, bit `begin_bit` becoming bit 0.
///
/// A padded allocation as create_mask() makes; bits past end_bit - begin_bit and padding words
/// are zero. Asynchronous: valid after `exec.fence()`. Describes its source into the staging
/// buffers segmented_binop() uses (calls from several host threads queue on them).
/// \throws std::invalid_argument if `begin_bit` < 0, `end_bit` < `begin_bit` or `mask` is a null
///         view with a non-empty range; std::out_of_range if `end_bit` > 32 * mask.extent(0).
template <class ExecSpace>
Kokkos::View<word_type*, typename ExecSpace::memory_space> copy_bitmask(
    const ExecSpace& exec, const Kokkos::View<const word_type*, typename ExecSpace::memory_space>& mask,
    size_type begin_bit, size_type end_bit) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::copy_bitmask: the first argument must be a Kokkos execution space");
  constexpr const char* fn = "kmask::copy_bitmask";
  using memory_space       = typename ExecSpace::memory_space;
  detail::scoped_region region(fn);
  detail::check_bit_range(fn, "mask", detail::extent_of(mask), begin_bit, end_bit);
  const size_type size_bits = end_bit - begin_bit;
  const std::vector<Kokkos::View<const word_type*, memory_space>> one{mask};
  // The null count is a by-product nobody asked for here.
  return detail::combine_into_new_mask(fn, exec, bit_or{}, one, {begin_bit}, size_bits).first;
}

/// copy_bitmask() on the default execution space.
inline Kokkos::View<word_type*, Kokkos::DefaultExecutionSpace::memory_space> copy_bitmask(
    const Kokkos::View<const word_type*, Kokkos::DefaultExecutionSpace::memory_space>& mask, size_type begin_bit,
    size_type end_bit) {
  return copy_bitmask(Kokkos::DefaultExecutionSpace{}, mask, begin_bit, end_bit);
}

}  // namespace kmask

#endif
