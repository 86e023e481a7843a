#ifndef KMASK_MOVE_BITS_HPP
#define KMASK_MOVE_BITS_HPP

/// \file move_bits.hpp
/// \brief Moving validity: setting bit ranges (set_bits, set_bits_bulk), copying bits between any
/// bit offsets (copy_bits, segmented_copy_bits) and stitching pieces together (concatenate,
/// inplace_concatenate).
///
/// Every call writes only the destination bits it names: the other bits of a destination,
/// including those sharing a word with a written range, are unchanged (except concatenate, which
/// writes its destination from bit 0 to the end of its last word). Pieces of one call that share a
/// destination word all land. A source that overlaps a destination in memory is read as it was
/// before the call. An absent source (null view, or a source_mask with `words == nullptr` and
/// `extent_words == 0`) reads as all valid. Everything is checked on the host before any work is
/// enqueued: a rejected call writes nothing.

#include <kmask/detail/compat.hpp>
#include <kmask/detail/mask_lists.hpp>
#include <kmask/detail/move_bits_calls.hpp>
#include <kmask/detail/move_bits_list_calls.hpp>
#include <kmask/detail/segmented_calls.hpp>
#include <kmask/types.hpp>

#include <utility>
#include <vector>

namespace kmask {

// ---- set_bits --------------------------------------------------------------------------------

/// \brief Bits [begin_bit, end_bit) of `mask` become 1 (`valid`) or 0; every other bit is unchanged.
///
/// Asynchronous: done after `exec.fence()`.
/// \throws std::invalid_argument if `begin_bit` < 0, `end_bit` < `begin_bit`, either is above
///         2^62 - 1, or `mask` is a null view and the range is not empty;
///         std::out_of_range if `end_bit` > 32 * mask.extent(0).
template <class ExecSpace>
void set_bits(const ExecSpace& exec, const Kokkos::View<word_type*, typename ExecSpace::memory_space>& mask,
              size_type begin_bit, size_type end_bit, bool valid) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::set_bits: the first argument must be a Kokkos execution space");
  detail::scoped_region region("kmask::set_bits");
  detail::set_bits_call(exec, detail::set_bits_names(), detail::as_dest(mask), begin_bit, end_bit, valid);
}

/// set_bits() of a raw mask: bits [begin_bit, end_bit) of `mask.words`, within `mask.extent_words`.
template <class ExecSpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void set_bits(const ExecSpace& exec, const dest_mask& mask, size_type begin_bit, size_type end_bit, bool valid) {
  detail::scoped_region region("kmask::set_bits");
  auto n     = detail::set_bits_names();
  n.pointers = true;
  detail::set_bits_call(exec, n, mask, begin_bit, end_bit, valid);
}

/// set_bits() on the execution space of the view's memory space.
template <class View, class = std::enable_if_t<Kokkos::is_view<View>::value>>
void set_bits(const View& mask, size_type begin_bit, size_type end_bit, bool valid) {
  set_bits(detail::space_of<View>{}, mask, begin_bit, end_bit, valid);
}

/// \brief Many set_bits() in one launch: bits [begin_bits[i], end_bits[i]) of `masks[i]` become
/// `valid[i]`.
///
/// `masks` may name one view many times (many ranges of one mask); ranges that overlap within
/// one mask are refused, ranges that only share a word both land. Asynchronous.
/// \throws std::invalid_argument if the four vectors differ in length, for a range as set_bits()
///         (naming `begin_bits[i]`, `end_bits[i]`, `masks[i]`), or if two ranges overlap;
///         std::out_of_range if a range ends past its mask.
template <class ExecSpace, class View>
void set_bits_bulk(const ExecSpace& exec, const std::vector<View>& masks, const std::vector<size_type>& begin_bits,
                   const std::vector<size_type>& end_bits, const std::vector<bool>& valid) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::set_bits_bulk: the first argument must be a Kokkos execution space");
  KMASK_CHECK_MASK_VIEW("kmask::set_bits_bulk", View, ExecSpace, "masks");
  static_assert(!std::is_const<typename View::value_type>::value, "kmask::set_bits_bulk: masks are written");
  detail::scoped_region region("kmask::set_bits_bulk");
  detail::set_bits_bulk_call(exec, detail::set_bits_bulk_names(false),
                             detail::view_dests<View>{masks.data(), masks.size()}, begin_bits, end_bits, valid);
}

/// set_bits_bulk() of raw masks.
template <class ExecSpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void set_bits_bulk(const ExecSpace& exec, const std::vector<dest_mask>& masks, const std::vector<size_type>& begin_bits,
                   const std::vector<size_type>& end_bits, const std::vector<bool>& valid) {
  detail::scoped_region region("kmask::set_bits_bulk");
  detail::set_bits_bulk_call(exec, detail::set_bits_bulk_names(true), detail::pointer_dests{masks.data(), masks.size()},
                             begin_bits, end_bits, valid);
}

/// set_bits_bulk() on the execution space of the views' memory space.
template <class View, class = std::enable_if_t<Kokkos::is_view<View>::value>>
void set_bits_bulk(const std::vector<View>& masks, const std::vector<size_type>& begin_bits,
                   const std::vector<size_type>& end_bits, const std::vector<bool>& valid) {
  set_bits_bulk(detail::space_of<View>{}, masks, begin_bits, end_bits, valid);
}

// ---- copy_bits -------------------------------------------------------------------------------

/// \brief Bits [dest_begin_bit, dest_begin_bit + size_bits) of `dest` get bits
/// [src_begin_bit, src_begin_bit + size_bits) of `src`; every other bit of `dest` is unchanged.
///
/// Any bit offsets on both sides. If `src` and `dest` overlap in memory, the result is the one
/// the source's contents before the call define (the overlapping source is copied aside first).
/// An absent `src` writes ones. Asynchronous.
/// \throws std::invalid_argument for a negative or too large size or begin bit, a null `dest` when
///         bits are written, a null `src` with a nonzero extent;
///         std::out_of_range if either range ends past its view.
template <class ExecSpace>
void copy_bits(const ExecSpace& exec, const Kokkos::View<word_type*, typename ExecSpace::memory_space>& dest,
               size_type dest_begin_bit, const Kokkos::View<const word_type*, typename ExecSpace::memory_space>& src,
               size_type src_begin_bit, size_type size_bits) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::copy_bits: the first argument must be a Kokkos execution space");
  detail::scoped_region region("kmask::copy_bits");
  detail::copy_bits_call(exec, detail::copy_bits_names(false), detail::as_dest(dest), dest_begin_bit,
                         detail::as_source(src, src_begin_bit), size_bits);
}

/// copy_bits() of raw masks: the source is read from `src.begin_bit`.
template <class ExecSpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void copy_bits(const ExecSpace& exec, const dest_mask& dest, size_type dest_begin_bit, const source_mask& src,
               size_type size_bits) {
  detail::scoped_region region("kmask::copy_bits");
  detail::copy_bits_call(exec, detail::copy_bits_names(true), dest, dest_begin_bit, src, size_bits);
}

/// copy_bits() on the execution space of the views' memory space.
template <class DestView, class SourceView, class = std::enable_if_t<Kokkos::is_view<DestView>::value>>
void copy_bits(const DestView& dest, size_type dest_begin_bit, const SourceView& src, size_type src_begin_bit,
               size_type size_bits) {
  copy_bits(detail::space_of<DestView>{}, dest, dest_begin_bit, src, src_begin_bit, size_bits);
}

/// \brief Many copy_bits() in one launch: `sizes_bits[i]` bits of `srcs[i]` from `src_begin_bits[i]`
/// into `dests[i]` from `dest_begin_bits[i]`.
///
/// `dests` may repeat a view; copies whose destination bit ranges overlap are refused, copies that
/// only share a destination word both land. Sources overlapping any destination are read as
/// before the call. Asynchronous.
/// \throws std::invalid_argument if the vectors differ in length, for a piece as copy_bits()
///         (naming `dests[i]`, `srcs[i]`, ...), or if two destination ranges overlap;
///         std::out_of_range if a range ends past its view.
template <class ExecSpace, class DestView, class SourceView>
void segmented_copy_bits(const ExecSpace& exec, const std::vector<DestView>& dests,
                         const std::vector<size_type>& dest_begin_bits, const std::vector<SourceView>& srcs,
                         const std::vector<size_type>& src_begin_bits, const std::vector<size_type>& sizes_bits) {
  constexpr const char* fn = "kmask::segmented_copy_bits";
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::segmented_copy_bits: the first argument must be a Kokkos execution space");
  KMASK_CHECK_MASK_VIEW("kmask::segmented_copy_bits", DestView, ExecSpace, "dests");
  KMASK_CHECK_MASK_VIEW("kmask::segmented_copy_bits", SourceView, ExecSpace, "srcs");
  detail::scoped_region region(fn);
  detail::check_list_lengths(fn, "srcs", srcs.size(), "src_begin_bits", src_begin_bits.size());
  detail::segmented_copy_bits_call(exec, detail::segmented_copy_bits_names(false),
                                   detail::view_dests<DestView>{dests.data(), dests.size()}, dest_begin_bits,
                                   detail::view_sources<SourceView>{srcs.data(), src_begin_bits.data(), srcs.size()},
                                   sizes_bits);
}

/// segmented_copy_bits() of raw masks (source `i` read from `srcs[i].begin_bit`).
template <class ExecSpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void segmented_copy_bits(const ExecSpace& exec, const std::vector<dest_mask>& dests,
                         const std::vector<size_type>& dest_begin_bits, const std::vector<source_mask>& srcs,
                         const std::vector<size_type>& sizes_bits) {
  detail::scoped_region region("kmask::segmented_copy_bits");
  detail::segmented_copy_bits_call(exec, detail::segmented_copy_bits_names(true),
                                   detail::pointer_dests{dests.data(), dests.size()}, dest_begin_bits,
                                   detail::pointer_sources{srcs.data(), srcs.size()}, sizes_bits);
}

/// segmented_copy_bits() on the execution space of the views' memory space.
template <class DestView, class SourceView, class = std::enable_if_t<Kokkos::is_view<DestView>::value>>
void segmented_copy_bits(const std::vector<DestView>& dests, const std::vector<size_type>& dest_begin_bits,
                         const std::vector<SourceView>& srcs, const std::vector<size_type>& src_begin_bits,
                         const std::vector<size_type>& sizes_bits) {
  segmented_copy_bits(detail::space_of<DestView>{}, dests, dest_begin_bits, srcs, src_begin_bits, sizes_bits);
}

// ---- concatenate -----------------------------------------------------------------------------

/// \brief A new mask of sum(sizes_bits) bits holding the pieces back to back (piece `i` is
/// `sizes_bits[i]` bits of `masks[i]` from `begin_bits[i]`), and its null count.
///
/// A padded allocation as create_mask() makes; bits past the total and padding words are zero.
/// An absent piece contributes ones. Synchronous: waits for `exec` to bring the count back.
/// \throws std::invalid_argument if the vectors differ in length, a size or begin bit is negative
///         or too large, or the sizes add up to more than 2^62 - 1; std::out_of_range if a piece
///         ends past its view.
template <class ExecSpace, class SourceView>
std::pair<Kokkos::View<word_type*, typename ExecSpace::memory_space>, size_type> concatenate(
    const ExecSpace& exec, const std::vector<SourceView>& masks, const std::vector<size_type>& begin_bits,
    const std::vector<size_type>& sizes_bits) {
  constexpr const char* fn = "kmask::concatenate";
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::concatenate: the first argument must be a Kokkos execution space");
  KMASK_CHECK_MASK_VIEW("kmask::concatenate", SourceView, ExecSpace, "masks");
  detail::scoped_region region(fn);
  detail::check_same_size(fn, masks.size(), begin_bits.size());
  Kokkos::View<word_type*, typename ExecSpace::memory_space> out;
  const size_type nulls = detail::concatenate_call(
      exec, detail::concatenate_names(fn, false),
      nullptr, detail::view_sources<SourceView>{masks.data(), begin_bits.data(), masks.size()}, sizes_bits, nullptr,
      true, &out);
  return {out, nulls};
}

/// concatenate() of raw pieces (piece `i` read from `masks[i].begin_bit`).
template <class ExecSpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
std::pair<Kokkos::View<word_type*, typename ExecSpace::memory_space>, size_type> concatenate(
    const ExecSpace& exec, const std::vector<source_mask>& masks, const std::vector<size_type>& sizes_bits) {
  constexpr const char* fn = "kmask::concatenate";
  detail::scoped_region region(fn);
  Kokkos::View<word_type*, typename ExecSpace::memory_space> out;
  const size_type nulls =
      detail::concatenate_call(exec, detail::concatenate_names(fn, true), nullptr,
                               detail::pointer_sources{masks.data(), masks.size()}, sizes_bits, nullptr, true, &out);
  return {out, nulls};
}

/// concatenate() on the execution space of the views' memory space.
template <class SourceView, class = std::enable_if_t<Kokkos::is_view<SourceView>::value>>
std::pair<Kokkos::View<word_type*, typename detail::space_of<SourceView>::memory_space>, size_type> concatenate(
    const std::vector<SourceView>& masks, const std::vector<size_type>& begin_bits,
    const std::vector<size_type>& sizes_bits) {
  return concatenate(detail::space_of<SourceView>{}, masks, begin_bits, sizes_bits);
}

/// \brief concatenate() into `dest` from bit 0, the null count into `null_count(0)`.
///
/// Writes `dest`'s words [0, num_words(sum(sizes_bits))), bits past the total in the last one as
/// 0; later words are not touched. Pieces may overlap `dest` in memory (they are read as before
/// the call). Asynchronous: the count stays on the device.
/// \throws as concatenate(), and std::invalid_argument for a null `dest` (when bits are written) or
///         null `null_count`; std::out_of_range if `dest` or `null_count` is too short.
template <class ExecSpace, class SourceView>
void inplace_concatenate(const ExecSpace& exec, const Kokkos::View<word_type*, typename ExecSpace::memory_space>& dest,
                         const std::vector<SourceView>& masks, const std::vector<size_type>& begin_bits,
                         const std::vector<size_type>& sizes_bits,
                         const Kokkos::View<size_type*, typename ExecSpace::memory_space>& null_count) {
  constexpr const char* fn = "kmask::inplace_concatenate";
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::inplace_concatenate: the first argument must be a Kokkos execution space");
  KMASK_CHECK_MASK_VIEW("kmask::inplace_concatenate", SourceView, ExecSpace, "masks");
  detail::scoped_region region(fn);
  detail::check_counter_extent(fn, "null_count", static_cast<size_type>(null_count.extent(0)), 1,
                               null_count.data() == nullptr);
  detail::check_same_size(fn, masks.size(), begin_bits.size());
  const dest_mask d = detail::as_dest(dest);
  detail::concatenate_call(exec, detail::concatenate_names(fn, false), &d,
                           detail::view_sources<SourceView>{masks.data(), begin_bits.data(), masks.size()}, sizes_bits,
                           null_count.data(), false,
                           static_cast<Kokkos::View<word_type*, typename ExecSpace::memory_space>*>(nullptr));
}

/// inplace_concatenate() of raw masks (piece `i` read from `masks[i].begin_bit`).
template <class ExecSpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void inplace_concatenate(const ExecSpace& exec, const dest_mask& dest, const std::vector<source_mask>& masks,
                         const std::vector<size_type>& sizes_bits,
                         const Kokkos::View<size_type*, typename ExecSpace::memory_space>& null_count) {
  constexpr const char* fn = "kmask::inplace_concatenate";
  detail::scoped_region region(fn);
  detail::check_counter_extent(fn, "null_count", static_cast<size_type>(null_count.extent(0)), 1,
                               null_count.data() == nullptr);
  detail::concatenate_call(exec, detail::concatenate_names(fn, true), &dest,
                           detail::pointer_sources{masks.data(), masks.size()}, sizes_bits, null_count.data(), false,
                           static_cast<Kokkos::View<word_type*, typename ExecSpace::memory_space>*>(nullptr));
}

/// inplace_concatenate() on the execution space of the views' memory space.
template <class DestView, class SourceView, class = std::enable_if_t<Kokkos::is_view<DestView>::value>>
void inplace_concatenate(const DestView& dest, const std::vector<SourceView>& masks,
                         const std::vector<size_type>& begin_bits, const std::vector<size_type>& sizes_bits,
                         const Kokkos::View<size_type*, typename DestView::memory_space>& null_count) {
  inplace_concatenate(detail::space_of<DestView>{}, dest, masks, begin_bits, sizes_bits, null_count);
}

}  // namespace kmask

#endif
