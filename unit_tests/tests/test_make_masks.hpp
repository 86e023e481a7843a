// Making masks: valid_if, bools_to_mask, mask_to_bools and gather_bits in every form (allocating,
// in place, View and source_mask / dest_mask, default space) against the bit-by-bit reference
// (reference.hpp), with poisoned destinations, the words past them and the counters checked; the
// predicate evaluated exactly once per index; every error with nothing written; masks past 2^32 bits.

#include <cstdint>
#include <limits>

namespace {
namespace make_masks {

using MS = typename TEST_EXECSPACE::memory_space;

// Predicates (device-callable, and called by the host reference too).
// Bit i = i % m != r.
struct mod_pred {
  size_type m, r;
  KOKKOS_INLINE_FUNCTION bool operator()(size_type i) const { return i % m != r; }
};
// Runs of `len` valid then `len` null, from `offset`: edges everywhere relative to word boundaries.
struct runs_pred {
  size_type len, offset;
  KOKKOS_INLINE_FUNCTION bool operator()(size_type i) const { return ((i + offset) / len) % 2 == 0; }
};
// A hash of i: no structure at all.
struct hash_pred {
  std::uint64_t salt;
  KOKKOS_INLINE_FUNCTION bool operator()(size_type i) const {
    std::uint64_t x = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull + salt;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return (x & 3u) != 0;
  }
};
// Counts its own evaluations per index (exactly once each, or the test fails).
struct counting_pred {
  Kokkos::View<int*, MS> calls;
  KOKKOS_INLINE_FUNCTION bool operator()(size_type i) const {
    Kokkos::atomic_add(&calls(i), 1);
    return i % 5 != 2;
  }
};

const size_type sizes[] = {0, 1, 31, 32, 33, 63, 64, 65, 95, 1000, 4097, 70001};

// A destination of num_words(bits) + 2 poisoned words (a write past num_words shows).
inline view_t<TEST_EXECSPACE> poisoned_dest(size_type bits) {
  auto d = exact_view<word_type, MS>(static_cast<std::size_t>(kmask::num_words(bits) + 2), "test::dest");
  Kokkos::deep_copy(d, poison);
  return d;
}

// The allocating form's words: the reference's, then zero padding to a padded allocation.
inline ::testing::AssertionResult same_new_mask(const ref::result& want, const view_t<TEST_EXECSPACE>& got,
                                                size_type got_nulls, size_type bits) {
  const size_type padded = kmask::allocation_size_bytes(bits) / 4;
  if (static_cast<size_type>(got.extent(0)) != padded)
    return ::testing::AssertionFailure() << "extent " << got.extent(0) << ", expected " << padded;
  const auto h = to_host(got);
  for (size_type w = 0; w < padded; ++w) {
    const word_type e = w < static_cast<size_type>(want.mask.size()) ? want.mask[w] : 0u;
    if (h[w] != e)
      return ::testing::AssertionFailure() << "word " << w << ": expected 0x" << std::hex << e << " got 0x" << h[w];
  }
  if (got_nulls != want.nulls)
    return ::testing::AssertionFailure() << "null count " << got_nulls << ", expected " << want.nulls;
  return ::testing::AssertionSuccess();
}

// An in-place destination: the reference's words, then the two poisoned words; counter entry 0
// the null count and entry 1 untouched.
inline ::testing::AssertionResult same_in_place(const ref::result& want, const view_t<TEST_EXECSPACE>& dest,
                                                const Kokkos::View<size_type*, MS>& counts) {
  const auto h = to_host(dest);
  for (std::size_t w = 0; w < h.size(); ++w) {
    const word_type e = w < want.mask.size() ? want.mask[w] : poison;
    if (h[w] != e)
      return ::testing::AssertionFailure() << "word " << w << (w < want.mask.size() ? "" : " (past the destination)")
                                           << ": expected 0x" << std::hex << e << " got 0x" << h[w];
  }
  const auto c = counts_to_host(counts);
  if (c[0] != want.nulls) return ::testing::AssertionFailure() << "null count " << c[0] << ", expected " << want.nulls;
  if (c[1] != -777) return ::testing::AssertionFailure() << "counter entry 1 was written";
  return ::testing::AssertionSuccess();
}

template <class Pred>
void check_valid_if(const Pred& pred, size_type bits) {
  TEST_EXECSPACE exec;
  SCOPED_TRACE(::testing::Message() << "size_bits = " << bits);
  const auto want = ref::from_predicate(bits, [&](std::int64_t i) { return pred(i); });
  const auto got  = kmask::valid_if(exec, bits, pred);
  EXPECT_TRUE(same_new_mask(want, got.first, got.second, bits));
  auto dest   = poisoned_dest(bits);
  auto counts = poisoned_counts<TEST_EXECSPACE>(2);
  kmask::inplace_valid_if(exec, dest, bits, pred, counts);
  exec.fence();
  EXPECT_TRUE(same_in_place(want, dest, counts));
  auto raw     = poisoned_dest(bits);
  auto counts2 = poisoned_counts<TEST_EXECSPACE>(2);
  kmask::inplace_valid_if(exec, kmask::dest_mask{raw.data(), static_cast<size_type>(kmask::num_words(bits))}, bits,
                          pred, counts2);
  exec.fence();
  EXPECT_TRUE(same_in_place(want, raw, counts2)) << "dest_mask form";
}

// Random bytes: about a third zero, the rest any of 1..255.
inline std::vector<std::uint8_t> random_bytes(std::mt19937_64& rng, size_type n) {
  std::vector<std::uint8_t> v(static_cast<std::size_t>(n));
  for (auto& b : v) b = rng() % 3 == 0 ? 0 : static_cast<std::uint8_t>(1 + rng() % 255);
  return v;
}

template <class T>
Kokkos::View<T*, MS> values_on_device(const std::vector<std::uint8_t>& bytes) {
  auto d = exact_view<T, MS>(bytes.size(), "test::values");
  auto m = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < bytes.size(); ++i) m(i) = static_cast<T>(bytes[i]);
  Kokkos::deep_copy(d, m);
  return d;
}

// bools_to_mask and inplace_bools_to_mask (View and dest_mask) of `values`, against `want`.
template <class T>
void check_bools_to_mask_of(const Kokkos::View<const T*, MS>& values, const ref::result& want) {
  TEST_EXECSPACE exec;
  const size_type n = static_cast<size_type>(values.extent(0));
  const auto got    = kmask::bools_to_mask(exec, values);
  EXPECT_TRUE(same_new_mask(want, got.first, got.second, n));
  auto dest   = poisoned_dest(n);
  auto counts = poisoned_counts<TEST_EXECSPACE>(2);
  kmask::inplace_bools_to_mask(exec, dest, values, counts);
  exec.fence();
  EXPECT_TRUE(same_in_place(want, dest, counts));
  auto raw     = poisoned_dest(n);
  auto counts2 = poisoned_counts<TEST_EXECSPACE>(2);
  kmask::inplace_bools_to_mask(exec, kmask::dest_mask{raw.data(), kmask::num_words(n)}, values, counts2);
  exec.fence();
  EXPECT_TRUE(same_in_place(want, raw, counts2)) << "dest_mask form";
}

// The same of `bytes` as T.
template <class T>
void check_bools_to_mask(const std::vector<std::uint8_t>& bytes) {
  SCOPED_TRACE(::testing::Message() << "values = " << bytes.size() << (std::is_same<T, bool>::value ? " bool" : " uint8"));
  check_bools_to_mask_of<T>(values_on_device<T>(bytes), ref::from_bytes(bytes));
}

inline Kokkos::View<bool*, MS> filled_bools(std::size_t n, bool v) {
  auto d = exact_view<bool, MS>(n, "test::bools");
  Kokkos::deep_copy(d, v);
  return d;
}

inline std::vector<int> bools_to_host(const Kokkos::View<bool*, MS>& d) {
  auto m = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, d);
  std::vector<int> out(m.extent(0));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = m(i) ? 1 : 0;
  return out;
}

// mask_to_bools of bits [begin, end) of `host` (nullptr: absent), through the View form (absent:
// a null view), the source_mask form (from `shift` bits further in), and in place twice, over
// all-true and all-false outputs with 3 elements more, so an unwritten element shows in one.
inline void check_mask_to_bools(const ref::words* host, size_type begin, size_type end) {
  TEST_EXECSPACE exec;
  SCOPED_TRACE(::testing::Message() << "bits [" << begin << ", " << end << ")" << (host ? "" : " absent"));
  const auto want = ref::to_bools(host, begin, end);
  const Kokkos::View<const word_type*, MS> mask =
      host ? Kokkos::View<const word_type*, MS>(to_device<TEST_EXECSPACE>(*host)) : Kokkos::View<const word_type*, MS>();
  const auto got = kmask::mask_to_bools(exec, mask, begin, end);
  exec.fence();
  EXPECT_EQ(bools_to_host(got), want) << "View form";
  // The same bits through a source_mask whose begin_bit takes part of the offset.
  const size_type shift = begin / 2;
  const kmask::source_mask raw{mask.data(), static_cast<size_type>(mask.extent(0)), host ? shift : 0};
  const auto got2 = kmask::mask_to_bools(exec, raw, host ? begin - shift : begin, host ? end - shift : end);
  exec.fence();
  EXPECT_EQ(bools_to_host(got2), want) << "source_mask form";
  for (bool fill : {true, false}) {
    auto out = filled_bools(want.size() + 3, fill);
    kmask::inplace_mask_to_bools(exec, out, mask, begin, end);
    exec.fence();
    auto expected = want;
    expected.insert(expected.end(), 3, fill ? 1 : 0);
    EXPECT_EQ(bools_to_host(out), expected) << "in place over " << fill;
  }
}

template <class Index>
Kokkos::View<Index*, MS> indices_on_device(const std::vector<std::int64_t>& idx) {
  auto d = exact_view<Index, MS>(idx.size(), "test::indices");
  auto m = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < idx.size(); ++i) m(i) = static_cast<Index>(idx[i]);
  Kokkos::deep_copy(d, m);
  return d;
}

// Indices into `size` source bits: random, sorted, descending, duplicated runs; `bad` of them
// replaced by out-of-range values (negative, size, far past it) at random positions.
inline std::vector<std::int64_t> make_indices(std::mt19937_64& rng, size_type n, size_type size, int kind,
                                              size_type bad, bool int32) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(n));
  const auto pick = [&] { return size == 0 ? 0 : static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(size)); };
  for (auto& x : v) x = pick();
  if (kind == 1) std::sort(v.begin(), v.end());
  if (kind == 2) std::sort(v.rbegin(), v.rend());
  if (kind == 3)
    for (std::size_t i = 1; i < v.size(); ++i)
      if (rng() % 4 != 0) v[i] = v[i - 1];  // runs of one index
  const std::int64_t far = int32 ? std::numeric_limits<std::int32_t>::max() : std::int64_t{1} << 40;
  for (size_type b = 0; b < bad && n > 0; ++b) {
    const std::int64_t values[] = {-1, static_cast<std::int64_t>(size), far,
                                   int32 ? std::numeric_limits<std::int32_t>::min() : -(std::int64_t{1} << 40)};
    v[static_cast<std::size_t>(rng() % static_cast<std::uint64_t>(n))] = values[rng() % 4];
  }
  return v;
}

// Every policy and form of one gather of `idx` from bits [begin, begin + size) of `host` (absent
// when null); `idx` may hold out-of-range values (then dont_check is not run).
template <class Index>
void check_gather(const ref::words* host, size_type begin, size_type size, const std::vector<std::int64_t>& idx) {
  TEST_EXECSPACE exec;
  const size_type n = static_cast<size_type>(idx.size());
  SCOPED_TRACE(::testing::Message() << "gather of " << n << (sizeof(Index) == 4 ? " int32" : " int64")
                                    << " indices from bits [" << begin << ", " << begin + size << ")"
                                    << (host ? "" : " of an absent mask"));
  std::int64_t first_bad = -1;
  const auto want        = ref::gather(host, begin, size, idx, &first_bad);
  const Kokkos::View<const word_type*, MS> mask =
      host ? Kokkos::View<const word_type*, MS>(to_device<TEST_EXECSPACE>(*host)) : Kokkos::View<const word_type*, MS>();
  const auto indices = indices_on_device<Index>(idx);
  std::vector<kmask::gather_policy> policies{kmask::gather_policy::nullify, kmask::gather_policy::check};
  if (first_bad < 0) policies.push_back(kmask::gather_policy::dont_check);
  for (const auto policy : policies) {
    SCOPED_TRACE(::testing::Message() << "policy " << static_cast<int>(policy));
    if (policy == kmask::gather_policy::check && first_bad >= 0) {
      std::ostringstream msg;
      msg << "kmask::gather_bits: indices[" << first_bad << "] = " << idx[static_cast<std::size_t>(first_bad)]
          << " is outside [0, size_bits = " << size << ")";
      try {
        kmask::gather_bits(exec, mask, begin, size, indices, policy);
        ADD_FAILURE() << "accepted; expected " << msg.str();
      } catch (const std::out_of_range& e) {
        EXPECT_EQ(std::string(e.what()).substr(0, msg.str().size()), msg.str()) << e.what();
      }
      continue;
    }
    const auto got = kmask::gather_bits(exec, mask, begin, size, indices, policy);
    EXPECT_TRUE(same_new_mask(want, got.first, got.second, n));
    // The source_mask form, part of the offset in its begin_bit.
    const size_type shift = host ? begin / 2 : 0;
    const kmask::source_mask raw{mask.data(), static_cast<size_type>(mask.extent(0)), shift};
    const auto got2 = kmask::gather_bits(exec, raw, begin - shift, size, indices, policy);
    EXPECT_TRUE(same_new_mask(want, got2.first, got2.second, n)) << "source_mask form";
    if (policy == kmask::gather_policy::check) continue;  // refused in place (errors test)
    auto dest   = poisoned_dest(n);
    auto counts = poisoned_counts<TEST_EXECSPACE>(2);
    kmask::inplace_gather_bits(exec, dest, mask, begin, size, indices, policy, counts);
    exec.fence();
    EXPECT_TRUE(same_in_place(want, dest, counts)) << "in place";
    auto dest2   = poisoned_dest(n);
    auto counts2 = poisoned_counts<TEST_EXECSPACE>(2);
    kmask::inplace_gather_bits(exec, kmask::dest_mask{dest2.data(), kmask::num_words(n)}, raw, begin - shift, size,
                               indices, policy, counts2);
    exec.fence();
    EXPECT_TRUE(same_in_place(want, dest2, counts2)) << "in place, raw forms";
  }
  // The indices one element into an allocation (not 16-byte aligned), in place.
  std::vector<std::int64_t> shifted(1, 0);
  shifted.insert(shifted.end(), idx.begin(), idx.end());
  const auto all = indices_on_device<Index>(shifted);
  const Kokkos::View<const Index*, MS> unaligned = Kokkos::subview(all, std::make_pair(std::size_t{1}, shifted.size()));
  auto dest   = poisoned_dest(n);
  auto counts = poisoned_counts<TEST_EXECSPACE>(2);
  kmask::inplace_gather_bits(exec, dest, mask, begin, size, unaligned, kmask::gather_policy::nullify, counts);
  exec.fence();
  EXPECT_TRUE(same_in_place(want, dest, counts)) << "in place, unaligned indices";
}

// Fills `calls` with zeros and returns whether every entry is exactly 1 (a device reduction).
inline size_type wrong_call_counts(const Kokkos::View<int*, MS>& calls) {
  size_type wrong = 0;
  const auto h    = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, calls);
  for (std::size_t i = 0; i < h.extent(0); ++i) wrong += h(i) != 1;
  return wrong;
}

// Huge masks: a hash of the word index as the source pattern (computed again on the host).
KOKKOS_INLINE_FUNCTION word_type huge_pattern(size_type w) {
  std::uint64_t x = static_cast<std::uint64_t>(w) * 0xD1B54A32D192ED03ull + 17;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return static_cast<word_type>(x);
}
inline void fill_huge(const view_t<TEST_EXECSPACE>& v) {
  Kokkos::parallel_for(
      "test::fill_huge", Kokkos::RangePolicy<TEST_EXECSPACE, Kokkos::IndexType<size_type>>(0, v.extent(0)),
      KOKKOS_LAMBDA(size_type w) { v(w) = huge_pattern(w); });
  Kokkos::fence();
}
inline int huge_bit(size_type q) { return static_cast<int>((huge_pattern(q / 32) >> (q % 32)) & 1u); }

// valid_if over 2^32 + 77 bits with a predicate that changes at bit 2^32: null count in closed form.
struct split_pred {
  KOKKOS_INLINE_FUNCTION bool operator()(size_type i) const {
    return (i >> 32) == 0 ? i % 3 != 0 : i % 5 != 0;
  }
};

}  // namespace make_masks
}  // namespace

TEST(TEST_CATEGORY, make_masks_valid_if_matches_the_reference) {
  using namespace make_masks;
  for (const size_type bits : sizes) {
    check_valid_if(mod_pred{3, 0}, bits);
    check_valid_if(mod_pred{7, 6}, bits);
    check_valid_if(runs_pred{37, 5}, bits);
    check_valid_if(runs_pred{1, 0}, bits);
    check_valid_if(hash_pred{static_cast<std::uint64_t>(bits) * 11u + 1u}, bits);
  }
  // Runs that straddle word boundaries at every phase.
  for (size_type len : {2, 31, 33, 64, 100})
    for (size_type offset : {0, 1, 17, 31}) check_valid_if(runs_pred{len, offset}, 3000 + len);
}

TEST(TEST_CATEGORY, make_masks_valid_if_evaluates_each_predicate_exactly_once) {
  using namespace make_masks;
  TEST_EXECSPACE exec;
  for (const size_type bits : {size_type{1}, size_type{33}, size_type{70001}, size_type{1} << 20}) {
    SCOPED_TRACE(::testing::Message() << "size_bits = " << bits);
    Kokkos::View<int*, MS> calls("test::calls", static_cast<std::size_t>(bits));
    const counting_pred pred{calls};
    const auto got = kmask::valid_if(exec, bits, pred);
    EXPECT_EQ(wrong_call_counts(calls), 0) << "valid_if";
    EXPECT_TRUE(same_new_mask(ref::from_predicate(bits, [](std::int64_t i) { return i % 5 != 2; }), got.first,
                              got.second, bits));
    Kokkos::deep_copy(calls, 0);
    auto dest   = poisoned_dest(bits);
    auto counts = poisoned_counts<TEST_EXECSPACE>(2);
    kmask::inplace_valid_if(exec, dest, bits, pred, counts);
    exec.fence();
    EXPECT_EQ(wrong_call_counts(calls), 0) << "inplace_valid_if";
  }
}

TEST(TEST_CATEGORY, make_masks_bools_to_mask_matches_the_reference) {
  using namespace make_masks;
  const auto seed = base_seed() + 1601;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (const size_type n : sizes) {
    const auto bytes = random_bytes(rng, n);
    check_bools_to_mask<std::uint8_t>(bytes);
    std::vector<std::uint8_t> as_bool(bytes.size());
    for (std::size_t i = 0; i < bytes.size(); ++i) as_bool[i] = bytes[i] != 0;
    check_bools_to_mask<bool>(as_bool);
  }
  // Values that start at an odd address (a subview three bytes in): the word loads are unaligned.
  {
    TEST_EXECSPACE exec;
    const auto bytes = random_bytes(rng, 70003);
    const auto all   = values_on_device<std::uint8_t>(bytes);
    const Kokkos::View<const std::uint8_t*, MS> tail =
        Kokkos::subview(all, std::make_pair(std::size_t{3}, bytes.size()));
    const auto got = kmask::bools_to_mask(exec, tail);
    EXPECT_TRUE(same_new_mask(ref::from_bytes(std::vector<std::uint8_t>(bytes.begin() + 3, bytes.end())), got.first,
                              got.second, static_cast<size_type>(bytes.size()) - 3))
        << "unaligned values";
  }
  // All zero and all 0xFF bytes.
  check_bools_to_mask<std::uint8_t>(std::vector<std::uint8_t>(1000, 0));
  check_bools_to_mask<std::uint8_t>(std::vector<std::uint8_t>(1000, 0xFF));
}

TEST(TEST_CATEGORY, make_masks_mask_to_bools_matches_the_reference) {
  using namespace make_masks;
  const auto seed = base_seed() + 1602;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (const size_type n : sizes) {
    for (size_type begin : {size_type{0}, size_type{1}, size_type{31}, size_type{32}, size_type{45}}) {
      const auto host = random_words(rng, static_cast<std::size_t>(kmask::num_words(begin + n)) + (rng() % 2));
      check_mask_to_bools(&host, begin, begin + n);
      check_mask_to_bools(nullptr, begin, begin + n);
    }
  }
  // A range ending on the view's very last bit.
  const auto host = random_words(rng, 9);
  check_mask_to_bools(&host, 77, 9 * 32);
  // Booleans written from an odd address (a subview one element in): eight-byte stores unaligned.
  {
    TEST_EXECSPACE exec;
    const Kokkos::View<const word_type*, MS> mask = to_device<TEST_EXECSPACE>(host);
    auto out  = filled_bools(9 * 32 + 2, false);
    auto into = Kokkos::subview(out, std::make_pair(std::size_t{1}, std::size_t{9 * 32 + 1}));
    kmask::inplace_mask_to_bools(exec, Kokkos::View<bool*, MS>(into), mask, 0, 9 * 32);
    exec.fence();
    auto want = ref::to_bools(&host, 0, 9 * 32);
    want.insert(want.begin(), 0);
    want.push_back(0);
    EXPECT_EQ(bools_to_host(out), want) << "unaligned output";
  }
}

TEST(TEST_CATEGORY, make_masks_gather_bits_matches_the_reference) {
  using namespace make_masks;
  const auto seed = base_seed() + 1603;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  const size_type gathered[] = {0, 1, 31, 32, 33, 1000, 5003};
  const size_type source[]   = {1, 32, 33, 4099};
  for (const size_type n : gathered)
    for (const size_type size : source)
      for (int kind = 0; kind < 4; ++kind) {
        const size_type begin = static_cast<size_type>(rng() % 70);
        const auto host = random_words(rng, static_cast<std::size_t>(kmask::num_words(begin + size)));
        for (const bool int32 : {true, false}) {
          const auto good = make_indices(rng, n, size, kind, 0, int32);
          const auto bad  = make_indices(rng, n, size, kind, 1 + static_cast<size_type>(rng() % 3), int32);
          if (int32) {
            check_gather<std::int32_t>(&host, begin, size, good);
            check_gather<std::int32_t>(&host, begin, size, bad);
            check_gather<std::int32_t>(nullptr, begin, size, bad);
          } else {
            check_gather<std::int64_t>(&host, begin, size, good);
            check_gather<std::int64_t>(&host, begin, size, bad);
            check_gather<std::int64_t>(nullptr, begin, size, good);
          }
        }
      }
  // A gather from an empty source: every index is out of range.
  check_gather<std::int32_t>(nullptr, 0, 0, {0, 1, -1});
  check_gather<std::int64_t>(nullptr, 0, 0, {});
}

// The two index forms of valid_if's bits: 32-bit indices (every call below 2^32 bits takes them)
// and 64-bit ones (above 2^32 bits, too large to build here), each run on small sizes through the
// kernel directly, against the reference and with each predicate counted.
TEST(TEST_CATEGORY, make_masks_valid_if_32_and_64_bit_index_forms) {
  using namespace make_masks;
  TEST_EXECSPACE exec;
  const auto run = [&](const auto& bits, size_type n, const ref::result& want, const char* what) {
    auto dest   = poisoned_dest(n);
    auto counts = poisoned_counts<TEST_EXECSPACE>(2);
    kmask::detail::enqueue_build("test::valid_if", exec, bits, dest.data(), n, kmask::num_words(n), counts.data(),
                                 nullptr);
    exec.fence();
    EXPECT_TRUE(same_in_place(want, dest, counts)) << what;
  };
  for (const size_type n : {size_type{0}, size_type{1}, size_type{31}, size_type{32}, size_type{33}, size_type{4097},
                            size_type{70001}, size_type{300007}}) {
    SCOPED_TRACE(::testing::Message() << "size_bits = " << n);
    const mod_pred mod{3, 0};
    const auto want_mod = ref::from_predicate(n, [&](std::int64_t i) { return mod(i); });
    run(kmask::detail::predicate_bits<mod_pred, true>{mod}, n, want_mod, "32-bit indices");
    run(kmask::detail::predicate_bits<mod_pred, false>{mod}, n, want_mod, "64-bit indices");
    const hash_pred hash{static_cast<std::uint64_t>(n) * 7u + 3u};
    const auto want_hash = ref::from_predicate(n, [&](std::int64_t i) { return hash(i); });
    run(kmask::detail::predicate_bits<hash_pred, true>{hash}, n, want_hash, "32-bit indices");
    run(kmask::detail::predicate_bits<hash_pred, false>{hash}, n, want_hash, "64-bit indices");
    Kokkos::View<int*, MS> calls("test::calls", static_cast<std::size_t>(n));
    const counting_pred counting{calls};
    const auto want_counting = ref::from_predicate(n, [](std::int64_t i) { return i % 5 != 2; });
    run(kmask::detail::predicate_bits<counting_pred, false>{counting}, n, want_counting, "64-bit indices, counted");
    EXPECT_EQ(wrong_call_counts(calls), 0) << "64-bit indices";
    Kokkos::deep_copy(calls, 0);
    run(kmask::detail::predicate_bits<counting_pred, true>{counting}, n, want_counting, "32-bit indices, counted");
    EXPECT_EQ(wrong_call_counts(calls), 0) << "32-bit indices";
  }
}

// bools_to_mask from every start within 16 bytes of an aligned allocation: offsets 0 and 16 take
// the aligned 16-byte loads, the others the unaligned form; both forms of the call, poisoned.
TEST(TEST_CATEGORY, make_masks_bools_to_mask_aligned_and_unaligned_values) {
  using namespace make_masks;
  const auto seed = base_seed() + 1604;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  const auto one = [&](const auto& all, const std::vector<std::uint8_t>& bytes, std::size_t offset, size_type n) {
    using T = typename std::decay_t<decltype(all)>::non_const_value_type;
    SCOPED_TRACE(::testing::Message() << n << (std::is_same<T, bool>::value ? " bool" : " uint8") << " values from byte "
                                      << offset);
    const Kokkos::View<const T*, MS> values = Kokkos::subview(all, std::make_pair(offset, offset + std::size_t(n)));
    check_bools_to_mask_of<T>(
        values, ref::from_bytes(std::vector<std::uint8_t>(bytes.begin() + offset, bytes.begin() + offset + n)));
  };
  for (const size_type n : {size_type{0}, size_type{1}, size_type{15}, size_type{31}, size_type{32}, size_type{33},
                            size_type{65}, size_type{4097}, size_type{70001}}) {
    for (const std::size_t offset : {0, 1, 3, 8, 15, 16}) {
      auto bytes = random_bytes(rng, n + 16);
      const auto u8 = values_on_device<std::uint8_t>(bytes);
      ASSERT_EQ(reinterpret_cast<std::uintptr_t>(u8.data()) % 16, 0u) << "the test needs an aligned allocation";
      one(u8, bytes, offset, n);
      for (auto& b : bytes) b = b != 0;
      one(values_on_device<bool>(bytes), bytes, offset, n);
    }
  }
}

// mask_to_bools into every start within 16 bytes of an aligned allocation (the GPU form stores 16
// booleans at once only from an aligned start): plain, inverted and absent masks, at several
// source offsets, into outputs poisoned with the opposite of the first expected value.
TEST(TEST_CATEGORY, make_masks_mask_to_bools_aligned_and_unaligned_output) {
  using namespace make_masks;
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 1605;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (const size_type n : {size_type{1}, size_type{15}, size_type{16}, size_type{17}, size_type{31}, size_type{33},
                            size_type{1000}, size_type{4097}}) {
    for (const std::size_t offset : {0, 1, 8, 15, 16}) {
      for (const size_type begin : {size_type{0}, size_type{5}, size_type{32}, size_type{47}}) {
        const auto host = random_words(rng, static_cast<std::size_t>(kmask::num_words(begin + n)));
        const Kokkos::View<const word_type*, MS> mask = to_device<TEST_EXECSPACE>(host);
        for (int form = 0; form < 3; ++form) {
          SCOPED_TRACE(::testing::Message() << n << " bools at byte " << offset << " from bit " << begin
                                            << (form == 1 ? ", inverted" : form == 2 ? ", absent mask" : ""));
          auto want = ref::to_bools(form == 2 ? nullptr : &host, begin, begin + n);
          if (form == 1)
            for (auto& b : want) b = !b;
          const bool poison = want[0] == 0;
          auto out = filled_bools(offset + std::size_t(n) + 3, poison);
          ASSERT_EQ(reinterpret_cast<std::uintptr_t>(out.data()) % 16, 0u) << "the test needs an aligned allocation";
          const Kokkos::View<bool*, MS> into = Kokkos::subview(out, std::make_pair(offset, offset + std::size_t(n)));
          const kmask::source_mask src{form == 2 ? nullptr : mask.data(),
                                       form == 2 ? 0 : static_cast<size_type>(mask.extent(0)), 0, form == 1};
          kmask::inplace_mask_to_bools(exec, into, src, begin, begin + n);
          exec.fence();
          want.insert(want.begin(), offset, poison ? 1 : 0);
          want.insert(want.end(), 3, poison ? 1 : 0);
          EXPECT_EQ(bools_to_host(out), want);
        }
      }
    }
  }
}

// Gathers long enough for many teams (and warps), a bad index late in the rows: the first bad
// position is the minimum over teams.
TEST(TEST_CATEGORY, make_masks_gather_bits_over_many_teams) {
  using namespace make_masks;
  const auto seed = base_seed() + 1606;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  const size_type size = 50021, begin = 13;
  const auto host      = random_words(rng, static_cast<std::size_t>(kmask::num_words(begin + size)));
  for (const size_type n : {size_type{200003}, size_type{262144}}) {
    for (int kind = 0; kind < 2; ++kind) {
      const auto good = make_indices(rng, n, size, kind, 0, true);
      check_gather<std::int32_t>(&host, begin, size, good);
      auto bad = good;
      bad[static_cast<std::size_t>(n - 40)] = -1;
      bad[static_cast<std::size_t>(n - 7)]  = size;
      check_gather<std::int32_t>(&host, begin, size, bad);
      check_gather<std::int64_t>(nullptr, begin, size, bad);
      // Two bad rows close together inside a whole 1024-row block (the GPU form's narrow path),
      // the later one first in the array: the lower position is the one named.
      auto early = good;
      early[static_cast<std::size_t>(3 * 1024 + 2 * 128 + 4 * 6 + 0)] = size + 5;
      early[static_cast<std::size_t>(3 * 1024 + 2 * 128 + 4 * 5 + 3)] = -3;
      check_gather<std::int32_t>(&host, begin, size, early);
    }
  }
}

TEST(TEST_CATEGORY, make_masks_default_space_forms) {
  using namespace make_masks;
  using DS = kmask::detail::space_of<view_t<TEST_EXECSPACE>>;
  const size_type bits = 1000;
  const auto want      = ref::from_predicate(bits, [](std::int64_t i) { return i % 3 != 0; });
  auto dest            = poisoned_dest(bits);
  auto counts          = poisoned_counts<TEST_EXECSPACE>(2);
  kmask::inplace_valid_if(dest, bits, mod_pred{3, 0}, counts);
  DS{}.fence();
  EXPECT_TRUE(same_in_place(want, dest, counts));
  std::vector<std::uint8_t> bytes(bits);
  for (size_type i = 0; i < bits; ++i) bytes[i] = i % 3 != 0 ? static_cast<std::uint8_t>(i % 200 + 1) : 0;
  const auto values = values_on_device<std::uint8_t>(bytes);
  const auto b      = kmask::bools_to_mask(values);
  EXPECT_TRUE(same_new_mask(want, b.first, b.second, bits));
  auto dest2   = poisoned_dest(bits);
  auto counts2 = poisoned_counts<TEST_EXECSPACE>(2);
  kmask::inplace_bools_to_mask(dest2, Kokkos::View<const std::uint8_t*, MS>(values), counts2);
  DS{}.fence();
  EXPECT_TRUE(same_in_place(want, dest2, counts2));
  const Kokkos::View<const word_type*, MS> m = b.first;
  const auto bools                           = kmask::mask_to_bools(m, 0, bits);
  DS{}.fence();
  EXPECT_EQ(bools_to_host(bools), ref::to_bools(&want.mask, 0, bits));
  auto out = filled_bools(bits, false);
  kmask::inplace_mask_to_bools(out, m, 0, bits);
  DS{}.fence();
  EXPECT_EQ(bools_to_host(out), ref::to_bools(&want.mask, 0, bits));
  std::vector<std::int64_t> idx;
  for (size_type i = 0; i < 300; ++i) idx.push_back((i * 7) % bits);
  const auto indices = indices_on_device<std::int32_t>(idx);
  const auto g       = kmask::gather_bits(m, 0, bits, indices, kmask::gather_policy::check);
  EXPECT_TRUE(same_new_mask(ref::gather(&want.mask, 0, bits, idx), g.first, g.second, 300));
  auto dest3   = poisoned_dest(300);
  auto counts3 = poisoned_counts<TEST_EXECSPACE>(2);
  kmask::inplace_gather_bits(dest3, m, 0, bits, indices, kmask::gather_policy::nullify, counts3);
  DS{}.fence();
  EXPECT_TRUE(same_in_place(ref::gather(&want.mask, 0, bits, idx), dest3, counts3));
}

TEST(TEST_CATEGORY, make_masks_reject_bad_input_and_write_nothing) {
  using namespace make_masks;
  using errors::expect_rejected;
  using IA = std::invalid_argument;
  using OR = std::out_of_range;
  TEST_EXECSPACE exec;
  auto dest   = poisoned_dest(100);  // 6 words
  auto counts = poisoned_counts<TEST_EXECSPACE>(2);
  const auto src_host = ref::words(4, 0x12345678u);
  const Kokkos::View<const word_type*, MS> src = to_device<TEST_EXECSPACE>(src_host);
  errors::untouched<TEST_EXECSPACE> kept;
  kept.poisoned = {dest};
  kept.counters = {counts};
  kept.sources  = {{src, src_host}};
  const Kokkos::View<size_type*, MS> no_counts;
  const auto short_dest = Kokkos::subview(dest, std::make_pair(0, 3));
  const mod_pred pred{3, 0};

  // valid_if / inplace_valid_if
  expect_rejected<IA>(kept, [&] { kmask::valid_if(exec, -1, pred); }, "kmask::valid_if: size_bits = -1 is negative");
  expect_rejected<IA>(kept, [&] { kmask::valid_if(exec, errors::too_large, pred); },
                      "kmask::valid_if: size_bits = 4611686018427387904 is too large");
  expect_rejected<IA>(kept, [&] { kmask::inplace_valid_if(exec, dest, -5, pred, counts); },
                      "kmask::inplace_valid_if: size_bits = -5 is negative");
  expect_rejected<OR>(kept, [&] { kmask::inplace_valid_if(exec, short_dest, 100, pred, counts); },
                      "kmask::inplace_valid_if: dest has 3 words but size_bits = 100 needs 4");
  expect_rejected<IA>(kept, [&] { kmask::inplace_valid_if(exec, view_t<TEST_EXECSPACE>(), 100, pred, counts); },
                      "kmask::inplace_valid_if: dest is null but size_bits = 100 bits are written to it");
  expect_rejected<IA>(kept, [&] { kmask::inplace_valid_if(exec, kmask::dest_mask{dest.data(), -1}, 0, pred, counts); },
                      "kmask::inplace_valid_if: dest.extent_words = -1 is negative");
  expect_rejected<IA>(kept, [&] { kmask::inplace_valid_if(exec, dest, 100, pred, no_counts); },
                      "kmask::inplace_valid_if: null_count is a null view but 1 counts are written to it");

  // bools_to_mask / inplace_bools_to_mask
  const auto bools = filled_bools(100, true);
  const Kokkos::View<const bool*, MS> cbools = bools;
  const Kokkos::View<const std::uint8_t*, MS> null_bytes(static_cast<const std::uint8_t*>(nullptr), 5);
  expect_rejected<IA>(kept, [&] { kmask::bools_to_mask(exec, null_bytes); },
                      "kmask::bools_to_mask: values is a null view but its extent is 5");
  expect_rejected<OR>(kept, [&] { kmask::inplace_bools_to_mask(exec, short_dest, cbools, counts); },
                      "kmask::inplace_bools_to_mask: dest has 3 words but values.extent(0) = 100 needs 4");
  expect_rejected<IA>(kept, [&] { kmask::inplace_bools_to_mask(exec, dest, cbools, no_counts); },
                      "kmask::inplace_bools_to_mask: null_count is a null view but 1 counts are written to it");

  // mask_to_bools / inplace_mask_to_bools
  auto out = filled_bools(50, false);
  expect_rejected<IA>(kept, [&] { kmask::mask_to_bools(exec, src, 10, 5); },
                      "kmask::mask_to_bools: mask end_bit = 5 is less than begin_bit = 10");
  expect_rejected<IA>(kept, [&] { kmask::mask_to_bools(exec, src, -1, 5); },
                      "kmask::mask_to_bools: mask begin_bit = -1 is negative");
  expect_rejected<OR>(kept, [&] { kmask::mask_to_bools(exec, src, 0, 129); },
                      "kmask::mask_to_bools: mask bit range [0, 129) is past the 128 bits of the view (4 words)");
  expect_rejected<OR>(kept, [&] { kmask::inplace_mask_to_bools(exec, out, src, 0, 60); },
                      "kmask::inplace_mask_to_bools: out.extent(0) = 50 is less than the 60 needed");
  expect_rejected<IA>(kept, [&] { kmask::inplace_mask_to_bools(exec, Kokkos::View<bool*, MS>(), src, 0, 60); },
                      "kmask::inplace_mask_to_bools: out is a null view but 60 values are written to it");
  EXPECT_EQ(bools_to_host(out), std::vector<int>(50, 0)) << "a rejected inplace_mask_to_bools wrote out";

  // gather_bits / inplace_gather_bits
  const auto idx32 = indices_on_device<std::int32_t>({0, 5, 99});
  const auto idx64 = indices_on_device<std::int64_t>({0, 5, 100, 7, -3});
  const auto ck = kmask::gather_policy::check, nl = kmask::gather_policy::nullify;
  expect_rejected<OR>(kept, [&] { kmask::gather_bits(exec, src, 0, 100, idx64, ck); },
                      "kmask::gather_bits: indices[2] = 100 is outside [0, size_bits = 100) (gather_policy::check)");
  expect_rejected<OR>(kept, [&] { kmask::gather_bits(exec, src, 30, 100, idx32, nl); },
                      "kmask::gather_bits: mask bit range [30, 130) is past the 128 bits of the view (4 words)");
  expect_rejected<IA>(kept, [&] { kmask::gather_bits(exec, src, 0, -2, idx32, nl); },
                      "kmask::gather_bits: size_bits = -2 is negative");
  expect_rejected<IA>(kept, [&] { kmask::gather_bits(exec, src, -1, 10, idx32, nl); },
                      "kmask::gather_bits: mask begin_bit = -1 is negative");
  expect_rejected<IA>(kept, [&] { kmask::gather_bits(exec, src, 0, 10, idx32, static_cast<kmask::gather_policy>(7)); },
                      "kmask::gather_bits: policy = 7 is not a kmask::gather_policy");
  expect_rejected<IA>(kept, [&] { kmask::inplace_gather_bits(exec, dest, src, 0, 100, idx32, ck, counts); },
                      "kmask::inplace_gather_bits: policy = gather_policy::check cannot be used in place");
  expect_rejected<OR>(kept, [&] {
    kmask::inplace_gather_bits(exec, Kokkos::subview(dest, std::make_pair(0, 0)), src, 0, 100, idx32, nl, counts);
  }, "kmask::inplace_gather_bits: dest has 0 words but indices.extent(0) = 3 needs 1");
  expect_rejected<IA>(kept, [&] { kmask::inplace_gather_bits(exec, dest, src, 0, 100, idx32, nl, no_counts); },
                      "kmask::inplace_gather_bits: null_count is a null view but 1 counts are written to it");
  // A destination inside the words the gather reads.
  const Kokkos::View<const word_type*, MS> dest_as_source = dest;
  expect_rejected<IA>(kept, [&] {
    kmask::inplace_gather_bits(exec, Kokkos::subview(dest, std::make_pair(2, 4)), dest_as_source, 0, 150, idx32, nl,
                               counts);
  }, "kmask::inplace_gather_bits: dest overlaps the words of mask it gathers from");
}

TEST(TEST_CATEGORY, make_masks_past_2_to_the_32_bits) {
  if (std::getenv("KMASK_TEST_SKIP_HUGE")) GTEST_SKIP() << "KMASK_TEST_SKIP_HUGE is set (needs ~1.1 GB)";
  using namespace make_masks;
  TEST_EXECSPACE exec;
  const size_type bits = (size_type{1} << 32) + 77;
  {
    // valid_if: the null count in closed form, the words around 2^32 and the last ones checked.
    const auto got            = kmask::valid_if(exec, bits, split_pred{});
    const size_type low       = size_type{1} << 32;
    const size_type want_null = (low + 2) / 3 + ((bits - 1) / 5 - (low - 1) / 5);
    EXPECT_EQ(got.second, want_null);
    const size_type w0 = low / 32 - 40;
    auto window = Kokkos::create_mirror_view_and_copy(
        Kokkos::HostSpace{}, Kokkos::subview(got.first, std::make_pair(w0, static_cast<size_type>(got.first.extent(0)))));
    for (size_type i = w0 * 32; i < 32 * static_cast<size_type>(got.first.extent(0)); ++i) {
      const int want = i < bits && split_pred{}(i);
      const int bit  = static_cast<int>((window(static_cast<std::size_t>(i / 32 - w0)) >> (i % 32)) & 1u);
      if (bit != want) {
        ADD_FAILURE() << "valid_if bit " << i << ": expected " << want;
        break;
      }
    }
  }
  {
    // gather_bits with int64 indices into a source of 2^32 + 77 bits read from bit 13.
    const size_type begin = 13;
    view_t<TEST_EXECSPACE> source(Kokkos::view_alloc(Kokkos::WithoutInitializing, "test::huge_source"),
                                  kmask::num_words(begin + bits));
    fill_huge(source);
    std::mt19937_64 rng(base_seed() + 1604);
    std::vector<std::int64_t> idx;
    for (int i = 0; i < 100000; ++i) idx.push_back(static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(bits)));
    for (std::int64_t k = 0; k < 64; ++k) idx.push_back(bits - 1 - k);  // the last bits
    for (std::int64_t k = -32; k < 32; ++k) idx.push_back((std::int64_t{1} << 32) + k);
    idx.push_back(bits);  // out of range: nullify gives 0, check refuses
    const auto indices = indices_on_device<std::int64_t>(idx);
    const Kokkos::View<const word_type*, MS> src = source;
    const auto got = kmask::gather_bits(exec, src, begin, bits, indices, kmask::gather_policy::nullify);
    ref::words want_mask(static_cast<std::size_t>(kmask::num_words(static_cast<size_type>(idx.size()))), 0u);
    size_type nulls = 0;
    for (std::size_t i = 0; i < idx.size(); ++i) {
      const int b = idx[i] < bits ? huge_bit(begin + idx[i]) : 0;
      ref::set_bit(want_mask, static_cast<std::int64_t>(i), b);
      nulls += 1 - b;
    }
    EXPECT_TRUE(same_new_mask(ref::result{want_mask, nulls}, got.first, got.second, static_cast<size_type>(idx.size())));
    try {
      kmask::gather_bits(exec, src, begin, bits, indices, kmask::gather_policy::check);
      ADD_FAILURE() << "check accepted an index of " << bits;
    } catch (const std::out_of_range& e) {
      EXPECT_NE(std::string(e.what()).find("indices[" + std::to_string(idx.size() - 1) + "] = " + std::to_string(bits)),
                std::string::npos)
          << e.what();
    }
  }
}

// Every kernel and allocation of the mask-making calls is labelled "kmask::..." and inside the
// call's region (test_profiling_labels.hpp's recorder), the check policy's failure path included.
TEST(TEST_CATEGORY, make_masks_profiling_labels) {
  namespace pl = profiling_labels;
  using namespace make_masks;
  TEST_EXECSPACE exec;
  const size_type bits = 5000;
  const auto host      = ref::words(static_cast<std::size_t>(kmask::num_words(bits)), 0xF0F0F0F1u);
  const Kokkos::View<const word_type*, MS> mask = to_device<TEST_EXECSPACE>(host);
  const auto bytes   = values_on_device<std::uint8_t>(std::vector<std::uint8_t>(bits, 3));
  const auto good    = indices_on_device<std::int64_t>({0, 4999, 17, 17});
  const auto bad     = indices_on_device<std::int32_t>({0, 5000});
  auto dest          = poisoned_dest(bits);
  auto out           = filled_bools(bits, false);
  const auto counts  = poisoned_counts<TEST_EXECSPACE>(2);
  const Kokkos::View<const std::uint8_t*, MS> cbytes = bytes;
  const auto run = [&]() {
    kmask::valid_if(exec, bits, mod_pred{3, 0});
    kmask::inplace_valid_if(exec, dest, bits, mod_pred{3, 0}, counts);
    kmask::bools_to_mask(exec, cbytes);
    kmask::inplace_bools_to_mask(exec, dest, cbytes, counts);
    kmask::mask_to_bools(exec, mask, 3, bits);
    kmask::inplace_mask_to_bools(exec, out, mask, 0, bits);
    kmask::gather_bits(exec, mask, 0, bits, good, kmask::gather_policy::check);
    kmask::inplace_gather_bits(exec, dest, mask, 0, bits, good, kmask::gather_policy::nullify, counts);
    try {
      kmask::gather_bits(exec, mask, 0, bits, bad, kmask::gather_policy::check);
    } catch (const std::out_of_range&) {
    }
    exec.fence();
  };
  run();  // unrecorded first: the backend's own scratch grows here (see profiling_labels)
  {
    pl::recording rec;
    run();
    rec.stop();
  }
  const auto& r = pl::recorder();
  EXPECT_TRUE(r.open.empty());
  std::set<std::string> regions, kernels;
  std::vector<std::string> wrong;
  for (const auto& e : r.events) {
    if (e.kind == pl::event::deallocation) continue;
    if (e.kind == pl::event::region) regions.insert(e.name);
    else if (e.kind == pl::event::kernel) kernels.insert(e.name);
    // Kokkos' own team-scratch allocations are tolerated as profiling_labels tolerates them.
    if (pl::classify(e) == pl::verdict::wrong) wrong.push_back(pl::describe(e));
  }
  std::ostringstream listing;
  for (const auto& w : wrong) listing << "\n  " << w;
  EXPECT_TRUE(wrong.empty()) << wrong.size() << " event(s) not labelled \"kmask::...\" or outside a kmask region:"
                             << listing.str();
  for (const char* name : {"kmask::valid_if", "kmask::inplace_valid_if", "kmask::bools_to_mask",
                           "kmask::inplace_bools_to_mask", "kmask::mask_to_bools", "kmask::inplace_mask_to_bools",
                           "kmask::gather_bits", "kmask::inplace_gather_bits"})
    EXPECT_EQ(regions.count(name), 1u) << "no region " << name;
  for (const char* name : {"kmask::valid_if::words", "kmask::inplace_valid_if::words",
                           "kmask::mask_to_bools::bools", "kmask::gather_bits::words"})
    EXPECT_EQ(kernels.count(name), 1u) << "no kernel " << name;
}

// Counted making calls enqueued back to back on one instance with no fence between them, each
// into its own destination and counter, with synchronous counts of earlier results among them:
// on CUDA every one takes its count's scratch from the buffer the previous one gave back on the
// same stream, while that one may still be running (staging_pool::acquire_scratch).
TEST(TEST_CATEGORY, make_masks_counted_calls_back_to_back_on_one_queue) {
  using namespace make_masks;
  kmask::detail::execution_space_instances<TEST_EXECSPACE> instances(1);
  const TEST_EXECSPACE exec = instances[0];
  const auto seed           = base_seed() + 1907;
  std::mt19937_64 rng(seed);
  SCOPED_TRACE(seed_note(seed));
  constexpr std::size_t calls = 48;
  std::vector<ref::result> want;
  std::vector<view_t<TEST_EXECSPACE>> dests;
  std::vector<Kokkos::View<size_type*, MS>> counts;
  std::vector<Kokkos::View<const std::uint8_t*, MS>> values;
  for (std::size_t i = 0; i < calls; ++i) {
    const size_type n = 1 + static_cast<size_type>(rng() % 70000);
    const auto bytes  = random_bytes(rng, n);
    want.push_back(ref::from_bytes(bytes));
    values.push_back(values_on_device<std::uint8_t>(bytes));
    dests.push_back(poisoned_dest(n));
    counts.push_back(poisoned_counts<TEST_EXECSPACE>(2));
  }
  Kokkos::fence();
  for (std::size_t i = 0; i < calls; ++i) {
    kmask::inplace_bools_to_mask(exec, dests[i], values[i], counts[i]);
    if (i % 8 == 7) {
      // Synchronous, on the same queue: reads the mask the previous call is still writing.
      const size_type n = static_cast<size_type>(values[i].extent(0));
      EXPECT_EQ(kmask::count_unset_bits(exec, Kokkos::View<const word_type*, MS>(dests[i]), 0, n), want[i].nulls)
          << "synchronous count after call " << i;
    }
  }
  exec.fence();
  for (std::size_t i = 0; i < calls; ++i)
    EXPECT_TRUE(same_in_place(want[i], dests[i], counts[i])) << "call " << i;
}
