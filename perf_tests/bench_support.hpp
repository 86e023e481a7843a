#ifndef KMASK_BENCH_SUPPORT_HPP
#define KMASK_BENCH_SUPPORT_HPP

// Shared pieces of the benchmarks: timing a fenced region, the same-bytes device copy every
// result is compared with, memory limits, and filling masks with random bits on the device.

#include <kmask/kmask.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
#include <type_traits>
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

// The instance the benchmarks call on: the default one, or with KMASK_BENCH_OWN_QUEUE=1 one on a
// queue of its own (CUDA: a stream made for it), as an engine calling on its own stream has. The
// two differ where kmask keys anything to the queue (staging_pool's scratch leases), and on
// Kokkos 3.4 the default CUDA instance is the null stream. Made at the first call, released
// (stream last) when Kokkos finalizes.
inline exec_space bench_exec() {
  using instances = kmask::detail::execution_space_instances<exec_space>;
  static instances* own = nullptr;
  const char* s         = std::getenv("KMASK_BENCH_OWN_QUEUE");
  if (s == nullptr || std::string(s) != "1") return exec_space();
  if (own == nullptr) {
    own = new instances(1);
    Kokkos::push_finalize_hook([] {
      delete own;
      own = nullptr;
    });
  }
  return (*own)[0];
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

// GPU time of the work enqueued on one instance between start() and stop(): CUDA events recorded
// on the instance's stream, so it is what raw-CUDA kernels' event timings report. Elsewhere (host
// backends) there is no separate device clock and measured() is false.
class gpu_clock {
 public:
#if defined(KOKKOS_ENABLE_CUDA)
  static constexpr bool measured() { return std::is_same<exec_space, Kokkos::Cuda>::value; }
  gpu_clock() {
    cudaEventCreate(&start_);
    cudaEventCreate(&stop_);
  }
  ~gpu_clock() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  void start(const exec_space& exec) { cudaEventRecord(start_, exec.cuda_stream()); }
  void stop(const exec_space& exec) { cudaEventRecord(stop_, exec.cuda_stream()); }
  // After the instance has been fenced.
  double seconds() const {
    float ms = 0;
    cudaEventElapsedTime(&ms, start_, stop_);
    return 1e-3 * static_cast<double>(ms);
  }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
#else
  static constexpr bool measured() { return false; }
  gpu_clock() = default;
  void start(const exec_space&) {}
  void stop(const exec_space&) {}
  double seconds() const { return 0; }
#endif
  gpu_clock(const gpu_clock&)            = delete;
  gpu_clock& operator=(const gpu_clock&) = delete;
};

// Kokkos allocations made while f runs, counted by Kokkos Tools callbacks installed only around
// f: what a cell's first call allocates beyond a warm call's (a staging buffer growing, say).
struct allocation_tally {
  int count    = 0;
  double bytes = 0;
  std::vector<std::string> labels;
};

// The labels of `a` not matched by one of `b` (a multiset difference), ';'-separated.
inline std::string labels_beyond(const allocation_tally& a, const allocation_tally& b) {
  std::vector<std::string> rest = b.labels;
  std::string out;
  for (const auto& l : a.labels) {
    const auto it = std::find(rest.begin(), rest.end(), l);
    if (it != rest.end()) {
      rest.erase(it);
      continue;
    }
    out += (out.empty() ? "" : ";") + l;
  }
  return out;
}

namespace detail {
inline allocation_tally& current_tally() {
  static allocation_tally t;
  return t;
}
// Kokkos may allocate from several host threads at once (the OpenMP space sizing each thread's
// team data inside a parallel region), so the tally is taken under a lock.
inline void tally_allocation(const Kokkos::Tools::SpaceHandle, const char* label, const void*, const std::uint64_t size) {
  static std::mutex lock;
  const std::lock_guard<std::mutex> hold(lock);
  auto& t = current_tally();
  ++t.count;
  t.bytes += static_cast<double>(size);
  t.labels.emplace_back(label);
}
}  // namespace detail

template <class F>
allocation_tally allocations_of(const exec_space& exec, F&& f) {
  exec.fence();
  const auto previous       = Kokkos::Tools::Experimental::get_callbacks();
  detail::current_tally()   = allocation_tally{};
  Kokkos::Tools::Experimental::set_allocate_data_callback(detail::tally_allocation);
  f();
  exec.fence();
  Kokkos::Tools::Experimental::set_callbacks(previous);
  return detail::current_tally();
}

// The q-quantile of non-empty samples v (the sample at index q * size, sorted).
inline double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const std::size_t i = std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())));
  return v[i];
}

// Per-call times of a benchmark's calls: host wall time of the fenced region and, on CUDA, the GPU
// time between events recorded on the stream at its start and end. Reported as the mean GPU time
// (gpu_us) and the host time's p50 / p90 / p99 / max, so the tail of a call is in the record next
// to its mean, and the host time until the call returns (return_p50_us: an asynchronous call's host
// pass and enqueueing, the part a GPU-idle event pair also counts). Percentiles need samples: top_up() adds fenced calls after Google Benchmark's loop
// until there are min_samples (within a time budget), each one call as in the loop.
class call_times {
 public:
  // Samples behind a percentile (p99 of 50 is the largest but one) and the seconds a top-up may take.
  static constexpr std::size_t min_samples = 50;
  static constexpr double top_up_budget_s  = 0.5;

  template <class F>
  double time(const exec_space& exec, F&& f) {
    exec.fence();
    Kokkos::Timer timer;
    clock_.start(exec);
    f();
    return_.push_back(timer.seconds());
    clock_.stop(exec);
    exec.fence();
    const double host = timer.seconds();
    host_.push_back(host);
    if (gpu_clock::measured()) gpu_.push_back(clock_.seconds());
    return host;
  }
  template <class F>
  void top_up(const exec_space& exec, F&& f) {
    double spent = 0;
    while (host_.size() < min_samples && spent < top_up_budget_s) spent += time(exec, f);
  }
  void report(benchmark::State& state) {
    if (host_.empty()) return;
    const double p50              = quantile(host_, 0.50);
    state.counters["samples"]     = static_cast<double>(host_.size());
    state.counters["host_p50_us"] = 1e6 * p50;
    state.counters["host_p90_us"] = 1e6 * quantile(host_, 0.90);
    state.counters["host_p99_us"] = 1e6 * quantile(host_, 0.99);
    state.counters["host_max_us"] = 1e6 * *std::max_element(host_.begin(), host_.end());
    state.counters["return_p50_us"] = 1e6 * quantile(return_, 0.50);
    state.counters["over_2x_p50"] =
        static_cast<double>(std::count_if(host_.begin(), host_.end(), [&](double t) { return t > 2 * p50; }));
    if (!gpu_.empty()) {
      double sum = 0;
      for (double g : gpu_) sum += g;
      state.counters["gpu_us"]     = 1e6 * sum / static_cast<double>(gpu_.size());
      state.counters["gpu_p50_us"] = 1e6 * quantile(gpu_, 0.50);
      state.counters["gpu_p99_us"] = 1e6 * quantile(gpu_, 0.99);
    }
  }

 private:
  gpu_clock clock_;
  std::vector<double> host_, gpu_, return_;
};

// The timed loop most cases use: one fenced call per iteration, its host time the iteration's time.
// The first call of each run of the case is made before the loop and reported apart (first_us, and
// the Kokkos allocations it made against a warm call's: first_allocs, warm_allocs), so a one-time
// cost (a staging buffer growing to the case's size, the first allocation of a size) shows as what
// it is instead of as one sample of the tail, and cannot alone make a run's only iteration.
template <class F>
void timed_calls(benchmark::State& state, const exec_space& exec, F&& f) {
  Kokkos::Timer timer;
  const allocation_tally first = allocations_of(exec, f);
  const double first_s         = timer.seconds();
  const allocation_tally warm  = allocations_of(exec, f);
  call_times times;
  for (auto _ : state) state.SetIterationTime(times.time(exec, f));
  times.top_up(exec, f);
  times.report(state);
  state.counters["first_us"]       = 1e6 * first_s;
  state.counters["first_allocs"]   = first.count;
  state.counters["first_alloc_MB"] = 1e-6 * first.bytes;
  state.counters["warm_allocs"]    = warm.count;
  const std::string extra = labels_beyond(first, warm);
  if (!extra.empty()) state.SetLabel("first call also allocated " + extra);
}

// Skips a case whose working set exceeds KMASK_BENCH_MAX_BYTES, with a message.
inline bool too_big(benchmark::State& state, size_type bytes) {
  if (bytes <= max_bytes()) return false;
  state.SkipWithError("working set exceeds KMASK_BENCH_MAX_BYTES");
  return true;
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

// The median and the 99th percentile of `n` fenced runs of f (after one warm-up), in seconds:
// where a call's tail comes from, phase by phase.
struct time_spread {
  double p50 = 0, p99 = 0;
};
inline time_spread spread_of(const std::vector<double>& t) { return {quantile(t, 0.50), quantile(t, 0.99)}; }
template <class F>
time_spread time_percentiles(const exec_space& exec, F&& f, std::size_t n = 50) {
  time_once(exec, f);
  std::vector<double> t;
  for (std::size_t i = 0; i < n; ++i) t.push_back(time_once(exec, f));
  return spread_of(t);
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

// Times `call` once per benchmark iteration (timed_calls), then reports the rates, the median and
// the same-run vs_copy against a copy moving `bytes`.
template <class Call>
void time_and_report(benchmark::State& state, const exec_space& exec, double bytes, const Call& call) {
  timed_calls(state, exec, call);
  const double ours = time_median(exec, call);
  set_rates(state, bytes);
  state.counters["median_us"] = ours * 1e6;
  state.counters["vs_copy"]   = same_bytes_copy_time(exec, static_cast<size_type>(bytes)) / ours;
}

}  // namespace kmask_bench

#endif
