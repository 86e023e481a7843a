#ifndef KMASK_DETAIL_TREE_VALIDATION_HPP
#define KMASK_DETAIL_TREE_VALIDATION_HPP

// The host checks of superimpose_nulls_tree() that the segmented core does not have: the parent
// list (its size, each entry's range, cycles) and, for the pointer form, each node's mask read
// from its entry of `begin_bits`. The messages are built in src/tree_validation.cpp.

#include <kmask/types.hpp>

#include <cstddef>
#include <vector>

namespace kmask {
namespace detail {

// The forest's nodes grouped by depth: order[level_offsets[d] .. level_offsets[d + 1]) are the
// nodes of depth d (roots: 0), in increasing index; parent_of[i] is the parent of order[i] (-1
// for a root). Every node comes after its parent.
struct tree_order {
  std::vector<size_type> level_offsets;
  std::vector<size_type> order;
  std::vector<size_type> parent_of;
  size_type max_level_width = 0;
};

// parents.size() == masks.size().
void check_tree_parent_count(const char* fn, std::size_t parents, std::size_t masks);
// Every parents[k] in [-1, n), no cycle; returns the depth order. Out-of-range entries are
// reported (the first one) before any cycle.
tree_order order_tree(const char* fn, const size_type* parents, std::size_t n);
// The pointer form's node k: `mask` read from `begin_bit` (named begin_bits[k]) over size_bits
// bits (size_bits already checked). Throws with the segmented core's message shapes.
void check_tree_source(const char* fn, std::size_t k, const dest_mask& mask, size_type begin_bit,
                       size_type size_bits);

}  // namespace detail
}  // namespace kmask

#endif
