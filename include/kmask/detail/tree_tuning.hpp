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
  // GPU form: words per lane of one node in a warp's run (32 x gpu_items words): with gpu_batch
  // nodes of loads issued together, 16 loads in flight per lane (2 per lane ran slower from 2^24
  // rows up, perf_tests/results/h200/session9/tree_batch_count.md).
  static constexpr int gpu_items = 4;
  // Nodes whose loads a warp issues together (at most 4: their null counts share one reduction).
  static constexpr int gpu_batch = 4;
  // Warps of a GPU team: 256 threads, what LaunchBounds sizes the registers for.
  static constexpr int gpu_rows = 8;
  // Teams resident per SM that LaunchBounds asks for: 4 (64 registers, some spilled) ran faster
  // than 3 (80) or 2 (116) from 2^24 rows up; the grid is this many per SM, each warp walking runs
  // in turn, so at 2^24 rows the whole forest is one wave.
  static constexpr int gpu_min_teams_per_sm = 4;
  // Forests of at most this many nodes count in team scratch (8 bytes a node); larger ones add each
  // warp's counts to memory directly.
  static constexpr size_type gpu_team_count_nodes = 2048;
  // Teams of the GPU form emulated on a host space: few, so each walks several runs as a full grid does.
  static constexpr size_type emulated_teams = 3;

  // CPU form: words of every node one parallel iteration owns: each node's run streams and the
  // parent's run, written just before by the same iteration, is still in L2.
  static constexpr size_type cpu_unit_words = 8192;
  // Words per inner pass (accumulator in L1, 16-bit set-bit fields cannot carry).
  static constexpr size_type cpu_block_words = 1024;
};

}  // namespace detail
}  // namespace kmask

#endif
