// Segmented counts whose ranges are a view in device memory (count_device_ranges.hpp): the same
// counts as the host-range form's reference, every count written and nothing past them, and a bad
// range anywhere in the view refused with the host form's message before any count is written.

namespace device_ranges_test {
template <class ExecSpace>
Kokkos::View<size_type*, typename ExecSpace::memory_space> ranges_on_device(const std::vector<size_type>& ranges) {
  auto d = exact_view<size_type, typename ExecSpace::memory_space>(ranges.size(), "test::ranges");
  auto m = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < ranges.size(); ++i) m(i) = ranges[i];
  Kokkos::deep_copy(d, m);
  return d;
}

// n ranges of [0, limit], lengths up to `longest` bits, every sixth one empty.
inline std::vector<size_type> random_ranges(std::mt19937_64& rng, std::size_t n, size_type limit, size_type longest) {
  std::vector<size_type> ranges;
  for (std::size_t r = 0; r < n; ++r) {
    const size_type b = static_cast<size_type>(rng() % static_cast<std::uint64_t>(limit + 1));
    const size_type room = std::min(longest, limit - b);
    ranges.push_back(b);
    ranges.push_back(r % 6 == 5 ? b : b + static_cast<size_type>(rng() % static_cast<std::uint64_t>(room + 1)));
  }
  return ranges;
}

// Enqueues ranges(2r, 2r + 1) = [r * step, (r + 1) * step + past) on `exec`.
template <class ExecSpace>
void write_offset_ranges(const ExecSpace& exec, const Kokkos::View<size_type*, typename ExecSpace::memory_space>& ranges,
                         size_type step, size_type past) {
  Kokkos::parallel_for(
      "test::write_ranges",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(exec, 0, static_cast<size_type>(ranges.extent(0) / 2)),
      KOKKOS_LAMBDA(size_type r) {
        ranges(2 * r)     = r * step;
        ranges(2 * r + 1) = (r + 1) * step + past;
      });
}
// A bad range {b, e} of each kind over a 128-bit mask and the message it gets after
// "ranges[i] = " (i the begin's position, or the end's where b >= 0), '@' standing for the begin's.
struct bad_range {
  size_type b, e;
  bool out_of_range;
  std::string what;
};
inline std::vector<bad_range> bad_ranges_of_128_bits() {
  return {{-3, 4, false, "-3 is negative"},
          {9, 7, false, "7 is less than ranges[@] = 9"},
          {0, size_type{1} << 62, false, "4611686018427387904 is too large"},
          {100, 200, true, "200 is past the 128 bits of mask (4 words)"}};
}
}  // namespace device_ranges_test

// Short and long ranges (a few bits to ~100000), masks at every word skew from an aligned
// allocation, the raw form's begin bit, inverted and absent masks: each count against the scalar
// reference, entries past the ranges keep their poison.
TEST(TEST_CATEGORY, device_range_counts_match_the_reference) {
  TEST_EXECSPACE exec;
  using MS        = typename TEST_EXECSPACE::memory_space;
  const auto seed = base_seed() + 71;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 24; ++iter) {
    const std::size_t skew  = static_cast<std::size_t>(iter % 4);
    const std::size_t words = 1 + rng() % (iter % 3 == 0 ? 6000 : 300);
    const auto host         = random_words(rng, words + skew);
    const auto dev          = to_device<TEST_EXECSPACE>(host);
    const std::vector<word_type> seen(host.begin() + static_cast<std::ptrdiff_t>(skew), host.end());
    const size_type total = static_cast<size_type>(words) * 32;
    const size_type shift = static_cast<size_type>(rng() % 70) % (total + 1);  // the raw form's begin bit
    const std::size_t n   = iter % 8 == 7 ? 0 : 1 + rng() % (iter % 2 == 0 ? 3000 : 40);
    const auto ranges     = device_ranges_test::random_ranges(rng, n, total - shift, iter % 2 == 0 ? 200 : total);
    const auto d_ranges   = device_ranges_test::ranges_on_device<TEST_EXECSPACE>(ranges);
    const kmask::source_mask m{dev.data() + skew, static_cast<size_type>(words), shift};
    SCOPED_TRACE(::testing::Message() << n << " ranges over " << total << " bits, skew " << skew << ", shift " << shift);

    const std::size_t extra = 3;
    const auto set = poisoned_counts<TEST_EXECSPACE>(static_cast<size_type>(n + extra));
    const auto unset = poisoned_counts<TEST_EXECSPACE>(static_cast<size_type>(n + extra));
    const auto inverted = poisoned_counts<TEST_EXECSPACE>(static_cast<size_type>(n + extra));
    const auto absent = poisoned_counts<TEST_EXECSPACE>(static_cast<size_type>(n + extra));
    kmask::inplace_segmented_count_set_bits(exec, m, d_ranges, set);
    kmask::inplace_segmented_count_unset_bits(exec, m, Kokkos::View<const size_type*, MS>(d_ranges), unset);
    kmask::source_mask flipped = m;
    flipped.invert             = true;
    kmask::inplace_segmented_count_set_bits(exec, flipped, d_ranges, inverted);
    kmask::inplace_segmented_count_unset_bits(exec, kmask::source_mask{}, d_ranges, absent);
    const auto s = counts_to_host(set), u = counts_to_host(unset), i = counts_to_host(inverted), a = counts_to_host(absent);
    for (std::size_t r = 0; r < n; ++r) {
      const size_type b = ranges[2 * r], e = ranges[2 * r + 1];
      const size_type want = ref::count_set(seen, shift + b, shift + e);
      ASSERT_EQ(s[r], want) << "range " << r << " [" << b << ", " << e << ")";
      ASSERT_EQ(u[r], (e - b) - want) << "range " << r;
      ASSERT_EQ(i[r], (e - b) - want) << "inverted, range " << r;
      ASSERT_EQ(a[r], 0) << "absent mask, unset bits of range " << r;
    }
    for (std::size_t r = n; r < n + extra; ++r) {
      EXPECT_EQ(s[r], -777) << "entry " << r << " past the ranges was written";
      EXPECT_EQ(u[r], -777) << "entry " << r << " past the ranges was written";
      EXPECT_EQ(i[r], -777) << "entry " << r << " past the ranges was written";
      EXPECT_EQ(a[r], -777) << "entry " << r << " past the ranges was written";
    }
    // The View forms and the allocating forms, from the view's bit 0.
    const auto whole = device_ranges_test::random_ranges(rng, n, total, 5000);
    const auto d_whole = device_ranges_test::ranges_on_device<TEST_EXECSPACE>(whole);
    const Kokkos::View<const word_type*, MS> view(dev.data() + skew, words);
    const auto vs = counts_to_host(kmask::segmented_count_set_bits(exec, view, d_whole));
    const auto vu = counts_to_host(kmask::segmented_count_unset_bits(exec, kmask::source_mask{view.data(), static_cast<size_type>(words), 0}, d_whole));
    ASSERT_EQ(vs.size(), n);
    ASSERT_EQ(vu.size(), n);
    for (std::size_t r = 0; r < n; ++r) {
      const size_type b = whole[2 * r], e = whole[2 * r + 1];
      ASSERT_EQ(vs[r], ref::count_set(seen, b, e)) << "allocating form, range " << r;
      ASSERT_EQ(vu[r], (e - b) - vs[r]) << "allocating form, range " << r;
    }
  }
}

// Ranges longer than a group of lanes takes (count_gpu_range_long_words) among short ones: the
// check lists them and the count launch splits them into team slices. One range of most of the
// mask among short ones (a list column with one huge list), several just over and at the limit,
// long ranges that overlap past the list's room (then nothing is split), set, unset, inverted and
// absent, a skewed raw mask; each count against the reference, poison past the counts, repeated
// calls (the list's totals go back to zero), and a bad range after long ones refused with nothing
// written.
TEST(TEST_CATEGORY, device_range_counts_split_long_ranges) {
  TEST_EXECSPACE exec;
  using MS        = typename TEST_EXECSPACE::memory_space;
  const auto seed = base_seed() + 74;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  const size_type L       = kmask::detail::launch_tuning<TEST_EXECSPACE>::count_gpu_range_long_words;
  const std::size_t words = static_cast<std::size_t>(4 * L + 777), skew = 1;
  const auto host         = random_words(rng, words + skew);
  const auto dev          = to_device<TEST_EXECSPACE>(host);
  const std::vector<word_type> seen(host.begin() + static_cast<std::ptrdiff_t>(skew), host.end());
  const size_type shift = 37, total = static_cast<size_type>(words) * 32 - shift;
  const kmask::source_mask m{dev.data() + skew, static_cast<size_type>(words), shift};
  enum class shape { one_huge, at_the_limit, overlapping, many_long };
  for (const shape sh : {shape::one_huge, shape::at_the_limit, shape::overlapping, shape::many_long}) {
    auto ranges = device_ranges_test::random_ranges(rng, 500, total, 3000);
    if (sh == shape::one_huge) {
      ranges[2 * 123] = 5, ranges[2 * 123 + 1] = total - 3;
    } else if (sh == shape::at_the_limit) {
      // From the mask's word 2: exactly L words (not long), L + 1, L + 2 (a partial last word), 3L.
      const size_type b = 64 - shift;
      const size_type lens[] = {32 * L, 32 * (L + 1), 32 * (L + 1) + 5, 32 * 3 * L - 1};
      for (std::size_t k = 0; k < 4; ++k) ranges[2 * (7 + 50 * k)] = b, ranges[2 * (7 + 50 * k) + 1] = b + lens[k];
    } else if (sh == shape::overlapping) {
      for (std::size_t k = 0; k < 12; ++k) ranges[2 * (3 + 40 * k)] = static_cast<size_type>(k), ranges[2 * (3 + 40 * k) + 1] = total - static_cast<size_type>(k);
    } else {
      // Long ranges that tile the mask: as many as the list's room holds.
      const std::size_t k_max = words / static_cast<std::size_t>(L);
      const size_type len     = total / static_cast<size_type>(k_max);
      for (std::size_t k = 0; k < k_max; ++k)
        ranges[2 * (11 + 60 * k)] = static_cast<size_type>(k) * len, ranges[2 * (11 + 60 * k) + 1] = static_cast<size_type>(k + 1) * len;
    }
    const std::size_t n = ranges.size() / 2;
    SCOPED_TRACE(::testing::Message() << "shape " << static_cast<int>(sh));
    const auto d_ranges = device_ranges_test::ranges_on_device<TEST_EXECSPACE>(ranges);
    for (int round = 0; round < 2; ++round) {
      const auto set      = poisoned_counts<TEST_EXECSPACE>(static_cast<size_type>(n + 2));
      const auto unset    = poisoned_counts<TEST_EXECSPACE>(static_cast<size_type>(n + 2));
      const auto inverted = poisoned_counts<TEST_EXECSPACE>(static_cast<size_type>(n + 2));
      const auto absent   = poisoned_counts<TEST_EXECSPACE>(static_cast<size_type>(n + 2));
      kmask::inplace_segmented_count_set_bits(exec, m, d_ranges, set);
      kmask::inplace_segmented_count_unset_bits(exec, m, Kokkos::View<const size_type*, MS>(d_ranges), unset);
      kmask::inplace_segmented_count_set_bits(exec, kmask::inverted(m), d_ranges, inverted);
      kmask::inplace_segmented_count_set_bits(exec, kmask::source_mask{}, d_ranges, absent);
      const auto s = counts_to_host(set), u = counts_to_host(unset), i = counts_to_host(inverted),
                 a = counts_to_host(absent);
      for (std::size_t r = 0; r < n; ++r) {
        const size_type b = ranges[2 * r], e = ranges[2 * r + 1];
        const size_type want = ref::count_set(seen, shift + b, shift + e);
        ASSERT_EQ(s[r], want) << "round " << round << ", range " << r << " [" << b << ", " << e << ")";
        ASSERT_EQ(u[r], (e - b) - want) << "unset, range " << r;
        ASSERT_EQ(i[r], (e - b) - want) << "inverted, range " << r;
        ASSERT_EQ(a[r], e - b) << "absent mask, range " << r;
      }
      for (std::size_t r = n; r < n + 2; ++r) {
        EXPECT_EQ(s[r], -777) << "entry " << r << " past the ranges was written";
        EXPECT_EQ(i[r], -777) << "entry " << r << " past the ranges was written";
      }
    }
    // A bad range after the long ones: refused, nothing written; then a good call still counts.
    auto bad = ranges;
    bad[2 * (n - 1) + 1] = total + shift + 1;
    const auto d_bad  = device_ranges_test::ranges_on_device<TEST_EXECSPACE>(bad);
    const auto counts = poisoned_counts<TEST_EXECSPACE>(static_cast<size_type>(n));
    EXPECT_THROW(kmask::inplace_segmented_count_set_bits(exec, m, d_bad, counts), std::out_of_range);
    for (size_type v : counts_to_host(counts)) ASSERT_EQ(v, -777) << "a count was written by a rejected call";
    kmask::inplace_segmented_count_set_bits(exec, m, d_ranges, counts);
    const auto c = counts_to_host(counts);
    for (std::size_t r = 0; r < n; ++r)
      ASSERT_EQ(c[r], ref::count_set(seen, shift + ranges[2 * r], shift + ranges[2 * r + 1])) << "after a refused call, range " << r;
  }
}

// Ranges that a kernel on the same instance writes just before the call: the call reads them after.
TEST(TEST_CATEGORY, device_range_counts_follow_the_kernel_that_wrote_the_ranges) {
  TEST_EXECSPACE exec;
  using MS        = typename TEST_EXECSPACE::memory_space;
  const auto seed = base_seed() + 72;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  const auto host         = random_words(rng, 4000);
  const auto dev          = to_device<TEST_EXECSPACE>(host);
  const size_type n = 1000, step = 127;  // ranges [r * step, (r + 1) * step + 5): list offsets, overlapping a little
  Kokkos::View<size_type*, MS> d_ranges("test::ranges", 2 * n);
  const auto counts = poisoned_counts<TEST_EXECSPACE>(n);
  device_ranges_test::write_offset_ranges(exec, d_ranges, step, 5);
  kmask::inplace_segmented_count_set_bits(exec, dev, d_ranges, counts);
  const auto c = counts_to_host(counts);
  for (size_type r = 0; r < n; ++r)
    ASSERT_EQ(c[r], ref::count_set(host, r * step, (r + 1) * step + 5)) << "range " << r;
  // The default-space form (the views' memory space's execution space).
  const auto unset = poisoned_counts<TEST_EXECSPACE>(n);
  kmask::inplace_segmented_count_unset_bits(dev, d_ranges, unset);
  const auto u = counts_to_host(unset);
  for (size_type r = 0; r < n; ++r) ASSERT_EQ(u[r], step + 5 - c[r]) << "default-space form, range " << r;
}

// A bad range at any position among many good ones: the host form's message naming it, and not
// one count written (on the GPU form the device finds it, then the host reads it back).
TEST(TEST_CATEGORY, device_range_counts_refuse_a_bad_range_and_write_nothing) {
  TEST_EXECSPACE exec;
  using MS        = typename TEST_EXECSPACE::memory_space;
  using IA        = std::invalid_argument;
  using OR        = std::out_of_range;
  const auto seed = base_seed() + 73;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  const auto host = random_words(rng, 4);  // 128 bits
  const auto dev  = to_device<TEST_EXECSPACE>(host);
  const std::string is = "kmask::inplace_segmented_count_set_bits: ", su = "kmask::segmented_count_unset_bits: ";
  for (const auto& c : device_ranges_test::bad_ranges_of_128_bits()) {
    for (std::size_t at : {std::size_t{0}, std::size_t{517}, std::size_t{1999}}) {
      auto ranges = device_ranges_test::random_ranges(rng, 2000, 128, 128);
      ranges[2 * at]     = c.b;
      ranges[2 * at + 1] = c.e;
      // A later bad range too: the first one is named.
      ranges[2 * 1999 + 1] = at == 1999 ? ranges[2 * 1999 + 1] : -1;
      const auto d_ranges = device_ranges_test::ranges_on_device<TEST_EXECSPACE>(ranges);
      const std::size_t i = c.b < 0 ? 2 * at : 2 * at + 1;
      std::string what    = c.what;
      const auto hole     = what.find('@');
      if (hole != std::string::npos) what.replace(hole, 1, std::to_string(2 * at));
      const std::string message = is + "ranges[" + std::to_string(i) + "] = " + what;
      SCOPED_TRACE(message);
      const auto counts = poisoned_counts<TEST_EXECSPACE>(2000);
      try {
        kmask::inplace_segmented_count_set_bits(exec, dev, d_ranges, counts);
        ADD_FAILURE() << "not refused";
      } catch (const std::exception& e) {
        EXPECT_EQ(std::string(e.what()), message);
        EXPECT_EQ(dynamic_cast<const OR*>(&e) != nullptr, c.out_of_range) << "exception type";
        if (!c.out_of_range) EXPECT_NE(dynamic_cast<const IA*>(&e), nullptr) << "exception type";
      }
      for (size_type v : counts_to_host(counts)) ASSERT_EQ(v, -777) << "a count was written by a rejected call";
    }
  }
  // The host-checked arguments: odd length, a null ranges view with entries, counts.
  const auto counts = poisoned_counts<TEST_EXECSPACE>(2);
  const auto three  = device_ranges_test::ranges_on_device<TEST_EXECSPACE>({0, 4, 7});
  const auto six    = device_ranges_test::ranges_on_device<TEST_EXECSPACE>({0, 4, 1, 2, 3, 3});
  const Kokkos::View<const size_type*, MS> null_ranges(nullptr, 4);
  const auto expect_message = [&](auto&& call, const std::string& message_start) {
    try {
      call();
      ADD_FAILURE() << "not refused: " << message_start;
    } catch (const std::exception& e) {
      EXPECT_EQ(std::string(e.what()).rfind(message_start, 0), 0u) << e.what();
    }
  };
  expect_message([&] { kmask::inplace_segmented_count_set_bits(exec, dev, three, counts); }, is + "ranges.size() = 3 is odd");
  expect_message([&] { kmask::inplace_segmented_count_set_bits(exec, dev, null_ranges, counts); },
                 is + "ranges is a null view but its extent is 4");
  expect_message([&] { kmask::inplace_segmented_count_set_bits(exec, dev, six, counts); },
                 is + "counts.extent(0) = 2 is less than the 3 needed");
  expect_message([&] { kmask::inplace_segmented_count_set_bits(exec, dev, six, Kokkos::View<size_type*, MS>()); },
                 is + "counts is a null view but 3 counts are written to it");
  expect_message([&] { kmask::segmented_count_unset_bits(exec, kmask::source_mask{nullptr, 4, 0}, six); },
                 su + "mask is null but its extent is 4 words");
  const auto bad = device_ranges_test::ranges_on_device<TEST_EXECSPACE>({0, 4, 100, 200});
  expect_message([&] { kmask::segmented_count_unset_bits(exec, dev, bad); },
                 su + "ranges[3] = 200 is past the 128 bits of mask (4 words)");
  for (size_type v : counts_to_host(counts)) EXPECT_EQ(v, -777) << "a count was written by a rejected call";
}
