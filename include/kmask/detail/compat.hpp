#ifndef KMASK_DETAIL_COMPAT_HPP
#define KMASK_DETAIL_COMPAT_HPP

// Every difference between the Kokkos versions kmask builds with (3.4.01, the one the project's
// scripts install, through current 4.x) lives here and nowhere else.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace kmask {
namespace detail {

// Number of set bits in one 32-bit word, on host and device. The host branch matters: without a
// target that has the instruction (-mpopcnt, -march=...), __builtin_popcount is a libgcc call per
// word, which made host kernels several times slower than their memory traffic; the SWAR form is a
// dozen integer operations that vectorise with the loop around them.
KOKKOS_FORCEINLINE_FUNCTION int popcount32(std::uint32_t x) noexcept {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __popc(x);
#elif defined(__POPCNT__) && (defined(__GNUC__) || defined(__clang__))
  return __builtin_popcount(x);
#else
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0F0F0F0Fu;
  return static_cast<int>((x * 0x01010101u) >> 24);
#endif
}

// Adds v to *p atomically. Kokkos 3.4 implements a signed 64-bit atomic add on CUDA as a CAS loop,
// which collapses when hundreds of teams add into one segment's counter (measured: 20x slower end
// to end); the unsigned 64-bit add is a native atomic and gives the same two's-complement result.
KOKKOS_FORCEINLINE_FUNCTION void atomic_add_count(std::int64_t* p, std::int64_t v) noexcept {
  static_assert(sizeof(unsigned long long) == sizeof(std::int64_t), "64-bit counters");
  Kokkos::atomic_add(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}

// *p += v atomically, returning the old value (native unsigned 64-bit atomics, as above).
KOKKOS_FORCEINLINE_FUNCTION std::int64_t atomic_fetch_add_count(std::int64_t* p, std::int64_t v) noexcept {
  return static_cast<std::int64_t>(
      Kokkos::atomic_fetch_add(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v)));
}

// Replaces *p by v atomically, returning the old value.
KOKKOS_FORCEINLINE_FUNCTION std::int64_t atomic_exchange_count(std::int64_t* p, std::int64_t v) noexcept {
  return static_cast<std::int64_t>(
      Kokkos::atomic_exchange(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v)));
}

// Word `v` of lane `src` of this 32-lane CUDA warp; all 32 lanes must call it together. Only in
// CUDA device code (KMASK_HAS_LANE_SHUFFLE); callers keep a portable path beside it.
#if defined(__CUDA_ARCH__)
#define KMASK_HAS_LANE_SHUFFLE 1
__device__ __forceinline__ std::uint32_t word_from_lane(std::uint32_t v, int src) {
  return __shfl_sync(0xffffffffu, v, src);
}
#else
#define KMASK_HAS_LANE_SHUFFLE 0
#endif

// Host memory the execution space's memory can be copied from asynchronously: page-locked where
// the backend has such a space (a pageable source makes the copy synchronous and slower), plain
// host memory otherwise. Kokkos 3.4 and 4.x both spell the CUDA one Kokkos::CudaHostPinnedSpace.
template <class ExecSpace>
struct staging_host_space {
  using type = Kokkos::HostSpace;
};
#if defined(KOKKOS_ENABLE_CUDA)
template <>
struct staging_host_space<Kokkos::Cuda> {
  using type = Kokkos::CudaHostPinnedSpace;
};
#endif

// A profiling region open for one scope, so Kokkos Tools attribute the kernels inside it to the
// kmask call (Kokkos::Profiling::ScopedRegion exists only from 4.1; push/pop exist everywhere).
class scoped_region {
 public:
  explicit scoped_region(const std::string& name) { Kokkos::Profiling::pushRegion(name); }
  ~scoped_region() { Kokkos::Profiling::popRegion(); }
  scoped_region(const scoped_region&)            = delete;
  scoped_region& operator=(const scoped_region&) = delete;
};

}  // namespace detail
}  // namespace kmask

// ---- Device properties for launch shapes (detail::launch_tuning's users) ----

#include <vector>

namespace kmask {
namespace detail {

// What a launch shape needs of a device: its multiprocessors and the threads one keeps resident.
struct device_shape {
  std::int64_t multiprocessors;
  std::int64_t threads_per_multiprocessor;
};

// Any space without a query of its own: concurrency() as SMs of 2048 threads (at least one SM;
// fewer threads make one SM of that many), which is exact on NVIDIA GPUs of 2048 threads per SM.
template <class ExecSpace>
device_shape device_shape_of(const ExecSpace& exec) {
  const std::int64_t threads = static_cast<std::int64_t>(exec.concurrency());
  if (threads < 2048) return {1, threads > 1 ? threads : 1};
  return {threads / 2048, 2048};
}

#if defined(KOKKOS_ENABLE_CUDA)
// CUDA: the instance's device, asked once per device id (cudaDeviceGetAttribute, in Kokkos 3.4 and
// 4.x alike); the table is built by the first caller, thread-safely, and only read afterwards.
inline device_shape device_shape_of(const Kokkos::Cuda& exec) {
  const auto query = [](int device, device_shape& shape) {
    int sms = 0, threads = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, device) != cudaSuccess ||
        sms <= 0 || threads <= 0) {
      cudaGetLastError();  // leave no error behind for Kokkos' next check
      return false;
    }
    shape = {sms, threads};
    return true;
  };
  // One entry per device (multiprocessors 0: the query failed).
  static const std::vector<device_shape> known = [&] {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
      cudaGetLastError();
      count = 0;
    }
    std::vector<device_shape> shapes(static_cast<std::size_t>(count > 0 ? count : 0), device_shape{0, 0});
    for (int d = 0; d < count; ++d) query(d, shapes[static_cast<std::size_t>(d)]);
    return shapes;
  }();
  const int device = exec.cuda_device();
  if (device >= 0 && static_cast<std::size_t>(device) < known.size() &&
      known[static_cast<std::size_t>(device)].multiprocessors > 0)
    return known[static_cast<std::size_t>(device)];
  device_shape shape{};
  if (query(device, shape)) return shape;
  return device_shape_of<Kokkos::Cuda>(exec);  // the generic estimate from concurrency()
}
#endif

}  // namespace detail
}  // namespace kmask

#endif
