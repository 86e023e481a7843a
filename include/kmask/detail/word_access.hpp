#ifndef KMASK_DETAIL_WORD_ACCESS_HPP
#define KMASK_DETAIL_WORD_ACCESS_HPP

// Reading 32 bits of a mask from any bit offset, never touching a word past the last one the
// requested bits occupy: the bounds are the condition, checked before the read.

#include <kmask/types.hpp>

namespace kmask {
namespace detail {

// A source mask as the kernels see it.
struct source_ref {
  const word_type* data;
  size_type begin_bit;
};

// Word `w` of the view of `src` that starts at its begin_bit and is `size_bits` long; bits past
// size_bits in that word are whatever the mask holds there (callers clear them).
KOKKOS_FORCEINLINE_FUNCTION word_type load_shifted_word(const source_ref& src, size_type w, size_type size_bits) {
  const size_type bit   = src.begin_bit + w * word_bits;
  const size_type q     = bit / word_bits;
  const int shift       = static_cast<int>(bit % word_bits);
  const word_type lo    = src.data[q];
  if (shift == 0) return lo;
  const size_type last  = (src.begin_bit + size_bits - 1) / word_bits;
  const word_type hi    = q + 1 <= last ? src.data[q + 1] : word_type{0};
  return (lo >> shift) | (hi << (word_bits - shift));
}

// Bits of destination word `w` that lie inside [0, size_bits).
KOKKOS_FORCEINLINE_FUNCTION word_type valid_bits_of_word(size_type w, size_type size_bits) {
  const size_type rest = size_bits - w * word_bits;
  return rest >= word_bits ? ~word_type{0} : (word_type{1} << rest) - 1;
}

}  // namespace detail
}  // namespace kmask

#endif
