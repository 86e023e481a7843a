#ifndef KMASK_MAKE_MASKS_HPP
#define KMASK_MAKE_MASKS_HPP

/// \file make_masks.hpp
/// \brief Making masks: from a predicate (valid_if), from booleans (bools_to_mask), back to
/// booleans (mask_to_bools), and by gathering bits at row indices (gather_bits: take, filter, join).
///
/// Masks that are read come as views (bits counted from the view's bit 0, after `begin_bit`) or as
/// source_mask (bits counted from its `begin_bit`); an absent mask (null view, or null words with
/// extent 0) reads as all valid. Destinations come as views or dest_mask and are written from bit
/// 0: whole words, bits past the written size 0, nothing past num_words(size) words. New masks are
/// padded allocations as create_mask() makes (padding words 0). Every function takes the execution
/// space first and has an overload on the execution space of its views' memory space (valid_if(),
/// which has none, on Kokkos::DefaultExecutionSpace).

#include <kmask/types.hpp>

namespace kmask {

/// How gather_bits() treats an index outside [0, size_bits) of the source.
enum class gather_policy {
  check,      ///< refused: std::out_of_range naming the first such index (gather_bits() only)
  nullify,    ///< the result bit is 0 (null)
  dont_check  ///< the caller promises there is none (an out-of-range index reads an arbitrary bit or faults)
};

}  // namespace kmask

#include <kmask/detail/make_masks_calls.hpp>
#include <kmask/detail/segmented_calls.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

namespace kmask {

// ---------------------------------------------------------------- valid_if

/// \brief A new mask of `size_bits` bits whose bit i is `pred(i)`, and its null count.
///
/// `pred` is a device-callable `bool operator()(size_type) const`, copied to the device and
/// evaluated exactly once for each i in [0, size_bits). Synchronous: waits for the null count.
/// \throws std::invalid_argument if `size_bits` < 0 or > 2^62 - 1.
template <class ExecSpace, class Pred>
std::pair<Kokkos::View<word_type*, typename ExecSpace::memory_space>, size_type> valid_if(const ExecSpace& exec,
                                                                                        size_type size_bits,
                                                                                        const Pred& pred) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::valid_if: the first argument must be a Kokkos execution space");
  constexpr const char* fn = "kmask::valid_if";
  detail::scoped_region region(fn);
  return detail::valid_if_call(fn, exec, size_bits, pred);
}

/// \brief Bits [0, size_bits) of `dest` = pred(i), its null count into null_count(0).
///
/// Asynchronous: valid after `exec.fence()`. Writes num_words(size_bits) words of `dest`.
/// \throws std::invalid_argument for a bad `size_bits`, a null `dest` with bits to write or a null
///         `null_count`; std::out_of_range if `dest` is shorter than num_words(size_bits) words or
///         `null_count` is empty.
template <class ExecSpace, class Pred>
void inplace_valid_if(const ExecSpace& exec, const Kokkos::View<word_type*, typename ExecSpace::memory_space>& dest,
                      size_type size_bits, const Pred& pred,
                      const Kokkos::View<size_type*, typename ExecSpace::memory_space>& null_count) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::inplace_valid_if: the first argument must be a Kokkos execution space");
  constexpr const char* fn = "kmask::inplace_valid_if";
  detail::scoped_region region(fn);
  detail::inplace_valid_if_call(fn, exec, detail::as_dest(dest), size_bits, pred, null_count);
}

/// inplace_valid_if() into a raw destination.
template <class ExecSpace, class Pred, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void inplace_valid_if(const ExecSpace& exec, const dest_mask& dest, size_type size_bits, const Pred& pred,
                      const Kokkos::View<size_type*, typename ExecSpace::memory_space>& null_count) {
  constexpr const char* fn = "kmask::inplace_valid_if";
  detail::scoped_region region(fn);
  detail::inplace_valid_if_call(fn, exec, dest, size_bits, pred, null_count);
}

/// valid_if() on Kokkos::DefaultExecutionSpace.
template <class Pred>
std::pair<Kokkos::View<word_type*, Kokkos::DefaultExecutionSpace::memory_space>, size_type> valid_if(
    size_type size_bits, const Pred& pred) {
  return valid_if(Kokkos::DefaultExecutionSpace{}, size_bits, pred);
}

/// inplace_valid_if() on the execution space of the destination's memory space.
template <class View, class Pred, class = std::enable_if_t<Kokkos::is_view<View>::value>>
void inplace_valid_if(const View& dest, size_type size_bits, const Pred& pred,
                      const Kokkos::View<size_type*, typename View::memory_space>& null_count) {
  inplace_valid_if(detail::space_of<View>{}, dest, size_bits, pred, null_count);
}

// ---------------------------------------------------------------- bools_to_mask

/// \brief A new mask of values.extent(0) bits, bit i set where values(i) is true, and its null count.
/// Synchronous. \throws std::invalid_argument for a null `values` of non-zero extent.
/// Values that start on a 16-byte boundary (any Kokkos allocation) are read 16 bytes at a time on
/// a GPU; others (an offset subview) a byte per lane, slower on bools_to_mask's largest inputs.
template <class ExecSpace>
std::pair<Kokkos::View<word_type*, typename ExecSpace::memory_space>, size_type> bools_to_mask(
    const ExecSpace& exec, const Kokkos::View<const bool*, typename ExecSpace::memory_space>& values) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::bools_to_mask: the first argument must be a Kokkos execution space");
  constexpr const char* fn = "kmask::bools_to_mask";
  detail::scoped_region region(fn);
  return detail::bools_to_mask_call<ExecSpace, bool>(fn, exec, values);
}

/// bools_to_mask() of bytes (cudf's BOOL8): any non-zero byte is valid.
template <class ExecSpace>
std::pair<Kokkos::View<word_type*, typename ExecSpace::memory_space>, size_type> bools_to_mask(
    const ExecSpace& exec, const Kokkos::View<const std::uint8_t*, typename ExecSpace::memory_space>& values) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::bools_to_mask: the first argument must be a Kokkos execution space");
  constexpr const char* fn = "kmask::bools_to_mask";
  detail::scoped_region region(fn);
  return detail::bools_to_mask_call<ExecSpace, std::uint8_t>(fn, exec, values);
}

/// \brief Bits [0, values.extent(0)) of `dest` from `values`, the null count into null_count(0).
/// Asynchronous. \throws as inplace_valid_if() for `dest` and `null_count`.
template <class ExecSpace>
void inplace_bools_to_mask(const ExecSpace& exec, const Kokkos::View<word_type*, typename ExecSpace::memory_space>& dest,
                           const Kokkos::View<const bool*, typename ExecSpace::memory_space>& values,
                           const Kokkos::View<size_type*, typename ExecSpace::memory_space>& null_count) {
  constexpr const char* fn = "kmask::inplace_bools_to_mask";
  detail::scoped_region region(fn);
  detail::inplace_bools_to_mask_call<ExecSpace, bool>(fn, exec, detail::as_dest(dest), values, null_count);
}
/// inplace_bools_to_mask() of bytes (non-zero = valid).
template <class ExecSpace>
void inplace_bools_to_mask(const ExecSpace& exec, const Kokkos::View<word_type*, typename ExecSpace::memory_space>& dest,
                           const Kokkos::View<const std::uint8_t*, typename ExecSpace::memory_space>& values,
                           const Kokkos::View<size_type*, typename ExecSpace::memory_space>& null_count) {
  constexpr const char* fn = "kmask::inplace_bools_to_mask";
  detail::scoped_region region(fn);
  detail::inplace_bools_to_mask_call<ExecSpace, std::uint8_t>(fn, exec, detail::as_dest(dest), values, null_count);
}
/// inplace_bools_to_mask() of booleans into a raw destination.
template <class ExecSpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void inplace_bools_to_mask(const ExecSpace& exec, const dest_mask& dest,
                           const Kokkos::View<const bool*, typename ExecSpace::memory_space>& values,
                           const Kokkos::View<size_type*, typename ExecSpace::memory_space>& null_count) {
  constexpr const char* fn = "kmask::inplace_bools_to_mask";
  detail::scoped_region region(fn);
  detail::inplace_bools_to_mask_call<ExecSpace, bool>(fn, exec, dest, values, null_count);
}
/// inplace_bools_to_mask() of bytes into a raw destination.
template <class ExecSpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void inplace_bools_to_mask(const ExecSpace& exec, const dest_mask& dest,
                           const Kokkos::View<const std::uint8_t*, typename ExecSpace::memory_space>& values,
                           const Kokkos::View<size_type*, typename ExecSpace::memory_space>& null_count) {
  constexpr const char* fn = "kmask::inplace_bools_to_mask";
  detail::scoped_region region(fn);
  detail::inplace_bools_to_mask_call<ExecSpace, std::uint8_t>(fn, exec, dest, values, null_count);
}

/// bools_to_mask() on the execution space of the values' memory space.
template <class Values, class = std::enable_if_t<Kokkos::is_view<Values>::value>>
auto bools_to_mask(const Values& values) {
  return bools_to_mask(detail::space_of<Values>{}, values);
}
/// inplace_bools_to_mask() on the execution space of the destination's memory space.
template <class Dest, class Values, class = std::enable_if_t<Kokkos::is_view<Dest>::value>>
void inplace_bools_to_mask(const Dest& dest, const Values& values,
                           const Kokkos::View<size_type*, typename Dest::memory_space>& null_count) {
  inplace_bools_to_mask(detail::space_of<Dest>{}, dest, values, null_count);
}

// ---------------------------------------------------------------- mask_to_bools

/// \brief Booleans of bits [begin_bit, end_bit) of `mask`: element i is bit begin_bit + i.
///
/// An absent mask gives all `true`. Asynchronous: valid after `exec.fence()`.
/// \throws std::invalid_argument if `begin_bit` < 0 or `end_bit` < `begin_bit`;
///         std::out_of_range if `end_bit` > 32 * mask.extent(0).
template <class ExecSpace>
Kokkos::View<bool*, typename ExecSpace::memory_space> mask_to_bools(
    const ExecSpace& exec, const Kokkos::View<const word_type*, typename ExecSpace::memory_space>& mask,
    size_type begin_bit, size_type end_bit) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::mask_to_bools: the first argument must be a Kokkos execution space");
  constexpr const char* fn = "kmask::mask_to_bools";
  detail::scoped_region region(fn);
  return detail::mask_to_bools_call(fn, exec, detail::as_source(mask), begin_bit, end_bit);
}
/// mask_to_bools() of a raw mask (bits counted from `mask.begin_bit`).
template <class ExecSpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
Kokkos::View<bool*, typename ExecSpace::memory_space> mask_to_bools(const ExecSpace& exec, const source_mask& mask,
                                                                    size_type begin_bit, size_type end_bit) {
  constexpr const char* fn = "kmask::mask_to_bools";
  detail::scoped_region region(fn);
  return detail::mask_to_bools_call(fn, exec, mask, begin_bit, end_bit);
}

/// \brief out(i) = bit begin_bit + i of `mask` for i in [0, end_bit - begin_bit); the rest of
/// `out` is left alone. Asynchronous.
/// \throws as mask_to_bools(); std::out_of_range if out.extent(0) < end_bit - begin_bit.
template <class ExecSpace>
void inplace_mask_to_bools(const ExecSpace& exec, const Kokkos::View<bool*, typename ExecSpace::memory_space>& out,
                           const Kokkos::View<const word_type*, typename ExecSpace::memory_space>& mask,
                           size_type begin_bit, size_type end_bit) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::inplace_mask_to_bools: the first argument must be a Kokkos execution space");
  constexpr const char* fn = "kmask::inplace_mask_to_bools";
  detail::scoped_region region(fn);
  detail::inplace_mask_to_bools_call(fn, exec, out, detail::as_source(mask), begin_bit, end_bit);
}
/// inplace_mask_to_bools() of a raw mask.
template <class ExecSpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void inplace_mask_to_bools(const ExecSpace& exec, const Kokkos::View<bool*, typename ExecSpace::memory_space>& out,
                           const source_mask& mask, size_type begin_bit, size_type end_bit) {
  constexpr const char* fn = "kmask::inplace_mask_to_bools";
  detail::scoped_region region(fn);
  detail::inplace_mask_to_bools_call(fn, exec, out, mask, begin_bit, end_bit);
}

/// mask_to_bools() on the execution space of the mask's memory space.
template <class View, class = std::enable_if_t<Kokkos::is_view<View>::value>>
Kokkos::View<bool*, typename detail::space_of<View>::memory_space> mask_to_bools(const View& mask,
                                                                                 size_type begin_bit,
                                                                                 size_type end_bit) {
  return mask_to_bools(detail::space_of<View>{}, mask, begin_bit, end_bit);
}
/// inplace_mask_to_bools() on the execution space of the output's memory space.
template <class Out, class Mask, class = std::enable_if_t<Kokkos::is_view<Out>::value>>
void inplace_mask_to_bools(const Out& out, const Mask& mask, size_type begin_bit, size_type end_bit) {
  inplace_mask_to_bools(detail::space_of<Out>{}, out, mask, begin_bit, end_bit);
}

// ---------------------------------------------------------------- gather_bits

/// \brief A new mask of indices.extent(0) bits whose bit i is bit `begin_bit + indices(i)` of
/// `mask`, and its null count (take / filter / join of a column's nulls).
///
/// `Indices` is a rank-1 view of std::int32_t or std::int64_t. The source is the `size_bits` bits
/// from `begin_bit`; an index outside [0, size_bits) is handled as `policy` says: `check` finds the
/// first such position on the device and throws (no result), `nullify` gives a null bit,
/// `dont_check` is the caller's promise that there is none. An absent mask gives all valid bits
/// (except nullify's out-of-range ones). Synchronous: waits for the null count.
/// \throws std::out_of_range (`check`) naming the first out-of-range position and its value, or if
///         the source bits are past the mask's extent; std::invalid_argument for a negative or too
///         large `begin_bit` / `size_bits`, or a `policy` that is no gather_policy.
template <class ExecSpace, class Indices, class = std::enable_if_t<detail::is_index_view<Indices>::value>>
std::pair<Kokkos::View<word_type*, typename ExecSpace::memory_space>, size_type> gather_bits(
    const ExecSpace& exec, const Kokkos::View<const word_type*, typename ExecSpace::memory_space>& mask,
    size_type begin_bit, size_type size_bits, const Indices& indices, gather_policy policy) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::gather_bits: the first argument must be a Kokkos execution space");
  constexpr const char* fn = "kmask::gather_bits";
  detail::scoped_region region(fn);
  return detail::gather_bits_call(fn, exec, detail::as_source(mask), begin_bit, size_bits, indices, policy);
}
/// gather_bits() of a raw mask (source bit 0 is bit `mask.begin_bit + begin_bit`).
template <class ExecSpace, class Indices,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value && detail::is_index_view<Indices>::value>>
std::pair<Kokkos::View<word_type*, typename ExecSpace::memory_space>, size_type> gather_bits(
    const ExecSpace& exec, const source_mask& mask, size_type begin_bit, size_type size_bits, const Indices& indices,
    gather_policy policy) {
  constexpr const char* fn = "kmask::gather_bits";
  detail::scoped_region region(fn);
  return detail::gather_bits_call(fn, exec, mask, begin_bit, size_bits, indices, policy);
}

/// \brief gather_bits() into `dest` (num_words(indices.extent(0)) words), the null count into
/// null_count(0). Asynchronous, so only `nullify` and `dont_check`: `check` must report before
/// anything is written, and is refused here (use gather_bits()).
/// \throws as gather_bits() for the source; std::invalid_argument for `gather_policy::check`, a
///         null `dest` or `null_count`, or a `dest` overlapping the source's words;
///         std::out_of_range for a short `dest` or empty `null_count`.
template <class ExecSpace, class Indices, class = std::enable_if_t<detail::is_index_view<Indices>::value>>
void inplace_gather_bits(const ExecSpace& exec, const Kokkos::View<word_type*, typename ExecSpace::memory_space>& dest,
                         const Kokkos::View<const word_type*, typename ExecSpace::memory_space>& mask,
                         size_type begin_bit, size_type size_bits, const Indices& indices, gather_policy policy,
                         const Kokkos::View<size_type*, typename ExecSpace::memory_space>& null_count) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::inplace_gather_bits: the first argument must be a Kokkos execution space");
  constexpr const char* fn = "kmask::inplace_gather_bits";
  detail::scoped_region region(fn);
  detail::inplace_gather_bits_call(fn, exec, detail::as_dest(dest), detail::as_source(mask), begin_bit, size_bits,
                                   indices, policy, null_count);
}
/// inplace_gather_bits() with a raw destination and a raw mask.
template <class ExecSpace, class Indices,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value && detail::is_index_view<Indices>::value>>
void inplace_gather_bits(const ExecSpace& exec, const dest_mask& dest, const source_mask& mask, size_type begin_bit,
                         size_type size_bits, const Indices& indices, gather_policy policy,
                         const Kokkos::View<size_type*, typename ExecSpace::memory_space>& null_count) {
  constexpr const char* fn = "kmask::inplace_gather_bits";
  detail::scoped_region region(fn);
  detail::inplace_gather_bits_call(fn, exec, dest, mask, begin_bit, size_bits, indices, policy, null_count);
}

/// gather_bits() on the execution space of the indices' memory space (`mask` a view or source_mask).
template <class Mask, class Indices, class = std::enable_if_t<detail::is_index_view<Indices>::value>>
std::pair<Kokkos::View<word_type*, typename detail::space_of<Indices>::memory_space>, size_type> gather_bits(
    const Mask& mask, size_type begin_bit, size_type size_bits, const Indices& indices, gather_policy policy) {
  return gather_bits(detail::space_of<Indices>{}, mask, begin_bit, size_bits, indices, policy);
}
/// inplace_gather_bits() on the execution space of the indices' memory space.
template <class Dest, class Mask, class Indices, class = std::enable_if_t<detail::is_index_view<Indices>::value>>
void inplace_gather_bits(const Dest& dest, const Mask& mask, size_type begin_bit, size_type size_bits,
                         const Indices& indices, gather_policy policy,
                         const Kokkos::View<size_type*, typename detail::space_of<Indices>::memory_space>& null_count) {
  inplace_gather_bits(detail::space_of<Indices>{}, dest, mask, begin_bit, size_bits, indices, policy, null_count);
}

}  // namespace kmask

#endif
