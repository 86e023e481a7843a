// Every rejected input: the exception type, a message naming the function and the argument, and
// nothing written (destinations and counters keep their poison).

namespace {

template <class Exception, class F>
void expect_rejected(F&& call, const std::string& message_start) {
  try {
    call();
    ADD_FAILURE() << "accepted; expected " << message_start;
  } catch (const Exception& e) {
    EXPECT_EQ(std::string(e.what()).substr(0, message_start.size()), message_start) << "full message: " << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type for " << message_start << ": " << e.what();
  }
}

}  // namespace

TEST(TEST_CATEGORY, errors_segmented_calls_reject_bad_input_and_write_nothing) {
  TEST_EXECSPACE exec;
  using MS = typename TEST_EXECSPACE::memory_space;
  std::mt19937_64 rng(base_seed() + 51);
  const size_type bits = 100;  // 4 words
  const auto a         = to_device<TEST_EXECSPACE>(random_words(rng, 4));
  const auto b         = to_device<TEST_EXECSPACE>(random_words(rng, 5));
  const std::vector<Kokkos::View<const word_type*, MS>> masks{a, b, a};
  auto dests        = poisoned_destinations<TEST_EXECSPACE>(2, bits, 1);
  const auto counts = poisoned_counts<TEST_EXECSPACE>(2);
  const std::vector<size_type> good_begins{0, 3, 0}, good_offsets{0, 2, 3};
  const std::string f = "kmask::inplace_segmented_binop: ";
  auto call           = [&](std::vector<size_type> begins, size_type size, std::vector<size_type> offsets,
                  std::vector<Kokkos::View<const word_type*, MS>> m, std::vector<view_t<TEST_EXECSPACE>> d,
                  Kokkos::View<size_type*, MS> c) {
    return [=]() { kmask::inplace_segmented_binop(exec, kmask::bit_and{}, d, m, begins, size, offsets, c); };
  };
  using IA = std::invalid_argument;
  using OR = std::out_of_range;
  expect_rejected<IA>(call({0, 3}, bits, good_offsets, masks, dests, counts),
                      f + "masks.size() = 3 differs from begin_bits.size() = 2");
  expect_rejected<IA>(call({0, -1, 0}, bits, good_offsets, masks, dests, counts), f + "begin_bits[1] = -1 is negative");
  expect_rejected<IA>(call(good_begins, -4, good_offsets, masks, dests, counts), f + "size_bits = -4 is negative");
  expect_rejected<OR>(call({0, 3, 29}, bits, good_offsets, masks, dests, counts),
                      f + "begin_bits[2] + size_bits = 29 + 100 is past the 128 bits of masks[2] (4 words)");
  expect_rejected<IA>(call(good_begins, bits, good_offsets, {a, Kokkos::View<const word_type*, MS>(), a}, dests, counts),
                      f + "masks[1] is a null view");
  expect_rejected<IA>(call(good_begins, bits, {}, masks, dests, counts), f + "segment_offsets is empty");
  expect_rejected<IA>(call(good_begins, bits, {0, 2, 1}, masks, dests, counts),
                      f + "segment_offsets[2] = 1 is less than segment_offsets[1] = 2");
  expect_rejected<OR>(call(good_begins, bits, {0, 2, 4}, masks, dests, counts),
                      f + "segment_offsets[2] = 4 is outside [0, masks.size() = 3]");
  expect_rejected<OR>(call(good_begins, bits, {-1, 2, 3}, masks, dests, counts),
                      f + "segment_offsets[0] = -1 is outside");
  expect_rejected<OR>(call(good_begins, bits, {0, 1, 2, 3}, masks, dests, counts),
                      f + "null_counts.extent(0) = 2 is less than the 3 needed");
  expect_rejected<IA>(call(good_begins, bits, good_offsets, masks, {dests[0]}, counts),
                      f + "destinations.size() = 1 differs from the number of segments = 2");
  expect_rejected<OR>(call(good_begins, bits, good_offsets, masks,
                           {dests[0], view_t<TEST_EXECSPACE>("short", 3)}, counts),
                      f + "destinations[1] has 3 words but size_bits = 100 needs 4");
  expect_rejected<IA>(call(good_begins, bits, good_offsets, masks, {dests[0], view_t<TEST_EXECSPACE>()}, counts),
                      f + "destinations[1] is a null view");
  expect_rejected<OR>(call(good_begins, bits, good_offsets, masks, dests, Kokkos::View<size_type*, MS>("c", 1)),
                      f + "null_counts.extent(0) = 1 is less than the 2 needed");

  for (const auto& d : dests)
    for (auto w : to_host(d)) ASSERT_EQ(w, poison) << "a rejected call wrote a destination";
  for (auto c : counts_to_host(counts)) ASSERT_EQ(c, -777) << "a rejected call wrote a counter";

  // The allocating and single forms name themselves.
  expect_rejected<IA>([&] { kmask::segmented_binop(exec, kmask::bit_or{}, masks, {0, -2, 0}, bits, good_offsets); },
                      "kmask::segmented_binop: begin_bits[1] = -2 is negative");
  expect_rejected<IA>([&] { kmask::binop(exec, kmask::bit_or{}, masks, {0, 0}, bits); },
                      "kmask::binop: masks.size() = 3 differs from begin_bits.size() = 2");
  expect_rejected<OR>([&] { kmask::inplace_binop(exec, kmask::bit_or{}, dests[0], masks, {0, 0, 0}, 200); },
                      "kmask::inplace_binop: begin_bits[0] + size_bits = 0 + 200 is past the 128 bits of masks[0]");
  for (auto w : to_host(dests[0])) ASSERT_EQ(w, poison);
}

TEST(TEST_CATEGORY, errors_superimpose_count_copy_reject_bad_input) {
  TEST_EXECSPACE exec;
  using MS = typename TEST_EXECSPACE::memory_space;
  std::mt19937_64 rng(base_seed() + 52);
  const auto parent = to_device<TEST_EXECSPACE>(random_words(rng, 4));
  auto children     = poisoned_destinations<TEST_EXECSPACE>(2, 100, 0);
  const auto counts = poisoned_counts<TEST_EXECSPACE>(2);
  using IA          = std::invalid_argument;
  using OR          = std::out_of_range;
  expect_rejected<OR>([&] { kmask::superimpose_nulls(exec, parent, 30, children, 100, counts); },
                      "kmask::superimpose_nulls: parent bit range [30, 130) is past the 128 bits of the view");
  expect_rejected<IA>([&] { kmask::superimpose_nulls(exec, parent, -1, children, 100, counts); },
                      "kmask::superimpose_nulls: parent begin_bit = -1 is negative");
  expect_rejected<OR>([&] { kmask::superimpose_nulls(exec, parent, 0, children, 100,
                                                     Kokkos::View<size_type*, MS>("c", 1)); },
                      "kmask::superimpose_nulls: child_null_counts.extent(0) = 1 is less than the 2 needed");
  expect_rejected<OR>([&] { kmask::superimpose_nulls(exec, parent, 0, std::vector<view_t<TEST_EXECSPACE>>{
                                                         children[0], view_t<TEST_EXECSPACE>("short", 2)},
                                                     100, counts); },
                      "kmask::superimpose_nulls: children[1] has 2 words but size_bits = 100 needs 4");
  for (const auto& d : children)
    for (auto w : to_host(d)) ASSERT_EQ(w, poison);
  for (auto c : counts_to_host(counts)) ASSERT_EQ(c, -777);

  expect_rejected<IA>([&] { kmask::count_set_bits(exec, parent, 10, 5); },
                      "kmask::count_set_bits: mask end_bit = 5 is less than begin_bit = 10");
  expect_rejected<OR>([&] { kmask::count_unset_bits(exec, parent, 0, 129); },
                      "kmask::count_unset_bits: mask bit range [0, 129) is past the 128 bits of the view (4 words)");
  expect_rejected<IA>([&] { kmask::count_set_bits(exec, Kokkos::View<const word_type*, MS>(), 0, 1); },
                      "kmask::count_set_bits: mask is a null view");
  expect_rejected<IA>([&] { kmask::segmented_count_set_bits(exec, parent, {0, 4, 7}); },
                      "kmask::segmented_count_set_bits: ranges.size() = 3 is odd");
  expect_rejected<IA>([&] { kmask::segmented_count_unset_bits(exec, parent, {0, 4, 9, 7}); },
                      "kmask::segmented_count_unset_bits: ranges[3] = 7 is less than ranges[2] = 9");
  expect_rejected<IA>([&] { kmask::segmented_count_set_bits(exec, parent, {-3, 4}); },
                      "kmask::segmented_count_set_bits: ranges[0] = -3 is negative");
  expect_rejected<OR>([&] { kmask::segmented_count_set_bits(exec, parent, {0, 4, 100, 200}); },
                      "kmask::segmented_count_set_bits: ranges[3] = 200 is past the 128 bits of mask (4 words)");
  expect_rejected<OR>([&] { kmask::copy_bitmask(exec, parent, 64, 160); },
                      "kmask::copy_bitmask: mask bit range [64, 160) is past the 128 bits of the view");
  expect_rejected<IA>([&] { kmask::copy_bitmask(exec, parent, -1, 10); },
                      "kmask::copy_bitmask: mask begin_bit = -1 is negative");
}
