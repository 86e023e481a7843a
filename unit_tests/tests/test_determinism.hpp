// Bit-identical results whatever the backend and the number of threads: one fixed case (its seed
// does not follow KMASK_TEST_SEED) of several segment layouts (sources at bit 0, inside the first
// word, past it, mixed with empty and single-source segments), AND / OR / XOR, sizes with and
// without tail words up to several teams per segment, through segmented_binop,
// inplace_segmented_binop and a plan. Every result is checked against the reference; an FNV-1a 64
// digest of every output word (the allocating form's padding included) and every null count is
// printed and, when KMASK_TEST_DIGEST_FILE is set, written to that file. ctest runs this in every
// unit-test entry (Serial, OpenMP at each thread count, CUDA) and kmask.unit.digests.compare fails
// if the files differ.

#include <fstream>
#include <iomanip>
#include <iostream>

namespace {
namespace determinism {

struct fnv1a64 {
  std::uint64_t hash  = 0xcbf29ce484222325ull;
  std::uint64_t words = 0, counts = 0;
  void bytes(std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) {
      hash ^= (v >> (8 * i)) & 0xFFu;
      hash *= 0x100000001b3ull;
    }
  }
  void word(word_type w) {
    bytes(w, 4);
    ++words;
  }
  void count(size_type c) {
    bytes(static_cast<std::uint64_t>(c), 8);
    ++counts;
  }
};

// The fixed layouts: sources per segment and where they are read from.
enum class layout { aligned, inside_first_word, past_first_word, mixed };

inline host_case make_case(std::mt19937_64& rng, layout l, size_type size_bits) {
  host_case c;
  c.size_bits = size_bits;
  c.offsets.push_back(0);
  const int segments = l == layout::mixed ? 6 : 4;
  for (int s = 0; s < segments; ++s) {
    int k = 1 + static_cast<int>(rng() % 4);
    if (l == layout::mixed) k = s == 0 ? 0 : s == 1 ? 1 : 2 + s;  // empty, single, 4..7 sources
    for (int j = 0; j < k; ++j) {
      size_type b = 0;
      switch (l) {
        case layout::aligned: b = 32 * static_cast<size_type>(rng() % 3); break;
        case layout::inside_first_word: b = 1 + static_cast<size_type>(rng() % 31); break;
        case layout::past_first_word: b = 32 + static_cast<size_type>(rng() % 200); break;
        case layout::mixed: b = static_cast<size_type>(j % 3 == 0 ? 0 : rng() % 300); break;
      }
      const size_type words = kmask::num_words(b + size_bits) + (j % 2);
      c.sources.push_back(random_words(rng, static_cast<std::size_t>(words)));
      c.begin_bits.push_back(b);
    }
    c.offsets.push_back(static_cast<size_type>(c.sources.size()));
  }
  return c;
}

// Runs one case with `op` in the three forms, checks each against the reference, adds all to `d`.
template <class ExecSpace, class Op>
void run_and_digest(const host_case& c, Op op, fnv1a64& d) {
  ExecSpace exec;
  const auto o          = ref_op(op);
  const size_type S     = c.num_segments();
  const size_type words = kmask::num_words(c.size_bits);
  const auto sources    = sources_on_device<ExecSpace>(c);
  std::vector<ref::result> expected;
  for (size_type s = 0; s < S; ++s) expected.push_back(c.expected(o, s));

  const auto res = kmask::segmented_binop(exec, op, sources, c.begin_bits, c.size_bits, c.offsets);
  exec.fence();
  const auto rows   = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, res.masks);
  const auto counts = counts_to_host(res.null_counts);
  for (size_type s = 0; s < S; ++s) {
    for (std::size_t w = 0; w < rows.extent(1); ++w) {
      const word_type want = static_cast<size_type>(w) < words ? expected[s].mask[w] : 0u;
      ASSERT_EQ(rows(s, w), want) << "segmented_binop segment " << s << " word " << w;
      d.word(rows(s, w));
    }
    ASSERT_EQ(counts[s], expected[s].nulls) << "segmented_binop segment " << s;
    d.count(counts[s]);
  }

  auto dests        = poisoned_destinations<ExecSpace>(S, c.size_bits, 1);
  const auto nulls  = poisoned_counts<ExecSpace>(S);
  kmask::inplace_segmented_binop(exec, op, dests, sources, c.begin_bits, c.size_bits, c.offsets, nulls);
  auto plan_dests        = poisoned_destinations<ExecSpace>(S, c.size_bits, 1);
  const auto plan_nulls  = poisoned_counts<ExecSpace>(S);
  const kmask::segmented_binop_plan<ExecSpace> plan(exec, plan_dests, sources, c.begin_bits, c.size_bits, c.offsets);
  plan.execute(exec, op, plan_nulls);
  exec.fence();
  for (const auto* run : {&dests, &plan_dests}) {
    const auto got_counts = counts_to_host(run == &dests ? nulls : plan_nulls);
    const char* name      = run == &dests ? "inplace_segmented_binop" : "segmented_binop_plan";
    for (size_type s = 0; s < S; ++s) {
      const auto got = to_host((*run)[s]);
      ASSERT_TRUE(same_words(expected[s].mask, got, s)) << name;
      ASSERT_EQ(got.back(), poison) << name << " wrote past destination " << s;
      for (size_type w = 0; w < words; ++w) d.word(got[w]);
      ASSERT_EQ(got_counts[s], expected[s].nulls) << name << " segment " << s;
      d.count(got_counts[s]);
    }
  }
}

}  // namespace determinism
}  // namespace

TEST(TEST_CATEGORY, determinism_digest) {
  constexpr std::uint64_t seed = 0x6b6d61736b2d6464ull;  // fixed: the digest must not depend on KMASK_TEST_SEED
  SCOPED_TRACE(::testing::Message() << "fixed seed " << seed);
  std::mt19937_64 rng(seed);
  determinism::fnv1a64 d;
  using determinism::layout;
  // 300007 bits = 9376 words: more than one team per segment on every backend.
  for (size_type bits : {1, 31, 32, 33, 100, 128, 129, 4097, 300007}) {
    for (layout l : {layout::aligned, layout::inside_first_word, layout::past_first_word, layout::mixed}) {
      SCOPED_TRACE(::testing::Message() << "bits = " << bits << ", layout " << static_cast<int>(l));
      const auto c = determinism::make_case(rng, l, bits);
      determinism::run_and_digest<TEST_EXECSPACE>(c, kmask::bit_and{}, d);
      determinism::run_and_digest<TEST_EXECSPACE>(c, kmask::bit_or{}, d);
      determinism::run_and_digest<TEST_EXECSPACE>(c, kmask::bit_xor{}, d);
      if (HasFatalFailure()) return;
    }
  }
  std::ostringstream line;
  line << "fnv1a64 0x" << std::hex << std::setw(16) << std::setfill('0') << d.hash << std::dec << " over " << d.words
       << " words and " << d.counts << " null counts";
  std::cout << "determinism digest: " << line.str() << " (" << TEST_EXECSPACE::name() << ", concurrency "
            << TEST_EXECSPACE().concurrency() << ")" << std::endl;
  if (const char* path = std::getenv("KMASK_TEST_DIGEST_FILE")) {
    std::ofstream f(path);
    f << line.str() << "\n"
      << "written by " << TEST_EXECSPACE::name() << " at concurrency " << TEST_EXECSPACE().concurrency() << "\n";
    f.close();
    if (!f) ADD_FAILURE() << "could not write the digest to KMASK_TEST_DIGEST_FILE = " << path;
  }
}
