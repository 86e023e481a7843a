// batch_count_unset_bits over 100 masks (one launch for the whole batch) and inverted-source
// (AND-NOT) variants of in-place segmented cells, each against a same-run reference.
//
// batch_count/unset/masks:M/total_bits:B/{aligned,unaligned}: M masks of B / M bits each, read once.
// batch_count/inplace_unset/...: the same into one counts view allocated outside the timing
// (inplace_batch_count_unset_bits); vs_allocating is the allocating call's time over ours.
// Counting only reads, so a read byte counts as the read half of a copied byte: vs_copy is the time
// of a deep_copy of the same masks (bytes read = bytes written = the masks' bytes) over ours;
// vs_copy_same_total compares with a deep_copy of the masks' bytes in all (half read, half
// written), the convention of the count_set_bits cells. loop_speedup is the time of the
// M count_unset_bits calls (one synchronisation each) the batch replaces, over ours. alloc_us and
// upload_us: the fixed parts of a call (its counts' allocation, its descriptors' upload) timed alone.
//
// segmented_binop/inplace/and_not/...: the cell of bench_segmented_binop.cpp with every other source
// of each segment inverted (source_mask::invert), through a plan; vs_copy as there, vs_plain is the
// same plan over the same sources without inversion, timed in the same run, over ours (1.0: the
// flag costs nothing).

#include "bench_support.hpp"

#include <memory>
#include <sstream>

namespace kmask_bench {
namespace {

struct batch_case {
  size_type masks;
  size_type total_bits;
  bool aligned;
  bool inplace = false;  // inplace_batch_count_unset_bits into one counts view, allocated once
};

void run_batch_count(benchmark::State& state, batch_case c) {
  const exec_space exec = bench_exec();
  const size_type bits = c.total_bits / c.masks;
  // Masks plus the two copies' buffers.
  if (3 * c.total_bits / 8 + 64 * c.masks > max_bytes()) {
    state.SkipWithError("working set exceeds KMASK_BENCH_MAX_BYTES");
    return;
  }
  std::vector<Kokkos::View<word_type*, memory_space>> masks;
  std::vector<size_type> begins, sizes;
  for (size_type j = 0; j < c.masks; ++j) {
    const size_type b = c.aligned ? 0 : 1 + (j * 7) % 31;
    Kokkos::View<word_type*, memory_space> m(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "bench::mask"),
                                             kmask::num_words(b + bits));
    fill_random(exec, m, static_cast<std::uint64_t>(j));
    masks.push_back(m);
    begins.push_back(b);
    sizes.push_back(bits);
  }
  exec.fence();
  Kokkos::View<size_type*, memory_space> counts;
  if (c.inplace) counts = Kokkos::View<size_type*, memory_space>("bench::counts", c.masks);
  const auto allocating = [&] { counts = kmask::batch_count_unset_bits(exec, masks, begins, sizes); };
  const auto call       = [&] {
    if (c.inplace) kmask::inplace_batch_count_unset_bits(exec, masks, begins, sizes, counts);
    else allocating();
  };
  timed_calls(state, exec, call);
  const double ours  = time_median(exec, call);
  const double bytes = static_cast<double>(c.masks) * static_cast<double>(kmask::num_words(bits)) * sizeof(word_type);
  set_rates(state, bytes);
  state.counters["median_us"]          = ours * 1e6;
  state.counters["vs_copy"]            = same_bytes_copy_time(exec, static_cast<size_type>(2 * bytes)) / ours;
  state.counters["vs_copy_same_total"] = same_bytes_copy_time(exec, static_cast<size_type>(bytes)) / ours;
  if (c.inplace) {
    // The allocating call over the same masks in the same run, over ours: what the allocation costs
    // (it replaces `counts`, which nothing reads after this).
    state.counters["vs_allocating"] = time_median(exec, allocating) / ours;
    return;
  }
  // What the call's fixed parts cost alone, in the same run: allocating (and freeing) a counts view
  // like the one it returns, and uploading descriptors of its size (5 words a mask).
  state.counters["alloc_us"] = 1e6 * time_median(exec, [&] {
    Kokkos::View<size_type*, memory_space> v(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "bench::counts"),
                                             c.masks);
    benchmark::DoNotOptimize(v.data());
  });
  state.counters["upload_us"]    = 1e6 * descriptor_upload_time(exec, static_cast<std::size_t>(5 * c.masks + 1));
  state.counters["loop_speedup"] = time_median(exec, [&] {
                                     for (size_type j = 0; j < c.masks; ++j)
                                       benchmark::DoNotOptimize(
                                           kmask::count_unset_bits(exec, masks[j], begins[j], begins[j] + bits));
                                   }) /
                                   ours;
}

struct inverted_case {
  size_type segments;
  size_type masks_per_segment;
  size_type size_bits;
  bool aligned;
};

// Sources, destinations and the two plans (plain, every other source inverted), made outside
// every timed region.
struct prepared {
  std::vector<Kokkos::View<word_type*, memory_space>> sources, destinations;
  Kokkos::View<size_type*, memory_space> null_counts;
  std::unique_ptr<kmask::segmented_binop_plan<exec_space>> plain, inverted;
  double bytes = 0;
};

std::unique_ptr<prepared> prepare(const exec_space& exec, const inverted_case& c) {
  auto p = std::make_unique<prepared>();
  std::vector<kmask::source_mask> plain, inverted;
  std::vector<kmask::dest_mask> dests;
  std::vector<size_type> offsets;
  for (size_type s = 0; s < c.segments; ++s) {
    offsets.push_back(static_cast<size_type>(plain.size()));
    for (size_type k = 0; k < c.masks_per_segment; ++k) {
      const size_type j = static_cast<size_type>(plain.size());
      const size_type b = c.aligned ? 0 : 1 + (j * 7) % 31;
      Kokkos::View<word_type*, memory_space> m(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "bench::source"),
                                               kmask::num_words(b + c.size_bits));
      fill_random(exec, m, static_cast<std::uint64_t>(j));
      p->sources.push_back(m);
      plain.push_back({m.data(), static_cast<size_type>(m.extent(0)), b});
      inverted.push_back({m.data(), static_cast<size_type>(m.extent(0)), b, k % 2 == 1});
    }
    p->destinations.push_back(Kokkos::View<word_type*, memory_space>(
        Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "bench::destination"), kmask::num_words(c.size_bits)));
    dests.push_back({p->destinations.back().data(), static_cast<size_type>(p->destinations.back().extent(0))});
  }
  offsets.push_back(static_cast<size_type>(plain.size()));
  p->null_counts = Kokkos::View<size_type*, memory_space>("bench::null_counts", c.segments);
  p->plain       = std::make_unique<kmask::segmented_binop_plan<exec_space>>(exec, dests, plain, c.size_bits, offsets);
  p->inverted = std::make_unique<kmask::segmented_binop_plan<exec_space>>(exec, dests, inverted, c.size_bits, offsets);
  p->bytes    = static_cast<double>(c.segments) * static_cast<double>(c.masks_per_segment + 1) *
             static_cast<double>(kmask::num_words(c.size_bits)) * sizeof(word_type);
  exec.fence();
  return p;
}

void run_inverted_inplace(benchmark::State& state, inverted_case c) {
  const exec_space exec = bench_exec();
  const size_type mask_bytes = kmask::allocation_size_bytes(c.size_bits + 32);
  if (2 * c.segments * (c.masks_per_segment + 1) * mask_bytes > max_bytes()) {
    state.SkipWithError("working set exceeds KMASK_BENCH_MAX_BYTES");
    return;
  }
  const auto p    = prepare(exec, c);
  const auto call = [&] { p->inverted->execute(exec, kmask::bit_and{}, p->null_counts); };
  timed_calls(state, exec, call);
  const double ours = time_median(exec, call);
  set_rates(state, p->bytes);
  state.counters["median_us"] = ours * 1e6;
  state.counters["vs_copy"]   = same_bytes_copy_time(exec, static_cast<size_type>(p->bytes)) / ours;
  state.counters["vs_plain"] =
      time_median(exec, [&] { p->plain->execute(exec, kmask::bit_and{}, p->null_counts); }) / ours;
}

void register_batch_cell(const batch_case& c) {
  std::ostringstream name;
  name << "batch_count/" << (c.inplace ? "inplace_unset" : "unset") << "/masks:" << c.masks
       << "/total_bits:" << c.total_bits << "/" << (c.aligned ? "aligned" : "unaligned");
  benchmark::RegisterBenchmark(name.str().c_str(), [c](benchmark::State& s) { run_batch_count(s, c); })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace

void register_batch_count_benchmarks() {
  for (size_type log_total : {20, 24, 27, 30})
    for (bool aligned : {true, false}) register_batch_cell({100, size_type{1} << log_total, aligned});
  // The in-place form: 100 masks travel in the launch's arguments on a GPU, 1000 are uploaded.
  for (size_type log_total : {20, 24, 27, 30})
    for (size_type masks : {100, 1000})
      for (bool aligned : {true, false})
        if (masks == 100 || (log_total >= 24 && aligned))
          register_batch_cell({masks, size_type{1} << log_total, aligned, true});
  // The README's in-place cells (segments x masks x bits), aligned and shifted.
  const inverted_case cells[] = {{10, 4, size_type{1} << 24, true},  {100, 4, size_type{1} << 24, true},
                                 {100, 8, size_type{1} << 20, true}, {1000, 16, size_type{1} << 20, true},
                                 {10, 16, size_type{1} << 20, true}};
  for (inverted_case c : cells)
    for (bool aligned : {true, false}) {
      c.aligned = aligned;
      std::ostringstream name;
      name << "segmented_binop/inplace/and_not/segments:" << c.segments << "/masks:" << c.masks_per_segment
           << "/bits:" << c.size_bits << "/" << (aligned ? "aligned" : "unaligned");
      benchmark::RegisterBenchmark(name.str().c_str(), [c](benchmark::State& s) { run_inverted_inplace(s, c); })
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
}

}  // namespace kmask_bench
