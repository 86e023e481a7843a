// count_set_bits, count_unset_bits, segmented_count_set_bits, segmented_count_unset_bits.

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
