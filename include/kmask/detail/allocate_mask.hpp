#ifndef KMASK_DETAIL_ALLOCATE_MASK_HPP
#define KMASK_DETAIL_ALLOCATE_MASK_HPP

// A new padded mask, the allocation behind create_mask() and every call that returns a mask.

#include <kmask/detail/word_access.hpp>
#include <kmask/types.hpp>

#include <string>

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
}  // namespace kmask

#endif
