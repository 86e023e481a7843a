#ifndef KMASK_BINOP_HPP
#define KMASK_BINOP_HPP

/// \file binop.hpp
/// \brief One combination of several masks (binop, inplace_binop) and superimposing a parent's
/// nulls onto its children (superimpose_nulls): thin forms of the segmented binop.

#include <kmask/detail/segmented_calls.hpp>
#include <kmask/operators.hpp>
#include <kmask/types.hpp>

#include <utility>
#include <vector>

namespace kmask {

/// \brief Combines `masks` (each from its `begin_bits`) with `op` into a new mask of `size_bits` bits.
///
/// Returns the new mask (a padded allocation, as create_mask() makes; padding words zero) and its
/// null count. Synchronous: waits for `exec` to bring the count back. No source can alias the new
/// mask; an absent source (null view) reads as all valid.
/// \throws std::invalid_argument / std::out_of_range as segmented_binop() for the sources.
template <class ExecSpace, class Op, class SourceView>
std::pair<Kokkos::View<word_type*, typename ExecSpace::memory_space>, size_type> binop(
    const ExecSpace& exec, const Op& op, const std::vector<SourceView>& masks, const std::vector<size_type>& begin_bits,
    size_type size_bits) {
  constexpr const char* fn = "kmask::binop";
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::binop: the first argument must be a Kokkos execution space");
  static_assert(is_word_operator_v<Op>,
                "kmask::binop: op needs word_type operator()(word_type, word_type) and identity()");
  KMASK_CHECK_MASK_VIEW("kmask::binop", SourceView, ExecSpace, "masks");
  detail::scoped_region region(fn);
  detail::check_same_size(fn, masks.size(), begin_bits.size());
  const std::vector<size_type> one_segment{0, static_cast<size_type>(masks.size())};
  return detail::new_mask_call(
      exec, op,
      detail::describe(detail::arg_names{fn},
                       detail::view_sources<SourceView>{masks.data(), begin_bits.data(), masks.size()},
                       detail::no_dests{}, size_bits, one_segment),
      true);
}

/// binop() over raw sources (source `j` read from `masks[j].begin_bit`, complemented when
/// `masks[j].invert`: NOT, AND-NOT and OR-NOT with the usual operators).
template <class ExecSpace, class Op, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
std::pair<Kokkos::View<word_type*, typename ExecSpace::memory_space>, size_type> binop(
    const ExecSpace& exec, const Op& op, const std::vector<source_mask>& masks, size_type size_bits) {
  constexpr const char* fn = "kmask::binop";
  static_assert(is_word_operator_v<Op>,
                "kmask::binop: op needs word_type operator()(word_type, word_type) and identity()");
  detail::scoped_region region(fn);
  detail::arg_names names{fn};
  names.pointers = true;
  const std::vector<size_type> one_segment{0, static_cast<size_type>(masks.size())};
  return detail::new_mask_call(exec, op,
                               detail::describe(names, detail::pointer_sources{masks.data(), masks.size()},
                                                detail::no_dests{}, size_bits, one_segment),
                               true);
}

/// binop() on the execution space of the views' memory space.
template <class Op, class SourceView, class = std::enable_if_t<Kokkos::is_view<SourceView>::value>>
std::pair<Kokkos::View<word_type*, typename detail::space_of<SourceView>::memory_space>, size_type> binop(
    const Op& op, const std::vector<SourceView>& masks, const std::vector<size_type>& begin_bits, size_type size_bits) {
  return binop(detail::space_of<SourceView>{}, op, masks, begin_bits, size_bits);
}

/// \brief Combines `masks` with `op` into `destination` (num_words(size_bits) words written) and
/// returns its null count.
///
/// `destination` may be one of the sources read from bit 0 without a copy; any other overlap is
/// staged. Synchronous: waits for `exec` to bring the count back.
/// \throws as inplace_segmented_binop() (the destination is named `destinations[0]`).
template <class ExecSpace, class Op, class DestView, class SourceView>
size_type inplace_binop(const ExecSpace& exec, const Op& op, const DestView& destination,
                        const std::vector<SourceView>& masks, const std::vector<size_type>& begin_bits,
                        size_type size_bits) {
  constexpr const char* fn = "kmask::inplace_binop";
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::inplace_binop: the first argument must be a Kokkos execution space");
  static_assert(is_word_operator_v<Op>,
                "kmask::inplace_binop: op needs word_type operator()(word_type, word_type) and identity()");
  KMASK_CHECK_MASK_VIEW("kmask::inplace_binop", DestView, ExecSpace, "destination");
  KMASK_CHECK_MASK_VIEW("kmask::inplace_binop", SourceView, ExecSpace, "masks");
  detail::scoped_region region(fn);
  detail::check_same_size(fn, masks.size(), begin_bits.size());
  const std::vector<size_type> one_segment{0, static_cast<size_type>(masks.size())};
  return detail::inplace_call_counted(
      exec, op,
      detail::describe(detail::arg_names{fn},
                       detail::view_sources<SourceView>{masks.data(), begin_bits.data(), masks.size()},
                       detail::view_dests<DestView>{&destination, 1}, size_bits, one_segment));
}

/// inplace_binop() over a raw destination and raw sources.
template <class ExecSpace, class Op, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
size_type inplace_binop(const ExecSpace& exec, const Op& op, const dest_mask& destination,
                        const std::vector<source_mask>& masks, size_type size_bits) {
  constexpr const char* fn = "kmask::inplace_binop";
  static_assert(is_word_operator_v<Op>,
                "kmask::inplace_binop: op needs word_type operator()(word_type, word_type) and identity()");
  detail::scoped_region region(fn);
  detail::arg_names names{fn};
  names.pointers = true;
  const std::vector<size_type> one_segment{0, static_cast<size_type>(masks.size())};
  return detail::inplace_call_counted(exec, op,
                                      detail::describe(names, detail::pointer_sources{masks.data(), masks.size()},
                                                       detail::pointer_dests{&destination, 1}, size_bits,
                                                       one_segment));
}

/// inplace_binop() on the execution space of the destination's memory space.
template <class Op, class DestView, class SourceView, class = std::enable_if_t<Kokkos::is_view<DestView>::value>>
size_type inplace_binop(const Op& op, const DestView& destination, const std::vector<SourceView>& masks,
                        const std::vector<size_type>& begin_bits, size_type size_bits) {
  return inplace_binop(detail::space_of<DestView>{}, op, destination, masks, begin_bits, size_bits);
}


/// \brief ANDs a parent's validity into each child in place: child bit `i` &= parent bit
/// `parent_begin_bit + i`, for `i` in [0, size_bits); `child_null_counts(c)` gets child `c`'s new
/// null count.
///
/// The nested-column operation (a struct child is null wherever its parent is): one segmented
/// launch with segment `c` = {parent, children[c]} written into children[c]. Children are read and
/// written in place (no copy); a parent that overlaps a child is staged first; an absent parent
/// (null view) leaves the children as they are and counts their nulls. Asynchronous.
/// \throws std::invalid_argument / std::out_of_range naming `parent`, `children[c]` or
///         `child_null_counts`, as inplace_segmented_binop() does for its arguments.
template <class ExecSpace, class ParentView, class ChildView>
void superimpose_nulls(const ExecSpace& exec, const ParentView& parent, size_type parent_begin_bit,
                       const std::vector<ChildView>& children, size_type size_bits,
                       const Kokkos::View<size_type*, typename ExecSpace::memory_space>& child_null_counts) {
  constexpr const char* fn = "kmask::superimpose_nulls";
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::superimpose_nulls: the first argument must be a Kokkos execution space");
  KMASK_CHECK_MASK_VIEW("kmask::superimpose_nulls", ParentView, ExecSpace, "parent");
  KMASK_CHECK_MASK_VIEW("kmask::superimpose_nulls", ChildView, ExecSpace, "children");
  detail::scoped_region region(fn);
  const detail::arg_names names{fn, "masks", "children"};
  detail::superimpose_call(exec, names, detail::as_source(parent), parent_begin_bit,
                           detail::view_dests<ChildView>{children.data(), children.size()}, size_bits,
                           child_null_counts);
}

/// superimpose_nulls() over a raw parent (read from its `begin_bit`) and raw children. An inverted
/// parent (source_mask::invert) is read complemented: each child keeps only the rows the parent
/// has null; an inverted absent parent makes every child all null.
template <class ExecSpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void superimpose_nulls(const ExecSpace& exec, const source_mask& parent, const std::vector<dest_mask>& children,
                       size_type size_bits,
                       const Kokkos::View<size_type*, typename ExecSpace::memory_space>& child_null_counts) {
  constexpr const char* fn = "kmask::superimpose_nulls";
  detail::scoped_region region(fn);
  detail::arg_names names{fn, "masks", "children"};
  names.pointers = true;
  detail::superimpose_call(exec, names, parent, 0, detail::pointer_dests{children.data(), children.size()},
                           size_bits, child_null_counts);
}

/// superimpose_nulls() on the execution space of the parent's memory space.
template <class ParentView, class ChildView, class = std::enable_if_t<Kokkos::is_view<ParentView>::value>>
void superimpose_nulls(
    const ParentView& parent, size_type parent_begin_bit, const std::vector<ChildView>& children, size_type size_bits,
    const Kokkos::View<size_type*, typename detail::space_of<ParentView>::memory_space>& child_null_counts) {
  superimpose_nulls(detail::space_of<ParentView>{}, parent, parent_begin_bit, children, size_bits, child_null_counts);
}

}  // namespace kmask

#endif
