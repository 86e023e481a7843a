#ifndef KMASK_BATCH_COUNT_HPP
#define KMASK_BATCH_COUNT_HPP

/// \file batch_count.hpp
/// \brief One null (or valid) count per mask over many masks, in one launch: a table's null counts
/// for the price of one synchronisation.

#include <kmask/detail/batch_count.hpp>
#include <kmask/detail/mask_lists.hpp>
#include <kmask/detail/segmented_calls.hpp>
#include <kmask/types.hpp>

#include <type_traits>
#include <vector>

namespace kmask {

/// \brief Unset (null) bits of each mask: `counts(j)` is the number of unset bits of `masks[j]` in
/// its bits [begin_bits[j], begin_bits[j] + sizes_bits[j]).
///
/// Every mask is counted in one launch, however many and however long they are. Asynchronous: the
/// counts are left on the device, valid after `exec.fence()`. A null view (absent mask) is all
/// valid (0 nulls). Masks may repeat. The counts are a new allocation the caller owns.
/// \throws std::invalid_argument if masks, begin_bits and sizes_bits differ in length, a begin bit
///         or size is negative or above 2^62 - 1, or a null view has an extent;
///         std::out_of_range if a mask's range is past its view. Nothing is enqueued then.
template <class ExecSpace, class SourceView>
Kokkos::View<size_type*, typename ExecSpace::memory_space> batch_count_unset_bits(
    const ExecSpace& exec, const std::vector<SourceView>& masks, const std::vector<size_type>& begin_bits,
    const std::vector<size_type>& sizes_bits) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::batch_count_unset_bits: the first argument must be a Kokkos execution space");
  KMASK_CHECK_MASK_VIEW("kmask::batch_count_unset_bits", SourceView, ExecSpace, "masks");
  constexpr const char* fn = "kmask::batch_count_unset_bits";
  detail::scoped_region region(fn);
  detail::check_same_size(fn, masks.size(), begin_bits.size());
  return detail::batch_count_call(exec, detail::arg_names{fn},
                                  detail::view_sources<SourceView>{masks.data(), begin_bits.data(), masks.size()},
                                  sizes_bits, true);
}

/// batch_count_unset_bits() of raw masks: mask `j` counted from `masks[j].begin_bit`; an inverted
/// source_mask counts the unset bits of its complement (the set bits of the words), an inverted
/// absent one is all null (`sizes_bits[j]` nulls).
template <class ExecSpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
Kokkos::View<size_type*, typename ExecSpace::memory_space> batch_count_unset_bits(
    const ExecSpace& exec, const std::vector<source_mask>& masks, const std::vector<size_type>& sizes_bits) {
  constexpr const char* fn = "kmask::batch_count_unset_bits";
  detail::scoped_region region(fn);
  detail::arg_names names{fn};
  names.pointers = true;
  return detail::batch_count_call(exec, names, detail::pointer_sources{masks.data(), masks.size()}, sizes_bits, true);
}

/// \brief Set (valid) bits of each mask over the same ranges; as batch_count_unset_bits(). A null
/// view counts every bit of its range.
template <class ExecSpace, class SourceView>
Kokkos::View<size_type*, typename ExecSpace::memory_space> batch_count_set_bits(
    const ExecSpace& exec, const std::vector<SourceView>& masks, const std::vector<size_type>& begin_bits,
    const std::vector<size_type>& sizes_bits) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::batch_count_set_bits: the first argument must be a Kokkos execution space");
  KMASK_CHECK_MASK_VIEW("kmask::batch_count_set_bits", SourceView, ExecSpace, "masks");
  constexpr const char* fn = "kmask::batch_count_set_bits";
  detail::scoped_region region(fn);
  detail::check_same_size(fn, masks.size(), begin_bits.size());
  return detail::batch_count_call(exec, detail::arg_names{fn},
                                  detail::view_sources<SourceView>{masks.data(), begin_bits.data(), masks.size()},
                                  sizes_bits, false);
}

/// batch_count_set_bits() of raw masks (inverted ones count the unset bits of their words).
template <class ExecSpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
Kokkos::View<size_type*, typename ExecSpace::memory_space> batch_count_set_bits(
    const ExecSpace& exec, const std::vector<source_mask>& masks, const std::vector<size_type>& sizes_bits) {
  constexpr const char* fn = "kmask::batch_count_set_bits";
  detail::scoped_region region(fn);
  detail::arg_names names{fn};
  names.pointers = true;
  return detail::batch_count_call(exec, names, detail::pointer_sources{masks.data(), masks.size()}, sizes_bits, false);
}

/// \brief batch_count_unset_bits() into the caller's `counts` (counts(j) for mask j; entries past
/// masks.size() untouched), allocating nothing: the form a table's null counts take when the same
/// counts view is refilled call after call. Asynchronous.
///
/// On a GPU a batch of up to 128 masks travels in the launch's arguments, so such a call makes
/// one launch and no other transfer.
/// \throws as batch_count_unset_bits(), and std::invalid_argument for a null `counts` /
///         std::out_of_range for counts.extent(0) < masks.size(), before anything is written.
template <class ExecSpace, class SourceView>
void inplace_batch_count_unset_bits(const ExecSpace& exec, const std::vector<SourceView>& masks,
                                    const std::vector<size_type>& begin_bits, const std::vector<size_type>& sizes_bits,
                                    const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::inplace_batch_count_unset_bits: the first argument must be a Kokkos execution space");
  KMASK_CHECK_MASK_VIEW("kmask::inplace_batch_count_unset_bits", SourceView, ExecSpace, "masks");
  constexpr const char* fn = "kmask::inplace_batch_count_unset_bits";
  detail::scoped_region region(fn);
  detail::check_same_size(fn, masks.size(), begin_bits.size());
  detail::inplace_batch_count_call(exec, detail::arg_names{fn},
                                   detail::view_sources<SourceView>{masks.data(), begin_bits.data(), masks.size()},
                                   sizes_bits, true, counts);
}

/// inplace_batch_count_unset_bits() of raw masks (as batch_count_unset_bits() of raw masks).
template <class ExecSpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void inplace_batch_count_unset_bits(const ExecSpace& exec, const std::vector<source_mask>& masks,
                                    const std::vector<size_type>& sizes_bits,
                                    const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts) {
  constexpr const char* fn = "kmask::inplace_batch_count_unset_bits";
  detail::scoped_region region(fn);
  detail::arg_names names{fn};
  names.pointers = true;
  detail::inplace_batch_count_call(exec, names, detail::pointer_sources{masks.data(), masks.size()}, sizes_bits, true,
                                   counts);
}

/// \brief batch_count_set_bits() into the caller's `counts`; as inplace_batch_count_unset_bits().
template <class ExecSpace, class SourceView>
void inplace_batch_count_set_bits(const ExecSpace& exec, const std::vector<SourceView>& masks,
                                  const std::vector<size_type>& begin_bits, const std::vector<size_type>& sizes_bits,
                                  const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::inplace_batch_count_set_bits: the first argument must be a Kokkos execution space");
  KMASK_CHECK_MASK_VIEW("kmask::inplace_batch_count_set_bits", SourceView, ExecSpace, "masks");
  constexpr const char* fn = "kmask::inplace_batch_count_set_bits";
  detail::scoped_region region(fn);
  detail::check_same_size(fn, masks.size(), begin_bits.size());
  detail::inplace_batch_count_call(exec, detail::arg_names{fn},
                                   detail::view_sources<SourceView>{masks.data(), begin_bits.data(), masks.size()},
                                   sizes_bits, false, counts);
}

/// inplace_batch_count_set_bits() of raw masks (inverted ones count the unset bits of their words).
template <class ExecSpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void inplace_batch_count_set_bits(const ExecSpace& exec, const std::vector<source_mask>& masks,
                                  const std::vector<size_type>& sizes_bits,
                                  const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts) {
  constexpr const char* fn = "kmask::inplace_batch_count_set_bits";
  detail::scoped_region region(fn);
  detail::arg_names names{fn};
  names.pointers = true;
  detail::inplace_batch_count_call(exec, names, detail::pointer_sources{masks.data(), masks.size()}, sizes_bits, false,
                                   counts);
}

/// batch_count_unset_bits() on the execution space of the views' memory space.
template <class SourceView, class = std::enable_if_t<Kokkos::is_view<SourceView>::value>>
Kokkos::View<size_type*, typename detail::space_of<SourceView>::memory_space> batch_count_unset_bits(
    const std::vector<SourceView>& masks, const std::vector<size_type>& begin_bits,
    const std::vector<size_type>& sizes_bits) {
  return batch_count_unset_bits(detail::space_of<SourceView>{}, masks, begin_bits, sizes_bits);
}

/// batch_count_set_bits() on the execution space of the views' memory space.
template <class SourceView, class = std::enable_if_t<Kokkos::is_view<SourceView>::value>>
Kokkos::View<size_type*, typename detail::space_of<SourceView>::memory_space> batch_count_set_bits(
    const std::vector<SourceView>& masks, const std::vector<size_type>& begin_bits,
    const std::vector<size_type>& sizes_bits) {
  return batch_count_set_bits(detail::space_of<SourceView>{}, masks, begin_bits, sizes_bits);
}

/// inplace_batch_count_unset_bits() on the execution space of the views' memory space.
template <class SourceView, class Counts, class = std::enable_if_t<Kokkos::is_view<SourceView>::value>>
void inplace_batch_count_unset_bits(const std::vector<SourceView>& masks, const std::vector<size_type>& begin_bits,
                                    const std::vector<size_type>& sizes_bits, const Counts& counts) {
  inplace_batch_count_unset_bits(detail::space_of<SourceView>{}, masks, begin_bits, sizes_bits, counts);
}

/// inplace_batch_count_set_bits() on the execution space of the views' memory space.
template <class SourceView, class Counts, class = std::enable_if_t<Kokkos::is_view<SourceView>::value>>
void inplace_batch_count_set_bits(const std::vector<SourceView>& masks, const std::vector<size_type>& begin_bits,
                                  const std::vector<size_type>& sizes_bits, const Counts& counts) {
  inplace_batch_count_set_bits(detail::space_of<SourceView>{}, masks, begin_bits, sizes_bits, counts);
}

}  // namespace kmask

#endif
