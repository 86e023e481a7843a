// One main for every backend's test executable: Kokkos lives exactly as long as the tests.

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <iostream>

#include <kmask/version.hpp>

int main(int argc, char* argv[]) {
  Kokkos::initialize(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  std::cout << "kmask " << kmask::version() << " on " << kmask::kokkos_configuration()
            << ", default execution space " << Kokkos::DefaultExecutionSpace::name() << ", concurrency "
            << Kokkos::DefaultExecutionSpace().concurrency() << std::endl;
  const int result = RUN_ALL_TESTS();
  Kokkos::finalize();
  return result;
}
