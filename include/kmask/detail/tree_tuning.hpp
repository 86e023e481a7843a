#ifndef KMASK_DETAIL_TREE_TUNING_HPP
#define KMASK_DETAIL_TREE_TUNING_HPP

// The constants that shape superimpose_nulls_tree()'s kernels (detail/tree_kernels.hpp), per
// execution space, each with the reason for its value. A backend specialises tree_tuning<Space>
// as it would launch_tuning (detail/launch_tuning.hpp).

#include <kmask/detail/cpu_word_passes.hpp>
#include <kmask/types.hpp>

namespace kmask {
namespace detail {

template <class ExecSpace, class = void>
struct tree_tuning {
  // GPU form: words per lane of one node in a team's block: 16 independent loads in flight per
  // lane and node, which every node of a level issues before any store (one round trip per node).
  static constexpr int gpu_items = 16;
  // Warps of a GPU team, at most: one node of a level per warp, so a level of 8 children (the
  // benchmark's struct) runs side by side; more would idle while a root level runs.
  static constexpr int gpu_max_rows = 8;
  // Warps when the whole forest fits in few teams (small masks): wide levels then run 32 nodes at
  // a time instead of 8, the team's warps being all the parallelism the launch has.
  static constexpr int gpu_small_rows = 32;

  // CPU form: words of every node one parallel iteration owns: each node's run streams and the
  // parent's run, written just before by the same iteration, is still in L2.
  static constexpr size_type cpu_unit_words = 8192;
  // Words per inner pass (accumulator in L1, 16-bit set-bit fields cannot carry).
  static constexpr size_type cpu_block_words = 1024;
};

}  // namespace detail
}  // namespace kmask

#endif
