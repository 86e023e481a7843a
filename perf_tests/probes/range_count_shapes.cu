// Which launch shape counts the set bits of many ranges of one mask, with the ranges already in
// device memory (their lengths unknown to the host), at the memory's speed? A raw-CUDA probe of
// the shapes the device-range count can take, in GPU event time, against counting the whole mask
// in one strided pass and against cudaMemcpyAsync of the same bytes. The ranges tile the mask off
// word boundaries as the benchmark's do. Not part of the library: it gives the limit the Kokkos
// kernel (detail/device_range_count.hpp) is judged against.
// Build: nvcc -O3 -arch=sm_90 -std=c++17 range_count_shapes.cu -o range_count_shapes
// PROBE_BITS=27 (log2 of the mask's bits); PROBE_REPS=n launches a case.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "check.hpp"
#include "event_timing.hpp"

using u64 = unsigned long long;

__device__ __forceinline__ u64 sum_lanes(u64 v, int width) {
  for (int o = width / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o, width);
  return v;
}

// Set bits of words [first, stop) of w restricted to bits [b, e): the 16-byte units from
// first / 4 taken by lane, lane + L, ..., ITEMS loads in flight; the edge words masked.
template <int ITEMS>
__device__ __forceinline__ u64 count_share(const uint32_t* w, long long b, long long e, int lane, int L) {
  const long long first = b / 32, stop = (e - 1) / 32 + 1;
  const long long u0 = first / 4, u1 = (stop + 3) / 4;
  const uint4* u = reinterpret_cast<const uint4*>(w);
  u64 set = 0;
  for (long long p = u0 + lane; p < u1; p += (long long)ITEMS * L) {
    uint4 v[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) v[i] = p + (long long)i * L < u1 ? __ldg(u + p + (long long)i * L) : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const long long q = p + (long long)i * L;
      if (q >= u1) continue;
      const uint32_t x[4] = {v[i].x, v[i].y, v[i].z, v[i].w};
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const long long word = 4 * q + k;
        uint32_t keep = 0xffffffffu;
        if (word < first || word >= stop) keep = 0;
        if (word == first) keep &= 0xffffffffu << (b % 32);
        if (word == stop - 1 && e % 32 != 0) keep &= 0xffffffffu >> (32 - e % 32);
        set += __popc(x[k] & keep);
      }
    }
  }
  return set;
}

// L lanes a range (L <= 32), groups striding over the ranges by the launch's groups.
template <int L, int ITEMS>
__global__ void lanes_a_range(const uint32_t* w, const long long* bounds, long long n, u64* counts) {
  const long long groups = (long long)gridDim.x * blockDim.x / L;
  const int lane = threadIdx.x % L;
  for (long long r = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / L; r < n; r += groups) {
    const long long b = bounds[2 * r], e = bounds[2 * r + 1];
    u64 set = e > b ? count_share<ITEMS>(w, b, e, lane, L) : 0;
    set = sum_lanes(set, L);
    if (lane == 0) counts[r] = set;
  }
}

// The sum of `set` over a block of BT threads (shuffles, then the warps' sums through shared
// memory), valid in thread 0; every thread must call it.
template <int BT>
__device__ __forceinline__ u64 block_sum(u64 set) {
  __shared__ u64 warps[BT / 32];
  set = sum_lanes(set, 32);
  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = set;
  __syncthreads();
  set = threadIdx.x < BT / 32 ? warps[threadIdx.x] : 0;
  if (threadIdx.x < 32) set = sum_lanes(set, 32);
  __syncthreads();  // warps[] free for the next call
  return set;
}

// A block a range (BT threads), blocks striding over the ranges.
template <int BT, int ITEMS>
__global__ void __launch_bounds__(BT) block_a_range(const uint32_t* w, const long long* bounds, long long n,
                                                    u64* counts) {
  for (long long r = blockIdx.x; r < n; r += gridDim.x) {
    const long long b = bounds[2 * r], e = bounds[2 * r + 1];
    const u64 set = block_sum<BT>(e > b ? count_share<ITEMS>(w, b, e, threadIdx.x, BT) : 0);
    if (threadIdx.x == 0) counts[r] = set;
  }
}

// S blocks a range, each a slice of its units, summed by atomics into counts zeroed before.
template <int BT, int ITEMS>
__global__ void __launch_bounds__(BT) slices_a_range(const uint32_t* w, const long long* bounds, long long n, int S,
                                                     u64* counts) {
  const long long r = blockIdx.x / S;
  const int s = blockIdx.x % S;
  if (r >= n) return;
  const long long b = bounds[2 * r], e = bounds[2 * r + 1];
  const u64 set = block_sum<BT>(e > b ? count_share<ITEMS>(w, b, e, s * BT + threadIdx.x, S * BT) : 0);
  if (threadIdx.x == 0) atomicAdd(counts + r, set);
}

// The device check: a thread a range, the first bad one marked.
__global__ void check_ranges(const long long* bounds, long long n, long long bits, u64* mark) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  const long long b = bounds[2 * r], e = bounds[2 * r + 1];
  if (b < 0 || e < b || e > bits) atomicMax(mark, (u64)(n - r));
}

// The whole mask in one strided pass (count_set_bits' shape), one atomic a warp.
template <int ITEMS>
__global__ void count_all(const uint4* u, long long units, u64* out) {
  const long long T = (long long)gridDim.x * blockDim.x;
  const long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  u64 set = 0;
  for (long long p = g; p < units; p += ITEMS * T) {
    uint4 v[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) v[i] = p + i * T < units ? __ldg(u + p + i * T) : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) set += __popc(v[i].x) + __popc(v[i].y) + __popc(v[i].z) + __popc(v[i].w);
  }
  set = sum_lanes(set, 32);
  if (threadIdx.x % 32 == 0) atomicAdd(out, set);
}

int main() {
  const char* bits_env = std::getenv("PROBE_BITS");
  const char* reps_env = std::getenv("PROBE_REPS");
  const int lb = bits_env ? std::atoi(bits_env) : 27;
  const int reps = reps_env ? std::atoi(reps_env) : 200;
  const long long bits = 1ll << lb, words = bits / 32, bytes = bits / 8;
  int dev, sms;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  std::vector<uint32_t> host(words);
  std::mt19937 rng(7);
  for (auto& x : host) x = rng();
  uint32_t *m, *dst;
  u64 *counts, *mark;
  long long* bounds;
  CHECK(cudaMalloc(&m, bytes));
  CHECK(cudaMalloc(&dst, bytes));
  CHECK(cudaMemcpy(m, host.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMalloc(&counts, 8 * 100000));
  CHECK(cudaMalloc(&mark, 8));
  CHECK(cudaMalloc(&bounds, 16 * 100000));
  std::printf("2^%d bits (%lld MiB), %d SMs, medians of %d launches (GPU event time)\n", lb, bytes >> 20, sms, reps);
  const float memcpy_us =
      median_us([&] { CHECK(cudaMemcpyAsync(dst, m, bytes, cudaMemcpyDeviceToDevice, s)); }, reps, s);
  std::printf("  %-44s %8.2f us\n", "cudaMemcpyAsync (same bytes)", memcpy_us);
  const float all_us =
      median_us([&] { count_all<8><<<2 * sms, 256, 0, s>>>(reinterpret_cast<const uint4*>(m), words / 4, mark); },
                reps, s);
  std::printf("  %-44s %8.2f us  %.2f of memcpy\n", "whole mask, strided 2x256/SM, 8 items", all_us, memcpy_us / all_us);
  const float empty_check_us = median_us([&] { check_ranges<<<1, 256, 0, s>>>(bounds, 0, bits, mark); }, reps, s);
  std::printf("  %-44s %8.2f us\n", "an empty launch (check of 0 ranges)", empty_check_us);

  for (long long n : {1000ll, 10000ll, 100000ll}) {
    // The benchmark's tiling: range r = [r step + r % 7, (r + 1) step + 3).
    std::vector<long long> hb;
    const long long step = bits / n;
    for (long long r = 0; r < n; ++r) {
      hb.push_back(r * step + r % 7);
      hb.push_back(std::min(bits, (r + 1) * step + 3));
    }
    CHECK(cudaMemcpy(bounds, hb.data(), 16 * n, cudaMemcpyHostToDevice));
    std::vector<u64> want(n);
    for (long long r = 0; r < n; ++r)
      for (long long i = hb[2 * r]; i < hb[2 * r + 1]; ++i) want[r] += host[i / 32] >> (i % 32) & 1;
    std::printf("\n%lld ranges of ~%lld words\n", n, step / 32);
    auto verify = [&](const char* name) {
      std::vector<u64> got(n);
      CHECK(cudaMemcpy(got.data(), counts, 8 * n, cudaMemcpyDeviceToHost));
      for (long long r = 0; r < n; ++r)
        if (got[r] != want[r]) {
          std::printf("WRONG %s: range %lld %llu != %llu\n", name, r, got[r], want[r]);
          std::exit(2);
        }
    };
    auto report = [&](const char* name, float us) {
      std::printf("  %-44s %8.2f us  %.2f of memcpy\n", name, us, memcpy_us / us);
    };
    const float check_us =
        median_us([&] { check_ranges<<<(n + 255) / 256, 256, 0, s>>>(bounds, n, bits, mark); }, reps, s);
    report("check alone", check_us);
    char name[96];
    auto lanes = [&](auto kernel, int L, bool capped) {
      const long long blocks = capped ? std::min<long long>(4ll * sms, (n * L + 255) / 256) : (n * L + 255) / 256;
      CHECK(cudaMemset(counts, 0xff, 8 * n));
      kernel<<<blocks, 256, 0, s>>>(m, bounds, n, counts);
      std::snprintf(name, sizeof name, "%d lanes a range, %s", L, capped ? "4x256/SM striding" : "a group a range");
      verify(name);
      report(name, median_us([&] { kernel<<<blocks, 256, 0, s>>>(m, bounds, n, counts); }, reps, s));
      std::snprintf(name, sizeof name, "  the same after the check launch");
      report(name, median_us(
                       [&] {
                         check_ranges<<<(n + 255) / 256, 256, 0, s>>>(bounds, n, bits, mark);
                         kernel<<<blocks, 256, 0, s>>>(m, bounds, n, counts);
                       },
                       reps, s));
    };
    for (bool capped : {true, false}) {
      lanes(lanes_a_range<1, 8>, 1, capped);
      lanes(lanes_a_range<4, 8>, 4, capped);
      lanes(lanes_a_range<8, 8>, 8, capped);
      lanes(lanes_a_range<32, 8>, 32, capped);
      lanes(lanes_a_range<32, 4>, 32, capped);
    }
    auto blocks = [&](auto kernel, int BT, int items, long long grid) {
      CHECK(cudaMemset(counts, 0xff, 8 * n));
      kernel<<<grid, BT, 0, s>>>(m, bounds, n, counts);
      std::snprintf(name, sizeof name, "a block of %d a range, %d items, %lld blocks", BT, items, grid);
      verify(name);
      report(name, median_us([&] { kernel<<<grid, BT, 0, s>>>(m, bounds, n, counts); }, reps, s));
    };
    blocks(block_a_range<256, 8>, 256, 8, n);
    blocks(block_a_range<256, 4>, 256, 4, n);
    blocks(block_a_range<128, 8>, 128, 8, n);
    blocks(block_a_range<512, 4>, 512, 4, n);
    blocks(block_a_range<256, 4>, 256, 4, std::min<long long>(n, 4ll * sms));
    blocks(block_a_range<256, 4>, 256, 4, std::min<long long>(n, 8ll * sms));
    for (int S : {2, 4, 8, 16}) {
      if (n * S > (1ll << 30)) continue;
      auto launch = [&] {
        CHECK(cudaMemsetAsync(counts, 0, 8 * n, s));
        slices_a_range<256, 4><<<n * S, 256, 0, s>>>(m, bounds, n, S, counts);
      };
      launch();
      std::snprintf(name, sizeof name, "%d blocks of 256 a range, atomics, + memset", S);
      verify(name);
      report(name, median_us(launch, reps, s));
    }
  }
  return 0;
}
