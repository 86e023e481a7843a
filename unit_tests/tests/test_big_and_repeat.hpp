// Masks longer than 2^32 bits, and bit-identical results across repeated runs.

namespace {
// A cheap deterministic word pattern for huge masks (an xorshift of the index).
KOKKOS_INLINE_FUNCTION word_type pattern(size_type w, word_type salt) {
  std::uint64_t x = static_cast<std::uint64_t>(w) * 0x9E3779B97F4A7C15ull + salt;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 32;
  return static_cast<word_type>(x);
}

template <class ExecSpace>
void fill_pattern(const ExecSpace& exec, const view_t<ExecSpace>& v, word_type salt) {
  Kokkos::parallel_for(
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(exec, 0, v.extent(0)),
      KOKKOS_LAMBDA(size_type w) { v(w) = pattern(w, salt); });
}
}  // namespace

TEST(TEST_CATEGORY, masks_longer_than_2_to_the_32_bits) {
  if (std::getenv("KMASK_TEST_SKIP_HUGE")) GTEST_SKIP() << "KMASK_TEST_SKIP_HUGE is set (needs ~1.6 GB)";
  TEST_EXECSPACE exec;
  const size_type bits   = (size_type{1} << 32) + 77;  // crosses the 32-bit boundary, odd tail
  const size_type offset = 19;
  const size_type words  = kmask::num_words(bits + offset);
  view_t<TEST_EXECSPACE> a(Kokkos::view_alloc(Kokkos::WithoutInitializing, "a"), words);
  view_t<TEST_EXECSPACE> b(Kokkos::view_alloc(Kokkos::WithoutInitializing, "b"), words);
  fill_pattern(exec, a, 1);
  fill_pattern(exec, b, 2);
  const std::vector<Kokkos::View<const word_type*, typename TEST_EXECSPACE::memory_space>> masks{a, b};
  const auto result = kmask::binop(exec, kmask::bit_and{}, masks, {offset, 0}, bits);

  // Expected, word by word on the host: the pattern of a shifted by `offset`, AND b.
  const auto out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, result.first);
  size_type expect_nulls = 0;
  for (size_type w = 0; w < kmask::num_words(bits); ++w) {
    const word_type lo = pattern(w, 1), hi = pattern(w + 1, 1);
    word_type e        = ((lo >> offset) | (hi << (32 - offset))) & pattern(w, 2);
    const size_type valid_bits = std::min<size_type>(32, bits - 32 * w);
    if (valid_bits < 32) e &= (word_type{1} << valid_bits) - 1;
    if (out(w) != e) {
      ADD_FAILURE() << "word " << w << " expected 0x" << std::hex << e << " got 0x" << out(w);
      return;
    }
    expect_nulls += valid_bits - __builtin_popcount(e);
  }
  EXPECT_EQ(result.second, expect_nulls);
  // Counting across the 2^32 boundary, checked against the bit reference on a window around it.
  const size_type lo = (size_type{1} << 32) - 1000, hi = bits;
  size_type expect_set = 0;
  for (size_type i = lo; i < hi; ++i) expect_set += (out(i / 32) >> (i % 32)) & 1u;
  EXPECT_EQ(kmask::count_set_bits(exec, result.first, lo, hi), expect_set);
  EXPECT_EQ(kmask::count_unset_bits(exec, result.first, 0, bits), expect_nulls);
}

TEST(TEST_CATEGORY, repeated_runs_are_bit_identical) {
  const auto seed = base_seed() + 61;
  SCOPED_TRACE(seed_note(seed));
  TEST_EXECSPACE exec;
  std::mt19937_64 rng(seed);
  const auto c       = random_case(rng, 7, 6, 200000);
  const auto sources = sources_on_device<TEST_EXECSPACE>(c);
  std::vector<ref::words> first_rows;
  std::vector<size_type> first_counts;
  for (int run = 0; run < 5; ++run) {
    const auto res = kmask::segmented_binop(exec, kmask::bit_xor{}, sources, c.begin_bits, c.size_bits, c.offsets);
    exec.fence();
    auto rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, res.masks);
    std::vector<ref::words> all(rows.extent(0), ref::words(rows.extent(1)));
    for (std::size_t s = 0; s < rows.extent(0); ++s)
      for (std::size_t w = 0; w < rows.extent(1); ++w) all[s][w] = rows(s, w);
    const auto counts = counts_to_host(res.null_counts);
    if (run == 0) {
      first_rows   = all;
      first_counts = counts;
      for (size_type s = 0; s < c.num_segments(); ++s) ASSERT_EQ(counts[s], c.expected(ref::op::xor_, s).nulls);
    } else {
      ASSERT_EQ(all, first_rows) << "run " << run;
      ASSERT_EQ(counts, first_counts) << "run " << run;
    }
  }
}

// A segment's teams assemble its null count through a per-segment scratch they leave at zero for
// the next run. Four runs of one plan enqueued back to back (one fence at the end), each with its
// own operator and counts: every run's counts must be exact, and the destinations the last run's.
// Segments of 2^22 + 37 bits span several teams (or CPU units) each, and the emulated GPU form
// several teams of several blocks.
TEST(TEST_CATEGORY, plan_runs_back_to_back_each_count_exactly) {
  const auto seed = base_seed() + 62;
  SCOPED_TRACE(seed_note(seed));
  TEST_EXECSPACE exec;
  std::mt19937_64 rng(seed);
  const auto c       = random_case(rng, 5, 4, (size_type{1} << 22) + 37);
  const size_type S  = c.num_segments();
  const auto sources = sources_on_device<TEST_EXECSPACE>(c);
  auto dests         = poisoned_destinations<TEST_EXECSPACE>(S, c.size_bits, 1);
  const kmask::segmented_binop_plan<TEST_EXECSPACE> plan(exec, dests, sources, c.begin_bits, c.size_bits, c.offsets);
  const ref::op ops[] = {ref::op::and_, ref::op::or_, ref::op::xor_, ref::op::and_};
  std::vector<Kokkos::View<size_type*, typename TEST_EXECSPACE::memory_space>> counts;
  for (int run = 0; run < 4; ++run) {
    counts.push_back(poisoned_counts<TEST_EXECSPACE>(S));
    switch (ops[run]) {
      case ref::op::and_: plan.execute(exec, kmask::bit_and{}, counts.back()); break;
      case ref::op::or_: plan.execute(exec, kmask::bit_or{}, counts.back()); break;
      default: plan.execute(exec, kmask::bit_xor{}, counts.back()); break;
    }
  }
  exec.fence();
  for (int run = 0; run < 4; ++run) {
    const auto got = counts_to_host(counts[run]);
    for (size_type s = 0; s < S; ++s)
      EXPECT_EQ(got[s], c.expected(ops[run], s).nulls) << "run " << run << " segment " << s;
  }
  for (size_type s = 0; s < S; ++s) {
    const auto got = to_host(dests[s]);
    ASSERT_TRUE(same_words(c.expected(ref::op::and_, s).mask, got, s));
    ASSERT_EQ(got.back(), poison) << "wrote past destination " << s;
  }
}
