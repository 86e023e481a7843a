// Which launch shape reads a bitmask at the memory's speed? A raw-CUDA probe of the shapes a
// counting kernel (read N bytes, popcount, one atomic per warp) and a byte->bit conversion (read N
// bytes, write N/8) can take, against cudaMemcpyAsync of the same bytes, in GPU event time.
// Not part of the library: it gives the limit the Kokkos kernels are judged against.
// Build: nvcc -O3 -arch=sm_90 -std=c++17 read_shapes.cu -o read_shapes
// PROBE_BITS=27 runs one size (log2 of its bits); PROBE_REPS=n times n launches a case (for ncu).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "check.hpp"

__device__ __forceinline__ unsigned long long warp_sum(unsigned long long v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

// Set bits of the 16-byte units first, first + T, ... below hi, ITEMS loads in flight.
template <int ITEMS>
__device__ __forceinline__ unsigned long long count_units(const uint4* u, long long first, long long hi, long long T) {
  unsigned long long set = 0;
  for (long long p = first; p < hi; p += ITEMS * T) {
    uint4 w[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) w[i] = p + i * T < hi ? __ldg(u + p + i * T) : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) set += __popc(w[i].x) + __popc(w[i].y) + __popc(w[i].z) + __popc(w[i].w);
  }
  return set;
}

// Strided: thread g of T reads 16-byte units g, g + T, ... in passes of ITEMS loads.
template <int ITEMS>
__global__ void count_strided(const uint4* u, long long units, unsigned long long* out) {
  const long long T = (long long)gridDim.x * blockDim.x;
  const long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned long long set = warp_sum(count_units<ITEMS>(u, g, units, T));
  if (threadIdx.x % 32 == 0) atomicAdd(out, set);
}

// count_strided with the block's sum taken first (warp shuffles, then the warps' sums through
// shared memory): one atomic a block instead of one a warp, all on the same word.
template <int ITEMS>
__global__ void count_strided_block(const uint4* u, long long units, unsigned long long* out) {
  __shared__ unsigned long long warps[32];
  const long long T = (long long)gridDim.x * blockDim.x;
  const long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long set = warp_sum(count_units<ITEMS>(u, g, units, T));
  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = set;
  __syncthreads();
  if (threadIdx.x < 32) {
    set = threadIdx.x < blockDim.x / 32 ? warps[threadIdx.x] : 0;
    set = warp_sum(set);
    if (threadIdx.x == 0) atomicAdd(out, set);
  }
}

// Blocked: block b reads a contiguous chunk, its threads striding by the block's size.
template <int ITEMS>
__global__ void count_blocked(const uint4* u, long long units, unsigned long long* out) {
  const long long per = (units + gridDim.x - 1) / gridDim.x;
  const long long lo = (long long)blockIdx.x * per, hi = min(units, lo + per);
  const unsigned long long set = warp_sum(count_units<ITEMS>(u, lo + threadIdx.x, hi, blockDim.x));
  if (threadIdx.x % 32 == 0) atomicAdd(out, set);
}

// Same-bytes copy by a kernel (strided, 4 items), for the copy's own kernel-shape limit.
__global__ void copy_strided(const uint4* s, uint4* d, long long units) {
  const long long T = (long long)gridDim.x * blockDim.x;
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < units; p += 4 * T) {
    uint4 w[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) if (p + i * T < units) w[i] = __ldg(s + p + i * T);
#pragma unroll
    for (int i = 0; i < 4; ++i) if (p + i * T < units) d[p + i * T] = w[i];
  }
}

// bytes -> bits: each warp turns 32 x 32 bytes into 32 words by ballot; strided over warps.
template <int ITEMS>
__global__ void bytes_to_bits(const uint8_t* b, uint32_t* m, long long words) {
  const long long warps = (long long)gridDim.x * blockDim.x / 32;
  const long long wg = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  // A warp's step: 32 words = 1024 bytes; lane l reads bytes [32 l, 32 l + 32) as two uint4 and
  // builds word l itself (no ballot needed: each lane has its word's 32 bytes).
  for (long long w0 = wg * 32; w0 < words; w0 += ITEMS * warps * 32) {
    uint4 v[ITEMS][2];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const long long w = w0 + (long long)i * warps * 32 + lane;
      if (w < words) {
        const uint4* p = reinterpret_cast<const uint4*>(b + 32 * w);
        v[i][0] = __ldg(p);
        v[i][1] = __ldg(p + 1);
      }
    }
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const long long w = w0 + (long long)i * warps * 32 + lane;
      if (w < words) {
        uint32_t bits = 0;
        const uint32_t* q = reinterpret_cast<const uint32_t*>(&v[i][0]);
#pragma unroll
        for (int k = 0; k < 8; ++k) {
          const uint32_t x = q[k];
          // one bit per non-zero byte
          const uint32_t nz = ((x & 0x7f7f7f7fu) + 0x7f7f7f7fu | x) & 0x80808080u;
          bits |= ((nz >> 7) & 1u) << (4 * k) | ((nz >> 15) & 1u) << (4 * k + 1) | ((nz >> 23) & 1u) << (4 * k + 2) |
                  ((nz >> 31) & 1u) << (4 * k + 3);
        }
        m[w] = bits;
      }
    }
  }
}

struct timer {
  cudaEvent_t a, b;
  timer() { CHECK(cudaEventCreate(&a)); CHECK(cudaEventCreate(&b)); }
};

__global__ void empty_kernel() {}

template <class F>
float median_us(F&& launch, int reps, cudaStream_t s) {
  timer t;
  std::vector<float> v;
  for (int r = 0; r < std::min(reps, 5); ++r) launch(r);
  CHECK(cudaStreamSynchronize(s));
  for (int r = 0; r < reps; ++r) {
    CHECK(cudaEventRecord(t.a, s));
    launch(r);
    CHECK(cudaEventRecord(t.b, s));
    CHECK(cudaEventSynchronize(t.b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, t.a, t.b));
    v.push_back(ms * 1000.f);
  }
  CHECK(cudaGetLastError());
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main() {
  int sms;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s, %d SMs, L2 %d MiB\n", prop.name, sms, prop.l2CacheSize >> 20);
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  const int sets = 4;  // rotate buffers: "cold" rows read data the last call did not touch
  const int log_bits[] = {24, 27, 30};
  unsigned long long* out;
  CHECK(cudaMalloc(&out, 8));
  const char* only = std::getenv("PROBE_BITS");
  const char* reps_env = std::getenv("PROBE_REPS");
  {
    const float us = median_us([&](int) { empty_kernel<<<sms * 2, 256, 0, s>>>(); }, reps_env ? std::atoi(reps_env) : 300, s);
    std::printf("empty kernel %dx256: %.2f us event time\n", sms * 2, us);
  }
  for (int lb : log_bits) {
    if (only && std::atoi(only) != lb) continue;
    const long long bytes = (1ll << lb) / 8, units = bytes / 16;
    std::vector<uint4*> src(sets), dst(sets);
    std::vector<uint32_t> host(bytes / 4);
    std::mt19937 rng(lb);
    for (auto& x : host) x = rng() & rng();
    unsigned long long want = 0;
    for (auto x : host) want += __builtin_popcount(x);
    for (int i = 0; i < sets; ++i) {
      CHECK(cudaMalloc(&src[i], bytes));
      CHECK(cudaMalloc(&dst[i], bytes));
      CHECK(cudaMemcpy(src[i], host.data(), bytes, cudaMemcpyHostToDevice));
    }
    const int reps = reps_env ? std::atoi(reps_env) : lb >= 30 ? 50 : 300;
    for (int cold = 0; cold < 2; ++cold) {
      auto pick = [&](int r) { return cold ? r % sets : 0; };
      std::printf("\n2^%d bits (%lld MiB), %s\n", lb, bytes >> 20, cold ? "rotating 4 buffers" : "same buffer");
      const float memcpy_us = median_us(
          [&](int r) { CHECK(cudaMemcpyAsync(dst[pick(r)], src[pick(r)], bytes, cudaMemcpyDeviceToDevice, s)); }, reps, s);
      std::printf("  %-34s %8.2f us  %7.0f GB/s (read+write)\n", "cudaMemcpyAsync", memcpy_us, 2e-3 * bytes / memcpy_us);
      const float kcopy_us = median_us(
          [&](int r) { copy_strided<<<sms * 8, 256, 0, s>>>(src[pick(r)], dst[pick(r)], units); }, reps, s);
      std::printf("  %-34s %8.2f us  %7.0f GB/s (read+write)\n", "copy kernel 8x256/SM, 4 items", kcopy_us,
                  2e-3 * bytes / kcopy_us);
      auto run_count = [&](const char* name, auto kernel, int blocks, int threads) {
        CHECK(cudaMemset(out, 0, 8));
        kernel<<<blocks, threads, 0, s>>>(src[0], units, out);
        unsigned long long got;
        CHECK(cudaMemcpy(&got, out, 8, cudaMemcpyDeviceToHost));
        if (got != want) { std::printf("WRONG %s: %llu != %llu\n", name, got, want); std::exit(2); }
        const float us = median_us([&](int r) { kernel<<<blocks, threads, 0, s>>>(src[pick(r)], units, out); }, reps, s);
        std::printf("  %-34s %8.2f us  %7.0f GB/s read  %.2f of memcpy time\n", name, us, 1e-3 * bytes / us,
                    memcpy_us / us);
      };
      char name[64];
      for (int per_sm : {2, 4, 8}) {
        std::snprintf(name, sizeof name, "strided %dx256/SM, 8 items", per_sm);
        run_count(name, count_strided<8>, sms * per_sm, 256);
        std::snprintf(name, sizeof name, "strided %dx256/SM, 4 items", per_sm);
        run_count(name, count_strided<4>, sms * per_sm, 256);
        std::snprintf(name, sizeof name, "strided %dx256/SM, 16 items", per_sm);
        run_count(name, count_strided<16>, sms * per_sm, 256);
        std::snprintf(name, sizeof name, "strided %dx256/SM, 8 items, block sums", per_sm);
        run_count(name, count_strided_block<8>, sms * per_sm, 256);
        std::snprintf(name, sizeof name, "blocked %dx256/SM, 8 items", per_sm);
        run_count(name, count_blocked<8>, sms * per_sm, 256);
      }
      // many small blocks, one pass each (grid = units / (256 * 4))
      {
        const int blocks = (int)std::min<long long>((units + 1023) / 1024, 1 << 30);
        run_count("one pass, 4 items, grid = data", count_strided<4>, blocks, 256);
        run_count("one pass, 4 items, grid = data, block sums", count_strided_block<4>, blocks, 256);
      }
      // bytes -> bits: read `bytes` bytes as booleans, write bytes/8
      {
        const long long words = bytes / 32;
        {  // check once against the host: bit k of word w = byte 32 w + k is non-zero
          bytes_to_bits<2><<<sms * 4, 256, 0, s>>>(reinterpret_cast<const uint8_t*>(src[0]),
                                                   reinterpret_cast<uint32_t*>(dst[0]), words);
          std::vector<uint32_t> got(words);
          CHECK(cudaMemcpy(got.data(), dst[0], words * 4, cudaMemcpyDeviceToHost));
          const auto* hb = reinterpret_cast<const uint8_t*>(host.data());
          for (long long w = 0; w < words; ++w) {
            uint32_t x = 0;
            for (int k = 0; k < 32; ++k) x |= uint32_t(hb[32 * w + k] != 0) << k;
            if (x != got[w]) { std::printf("WRONG bytes->bits word %lld\n", w); std::exit(2); }
          }
        }
        for (int per_sm : {2, 4, 8}) {
          for (int items : {1, 2, 4}) {
            auto launch = [&](int r) {
              auto* bb = reinterpret_cast<const uint8_t*>(src[pick(r)]);
              auto* mm = reinterpret_cast<uint32_t*>(dst[pick(r)]);
              if (items == 1) bytes_to_bits<1><<<sms * per_sm, 256, 0, s>>>(bb, mm, words);
              if (items == 2) bytes_to_bits<2><<<sms * per_sm, 256, 0, s>>>(bb, mm, words);
              if (items == 4) bytes_to_bits<4><<<sms * per_sm, 256, 0, s>>>(bb, mm, words);
            };
            const float us = median_us(launch, reps, s);
            std::printf("  bytes->bits %dx256/SM, %d items   %8.2f us  %7.0f GB/s (r+w)  %.2f of same-bytes memcpy\n",
                        per_sm, items, us, 1e-3 * (bytes + bytes / 8) / us,
                        memcpy_us * (bytes + bytes / 8) / (2.0 * bytes) / us);
          }
        }
      }
    }
    for (int i = 0; i < sets; ++i) { CHECK(cudaFree(src[i])); CHECK(cudaFree(dst[i])); }
  }
  return 0;
}
