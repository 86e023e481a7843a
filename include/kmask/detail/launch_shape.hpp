#ifndef KMASK_DETAIL_LAUNCH_SHAPE_HPP
#define KMASK_DETAIL_LAUNCH_SHAPE_HPP

// How the (destination word x segment) space is cut into work for one execution space; the
// constants it works with are launch_tuning's (launch_tuning.hpp).

#include <kmask/detail/compat.hpp>
#include <kmask/detail/launch_tuning.hpp>
#include <kmask/types.hpp>

#include <algorithm>
#include <atomic>
#include <utility>

namespace kmask {
namespace detail {

template <class ExecSpace>
constexpr bool runs_on_host() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
}

// Whether ExecSpace gets the CPU form of the segmented kernels (long contiguous runs a core
// vectorises) rather than the GPU form (teams, interleaved words, loads batched in registers).
// A test build defines KMASK_EMULATE_GPU_KERNELS so that host CI runs the GPU form's logic too.
template <class ExecSpace>
constexpr bool uses_cpu_kernels() {
#if defined(KMASK_EMULATE_GPU_KERNELS)
  return false;
#else
  return runs_on_host<ExecSpace>();
#endif
}

// The launch slot of the calling host thread, in [0, slots): threads take slots in turn at their
// first launch, so up to `slots` threads that call at once hold different slots.
inline int launch_slot_of_this_thread(int slots) {
  static std::atomic<unsigned> next_thread{0};
  thread_local const unsigned this_thread = next_thread.fetch_add(1, std::memory_order_relaxed);
  return static_cast<int>(this_thread % static_cast<unsigned>(slots));
}

// Lanes of a CUDA warp: the GPU form lays words out in runs of this many.
constexpr size_type warp_lanes = 32;

// Wide-kernel teams of 256 threads resident per SM: what LaunchBounds asks for, or the 2 that
// ~128 registers per thread give when it asks nothing.
template <class ExecSpace>
constexpr int gpu_teams_per_sm() {
  return launch_tuning<ExecSpace>::gpu_min_teams_per_sm > 0 ? launch_tuning<ExecSpace>::gpu_min_teams_per_sm : 2;
}

// At most this many words per segment: a segment is one thread's work (its words spread over
// that thread's vector lanes on a GPU), several segments per team, no atomics. Above it: a GPU
// team per block of words, or a CPU iteration per unit of words. On a GPU a team of words would
// leave most of its threads idle below a warp's worth of words; on a CPU a long contiguous run is
// what vectorises.
template <class ExecSpace>
constexpr size_type small_segment_words() {
  return uses_cpu_kernels<ExecSpace>() ? launch_tuning<ExecSpace>::cpu_small_segment_words
                                       : launch_tuning<ExecSpace>::gpu_small_segment_words;
}

// Teams of the small-segment kernel: `team_size` threads of `vector_length` lanes walk
// `segments_per_team` segments, one per thread at a time and one word per lane (lanes stride over
// padding words past `words`). A host team is one thread looping over its segments.
struct small_shape {
  int team_size;
  int vector_length;
  int segments_per_team;
};

// GPU teams are 256 threads, or fewer (down to one warp) while that leaves fewer than
// gpu_small_teams_per_sm teams per SM, and then warps of fewer segments (lanes past the words
// idle): in 256-thread teams, a few hundred one-word segments would occupy a few SMs, each issuing
// thousands of scattered descriptor and word loads one after another.
template <class ExecSpace>
small_shape small_shape_for(const ExecSpace& exec, size_type words, size_type num_segments) {
  if (runs_on_host<ExecSpace>()) return {1, 1, 256};
  int lanes = 1;
  while (lanes < 32 && lanes < words) lanes *= 2;
  int threads            = 256;
  const size_type wanted = launch_tuning<ExecSpace>::gpu_small_teams_per_sm * device_shape_of(exec).multiprocessors;
  const auto teams       = [&](int t, int l) {
    const size_type per_team = t / l;
    return (num_segments + per_team - 1) / per_team;
  };
  while (threads > 32 && teams(threads, lanes) < wanted) threads /= 2;
  while (threads == 32 && lanes < 32 && teams(threads, lanes) < wanted) lanes *= 2;
  return {threads / lanes, lanes, threads / lanes};
}

struct team_shape {
  int team_size;              // threads of one team
  size_type groups;           // TeamThreadRange indices of one team; each owns `items` words
  size_type words_per_team;   // destination words one team covers (blocks_per_team blocks)
  size_type teams_per_segment;
  int blocks_per_team = 1;    // blocks of groups x items words a team walks in turn
};

// Teams of the GPU-form segmented kernel: no larger than the segment needs, 32..256 threads, each
// owning gpu_items words strided by the team size (coalesced across the team). A host space
// (emulating) runs the same groups in one thread.
inline size_type gpu_team_threads(size_type words, size_type items) {
  size_type threads = 32;
  while (threads < 256 && threads * items < words) threads *= 2;
  return threads;
}

// Blocks per team. Teams of one launch do equal work, so they run in waves of `resident` (what the
// SMs hold at once); a launch costs about waves x (the blocks' words streamed + a team's fixed cost).
// Teams walking several blocks pay the fixed cost once, but a count of teams just past a multiple
// of `resident` leaves a last wave almost empty. So the count is chosen on that cost, over
// 1..gpu_max_blocks_per_team blocks and at most gpu_team_source_blocks source blocks, unless that
// many blocks fit the launch in one wave.
template <class ExecSpace>
team_shape gpu_shape_for(const ExecSpace& exec, size_type words, size_type num_segments,
                         size_type sources_per_segment) {
  using tuning              = launch_tuning<ExecSpace>;
  constexpr size_type items = tuning::gpu_items;
  const device_shape device = device_shape_of(exec);
  size_type threads         = gpu_team_threads(words, items);
  // Few segments of few blocks (10 x 2^20 bits: 80 teams of 256 on a 132-SM card) leave SMs
  // without a team, and each busy SM streams one team's loads: smaller teams spread the same
  // words over more SMs.
  while (threads > tuning::gpu_fill_min_threads &&
         num_segments * ((words + threads * items - 1) / (threads * items)) < device.multiprocessors)
    threads /= 2;
  const size_type block  = threads * items;
  const size_type blocks = (words + block - 1) / block;
  // Teams of `threads` an SM holds: the threads its 256-thread teams' registers allow, at most
  // the threads it keeps resident.
  const size_type sm_threads = std::min<size_type>(gpu_teams_per_sm<ExecSpace>() * size_type{256},
                                                   device.threads_per_multiprocessor);
  const size_type resident   = std::max<size_type>(1, device.multiprocessors * sm_threads / threads);
  const size_type block_cost = block * (sources_per_segment + 1);
  const size_type most = std::min<size_type>(blocks, tuning::gpu_max_blocks_per_team);
  const size_type capped =
      tuning::gpu_team_source_blocks > 0
          ? std::min<size_type>(most, std::max<size_type>(1, tuning::gpu_team_source_blocks /
                                                                 std::max<size_type>(1, sources_per_segment)))
          : most;
  const auto teams_for = [&](size_type p) { return num_segments * ((blocks + p - 1) / p); };
  // The fewest blocks per team that fit the launch in one wave, if any does and that wave fills at
  // least 7/8 of the slots: no team then waits for another to finish, so the cap (against ragged
  // ends of many waves) does not apply to it; a wave much less full would idle SMs all along.
  size_type one_wave = 1;
  while (one_wave <= most && teams_for(one_wave) > resident) ++one_wave;
  if (one_wave <= most && 8 * teams_for(one_wave) < 7 * resident) one_wave = 0;
  size_type per_team = 1, best = 0;
  for (size_type p = 1; p <= most; ++p) {
    if (p > capped && p != one_wave) continue;
    const size_type cost = (teams_for(p) + resident - 1) / resident * (p * block_cost + tuning::gpu_team_start_words);
    if (p == 1 || cost < best) {
      best     = cost;
      per_team = p;
    }
  }
  return {runs_on_host<ExecSpace>() ? 1 : static_cast<int>(threads), threads, block * per_team,
          (blocks + per_team - 1) / per_team, static_cast<int>(per_team)};
}

}  // namespace detail
}  // namespace kmask

#endif
