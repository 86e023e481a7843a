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
  // GPU form: nodes whose loads a lane issues together, 4 consecutive words (one 16-byte access)
  // each, with their parents' read back (at most 4: their null counts share one 64-bit reduction).
  static constexpr int gpu_batch = 4;
  // Warps of a GPU team: 256 threads, what LaunchBounds sizes the registers for.
  static constexpr int gpu_rows = 8;
  // Teams resident per SM that LaunchBounds asks for: 2 leaves 128 registers a thread, room for a
  // batch's words and its parents' without spilling; the grid is this many per SM, each warp
  // walking runs in turn.
  static constexpr int gpu_min_teams_per_sm = 2;
  // Walk positions decoded into team scratch at a time (56 bytes each): 73-node structs in one go.
  static constexpr size_type gpu_chunk_nodes = 128;
  // Forests of at most this many nodes count in team scratch (8 bytes a node); larger ones add each
  // warp's counts to memory directly.
  static constexpr size_type gpu_team_count_nodes = 2048;
  // Aligned walk (tree_aligned_kernel.hpp): teams resident per SM that LaunchBounds asks for; a
  // lane holds two runs' words (16 registers), so 4 teams of 256 fit in 64 registers a thread.
  static constexpr int gpu_aligned_teams_per_sm = 4;
  // Aligned walk: forests of at most this many nodes take it (a 32-byte step each in team scratch);
  // larger ones take the general walk.
  static constexpr size_type gpu_aligned_max_nodes = 1024;
  // Aligned walk: masks of at most this many words (2^22 bits) take it; its units have too few
  // runs' loads in flight to stream larger ones as fast as the general walk's batches.
  static constexpr size_type gpu_aligned_max_words = size_type{1} << 17;
  // Teams of the GPU form emulated on a host space: few, so each walks several runs as a full grid does.
  static constexpr size_type emulated_teams = 3;

  // CPU form: words of every node one parallel iteration owns: each node's run streams and the
  // parent's run, written just before by the same iteration, is still in L2.
  static constexpr size_type cpu_unit_words = 8192;
  // Words per inner pass (accumulator in L1, 16-bit set-bit fields cannot carry).
  static constexpr size_type cpu_block_words = 1024;
  // A node read from a later bit of its own mask, fewer words ahead than this, is walked in place
  // with a halo of that many words a unit (tree_kernels.hpp) instead of being staged whole; at most
  // a block (its unit's tail is one pass), and 1/8 of a unit, so the halos stay a small copy.
  static constexpr size_type cpu_halo_max_words = 1024;
};

}  // namespace detail
}  // namespace kmask

#endif
