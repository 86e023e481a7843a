#ifndef KMASK_DETAIL_MAKE_MASKS_KERNELS_HPP
#define KMASK_DETAIL_MAKE_MASKS_KERNELS_HPP

// The kernels that build a mask bit by bit (valid_if, bools_to_mask, gather_bits) and the one
// that spreads a mask into booleans (mask_to_bools).
//
// Building has two shapes, chosen per kind of bits (Bits::by_lane):
//  - thread per word: one thread computes a whole word from its 32 bits with Bits::word(), and a
//    team's threads write consecutive words. Predicates (valid_if) and booleans (32 bytes in
//    16-byte loads, see bool_loads) take it everywhere: a word costs its 32 evaluations and
//    nothing more.
//  - lane per bit (CUDA only, gather_bits): lane k of a warp evaluates bit k of each of 32
//    consecutive words and one __ballot_sync makes each word, so the warp's reads of indices are
//    consecutive, one line per load. The warp loop is written in CUDA
//    directly, not through Kokkos' nested ranges, whose per-bit bookkeeping cost more than the bit.
// Elsewhere (the host, HIP, SYCL, the GPU form emulated on Serial) every Bits uses thread per word.
// Both evaluate each predicate exactly once. The null count goes to the caller's counter: on the
// GPU form each team adds its part and the last one to finish writes the total (team_total.hpp),
// on the CPU form by a Kokkos::parallel_reduce; either way no launch zeroes the counter first. A
// reporting gather's first bad index position goes to an atomic minimum the caller presets.

#include <kmask/detail/compat.hpp>
#include <kmask/detail/host_simd.hpp>
#include <kmask/detail/launch_shape.hpp>
#include <kmask/detail/launch_tuning.hpp>
#include <kmask/detail/staging_pool.hpp>
#include <kmask/detail/team_total.hpp>
#include <kmask/detail/validation.hpp>
#include <kmask/detail/word_access.hpp>
#include <kmask/types.hpp>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

namespace kmask {
namespace detail {

// "No bad index found": the identity of the first-bad-position minimum.
constexpr size_type no_bad_position = std::numeric_limits<size_type>::max();

// *p = min(*p, v) atomically, for non-negative positions.
KOKKOS_FORCEINLINE_FUNCTION void atomic_min_position(size_type* p, size_type v) noexcept { atomic_min_count(p, v); }

// Bit k of the result: whether byte k of `x` is non-zero (x read little-endian, as every kmask
// target is): the high bit of each byte after adding 0x7F to its low seven bits, gathered by one
// multiply. A dozen operations per 8 bytes, where a byte-at-a-time loop does not vectorise.
KOKKOS_FORCEINLINE_FUNCTION word_type nonzero_bytes(std::uint64_t x) {
  const std::uint64_t high = (((x & 0x7F7F7F7F7F7F7F7Full) + 0x7F7F7F7F7F7F7F7Full) | x) & 0x8080808080808080ull;
  return static_cast<word_type>(((high >> 7) * 0x0102040810204080ull) >> 56);
}

// Bits of valid_if: bit i = pred(i). `Narrow` (size_bits <= 2^32) builds each index from a 32-bit
// value the compiler can see, so arithmetic on it such as i % 3 narrows to 32-bit operations
// (a signed 64-bit modulo by a constant is several times the instructions on a GPU); pred still
// gets the same int64 value.
template <class Pred, bool Narrow>
struct predicate_bits {
  Pred pred;
  static constexpr bool reports_bad = false;
  static constexpr bool by_lane     = false;
  static constexpr bool few_teams   = true;  // see enqueue_build
  static constexpr bool cpu_block   = false;  // see build_words_functor::by_thread
  KOKKOS_FORCEINLINE_FUNCTION bool at(size_type first, std::uint32_t first32, int k) const {
    if (Narrow) return pred(static_cast<size_type>(first32 + static_cast<std::uint32_t>(k)));
    return pred(first + k);
  }
  // Bits k0..k0 + 7, written out: compilers leave a 32-iteration shift-or loop rolled (a variable
  // shift per bit), and a byte buffer read back as words stalls store forwarding on a CPU.
  KOKKOS_FORCEINLINE_FUNCTION word_type eight(size_type first, std::uint32_t first32, int k0) const {
    return (at(first, first32, k0) ? 1u : 0u) | (at(first, first32, k0 + 1) ? 2u : 0u) |
           (at(first, first32, k0 + 2) ? 4u : 0u) | (at(first, first32, k0 + 3) ? 8u : 0u) |
           (at(first, first32, k0 + 4) ? 16u : 0u) | (at(first, first32, k0 + 5) ? 32u : 0u) |
           (at(first, first32, k0 + 6) ? 64u : 0u) | (at(first, first32, k0 + 7) ? 128u : 0u);
  }
  KOKKOS_INLINE_FUNCTION word_type word(size_type first, int bits, size_type&) const {
    const std::uint32_t first32 = static_cast<std::uint32_t>(first);
    if (bits == static_cast<int>(word_bits)) {
      return eight(first, first32, 0) | eight(first, first32, 8) << 8 | eight(first, first32, 16) << 16 |
             eight(first, first32, 24) << 24;
    }
    word_type w = 0;
    for (int k = 0; k < bits; ++k) w |= static_cast<word_type>(at(first, first32, k) ? 1u : 0u) << k;
    return w;
  }
};

// How bools_to_mask reads a word's 32 bytes:
//  - aligned: the values start on 16 bytes, so two aligned 16-byte loads a word;
//  - shifted (GPU forms, values `shift` bytes past 16): a word's bytes lie in three aligned 16-byte
//    chunks, whose 48 non-zero bits are shifted down by `shift`; the chunks neighbouring words share
//    come from L1, so memory traffic is the aligned form's. A word whose chunks would reach outside
//    the values (the first, the last) takes a byte at a time;
//  - any (CPU forms): unaligned 8-byte (or SSE2 16-byte) loads, which a core takes at full speed.
enum class bool_loads { aligned, shifted, any };

// Bits of bools_to_mask: bit i = values[i] != 0 (bool or std::uint8_t), read as `Loads` says.
template <class T, bool_loads Loads>
struct bool_bits {
  static_assert(sizeof(T) == 1, "one byte per value");
  const T* values;
  size_type rows;      // values' extent: the shifted form reads no chunk past it
  unsigned shift = 0;  // shifted: bytes values starts past a 16-byte boundary (1-15)
  static constexpr bool reports_bad = false;
  static constexpr bool by_lane     = false;
  static constexpr bool few_teams   = true;
  static constexpr bool cpu_block   = true;
  // The CPU form's whole words [w0, w1) into dest[w0, w1) at once, their set bits in `set`, where
  // the host has AVX512BW (a byte test makes two words); false, nothing written, elsewhere.
  KOKKOS_INLINE_FUNCTION bool cpu_words(size_type w0, size_type w1, word_type* dest, size_type& set,
                                        size_type&) const {
#if defined(KMASK_HOST_AVX512)
    if (host_has_avx512bw()) {
      set = avx512_bytes_to_words(reinterpret_cast<const std::uint8_t*>(values + w0 * word_bits), w1 - w0, dest + w0);
      return true;
    }
#endif
    (void)w0, (void)w1, (void)dest, (void)set;
    return false;
  }
  // Non-zero bits of the 16 bytes at `p` (16-byte aligned).
  KOKKOS_FORCEINLINE_FUNCTION static word_type chunk_bits(const T* p) {
#if defined(__CUDA_ARCH__)
    const ulonglong2 c = *reinterpret_cast<const ulonglong2*>(p);
    return nonzero_bytes(c.x) | nonzero_bytes(c.y) << 8;
#else
    std::uint64_t c[2];
    std::memcpy(c, p, sizeof c);
    return nonzero_bytes(c[0]) | nonzero_bytes(c[1]) << 8;
#endif
  }
  KOKKOS_INLINE_FUNCTION word_type word(size_type first, int bits, size_type&) const {
    const T* v = values + first;
    if (bits == static_cast<int>(word_bits)) {
      if constexpr (Loads == bool_loads::aligned) {
        return chunk_bits(v) | chunk_bits(v + 16) << 16;
      } else if constexpr (Loads == bool_loads::shifted) {
        // Chunks at v - shift, + 16, + 32: inside the values from the second word on, to the end.
        if (first >= shift && first - shift + 48 <= rows) {
          const T* c           = v - shift;
          const std::uint64_t z = static_cast<std::uint64_t>(chunk_bits(c)) |
                                  static_cast<std::uint64_t>(chunk_bits(c + 16)) << 16 |
                                  static_cast<std::uint64_t>(chunk_bits(c + 32)) << 32;
          return static_cast<word_type>(z >> shift);
        }
      } else {
#if defined(__SSE2__) && KMASK_DETAIL_HOST_PASS
        // x86-64 hosts: a byte compare and movemask per 16 bytes, a quarter of the scalar form's work.
        const __m128i zero   = _mm_setzero_si128();
        const __m128i a      = _mm_loadu_si128(reinterpret_cast<const __m128i*>(v));
        const __m128i b      = _mm_loadu_si128(reinterpret_cast<const __m128i*>(v + 16));
        const unsigned zeros = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(a, zero))) |
                               static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(b, zero))) << 16;
        return ~static_cast<word_type>(zeros);
#else
        word_type w = 0;
        for (int q = 0; q < 4; ++q) {
          std::uint64_t x;
          std::memcpy(&x, v + 8 * q, sizeof x);  // any alignment; one load on a CPU
          w |= nonzero_bytes(x) << (8 * q);
        }
        return w;
#endif
      }
    }
    word_type w = 0;
    for (int k = 0; k < bits; ++k) w |= static_cast<word_type>(static_cast<std::uint8_t>(v[k]) != 0 ? 1u : 0u) << k;
    return w;
  }
};

// Bits of gather_bits: bit i = source bit `base + indices[i]`, `mask` null meaning all valid.
// `check` indices outside [0, size_bits) give 0 and report their position (nullify gives the same
// 0 without reporting); `CheckBounds` false is dont_check: the caller promised every index is in range.
template <class Index, bool CheckBounds, bool Report>
struct gathered_bits {
  const word_type* mask;  // null: every in-range bit is 1
  size_type base;         // absolute bit of source bit 0
  size_type size_bits;    // the source's bits
  const Index* indices;
  word_type flip = 0;     // 1: the source is inverted (its in-range bits read complemented)
  static constexpr bool reports_bad = Report;
  static constexpr bool by_lane     = true;
  // Source bit j (in range), from non-negative positions: unsigned shifts, no sign fix-ups.
  KOKKOS_FORCEINLINE_FUNCTION word_type source_bit(size_type j) const {
    const std::uint64_t q = static_cast<std::uint64_t>(base + j);
    return (mask == nullptr ? 1u : (mask[q >> 5] >> (q & 31u)) & 1u) ^ flip;
  }
  KOKKOS_FORCEINLINE_FUNCTION bool in_range(size_type j) const {
    return !CheckBounds || static_cast<std::uint64_t>(j) < static_cast<std::uint64_t>(size_bits);
  }
  // Each lane's source load waits on its index load: a gather needs every warp an SM holds.
  static constexpr bool few_teams = false;
  static constexpr bool cpu_block = true;
  // The CPU form's whole words [w0, w1) by AVX-512 gathers where the host has them (see bool_bits).
  KOKKOS_INLINE_FUNCTION bool cpu_words(size_type w0, size_type w1, word_type* dest, size_type& set,
                                        size_type& first_bad) const {
#if defined(KMASK_HOST_AVX512)
    if (host_has_avx512f()) {
      size_type bad = first_bad - w0 * word_bits;
      if constexpr (std::is_same<Index, std::int32_t>::value) {
        if (mask != nullptr && host_has_avx512_bitalg()) {
          set = avx512_windowed_gather_words<CheckBounds>(mask, base, size_bits, indices + w0 * word_bits, flip,
                                                          w1 - w0, dest + w0, bad);
          if (Report) first_bad = bad + w0 * word_bits;
          return true;
        }
      }
      set = avx512_gather_words<CheckBounds>(mask, base, size_bits, indices + w0 * word_bits, flip, w1 - w0, dest + w0,
                                             bad);
      if (Report) first_bad = bad + w0 * word_bits;
      return true;
    }
#endif
    (void)w0, (void)w1, (void)dest, (void)set, (void)first_bad;
    return false;
  }
  // Bit i; an out-of-range index (CheckBounds) gives 0 and sets `bad`. The lane-per-bit build
  // calls it row by row: batching a warp's 32 index loads and then 32 source loads ahead took 123
  // registers, a quarter occupancy, and measured slower on sorted and random indices.
  KOKKOS_INLINE_FUNCTION bool bit(size_type i, bool& bad) const {
    const size_type j = static_cast<size_type>(indices[i]);
    if (!in_range(j)) {
      bad = true;
      return false;
    }
    return source_bit(j) != 0;
  }
  // The CUDA lane-per-bit build's whole blocks (a warp's 32 words, every row inside the output):
  // where every source bit position plus the source's offset in its first word fits 32 bits, a
  // row's bit comes from 32-bit arithmetic on the word holding source bit 0, and an index outside
  // the source is clamped to 0 for its load and its bit cleared. No row then branches, and the
  // compiler overlaps a lane's loads of consecutive rows (the row-by-row form above is
  // instruction- and branch-bound on sorted indices); by_lane unrolls it 4 rows at a time, since
  // all 32 at once left random indices a quarter slower.
  static constexpr bool narrow_blocks = true;
  KOKKOS_INLINE_FUNCTION bool narrow() const {
    return mask != nullptr &&
           static_cast<std::uint64_t>(size_bits) + static_cast<std::uint64_t>(base % word_bits) <= 0xffffffffull;
  }
  KOKKOS_INLINE_FUNCTION const word_type* narrow_words() const { return mask + base / word_bits; }
  KOKKOS_INLINE_FUNCTION std::uint32_t narrow_shift() const { return static_cast<std::uint32_t>(base % word_bits); }
  // Row i's bit on that path: `s` = narrow_words(), `sh` = narrow_shift().
  KOKKOS_FORCEINLINE_FUNCTION bool narrow_bit(const word_type* s, std::uint32_t sh, size_type i, bool& bad) const {
    const Index j  = indices[i];
    const bool ok  = !CheckBounds || static_cast<std::uint64_t>(j) < static_cast<std::uint64_t>(size_bits);
    bad            = !ok;
    const auto q   = static_cast<std::uint32_t>(ok ? j : Index{0}) + sh;
    const auto bit = ((s[q >> 5] >> (q & 31u)) ^ flip) & 1u;
    return ok && bit != 0;
  }
  KOKKOS_INLINE_FUNCTION word_type word(size_type first, int bits, size_type& first_bad) const {
    if (mask == nullptr) {
      word_type w = 0;
      for (int k = 0; k < bits; ++k) {
        const bool ok = in_range(static_cast<size_type>(indices[first + k]));
        if (Report && !ok && first + k < first_bad) first_bad = first + k;
        w |= (ok ? 1u ^ flip : 0u) << k;
      }
      return w;
    }
    word_type w = 0;
    for (int k = 0; k < bits; ++k) {
      const size_type j = static_cast<size_type>(indices[first + k]);
      if (!in_range(j)) {  // rare: predicted, cheaper than selecting around it
        if (Report && first + k < first_bad) first_bad = first + k;
        continue;
      }
      w |= source_bit(j) << k;
    }
    return w;
  }
};

// Whether Bits has the lane-per-bit build's whole-block path (gathered_bits::narrow_blocks).
template <class Bits, class = void>
struct narrow_blocks_of : std::false_type {};
template <class Bits>
struct narrow_blocks_of<Bits, std::void_t<decltype(Bits::narrow_blocks)>> : std::bool_constant<Bits::narrow_blocks> {};

// Rows of word w that lie below size_bits (0 for padding words past num_words(size_bits)).
KOKKOS_FORCEINLINE_FUNCTION int rows_in_word(size_type w, size_type size_bits) {
  const size_type rest = size_bits - w * word_bits;
  return rest >= word_bits ? static_cast<int>(word_bits) : rest <= 0 ? 0 : static_cast<int>(rest);
}

// Teams over the output words, `words_per_team` each (a multiple of the team size, and on CUDA of
// 32 x the team's warps): every word in [0, words) is written, bits past size_bits as 0. The
// reduction value is the team's null count; a reporting gather's first bad position goes to
// *first_bad by atomic minimum.
template <class ExecSpace, class Bits>
struct build_words_functor {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  Bits bits;
  word_type* dest;
  size_type size_bits;
  size_type words;  // written: num_words(size_bits) or a padded allocation's words
  size_type words_per_team;
  size_type blocks;      // of words_per_team words, over the teams
  size_type* first_bad;  // only when Bits::reports_bad
  static constexpr bool on_host     = runs_on_host<ExecSpace>();
  static constexpr bool cpu_kernels = uses_cpu_kernels<ExecSpace>();  // read in device code: a constant

  // Thread r of T writes words w0 + r, w0 + r + T, ...: a team's stores are consecutive. A GPU
  // thread builds all its words before storing any, so every load of its inputs is in flight at
  // once (a store in between would order the next word's loads after it: the inputs may alias).
  KOKKOS_INLINE_FUNCTION void by_thread(const member_type& team, size_type block, size_type& nulls,
                                        size_type& bad) const {
    const size_type t  = team.team_size();
    const size_type w0 = block * words_per_team;
    const size_type w1 = w0 + words_per_team < words ? w0 + words_per_team : words;
    if constexpr (!on_host) {
      constexpr int items = static_cast<int>(launch_tuning<ExecSpace>::make_gpu_items);
      word_type v[items];
      int n[items];
      for (int g = 0; g < items; ++g) {
        const size_type w = w0 + team.team_rank() + g * t;
        n[g]              = w < w1 ? rows_in_word(w, size_bits) : 0;
        v[g]              = n[g] == 0 ? word_type{0} : bits.word(w * word_bits, n[g], bad);
      }
      for (int g = 0; g < items; ++g) {
        const size_type w = w0 + team.team_rank() + g * t;
        if (w < w1) {
          dest[w] = v[g];
          nulls += n[g] - popcount32(v[g]);
        }
      }
    } else {
      size_type w = w0 + team.team_rank();
      if constexpr (Bits::cpu_block && cpu_kernels) {
        // One thread a team: the block's whole words at once where Bits has a wide form for them.
        const size_type full = w1 < size_bits / word_bits ? w1 : size_bits / word_bits;
        size_type set        = 0;
        if (t == 1 && w < full && bits.cpu_words(w, full, dest, set, bad)) {
          nulls += (full - w) * word_bits - set;
          w = full;
        }
      }
      for (; w < w1; w += t) {
        const int n       = rows_in_word(w, size_bits);
        const word_type v = n == 0 ? word_type{0} : bits.word(w * word_bits, n, bad);
        dest[w]           = v;
        nulls += n - popcount32(v);
      }
    }
  }

  // Warp g of the team builds 32 consecutive words at a time: at step j lane k evaluates bit k of
  // word j and the ballot lands in lane j, which then stores it (consecutive across the warp). The
  // loop bounds depend only on the warp, so all 32 lanes reach every ballot.
  KOKKOS_INLINE_FUNCTION void by_lane(const member_type& team, size_type block, size_type& nulls,
                                      size_type& bad) const {
#if defined(__CUDA_ARCH__)
    const int rank     = team.team_rank();
    const int lane     = rank & 31;
    const size_type w0 = block * words_per_team;
    const size_type w1 = w0 + words_per_team < words ? w0 + words_per_team : words;
    const size_type step = static_cast<size_type>(team.team_size() & ~31);
    bool narrow = false;
    const word_type* narrow_s = nullptr;
    std::uint32_t narrow_sh   = 0;
    if constexpr (narrow_blocks_of<Bits>::value) {
      narrow    = bits.narrow();
      narrow_s  = narrow ? bits.narrow_words() : nullptr;
      narrow_sh = bits.narrow_shift();
    }
    for (size_type g = w0 + (rank & ~31); g < w1; g += step) {
      word_type mine       = 0;
      const size_type row0 = g * word_bits + lane;
      // Row j of the 32 words: its word (ballot) lands in lane j; a reporting gather's first bad row noted.
      const auto take = [&](int j, bool b, bool is_bad) {
        const word_type v = __ballot_sync(0xffffffffu, b);
        mine              = lane == j ? v : mine;
        if (Bits::reports_bad) {
          const word_type bad_lanes = __ballot_sync(0xffffffffu, is_bad);
          const size_type pos       = (g + j) * word_bits + (__ffs(bad_lanes) - 1);
          if (bad_lanes != 0 && pos < bad) bad = pos;
        }
      };
      bool whole = false;
      if constexpr (narrow_blocks_of<Bits>::value) whole = narrow && (g + 32) * word_bits <= size_bits;
      if (whole) {
        if constexpr (narrow_blocks_of<Bits>::value) {
#pragma unroll 4
          for (int j = 0; j < 32; ++j) {
            bool is_bad  = false;
            const bool b = bits.narrow_bit(narrow_s, narrow_sh, row0 + j * static_cast<size_type>(word_bits), is_bad);
            take(j, b, is_bad);
          }
        }
      } else {
#pragma unroll
        for (int j = 0; j < 32; ++j) {
          const size_type row = row0 + j * static_cast<size_type>(word_bits);
          bool is_bad         = false;
          const bool b        = row < size_bits && bits.bit(row, is_bad);
          take(j, b, is_bad);
        }
      }
      const size_type w = g + lane;
      if (w < w1) {
        dest[w] = mine;
        nulls += rows_in_word(w, size_bits) - popcount32(mine);
      }
    }
#else
    by_thread(team, block, nulls, bad);
#endif
  }

  // A team builds blocks league_rank, + league_size, ...: a launch of at most a resident wave of
  // teams (but gathers) loops over the blocks. `nulls` is this thread's part of the null count.
  KOKKOS_INLINE_FUNCTION void build(const member_type& team, size_type& nulls) const {
    size_type bad = no_bad_position;
    for (size_type block = team.league_rank(); block < blocks; block += team.league_size()) {
#if defined(__CUDA_ARCH__)
      if constexpr (Bits::by_lane) {
        by_lane(team, block, nulls, bad);
      } else {
        by_thread(team, block, nulls, bad);
      }
#else
      by_thread(team, block, nulls, bad);
#endif
    }
    if constexpr (Bits::reports_bad) {
      team.team_reduce(Kokkos::Min<size_type>(bad));
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        if (bad != no_bad_position) atomic_min_position(first_bad, bad);
      });
    }
  }

  // The CPU form: Kokkos sums the threads' counts.
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team, size_type& nulls) const { build(team, nulls); }
};

// The GPU form: the count goes out through the last-part-finishes ticket into *null_count,
// `scratch` two words that are zero before the launch (and left zero after it). On CUDA, where
// `packed` (packs_team_parts for a part per warp), each warp's sum by shuffles is a part with one
// atomic on scratch[0] (team_total.hpp), with no team barrier; elsewhere a team's sum is a part.
template <class ExecSpace, class Bits>
struct build_words_ticket_functor {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  build_words_functor<ExecSpace, Bits> f;
  size_type league;
  bool packed;
  size_type* scratch;
  size_type* null_count;
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    size_type nulls = 0;
    f.build(team, nulls);
#if KMASK_HAS_LANE_SHUFFLE
    if (packed) {  // teams are whole warps (make_team_words)
      nulls = warp_sum(nulls);
      if (team.team_rank() % 32 == 0)
        add_packed_part(scratch, league * static_cast<size_type>(team.team_size() / 32), nulls, null_count);
      return;
    }
#endif
    team.team_reduce(Kokkos::Sum<size_type>(nulls));
    Kokkos::single(Kokkos::PerTeam(team), [&]() { add_team_part(scratch, league, nulls, null_count); });
  }
};

// Words one team builds: GPU teams of make_gpu_team threads x make_gpu_items words each, host
// teams of one thread walking make_cpu_team_words words.
template <class ExecSpace>
constexpr size_type make_team_words() {
  using t = launch_tuning<ExecSpace>;
  static_assert(t::make_gpu_team % 32 == 0, "whole warps: the lane-per-bit build steps a warp at a time");
  if (runs_on_host<ExecSpace>()) return t::make_cpu_team_words;
  return size_type{t::make_gpu_team} * t::make_gpu_items;
}

// Enqueues the build of `words` words into `dest` with *null_count set to the null count (also
// for no words); for a reporting gather *first_bad must hold no_bad_position on `exec` before.
// League size checked first.
template <class ExecSpace, class Bits>
void enqueue_build(const char* fn, const ExecSpace& exec, const Bits& bits, word_type* dest, size_type size_bits,
                   size_type words, size_type* null_count, size_type* first_bad) {
  using memory_space = typename ExecSpace::memory_space;
  if (words == 0) {
    Kokkos::parallel_for(
        std::string(fn) + "::empty_count", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(exec, 0, 1),
        KOKKOS_LAMBDA(size_type) { *null_count = 0; });
    return;
  }
  const Kokkos::View<size_type, memory_space> count(null_count);
  using t                      = launch_tuning<ExecSpace>;
  constexpr size_type per_team = make_team_words<ExecSpace>();
  const size_type blocks       = (words + per_team - 1) / per_team;
  // Capped unless Bits needs many warps (gathers). The GPU form emulated on a host runs 3 teams,
  // so the loop over blocks is tested too.
  const size_type league =
      uses_cpu_kernels<ExecSpace>() || !Bits::few_teams ? blocks
      : runs_on_host<ExecSpace>()              ? std::min<size_type>(blocks, 3)
                                               : std::min<size_type>(blocks, std::max<size_type>(1, device_shape_of(exec).multiprocessors *
                                                                                                         t::make_gpu_teams_per_sm));
  check_league_size(fn, league);
  const build_words_functor<ExecSpace, Bits> f{bits, dest, size_bits, words, per_team, blocks, first_bad};
  const int team = runs_on_host<ExecSpace>() ? 1 : t::make_gpu_team;
  const std::string label = std::string(fn) + "::words";
  if constexpr (uses_cpu_kernels<ExecSpace>()) {
    Kokkos::parallel_reduce(label, Kokkos::TeamPolicy<ExecSpace>(exec, static_cast<int>(league), team), f,
                            Kokkos::Sum<size_type, memory_space>(count));
  } else {
    const auto lease = staging_pool<ExecSpace>::acquire_scratch(exec, std::string(fn) + "::count_scratch");
    auto* scratch    = reinterpret_cast<size_type*>(lease.zeroed());
    // Gathers keep every warp an SM can hold (their loads wait on loads): bounded to fit that many.
    using policy = std::conditional_t<
        narrow_blocks_of<Bits>::value,
        Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<t::make_gpu_team, t::gather_gpu_min_teams_per_sm>>,
        Kokkos::TeamPolicy<ExecSpace>>;
    const bool packed = packs_team_parts(league * std::max<size_type>(1, team / 32), size_bits);
    Kokkos::parallel_for(label, policy(exec, static_cast<int>(league), team),
                         build_words_ticket_functor<ExecSpace, Bits>{f, league, packed, scratch, null_count});
  }
}

// The predicate's bits, 32-bit indices when every index fits.
template <class Pred, class F>
void with_predicate_bits(const Pred& pred, size_type size_bits, const F& f) {
  if (size_bits <= (size_type{1} << 32)) {
    f(predicate_bits<Pred, true>{pred});
  } else {
    f(predicate_bits<Pred, false>{pred});
  }
}

// The booleans' bits: on the GPU forms aligned loads when the values start on 16 bytes, else the
// shifted chunks; unaligned loads on the CPU forms.
template <class ExecSpace, class T, class F>
void with_bool_bits(const T* values, size_type rows, const F& f) {
  const auto shift = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(values) % 16);
  if constexpr (uses_cpu_kernels<ExecSpace>()) {
    f(bool_bits<T, bool_loads::any>{values, rows});
  } else if (shift == 0) {
    f(bool_bits<T, bool_loads::aligned>{values, rows});
  } else {
    f(bool_bits<T, bool_loads::shifted>{values, rows, shift});
  }
}

// Bits 0..7 of `b` as the bytes 0 / 1 of a little-endian 64-bit word (three spreading steps).
KOKKOS_FORCEINLINE_FUNCTION std::uint64_t bits_to_bytes(std::uint64_t b) {
  b = (b | (b << 28)) & 0x0000000F0000000Full;
  b = (b | (b << 14)) & 0x0003000300030003ull;
  return (b | (b << 7)) & 0x0101010101010101ull;
}

// The 32 booleans of `w` at `o` (any alignment).
KOKKOS_FORCEINLINE_FUNCTION void store_32_bools(bool* o, word_type w) {
#if defined(__SSE2__) && KMASK_DETAIL_HOST_PASS
  // Byte k of a 16-byte vector holds bit k's byte of `w`, tested against bit k % 8.
  const __m128i select = _mm_set_epi8(-128, 64, 32, 16, 8, 4, 2, 1, -128, 64, 32, 16, 8, 4, 2, 1);
  const __m128i one    = _mm_set1_epi8(1);
  for (int half = 0; half < 2; ++half) {
    const int bits16 = static_cast<int>((w >> (16 * half)) & 0xFFFFu);
    const __m128i x  = _mm_unpacklo_epi64(_mm_set1_epi8(static_cast<char>(bits16 & 0xFF)),
                                          _mm_set1_epi8(static_cast<char>(bits16 >> 8)));
    const __m128i r  = _mm_and_si128(_mm_cmpeq_epi8(_mm_and_si128(x, select), select), one);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(o + 16 * half), r);
  }
#else
  for (int q = 0; q < 4; ++q) {
    const std::uint64_t bytes = bits_to_bytes((w >> (8 * q)) & 0xFFu);
    std::memcpy(o + 8 * q, &bytes, sizeof bytes);  // eight bools (bytes 0 / 1) at once
  }
#endif
}

// Bits [q, q + count) of `mask` (null: all ones) from at most two words, XORed with flip.
KOKKOS_FORCEINLINE_FUNCTION word_type mask_bits_at(const word_type* mask, size_type q, int count, word_type flip) {
  if (mask == nullptr) return ~flip;
  const int shift    = static_cast<int>(q % word_bits);
  const size_type wi = q / word_bits;
  const bool two     = shift + count > static_cast<int>(word_bits);
  return funnel_shift(mask[wi], two ? mask[wi + 1] : word_type{0}, shift) ^ flip;
}

// Enqueues out[i] = bit (base + i) of `mask` for i in [0, n) (`mask` null: all true). The CPU form
// writes a run of words' booleans per iteration (below); the GPU form 16 booleans per
// aligned 16-byte store (a warp writes 512 consecutive bytes), in teams so that each thread
// writes several groups.
template <class ExecSpace>
void enqueue_mask_to_bools(const char* fn, const ExecSpace& exec, bool* out, const word_type* mask, size_type base,
                           size_type n, bool invert = false) {
  const word_type flip = invert ? ~word_type{0} : word_type{0};
  if (n == 0) return;
  using range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>;
  const std::string label = std::string(fn) + "::bools";
  if constexpr (uses_cpu_kernels<ExecSpace>()) {
    // A run of bools_cpu_chunk_words source words per iteration: its whole words at once where the
    // host has AVX512BW, the rest (and every word elsewhere) a word at a time, eight booleans a store.
    constexpr size_type chunk = launch_tuning<ExecSpace>::bools_cpu_chunk_words;
    const size_type words     = num_words(n);
    Kokkos::parallel_for(label, range(exec, 0, (words + chunk - 1) / chunk), KOKKOS_LAMBDA(size_type c) {
      size_type g        = c * chunk;
      const size_type g1 = g + chunk < words ? g + chunk : words;
#if defined(KMASK_HOST_AVX512)
      const size_type full = g1 < n / word_bits ? g1 : n / word_bits;
      if (mask != nullptr && g < full && host_has_avx512bw()) {
        const size_type q = base + g * word_bits;
        avx512_words_to_bools(mask + q / word_bits, static_cast<int>(q % word_bits), flip, full - g, out + g * word_bits);
        g = full;
      }
#endif
      for (; g < g1; ++g) {
        const size_type first = g * word_bits;
        const int count       = n - first >= word_bits ? static_cast<int>(word_bits) : static_cast<int>(n - first);
        const word_type w     = mask_bits_at(mask, base + first, count, flip);
        bool* o               = out + first;
        if (count == static_cast<int>(word_bits)) {
          store_32_bools(o, w);
          continue;
        }
        for (int k = 0; k < count; ++k) o[k] = ((w >> k) & 1u) != 0;
      }
    });
  } else {
    // Groups of 16 booleans from the first 16-byte boundary of `out`: thread r of a team of T takes
    // groups r, r + T, ... of its team's T x items, and the first thread also the bytes before that
    // boundary.
    using t                     = launch_tuning<ExecSpace>;
    constexpr size_type per     = 16;
    const int team_size         = runs_on_host<ExecSpace>() ? 1 : t::make_gpu_team;
    constexpr size_type items   = t::bools_gpu_items;
    const size_type misaligned  = static_cast<size_type>(reinterpret_cast<std::uintptr_t>(out) % per);
    const size_type head        = misaligned == 0 ? 0 : (per - misaligned < n ? per - misaligned : n);
    const size_type groups      = (n - head + per - 1) / per;
    const size_type team_groups = team_size * items;
    const size_type league      = groups == 0 ? 1 : (groups + team_groups - 1) / team_groups;
    check_league_size(fn, league);
    using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
    Kokkos::parallel_for(
        label, Kokkos::TeamPolicy<ExecSpace>(exec, static_cast<int>(league), team_size),
        KOKKOS_LAMBDA(const member_type& team) {
          const size_type g0 = static_cast<size_type>(team.league_rank()) * team_groups + team.team_rank();
          if (g0 == 0) {
            const word_type w = head == 0 ? word_type{0} : mask_bits_at(mask, base, static_cast<int>(head), flip);
            for (size_type k = 0; k < head; ++k) out[k] = ((w >> k) & 1u) != 0;
          }
          for (size_type k = 0; k < items; ++k) {
            const size_type g = g0 + k * team.team_size();
            if (g >= groups) return;
            const size_type first = head + g * per;
            const int count       = n - first >= per ? static_cast<int>(per) : static_cast<int>(n - first);
            const word_type w     = mask_bits_at(mask, base + first, count, flip);
            bool* o               = out + first;
            if (count == static_cast<int>(per)) {
              const std::uint64_t lo = bits_to_bytes(w & 0xFFu), hi = bits_to_bytes((w >> 8) & 0xFFu);
#if defined(__CUDA_ARCH__)
              *reinterpret_cast<ulonglong2*>(o) = make_ulonglong2(lo, hi);
#else
              std::memcpy(o, &lo, sizeof lo);
              std::memcpy(o + 8, &hi, sizeof hi);
#endif
            } else {
              for (int b = 0; b < count; ++b) o[b] = ((w >> b) & 1u) != 0;
            }
          }
        });
  }
}

}  // namespace detail
}  // namespace kmask

#endif
