#ifndef KMASK_DETAIL_COPY_BITMASK_CALL_HPP
#define KMASK_DETAIL_COPY_BITMASK_CALL_HPP

// copy_bitmask() as two pieces of the moving kernel (the range, then zeros through the new mask's
// padding): both travel in the launch's arguments, so the call is one allocation and one launch,
// with no descriptor upload and no null count nobody asked for.

#include <kmask/detail/move_bits_calls.hpp>
#include <kmask/detail/validation.hpp>
#include <kmask/types.hpp>

#include <string>

namespace kmask {
namespace detail {

// Bits [begin_bit, end_bit) of `mask` into a new mask from bit 0.
template <class ExecSpace>
Kokkos::View<word_type*, typename ExecSpace::memory_space> copy_bitmask_call(const ExecSpace& exec,
                                                                             const arg_names& names,
                                                                             const source_mask& mask,
                                                                             size_type begin_bit, size_type end_bit) {
  check_bit_range(names.fn, "mask", mask, begin_bit, end_bit);
  const source_mask from{mask.words, mask.extent_words, mask.words == nullptr ? 0 : mask.begin_bit + begin_bit,
                         mask.invert};
  const size_type size   = end_bit - begin_bit;
  const size_type padded = allocation_size_bytes(size) / static_cast<size_type>(sizeof(word_type));
  const Kokkos::View<word_type*, typename ExecSpace::memory_space> out(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, std::string(names.fn) + "::mask"), padded);
  const dest_mask d{out.data(), padded};
  run_moves(names.fn, exec,
            {copy_piece(d, 0, from, size, false, 0), constant_piece(d, size, padded * word_bits - size, false, 1)},
            nullptr);
  return out;
}

}  // namespace detail
}  // namespace kmask

#endif
