#ifndef KMASK_DETAIL_RANGE_COUNT_KERNEL_HPP
#define KMASK_DETAIL_RANGE_COUNT_KERNEL_HPP

// The GPU form of a segmented count whose ranges are in memory the kernel reads, a group of lanes
// a range and, for ranges the device check listed as long, team slices: ranges an engine built on
// the device (device_range_count.hpp, after the device's check) and host ranges the calling thread
// checked and uploaded (count_calls.hpp, which lists none).

#include <kmask/detail/compat.hpp>
#include <kmask/detail/count_kernels.hpp>
#include <kmask/detail/launch_shape.hpp>
#include <kmask/detail/launch_tuning.hpp>
#include <kmask/types.hpp>

#include <algorithm>
#include <string>

namespace kmask {
namespace detail {

// Ranges longer than long_words words (count_gpu_range_long_words) are not a group of lanes' each
// when the device check listed them (device_range_count.hpp): their words are split into slices of
// long_words words, numbered across the listed ranges, and slice j is team j % league's, counted
// by all its threads and lanes after its short ranges. A listed range is six words of `longs`:
// {r, b, e (from bit 0 of the words), its first slice, its slices' sum, slices done}, and
// `owner[j]` is the listed range of slice j. The check lists ranges while they fit (at most
// `listed_cap` ranges and `slice_cap` slices) and keeps counting: the totals it leaves in
// scratch[2] (ranges) and scratch[3] (slices) tell the count launch whether the list is whole; if
// not, nothing is split. Host lists (checked and routed on the host) list nothing.
struct long_range_list {
  size_type long_words = 0;
  size_type* longs     = nullptr;  // nullptr: nothing listed, scratch[2] and [3] unused
  size_type* owner     = nullptr;
  size_type listed_cap = 0;
  size_type slice_cap  = 0;

  KOKKOS_INLINE_FUNCTION bool is_long(const word_type* m, size_type b, size_type e) const {
    return longs != nullptr && m != nullptr && words_of_bits(b, e) > long_words;
  }
  // Whether the check listed every long range (the totals within the capacities).
  KOKKOS_INLINE_FUNCTION bool whole(const size_type* scratch) const {
    return longs != nullptr && scratch[2] <= listed_cap && scratch[3] <= slice_cap;
  }
};

// The GPU form: each team thread counts ranges team_rank + team_size * (league_rank + k * league),
// its `lanes` vector lanes (range_lanes) striding over a range's 16-byte units (count_range_share);
// then the team's slices of the listed long ranges. No range is counted when the check marked one.
// scratch[0] is the mark, scratch[1] a ticket: the team that takes the last ticket copies the mark
// to *verdict and leaves scratch[0..3] zero.
template <class ExecSpace, int Items>
struct device_range_count_functor {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  const word_type* m;  // nullptr: absent (every bit set)
  size_type base;      // the mask's begin_bit
  const size_type* bounds;
  size_type n;
  size_type* counts;
  bool unset;
  int lanes;
  size_type league;
  size_type* scratch;
  size_type* verdict;
  long_range_list list;

  KOKKOS_INLINE_FUNCTION size_type count_of(size_type len, size_type set) const {
    return range_count_start(len, m == nullptr, unset) + (unset ? -set : set);
  }

  // Counts range r, whose bounds (from the mask's bit 0) the caller loaded.
  KOKKOS_INLINE_FUNCTION void count_range(const member_type& team, size_type r, size_type b, size_type e) const {
    size_type set = 0;
    if (m != nullptr && e > b) {
      const size_type first = b / word_bits, stop = (e - 1) / word_bits + 1;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, lanes),
          [&](int lane, size_type& acc) { acc += count_range_share<Items>(lane, lanes, m, first, stop, b, e); }, set);
    }
    Kokkos::single(Kokkos::PerThread(team), [&]() { counts[r] = count_of(e - b, set); });
  }

  // Slice j of the listed long ranges, by every thread and lane of the team: each thread adds its
  // lanes' share to the range's sum (a team reduction here spilled the kernel's registers), and the
  // thread that adds the range's last share writes its count.
  KOKKOS_INLINE_FUNCTION void count_slice(const member_type& team, size_type j) const {
    size_type* entry      = list.longs + 6 * list.owner[j];
    const size_type b = entry[1], e = entry[2];
    const size_type first = b / word_bits, stop = (e - 1) / word_bits + 1;
    const size_type lo    = first + (j - entry[3]) * list.long_words;
    const size_type hi    = stop - lo < list.long_words ? stop : lo + list.long_words;
    const size_type T     = static_cast<size_type>(team.team_size()) * lanes;
    const size_type g0    = static_cast<size_type>(team.team_rank()) * lanes;
    size_type part        = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, lanes),
        [&](int lane, size_type& acc) { acc += count_range_share<Items>(g0 + lane, T, m, lo, hi, b, e); }, part);
    Kokkos::single(Kokkos::PerThread(team), [&]() {
      const size_type shares = (stop - first + list.long_words - 1) / list.long_words * team.team_size();
      atomic_fetch_add_count(&entry[4], part);
      Kokkos::memory_fence();  // the sum before the share is counted done
      if (atomic_fetch_add_count(&entry[5], 1) != shares - 1) return;
      Kokkos::memory_fence();
      counts[entry[0]] = count_of(e - b, atomic_fetch_add_count(&entry[4], 0));
    });
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    // Plain loads, once: the check launch wrote the mark and the list's totals before this launch,
    // and they change only after every team's ticket. (A volatile load per range sent every warp
    // to one L2 word.)
    if (scratch[0] == 0) {
      const bool split       = list.whole(scratch);  // then the listed ranges are the slices
      const size_type stride = league * team.team_size();
      size_type r            = static_cast<size_type>(team.league_rank()) * team.team_size() + team.team_rank();
      size_type b = 0, e = 0;
      if (r < n) b = bounds[2 * r], e = bounds[2 * r + 1];
      // The next range's bounds load while this one is counted: a thread's ranges are then one
      // chain of mask loads, not a chain of bound loads each followed by mask loads.
      while (r < n) {
        const size_type next = r + stride;
        size_type nb = 0, ne = 0;
        if (next < n) nb = bounds[2 * next], ne = bounds[2 * next + 1];
        if (!split || !list.is_long(m, base + b, base + e)) count_range(team, r, base + b, base + e);
        r = next, b = nb, e = ne;
      }
      if (split) {
        const size_type slices = scratch[3];
        for (size_type j = team.league_rank(); j < slices; j += league) count_slice(team, j);
      }
    }
    team.team_barrier();
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      Kokkos::memory_fence();  // every thread's read of the mark precedes the ticket
      if (atomic_fetch_add_count(&scratch[1], 1) != league - 1) return;
      Kokkos::memory_fence();
      *verdict = atomic_exchange_count(&scratch[0], 0);
      atomic_exchange_count(&scratch[1], 0);
      atomic_exchange_count(&scratch[2], 0);
      atomic_exchange_count(&scratch[3], 0);
    });
  }
};

// Lanes that share a range (a power of two, at most a warp): about count_gpu_range_units_per_lane
// 16-byte units each at a range of `mean_words` words. Ranges in device memory take the tiling's
// length (the mask's words over the ranges), which the host can compute without reading them;
// longer ranges take more passes, not a wrong count. The GPU form emulated on a host runs its
// lanes as a loop, so the same choice is tested there.
template <class ExecSpace>
int range_lanes(size_type mean_words) {
  using tuning          = launch_tuning<ExecSpace>;
  const size_type units = mean_words / 4;
  int lanes             = 1;
  while (lanes < tuning::count_gpu_range_max_lanes &&
         static_cast<size_type>(lanes) * tuning::count_gpu_range_units_per_lane < units)
    lanes *= 2;
  return lanes;
}

// Enqueues counts[r] = set bits (or, `unset`, unset bits) of `mask` in its bits
// [bounds[2r], bounds[2r+1]) for r < n, the bounds in memory `exec` reads, lanes sized for ranges
// of `mean_words` words, the long ranges `list` holds split over teams. Nothing is counted while
// scratch[0] (a lease's zeroed word) is non-zero; the launch's last team copies it to *verdict and
// leaves scratch[0..3] zero.
template <class ExecSpace>
void enqueue_range_counts(const std::string& label, const ExecSpace& exec, const source_mask& mask,
                          const size_type* bounds, size_type n, bool unset, size_type* counts, size_type mean_words,
                          size_type* scratch, size_type* verdict, const long_range_list& list = {}) {
  using tuning            = launch_tuning<ExecSpace>;
  constexpr int items     = static_cast<int>(tuning::count_gpu_items);
  // The GPU form emulated on a host: a team is one thread, its lanes a loop.
  const int lanes         = range_lanes<ExecSpace>(mean_words);
  const int per_team      = runs_on_host<ExecSpace>() ? 1 : tuning::count_gpu_range_team / lanes;
  const int vector_length = runs_on_host<ExecSpace>() ? 1 : lanes;
  // At most count_gpu_range_teams_per_sm teams an SM, striding over the ranges; the GPU form
  // emulated on a host runs at most 3 teams (a thread each), so the stride loop is tested there.
  const size_type wanted  = (n + per_team - 1) / per_team;
  const size_type league  = runs_on_host<ExecSpace>()
                                ? std::min<size_type>(wanted, 3)
                                : std::min<size_type>(wanted, tuning::count_gpu_range_teams_per_sm *
                                                                  device_shape_of(exec).multiprocessors);
  // Bounded so the teams an SM is given are resident together (88 registers left two of four).
  using policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<tuning::count_gpu_range_team,
                                                                    tuning::count_gpu_range_teams_per_sm>>;
  Kokkos::parallel_for(label, policy(exec, static_cast<int>(league), per_team, vector_length),
                       device_range_count_functor<ExecSpace, items>{
                           mask.words, mask.words == nullptr ? 0 : mask.begin_bit, bounds, n, counts,
                           unset != mask.invert, lanes, league, scratch, verdict, list});
}
}  // namespace detail
}  // namespace kmask

#endif
