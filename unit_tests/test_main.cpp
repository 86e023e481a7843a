// One main for every backend's test executable: Kokkos lives exactly as long as the tests.

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <iostream>

#include <kmask/version.hpp>

#if defined(KMASK_TEST_EXACT_HOST_ALLOCATIONS)
#include "test_support.hpp"
#endif

int main(int argc, char* argv[]) {
  Kokkos::initialize(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
#if defined(KMASK_TEST_EXACT_HOST_ALLOCATIONS)
  // Frees each test's exact-size host buffers when it ends (see test_support.hpp).
  ::testing::UnitTest::GetInstance()->listeners().Append(new kmask_test::exact_host_buffers_listener);
  std::cout << "test masks in host memory are exact-size new[] buffers (KMASK_TEST_EXACT_HOST_ALLOCATIONS)"
            << std::endl;
#endif
  std::cout << "kmask " << kmask::version() << " on " << kmask::kokkos_configuration()
            << ", default execution space " << Kokkos::DefaultExecutionSpace::name() << ", concurrency "
            << Kokkos::DefaultExecutionSpace().concurrency() << std::endl;
  const int result = RUN_ALL_TESTS();
  Kokkos::finalize();
  return result;
}
