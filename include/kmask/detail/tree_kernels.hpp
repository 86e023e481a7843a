#ifndef KMASK_DETAIL_TREE_KERNELS_HPP
#define KMASK_DETAIL_TREE_KERNELS_HPP

// superimpose_nulls_tree()'s kernels. Node k's word w becomes (its source word w) AND (its
// parent's NEW word w), the parent's new word being already the AND of the parent and all its
// ancestors. So every word index is worked by one owner (a CPU iteration, or a GPU team) that
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
                "kmask: a batch's null counts travel as 16-bit fields of one 64-bit lane reduction");
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
  // the batch (the nodes' words, then the parents' words read back from memory) before any store.
  KOKKOS_FORCEINLINE_FUNCTION void walk_batch(const member_type& team, const scratch_view& counts, size_type w0,
                                              size_type i0, int m) const {
    const size_type bits = a.size_bits, words = a.words;
    size_type node[batch];
    const word_type* first[batch];
    size_type last[batch];
    int shift[batch];
    word_type flip[batch];
    word_type* out[batch];
    const word_type* up[batch];
    int slot[batch];
    bool fresh_up[batch];  // this position's parent words are read (not those of the position before)
    for (int b = 0; b < batch; ++b) {
      const bool live = b < m;
      const size_type i = i0 + (live ? b : 0);
      node[b]           = t.order[i];
      const positioned_source ps(a.sources(node[b]), bits);
      first[b] = ps.first;
      last[b]  = ps.last;
      shift[b] = live ? ps.shift : 0;
      flip[b]  = ps.flip;
      out[b]   = a.destinations.row(node[b]);
      slot[b]  = live ? static_cast<int>(t.parent_slot[i]) : tree_no_parent;
      up[b]    = slot[b] == tree_parent_in_memory ? a.destinations.row(t.parent_of[i]) : nullptr;
      fresh_up[b] = slot[b] == tree_parent_in_memory && !(b > 0 && slot[b - 1] == tree_parent_in_memory && up[b] == up[b - 1]);
    }
    std::uint64_t packed = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, static_cast<int>(warp_lanes)),
        [&](int lane, std::uint64_t& acc) {
          word_type v[batch][items];
          word_type u[batch][items];
          for (int b = 0; b < batch; ++b)
            for (int i = 0; i < items; ++i) {
              const size_type w = w0 + i * warp_lanes + lane;
              v[b][i]           = b < m && w < words ? first[b][w] : word_type{0};
            }
          for (int b = 0; b < batch; ++b)
            if (shift[b] != 0)
              for (int i = 0; i < items; ++i) {
                const size_type w = w0 + i * warp_lanes + lane;
                const word_type hi = w < words && w + 1 <= last[b] ? first[b][w + 1] : word_type{0};
                v[b][i]            = funnel_shift(v[b][i], hi, shift[b]);
              }
          for (int b = 0; b < batch; ++b)
            for (int i = 0; i < items; ++i) {
              const size_type w = w0 + i * warp_lanes + lane;
              if (fresh_up[b])
                u[b][i] = w < words ? up[b][w] : word_type{0};
              else
                u[b][i] = b > 0 ? u[b > 0 ? b - 1 : 0][i] : ~word_type{0};
            }
          for (int b = 0; b < batch; ++b) {
            if (b >= m) break;
            size_type nulls = 0;
            for (int i = 0; i < items; ++i) {
              const size_type w = w0 + i * warp_lanes + lane;
              word_type word    = v[b][i] ^ flip[b];
              if (slot[b] == tree_parent_in_memory) word &= u[b][i];
              // A parent earlier in this batch: its new word is still in registers.
              for (int p = 0; p < b; ++p)
                if (slot[b] == p) word &= v[p][i];
              word &= w < words ? valid_bits_of_word(w, bits) : word_type{0};
              v[b][i] = word;
              if (w < words) {
                out[b][w] = word;
                nulls += nulls_in_word(word, w, bits);
              }
            }
            acc += static_cast<std::uint64_t>(nulls) << (16 * b);
          }
        },
        packed);
    Kokkos::single(Kokkos::PerThread(team), [&]() {
      for (int b = 0; b < m; ++b) add_count(counts, node[b], static_cast<size_type>((packed >> (16 * b)) & 0xffff));
    });
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
      for (size_type r = static_cast<size_type>(team.league_rank()) * rows + row; r < runs; r += warps)
        for (size_type i0 = 0; i0 < n; i0 += batch)
          walk_batch(team, counts, r * run_words, i0, n - i0 < batch ? static_cast<int>(n - i0) : batch);
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
