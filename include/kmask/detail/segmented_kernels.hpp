#ifndef KMASK_DETAIL_SEGMENTED_KERNELS_HPP
#define KMASK_DETAIL_SEGMENTED_KERNELS_HPP

// The segmented binop kernels. Work is the (destination word x segment) space: a wide segment is
// cut into teams of words, so parallelism follows the mask size and not the segment count; narrow
// segments are packed one per thread. Every index is bounds-checked before it is used to read.

#include <kmask/detail/compat.hpp>
#include <kmask/detail/cpu_word_passes.hpp>
#include <kmask/detail/launch_shape.hpp>
#include <kmask/detail/validation.hpp>
#include <kmask/detail/word_access.hpp>
#include <kmask/types.hpp>

#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace kmask {
namespace detail {

// Destinations given one pointer per segment (the in-place calls).
struct destination_ref {
  word_type* data;
};
template <class MemorySpace>
struct pointer_destinations {
  Kokkos::View<const destination_ref*, MemorySpace> rows;
  KOKKOS_INLINE_FUNCTION word_type* row(size_type s) const { return rows(s).data; }
};

// Destinations that are the rows of one allocation (segmented_binop's result).
struct strided_destinations {
  word_type* base;
  size_type stride_words;
  KOKKOS_INLINE_FUNCTION word_type* row(size_type s) const { return base + s * stride_words; }
};

// Combines word `w` of sources [first, last) with `op`; bits past size_bits come out clear.
// (The plain one-word-at-a-time form: the warp-per-segment baseline in perf_tests uses it.)
template <class Op, class SourceRef>
KOKKOS_FORCEINLINE_FUNCTION word_type combine_word(const Op& op, const SourceRef* sources, size_type first,
                                                   size_type last, size_type w, size_type size_bits) {
  word_type acc = op.identity();
  for (size_type j = first; j < last; ++j) acc = op(acc, load_shifted_word(sources[j], w, size_bits));
  return acc & valid_bits_of_word(w, size_bits);
}

KOKKOS_FORCEINLINE_FUNCTION size_type nulls_in_word(word_type word, size_type w, size_type size_bits) {
  const size_type rest = size_bits - w * word_bits;
  return (rest >= word_bits ? word_bits : rest) - popcount32(word);
}

// The reference the kernels of ExecSpace read a source through: the GPU form's are copied to the
// device on every one-shot call, so they are packed into 8 bytes.
template <class ExecSpace>
using source_ref_for = std::conditional_t<uses_cpu_kernels<ExecSpace>(), source_ref, packed_source_ref>;

template <class MemorySpace, class Op, class Destinations, class SourceRef>
struct segmented_binop_args {
  Op op;
  Kokkos::View<const size_type*, MemorySpace> offsets;  // num_segments + 1
  Kokkos::View<const SourceRef*, MemorySpace> sources;
  Destinations destinations;
  Kokkos::View<size_type*, MemorySpace> null_counts;
  size_type num_segments;
  size_type size_bits;
  size_type words;      // num_words(size_bits): the words that carry bits
  size_type row_words;  // words written per destination (>= words): padding words are written as 0
  // 2 x num_segments words, zero before the launch and left zero after it (segment_count_done).
  Kokkos::View<size_type*, MemorySpace> count_scratch;

  // Part `nulls` of segment s's null count, from one of the `parts` teams (or CPU units) that
  // share the segment. Each part adds into count_scratch(2s) and then takes a ticket from
  // count_scratch(2s + 1); the part that takes the last ticket moves the total into
  // null_counts(s) and leaves both words at zero. So the counts need no clearing launch before
  // the binop (on the H200 that launch was a fixed part of every call), and the scratch is ready
  // for the next launch: launches sharing one scratch must not overlap in time.
  KOKKOS_INLINE_FUNCTION void segment_count_done(size_type s, size_type nulls, size_type parts) const {
    if (parts == 1) {
      null_counts(s) = nulls;
      return;
    }
    size_type* total = &count_scratch(2 * s);
    atomic_add_count(total, nulls);
    Kokkos::memory_fence();  // the add is visible before the ticket that announces it
    if (atomic_fetch_add_count(&count_scratch(2 * s + 1), 1) != parts - 1) return;
    Kokkos::memory_fence();  // every other part's add is visible to the last one
    null_counts(s) = atomic_exchange_count(total, 0);
    atomic_exchange_count(&count_scratch(2 * s + 1), 0);
  }
};

// The arguments of ExecSpace's kernels.
template <class ExecSpace, class Op, class Destinations>
using segmented_args_for =
    segmented_binop_args<typename ExecSpace::memory_space, Op, Destinations, source_ref_for<ExecSpace>>;

// Combines `Items` destination words w0, w0 + stride, ... of one segment into acc[], left to right
// over sources [j, last) (the operator need not commute). Words at or past `words` are neither
// read nor combined.
//
// Latency, not bandwidth, is what a naive loop loses here: each source's words can only be
// addressed once its descriptor has arrived. So while every word the block needs from `Batch`
// sources lies inside those sources (all blocks of a segment but its last), their Batch x Items
// loads are issued together, unconditionally, before any is combined; shifted sources add the
// next word of each (from the neighbouring lane on CUDA, see WarpRuns; a second load elsewhere).
// What is left goes in batches of half the size, down to one source at a time with a bounds check
// per read.
//
// WarpRuns: the caller is a CUDA warp whose lane l holds words w0 - l + 32 i + l, i < Items (32
// consecutive words per item, stride 32). Then the batched path is taken or left by the whole warp,
// judged by its last word, and a shifted source's next word is the next lane's (lane 31's: lane 0's
// next item; after the last item, one word lane 0 loads): one extra load per warp and source, where
// a second load per word fetched every line twice from L2 (shifted sources then ran at the speed an
// L2 limit predicts, and at 0.82-0.92 of copy speed once it was gone:
// perf_tests/results/h200/tuning.md).
template <int Items, int Batch, bool WarpRuns, bool LaneShuffle, class Op, class SourceRef>
KOKKOS_FORCEINLINE_FUNCTION void combine_sources(const Op& op, const SourceRef* sources, size_type j,
                                                 size_type last, size_type w0, size_type stride, size_type words,
                                                 size_type size_bits, word_type (&acc)[Items]) {
  if constexpr (Batch > 1) {
    const size_type w_max = (WarpRuns ? w0 | (warp_lanes - 1) : w0) + (Items - 1) * stride;
    if (w_max < words) {
      for (; j + Batch <= last; j += Batch) {
        const word_type* lo[Batch];
        const word_type* hi[Batch];
        int shift[Batch];
        word_type flip[Batch];
        bool in_bounds = true, aligned = true;
        for (int b = 0; b < Batch; ++b) {
          const positioned_source ps(sources[j + b], size_bits);
          lo[b]     = ps.first;
          hi[b]     = ps.first + (ps.shift != 0 ? 1 : 0);
          shift[b]  = ps.shift;
          flip[b]   = ps.flip;
          in_bounds = in_bounds && w_max + (ps.shift != 0 ? 1 : 0) <= ps.last;
          aligned   = aligned && ps.shift == 0;
        }
        if (!in_bounds) break;
        word_type v[Batch][Items];
        for (int b = 0; b < Batch; ++b)
          for (int i = 0; i < Items; ++i) v[b][i] = lo[b][w0 + i * stride];
        if (!aligned) {
#if KMASK_HAS_LANE_SHUFFLE
          if constexpr (WarpRuns && LaneShuffle) {
            const int lane = static_cast<int>(w0 & (warp_lanes - 1));
            word_type after[Batch];  // the word after the warp's run (in bounds: w_max + 1 <= last)
            for (int b = 0; b < Batch; ++b)
              after[b] = lane == 0 ? hi[b][w0 + (Items - 1) * stride + (warp_lanes - 1)] : word_type{0};
            for (int b = 0; b < Batch; ++b)
              for (int i = 0; i < Items; ++i) {
                // Lane 0 offers what lane 31 needs; every other lane offers its own word to the lane below.
                const word_type offer = lane != 0 ? v[b][i] : (i + 1 < Items ? v[b][i + 1] : after[b]);
                const word_type next  = word_from_lane(offer, (lane + 1) & (warp_lanes - 1));
                v[b][i]               = funnel_shift(v[b][i], next, shift[b]);
              }
          } else
#endif
          {
            for (int b = 0; b < Batch; ++b)
              for (int i = 0; i < Items; ++i) v[b][i] = funnel_shift(v[b][i], hi[b][w0 + i * stride], shift[b]);
          }
        }
        // An inverted source's words are complemented once they are positioned (0 or ~0: one XOR).
        for (int b = 0; b < Batch; ++b)
          for (int i = 0; i < Items; ++i) acc[i] = op(acc[i], v[b][i] ^ flip[b]);
      }
    }
    combine_sources<Items, Batch / 2, WarpRuns, LaneShuffle>(op, sources, j, last, w0, stride, words, size_bits, acc);
  } else {
    for (; j < last; ++j) {
      const positioned_source ps(sources[j], size_bits);
      for (int i = 0; i < Items; ++i) {
        const size_type w = w0 + i * stride;
        if (w < words) acc[i] = op(acc[i], ps.word(w));
      }
    }
  }
}

template <int Items, int Batch, bool WarpRuns = false, bool LaneShuffle = false, class Op, class SourceRef>
KOKKOS_FORCEINLINE_FUNCTION void combine_block(const Op& op, const SourceRef* sources, size_type first,
                                               size_type last, size_type w0, size_type stride, size_type words,
                                               size_type size_bits, word_type (&acc)[Items]) {
  for (int i = 0; i < Items; ++i) acc[i] = op.identity();
  combine_sources<Items, Batch, WarpRuns, LaneShuffle>(op, sources, first, last, w0, stride, words, size_bits, acc);
}

// Small segments (at most small_segment_words words): one segment per thread, one word per
// vector lane, so a team holds many segments and no atomics are needed; the lanes' null counts
// are reduced within the thread. Slot only makes copies of the kernel distinct types (see
// launch_small_segments).
template <class ExecSpace, class Op, class Destinations, int Slot = 0>
struct small_segments_functor {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  segmented_args_for<ExecSpace, Op, Destinations> a;
  small_shape shape;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const size_type s0 = static_cast<size_type>(team.league_rank()) * shape.segments_per_team;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, shape.segments_per_team), [&](int k) {
      const size_type s = s0 + k;
      if (s >= a.num_segments) return;
      const size_type first = a.offsets(s), last = a.offsets(s + 1);
      word_type* out        = a.destinations.row(s);
      const auto* src       = a.sources.data();
      const auto op         = a.op;
      const size_type bits = a.size_bits, words = a.words;
      size_type nulls = 0;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, a.row_words),
          [&](size_type w, size_type& lane_nulls) {
            if (w < words) {
              word_type acc[1];
              combine_block<1, launch_tuning<ExecSpace>::small_source_batch>(op, src, first, last, w, 1, words,
                                                                             bits, acc);
              const word_type word = acc[0] & valid_bits_of_word(w, bits);
              out[w]               = word;
              lane_nulls += nulls_in_word(word, w, bits);
            } else {
              out[w] = 0;
            }
          },
          nulls);
      Kokkos::single(Kokkos::PerThread(team), [&]() { a.null_counts(s) = nulls; });
    });
  }
};

// GPU form, segments wider than small_segment_words: a team per run of blocks of one segment; the
// team's null count is reduced in the team and handed to segment_count_done once.
// In a block, each run of 32 TeamThreadRange indices (a warp on CUDA) owns 32 x gpu_items
// consecutive words, index g word g % 32 of each 32, so every load instruction of a warp reads one
// 128-byte line and neighbouring words sit in neighbouring lanes.
template <class ExecSpace, class Op, class Destinations>
struct wide_segments_functor {
  using member_type    = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  static constexpr int items = launch_tuning<ExecSpace>::gpu_items;
#if defined(KOKKOS_ENABLE_CUDA)
  // A Kokkos CUDA team of vector length 1 gives thread g index g: lanes are consecutive indices.
  static constexpr bool warp_runs = std::is_same<ExecSpace, Kokkos::Cuda>::value;
#else
  static constexpr bool warp_runs = false;
#endif
  segmented_args_for<ExecSpace, Op, Destinations> a;
  team_shape shape;

  // Words w0, w0 + 32, ... (`items` of them) of the segment with sources [first, last), written to
  // `out`; returns their null count.
  KOKKOS_FORCEINLINE_FUNCTION size_type block(size_type first, size_type last, word_type* out, size_type w0) const {
    const size_type bits = a.size_bits, words = a.words, row_words = a.row_words;
    constexpr size_type stride = warp_lanes;
    word_type acc[items];
    combine_block<items, launch_tuning<ExecSpace>::source_batch, warp_runs, launch_tuning<ExecSpace>::lane_shuffle>(
        a.op, a.sources.data(), first, last, w0, stride, words, bits, acc);
    size_type nulls = 0;
    if (w0 + (items - 1) * stride + 1 < words) {
      // Not the segment's last word: every bit is inside size_bits, no tail mask, no padding.
      for (int i = 0; i < items; ++i) {
        out[w0 + i * stride] = acc[i];
        nulls += word_bits - popcount32(acc[i]);
      }
      return nulls;
    }
    for (int i = 0; i < items; ++i) {
      const size_type w = w0 + i * stride;
      if (w < words) {
        const word_type word = acc[i] & valid_bits_of_word(w, bits);
        out[w]               = word;
        nulls += nulls_in_word(word, w, bits);
      } else if (w < row_words) {
        out[w] = 0;
      }
    }
    return nulls;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const size_type league = team.league_rank();
    const size_type s      = league / shape.teams_per_segment;
    if (s >= a.num_segments) return;
    // Every team of the segment reaches segment_count_done, even one left without words.
    const size_type begin = (league % shape.teams_per_segment) * shape.words_per_team;
    const size_type first = a.offsets(s), last = a.offsets(s + 1);
    word_type* out        = a.destinations.row(s);
    const size_type block_words = shape.groups * items;

    size_type nulls = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, shape.groups),
        [&](size_type g, size_type& acc_nulls) {
          // The same trip count in every lane: a block starting past the row ends the walk for all.
          for (int k = 0; k < shape.blocks_per_team; ++k) {
            const size_type b0 = begin + k * block_words;
            if (b0 >= a.row_words) break;
            acc_nulls += block(first, last, out, b0 + (g / warp_lanes) * (warp_lanes * items) + g % warp_lanes);
          }
        },
        nulls);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { a.segment_count_done(s, nulls, shape.teams_per_segment); });
  }
};

// CPU form, segments wider than small_segment_words: iteration u owns words
// [begin, begin + cpu_unit_words) of one segment, built block by block (cpu_block_words words).
// A block streams its sources in passes of up to cpu_pass_sources consecutive ones of one kind
// (word-aligned or shifted), all read together, so each pass is one loop over parallel streams the
// hardware prefetches and the compiler vectorises; passes before the last one leave their words in
// an accumulator that stays in L1, the last one stores and counts them. With 2-4 sources a
// segment is one pass: sources in, destination out, nothing else touched.
template <class ExecSpace, class Op, class Destinations>
struct cpu_segments_functor {
  static constexpr size_type cpu_unit_words  = launch_tuning<ExecSpace>::cpu_unit_words;
  static constexpr size_type cpu_block_words = launch_tuning<ExecSpace>::cpu_block_words;
  static_assert(cpu_block_words <= max_half_count_words,
                "kmask: launch_tuning::cpu_block_words is too large for one block's 16-bit set-bit fields");
  segmented_args_for<ExecSpace, Op, Destinations> a;
  size_type units_per_segment;

  KOKKOS_INLINE_FUNCTION void operator()(size_type u) const {
    const size_type s = u / units_per_segment;
    if (s >= a.num_segments) return;
    const size_type begin = (u % units_per_segment) * cpu_unit_words;
    const size_type end   = begin + cpu_unit_words < a.words ? begin + cpu_unit_words : a.words;
    const size_type first = a.offsets(s), last = a.offsets(s + 1);
    const size_type bits  = a.size_bits;
    word_type* out        = a.destinations.row(s);
    const auto op         = a.op;
    size_type nulls       = 0;
    word_type acc[cpu_block_words];
    for (size_type b0 = begin; b0 < end; b0 += cpu_block_words) {
      const size_type n = end - b0 < cpu_block_words ? end - b0 : cpu_block_words;
      // The mask's last word is left to the end: only it can hold bits past size_bits, and only
      // there may a shifted source have no next word to read.
      const bool has_last = b0 + n == a.words;
      const size_type m   = has_last ? n - 1 : n;
      size_type set       = 0;
      if (first == last) {
        for (size_type k = 0; k < m; ++k) out[b0 + k] = op.identity();
        set = m * popcount32(op.identity());
      }
      bool from_acc = false;
      for (size_type j = first; j < last;) {
        const word_type* p[cpu_pass_sources] = {};
        int sh[cpu_pass_sources]             = {};
        word_type fl[cpu_pass_sources]       = {};
        const positioned_source lead(a.sources(j), bits);
        const bool shifted = lead.shift != 0;
        p[0]               = lead.first + b0;
        sh[0]              = lead.shift;
        fl[0]              = lead.flip;
        int g              = 1;
        for (; g < cpu_pass_sources && j + g < last; ++g) {
          const positioned_source ps(a.sources(j + g), bits);
          if ((ps.shift != 0) != shifted) break;
          p[g]  = ps.first + b0;
          sh[g] = ps.shift;
          fl[g] = ps.flip;
        }
        j += g;
        set += cpu_pass(op, g, shifted, p, sh, fl, m, from_acc, j == last, acc, out + b0);
        from_acc = true;
      }
      nulls += m * word_bits - set;
      if (has_last) {
        const size_type w = a.words - 1;
        word_type word    = op.identity();
        for (size_type j = first; j < last; ++j) word = op(word, positioned_source(a.sources(j), bits).word(w));
        word &= valid_bits_of_word(w, bits);
        out[w] = word;
        nulls += nulls_in_word(word, w, bits);
      }
    }
    // Padding words of a padded row that fall in this unit.
    const size_type pad_end = begin + cpu_unit_words < a.row_words ? begin + cpu_unit_words : a.row_words;
    for (size_type w = begin > a.words ? begin : a.words; w < pad_end; ++w) out[w] = 0;
    a.segment_count_done(s, nulls, units_per_segment);
  }
};

// Small-segment calls are launch-bound, and where the backend locks each kernel type's launch,
// threads launching one type queue on its lock: each thread launches the copy of its slot.
// Only the functor of the thread's own slot is built: each one copies the arguments' Views.
template <int Slot, class ExecSpace, class Op, class Destinations>
bool launch_small_segments_in(int slot, const Kokkos::TeamPolicy<ExecSpace>& policy,
                              const segmented_args_for<ExecSpace, Op, Destinations>& a, const small_shape& shape) {
  if (slot != Slot) return false;
  Kokkos::parallel_for("kmask::segmented_binop::small_segments", policy,
                       small_segments_functor<ExecSpace, Op, Destinations, Slot>{a, shape});
  return true;
}

template <class ExecSpace, class Op, class Destinations, int... Slots>
void launch_small_segments(const ExecSpace& exec, const segmented_args_for<ExecSpace, Op, Destinations>& a,
                           const small_shape& shape, size_type league, std::integer_sequence<int, Slots...>) {
  const int slot = sizeof...(Slots) == 1 ? 0 : launch_slot_of_this_thread(static_cast<int>(sizeof...(Slots)));
  const Kokkos::TeamPolicy<ExecSpace> policy(exec, static_cast<int>(league), shape.team_size, shape.vector_length);
  (void)(launch_small_segments_in<Slots>(slot, policy, a, shape) || ...);
}

template <class ExecSpace, class Op, class Destinations>
void launch_segmented_binop(const char* fn, const ExecSpace& exec, const segmented_args_for<ExecSpace, Op, Destinations>& a) {
  if (a.num_segments == 0) return;
  if (a.words <= small_segment_words<ExecSpace>()) {
    const small_shape shape = small_shape_for(exec, a.words, a.num_segments);
    const size_type league  = (a.num_segments + shape.segments_per_team - 1) / shape.segments_per_team;
    check_league_size(fn, league);
    launch_small_segments(exec, a, shape, league,
                          std::make_integer_sequence<int, launch_tuning<ExecSpace>::launch_slots>{});
    return;
  }
  // Only the form ExecSpace uses is instantiated: the CPU form's loops are host code.
  if constexpr (uses_cpu_kernels<ExecSpace>()) {
    constexpr size_type unit_words = launch_tuning<ExecSpace>::cpu_unit_words;
    const size_type units          = (a.row_words + unit_words - 1) / unit_words;
    // The same limit as the GPU form's, so a call is accepted or refused alike on every backend.
    check_league_size(fn, a.num_segments * units);
    Kokkos::parallel_for("kmask::segmented_binop::words",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(exec, 0, a.num_segments * units),
                         cpu_segments_functor<ExecSpace, Op, Destinations>{a, units});
  } else {
    const size_type sources_per_segment =
        (static_cast<size_type>(a.sources.extent(0)) + a.num_segments - 1) / a.num_segments;
    const team_shape shape = gpu_shape_for(exec, a.row_words, a.num_segments, sources_per_segment);
    const size_type league = a.num_segments * shape.teams_per_segment;
    // Judged on one team per block, whatever blocks_per_team this device gets, so a call is
    // accepted or refused alike on every device and backend.
    const size_type block_words = shape.groups * launch_tuning<ExecSpace>::gpu_items;
    check_league_size(fn, a.num_segments * ((a.row_words + block_words - 1) / block_words));
    constexpr int min_teams = launch_tuning<ExecSpace>::gpu_min_teams_per_sm;
    using wide_policy       = std::conditional_t<(min_teams > 0),
                                           Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<256, min_teams>>,
                                           Kokkos::TeamPolicy<ExecSpace>>;
    Kokkos::parallel_for("kmask::segmented_binop::words", wide_policy(exec, static_cast<int>(league), shape.team_size),
                         wide_segments_functor<ExecSpace, Op, Destinations>{a, shape});
  }
}

}  // namespace detail
}  // namespace kmask

#endif
