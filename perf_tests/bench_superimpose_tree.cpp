// superimpose_nulls_tree on a 3-level struct column (1 root, 8 children, 8 grandchildren each:
// 73 nodes) against pushing the nulls down level by level in the same run:
//  - per_parent: one superimpose_nulls per struct node (9 calls: the root, then each child),
//    what a caller without the tree call writes;
//  - per_level: one in-place segmented AND per level (2 launches, prepared plans: launches only),
//    the best a level loop can do.
// Counters: bytes (every node read once and written once), GB/s, vs_copy (a same-bytes deep_copy
// in the same run ÷ the tree's time), speedup_per_parent and speedup_per_level (their time ÷ the
// tree's). "sliced": every grandchild read from bit 3 of its mask (staged, a copy more of them).

#include "bench_support.hpp"

#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace kmask_bench {
namespace {

using mask_view = Kokkos::View<word_type*, memory_space>;

struct tree_case {
  size_type size_bits;
  bool sliced;
};

struct tree_problem {
  std::vector<mask_view> masks;  // 0 root, 1..8 children, 9.. grandchildren (child c: 9 + 8 (c - 1) ..)
  std::vector<size_type> begin_bits, parents;
  Kokkos::View<size_type*, memory_space> null_counts;
  std::vector<std::unique_ptr<kmask::segmented_binop_plan<exec_space>>> level_plans;
  double bytes = 0;
};

std::unique_ptr<tree_problem> prepare(const exec_space& exec, const tree_case& c) {
  auto p             = std::make_unique<tree_problem>();
  const size_type nw = kmask::num_words(c.size_bits);
  for (int k = 0; k < 73; ++k) {
    const bool grandchild = k >= 9;
    const size_type begin = c.sliced && grandchild ? 3 : 0;
    p->masks.emplace_back(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "bench::tree_node"),
                          kmask::num_words(begin + c.size_bits));
    fill_random(exec, p->masks.back(), static_cast<std::uint64_t>(k) + 1);
    p->begin_bits.push_back(begin);
    p->parents.push_back(k == 0 ? -1 : k <= 8 ? 0 : 1 + (k - 9) / 8);
  }
  p->null_counts = Kokkos::View<size_type*, memory_space>("bench::tree_null_counts", 73);
  // per_level: level 1 = {root, child} -> child; level 2 = {child, grandchild} -> grandchild.
  for (int level = 1; level <= 2; ++level) {
    std::vector<mask_view> dests, sources;
    std::vector<size_type> begins, offsets{0};
    for (int k = level == 1 ? 1 : 9; k < (level == 1 ? 9 : 73); ++k) {
      dests.push_back(p->masks[static_cast<std::size_t>(k)]);
      sources.push_back(p->masks[static_cast<std::size_t>(p->parents[static_cast<std::size_t>(k)])]);
      sources.push_back(p->masks[static_cast<std::size_t>(k)]);
      begins.push_back(0);
      begins.push_back(p->begin_bits[static_cast<std::size_t>(k)]);
      offsets.push_back(static_cast<size_type>(sources.size()));
    }
    p->level_plans.push_back(
        std::make_unique<kmask::segmented_binop_plan<exec_space>>(exec, dests, sources, begins, c.size_bits, offsets));
  }
  p->bytes = 2.0 * 73 * static_cast<double>(nw) * sizeof(word_type);
  exec.fence();
  return p;
}

void run_tree(benchmark::State& state, tree_case c) {
  const exec_space exec = bench_exec();
  if (static_cast<size_type>(3 * 73 * kmask::num_words(c.size_bits + 3) * 4) > max_bytes()) {
    state.SkipWithError("working set exceeds KMASK_BENCH_MAX_BYTES");
    return;
  }
  const auto p    = prepare(exec, c);
  const auto tree = [&] {
    kmask::superimpose_nulls_tree(exec, p->masks, p->begin_bits, p->parents, c.size_bits, p->null_counts);
  };
  timed_calls(state, exec, tree);
  const double ours = time_median(exec, tree);
  set_rates(state, p->bytes);
  state.counters["median_us"] = ours * 1e6;
  state.counters["vs_copy"]   = same_bytes_copy_time(exec, static_cast<size_type>(p->bytes)) / ours;
  // One superimpose_nulls per struct node: the root into its 8 children, then each child into its 8.
  const auto per_parent = [&] {
    std::vector<mask_view> kids;
    for (int k = 1; k <= 8; ++k) kids.push_back(p->masks[static_cast<std::size_t>(k)]);
    kmask::superimpose_nulls(exec, p->masks[0], p->begin_bits[0], kids, c.size_bits, p->null_counts);
    for (int child = 1; child <= 8; ++child) {
      // superimpose_nulls reads children from bit 0: sliced grandchildren are not its case, so the
      // per-parent loop runs on the aligned struct only (the per-level plans cover both).
      std::vector<mask_view> grandkids;
      for (int g = 0; g < 8; ++g) grandkids.push_back(p->masks[static_cast<std::size_t>(9 + 8 * (child - 1) + g)]);
      kmask::superimpose_nulls(exec, p->masks[static_cast<std::size_t>(child)], 0, grandkids, c.size_bits,
                               Kokkos::subview(p->null_counts, std::make_pair(9 + 8 * (child - 1), 9 + 8 * child)));
    }
  };
  if (!c.sliced) state.counters["speedup_per_parent"] = time_median(exec, per_parent) / ours;
  const auto per_level = [&] {
    p->level_plans[0]->execute(exec, kmask::bit_and{}, p->null_counts);
    p->level_plans[1]->execute(exec, kmask::bit_and{}, p->null_counts);
  };
  state.counters["speedup_per_level"] = time_median(exec, per_level) / ours;
}

std::string case_name(const tree_case& c) {
  std::ostringstream os;
  os << "superimpose_nulls_tree/struct:1x8x8/bits:" << c.size_bits << "/" << (c.sliced ? "sliced" : "aligned");
  return os.str();
}

bool register_tree_benchmarks() {
  for (const tree_case& c : {tree_case{size_type{1} << 20, false}, tree_case{size_type{1} << 22, false},
                             tree_case{size_type{1} << 24, false},
                             tree_case{size_type{1} << 24, true}, tree_case{size_type{1} << 26, false}})
    benchmark::RegisterBenchmark(case_name(c).c_str(), [c](benchmark::State& s) { run_tree(s, c); })
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  return true;
}

[[maybe_unused]] const bool registered = register_tree_benchmarks();

}  // namespace
}  // namespace kmask_bench
