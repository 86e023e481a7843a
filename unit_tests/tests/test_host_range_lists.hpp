// Segmented counts of long range lists: on a host space the space's threads check and count them
// (host_range_count.hpp) from count_cpu_list_min_ranges ranges, a thread a range, unless the
// longest range is a large share of a thread's words (then the batch launch). Here: lists around
// that crossing and of each route, in every form (host ranges allocating and in place, ranges in a
// view), against the scalar reference, with the route that ran (its kernel labels); and a bad
// range at the first, a block-seam, a random and the last position, with a second bad range after
// it, refused with the message of the first and nothing written. On a GPU space (and the GPU form
// emulated) the same lists take lanes a range unless one is too long for that form (then the batch
// launch), host ranges checked and uploaded by chunks. Uses profiling_labels::recording.

namespace {
namespace host_range_lists {

using profiling_labels::kernels_of;
using profiling_labels::launched;

inline std::size_t min_ranges() {
  return static_cast<std::size_t>(kmask::detail::launch_tuning<TEST_EXECSPACE>::count_cpu_list_min_ranges);
}
inline bool threaded(std::size_t n) { return kmask::detail::host_range_list_pays<TEST_EXECSPACE>(n); }

// n ranges in [0, limit] bits, lengths up to `longest` (every fifth empty); with `one_long`, range
// n / 3 covers almost all of [0, limit].
inline std::vector<size_type> ranges_of(std::mt19937_64& rng, std::size_t n, size_type limit, size_type longest,
                                        bool one_long) {
  std::vector<size_type> r;
  for (std::size_t i = 0; i < n; ++i) {
    size_type len = std::min(limit, static_cast<size_type>(rng() % static_cast<std::uint64_t>(longest + 1)));
    if (i % 5 == 4) len = 0;
    if (one_long && i == n / 3) len = limit - static_cast<size_type>(rng() % 40);
    const size_type b = static_cast<size_type>(rng() % static_cast<std::uint64_t>(limit - len + 1));
    r.push_back(b);
    r.push_back(b + len);
  }
  return r;
}

}  // namespace host_range_lists
}  // namespace

// Lists just under, at and over the crossing, a long one, and lists with a range of most of the
// mask (the batch route on a host): set and unset counts, an inverted and an absent mask, a raw
// mask at a begin bit and a skewed start, each count against the reference, poison past the counts.
TEST(TEST_CATEGORY, segmented_count_range_lists_of_every_route) {
  namespace hr = host_range_lists;
  TEST_EXECSPACE exec;
  using MS        = typename TEST_EXECSPACE::memory_space;
  const auto seed = base_seed() + 91;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  const std::size_t words = 20000;
  const auto host         = random_words(rng, words);
  const auto dev          = to_device<TEST_EXECSPACE>(host);
  const std::size_t lo    = hr::min_ranges();
  struct list_shape {
    std::size_t n;
    size_type longest;  // bits
    bool one_long;
  };
  const list_shape shapes[] = {{lo - 1, 700, false}, {lo, 700, false},     {lo + 1, 3000, false},
                               {20000, 200, false},  {3001, 40000, false}, {lo, 300, true},
                               {5000, 100, true}};
  for (const list_shape& s : shapes) {
    for (const std::size_t skew : {std::size_t{0}, std::size_t{3}}) {
      const size_type shift = skew == 0 ? 0 : 45;
      const size_type limit = static_cast<size_type>(words - skew) * 32 - shift;
      const auto ranges     = hr::ranges_of(rng, s.n, limit, s.longest, s.one_long);
      const std::size_t n   = s.n;
      SCOPED_TRACE(::testing::Message() << n << " ranges up to " << s.longest << " bits" << (s.one_long ? ", one long" : "")
                                        << ", skew " << skew);
      const kmask::source_mask m{dev.data() + skew, static_cast<size_type>(words - skew), shift};
      const auto set = poisoned_counts<TEST_EXECSPACE>(static_cast<size_type>(n + 2));
      const auto unset_inv = poisoned_counts<TEST_EXECSPACE>(static_cast<size_type>(n + 2));
      const auto absent = poisoned_counts<TEST_EXECSPACE>(static_cast<size_type>(n + 2));
      const auto kernels = hr::kernels_of([&] { kmask::inplace_segmented_count_set_bits(exec, m, ranges, set); });
      kmask::inplace_segmented_count_unset_bits(exec, kmask::inverted(m), ranges, unset_inv);
      kmask::inplace_segmented_count_unset_bits(exec, kmask::source_mask{}, ranges, absent);
      const auto alloc = counts_to_host(kmask::segmented_count_unset_bits(exec, m, ranges));
      const auto d_ranges = device_ranges_test::ranges_on_device<TEST_EXECSPACE>(ranges);
      const auto from_view = poisoned_counts<TEST_EXECSPACE>(static_cast<size_type>(n + 2));
      kmask::inplace_segmented_count_set_bits(exec, m, Kokkos::View<const size_type*, MS>(d_ranges), from_view);
      const auto c = counts_to_host(set), ui = counts_to_host(unset_inv), a = counts_to_host(absent),
                 v = counts_to_host(from_view);
      ASSERT_EQ(alloc.size(), n);
      for (std::size_t r = 0; r < n; ++r) {
        const size_type b = ranges[2 * r], e = ranges[2 * r + 1];
        const size_type want = ref::count_set(host, static_cast<size_type>(skew) * 32 + shift + b,
                                              static_cast<size_type>(skew) * 32 + shift + e);
        ASSERT_EQ(c[r], want) << "range " << r << " [" << b << ", " << e << ")";
        ASSERT_EQ(ui[r], want) << "unset bits of the inverted mask, range " << r;
        ASSERT_EQ(a[r], 0) << "unset bits of an absent mask, range " << r;
        ASSERT_EQ(alloc[r], (e - b) - want) << "allocating unset count, range " << r;
        ASSERT_EQ(v[r], want) << "ranges in a view, range " << r;
      }
      for (std::size_t r = n; r < n + 2; ++r) {
        EXPECT_EQ(c[r], -777) << "entry " << r << " past the ranges was written";
        EXPECT_EQ(ui[r], -777) << "entry " << r << " past the ranges was written";
        EXPECT_EQ(a[r], -777) << "entry " << r << " past the ranges was written";
        EXPECT_EQ(v[r], -777) << "entry " << r << " past the ranges was written";
      }
      if (kmask::detail::uses_cpu_kernels<TEST_EXECSPACE>()) {
        const std::string fn = "kmask::inplace_segmented_count_set_bits::";
        EXPECT_EQ(hr::launched(kernels, fn + "check"), hr::threaded(n)) << "the threads' check pass";
        // A list with one range of most of the mask goes to the batch launch when the space has
        // threads to share that range; with one thread a thread a range is as good.
        const bool whole = !s.one_long || exec.concurrency() == 1;
        EXPECT_EQ(hr::launched(kernels, fn + "ranges"), hr::threaded(n) && whole) << "a thread a range";
        EXPECT_EQ(hr::launched(kernels, fn + "words"), !hr::threaded(n) || !whole) << "the batch launch";
      } else {
        // The GPU form: lanes a range, unless a range is longer than that form takes (the batch
        // launch, which splits it over teams).
        size_type longest = 0;
        for (std::size_t r = 0; r < n; ++r)
          longest = std::max(longest, kmask::detail::words_of_bits(shift + ranges[2 * r], shift + ranges[2 * r + 1]));
        const bool lanes = longest <= kmask::detail::launch_tuning<TEST_EXECSPACE>::count_gpu_range_long_words;
        const std::string fn = "kmask::inplace_segmented_count_set_bits::";
        EXPECT_EQ(hr::launched(kernels, fn + "ranges"), lanes) << "lanes a range, longest " << longest << " words";
        EXPECT_EQ(hr::launched(kernels, fn + "words"), !lanes) << "the batch launch, longest " << longest << " words";
      }
    }
  }
}

// A bad range of each kind at the first, a block-seam, a random, the last and a staging chunk's
// first position of lists on both sides of the crossing, a second bad range after it: the first one's message (the serial
// check's), in every form, and not one count written.
TEST(TEST_CATEGORY, segmented_count_range_lists_refuse_the_first_bad_range) {
  namespace hr = host_range_lists;
  TEST_EXECSPACE exec;
  using MS        = typename TEST_EXECSPACE::memory_space;
  const auto seed = base_seed() + 92;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  const auto host   = random_words(rng, 4);  // 128 bits
  const auto dev    = to_device<TEST_EXECSPACE>(host);
  const std::size_t block = static_cast<std::size_t>(kmask::detail::launch_tuning<TEST_EXECSPACE>::count_cpu_list_block_ranges);
  // The GPU form checks and uploads host ranges a chunk at a time: a bad range in a later chunk
  // (the earlier ones already uploaded) and at a chunk's first position.
  const std::size_t chunk = kmask::detail::launch_tuning<TEST_EXECSPACE>::count_gpu_stage_chunk_ranges;
  for (const std::size_t n : {hr::min_ranges() - 1, std::size_t{5000}, 2 * chunk + 100}) {
    for (const auto& c : device_ranges_test::bad_ranges_of_128_bits()) {
      for (const std::size_t at : {std::size_t{0}, block, static_cast<std::size_t>(rng() % n), n - 1, chunk}) {
        if (at >= n) continue;
        auto ranges = hr::ranges_of(rng, n, 128, 128, false);
        ranges[2 * at] = c.b, ranges[2 * at + 1] = c.e;
        if (at + 1 < n) ranges[2 * (n - 1)] = -1;  // a later bad range: the first is named
        const std::size_t i = c.b < 0 ? 2 * at : 2 * at + 1;
        std::string what    = c.what;
        const auto hole     = what.find('@');
        if (hole != std::string::npos) what.replace(hole, 1, std::to_string(2 * at));
        const std::string tail = "ranges[" + std::to_string(i) + "] = " + what;
        SCOPED_TRACE(::testing::Message() << n << " ranges, bad at " << at << ": " << tail);
        const auto counts   = poisoned_counts<TEST_EXECSPACE>(static_cast<size_type>(n));
        const auto d_ranges = device_ranges_test::ranges_on_device<TEST_EXECSPACE>(ranges);
        const auto expect_refused = [&](auto&& call, const std::string& fn) {
          try {
            call();
            ADD_FAILURE() << fn << ": not refused";
          } catch (const std::exception& e) {
            EXPECT_EQ(std::string(e.what()), fn + ": " + tail);
            EXPECT_EQ(dynamic_cast<const std::out_of_range*>(&e) != nullptr, c.out_of_range) << "exception type";
            if (!c.out_of_range) EXPECT_NE(dynamic_cast<const std::invalid_argument*>(&e), nullptr) << "exception type";
          }
        };
        expect_refused([&] { kmask::inplace_segmented_count_set_bits(exec, dev, ranges, counts); },
                       "kmask::inplace_segmented_count_set_bits");
        expect_refused([&] { kmask::segmented_count_unset_bits(exec, kmask::inverted(dev), ranges); },
                       "kmask::segmented_count_unset_bits");
        expect_refused([&] { kmask::inplace_segmented_count_unset_bits(exec, dev, Kokkos::View<const size_type*, MS>(d_ranges), counts); },
                       "kmask::inplace_segmented_count_unset_bits");
        for (size_type v : counts_to_host(counts)) ASSERT_EQ(v, -777) << "a count was written by a rejected call";
      }
    }
  }
}

// Batch counts of many masks take the same passes on a host space (the masks tested and described
// by the space's threads): lists under, at and over the crossing and one with a mask of most of
// the bits among small ones (the batch launch where the space has threads to share it), as views
// with begin bits and as raw sources (inverted and absent ones among them), set and unset, in place
// and allocating, against the reference, poison past the counts, with the route that ran.
TEST(TEST_CATEGORY, batch_count_lists_of_every_route) {
  namespace hr = host_range_lists;
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 93;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  const std::size_t lo = hr::min_ranges();
  for (const std::size_t n : {lo - 1, lo, std::size_t{2000}, std::size_t{300}}) {
    const bool one_long = n == 300;
    SCOPED_TRACE(::testing::Message() << n << " masks" << (one_long ? ", one long" : ""));
    std::vector<inv::mask_source> ms;
    std::vector<size_type> sizes, want, want_plain, begins;
    std::vector<kmask::source_mask> raw;
    std::vector<Kokkos::View<const word_type*, inv::MS>> views;
    for (std::size_t j = 0; j < n; ++j) {
      const size_type bits = one_long && j == 100 ? (size_type{1} << 22) + 7 : static_cast<size_type>(rng() % 3000);
      sizes.push_back(bits);
      ms.push_back(inv::random_source(rng, bits, j != 100));
      raw.push_back(ms.back().as_source());
      views.push_back(ms.back().dev);
      begins.push_back(ms.back().begin);
      want.push_back(ref::count_set_read(ms.back().as_read(), bits));
      ref::read_source plain = ms.back().as_read();  // the view form reads no invert flag
      plain.invert           = false;
      want_plain.push_back(ref::count_set_read(plain, bits));
    }
    const auto in_place = poisoned_counts<TEST_EXECSPACE>(static_cast<size_type>(n + 2));
    const auto kernels =
        hr::kernels_of([&] { kmask::inplace_batch_count_set_bits(exec, raw, sizes, in_place); });
    const auto unset_views = counts_to_host(kmask::batch_count_unset_bits(exec, views, begins, sizes));
    const auto got         = counts_to_host(in_place);
    ASSERT_EQ(unset_views.size(), n);
    for (std::size_t j = 0; j < n; ++j) {
      ASSERT_EQ(got[j], want[j]) << "raw sources, set bits of mask " << j;
      ASSERT_EQ(unset_views[j], sizes[j] - want_plain[j]) << "views, unset bits of mask " << j;
    }
    for (std::size_t j = n; j < n + 2; ++j) EXPECT_EQ(got[j], -777) << "entry " << j << " past the masks was written";
    if (kmask::detail::uses_cpu_kernels<TEST_EXECSPACE>()) {
      const std::string fn = "kmask::inplace_batch_count_set_bits::";
      const bool whole     = !one_long || exec.concurrency() == 1;
      EXPECT_EQ(hr::launched(kernels, fn + "check"), hr::threaded(n)) << "the threads' check pass";
      EXPECT_EQ(hr::launched(kernels, fn + "ranges"), hr::threaded(n) && whole) << "a thread a mask";
      EXPECT_EQ(hr::launched(kernels, fn + "words"), !hr::threaded(n) || !whole) << "the batch launch";
    }
  }
}

// A bad mask or size at the first, a block-seam, a random and the last position of a list over
// the crossing, a second bad entry after it: the serial check's message for the first, and not
// one count written.
TEST(TEST_CATEGORY, batch_count_lists_refuse_the_first_bad_mask) {
  namespace hr = host_range_lists;
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 94;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  const ref::words h = random_words(rng, 4);  // 128 bits
  const auto m       = to_device<TEST_EXECSPACE>(h);
  const std::size_t n = 900, block =
      static_cast<std::size_t>(kmask::detail::launch_tuning<TEST_EXECSPACE>::count_cpu_list_block_ranges);
  const std::string is = "kmask::inplace_batch_count_set_bits: ", au = "kmask::batch_count_unset_bits: ";
  for (const std::size_t at : {std::size_t{0}, block, static_cast<std::size_t>(rng() % n), n - 1}) {
    SCOPED_TRACE(::testing::Message() << "bad entry " << at);
    std::vector<size_type> sizes(n), begins(n);
    for (std::size_t j = 0; j < n; ++j) sizes[j] = static_cast<size_type>(rng() % 60), begins[j] = static_cast<size_type>(rng() % 60);
    const std::vector<Kokkos::View<const word_type*, inv::MS>> views(n, m);
    std::vector<kmask::source_mask> raw(n, kmask::source_mask{m.data(), 4, 0});
    for (std::size_t j = 0; j < n; ++j) raw[j].begin_bit = begins[j];
    const std::string p = std::to_string(at);
    const auto counts   = poisoned_counts<TEST_EXECSPACE>(static_cast<size_type>(n));
    const auto refused  = [&](auto&& call, const std::type_info& type, const std::string& message) {
      inv::expect_refused(call, type, message, [&] { EXPECT_EQ(to_host(m), h) << "the mask changed"; });
      for (size_type v : counts_to_host(counts)) ASSERT_EQ(v, -777) << "a count was written by a rejected call";
    };
    {  // a view read past its end, then another after it
      auto b = begins, s = sizes;
      b[at] = 29, s[at] = 100;
      if (at + 1 < n) b[n - 1] = -1;
      refused([&] { kmask::batch_count_unset_bits(exec, views, b, s); }, typeid(std::out_of_range),
              au + "begin_bits[" + p + "] + sizes_bits[" + p + "] = 29 + 100 is past the 128 bits of masks[" + p +
                  "] (4 words)");
      kmask::inplace_batch_count_set_bits(exec, views, begins, sizes, counts);  // control: the good list passes
      const auto c = counts_to_host(counts);
      for (std::size_t j = 0; j < n; ++j) ASSERT_EQ(c[j], ref::count_set(h, begins[j], begins[j] + sizes[j])) << "mask " << j;
      Kokkos::deep_copy(counts, size_type{-777});
    }
    {  // a null pointer with an extent, then a bad begin bit after it
      auto r = raw;
      r[at]  = kmask::source_mask{nullptr, 4, 0};
      if (at + 1 < n) r[n - 1].begin_bit = -1;
      refused([&] { kmask::inplace_batch_count_set_bits(exec, r, sizes, counts); }, typeid(std::invalid_argument),
              is + "masks[" + p + "] is a null pointer but its extent is 4 words (only an empty null mask reads as all valid)");
    }
    {  // a negative size (checked on the calling thread, before any mask)
      auto s = sizes;
      s[at]  = -1;
      auto r = raw;
      r[0]   = kmask::source_mask{nullptr, 4, 0};
      refused([&] { kmask::inplace_batch_count_set_bits(exec, r, s, counts); }, typeid(std::invalid_argument),
              is + "sizes_bits[" + p + "] = -1 is negative");
    }
  }
}
