// num_words, allocation_size_bytes, create_mask.

namespace {
// Device lambdas cannot live in a TEST body (a private member function) under nvcc.
template <class ExecSpace>
size_type num_words_on_device(size_type bits) {
  Kokkos::View<size_type*, typename ExecSpace::memory_space> out("out", 1);
  Kokkos::parallel_for(
      Kokkos::RangePolicy<ExecSpace>(0, 1), KOKKOS_LAMBDA(int) { out(0) = kmask::num_words(bits); });
  return counts_to_host(out)[0];
}
}  // namespace

TEST(TEST_CATEGORY, num_words_and_allocation_size) {
  static_assert(kmask::num_words(0) == 0, "constexpr");
  for (size_type bits : {size_type{-5}, size_type{0}, size_type{1}, size_type{31}, size_type{32}, size_type{33},
                         size_type{511}, size_type{512}, size_type{513}, size_type{1} << 40}) {
    const size_type expect_words = bits <= 0 ? 0 : (bits + 31) / 32;
    EXPECT_EQ(kmask::num_words(bits), expect_words) << bits;
    const size_type bytes = expect_words * 4;
    EXPECT_EQ(kmask::allocation_size_bytes(bits), (bytes + 63) / 64 * 64) << bits;
    EXPECT_EQ(kmask::allocation_size_bytes(bits, 4), bytes) << bits;
  }
  // The count is usable inside kernels too.
  EXPECT_EQ(num_words_on_device<TEST_EXECSPACE>(65), 3);
}

TEST(TEST_CATEGORY, create_mask_states) {
  TEST_EXECSPACE exec;
  for (size_type bits : {0, 1, 31, 32, 33, 500, 512, 4097}) {
    const size_type padded_words = ((bits + 31) / 32 * 4 + 63) / 64 * 64 / 4;
    const auto valid             = to_host(kmask::create_mask(exec, bits, kmask::mask_state::all_valid));
    const auto null              = to_host(kmask::create_mask(exec, bits, kmask::mask_state::all_null));
    const auto raw               = kmask::create_mask(exec, bits, kmask::mask_state::uninitialized);
    ASSERT_EQ(static_cast<size_type>(valid.size()), padded_words) << bits;
    ASSERT_EQ(static_cast<size_type>(raw.extent(0)), padded_words) << bits;
    for (size_type i = 0; i < padded_words * 32; ++i) {
      ASSERT_EQ(ref::get_bit(valid, i), i < bits ? 1 : 0) << "bits = " << bits << " bit " << i;
      ASSERT_EQ(ref::get_bit(null, i), 0) << "bits = " << bits << " bit " << i;
    }
  }
  EXPECT_THROW(kmask::create_mask(exec, -1, kmask::mask_state::all_null), std::invalid_argument);
}
