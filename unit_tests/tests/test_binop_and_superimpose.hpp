// binop, inplace_binop, superimpose_nulls, and every aliasing case.

TEST(TEST_CATEGORY, binop_random) {
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 41;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 30; ++iter) {
    const size_type bits = static_cast<size_type>(rng() % 2500);
    const auto c         = random_case(rng, 1, 1 + rng() % 6, bits);
    const std::vector<ref::words> srcs(c.sources.begin() + c.offsets[0], c.sources.begin() + c.offsets[1]);
    const std::vector<size_type> begins(c.begin_bits.begin() + c.offsets[0], c.begin_bits.begin() + c.offsets[1]);
    std::vector<Kokkos::View<const word_type*, typename TEST_EXECSPACE::memory_space>> dev;
    for (const auto& s : srcs) dev.push_back(to_device<TEST_EXECSPACE>(s));
    const auto expected = c.expected(ref::op::and_, 0);
    const auto result   = kmask::binop(exec, kmask::bit_and{}, dev, begins, bits);
    const auto got      = to_host(result.first);
    ASSERT_EQ(static_cast<size_type>(got.size()), kmask::allocation_size_bytes(bits) / 4);
    ASSERT_TRUE(same_words(expected.mask, got, 0)) << "bits = " << bits;
    for (std::size_t w = expected.mask.size(); w < got.size(); ++w) ASSERT_EQ(got[w], 0u);
    ASSERT_EQ(result.second, expected.nulls);

    auto dest = poisoned_destinations<TEST_EXECSPACE>(1, bits, 2)[0];
    ASSERT_EQ(kmask::inplace_binop(exec, kmask::bit_or{}, dest, dev, begins, bits),
              c.expected(ref::op::or_, 0).nulls);
    const auto got_or = to_host(dest);
    ASSERT_TRUE(same_words(c.expected(ref::op::or_, 0).mask, got_or, 0));
    for (std::size_t w = kmask::num_words(bits); w < got_or.size(); ++w) ASSERT_EQ(got_or[w], poison);
  }
}

// A destination that is also its own segment's source read from bit 0: computed in place, no copy.
TEST(TEST_CATEGORY, alias_destination_is_own_source_at_bit_zero) {
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 42;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (size_type bits : {1, 32, 95, 128, 3000, 70000}) {
    const auto a_host = random_words(rng, kmask::num_words(bits + 7));
    const auto d_host = random_words(rng, kmask::num_words(bits));
    const auto a      = to_device<TEST_EXECSPACE>(a_host);
    const auto d      = to_device<TEST_EXECSPACE>(d_host);
    const std::vector<view_t<TEST_EXECSPACE>> dests{d};
    const std::vector<view_t<TEST_EXECSPACE>> masks{a, d};
    const std::vector<size_type> begins{7, 0};
    const kmask::segmented_binop_plan<TEST_EXECSPACE> plan(exec, dests, masks, begins, bits, {0, 2});
    EXPECT_EQ(plan.num_staged_sources(), 0);
    const auto counts = poisoned_counts<TEST_EXECSPACE>(1);
    plan.execute(exec, kmask::bit_and{}, counts);
    exec.fence();
    const auto expected = ref::combine(ref::op::and_, {&a_host, &d_host}, {7, 0}, bits);
    ASSERT_TRUE(same_words(expected.mask, to_host(d), 0)) << "bits = " << bits;
    EXPECT_EQ(counts_to_host(counts)[0], expected.nulls);
  }
}

// A destination read by its own segment from a shifted bit, by another segment, or through an
// overlapping subview: the result is the one of the sources' contents before the call.
TEST(TEST_CATEGORY, alias_other_overlaps_are_staged) {
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 43;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  using range = std::pair<std::size_t, std::size_t>;
  for (size_type bits : {5, 33, 200, 5000, 100000}) {
    const size_type W  = kmask::num_words(bits);
    const auto d0_host = random_words(rng, W + 2);
    const auto d1_host = random_words(rng, W + 2);
    const auto d0      = to_device<TEST_EXECSPACE>(d0_host);
    const auto d1      = to_device<TEST_EXECSPACE>(d1_host);
    const auto d1_tail = Kokkos::subview(d1, range(1, W + 2));  // d1 read from one word on
    // seg 0 -> d0 = d0 >> 3 (shifted self) AND d1 ; seg 1 -> d1 = d0 XOR d1_tail (other segment's dest)
    const std::vector<view_t<TEST_EXECSPACE>> dests{d0, d1};
    const std::vector<Kokkos::View<const word_type*, typename TEST_EXECSPACE::memory_space>> masks{d0, d1, d0,
                                                                                                     d1_tail};
    const std::vector<size_type> begins{3, 0, 0, 5};
    const kmask::segmented_binop_plan<TEST_EXECSPACE> plan(exec, dests, masks, begins, bits, {0, 2, 4});
    // d1_tail starts one word into d1, so it overlaps d1's destination words only when there are two.
    EXPECT_EQ(plan.num_staged_sources(), W > 1 ? 4 : 3) << "every overlap other than in place is staged";
    const auto counts = poisoned_counts<TEST_EXECSPACE>(2);
    plan.execute(exec, kmask::bit_and{}, counts);  // AND for both segments
    exec.fence();
    const ref::words d1_tail_host(d1_host.begin() + 1, d1_host.end());
    const auto e0 = ref::combine(ref::op::and_, {&d0_host, &d1_host}, {3, 0}, bits);
    const auto e1 = ref::combine(ref::op::and_, {&d0_host, &d1_tail_host}, {0, 5}, bits);
    ASSERT_TRUE(same_words(e0.mask, to_host(d0), 0)) << "bits = " << bits;
    ASSERT_TRUE(same_words(e1.mask, to_host(d1), 1)) << "bits = " << bits;
    const auto got = counts_to_host(counts);
    EXPECT_EQ(got[0], e0.nulls);
    EXPECT_EQ(got[1], e1.nulls);
  }
}

TEST(TEST_CATEGORY, alias_overlapping_destinations_are_refused) {
  TEST_EXECSPACE exec;
  using range = std::pair<std::size_t, std::size_t>;
  view_t<TEST_EXECSPACE> big("big", 10);
  Kokkos::deep_copy(big, poison);
  const std::vector<view_t<TEST_EXECSPACE>> dests{Kokkos::subview(big, range(0, 4)), Kokkos::subview(big, range(3, 7))};
  const std::vector<view_t<TEST_EXECSPACE>> masks;
  const auto counts = poisoned_counts<TEST_EXECSPACE>(2);
  try {
    kmask::inplace_segmented_binop(exec, kmask::bit_and{}, dests, masks, {}, 128, {0, 0, 0}, counts);
    FAIL() << "overlapping destinations were accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "kmask::inplace_segmented_binop: destinations[1] overlaps destinations[0]: both would be written "
                 "at once");
  }
  for (auto w : to_host(big)) EXPECT_EQ(w, poison);
  for (auto c : counts_to_host(counts)) EXPECT_EQ(c, -777);
}

TEST(TEST_CATEGORY, superimpose_nulls_into_sliced_children) {
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 44;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (size_type bits : {1, 31, 64, 999, 40000}) {
    for (size_type parent_begin : {0, 5, 32, 77}) {
      const auto parent_host = random_words(rng, kmask::num_words(parent_begin + bits));
      const auto parent      = to_device<TEST_EXECSPACE>(parent_host);
      std::vector<ref::words> children_host;
      std::vector<view_t<TEST_EXECSPACE>> children;
      for (int c = 0; c < 4; ++c) {
        children_host.push_back(random_words(rng, kmask::num_words(bits)));
        children.push_back(to_device<TEST_EXECSPACE>(children_host.back()));
      }
      const auto counts = poisoned_counts<TEST_EXECSPACE>(4);
      kmask::superimpose_nulls(exec, parent, parent_begin, children, bits, counts);
      exec.fence();
      const auto got_counts = counts_to_host(counts);
      for (int c = 0; c < 4; ++c) {
        const auto e = ref::combine(ref::op::and_, {&parent_host, &children_host[c]}, {parent_begin, 0}, bits);
        ASSERT_TRUE(same_words(e.mask, to_host(children[c]), c)) << "bits " << bits << " parent_begin " << parent_begin;
        ASSERT_EQ(got_counts[c], e.nulls);
      }
    }
  }
}

TEST(TEST_CATEGORY, superimpose_nulls_parent_overlapping_a_child) {
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 45;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  const size_type bits   = 3000;
  const auto shared_host = random_words(rng, kmask::num_words(bits) + 4);
  const auto other_host  = random_words(rng, kmask::num_words(bits));
  const auto shared      = to_device<TEST_EXECSPACE>(shared_host);
  const auto other       = to_device<TEST_EXECSPACE>(other_host);
  // The parent is `shared` from bit 40; child 0 is `shared` itself; child 1 is another mask.
  const std::vector<view_t<TEST_EXECSPACE>> children{shared, other};
  const auto counts = poisoned_counts<TEST_EXECSPACE>(2);
  kmask::superimpose_nulls(exec, shared, 40, children, bits, counts);
  exec.fence();
  const auto e0 = ref::combine(ref::op::and_, {&shared_host, &shared_host}, {40, 0}, bits);
  const auto e1 = ref::combine(ref::op::and_, {&shared_host, &other_host}, {40, 0}, bits);
  ASSERT_TRUE(same_words(e0.mask, to_host(shared), 0));
  ASSERT_TRUE(same_words(e1.mask, to_host(other), 1));
  EXPECT_EQ(counts_to_host(counts)[0], e0.nulls);
  EXPECT_EQ(counts_to_host(counts)[1], e1.nulls);
}
