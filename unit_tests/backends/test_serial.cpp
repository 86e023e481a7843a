// The test bodies on Kokkos::Serial.
#include <Kokkos_Core.hpp>

#define TEST_EXECSPACE Kokkos::Serial
#define TEST_CATEGORY serial

#include "../all_tests.hpp"
