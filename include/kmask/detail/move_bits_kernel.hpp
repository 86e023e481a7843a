#ifndef KMASK_DETAIL_MOVE_BITS_KERNEL_HPP
#define KMASK_DETAIL_MOVE_BITS_KERNEL_HPP

// The one kernel behind set_bits, set_bits_bulk, copy_bits, segmented_copy_bits and concatenate:
// a list of pieces, each writing `size` destination bits from a source (or a constant), cut into
// destination words. The work is the concatenation of every piece's destination words, so a team
// streams consecutive words whatever the piece sizes: a word wholly inside one piece is a plain
// store; a piece's edge word, whose other bits may belong to another piece (adjacent ranges of one
// mask), is merged with two atomics that touch only the piece's own bits, so no update is lost.

#include <kmask/detail/compat.hpp>
#include <kmask/detail/launch_shape.hpp>
#include <kmask/detail/launch_tuning.hpp>
#include <kmask/detail/word_access.hpp>
#include <kmask/types.hpp>

#include <cstdint>
#include <string>

namespace kmask {
namespace detail {

// One piece, positioned: `dest` is the word holding its first destination bit, which is bit
// `dest_shift` of it; `src` the word holding its first source bit (bit `src_shift`), whose words
// are XORed with `fill` (~0: an inverted source), or nullptr for a constant piece whose every bit
// is taken from `fill`. `counted` pieces add their written
// zeros to the call's null count (concatenate), the others (padding fills) do not.
struct move_piece {
  word_type* dest;
  const word_type* src;
  size_type size;
  std::int32_t dest_shift;
  std::int32_t src_shift;
  word_type fill;
  std::uint32_t counted;
};

// Destination words piece `p` writes.
KOKKOS_INLINE_FUNCTION size_type piece_words(const move_piece& p) { return num_words(p.dest_shift + p.size); }

// The 32 source bits that land in the piece's destination word `k`, read only from the words its
// source bits occupy (bits outside the piece are whatever those words hold, and are masked off).
KOKKOS_INLINE_FUNCTION word_type piece_source_word(const move_piece& p, size_type k) {
  if (p.src == nullptr) return p.fill;
  const size_type q    = static_cast<size_type>(p.src_shift) + word_bits * k - p.dest_shift;  // >= -31
  const size_type w0   = q >= 0 ? q / word_bits : -1;
  const int shift      = static_cast<int>(q - word_bits * w0);
  const size_type last = (p.src_shift + p.size - 1) / word_bits;
  const word_type lo   = w0 >= 0 ? p.src[w0] : word_type{0};
  if (shift == 0) return lo ^ p.fill;
  return funnel_shift(lo, w0 + 1 <= last ? p.src[w0 + 1] : word_type{0}, shift) ^ p.fill;
}

// The bits of the piece's destination word `k` that the piece writes.
KOKKOS_INLINE_FUNCTION word_type piece_word_mask(const move_piece& p, size_type k) {
  word_type m = ~word_type{0};
  if (k == 0) m <<= p.dest_shift;
  const size_type end = p.dest_shift + p.size - word_bits * k;  // bits of this word below the piece's end
  if (end < word_bits) m &= (word_type{1} << end) - 1;
  return m;
}

// Writes the piece's destination word `k`; returns the zeros it wrote when the piece is counted.
KOKKOS_INLINE_FUNCTION size_type move_word(const move_piece& p, size_type k) {
  const word_type v = piece_source_word(p, k);
  const word_type m = piece_word_mask(p, k);
  word_type* d      = p.dest + k;
  if (m == ~word_type{0}) {
    *d = v;
  } else {
    // Clear the piece's zeros, then set its ones: neither touches a bit outside m.
    if ((~v & m) != 0) Kokkos::atomic_fetch_and(d, static_cast<word_type>(v | ~m));
    if ((v & m) != 0) Kokkos::atomic_fetch_or(d, static_cast<word_type>(v & m));
  }
  return p.counted ? static_cast<size_type>(popcount32(~v & m)) : 0;
}

// The piece holding work item `i`, searched forward from `p` (items only increase along a
// thread's walk): a galloping step then a binary search, so a walk over big pieces costs one
// probe per item and one over thousands of small pieces a few.
KOKKOS_INLINE_FUNCTION size_type find_piece(const size_type* offsets, size_type num_pieces, size_type p, size_type i) {
  if (offsets[p + 1] > i) return p;
  size_type lo = p + 1, step = 1, hi = p + 1;
  while (hi < num_pieces && offsets[hi + 1] <= i) {
    lo   = hi + 1;
    hi   = hi + step;
    step *= 2;
    if (hi >= num_pieces) hi = num_pieces - 1;
  }
  // offsets[lo] <= i < offsets[hi + 1]: the first piece in [lo, hi] whose end passes i.
  while (lo < hi) {
    const size_type mid = lo + (hi - lo) / 2;
    if (offsets[mid + 1] <= i) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

template <class MemorySpace>
struct move_args {
  using unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  Kokkos::View<const move_piece*, MemorySpace, unmanaged> pieces;
  Kokkos::View<const size_type*, MemorySpace, unmanaged> offsets;  // num_pieces + 1: first work item of each
  size_type num_pieces;
  size_type total_words;
  // When non-null: the call's null count goes to *null_count, gathered in count_scratch[0]
  // with a ticket in count_scratch[1] (both zero before the launch, left zero after it).
  size_type* null_count;
  size_type* count_scratch;
};

// Teams of `team_size` threads, each thread `items` words `team_size` apart, so a team's loads and
// stores are consecutive words; a host team is one thread walking `items` consecutive words.
struct move_shape {
  int team_size;
  size_type items;
  size_type team_words() const { return team_size * items; }
};

template <class ExecSpace>
move_shape move_shape_for() {
  if (uses_cpu_kernels<ExecSpace>()) return {1, launch_tuning<ExecSpace>::move_cpu_chunk_words};
  // A host backend runs teams of one thread (the GPU form emulated on Serial).
  return {runs_on_host<ExecSpace>() ? 1 : 256, launch_tuning<ExecSpace>::move_gpu_items};
}

// Launches the pieces' words (and the count) in one kernel labelled "<fn>::words".
template <class ExecSpace>
void launch_move(const char* fn, const ExecSpace& exec, const move_args<typename ExecSpace::memory_space>& a) {
  using policy      = Kokkos::TeamPolicy<ExecSpace>;
  using member_type = typename policy::member_type;
  const move_shape shape = move_shape_for<ExecSpace>();
  const size_type league = (a.total_words + shape.team_words() - 1) / shape.team_words();
  check_league_size(fn, league);
  if (league == 0) {
    if (a.null_count != nullptr) {
      size_type* out = a.null_count;
      Kokkos::parallel_for(std::string(fn) + "::words", Kokkos::RangePolicy<ExecSpace>(exec, 0, 1),
                           KOKKOS_LAMBDA(int) { *out = 0; });
    }
    return;
  }
  const size_type team_words = shape.team_words(), items = shape.items;
  const int team_size        = shape.team_size;
  Kokkos::parallel_for(
      std::string(fn) + "::words", policy(exec, static_cast<int>(league), team_size),
      KOKKOS_LAMBDA(const member_type& team) {
        const size_type base = static_cast<size_type>(team.league_rank()) * team_words;
        size_type nulls      = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, team_size),
            [&](int t, size_type& acc) {
              size_type p = 0;
              bool first  = true;
              for (size_type r = 0; r < items; ++r) {
                const size_type i = base + r * team_size + t;
                if (i >= a.total_words) break;
                if (first) {
                  // The first item: a binary search over all pieces.
                  size_type lo = 0, hi = a.num_pieces - 1;
                  while (lo < hi) {
                    const size_type mid = lo + (hi - lo) / 2;
                    if (a.offsets(mid + 1) <= i) lo = mid + 1;
                    else hi = mid;
                  }
                  p     = lo;
                  first = false;
                } else {
                  p = find_piece(a.offsets.data(), a.num_pieces, p, i);
                }
                acc += move_word(a.pieces(p), i - a.offsets(p));
              }
            },
            nulls);
        if (a.null_count == nullptr) return;
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          if (league == 1) {
            *a.null_count = nulls;
            return;
          }
          atomic_add_count(a.count_scratch, nulls);
          Kokkos::memory_fence();  // the add is visible before the ticket that announces it
          if (atomic_fetch_add_count(a.count_scratch + 1, 1) != league - 1) return;
          Kokkos::memory_fence();  // every other team's add is visible to the last one
          *a.null_count = atomic_exchange_count(a.count_scratch, 0);
          atomic_exchange_count(a.count_scratch + 1, 0);
        });
      });
}

}  // namespace detail
}  // namespace kmask

#endif
