# Registers the kmask.docs test (docs/check-docs.sh: doxygen on docs/Doxyfile, failing on any
# warning) when doxygen is installed. include() it from the top-level CMakeLists.txt after
# enable_testing(); without doxygen the test is simply not registered.
find_program(DOXYGEN_EXECUTABLE doxygen)
if(DOXYGEN_EXECUTABLE)
  add_test(NAME kmask.docs
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/check-docs.sh ${DOXYGEN_EXECUTABLE}
           WORKING_DIRECTORY ${CMAKE_CURRENT_LIST_DIR}/..)
  # The generated kmask/version.hpp is documented from this build tree (configure_file in CMakeLists.txt).
  set_tests_properties(kmask.docs PROPERTIES LABELS docs
                       ENVIRONMENT KMASK_DOCS_GENERATED_INCLUDE=${PROJECT_BINARY_DIR}/include)
else()
  message(STATUS "kmask: doxygen not found, the kmask.docs test is not registered")
endif()
