#ifndef KMASK_CREATE_MASK_HPP
#define KMASK_CREATE_MASK_HPP

/// \file create_mask.hpp
/// \brief Allocating a new mask.

#include <kmask/detail/allocate_mask.hpp>
#include <kmask/detail/compat.hpp>
#include <kmask/detail/validation.hpp>
#include <kmask/types.hpp>

namespace kmask {

/// \brief A new mask of `size_bits` bits in `ExecSpace`'s memory space.
///
/// The allocation holds allocation_size_bytes(size_bits) bytes (a multiple of 64), so its extent is
/// usually more than num_words(size_bits). `all_valid` sets bits [0, size_bits) and clears every
/// other bit of the allocation; `all_null` clears every word; `uninitialized` runs no fill.
/// Asynchronous: the fill is enqueued on `exec`.
/// \throws std::invalid_argument if `size_bits` is negative.
template <class ExecSpace>
Kokkos::View<word_type*, typename ExecSpace::memory_space> create_mask(const ExecSpace& exec, size_type size_bits,
                                                                       mask_state state) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::create_mask: the first argument must be a Kokkos execution space");
  detail::scoped_region region("kmask::create_mask");
  detail::check_size_bits("kmask::create_mask", size_bits);
  return detail::allocate_mask(exec, size_bits, state, "kmask::create_mask::mask");
}

/// create_mask() on the default execution space.
inline Kokkos::View<word_type*, Kokkos::DefaultExecutionSpace::memory_space> create_mask(size_type size_bits,
                                                                                         mask_state state) {
  return create_mask(Kokkos::DefaultExecutionSpace{}, size_bits, state);
}

}  // namespace kmask

#endif
