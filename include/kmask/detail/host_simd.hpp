#ifndef KMASK_DETAIL_HOST_SIMD_HPP
#define KMASK_DETAIL_HOST_SIMD_HPP

// The host's wide instructions, chosen at run time: the CPU forms are compiled for the baseline
// instruction set (x86-64's has neither popcnt nor AVX), so the loops that the baseline makes
// several times slower than their memory traffic (counting set bits, bytes to bits and bits to
// bytes) also exist compiled for popcnt and AVX-512, and are called only where the processor has
// the instructions. Only in host compilations by GCC or Clang for x86-64: CUDA, HIP and SYCL front
// ends need not accept AVX-512 intrinsics (their host spaces keep the baseline loops).

#include <kmask/detail/word_access.hpp>
#include <kmask/types.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>

// 1 in a compilation pass for the host, 0 in the device pass of CUDA, HIP or SYCL.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__) || defined(__SYCL_DEVICE_ONLY__)
#define KMASK_DETAIL_HOST_PASS 0
#else
#define KMASK_DETAIL_HOST_PASS 1
#endif

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__)) && KMASK_DETAIL_HOST_PASS
#define KMASK_HOST_POPCNT 1
#endif
#if defined(KMASK_HOST_POPCNT) && !defined(__CUDACC__) && !defined(__HIPCC__) && !defined(SYCL_LANGUAGE_VERSION) && \
    ((defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 8) || (defined(__clang__) && __clang_major__ >= 6))
#define KMASK_HOST_AVX512 1
#include <immintrin.h>
#endif

namespace kmask {
namespace detail {

#if defined(KMASK_HOST_POPCNT)
// Set bits of words [lo, hi) of `m` with the popcnt instruction, 64 bits at a time and four sums
// apart (its latency is 3 cycles, its throughput one a cycle).
__attribute__((target("popcnt"))) inline size_type popcnt_words(const word_type* m, size_type lo, size_type hi) {
  std::uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  size_type w = lo;
  for (; w + 8 <= hi; w += 8) {
    std::uint64_t x[4];
    std::memcpy(x, m + w, sizeof(x));
    s0 += static_cast<std::uint64_t>(__builtin_popcountll(x[0]));
    s1 += static_cast<std::uint64_t>(__builtin_popcountll(x[1]));
    s2 += static_cast<std::uint64_t>(__builtin_popcountll(x[2]));
    s3 += static_cast<std::uint64_t>(__builtin_popcountll(x[3]));
  }
  for (; w < hi; ++w) s0 += static_cast<std::uint64_t>(__builtin_popcount(m[w]));
  return static_cast<size_type>(s0 + s1 + s2 + s3);
}
inline bool host_has_popcnt() {
  static const bool yes = __builtin_cpu_supports("popcnt");
  return yes;
}
#endif

#if defined(KMASK_HOST_AVX512)
// The same with AVX-512's VPOPCNTDQ, sixteen words an instruction: scalar popcnt, one 64-bit word a
// cycle, held a 16-core host count to ~150 GB/s from cache.
__attribute__((target("avx512f,avx512vpopcntdq,popcnt"))) inline size_type avx512_popcnt_words(const word_type* m,
                                                                                              size_type lo,
                                                                                              size_type hi) {
  __m512i s0 = _mm512_setzero_si512(), s1 = _mm512_setzero_si512();
  size_type w = lo;
  for (; w + 32 <= hi; w += 32) {
    s0 = _mm512_add_epi64(s0, _mm512_popcnt_epi64(_mm512_loadu_si512(static_cast<const void*>(m + w))));
    s1 = _mm512_add_epi64(s1, _mm512_popcnt_epi64(_mm512_loadu_si512(static_cast<const void*>(m + w + 16))));
  }
  if (w + 16 <= hi) {
    s0 = _mm512_add_epi64(s0, _mm512_popcnt_epi64(_mm512_loadu_si512(static_cast<const void*>(m + w))));
    w += 16;
  }
  // The last 0-15 words by one masked load (masked-off words are read as zero and never touched):
  // a short run's tail, which scalar popcnt took most of the time of (pieces of 16-63 words).
  if (w < hi) {
    const __mmask16 k = static_cast<__mmask16>((1u << (hi - w)) - 1u);
    s1 = _mm512_add_epi64(s1, _mm512_popcnt_epi64(_mm512_maskz_loadu_epi32(k, static_cast<const void*>(m + w))));
  }
  return static_cast<size_type>(_mm512_reduce_add_epi64(_mm512_add_epi64(s0, s1)));
}
inline bool host_has_avx512_popcnt() {
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq");
  return yes;
}

// Byte-granular masks (AVX512BW) for the byte <-> bit conversions below.
inline bool host_has_avx512bw() {
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  return yes;
}

// out[0, words) from the bytes v[0, 32 * words): bit k of word w = (v[32w + k] != 0); returns the
// set bits. One byte test per 64 bytes makes two words at once (the SSE2 form: four compares and
// movemasks, then a portable popcount).
__attribute__((target("avx512f,avx512bw,popcnt"))) inline size_type avx512_bytes_to_words(const std::uint8_t* v,
                                                                                        size_type words,
                                                                                        word_type* out) {
  std::uint64_t set = 0;
  size_type w       = 0;
  for (; w + 2 <= words; w += 2) {
    const __m512i x          = _mm512_loadu_si512(static_cast<const void*>(v + 32 * w));
    const std::uint64_t bits = static_cast<std::uint64_t>(_mm512_test_epi8_mask(x, x));
    std::memcpy(out + w, &bits, sizeof bits);
    set += static_cast<std::uint64_t>(__builtin_popcountll(bits));
  }
  if (w < words) {
    // The last 32 bytes by a masked load: nothing past them is touched.
    const __m512i x          = _mm512_maskz_loadu_epi8(static_cast<__mmask64>(0xFFFFFFFFull), v + 32 * w);
    const auto bits          = static_cast<word_type>(_mm512_test_epi8_mask(x, x));
    out[w]                   = bits;
    set += static_cast<std::uint64_t>(__builtin_popcount(bits));
  }
  return static_cast<size_type>(set);
}

// out[0, 32 * words) = the bits [shift, shift + 32 * words) of m, XORed with `flip`, as bools
// (bytes 0 / 1): 64 of them from one masked byte broadcast. Reads m[0, words), and m[words] when
// shift > 0 (the word holding the last bit).
__attribute__((target("avx512f,avx512bw"))) inline void avx512_words_to_bools(const word_type* m, int shift,
                                                                            word_type flip, size_type words,
                                                                            bool* out) {
  const auto word = [&](size_type k) -> std::uint64_t {
    return static_cast<std::uint64_t>(funnel_shift(m[k], shift == 0 ? word_type{0} : m[k + 1], shift) ^ flip);
  };
  const __m512i one = _mm512_set1_epi8(1);
  size_type k       = 0;
  for (; k + 2 <= words; k += 2) {
    const std::uint64_t bits = word(k) | word(k + 1) << 32;
    _mm512_storeu_si512(static_cast<void*>(out + 32 * k), _mm512_maskz_mov_epi8(static_cast<__mmask64>(bits), one));
  }
  if (k < words)
    _mm512_mask_storeu_epi8(static_cast<void*>(out + 32 * k), static_cast<__mmask64>(0xFFFFFFFFull),
                            _mm512_maskz_mov_epi8(static_cast<__mmask64>(word(k)), one));
}

inline bool host_has_avx512f() {
  static const bool yes = __builtin_cpu_supports("avx512f");
  return yes;
}

// d[k] = ((s[k] >> shift) | (s[k + 1] << (32 - shift))) ^ fill for k in [0, n), shift in [1, 32):
// reads s[0, n]. Sixteen words a step; the baseline's SSE2 loop, four a step, held a 16-core host's
// unaligned copies to about half of a memcpy's rate from cache.
__attribute__((target("avx512f"))) inline void avx512_shifted_words(word_type* d, const word_type* s, size_type n,
                                                                    int shift, word_type fill) {
  const __m128i right = _mm_cvtsi32_si128(shift), left = _mm_cvtsi32_si128(32 - shift);
  const __m512i flip  = _mm512_set1_epi32(static_cast<int>(fill));
  size_type k         = 0;
  for (; k + 16 <= n; k += 16) {
    const __m512i lo = _mm512_loadu_si512(static_cast<const void*>(s + k));
    const __m512i hi = _mm512_loadu_si512(static_cast<const void*>(s + k + 1));
    const __m512i v  = _mm512_or_si512(_mm512_srl_epi32(lo, right), _mm512_sll_epi32(hi, left));
    _mm512_storeu_si512(static_cast<void*>(d + k), _mm512_xor_si512(v, flip));
  }
  for (; k < n; ++k) d[k] = funnel_shift(s[k], s[k + 1], shift) ^ fill;
}

// avx512_shifted_words (shift 0 included: then only s[0, n) is read) that also returns the set
// bits it wrote, counted while the words are in registers: a counted piece's words are not loaded
// back right after their stores, at other offsets than the stores'.
__attribute__((target("avx512f,avx512vpopcntdq,popcnt"))) inline size_type avx512_copy_words_counted(
    word_type* d, const word_type* s, size_type n, int shift, word_type fill) {
  const __m128i right = _mm_cvtsi32_si128(shift), left = _mm_cvtsi32_si128(32 - shift);
  const __m512i flip  = _mm512_set1_epi32(static_cast<int>(fill));
  __m512i sum         = _mm512_setzero_si512();
  size_type k         = 0;
  for (; k + 16 <= n; k += 16) {
    __m512i v = _mm512_loadu_si512(static_cast<const void*>(s + k));
    if (shift != 0)
      v = _mm512_or_si512(_mm512_srl_epi32(v, right),
                          _mm512_sll_epi32(_mm512_loadu_si512(static_cast<const void*>(s + k + 1)), left));
    v = _mm512_xor_si512(v, flip);
    _mm512_storeu_si512(static_cast<void*>(d + k), v);
    sum = _mm512_add_epi64(sum, _mm512_popcnt_epi64(v));
  }
  auto set = static_cast<size_type>(_mm512_reduce_add_epi64(sum));
  for (; k < n; ++k) {
    d[k] = (shift == 0 ? s[k] : funnel_shift(s[k], s[k + 1], shift)) ^ fill;
    set += __builtin_popcount(d[k]);
  }
  return set;
}

// out[0, words) gathered: bit k of word w is bit (base + j) of m, XORed with `flip` (0 or 1), for
// j = idx[32w + k] when Check finds it in [0, size_bits) (as unsigned), else 0; m null reads as
// ones. Eight rows an instruction: their 64-bit positions, one masked gather of their words (an
// out-of-range row loads nothing), a variable shift and a bit test. Eight rows whose bits all lie
// in the 64 bits from the word of the first one's (a filter's sorted indices) take those two words
// in one load instead: a gather is one load a row. Returns the set bits; the first out-of-range
// row (relative to idx) goes to `first_bad` when it is below it.
template <bool Check, class Index>
__attribute__((target("avx512f,popcnt"))) inline size_type avx512_gather_words(const word_type* m, size_type base,
                                                                             size_type size_bits, const Index* idx,
                                                                             word_type flip, size_type words,
                                                                             word_type* out, size_type& first_bad) {
  static_assert(sizeof(Index) == 4 || sizeof(Index) == 8, "32- or 64-bit indices");
  const __m512i size_v = _mm512_set1_epi64(static_cast<long long>(size_bits));
  const __m512i base_v = _mm512_set1_epi64(static_cast<long long>(base));
  const __m512i low5   = _mm512_set1_epi64(31);
  const __m512i one    = _mm512_set1_epi64(1);
  const __m512i window = _mm512_set1_epi64(64);
  // The source's last word: a two-word load must start before it.
  const std::uint64_t last_word = size_bits > 0 ? static_cast<std::uint64_t>(base + size_bits - 1) >> 5 : 0;
  std::uint64_t set    = 0;
  for (size_type w = 0; w < words; ++w) {
    word_type v = 0;
    for (int g = 0; g < 4; ++g) {
      const Index* at = idx + 32 * w + 8 * g;
      __m512i j;
      if constexpr (sizeof(Index) == 4)
        j = _mm512_cvtepi32_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(at)));
      else
        j = _mm512_loadu_si512(static_cast<const void*>(at));
      const __mmask8 ok = Check ? _mm512_cmplt_epu64_mask(j, size_v) : static_cast<__mmask8>(0xFF);
      if (Check && ok != 0xFF) {
        const size_type row = 32 * w + 8 * g + __builtin_ctz(~static_cast<unsigned>(ok));
        if (row < first_bad) first_bad = row;
      }
      __mmask8 b = ok;
      if (m != nullptr) {
        const __m512i q = _mm512_add_epi64(j, base_v);
        // Rows 0 and 7 within 64 bits, tested in scalars first: random rows skip the vector test.
        const auto row0  = static_cast<std::uint64_t>(at[0]);
        const auto first = (static_cast<std::uint64_t>(base) + row0) >> 5;  // row 0's word
        const bool near  = static_cast<std::uint64_t>(at[7]) - row0 < 64 && ok == 0xFF && first < last_word;
        const __m512i d  = _mm512_sub_epi64(q, _mm512_set1_epi64(static_cast<long long>(first << 5)));
        if (near && _mm512_cmplt_epu64_mask(d, window) == 0xFF) {
          std::uint64_t two;  // words first and first + 1, little-endian
          std::memcpy(&two, m + first, sizeof two);
          b = _mm512_test_epi64_mask(_mm512_srlv_epi64(_mm512_set1_epi64(static_cast<long long>(two)), d), one);
        } else {
          const __m256i word =
              _mm512_mask_i64gather_epi32(_mm256_setzero_si256(), ok, _mm512_srli_epi64(q, 5), m, 4);
          const __m512i bit = _mm512_srlv_epi64(_mm512_cvtepu32_epi64(word), _mm512_and_si512(q, low5));
          b                 = _mm512_mask_test_epi64_mask(ok, bit, one);
        }
      }
      if (flip != 0) b = static_cast<__mmask8>(b ^ ok);
      v |= static_cast<word_type>(b) << (8 * g);
    }
    out[w] = v;
    set += static_cast<std::uint64_t>(__builtin_popcount(v));
  }
  return static_cast<size_type>(set);
}

// VPSHUFBITQMB (AVX512_BITALG): 64 bits picked at once, each from its own 64-bit lane.
inline bool host_has_avx512_bitalg() {
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512bitalg");
  return yes;
}

// Rows at[0, 64) of int32 indices into out[0], out[1] as avx512_gather_words would write them,
// where every row is in [0, limit) and each group of 8 rows (a filter's sorted rows) has its bits
// in the 64 bits from the word of the group's first row, that word before `last` (so the two-word
// load stays in the source): then one gather of the 8 groups' two-word windows and one VPSHUFBITQMB
// pick all 64 bits, where the 8-row form takes 8 window loads and 8 variable shifts. Positions are
// 32-bit, from the word `s` and bit `sh` < 32 that hold source bit 0 (in-range rows fit: an index
// is below 2^31). Returns false, writing nothing, where a row or a group does not qualify.
__attribute__((target("avx512f,avx512bw,avx512bitalg,popcnt"))) inline bool avx512_window_rows(
    const word_type* s, std::uint32_t sh, std::uint32_t limit, std::uint32_t last, const std::int32_t* at,
    std::uint64_t flip_all, word_type* out, std::uint64_t& set) {
  const __m512i shift  = _mm512_set1_epi32(static_cast<int>(sh));
  const __m512i lim    = _mm512_set1_epi32(static_cast<int>(limit));
  const __m512i width  = _mm512_set1_epi32(64);
  const __m512i lastv  = _mm512_set1_epi32(static_cast<int>(last));
  const __m512i leader = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 8, 8, 8, 8, 8, 8, 8, 8);  // a group's first row
  __m512i word[4];
  __m128i pick[4];
  __mmask16 good = 0xFFFF;
  for (int k = 0; k < 4; ++k) {
    const __m512i j = _mm512_loadu_si512(static_cast<const void*>(at + 16 * k));
    const __m512i q = _mm512_add_epi32(j, shift);
    const __m512i w = _mm512_srli_epi32(_mm512_permutexvar_epi32(leader, q), 5);  // the group's first word
    const __m512i d = _mm512_sub_epi32(q, _mm512_slli_epi32(w, 5));                // the row's bit in its window
    good = static_cast<__mmask16>(good & _mm512_cmplt_epu32_mask(j, lim) & _mm512_cmplt_epu32_mask(d, width) &
                                  _mm512_cmplt_epu32_mask(w, lastv));
    word[k] = w;
    pick[k] = _mm512_cvtepi32_epi8(d);
  }
  if (good != 0xFFFF) return false;
  // The 8 groups' first words (lanes 0 and 8 of each vector), in group order.
  const __m512i pairs = _mm512_setr_epi32(0, 8, 16, 24, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m512i lo    = _mm512_permutex2var_epi32(word[0], pairs, word[1]);
  const __m512i hi    = _mm512_permutex2var_epi32(word[2], pairs, word[3]);
  const __m512i firsts =
      _mm512_permutex2var_epi32(lo, _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 0, 0, 0, 0, 0, 0, 0, 0), hi);
  const __m512i windows = _mm512_i32gather_epi64(_mm512_castsi512_si256(firsts), static_cast<const void*>(s), 4);
  __m512i bytes = _mm512_castsi128_si512(pick[0]);
  bytes         = _mm512_inserti32x4(bytes, pick[1], 1);
  bytes         = _mm512_inserti32x4(bytes, pick[2], 2);
  bytes         = _mm512_inserti32x4(bytes, pick[3], 3);
  const std::uint64_t bits = static_cast<std::uint64_t>(_mm512_bitshuffle_epi64_mask(windows, bytes)) ^ flip_all;
  out[0] = static_cast<word_type>(bits);
  out[1] = static_cast<word_type>(bits >> 32);
  set += static_cast<std::uint64_t>(__builtin_popcountll(bits));
  return true;
}

// avx512_gather_words for int32 indices into a present source, where the host has AVX512_BITALG:
// pairs of words whose rows avx512_window_rows takes (a quick test of two groups' spans first, so
// random rows skip it), the others by avx512_gather_words.
template <bool Check>
__attribute__((target("avx512f,avx512bw,avx512bitalg,popcnt"))) inline size_type avx512_windowed_gather_words(
    const word_type* m, size_type base, size_type size_bits, const std::int32_t* idx, word_type flip, size_type words,
    word_type* out, size_type& first_bad) {
  const word_type* s       = m + base / word_bits;
  const auto sh            = static_cast<std::uint32_t>(base % word_bits);
  const auto limit         = static_cast<std::uint32_t>(std::min<size_type>(size_bits, size_type{1} << 31));
  // The word holding the source's last bit, from s (a window must start before it).
  const size_type last_word = size_bits > 0 ? (static_cast<size_type>(sh) + size_bits - 1) / word_bits : 0;
  const auto last          = static_cast<std::uint32_t>(std::min<size_type>(last_word, size_type{0xffffffff}));
  const std::uint64_t flip_all = flip != 0 ? ~std::uint64_t{0} : 0;
  std::uint64_t set = 0;
  size_type w       = 0;
  while (w < words) {
    const std::int32_t* at = idx + w * word_bits;
    if (w + 2 <= words && static_cast<std::uint32_t>(at[7]) - static_cast<std::uint32_t>(at[0]) < 64u &&
        static_cast<std::uint32_t>(at[63]) - static_cast<std::uint32_t>(at[56]) < 64u && avx512_window_rows(s, sh, limit, last, at, flip_all, out + w, set)) {
      w += 2;
      continue;
    }
    const size_type n = std::min<size_type>(2, words - w);
    size_type bad     = first_bad - w * word_bits;
    set += static_cast<std::uint64_t>(avx512_gather_words<Check>(m, base, size_bits, at, flip, n, out + w, bad));
    if (Check) first_bad = bad + w * word_bits;
    w += n;
  }
  return static_cast<size_type>(set);
}
#endif

#if defined(KMASK_HOST_POPCNT)
// Set bits of words [lo, hi) of `m` by the widest form the processor has; only where
// host_has_popcnt().
inline size_type host_popcount_words(const word_type* m, size_type lo, size_type hi) {
#if defined(KMASK_HOST_AVX512)
  if (hi - lo >= 16 && host_has_avx512_popcnt()) return avx512_popcnt_words(m, lo, hi);
#endif
  return popcnt_words(m, lo, hi);
}

// Set bits of bits [lo, hi) of `m` (absolute positions, lo < hi): its words counted whole, less
// the edge words' bits outside the range by popcnt (the baseline's portable count of those two
// words was a third of a short range's time); only where host_has_popcnt().
__attribute__((target("popcnt"))) inline size_type host_popcount_range(const word_type* m, size_type lo,
                                                                      size_type hi) {
  const size_type first = lo / word_bits, stop = (hi - 1) / word_bits + 1;
  const auto head = static_cast<unsigned>(lo % word_bits), tail = static_cast<unsigned>(hi % word_bits);
  int outside = 0;
  if (head != 0) outside += __builtin_popcount(m[first] & ((word_type{1} << head) - 1));
  if (tail != 0) outside += __builtin_popcount(m[stop - 1] & ~((word_type{1} << tail) - 1));
  return host_popcount_words(m, first, stop) - outside;
}
#endif

}  // namespace detail
}  // namespace kmask

#endif
