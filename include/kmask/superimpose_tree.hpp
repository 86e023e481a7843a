#ifndef KMASK_SUPERIMPOSE_TREE_HPP
#define KMASK_SUPERIMPOSE_TREE_HPP

/// \file superimpose_tree.hpp
/// \brief Pushing nulls down a whole hierarchy of nested (struct) columns in one call.

#include <kmask/detail/tree_calls.hpp>
#include <kmask/types.hpp>

#include <vector>

namespace kmask {

/// \brief Makes every node of a forest null wherever it or any of its ancestors is null, in place.
///
/// Node `k`'s mask is `masks[k]` read from bit `begin_bits[k]`; `parents[k]` is the index of its
/// parent, or −1 for a root. Afterwards bits [0, size_bits) of `masks[k]` (written from bit 0, as
/// the segmented binop writes destinations; bits of the last word past `size_bits` are 0, later
/// words untouched) are valid exactly where node `k` and all its ancestors were valid **before
/// the call**, and `null_counts(k)` is node `k`'s null count. The result is defined by the
/// contents before the call although every node is both read and written (cudf's
/// `superimpose_and_sanitize_nulls` over a struct hierarchy).
///
/// One launch for the whole forest, whatever its depth: every word index is worked by one owner
/// that visits the nodes parents first and reads each parent's new word right after writing it,
/// so a node's word is read from memory once and written once (a copy's bytes), and no
/// ancestor is copied for its descendants. A node read from a bit other than 0 (a sliced column)
/// shifts within its own mask, so its source range is staged through a temporary first, as is any
/// node that overlaps another node's mask. Asynchronous: results and counts are valid after
/// `exec.fence()`.
///
/// \throws std::invalid_argument for `masks`, `begin_bits` and `parents` of different sizes, a
///         negative or too large `size_bits` or begin bit, a cycle among the parents, a null
///         `null_counts` or null mask where bits are written, or two masks sharing a word;
///         std::out_of_range for a parent outside [−1, masks.size()), a range past a mask's
///         extent, or `null_counts` shorter than masks.size(). Nothing is written then.
template <class ExecSpace, class MaskView>
void superimpose_nulls_tree(const ExecSpace& exec, const std::vector<MaskView>& masks,
                            const std::vector<size_type>& begin_bits, const std::vector<size_type>& parents,
                            size_type size_bits,
                            const Kokkos::View<size_type*, typename ExecSpace::memory_space>& null_counts) {
  constexpr const char* fn = "kmask::superimpose_nulls_tree";
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::superimpose_nulls_tree: the first argument must be a Kokkos execution space");
  KMASK_CHECK_MASK_VIEW("kmask::superimpose_nulls_tree", MaskView, ExecSpace, "masks");
  static_assert(!std::is_const<typename MaskView::value_type>::value,
                "kmask::superimpose_nulls_tree: masks must be writable views");
  detail::scoped_region region(fn);
  detail::check_same_size(fn, masks.size(), begin_bits.size());
  const detail::arg_names names{fn, "masks", "masks"};
  detail::superimpose_tree_call(exec, names,
                                detail::view_sources<MaskView>{masks.data(), begin_bits.data(), masks.size()},
                                detail::view_dests<MaskView>{masks.data(), masks.size()}, parents, size_bits,
                                null_counts, [] {});
}

/// superimpose_nulls_tree() over raw masks: node `k` is `masks[k]` (`extent_words` words, written
/// from bit 0) read from bit `begin_bits[k]`. The same contract and errors (a null mask is "a null
/// pointer").
template <class ExecSpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void superimpose_nulls_tree(const ExecSpace& exec, const std::vector<dest_mask>& masks,
                            const std::vector<size_type>& begin_bits, const std::vector<size_type>& parents,
                            size_type size_bits,
                            const Kokkos::View<size_type*, typename ExecSpace::memory_space>& null_counts) {
  constexpr const char* fn = "kmask::superimpose_nulls_tree";
  detail::scoped_region region(fn);
  detail::check_same_size(fn, masks.size(), begin_bits.size());
  detail::arg_names names{fn, "masks", "masks"};
  names.pointers = true;
  const detail::tree_pointer_sources sources{masks.data(), begin_bits.data(), masks.size()};
  detail::superimpose_tree_call(exec, names, detail::prechecked<detail::tree_pointer_sources>{sources},
                                detail::pointer_dests{masks.data(), masks.size()}, parents, size_bits, null_counts,
                                [&] {
                                  for (std::size_t k = 0; k < masks.size(); ++k)
                                    detail::check_tree_source(fn, k, masks[k], begin_bits[k], size_bits);
                                });
}

/// superimpose_nulls_tree() on the execution space of the views' memory space.
template <class MaskView, class = std::enable_if_t<Kokkos::is_view<MaskView>::value>>
void superimpose_nulls_tree(
    const std::vector<MaskView>& masks, const std::vector<size_type>& begin_bits,
    const std::vector<size_type>& parents, size_type size_bits,
    const Kokkos::View<size_type*, typename detail::space_of<MaskView>::memory_space>& null_counts) {
  superimpose_nulls_tree(detail::space_of<MaskView>{}, masks, begin_bits, parents, size_bits, null_counts);
}

}  // namespace kmask

#endif
