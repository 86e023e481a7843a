// Edge sizes: ranges that end exactly at a view's last bit (down to an empty range at
// begin_bit = 32 * extent and a 1-bit range at the very last bit), 1-bit masks, segment counts
// 0, 1, 65,535, 65,536 and 1,000,000, and a segment of 1,000 sources run through a plan. Every
// result is checked against the reference; in the sanitized build every source is an exact-size
// buffer, so a read one word past a view is an AddressSanitizer report.

#if defined(KMASK_TEST_EXACT_HOST_ALLOCATIONS) && defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

// The sanitized build's premise: a host source made by to_device ends exactly at its last word,
// so the next word is in AddressSanitizer's redzone, and the buffers of earlier tests are freed.
TEST(TEST_CATEGORY, edges_sanitized_build_sources_end_in_a_redzone) {
#if defined(KMASK_TEST_EXACT_HOST_ALLOCATIONS) && defined(__SANITIZE_ADDRESS__)
  if (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename TEST_EXECSPACE::memory_space>::accessible)
    GTEST_SKIP() << "sources live in device memory on this backend";
  EXPECT_EQ(exact_host_buffers::instance().live(), 0u) << "buffers of an earlier test were not freed";
  for (std::size_t n : {1, 3, 4, 17}) {
    const auto v = to_device<TEST_EXECSPACE>(ref::words(n, 0u));
    EXPECT_EQ(__asan_address_is_poisoned(v.data() + n - 1), 0) << n << " words: the last word";
    EXPECT_NE(__asan_address_is_poisoned(v.data() + n), 0) << n << " words: the word after the last one";
  }
#else
  GTEST_SKIP() << "only the sanitized build (KMASK_ENABLE_SANITIZERS) allocates exact-size sources";
#endif
}

namespace {
namespace edges {

// `bits` bits read from the end of each pool mask: begin_bit = 32 * extent - bits.
inline size_type end_begin(const ref::words& m, size_type bits) { return 32 * static_cast<size_type>(m.size()) - bits; }

// Single-call forms on one mask read up to its last bit.
template <class ExecSpace>
void check_single_calls_at_the_end(const ref::words& m, const ref::words& other, size_type bits) {
  ExecSpace exec;
  SCOPED_TRACE(::testing::Message() << "mask of " << m.size() << " words, the last " << bits << " bits");
  const size_type end = 32 * static_cast<size_type>(m.size()), b = end - bits;
  const size_type ob  = end_begin(other, bits);
  const auto dev = to_device<ExecSpace>(m), odev = to_device<ExecSpace>(other);

  EXPECT_EQ(kmask::count_set_bits(exec, dev, b, end), ref::count_set(m, b, end));
  EXPECT_EQ(kmask::count_unset_bits(exec, dev, b, end), bits - ref::count_set(m, b, end));
  const std::vector<size_type> ranges{b, end, end, end, 0, end, b, b};
  const auto set = counts_to_host(kmask::segmented_count_set_bits(exec, dev, ranges));
  const auto unset = counts_to_host(kmask::segmented_count_unset_bits(exec, dev, ranges));
  for (std::size_t r = 0; r < ranges.size() / 2; ++r) {
    const size_type want = ref::count_set(m, ranges[2 * r], ranges[2 * r + 1]);
    EXPECT_EQ(set[r], want) << "range " << r;
    EXPECT_EQ(unset[r], ranges[2 * r + 1] - ranges[2 * r] - want) << "range " << r;
  }

  const auto copy = to_host(kmask::copy_bitmask(exec, dev, b, end));
  const auto want_copy = ref::slice(m, b, end);
  ASSERT_EQ(static_cast<size_type>(copy.size()), kmask::allocation_size_bytes(bits) / 4);
  ASSERT_TRUE(same_words(want_copy, copy, 0)) << "copy_bitmask";
  for (std::size_t w = want_copy.size(); w < copy.size(); ++w) ASSERT_EQ(copy[w], 0u) << "copy padding " << w;

  const std::vector<Kokkos::View<const word_type*, typename ExecSpace::memory_space>> both{dev, odev};
  const auto e_and = ref::combine(ref::op::and_, {&m, &other}, {b, ob}, bits);
  const auto made  = kmask::binop(exec, kmask::bit_and{}, both, {b, ob}, bits);
  const auto got   = to_host(made.first);
  ASSERT_TRUE(same_words(e_and.mask, got, 0)) << "binop";
  for (std::size_t w = e_and.mask.size(); w < got.size(); ++w) ASSERT_EQ(got[w], 0u) << "binop padding " << w;
  EXPECT_EQ(made.second, e_and.nulls);

  const auto e_xor = ref::combine(ref::op::xor_, {&m, &other}, {b, ob}, bits);
  auto dest        = poisoned_destinations<ExecSpace>(1, bits, 1)[0];
  EXPECT_EQ(kmask::inplace_binop(exec, kmask::bit_xor{}, dest, both, {b, ob}, bits), e_xor.nulls);
  const auto got_dest = to_host(dest);
  ASSERT_TRUE(same_words(e_xor.mask, got_dest, 0)) << "inplace_binop";
  ASSERT_EQ(got_dest.back(), poison) << "inplace_binop wrote past its destination";

  // The parent read up to its last bit, into two children.
  std::mt19937_64 rng(static_cast<std::uint64_t>(bits) * 977 + m.size());
  std::vector<ref::words> children_host{random_words(rng, static_cast<std::size_t>(kmask::num_words(bits))),
                                        random_words(rng, static_cast<std::size_t>(kmask::num_words(bits)))};
  std::vector<view_t<ExecSpace>> children{to_device<ExecSpace>(children_host[0]), to_device<ExecSpace>(children_host[1])};
  const auto counts = poisoned_counts<ExecSpace>(3);
  kmask::superimpose_nulls(exec, dev, b, children, bits, counts);
  exec.fence();
  const auto got_counts = counts_to_host(counts);
  for (int k = 0; k < 2; ++k) {
    const auto e = ref::combine(ref::op::and_, {&m, &children_host[k]}, {b, 0}, bits);
    ASSERT_TRUE(same_words(e.mask, to_host(children[k]), k)) << "superimpose_nulls";
    EXPECT_EQ(got_counts[k], e.nulls) << "superimpose_nulls child " << k;
  }
  EXPECT_EQ(got_counts[2], -777);
}

}  // namespace edges
}  // namespace

// Every source read up to its view's last bit, for sizes from 0 (begin_bit = 32 * extent) and 1
// (the last bit alone) through tails and several words, through every form.
TEST(TEST_CATEGORY, edges_ranges_ending_at_the_last_bit_of_the_view) {
  const auto seed = base_seed() + 81;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (size_type bits : {0, 1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 161, 1000, 9000}) {
    pooled_case c;
    c.size_bits = bits;
    // Extents num_words(bits) .. + 3 words (0 words too when bits == 0: an empty view read for 0 bits).
    for (std::size_t i = 0; i < 8; ++i)
      c.pool.push_back(random_words(rng, static_cast<std::size_t>(kmask::num_words(bits)) + i % 4));
    c.offsets.push_back(0);
    for (int s = 0; s < 7; ++s) {
      const int k = s == 0 ? 0 : 1 + s % 3;  // an empty segment, then 1..3 sources
      for (int j = 0; j < k; ++j) {
        const std::size_t p = rng() % c.pool.size();
        c.pick.push_back(p);
        c.begin_bits.push_back(edges::end_begin(c.pool[p], bits));
      }
      c.offsets.push_back(static_cast<size_type>(c.pick.size()));
    }
    check_forms<TEST_EXECSPACE>(c, kmask::bit_and{});
    check_forms<TEST_EXECSPACE>(c, kmask::bit_xor{});
    check_forms<TEST_EXECSPACE>(c, kmask::bit_or{}, form_allocating);
    if (HasFatalFailure()) return;
    for (std::size_t i = 0; i < 4; ++i) {
      if (c.pool[i].empty()) continue;  // the single calls need a word to read from
      edges::check_single_calls_at_the_end<TEST_EXECSPACE>(c.pool[i], c.pool[(i + 1) % 4 + 4], bits);
      if (HasFatalFailure()) return;
    }
  }
}

// Masks of one bit: every begin bit of a word (0..31, so the last bit of a one-word view too) and
// beyond, through every form and the single calls.
TEST(TEST_CATEGORY, edges_one_bit_masks) {
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 82;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  const auto c = random_pooled_case(rng, 300, 5, 1, 16);
  check_forms<TEST_EXECSPACE>(c, kmask::bit_and{});
  check_forms<TEST_EXECSPACE>(c, kmask::bit_or{});
  check_forms<TEST_EXECSPACE>(c, kmask::bit_xor{});
  if (HasFatalFailure()) return;

  const auto host = random_words(rng, 1);
  const auto dev  = to_device<TEST_EXECSPACE>(host);
  const std::vector<Kokkos::View<const word_type*, typename TEST_EXECSPACE::memory_space>> one{dev};
  for (size_type b = 0; b < 32; ++b) {
    const int bit = ref::get_bit(host, b);
    const auto made = kmask::binop(exec, kmask::bit_and{}, one, {b}, 1);
    const auto got  = to_host(made.first);
    EXPECT_EQ(got[0], static_cast<word_type>(bit)) << "binop of bit " << b;
    EXPECT_EQ(made.second, 1 - bit) << "bit " << b;
    EXPECT_EQ(kmask::count_set_bits(exec, dev, b, b + 1), bit) << "bit " << b;
    EXPECT_EQ(to_host(kmask::copy_bitmask(exec, dev, b, b + 1))[0], static_cast<word_type>(bit)) << "bit " << b;
  }
}

// 0, 1, 65,535 and 65,536 segments of masks of 1, 17 and 40 bits (one or two words: one thread
// per segment), 0..3 sources each at mixed offsets, every segment checked in every form.
TEST(TEST_CATEGORY, edges_segment_counts_around_a_grid_dimension) {
  const auto seed = base_seed() + 83;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  int round = 0;
  for (size_type segments : {0, 1, 65535, 65536}) {
    for (size_type bits : {1, 17, 40}) {
      const auto c = random_pooled_case(rng, segments, 3, bits);
      switch (round++ % 3) {
        case 0: check_forms<TEST_EXECSPACE>(c, kmask::bit_and{}); break;
        case 1: check_forms<TEST_EXECSPACE>(c, kmask::bit_or{}); break;
        default: check_forms<TEST_EXECSPACE>(c, kmask::bit_xor{}); break;
      }
      if (HasFatalFailure()) return;
    }
  }
}

// A million segments of 40-bit masks at mixed offsets (0..3 sources each), every one checked.
TEST(TEST_CATEGORY, edges_a_million_segments) {
  const auto seed = base_seed() + 84;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  const auto c = random_pooled_case(rng, 1000000, 3, 40);
  check_forms<TEST_EXECSPACE>(c, kmask::bit_and{});
}

// One segment of 1,000 sources next to empty and small ones, through a plan that runs twice: the
// second run must see a source changed in between (a plan reads contents at each execute()).
TEST(TEST_CATEGORY, edges_segment_of_a_thousand_sources_through_the_plan) {
  TEST_EXECSPACE exec;
  using MS        = typename TEST_EXECSPACE::memory_space;
  const auto seed = base_seed() + 85;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (size_type bits : {40, 777}) {
    pooled_case c;
    c.size_bits = bits;
    for (std::size_t i = 0; i < 40; ++i) {
      // Mostly valid, so that the AND of a thousand of them still has valid bits.
      auto w = random_words(rng, static_cast<std::size_t>(kmask::num_words(bits)) + i % 4);
      for (auto& x : w) x |= static_cast<word_type>(rng()) | static_cast<word_type>(rng()) | static_cast<word_type>(rng());
      c.pool.push_back(w);
    }
    auto add = [&](int k) {
      for (int j = 0; j < k; ++j) {
        const std::size_t p = rng() % c.pool.size();
        c.pick.push_back(p);
        c.begin_bits.push_back(begin_within(rng, 32 * static_cast<size_type>(c.pool[p].size()), bits));
      }
      c.offsets.push_back(static_cast<size_type>(c.pick.size()));
    };
    c.offsets.push_back(0);
    add(1000);
    add(0);
    add(1);
    add(7);
    check_forms<TEST_EXECSPACE>(c, kmask::bit_and{}, form_allocating | form_in_place);
    check_forms<TEST_EXECSPACE>(c, kmask::bit_xor{}, form_allocating);
    if (HasFatalFailure()) return;

    // The plan, run, then run again after pool mask 0 changed.
    std::vector<view_t<TEST_EXECSPACE>> pool;
    for (const auto& p : c.pool) pool.push_back(to_device<TEST_EXECSPACE>(p));
    std::vector<Kokkos::View<const word_type*, MS>> masks;
    for (std::size_t p : c.pick) masks.push_back(pool[p]);
    auto dests        = poisoned_destinations<TEST_EXECSPACE>(c.num_segments(), bits, 1);
    const auto counts = poisoned_counts<TEST_EXECSPACE>(c.num_segments());
    const kmask::segmented_binop_plan<TEST_EXECSPACE> plan(exec, dests, masks, c.begin_bits, bits, c.offsets);
    EXPECT_EQ(plan.num_segments(), c.num_segments());
    EXPECT_EQ(plan.num_staged_sources(), 0);
    for (int run = 0; run < 2; ++run) {
      if (run == 1) {
        c.pool[0] = random_words(rng, c.pool[0].size());
        auto m    = Kokkos::create_mirror_view(pool[0]);
        for (std::size_t w = 0; w < c.pool[0].size(); ++w) m(w) = c.pool[0][w];
        Kokkos::deep_copy(pool[0], m);
      }
      kmask::inplace_segmented_binop(exec, kmask::bit_and{}, plan, counts);
      exec.fence();
      const auto got_counts = counts_to_host(counts);
      for (size_type s = 0; s < c.num_segments(); ++s) {
        const auto e   = c.expected(ref::op::and_, s);
        const auto got = to_host(dests[s]);
        ASSERT_TRUE(same_words(e.mask, got, s)) << "plan run " << run << ", bits = " << bits;
        ASSERT_EQ(got.back(), poison) << "plan run " << run << " wrote past destination " << s;
        ASSERT_EQ(got_counts[s], e.nulls) << "plan run " << run << ", segment " << s;
      }
    }
  }
}

// The GPU form's 8-byte source reference holds every canonical address (48- and 57-bit, both
// halves) with every bit offset, and refuses one whose top five bits disagree rather than
// wrapping it into another address.
TEST(TEST_CATEGORY, edges_packed_source_references_round_trip_every_canonical_address) {
  using kmask::detail::packed_source_ref;
  using kmask::detail::positioned_source;
  using kmask::detail::source_ref;
  const std::vector<std::uint64_t> addresses{0x1000,
                                             0x00007ffffffff000,  // top of a 48-bit low half
                                             0x00ffffffffff0000,  // top of a 57-bit low half
                                             0xffff800000000000,  // bottom of a 48-bit high half
                                             0xff00000000001000,  // bottom of a 57-bit high half
                                             0xfffffffffffff000};
  for (std::uint64_t address : addresses)
    for (size_type begin : {0, 1, 5, 31, 32, 33, 95, 1000}) {
      const auto* data = reinterpret_cast<const word_type*>(static_cast<std::uintptr_t>(address));
      packed_source_ref packed{0};
      ASSERT_TRUE(packed.pack(data, begin)) << std::hex << address << std::dec << " + bit " << begin;
      EXPECT_EQ(packed.first(), data + begin / 32) << std::hex << address << std::dec << " + bit " << begin;
      EXPECT_EQ(packed.shift(), begin % 32) << std::hex << address << std::dec << " + bit " << begin;
      for (size_type bits : {1, 31, 32, 33, 4000}) {
        const positioned_source a(packed, bits), b(source_ref{data, begin}, bits);
        EXPECT_EQ(a.first, b.first);
        EXPECT_EQ(a.shift, b.shift);
        EXPECT_EQ(a.last, b.last) << "bits " << bits << ", begin " << begin;
      }
    }
  for (std::uint64_t address : {std::uint64_t{0x1000000000000000}, std::uint64_t{0x8000000000001000},
                                std::uint64_t{0xe000000000000000}}) {
    packed_source_ref packed{12345};
    EXPECT_FALSE(packed.pack(reinterpret_cast<const word_type*>(static_cast<std::uintptr_t>(address)), 7))
        << std::hex << address;
    EXPECT_EQ(packed.bits, 12345u) << "a refused pack changed the reference";
  }
}

// A valid source at an address the GPU form's reference cannot hold is refused by name, before any
// work; the CPU form keeps full pointers and has no such case.
TEST(TEST_CATEGORY, edges_sources_at_addresses_a_packed_reference_cannot_hold_are_refused) {
  if (kmask::detail::uses_cpu_kernels<TEST_EXECSPACE>())
    GTEST_SKIP() << "the CPU form references sources by full pointer: every address is accepted";
  using MS = typename TEST_EXECSPACE::memory_space;
  TEST_EXECSPACE exec;
  const view_t<TEST_EXECSPACE> good("good", 4);
  // Never read: the call must be refused before anything is launched.
  const Kokkos::View<const word_type*, MS, Kokkos::MemoryTraits<Kokkos::Unmanaged>> unholdable(
      reinterpret_cast<const word_type*>(std::uintptr_t{0x4000000000000000}), 4);
  const std::vector<Kokkos::View<const word_type*, MS>> masks{good, good, unholdable};
  const std::vector<size_type> begins{0, 3, 5};
  for (const char* fn : {"kmask::segmented_binop", "kmask::binop"}) {
    try {
      if (std::string(fn) == "kmask::binop") kmask::binop(exec, kmask::bit_and{}, masks, begins, 64);
      else kmask::segmented_binop(exec, kmask::bit_and{}, masks, begins, 64, {0, 1, 3});
      ADD_FAILURE() << fn << " accepted an address its references cannot hold";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind(std::string(fn) + ": masks[2] starts at address", 0), 0u) << e.what();
    }
  }
  // The staging buffers are left usable.
  const std::vector<Kokkos::View<const word_type*, MS>> fine{good, good};
  const auto r = kmask::segmented_binop(exec, kmask::bit_and{}, fine, {0, 3}, 64, {0, 2});
  exec.fence();
  EXPECT_EQ(r.masks.extent(0), 1u);
}
