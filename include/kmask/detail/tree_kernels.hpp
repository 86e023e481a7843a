#ifndef KMASK_DETAIL_TREE_KERNELS_HPP
#define KMASK_DETAIL_TREE_KERNELS_HPP

// superimpose_nulls_tree()'s general kernels (an aligned forest of small masks takes
// tree_aligned_kernel.hpp instead, which shares tree_counts_done). Node k's word w becomes (its
// source word w) AND (its parent's NEW word w), the parent's new word being already the AND of the
// parent and all its ancestors. So every word index is worked by one owner (a CPU iteration, or a
// GPU warp) that visits the nodes parents first, and reads a parent's new word from the parent's mask, which
// that owner itself has just written:
//  - no node is read by another owner: a node's source is read only at the words its owner
//    writes (a source read from bit 0 of its own mask), or it is a staged copy, or it overlaps
//    no node at all (detail/segmented_problem.hpp's sources_to_stage decides, as for any
//    segmented call); so no source needs staging for being an ancestor of other nodes;
//  - every word of every node is read once from memory and written once: the bytes of a copy,
//    plus the parent's words read again while they are still in cache.
// GPU form: a warp owns runs of 128 words (lane l words 4l .. 4l + 3, one 16-byte access where
// the masks are aligned) and walks every node in the order over them, gpu_batch nodes at a time,
// from steps decoded once per team into team scratch: the batch's loads (its nodes' words and the
// parent words read back from memory) all go out before any store, and a parent earlier in the
// same batch is taken from registers. The order is depth-first, so a parent read back was
// written moments before and is still in cache. No warp waits for another (they own disjoint
// words): a grid of resident teams walks all the runs, and the per-node null counts gather in team
// scratch, then once per team in memory. CPU form: an iteration owns a unit of words and walks
// every node in that order.

#include <kmask/detail/cpu_word_passes.hpp>
#include <kmask/detail/segmented_kernels.hpp>
#include <kmask/detail/tree_tuning.hpp>
#include <kmask/operators.hpp>

#include <cstdint>

namespace kmask {
namespace detail {

// Where the GPU form finds the new words of the parent of the node at position i of a batch: a
// position p < i of the same batch (still in registers), none (a root), or the parent's mask.
constexpr int tree_no_parent        = -1;
constexpr int tree_parent_in_memory = 64;

// The forest on the device, parents first (tree_calls.hpp's depth-first order).
struct tree_layout {
  const std::int64_t* order;        // node at position i
  const std::int64_t* parent_of;    // its parent, or -1
  const std::int64_t* parent_slot;  // GPU form: tree_no_parent, a position of the batch, or tree_parent_in_memory
  size_type num_nodes;
  // CPU form: a node read in place from a later bit of its own mask (not staged) takes, in every
  // unit but the last, the source words past the unit's end from `halo`: node k's copy for unit u
  // at halo + (halo_slot[k] * (units - 1) + u) * halo_words, taken before the walk. No halos:
  // halo_slot == nullptr.
  const std::int64_t* halo_slot = nullptr;
  const word_type* halo         = nullptr;
  size_type halo_words          = 0;
};

template <class ExecSpace>
using tree_args = segmented_args_for<ExecSpace, bit_and, pointer_destinations<typename ExecSpace::memory_space>>;

template <class ExecSpace>
struct tree_cpu_functor {
  using tuning = tree_tuning<ExecSpace>;
  static constexpr size_type unit_words  = tuning::cpu_unit_words;
  static constexpr size_type block_words = tuning::cpu_block_words;
  static_assert(block_words <= max_half_count_words,
                "kmask: tree_tuning::cpu_block_words is too large for one block's 16-bit set-bit fields");
  static_assert(tuning::cpu_halo_max_words <= block_words, "kmask: a unit's in-place tail must be one block");
  tree_args<ExecSpace> a;
  tree_layout t;
  size_type units;

  KOKKOS_INLINE_FUNCTION void operator()(size_type u) const {
    const size_type begin = u * unit_words;
    const size_type end   = begin + unit_words < a.words ? begin + unit_words : a.words;
    const size_type bits  = a.size_bits;
    // Only the mask's last word can hold bits past size_bits, and only there may a shifted source
    // have no next word: it is left to the end of each node.
    const bool has_last = end == a.words;
    const size_type m   = has_last ? end - 1 : end;
    const bit_and op{};
    for (size_type i = 0; i < t.num_nodes; ++i) {
      const size_type k = t.order[i], p = t.parent_of[i];
      const positioned_source src(a.sources(k), bits);
      word_type* out       = a.destinations.row(k);
      const word_type* up  = p < 0 ? nullptr : a.destinations.row(p);
      const bool shifted   = src.shift != 0;
      size_type nulls      = 0;
      // Words [b0, b0 + n) of the node from source words s[0 .. n] (s[n] only when shifted).
      const auto walk = [&](const word_type* s, size_type b0, size_type n) {
        const word_type* p2[cpu_pass_sources] = {s, up == nullptr ? nullptr : up + b0};
        const int sh[cpu_pass_sources]       = {src.shift, 0};
        const word_type fl[cpu_pass_sources] = {src.flip, 0};
        size_type set                        = 0;
        if (up == nullptr) {
          set = cpu_pass(op, 1, shifted, p2, sh, fl, n, false, true, nullptr, out + b0);
        } else if (!shifted) {
          set = cpu_pass(op, 2, false, p2, sh, fl, n, false, true, nullptr, out + b0);
        } else {
          set = cpu_pass<2, 1, false, true>(op, p2, sh, fl, n, nullptr, out + b0);  // a shifted source, an aligned parent
        }
        nulls += n * word_bits - set;
      };
      // A source ahead in the node's own mask (halo_slot set, not staged): the words this unit
      // writes are read before they are written (each block reads its own words and later ones),
      // but the last `reach` words' sources lie past the unit's end, where the next unit may
      // already have written: those come from the halo taken before the walk.
      const bool in_place = t.halo_slot != nullptr && t.halo_slot[k] >= 0 && src.first >= out &&
                            src.first < out + a.words && !has_last;
      const size_type ahead = in_place ? static_cast<size_type>(src.first - out) : 0;
      const size_type reach = ahead + (shifted ? 1 : 0);
      const size_type split = !in_place ? m : (end - reach > begin ? end - reach : begin);
      for (size_type b0 = begin; b0 < split; b0 += block_words)
        walk(src.first + b0, b0, split - b0 < block_words ? split - b0 : block_words);
      if (in_place && split < end) {
        const word_type* halo = t.halo + (t.halo_slot[k] * (units - 1) + u) * t.halo_words;
        word_type s[block_words + 1];
        for (size_type j = 0; j < end - split + (shifted ? 1 : 0); ++j) {
          const size_type w = split + ahead + j;  // source word j of the tail, as a word of `out`
          s[j]              = w < end ? out[w] : halo[w - end];
        }
        walk(s, split, end - split);
      }
      if (has_last) {
        const size_type w = a.words - 1;
        word_type word    = src.word(w);
        if (up != nullptr) word &= up[w];
        word &= valid_bits_of_word(w, bits);
        out[w] = word;
        nulls += nulls_in_word(word, w, bits);
      }
      a.segment_count_done(k, nulls, units);
    }
  }
};

// f(k) for k in [0, n), spread over every lane of the team: a node per GPU thread, so a team's
// round of per-node atomics costs one memory round trip, not one per node of each warp's share.
template <class Member, class F>
KOKKOS_INLINE_FUNCTION void for_each_node(const Member& team, size_type n, const F& f) {
  const size_type lanes = warp_lanes;
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, (n + lanes - 1) / lanes), [&](size_type b) {
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, static_cast<int>(lanes)), [&](int l) {
      const size_type k = b * lanes + l;
      if (k < n) f(k);
    });
  });
}

// The team's per-node counters in team scratch (n of them, zeroed; none without team_counts), from
// the start of the team's scratch.
template <class ScratchView, class Member>
KOKKOS_INLINE_FUNCTION ScratchView zeroed_team_counts(const Member& team, size_type n, bool team_counts) {
  if (!team_counts) return ScratchView();
  const ScratchView counts(team.team_scratch(0), n);
  for_each_node(team, n, [&](size_type k) { counts(k) = 0; });
  return counts;
}

// The end of a tree kernel's team, after a barrier past its walk: adds the team's per-node counts
// (team scratch `counts`, when team_counts) into count_scratch and takes a ticket. The team that
// takes the last of the `league` tickets moves every node's total into null_counts (count_scratch(2k):
// node k's total; count_scratch(1), node 0's unused ticket word: the teams'), leaves the scratch at
// zero and returns true; the others return false.
template <class Args, class Member, class Counts>
KOKKOS_INLINE_FUNCTION bool tree_counts_done(const Member& team, const Args& a, const Counts& counts, size_type n,
                                             size_type league, bool team_counts) {
  if (team_counts) for_each_node(team, n, [&](size_type k) { atomic_add_count(&a.count_scratch(2 * k), counts(k)); });
  Kokkos::memory_fence();  // this thread's adds are visible before the team's ticket announces them
  team.team_barrier();
  int is_last = 0;
  Kokkos::single(
      Kokkos::PerTeam(team),
      [&](int& last) { last = atomic_fetch_add_count(&a.count_scratch(1), 1) == league - 1; },
      is_last);
  if (!is_last) return false;
  Kokkos::memory_fence();  // every other team's adds are visible to the last one
  for_each_node(team, n, [&](size_type k) { a.null_counts(k) = atomic_exchange_count(&a.count_scratch(2 * k), 0); });
  team.team_barrier();
  Kokkos::single(Kokkos::PerTeam(team), [&]() { atomic_exchange_count(&a.count_scratch(1), 0); });
  return true;
}

// Position i of the walk as the GPU form reads it: decoded from the descriptors once per team into
// team scratch, so a batch's loads wait on no global load chain (order -> source -> data) and the
// compiler may issue them ahead of the previous batch's stores.
struct tree_step {
  const word_type* first;  // the node's source from the word its bits start in
  word_type* out;          // the node's mask, written from word 0
  const word_type* up;     // the parent's mask, when its new words are read back from memory
  size_type source_words;  // words from `first` that the source's bits occupy: a shifted read stops there
  size_type node;
  word_type flip;
  std::int32_t shift;
  std::int32_t slot;     // tree_no_parent, an earlier position of the batch, or tree_parent_in_memory
  std::int32_t vectors;  // first, out and up are 16-byte aligned: a lane's 4 words in one load / store
};

template <class ExecSpace>
struct tree_gpu_functor {
  using member_type  = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using tuning       = tree_tuning<ExecSpace>;
  using scratch_view = Kokkos::View<size_type*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  static constexpr int batch           = tuning::gpu_batch;
  static constexpr int group           = 4;  // consecutive words of a lane: one 16-byte access
  static constexpr size_type run_words = warp_lanes * group;
  static constexpr size_type chunk     = tuning::gpu_chunk_nodes;
  static_assert(batch >= 1 && batch <= 4 && run_words * word_bits < 65536,
                "kmask: a batch's set-bit counts travel as 16-bit fields of one 64-bit lane reduction");
  static_assert(chunk % batch == 0, "kmask: tree_tuning::gpu_chunk_nodes keeps the walk's batches whole");
  // Runs whose set bits one 16-bit field of a warp's reduction holds: 15 x 4096 < 65536.
  static constexpr size_type runs_per_count = 65535 / (run_words * word_bits);
  tree_args<ExecSpace> a;
  tree_layout t;
  size_type runs;    // runs of run_words words, one warp's share of every node
  size_type league;  // teams launched; each warp walks runs warp, warp + league x rows, ...
  int rows;
  bool team_counts;  // per-node counts gathered in team scratch (few enough nodes), else added per warp

  static std::size_t scratch_bytes(size_type nodes, bool team_counts) {
    const size_type steps = nodes < chunk ? nodes : chunk;
    return (team_counts ? static_cast<std::size_t>(nodes) * sizeof(size_type) : 0) +
           static_cast<std::size_t>(steps) * sizeof(tree_step);
  }

  KOKKOS_INLINE_FUNCTION tree_step decode(size_type i) const {
    const size_type k = t.order[i];
    const positioned_source ps(a.sources(k), a.size_bits);
    tree_step s;
    s.first        = ps.first;
    s.out          = a.destinations.row(k);
    s.slot         = static_cast<std::int32_t>(t.parent_slot[i]);
    s.up           = s.slot == tree_parent_in_memory ? a.destinations.row(t.parent_of[i]) : nullptr;
    s.source_words = ps.last + 1;
    s.node         = k;
    s.flip         = ps.flip;
    s.shift        = ps.shift;
    s.vectors      = four_word_aligned(s.first) && four_word_aligned(s.out) && (s.up == nullptr || four_word_aligned(s.up));
    return s;
  }

  KOKKOS_INLINE_FUNCTION void add_count(const scratch_view& counts, size_type k, size_type nulls) const {
    if (team_counts)
      atomic_add_count(&counts(k), nulls);
    else
      atomic_add_count(&a.count_scratch(2 * k), nulls);
  }

  // Words g .. g + 3 of `p` into w (those at or past `words` read as 0 unless Full).
  template <bool Full>
  KOKKOS_FORCEINLINE_FUNCTION static void load_group(const word_type* p, bool vectors, size_type g, size_type words,
                                                     word_type* w) {
    if (Full && vectors) {
      load_four_words(p + g, w);
    } else {
      for (int j = 0; j < group; ++j) w[j] = Full || g + j < words ? p[g + j] : word_type{0};
    }
  }

  // Positions steps[0 .. m) (m <= batch) over the run starting at word w0: every load of the batch
  // (the nodes' words, then the parents' words read back from memory) before any store. Full: the
  // run ends before the mask's last word, so no word needs a bounds check or a tail mask (and a
  // shifted source's next word exists). Returns the lane's set bits, node b's in bits [16 b, 16 b + 16).
  template <bool Full>
  KOKKOS_FORCEINLINE_FUNCTION std::uint64_t lane_batch(const tree_step* steps, int lane, size_type w0, int m) const {
    const size_type words = a.words;
    const size_type g     = w0 + static_cast<size_type>(group * lane);
    word_type v[batch][group];
    word_type u[batch][group];
    for (int b = 0; b < batch; ++b)
      if (b < m) load_group<Full>(steps[b].first, steps[b].vectors != 0, g, words, v[b]);
    for (int b = 0; b < batch; ++b) {
      if (b >= m || steps[b].slot != tree_parent_in_memory) continue;
      if (b > 0 && steps[b - 1].slot == tree_parent_in_memory && steps[b - 1].up == steps[b].up) {
        for (int j = 0; j < group; ++j) u[b][j] = u[b - 1][j];
      } else {
        load_group<Full>(steps[b].up, steps[b].vectors != 0, g, words, u[b]);
      }
    }
    for (int b = 0; b < batch; ++b) {
      if (b >= m || steps[b].shift == 0) continue;
      const tree_step& s = steps[b];
      // Word j's next source word is word j + 1 of the group, or the one after the group.
      const size_type after = g + group;
      const word_type hi    = Full || after < s.source_words ? s.first[after] : word_type{0};
      for (int j = 0; j < group; ++j) {
        const bool next_loaded = Full || g + j + 1 < words;
        word_type next         = j + 1 < group ? v[b][j + 1] : hi;
        // Past the mask's words, the next source word may still exist (the source reaches further).
        if (!next_loaded && j + 1 < group) next = g + j + 1 < s.source_words ? s.first[g + j + 1] : word_type{0};
        v[b][j] = funnel_shift(v[b][j], next, s.shift);
      }
    }
    const word_type tail = valid_bits_of_word(words - 1, a.size_bits);
    std::uint64_t sets   = 0;
    for (int b = 0; b < batch; ++b) {
      if (b >= m) break;
      const tree_step& s = steps[b];
      int set            = 0;
      for (int j = 0; j < group; ++j) {
        word_type word = v[b][j] ^ s.flip;
        if (s.slot == tree_parent_in_memory) word &= u[b][j];
        // A parent earlier in this batch: its new words are still in registers.
        for (int p = 0; p < b; ++p)
          if (s.slot == p) word &= v[p][j];
        if (!Full && g + j >= words - 1) word = g + j == words - 1 ? word & tail : word_type{0};
        v[b][j] = word;
        set += popcount32(word);
      }
      if (Full && s.vectors) {
        store_four_words(s.out + g, v[b]);
      } else {
        for (int j = 0; j < group; ++j)
          if (Full || g + j < words) s.out[g + j] = v[b][j];
      }
      sets += static_cast<std::uint64_t>(set) << (16 * b);
    }
    return sets;
  }

  // Positions steps[0 .. m) over the runs first_run, first_run + warps, ... (at most runs_per_count
  // of them): the lanes' set bits of every run in one reduction, each node's null count added once.
  KOKKOS_FORCEINLINE_FUNCTION void walk_batch(const member_type& team, const scratch_view& counts,
                                              const tree_step* steps, size_type first_run, size_type warps,
                                              int m) const {
    std::uint64_t packed = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, static_cast<int>(warp_lanes)),
        [=](int lane, std::uint64_t& acc) {
          for (size_type k = 0; k < runs_per_count; ++k) {
            const size_type r = first_run + k * warps;
            if (r >= runs) break;
            const size_type w0 = r * run_words;
            if (w0 + run_words < a.words)
              acc += lane_batch<true>(steps, lane, w0, m);
            else
              acc += lane_batch<false>(steps, lane, w0, m);
          }
        },
        packed);
    // Valid bits of those runs' words of each node: all their words, less those past size_bits
    // (only the mask's last run has any).
    const size_type taken = first_run >= runs ? 0 : (runs - 1 - first_run) / warps + 1;
    const size_type n_runs = taken < runs_per_count ? taken : runs_per_count;
    const bool has_last    = n_runs > 0 && first_run + (n_runs - 1) * warps == runs - 1;
    const size_type bits   = n_runs * run_words * word_bits -
                           (has_last ? (runs * run_words * word_bits - a.size_bits) : size_type{0});
    Kokkos::single(Kokkos::PerThread(team), [&]() {
      for (int b = 0; b < m; ++b)
        add_count(counts, steps[b].node, bits - static_cast<size_type>((packed >> (16 * b)) & 0xffff));
    });
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const size_type n = t.num_nodes;
    const scratch_view counts = zeroed_team_counts<scratch_view>(team, n, team_counts);
    const size_type held = n < chunk ? n : chunk;
    tree_step* steps     = static_cast<tree_step*>(team.team_scratch(0).get_shmem(held * sizeof(tree_step)));
    const size_type warps = league * static_cast<size_type>(rows);
    const int lanes       = static_cast<int>(warp_lanes);
    // Positions in chunks of the steps team scratch holds: a parent of an earlier chunk was written
    // by the same lane (a lane's words are the same in every node), so it is read back from memory.
    for (size_type c0 = 0; c0 < n; c0 += chunk) {
      const size_type cn = n - c0 < chunk ? n - c0 : chunk;
      team.team_barrier();  // the previous chunk's steps are no longer read
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows), [&](int row) {
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int lane) {
          for (size_type i = static_cast<size_type>(row * lanes + lane); i < cn; i += static_cast<size_type>(rows * lanes))
            steps[i] = decode(c0 + i);
        });
      });
      team.team_barrier();
      // Batch by batch, each over all the warp's runs: the batch's steps stay in registers and its
      // counts take one reduction for up to runs_per_count runs.
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows), [&](int row) {
        const size_type first_run = static_cast<size_type>(team.league_rank()) * rows + row;
        for (size_type i0 = 0; i0 < cn; i0 += batch) {
          const int m = cn - i0 < batch ? static_cast<int>(cn - i0) : batch;
          for (size_type r = first_run; r < runs; r += warps * runs_per_count)
            walk_batch(team, counts, steps + i0, r, warps, m);
        }
      });
    }
    team.team_barrier();
    tree_counts_done(team, a, counts, n, league, team_counts);
  }
};

// Launches the tree over the encoded nodes (`a`) in the order `t`.
template <class ExecSpace>
void launch_tree(const char* fn, const ExecSpace& exec, const tree_args<ExecSpace>& a, const tree_layout& t) {
  if (t.num_nodes == 0) return;
  const std::string label(fn);
  if (a.words == 0) {
    const auto counts = a.null_counts;
    Kokkos::parallel_for(label + "::zero_counts",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(exec, 0, t.num_nodes),
                         KOKKOS_LAMBDA(size_type k) { counts(k) = 0; });
    return;
  }
  if constexpr (uses_cpu_kernels<ExecSpace>()) {
    constexpr size_type unit = tree_tuning<ExecSpace>::cpu_unit_words;
    const size_type units    = (a.words + unit - 1) / unit;
    check_league_size(fn, units);
    Kokkos::parallel_for(label + "::words", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(exec, 0, units),
                         tree_cpu_functor<ExecSpace>{a, t, units});
  } else {
    using tuning            = tree_tuning<ExecSpace>;
    using functor           = tree_gpu_functor<ExecSpace>;
    constexpr bool host     = runs_on_host<ExecSpace>();
    const int rows          = host ? 1 : tuning::gpu_rows;
    const int lanes         = host ? 1 : static_cast<int>(warp_lanes);
    const size_type runs    = (a.words + functor::run_words - 1) / functor::run_words;
    const size_type needed  = (runs + rows - 1) / rows;
    check_league_size(fn, needed);
    const size_type resident = host ? tuning::emulated_teams
                                    : static_cast<size_type>(device_shape_of(exec).multiprocessors) *
                                          tuning::gpu_min_teams_per_sm;
    const size_type league  = needed < resident ? needed : resident;
    const bool team_counts  = t.num_nodes <= tuning::gpu_team_count_nodes;
    const functor f{a, t, runs, league, rows, team_counts};
    using policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<tuning::gpu_rows * warp_lanes, tuning::gpu_min_teams_per_sm>>;
    policy p(exec, static_cast<int>(league), rows, lanes);
    p.set_scratch_size(0, Kokkos::PerTeam(functor::scratch_bytes(t.num_nodes, team_counts)));
    Kokkos::parallel_for(label + "::runs", p, f);
  }
}

}  // namespace detail
}  // namespace kmask

#endif
