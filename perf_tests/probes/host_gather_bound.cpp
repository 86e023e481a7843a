// What bounds a host gather of bits: plain OpenMP loops, no kmask, over the shapes of the
// `make_masks/inplace_gather_bits/int32/{sorted,random}/24` cells: 2^24 int32 indices, random
// ones into a source of 2^24 bits (2 MiB), sorted ones (two rows of every three) into 1.5 x that. Each loop is timed as the median of 21 runs after 3 warm-ups:
//   indices   reads the indices only (a sum): the bytes every gather must read;
//   scalar    one row at a time: out word w collects bit (src[i >> 5] >> (i & 31)) of its 32 rows;
//   prefetch  the same, its source words prefetched 64 rows ahead (the memory-level parallelism
//             a core can have in flight is what random rows are bound by once the source is
//             past its L2).
// Build and run on the machine whose benchmarks it explains, with the benchmarks' thread setting:
//   g++ -O3 -march=x86-64-v3 -fopenmp perf_tests/probes/host_gather_bound.cpp -o host_gather_bound
//   OMP_PROC_BIND=spread OMP_PLACES=threads /tmp/host_gather_bound
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

namespace {

template <class F>
double median_us(F&& f) {
  for (int i = 0; i < 3; ++i) f();
  std::vector<double> t;
  for (int i = 0; i < 21; ++i) {
    const auto a = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void run(const char* name, const std::vector<std::int32_t>& idx, const std::vector<std::uint32_t>& src) {
  const std::int64_t rows  = static_cast<std::int64_t>(idx.size());
  const std::int64_t words = rows / 32;
  std::vector<std::uint32_t> out(static_cast<std::size_t>(words));
  const std::int32_t* ix = idx.data();
  const std::uint32_t* s = src.data();
  std::uint32_t* o       = out.data();
  volatile std::int64_t sink = 0;
  const double t_idx = median_us([&] {
    std::int64_t sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (std::int64_t r = 0; r < rows; ++r) sum += ix[r];
    sink = sum;
  });
  const double t_scalar = median_us([&] {
#pragma omp parallel for schedule(static)
    for (std::int64_t w = 0; w < words; ++w) {
      std::uint32_t v = 0;
      for (int j = 0; j < 32; ++j) {
        const std::int32_t i = ix[32 * w + j];
        v |= ((s[i >> 5] >> (i & 31)) & 1u) << j;
      }
      o[w] = v;
    }
  });
  const double t_prefetch = median_us([&] {
#pragma omp parallel for schedule(static)
    for (std::int64_t w = 0; w < words; ++w) {
      std::uint32_t v = 0;
      for (int j = 0; j < 32; ++j) {
        const std::int64_t r = 32 * w + j;
        if (r + 64 < rows) __builtin_prefetch(s + (ix[r + 64] >> 5));
        const std::int32_t i = ix[r];
        v |= ((s[i >> 5] >> (i & 31)) & 1u) << j;
      }
      o[w] = v;
    }
  });
  (void)sink;
  std::printf("%-7s rows=%lld threads=%d  indices %.1f us  scalar %.1f us  prefetch %.1f us  (ns/row/thread: %.2f %.2f)\n",
              name, static_cast<long long>(rows), omp_get_max_threads(), t_idx, t_scalar, t_prefetch,
              t_scalar * 1e3 * omp_get_max_threads() / static_cast<double>(rows),
              t_prefetch * 1e3 * omp_get_max_threads() / static_cast<double>(rows));
}

}  // namespace

int main() {
  const std::int64_t rows = std::int64_t{1} << 24;
  std::mt19937_64 rng(7);
  std::vector<std::uint32_t> src(static_cast<std::size_t>(rows / 32));
  for (auto& w : src) w = static_cast<std::uint32_t>(rng());
  std::vector<std::int32_t> idx(static_cast<std::size_t>(rows));
  // random: uniform rows of the source; sorted: a filter keeping two of every three rows.
  for (auto& i : idx) i = static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(rows));
  run("random", idx, src);
  std::vector<std::uint32_t> wide(static_cast<std::size_t>((rows + rows / 2) / 32 + 1));
  for (auto& w : wide) w = static_cast<std::uint32_t>(rng());
  for (std::int64_t r = 0; r < rows; ++r) idx[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(r + r / 2);
  run("sorted", idx, wide);
  return 0;
}
