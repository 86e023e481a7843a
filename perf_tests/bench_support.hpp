#ifndef KMASK_BENCH_SUPPORT_HPP
#define KMASK_BENCH_SUPPORT_HPP

// Shared pieces of the benchmarks: timing a fenced region, the same-bytes device copy every
// result is compared with, memory limits, and filling masks with random bits on the device.

#include <kmask/kmask.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace kmask_bench {

using exec_space   = Kokkos::DefaultExecutionSpace;
using memory_space = exec_space::memory_space;
using kmask::size_type;
using kmask::word_type;

// Largest working set one case may allocate; cases above it are skipped with a message.
inline size_type max_bytes() {
  if (const char* s = std::getenv("KMASK_BENCH_MAX_BYTES")) return std::strtoll(s, nullptr, 10);
  return kmask::detail::runs_on_host<exec_space>() ? (size_type{3} << 30) : (size_type{24} << 30);
}

// Whether to time the peers (warp-per-segment baseline, KokkosBlas) too; KMASK_BENCH_NO_PEERS=1
// leaves them out, for quick side-by-side runs of tuning builds.
inline bool measure_peers() {
  const char* s = std::getenv("KMASK_BENCH_NO_PEERS");
  return s == nullptr || std::string(s) != "1";
}

// Seconds of one fenced run of f.
template <class F>
double time_once(const exec_space& exec, F&& f) {
  exec.fence();
  Kokkos::Timer timer;
  f();
  exec.fence();
  return timer.seconds();
}

// Median of repeated fenced runs of f (after one warm-up): at least 3, at most 50, ~50 ms total.
template <class F>
double time_median(const exec_space& exec, F&& f) {
  time_once(exec, f);
  std::vector<double> t;
  double total = 0;
  while (t.size() < 3 || (t.size() < 50 && total < 0.05)) {
    t.push_back(time_once(exec, f));
    total += t.back();
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Kokkos::deep_copy moving `bytes` bytes in all (bytes / 2 read, bytes / 2 written).
inline double same_bytes_copy_time(const exec_space& exec, size_type bytes) {
  const size_type n = std::max<size_type>(1, bytes / 2 / static_cast<size_type>(sizeof(word_type)));
  Kokkos::View<word_type*, memory_space> src(Kokkos::view_alloc(exec, "bench::copy_src"), n);
  Kokkos::View<word_type*, memory_space> dst(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "bench::copy_dst"),
                                             n);
  return time_median(exec, [&] { Kokkos::deep_copy(exec, dst, src); });
}

// What moving `words` 64-bit words of descriptors from page-locked host memory to the device costs
// alone (0 where the kernels read host memory and nothing is copied): the upload's share of the
// allocating call, against the link's bandwidth rather than the library's host pass.
inline double descriptor_upload_time(const exec_space& exec, std::size_t words) {
  if (kmask::detail::runs_on_host<exec_space>()) return 0;
  using staging = typename kmask::detail::staging_host_space<exec_space>::type;
  Kokkos::View<std::uint64_t*, staging> host(Kokkos::view_alloc("bench::upload_src"), words);
  Kokkos::View<std::uint64_t*, memory_space> dev(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "bench::upload_dst"),
                                                words);
  return time_median(exec, [&] { Kokkos::deep_copy(exec, dev, host); });
}

// Random words, different per mask and never all-zero or all-one.
inline void fill_random(const exec_space& exec, const Kokkos::View<word_type*, memory_space>& v, std::uint64_t salt) {
  Kokkos::parallel_for(
      "bench::fill_random", Kokkos::RangePolicy<exec_space, Kokkos::IndexType<size_type>>(exec, 0, v.extent(0)),
      KOKKOS_LAMBDA(size_type i) {
        std::uint64_t x = (static_cast<std::uint64_t>(i) + 1) * 0x9E3779B97F4A7C15ull ^ (salt * 0xD1B54A32D192ED03ull);
        x ^= x >> 31;
        x *= 0xBF58476D1CE4E5B9ull;
        x ^= x >> 29;
        v(i) = static_cast<word_type>(x) | static_cast<word_type>(x >> 32);  // mostly valid
      });
}

inline void set_rates(benchmark::State& state, double bytes) {
  state.counters["bytes"] = benchmark::Counter(bytes, benchmark::Counter::kDefaults, benchmark::Counter::kIs1024);
  state.counters["GB/s"]  = benchmark::Counter(bytes / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace kmask_bench

#endif
