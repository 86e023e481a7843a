// The invert flag of source_mask in the calls that came after it was added: copy_bits,
// segmented_copy_bits, concatenate, mask_to_bools and gather_bits read an inverted source
// complemented (an inverted absent source as all null), against ref::read_bit.

namespace {
namespace inverted_new {

using MS    = typename TEST_EXECSPACE::memory_space;
using cview = Kokkos::View<const word_type*, MS>;

// Bits [0, size) of a source as a call reads it.
inline ref::words read_bits(const ref::read_source& s, std::int64_t size) {
  ref::words w(static_cast<std::size_t>((size + 31) / 32), 0u);
  for (std::int64_t i = 0; i < size; ++i) ref::set_bit(w, i, ref::read_bit(s, i));
  return w;
}

inline kmask::source_mask raw_source(const cview& v, size_type begin, bool invert) {
  return kmask::source_mask{v.data(), static_cast<size_type>(v.extent(0)), v.data() == nullptr ? 0 : begin, invert};
}

}  // namespace inverted_new
}  // namespace

TEST(TEST_CATEGORY, inverted_sources_in_copy_and_concatenate) {
  using namespace inverted_new;
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 1601;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 40; ++iter) {
    const size_type size = static_cast<size_type>(rng() % 300), db = static_cast<size_type>(rng() % 70),
                    sb = static_cast<size_type>(rng() % 70);
    const bool absent = iter % 9 == 4;
    const auto shost  = random_words(rng, static_cast<std::size_t>(kmask::num_words(sb + size) + 1));
    auto dhost        = random_words(rng, static_cast<std::size_t>(kmask::num_words(db + size) + 1));
    const cview src   = absent ? cview() : cview(to_device<TEST_EXECSPACE>(shost));
    SCOPED_TRACE(::testing::Message() << "copy " << size << " inverted bits from " << sb << " to " << db
                                      << (absent ? " (absent source)" : ""));
    const ref::read_source rs{absent ? nullptr : &shost, absent ? 0 : sb, true};
    const auto dest = to_device<TEST_EXECSPACE>(dhost);
    if (iter % 2 == 0) {
      kmask::copy_bits(exec, kmask::dest_mask{dest.data(), static_cast<size_type>(dest.extent(0))}, db,
                       raw_source(src, sb, true), size);
    } else {
      kmask::segmented_copy_bits(exec, std::vector<kmask::dest_mask>{{dest.data(), static_cast<size_type>(dest.extent(0))}},
                                 std::vector<size_type>{db}, std::vector<kmask::source_mask>{raw_source(src, sb, true)},
                                 std::vector<size_type>{size});
    }
    exec.fence();
    const ref::words inv = read_bits(rs, size);
    ref::copy_range(dhost, db, &inv, 0, size);
    ASSERT_EQ(to_host(dest), dhost) << "copy of an inverted source";

    // concatenate: an inverted piece, then the same piece plain.
    const auto got = kmask::concatenate(exec, std::vector<kmask::source_mask>{raw_source(src, sb, true), raw_source(src, sb, false)},
                                        std::vector<size_type>{size, size});
    exec.fence();
    const ref::words plain = read_bits({rs.m, rs.begin, false}, size);
    const auto want        = ref::concatenate({&inv, &plain}, {0, 0}, {size, size});
    const auto mask        = to_host(got.first);
    ASSERT_GE(mask.size(), want.mask.size());
    EXPECT_EQ(ref::words(mask.begin(), mask.begin() + static_cast<std::ptrdiff_t>(want.mask.size())), want.mask);
    EXPECT_EQ(got.second, want.nulls);
  }
}

TEST(TEST_CATEGORY, inverted_sources_in_mask_to_bools_and_gather) {
  using namespace inverted_new;
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 1602;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 30; ++iter) {
    const size_type size = 1 + static_cast<size_type>(rng() % 400), shift = static_cast<size_type>(rng() % 40);
    const bool absent = iter % 7 == 3;
    const auto host   = random_words(rng, static_cast<std::size_t>(kmask::num_words(shift + size) + 1));
    const cview m     = absent ? cview() : cview(to_device<TEST_EXECSPACE>(host));
    const ref::read_source rs{absent ? nullptr : &host, absent ? 0 : shift, true};
    SCOPED_TRACE(::testing::Message() << size << " inverted bits from " << shift << (absent ? " (absent)" : ""));

    const auto bools = Kokkos::create_mirror_view_and_copy(
        Kokkos::HostSpace{}, kmask::mask_to_bools(exec, raw_source(m, shift, true), 0, size));
    for (size_type i = 0; i < size; ++i) ASSERT_EQ(bools(i) ? 1 : 0, ref::read_bit(rs, i)) << "bool " << i;

    std::vector<std::int64_t> idx(static_cast<std::size_t>(size) + 5);
    for (auto& j : idx) j = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(size + 3)) - 1;  // some out of range
    Kokkos::View<std::int64_t*, MS> dev_idx("test::indices", idx.size());
    auto mirror = Kokkos::create_mirror_view(dev_idx);
    for (std::size_t i = 0; i < idx.size(); ++i) mirror(i) = idx[i];
    Kokkos::deep_copy(dev_idx, mirror);
    const auto got = kmask::gather_bits(exec, raw_source(m, shift, true), 0, size,
                                        Kokkos::View<const std::int64_t*, MS>(dev_idx), kmask::gather_policy::nullify);
    exec.fence();
    const auto words = to_host(got.first);
    size_type nulls  = 0;
    for (std::size_t i = 0; i < idx.size(); ++i) {
      const int want = idx[i] < 0 || idx[i] >= size ? 0 : ref::read_bit(rs, idx[i]);
      nulls += want == 0;
      ASSERT_EQ(static_cast<int>((words[i / 32] >> (i % 32)) & 1u), want) << "gathered bit " << i << " (index " << idx[i] << ")";
    }
    EXPECT_EQ(got.second, nulls);
  }
}
