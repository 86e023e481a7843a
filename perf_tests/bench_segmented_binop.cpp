// Segmented binop benchmarks over the design note's axes: segments x masks per segment x mask
// size, aligned and unaligned sources, AND (and OR once). Each case reports, measured in the same
// run: its time, bytes moved (each source word read once + each destination word written once),
// GB/s, vs_copy (same-bytes deep_copy time / ours), and for the in-place call the one-warp-per-
// segment baseline (speedup = its time / ours) and, where Kokkos Kernels is there, a KokkosBlas
// streaming operation over the same bytes (vs_kokkosblas = its time / ours).

#include "bench_support.hpp"
#include "warp_per_segment_baseline.hpp"

#ifdef KMASK_BENCH_HAVE_KOKKOSKERNELS
#include <KokkosBlas1_axpby.hpp>
#endif

#include <memory>
#include <sstream>

namespace kmask_bench {
namespace {

struct segmented_case {
  size_type segments;
  size_type masks_per_segment;
  size_type size_bits;
  bool aligned;
};

// The masks, destinations and plan of one case, made outside every timed region.
struct prepared_case {
  std::vector<Kokkos::View<word_type*, memory_space>> sources, destinations;
  std::vector<size_type> begin_bits, offsets;
  Kokkos::View<size_type*, memory_space> null_counts;
  std::unique_ptr<kmask::segmented_binop_plan<exec_space>> plan;
  double bytes = 0;
};

size_type begin_bit_of(const segmented_case& c, size_type j) { return c.aligned ? 0 : 1 + (j * 7) % 31; }

size_type working_set_bytes(const segmented_case& c) {
  const size_type mask_bytes = kmask::allocation_size_bytes(c.size_bits + 32);
  return c.segments * (c.masks_per_segment + 1) * mask_bytes + mask_bytes * c.segments * (c.masks_per_segment + 1);
}

// KMASK_BENCH_POOLED_MASKS=1: every source and destination carved, 64-byte aligned, from one
// allocation, as an engine with a pool allocator (RMM) holds its columns, instead of one
// allocation each: whether an allocating call's tail is the driver holding ~10^5 allocations.
bool pooled_masks() {
  const char* s = std::getenv("KMASK_BENCH_POOLED_MASKS");
  return s != nullptr && std::string(s) == "1";
}

std::unique_ptr<prepared_case> prepare(const exec_space& exec, const segmented_case& c) {
  auto p = std::make_unique<prepared_case>();
  using mask_view           = Kokkos::View<word_type*, memory_space>;
  const size_type piece     = 16;  // words: 64 bytes, a piece's alignment in the pool
  const auto rounded        = [&](size_type w) { return (w + piece - 1) / piece * piece; };
  const size_type src_words = rounded(kmask::num_words(32 + c.size_bits));
  mask_view pool;
  if (pooled_masks()) {
    pool = mask_view(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "bench::pool"),
                     c.segments * (c.masks_per_segment * src_words + rounded(kmask::num_words(c.size_bits))));
    fill_random(exec, pool, 1);
  }
  size_type next = 0;
  const auto carve = [&](size_type words, const char* label) {
    if (!pool.data()) return mask_view(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, std::string(label)), words);
    const size_type at = next;
    next += rounded(words);
    return mask_view(Kokkos::subview(pool, Kokkos::make_pair(at, at + words)));
  };
  for (size_type s = 0; s < c.segments; ++s) {
    p->offsets.push_back(static_cast<size_type>(p->sources.size()));
    for (size_type k = 0; k < c.masks_per_segment; ++k) {
      const size_type j = static_cast<size_type>(p->sources.size());
      const size_type b = begin_bit_of(c, j);
      const mask_view m = carve(kmask::num_words(b + c.size_bits), "bench::source");
      if (!pool.data()) fill_random(exec, m, static_cast<std::uint64_t>(j));
      p->sources.push_back(m);
      p->begin_bits.push_back(b);
    }
    p->destinations.push_back(carve(kmask::num_words(c.size_bits), "bench::destination"));
  }
  p->offsets.push_back(static_cast<size_type>(p->sources.size()));
  p->null_counts = Kokkos::View<size_type*, memory_space>("bench::null_counts", c.segments);
  p->plan        = std::make_unique<kmask::segmented_binop_plan<exec_space>>(exec, p->destinations, p->sources,
                                                                      p->begin_bits, c.size_bits, p->offsets);
  p->bytes = static_cast<double>(c.segments) * static_cast<double>(c.masks_per_segment + 1) *
             static_cast<double>(kmask::num_words(c.size_bits)) * sizeof(word_type);
  exec.fence();
  return p;
}

#ifdef KMASK_BENCH_HAVE_KOKKOSKERNELS
// y = a x + b y over doubles: reads x and y, writes y — 3 streams, sized to move `bytes`.
double kokkosblas_time(const exec_space& exec, double bytes) {
  const size_type n = std::max<size_type>(1, static_cast<size_type>(bytes / (3 * sizeof(double))));
  Kokkos::View<double*, memory_space> x("bench::blas_x", n), y("bench::blas_y", n);
  return time_median(exec, [&] { KokkosBlas::axpby(1.0, x, 1.0, y); });
}
#endif

// The case prepared, or nothing (the benchmark then reports why it was skipped).
std::unique_ptr<prepared_case> prepare_or_skip(benchmark::State& state, const exec_space& exec, const segmented_case& c) {
  if (working_set_bytes(c) > max_bytes()) {
    state.SkipWithError("working set exceeds KMASK_BENCH_MAX_BYTES");
    return nullptr;
  }
  return prepare(exec, c);
}

template <class Op>
void run_inplace(benchmark::State& state, segmented_case c, Op op) {
  const exec_space exec = bench_exec();
  const auto p = prepare_or_skip(state, exec, c);
  if (!p) return;
  timed_calls(state, exec, [&] { p->plan->execute(exec, op, p->null_counts); });
  const double ours = time_median(exec, [&] { p->plan->execute(exec, op, p->null_counts); });
  set_rates(state, p->bytes);
  state.counters["median_us"] = ours * 1e6;
  state.counters["vs_copy"]   = same_bytes_copy_time(exec, static_cast<size_type>(p->bytes)) / ours;
  if (measure_peers()) {
    state.counters["speedup"] =
        time_median(exec, [&] { warp_per_segment_binop(exec, op, *p->plan, p->null_counts); }) / ours;
#ifdef KMASK_BENCH_HAVE_KOKKOSKERNELS
    state.counters["vs_kokkosblas"] = kokkosblas_time(exec, p->bytes) / ours;
#endif
  }
}

// The one-shot in-place call (no plan): what an engine that combines masks once per batch pays,
// the describing pass and the descriptors' way to the kernels included.
void run_inplace_call(benchmark::State& state, segmented_case c) {
  const exec_space exec = bench_exec();
  const auto p = prepare_or_skip(state, exec, c);
  if (!p) return;
  const auto call = [&] {
    kmask::inplace_segmented_binop(exec, kmask::bit_and{}, p->destinations, p->sources, p->begin_bits, c.size_bits,
                                   p->offsets, p->null_counts);
  };
  time_and_report(state, exec, p->bytes, call);
}

void run_allocating(benchmark::State& state, segmented_case c) {
  const exec_space exec = bench_exec();
  const auto p = prepare_or_skip(state, exec, c);
  if (!p) return;
  const auto call = [&] {
    const auto r = kmask::segmented_binop(exec, kmask::bit_and{}, p->sources, p->begin_bits, c.size_bits, p->offsets);
    exec.fence();  // the result must be complete before its views are released
  };
  timed_calls(state, exec, call);
  const double ours = time_median(exec, call);
  set_rates(state, p->bytes);
  state.counters["median_us"] = ours * 1e6;
  state.counters["vs_copy"]   = same_bytes_copy_time(exec, static_cast<size_type>(p->bytes)) / ours;
  // Where the end-to-end time goes: validating and staging the descriptors (host pass + upload),
  // and the kernel alone (the in-place plan over the same sources).
  // The words described, read off the encoded views so the count follows the encoder's layout.
  std::size_t descriptor_words = 0;
  const time_spread stage = time_percentiles(exec, [&] {
    const auto e = kmask::detail::encode(
        exec,
        kmask::detail::describe(kmask::detail::arg_names{"bench"},
                                kmask::detail::view_sources<Kokkos::View<word_type*, memory_space>>{
                                    p->sources.data(), p->begin_bits.data(), p->sources.size()},
                                kmask::detail::no_dests{}, c.size_bits, p->offsets),
        kmask::detail::pool_stores<exec_space>{"bench"});
    exec.fence();
    descriptor_words = e.offsets.extent(0) + e.count_scratch.extent(0) + 1 +
                       e.sources.extent(0) * sizeof(typename decltype(e.sources)::value_type) / sizeof(std::uint64_t);
  });
  state.counters["stage_us"]     = 1e6 * stage.p50;
  state.counters["stage_p99_us"] = 1e6 * stage.p99;
  // The upload inside stage_us alone (offsets, count scratch and source references).
  state.counters["upload_us"]     = 1e6 * descriptor_upload_time(exec, descriptor_words);
  state.counters["descriptor_MB"] = 8e-6 * static_cast<double>(descriptor_words);
  const time_spread kernel =
      time_percentiles(exec, [&] { p->plan->execute(exec, kmask::bit_and{}, p->null_counts); });
  state.counters["kernel_us"]     = 1e6 * kernel.p50;
  state.counters["kernel_p99_us"] = 1e6 * kernel.p99;
  // Allocating views of the result's shapes and releasing them, each fenced and timed apart: the
  // part of the call that is Kokkos' and the driver's (cudaMalloc and the allocation header's copy;
  // cudaFree, which waits for the whole device, on CUDA). alloc_us is the two together, as before.
  const size_type row_words = kmask::allocation_size_bytes(c.size_bits) / static_cast<size_type>(sizeof(word_type));
  std::vector<double> allocs, frees, both;
  for (int i = 0; i <= 50; ++i) {
    exec.fence();
    Kokkos::Timer timer;
    auto r = std::make_unique<kmask::segmented_result<memory_space>>(kmask::segmented_result<memory_space>{
        Kokkos::View<word_type**, Kokkos::LayoutRight, memory_space>(
            Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "bench::masks"), c.segments, row_words),
        Kokkos::View<size_type*, memory_space>(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "bench::counts"),
                                               c.segments)});
    exec.fence();
    const double a = timer.seconds();
    timer.reset();
    r.reset();
    exec.fence();
    const double f = timer.seconds();
    if (i == 0) continue;  // warm-up
    allocs.push_back(a);
    frees.push_back(f);
    both.push_back(a + f);
  }
  state.counters["alloc_us"]          = 1e6 * spread_of(both).p50;
  state.counters["alloc_only_p50_us"] = 1e6 * spread_of(allocs).p50;
  state.counters["alloc_only_p99_us"] = 1e6 * spread_of(allocs).p99;
  state.counters["free_p50_us"]       = 1e6 * spread_of(frees).p50;
  state.counters["free_p99_us"]       = 1e6 * spread_of(frees).p99;
}

std::string case_name(const char* kind, const segmented_case& c, const char* op) {
  std::ostringstream os;
  os << "segmented_binop/" << kind << "/" << op << "/segments:" << c.segments << "/masks:" << c.masks_per_segment
     << "/bits:" << c.size_bits << "/" << (c.aligned ? "aligned" : "unaligned");
  return os.str();
}

}  // namespace

void register_segmented_binop_benchmarks() {
  for (size_type bits : {size_type{32}, size_type{128}, size_type{1} << 20, size_type{1} << 24, size_type{1} << 27})
    for (size_type segments : {10, 100, 1000, 10000})
      for (size_type masks : {2, 4, 8, 16})
        for (bool aligned : {true, false}) {
          const segmented_case c{segments, masks, bits, aligned};
          benchmark::RegisterBenchmark(case_name("inplace", c, "and").c_str(),
                                       [c](benchmark::State& s) { run_inplace(s, c, kmask::bit_and{}); })
              ->UseManualTime()
              ->Unit(benchmark::kMicrosecond);
          benchmark::RegisterBenchmark(case_name("alloc", c, "and").c_str(),
                                       [c](benchmark::State& s) { run_allocating(s, c); })
              ->UseManualTime()
              ->Unit(benchmark::kMicrosecond);
        }
  for (size_type bits : {size_type{1} << 20, size_type{1} << 24})
    for (size_type segments : {10, 100})
      for (size_type masks : {4, 16})
        for (bool aligned : {true, false}) {
          const segmented_case c{segments, masks, bits, aligned};
          benchmark::RegisterBenchmark(case_name("inplace_call", c, "and").c_str(),
                                       [c](benchmark::State& s) { run_inplace_call(s, c); })
              ->UseManualTime()
              ->Unit(benchmark::kMicrosecond);
        }
  const segmented_case or_case{100, 4, size_type{1} << 24, false};
  benchmark::RegisterBenchmark(case_name("inplace", or_case, "or").c_str(),
                               [or_case](benchmark::State& s) { run_inplace(s, or_case, kmask::bit_or{}); })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace kmask_bench
