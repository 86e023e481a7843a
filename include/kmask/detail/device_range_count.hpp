#ifndef KMASK_DETAIL_DEVICE_RANGE_COUNT_HPP
#define KMASK_DETAIL_DEVICE_RANGE_COUNT_HPP

// Segmented counts whose ranges already live where the kernels read them (offsets an engine built
// on the device). Nothing crosses to the device, and the host cannot read the ranges to check them,
// so the device does: a check launch marks the first bad range, the count launch writes nothing
// when one is marked, and the call reads the mark back (its one wait) and throws the host check's
// message for that range.

#include <kmask/detail/count_calls.hpp>
#include <kmask/detail/count_kernels.hpp>
#include <kmask/detail/launch_tuning.hpp>
#include <kmask/detail/staging_pool.hpp>
#include <kmask/detail/validation.hpp>
#include <kmask/types.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace kmask {
namespace detail {

// *mark = max(*mark, n - r) for every range r that range_bounds_ok() refuses: n - (the first bad
// range), 0 when every range is good, so the mark can start in a lease's zeroed word.
struct range_check_functor {
  const size_type* bounds;
  size_type n;
  source_mask mask;
  size_type* mark;
  KOKKOS_INLINE_FUNCTION void operator()(size_type r) const {
    if (!range_bounds_ok(mask, bounds[2 * r], bounds[2 * r + 1])) atomic_max_count(mark, n - r);
  }
};

// The GPU form: each team thread counts ranges team_rank + team_size * (league_rank + k * league),
// its `lanes` vector lanes (range_lanes) striding over a range's 16-byte units (count_range_share).
// No range is counted when the check marked one. scratch[0] is the mark, scratch[1] a ticket: the
// team that takes the last ticket copies the mark to *verdict and leaves both zero.
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

  // Counts range r, whose bounds (from the mask's bit 0) the caller loaded.
  KOKKOS_INLINE_FUNCTION void count_range(const member_type& team, size_type r, size_type b, size_type e) const {
    size_type set = 0;
    if (m != nullptr && e > b) {
      const size_type first = b / word_bits, stop = (e - 1) / word_bits + 1;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, lanes),
          [&](int lane, size_type& acc) { acc += count_range_share<Items>(lane, lanes, m, first, stop, b, e); }, set);
    }
    Kokkos::single(Kokkos::PerThread(team),
                   [&]() { counts[r] = range_count_start(e - b, m == nullptr, unset) + (unset ? -set : set); });
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    // A plain load, once: the check launch wrote the mark before this launch, and it changes only
    // after every team's ticket. (A volatile load per range sent every warp to one L2 word.)
    if (scratch[0] == 0) {
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
        count_range(team, r, base + b, base + e);
        r = next, b = nb, e = ne;
      }
    }
    team.team_barrier();
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      Kokkos::memory_fence();  // every thread's read of the mark precedes the ticket
      if (atomic_fetch_add_count(&scratch[1], 1) != league - 1) return;
      Kokkos::memory_fence();
      *verdict = atomic_exchange_count(&scratch[0], 0);
      atomic_exchange_count(&scratch[1], 0);
    });
  }
};

// Lanes that share a range (a power of two, at most a warp): about count_gpu_range_units_per_lane
// 16-byte units each at the mean range length the mask's extent gives. The host cannot read the
// ranges, so this is the tiling's length; longer ranges take more passes, not a wrong count. The
// GPU form emulated on a host runs its lanes as a loop, so the same choice is tested there.
template <class ExecSpace>
int range_lanes(const source_mask& mask, std::size_t n) {
  using tuning          = launch_tuning<ExecSpace>;
  const size_type units = mask.words == nullptr ? 0 : mask.extent_words / 4 / static_cast<size_type>(n);
  int lanes             = 1;
  while (lanes < tuning::count_gpu_range_max_lanes &&
         static_cast<size_type>(lanes) * tuning::count_gpu_range_units_per_lane < units)
    lanes *= 2;
  return lanes;
}

// The arguments the host can check: the list's length, the mask, a null ranges view.
inline void check_device_range_args(const char* fn, const source_mask& mask, const size_type* bounds,
                                    std::size_t num_bounds) {
  check_range_list(fn, mask, num_bounds);
  check_range_view(fn, num_bounds, bounds == nullptr);
}

// counts(r) = set bits (or, `unset`, unset bits) of `mask` in its bits [bounds[2r], bounds[2r+1])
// for r < num_bounds / 2, the bounds in memory `exec` reads, the host's checks passed. The ranges
// are checked before a count is written; waits for `exec`.
template <class ExecSpace>
void count_device_ranges_checked(const char* fn, const ExecSpace& exec, const source_mask& mask,
                                 const size_type* bounds, std::size_t num_bounds, bool unset,
                                 const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts) {
  const std::size_t n = num_bounds / 2;
  if (n == 0) return;
  if constexpr (uses_cpu_kernels<ExecSpace>()) {
    // The host reads the ranges itself (once the work that wrote them is done): the host-range path.
    exec.fence();
    count_checked_ranges(fn, exec, mask, bounds, num_bounds, unset, [&] { return counts; });
  } else {
    using tuning            = launch_tuning<ExecSpace>;
    constexpr int items     = static_cast<int>(tuning::count_gpu_items);
    const std::string pre   = std::string(fn) + "::";
    // The GPU form emulated on a host: a team is one thread, its lanes a loop.
    const int lanes         = range_lanes<ExecSpace>(mask, n);
    const int per_team      = runs_on_host<ExecSpace>() ? 1 : tuning::count_gpu_range_team / lanes;
    const int vector_length = runs_on_host<ExecSpace>() ? 1 : lanes;
    const size_type count   = static_cast<size_type>(n);
    // At most count_gpu_range_teams_per_sm teams an SM, striding over the ranges; the GPU form
    // emulated on a host runs at most 3 teams (a thread each), so the stride loop is tested there.
    const size_type wanted  = (count + per_team - 1) / per_team;
    const size_type league  = runs_on_host<ExecSpace>()
                                  ? std::min<size_type>(wanted, 3)
                                  : std::min<size_type>(wanted, tuning::count_gpu_range_teams_per_sm *
                                                                    device_shape_of(exec).multiprocessors);
    check_league_size(fn, league);
    const auto lease = staging_pool<ExecSpace>::acquire_scratch(exec, pre + "verdict");
    auto* scratch    = reinterpret_cast<size_type*>(lease.zeroed());
    auto* verdict    = reinterpret_cast<size_type*>(lease.result_word(0));
    Kokkos::parallel_for(pre + "check_ranges",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(exec, 0, count),
                         range_check_functor{bounds, count, mask, scratch});
    // Bounded so the teams an SM is given are resident together (88 registers left two of four).
    using policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<tuning::count_gpu_range_team,
                                                                      tuning::count_gpu_range_teams_per_sm>>;
    Kokkos::parallel_for(pre + "device_ranges", policy(exec, static_cast<int>(league), per_team, vector_length),
                         device_range_count_functor<ExecSpace, items>{
                             mask.words, mask.words == nullptr ? 0 : mask.begin_bit, bounds, count, counts.data(),
                             unset != mask.invert, lanes, league, scratch, verdict});
    const auto mark = static_cast<size_type>(lease.read_result(0));
    if (mark != 0) {
      const std::size_t r = n - static_cast<std::size_t>(mark);
      Kokkos::View<size_type[2], Kokkos::HostSpace> pair(pre + "bad_range");
      Kokkos::deep_copy(pair, Kokkos::View<const size_type[2], typename ExecSpace::memory_space,
                                           Kokkos::MemoryTraits<Kokkos::Unmanaged>>(bounds + 2 * r));
      report_refused_range(fn, mask, r, pair(0), pair(1));
    }
  }
}

// In place: every check, then the counts into the caller's view.
template <class ExecSpace>
void inplace_device_range_count_call(const char* fn, const ExecSpace& exec, const source_mask& mask,
                                     const size_type* bounds, std::size_t num_bounds, bool unset,
                                     const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts) {
  check_device_range_args(fn, mask, bounds, num_bounds);
  check_counter_extent(fn, "counts", static_cast<size_type>(counts.extent(0)), static_cast<size_type>(num_bounds / 2),
                       counts.data() == nullptr);
  count_device_ranges_checked(fn, exec, mask, bounds, num_bounds, unset, counts);
}

// Into a new view of num_bounds / 2 counts, labelled "<fn>::counts" (dropped when a range is bad).
template <class ExecSpace>
Kokkos::View<size_type*, typename ExecSpace::memory_space> device_range_count_call(const char* fn,
                                                                                   const ExecSpace& exec,
                                                                                   const source_mask& mask,
                                                                                   const size_type* bounds,
                                                                                   std::size_t num_bounds, bool unset) {
  check_device_range_args(fn, mask, bounds, num_bounds);
  Kokkos::View<size_type*, typename ExecSpace::memory_space> counts(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, std::string(fn) + "::counts"),
      static_cast<size_type>(num_bounds / 2));
  count_device_ranges_checked(fn, exec, mask, bounds, num_bounds, unset, counts);
  return counts;
}

}  // namespace detail
}  // namespace kmask

#endif
