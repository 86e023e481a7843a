// Every row of README's error table, for every public call it applies to: the exception type, a
// message that starts with the function's name and names the argument (and index), and nothing
// written: after every rejected call, each destination and counter still holds its poison and
// each source its contents.

#include <limits>
#include <typeinfo>

namespace {
namespace errors {

constexpr size_type too_large = std::numeric_limits<size_type>::max() / 2 + 1;  // 2^62: one past the largest bit

// What a rejected call must leave as it was.
template <class ExecSpace>
struct untouched {
  using MS = typename ExecSpace::memory_space;
  std::vector<view_t<ExecSpace>> poisoned;                 // every word is `poison`
  std::vector<Kokkos::View<size_type*, MS>> counters;      // every entry is -777
  std::vector<std::pair<Kokkos::View<const word_type*, MS>, ref::words>> sources;  // their contents

  ::testing::AssertionResult check() const {
    for (std::size_t i = 0; i < poisoned.size(); ++i) {
      const auto got = to_host(poisoned[i]);
      for (std::size_t w = 0; w < got.size(); ++w)
        if (got[w] != poison)
          return ::testing::AssertionFailure() << "destination " << i << " word " << w << " was written: 0x"
                                               << std::hex << got[w];
    }
    for (std::size_t i = 0; i < counters.size(); ++i) {
      const auto got = counts_to_host(counters[i]);
      for (std::size_t c = 0; c < got.size(); ++c)
        if (got[c] != -777)
          return ::testing::AssertionFailure() << "counter view " << i << " entry " << c << " was written: " << got[c];
    }
    for (std::size_t i = 0; i < sources.size(); ++i)
      if (to_host(sources[i].first) != sources[i].second)
        return ::testing::AssertionFailure() << "source " << i << " changed";
    return ::testing::AssertionSuccess();
  }

  // After a failed check: poison and contents back, so the next call is judged on its own.
  void restore() const {
    for (const auto& d : poisoned) Kokkos::deep_copy(d, poison);
    for (const auto& c : counters) Kokkos::deep_copy(c, size_type{-777});
    for (const auto& s : sources) {
      Kokkos::View<word_type*, MS> writable(const_cast<word_type*>(s.first.data()), s.first.extent(0));
      auto m = Kokkos::create_mirror_view(writable);
      for (std::size_t w = 0; w < s.second.size(); ++w) m(w) = s.second[w];
      Kokkos::deep_copy(writable, m);
    }
  }
};

// `call` must throw exactly `Exception` with a message starting `message_start`, and leave `kept`
// as it was.
template <class Exception, class Kept, class F>
void expect_rejected(const Kept& kept, F&& call, const std::string& message_start,
                     const std::string& message_contains = "") {
  SCOPED_TRACE(message_start);
  try {
    call();
    ADD_FAILURE() << "accepted; expected " << message_start;
  } catch (const Exception& e) {
    EXPECT_TRUE(typeid(e) == typeid(Exception)) << "a subclass (" << typeid(e).name() << ") was thrown: " << e.what();
    const std::string what(e.what());
    EXPECT_EQ(what.substr(0, message_start.size()), message_start) << "full message: " << what;
    EXPECT_NE(what.find(message_contains), std::string::npos) << "full message: " << what;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type (" << typeid(e).name() << ") for " << message_start << ": " << e.what();
  } catch (...) {
    ADD_FAILURE() << "a non-std exception for " << message_start;
  }
  const auto unchanged = kept.check();
  EXPECT_TRUE(unchanged) << "after the rejected call expected to say: " << message_start;
  if (!unchanged) kept.restore();
}

// The arguments of one segmented call; each bad case changes one of them.
template <class ExecSpace>
struct seg_args {
  using MS = typename ExecSpace::memory_space;
  std::vector<size_type> begins;
  size_type size;
  std::vector<size_type> offsets;
  std::vector<Kokkos::View<const word_type*, MS>> masks;
  std::vector<view_t<ExecSpace>> dests;
  Kokkos::View<size_type*, MS> counts;
};

// A bad segmented input through inplace_segmented_binop and (unless the bad argument is the
// counters, which a plan takes only at execute()) the plan's constructor; both name themselves.
template <class Exception, class ExecSpace>
void rejected_in_place_and_plan(const untouched<ExecSpace>& kept, const seg_args<ExecSpace>& a,
                                const std::string& message, bool plan_too = true) {
  ExecSpace exec;
  expect_rejected<Exception>(
      kept,
      [&] {
        kmask::inplace_segmented_binop(exec, kmask::bit_and{}, a.dests, a.masks, a.begins, a.size, a.offsets,
                                       a.counts);
      },
      "kmask::inplace_segmented_binop: " + message);
  if (plan_too)
    expect_rejected<Exception>(
        kept,
        [&] {
          kmask::segmented_binop_plan<ExecSpace> plan(exec, a.dests, a.masks, a.begins, a.size, a.offsets);
        },
        "kmask::segmented_binop_plan: " + message);
}

}  // namespace errors
}  // namespace

TEST(TEST_CATEGORY, errors_segmented_binop_family_rejects_bad_input_and_writes_nothing) {
  TEST_EXECSPACE exec;
  using MS        = typename TEST_EXECSPACE::memory_space;
  using IA        = std::invalid_argument;
  using OR        = std::out_of_range;
  using args      = errors::seg_args<TEST_EXECSPACE>;
  using mask_view = Kokkos::View<const word_type*, MS>;
  std::mt19937_64 rng(base_seed() + 51);
  const size_type bits = 100;  // 4 words
  const auto a_host = random_words(rng, 4), b_host = random_words(rng, 5);
  const auto a = to_device<TEST_EXECSPACE>(a_host), b = to_device<TEST_EXECSPACE>(b_host);
  auto dests        = poisoned_destinations<TEST_EXECSPACE>(2, bits, 1);
  const auto counts = poisoned_counts<TEST_EXECSPACE>(2);
  errors::untouched<TEST_EXECSPACE> kept{dests, {counts}, {{a, a_host}, {b, b_host}}};
  const args good{{0, 3, 0}, bits, {0, 2, 3}, {a, b, a}, dests, counts};
  auto with = [&](auto change) {
    args x = good;
    change(x);
    return x;
  };
  const auto T = errors::too_large;

  // masks.size() != begin_bits.size()
  errors::rejected_in_place_and_plan<IA>(kept, with([](args& x) { x.begins = {0, 3}; }),
                                         "masks.size() = 3 differs from begin_bits.size() = 2");
  // negative / too large begin_bits[i] or size_bits
  errors::rejected_in_place_and_plan<IA>(kept, with([](args& x) { x.begins = {0, -1, 0}; }),
                                         "begin_bits[1] = -1 is negative");
  errors::rejected_in_place_and_plan<IA>(kept, with([](args& x) { x.size = -4; }), "size_bits = -4 is negative");
  errors::rejected_in_place_and_plan<IA>(kept, with([&](args& x) { x.begins = {0, 3, T}; }),
                                         "begin_bits[2] = 4611686018427387904 is too large");
  errors::rejected_in_place_and_plan<IA>(kept, with([&](args& x) { x.size = T; }),
                                         "size_bits = 4611686018427387904 is too large");
  // a source range past its view
  errors::rejected_in_place_and_plan<OR>(kept, with([](args& x) { x.begins = {0, 3, 29}; }),
                                         "begin_bits[2] + size_bits = 29 + 100 is past the 128 bits of masks[2] (4 words)");
  // null views where bits are written, or a null source that claims words (a null view without
  // words is an absent mask, all valid: test_absent_masks.hpp); counters: inplace only, the plan
  // takes them at execute
  const mask_view null4(static_cast<const word_type*>(nullptr), 4);
  errors::rejected_in_place_and_plan<IA>(kept, with([&](args& x) { x.masks = {a, null4, a}; }),
                                         "masks[1] is a null view but its extent is 4 words (only an empty null mask reads as all valid)");
  errors::rejected_in_place_and_plan<IA>(kept, with([&](args& x) { x.dests = {dests[0], view_t<TEST_EXECSPACE>()}; }),
                                         "destinations[1] is a null view but size_bits = 100 bits are written to it");
  errors::rejected_in_place_and_plan<IA>(kept, with([&](args& x) { x.counts = Kokkos::View<size_type*, MS>(); }),
                                         "null_counts is a null view but 2 counts are written to it", false);
  // segment_offsets empty / decreasing / outside [0, masks.size()]
  errors::rejected_in_place_and_plan<IA>(kept, with([](args& x) { x.offsets = {}; }), "segment_offsets is empty");
  errors::rejected_in_place_and_plan<IA>(kept, with([](args& x) { x.offsets = {0, 2, 1}; }),
                                         "segment_offsets[2] = 1 is less than segment_offsets[1] = 2");
  errors::rejected_in_place_and_plan<OR>(kept, with([](args& x) { x.offsets = {0, 2, 4}; }),
                                         "segment_offsets[2] = 4 is outside [0, masks.size() = 3]");
  errors::rejected_in_place_and_plan<OR>(kept, with([](args& x) { x.offsets = {-1, 2, 3}; }),
                                         "segment_offsets[0] = -1 is outside");
  // destinations.size() != number of segments
  errors::rejected_in_place_and_plan<IA>(kept, with([&](args& x) { x.dests = {dests[0]}; }),
                                         "destinations.size() = 1 differs from the number of segments = 2");
  errors::rejected_in_place_and_plan<IA>(kept, with([&](args& x) { x.offsets = {0, 1, 2, 3}; x.counts = poisoned_counts<TEST_EXECSPACE>(3); }),
                                         "destinations.size() = 2 differs from the number of segments = 3");
  // a destination / null_counts too short
  {
    auto short_dest = poisoned_destinations<TEST_EXECSPACE>(1, 96, 0)[0];  // 3 words
    errors::untouched<TEST_EXECSPACE> kept_short = kept;
    kept_short.poisoned.push_back(short_dest);
    errors::rejected_in_place_and_plan<OR>(kept_short, with([&](args& x) { x.dests = {dests[0], short_dest}; }),
                                           "destinations[1] has 3 words but size_bits = 100 needs 4");
  }
  errors::rejected_in_place_and_plan<OR>(kept, with([&](args& x) { x.counts = poisoned_counts<TEST_EXECSPACE>(1); }),
                                         "null_counts.extent(0) = 1 is less than the 2 needed", false);
  errors::rejected_in_place_and_plan<OR>(kept, with([](args& x) { x.offsets = {0, 1, 2, 3}; }),
                                         "null_counts.extent(0) = 2 is less than the 3 needed", false);
  // overlapping destinations (two subviews sharing word 3 of one poisoned allocation)
  {
    auto big = poisoned_destinations<TEST_EXECSPACE>(1, 32 * 8, 0)[0];
    errors::untouched<TEST_EXECSPACE> kept_big = kept;
    kept_big.poisoned.push_back(big);
    using range = std::pair<std::size_t, std::size_t>;
    errors::rejected_in_place_and_plan<IA>(
        kept_big,
        with([&](args& x) { x.dests = {Kokkos::subview(big, range(0, 4)), Kokkos::subview(big, range(3, 7))}; }),
        "destinations[1] overlaps destinations[0]: both would be written at once");
  }

  // The plan's execute() checks its counters (also through inplace_segmented_binop(exec, op, plan, counts)).
  const kmask::segmented_binop_plan<TEST_EXECSPACE> plan(exec, dests, good.masks, good.begins, bits, good.offsets);
  const auto short_counts = poisoned_counts<TEST_EXECSPACE>(1);
  errors::untouched<TEST_EXECSPACE> kept_plan = kept;
  kept_plan.counters.push_back(short_counts);
  errors::expect_rejected<OR>(kept_plan, [&] { plan.execute(exec, kmask::bit_and{}, short_counts); },
                              "kmask::segmented_binop_plan::execute: null_counts.extent(0) = 1 is less than the 2 needed");
  errors::expect_rejected<OR>(kept_plan, [&] { kmask::inplace_segmented_binop(exec, kmask::bit_xor{}, plan, short_counts); },
                              "kmask::segmented_binop_plan::execute: null_counts.extent(0) = 1 is less than the 2 needed");
  errors::expect_rejected<IA>(kept_plan,
                              [&] { plan.execute(exec, kmask::bit_and{}, Kokkos::View<size_type*, MS>()); },
                              "kmask::segmented_binop_plan::execute: null_counts is a null view but 2 counts are written to it");

  // The allocating segmented_binop (no destinations; its sources must stay as they were).
  auto seg = [&](std::vector<mask_view> m, std::vector<size_type> begins, size_type size, std::vector<size_type> offsets) {
    return [=] { kmask::segmented_binop(exec, kmask::bit_or{}, m, begins, size, offsets); };
  };
  const std::string s = "kmask::segmented_binop: ";
  errors::expect_rejected<IA>(kept, seg(good.masks, {0, 0}, bits, good.offsets), s + "masks.size() = 3 differs from begin_bits.size() = 2");
  errors::expect_rejected<IA>(kept, seg(good.masks, {0, -2, 0}, bits, good.offsets), s + "begin_bits[1] = -2 is negative");
  errors::expect_rejected<IA>(kept, seg(good.masks, good.begins, -1, good.offsets), s + "size_bits = -1 is negative");
  errors::expect_rejected<IA>(kept, seg(good.masks, good.begins, T, good.offsets), s + "size_bits = 4611686018427387904 is too large");
  errors::expect_rejected<OR>(kept, seg(good.masks, {0, 61, 0}, bits, good.offsets),
                              s + "begin_bits[1] + size_bits = 61 + 100 is past the 160 bits of masks[1] (5 words)");
  errors::expect_rejected<IA>(kept, seg({a, b, null4}, good.begins, bits, good.offsets),
                              s + "masks[2] is a null view but its extent is 4 words");
  errors::expect_rejected<IA>(kept, seg(good.masks, good.begins, bits, {}), s + "segment_offsets is empty");
  errors::expect_rejected<IA>(kept, seg(good.masks, good.begins, bits, {1, 0}), s + "segment_offsets[1] = 0 is less than segment_offsets[0] = 1");
  errors::expect_rejected<OR>(kept, seg(good.masks, good.begins, bits, {0, 7}), s + "segment_offsets[1] = 7 is outside [0, masks.size() = 3]");
  {
    // Enough sources that a host call describes them on host threads, then enough that they are
    // uploaded in chunks (the bad one in the second; a device call threads whole chunks): the
    // first bad one is still named.
    constexpr std::size_t n = 5000, chunk = kmask::detail::upload_chunk_sources;
    static_assert(n >= kmask::detail::parallel_pass_min_sources && n < chunk, "one threaded chunk");
    std::vector<size_type> begins(n, 0);
    begins[4321] = 29;
    begins[4800] = -1;
    errors::expect_rejected<OR>(kept, seg(std::vector<mask_view>(n, a), begins, bits, {0, 2500, n}),
                                s + "begin_bits[4321] + size_bits = 29 + 100 is past the 128 bits of masks[4321] (4 words)");
    std::vector<size_type> more(2 * chunk + 100, 0);
    more[chunk + 7]     = -3;
    more[2 * chunk + 1] = 29;
    errors::expect_rejected<IA>(kept, seg(std::vector<mask_view>(more.size(), a), more, bits, {0, size_type(more.size())}),
                                s + "begin_bits[" + std::to_string(chunk + 7) + "] = -3 is negative");
  }

  // binop and inplace_binop (one segment of every mask).
  const std::string bn = "kmask::binop: ", ib = "kmask::inplace_binop: ";
  auto bin = [&](std::vector<mask_view> m, std::vector<size_type> begins, size_type size) {
    return [=] { kmask::binop(exec, kmask::bit_and{}, m, begins, size); };
  };
  auto inb = [&](view_t<TEST_EXECSPACE> d, std::vector<mask_view> m, std::vector<size_type> begins, size_type size) {
    return [=] { kmask::inplace_binop(exec, kmask::bit_and{}, d, m, begins, size); };
  };
  errors::expect_rejected<IA>(kept, bin(good.masks, {0, 0}, bits), bn + "masks.size() = 3 differs from begin_bits.size() = 2");
  errors::expect_rejected<IA>(kept, bin(good.masks, {0, 0, -5}, bits), bn + "begin_bits[2] = -5 is negative");
  errors::expect_rejected<IA>(kept, bin(good.masks, {0, 0, 0}, -1), bn + "size_bits = -1 is negative");
  errors::expect_rejected<IA>(kept, bin(good.masks, {0, 0, 0}, T), bn + "size_bits = 4611686018427387904 is too large");
  errors::expect_rejected<OR>(kept, bin(good.masks, {0, 0, 0}, 129), bn + "begin_bits[0] + size_bits = 0 + 129 is past the 128 bits of masks[0] (4 words)");
  errors::expect_rejected<IA>(kept, bin({null4, a}, {0, 0}, 1), bn + "masks[0] is a null view but its extent is 4 words");
  errors::expect_rejected<IA>(kept, inb(dests[0], good.masks, {0, 0}, bits), ib + "masks.size() = 3 differs from begin_bits.size() = 2");
  errors::expect_rejected<IA>(kept, inb(dests[0], good.masks, {-1, 0, 0}, bits), ib + "begin_bits[0] = -1 is negative");
  errors::expect_rejected<OR>(kept, inb(dests[0], good.masks, {0, 0, 0}, 200), ib + "begin_bits[0] + size_bits = 0 + 200 is past the 128 bits of masks[0]");
  errors::expect_rejected<IA>(kept, inb(dests[0], {a, null4}, {0, 0}, bits), ib + "masks[1] is a null view but its extent is 4 words");
  errors::expect_rejected<IA>(kept, inb(view_t<TEST_EXECSPACE>(), {a}, {0}, bits),
                              ib + "destinations[0] is a null view but size_bits = 100 bits are written to it");
  {
    auto short_dest = poisoned_destinations<TEST_EXECSPACE>(1, 96, 0)[0];  // 3 words
    errors::untouched<TEST_EXECSPACE> kept_short = kept;
    kept_short.poisoned.push_back(short_dest);
    errors::expect_rejected<OR>(kept_short, inb(short_dest, {a}, {0}, bits), ib + "destinations[0] has 3 words but size_bits = 100 needs 4");
  }
}

TEST(TEST_CATEGORY, errors_superimpose_count_copy_create_reject_bad_input) {
  TEST_EXECSPACE exec;
  using MS        = typename TEST_EXECSPACE::memory_space;
  using IA        = std::invalid_argument;
  using OR        = std::out_of_range;
  using mask_view = Kokkos::View<const word_type*, MS>;
  const auto T    = errors::too_large;
  std::mt19937_64 rng(base_seed() + 52);
  const auto parent_host = random_words(rng, 4);
  const auto parent      = to_device<TEST_EXECSPACE>(parent_host);
  auto children          = poisoned_destinations<TEST_EXECSPACE>(2, 100, 0);
  const auto counts      = poisoned_counts<TEST_EXECSPACE>(2);
  errors::untouched<TEST_EXECSPACE> kept{children, {counts}, {{parent, parent_host}}};
  const std::string si = "kmask::superimpose_nulls: ";
  auto sup = [&](mask_view p, size_type begin, std::vector<view_t<TEST_EXECSPACE>> ch, size_type size,
                 Kokkos::View<size_type*, MS> c) {
    return [=] { kmask::superimpose_nulls(exec, p, begin, ch, size, c); };
  };
  errors::expect_rejected<OR>(kept, sup(parent, 30, children, 100, counts), si + "parent bit range [30, 130) is past the 128 bits of the view (4 words)");
  errors::expect_rejected<IA>(kept, sup(parent, -1, children, 100, counts), si + "parent begin_bit = -1 is negative");
  errors::expect_rejected<IA>(kept, sup(parent, T, children, 100, counts), si + "parent begin_bit = 4611686018427387904 is too large");
  errors::expect_rejected<IA>(kept, sup(parent, 0, children, -3, counts), si + "size_bits = -3 is negative");
  errors::expect_rejected<IA>(kept, sup(parent, 0, children, T, counts), si + "size_bits = 4611686018427387904 is too large");
  const mask_view null4(static_cast<const word_type*>(nullptr), 4);
  errors::expect_rejected<IA>(kept, sup(null4, 0, children, 100, counts),
                              si + "parent is null but its extent is 4 words (only an empty null mask reads as all valid)");
  errors::expect_rejected<IA>(kept, sup(parent, 0, {children[0], view_t<TEST_EXECSPACE>()}, 100, counts),
                              si + "children[1] is a null view but size_bits = 100 bits are written to it");
  errors::expect_rejected<OR>(kept, sup(parent, 0, children, 100, poisoned_counts<TEST_EXECSPACE>(1)),
                              si + "child_null_counts.extent(0) = 1 is less than the 2 needed");
  errors::expect_rejected<IA>(kept, sup(parent, 0, children, 100, Kokkos::View<size_type*, MS>()),
                              si + "child_null_counts is a null view but 2 counts are written to it");
  {
    auto short_child = poisoned_destinations<TEST_EXECSPACE>(1, 64, 0)[0];
    errors::untouched<TEST_EXECSPACE> kept_short = kept;
    kept_short.poisoned.push_back(short_child);
    errors::expect_rejected<OR>(kept_short, sup(parent, 0, {children[0], short_child}, 100, counts),
                                si + "children[1] has 2 words but size_bits = 100 needs 4");
  }
  {
    // Children sharing a word. The message calls them destinations (superimpose hands its children
    // to the segmented binop as destinations); only the prefix and the overlap are checked.
    auto big = poisoned_destinations<TEST_EXECSPACE>(1, 32 * 8, 0)[0];
    errors::untouched<TEST_EXECSPACE> kept_big = kept;
    kept_big.poisoned.push_back(big);
    using range = std::pair<std::size_t, std::size_t>;
    errors::expect_rejected<IA>(
        kept_big, sup(parent, 0, {Kokkos::subview(big, range(0, 4)), Kokkos::subview(big, range(3, 7))}, 100, counts),
        si, "[1] overlaps ");
  }

  // count_set_bits / count_unset_bits
  const std::string cs = "kmask::count_set_bits: ", cu = "kmask::count_unset_bits: ";
  errors::expect_rejected<IA>(kept, [&] { kmask::count_set_bits(exec, parent, 10, 5); }, cs + "mask end_bit = 5 is less than begin_bit = 10");
  errors::expect_rejected<IA>(kept, [&] { kmask::count_unset_bits(exec, parent, 10, 5); }, cu + "mask end_bit = 5 is less than begin_bit = 10");
  errors::expect_rejected<IA>(kept, [&] { kmask::count_set_bits(exec, parent, -1, 5); }, cs + "mask begin_bit = -1 is negative");
  errors::expect_rejected<IA>(kept, [&] { kmask::count_set_bits(exec, parent, 0, T); }, cs + "mask end_bit = 4611686018427387904 is too large");
  errors::expect_rejected<OR>(kept, [&] { kmask::count_unset_bits(exec, parent, 0, 129); },
                              cu + "mask bit range [0, 129) is past the 128 bits of the view (4 words)");
  errors::expect_rejected<IA>(kept, [&] { kmask::count_set_bits(exec, null4, 0, 1); }, cs + "mask is null but its extent is 4 words");

  // segmented_count_set_bits / segmented_count_unset_bits
  const std::string ss = "kmask::segmented_count_set_bits: ", su = "kmask::segmented_count_unset_bits: ";
  errors::expect_rejected<IA>(kept, [&] { kmask::segmented_count_set_bits(exec, parent, {0, 4, 7}); }, ss + "ranges.size() = 3 is odd");
  errors::expect_rejected<IA>(kept, [&] { kmask::segmented_count_unset_bits(exec, parent, {0, 4, 9, 7}); }, su + "ranges[3] = 7 is less than ranges[2] = 9");
  errors::expect_rejected<IA>(kept, [&] { kmask::segmented_count_set_bits(exec, parent, {-3, 4}); }, ss + "ranges[0] = -3 is negative");
  errors::expect_rejected<IA>(kept, [&] { kmask::segmented_count_set_bits(exec, parent, {0, T}); }, ss + "ranges[1] = 4611686018427387904 is too large");
  errors::expect_rejected<OR>(kept, [&] { kmask::segmented_count_set_bits(exec, parent, {0, 4, 100, 200}); },
                              ss + "ranges[3] = 200 is past the 128 bits of mask (4 words)");
  errors::expect_rejected<IA>(kept, [&] { kmask::segmented_count_unset_bits(exec, null4, {0, 0, 0, 1}); },
                              su + "mask is null but its extent is 4 words");

  // inplace_segmented_count_set_bits / inplace_segmented_count_unset_bits: the range rows, then the counts
  const std::string is = "kmask::inplace_segmented_count_set_bits: ", iu = "kmask::inplace_segmented_count_unset_bits: ";
  errors::expect_rejected<IA>(kept, [&] { kmask::inplace_segmented_count_set_bits(exec, parent, {0, 4, 7}, counts); }, is + "ranges.size() = 3 is odd");
  errors::expect_rejected<OR>(kept, [&] { kmask::inplace_segmented_count_unset_bits(exec, parent, {0, 4, 100, 200}, counts); },
                              iu + "ranges[3] = 200 is past the 128 bits of mask (4 words)");
  errors::expect_rejected<IA>(kept, [&] { kmask::inplace_segmented_count_set_bits(exec, parent, {0, 4}, Kokkos::View<size_type*, MS>()); },
                              is + "counts is a null view but 1 counts are written to it");
  errors::expect_rejected<OR>(kept, [&] { kmask::inplace_segmented_count_unset_bits(exec, parent, {0, 4, 1, 2, 3, 3}, counts); },
                              iu + "counts.extent(0) = 2 is less than the 3 needed");

  // copy_bitmask
  const std::string cb = "kmask::copy_bitmask: ";
  errors::expect_rejected<OR>(kept, [&] { kmask::copy_bitmask(exec, parent, 64, 160); }, cb + "mask bit range [64, 160) is past the 128 bits of the view (4 words)");
  errors::expect_rejected<IA>(kept, [&] { kmask::copy_bitmask(exec, parent, -1, 10); }, cb + "mask begin_bit = -1 is negative");
  errors::expect_rejected<IA>(kept, [&] { kmask::copy_bitmask(exec, parent, 10, 9); }, cb + "mask end_bit = 9 is less than begin_bit = 10");
  errors::expect_rejected<IA>(kept, [&] { kmask::copy_bitmask(exec, parent, 0, T); }, cb + "mask end_bit = 4611686018427387904 is too large");
  errors::expect_rejected<IA>(kept, [&] { kmask::copy_bitmask(exec, null4, 0, 3); }, cb + "mask is null but its extent is 4 words");

  // create_mask
  errors::expect_rejected<IA>(kept, [&] { kmask::create_mask(exec, -1, kmask::mask_state::all_null); },
                              "kmask::create_mask: size_bits = -1 is negative");
  errors::expect_rejected<IA>(kept, [&] { kmask::create_mask(exec, T, kmask::mask_state::all_valid); },
                              "kmask::create_mask: size_bits = 4611686018427387904 is too large");
}

// More teams of work than Kokkos::TeamPolicy's int league holds: refused with std::length_error
// before any destination or counter is written. A segmented binop needs a destination of 2^44
// words (64 TiB) for that, which no machine holds, so the destination here is an unmanaged view
// that claims 2^44 words over a real poisoned buffer of 4: the check comes before any access (a
// read or write through the lie would be a crash or, in the sanitized build, a report). The
// counting calls get there honestly: 2^20 + 1 ranges over a real 2^24-word (64 MiB) mask.
TEST(TEST_CATEGORY, errors_more_teams_than_an_int_holds) {
  TEST_EXECSPACE exec;
  using MS = typename TEST_EXECSPACE::memory_space;
  using LE = std::length_error;
  const size_type claimed_words = size_type{1} << 44, bits = claimed_words * 32;
  auto buffer       = poisoned_destinations<TEST_EXECSPACE>(1, 128, 0)[0];
  const view_t<TEST_EXECSPACE> huge(buffer.data(), static_cast<std::size_t>(claimed_words));  // unmanaged, a lie
  const auto counts = poisoned_counts<TEST_EXECSPACE>(1);
  errors::untouched<TEST_EXECSPACE> kept{{buffer}, {counts}, {}};
  const std::vector<Kokkos::View<const word_type*, MS>> none;
  const std::string says = " teams of work exceed the int range of Kokkos::TeamPolicy";
  errors::expect_rejected<LE>(
      kept, [&] { kmask::inplace_segmented_binop(exec, kmask::bit_and{}, std::vector<view_t<TEST_EXECSPACE>>{huge}, none, {}, bits, {0, 0}, counts); },
      "kmask::inplace_segmented_binop: ", says);
  const kmask::segmented_binop_plan<TEST_EXECSPACE> plan(exec, std::vector<view_t<TEST_EXECSPACE>>{huge}, none, {}, bits, {0, 0});
  errors::expect_rejected<LE>(kept, [&] { plan.execute(exec, kmask::bit_or{}, counts); },
                              "kmask::segmented_binop_plan::execute: ", says);
  errors::expect_rejected<LE>(kept, [&] { kmask::inplace_binop(exec, kmask::bit_xor{}, huge, none, {}, bits); },
                              "kmask::inplace_binop: ", says);

  // 16 ranges over all of the claimed 2^44 words: at least 2^28 teams each (teams of at most 2^16
  // words on a GPU, 2^11 in the host form), 2^32 in all. No kernel runs.
  std::vector<size_type> ranges;
  for (int r = 0; r < 16; ++r) {
    ranges.push_back(0);
    ranges.push_back(bits);
  }
  errors::expect_rejected<LE>(kept, [&] { kmask::segmented_count_set_bits(exec, huge, ranges); },
                              "kmask::segmented_count_set_bits: ", says);
  errors::expect_rejected<LE>(kept, [&] { kmask::segmented_count_unset_bits(exec, huge, ranges); },
                              "kmask::segmented_count_unset_bits: ", says);
}
