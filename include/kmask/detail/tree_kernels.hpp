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
// GPU form: a team owns a block of words and walks the forest level by level, one node of a
// level per warp (vector lanes over words), with a team barrier between levels; the lanes load
// all their words of the node before storing any. CPU form: an iteration owns a unit of words
// and walks every node in that order.

#include <kmask/detail/cpu_word_passes.hpp>
#include <kmask/detail/segmented_kernels.hpp>
#include <kmask/detail/tree_tuning.hpp>
#include <kmask/operators.hpp>

#include <cstdint>

namespace kmask {
namespace detail {

// The forest in depth order on the device (tree_order's arrays).
struct tree_layout {
  const std::int64_t* level_offsets;  // num_levels + 1
  const std::int64_t* order;          // node at position i
  const std::int64_t* parent_of;      // its parent, or -1
  size_type num_levels;
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
  using member_type          = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  static constexpr int items = tree_tuning<ExecSpace>::gpu_items;
  static constexpr size_type block_words = warp_lanes * items;
  tree_args<ExecSpace> a;
  tree_layout t;
  size_type teams;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const size_type b0 = static_cast<size_type>(team.league_rank()) * block_words;
    for (size_type level = 0; level < t.num_levels; ++level) {
      const size_type lo = t.level_offsets[level], hi = t.level_offsets[level + 1];
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, hi - lo), [&](size_type q) {
        const size_type k = t.order[lo + q], p = t.parent_of[lo + q];
        const positioned_source src(a.sources(k), a.size_bits);
        word_type* out      = a.destinations.row(k);
        const word_type* up = p < 0 ? nullptr : a.destinations.row(p);
        const size_type bits = a.size_bits, words = a.words;
        size_type nulls = 0;
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, static_cast<int>(warp_lanes)),
            [&](int lane, size_type& lane_nulls) {
              // Every load of the lane's words (the node's and its parent's) before any store: the
              // stores go to the node's own words, which only this lane reads.
              word_type v[items];
              for (int it = 0; it < items; ++it) {
                const size_type w = b0 + it * warp_lanes + lane;
                v[it]             = w < words ? src.word(w) : word_type{0};
              }
              if (up != nullptr)
                for (int it = 0; it < items; ++it) {
                  const size_type w = b0 + it * warp_lanes + lane;
                  if (w < words) v[it] &= up[w];
                }
              for (int it = 0; it < items; ++it) {
                const size_type w = b0 + it * warp_lanes + lane;
                if (w < words) {
                  const word_type word = v[it] & valid_bits_of_word(w, bits);
                  out[w]               = word;
                  lane_nulls += nulls_in_word(word, w, bits);
                }
              }
            },
            nulls);
        Kokkos::single(Kokkos::PerThread(team), [&]() { a.segment_count_done(k, nulls, teams); });
      });
      // The level's new words are what the next level's nodes read as their parents'.
      team.team_barrier();
    }
  }
};

// Launches the tree over the encoded nodes (`a`) in the order `t`; `max_width` is the widest level.
template <class ExecSpace>
void launch_tree(const char* fn, const ExecSpace& exec, const tree_args<ExecSpace>& a, const tree_layout& t,
                 size_type max_width) {
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
    using tuning           = tree_tuning<ExecSpace>;
    constexpr size_type bw = tree_gpu_functor<ExecSpace>::block_words;
    const size_type teams  = (a.words + bw - 1) / bw;
    check_league_size(fn, teams);
    int rows = 1;
    if (!runs_on_host<ExecSpace>()) {
      const bool few_teams = teams < device_shape_of(exec).multiprocessors;
      const size_type cap  = few_teams ? tuning::gpu_small_rows : tuning::gpu_max_rows;
      rows                 = static_cast<int>(max_width < cap ? max_width : cap);
      if (rows < 1) rows = 1;
    }
    const int lanes = runs_on_host<ExecSpace>() ? 1 : static_cast<int>(warp_lanes);
    const tree_gpu_functor<ExecSpace> f{a, t, teams};
    // No more warps than the kernel's registers allow in one team.
    const int most = Kokkos::TeamPolicy<ExecSpace>(exec, static_cast<int>(teams), 1, lanes)
                         .team_size_max(f, Kokkos::ParallelForTag());
    if (rows > most) rows = most > 0 ? most : 1;
    Kokkos::parallel_for(label + "::levels", Kokkos::TeamPolicy<ExecSpace>(exec, static_cast<int>(teams), rows, lanes), f);
  }
}

}  // namespace detail
}  // namespace kmask

#endif
