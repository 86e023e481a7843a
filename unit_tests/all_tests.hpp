// Every test body, for the execution space the including backend file names as TEST_EXECSPACE.
#ifndef TEST_EXECSPACE
#error "define TEST_EXECSPACE and TEST_CATEGORY before including all_tests.hpp"
#endif

#include "test_support.hpp"

using namespace kmask_test;

#include "tests/test_sizes_and_create.hpp"
#include "tests/test_count.hpp"
#include "tests/test_count_device_ranges.hpp"
#include "tests/test_host_simd.hpp"
#include "tests/test_copy.hpp"
#include "tests/test_segmented_binop.hpp"
#include "tests/test_binop_and_superimpose.hpp"
#include "tests/test_errors.hpp"
#include "tests/test_big_and_repeat.hpp"
#include "tests/test_edges.hpp"
#include "tests/test_absent_and_pointer_forms.hpp"
#include "tests/test_determinism.hpp"
#include "tests/test_resources.hpp"
#include "tests/test_profiling_labels.hpp"
#include "tests/test_concurrency.hpp"
#include "tests/test_staging_pool.hpp"
#include "tests/test_inverted_and_batch_count.hpp"
#include "tests/test_move_bits.hpp"
#include "tests/test_bulk_runs.hpp"
#include "tests/test_superimpose_tree.hpp"
#include "tests/test_make_masks.hpp"
#include "tests/test_inverted_new_calls.hpp"
#include "tests/test_threaded_piece_lists.hpp"
#include "tests/test_host_range_lists.hpp"
