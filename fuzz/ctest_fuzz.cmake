add_test(NAME kmask.fuzz.60s COMMAND ${CMAKE_CURRENT_LIST_DIR}/run.sh 60 -seed=20261129)
set_tests_properties(kmask.fuzz.60s PROPERTIES TIMEOUT 600)
add_test(NAME kmask.fuzz.gpu_form.30s COMMAND ${CMAKE_CURRENT_LIST_DIR}/run.sh 30 -seed=20261129)
set_tests_properties(kmask.fuzz.gpu_form.30s PROPERTIES TIMEOUT 600
                     ENVIRONMENT KMASK_FUZZ_TARGET=fuzz_segmented_binop_gpu_form)
