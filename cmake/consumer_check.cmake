# The ways a user's project consumes kmask, each as a user would do it (cmake -P, one MODE per test):
#   install           install the kmask build in KMASK_BUILD_DIR into a fresh prefix; the consumer
#                     (examples/consumer) finds it with find_package and no Kokkos hint of its own:
#                     kmaskConfig.cmake must find the Kokkos kmask was built with
#   build_tree        the consumer finds the build tree itself (kmask_DIR=<build>, the export())
#   fetchcontent      examples/consumer/fetchcontent: FetchContent from the source tree on the
#                     Kokkos the consumer found itself
#   add_subdirectory  examples/consumer/add_subdirectory: add_subdirectory(<Kokkos source>) then
#                     add_subdirectory(<kmask source>) (Serial only: the path is what is tested)
#   mismatch          a consumer on a different Kokkos must be refused with a message naming both:
#                     fake Kokkos packages (a config and a version file, as Kokkos installs them)
#                     with another version, then with other devices, are refused; one equal to the
#                     real Kokkos is accepted (so the refusals come from the comparison)
# Every mode but mismatch builds the consumer and, when RUN, runs it.
foreach(var MODE KMASK_BUILD_DIR KMASK_SOURCE_DIR CONSUMER_SOURCE_DIR WORK_DIR CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "consumer_check.cmake: ${var} is not set")
  endif()
endforeach()
# What the consumer is given is decided here, not by the shell that runs ctest.
unset(ENV{Kokkos_ROOT})
unset(ENV{kmask_ROOT})
unset(ENV{CMAKE_PREFIX_PATH})

function(run_step)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer check (${MODE}): '${ARGV}' failed (${rc})")
  endif()
endfunction()

function(build_and_run build_dir)
  run_step(${CMAKE_COMMAND} --build "${build_dir}" --target kmask_consumer -j 2)
  if(RUN)
    run_step("${build_dir}/kmask_consumer")
  else()
    message(STATUS "consumer check (${MODE}): built; not run (this build's default backend needs a GPU)")
  endif()
endfunction()

set(common -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
file(REMOVE_RECURSE "${WORK_DIR}")

if(MODE STREQUAL "install")
  run_step(${CMAKE_COMMAND} --install "${KMASK_BUILD_DIR}" --prefix "${WORK_DIR}/prefix")
  run_step(${CMAKE_COMMAND} -S "${CONSUMER_SOURCE_DIR}" -B "${WORK_DIR}/build" ${common}
           "-Dkmask_ROOT=${WORK_DIR}/prefix")
  build_and_run("${WORK_DIR}/build")
elseif(MODE STREQUAL "build_tree")
  run_step(${CMAKE_COMMAND} -S "${CONSUMER_SOURCE_DIR}" -B "${WORK_DIR}/build" ${common}
           "-Dkmask_DIR=${KMASK_BUILD_DIR}")
  build_and_run("${WORK_DIR}/build")
elseif(MODE STREQUAL "fetchcontent")
  run_step(${CMAKE_COMMAND} -S "${CONSUMER_SOURCE_DIR}/fetchcontent" -B "${WORK_DIR}/build" ${common}
           "-DKokkos_DIR=${Kokkos_DIR}" "-DKMASK_SOURCE_DIR=${KMASK_SOURCE_DIR}")
  build_and_run("${WORK_DIR}/build")
elseif(MODE STREQUAL "add_subdirectory")
  if(NOT IS_DIRECTORY "${KOKKOS_SOURCE_DIR}")
    message(STATUS "consumer check (add_subdirectory): skipped: no Kokkos source tree given "
                   "(configure kmask with -DKMASK_TEST_KOKKOS_SOURCE_DIR=<Kokkos ${KOKKOS_VERSION} source>; "
                   "scripts/test passes the one scripts/install-deps --kokkos-source unpacks)")
    return()  # the test's SKIP_REGULAR_EXPRESSION makes ctest report it as skipped, not passed
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -S "${CONSUMER_SOURCE_DIR}/add_subdirectory" -B "${WORK_DIR}/build"
                          ${common} "-DKOKKOS_SOURCE_DIR=${KOKKOS_SOURCE_DIR}" "-DKMASK_SOURCE_DIR=${KMASK_SOURCE_DIR}"
                          -DKokkos_ENABLE_SERIAL=ON "-DCMAKE_CXX_STANDARD=${CXX_STANDARD}" ${KOKKOS_SUBDIRECTORY_OPTIONS}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer check (add_subdirectory): configure failed (${rc}):\n${out}${err}")
  endif()
  # kmask must have taken the parent's Kokkos and know what it is (its package config records it).
  if(NOT out MATCHES "kmask: Kokkos ([^ ]+) \\(([A-Z;]*)\\) of the parent project" OR
     NOT CMAKE_MATCH_1 VERSION_EQUAL KOKKOS_VERSION OR NOT CMAKE_MATCH_2 STREQUAL "SERIAL")
    message(FATAL_ERROR "consumer check (add_subdirectory): kmask did not report the parent's Kokkos "
                        "${KOKKOS_VERSION} (SERIAL):\n${out}")
  endif()
  build_and_run("${WORK_DIR}/build")
elseif(MODE STREQUAL "mismatch")
  foreach(var KOKKOS_VERSION KOKKOS_DEVICES)
    if(NOT DEFINED ${var})
      message(FATAL_ERROR "consumer_check.cmake: ${var} is not set")
    endif()
  endforeach()
  run_step(${CMAKE_COMMAND} --install "${KMASK_BUILD_DIR}" --prefix "${WORK_DIR}/prefix")
  string(REPLACE "," ";" devices "${KOKKOS_DEVICES}")
  # fake_kokkos(<name> <version> <devices...>): a Kokkos package that only says what it is.
  function(fake_kokkos name version)
    set(dir "${WORK_DIR}/${name}/lib/cmake/Kokkos")
    file(WRITE "${dir}/KokkosConfigVersion.cmake"
         "set(PACKAGE_VERSION \"${version}\")\nset(PACKAGE_VERSION_COMPATIBLE TRUE)\n")
    file(WRITE "${dir}/KokkosConfig.cmake"
         "set(Kokkos_DEVICES ${ARGN})\nadd_library(Kokkos::kokkos INTERFACE IMPORTED)\n")
  endfunction()
  # consume(<name> <expect: refused|accepted> <texts the output must contain...>)
  function(consume name expect)
    execute_process(COMMAND ${CMAKE_COMMAND} -S "${CONSUMER_SOURCE_DIR}" -B "${WORK_DIR}/build-${name}" ${common}
                            "-Dkmask_ROOT=${WORK_DIR}/prefix" "-DKokkos_DIR=${WORK_DIR}/${name}/lib/cmake/Kokkos"
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    set(out "${out}${err}")
    string(REGEX REPLACE "[ \t\r\n]+" " " flat "${out}")  # CMake wraps long messages
    if(expect STREQUAL "refused" AND rc EQUAL 0)
      message(FATAL_ERROR "consumer check (mismatch): a consumer on Kokkos '${name}' was configured:\n${out}")
    endif()
    if(expect STREQUAL "accepted" AND NOT rc EQUAL 0)
      message(FATAL_ERROR "consumer check (mismatch): a consumer on Kokkos '${name}' was refused:\n${out}")
    endif()
    foreach(text IN LISTS ARGN)
      string(FIND "${flat}" "${text}" at)
      if(at EQUAL -1)
        message(FATAL_ERROR "consumer check (mismatch): '${name}': the output lacks \"${text}\":\n${out}")
      endif()
    endforeach()
    message(STATUS "consumer check (mismatch): Kokkos '${name}' ${expect} as it should be")
  endfunction()

  string(REPLACE ";" "," built_devices "${devices}")
  set(other_version 9.8.7)
  if(KOKKOS_VERSION VERSION_EQUAL other_version)
    set(other_version 9.8.6)
  endif()
  fake_kokkos(other-version ${other_version} ${devices})
  consume(other-version refused "was built with Kokkos ${KOKKOS_VERSION} (devices ${built_devices})"
          "this project uses Kokkos ${other_version} (devices ${built_devices})" "other-version/lib/cmake/Kokkos")
  fake_kokkos(other-devices ${KOKKOS_VERSION} THREADS)
  consume(other-devices refused "was built with Kokkos ${KOKKOS_VERSION} (devices ${built_devices})"
          "this project uses Kokkos ${KOKKOS_VERSION} (devices THREADS)")
  fake_kokkos(same ${KOKKOS_VERSION} ${devices})
  consume(same accepted)
else()
  message(FATAL_ERROR "consumer_check.cmake: unknown MODE '${MODE}'")
endif()
