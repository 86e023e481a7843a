// Absent masks (a null view, or source_mask{nullptr, 0, b}) read as all valid in every call; the
// pointer-and-extent forms (source_mask / dest_mask) give the View forms' results and name their
// arguments in errors; the default-space overloads run on the views' memory space.

#include <limits>

namespace {
namespace absent_pointer {

using kmask::dest_mask;
using kmask::source_mask;

template <class View>
source_mask src(const View& v, size_type begin_bit) {
  return {v.data(), static_cast<size_type>(v.extent(0)), begin_bit};
}
template <class View>
dest_mask dst(const View& v) {
  return {v.data(), static_cast<size_type>(v.extent(0))};
}

// A pooled case with about a quarter of its sources absent (their begin bits anywhere in 0..99).
inline pooled_case with_absent_sources(std::mt19937_64& rng, size_type segments, size_type max_sources,
                                       size_type size_bits) {
  pooled_case c = random_pooled_case(rng, segments, max_sources, size_bits, 13);
  for (std::size_t j = 0; j < c.pick.size(); ++j)
    if (rng() % 4 == 0) {
      c.pick[j]       = pooled_case::absent;
      c.begin_bits[j] = static_cast<size_type>(rng() % 100);
    }
  return c;
}

}  // namespace absent_pointer
}  // namespace

TEST(TEST_CATEGORY, absent_sources_read_as_all_valid_in_every_segmented_form) {
  const auto seed = base_seed() + 401;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (size_type bits : {size_type{1}, size_type{31}, size_type{77}, size_type{1000}, size_type{40000}}) {
    const auto c = absent_pointer::with_absent_sources(rng, 7, 4, bits);
    check_forms<TEST_EXECSPACE>(c, kmask::bit_and{});
    check_forms<TEST_EXECSPACE>(c, kmask::bit_or{});
    check_forms<TEST_EXECSPACE>(c, kmask::bit_xor{});
    check_forms<TEST_EXECSPACE>(c, bit_xnor{});
  }
  // Enough sources for the threaded host pass and the chunked upload, one absent far in.
  pooled_case big = random_pooled_case(rng, 15000, 5, 64, 7);
  for (std::size_t j = 4000; j < big.pick.size(); j += 7919) big.pick[j] = pooled_case::absent;
  ASSERT_GT(big.pick.size(), kmask::detail::upload_chunk_sources) << "the case must span two upload chunks";
  check_forms<TEST_EXECSPACE>(big, kmask::bit_or{}, form_allocating | form_in_place);
}

TEST(TEST_CATEGORY, absent_masks_in_binop_superimpose_count_and_copy) {
  TEST_EXECSPACE exec;
  using MS        = typename TEST_EXECSPACE::memory_space;
  using mask_view = Kokkos::View<const word_type*, MS>;
  const auto seed = base_seed() + 402;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  const size_type bits = 333;
  const auto a_host    = random_words(rng, kmask::num_words(bits + 9));
  const mask_view a    = to_device<TEST_EXECSPACE>(a_host);
  const mask_view none;

  // binop: AND with an absent mask is the other mask; OR with one is all valid.
  {
    const auto r = kmask::binop(exec, kmask::bit_and{}, std::vector<mask_view>{a, none}, {9, 50}, bits);
    const auto e = ref::combine(ref::op::and_, {&a_host}, {9}, bits);
    EXPECT_TRUE(same_words(e.mask, to_host(r.first), 0));
    EXPECT_EQ(r.second, e.nulls);
    const auto o = kmask::binop(exec, kmask::bit_or{}, std::vector<mask_view>{none, a}, {0, 9}, bits);
    EXPECT_EQ(o.second, 0);
    EXPECT_EQ(kmask::count_set_bits(exec, mask_view(o.first), 0, bits), bits);
  }
  // inplace_binop into a poisoned destination from two absent masks and a real one.
  {
    auto d          = poisoned_destinations<TEST_EXECSPACE>(1, bits, 1)[0];
    const auto nul  = kmask::inplace_binop(exec, kmask::bit_xor{}, d, std::vector<mask_view>{none, a, none}, {3, 9, 0}, bits);
    const auto e    = ref::combine(ref::op::xor_, {&a_host}, {9}, bits);  // two XORs with ones cancel
    const auto got  = to_host(d);
    EXPECT_TRUE(same_words(e.mask, got, 0));
    EXPECT_EQ(got.back(), poison) << "a word past the destination was written";
    EXPECT_EQ(nul, e.nulls);
  }
  // superimpose_nulls with an absent parent: the children stay, their nulls are counted.
  {
    auto children     = poisoned_destinations<TEST_EXECSPACE>(2, bits, 0);
    const auto c0     = random_words(rng, kmask::num_words(bits));
    const auto c1     = random_words(rng, kmask::num_words(bits));
    children[0]       = to_device<TEST_EXECSPACE>(c0);
    children[1]       = to_device<TEST_EXECSPACE>(c1);
    const auto counts = poisoned_counts<TEST_EXECSPACE>(3);
    kmask::superimpose_nulls(exec, none, 17, children, bits, counts);
    exec.fence();
    const auto n = counts_to_host(counts);
    for (int k = 0; k < 2; ++k) {
      const auto& h = k == 0 ? c0 : c1;
      const auto e  = ref::combine(ref::op::and_, {&h}, {0}, bits);
      EXPECT_TRUE(same_words(e.mask, to_host(children[k]), k));
      EXPECT_EQ(n[k], e.nulls);
    }
    EXPECT_EQ(n[2], -777);
  }
  // Counting and copying an absent mask.
  EXPECT_EQ(kmask::count_set_bits(exec, none, 5, 1005), 1000);
  EXPECT_EQ(kmask::count_unset_bits(exec, none, 5, 1005), 0);
  EXPECT_EQ(counts_to_host(kmask::segmented_count_set_bits(exec, none, {0, 10, 7, 7, 3, 100})),
            (std::vector<size_type>{10, 0, 97}));
  EXPECT_EQ(counts_to_host(kmask::segmented_count_unset_bits(exec, none, {0, 10, 3, 100})),
            (std::vector<size_type>{0, 0}));
  const auto copy = to_host(kmask::copy_bitmask(exec, none, 3, 77));
  ASSERT_EQ(copy.size(), static_cast<std::size_t>(kmask::allocation_size_bytes(74) / 4));
  EXPECT_EQ(copy[0], ~word_type{0});
  EXPECT_EQ(copy[1], ~word_type{0});
  EXPECT_EQ(copy[2], 0x3FFu);  // bits 64..73
  for (std::size_t w = 3; w < copy.size(); ++w) EXPECT_EQ(copy[w], 0u) << "padding word " << w;
}

TEST(TEST_CATEGORY, pointer_forms_give_the_view_forms_results) {
  namespace ap = absent_pointer;
  TEST_EXECSPACE exec;
  using MS        = typename TEST_EXECSPACE::memory_space;
  using mask_view = Kokkos::View<const word_type*, MS>;
  const auto seed = base_seed() + 403;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  const auto c     = ap::with_absent_sources(rng, 6, 4, 555);
  const auto masks = pooled_sources_on_device<TEST_EXECSPACE>(c);
  std::vector<kmask::source_mask> sources;
  for (std::size_t j = 0; j < masks.size(); ++j) sources.push_back(ap::src(masks[j], c.begin_bits[j]));
  const size_type S = c.num_segments(), words = kmask::num_words(c.size_bits);

  const auto alloc = kmask::segmented_binop(exec, kmask::bit_and{}, sources, c.size_bits, c.offsets);
  auto dests       = poisoned_destinations<TEST_EXECSPACE>(S, c.size_bits, 1);
  std::vector<kmask::dest_mask> raw_dests;
  for (const auto& d : dests) raw_dests.push_back({d.data(), words});  // the poisoned word is not theirs
  const auto counts = poisoned_counts<TEST_EXECSPACE>(S);
  kmask::inplace_segmented_binop(exec, kmask::bit_and{}, raw_dests, sources, c.size_bits, c.offsets, counts);
  auto plan_dests = poisoned_destinations<TEST_EXECSPACE>(S, c.size_bits, 1);
  std::vector<kmask::dest_mask> raw_plan_dests;
  for (const auto& d : plan_dests) raw_plan_dests.push_back({d.data(), words});
  const auto plan_counts = poisoned_counts<TEST_EXECSPACE>(S);
  const kmask::segmented_binop_plan<TEST_EXECSPACE> plan(exec, raw_plan_dests, sources, c.size_bits, c.offsets);
  plan.execute(exec, kmask::bit_and{}, plan_counts);
  exec.fence();

  Kokkos::View<word_type**, Kokkos::LayoutRight, Kokkos::HostSpace> rows("test::rows", alloc.masks.extent(0),
                                                                         alloc.masks.extent(1));
  Kokkos::deep_copy(rows, alloc.masks);
  const auto alloc_counts = counts_to_host(alloc.null_counts);
  const auto n = counts_to_host(counts), pn = counts_to_host(plan_counts);
  for (size_type s = 0; s < S; ++s) {
    const auto e = c.expected(ref::op::and_, s);
    ref::words row(e.mask.size());
    for (std::size_t w = 0; w < row.size(); ++w) row[w] = rows(s, w);
    EXPECT_TRUE(same_words(e.mask, row, s)) << "segmented_binop(source_mask)";
    EXPECT_EQ(alloc_counts[s], e.nulls);
    const auto got = to_host(dests[s]), pgot = to_host(plan_dests[s]);
    EXPECT_TRUE(same_words(e.mask, got, s)) << "inplace_segmented_binop(dest_mask, source_mask)";
    EXPECT_TRUE(same_words(e.mask, pgot, s)) << "segmented_binop_plan(dest_mask, source_mask)";
    EXPECT_EQ(got.back(), poison);
    EXPECT_EQ(pgot.back(), poison);
    EXPECT_EQ(n[s], e.nulls);
    EXPECT_EQ(pn[s], e.nulls);
  }

  // One segment of everything through binop and inplace_binop.
  pooled_case one = c;
  one.offsets     = {0, static_cast<size_type>(c.pick.size())};
  const auto e1   = one.expected(ref::op::or_, 0);
  const auto b    = kmask::binop(exec, kmask::bit_or{}, sources, c.size_bits);
  EXPECT_TRUE(same_words(e1.mask, to_host(b.first), 0));
  EXPECT_EQ(b.second, e1.nulls);
  auto d1 = poisoned_destinations<TEST_EXECSPACE>(1, c.size_bits, 0)[0];
  EXPECT_EQ(kmask::inplace_binop(exec, kmask::bit_or{}, ap::dst(d1), sources, c.size_bits), e1.nulls);
  EXPECT_TRUE(same_words(e1.mask, to_host(d1), 0));

  // A raw parent read from its begin bit, counts and copies counted from the mask's begin bit.
  const auto p_host = random_words(rng, 30);
  const mask_view parent = to_device<TEST_EXECSPACE>(p_host);
  auto children          = poisoned_destinations<TEST_EXECSPACE>(2, 700, 0);
  const auto ch0 = random_words(rng, kmask::num_words(700)), ch1 = random_words(rng, kmask::num_words(700));
  children[0] = to_device<TEST_EXECSPACE>(ch0);
  children[1] = to_device<TEST_EXECSPACE>(ch1);
  const auto child_counts = poisoned_counts<TEST_EXECSPACE>(2);
  kmask::superimpose_nulls(exec, ap::src(parent, 41), {ap::dst(children[0]), ap::dst(children[1])}, 700, child_counts);
  exec.fence();
  const auto cc = counts_to_host(child_counts);
  for (int k = 0; k < 2; ++k) {
    const auto e = ref::combine(ref::op::and_, {&p_host, k == 0 ? &ch0 : &ch1}, {41, 0}, 700);
    EXPECT_TRUE(same_words(e.mask, to_host(children[k]), k));
    EXPECT_EQ(cc[k], e.nulls);
  }
  EXPECT_EQ(kmask::count_set_bits(exec, ap::src(parent, 41), 3, 800), ref::count_set(p_host, 44, 841));
  EXPECT_EQ(kmask::count_unset_bits(exec, ap::src(parent, 41), 3, 800), 797 - ref::count_set(p_host, 44, 841));
  EXPECT_EQ(counts_to_host(kmask::segmented_count_set_bits(exec, ap::src(parent, 7), {0, 100, 50, 900})),
            (std::vector<size_type>{ref::count_set(p_host, 7, 107), ref::count_set(p_host, 57, 907)}));
  EXPECT_EQ(counts_to_host(kmask::segmented_count_unset_bits(exec, ap::src(parent, 7), {0, 100})),
            (std::vector<size_type>{100 - ref::count_set(p_host, 7, 107)}));
  const auto copy = to_host(kmask::copy_bitmask(exec, ap::src(parent, 19), 5, 600));
  const auto want = ref::slice(p_host, 24, 619);
  EXPECT_TRUE(same_words(want, ref::words(copy.begin(), copy.begin() + static_cast<std::ptrdiff_t>(want.size())), 0));
}

TEST(TEST_CATEGORY, pointer_forms_name_their_arguments_in_errors) {
  namespace ap = absent_pointer;
  TEST_EXECSPACE exec;
  using MS        = typename TEST_EXECSPACE::memory_space;
  using mask_view = Kokkos::View<const word_type*, MS>;
  std::mt19937_64 rng(base_seed() + 404);
  const auto a_host  = random_words(rng, 3);
  const mask_view a  = to_device<TEST_EXECSPACE>(a_host);
  auto dests         = poisoned_destinations<TEST_EXECSPACE>(1, 64, 0);
  const auto counts  = poisoned_counts<TEST_EXECSPACE>(1);
  errors::untouched<TEST_EXECSPACE> kept{dests, {counts}, {{a, a_host}}};
  using IA = std::invalid_argument;
  using OR = std::out_of_range;
  const std::string s = "kmask::segmented_binop: ", i = "kmask::inplace_segmented_binop: ";
  const auto seg = [&](std::vector<kmask::source_mask> m) {
    return [=] { kmask::segmented_binop(exec, kmask::bit_and{}, m, 64, {0, static_cast<size_type>(m.size())}); };
  };
  errors::expect_rejected<IA>(kept, seg({ap::src(a, 0), ap::src(a, -1)}), s + "masks[1].begin_bit = -1 is negative");
  errors::expect_rejected<OR>(kept, seg({ap::src(a, 40)}),
                              s + "masks[0].begin_bit + size_bits = 40 + 64 is past the 96 bits of masks[0] (3 words)");
  errors::expect_rejected<IA>(kept, seg({kmask::source_mask{a.data(), -2, 0}}), s + "masks[0].extent_words = -2 is negative");
  errors::expect_rejected<IA>(kept, seg({kmask::source_mask{nullptr, 3, 0}}),
                              s + "masks[0] is a null pointer but its extent is 3 words");
  const auto inp = [&](std::vector<kmask::dest_mask> d) {
    return [=] { kmask::inplace_segmented_binop(exec, kmask::bit_and{}, d, {ap::src(a, 0)}, 64, {0, 1}, counts); };
  };
  errors::expect_rejected<IA>(kept, inp({kmask::dest_mask{nullptr, 2}}),
                              i + "destinations[0] is a null pointer but size_bits = 64 bits are written to it");
  errors::expect_rejected<OR>(kept, inp({kmask::dest_mask{dests[0].data(), 1}}),
                              i + "destinations[0] has 1 words but size_bits = 64 needs 2");
  errors::expect_rejected<IA>(kept, [&] { kmask::count_set_bits(exec, ap::src(a, -3), 0, 5); },
                              "kmask::count_set_bits: mask.begin_bit = -3 is negative");
  errors::expect_rejected<OR>(kept, [&] { kmask::copy_bitmask(exec, ap::src(a, 40), 0, 60); },
                              "kmask::copy_bitmask: mask bit range [40, 100) is past the 96 bits of the view (3 words)");
}

TEST(TEST_CATEGORY, default_space_overloads_run_on_the_views_memory_space) {
  // Host views run on the default host space in every build (a CUDA build too), device views on
  // the space of their memory; the results live where the views do.
  std::mt19937_64 rng(base_seed() + 405);
  using host_view  = Kokkos::View<const word_type*, Kokkos::HostSpace>;
  const auto a_host = random_words(rng, 8), b_host = random_words(rng, 8);
  const host_view a(a_host.data(), 8), b(b_host.data(), 8);  // unmanaged over the host words
  const auto r = kmask::segmented_binop(kmask::bit_and{}, std::vector<host_view>{a, b}, {3, 0}, 200, {0, 2});
  static_assert(std::is_same<typename decltype(r.masks)::memory_space, Kokkos::HostSpace>::value,
                "host views give a host result");
  Kokkos::DefaultHostExecutionSpace{}.fence();
  const auto e = ref::combine(ref::op::and_, {&a_host, &b_host}, {3, 0}, 200);
  for (std::size_t w = 0; w < e.mask.size(); ++w) EXPECT_EQ(r.masks(0, w), e.mask[w]) << "word " << w;
  EXPECT_EQ(r.null_counts(0), e.nulls);
  EXPECT_EQ(kmask::count_set_bits(a, 3, 203), ref::count_set(a_host, 3, 203));
  const auto copy = kmask::copy_bitmask(a, 3, 203);
  static_assert(std::is_same<typename decltype(copy)::memory_space, Kokkos::HostSpace>::value, "host copy");

  // Views in the space under test run there.
  using MS = typename TEST_EXECSPACE::memory_space;
  const auto d = to_device<TEST_EXECSPACE>(a_host);
  const auto c = kmask::copy_bitmask(Kokkos::View<const word_type*, MS>(d), 3, 203);
  static_assert(std::is_same<typename decltype(c)::memory_space, MS>::value, "device copy");
  const auto got = to_host(c);
  EXPECT_TRUE(same_words(ref::slice(a_host, 3, 203), ref::words(got.begin(), got.begin() + 7), 0));
}
