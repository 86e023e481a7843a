#ifndef KMASK_DETAIL_SEGMENTED_KERNELS_HPP
#define KMASK_DETAIL_SEGMENTED_KERNELS_HPP

// The segmented binop kernels. Work is the (destination word x segment) space: a wide segment is
// cut into teams of words, so parallelism follows the mask size and not the segment count; narrow
// segments are packed one per thread. Every index is bounds-checked before it is used to read.

#include <kmask/detail/compat.hpp>
#include <kmask/detail/launch_shape.hpp>
#include <kmask/detail/word_access.hpp>
#include <kmask/types.hpp>

#include <limits>
#include <stdexcept>
#include <string>

namespace kmask {
namespace detail {

// Kokkos indexes teams with int; refuse (before any work) what would not fit rather than wrap.
inline void check_league_size(const char* fn, size_type league) {
  if (league > std::numeric_limits<int>::max())
    throw std::length_error(std::string(fn) + ": " + std::to_string(league) +
                            " teams of work exceed the int range of Kokkos::TeamPolicy");
}

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
template <class Op>
KOKKOS_FORCEINLINE_FUNCTION word_type combine_word(const Op& op, const source_ref* sources, size_type first,
                                                   size_type last, size_type w, size_type size_bits) {
  word_type acc = op.identity();
  for (size_type j = first; j < last; ++j) acc = op(acc, load_shifted_word(sources[j], w, size_bits));
  return acc & valid_bits_of_word(w, size_bits);
}

KOKKOS_FORCEINLINE_FUNCTION size_type nulls_in_word(word_type word, size_type w, size_type size_bits) {
  const size_type rest = size_bits - w * word_bits;
  return (rest >= word_bits ? word_bits : rest) - popcount32(word);
}

template <class MemorySpace, class Op, class Destinations>
struct segmented_binop_args {
  Op op;
  Kokkos::View<const size_type*, MemorySpace> offsets;  // num_segments + 1
  Kokkos::View<const source_ref*, MemorySpace> sources;
  Destinations destinations;
  Kokkos::View<size_type*, MemorySpace> null_counts;
  size_type num_segments;
  size_type size_bits;
  size_type words;      // num_words(size_bits): the words that carry bits
  size_type row_words;  // words written per destination (>= words): padding words are written as 0
};

// One thread per segment: for masks of a few words, where a team per segment would idle.
template <class MemorySpace, class Op, class Destinations>
struct small_segments_functor {
  segmented_binop_args<MemorySpace, Op, Destinations> a;

  KOKKOS_INLINE_FUNCTION void operator()(size_type s) const {
    if (s >= a.num_segments) return;
    const size_type first = a.offsets(s), last = a.offsets(s + 1);
    word_type* out        = a.destinations.row(s);
    size_type nulls       = 0;
    for (size_type w = 0; w < a.words; ++w) {
      const word_type word = combine_word(a.op, a.sources.data(), first, last, w, a.size_bits);
      out[w]               = word;
      nulls += nulls_in_word(word, w, a.size_bits);
    }
    for (size_type w = a.words; w < a.row_words; ++w) out[w] = 0;
    a.null_counts(s) = nulls;
  }
};

// Combines `Items` destination words w0, w0 + stride, ... of one segment into acc[]. Sources are
// the outer loop so each source's offset arithmetic is done once and its Items loads are
// independent (in flight together on a GPU, vectorisable on a CPU). Words at or past `words` are
// neither read nor combined.
template <int Items, class Op>
KOKKOS_FORCEINLINE_FUNCTION void combine_block(const Op& op, const source_ref* sources, size_type first,
                                               size_type last, size_type w0, size_type stride, size_type words,
                                               size_type size_bits, word_type (&acc)[Items]) {
  for (int i = 0; i < Items; ++i) acc[i] = op.identity();
  const bool full = w0 + (Items - 1) * stride < words;
  for (size_type j = first; j < last; ++j) {
    const source_ref src = sources[j];
    const word_type* p   = src.data + src.begin_bit / word_bits;
    const int shift      = static_cast<int>(src.begin_bit % word_bits);
    // The last word this source's bits occupy, relative to p: no read goes past it.
    const size_type last_q = (src.begin_bit + size_bits - 1) / word_bits - src.begin_bit / word_bits;
    if (shift == 0) {
      if (full) {
        for (int i = 0; i < Items; ++i) acc[i] = op(acc[i], p[w0 + i * stride]);
      } else {
        for (int i = 0; i < Items; ++i) {
          const size_type w = w0 + i * stride;
          if (w < words) acc[i] = op(acc[i], p[w]);
        }
      }
    } else {
      for (int i = 0; i < Items; ++i) {
        const size_type w = w0 + i * stride;
        if (w < words) {
          const word_type lo = p[w];
          const word_type hi = w + 1 <= last_q ? p[w + 1] : word_type{0};
          acc[i]             = op(acc[i], (lo >> shift) | (hi << (word_bits - shift)));
        }
      }
    }
  }
}

// A team per block of words of one segment; the team's null count is reduced in the team and
// added to the segment's counter with one atomic. Each TeamThreadRange index owns Items words:
// strided by the group count on a GPU (coalesced across threads), contiguous on a CPU.
template <class ExecSpace, class Op, class Destinations>
struct wide_segments_functor {
  using member_type          = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  static constexpr int items       = items_per_group<ExecSpace>();
  static constexpr bool interleave = !runs_on_host<ExecSpace>();
  segmented_binop_args<typename ExecSpace::memory_space, Op, Destinations> a;
  team_shape shape;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const size_type league = team.league_rank();
    const size_type s      = league / shape.teams_per_segment;
    if (s >= a.num_segments) return;
    const size_type begin = (league % shape.teams_per_segment) * shape.words_per_team;
    if (begin >= a.row_words) return;
    const size_type first = a.offsets(s), last = a.offsets(s + 1);
    word_type* out        = a.destinations.row(s);
    const source_ref* src = a.sources.data();
    const auto op         = a.op;
    const size_type bits = a.size_bits, words = a.words, row_words = a.row_words;
    const size_type stride = interleave ? shape.groups : 1;

    size_type nulls = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, shape.groups),
        [&](size_type g, size_type& acc_nulls) {
          const size_type w0 = begin + (interleave ? g : g * items);
          word_type acc[items];
          combine_block<items>(op, src, first, last, w0, stride, words, bits, acc);
          for (int i = 0; i < items; ++i) {
            const size_type w = w0 + i * stride;
            if (w < words) {
              const word_type word = acc[i] & valid_bits_of_word(w, bits);
              out[w]               = word;
              acc_nulls += nulls_in_word(word, w, bits);
            } else if (w < row_words) {
              out[w] = 0;
            }
          }
        },
        nulls);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { atomic_add_count(&a.null_counts(s), nulls); });
  }
};

// Sets counts [0, n) to zero on the device, ordered before the kernel that accumulates into them.
template <class ExecSpace>
void zero_counts(const ExecSpace& exec, const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts,
                 size_type n, const char* label) {
  if (n == 0) return;
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(exec, 0, n),
      KOKKOS_LAMBDA(size_type i) { counts(i) = 0; });
}

template <class ExecSpace, class Op, class Destinations>
void launch_segmented_binop(const ExecSpace& exec,
                            const segmented_binop_args<typename ExecSpace::memory_space, Op, Destinations>& a) {
  if (a.num_segments == 0) return;
  if (a.words <= small_segment_words) {
    Kokkos::parallel_for("kmask::segmented_binop::small_segments",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(exec, 0, a.num_segments),
                         small_segments_functor<typename ExecSpace::memory_space, Op, Destinations>{a});
    return;
  }
  const team_shape shape = shape_for<ExecSpace>(a.row_words);
  const size_type league = a.num_segments * shape.teams_per_segment;
  check_league_size("kmask::segmented_binop", league);
  zero_counts(exec, a.null_counts, a.num_segments, "kmask::segmented_binop::zero_counts");
  Kokkos::parallel_for("kmask::segmented_binop::words",
                       Kokkos::TeamPolicy<ExecSpace>(exec, static_cast<int>(league), shape.team_size),
                       wide_segments_functor<ExecSpace, Op, Destinations>{a, shape});
}

}  // namespace detail
}  // namespace kmask

#endif
