// superimpose_nulls_tree: forests of every shape against ref::superimpose_tree, in place, with
// sliced nodes, overlapping nodes, the pointer and default-space forms, and every error row.

namespace {
namespace tree {

// A forest on the host: node k is masks[k] read from begins[k]; parents[k] its parent or -1.
struct forest {
  std::vector<ref::words> masks;
  std::vector<size_type> begins;
  std::vector<size_type> parents;
  size_type size_bits = 0;
};

// Node k's parent is drawn from the nodes made before it whose depth is below max_depth - 1 (or
// it is a root with probability `root_odds` / 16); then the nodes are relabelled at random, so a
// parent's index is as often above its child's as below. Sliced nodes (begin bits past 0) with
// probability `sliced_odds` / 16. Each mask holds its range plus 0-2 spare words, which must
// survive.
inline forest random_forest(std::mt19937_64& rng, size_type nodes, int max_depth, size_type size_bits,
                            int root_odds = 2, int sliced_odds = 5, bool relabel = true) {
  std::vector<size_type> parent(static_cast<std::size_t>(nodes), -1), depth(static_cast<std::size_t>(nodes), 0);
  for (size_type k = 1; k < nodes; ++k) {
    if (static_cast<int>(rng() % 16) < root_odds) continue;
    for (int attempt = 0; attempt < 8; ++attempt) {
      const size_type p = static_cast<size_type>(rng() % static_cast<std::uint64_t>(k));
      if (depth[static_cast<std::size_t>(p)] + 1 < max_depth) {
        parent[static_cast<std::size_t>(k)] = p;
        depth[static_cast<std::size_t>(k)]  = depth[static_cast<std::size_t>(p)] + 1;
        break;
      }
    }
  }
  std::vector<size_type> label(static_cast<std::size_t>(nodes));
  for (size_type k = 0; k < nodes; ++k) label[static_cast<std::size_t>(k)] = k;
  if (relabel) std::shuffle(label.begin(), label.end(), rng);
  forest f;
  f.size_bits = size_bits;
  f.masks.resize(static_cast<std::size_t>(nodes));
  f.begins.resize(static_cast<std::size_t>(nodes));
  f.parents.resize(static_cast<std::size_t>(nodes));
  for (size_type k = 0; k < nodes; ++k) {
    const std::size_t at = static_cast<std::size_t>(label[static_cast<std::size_t>(k)]);
    const size_type p    = parent[static_cast<std::size_t>(k)];
    f.parents[at]        = p < 0 ? -1 : label[static_cast<std::size_t>(p)];
    const size_type b    = static_cast<int>(rng() % 16) < sliced_odds ? random_begin(rng) : 0;
    f.begins[at]         = b;
    const size_type words = std::max(kmask::num_words(b + size_bits), kmask::num_words(size_bits)) +
                            static_cast<size_type>(rng() % 3);
    f.masks[at] = random_words(rng, static_cast<std::size_t>(std::max<size_type>(words, 1)));
  }
  return f;
}

// Runs the forest through the view form (or the pointer form) and checks every node's words
// [0, num_words(size_bits)) and count against the reference and that every later word kept its
// contents; the counter past the last node must keep its poison. With lead_words > 0 each node
// is a subview starting that many words into its allocation (masks not 16-byte aligned when it
// is not a multiple of 4), and the words before it must keep their contents too.
template <class ExecSpace>
::testing::AssertionResult run_and_check(const forest& f, bool pointer_form = false, std::size_t lead_words = 0) {
  ExecSpace exec;
  std::vector<view_t<ExecSpace>> masks, whole;
  for (const auto& m : f.masks) {
    ref::words padded(lead_words, word_type{0xA5A5A5A5u});
    padded.insert(padded.end(), m.begin(), m.end());
    whole.push_back(to_device<ExecSpace>(padded));
    masks.push_back(Kokkos::subview(whole.back(), std::make_pair(lead_words, padded.size())));
  }
  const size_type n  = static_cast<size_type>(masks.size());
  const auto counts = poisoned_counts<ExecSpace>(n + 1);
  if (pointer_form) {
    std::vector<kmask::dest_mask> raw;
    for (const auto& m : masks) raw.push_back({m.data(), static_cast<size_type>(m.extent(0))});
    kmask::superimpose_nulls_tree(exec, raw, f.begins, f.parents, f.size_bits, counts);
  } else {
    kmask::superimpose_nulls_tree(exec, masks, f.begins, f.parents, f.size_bits, counts);
  }
  exec.fence();
  const auto expected = ref::superimpose_tree(f.masks, f.begins, f.parents, f.size_bits);
  const auto got_counts = counts_to_host(counts);
  const std::size_t words = static_cast<std::size_t>(kmask::num_words(f.size_bits));
  for (std::size_t k = 0; k < masks.size(); ++k) {
    const auto got = to_host(masks[k]);
    for (std::size_t w = 0; w < got.size(); ++w) {
      const word_type want = w < words ? expected[k].mask[w] : f.masks[k][w];
      if (got[w] != want)
        return ::testing::AssertionFailure() << "node " << k << " (parent " << f.parents[k] << ", begin " << f.begins[k]
                                             << ") word " << w << (w < words ? "" : " (past size_bits, untouched)")
                                             << ": expected 0x" << std::hex << want << " got 0x" << got[w];
    }
    if (got_counts[k] != expected[k].nulls)
      return ::testing::AssertionFailure() << "node " << k << " null count " << got_counts[k] << ", expected "
                                           << expected[k].nulls;
  }
  if (got_counts[masks.size()] != -777) return ::testing::AssertionFailure() << "a counter past the nodes was written";
  for (std::size_t k = 0; k < whole.size(); ++k) {
    const auto got = to_host(whole[k]);
    for (std::size_t w = 0; w < lead_words; ++w)
      if (got[w] != word_type{0xA5A5A5A5u})
        return ::testing::AssertionFailure() << "node " << k << " word " << w << " before its mask was written";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace tree
}  // namespace

TEST(TEST_CATEGORY, superimpose_tree_depths_and_sizes) {
  const auto seed = base_seed() + 1601;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (int depth = 1; depth <= 8; ++depth) {
    for (size_type bits : {0, 1, 31, 32, 33, 1000 + static_cast<int>(rng() % 3000), 20000}) {
      const auto f = tree::random_forest(rng, 3 + static_cast<size_type>(rng() % 12) * depth, depth, bits);
      ASSERT_TRUE(tree::run_and_check<TEST_EXECSPACE>(f)) << "depth " << depth << ", size_bits " << bits;
    }
  }
}

TEST(TEST_CATEGORY, superimpose_tree_struct_three_levels_aligned) {
  // The benchmark's shape: 1 root, 8 children, 8 grandchildren each, every node aligned. 300,000
  // bits: on the emulated GPU form's 3 teams, more runs of words per warp than one count reduction
  // of its walk holds (tree_gpu_functor::runs_per_count), so a batch's counts take several.
  const auto seed = base_seed() + 1602;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (size_type bits : {4096, 100000 + static_cast<int>(rng() % 64), 300000 + static_cast<int>(rng() % 64)}) {
    tree::forest f;
    f.size_bits = bits;
    f.parents.push_back(-1);
    for (int c = 0; c < 8; ++c) f.parents.push_back(0);
    for (int c = 0; c < 8; ++c)
      for (int g = 0; g < 8; ++g) f.parents.push_back(1 + c);
    for (std::size_t k = 0; k < f.parents.size(); ++k) {
      f.begins.push_back(0);
      f.masks.push_back(random_words(rng, static_cast<std::size_t>(kmask::num_words(bits))));
    }
    ASSERT_TRUE(tree::run_and_check<TEST_EXECSPACE>(f)) << "size_bits " << bits;
  }
}

TEST(TEST_CATEGORY, superimpose_tree_wide_deep_and_forests) {
  const auto seed = base_seed() + 1603;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  // Wide: 1000 children of one root (the root last, so every parent index is above its child's).
  for (size_type bits : {33, 3000}) {
    tree::forest f;
    f.size_bits = bits;
    for (int k = 0; k <= 1000; ++k) {
      f.parents.push_back(k == 1000 ? -1 : 1000);
      f.begins.push_back(k % 7 == 0 ? static_cast<size_type>(k % 45) : 0);
      f.masks.push_back(random_words(rng, static_cast<std::size_t>(kmask::num_words(f.begins.back() + bits) + 1)));
    }
    ASSERT_TRUE(tree::run_and_check<TEST_EXECSPACE>(f)) << "wide, size_bits " << bits;
  }
  // Deep chains: 200 levels, in index order and reversed, some nodes sliced.
  for (bool reversed : {false, true}) {
    tree::forest f;
    f.size_bits = 777;
    for (int k = 0; k < 200; ++k) {
      f.parents.push_back(reversed ? (k == 199 ? -1 : k + 1) : k - 1);
      f.begins.push_back(k % 5 == 0 ? random_begin(rng) : 0);
      f.masks.push_back(random_words(rng, static_cast<std::size_t>(kmask::num_words(f.begins.back() + 777))));
    }
    ASSERT_TRUE(tree::run_and_check<TEST_EXECSPACE>(f)) << "chain, reversed " << reversed;
  }
  // Forests with several roots, every node sliced or not, up to 5 levels.
  for (int iter = 0; iter < 6; ++iter) {
    const auto f = tree::random_forest(rng, 20 + static_cast<size_type>(rng() % 60), 5,
                                       static_cast<size_type>(rng() % 9000), 6, 8);
    ASSERT_TRUE(tree::run_and_check<TEST_EXECSPACE>(f)) << "forest " << iter;
  }
  // Every node a root: each only gets its own count (sliced ones shift into place).
  const auto roots = tree::random_forest(rng, 9, 1, 2500, 16, 8);
  ASSERT_TRUE(tree::run_and_check<TEST_EXECSPACE>(roots));
  // No nodes at all.
  ASSERT_TRUE(tree::run_and_check<TEST_EXECSPACE>(tree::forest{}));
}

TEST(TEST_CATEGORY, superimpose_tree_aligned_forests) {
  // Every node from bit 0 of its own mask: the GPU form's aligned walk (tree_aligned_kernel.hpp),
  // segments of one root or one root's child with its subtree, lines of runs two at a time. Sizes
  // around a run (128 words) and a word, masks 16-byte aligned or not (lead words 0, 1, 2, 4).
  const auto seed = base_seed() + 1610;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  const size_type some = 1 + static_cast<size_type>(rng() % 200000);
  for (int depth = 1; depth <= 8; ++depth) {
    for (size_type bits : std::vector<size_type>{1, 31, 32, 33, 4095, 4096, 4097, 4096 * 5 + 7, 4096 * 9, some}) {
      for (std::size_t lead : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{4}}) {
        if (lead != 0 && (bits % 3 != 0 && depth % 2 == 0)) continue;  // a sample of the unaligned forms
        const auto f = tree::random_forest(rng, 2 + static_cast<size_type>(rng() % 10) * depth, depth, bits,
                                           static_cast<int>(rng() % 4), 0);
        ASSERT_TRUE(tree::run_and_check<TEST_EXECSPACE>(f, lead % 2 == 1, lead))
            << "depth " << depth << ", size_bits " << bits << ", lead words " << lead;
      }
    }
  }
  // A chain of 150 (one segment of 149 nodes, several lines on the emulated form), 1000 leaves of
  // one root (1000 one-node segments), a lone root, several roots with children; and a struct past
  // tree_tuning::gpu_aligned_max_words, which takes the general walk.
  tree::forest chain;
  chain.size_bits = 100000 + static_cast<size_type>(rng() % 64);
  for (int k = 0; k < 150; ++k) {
    chain.parents.push_back(k - 1);
    chain.begins.push_back(0);
    chain.masks.push_back(random_words(rng, static_cast<std::size_t>(kmask::num_words(chain.size_bits)) + 1));
  }
  ASSERT_TRUE(tree::run_and_check<TEST_EXECSPACE>(chain)) << "chain";
  const size_type past = kmask::detail::tree_tuning<TEST_EXECSPACE>::gpu_aligned_max_words * 32 + 33;
  ASSERT_TRUE(tree::run_and_check<TEST_EXECSPACE>(tree::random_forest(rng, 5, 3, past, 2, 0))) << "past the aligned walk";
  tree::forest wide;
  wide.size_bits = 6000 + static_cast<size_type>(rng() % 64);
  for (int k = 0; k <= 1000; ++k) {
    wide.parents.push_back(k == 0 ? -1 : 0);
    wide.begins.push_back(0);
    wide.masks.push_back(random_words(rng, static_cast<std::size_t>(kmask::num_words(wide.size_bits))));
  }
  ASSERT_TRUE(tree::run_and_check<TEST_EXECSPACE>(wide)) << "wide";
  for (size_type bits : {77, 50000}) {
    ASSERT_TRUE(tree::run_and_check<TEST_EXECSPACE>(tree::random_forest(rng, 1, 1, bits, 16, 0))) << "one root, " << bits;
    ASSERT_TRUE(tree::run_and_check<TEST_EXECSPACE>(tree::random_forest(rng, 40, 4, bits, 5, 0))) << "roots, " << bits;
  }
}

TEST(TEST_CATEGORY, superimpose_tree_more_nodes_than_team_counters) {
  // Past tree_tuning::gpu_team_count_nodes the GPU form adds each warp's counts to memory instead
  // of gathering them in team scratch; wide and deep forests, sliced nodes, one and many runs.
  const auto seed = base_seed() + 1609;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  const size_type nodes = kmask::detail::tree_tuning<TEST_EXECSPACE>::gpu_team_count_nodes + 1 +
                          static_cast<size_type>(rng() % 100);
  for (size_type bits : {33, 5000}) {
    const auto f = tree::random_forest(rng, nodes, 6, bits, 1, 4);
    ASSERT_TRUE(tree::run_and_check<TEST_EXECSPACE>(f)) << nodes << " nodes, size_bits " << bits;
  }
}

TEST(TEST_CATEGORY, superimpose_tree_pointer_and_default_space_forms) {
  const auto seed = base_seed() + 1604;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (size_type bits : {0, 95, 5000}) {
    const auto f = tree::random_forest(rng, 25, 4, bits);
    ASSERT_TRUE(tree::run_and_check<TEST_EXECSPACE>(f, true)) << "pointer form, size_bits " << bits;
  }
  // Default space: runs on the views' memory space's execution space.
  using MS         = typename TEST_EXECSPACE::memory_space;
  const auto f     = tree::random_forest(rng, 12, 3, 1234);
  std::vector<view_t<TEST_EXECSPACE>> masks;
  for (const auto& m : f.masks) masks.push_back(to_device<TEST_EXECSPACE>(m));
  Kokkos::View<size_type*, MS> counts("counts", masks.size());
  kmask::superimpose_nulls_tree(masks, f.begins, f.parents, f.size_bits, counts);
  Kokkos::fence();
  const auto expected = ref::superimpose_tree(f.masks, f.begins, f.parents, f.size_bits);
  const auto got      = counts_to_host(counts);
  for (std::size_t k = 0; k < masks.size(); ++k) {
    ASSERT_TRUE(same_words(expected[k].mask, to_host(masks[k]), static_cast<size_type>(k)));
    ASSERT_EQ(got[k], expected[k].nulls);
  }
}

// Nodes that are pieces of one allocation: a node shifted within its own mask and a node whose
// source range reaches into another node's mask are staged; the results follow the contents
// before the call, and the words between the nodes are untouched.
TEST(TEST_CATEGORY, superimpose_tree_nodes_sharing_an_allocation) {
  const auto seed = base_seed() + 1605;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  using range = std::pair<std::size_t, std::size_t>;
  TEST_EXECSPACE exec;
  for (size_type bits : {40, 1000, 70000}) {
    const std::size_t W  = static_cast<std::size_t>(kmask::num_words(bits));
    const auto big_host  = random_words(rng, 2 * W + 4);  // a = words [0, W + 2), b = [W + 2, 2W + 4)
    const auto c_host    = random_words(rng, static_cast<std::size_t>(kmask::num_words(70 + bits)));
    const ref::words a_host(big_host.begin(), big_host.begin() + static_cast<std::ptrdiff_t>(W + 2));
    const ref::words b_host(big_host.begin() + static_cast<std::ptrdiff_t>(W + 2), big_host.end());
    {
      // a (root, from bit 0), b (child of a, from bit 13: shifted in place), c (child of b, from bit 70).
      const auto big = to_device<TEST_EXECSPACE>(big_host);
      const auto c   = to_device<TEST_EXECSPACE>(c_host);
      const std::vector<view_t<TEST_EXECSPACE>> nodes{Kokkos::subview(big, range(0, W + 2)),
                                                      Kokkos::subview(big, range(W + 2, 2 * W + 4)), c};
      const std::vector<size_type> begins{0, 13, 70}, parents{-1, 0, 1};
      const auto counts = poisoned_counts<TEST_EXECSPACE>(3);
      kmask::superimpose_nulls_tree(exec, nodes, begins, parents, bits, counts);
      exec.fence();
      const auto expected = ref::superimpose_tree({a_host, b_host, c_host}, begins, parents, bits);
      const auto got_big  = to_host(big);
      ASSERT_TRUE(same_words(expected[0].mask, ref::words(got_big.begin(), got_big.begin() + static_cast<std::ptrdiff_t>(W)), 0))
          << "bits " << bits;
      ASSERT_TRUE(same_words(expected[1].mask,
                             ref::words(got_big.begin() + static_cast<std::ptrdiff_t>(W + 2), got_big.end()), 1))
          << "bits " << bits;
      ASSERT_TRUE(same_words(expected[2].mask, to_host(c), 2)) << "bits " << bits;
      for (std::size_t w : {W, W + 1, 2 * W + 2, 2 * W + 3}) ASSERT_EQ(got_big[w], big_host[w]) << "spare word " << w;
      const auto got = counts_to_host(counts);
      for (std::size_t k = 0; k < 3; ++k) ASSERT_EQ(got[k], expected[k].nulls);
    }
    {
      // x = the whole allocation read from 5 bits before b (root; written into a's words), b its
      // child from bit 0: x's source covers b's written words, so it is read as it was before.
      const auto big       = to_device<TEST_EXECSPACE>(big_host);
      const size_type from = 32 * static_cast<size_type>(W + 2) - 5;
      const std::vector<view_t<TEST_EXECSPACE>> nodes{big, Kokkos::subview(big, range(W + 2, 2 * W + 4))};
      const std::vector<size_type> begins{from, 0}, parents{-1, 0};
      const auto counts = poisoned_counts<TEST_EXECSPACE>(2);
      kmask::superimpose_nulls_tree(exec, nodes, begins, parents, bits, counts);
      exec.fence();
      const auto expected = ref::superimpose_tree({big_host, b_host}, begins, parents, bits);
      const auto got_big  = to_host(big);
      ASSERT_TRUE(same_words(expected[0].mask, ref::words(got_big.begin(), got_big.begin() + static_cast<std::ptrdiff_t>(W)), 0))
          << "bits " << bits;
      ASSERT_TRUE(same_words(expected[1].mask,
                             ref::words(got_big.begin() + static_cast<std::ptrdiff_t>(W + 2), got_big.end()), 1))
          << "bits " << bits;
      for (std::size_t w : {W, W + 1, 2 * W + 2, 2 * W + 3}) ASSERT_EQ(got_big[w], big_host[w]) << "spare word " << w;
      const auto got = counts_to_host(counts);
      for (std::size_t k = 0; k < 2; ++k) ASSERT_EQ(got[k], expected[k].nulls);
    }
  }
}

TEST(TEST_CATEGORY, superimpose_tree_errors_write_nothing) {
  using MS = typename TEST_EXECSPACE::memory_space;
  TEST_EXECSPACE exec;
  constexpr const char* fn = "kmask::superimpose_nulls_tree: ";
  const size_type bits     = 100;  // 4 words
  // Three nodes of 4 poisoned words, a counter of 3.
  errors::untouched<TEST_EXECSPACE> kept;
  std::vector<view_t<TEST_EXECSPACE>> m;
  for (int k = 0; k < 3; ++k) {
    m.push_back(poisoned_destinations<TEST_EXECSPACE>(1, bits, 0)[0]);
    kept.poisoned.push_back(m.back());
  }
  const auto counts = poisoned_counts<TEST_EXECSPACE>(3);
  kept.counters.push_back(counts);
  const std::vector<size_type> b0{0, 0, 0}, ok{-1, 0, 1};
  using errors::expect_rejected;
  auto call = [&](const std::vector<view_t<TEST_EXECSPACE>>& masks, const std::vector<size_type>& begins,
                  const std::vector<size_type>& parents, size_type size, const Kokkos::View<size_type*, MS>& c) {
    return [=, &exec] { kmask::superimpose_nulls_tree(exec, masks, begins, parents, size, c); };
  };
  expect_rejected<std::invalid_argument>(kept, call(m, {0, 0}, ok, bits, counts),
                                         std::string(fn) + "masks.size() = 3 differs from begin_bits.size() = 2");
  expect_rejected<std::invalid_argument>(kept, call(m, b0, {-1, 0}, bits, counts),
                                         std::string(fn) + "parents.size() = 2 differs from masks.size() = 3");
  expect_rejected<std::invalid_argument>(kept, call(m, b0, ok, -1, counts), std::string(fn) + "size_bits = -1 is negative");
  expect_rejected<std::invalid_argument>(kept, call(m, b0, ok, errors::too_large, counts),
                                         std::string(fn) + "size_bits = 4611686018427387904 is too large");
  expect_rejected<std::out_of_range>(kept, call(m, b0, {-1, 3, 1}, bits, counts),
                                     std::string(fn) + "parents[1] = 3 is outside [-1, masks.size() = 3) (-1 marks a root)");
  expect_rejected<std::out_of_range>(kept, call(m, b0, {-2, 0, 1}, bits, counts),
                                     std::string(fn) + "parents[0] = -2 is outside [-1, masks.size() = 3)");
  expect_rejected<std::invalid_argument>(
      kept, call(m, b0, {-1, 2, 1}, bits, counts),
      std::string(fn) + "parents[1] = 2 closes a cycle (1 -> 2 -> 1): every parent chain must end at a root (-1)");
  expect_rejected<std::invalid_argument>(kept, call(m, b0, {0, 0, 1}, bits, counts),
                                         std::string(fn) + "parents[0] = 0 closes a cycle (0 -> 0)");
  expect_rejected<std::invalid_argument>(kept, call(m, b0, {2, 0, 1}, bits, counts),
                                         std::string(fn) + "parents[0] = 2 closes a cycle (0 -> 2 -> 1 -> 0)");
  // A long cycle is elided in the middle.
  {
    std::vector<view_t<TEST_EXECSPACE>> many(12, view_t<TEST_EXECSPACE>());
    std::vector<size_type> parents(12), begins(12, 0);
    for (int k = 0; k < 12; ++k) parents[static_cast<std::size_t>(k)] = (k + 1) % 12;
    expect_rejected<std::invalid_argument>(
        kept, call(many, begins, parents, 0, poisoned_counts<TEST_EXECSPACE>(12)),
        std::string(fn) + "parents[0] = 1 closes a cycle (0 -> 1 -> 2 -> 3 -> 4 -> 5 -> ... (12 nodes) -> 11 -> 0)");
  }
  expect_rejected<std::out_of_range>(kept, call(m, b0, ok, bits, poisoned_counts<TEST_EXECSPACE>(2)),
                                     std::string(fn) + "null_counts.extent(0) = 2 is less than the 3 needed");
  expect_rejected<std::invalid_argument>(kept, call(m, b0, ok, bits, Kokkos::View<size_type*, MS>()),
                                         std::string(fn) + "null_counts is a null view but 3 counts are written to it");
  expect_rejected<std::invalid_argument>(kept, call(m, {0, -1, 0}, ok, bits, counts),
                                         std::string(fn) + "begin_bits[1] = -1 is negative");
  expect_rejected<std::invalid_argument>(kept, call(m, {0, 0, errors::too_large}, ok, bits, counts),
                                         std::string(fn) + "begin_bits[2] = 4611686018427387904 is too large");
  expect_rejected<std::out_of_range>(
      kept, call(m, {0, 0, 29}, ok, bits, counts),
      std::string(fn) + "begin_bits[2] + size_bits = 29 + 100 is past the 128 bits of masks[2] (4 words)");
  {
    auto with_null = m;
    with_null[1]   = view_t<TEST_EXECSPACE>();
    expect_rejected<std::invalid_argument>(
        kept, call(with_null, b0, ok, bits, counts),
        std::string(fn) + "masks[1] is a null view but size_bits = 100 bits are written to it");
    auto short_one = m;
    short_one[2]   = Kokkos::subview(m[2], std::make_pair(0, 3));
    expect_rejected<std::out_of_range>(
        kept, call(short_one, b0, ok, bits, counts),
        std::string(fn) + "begin_bits[2] + size_bits = 0 + 100 is past the 96 bits of masks[2] (3 words)");
  }
  {
    // Two nodes sharing a word.
    view_t<TEST_EXECSPACE> big = poisoned_destinations<TEST_EXECSPACE>(1, 32 * 7, 0)[0];
    kept.poisoned.push_back(big);
    const std::vector<view_t<TEST_EXECSPACE>> shared{Kokkos::subview(big, std::make_pair(0, 4)),
                                                     Kokkos::subview(big, std::make_pair(3, 7)), m[2]};
    expect_rejected<std::invalid_argument>(kept, call(shared, b0, ok, bits, counts),
                                           std::string(fn) + "masks[1] overlaps masks[0]: both would be written at once");
  }
  // The pointer form names the same arguments; a null mask is a null pointer.
  std::vector<kmask::dest_mask> raw;
  for (const auto& v : m) raw.push_back({v.data(), static_cast<size_type>(v.extent(0))});
  auto pcall = [&](const std::vector<kmask::dest_mask>& masks, const std::vector<size_type>& begins,
                   const std::vector<size_type>& parents, size_type size) {
    return [=, &exec] { kmask::superimpose_nulls_tree(exec, masks, begins, parents, size, counts); };
  };
  expect_rejected<std::invalid_argument>(kept, pcall(raw, {0, 0}, ok, bits),
                                         std::string(fn) + "masks.size() = 3 differs from begin_bits.size() = 2");
  expect_rejected<std::invalid_argument>(kept, pcall(raw, b0, {1, 0, 1}, bits),
                                         std::string(fn) + "parents[0] = 1 closes a cycle (0 -> 1 -> 0)");
  expect_rejected<std::invalid_argument>(kept, pcall(raw, {0, -1, 0}, ok, bits),
                                         std::string(fn) + "begin_bits[1] = -1 is negative");
  expect_rejected<std::out_of_range>(
      kept, pcall(raw, {0, 0, 29}, ok, bits),
      std::string(fn) + "begin_bits[2] + size_bits = 29 + 100 is past the 128 bits of masks[2] (4 words)");
  {
    auto bad = raw;
    bad[1]   = {raw[1].words, -2};
    expect_rejected<std::invalid_argument>(kept, pcall(bad, b0, ok, bits),
                                           std::string(fn) + "masks[1].extent_words = -2 is negative");
    bad[1] = {nullptr, 4};
    expect_rejected<std::invalid_argument>(
        kept, pcall(bad, b0, ok, bits),
        std::string(fn) + "masks[1] is a null pointer but its extent is 4 words (only an empty null mask reads as all valid)");
    bad[1] = {nullptr, 0};
    expect_rejected<std::invalid_argument>(
        kept, pcall(bad, b0, ok, bits),
        std::string(fn) + "masks[1] is a null pointer but size_bits = 100 bits are written to it");
    bad[1] = {raw[1].words, 3};
    expect_rejected<std::out_of_range>(kept, pcall(bad, b0, ok, bits),
                                       std::string(fn) + "begin_bits[1] + size_bits = 0 + 100 is past the 96 bits of masks[1] (3 words)");
    bad[1] = {raw[0].words + 2, 4};
    expect_rejected<std::invalid_argument>(kept, pcall(bad, b0, ok, bits),
                                           std::string(fn) + "masks[1] overlaps masks[0]: both would be written at once");
  }
}

// Masks of several CPU units (tree_tuning::cpu_unit_words words each) with nodes read from a later
// bit of their own mask: fewer than cpu_halo_max_words words ahead they are walked in place, each
// unit taking the source words past its end from a halo copied before the walk (the next unit
// may have written them first, which several threads make likely); at and past that they are
// staged whole; past the node's own words they overlap nothing. Every other space walks them as
// any sliced node.
TEST(TEST_CATEGORY, superimpose_tree_sliced_in_place_across_units) {
  const auto seed = base_seed() + 1611;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  using tuning          = kmask::detail::tree_tuning<TEST_EXECSPACE>;
  const size_type unit  = 32 * tuning::cpu_unit_words, halo = tuning::cpu_halo_max_words;
  const size_type aheads[] = {0, 1, 2, 31, halo / 2, halo - 2, halo - 1, halo, halo + 1, 3 * halo};
  for (int round = 0; round < 4; ++round) {
    // 2-5 units and a part; round 0 ends exactly on a unit boundary.
    const size_type bits = unit * static_cast<size_type>(2 + rng() % 4) +
                           (round == 0 ? 0 : 1 + static_cast<size_type>(rng() % static_cast<std::uint64_t>(unit - 1)));
    auto f = tree::random_forest(rng, 6 + static_cast<size_type>(rng() % 6), 4, bits, 2, 0);
    for (std::size_t k = 0; k < f.masks.size(); ++k) {
      if (rng() % 4 == 0) continue;  // some nodes stay aligned
      const size_type ahead = aheads[rng() % (sizeof(aheads) / sizeof(aheads[0]))];
      const size_type b     = 32 * ahead + (rng() % 3 == 0 ? 0 : static_cast<size_type>(rng() % 32));
      f.begins[k]           = b;
      f.masks[k]            = random_words(rng, static_cast<std::size_t>(kmask::num_words(b + bits) + rng() % 2));
    }
    // One node read past its own words: no overlap, nothing staged.
    const std::size_t far = static_cast<std::size_t>(rng() % f.masks.size());
    f.begins[far]         = 32 * (kmask::num_words(bits) + 3) + 5;
    f.masks[far]          = random_words(rng, static_cast<std::size_t>(kmask::num_words(f.begins[far] + bits)));
    ASSERT_TRUE(tree::run_and_check<TEST_EXECSPACE>(f, round % 2 == 1)) << "size_bits " << bits;
  }
}
