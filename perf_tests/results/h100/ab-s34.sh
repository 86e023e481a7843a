#!/bin/bash
# NOT MADE in session 34 (every device start refused); the next session can run it as is.
# Session 34, call 34.1: bd3cb9f's device-range slices (counted by each team thread's lanes, 40
# bytes of spills; HEAD bc9b100 has the same GPU code) against 9aaa695's benchmarks (no split) and a
# variant with count_gpu_range_teams_per_sm = 3 (80 registers: no spills); the CUDA unit tests and
# the device-range tests under memcheck; then ncu of superimpose_nulls_tree's general walk (the
# 1 x 8 x 8 struct at 2^24 bits, aligned and sliced: 0.67-0.71 of a copy, "open" in
# misses-session30.md). From the repository root with these carried: build/cuda/perf_tests/
# kmask_benchmarks, build/cuda/unit_tests/kmask_unit_tests_cuda, build/ab/s33/mid_cuda_bench,
# build/ab/s34/tps3_bench, build/device-libs, build/probes/tree_walk_shapes (perf_tests/probes/
# tree_walk_shapes.cu, nvcc -O3 -arch=sm_90: the raw limit of the tree's walk).
# AB_UNTIL and NCU_UNTIL (seconds into the call) end the A/B rounds and the ncu runs earlier.
set -u
call=${CALL:-34.1} tag=${TAG:-ab-s34}
out=${OUT:-/tmp/kmask-ab}/record
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/build/device-libs PATH=$PATH:/usr/local/cuda/bin
new=build/cuda/perf_tests/kmask_benchmarks old=build/ab/s33/mid_cuda_bench tps3=build/ab/s34/tps3_bench
cells='inplace_segmented_count_set_bits/|segmented_count_set_bits/ranges|count_set_bits/27'
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 200 build/cuda/unit_tests/kmask_unit_tests_cuda --gtest_brief=1 > "$out/unit-tests-kokkos-3.4.01-call-$call.log" 2>&1
echo "cuda unit tests rc=$?"; grep -E "FAILED|Failure" "$out/unit-tests-kokkos-3.4.01-call-$call.log" | head; tail -3 "$out/unit-tests-kokkos-3.4.01-call-$call.log"
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 build/cuda/unit_tests/kmask_unit_tests_cuda --gtest_brief=1 \
  '--gtest_filter=*device_range*:*range_lists*' > "$out/memcheck-device-ranges-call-$call.log" 2>&1
echo "memcheck rc=$?"; tail -2 "$out/memcheck-device-ranges-call-$call.log"
for lb in 24; do
  PROBE_BITS=$lb timeout 60 build/probes/tree_walk_shapes > "$out/probe-tree-walk-$lb-call-$call.txt" 2>&1
  echo "probe $lb rc=$?"; cat "$out/probe-tree-walk-$lb-call-$call.txt"
done
timeout 40 $new --benchmark_min_time=0.1 '--benchmark_filter=superimpose_nulls_tree' --benchmark_out="$out/tree-call-$call.json" > /dev/null 2>&1
echo "tree bench rc=$? at ${SECONDS}s"
for r in 1 2 3; do
  for v in old new tps3; do
    [ "$SECONDS" -lt ${AB_UNTIL:-230} ] || break 2
    timeout 60 ${!v} --benchmark_min_time=0.1 "--benchmark_filter=$cells" --benchmark_out="$out/$tag-gpu-$v$r.json" > /dev/null 2>&1
    echo "gpu $v$r rc=$? at ${SECONDS}s"
  done
done
for shape in aligned sliced; do
  [ "$SECONDS" -lt ${NCU_UNTIL:-260} ] || break
  timeout 60 ncu --clock-control none --kernel-name-base demangled -k "regex:tree_gpu_functor" \
    --launch-skip 4 --launch-count 1 --section SpeedOfLight --section LaunchStats --section Occupancy \
    --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
    $new --benchmark_min_time=0.001 "--benchmark_filter=^superimpose_nulls_tree/struct:1x8x8/bits:16777216/$shape" \
    > "$out/ncu-tree-$shape-call-$call.txt" 2>&1
  echo "ncu $shape rc=$? $(grep -E ' Duration|DRAM Throughput|Achieved Occupancy|Registers Per' "$out/ncu-tree-$shape-call-$call.txt" | tr -s ' ' | tr '\n' ';')"
done
tar -C "$out" -czf "${OUT:-/tmp/kmask-ab}/record-$call.tar.gz" .
