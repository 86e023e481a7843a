// count_set_bits, segmented_count_set_bits, copy_bitmask and inplace_binop (a synchronous call
// that returns its count) over 2^20 .. 2^30 bits, each with its vs_copy against a deep_copy of
// the same bytes measured in the same run.

#include "bench_support.hpp"

namespace kmask_bench {
namespace {

Kokkos::View<word_type*, memory_space> random_mask(const exec_space& exec, size_type bits) {
  Kokkos::View<word_type*, memory_space> m(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "bench::mask"),
                                           kmask::num_words(bits));
  fill_random(exec, m, 7);
  return m;
}



// The floor of any call that returns a device result to the host: one kernel launch that writes
// 8 bytes, their copy back, and the fence.
double launch_readback_floor(const exec_space& exec) {
  Kokkos::View<size_type*, memory_space> d(Kokkos::view_alloc(exec, "bench::floor"), 1);
  const auto h = Kokkos::create_mirror_view(d);
  return time_median(exec, [&] {
    Kokkos::parallel_for(
        "bench::floor", Kokkos::RangePolicy<exec_space, Kokkos::IndexType<size_type>>(exec, 0, 1),
        KOKKOS_LAMBDA(size_type i) { d(i) = i + 1; });
    Kokkos::deep_copy(exec, h, d);
    exec.fence();
    benchmark::DoNotOptimize(h(0));
  });
}

// floor_us (launch_readback_floor) and vs_floor, the call's median over it, after time_and_report.
void report_vs_floor(benchmark::State& state, const exec_space& exec) {
  const double floor         = launch_readback_floor(exec);
  state.counters["floor_us"] = 1e6 * floor;
  state.counters["vs_floor"] = state.counters["median_us"] / (1e6 * floor);
}

void count_set(benchmark::State& state) {
  const exec_space exec = bench_exec();
  const size_type bits = size_type{1} << state.range(0);
  if (too_big(state, bits / 4)) return;
  const auto m    = random_mask(exec, bits);
  const auto call = [&] { benchmark::DoNotOptimize(kmask::count_set_bits(exec, m, 3, bits)); };
  // Reads every word once; the same-bytes copy moves as many bytes (half read, half written).
  time_and_report(state, exec, static_cast<double>(bits / 8), call);
  report_vs_floor(state, exec);
}

// The same count of a mask whose words start 4 bytes past a 16-byte boundary (a sliced column's
// mask, a buffer from another library): the GPU form's first words before its 16-byte units.
void count_set_unaligned(benchmark::State& state) {
  const exec_space exec = bench_exec();
  const size_type bits = size_type{1} << state.range(0);
  if (too_big(state, bits / 4)) return;
  const auto m = random_mask(exec, bits + 32);
  const kmask::source_mask src{m.data() + 1, static_cast<size_type>(m.extent(0)) - 1, 0};
  const auto call = [&] { benchmark::DoNotOptimize(kmask::count_set_bits(exec, src, 3, bits)); };
  time_and_report(state, exec, static_cast<double>(bits / 8), call);
}

// n ranges tiling a mask of `bits` bits off word boundaries, overlapping their neighbours by a few
// bits: {b0, e0, b1, e1, ...}.
std::vector<size_type> tiling_ranges(size_type bits, size_type n) {
  std::vector<size_type> ranges;
  const size_type step = bits / n;
  for (size_type r = 0; r < n; ++r) {
    ranges.push_back(r * step + (r % 7));
    ranges.push_back(std::min(bits, (r + 1) * step + 3));
  }
  return ranges;
}

void segmented_count_set(benchmark::State& state) {
  const exec_space exec = bench_exec();
  const size_type bits = size_type{1} << state.range(0);
  if (too_big(state, bits / 4)) return;
  const auto m = random_mask(exec, bits);
  const auto ranges = tiling_ranges(bits, 1000);
  const auto call = [&] { benchmark::DoNotOptimize(kmask::segmented_count_set_bits(exec, m, ranges)); };
  time_and_report(state, exec, static_cast<double>(bits / 8), call);
}

// The in-place form over R ranges tiling the mask off word boundaries: counts stay on the device.
void inplace_segmented_count_set(benchmark::State& state) {
  const exec_space exec = bench_exec();
  const size_type bits = size_type{1} << state.range(0);
  const size_type n    = state.range(1);
  if (too_big(state, bits / 4)) return;
  const auto m = random_mask(exec, bits);
  const auto ranges = tiling_ranges(bits, n);
  Kokkos::View<size_type*, memory_space> counts(Kokkos::view_alloc(exec, "bench::counts"), n);
  const auto call = [&] { kmask::inplace_segmented_count_set_bits(exec, m, ranges, counts); };
  time_and_report(state, exec, static_cast<double>(bits / 8), call);
  // What the ranges' upload alone costs (16 bytes a range, from page-locked memory).
  state.counters["upload_us"] = 1e6 * descriptor_upload_time(exec, static_cast<std::size_t>(2 * n));
}

// The in-place count of `host_ranges` over a random mask of 2^state.range(0) bits, the ranges
// copied to the device once (count_device_ranges.hpp): nothing uploaded a call; the ranges are
// checked on the device and the call waits for that check.
void device_range_count_of(benchmark::State& state, const exec_space& exec, size_type bits,
                           const std::vector<size_type>& host_ranges) {
  const auto m = random_mask(exec, bits);
  const auto n = static_cast<size_type>(host_ranges.size() / 2);
  Kokkos::View<size_type*, memory_space> ranges(Kokkos::view_alloc(exec, "bench::ranges"), 2 * n);
  Kokkos::deep_copy(exec, ranges,
                    Kokkos::View<const size_type*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                        host_ranges.data(), host_ranges.size()));
  Kokkos::View<size_type*, memory_space> counts(Kokkos::view_alloc(exec, "bench::counts"), n);
  const auto call = [&] { kmask::inplace_segmented_count_set_bits(exec, m, ranges, counts); };
  time_and_report(state, exec, static_cast<double>(bits / 8), call);
}

// The host form's tiling ranges in device memory.
void device_range_count_set(benchmark::State& state) {
  const exec_space exec = bench_exec();
  const size_type bits = size_type{1} << state.range(0);
  if (too_big(state, bits / 4)) return;
  device_range_count_of(state, exec, bits, tiling_ranges(bits, state.range(1)));
}

// Skewed ranges: range 0 is the mask's first half, the other n - 1 tile the second half (a list
// column with one very long list). The host cannot see the skew in device ranges.
void device_range_count_skewed(benchmark::State& state) {
  const exec_space exec = bench_exec();
  const size_type bits = size_type{1} << state.range(0);
  if (too_big(state, bits / 4)) return;
  auto ranges = tiling_ranges(bits / 2, state.range(1) - 1);
  for (auto& b : ranges) b += bits / 2;
  ranges.insert(ranges.begin(), {0, bits / 2});
  device_range_count_of(state, exec, bits, ranges);
}

void copy_bits(benchmark::State& state) {
  const exec_space exec = bench_exec();
  const size_type bits = size_type{1} << state.range(0);
  if (too_big(state, bits / 2)) return;
  const auto m      = random_mask(exec, bits);
  const size_type b = state.range(1);
  const auto call   = [&] { benchmark::DoNotOptimize(kmask::copy_bitmask(exec, m, b, bits)); };
  time_and_report(state, exec, 2.0 * static_cast<double>((bits - b) / 8), call);
  // Allocating and releasing a result of that size alone, fenced: the call's part that is Kokkos'
  // and the driver's (cudaMalloc, cudaFree on CUDA).
  state.counters["alloc_us"] = 1e6 * time_median(exec, [&] {
    const Kokkos::View<word_type*, memory_space> r(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "bench::mask"),
                                                  kmask::allocation_size_bytes(bits - b) / sizeof(word_type));
    exec.fence();
  });
  // The same copy into a destination allocated once (copy_bits, fenced), and the two
  // ratios: that against the same-bytes copy (the call without its allocation), and the
  // allocating call against that plus the allocation alone.
  const Kokkos::View<word_type*, memory_space> dest(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "bench::dest"),
                                                   kmask::num_words(bits - b));
  const double into_dest = time_median(exec, [&] {
    kmask::copy_bits(exec, dest, 0, Kokkos::View<const word_type*, memory_space>(m), b, bits - b);
    exec.fence();
  });
  state.counters["into_dest_us"]      = 1e6 * into_dest;
  state.counters["into_dest_vs_copy"] = same_bytes_copy_time(exec, static_cast<size_type>(2 * ((bits - b) / 8))) / into_dest;
  state.counters["vs_parts"] = state.counters["median_us"] / (state.counters["into_dest_us"] + state.counters["alloc_us"]);
}

// inplace_binop: two masks ANDed into a third, its null count returned (the call fences and reads
// it back). Reads two masks, writes one; vs_floor against one launch, an 8-byte read-back and a fence.
void inplace_binop_and(benchmark::State& state) {
  const exec_space exec = bench_exec();
  const size_type bits = size_type{1} << state.range(0);
  if (too_big(state, 3 * (bits / 8))) return;
  const auto a = random_mask(exec, bits), b = random_mask(exec, bits);
  const Kokkos::View<word_type*, memory_space> dest(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "bench::dest"), kmask::num_words(bits));
  const std::vector<Kokkos::View<const word_type*, memory_space>> masks{a, b};
  const std::vector<size_type> begins{0, 0};
  const auto call = [&] {
    benchmark::DoNotOptimize(kmask::inplace_binop(exec, kmask::bit_and{}, dest, masks, begins, bits));
  };
  time_and_report(state, exec, static_cast<double>(3 * (bits / 8)), call);
  report_vs_floor(state, exec);
}

}  // namespace

void register_count_copy_benchmarks() {
  for (int log_bits : {20, 24, 27, 30}) {
    benchmark::RegisterBenchmark("count_set_bits", count_set)->Arg(log_bits)->UseManualTime()->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("count_set_bits/unaligned", count_set_unaligned)
        ->Arg(log_bits)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("segmented_count_set_bits/ranges:1000", segmented_count_set)
        ->Arg(log_bits)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
    if (log_bits == 27)
      for (int n : {1000, 100000}) {
        benchmark::RegisterBenchmark("inplace_segmented_count_set_bits", inplace_segmented_count_set)
            ->Args({log_bits, n})
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark("inplace_segmented_count_set_bits/device_ranges", device_range_count_set)
            ->Args({log_bits, n})
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark("inplace_segmented_count_set_bits/device_ranges_skewed", device_range_count_skewed)
            ->Args({log_bits, n})
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
      }
    if (log_bits <= 24)
      benchmark::RegisterBenchmark("inplace_binop/and", inplace_binop_and)
          ->Arg(log_bits)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    for (int begin : {0, 3})
      benchmark::RegisterBenchmark("copy_bitmask", copy_bits)
          ->Args({log_bits, begin})
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace kmask_bench
