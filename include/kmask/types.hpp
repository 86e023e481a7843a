#ifndef KMASK_TYPES_HPP
#define KMASK_TYPES_HPP

/// \file types.hpp
/// \brief Word and size types of a kmask validity mask, and the size arithmetic on them.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

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
///
/// `invert = true` makes it a *negated* source: every call that reads it (binop, segmented_binop,
/// the in-place forms and plans, superimpose_nulls' parent, copy_bitmask, the counts) reads the
/// complement of its bits, so AND-NOT, OR-NOT and NOT need no operator of their own. Only the bits
/// [begin_bit, begin_bit + size) a call reads are complemented; nothing past them reaches a result.
/// An inverted absent source (nullptr, extent 0) is the complement of all valid: every bit reads as
/// null (0). `{words, extent, begin_bit}` still initialises a plain source; see also inverted().
struct source_mask {
  const word_type* words = nullptr;  ///< first word of the allocation (or nullptr: all valid)
  size_type extent_words = 0;        ///< words the allocation holds
  size_type begin_bit    = 0;        ///< the allocation's bit that is the source's bit 0
  bool invert            = false;    ///< read the complement of every bit
};

/// \brief A destination mask given as a raw pointer: `extent_words` words starting at `words`,
/// written from bit 0. A null destination is an error wherever bits are written.
struct dest_mask {
  word_type* words       = nullptr;  ///< first word written
  size_type extent_words = 0;        ///< words the allocation holds
};

/// \brief The negated source of `mask` read from its bit `begin_bit`: a source_mask with `invert`
/// set over the view's words (a null view gives the inverted absent source: all null).
template <class View, class = std::enable_if_t<Kokkos::is_view<View>::value>>
source_mask inverted(const View& mask, size_type begin_bit = 0) {
  static_assert(View::rank == 1 && std::is_same<typename View::non_const_value_type, word_type>::value,
                "kmask::inverted: the mask must be a rank-1 view of kmask::word_type");
  return {mask.data(), static_cast<size_type>(mask.extent(0)), begin_bit, true};
}

/// The same source read complemented once more (`invert` flipped): inverted(inverted(m)) is m.
inline source_mask inverted(const source_mask& mask) {
  source_mask m = mask;
  m.invert      = !m.invert;
  return m;
}

/// A mask in memory space `MemorySpace`.
template <class MemorySpace>
using mask_view = Kokkos::View<word_type*, MemorySpace>;

/// A read-only mask in memory space `MemorySpace`.
template <class MemorySpace>
using const_mask_view = Kokkos::View<const word_type*, MemorySpace>;

}  // namespace kmask

#endif
