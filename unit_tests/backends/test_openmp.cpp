// The test bodies on Kokkos::OpenMP.
#include <Kokkos_Core.hpp>

#define TEST_EXECSPACE Kokkos::OpenMP
#define TEST_CATEGORY openmp

#include "../all_tests.hpp"
