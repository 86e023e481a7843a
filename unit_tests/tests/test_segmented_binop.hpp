// segmented_binop and inplace_segmented_binop against the reference, over random shapes.

namespace {

// Runs one random case through both the allocating and the in-place form and checks both.
template <class ExecSpace, class Op>
void check_random_case(const host_case& c, Op op, std::uint64_t seed) {
  SCOPED_TRACE(::testing::Message() << seed_note(seed) << "; segments = " << c.num_segments()
                                    << ", size_bits = " << c.size_bits);
  ExecSpace exec;
  const auto o       = ref_op(op);
  const auto sources = sources_on_device<ExecSpace>(c);
  const size_type S  = c.num_segments();
  std::vector<ref::result> expected;
  for (size_type s = 0; s < S; ++s) expected.push_back(c.expected(o, s));

  // Allocating form: one allocation, rows padded to 64 bytes, padding zero.
  const auto res = kmask::segmented_binop(exec, op, sources, c.begin_bits, c.size_bits, c.offsets);
  exec.fence();
  ASSERT_EQ(static_cast<size_type>(res.masks.extent(0)), S);
  ASSERT_EQ(static_cast<size_type>(res.masks.extent(1)), kmask::allocation_size_bytes(c.size_bits) / 4);
  auto rows         = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, res.masks);
  const auto counts = counts_to_host(res.null_counts);
  for (size_type s = 0; s < S; ++s) {
    ref::words row(rows.extent(1));
    for (std::size_t w = 0; w < row.size(); ++w) row[w] = rows(s, w);
    ASSERT_TRUE(same_words(expected[s].mask, row, s));
    for (std::size_t w = expected[s].mask.size(); w < row.size(); ++w) ASSERT_EQ(row[w], 0u) << "padding, row " << s;
    ASSERT_EQ(counts[s], expected[s].nulls) << "segment " << s;
  }

  // In-place form into poisoned destinations: words past num_words(size_bits) must stay poison.
  const auto dests = poisoned_destinations<ExecSpace>(S, c.size_bits, 3);
  const auto nulls = poisoned_counts<ExecSpace>(S + 2);
  kmask::inplace_segmented_binop(exec, op, dests, sources, c.begin_bits, c.size_bits, c.offsets, nulls);
  exec.fence();
  const auto got_counts = counts_to_host(nulls);
  for (size_type s = 0; s < S; ++s) {
    const auto got = to_host(dests[s]);
    ASSERT_TRUE(same_words(expected[s].mask, got, s));
    for (std::size_t w = expected[s].mask.size(); w < got.size(); ++w)
      ASSERT_EQ(got[w], poison) << "segment " << s << " wrote word " << w << " past its mask";
    ASSERT_EQ(got_counts[s], expected[s].nulls) << "segment " << s;
  }
  ASSERT_EQ(got_counts[S], -777) << "a counter past the segments was written";
}

}  // namespace

TEST(TEST_CATEGORY, segmented_binop_random_shapes_and) {
  const auto seed = base_seed() + 31;
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 40; ++iter) {
    const size_type bits = iter < 10 ? 1 + static_cast<size_type>(rng() % 130)
                                     : 1 + static_cast<size_type>(rng() % 5000);
    const auto c = random_case(rng, 1 + static_cast<size_type>(rng() % 12), 1 + rng() % 5, bits);
    check_random_case<TEST_EXECSPACE>(c, kmask::bit_and{}, seed);
  }
}

TEST(TEST_CATEGORY, segmented_binop_random_shapes_or_xor_user) {
  const auto seed = base_seed() + 32;
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 15; ++iter) {
    const size_type bits = 1 + static_cast<size_type>(rng() % 3000);
    const size_type segs = 1 + static_cast<size_type>(rng() % 8);
    check_random_case<TEST_EXECSPACE>(random_case(rng, segs, 4, bits), kmask::bit_or{}, seed);
    check_random_case<TEST_EXECSPACE>(random_case(rng, segs, 4, bits), kmask::bit_xor{}, seed);
    check_random_case<TEST_EXECSPACE>(random_case(rng, segs, 4, bits), bit_xnor{}, seed);
  }
}

TEST(TEST_CATEGORY, segmented_binop_empty_segments_give_identity) {
  const auto seed = base_seed() + 33;
  std::mt19937_64 rng(seed);
  for (size_type bits : {1, 31, 32, 100, 1000}) {
    auto c = random_case(rng, 5, 0, bits);  // every segment empty
    check_random_case<TEST_EXECSPACE>(c, kmask::bit_and{}, seed);
    check_random_case<TEST_EXECSPACE>(c, kmask::bit_or{}, seed);
    check_random_case<TEST_EXECSPACE>(c, kmask::bit_xor{}, seed);
  }
}

TEST(TEST_CATEGORY, segmented_binop_zero_sizes_and_zero_segments) {
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 34;
  std::mt19937_64 rng(seed);
  check_random_case<TEST_EXECSPACE>(random_case(rng, 4, 3, 0), kmask::bit_and{}, seed);  // size_bits == 0
  check_random_case<TEST_EXECSPACE>(random_case(rng, 0, 3, 77), kmask::bit_and{}, seed);  // zero segments
  const std::vector<Kokkos::View<const word_type*, typename TEST_EXECSPACE::memory_space>> none;
  const auto res = kmask::segmented_binop(exec, kmask::bit_and{}, none, {}, 100, {0});
  EXPECT_EQ(res.masks.extent(0), 0u);
  EXPECT_EQ(res.null_counts.extent(0), 0u);
}

TEST(TEST_CATEGORY, segmented_binop_one_segment_many_sources) {
  const auto seed = base_seed() + 35;
  std::mt19937_64 rng(seed);
  host_case c = random_case(rng, 0, 0, 777);
  for (int j = 0; j < 1000; ++j) {
    const size_type b = random_begin(rng);
    // Mostly-valid sources, so an AND of a thousand of them still has valid bits.
    ref::words w = random_words(rng, static_cast<std::size_t>(kmask::num_words(b + c.size_bits)));
    for (auto& x : w) x |= static_cast<word_type>(rng()) | static_cast<word_type>(rng()) | static_cast<word_type>(rng());
    c.sources.push_back(w);
    c.begin_bits.push_back(b);
  }
  c.offsets.push_back(static_cast<size_type>(c.sources.size()));
  check_random_case<TEST_EXECSPACE>(c, kmask::bit_and{}, seed);
  check_random_case<TEST_EXECSPACE>(c, kmask::bit_xor{}, seed);
}

TEST(TEST_CATEGORY, segmented_binop_more_segments_than_a_grid_dimension) {
  const auto seed = base_seed() + 36;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  // Narrow masks (several segments per team) and wide ones (several teams per segment). Sources
  // come from a pool and destinations are rows of one allocation: a handful of allocations rather
  // than ~270,000, which compute-sanitizer could not get through in 230 s.
  check_forms<TEST_EXECSPACE>(random_pooled_case(rng, 70000, 2, 40), kmask::bit_and{});
  if (HasFatalFailure()) return;
  check_forms<TEST_EXECSPACE>(random_pooled_case(rng, 66000, 2, 300), kmask::bit_and{});
}

TEST(TEST_CATEGORY, segmented_binop_wide_masks_span_many_teams) {
  const auto seed = base_seed() + 37;
  std::mt19937_64 rng(seed);
  check_random_case<TEST_EXECSPACE>(random_case(rng, 3, 4, (1 << 18) + 13), kmask::bit_and{}, seed);
  check_random_case<TEST_EXECSPACE>(random_case(rng, 2, 3, (1 << 16) + 32 * 5), kmask::bit_or{}, seed);
}
