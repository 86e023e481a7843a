#ifndef KMASK_DETAIL_MOVE_BITS_KERNEL_HPP
#define KMASK_DETAIL_MOVE_BITS_KERNEL_HPP

// The one kernel behind set_bits, set_bits_bulk, copy_bits, segmented_copy_bits, concatenate and
// copy_bitmask:
// a list of pieces, each writing `size` destination bits from a source (or a constant), cut into
// destination words. The work is the concatenation of every piece's destination words, so a team
// streams consecutive words whatever the piece sizes: a word wholly inside one piece is a plain
// store; a piece's edge word, whose other bits may belong to another piece (adjacent ranges of one
// mask), is merged atomically touching only the piece's own bits, so no update is lost.
// The GPU form gives each thread groups of 4 consecutive words (a piece's work starts `lead` items
// early so that its groups are 16-byte aligned destination words), a team's threads taking
// consecutive groups; the CPU form gives each iteration a chunk of consecutive words and writes
// each piece's part of it as one loop.

#include <kmask/detail/compat.hpp>
#include <kmask/detail/cpu_word_passes.hpp>
#include <kmask/detail/host_simd.hpp>
#include <kmask/detail/launch_shape.hpp>
#include <kmask/detail/launch_tuning.hpp>
#include <kmask/detail/team_total.hpp>
#include <kmask/detail/word_access.hpp>
#include <kmask/operators.hpp>
#include <kmask/types.hpp>

#include <cstdint>
#include <cstring>
#include <string>

namespace kmask {
namespace detail {

// One piece, positioned: `dest` is the word holding its first destination bit, which is bit
// `dest_shift` of it; `src` the word holding its first source bit (bit `src_shift`), whose words
// are XORed with `fill` (~0: an inverted source), or nullptr for a constant piece whose every bit
// is taken from `fill`. `counted` pieces add their written
// zeros to the call's null count (concatenate), the others (padding fills) do not. The piece's
// work is `lead` idle items (0-3) and then its destination words.
struct move_piece {
  word_type* dest;
  const word_type* src;
  size_type size;
  std::int32_t dest_shift;
  std::int32_t src_shift;
  word_type fill;
  std::uint16_t counted;
  std::uint16_t lead;
};

// Destination words piece `p` writes.
KOKKOS_INLINE_FUNCTION size_type piece_words(const move_piece& p) { return num_words(p.dest_shift + p.size); }

// Work items of a GPU thread's group: one 16-byte store.
constexpr size_type move_group_words = 4;

// Words a counted CPU-form run copies before counting them: 8 KiB, well inside L1.
constexpr size_type move_cpu_count_block_words = 2048;

// A counted CPU-form run this short is copied and counted in one inline loop: the wide routines'
// calls and dispatch cost more than a few words' portable popcounts (small pieces of a long list).
constexpr size_type move_cpu_short_run_words = 16;

// A CPU-form chunk asks for the source of the piece this many ahead: a long list's sources lie
// scattered (one allocation each), so each piece's start is a miss no hardware prefetcher foresees.
constexpr size_type move_cpu_prefetch_pieces = 8;
// Cache lines (64 bytes) of a piece's source asked for: its start, as far as a short piece reaches.
constexpr int move_cpu_prefetch_lines = 4;

// Work items piece `p` takes when its work starts at item `first`: with `align_groups` (the GPU
// form) its lead is set so that item first + lead is congruent to its first destination word's
// index modulo move_group_words, making every group inside it one aligned store.
inline size_type place_piece(move_piece& p, size_type first, bool align_groups) {
  const auto word = static_cast<size_type>(reinterpret_cast<std::uintptr_t>(p.dest) / sizeof(word_type));
  p.lead          = align_groups ? static_cast<std::uint16_t>((word - first) & (move_group_words - 1)) : 0;
  return p.lead + piece_words(p);
}

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
// Alone: no other thread writes that word during the launch (a CPU run's private edge word, below),
// so its other bits are kept by a plain read-modify-write.
template <bool Alone = false>
KOKKOS_INLINE_FUNCTION size_type move_word(const move_piece& p, size_type k) {
  const word_type v = piece_source_word(p, k);
  const word_type m = piece_word_mask(p, k);
  word_type* d      = p.dest + k;
  if (m == ~word_type{0}) {
    *d = v;
  } else if (Alone) {
    *d = static_cast<word_type>((*d & ~m) | (v & m));
  } else {
#if KMASK_DETAIL_HOST_PASS && (defined(__GNUC__) || defined(__clang__))
    // A CPU: one compare-and-swap, which a lone writer gets right the first time; the GPU form's
    // two fire-and-forget atomics below cost a CPU two locked instructions, most of a small piece's time.
    word_type old = __atomic_load_n(d, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(d, &old, static_cast<word_type>((old & ~m) | (v & m)), true, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED)) {
    }
#else
    // Clear the piece's zeros, then set its ones: neither touches a bit outside m.
    if ((~v & m) != 0) Kokkos::atomic_fetch_and(d, static_cast<word_type>(v | ~m));
    if ((v & m) != 0) Kokkos::atomic_fetch_or(d, static_cast<word_type>(v & m));
#endif
  }
  return p.counted ? static_cast<size_type>(popcount32(~v & m)) : 0;
}

// The pieces of one launch and where each starts in the work (offsets[p]: its first work item,
// offsets[num_pieces] the total), in device memory: every call whose pieces an upload carries.
struct uploaded_pieces {
  const move_piece* pieces;
  const size_type* offsets;
  size_type num_pieces;
  // The pieces' destinations are in address order and disjoint: two pieces share a word only when
  // they are consecutive in the work, so a CPU run writes it alone unless it meets its chunk's end.
  bool ordered = false;
  KOKKOS_FORCEINLINE_FUNCTION const move_piece& piece(size_type p) const { return pieces[p]; }
  KOKKOS_FORCEINLINE_FUNCTION size_type offset(size_type p) const { return offsets[p]; }
};

// The same, carried in the kernel's arguments (argument_launch): a call of at most Capacity pieces
// needs no upload before its launch, and a GPU thread finds its piece in the constant bank that holds
// the arguments, not by loads from device memory. Indexed at run time: the arguments stay in the
// parameter space (nvcc reads them there; ptxas reports no stack frame for these kernels).
template <int Capacity>
struct pieces_in_arguments {
  static constexpr int capacity = Capacity;
  move_piece pieces[capacity];
  size_type offsets[capacity + 1];
  size_type num_pieces;
  static constexpr bool ordered = false;  // as uploaded_pieces::ordered: never told
  KOKKOS_FORCEINLINE_FUNCTION const move_piece& piece(size_type p) const { return pieces[p]; }
  KOKKOS_FORCEINLINE_FUNCTION size_type offset(size_type p) const { return offsets[p]; }
};

// set_bits, copy_bits, copy_bitmask and the edges of bulk runs: 4 x 40 bytes.
using inline_pieces = pieces_in_arguments<4>;
// Lists of up to 64 pieces (concatenate, short segmented copies, set_bits_bulk), counted or not:
// 64 x 48 bytes and the kernel's other arguments stay inside argument_launch_max_bytes.
using argument_pieces = pieces_in_arguments<64>;

// The first piece from `from` on whose work passes item `i`, by binary search.
template <class Pieces>
KOKKOS_INLINE_FUNCTION size_type piece_of(const Pieces& list, size_type i, size_type from = 0) {
  size_type lo = from, hi = list.num_pieces - 1;
  while (lo < hi) {
    const size_type mid = lo + (hi - lo) / 2;
    if (list.offset(mid + 1) <= i) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Piece-local words [k, k + 4) of `p` (all of them the piece's), written by one thread: a group of
// whole words is read from at most 5 source words and stored at once, a group holding an edge
// word goes word by word. Returns the zeros written when the piece is counted.
KOKKOS_INLINE_FUNCTION size_type move_group(const move_piece& p, size_type k) {
  const size_type end = p.dest_shift + p.size - word_bits * k;  // the piece's bits from word k's bit 0
  if ((k == 0 && p.dest_shift != 0) || end < static_cast<size_type>(move_group_words * word_bits)) {
    size_type nulls = 0;
    for (size_type j = 0; j < move_group_words; ++j) nulls += move_word(p, k + j);
    return nulls;
  }
  word_type v[move_group_words];
  if (p.src == nullptr) {
    for (int j = 0; j < 4; ++j) v[j] = p.fill;
  } else {
    // k > 0 or dest_shift == 0, so q >= 0; with shift > 0 the fifth word holds bits of word k + 3.
    const auto q       = static_cast<std::uint64_t>(p.src_shift + word_bits * k - p.dest_shift);
    const word_type* s = p.src + q / word_bits;
    const int shift    = static_cast<int>(q % word_bits);
    word_type w[5];
    if (four_word_aligned(s)) load_four_words(s, w);
    else
      for (int j = 0; j < 4; ++j) w[j] = s[j];
    if (shift == 0) {
      for (int j = 0; j < 4; ++j) v[j] = w[j] ^ p.fill;
    } else {
      w[4] = s[4];
      for (int j = 0; j < 4; ++j) v[j] = funnel_shift(w[j], w[j + 1], shift) ^ p.fill;
    }
  }
  word_type* d = p.dest + k;
  if (four_word_aligned(d)) store_four_words(d, v);
  else
    for (int j = 0; j < 4; ++j) d[j] = v[j];
  if (!p.counted) return 0;
  size_type zeros = 0;
  for (int j = 0; j < 4; ++j) zeros += word_bits - popcount32(v[j]);
  return zeros;
}

#if defined(KMASK_HOST_POPCNT)
// A counted CPU-form run where the host has popcnt but not AVX-512's: copies a block of d[k] =
// source word k ^ fill (s[k], or s[k], s[k + 1] shifted), then counts it while it is in L1; the
// baseline's portable count inside the copy loop cost more than the copy. Returns the set bits
// written.
inline size_type copy_then_count_blocks_on_host(word_type* KOKKOS_RESTRICT d, const word_type* KOKKOS_RESTRICT s,
                                                size_type n, int shift, word_type fill) {
  size_type set = 0;
  for (size_type b = 0; b < n; b += move_cpu_count_block_words) {
    const size_type m = n - b < move_cpu_count_block_words ? n - b : move_cpu_count_block_words;
    if (shift == 0)
      for (size_type k = b; k < b + m; ++k) d[k] = s[k] ^ fill;
#if defined(KMASK_HOST_AVX512)
    else if (host_has_avx512f())
      avx512_shifted_words(d + b, s + b, m, shift, fill);
#endif
    else
      for (size_type k = b; k < b + m; ++k) d[k] = shifted_word(s, k, shift) ^ fill;
    set += host_popcount_words(d, b, b + m);
  }
  return set;
}

// A counted CPU-form run where the host has popcnt: by AVX-512, counted in registers, where the
// processor has it, else by blocks. Kept out of move_run so that its uncounted loops compile as
// before (inlined, vectorised).
inline size_type copy_and_count_on_host(word_type* KOKKOS_RESTRICT d, const word_type* KOKKOS_RESTRICT s, size_type n,
                                        int shift, word_type fill) {
#if defined(KMASK_HOST_AVX512)
  if (host_has_avx512_popcnt()) return avx512_copy_words_counted(d, s, n, shift, fill);
#endif
  return copy_then_count_blocks_on_host(d, s, n, shift, fill);
}
#endif

// The destination words a CPU run may share with another thread: with an ordered list, only those
// of its chunk's first and last work items (the words one thread writes alone are the others).
struct shared_edges {
  bool ordered;
  const word_type* first;
  const word_type* last;
  KOKKOS_FORCEINLINE_FUNCTION bool alone(const word_type* w) const { return ordered && w != first && w != last; }
};

// Piece-local words [k0, k1) of `p`, written in order by one thread: the edge words (whose other
// bits may be another piece's) through move_word's atomics unless `edges` says this thread writes
// them alone, the words between them as plain stores in a loop a CPU vectorises. Returns the zeros
// written when the piece is counted.
KOKKOS_INLINE_FUNCTION size_type move_run(const move_piece& p, size_type k0, size_type k1, const shared_edges& edges) {
  const size_type last = piece_words(p) - 1;
  size_type nulls      = 0;
  const auto edge      = [&](size_type k) {
    return edges.alone(p.dest + k) ? move_word<true>(p, k) : move_word<false>(p, k);
  };
  if (k0 == 0 && k0 < k1 && piece_word_mask(p, 0) != ~word_type{0}) nulls += edge(k0++);
  if (k1 == last + 1 && k0 < k1 && piece_word_mask(p, last) != ~word_type{0}) nulls += edge(--k1);
  if (k0 >= k1) return nulls;
  // Distinct from every source: a source that overlaps a destination was staged.
  word_type* KOKKOS_RESTRICT d = p.dest;
  size_type zeros              = 0;
  if (p.src == nullptr) {
    const word_type v = p.fill;
#if KMASK_DETAIL_HOST_PASS
    // A CPU's memset writes whole cache lines without reading them first; a store loop reads each
    // line it writes (read for ownership), twice a fill's memory traffic.
    if (v == 0 || v == ~word_type{0})
      std::memset(d + k0, v == 0 ? 0x00 : 0xFF, static_cast<std::size_t>(k1 - k0) * sizeof(word_type));
    else
#endif
      for (size_type k = k0; k < k1; ++k) d[k] = v;
    zeros = (k1 - k0) * (word_bits - popcount32(v));
  } else {
    // Interior word k's bits start at source bit 32k + delta: word k + o, shifted by `shift`; the
    // word after it is inside the source whenever shift > 0 (the dest word lies inside the piece).
    const int delta                   = p.src_shift - p.dest_shift;
    const size_type o                 = delta >= 0 ? 0 : -1;
    const int shift                   = delta >= 0 ? delta : delta + static_cast<int>(word_bits);
    const word_type* KOKKOS_RESTRICT s = p.src + (k0 + o);
    const word_type fill              = p.fill;
    const size_type n                 = k1 - k0;
    d += k0;
    // Counting only where asked: a portable popcount is a dozen operations a word.
    if (shift == 0 && !p.counted) {
      for (size_type k = 0; k < n; ++k) d[k] = s[k] ^ fill;
    } else if (!p.counted) {
#if defined(KMASK_HOST_AVX512)
      // Where the host has AVX-512 (a call, so that the loop below compiles as before).
      if (n >= 64 && host_has_avx512f()) {
        avx512_shifted_words(d, s, n, shift, fill);
        return nulls;
      }
#endif
      for (size_type k = 0; k < n; ++k) d[k] = shifted_word(s, k, shift) ^ fill;
    } else if (n <= move_cpu_short_run_words) {
      size_type set = 0;
      for (size_type k = 0; k < n; ++k) {
        const word_type v = (shift == 0 ? s[k] : shifted_word(s, k, shift)) ^ fill;
        d[k]              = v;
        set += popcount32(v);
      }
      zeros = n * word_bits - set;
    } else {
      size_type set = 0;
#if defined(KMASK_HOST_POPCNT)
      if (host_has_popcnt()) return nulls + (n * word_bits - copy_and_count_on_host(d, s, n, shift, fill));
#endif
      // The CPU form's one-source pass (cpu_word_passes.hpp) copies and counts a block at a time.
      const int sh[cpu_pass_sources]        = {shift, shift, shift, shift};
      const word_type fl[cpu_pass_sources]  = {fill, fill, fill, fill};
      for (size_type b = 0; b < n; b += max_half_count_words) {
        const word_type* const at[cpu_pass_sources] = {s + b, s + b, s + b, s + b};
        const size_type m = n - b < max_half_count_words ? n - b : max_half_count_words;
        set += shift == 0 ? cpu_pass<1, 0, false, true>(bit_or{}, at, sh, fl, m, nullptr, d + b)
                          : cpu_pass<1, 1, false, true>(bit_or{}, at, sh, fl, m, nullptr, d + b);
      }
      zeros = n * word_bits - set;
    }
  }
  return nulls + (p.counted ? zeros : 0);
}

// Where the null count of a counting launch goes: *null_count, gathered in count_scratch[0] with
// a ticket in count_scratch[1] or packed with it in count_scratch[0] (both zero before the launch,
// left zero after it); null_count nullptr: nothing is counted.
struct move_count {
  size_type* null_count;
  size_type* count_scratch;
};

// GPU form: teams of `team_size` threads, each thread `items` groups of move_group_words words,
// `team_size` groups apart, so a team's loads and stores are consecutive; a host team is one
// thread walking `items` consecutive groups. CPU form: `items` consecutive words an iteration.
struct move_shape {
  int team_size;
  size_type items;
  size_type team_words() const { return team_size * items * move_group_words; }
};

// GPU form: fewer groups per thread while that leaves the launch short of a wave of teams, so a
// mask of a few megabits still spreads over every SM.
template <class ExecSpace>
move_shape move_shape_for(const ExecSpace& exec, size_type total_words, bool counted) {
  using tuning = launch_tuning<ExecSpace>;
  if (uses_cpu_kernels<ExecSpace>()) return {1, tuning::move_cpu_chunk_words};
  // A host backend runs teams of one thread (the GPU form emulated on Serial).
  if (runs_on_host<ExecSpace>()) return {1, tuning::move_gpu_groups};
  const int team               = 256;
  const device_shape device    = device_shape_of(exec);
  const size_type wave         = std::max<size_type>(1, device.multiprocessors * device.threads_per_multiprocessor);
  const size_type groups       = (total_words + move_group_words - 1) / move_group_words;
  size_type items              = tuning::move_gpu_groups;
  // A counted launch keeps its teams few: every team's count is combined with the others' (halving
  // them too was no faster, session 12).
  while (!counted && items > 1 && (groups + items - 1) / items < wave * tuning::move_gpu_min_waves) items /= 2;
  return {team, items};
}

// The GPU form's team: each thread walks its words keeping the current piece in registers, so a
// piece is loaded once per thread whatever its size; the team's null count (when counted) goes
// out through the last-team-finishes ticket.
template <class ExecSpace, class Pieces, bool Counted>
struct move_team_functor {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  Pieces list;
  size_type total_words;
  size_type team_words;
  size_type items;
  size_type league;
  move_count count;

  KOKKOS_INLINE_FUNCTION size_type walk(const member_type& team, int t) const {
    const size_type base = static_cast<size_type>(team.league_rank()) * team_words;
    const int team_size  = team.team_size();
    size_type nulls = 0, p = 0, lo = 0, hi = -1;
    move_piece cur{};
    for (size_type r = 0; r < items; ++r) {
      const size_type i0 = base + (r * team_size + t) * move_group_words;
      if (i0 >= total_words) break;
      if (i0 >= hi) {
        p   = hi < 0 ? piece_of(list, i0) : find_piece_in(list, p, i0);
        cur = list.piece(p);
        lo  = list.offset(p) + cur.lead;
        hi  = list.offset(p + 1);
      }
      if (i0 >= lo && i0 + move_group_words <= hi) {
        nulls += move_group(cur, i0 - lo);
        continue;
      }
      // A group holding a piece's lead or crossing into the next piece: word by word.
      for (size_type i = i0; i < i0 + move_group_words && i < total_words; ++i) {
        if (i >= hi) {
          p   = find_piece_in(list, p, i);
          cur = list.piece(p);
          lo  = list.offset(p) + cur.lead;
          hi  = list.offset(p + 1);
        }
        if (i >= lo) nulls += move_word(cur, i - lo);
      }
    }
    return nulls;
  }

  // The zeros the team's threads write, summed (every thread gets the sum).
  KOKKOS_INLINE_FUNCTION size_type team_nulls(const member_type& team) const {
    size_type nulls = walk(team, team.team_rank());
    team.team_reduce(Kokkos::Sum<size_type>(nulls));
    return nulls;
  }

  // The piece holding item `i`, searched forward from `p`: the next piece first (a walk crosses
  // into it most often), then a binary search of the rest.
  KOKKOS_INLINE_FUNCTION static size_type find_piece_in(const Pieces& list, size_type p, size_type i) {
    return list.offset(p + 2) > i ? p + 1 : piece_of(list, i, p + 1);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    if constexpr (!Counted) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, team.team_size()), [&](int t) { walk(team, t); });
    } else {
      const size_type nulls = team_nulls(team);
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        if (league == 1) {
          *count.null_count = nulls;
          return;
        }
        // One atomic a team where total and ticket fit one word (team_total.hpp).
        add_part(count.count_scratch, league, total_words * word_bits, nulls, count.null_count);
      });
    }
  }
};

// The CPU form: one iteration per chunk of consecutive work items, each piece's part of it one
// run (move_run); counted launches reduce the zeros and store them once.
template <class Pieces>
struct move_chunk_functor {
  Pieces list;
  size_type total_words;
  size_type chunk;

  // The destination word of work item i, which piece p writes (a CPU piece has no lead).
  KOKKOS_INLINE_FUNCTION const word_type* item_word(size_type p, size_type i) const {
    return list.piece(p).dest + (i - list.offset(p));
  }

  KOKKOS_INLINE_FUNCTION void operator()(size_type c, size_type& nulls) const {
    size_type i         = c * chunk;
    const size_type end = i + chunk < total_words ? i + chunk : total_words;
    const size_type p0  = piece_of(list, i);
    // The words that consecutive items write form one run of the work: a run that another chunk
    // also writes holds this chunk's first or last item.
    const shared_edges edges{list.ordered, list.ordered ? item_word(p0, i) : nullptr,
                             list.ordered ? item_word(piece_of(list, end - 1, p0), end - 1) : nullptr};
    for (size_type p = p0; i < end; ++p) {
#if KMASK_DETAIL_HOST_PASS && (defined(__GNUC__) || defined(__clang__))
      if (p + move_cpu_prefetch_pieces < list.num_pieces) {
        const move_piece& ahead = list.piece(p + move_cpu_prefetch_pieces);
        const char* line        = reinterpret_cast<const char*>(ahead.src);
        if (line != nullptr)
          for (int l = 0; l < move_cpu_prefetch_lines; ++l) __builtin_prefetch(line + 64 * l);
      }
#endif
      const move_piece piece = list.piece(p);
      const size_type lo = list.offset(p) + piece.lead, hi = list.offset(p + 1) < end ? list.offset(p + 1) : end;
      if (hi <= i) continue;
      if (hi > lo) nulls += move_run(piece, i > lo ? i - lo : 0, hi - lo, edges);
      i = hi;
    }
  }
};

// Launches the pieces' words (and the count, when count.null_count is set) in one kernel
// labelled "<fn>::words" (a counted CPU-form launch reduces straight into *count.null_count).
template <class ExecSpace, class Pieces>
void launch_move(const char* fn, const ExecSpace& exec, const Pieces& list, size_type total_words,
                 const move_count& count) {
  const std::string label = std::string(fn) + "::words";
  size_type* const out    = count.null_count;
  if (total_words == 0) {
    if (out != nullptr)
      Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace>(exec, 0, 1), KOKKOS_LAMBDA(int) { *out = 0; });
    return;
  }
  const move_shape shape = move_shape_for(exec, total_words, out != nullptr);
  if constexpr (uses_cpu_kernels<ExecSpace>()) {
    const size_type chunks = (total_words + shape.items - 1) / shape.items;
    using range            = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>;
    const move_chunk_functor<Pieces> f{list, total_words, shape.items};
    if (out == nullptr) {
      Kokkos::parallel_for(label, range(exec, 0, chunks), KOKKOS_LAMBDA(size_type c) {
        size_type ignored = 0;
        f(c, ignored);
      });
    } else {
      // The sum lands in memory the host space reaches: the reduction writes it there.
      Kokkos::parallel_reduce(
          label, range(exec, 0, chunks), KOKKOS_LAMBDA(size_type c, size_type & n) { f(c, n); },
          Kokkos::View<size_type, typename ExecSpace::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(out));
    }
  } else {
    const size_type league = (total_words + shape.team_words() - 1) / shape.team_words();
    check_league_size(fn, league);
    // Pieces carried in the functor go with the launch (argument_launch); the others are a few
    // pointers, which the hint leaves where Kokkos puts them anyway.
    const auto policy = argument_launch(Kokkos::TeamPolicy<ExecSpace>(exec, static_cast<int>(league), shape.team_size));
    static_assert(sizeof(move_team_functor<ExecSpace, Pieces, true>) + 256 <= argument_launch_max_bytes,
                  "kmask: a moving launch's arguments must fit the kernel's argument space");
    if (out == nullptr) {
      const move_team_functor<ExecSpace, Pieces, false> f{list, total_words, shape.team_words(), shape.items, league,
                                                          count};
      Kokkos::parallel_for(label, policy, f);
    } else {
      const move_team_functor<ExecSpace, Pieces, true> f{list, total_words, shape.team_words(), shape.items, league,
                                                         count};
      Kokkos::parallel_for(label, policy, f);
    }
  }
}

}  // namespace detail
}  // namespace kmask

#endif
