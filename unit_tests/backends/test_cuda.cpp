// The test bodies on Kokkos::Cuda.
#include <Kokkos_Core.hpp>

#define TEST_EXECSPACE Kokkos::Cuda
#define TEST_CATEGORY cuda

#include "../all_tests.hpp"
