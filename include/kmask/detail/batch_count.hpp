#ifndef KMASK_DETAIL_BATCH_COUNT_HPP
#define KMASK_DETAIL_BATCH_COUNT_HPP

// One count per mask over many masks in one launch (batch_count_set_bits / _unset_bits). Each
// mask's range is cut into blocks of words, a team per block; a team's count (on CUDA, each warp's)
// goes to its mask's total with one atomic, and the part that takes its mask's last ticket writes
// the count (team_total.hpp). The totals and tickets are zeros uploaded with the descriptors, so no
// clearing launch runs first.

#include <kmask/detail/compat.hpp>
#include <kmask/detail/count_kernels.hpp>
#include <kmask/detail/host_range_count.hpp>
#include <kmask/detail/launch_shape.hpp>
#include <kmask/detail/mask_lists.hpp>
#include <kmask/detail/staging_pool.hpp>
#include <kmask/detail/validation.hpp>
#include <kmask/types.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace kmask {
namespace detail {

// What a team reads of mask r: bits [begin, end) of `words` (absolute bit positions), and whether
// the count is the unset bits (`negate`: an unset count of a plain mask or a set count of an
// inverted one). `words == nullptr`: an absent mask, every bit set, nothing read.
struct batch_range {
  const word_type* words;
  size_type begin;
  size_type end;
  size_type negate;
};

// A batch's ranges uploaded before its launch, any number of them: the descriptors, the teams
// before each range, and each team's range (a table, not a search of first_team: each step of a
// binary search is a dependent load from device memory, ten of them for 1000 ranges, and they were
// most of a short team's time).
struct uploaded_ranges {
  const batch_range* ranges;
  const size_type* first_team;      // num_ranges + 1: teams before range r
  const std::uint32_t* team_range;  // one per team: the range it counts
  KOKKOS_FORCEINLINE_FUNCTION size_type range_of_team(size_type t) const { return team_range[t]; }
  KOKKOS_FORCEINLINE_FUNCTION batch_range range(size_type r) const { return ranges[r]; }
  KOKKOS_FORCEINLINE_FUNCTION size_type first(size_type r) const { return first_team[r]; }
};

// Up to Capacity ranges carried in the kernel's arguments (argument_launch): nothing is uploaded
// before the launch, and a team's binary search of first_team reads the constant bank that holds
// the arguments, not device memory.
template <int Capacity>
struct ranges_in_arguments {
  static constexpr int capacity = Capacity;
  const word_type* words[capacity];
  size_type begin[capacity];
  size_type end[capacity];
  std::uint32_t first_team[capacity + 1];
  std::uint32_t negate[(capacity + 31) / 32];  // bit r: range r counts unset bits
  std::uint32_t num_ranges;
  // The range r with first_team[r] <= t < first_team[r + 1] (every range has at least one team).
  KOKKOS_INLINE_FUNCTION size_type range_of_team(size_type t) const {
    std::uint32_t lo = 0, hi = num_ranges - 1;
    while (lo < hi) {
      const std::uint32_t mid = (lo + hi + 1) / 2;
      if (static_cast<size_type>(first_team[mid]) <= t) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
  KOKKOS_INLINE_FUNCTION batch_range range(size_type r) const {
    return {words[r], begin[r], end[r], static_cast<size_type>((negate[r / 32] >> (r % 32)) & 1u)};
  }
  KOKKOS_FORCEINLINE_FUNCTION size_type first(size_type r) const { return first_team[r]; }
};

// Batches of up to 128 ranges (a table's columns) go in the arguments: 3.6 KiB of the launch's 4.
using argument_ranges = ranges_in_arguments<128>;

template <class ExecSpace, class Ranges>
struct batch_count_functor {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  Ranges list;
  // 2 per range: running total, tickets (or both packed in the first); zero before the launch and
  // after it. Only ranges of several teams touch it.
  size_type* scratch;
  Kokkos::View<size_type*, typename ExecSpace::memory_space> counts;
  size_type words_per_team;
  size_type threads;  // GPU form: TeamThreadRange indices of a team, each reading `items` words
  // The CPU form counts a block on one thread with a loop that vectorises; the GPU form (also what
  // the emulated GPU build runs on a host space) spreads it over the team.
  static constexpr bool on_host = uses_cpu_kernels<ExecSpace>();
  static constexpr int items    = static_cast<int>(launch_tuning<ExecSpace>::batch_gpu_items);

  // Adds `part` of range r, one of `parts`; the part that completes the range writes its count.
  // One part (a team's or a warp's) writes the count directly; several meet in the range's two
  // scratch words (take_part).
  KOKKOS_INLINE_FUNCTION void finish_part(size_type r, const batch_range& range, size_type parts,
                                          size_type part) const {
    const size_type len = range.end - range.begin;
    size_type total     = part;
    if (parts > 1 && !take_part(&scratch[2 * r], parts, len, part, total)) return;
    counts(r) = range.negate ? len - total : total;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const size_type t       = team.league_rank();
    const size_type r       = list.range_of_team(t);
    const batch_range range = list.range(r);
    const size_type first_t = list.first(r);
    const size_type teams   = list.first(r + 1) - first_t;
    if (range.words == nullptr || range.end <= range.begin) {
      // Absent (every bit set) or empty: the range's one team writes its count.
      const size_type set = range.words == nullptr ? range.end - range.begin : 0;
      Kokkos::single(Kokkos::PerTeam(team), [&]() { finish_part(r, range, 1, set); });
      return;
    }
    const size_type first = range.begin / word_bits + (t - first_t) * words_per_team;
    const size_type last  = (range.end - 1) / word_bits + 1;
    const size_type stop  = first + words_per_team < last ? first + words_per_team : last;
    const word_type* m    = range.words;
    const size_type b = range.begin, e = range.end;
    if constexpr (on_host) {
      const size_type set = count_words_on_cpu(m, first, stop, b, e);
      Kokkos::single(Kokkos::PerTeam(team), [&]() { finish_part(r, range, teams, set); });
    } else {
      // count_range_share over the team's threads (the edge words' outside bits, where they are
      // this team's, taken off once).
      const size_type T = threads;
      const auto share  = [=](size_type g) { return count_range_share<items>(g, T, m, first, stop, b, e); };
#if KMASK_HAS_LANE_SHUFFLE
      // CUDA, a range of several teams: teams are whole warps (gpu_team_threads) and each warp's sum
      // by shuffles is a part of its own, with no team barrier. (A range of one team keeps the team
      // reduction: it writes its count without scratch, which a batch leases only when needed.)
      if (teams > 1) {
        const size_type set = warp_sum(share(team.team_rank()));
        if (team.team_rank() % 32 == 0) finish_part(r, range, teams * (T / 32), set);
        return;
      }
#endif
      size_type set = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, threads), [=](size_type g, size_type& acc) { acc += share(g); }, set);
      Kokkos::single(Kokkos::PerTeam(team), [&]() { finish_part(r, range, teams, set); });
    }
  }
};

// Rounded-up division by `d` > 0, by a shift where d is a power of two (every GPU team shape): a
// 64-bit division takes tens of cycles, and planning a batch makes one per range.
struct ceil_divider {
  std::uint64_t d;
  int shift = -1;
  explicit ceil_divider(std::uint64_t divisor) : d(divisor) {
    if ((d & (d - 1)) == 0)
      for (shift = 0; (std::uint64_t{1} << shift) < d;) ++shift;
  }
  size_type operator()(size_type n) const {
    const std::uint64_t w = static_cast<std::uint64_t>(n) + d - 1;
    return static_cast<size_type>(shift >= 0 ? w >> shift : w / d);
  }
};

// Team shape for a batch whose masks span `words[j]` words: a CPU team is one thread's run of
// batch_cpu_chunk_words words; a GPU team reads passes of threads x batch_gpu_items 16-byte units, as many
// passes (up to batch_gpu_max_passes) as still leave batch_gpu_teams_per_sm teams per SM, so a team's
// fixed cost (range search, reduction, count) is paid over more words where the batch is large.
template <class ExecSpace>
team_shape batch_count_shape(const ExecSpace& exec, const std::vector<size_type>& words) {
  size_type longest = 1;
  for (size_type w : words) longest = std::max(longest, w);
  if constexpr (uses_cpu_kernels<ExecSpace>()) {
    // One host thread's run: batch_cpu_chunk_words, or the longest mask if shorter.
    const size_type chunk = std::min<size_type>(launch_tuning<ExecSpace>::batch_cpu_chunk_words, longest);
    return {1, chunk, chunk, (longest + chunk - 1) / chunk};
  } else {
    using tuning              = launch_tuning<ExecSpace>;
    constexpr size_type items = 4 * tuning::batch_gpu_items;  // words a thread loads a pass
    const size_type threads   = gpu_team_threads(longest, items);
    const size_type pass      = threads * items;
    const size_type wanted    = runs_on_host<ExecSpace>()
                                    ? 1
                                    : static_cast<size_type>(device_shape_of(exec).multiprocessors) *
                                          tuning::batch_gpu_teams_per_sm;
    // The most passes that still make `wanted` teams; each count stops once it gets there (a
    // division per range was most of the planning of 1000 ranges).
    size_type passes = tuning::batch_gpu_max_passes;
    for (; passes > 1; passes /= 2) {
      const ceil_divider per_team(static_cast<std::uint64_t>(pass * passes));
      size_type teams = 0;
      for (std::size_t j = 0; j < words.size() && teams < wanted; ++j)
        teams += std::max<size_type>(1, per_team(words[j]));
      if (teams >= wanted) break;
    }
    // A host space (the emulated GPU form) runs a team's groups on its one thread.
    return {runs_on_host<ExecSpace>() ? 1 : static_cast<int>(threads), threads, pass * passes,
            (longest + pass * passes - 1) / (pass * passes)};
  }
}

// Checks mask j of a batch (its size already checked) and throws the message naming it.
template <class Sources>
void check_batch_sources(const arg_names& names, const Sources& masks, const std::vector<size_type>& sizes_bits) {
  for (std::size_t j = 0; j < masks.size(); ++j) {
    const source_mask m = masks[j];
    if (check_source(m, sizes_bits[j]) == source_status::invalid) report_batch_source(names, j, m, sizes_bits[j]);
  }
}

// A batch's teams: their shape, and first_team[j], the teams before range j (n + 1 entries).
struct batch_teams {
  team_shape shape;
  std::vector<size_type> first_team;
};

// The teams for n ranges, range j spanning words_of(j) words (0: absent or empty; such a range
// still gets one team, which writes its count); the league checked, so a caller plans before it
// allocates anything. Teams per range by ceil_divider: a division per range was most of the host
// pass over 100,000 ranges.
template <class ExecSpace, class WordsOf>
batch_teams plan_batch_teams(const char* fn, const ExecSpace& exec, std::size_t n, const WordsOf& words_of) {
  std::vector<size_type> words(n);
  for (std::size_t j = 0; j < n; ++j) words[j] = words_of(j);
  batch_teams t{batch_count_shape(exec, words), std::vector<size_type>(n + 1, 0)};
  const ceil_divider per_team(static_cast<std::uint64_t>(t.shape.words_per_team));
  for (std::size_t j = 0; j < n; ++j)
    t.first_team[j + 1] = t.first_team[j] + std::max<size_type>(1, per_team(words[j]));
  check_league_size(fn, t.first_team[n]);
  return t;
}

// GPU form: the n <= argument_ranges::capacity ranges `teams` was planned for, in the launch's
// arguments. The per-range totals and tickets are a staging lease's zeroed words, which each
// range's last team leaves zero.
template <class ExecSpace, class RangeOf>
void launch_batch_in_arguments(const std::string& pre, const ExecSpace& exec, const batch_teams& teams,
                               std::size_t n, const RangeOf& range_of,
                               const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts) {
  static_assert(2 * argument_ranges::capacity <= staging_pool<ExecSpace>::zeroed_words,
                "kmask: a lease's zeroed words hold a total and a ticket per range");
  using functor = batch_count_functor<ExecSpace, argument_ranges>;
  static_assert(sizeof(functor) + 256 <= argument_launch_max_bytes, "kmask: the batch must fit the launch's arguments");
  functor f{};
  argument_ranges& list = f.list;
  for (std::size_t j = 0; j < n; ++j) {
    const batch_range r = range_of(j);
    list.words[j]       = r.words;
    list.begin[j]       = r.begin;
    list.end[j]         = r.end;
    if (r.negate) list.negate[j / 32] |= std::uint32_t{1} << (j % 32);
  }
  for (std::size_t j = 0; j <= n; ++j) list.first_team[j] = static_cast<std::uint32_t>(teams.first_team[j]);
  list.num_ranges = static_cast<std::uint32_t>(n);
  // Only ranges of several teams touch the scratch: a lease (a mutex and a list) only when some
  // range has several, i.e. when the n ranges (at least one team each) take more than n teams.
  std::optional<typename staging_pool<ExecSpace>::lease> lease;
  if (teams.first_team[n] > static_cast<size_type>(n)) {
    lease.emplace(staging_pool<ExecSpace>::acquire_scratch(exec, pre + "scratch"));
    f.scratch = reinterpret_cast<size_type*>(lease->zeroed());
  }
  f.counts         = counts;
  f.words_per_team = teams.shape.words_per_team;
  f.threads        = teams.shape.groups;
  const auto policy = Kokkos::TeamPolicy<ExecSpace>(exec, static_cast<int>(teams.first_team[n]), teams.shape.team_size);
  Kokkos::parallel_for(pre + "words", argument_launch(policy), f);
}

// Enqueues counts(j) = the count of range_of(j) (a batch_range) for the n ranges `teams` was
// planned for, in one launch ("<pre>words"). A GPU form's batch of up to argument_ranges::capacity
// ranges travels in the launch's arguments. Otherwise the descriptors, first_team, each team's range
// (32 bits: the league, at least one team a range, is within int) and the zeroed per-range scratch
// go in one staging lease (labelled "<pre>descriptors") and one upload.
template <class ExecSpace, class RangeOf>
void enqueue_batch_counts(const std::string& pre, const ExecSpace& exec, const batch_teams& teams, std::size_t n,
                          const RangeOf& range_of,
                          const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts) {
  if (n == 0) return;
  if constexpr (!uses_cpu_kernels<ExecSpace>()) {
    if (n <= static_cast<std::size_t>(argument_ranges::capacity)) {
      launch_batch_in_arguments(pre, exec, teams, n, range_of, counts);
      return;
    }
  }
  constexpr std::size_t per_range = sizeof(batch_range) / sizeof(std::uint64_t);
  static_assert(sizeof(batch_range) % sizeof(std::uint64_t) == 0, "kmask: batch_range layout");
  const std::size_t league   = static_cast<std::size_t>(teams.first_team[n]);
  const std::size_t at_teams = per_range * n, at_team_range = at_teams + n + 1;
  const std::size_t at_scratch = at_team_range + (league + 1) / 2;
  const std::size_t words      = at_scratch + 2 * n;
  auto lease                 = staging_pool<ExecSpace>::acquire(exec, words, words, pre + "descriptors");
  std::uint64_t* host        = lease.host();
  batch_range* rs            = reinterpret_cast<batch_range*>(host);
  for (std::size_t j = 0; j < n; ++j) rs[j] = range_of(j);
  std::copy(teams.first_team.begin(), teams.first_team.end(), reinterpret_cast<size_type*>(host + at_teams));
  std::uint32_t* team_range = reinterpret_cast<std::uint32_t*>(host + at_team_range);
  for (std::size_t j = 0; j < n; ++j)
    std::fill(team_range + teams.first_team[j], team_range + teams.first_team[j + 1], static_cast<std::uint32_t>(j));
  std::fill(host + at_scratch, host + words, std::uint64_t{0});
  lease.upload(0, words);
  std::uint64_t* dev = lease.device();
  const uploaded_ranges list{reinterpret_cast<const batch_range*>(dev),
                             reinterpret_cast<const size_type*>(dev + at_teams),
                             reinterpret_cast<const std::uint32_t*>(dev + at_team_range)};
  const batch_count_functor<ExecSpace, uploaded_ranges> f{list, reinterpret_cast<size_type*>(dev + at_scratch), counts,
                                                          teams.shape.words_per_team, teams.shape.groups};
  Kokkos::parallel_for(pre + "words",
                       Kokkos::TeamPolicy<ExecSpace>(exec, static_cast<int>(league), teams.shape.team_size),
                       f);
}

// The batch's checks and teams: sizes and masks checked, teams planned (league checked), before
// anything is allocated or enqueued.
template <class ExecSpace, class Sources>
batch_teams check_and_plan_batch(const ExecSpace& exec, const arg_names& names, const Sources& masks,
                                 const std::vector<size_type>& sizes_bits) {
  check_batch_sizes(names, masks.size(), sizes_bits);
  check_batch_sources(names, masks, sizes_bits);
  return plan_batch_teams(names.fn, exec, masks.size(), [&](std::size_t j) {
    const source_mask m = masks[j];
    const size_type b = m.begin_bit, e = m.begin_bit + sizes_bits[j];
    return m.words != nullptr ? words_of_bits(b, e) : size_type{0};
  });
}

// The CPU form's batch of many masks (host_range_list_pays): the sizes checked on the calling
// thread, the masks tested and described by the space's threads (host_range_count.hpp); a mask
// that fails sends the call to the serial check, which throws its message.
template <class ExecSpace, class Sources>
host_range_list<ExecSpace, batch_range> check_host_batch(const ExecSpace& exec, const arg_names& names,
                                                         const Sources& masks, const std::vector<size_type>& sizes_bits,
                                                         bool unset) {
  check_batch_sizes(names, masks.size(), sizes_bits);
  const size_type* sizes = sizes_bits.data();
  const Sources* list_of = &masks;
  auto list              = check_host_list<batch_range>(
      names.fn, exec, masks.size(), [=](std::size_t j, batch_range& d) -> size_type {
        const source_mask m = (*list_of)[j];
        if (check_source(m, sizes[j]) == source_status::invalid) return -1;
        const size_type b = m.words == nullptr ? 0 : m.begin_bit;
        d                 = {m.words, b, b + sizes[j], (unset != m.invert) ? 1 : 0};
        return m.words == nullptr ? 0 : words_of_bits(b, b + sizes[j]);
      });
  if (list.bad != list.n) {
    check_batch_sources(names, masks, sizes_bits);
    throw std::logic_error(std::string(names.fn) + ": mask " + std::to_string(list.bad) +
                           " was refused by a check that the host check accepts");
  }
  return list;
}

// counts_after_checks() (called once every argument passed) filled with the count (set, or
// `unset`) of bits [m.begin_bit, m.begin_bit + sizes_bits[j]) of every mask j: on a host space
// with a list host_range_list_pays, by the space's threads (a thread a mask where that balances,
// else the batch launch over their descriptors); otherwise checked and planned on the calling
// thread, in one launch.
template <class ExecSpace, class Sources, class CountsAfterChecks>
auto batch_counts(const ExecSpace& exec, const arg_names& names, const Sources& masks,
                  const std::vector<size_type>& sizes_bits, bool unset, const CountsAfterChecks& counts_after_checks) {
  if constexpr (uses_cpu_kernels<ExecSpace>()) {
    if (host_range_list_pays<ExecSpace>(masks.size())) {
      const auto list      = check_host_batch(exec, names, masks, sizes_bits, unset);
      const batch_range* d = list.descriptors();
      if (list.whole) {
        auto counts = counts_after_checks();
        count_host_list(names.fn, exec, list, counts, [](const batch_range& r) {
          const size_type len = r.end - r.begin;
          const size_type set = r.words == nullptr ? len : set_bits_of_range(r.words, r.begin, r.end);
          return r.negate ? len - set : set;
        });
        return counts;
      }
      const batch_teams teams = plan_batch_teams(names.fn, exec, list.n, [d](std::size_t j) {
        return d[j].words == nullptr ? size_type{0} : words_of_bits(d[j].begin, d[j].end);
      });
      auto counts = counts_after_checks();
      enqueue_batch_counts(std::string(names.fn) + "::", exec, teams, list.n, [d](std::size_t j) { return d[j]; },
                           counts);
      return counts;
    }
  }
  const batch_teams teams = check_and_plan_batch(exec, names, masks, sizes_bits);
  auto counts             = counts_after_checks();
  enqueue_batch_of_masks(exec, names, teams, masks, sizes_bits, unset, counts);
  return counts;
}

// Enqueues counts(j) = the count (set, or `unset`) of bits [m.begin_bit, m.begin_bit +
// sizes_bits[j]) of every mask j, for checked masks and their planned teams.
template <class ExecSpace, class Sources>
void enqueue_batch_of_masks(const ExecSpace& exec, const arg_names& names, const batch_teams& teams,
                            const Sources& masks, const std::vector<size_type>& sizes_bits, bool unset,
                            const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts) {
  enqueue_batch_counts(std::string(names.fn) + "::", exec, teams, masks.size(), [&](std::size_t j) {
    const source_mask m = masks[j];
    const size_type b   = m.words == nullptr ? 0 : m.begin_bit;
    return batch_range{m.words, b, b + sizes_bits[j], (unset != m.invert) ? 1 : 0};
  }, counts);
}

// The allocating form: a new view of masks.size() counts ("<fn>::counts"), allocated once
// everything is checked.
template <class ExecSpace, class Sources>
Kokkos::View<size_type*, typename ExecSpace::memory_space> batch_count_call(const ExecSpace& exec,
                                                                            const arg_names& names,
                                                                            const Sources& masks,
                                                                            const std::vector<size_type>& sizes_bits,
                                                                            bool unset) {
  using counts_view = Kokkos::View<size_type*, typename ExecSpace::memory_space>;
  return batch_counts(exec, names, masks, sizes_bits, unset, [&] {
    return counts_view(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, std::string(names.fn) + "::counts"),
                       masks.size());
  });
}

// The in-place form: into the caller's `counts` (at least masks.size() entries; the rest untouched).
template <class ExecSpace, class Sources>
void inplace_batch_count_call(const ExecSpace& exec, const arg_names& names, const Sources& masks,
                              const std::vector<size_type>& sizes_bits, bool unset,
                              const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts) {
  batch_counts(exec, names, masks, sizes_bits, unset, [&] {
    check_counter_extent(names.fn, "counts", static_cast<size_type>(counts.extent(0)),
                         static_cast<size_type>(masks.size()), counts.data() == nullptr);
    return counts;
  });
}

}  // namespace detail
}  // namespace kmask

#endif
