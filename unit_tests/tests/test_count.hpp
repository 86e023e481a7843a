// count_set_bits, count_unset_bits, segmented_count_set_bits, segmented_count_unset_bits and their
// in-place forms.

TEST(TEST_CATEGORY, count_bits_random_ranges) {
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 11;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 60; ++iter) {
    const std::size_t words = 1 + rng() % 200;
    const auto host         = random_words(rng, words);
    const auto dev          = to_device<TEST_EXECSPACE>(host);
    const size_type total   = static_cast<size_type>(words) * 32;
    size_type b             = static_cast<size_type>(rng() % total);
    size_type e             = b + static_cast<size_type>(rng() % (total - b + 1));
    if (iter % 7 == 0) b = e;  // empty range
    if (iter % 5 == 0) e = total;  // to the very end of the view
    if (b > e) b = e;
    SCOPED_TRACE(::testing::Message() << "range [" << b << ", " << e << ") of " << total << " bits");
    EXPECT_EQ(kmask::count_set_bits(exec, dev, b, e), ref::count_set(host, b, e));
    EXPECT_EQ(kmask::count_unset_bits(exec, dev, b, e), (e - b) - ref::count_set(host, b, e));
  }
}

// Masks given by pointer at every word offset from an aligned allocation, so the GPU kernel's
// words before its first 16-byte unit take every count from 0 to 3, with ranges that cut units
// anywhere, including masks shorter than one unit.
TEST(TEST_CATEGORY, count_bits_pointer_masks_at_every_word_alignment) {
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 14;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 48; ++iter) {
    const std::size_t skew  = static_cast<std::size_t>(iter % 4);
    const std::size_t words = 1 + rng() % (iter % 3 == 0 ? 7 : 3000);
    const auto host         = random_words(rng, words + skew);
    const auto dev          = to_device<TEST_EXECSPACE>(host);
    const std::vector<word_type> seen(host.begin() + static_cast<std::ptrdiff_t>(skew), host.end());
    const kmask::source_mask m{dev.data() + skew, static_cast<size_type>(words), 0};
    const size_type total = static_cast<size_type>(words) * 32;
    size_type b = static_cast<size_type>(rng() % total), e = b + static_cast<size_type>(rng() % (total - b + 1));
    if (iter % 5 == 0) b = 0, e = total;
    SCOPED_TRACE(::testing::Message() << "skew " << skew << " words, range [" << b << ", " << e << ") of " << total);
    EXPECT_EQ(kmask::count_set_bits(exec, m, b, e), ref::count_set(seen, b, e));
    EXPECT_EQ(kmask::count_unset_bits(exec, m, b, e), (e - b) - ref::count_set(seen, b, e));
  }
}

TEST(TEST_CATEGORY, segmented_count_random_ranges) {
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 12;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 20; ++iter) {
    const std::size_t words = 1 + rng() % (iter % 4 == 0 ? 20000 : 300);
    const auto host         = random_words(rng, words);
    const auto dev          = to_device<TEST_EXECSPACE>(host);
    const size_type total   = static_cast<size_type>(words) * 32;
    std::vector<size_type> ranges;
    const int n = static_cast<int>(rng() % 50);
    for (int r = 0; r < n; ++r) {
      size_type b = static_cast<size_type>(rng() % (total + 1));
      size_type e = b + static_cast<size_type>(rng() % (total - b + 1));
      if (r % 6 == 0) e = b;
      ranges.push_back(b);
      ranges.push_back(e);
    }
    if (n > 0 && iter % 2 == 0) {  // one range over everything
      ranges[0] = 0;
      ranges[1] = total;
    }
    const auto set   = counts_to_host(kmask::segmented_count_set_bits(exec, dev, ranges));
    const auto unset = counts_to_host(kmask::segmented_count_unset_bits(exec, dev, ranges));
    ASSERT_EQ(set.size(), ranges.size() / 2);
    ASSERT_EQ(unset.size(), ranges.size() / 2);
    for (std::size_t r = 0; r < set.size(); ++r) {
      const size_type expect = ref::count_set(host, ranges[2 * r], ranges[2 * r + 1]);
      EXPECT_EQ(set[r], expect) << "range " << r << " [" << ranges[2 * r] << ", " << ranges[2 * r + 1] << ")";
      EXPECT_EQ(unset[r], ranges[2 * r + 1] - ranges[2 * r] - expect) << "range " << r;
    }
  }
}

TEST(TEST_CATEGORY, segmented_count_many_ranges) {
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 13;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  const auto host = random_words(rng, 3000);
  const auto dev  = to_device<TEST_EXECSPACE>(host);
  std::vector<size_type> ranges;
  for (int r = 0; r < 70000; ++r) {
    const size_type b = static_cast<size_type>(rng() % 90000);
    ranges.push_back(b);
    ranges.push_back(b + static_cast<size_type>(rng() % 100));
  }
  const auto set = counts_to_host(kmask::segmented_count_set_bits(exec, dev, ranges));
  for (std::size_t r = 0; r < set.size(); ++r)
    ASSERT_EQ(set[r], ref::count_set(host, ranges[2 * r], ranges[2 * r + 1])) << "range " << r;
  EXPECT_EQ(counts_to_host(kmask::segmented_count_set_bits(exec, dev, {})).size(), 0u);
}

// The in-place forms write exactly counts(0 .. n-1): the entries past them keep their poison; the
// raw form counts from the source's begin bit; an absent mask counts as all valid.
TEST(TEST_CATEGORY, inplace_segmented_count_writes_only_its_counts) {
  TEST_EXECSPACE exec;
  using MS        = typename TEST_EXECSPACE::memory_space;
  const auto seed = base_seed() + 14;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 12; ++iter) {
    const std::size_t words = 1 + rng() % (iter % 3 == 0 ? 5000 : 200);
    const auto host         = random_words(rng, words);
    const auto dev          = to_device<TEST_EXECSPACE>(host);
    const size_type total   = static_cast<size_type>(words) * 32;
    const size_type shift   = static_cast<size_type>(rng() % 40) % (total + 1);  // the raw form's begin bit
    std::vector<size_type> ranges;
    const int n = static_cast<int>(rng() % 40);
    for (int r = 0; r < n; ++r) {
      const size_type b = static_cast<size_type>(rng() % (total - shift + 1));
      ranges.push_back(b);
      ranges.push_back(r % 5 == 0 ? b : b + static_cast<size_type>(rng() % (total - shift - b + 1)));
    }
    const std::size_t extra = 3;
    Kokkos::View<size_type*, MS> set("set", ranges.size() / 2 + extra), unset("unset", ranges.size() / 2 + extra),
        absent("absent", ranges.size() / 2 + extra);
    Kokkos::deep_copy(set, size_type{-777});
    Kokkos::deep_copy(unset, size_type{-777});
    Kokkos::deep_copy(absent, size_type{-777});
    kmask::inplace_segmented_count_set_bits(exec, dev, ranges, set);
    kmask::inplace_segmented_count_unset_bits(exec, kmask::source_mask{dev.data(), static_cast<size_type>(words), shift},
                                              ranges, unset);
    kmask::inplace_segmented_count_set_bits(exec, kmask::source_mask{nullptr, 0, 0}, ranges, absent);
    exec.fence();
    const auto s = counts_to_host(set), u = counts_to_host(unset), a = counts_to_host(absent);
    for (std::size_t r = 0; r < ranges.size() / 2; ++r) {
      const size_type b = ranges[2 * r], e = ranges[2 * r + 1];
      EXPECT_EQ(s[r], ref::count_set(host, b, e)) << "range " << r;
      EXPECT_EQ(u[r], (e - b) - ref::count_set(host, shift + b, shift + e)) << "range " << r << ", shift " << shift;
      EXPECT_EQ(a[r], e - b) << "range " << r;
    }
    for (std::size_t r = ranges.size() / 2; r < s.size(); ++r) {
      EXPECT_EQ(s[r], -777) << "entry " << r << " past the ranges was written";
      EXPECT_EQ(u[r], -777) << "entry " << r << " past the ranges was written";
      EXPECT_EQ(a[r], -777) << "entry " << r << " past the ranges was written";
    }
  }
}

// Every form of the segmented count kernel, by the shapes that pick them on a GPU: ranges of a few
// words (a thread each), ranges that each fit one team (which writes its count), many and few of
// them, and ranges of several teams (per-range tickets), each with empty ranges where
// the form allows them; set and unset counts, from a sliced, a pointer-skewed (teams starting off
// 16-byte boundaries) and an inverted source, into poisoned counts.
TEST(TEST_CATEGORY, segmented_count_every_kernel_form) {
  TEST_EXECSPACE exec;
  using MS        = typename TEST_EXECSPACE::memory_space;
  const auto seed = base_seed() + 15;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  const std::size_t words = 200000;  // ranges of more than the 2^16 words of a GPU team's most passes
  const auto host         = random_words(rng, words);
  const auto dev          = to_device<TEST_EXECSPACE>(host);
  const size_type total   = static_cast<size_type>(words) * 32;
  struct form {
    const char* name;
    int ranges;
    size_type min_bits, max_bits;
    bool empties;
  };
  const form forms[] = {{"a few words each", 300, 0, 64 * 32, true},
                        {"one team each, many ranges", 40, 65 * 32, 8000 * 32, false},
                        {"one team each, few ranges", 6, 65 * 32, 8000 * 32, false},
                        {"several teams each, many ranges", 24, 0, 190000 * 32, true},
                        {"several teams each, few ranges", 5, 70000 * 32, 190000 * 32, true}};
  struct start {
    std::size_t skew;  // words from the allocation's start
    size_type shift;   // the source's begin bit
  };
  for (const form& f : forms) {
    for (const start at : {start{0, 0}, start{0, 13}, start{1, 0}, start{3, 45}}) {
      const size_type shift = at.shift + static_cast<size_type>(at.skew) * 32;
      SCOPED_TRACE(::testing::Message() << f.name << ", source " << at.skew << " words in, begin bit " << at.shift);
      std::vector<size_type> ranges;
      for (int r = 0; r < f.ranges; ++r) {
        size_type len = f.min_bits + static_cast<size_type>(rng() % static_cast<std::uint64_t>(f.max_bits - f.min_bits + 1));
        if (f.empties && r % 7 == 3) len = 0;
        len = std::min(len, total - shift);
        const size_type b = static_cast<size_type>(rng() % static_cast<std::uint64_t>(total - shift - len + 1));
        ranges.push_back(b);
        ranges.push_back(b + len);
      }
      const std::size_t n = ranges.size() / 2;
      Kokkos::View<size_type*, MS> set("set", n + 1), unset_inv("unset_inv", n + 1);
      Kokkos::deep_copy(set, size_type{-777});
      Kokkos::deep_copy(unset_inv, size_type{-777});
      const kmask::source_mask src{dev.data() + at.skew, static_cast<size_type>(words - at.skew), at.shift};
      kmask::inplace_segmented_count_set_bits(exec, src, ranges, set);
      // The unset bits of the complement are the set bits.
      kmask::inplace_segmented_count_unset_bits(exec, kmask::inverted(src), ranges, unset_inv);
      exec.fence();
      const auto s = counts_to_host(set), ui = counts_to_host(unset_inv);
      for (std::size_t r = 0; r < n; ++r) {
        const size_type expect = ref::count_set(host, shift + ranges[2 * r], shift + ranges[2 * r + 1]);
        ASSERT_EQ(s[r], expect) << "range " << r << " [" << ranges[2 * r] << ", " << ranges[2 * r + 1] << ")";
        ASSERT_EQ(ui[r], expect) << "inverted, range " << r;
      }
      EXPECT_EQ(s[n], -777) << "the entry past the ranges was written";
      EXPECT_EQ(ui[n], -777) << "the entry past the ranges was written";
    }
  }
}

// The host's counting loops (count_words_on_cpu and each instruction-set form it picks from at run
// time) against the bit reference, over runs of every length to a few hundred words at every
// start, ranges cut inside the end words. A form the processor lacks is skipped, and says so.
TEST(TEST_CATEGORY, host_counting_loops_of_every_instruction_set) {
  std::mt19937_64 rng(base_seed() + 16);
  const auto host = random_words(rng, 1200);
  std::vector<std::string> skipped;
  for (int iter = 0; iter < 400; ++iter) {
    const size_type first = static_cast<size_type>(rng() % 300), stop = first + static_cast<size_type>(rng() % 700);
    const size_type begin = first * 32 + static_cast<size_type>(rng() % 32);
    const size_type end   = std::max(begin, stop * 32 - static_cast<size_type>(rng() % 32));
    const size_type expect = ref::count_set(host, begin, end);
    ASSERT_EQ(kmask::detail::count_words_on_cpu(host.data(), first, stop, begin, end), expect)
        << "words [" << first << ", " << stop << "), bits [" << begin << ", " << end << ")";
    const size_type whole = ref::count_set(host, first * 32, stop * 32);
#if defined(KMASK_HOST_POPCNT)
    if (kmask::detail::host_has_popcnt())
      ASSERT_EQ(kmask::detail::popcnt_words(host.data(), first, stop), whole) << "popcnt, words [" << first << ", " << stop << ")";
#endif
#if defined(KMASK_HOST_AVX512)
    if (kmask::detail::host_has_avx512_popcnt())
      ASSERT_EQ(kmask::detail::avx512_popcnt_words(host.data(), first, stop), whole)
          << "AVX-512, words [" << first << ", " << stop << ")";
#endif
  }
#if !defined(KMASK_HOST_POPCNT)
  skipped.push_back("popcnt (not an x86-64 GCC or Clang build)");
#else
  if (!kmask::detail::host_has_popcnt()) skipped.push_back("popcnt (this processor has no popcnt)");
#endif
#if !defined(KMASK_HOST_AVX512)
  skipped.push_back("AVX-512 (not compiled in: not an x86-64 host compilation by GCC >= 8 or Clang >= 6)");
#else
  if (!kmask::detail::host_has_avx512_popcnt()) skipped.push_back("AVX-512 (this processor has no AVX512F + VPOPCNTDQ)");
#endif
  if (!skipped.empty()) GTEST_SKIP() << "the generic loop was checked; not checked: " << join_skipped(skipped);
}

// The one-word ticket count_set_bits' GPU form adds its parts with (team_total.hpp): parts in any
// order, totals up to the 2^47 bound, the total written by the last part only and the word left zero.
TEST(TEST_CATEGORY, packed_team_total_writes_the_sum_once_and_clears_its_word) {
  const auto seed = base_seed() + 17;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  using kmask::detail::add_packed_part;
  using kmask::detail::packs_team_parts;
  EXPECT_TRUE(packs_team_parts((size_type{1} << 15) - 1, (size_type{1} << 47) - 1));
  EXPECT_FALSE(packs_team_parts(size_type{1} << 15, 1));
  EXPECT_FALSE(packs_team_parts(1, size_type{1} << 47));
  for (size_type parts : {size_type{1}, size_type{2}, size_type{777}, (size_type{1} << 15) - 1}) {
    const size_type most = ((size_type{1} << 47) - 1) / parts;  // so the sum stays below 2^47
    std::vector<size_type> part(static_cast<std::size_t>(parts));
    size_type sum = 0;
    for (auto& p : part) p = static_cast<size_type>(rng() % static_cast<std::uint64_t>(most + 1));
    part.back() = most;  // a part at its bound
    for (size_type p : part) sum += p;
    size_type scratch[2] = {0, 0}, out = -777;
    for (std::size_t i = 0; i < part.size(); ++i) {
      add_packed_part(scratch, parts, part[i], &out);
      if (i + 1 < part.size()) ASSERT_EQ(out, -777) << "written before the last of " << parts << " parts";
    }
    EXPECT_EQ(out, sum) << parts << " parts";
    EXPECT_EQ(scratch[0], 0) << "the word is left for the next launch";
    EXPECT_EQ(scratch[1], 0) << "the second word is not touched";
  }
}
