#ifndef KMASK_DETAIL_LAUNCH_SHAPE_HPP
#define KMASK_DETAIL_LAUNCH_SHAPE_HPP

// How the (destination word x segment) space is cut into teams for one execution space.

#include <kmask/types.hpp>

#include <algorithm>

namespace kmask {
namespace detail {

template <class ExecSpace>
constexpr bool runs_on_host() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
}

// At most this many words per segment: one thread (one loop iteration) per segment, several
// segments per team, no atomics. Above it: teams of words, one atomic per team.
constexpr size_type small_segment_words = 4;

struct team_shape {
  int team_size;              // threads of one team
  size_type groups;           // TeamThreadRange indices of one team; each owns `items` words
  size_type words_per_team;   // groups * items: destination words one team writes
  size_type teams_per_segment;
};

// Words per TeamThreadRange index: independent loads in flight per thread on the GPU; a run long
// enough to vectorise on the host.
template <class ExecSpace>
constexpr int items_per_group() {
  return runs_on_host<ExecSpace>() ? 16 : 8;
}

template <class ExecSpace>
team_shape shape_for(size_type words) {
  constexpr size_type items = items_per_group<ExecSpace>();
  if (runs_on_host<ExecSpace>()) {
    // One thread per team walking a long contiguous run: no team synchronisation to pay for, and
    // enough teams to balance OpenMP threads once a mask is a few hundred kilobits.
    const size_type chunk = std::min<size_type>(8192, (words + items - 1) / items * items);
    return {1, chunk / items, chunk, (words + chunk - 1) / chunk};
  }
  // A team no larger than the segment needs, 32..256 threads.
  constexpr size_type max_threads = 256;
  size_type threads               = 32;
  while (threads < max_threads && threads * items < words) threads *= 2;
  const size_type chunk = threads * items;
  return {static_cast<int>(threads), threads, chunk, (words + chunk - 1) / chunk};
}

}  // namespace detail
}  // namespace kmask

#endif
