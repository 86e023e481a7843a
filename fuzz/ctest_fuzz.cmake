# The bounded fuzz runs (KMASK_ENABLE_FUZZ): fuzz/run.sh configures fuzz/ (its own clang++ project)
# in this build tree against the Kokkos this build was configured with, builds it and fuzzes.
if(Kokkos_ENABLE_CUDA)
  message(FATAL_ERROR "KMASK_ENABLE_FUZZ: the fuzz targets run Kokkos::Serial under clang++'s sanitizers; "
                      "configure them with a host Kokkos (Serial), not this CUDA one")
endif()
if(NOT Kokkos_DIR)
  message(FATAL_ERROR "KMASK_ENABLE_FUZZ: the fuzz project needs an installed Kokkos (find_package); "
                      "this build's Kokkos is part of the parent project")
endif()
find_program(KMASK_FUZZ_CXX NAMES clang++ DOC "clang++ for the libFuzzer targets")
if(NOT KMASK_FUZZ_CXX)
  message(FATAL_ERROR "KMASK_ENABLE_FUZZ: no clang++ found (libFuzzer needs it; scripts/install-deps installs it)")
endif()
set(KMASK_FUZZ_ENV "Kokkos_DIR=${Kokkos_DIR}" "KMASK_FUZZ_BUILD_DIR=${PROJECT_BINARY_DIR}/fuzz"
                   "CXX_FUZZ=${KMASK_FUZZ_CXX}")
add_test(NAME kmask.fuzz.60s COMMAND ${CMAKE_CURRENT_LIST_DIR}/run.sh 60 -seed=20261129)
set_tests_properties(kmask.fuzz.60s PROPERTIES TIMEOUT 600 ENVIRONMENT "${KMASK_FUZZ_ENV}")
add_test(NAME kmask.fuzz.gpu_form.30s COMMAND ${CMAKE_CURRENT_LIST_DIR}/run.sh 30 -seed=20261129)
set_tests_properties(kmask.fuzz.gpu_form.30s PROPERTIES TIMEOUT 600
                     ENVIRONMENT "${KMASK_FUZZ_ENV};KMASK_FUZZ_TARGET=fuzz_segmented_binop_gpu_form")
