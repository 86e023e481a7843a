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
// The small-segment kernel loads one word per source, so it can keep more sources in flight: 16,
// the most masks per segment the benchmarks use, makes their descriptor-then-word chain one deep.
#ifndef KMASK_SMALL_SOURCE_BATCH
#define KMASK_SMALL_SOURCE_BATCH 16
#endif
// Teams of the wide GPU kernel the compiler must fit on one SM at once (0: its own choice). It caps
// registers per thread at 64K / (256 x this); 2 is what the kernel needs anyway (~128 registers),
// and stating it makes the team count gpu_shape_for assumes the one the compiler delivers.
#ifndef KMASK_GPU_MIN_TEAMS_PER_SM
#define KMASK_GPU_MIN_TEAMS_PER_SM 2
#endif
// Blocks of gpu_items x team-size words one wide-kernel team walks in turn, at most: a team's fixed
// cost (start, offsets and descriptor reads, reduction, count) is paid once for all of them.
#ifndef KMASK_GPU_MAX_BLOCKS_PER_TEAM
#define KMASK_GPU_MAX_BLOCKS_PER_TEAM 32
#endif
// Source blocks one wide-kernel team reads, at most (0: no limit beyond the one above): long
// teams cost 16-mask segments 0.015-0.03 of copy speed wherever a launch has many waves (run 14:
// no limit against 32; 16 capped 4-mask teams at 4 blocks and lost 0.04 at 10 x 2^24).
#ifndef KMASK_GPU_TEAM_SOURCE_BLOCKS
#define KMASK_GPU_TEAM_SOURCE_BLOCKS 32
#endif
// A team's fixed cost in words streamed: ~1.9 us per team on the H200 (run 11's ncu: 36.7 us for
// 4.85 waves of 1280 one-block teams where copy speed predicts 27 us), at the ~3.8 words/ns one of
// 264 resident teams streams.
#ifndef KMASK_GPU_TEAM_START_WORDS
#define KMASK_GPU_TEAM_START_WORDS 8192
#endif
// Shifted sources on CUDA: a word's successor comes from the next lane's register (one shuffle)
// rather than from a second load of the same cache lines; 0 keeps the second load.
#ifndef KMASK_LANE_SHUFFLE
#define KMASK_LANE_SHUFFLE 1
#endif
constexpr int gpu_items          = KMASK_GPU_ITEMS;
// Wide-kernel teams resident per SM: what LaunchBounds asks for, or the 2 that ~128 registers give.
constexpr int gpu_teams_per_sm = KMASK_GPU_MIN_TEAMS_PER_SM > 0 ? KMASK_GPU_MIN_TEAMS_PER_SM : 2;
// Lanes of a CUDA warp: the GPU form lays words out in runs of this many.
constexpr size_type warp_lanes = 32;
constexpr int source_batch       = KMASK_SOURCE_BATCH;
constexpr int small_source_batch = KMASK_SMALL_SOURCE_BATCH;

// CPU form: one parallel iteration owns this many words of one segment, built in blocks of
// cpu_block_words words whose accumulator (for segments of more than cpu_pass_sources sources)
// stays in L1.
#ifndef KMASK_CPU_UNIT_WORDS
#define KMASK_CPU_UNIT_WORDS 8192
#endif
#ifndef KMASK_CPU_BLOCK_WORDS
#define KMASK_CPU_BLOCK_WORDS 1024
#endif
constexpr size_type cpu_unit_words  = KMASK_CPU_UNIT_WORDS;
constexpr size_type cpu_block_words = KMASK_CPU_BLOCK_WORDS;

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

// A device's resident-thread capacity (concurrency()) in SMs of 2048 threads, at least 1.
template <class ExecSpace>
size_type gpu_sms(const ExecSpace& exec) {
  return std::max<size_type>(1, static_cast<size_type>(exec.concurrency()) / 2048);
}

// Small-segment teams wanted per SM before teams shrink (see small_shape_for): 8 beat 2 by
// 1-4 us at 16 masks x 32 bits (run 14).
#ifndef KMASK_GPU_SMALL_TEAMS_PER_SM
#define KMASK_GPU_SMALL_TEAMS_PER_SM 8
#endif

// GPU teams are 256 threads, or fewer (down to one warp) while that leaves fewer than
// KMASK_GPU_SMALL_TEAMS_PER_SM teams per SM, and then warps of fewer segments (lanes past the
// words idle): 1000 one-word segments in 256-thread teams kept 4 SMs busy, each issuing 4,000
// scattered descriptor and word loads one after another.
template <class ExecSpace>
small_shape small_shape_for(const ExecSpace& exec, size_type words, size_type num_segments) {
  if (runs_on_host<ExecSpace>()) return {1, 1, 256};
  int lanes = 1;
  while (lanes < 32 && lanes < words) lanes *= 2;
  int threads            = 256;
  const size_type wanted = KMASK_GPU_SMALL_TEAMS_PER_SM * gpu_sms(exec);
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

// Blocks per team. Teams of one launch do equal work, so they run in waves of `resident` (two
// per SM); a launch costs about waves x (the blocks' words streamed + a team's fixed cost). Teams
// walking several blocks pay the fixed cost once (4-mask segments gained 0.05-0.07 of copy speed
// from it), but a count of teams just past a multiple of `resident` leaves a last wave almost
// empty: 16-mask segments lost 0.07-0.12 to that with a fill-based choice (tuning.md, run 8). So
// the count is chosen on that cost, over 1..KMASK_GPU_MAX_BLOCKS_PER_TEAM blocks and at most
// KMASK_GPU_TEAM_SOURCE_BLOCKS source blocks, unless that many blocks fit the launch in one wave
// (runs 13-15: 10-segment launches, whose one-block teams made 4.85 waves, went from 0.68-0.87 to
// 0.82-0.91 of copy speed at 2^24 bits; 8-mask ones, capped at 4 blocks, stayed at 0.79-0.82).
template <class ExecSpace>
team_shape gpu_shape_for(const ExecSpace& exec, size_type words, size_type num_segments,
                         size_type sources_per_segment) {
  const size_type threads  = gpu_team_threads(words, gpu_items);
  const size_type block    = threads * gpu_items;
  const size_type blocks   = (words + block - 1) / block;
  const size_type resident = std::max<size_type>(
      1, static_cast<size_type>(exec.concurrency()) * gpu_teams_per_sm * 256 / (2048 * threads));
  const size_type block_cost = block * (sources_per_segment + 1);
  const size_type most = std::min<size_type>(blocks, KMASK_GPU_MAX_BLOCKS_PER_TEAM);
  const size_type capped =
      KMASK_GPU_TEAM_SOURCE_BLOCKS > 0
          ? std::min<size_type>(most, std::max<size_type>(1, KMASK_GPU_TEAM_SOURCE_BLOCKS /
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
    const size_type cost = (teams_for(p) + resident - 1) / resident * (p * block_cost + KMASK_GPU_TEAM_START_WORDS);
    if (p == 1 || cost < best) {
      best     = cost;
      per_team = p;
    }
  }
  return {runs_on_host<ExecSpace>() ? 1 : static_cast<int>(threads), threads, block * per_team,
          (blocks + per_team - 1) / per_team, static_cast<int>(per_team)};
}

// Teams of the counting kernels, which read one word per index: a GPU team per block of
// 256 threads x 8 words; on a host, one thread per team walking a long contiguous run (no team
// synchronisation to pay for, and enough teams to balance OpenMP threads once a mask is a few
// hundred kilobits).
constexpr size_type cpu_count_chunk_words = 8192;  // one host thread's run (count_set_bits too)

template <class ExecSpace>
team_shape count_shape_for(size_type words) {
  if (runs_on_host<ExecSpace>()) {
    const size_type chunk = std::min<size_type>(cpu_count_chunk_words, words);
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
