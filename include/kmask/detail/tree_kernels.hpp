#ifndef KMASK_DETAIL_TREE_KERNELS_HPP
#define KMASK_DETAIL_TREE_KERNELS_HPP

// superimpose_nulls_tree()'s kernels. Node k's word w becomes (its source word w) AND (its
// parent's NEW word w), the parent's new word being already the AND of the parent and all its
// ancestors. So every word index is worked by one owner (a CPU iteration, or a GPU warp) that
// visits the nodes parents first, and reads a parent's new word from the parent's mask, which
// that owner itself has just written:
//  - no node is read by another owner: a node's source is read only at the words its owner
//    writes (a source read from bit 0 of its own mask), or it is a staged copy, or it overlaps
//    no node at all (detail/segmented_problem.hpp's sources_to_stage decides, as for any
//    segmented call); so no source needs staging for being an ancestor of other nodes;
//  - every word of every node is read once from memory and written once: the bytes of a copy,
//    plus the parent's words read again while they are still in cache.
// GPU form: a warp owns a run of words (32 lanes x gpu_items, lane l word l of each 32) and walks
// every node in the order over it, gpu_batch nodes at a time: the batch's loads (its nodes' words
// and any parent words read back from memory) all go out before any store, and a parent earlier in
// the same batch is taken from registers. The order is depth-first, so a parent read back was
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
    word_type acc[block_words];
    for (size_type i = 0; i < t.num_nodes; ++i) {
      const size_type k = t.order[i], p = t.parent_of[i];
      const positioned_source src(a.sources(k), bits);
      word_type* out       = a.destinations.row(k);
      const word_type* up  = p < 0 ? nullptr : a.destinations.row(p);
      const bool shifted   = src.shift != 0;
      size_type nulls      = 0;
      for (size_type b0 = begin; b0 < m; b0 += block_words) {
        const size_type n                    = m - b0 < block_words ? m - b0 : block_words;
        const word_type* p2[cpu_pass_sources] = {src.first + b0, up == nullptr ? nullptr : up + b0};
        const int sh[cpu_pass_sources]       = {src.shift, 0};
        const word_type fl[cpu_pass_sources] = {src.flip, 0};
        size_type set                        = 0;
        if (up == nullptr) {
          set = cpu_pass(op, 1, shifted, p2, sh, fl, n, false, true, acc, out + b0);
        } else if (!shifted) {
          set = cpu_pass(op, 2, false, p2, sh, fl, n, false, true, acc, out + b0);
        } else {
          // A shifted source and an aligned parent: one pass each, through the accumulator.
          cpu_pass(op, 1, true, p2, sh, fl, n, false, false, acc, out + b0);
          const word_type* p1[cpu_pass_sources] = {up + b0};
          const int s1[cpu_pass_sources]       = {0};
          const word_type f1[cpu_pass_sources] = {0};
          set = cpu_pass(op, 1, false, p1, s1, f1, n, true, true, acc, out + b0);
        }
        nulls += n * word_bits - set;
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

template <class ExecSpace>
struct tree_gpu_functor {
  using member_type  = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using tuning       = tree_tuning<ExecSpace>;
  using scratch_view = Kokkos::View<size_type*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  static constexpr int items                   = tuning::gpu_items;
  static constexpr int batch                   = tuning::gpu_batch;
  static constexpr size_type run_words         = warp_lanes * items;
  static_assert(batch >= 1 && batch <= tree_parent_in_memory, "kmask: tree_tuning::gpu_batch is the slot code's range");
  static_assert(batch <= 4 && items * warp_lanes * word_bits < 65536,
                "kmask: a batch's set-bit counts travel as 16-bit fields of one 64-bit lane reduction");
  tree_args<ExecSpace> a;
  tree_layout t;
  size_type runs;    // runs of run_words words, one warp's share of every node
  size_type league;  // teams launched; each warp walks runs warp, warp + league x rows, ...
  int rows;
  bool team_counts;  // per-node counts gathered in team scratch (few enough nodes), else added per warp

  KOKKOS_INLINE_FUNCTION void add_count(const scratch_view& counts, size_type k, size_type nulls) const {
    if (team_counts)
      atomic_add_count(&counts(k), nulls);
    else
      atomic_add_count(&a.count_scratch(2 * k), nulls);
  }

  // Positions [i0, i0 + m) of the order (m <= batch) over the run starting at word w0: every load of
  // the batch (the nodes' words, then the parent words read back from memory) before any store.
  // Full: the run ends before the mask's last word, so no word needs a bounds check or a tail mask
  // (and a shifted source's next word exists). Everything a lane needs is local to its body: arrays
  // captured by reference would live in local memory.
  template <bool Full>
  KOKKOS_FORCEINLINE_FUNCTION void walk_batch(const member_type& team, const scratch_view& counts, size_type w0,
                                              size_type i0, int m) const {
    std::uint64_t packed = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, static_cast<int>(warp_lanes)),
        [=](int lane, std::uint64_t& acc) { acc += lane_batch<Full>(lane, w0, i0, m); }, packed);
    // Valid bits of the run's words of each node: all its words, less those past size_bits.
    const size_type left     = a.words - w0;
    const size_type run_bits = left <= run_words ? a.size_bits - w0 * word_bits : size_type{run_words * word_bits};
    Kokkos::single(Kokkos::PerThread(team), [&]() {
      for (int b = 0; b < m; ++b)
        add_count(counts, t.order[i0 + b], run_bits - static_cast<size_type>((packed >> (16 * b)) & 0xffff));
    });
  }

  // Lane `lane`'s share of walk_batch: its words o = lane, lane + 32, ... of the run; returns their
  // set bits, node b's in bits [16 b, 16 b + 16).
  template <bool Full>
  KOKKOS_FORCEINLINE_FUNCTION std::uint64_t lane_batch(int lane, size_type w0, size_type i0, int m) const {
    const word_type* first[batch];
    word_type* out[batch];
    int shift[batch], slot[batch];
    // The parent in memory of the batch's first node that has one: its words are loaded with the
    // batch's (a depth-first batch rarely has two, and another one is read when it is needed).
    const word_type* up = nullptr;
    for (int b = 0; b < batch; ++b) {
      const bool live   = b < m;
      const size_type i = i0 + (live ? b : 0);
      const size_type k = t.order[i];
      const positioned_source ps(a.sources(k), a.size_bits);
      first[b] = ps.first + w0;
      shift[b] = live ? ps.shift : 0;
      out[b]   = a.destinations.row(k) + w0;
      slot[b]  = live ? static_cast<int>(t.parent_slot[i]) : tree_no_parent;
      if (up == nullptr && slot[b] == tree_parent_in_memory) up = a.destinations.row(t.parent_of[i]) + w0;
    }
    // Words [0, lim) of the run (relative to w0) exist; word lim - 1 is the mask's last if lim <= run_words.
    const size_type left = a.words - w0;
    const int lim        = Full ? static_cast<int>(run_words) : static_cast<int>(left < run_words ? left : run_words);
    word_type v[batch][items];
    word_type u[items];
    for (int b = 0; b < batch; ++b)
      for (int i = 0; i < items; ++i) {
        const int o = i * static_cast<int>(warp_lanes) + lane;
        v[b][i]     = b < m && (Full || o < lim) ? first[b][o] : word_type{0};
      }
    for (int b = 0; b < batch; ++b)
      if (shift[b] != 0) {
        // A shifted source's next word exists up to its last one, (shift + size_bits - 1) / 32.
        const size_type after = (shift[b] + a.size_bits - 1) / word_bits + 1 - w0;
        const int next_lim    = Full ? static_cast<int>(run_words) + 1
                                     : static_cast<int>(after < run_words + 1 ? after : run_words + 1);
        for (int i = 0; i < items; ++i) {
          const int o        = i * static_cast<int>(warp_lanes) + lane;
          const word_type hi = Full || o + 1 < next_lim ? first[b][o + 1] : word_type{0};
          v[b][i]            = funnel_shift(v[b][i], hi, shift[b]);
        }
      }
    for (int i = 0; i < items; ++i) {
      const int o = i * static_cast<int>(warp_lanes) + lane;
      u[i]        = up != nullptr && (Full || o < lim) ? up[o] : word_type{0};
    }
    const word_type tail = Full ? ~word_type{0} : valid_bits_of_word(a.words - 1, a.size_bits);
    std::uint64_t sets = 0;
    for (int b = 0; b < batch; ++b) {
      if (b >= m) break;
      int set = 0;
      for (int i = 0; i < items; ++i) {
        const int o    = i * static_cast<int>(warp_lanes) + lane;
        word_type word = v[b][i];
        if (slot[b] == tree_parent_in_memory) {
          const word_type* mine = a.destinations.row(t.parent_of[i0 + b]) + w0;
          word &= mine == up ? u[i] : Full || o < lim ? mine[o] : word_type{0};
        }
        // A parent earlier in this batch: its new word is still in registers.
        for (int p = 0; p < b; ++p)
          if (slot[b] == p) word &= v[p][i];
        if (!Full && o == lim - 1 && left <= run_words) word &= tail;
        v[b][i] = word;
        if (Full || o < lim) {
          out[b][o] = word;
          set += popcount32(word);
        }
      }
      sets += static_cast<std::uint64_t>(set) << (16 * b);
    }
    return sets;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const size_type n = t.num_nodes;
    scratch_view counts;
    if (team_counts) {
      counts = scratch_view(team.team_scratch(0), n);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](size_type k) {
        Kokkos::single(Kokkos::PerThread(team), [&]() { counts(k) = 0; });
      });
      team.team_barrier();
    }
    const size_type warps = league * static_cast<size_type>(rows);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows), [&](int row) {
      for (size_type r = static_cast<size_type>(team.league_rank()) * rows + row; r < runs; r += warps) {
        const size_type w0 = r * run_words;
        const bool full    = w0 + run_words < a.words;
        for (size_type i0 = 0; i0 < n; i0 += batch) {
          const int m = n - i0 < batch ? static_cast<int>(n - i0) : batch;
          if (full)
            walk_batch<true>(team, counts, w0, i0, m);
          else
            walk_batch<false>(team, counts, w0, i0, m);
        }
      }
    });
    team.team_barrier();
    // One ticket per team: the team that takes the last one moves every node's total into null_counts
    // (count_scratch(2k): node k's total; count_scratch(1), node 0's unused ticket word: the teams').
    if (team_counts)
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](size_type k) {
        Kokkos::single(Kokkos::PerThread(team), [&]() { atomic_add_count(&a.count_scratch(2 * k), counts(k)); });
      });
    Kokkos::memory_fence();  // this thread's adds are visible before the team's ticket announces them
    team.team_barrier();
    int is_last = 0;
    Kokkos::single(
        Kokkos::PerTeam(team),
        [&](int& last) { last = atomic_fetch_add_count(&a.count_scratch(1), 1) == static_cast<size_type>(league) - 1; },
        is_last);
    if (!is_last) return;
    Kokkos::memory_fence();  // every other team's adds are visible to the last one
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](size_type k) {
      Kokkos::single(Kokkos::PerThread(team),
                     [&]() { a.null_counts(k) = atomic_exchange_count(&a.count_scratch(2 * k), 0); });
    });
    team.team_barrier();
    Kokkos::single(Kokkos::PerTeam(team), [&]() { atomic_exchange_count(&a.count_scratch(1), 0); });
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
    if (team_counts) p.set_scratch_size(0, Kokkos::PerTeam(static_cast<std::size_t>(t.num_nodes) * sizeof(size_type)));
    Kokkos::parallel_for(label + "::runs", p, f);
  }
}

}  // namespace detail
}  // namespace kmask

#endif
