// Moves whose middle is whole destination words: the GPU form hands those words to the backend's
// copy and fill routines (bulk_words.hpp) and the edges to the kernel, at and around the size
// where it starts doing so (launch_tuning::move_bulk_min_words: 64 words in the emulated GPU form,
// 4 MiB on a GPU; the CPU form writes the same cases with its own loops). Against the bit-by-bit
// reference, destinations poisoned with random words that must survive outside the written bits.

namespace {
namespace bulk_runs {

using MS    = typename TEST_EXECSPACE::memory_space;
using cview = Kokkos::View<const word_type*, MS>;

// The split threshold where it applies, a small stand-in where it does not (the CPU form).
constexpr size_type min_words() {
  return kmask::detail::uses_cpu_kernels<TEST_EXECSPACE>() ? 64
                                                           : kmask::detail::launch_tuning<TEST_EXECSPACE>::move_bulk_min_words;
}

// Sizes a move's whole-word middle falls around: below the threshold, at it, past it, with and
// without a partial last word, and a few short ones (a lone run of whole words at any size).
inline std::vector<size_type> sizes_around_threshold() {
  const size_type m = min_words() * 32;
  return {32, 96, m - 32, m - 1, m, m + 7, m + 32, m + 45};
}

}  // namespace bulk_runs
}  // namespace

TEST(TEST_CATEGORY, word_aligned_set_bits_and_copy_bits_keep_other_bits) {
  using namespace bulk_runs;
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 1601;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  int round = 0;
  for (const size_type size : sizes_around_threshold())
    for (const size_type lead : {0, 5, 31}) {
      ++round;
      // The destination starts `lead` bits into a word; the source's bits sit at the same place in
      // their words (a copy the routines can take), except every third round (they cannot).
      const size_type db     = 64 + lead;
      const size_type sb     = round % 3 == 0 ? 32 * 3 + (lead + 9) % 32 : 32 * 3 + lead;
      const std::size_t dw   = static_cast<std::size_t>(kmask::num_words(db + size)) + round % 2;
      auto dhost             = random_words(rng, dw);
      auto fhost             = random_words(rng, dw);
      const auto shost       = random_words(rng, static_cast<std::size_t>(kmask::num_words(sb + size)));
      const auto dest        = to_device<TEST_EXECSPACE>(dhost);
      const auto filled      = to_device<TEST_EXECSPACE>(fhost);
      const cview src        = to_device<TEST_EXECSPACE>(shost);
      const bool valid       = round % 2 == 0;
      const bool inverted    = round % 4 == 1;  // read complemented: never a plain copy
      SCOPED_TRACE(::testing::Message() << size << " bits: set [" << db << ", " << db + size << ") to " << valid
                                        << ", copy from bit " << sb << " to bit " << db
                                        << (inverted ? " (inverted)" : ""));
      kmask::set_bits(exec, filled, db, db + size, valid);
      if (inverted) kmask::copy_bits(exec, move_bits::as_dest(dest), db, kmask::inverted(src, sb), size);
      else kmask::copy_bits(exec, dest, db, src, sb, size);
      exec.fence();
      ref::set_range(fhost, db, db + size, valid);
      auto flipped = shost;
      if (inverted)
        for (auto& w : flipped) w = ~w;
      ref::copy_range(dhost, db, &flipped, sb, size);
      ASSERT_TRUE(move_bits::same(fhost, to_host(filled), "set_bits"));
      ASSERT_TRUE(move_bits::same(dhost, to_host(dest), "copy_bits"));
    }
}

// copy_bitmask from a word boundary: its whole words and then the new mask's zero padding.
TEST(TEST_CATEGORY, word_aligned_copy_bitmask_pads_with_zeros) {
  using namespace bulk_runs;
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 1602;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (const size_type size : sizes_around_threshold()) {
    const size_type begin = 32 * 5;
    const auto host       = random_words(rng, static_cast<std::size_t>(kmask::num_words(begin + size) + 1));
    const auto dev        = to_device<TEST_EXECSPACE>(host);
    SCOPED_TRACE(::testing::Message() << "copy_bitmask [" << begin << ", " << begin + size << ")");
    const auto got      = to_host(kmask::copy_bitmask(exec, dev, begin, begin + size));
    const auto expected = ref::slice(host, begin, begin + size);
    ASSERT_EQ(static_cast<size_type>(got.size()), kmask::allocation_size_bytes(size) / 4);
    ASSERT_TRUE(same_words(expected, got, 0));
    for (std::size_t w = expected.size(); w < got.size(); ++w) ASSERT_EQ(got[w], 0u) << "padding word " << w;
  }
}

// Lists of a few pieces: large word-aligned ones next to small ones, neighbours sharing an edge
// word, in one destination; the large ones' middles go to the routines, everything else to one launch.
TEST(TEST_CATEGORY, word_aligned_piece_lists_share_edge_words) {
  using namespace bulk_runs;
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 1603;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  const size_type m = min_words() * 32;
  for (int iter = 0; iter < 6; ++iter) {
    // Two to four pieces back to back from bit 0 or 7: big (m + 19 bits), small (45), big again,
    // tiny (3); from bit 0 the first has no head, so three pieces' edges still fit one launch.
    const std::vector<size_type> all_sizes{m + 19, 45, m + 64, 3};
    const std::vector<size_type> sizes(all_sizes.begin(), all_sizes.begin() + 2 + iter % 3);
    std::vector<size_type> dbs, sbs;
    size_type at = (iter % 2) * 7;
    for (const size_type s : sizes) dbs.push_back(at), at += s;
    auto dhost = random_words(rng, static_cast<std::size_t>(kmask::num_words(at) + 1));
    auto fhost = random_words(rng, dhost.size());
    std::vector<ref::words> shosts;
    std::vector<cview> srcs;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      // Same place in the word as the destination bit (iter 1: one piece not).
      sbs.push_back(32 * static_cast<size_type>(i + 1) + dbs[i] % 32 + (iter == 1 && i == 0 ? 3 : 0));
      shosts.push_back(random_words(rng, static_cast<std::size_t>(kmask::num_words(sbs[i] + sizes[i]))));
      srcs.push_back(to_device<TEST_EXECSPACE>(shosts.back()));
    }
    const auto dest   = to_device<TEST_EXECSPACE>(dhost);
    const auto filled = to_device<TEST_EXECSPACE>(fhost);
    const std::vector<view_t<TEST_EXECSPACE>> dests(sizes.size(), dest), fills(sizes.size(), filled);
    std::vector<size_type> ends;
    std::vector<bool> valid;
    for (std::size_t i = 0; i < sizes.size(); ++i) ends.push_back(dbs[i] + sizes[i]), valid.push_back((iter + i) % 2 == 0);
    SCOPED_TRACE(::testing::Message() << sizes.size() << " pieces, iteration " << iter);
    kmask::segmented_copy_bits(exec, dests, dbs, srcs, sbs, sizes);
    kmask::set_bits_bulk(exec, fills, dbs, ends, valid);
    exec.fence();
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      ref::copy_range(dhost, dbs[i], &shosts[i], sbs[i], sizes[i]);
      ref::set_range(fhost, dbs[i], ends[i], valid[i]);
    }
    ASSERT_TRUE(move_bits::same(dhost, to_host(dest), "segmented_copy_bits"));
    ASSERT_TRUE(move_bits::same(fhost, to_host(filled), "set_bits_bulk"));
  }
}
