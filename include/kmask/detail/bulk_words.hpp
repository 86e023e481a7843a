#ifndef KMASK_DETAIL_BULK_WORDS_HPP
#define KMASK_DETAIL_BULK_WORDS_HPP

// Runs of whole destination words that a moving call hands to the backend's own copy and fill
// routines (cudaMemcpyAsync, cudaMemsetAsync on CUDA) instead of the moving kernel: those stream
// at the memory's copy rate, and a call that is nothing but one such run needs no kernel launch.
// Only the GPU form takes them (move_bits_calls.hpp says when); the GPU form emulated on a host
// space writes them with memcpy / memset, so that host CI runs the splitting logic too.

#include <kmask/detail/compat.hpp>
#include <kmask/detail/launch_shape.hpp>
#include <kmask/types.hpp>

#include <cstring>

namespace kmask {
namespace detail {

// `words` words from `dest`: copied from `src`, or (src nullptr) set to `fill`, which is then all
// zeros or all ones.
struct bulk_run {
  word_type* dest;
  const word_type* src;
  size_type words;
  word_type fill;
};

// Whether the space fills words of all zeros or all ones without a kernel of kmask's.
template <class ExecSpace>
constexpr bool bulk_fills_possible() {
#if defined(KOKKOS_ENABLE_CUDA)
  if (std::is_same<ExecSpace, Kokkos::Cuda>::value) return true;
#endif
  return runs_on_host<ExecSpace>();
}

// Enqueues the run on `exec`; false when the backend's fill declined it (the caller writes it).
template <class ExecSpace>
bool write_bulk_run(const ExecSpace& exec, const bulk_run& r) {
  using unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  const auto bytes = static_cast<std::size_t>(r.words) * sizeof(word_type);
  if constexpr (runs_on_host<ExecSpace>()) {
    // The emulated GPU form only: earlier work on the instance first, then the calling thread
    // writes (Kokkos' host deep_copy would open a parallel region from any thread).
    exec.fence();
    if (r.src != nullptr) std::memcpy(r.dest, r.src, bytes);
    else std::memset(r.dest, r.fill == 0 ? 0x00 : 0xFF, bytes);
    return true;
  } else {
    using memory_space = typename ExecSpace::memory_space;
    if (r.src == nullptr) return fill_bytes_async(exec, r.dest, r.fill == 0 ? 0x00 : 0xFF, bytes);
    const Kokkos::View<word_type*, memory_space, unmanaged> d(r.dest, r.words);
    const Kokkos::View<const word_type*, memory_space, unmanaged> s(r.src, r.words);
    Kokkos::deep_copy(exec, d, s);
    return true;
  }
}

}  // namespace detail
}  // namespace kmask

#endif
