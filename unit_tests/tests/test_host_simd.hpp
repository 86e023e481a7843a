// The host's wide loops (detail/host_simd.hpp, move_bits_kernel.hpp's copy_and_count_on_host),
// checked directly against the reference: the calls reach them only where the processor has the
// instructions and only for some shapes, so a wrong tail or shift could hide behind the generic
// loops elsewhere. Each is given exactly the bytes it may read, and poison after what it may write.

namespace kmask_host_simd_test {

// Word counts around the loops' steps (2 words, 32 words, 2048-word blocks) and a few random ones.
inline std::vector<size_type> word_counts(std::mt19937_64& rng) {
  std::vector<size_type> n = {0, 1, 2, 3, 15, 16, 17, 31, 32, 33, 47, 48, 63, 64, 65, 2047, 2048, 2049, 4097};
  for (int i = 0; i < 12; ++i) n.push_back(static_cast<size_type>(rng() % 300));
  return n;
}

}  // namespace kmask_host_simd_test

TEST(TEST_CATEGORY, host_wide_bytes_to_words_and_back) {
#if !defined(KMASK_HOST_AVX512)
  GTEST_SKIP() << "the AVX-512 byte loops are not compiled in (not an x86-64 host compilation by GCC >= 8 or "
                  "Clang >= 6); the calls' generic loops are checked by the make-masks tests";
#else
  if (!kmask::detail::host_has_avx512bw())
    GTEST_SKIP() << "this processor has no AVX512F + AVX512BW; the calls' generic loops are checked by the "
                    "make-masks tests";
  std::mt19937_64 rng(base_seed() + 61);
  for (const size_type words : kmask_host_simd_test::word_counts(rng)) {
    // Bytes to words: arbitrary non-zero bytes, exactly 32 * words of them.
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(32 * words));
    for (auto& b : bytes) b = rng() % 3 == 0 ? std::uint8_t{0} : static_cast<std::uint8_t>(1 + rng() % 255);
    const ref::result expect = ref::from_bytes(bytes);
    std::vector<word_type> out(static_cast<std::size_t>(words) + 2, poison);
    const size_type set = kmask::detail::avx512_bytes_to_words(bytes.data(), words, out.data());
    ASSERT_EQ(set, 32 * words - expect.nulls) << "bytes to words, " << words << " words; " << seed_note(base_seed());
    for (size_type w = 0; w < words; ++w)
      ASSERT_EQ(out[static_cast<std::size_t>(w)], expect.mask[static_cast<std::size_t>(w)]) << "word " << w << " of " << words;
    ASSERT_EQ(out[static_cast<std::size_t>(words)], poison) << "wrote past " << words << " words";
    ASSERT_EQ(out[static_cast<std::size_t>(words) + 1], poison) << "wrote past " << words << " words";

    // Words to bools at every shift, plain and flipped: the source holds exactly the words the
    // bits span (one more when shifted).
    for (int shift = 0; shift < 32; ++shift) {
      for (const word_type flip : {word_type{0}, ~word_type{0}}) {
        const ref::words m = random_words(rng, static_cast<std::size_t>(words) + (shift > 0 && words > 0 ? 1 : 0));
        std::vector<std::uint8_t> bools(static_cast<std::size_t>(32 * words) + 64, 7);
        kmask::detail::avx512_words_to_bools(m.data(), shift, flip, words, reinterpret_cast<bool*>(bools.data()));
        const auto want = ref::to_bools(&m, shift, shift + 32 * words);
        for (size_type i = 0; i < 32 * words; ++i) {
          const int v = want[static_cast<std::size_t>(i)] ^ (flip != 0 ? 1 : 0);
          ASSERT_EQ(static_cast<int>(bools[static_cast<std::size_t>(i)]), v)
              << "words to bools, " << words << " words, shift " << shift << ", flip " << (flip != 0) << ", row " << i
              << "; " << seed_note(base_seed());
        }
        for (std::size_t i = static_cast<std::size_t>(32 * words); i < bools.size(); ++i)
          ASSERT_EQ(bools[i], 7) << "wrote byte " << i << " past " << 32 * words << " booleans";
      }
    }
  }
#endif
}

TEST(TEST_CATEGORY, host_copy_then_count_blocks) {
#if !defined(KMASK_HOST_POPCNT)
  GTEST_SKIP() << "the popcnt copy-and-count loop is not compiled in (not an x86-64 host compilation by GCC or "
                  "Clang); the calls' generic loop is checked by the move-bits tests";
#else
  if (!kmask::detail::host_has_popcnt())
    GTEST_SKIP() << "this processor has no popcnt; the calls' generic loop is checked by the move-bits tests";
  std::mt19937_64 rng(base_seed() + 62);
  for (const size_type n : kmask_host_simd_test::word_counts(rng)) {
    for (int shift = 0; shift < 32; shift += (n > 300 ? 7 : 1)) {
      for (const word_type fill : {word_type{0}, ~word_type{0}}) {
        const ref::words s = random_words(rng, static_cast<std::size_t>(n) + (shift > 0 ? 1 : 0));
        ref::words want(static_cast<std::size_t>(n), 0);
        for (size_type i = 0; i < 32 * n; ++i) ref::set_bit(want, i, ref::get_bit(s, shift + i) ^ (fill != 0 ? 1 : 0));
        // The call's choice (AVX-512 in registers where the processor has it), and the blocks form.
        for (const bool blocks : {false, true}) {
          std::vector<word_type> d(static_cast<std::size_t>(n) + 1, poison);
          const size_type set = blocks ? kmask::detail::copy_then_count_blocks_on_host(d.data(), s.data(), n, shift, fill)
                                       : kmask::detail::copy_and_count_on_host(d.data(), s.data(), n, shift, fill);
          for (size_type k = 0; k < n; ++k)
            ASSERT_EQ(d[static_cast<std::size_t>(k)], want[static_cast<std::size_t>(k)])
                << "word " << k << " of " << n << ", shift " << shift << ", fill " << (fill != 0) << ", blocks "
                << blocks << "; " << seed_note(base_seed());
          ASSERT_EQ(d[static_cast<std::size_t>(n)], poison) << "wrote past " << n << " words, blocks " << blocks;
          ASSERT_EQ(set, ref::count_set(want, 0, 32 * n))
              << n << " words, shift " << shift << ", fill " << (fill != 0) << ", blocks " << blocks;
        }
      }
    }
  }
  // The call and the blocks' count pick AVX-512 where the processor has VPOPCNTDQ; say so when it has not.
  std::vector<std::string> skipped;
#if !defined(KMASK_HOST_AVX512)
  skipped.push_back("its AVX-512 count (not compiled in)");
#else
  if (!kmask::detail::host_has_avx512_popcnt()) skipped.push_back("its AVX-512 count (no AVX512F + VPOPCNTDQ here)");
#endif
  if (!skipped.empty())
    GTEST_SKIP() << "checked with the popcnt count; not checked: " << join_skipped(skipped);
#endif
}

namespace kmask_host_simd_test {

// avx512_gather_words against the reference for one index type and policy: in-range, negative and
// too-large indices (Check), plain and inverted sources, an absent source, offset sources.
template <class Index, bool Check>
void check_wide_gather(std::mt19937_64& rng) {
#if defined(KMASK_HOST_AVX512)
  // Index patterns: random (every group gathered); a filter's sorted rows (i + i / 2 from a random
  // start, wrapping: groups in one 64-bit window, the wrap's not); groups clustered within 0-69
  // bits of a random point, in any order (inside the window or just past it); the same clustered
  // in the source's last 70 bits (the two-word load must not pass the source's last word); runs of
  // 8 rows a step of -1 to 10 bits apart, with gaps between the runs (8 rows inside their first
  // word's 64-bit window, or just past it, or out of order), anywhere and in the last 200 bits.
  // 32-bit indices also go through avx512_windowed_gather_words where the processor has BITALG.
  for (int pattern = 0; pattern < 6; ++pattern) {
    for (const size_type words : word_counts(rng)) {
      const size_type size_bits = 1 + static_cast<size_type>(rng() % 3000);
      const size_type begin     = static_cast<size_type>(rng() % 100);
      const ref::words src      = random_words(rng, static_cast<std::size_t>(kmask::num_words(begin + size_bits)));
      std::vector<Index> idx(static_cast<std::size_t>(32 * words));
      const bool some_bad = Check && rng() % 2 == 0;
      const auto size     = static_cast<std::uint64_t>(size_bits);
      const std::uint64_t start = rng() % size, spread = 1 + rng() % 70, tail = std::min<std::uint64_t>(size, 70);
      std::uint64_t center = 0;
      const std::int64_t step = static_cast<std::int64_t>(rng() % 12) - 1;
      const std::uint64_t end_zone = std::min<std::uint64_t>(size, 200);
      std::int64_t run = 0;
      for (std::size_t i = 0; i < idx.size(); ++i) {
        if (i % 8 == 0) center = pattern == 3 ? size - tail + rng() % tail : rng() % size;
        if (i % 8 == 0) run = static_cast<std::int64_t>(pattern == 5 ? size - end_zone + rng() % end_zone : rng() % size);
        std::uint64_t v = rng() % size;
        if (pattern == 1) v = (start + i + i / 2) % size;
        if (pattern == 2 || pattern == 3) v = (center + rng() % spread) % size;
        if (pattern >= 4) {
          const std::int64_t at = run + step * static_cast<std::int64_t>(i % 8);
          v = static_cast<std::uint64_t>(((at % static_cast<std::int64_t>(size)) + static_cast<std::int64_t>(size)) %
                                         static_cast<std::int64_t>(size));
        }
        idx[i]       = static_cast<Index>(v);
        const auto r = rng() % 100;
        if (some_bad && r == 0) idx[i] = static_cast<Index>(-1 - static_cast<Index>(rng() % 5));
        if (some_bad && r == 1) idx[i] = static_cast<Index>(size_bits + static_cast<size_type>(rng() % 5));
      }
      std::vector<std::int64_t> as64(idx.begin(), idx.end());
      for (const bool absent : {false, true}) {
        for (const word_type flip : {word_type{0}, word_type{1}}) {
          std::int64_t ref_bad = -1;
          ref::result want     = ref::gather(absent ? nullptr : &src, begin, size_bits, as64, &ref_bad);
          if (flip != 0)  // an inverted source: its in-range bits complemented
            for (std::size_t i = 0; i < as64.size(); ++i)
              if (as64[i] >= 0 && as64[i] < size_bits) ref::set_bit(want.mask, static_cast<std::int64_t>(i), 1 - ref::get_bit(want.mask, static_cast<std::int64_t>(i)));
          for (const bool windowed : {false, true}) {
            if (windowed && (sizeof(Index) != 4 || absent || !kmask::detail::host_has_avx512_bitalg())) continue;
            std::vector<word_type> out(static_cast<std::size_t>(words) + 1, poison);
            size_type first_bad = std::numeric_limits<size_type>::max();
            size_type set       = 0;
            if constexpr (sizeof(Index) == 4) {
              if (windowed)
                set = kmask::detail::avx512_windowed_gather_words<Check>(src.data(), begin, size_bits, idx.data(), flip,
                                                                         words, out.data(), first_bad);
            }
            if (!windowed)
              set = kmask::detail::avx512_gather_words<Check>(absent ? nullptr : src.data(), begin, size_bits,
                                                              idx.data(), flip, words, out.data(), first_bad);
            for (size_type w = 0; w < words; ++w)
              ASSERT_EQ(out[static_cast<std::size_t>(w)], want.mask[static_cast<std::size_t>(w)])
                  << "word " << w << " of " << words << ", " << sizeof(Index) * 8 << "-bit indices, check " << Check
                  << ", absent " << absent << ", flip " << flip << ", index pattern " << pattern << ", step " << step
                  << ", windowed " << windowed << "; " << seed_note(base_seed());
            ASSERT_EQ(out[static_cast<std::size_t>(words)], poison) << "wrote past " << words << " words";
            ASSERT_EQ(set, ref::count_set(want.mask, 0, 32 * words)) << words << " words, windowed " << windowed;
            if (Check)
              ASSERT_EQ(first_bad, ref_bad < 0 ? std::numeric_limits<size_type>::max() : ref_bad)
                  << words << " words, windowed " << windowed;
          }
        }
      }
    }
  }
#else
  (void)rng;
#endif
}

}  // namespace kmask_host_simd_test

TEST(TEST_CATEGORY, host_wide_gathers) {
#if !defined(KMASK_HOST_AVX512)
  GTEST_SKIP() << "the AVX-512 gather loop is not compiled in (not an x86-64 host compilation by GCC >= 8 or "
                  "Clang >= 6); the calls' generic loops are checked by the make-masks tests";
#else
  if (!kmask::detail::host_has_avx512f())
    GTEST_SKIP() << "this processor has no AVX512F; the calls' generic loops are checked by the make-masks tests";
  std::mt19937_64 rng(base_seed() + 64);
  kmask_host_simd_test::check_wide_gather<std::int32_t, true>(rng);
  kmask_host_simd_test::check_wide_gather<std::int32_t, false>(rng);
  kmask_host_simd_test::check_wide_gather<std::int64_t, true>(rng);
  kmask_host_simd_test::check_wide_gather<std::int64_t, false>(rng);
#endif
}

TEST(TEST_CATEGORY, host_wide_shifted_copies) {
#if !defined(KMASK_HOST_AVX512)
  GTEST_SKIP() << "the AVX-512 shifted copy is not compiled in (not an x86-64 host compilation by GCC >= 8 or "
                  "Clang >= 6); the calls' generic loop is checked by the move-bits tests";
#else
  if (!kmask::detail::host_has_avx512f())
    GTEST_SKIP() << "this processor has no AVX512F; the calls' generic loop is checked by the move-bits tests";
  std::mt19937_64 rng(base_seed() + 65);
  for (const size_type n : kmask_host_simd_test::word_counts(rng)) {
    for (int shift = 1; shift < 32; ++shift) {
      for (const word_type fill : {word_type{0}, ~word_type{0}}) {
        const ref::words s = random_words(rng, static_cast<std::size_t>(n) + 1);  // exactly s[0, n]
        std::vector<word_type> d(static_cast<std::size_t>(n) + 1, poison);
        kmask::detail::avx512_shifted_words(d.data(), s.data(), n, shift, fill);
        for (size_type k = 0; k < n; ++k) {
          word_type want = 0;
          for (int b = 0; b < 32; ++b)
            want |= static_cast<word_type>(ref::get_bit(s, 32 * k + shift + b) ^ (fill != 0 ? 1 : 0)) << b;
          ASSERT_EQ(d[static_cast<std::size_t>(k)], want)
              << "word " << k << " of " << n << ", shift " << shift << ", fill " << (fill != 0) << "; "
              << seed_note(base_seed());
        }
        ASSERT_EQ(d[static_cast<std::size_t>(n)], poison) << "wrote past " << n << " words";
      }
    }
  }
#endif
}
