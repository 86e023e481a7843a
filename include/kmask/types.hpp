#ifndef KMASK_TYPES_HPP
#define KMASK_TYPES_HPP

/// \file types.hpp
/// \brief Word and size types of a kmask validity mask, and the size arithmetic on them.

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace kmask {

/// One mask word. Bit `i` of a mask is bit `i % 32` (least significant first) of word `i / 32`:
/// the cudf / Arrow validity layout. A set bit means "valid", an unset bit "null".
using word_type = std::uint32_t;

/// Every bit count, bit offset and null count. Signed 64-bit, so masks longer than 2^31 bits
/// (where cudf stops) work.
using size_type = std::int64_t;

/// Bits in one word.
constexpr size_type word_bits = 32;

/// Number of words that hold `bits` bits (0 for `bits <= 0`).
KOKKOS_INLINE_FUNCTION constexpr size_type num_words(size_type bits) noexcept {
  return bits <= 0 ? 0 : (bits + word_bits - 1) / word_bits;
}

/// Bytes of an allocation holding `bits` bits, rounded up to a multiple of `padding_bytes`
/// (64 by default: the Arrow rule, one cache line). `padding_bytes` must be a positive multiple of
/// `sizeof(word_type)`; `bits <= 0` gives 0.
KOKKOS_INLINE_FUNCTION constexpr size_type allocation_size_bytes(size_type bits,
                                                                 size_type padding_bytes = 64) noexcept {
  return (num_words(bits) * static_cast<size_type>(sizeof(word_type)) + padding_bytes - 1) / padding_bytes *
         padding_bytes;
}

/// Initial contents of a mask made by create_mask().
enum class mask_state {
  all_valid,     ///< every bit in [0, size_bits) set; bits past size_bits clear
  all_null,      ///< every word zero
  uninitialized  ///< contents unspecified (no fill kernel runs)
};

/// \brief A read-only source mask given as a raw pointer, as engines hold them (cudf's
/// `column_view::null_mask()`, an Arrow validity buffer).
///
/// Bit `i` of the source is bit `begin_bit + i` of `words`; `extent_words` is how many words the
/// allocation holds, and every bounds check is against it. `words == nullptr` with
/// `extent_words == 0` is a source without a mask: every bit reads as valid (1), cudf's convention
/// for a column with no null mask.
struct source_mask {
  const word_type* words = nullptr;  ///< first word of the allocation (or nullptr: all valid)
  size_type extent_words = 0;        ///< words the allocation holds
  size_type begin_bit    = 0;        ///< the allocation's bit that is the source's bit 0
};

/// \brief A destination mask given as a raw pointer: `extent_words` words starting at `words`,
/// written from bit 0. A null destination is an error wherever bits are written.
struct dest_mask {
  word_type* words       = nullptr;  ///< first word written
  size_type extent_words = 0;        ///< words the allocation holds
};

/// A mask in memory space `MemorySpace`.
template <class MemorySpace>
using mask_view = Kokkos::View<word_type*, MemorySpace>;

/// A read-only mask in memory space `MemorySpace`.
template <class MemorySpace>
using const_mask_view = Kokkos::View<const word_type*, MemorySpace>;

}  // namespace kmask

#endif
