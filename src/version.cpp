// What a user's program can ask the built library: its own version and the Kokkos it was built on.

#include <kmask/version.hpp>

#include <Kokkos_Core.hpp>

#define KMASK_STR2(x) #x
#define KMASK_STR(x) KMASK_STR2(x)

namespace kmask {

const char* version() noexcept {
  return KMASK_STR(KMASK_VERSION_MAJOR) "." KMASK_STR(KMASK_VERSION_MINOR) "." KMASK_STR(KMASK_VERSION_PATCH);
}

const char* kokkos_configuration() noexcept {
  return "Kokkos " KMASK_STR(KOKKOS_VERSION)
#ifdef KOKKOS_ENABLE_SERIAL
      " Serial"
#endif
#ifdef KOKKOS_ENABLE_OPENMP
      " OpenMP"
#endif
#ifdef KOKKOS_ENABLE_CUDA
      " Cuda"
#endif
#ifdef KOKKOS_ENABLE_HIP
      " HIP"
#endif
      ;
}

}  // namespace kmask
