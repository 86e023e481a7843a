// Negated sources (source_mask::invert, kmask::inverted) in every call that reads sources, and the
// batch counts (batch_count_set_bits / batch_count_unset_bits), against the bit-by-bit reference.

#include <cstdlib>
#include <typeinfo>

namespace {
namespace inv {

using MS = typename TEST_EXECSPACE::memory_space;

// A host mask and the device copy a source reads; `absent` sources have neither.
struct mask_source {
  ref::words host;
  view_t<TEST_EXECSPACE> dev;
  size_type begin = 0;
  bool invert     = false;
  bool absent     = false;

  kmask::source_mask as_source() const {
    if (absent) return {nullptr, 0, 0, invert};
    return {dev.data(), static_cast<size_type>(dev.extent(0)), begin, invert};
  }
  ref::read_source as_read() const { return {absent ? nullptr : &host, begin, invert}; }
};

// A begin bit in 0..200, the size of a source of `size_bits` bits from it, exactly (so a read one
// word too far is a read past the view) or with a word to spare, random words past the range.
inline mask_source random_source(std::mt19937_64& rng, size_type size_bits, bool may_be_absent = true) {
  mask_source s;
  s.invert = rng() % 2 == 0;
  s.absent = may_be_absent && rng() % 8 == 0;
  if (s.absent) return s;
  s.begin                = static_cast<size_type>(rng() % 201);
  const size_type words  = std::max<size_type>(1, kmask::num_words(s.begin + size_bits) + (rng() % 3 == 0 ? 1 : 0));
  s.host                 = random_words(rng, static_cast<std::size_t>(words));
  s.dev                  = to_device<TEST_EXECSPACE>(s.host);
  return s;
}

// Runs `call`, which must throw exactly `type` with exactly `message`, then `unchanged()`: the
// checks that the rejected call wrote nothing.
template <class Call, class Unchanged>
void expect_refused(Call&& call, const std::type_info& type, const std::string& message, Unchanged&& unchanged) {
  SCOPED_TRACE(message);
  try {
    call();
    ADD_FAILURE() << "accepted";
  } catch (const std::exception& e) {
    EXPECT_EQ(typeid(e), type) << e.what();
    EXPECT_EQ(std::string(e.what()), message);
  }
  unchanged();
}

inline const std::vector<size_type>& sizes() {
  static const std::vector<size_type> s{0, 1, 31, 32, 33, 100, 1000, 4133, 70001};
  return s;
}

// Segments of 0..5 random sources; `sources[offsets[s] .. offsets[s+1])` is segment s.
struct inverted_case {
  std::vector<mask_source> sources;
  std::vector<size_type> offsets{0};
  size_type size_bits = 0;
  size_type segments() const { return static_cast<size_type>(offsets.size()) - 1; }
  std::vector<kmask::source_mask> as_sources() const {
    std::vector<kmask::source_mask> out;
    for (const auto& s : sources) out.push_back(s.as_source());
    return out;
  }
  ref::result expected(ref::op o, size_type s) const {
    std::vector<ref::read_source> rs;
    for (size_type j = offsets[s]; j < offsets[s + 1]; ++j) rs.push_back(sources[j].as_read());
    return ref::combine_read(o, rs, size_bits);
  }
};

inline inverted_case random_inverted_case(std::mt19937_64& rng, size_type segments, size_type size_bits) {
  inverted_case c;
  c.size_bits = size_bits;
  for (size_type s = 0; s < segments; ++s) {
    const size_type k = static_cast<size_type>(rng() % 6);
    for (size_type j = 0; j < k; ++j) c.sources.push_back(random_source(rng, size_bits));
    c.offsets.push_back(static_cast<size_type>(c.sources.size()));
  }
  return c;
}

// Runs the allocating, in-place and plan forms, binop and inplace_binop of `c` with `op` and checks
// every word and count (in-place rows are followed by a poisoned word that must survive).
template <class Op>
void check_inverted_case(const inverted_case& c, Op op) {
  TEST_EXECSPACE exec;
  const auto o          = ref_op(op);
  const size_type S     = c.segments(), words = kmask::num_words(c.size_bits), stride = words + 1;
  const auto srcs       = c.as_sources();
  SCOPED_TRACE(::testing::Message() << "segments " << S << ", size_bits " << c.size_bits << ", op " << int(o));
  std::vector<ref::result> expected;
  for (size_type s = 0; s < S; ++s) expected.push_back(c.expected(o, s));

  const auto res = kmask::segmented_binop(exec, op, srcs, c.size_bits, c.offsets);
  exec.fence();
  Kokkos::View<word_type**, Kokkos::LayoutRight, Kokkos::HostSpace> rows("test::rows", res.masks.extent(0),
                                                                          res.masks.extent(1));
  Kokkos::deep_copy(rows, res.masks);
  const auto row_counts = counts_to_host(res.null_counts);

  for (int through_plan = 0; through_plan < 2; ++through_plan) {
    auto backing = exact_view<word_type, MS>(static_cast<std::size_t>(std::max<size_type>(S * stride, 1)), "rows");
    Kokkos::deep_copy(exec, backing, poison);
    std::vector<kmask::dest_mask> dests;
    for (size_type s = 0; s < S; ++s) dests.push_back({backing.data() + s * stride, words});
    const auto counts = poisoned_counts<TEST_EXECSPACE>(S + 1);
    if (through_plan) {
      const kmask::segmented_binop_plan<TEST_EXECSPACE> plan(exec, dests, srcs, c.size_bits, c.offsets);
      plan.execute(exec, op, counts);
    } else {
      kmask::inplace_segmented_binop(exec, op, dests, srcs, c.size_bits, c.offsets, counts);
    }
    exec.fence();
    const auto got = to_host(backing);
    const auto cnt = counts_to_host(counts);
    for (size_type s = 0; s < S; ++s) {
      const auto& e = expected[s];
      for (size_type w = 0; w <= words; ++w) {
        const word_type want = w < words ? e.mask[w] : poison;
        ASSERT_EQ(got[s * stride + w], want) << (through_plan ? "plan" : "in place") << " segment " << s << " word " << w;
      }
      ASSERT_EQ(cnt[s], e.nulls) << (through_plan ? "plan" : "in place") << " segment " << s;
    }
    ASSERT_EQ(cnt[S], -777) << "a counter past the segments was written";
  }
  for (size_type s = 0; s < S; ++s) {
    const auto& e = expected[s];
    for (size_type w = 0; w < static_cast<size_type>(rows.extent(1)); ++w)
      ASSERT_EQ(rows(s, w), w < words ? e.mask[w] : 0u) << "segmented_binop segment " << s << " word " << w;
    ASSERT_EQ(row_counts[s], e.nulls) << "segmented_binop segment " << s;
  }
  // binop / inplace_binop over the sources of the first segment.
  if (S > 0) {
    const std::vector<kmask::source_mask> first(srcs.begin() + c.offsets[0], srcs.begin() + c.offsets[1]);
    const auto& e = expected[0];
    const auto b  = kmask::binop(exec, op, first, c.size_bits);
    const auto bw = to_host(b.first);
    for (std::size_t w = 0; w < bw.size(); ++w)
      ASSERT_EQ(bw[w], w < e.mask.size() ? e.mask[w] : 0u) << "binop word " << w;
    ASSERT_EQ(b.second, e.nulls) << "binop";
    auto d = exact_view<word_type, MS>(static_cast<std::size_t>(words + 1), "dest");
    Kokkos::deep_copy(d, poison);
    const size_type n = kmask::inplace_binop(exec, op, kmask::dest_mask{d.data(), words}, first, c.size_bits);
    const auto dw     = to_host(d);
    for (size_type w = 0; w <= words; ++w)
      ASSERT_EQ(dw[w], w < words ? e.mask[w] : poison) << "inplace_binop word " << w;
    ASSERT_EQ(n, e.nulls) << "inplace_binop";
  }
}

}  // namespace inv
}  // namespace

TEST(TEST_CATEGORY, inverted_sources_in_segmented_binop_plans_and_binop) {
  const auto seed = base_seed() + 1501;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (size_type bits : inv::sizes()) {
    const auto c = inv::random_inverted_case(rng, bits > 4133 ? 3 : 7, bits);
    inv::check_inverted_case(c, kmask::bit_and{});
    inv::check_inverted_case(c, kmask::bit_or{});
    inv::check_inverted_case(c, kmask::bit_xor{});
    if (::testing::Test::HasFatalFailure()) return;
  }
  // Wide segments (several teams / CPU units each, the batched GPU path) with every source inverted.
  auto c = inv::random_inverted_case(rng, 3, (size_type{1} << 18) + 45);
  for (auto& s : c.sources) s.invert = true;
  inv::check_inverted_case(c, kmask::bit_and{});
  // Thousands of small segments.
  inv::check_inverted_case(inv::random_inverted_case(rng, 3000, 77), kmask::bit_or{});
}

// NOT, AND-NOT and OR-NOT with the existing operators, and an inverted absent source (all null).
TEST(TEST_CATEGORY, inverted_sources_give_not_and_not_or_not_and_absent_is_all_null) {
  TEST_EXECSPACE exec;
  const ref::words a{0xF0F0F0F0u, 0x0000FFFFu}, b{0xFF00FF00u, 0x12345678u};
  const auto da = to_device<TEST_EXECSPACE>(a), db = to_device<TEST_EXECSPACE>(b);
  const size_type bits = 40;
  const auto run = [&](auto op, const std::vector<kmask::source_mask>& m) {
    const auto r = kmask::binop(exec, op, m, bits);
    return std::make_pair(to_host(r.first), r.second);
  };
  const word_type tail = 0xFFu;  // bits 32..39
  auto r = run(kmask::bit_and{}, {kmask::inverted(da)});
  EXPECT_EQ(r.first[0], ~a[0]);
  EXPECT_EQ(r.first[1], ~a[1] & tail);
  r = run(kmask::bit_and{}, {kmask::source_mask{da.data(), 2, 0}, kmask::inverted(db)});
  EXPECT_EQ(r.first[0], a[0] & ~b[0]);
  EXPECT_EQ(r.first[1], a[1] & ~b[1] & tail);
  r = run(kmask::bit_or{}, {kmask::source_mask{da.data(), 2, 0}, kmask::inverted(db)});
  EXPECT_EQ(r.first[0], a[0] | ~b[0]);
  EXPECT_EQ(r.first[1], (a[1] | ~b[1]) & tail);
  const kmask::source_mask absent_inverted{nullptr, 0, 0, true};
  r = run(kmask::bit_or{}, {absent_inverted});
  EXPECT_EQ(r.first[0], 0u);
  EXPECT_EQ(r.first[1], 0u);
  EXPECT_EQ(r.second, bits);
  r = run(kmask::bit_and{}, {kmask::source_mask{da.data(), 2, 0}, absent_inverted});
  EXPECT_EQ(r.second, bits) << "AND with an inverted absent source is all null";
  EXPECT_EQ(kmask::count_set_bits(exec, absent_inverted, 0, 1000), 0);
  EXPECT_EQ(kmask::count_unset_bits(exec, absent_inverted, 0, 1000), 1000);
  // The helpers and the aggregate form.
  const kmask::source_mask plain{da.data(), 2, 5};
  EXPECT_FALSE(plain.invert);
  const auto i = kmask::inverted(da, 7);
  EXPECT_TRUE(i.invert);
  EXPECT_EQ(i.words, da.data());
  EXPECT_EQ(i.extent_words, 2);
  EXPECT_EQ(i.begin_bit, 7);
  EXPECT_FALSE(kmask::inverted(i).invert);
  EXPECT_TRUE(kmask::inverted(view_t<TEST_EXECSPACE>()).invert);
  EXPECT_EQ(kmask::inverted(view_t<TEST_EXECSPACE>()).words, nullptr);
}

// In place: an inverted source that is its own destination from bit 0 (no copy) and one that is
// another segment's destination (staged) read what the destinations held before the call.
TEST(TEST_CATEGORY, inverted_sources_aliasing_destinations) {
  const auto seed = base_seed() + 1502;
  SCOPED_TRACE(seed_note(seed));
  TEST_EXECSPACE exec;
  std::mt19937_64 rng(seed);
  for (size_type bits : {size_type{33}, size_type{1000}, size_type{70001}}) {
    const size_type words = kmask::num_words(bits), stride = words + 1;
    ref::words before = random_words(rng, static_cast<std::size_t>(2 * stride));
    const auto backing = to_device<TEST_EXECSPACE>(before);
    const auto other   = random_words(rng, static_cast<std::size_t>(words + 1));
    const auto dother  = to_device<TEST_EXECSPACE>(other);
    const std::vector<kmask::dest_mask> dests{{backing.data(), words}, {backing.data() + stride, words}};
    // Segment 0: NOT itself AND other; segment 1: other(begin 5) OR NOT destination 0 from bit 3.
    const std::vector<kmask::source_mask> srcs{{backing.data(), 2 * stride, 0, true},
                                               {dother.data(), words + 1, 0, false},
                                               {dother.data(), words + 1, 5, false},
                                               {backing.data(), 2 * stride, 3, true}};
    const auto counts = poisoned_counts<TEST_EXECSPACE>(2);
    kmask::inplace_segmented_binop(exec, kmask::bit_or{}, dests, srcs, bits, {0, 2, 4}, counts);
    exec.fence();
    const auto got = to_host(backing);
    const auto cnt = counts_to_host(counts);
    const ref::read_source s0{&before, 0, true}, s1{&other, 0, false}, s2{&other, 5, false}, s3{&before, 3, true};
    const auto e0 = ref::combine_read(ref::op::or_, {s0, s1}, bits);
    const auto e1 = ref::combine_read(ref::op::or_, {s2, s3}, bits);
    for (size_type w = 0; w < words; ++w) {
      ASSERT_EQ(got[w], e0.mask[w]) << "bits " << bits << " segment 0 word " << w;
      ASSERT_EQ(got[stride + w], e1.mask[w]) << "bits " << bits << " segment 1 word " << w;
    }
    ASSERT_EQ(got[words], before[words]) << "the word between the destinations was written";
    ASSERT_EQ(got[2 * stride - 1], before[2 * stride - 1]) << "the word after destination 1 was written";
    EXPECT_EQ(cnt[0], e0.nulls);
    EXPECT_EQ(cnt[1], e1.nulls);
  }
}

TEST(TEST_CATEGORY, inverted_parent_in_superimpose_nulls) {
  const auto seed = base_seed() + 1503;
  SCOPED_TRACE(seed_note(seed));
  TEST_EXECSPACE exec;
  std::mt19937_64 rng(seed);
  for (size_type bits : inv::sizes()) {
    for (int absent = 0; absent < 2; ++absent) {
      inv::mask_source parent = inv::random_source(rng, bits, false);
      parent.invert           = true;
      parent.absent           = absent == 1;
      const size_type words = kmask::num_words(bits), n = 3;
      std::vector<ref::words> before;
      std::vector<view_t<TEST_EXECSPACE>> kids;
      std::vector<kmask::dest_mask> children;
      for (size_type k = 0; k < n; ++k) {
        before.push_back(random_words(rng, static_cast<std::size_t>(words + 1)));
        kids.push_back(to_device<TEST_EXECSPACE>(before.back()));
        children.push_back({kids.back().data(), words});
      }
      const auto counts = poisoned_counts<TEST_EXECSPACE>(n);
      kmask::superimpose_nulls(exec, parent.as_source(), children, bits, counts);
      exec.fence();
      const auto cnt = counts_to_host(counts);
      for (size_type k = 0; k < n; ++k) {
        const auto e   = ref::combine_read(ref::op::and_, {{&before[k], 0, false}, parent.as_read()}, bits);
        const auto got = to_host(kids[k]);
        for (size_type w = 0; w < words; ++w)
          ASSERT_EQ(got[w], e.mask[w]) << "bits " << bits << " absent " << absent << " child " << k << " word " << w;
        ASSERT_EQ(got[words], before[k][words]) << "the word past child " << k << " was written";
        ASSERT_EQ(cnt[k], e.nulls) << "bits " << bits << " child " << k;
      }
    }
  }
}

TEST(TEST_CATEGORY, inverted_sources_in_copy_bitmask_and_counts) {
  const auto seed = base_seed() + 1504;
  SCOPED_TRACE(seed_note(seed));
  TEST_EXECSPACE exec;
  std::mt19937_64 rng(seed);
  for (size_type bits : inv::sizes()) {
    for (int rep = 0; rep < 3; ++rep) {
      inv::mask_source m = inv::random_source(rng, bits + 250);
      m.invert           = true;
      const size_type b = static_cast<size_type>(rng() % 201), e = b + bits;
      // copy_bitmask: bits [b, e) of the complement, bits past them and padding zero.
      const auto out = to_host(kmask::copy_bitmask(exec, m.as_source(), b, e));
      const ref::read_source from{m.absent ? nullptr : &m.host, m.begin + b, true};
      const auto want = ref::combine_read(ref::op::or_, {from}, bits);
      ASSERT_EQ(out.size(), static_cast<std::size_t>(kmask::allocation_size_bytes(bits) / 4));
      for (std::size_t w = 0; w < out.size(); ++w)
        ASSERT_EQ(out[w], w < want.mask.size() ? want.mask[w] : 0u) << "copy_bitmask bits " << bits << " word " << w;
      // Counts of the complement.
      const size_type set = ref::count_set_read(from, bits);
      ASSERT_EQ(kmask::count_set_bits(exec, m.as_source(), b, e), set) << "bits " << bits;
      ASSERT_EQ(kmask::count_unset_bits(exec, m.as_source(), b, e), bits - set) << "bits " << bits;
      // Segmented counts over a few ranges of the complement.
      std::vector<size_type> ranges;
      for (int r = 0; r < 5; ++r) {
        const size_type rb = static_cast<size_type>(rng() % (bits + 1)) + b;
        ranges.push_back(rb);
        ranges.push_back(rb + static_cast<size_type>(rng() % (e - rb + 1)));
      }
      const auto cs = counts_to_host(kmask::segmented_count_set_bits(exec, m.as_source(), ranges));
      const auto cu = counts_to_host(kmask::segmented_count_unset_bits(exec, m.as_source(), ranges));
      for (std::size_t r = 0; r < ranges.size() / 2; ++r) {
        const ref::read_source at{m.absent ? nullptr : &m.host, m.begin + ranges[2 * r], true};
        const size_type len = ranges[2 * r + 1] - ranges[2 * r], want_set = ref::count_set_read(at, len);
        ASSERT_EQ(cs[r], want_set) << "segmented_count_set_bits range " << r;
        ASSERT_EQ(cu[r], len - want_set) << "segmented_count_unset_bits range " << r;
      }
    }
  }
}

// The GPU form's 8-byte reference keeps the invert flag beside every canonical address and bit
// offset, and refuses an address whose top five bits disagree.
TEST(TEST_CATEGORY, packed_source_references_hold_the_invert_flag) {
  using kmask::detail::packed_source_ref;
  using kmask::detail::positioned_source;
  using kmask::detail::source_ref;
  for (std::uint64_t address : {std::uint64_t{0x1000}, std::uint64_t{0x00007ffffffff000},
                                std::uint64_t{0x00ffffffffff0000}, std::uint64_t{0xff00000000001000},
                                std::uint64_t{0xfffffffffffff000}})
    for (size_type begin : {0, 1, 31, 32, 33, 1000})
      for (bool invert : {false, true}) {
        const auto* data = reinterpret_cast<const word_type*>(static_cast<std::uintptr_t>(address));
        packed_source_ref packed{0};
        ASSERT_TRUE(packed.pack(data, begin, invert)) << std::hex << address;
        EXPECT_EQ(packed.first(), data + begin / 32);
        EXPECT_EQ(packed.shift(), begin % 32);
        EXPECT_EQ(packed.flip(), invert ? ~word_type{0} : 0u);
        const source_ref full{data, begin | (invert ? source_ref::invert_flag : 0)};
        const positioned_source a(packed, 100), b(full, 100);
        EXPECT_EQ(a.first, b.first);
        EXPECT_EQ(a.shift, b.shift);
        EXPECT_EQ(a.last, b.last);
        EXPECT_EQ(a.flip, b.flip);
      }
  packed_source_ref packed{12345};
  EXPECT_FALSE(packed.pack(reinterpret_cast<const word_type*>(std::uintptr_t{0x0800000000000000}), 3, true));
  EXPECT_EQ(packed.bits, 12345u);
}

// ---------------------------------------------------------------------------------------------
// Batch counts.

TEST(TEST_CATEGORY, batch_counts_match_the_reference) {
  const auto seed = base_seed() + 1505;
  SCOPED_TRACE(seed_note(seed));
  TEST_EXECSPACE exec;
  std::mt19937_64 rng(seed);
  for (size_type n : {0, 1, 7, 3000}) {
    std::vector<inv::mask_source> ms;
    std::vector<size_type> sizes;
    for (size_type j = 0; j < n; ++j) {
      const size_type bits = n > 100 ? static_cast<size_type>(rng() % 300)
                                     : inv::sizes()[static_cast<std::size_t>(rng() % inv::sizes().size())];
      sizes.push_back(bits);
      ms.push_back(inv::random_source(rng, bits));
    }
    if (n >= 7) {  // a repeated mask, and the longest sizes
      ms[1] = ms[0];
      sizes[1] = sizes[0];
    }
    std::vector<kmask::source_mask> raw;
    std::vector<Kokkos::View<const word_type*, inv::MS>> views;
    std::vector<size_type> begins;
    for (const auto& m : ms) {
      raw.push_back(m.as_source());
      views.push_back(m.dev);
      begins.push_back(m.begin);
    }
    const auto unset     = counts_to_host(kmask::batch_count_unset_bits(exec, raw, sizes));
    const auto set       = counts_to_host(kmask::batch_count_set_bits(exec, raw, sizes));
    const auto vunset    = counts_to_host(kmask::batch_count_unset_bits(exec, views, begins, sizes));
    const auto vset      = counts_to_host(kmask::batch_count_set_bits(exec, views, begins, sizes));
    ASSERT_EQ(static_cast<size_type>(unset.size()), n);
    ASSERT_EQ(static_cast<size_type>(vset.size()), n);
    for (size_type j = 0; j < n; ++j) {
      const size_type want = ref::count_set_read(ms[j].as_read(), sizes[j]);
      ASSERT_EQ(set[j], want) << "n " << n << " mask " << j << " size " << sizes[j] << " invert " << ms[j].invert;
      ASSERT_EQ(unset[j], sizes[j] - want) << "n " << n << " mask " << j;
      // The view form reads no invert flag: the plain mask (a null view all valid).
      ref::read_source plain = ms[j].as_read();
      plain.invert           = false;
      const size_type want_plain = ref::count_set_read(plain, sizes[j]);
      ASSERT_EQ(vset[j], want_plain) << "view form, n " << n << " mask " << j;
      ASSERT_EQ(vunset[j], sizes[j] - want_plain) << "view form, n " << n << " mask " << j;
    }
  }
}

// Masks given by pointer at every word offset from an aligned allocation, so the GPU form's
// teams start off and on 16-byte boundaries (words before a team's first 16-byte unit and after
// its last), with ranges of one word, a few words, and many teams of several passes.
TEST(TEST_CATEGORY, batch_counts_of_masks_at_every_word_alignment) {
  const auto seed = base_seed() + 1507;
  SCOPED_TRACE(seed_note(seed));
  TEST_EXECSPACE exec;
  std::mt19937_64 rng(seed);
  const std::vector<size_type> lengths{1, 31, 33, 100, 4096 * 32 + 5, (size_type{1} << 21) + 77, 0, 3 * 65536 + 9};
  std::vector<ref::words> hosts;
  std::vector<view_t<TEST_EXECSPACE>> devs;
  std::vector<kmask::source_mask> raw;
  std::vector<size_type> sizes, begins;
  for (std::size_t skew = 0; skew < 4; ++skew)
    for (size_type bits : lengths) {
      const size_type begin = static_cast<size_type>(rng() % 200);
      const std::size_t words = static_cast<std::size_t>(kmask::num_words(begin + bits));
      hosts.push_back(random_words(rng, words + skew));
      devs.push_back(to_device<TEST_EXECSPACE>(hosts.back()));
      raw.push_back({devs.back().data() + skew, static_cast<size_type>(words), begin});
      sizes.push_back(bits);
      begins.push_back(begin);
    }
  const auto set   = counts_to_host(kmask::batch_count_set_bits(exec, raw, sizes));
  const auto unset = counts_to_host(kmask::batch_count_unset_bits(exec, raw, sizes));
  for (std::size_t j = 0; j < raw.size(); ++j) {
    const std::size_t skew = j / lengths.size();
    const ref::words seen(hosts[j].begin() + static_cast<std::ptrdiff_t>(skew), hosts[j].end());
    const size_type want = ref::count_set(seen, begins[j], begins[j] + sizes[j]);
    EXPECT_EQ(set[j], want) << "skew " << skew << " words, begin " << begins[j] << ", " << sizes[j] << " bits";
    EXPECT_EQ(unset[j], sizes[j] - want) << "skew " << skew << " words, begin " << begins[j];
  }
}

TEST(TEST_CATEGORY, batch_counts_of_wide_masks_and_the_default_space) {
  const auto seed = base_seed() + 1506;
  SCOPED_TRACE(seed_note(seed));
  TEST_EXECSPACE exec;
  std::mt19937_64 rng(seed);
  // Masks of many teams each, inverted and not, beside tiny ones.
  std::vector<inv::mask_source> ms;
  std::vector<size_type> sizes{(size_type{1} << 21) + 13, 5, (size_type{1} << 20) + 1, 0, 64};
  for (size_type bits : sizes) ms.push_back(inv::random_source(rng, bits, false));
  ms[0].invert = true;
  ms[2].invert = false;
  std::vector<kmask::source_mask> raw;
  for (const auto& m : ms) raw.push_back(m.as_source());
  const auto got = counts_to_host(kmask::batch_count_unset_bits(exec, raw, sizes));
  for (std::size_t j = 0; j < ms.size(); ++j)
    EXPECT_EQ(got[j], sizes[j] - ref::count_set_read(ms[j].as_read(), sizes[j])) << "mask " << j;
  // Default-space overloads: the views' memory space's execution space.
  const std::vector<view_t<TEST_EXECSPACE>> views{ms[0].dev, ms[1].dev};
  const std::vector<size_type> begins{ms[0].begin, ms[1].begin}, two{sizes[0], sizes[1]};
  const auto dset   = counts_to_host(kmask::batch_count_set_bits(views, begins, two));
  const auto dunset = counts_to_host(kmask::batch_count_unset_bits(views, begins, two));
  for (std::size_t j = 0; j < 2; ++j) {
    ref::read_source plain = ms[j].as_read();
    plain.invert           = false;
    EXPECT_EQ(dset[j], ref::count_set_read(plain, two[j]));
    EXPECT_EQ(dunset[j], two[j] - ref::count_set_read(plain, two[j]));
  }
}

namespace {
KOKKOS_INLINE_FUNCTION word_type batch_pattern(size_type w) {
  std::uint64_t x = static_cast<std::uint64_t>(w) * 0x9E3779B97F4A7C15ull + 5;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return static_cast<word_type>(x);
}
// A mask of `words` words holding batch_pattern, ready on `exec`. Outside the TEST body: a device
// lambda may not sit in the private member function it expands to.
view_t<TEST_EXECSPACE> batch_pattern_mask(const TEST_EXECSPACE& exec, size_type words) {
  view_t<TEST_EXECSPACE> a(Kokkos::view_alloc(Kokkos::WithoutInitializing, "a"), words);
  Kokkos::parallel_for(
      Kokkos::RangePolicy<TEST_EXECSPACE, Kokkos::IndexType<size_type>>(exec, 0, a.extent(0)),
      KOKKOS_LAMBDA(size_type w) { a(w) = batch_pattern(w); });
  exec.fence();
  return a;
}
// The set bits of the pattern's bits [offset, offset + bits), on the host word by word.
size_type batch_pattern_set_bits(size_type offset, size_type bits) {
  const size_type end = offset + bits;
  size_type set       = 0;
  for (size_type w = 0; w < kmask::num_words(end); ++w) {
    word_type v = batch_pattern(w);
    if (w == 0) v &= ~word_type{0} << offset;
    if (w == (end - 1) / 32 && end % 32 != 0) v &= (word_type{1} << (end % 32)) - 1;
    set += __builtin_popcount(v);
  }
  return set;
}
}  // namespace

TEST(TEST_CATEGORY, batch_counts_of_masks_longer_than_2_to_the_32_bits) {
  if (std::getenv("KMASK_TEST_SKIP_HUGE")) GTEST_SKIP() << "KMASK_TEST_SKIP_HUGE is set (needs ~0.6 GB)";
  TEST_EXECSPACE exec;
  const size_type bits = (size_type{1} << 32) + 77, offset = 19;
  const size_type words = kmask::num_words(bits + offset);
  const auto a          = batch_pattern_mask(exec, words);
  const size_type set   = batch_pattern_set_bits(offset, bits);
  // The huge mask between two small ones, and again inverted, and a window across the 2^32 boundary.
  const size_type lo = (size_type{1} << 32) - 1000;
  size_type window_set = 0;
  {
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, Kokkos::subview(a, std::make_pair(
                                                              (lo + offset) / 32, words)));
    for (size_type i = lo; i < bits; ++i) {
      const size_type p = offset + i;
      window_set += (host(p / 32 - (lo + offset) / 32) >> (p % 32)) & 1u;
    }
  }
  const std::vector<kmask::source_mask> masks{{a.data(), 1, 3},
                                              {a.data(), words, offset},
                                              kmask::inverted(a, offset),
                                              {a.data(), words, offset + lo},
                                              {a.data(), 1, 0, true}};
  const std::vector<size_type> sizes{20, bits, bits, bits - lo, 32};
  const auto unset = counts_to_host(kmask::batch_count_unset_bits(exec, masks, sizes));
  EXPECT_EQ(unset[1], bits - set);
  EXPECT_EQ(unset[2], set);
  EXPECT_EQ(unset[3], (bits - lo) - window_set);
  EXPECT_EQ(unset[0], 20 - __builtin_popcount((batch_pattern(0) >> 3) & ((1u << 20) - 1)));
  EXPECT_EQ(unset[4], __builtin_popcount(batch_pattern(0)));
}

// A mask of one range with more parts than the packed ticket's 15 bits count (team_total.hpp):
// on a GPU a part is a warp, and 2^33 bits take 4096 teams of 8 warps, so that range's count
// goes through the two-word ticket instead. Set and unset, plain and inverted.
TEST(TEST_CATEGORY, batch_counts_past_the_packed_tickets_parts) {
  if (kmask::detail::runs_on_host<TEST_EXECSPACE>())
    GTEST_SKIP() << "a host team is one part: a range reaches 2^15 parts only past 2^40 bits";
  if (std::getenv("KMASK_TEST_SKIP_HUGE")) GTEST_SKIP() << "KMASK_TEST_SKIP_HUGE is set (needs ~1.1 GB)";
  TEST_EXECSPACE exec;
  const size_type bits = (size_type{1} << 33) + 45, offset = 7;
  const size_type words = kmask::num_words(bits + offset);
  const auto a          = batch_pattern_mask(exec, words);
  const size_type set   = batch_pattern_set_bits(offset, bits);
  const std::vector<kmask::source_mask> masks{{a.data(), words, offset}, kmask::inverted(a, offset)};
  const std::vector<size_type> sizes{bits, bits};
  const auto unset = counts_to_host(kmask::batch_count_unset_bits(exec, masks, sizes));
  const auto counted = counts_to_host(kmask::batch_count_set_bits(exec, masks, sizes));
  EXPECT_EQ(unset[0], bits - set);
  EXPECT_EQ(unset[1], set);
  EXPECT_EQ(counted[0], set);
  EXPECT_EQ(counted[1], bits - set);
}

// The new rows of README's error table: the exception, a message naming the function and the
// argument, and nothing changed (the sources keep their contents).
TEST(TEST_CATEGORY, batch_count_errors) {
  TEST_EXECSPACE exec;
  const ref::words h{0x12345678u, 0x9abcdef0u, 0x0fu, 0xf0u};
  const auto m = to_device<TEST_EXECSPACE>(h);
  const std::vector<Kokkos::View<const word_type*, inv::MS>> views{m, m, m};
  const auto expect = [&](auto&& call, const std::type_info& type, const std::string& message) {
    inv::expect_refused(call, type, message, [&] { EXPECT_EQ(to_host(m), h) << "a source changed"; });
  };
  const std::string u = "kmask::batch_count_unset_bits: ", s = "kmask::batch_count_set_bits: ";
  expect([&] { kmask::batch_count_unset_bits(exec, views, {0, 1, 2}, {1, 2}); }, typeid(std::invalid_argument),
         u + "sizes_bits.size() = 2 differs from masks.size() = 3");
  expect([&] { kmask::batch_count_set_bits(exec, views, {0, 1}, {1, 2, 3}); }, typeid(std::invalid_argument),
         s + "masks.size() = 3 differs from begin_bits.size() = 2");
  expect([&] { kmask::batch_count_set_bits(exec, views, {0, 1, 2}, {1, -1, 3}); }, typeid(std::invalid_argument),
         s + "sizes_bits[1] = -1 is negative");
  expect([&] { kmask::batch_count_unset_bits(exec, views, {0, 1, 2}, {1, 2, size_type{1} << 62}); },
         typeid(std::invalid_argument), u + "sizes_bits[2] = 4611686018427387904 is too large");
  expect([&] { kmask::batch_count_unset_bits(exec, views, {0, 29, 2}, {1, 100, 3}); }, typeid(std::out_of_range),
         u + "begin_bits[1] + sizes_bits[1] = 29 + 100 is past the 128 bits of masks[1] (4 words)");
  expect([&] { kmask::batch_count_unset_bits(exec, views, {0, -1, 2}, {1, 1, 3}); }, typeid(std::invalid_argument),
         u + "begin_bits[1] = -1 is negative");
  const std::vector<kmask::source_mask> raw{{m.data(), 4, 0}, {m.data(), 4, 100, true}, {nullptr, 4, 0}};
  expect([&] { kmask::batch_count_set_bits(exec, raw, {1, 29, 0}); }, typeid(std::out_of_range),
         s + "masks[1].begin_bit + sizes_bits[1] = 100 + 29 is past the 128 bits of masks[1] (4 words)");
  expect([&] { kmask::batch_count_set_bits(exec, raw, {1, 2, 0}); }, typeid(std::invalid_argument),
         s + "masks[2] is a null pointer but its extent is 4 words (only an empty null mask reads as all valid)");
  expect([&] { kmask::batch_count_unset_bits(exec, raw, {1}); }, typeid(std::invalid_argument),
         u + "sizes_bits.size() = 1 differs from masks.size() = 3");
  const std::vector<kmask::source_mask> negative{{m.data(), -2, 0}};
  expect([&] { kmask::batch_count_unset_bits(exec, negative, {1}); }, typeid(std::invalid_argument),
         u + "masks[0].extent_words = -2 is negative");
}

// The in-place batch counts: into the caller's view, entries past the batch untouched, for batches
// that travel in the launch's arguments (up to 128 masks on the GPU form) and longer ones, with masks
// of several teams each; twice into the same view, and between allocating calls, since the per-mask
// totals and tickets of the arguments' form live in memory that each launch must leave zero.
TEST(TEST_CATEGORY, inplace_batch_counts_match_the_reference) {
  const auto seed = base_seed() + 1512;
  SCOPED_TRACE(seed_note(seed));
  TEST_EXECSPACE exec;
  std::mt19937_64 rng(seed);
  for (size_type n : {1, 6, 128, 129, 600}) {
    std::vector<inv::mask_source> ms;
    std::vector<size_type> sizes;
    for (size_type j = 0; j < n; ++j) {
      // Every 40th mask several teams long on every form (the emulated GPU form's teams read 65536 words).
      const size_type bits = j % 40 == 3 ? (size_type{1} << 21) + 1 + static_cast<size_type>(rng() % 5000)
                                         : inv::sizes()[static_cast<std::size_t>(rng() % inv::sizes().size())];
      sizes.push_back(bits);
      ms.push_back(inv::random_source(rng, bits));
    }
    std::vector<kmask::source_mask> raw;
    std::vector<Kokkos::View<const word_type*, inv::MS>> views;
    std::vector<size_type> begins, want, want_plain;
    for (std::size_t j = 0; j < ms.size(); ++j) {
      raw.push_back(ms[j].as_source());
      views.push_back(ms[j].dev);
      begins.push_back(ms[j].begin);
      want.push_back(ref::count_set_read(ms[j].as_read(), sizes[j]));
      ref::read_source plain = ms[j].as_read();  // the view form reads no invert flag
      plain.invert           = false;
      want_plain.push_back(ref::count_set_read(plain, sizes[j]));
    }
    const auto counts = poisoned_counts<TEST_EXECSPACE>(n + 3);
    const auto check  = [&](const char* what, bool unset, const std::vector<size_type>& set) {
      const auto got = counts_to_host(counts);
      for (size_type j = 0; j < n; ++j) {
        const auto k = static_cast<std::size_t>(j);
        ASSERT_EQ(got[k], unset ? sizes[k] - set[k] : set[k]) << what << ", n " << n << " mask " << j;
      }
      for (size_type j = n; j < n + 3; ++j)
        EXPECT_EQ(got[static_cast<std::size_t>(j)], -777) << what << ": written past the batch";
    };
    for (int rep = 0; rep < 2; ++rep) {
      kmask::inplace_batch_count_unset_bits(exec, raw, sizes, counts);
      check("raw unset", true, want);
      kmask::inplace_batch_count_set_bits(exec, raw, sizes, counts);
      check("raw set", false, want);
      (void)kmask::batch_count_set_bits(exec, raw, sizes);
      kmask::inplace_batch_count_unset_bits(exec, views, begins, sizes, counts);
      check("view unset", true, want_plain);
      kmask::inplace_batch_count_set_bits(exec, views, begins, sizes, counts);
      check("view set", false, want_plain);
    }
    // Default-space forms: the views' memory space's execution space.
    kmask::inplace_batch_count_unset_bits(views, begins, sizes, counts);
    check("default-space unset", true, want_plain);
    kmask::inplace_batch_count_set_bits(views, begins, sizes, counts);
    check("default-space set", false, want_plain);
  }
}

// A bad counts view is refused with the batch's other checks, and nothing is written: neither
// the counts nor, for a bad mask, the counts view the call was given.
TEST(TEST_CATEGORY, inplace_batch_count_errors) {
  TEST_EXECSPACE exec;
  const ref::words h{0x12345678u, 0x9abcdef0u, 0x0fu, 0xf0u};
  const auto m = to_device<TEST_EXECSPACE>(h);
  const std::vector<Kokkos::View<const word_type*, inv::MS>> views{m, m, m};
  const std::vector<kmask::source_mask> raw{{m.data(), 4, 0}, {m.data(), 4, 3}, {m.data(), 4, 100, true}};
  const auto counts = poisoned_counts<TEST_EXECSPACE>(3);
  const auto expect = [&](auto&& call, const std::type_info& type, const std::string& message) {
    inv::expect_refused(call, type, message, [&] {
      exec.fence();
      EXPECT_EQ(counts_to_host(counts), std::vector<size_type>(3, -777)) << "a count was written";
      EXPECT_EQ(to_host(m), h) << "a source changed";
    });
  };
  const std::string u = "kmask::inplace_batch_count_unset_bits: ", s = "kmask::inplace_batch_count_set_bits: ";
  const Kokkos::View<size_type*, inv::MS> none;
  const Kokkos::View<size_type*, inv::MS> two = Kokkos::subview(counts, std::make_pair(0, 2));
  expect([&] { kmask::inplace_batch_count_unset_bits(exec, views, {0, 1, 2}, {1, 2, 3}, none); },
         typeid(std::invalid_argument), u + "counts is a null view but 3 counts are written to it");
  expect([&] { kmask::inplace_batch_count_set_bits(exec, raw, {1, 2, 3}, two); }, typeid(std::out_of_range),
         s + "counts.extent(0) = 2 is less than the 3 needed");
  // The masks are checked before the counts view: a bad mask is named even with a bad view.
  expect([&] { kmask::inplace_batch_count_set_bits(exec, raw, {1, 2, 29}, none); }, typeid(std::out_of_range),
         s + "masks[2].begin_bit + sizes_bits[2] = 100 + 29 is past the 128 bits of masks[2] (4 words)");
  expect([&] { kmask::inplace_batch_count_unset_bits(exec, views, {0, 1}, {1, 2, 3}, counts); },
         typeid(std::invalid_argument), u + "masks.size() = 3 differs from begin_bits.size() = 2");
  expect([&] { kmask::inplace_batch_count_unset_bits(exec, views, {0, 1, 2}, {1, -2, 3}, counts); },
         typeid(std::invalid_argument), u + "sizes_bits[1] = -2 is negative");
  // An empty batch writes nothing and needs no view.
  kmask::inplace_batch_count_unset_bits(exec, std::vector<kmask::source_mask>{}, {}, none);
  EXPECT_EQ(counts_to_host(counts), std::vector<size_type>(3, -777));
}

// One launch per batch, labelled under the call's region; the counts its one allocation.
TEST(TEST_CATEGORY, batch_counts_held_across_many_calls) {
  // Results held while later calls run (each call's counts are its own), a batch of thousands of
  // masks, and the stride between masks' teams.
  const auto seed = base_seed() + 1511;
  SCOPED_TRACE(seed_note(seed));
  TEST_EXECSPACE exec;
  std::mt19937_64 rng(seed);
  const size_type arena = 4096;  // masks of the large batch, less 5
  std::vector<inv::mask_source> ms;
  std::vector<size_type> sizes;
  for (int j = 0; j < 40; ++j) {
    sizes.push_back(j % 5 == 0 ? 40000 + static_cast<size_type>(rng() % 3000) : static_cast<size_type>(rng() % 200));
    ms.push_back(inv::random_source(rng, sizes.back()));
  }
  std::vector<kmask::source_mask> raw;
  for (const auto& m : ms) raw.push_back(m.as_source());
  std::vector<size_type> want;
  for (std::size_t j = 0; j < ms.size(); ++j) want.push_back(ref::count_set_read(ms[j].as_read(), sizes[j]));
  // Calls rotating the batch by one mask each, every result kept.
  std::vector<Kokkos::View<size_type*, inv::MS>> kept;
  const int calls = static_cast<int>(3 * arena / static_cast<size_type>(ms.size())) + 2;
  for (int c = 0; c < calls; ++c) {
    std::rotate(raw.begin(), raw.begin() + 1, raw.end());
    std::rotate(sizes.begin(), sizes.begin() + 1, sizes.end());
    kept.push_back(kmask::batch_count_set_bits(exec, raw, sizes));
  }
  // One batch of thousands of masks, then a dropped result.
  std::vector<kmask::source_mask> big_raw;
  std::vector<size_type> big_sizes;
  for (size_type j = 0; j < arena + 5; ++j) {
    big_raw.push_back(raw[static_cast<std::size_t>(j) % raw.size()]);
    big_sizes.push_back(sizes[static_cast<std::size_t>(j) % sizes.size()]);
  }
  const auto big = counts_to_host(kmask::batch_count_unset_bits(exec, big_raw, big_sizes));
  (void)kmask::batch_count_set_bits(exec, raw, sizes);
  for (int c = 0; c < calls; ++c) {
    const auto got = counts_to_host(kept[static_cast<std::size_t>(c)]);
    for (std::size_t j = 0; j < ms.size(); ++j) {
      const std::size_t at = (j + static_cast<std::size_t>(c) + 1) % ms.size();
      ASSERT_EQ(got[j], want[at]) << "call " << c << " mask " << j;
    }
  }
  // After the calls above, raw[j] is mask (j + calls) % 40.
  for (std::size_t j = 0; j < big.size(); ++j) {
    const std::size_t at = (j % ms.size() + static_cast<std::size_t>(calls)) % ms.size();
    ASSERT_EQ(big[j], sizes[j % sizes.size()] - want[at]) << "large batch, mask " << j;
  }
}

TEST(TEST_CATEGORY, batch_count_is_one_labelled_launch) {
  namespace pl = profiling_labels;
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 1507;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  std::vector<inv::mask_source> ms;
  std::vector<size_type> sizes{100000, 33, 0, 5000, 70001};
  for (size_type bits : sizes) ms.push_back(inv::random_source(rng, bits));
  ms[1].absent = true;
  ms[3].invert = true;
  std::vector<kmask::source_mask> raw;
  for (const auto& m : ms) raw.push_back(m.as_source());
  exec.fence();
  for (const char* fn : {"kmask::batch_count_unset_bits", "kmask::batch_count_set_bits"}) {
    const bool unset = std::string(fn) == "kmask::batch_count_unset_bits";
    const auto call  = [&] {
      return unset ? kmask::batch_count_unset_bits(exec, raw, sizes) : kmask::batch_count_set_bits(exec, raw, sizes);
    };
    call();  // unrecorded: the staging buffer and Kokkos' team scratch grow here, not below
    exec.fence();
    Kokkos::View<size_type*, inv::MS> counts;
    {
      pl::recording rec;
      counts = call();
      rec.stop();
    }
    std::vector<std::string> kernels, allocations, regions;
    for (const auto& e : pl::recorder().events) {
      if (e.kind == pl::event::kernel) {
        kernels.push_back(e.name);
        EXPECT_TRUE(!e.regions.empty() && e.regions.back() == fn) << pl::describe(e);
      }
      // Kokkos 4's team launches allocate its own team scratch (see profiling_labels): not kmask's.
      if (e.kind == pl::event::allocation && pl::classify(e) != pl::verdict::kokkos_internal)
        allocations.push_back(e.name);
      if (e.kind == pl::event::region) regions.push_back(e.name);
    }
    EXPECT_EQ(kernels, std::vector<std::string>{std::string(fn) + "::words"});
    EXPECT_EQ(allocations, std::vector<std::string>{std::string(fn) + "::counts"});
    EXPECT_EQ(regions, std::vector<std::string>{fn});
    const auto got = counts_to_host(counts);
    for (std::size_t j = 0; j < ms.size(); ++j) {
      const size_type set = ref::count_set_read(ms[j].as_read(), sizes[j]);
      EXPECT_EQ(got[j], unset ? sizes[j] - set : set) << fn << " mask " << j;
    }
  }
  // The in-place forms: the same one launch, and nothing allocated once warm.
  const auto counts = poisoned_counts<TEST_EXECSPACE>(static_cast<size_type>(ms.size()));
  for (const char* fn : {"kmask::inplace_batch_count_unset_bits", "kmask::inplace_batch_count_set_bits"}) {
    const bool unset = std::string(fn) == "kmask::inplace_batch_count_unset_bits";
    const auto call  = [&] {
      if (unset) kmask::inplace_batch_count_unset_bits(exec, raw, sizes, counts);
      else kmask::inplace_batch_count_set_bits(exec, raw, sizes, counts);
    };
    call();
    exec.fence();
    {
      pl::recording rec;
      call();
      rec.stop();
    }
    std::vector<std::string> kernels, allocations;
    for (const auto& e : pl::recorder().events) {
      if (e.kind == pl::event::kernel) kernels.push_back(e.name);
      if (e.kind == pl::event::allocation && pl::classify(e) != pl::verdict::kokkos_internal)
        allocations.push_back(e.name);
    }
    EXPECT_EQ(kernels, std::vector<std::string>{std::string(fn) + "::words"});
    EXPECT_EQ(allocations, std::vector<std::string>{});
    const auto got = counts_to_host(counts);
    for (std::size_t j = 0; j < ms.size(); ++j) {
      const size_type set = ref::count_set_read(ms[j].as_read(), sizes[j]);
      EXPECT_EQ(got[j], unset ? sizes[j] - set : set) << fn << " mask " << j;
    }
  }
}
