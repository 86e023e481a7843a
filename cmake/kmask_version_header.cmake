# Writes kmask/version.hpp from cmake/version.hpp.in for a build that is not the main project, with
# the version read from project(kmask VERSION ...) in the top-level CMakeLists.txt (the one place it
# is written). The main project configures the template itself from PROJECT_VERSION_*.
#   include(cmake/kmask_version_header.cmake), then kmask_write_version_header(<output file>)
#       (the standalone fuzz project)
#   cmake -DKMASK_VERSION_HEADER=<output file> -P cmake/kmask_version_header.cmake
#       (docs/check-docs.sh run by hand, without a build tree)
get_filename_component(KMASK_VERSION_HEADER_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

function(kmask_write_version_header out)
  file(STRINGS "${KMASK_VERSION_HEADER_ROOT}/CMakeLists.txt" line
       REGEX "^project\\(kmask VERSION [0-9]+\\.[0-9]+\\.[0-9]+")
  if(NOT line MATCHES "VERSION ([0-9]+)\\.([0-9]+)\\.([0-9]+)")
    message(FATAL_ERROR "kmask: no 'project(kmask VERSION X.Y.Z' line in ${KMASK_VERSION_HEADER_ROOT}/CMakeLists.txt")
  endif()
  set(PROJECT_VERSION_MAJOR ${CMAKE_MATCH_1})
  set(PROJECT_VERSION_MINOR ${CMAKE_MATCH_2})
  set(PROJECT_VERSION_PATCH ${CMAKE_MATCH_3})
  configure_file("${KMASK_VERSION_HEADER_ROOT}/cmake/version.hpp.in" "${out}" @ONLY)
  if(NOT CMAKE_SCRIPT_MODE_FILE)  # reconfigure when the version line changes
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${KMASK_VERSION_HEADER_ROOT}/CMakeLists.txt")
  endif()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND DEFINED KMASK_VERSION_HEADER)
  kmask_write_version_header("${KMASK_VERSION_HEADER}")
endif()
