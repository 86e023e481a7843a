#ifndef KMASK_DETAIL_TREE_ALIGNED_KERNEL_HPP
#define KMASK_DETAIL_TREE_ALIGNED_KERNEL_HPP

// superimpose_nulls_tree()'s GPU form for a forest whose every node is read from bit 0 of its own
// mask (no slices, nothing staged: the struct columns of a table as they usually come). Then a
// node's word w is its own word w AND its parent's new word w, and nothing shifts, so the general
// walk's per-batch machinery (shifted reads, parent slots, packed counts) is not needed.
//
// The walk is cut into segments: each root alone (read and counted, never written while the
// kernel runs: its tail bits past size_bits are cleared by the last team), and each child of a
// root with its whole subtree, depth first. A segment's first node reads its parent, a root, which
// no warp writes; every later node's parent is in the same segment, written moments before by the
// same lane. So segments are independent, and a small mask still gives every warp work: a work
// unit is (segment, line), the line taking runs of 128 words line, line + lines, ... of every node
// of the segment, node by node (one count reduction a node, or a pair of nodes where the second
// is not the first's child), the runs' loads two at a time.
// Lines are shared out in proportion to the segments' nodes.

#include <kmask/detail/tree_kernels.hpp>

#include <cstdint>

namespace kmask {
namespace detail {

// The aligned walk on the device: positions in depth-first order (tree_calls.hpp), cut into
// segments; segment s holds positions seg_begin[s] .. seg_begin[s + 1) and its work units
// unit_begin[s] .. unit_begin[s + 1) (its lines).
struct tree_aligned_layout {
  const std::int64_t* order;       // node at position i
  const std::int64_t* parent_of;   // its parent, or -1 (a root: read and counted only)
  const std::int64_t* seg_begin;   // num_segments + 1
  const std::int64_t* unit_begin;  // num_segments + 1
  size_type num_nodes;
  size_type num_segments;
};

// A position as the kernel reads it from team scratch.
struct tree_aligned_step {
  word_type* out;          // the node's mask
  const word_type* up;     // its parent's mask, or nullptr for a root
  size_type node;
  std::int32_t vectors;    // out and up are 16-byte aligned
};

template <class ExecSpace>
struct tree_aligned_functor {
  using member_type  = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using tuning       = tree_tuning<ExecSpace>;
  using scratch_view = Kokkos::View<size_type*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  static constexpr int group           = 4;  // consecutive words of a lane: one 16-byte access
  static constexpr size_type run_words = warp_lanes * group;
  static_assert(tuning::gpu_aligned_max_words * word_bits <= (std::int64_t{1} << 32) - 1,
                "kmask: a node's set bits in a unit travel as a 32-bit field of one 64-bit lane reduction");
  static_assert(tuning::gpu_aligned_max_nodes <= tuning::gpu_team_count_nodes,
                "kmask: the aligned walk gathers every node's count in team scratch");
  tree_args<ExecSpace> a;
  tree_aligned_layout t;
  size_type runs;    // runs of run_words words of every node
  size_type units;   // unit_begin[num_segments]
  size_type league;  // teams launched; warp g takes units g, g + league x rows, ...
  int rows;

  // Runs of a node of `words` words.
  static constexpr size_type runs_of(size_type words) { return (words + run_words - 1) / run_words; }

  static std::size_t scratch_bytes(size_type nodes) {
    return static_cast<std::size_t>(nodes) * (sizeof(size_type) + sizeof(tree_aligned_step));
  }

  // Words g .. g + 3 of the node into v, ANDed with its parent's: Full runs end before the mask's
  // last word, so no word needs a bound or the tail mask.
  template <bool Full>
  KOKKOS_FORCEINLINE_FUNCTION void load_run(const tree_aligned_step& s, size_type g, word_type* v) const {
    if (Full && s.vectors) {
      load_four_words(s.out + g, v);
      if (s.up != nullptr) {
        word_type u[group];
        load_four_words(s.up + g, u);
        for (int j = 0; j < group; ++j) v[j] &= u[j];
      }
      return;
    }
    const size_type words = a.words;
    const word_type tail  = valid_bits_of_word(words - 1, a.size_bits);
    for (int j = 0; j < group; ++j) {
      const size_type w = g + static_cast<size_type>(j);
      word_type word    = 0;
      if (Full || w < words) {
        word = s.out[w];
        if (s.up != nullptr) word &= s.up[w];
        if (!Full && w == words - 1) word &= tail;
      }
      v[j] = word;
    }
  }

  template <bool Full>
  KOKKOS_FORCEINLINE_FUNCTION int store_run(const tree_aligned_step& s, size_type g, const word_type* v) const {
    int set = 0;
    for (int j = 0; j < group; ++j) set += popcount32(v[j]);
    if (s.up == nullptr) return set;  // a root: counted, not written
    if (Full && s.vectors) {
      store_four_words(s.out + g, v);
    } else {
      for (int j = 0; j < group; ++j)
        if (Full || g + static_cast<size_type>(j) < a.words) s.out[g + j] = v[j];
    }
    return set;
  }

  // Set bits of the lane's words of runs line, line + lines, ... of the node at step s.
  KOKKOS_FORCEINLINE_FUNCTION size_type lane_runs(const tree_aligned_step& s, int lane, size_type line,
                                                  size_type lines) const {
    const size_type words = a.words;
    const size_type lane_word = static_cast<size_type>(group * lane);
    size_type set = 0;
    size_type r   = line;
    // Two runs' loads go out before either's store: the compiler cannot move a load above a store
    // to a mask it cannot tell apart.
    for (; r + lines < runs && (r + lines + 1) * run_words < words; r += 2 * lines) {
      const size_type g0 = r * run_words + lane_word, g1 = (r + lines) * run_words + lane_word;
      word_type v0[group], v1[group];
      load_run<true>(s, g0, v0);
      load_run<true>(s, g1, v1);
      set += store_run<true>(s, g0, v0);
      set += store_run<true>(s, g1, v1);
    }
    for (; r < runs; r += lines) {
      const size_type g = r * run_words + lane_word;
      word_type v[group];
      if ((r + 1) * run_words < words) {
        load_run<true>(s, g, v);
        set += store_run<true>(s, g, v);
      } else {
        load_run<false>(s, g, v);
        set += store_run<false>(s, g, v);
      }
    }
    return set;
  }

  // lane_runs for two nodes at once, the second not a child of the first: both nodes' loads of a
  // run go out before either's store. Returns the first's set bits plus the second's << 32.
  KOKKOS_FORCEINLINE_FUNCTION std::uint64_t lane_runs_pair(const tree_aligned_step& s0, const tree_aligned_step& s1,
                                                           int lane, size_type line, size_type lines) const {
    const size_type words     = a.words;
    const size_type lane_word = static_cast<size_type>(group * lane);
    std::uint64_t set0 = 0, set1 = 0;
    for (size_type r = line; r < runs; r += lines) {
      const size_type g = r * run_words + lane_word;
      word_type v0[group], v1[group];
      if ((r + 1) * run_words < words) {
        load_run<true>(s0, g, v0);
        load_run<true>(s1, g, v1);
        set0 += static_cast<std::uint64_t>(store_run<true>(s0, g, v0));
        set1 += static_cast<std::uint64_t>(store_run<true>(s1, g, v1));
      } else {
        load_run<false>(s0, g, v0);
        load_run<false>(s1, g, v1);
        set0 += static_cast<std::uint64_t>(store_run<false>(s0, g, v0));
        set1 += static_cast<std::uint64_t>(store_run<false>(s1, g, v1));
      }
    }
    return set0 + (set1 << 32);
  }

  // Valid bits of runs line, line + lines, ... of a node: all their words, less the bits past
  // size_bits (only the last run has any).
  KOKKOS_INLINE_FUNCTION size_type valid_bits_of_line(size_type line, size_type lines) const {
    const size_type taken   = (runs - 1 - line) / lines + 1;
    const bool has_last     = (runs - 1 - line) % lines == 0;
    const size_type run_bits = run_words * word_bits;
    return taken * run_bits - (has_last ? runs * run_bits - a.size_bits : size_type{0});
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const size_type n = t.num_nodes;
    const scratch_view counts = zeroed_team_counts<scratch_view>(team, n, true);
    auto* steps = static_cast<tree_aligned_step*>(team.team_scratch(0).get_shmem(n * sizeof(tree_aligned_step)));
    const int lanes = static_cast<int>(warp_lanes);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows), [&](int row) {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int lane) {
        for (size_type i = static_cast<size_type>(row * lanes + lane); i < n; i += static_cast<size_type>(rows * lanes)) {
          const size_type k = t.order[i], p = t.parent_of[i];
          tree_aligned_step s;
          s.out     = a.destinations.row(k);
          s.up      = p < 0 ? nullptr : a.destinations.row(p);
          s.node    = k;
          s.vectors = four_word_aligned(s.out) && (s.up == nullptr || four_word_aligned(s.up));
          steps[i]  = s;
        }
      });
    });
    team.team_barrier();
    const size_type warps = league * static_cast<size_type>(rows);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows), [&](int row) {
      for (size_type u = static_cast<size_type>(team.league_rank()) * rows + row; u < units; u += warps) {
        // The segment holding unit u: the last s with unit_begin[s] <= u.
        size_type lo = 0, hi = t.num_segments;
        while (hi - lo > 1) {
          const size_type mid = lo + (hi - lo) / 2;
          (t.unit_begin[mid] <= u ? lo : hi) = mid;
        }
        const size_type seg = lo;
        const size_type line  = u - t.unit_begin[seg];
        const size_type lines = t.unit_begin[seg + 1] - t.unit_begin[seg];
        const size_type bits  = valid_bits_of_line(line, lines);
        const auto add = [&](size_type node, size_type nulls) { atomic_add_count(&counts(node), nulls); };
        const size_type end = t.seg_begin[seg + 1];
        for (size_type i = t.seg_begin[seg]; i < end;) {
          const tree_aligned_step s = steps[i];
          // Two positions together unless the second is the first's child (it reads the first's
          // new words back): siblings' chains of load round trips overlap.
          if (i + 1 < end && steps[i + 1].up != s.out) {
            const tree_aligned_step s1 = steps[i + 1];
            std::uint64_t packed       = 0;
            Kokkos::parallel_reduce(
                Kokkos::ThreadVectorRange(team, lanes),
                [&](int lane, std::uint64_t& acc) { acc += lane_runs_pair(s, s1, lane, line, lines); }, packed);
            Kokkos::single(Kokkos::PerThread(team), [&]() {
              add(s.node, bits - static_cast<size_type>(packed & 0xffffffffu));
              add(s1.node, bits - static_cast<size_type>(packed >> 32));
            });
            i += 2;
            continue;
          }
          size_type set = 0;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, lanes),
              [&](int lane, size_type& acc) { acc += lane_runs(s, lane, line, lines); }, set);
          Kokkos::single(Kokkos::PerThread(team), [&]() { add(s.node, bits - set); });
          ++i;
        }
      }
    });
    team.team_barrier();
    if (!tree_counts_done(team, a, counts, n, league, true)) return;
    // The last team: every warp has read the roots, so their bits past size_bits can go.
    const size_type last = a.words - 1;
    const word_type tail = valid_bits_of_word(last, a.size_bits);
    if (tail == ~word_type{0}) return;
    for_each_node(team, n, [&](size_type i) {
      if (steps[i].up == nullptr) steps[i].out[last] &= tail;
    });
  }
};

// Teams the aligned walk may launch: a resident wave (on a host, the emulated form's few).
template <class ExecSpace>
size_type tree_aligned_resident_teams(const ExecSpace& exec) {
  if (runs_on_host<ExecSpace>()) return tree_tuning<ExecSpace>::emulated_teams;
  return static_cast<size_type>(device_shape_of(exec).multiprocessors) * tree_tuning<ExecSpace>::gpu_aligned_teams_per_sm;
}

// Warps of a team of the aligned walk.
template <class ExecSpace>
constexpr int tree_aligned_rows() {
  return runs_on_host<ExecSpace>() ? 1 : tree_tuning<ExecSpace>::gpu_rows;
}

// Launches the aligned walk over the encoded nodes (`a`, a.words > 0) as `league` teams taking
// `units` work units.
template <class ExecSpace>
void launch_tree_aligned(const char* fn, const ExecSpace& exec, const tree_args<ExecSpace>& a,
                         const tree_aligned_layout& t, size_type units, size_type league) {
  using tuning           = tree_tuning<ExecSpace>;
  using functor          = tree_aligned_functor<ExecSpace>;
  const int rows         = tree_aligned_rows<ExecSpace>();
  const int lanes        = runs_on_host<ExecSpace>() ? 1 : static_cast<int>(warp_lanes);
  check_league_size(fn, league);
  const functor f{a, t, functor::runs_of(a.words), units, league, rows};
  using policy =
      Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<tuning::gpu_rows * warp_lanes, tuning::gpu_aligned_teams_per_sm>>;
  policy p(exec, static_cast<int>(league), rows, lanes);
  p.set_scratch_size(0, Kokkos::PerTeam(functor::scratch_bytes(t.num_nodes)));
  Kokkos::parallel_for(std::string(fn) + "::aligned_runs", p, f);
}

}  // namespace detail
}  // namespace kmask

#endif
