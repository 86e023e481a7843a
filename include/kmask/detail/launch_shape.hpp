#ifndef KMASK_DETAIL_LAUNCH_SHAPE_HPP
#define KMASK_DETAIL_LAUNCH_SHAPE_HPP

// How the (destination word x segment) space is cut into work for one execution space, and the
// tuning constants behind it (measured on the H200 and on 16 host cores: perf_tests/results/).

#include <kmask/types.hpp>

#include <algorithm>

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

// GPU form: words per thread (independent loads in flight), and sources whose loads a thread issues
// together before combining any of them (a power of two). Registers bound both: every load in flight
// needs one, and registers per thread bound the threads an SM keeps resident.
// Measured on the H200 (perf_tests/results/h200/tuning.md): 16 words x 2 sources beat 8 x 4, 4 x 4
// and 16 x 1 at 2^20-2^24 bits; 16 x 2 and 8 x 4 both hold ~125-130 registers, two 256-thread teams per
// SM, so the words each thread streams per team decide.
#ifndef KMASK_GPU_ITEMS
#define KMASK_GPU_ITEMS 16
#endif
#ifndef KMASK_SOURCE_BATCH
#define KMASK_SOURCE_BATCH 2
#endif
// The small-segment kernel loads one word per source, so it can keep more sources in flight.
#ifndef KMASK_SMALL_SOURCE_BATCH
#define KMASK_SMALL_SOURCE_BATCH 8
#endif
// Teams of the wide GPU kernel the compiler must fit on one SM at once (0: its own choice). It caps
// registers per thread at 64K / (256 x this), trading registers for resident warps.
#ifndef KMASK_GPU_MIN_TEAMS_PER_SM
#define KMASK_GPU_MIN_TEAMS_PER_SM 0
#endif
// Blocks of gpu_items x team-size words one wide-kernel team walks in turn, at most: a team's fixed
// cost (start, offsets and descriptor reads, reduction, atomic) is paid once for all of them.
#ifndef KMASK_GPU_MAX_BLOCKS_PER_TEAM
#define KMASK_GPU_MAX_BLOCKS_PER_TEAM 8
#endif
// Shifted sources on CUDA: a word's successor comes from the next lane's register (one shuffle)
// rather than from a second load of the same cache lines; 0 keeps the second load.
#ifndef KMASK_LANE_SHUFFLE
#define KMASK_LANE_SHUFFLE 1
#endif
constexpr int gpu_items          = KMASK_GPU_ITEMS;
// Lanes of a CUDA warp: the GPU form lays words out in runs of this many.
constexpr size_type warp_lanes = 32;
constexpr int source_batch       = KMASK_SOURCE_BATCH;
constexpr int small_source_batch = KMASK_SMALL_SOURCE_BATCH;

// CPU form: one parallel iteration owns this many words of one segment, and streams each source
// through an accumulator of cpu_block_words words that stays in L1.
constexpr size_type cpu_unit_words  = 8192;
constexpr size_type cpu_block_words = 1024;

// At most this many words per segment: a segment is one thread's work (its words spread over
// that thread's vector lanes on a GPU), several segments per team, no atomics. Above it: a GPU
// team per block of words, or a CPU iteration per unit of words. On a GPU a team of words would
// leave most of its threads idle below a warp's worth of words; on a CPU a long contiguous run is
// what vectorises.
template <class ExecSpace>
constexpr size_type small_segment_words() {
  return uses_cpu_kernels<ExecSpace>() ? 4 : 32;
}

// Teams of the small-segment kernel: `team_size` threads of `vector_length` lanes walk
// `segments_per_team` segments, one per thread at a time and one word per lane (lanes stride over
// padding words past `words`). A host team is one thread looping over its segments.
struct small_shape {
  int team_size;
  int vector_length;
  int segments_per_team;
};

template <class ExecSpace>
small_shape small_shape_for(size_type words) {
  if (runs_on_host<ExecSpace>()) return {1, 1, 256};
  int lanes = 1;
  while (lanes < 32 && lanes < words) lanes *= 2;
  return {256 / lanes, lanes, 256 / lanes};
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

// Measured on the H200 (perf_tests/results/h200/tuning.md): teams walking 3-6 blocks raised
// 4-mask segments from 0.74-0.80 to 0.82-0.85 of copy speed, while 16-mask segments, whose blocks
// are long already, lost up to 0.1 with shifted sources. So a team walks blocks until it has read
// about 16 source blocks, and only while the call still has enough teams to fill the device.
template <class ExecSpace>
team_shape gpu_shape_for(const ExecSpace& exec, size_type words, size_type num_segments,
                         size_type sources_per_segment) {
  const size_type threads = gpu_team_threads(words, gpu_items);
  const size_type block   = threads * gpu_items;
  const size_type blocks  = (words + block - 1) / block;
  // At least ~8 waves of 256-thread teams at two teams per SM (concurrency() is the device's
  // resident-thread capacity, 2048 per SM on the H200).
  const size_type min_teams = 2 * static_cast<size_type>(exec.concurrency()) / 256;
  const size_type by_fill   = min_teams > 0 ? (num_segments * blocks) / min_teams : blocks;
  const size_type by_work   = (16 + sources_per_segment - 1) / std::max<size_type>(1, sources_per_segment);
  const size_type per_team  = std::max<size_type>(
      1, std::min<size_type>({by_fill, by_work, blocks, size_type{KMASK_GPU_MAX_BLOCKS_PER_TEAM}}));
  return {runs_on_host<ExecSpace>() ? 1 : static_cast<int>(threads), threads, block * per_team,
          (blocks + per_team - 1) / per_team, static_cast<int>(per_team)};
}

// Teams of the counting kernels, which read one word per index: a GPU team per block of
// 256 threads x 8 words; on a host, one thread per team walking a long contiguous run (no team
// synchronisation to pay for, and enough teams to balance OpenMP threads once a mask is a few
// hundred kilobits).
template <class ExecSpace>
team_shape count_shape_for(size_type words) {
  if (runs_on_host<ExecSpace>()) {
    const size_type chunk = std::min<size_type>(8192, words);
    return {1, chunk, chunk, (words + chunk - 1) / chunk};
  }
  constexpr size_type items = 8;
  const size_type threads   = gpu_team_threads(words, items);
  const size_type chunk     = threads * items;
  return {static_cast<int>(threads), threads, chunk, (words + chunk - 1) / chunk};
}

}  // namespace detail
}  // namespace kmask

#endif
