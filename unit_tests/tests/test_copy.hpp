// copy_bitmask.

TEST(TEST_CATEGORY, copy_bitmask_random) {
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 21;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 60; ++iter) {
    const std::size_t words = 1 + rng() % 400;
    const auto host         = random_words(rng, words);
    const auto dev          = to_device<TEST_EXECSPACE>(host);
    const size_type total   = static_cast<size_type>(words) * 32;
    size_type b             = static_cast<size_type>(rng() % total);
    size_type e             = b + static_cast<size_type>(rng() % (total - b + 1));
    if (iter % 9 == 0) e = b;
    if (iter % 4 == 0) e = total;
    if (b > e) b = e;
    SCOPED_TRACE(::testing::Message() << "copy [" << b << ", " << e << ")");
    const auto got      = to_host(kmask::copy_bitmask(exec, dev, b, e));
    const auto expected = ref::slice(host, b, e);
    ASSERT_EQ(static_cast<size_type>(got.size()), kmask::allocation_size_bytes(e - b) / 4);
    ASSERT_TRUE(same_words(expected, got, 0));
    for (std::size_t w = expected.size(); w < got.size(); ++w) ASSERT_EQ(got[w], 0u) << "padding word " << w;
  }
}
