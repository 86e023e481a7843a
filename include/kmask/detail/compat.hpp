#ifndef KMASK_DETAIL_COMPAT_HPP
#define KMASK_DETAIL_COMPAT_HPP

// Every difference between the Kokkos versions kmask builds with (3.4.01, the one the project's
// scripts install, through current 4.x) lives here and nowhere else.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

#if KOKKOS_VERSION >= 40100
#include <Kokkos_BitManipulation.hpp>
#define KMASK_HAS_KOKKOS_BIT_MANIPULATION 1
#endif

namespace kmask {
namespace detail {

// Number of set bits in one 32-bit word, on host and device.
KOKKOS_FORCEINLINE_FUNCTION int popcount32(std::uint32_t x) noexcept {
#if defined(KMASK_HAS_KOKKOS_BIT_MANIPULATION)
  return Kokkos::Experimental::popcount_builtin(x);
#elif defined(__CUDA_ARCH__)
  return __popc(x);
#elif defined(__GNUC__) || defined(__clang__)
  return __builtin_popcount(x);
#else
  int n = 0;
  for (; x != 0; x &= x - 1) ++n;
  return n;
#endif
}

// Adds v to *p atomically. Kokkos 3.4 implements a signed 64-bit atomic add on CUDA as a CAS loop,
// which collapses when hundreds of teams add into one segment's counter (measured: 20x slower end
// to end); the unsigned 64-bit add is a native atomic and gives the same two's-complement result.
KOKKOS_FORCEINLINE_FUNCTION void atomic_add_count(std::int64_t* p, std::int64_t v) noexcept {
  static_assert(sizeof(unsigned long long) == sizeof(std::int64_t), "64-bit counters");
  Kokkos::atomic_add(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}

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

#endif
