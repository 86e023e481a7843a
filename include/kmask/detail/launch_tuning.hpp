#ifndef KMASK_DETAIL_LAUNCH_TUNING_HPP
#define KMASK_DETAIL_LAUNCH_TUNING_HPP

// The constants that shape kmask's kernels, per execution space and kernel form. Each says in a
// line why it has its value; how the values were measured is perf_tests/results/h200/tuning.md
// ("Where the constants came from").
//
// A backend specialises launch_tuning<Space> (or launch_tuning<Space, std::enable_if_t<...>> for a
// family of spaces). To change only some constants, derive from the defaults and redeclare those:
//   template <> struct launch_tuning<Kokkos::Cuda> : launch_tuning<Kokkos::Cuda, launch_tuning_defaults> {
//     static constexpr int gpu_items = 8;
//   };
// A specialisation must be seen before any kernel uses the space's tuning: a tuning build names a
// header holding it in KMASK_TUNING_OVERRIDE_HEADER (a quoted path), included at the end of this one.

#include <kmask/detail/compat.hpp>
#include <kmask/types.hpp>

namespace kmask {
namespace detail {

// Second argument of launch_tuning that always selects the primary template: the defaults.
struct launch_tuning_defaults {};

template <class ExecSpace, class = void>
struct launch_tuning {
  // GPU form, wide segments: a team per run of blocks of one segment's words.
  // Words per thread: its loads in flight; 16 with source_batch 2 fits two teams' registers per SM.
  static constexpr int gpu_items = 16;
  // Sources whose loads a thread issues together before combining any (a power of two).
  static constexpr int source_batch = 2;
  // Teams LaunchBounds must fit on an SM (0: the compiler's choice): 2 allows the ~128 registers needed.
  static constexpr int gpu_min_teams_per_sm = 2;
  // Blocks one team walks in turn, at most: its fixed cost is paid once for all of them.
  static constexpr size_type gpu_max_blocks_per_team = 32;
  // Blocks x sources one team reads, at most (0: no cap): long teams leave ragged ends over many waves.
  static constexpr size_type gpu_team_source_blocks = 32;
  // A team's fixed cost (offsets -> descriptors -> data chain, reduction), in words streamed.
  static constexpr size_type gpu_team_start_words = 8192;
  // Smallest team a launch that would leave SMs without a team is cut down to (two warps): below
  // it a team's loads in flight no longer cover an SM's share of the copy.
  static constexpr size_type gpu_fill_min_threads = 64;
  // A shifted source's next word from the next lane (CUDA), not a second request for the same line.
  static constexpr bool lane_shuffle = true;

  // GPU form, small segments: one segment per thread, one word per vector lane.
  // Widest small segment, a warp's lanes: a team of words would leave most threads idle below it.
  static constexpr size_type gpu_small_segment_words = 32;
  // One load per source, so 16 sources (the most the benchmarks use) go out at once.
  static constexpr int small_source_batch = 16;
  // Teams wanted per SM before teams shrink: scattered one-word loads need many warps in flight.
  static constexpr size_type gpu_small_teams_per_sm = 8;

  // Copies of the small-segment kernel where the launch locks per kernel type (CUDA): host threads take
  // them in turn, so up to 4 callers launch without queueing on one lock; 1 elsewhere (no lock to
  // avoid), but 2 in the emulated GPU form, so that host CI runs the slot dispatch too.
#if defined(KMASK_EMULATE_GPU_KERNELS)
  static constexpr int launch_slots = launch_locked_per_kernel_type<ExecSpace>() ? 4 : 2;
#else
  static constexpr int launch_slots = launch_locked_per_kernel_type<ExecSpace>() ? 4 : 1;
#endif

  // CPU form: long contiguous runs a core vectorises.
  // Widest small segment: above it a segment is a run long enough to vectorise.
  static constexpr size_type cpu_small_segment_words = 4;
  // Words one parallel iteration owns: runs the prefetcher follows, and iterations to balance threads.
  static constexpr size_type cpu_unit_words = 8192;
  // Words built per block: the accumulator kept between source passes (4 KB) stays in L1.
  static constexpr size_type cpu_block_words = 1024;

  // Counting kernels.
  // Loads a GPU counting thread has in flight: count_set_bits' 16-byte units, and the
  // one-thread-a-range form's words.
  static constexpr size_type count_gpu_items = 8;
  // count_set_bits, GPU form: teams of 256 threads, at most 2 per SM, one wave (a quarter of an
  // SM's threads, each with 8 loads of 16 bytes in flight, is more than the memory's latency
  // needs; a third team, which the kernel's 75 registers allow, read no faster).
  static constexpr int count_gpu_team             = 256;
  static constexpr size_type count_gpu_teams_per_sm = 2;
  // One host thread's run of words: it vectorises, and a mask gives enough runs to balance threads.
  static constexpr size_type count_cpu_chunk_words = 8192;
  // Segmented counts, CPU form (host_range_count.hpp): ranges from which the space's threads check
  // and count the list, a thread a range. Below, the batch launch's serial planning (~20 ns a range)
  // costs less than the two parallel regions (a few us on 16 threads): an estimate, not measured.
  static constexpr int count_cpu_list_min_ranges = 256;
  // Ranges one block of the check pass takes at least, and blocks a thread takes (about): its
  // sums and their join stay a small share; uneven blocks still spread over the threads.
  static constexpr int count_cpu_list_block_ranges = 128;
  static constexpr std::size_t count_cpu_list_blocks_per_thread = 4;
  // Chunks of ranges a thread takes (about) in the counting pass, dealt round robin: ranges of
  // uneven length still balance, and a chunk is many ranges where they are short.
  static constexpr std::size_t count_cpu_list_chunks_per_thread = 16;
  // Segmented counts over ranges in device memory (lengths unknown to the host): the lanes that
  // share a range are sized from the mask's words per range, so short ranges do not leave most of
  // a warp idle and long ones are still read coalesced; teams of 256 threads.
  static constexpr int count_gpu_range_team      = 256;
  static constexpr int count_gpu_range_max_lanes = 32;  // a warp: the widest vector a team has on CUDA
  // 16-byte units a lane reads per range (at the mask's mean range length): four loads in flight.
  static constexpr size_type count_gpu_range_units_per_lane = 4;
  // At most this many such teams per SM, striding over the ranges (a team per 8 ranges took a
  // ticket per team: 12500 same-word atomics at 100000 ranges); the launch is bounded so that
  // many are resident at once.
  static constexpr size_type count_gpu_range_teams_per_sm = 4;
  // The longest range a group of lanes counts (a warp's 8 passes of 8 loads). Longer ranges are
  // split: device ranges into slices of this many words, each a whole team's (one pass of 8
  // loads a thread); a host list with one goes to the batch launch.
  static constexpr size_type count_gpu_range_long_words = 8192;
  // Host ranges checked, copied and uploaded a chunk at a time (128 KiB): the link carries one
  // chunk while the calling thread reads the next, and a chunk's upload costs little beside it.
  static constexpr std::size_t count_gpu_stage_chunk_ranges = 8192;

  // Staging copies (sources a destination overlaps, superimpose_nulls_tree's sliced nodes).
  // Threads of a GPU staging team, and words each: 8 loads in flight before its stores.
  static constexpr size_type stage_gpu_team  = 256;
  static constexpr size_type stage_gpu_items = 8;
  // One host team's run of a staged source: long enough to stream, enough runs to balance threads.
  static constexpr size_type stage_cpu_chunk_words = 8192;

  // batch_count_{set,unset}_bits, GPU form: a team reads passes of (threads x items) 16-byte units.
  // 16-byte loads per thread and pass (where a mask's words are 16-byte aligned): 64 bytes in
  // flight a thread.
  static constexpr size_type batch_gpu_items = 4;
  // Passes a team walks at most: 16 x 4096 words spreads its fixed cost over 256 KiB.
  static constexpr size_type batch_gpu_max_passes = 16;
  // Teams per SM the pass count must still leave: fewer would idle SMs on small batches.
  static constexpr size_type batch_gpu_teams_per_sm = 4;
  // batch_count, CPU form: one host thread's run of words (8 KiB, popcnt at ~1 word a cycle): short
  // enough that 100 masks of 2^24 bits in all give 16 threads 300 runs to balance.
  static constexpr size_type batch_cpu_chunk_words = 2048;

  // Moving kernel (set_bits, copy_bits, concatenate): destination words of consecutive pieces.
  // Groups of 4 words per GPU thread, 256 groups apart: 8 words, and the piece search paid once per walk.
  static constexpr size_type move_gpu_groups = 2;
  // Waves of resident threads a launch should fill before threads take more words: halving the
  // words per thread until then keeps a mask of a few megabits on every SM.
  static constexpr size_type move_gpu_min_waves = 1;
  // One host thread's run of destination words: long enough to stream, enough runs to balance threads.
  static constexpr size_type move_cpu_chunk_words = 8192;
  // GPU form: a piece's whole-word middle of at least this many words goes to the backend's copy or
  // fill routine, the piece's edges to the kernel: 4 MiB, where the routine's faster streaming pays
  // for the second stream operation (a call that is one such run alone takes it at any size). 64 in
  // the emulated GPU form, so that host CI splits pieces of the sizes its tests use.
#if defined(KMASK_EMULATE_GPU_KERNELS)
  static constexpr size_type move_bulk_min_words = 64;
#else
  static constexpr size_type move_bulk_min_words = size_type{1} << 20;
#endif
  // Mask-making kernels (valid_if, bools_to_mask, gather_bits): a thread builds a word from 32
  // bits, or on CUDA a warp 32 words by ballot.
  // Threads of a GPU team (whole warps): 256 fills an SM with 8 teams, each one reduction.
  static constexpr int make_gpu_team = 256;
  // Gathers' teams an SM must hold at once (their launch bounds): a lane's source load waits on its
  // index load, so occupancy is what hides it; 8 x 256 threads leaves 32 registers a thread.
  static constexpr int gather_gpu_min_teams_per_sm = 8;
  // Words per GPU thread: 2 x 256 x 32 rows a team gives ~1 Ki teams at 2^24 rows, one resident wave.
  static constexpr size_type make_gpu_items = 2;
  // Teams per SM a build (not a gather) launches at most, looping over blocks: half a resident
  // wave; more teams each doing less measured slower, fewer left the SMs' loads too few in flight.
  static constexpr size_type make_gpu_teams_per_sm = 4;
  // mask_to_bools: groups of 16 booleans per GPU thread, 256 apart: 4 x 4 KiB per team amortises
  // a team's start, and 2^24 booleans still make 1 Ki teams.
  static constexpr size_type bools_gpu_items = 4;
  // Words one host team (one thread) builds: 64 Ki rows, enough teams to balance 16 threads at 2^24 rows.
  static constexpr size_type make_cpu_team_words = 2048;
  // mask_to_bools, CPU form: one host thread's run of source words (32 KiB of booleans written):
  // long enough to stream, 512 runs at 2^24 rows to balance 16 threads.
  static constexpr size_type bools_cpu_chunk_words = 1024;
};

}  // namespace detail
}  // namespace kmask

#if defined(KMASK_TUNING_OVERRIDE_HEADER)
#include KMASK_TUNING_OVERRIDE_HEADER
#endif

#endif
