# Installs the kmask build in KMASK_BUILD_DIR into a fresh prefix, then configures, builds and
# (when RUN) runs the consumer project against that prefix — what a user's project does.
foreach(var KMASK_BUILD_DIR CONSUMER_SOURCE_DIR WORK_DIR CXX_COMPILER Kokkos_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "consumer_check.cmake: ${var} is not set")
  endif()
endforeach()

function(run_step)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer check: '${ARGV}' failed (${rc})")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
run_step(${CMAKE_COMMAND} --install "${KMASK_BUILD_DIR}" --prefix "${WORK_DIR}/prefix")
run_step(${CMAKE_COMMAND} -S "${CONSUMER_SOURCE_DIR}" -B "${WORK_DIR}/build" -DCMAKE_BUILD_TYPE=Release
         "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-Dkmask_ROOT=${WORK_DIR}/prefix" "-DKokkos_DIR=${Kokkos_DIR}")
run_step(${CMAKE_COMMAND} --build "${WORK_DIR}/build")
if(RUN)
  run_step("${WORK_DIR}/build/kmask_consumer")
else()
  message(STATUS "consumer check: built; not run (this build's default backend needs a GPU)")
endif()
