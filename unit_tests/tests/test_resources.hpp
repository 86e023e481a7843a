// Resource failure: a call whose allocation no machine can satisfy (2^48 words = 1 PiB) fails with
// Kokkos' allocation exception (no crash), writes nothing, and the library works normally right
// after it in the same process. Empty segments (no sources) keep the sources small.
//
// Kokkos 3.4 reports a failed allocation as std::runtime_error (not std::bad_alloc: the
// RawMemoryAllocationFailure, a std::bad_alloc, is caught by checked_allocation_with_header and
// rethrown through Kokkos::Impl::throw_runtime_exception) with the message
//   Kokkos failed to allocate memory for label "<label>".  Allocation using MemorySpace named
//   "<space>" failed with the following error:  ...
// Kokkos 4 versions throw one or the other; what each version does is in compat.hpp
// (detail::allocation_failure_report).
// The sanitized build runs with ASAN_OPTIONS=allocator_may_return_null=1, so AddressSanitizer's
// allocator returns null for the huge request (as malloc does) instead of aborting the process.

namespace {
namespace resources {

// `call` must fail to allocate the view labelled `label` in MemorySpace.
template <class MemorySpace, class F>
void expect_allocation_failure(F&& call, const std::string& label) {
  SCOPED_TRACE("allocation of " + label);
  try {
    call();
    ADD_FAILURE() << "a 1 PiB allocation succeeded";
  } catch (const std::bad_alloc& e) {
    using report = kmask::detail::allocation_failure_report;
    if (!report::may_be_bad_alloc)
      ADD_FAILURE() << "Kokkos " << kmask::detail::kokkos_version_string()
                    << " rethrows allocation failures as std::runtime_error; got a std::bad_alloc: " << e.what();
  } catch (const std::runtime_error& e) {
    const std::string want = kmask::detail::allocation_failure_report::runtime_error_prefix(label, MemorySpace::name());
    const std::string what(e.what());
    if (!want.empty())
      EXPECT_EQ(what.substr(0, want.size()), want) << "full message: " << what;
    else
      EXPECT_NE(what.find(label), std::string::npos) << what;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "unexpected exception type " << typeid(e).name() << ": " << e.what();
  }
}

}  // namespace resources
}  // namespace

TEST(TEST_CATEGORY, resource_failure_throws_writes_nothing_and_the_library_keeps_working) {
  TEST_EXECSPACE exec;
  using MS = typename TEST_EXECSPACE::memory_space;
  const size_type huge_bits = size_type{1} << 53;  // 2^48 words, 1 PiB
  const std::vector<Kokkos::View<const word_type*, MS>> none;

  resources::expect_allocation_failure<MS>([&] { kmask::create_mask(exec, huge_bits, kmask::mask_state::all_valid); },
                                           "kmask::create_mask::mask");
  resources::expect_allocation_failure<MS>([&] { kmask::binop(exec, kmask::bit_and{}, none, {}, huge_bits); },
                                           "kmask::binop::mask");
  resources::expect_allocation_failure<MS>(
      [&] { kmask::segmented_binop(exec, kmask::bit_or{}, none, {}, huge_bits, {0, 0, 0}); },
      "kmask::segmented_binop::masks");

  // In place: a destination read by its own segment from bit 32 must be staged through a
  // temporary as large as the result (the call's scratch, from the staging pool). No machine holds a 1 PiB destination, so the view claims
  // 2^48 + 1 words over a real poisoned buffer of 4; the temporary's allocation fails before
  // anything is read or written through it.
  const size_type claimed = (size_type{1} << 48) + 1;
  auto buffer             = poisoned_destinations<TEST_EXECSPACE>(1, 128, 0)[0];
  const view_t<TEST_EXECSPACE> dest(buffer.data(), static_cast<std::size_t>(claimed));  // unmanaged, a lie
  const auto counts = poisoned_counts<TEST_EXECSPACE>(1);
  const std::vector<view_t<TEST_EXECSPACE>> dests{dest};
  const std::vector<Kokkos::View<const word_type*, MS>> shifted_self{dest};
  resources::expect_allocation_failure<MS>(
      [&] {
        kmask::inplace_segmented_binop(exec, kmask::bit_and{}, dests, shifted_self, {32}, huge_bits, {0, 1}, counts);
      },
      "kmask::inplace_segmented_binop::scratch");
  resources::expect_allocation_failure<MS>(
      [&] { kmask::inplace_binop(exec, kmask::bit_and{}, dest, shifted_self, {32}, huge_bits); },
      "kmask::inplace_binop::scratch");
  for (auto w : to_host(buffer)) EXPECT_EQ(w, poison) << "a failed call wrote its destination";
  EXPECT_EQ(counts_to_host(counts)[0], -777) << "a failed call wrote its counter";

  // The library works right after, in the same process: a random case through every form.
  const auto seed = base_seed() + 91;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  check_forms<TEST_EXECSPACE>(random_pooled_case(rng, 9, 4, 3000), kmask::bit_and{});
  const auto made = kmask::create_mask(exec, 77, kmask::mask_state::all_valid);
  EXPECT_EQ(kmask::count_unset_bits(exec, made, 0, 77), 0);
  EXPECT_EQ(kmask::count_set_bits(exec, made, 0, 77), 77);
}
