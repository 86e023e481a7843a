// How fast can a struct tree's nulls be pushed down in one launch? A raw-CUDA probe of the
// superimpose_nulls_tree benchmark's shape (1 root, 8 children, 8 grandchildren each: 73 masks,
// each read from bit 0 of itself and written in place, with each node's null count), in GPU event
// time, against the same bytes moved by cudaMemcpyAsync, by a copy kernel and by an in-place
// read-and-write of every mask. The walk is a thread per 16 or 32 bytes of every node, depth first,
// the ancestors' new words in registers (the 8 grandchildren of a child loaded together), the
// counts reduced per warp and node. Not part of the library: it gives the limit the Kokkos kernels
// (detail/tree_kernels.hpp, tree_aligned_kernel.hpp) are judged against.
// Build: nvcc -O3 -arch=sm_90 -std=c++17 tree_walk_shapes.cu -o tree_walk_shapes
// PROBE_BITS=24 (log2 of each mask's bits); PROBE_REPS=n launches a case.
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

constexpr int kids  = 8;
constexpr int nodes = 1 + kids + kids * kids;

struct forest {
  uint4* node[nodes];  // node 0 the root, 1 .. 8 its children, 9 + 8 (c - 1) + g child c's
};

__device__ __forceinline__ uint4 and4(uint4 a, uint4 b) { return make_uint4(a.x & b.x, a.y & b.y, a.z & b.z, a.w & b.w); }
__device__ __forceinline__ unsigned popc4(uint4 a) { return __popc(a.x) + __popc(a.y) + __popc(a.z) + __popc(a.w); }

// COUNT 0: no counts; 1: one redux.sync a warp and node; 2: five shuffles a warp and node (the
// shape a portable Kokkos reduction over a warp's lanes takes).
template <int COUNT>
__device__ __forceinline__ void count_node(unsigned* team, int k, unsigned set) {
  if (COUNT == 0) return;
  if (COUNT == 1) set = __reduce_add_sync(0xffffffffu, set);
  if (COUNT == 2)
    for (int o = 16; o > 0; o /= 2) set += __shfl_xor_sync(0xffffffffu, set, o);
  if (threadIdx.x % 32 == 0) atomicAdd(&team[k], set);
}

// A thread per U 16-byte units of every node (units % (256 U) == 0, one pass, no bounds).
template <int U, int COUNT>
__global__ void __launch_bounds__(256) walk(forest f, long long units, u64* counts) {
  __shared__ unsigned team[nodes];
  if (COUNT != 0) {
    for (int k = threadIdx.x; k < nodes; k += blockDim.x) team[k] = 0;
    __syncthreads();
  }
  const long long u0 = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * U;
  (void)units;
  uint4 r[U];
  unsigned set = 0;
#pragma unroll
  for (int j = 0; j < U; ++j) r[j] = f.node[0][u0 + j];
#pragma unroll
  for (int j = 0; j < U; ++j) {
    f.node[0][u0 + j] = r[j];
    set += popc4(r[j]);
  }
  count_node<COUNT>(team, 0, set);
#pragma unroll 1
  for (int c = 1; c <= kids; ++c) {
    uint4 x[U], g[kids][U];
#pragma unroll
    for (int j = 0; j < U; ++j) x[j] = f.node[c][u0 + j];
#pragma unroll
    for (int k = 0; k < kids; ++k)
#pragma unroll
      for (int j = 0; j < U; ++j) g[k][j] = f.node[1 + kids * c + k][u0 + j];
    set = 0;
#pragma unroll
    for (int j = 0; j < U; ++j) {
      x[j] = and4(x[j], r[j]);
      f.node[c][u0 + j] = x[j];
      set += popc4(x[j]);
    }
    count_node<COUNT>(team, c, set);
#pragma unroll
    for (int k = 0; k < kids; ++k) {
      set = 0;
#pragma unroll
      for (int j = 0; j < U; ++j) {
        g[k][j] = and4(g[k][j], x[j]);
        f.node[1 + kids * c + k][u0 + j] = g[k][j];
        set += popc4(g[k][j]);
      }
      count_node<COUNT>(team, 1 + kids * c + k, set);
    }
  }
  if (COUNT != 0) {
    __syncthreads();
    for (int k = threadIdx.x; k < nodes; k += blockDim.x) atomicAdd(&counts[k], static_cast<u64>(team[k]));
  }
}

// Every node read and written back in place, 8 nodes' loads in flight a thread: the walk's bytes
// with no dependence between nodes.
__global__ void __launch_bounds__(256) rewrite(forest f) {
  const long long u = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
#pragma unroll 1
  for (int k0 = 0; k0 < nodes; k0 += 8) {
    uint4 v[8];
#pragma unroll
    for (int k = 0; k < 8; ++k)
      if (k0 + k < nodes) v[k] = f.node[k0 + k][u];
#pragma unroll
    for (int k = 0; k < 8; ++k)
      if (k0 + k < nodes) f.node[k0 + k][u] = make_uint4(v[k].x, v[k].y ^ 1u, v[k].z, v[k].w);
  }
}

__global__ void __launch_bounds__(256) copy_kernel(const uint4* src, uint4* dst, long long n) {
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

int main() {
  const char* bits_env = std::getenv("PROBE_BITS");
  const char* reps_env = std::getenv("PROBE_REPS");
  const int lb   = bits_env ? std::atoi(bits_env) : 24;
  const int reps = reps_env ? std::atoi(reps_env) : 100;
  if (lb < 16) {
    std::fprintf(stderr, "PROBE_BITS must be at least 16\n");
    return 1;
  }
  const long long bits = 1ll << lb, units = bits / 128, bytes = bits / 8;
  int dev, sms;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));

  // Random masks, about 15/16 of their bits set, so every level keeps bits to clear.
  std::mt19937_64 rng(11);
  std::vector<std::vector<uint32_t>> host(nodes, std::vector<uint32_t>(bits / 32));
  for (auto& m : host)
    for (auto& w : m) w = ~(static_cast<uint32_t>(rng()) & static_cast<uint32_t>(rng()) & static_cast<uint32_t>(rng()) & static_cast<uint32_t>(rng()));
  forest f;
  for (int k = 0; k < nodes; ++k) {
    CHECK(cudaMalloc(&f.node[k], bytes));
    CHECK(cudaMemcpy(f.node[k], host[k].data(), bytes, cudaMemcpyHostToDevice));
  }
  u64* counts;
  CHECK(cudaMalloc(&counts, nodes * sizeof(u64)));
  uint4 *src, *dst;
  CHECK(cudaMalloc(&src, nodes * bytes));
  CHECK(cudaMalloc(&dst, nodes * bytes));
  CHECK(cudaMemset(src, 0x5a, nodes * bytes));

  // Each walk once on the masks as given, against the host's walk.
  std::vector<std::vector<uint32_t>> want = host;
  std::vector<u64> want_nulls(nodes);
  for (int k = 0; k < nodes; ++k) {
    const int p = k == 0 ? -1 : k <= kids ? 0 : 1 + (k - 1 - kids) / kids;
    for (long long w = 0; w < bits / 32; ++w) {
      if (p >= 0) want[k][w] &= want[p][w];
      want_nulls[k] += 32 - __builtin_popcount(want[k][w]);
    }
  }
  const auto verify = [&](const char* name, auto&& launch, bool counted) {
    for (int k = 0; k < nodes; ++k) CHECK(cudaMemcpy(f.node[k], host[k].data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(counts, 0, nodes * sizeof(u64)));
    launch();
    CHECK(cudaStreamSynchronize(s));
    std::vector<uint32_t> got(bits / 32);
    std::vector<u64> sets(nodes);
    CHECK(cudaMemcpy(sets.data(), counts, nodes * sizeof(u64), cudaMemcpyDeviceToHost));
    for (int k = 0; k < nodes; ++k) {
      CHECK(cudaMemcpy(got.data(), f.node[k], bytes, cudaMemcpyDeviceToHost));
      if (got != want[k] || (counted && static_cast<u64>(bits) - sets[k] != want_nulls[k])) {
        std::printf("%s: WRONG at node %d\n", name, k);
        std::exit(2);
      }
    }
  };
  const auto walk_launch = [&](auto kernel, int u) {
    return [=] { kernel<<<static_cast<int>(units / (256 * u)), 256, 0, s>>>(f, units, counts); };
  };
  verify("walk<1,1>", walk_launch(walk<1, 1>, 1), true);
  verify("walk<2,1>", walk_launch(walk<2, 1>, 2), true);
  verify("walk<1,2>", walk_launch(walk<1, 2>, 1), true);
  verify("walk<1,0>", walk_launch(walk<1, 0>, 1), false);

  const double moved = 2.0 * nodes * static_cast<double>(bytes);  // every node read and written once
  std::printf("73 masks of 2^%d bits (%.1f MB read + written), %d SMs, medians of %d launches (GPU event time)\n",
              lb, moved / 1e6, sms, reps);
  const float memcpy_us =
      median_us([&] { CHECK(cudaMemcpyAsync(dst, src, nodes * bytes, cudaMemcpyDeviceToDevice, s)); }, reps, s);
  const auto report = [&](const char* name, float us) {
    std::printf("%-44s %9.2f us  %7.1f GB/s  memcpy/this %.3f\n", name, us, moved / (us * 1e3), memcpy_us / us);
  };
  report("cudaMemcpyAsync (same bytes)", memcpy_us);
  report("copy kernel (2 blocks an SM x 256, uint4)", median_us([&] {
           copy_kernel<<<2 * sms * 4, 256, 0, s>>>(src, dst, nodes * bytes / 16);
         }, reps, s));
  report("in-place rewrite of every node (8 in flight)",
         median_us([&] { rewrite<<<static_cast<int>(units / 256), 256, 0, s>>>(f); }, reps, s));
  report("walk, 16 B a thread, no counts", median_us(walk_launch(walk<1, 0>, 1), reps, s));
  report("walk, 16 B a thread, counts by redux.sync", median_us(walk_launch(walk<1, 1>, 1), reps, s));
  report("walk, 16 B a thread, counts by 5 shuffles", median_us(walk_launch(walk<1, 2>, 1), reps, s));
  report("walk, 32 B a thread, no counts", median_us(walk_launch(walk<2, 0>, 2), reps, s));
  report("walk, 32 B a thread, counts by redux.sync", median_us(walk_launch(walk<2, 1>, 2), reps, s));
  report("walk, 32 B a thread, counts by 5 shuffles", median_us(walk_launch(walk<2, 2>, 2), reps, s));
  return 0;
}
