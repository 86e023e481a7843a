// Exploratory: how fast can a popcount reduction read 128 MB on the H200, by load shape and grid.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

__device__ __forceinline__ void add_block(unsigned long long s, unsigned long long* out) {
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}

// Like kmask's count_stride_functor: thread g reads units g + i T of each pass (T = all threads).
template <int ITEMS>
__global__ void strided(const uint4* p, long n, unsigned long long* out) {
  const long T = (long)gridDim.x * blockDim.x, g = (long)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long s = 0;
  for (long pass = g; pass < n; pass += ITEMS * T) {
    uint4 w[ITEMS];
    if (pass + (ITEMS - 1) * T < n) {
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) w[i] = p[pass + i * T];
    } else {
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) { long u = pass + i * T; w[i] = u < n ? p[u] : make_uint4(0, 0, 0, 0); }
    }
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) s += __popc(w[i].x) + __popc(w[i].y) + __popc(w[i].z) + __popc(w[i].w);
  }
  add_block(s, out);
}

// Each block reads a contiguous chunk of ITEMS x blockDim units per step; blocks stride by chunks.
template <int ITEMS, int MODE>
__global__ void chunked(const uint4* p, long n, unsigned long long* out) {
  const long chunk = (long)ITEMS * blockDim.x;
  unsigned long long s = 0;
  for (long base = (long)blockIdx.x * chunk; base < n; base += (long)gridDim.x * chunk) {
    uint4 w[ITEMS];
    if (base + chunk <= n) {
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const uint4* a = p + base + i * blockDim.x + threadIdx.x;
        w[i] = MODE == 0 ? *a : MODE == 1 ? __ldcs(a) : __ldg(a);
      }
    } else
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      long u = base + i * blockDim.x + threadIdx.x;
      if (u < n) {
        if (MODE == 0) w[i] = p[u];
        else if (MODE == 1) w[i] = __ldcs(p + u);
        else w[i] = __ldg(p + u);
      } else w[i] = make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) s += __popc(w[i].x) + __popc(w[i].y) + __popc(w[i].z) + __popc(w[i].w);
  }
  add_block(s, out);
}

// Each thread reads ITEMS consecutive units? no: each warp reads ITEMS consecutive 512-byte rows.
template <int ITEMS>
__global__ void warp_chunked(const uint4* p, long n, unsigned long long* out) {
  const int lane = threadIdx.x & 31;
  const long warps = (long)gridDim.x * blockDim.x / 32, wid = ((long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const long chunk = (long)ITEMS * 32;
  unsigned long long s = 0;
  for (long base = wid * chunk; base < n; base += warps * chunk) {
    uint4 w[ITEMS];
    if (base + chunk <= n) {
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) w[i] = p[base + i * 32 + lane];
    } else {
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) { long u = base + i * 32 + lane; w[i] = u < n ? p[u] : make_uint4(0, 0, 0, 0); }
    }
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) s += __popc(w[i].x) + __popc(w[i].y) + __popc(w[i].z) + __popc(w[i].w);
  }
  add_block(s, out);
}

__global__ void copyk(const uint4* a, uint4* b, long n) {
  const long T = (long)gridDim.x * blockDim.x;
  for (long u = (long)blockIdx.x * blockDim.x + threadIdx.x; u < n; u += T) b[u] = a[u];
}

template <class L>
float median_ms(L&& launch, int reps = 40) {
  cudaEvent_t a, b;
  cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> t;
  launch();
  for (int r = 0; r < reps; ++r) {
    cudaEventRecord(a); launch(); cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  cudaEventDestroy(a); cudaEventDestroy(b);
  return t[t.size() / 2];
}

int main(int argc, char** argv) {
  int sms = 0; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  std::vector<long> sizes = {16L << 20, 128L << 20, 1024L << 20};  // bytes read
  uint4 *p, *q; unsigned long long* out;
  CK(cudaMalloc(&p, 1024L << 20)); CK(cudaMalloc(&q, 1024L << 20)); CK(cudaMalloc(&out, 8));
  CK(cudaMemset(p, 0x5a, 1024L << 20));
  // Evict L2 between reps: read a 256 MB buffer? Kept simple: sizes >= 128 MB exceed the 60 MB L2.
  printf("sms %d\n", sms);
  for (long bytes : sizes) {
    const long n = bytes / 16;
    float c1 = median_ms([&] { cudaMemcpyAsync(q, p, bytes / 2, cudaMemcpyDeviceToDevice); });
    float c2 = median_ms([&] { copyk<<<sms * 8, 256>>>(p, q, n / 2); });
    printf("bytes %ld memcpy(half) %.2f us (%.2f TB/s r+w)  copyk(half) %.2f us\n", bytes, c1 * 1e3, bytes / (c1 * 1e9), c2 * 1e3);
    auto rep = [&](const char* name, int bps, int thr, auto k) {
      float ms = median_ms([&] { k<<<sms * bps, thr>>>(p, n, out); });
      printf("  %-22s bps %2d thr %4d  %8.2f us  %.2f TB/s  vs_copy %.3f\n", name, bps, thr, ms * 1e3, bytes / (ms * 1e9), c1 / ms);
    };
    for (int thr : {256, 512, 1024})
      for (int bps : {1, 2, 4, 8}) {
        if (bps * thr > 2048) continue;
        rep("strided8", bps, thr, strided<8>);
        rep("strided4", bps, thr, strided<4>);
        rep("strided16", bps, thr, strided<16>);
        rep("chunked8", bps, thr, chunked<8, 0>);
        rep("chunked8_ldcs", bps, thr, chunked<8, 1>);
        rep("chunked8_ldg", bps, thr, chunked<8, 2>);
        rep("chunked4", bps, thr, chunked<4, 0>);
        rep("chunked16", bps, thr, chunked<16, 0>);
        rep("warpchunk8", bps, thr, warp_chunked<8>);
        rep("warpchunk16", bps, thr, warp_chunked<16>);
      }
  }
  return 0;
}
