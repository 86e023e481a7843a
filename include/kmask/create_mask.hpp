#ifndef KMASK_CREATE_MASK_HPP
#define KMASK_CREATE_MASK_HPP

/// \file create_mask.hpp
/// \brief Allocating a new mask.

#include <kmask/detail/compat.hpp>
#include <kmask/detail/host_checks.hpp>
#include <kmask/detail/word_access.hpp>
#include <kmask/types.hpp>

namespace kmask {

namespace detail {
// Allocates a padded mask of `size_bits` bits labelled `label`, filled as `state` says.
template <class ExecSpace>
Kokkos::View<word_type*, typename ExecSpace::memory_space> allocate_mask(const ExecSpace& exec, size_type size_bits,
                                                                         mask_state state, const std::string& label) {
  const size_type words = allocation_size_bytes(size_bits) / static_cast<size_type>(sizeof(word_type));
  Kokkos::View<word_type*, typename ExecSpace::memory_space> mask(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, label), words);
  if (state != mask_state::uninitialized && words > 0) {
    const bool valid = state == mask_state::all_valid;
    Kokkos::parallel_for(
        label + "::fill", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(exec, 0, words),
        KOKKOS_LAMBDA(size_type w) {
          mask(w) = valid && w < num_words(size_bits) ? valid_bits_of_word(w, size_bits) : word_type{0};
        });
  }
  return mask;
}
}  // namespace detail

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
