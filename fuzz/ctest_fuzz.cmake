add_test(NAME kmask.fuzz.60s COMMAND ${CMAKE_CURRENT_LIST_DIR}/run.sh 60 -seed=20261129)
set_tests_properties(kmask.fuzz.60s PROPERTIES TIMEOUT 600)
