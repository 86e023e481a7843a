#!/bin/bash
# Session 33, call 33.2: device-range counts that split long ranges into team slices (7dbf91d)
# against 9aaa695's benchmarks (host lists by the lanes kernel, no split). From the repository root
# with these carried: build/ab/s33/mid_cuda_bench (9aaa695's CUDA benchmarks),
# build/cuda/perf_tests/kmask_benchmarks and build/cuda/unit_tests/kmask_unit_tests_cuda (7dbf91d,
# Kokkos 3.4.01), build/device-libs. The CUDA unit tests, the device-range tests under
# compute-sanitizer memcheck, three alternated rounds of the counting cells. CALL and TAG name
# another call's files (ab-s33c.sh).
set -u
call=${CALL:-33.2} tag=${TAG:-ab-s33b}
out=${OUT:-/tmp/kmask-ab}/record
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/build/device-libs PATH=$PATH:/usr/local/cuda/bin
new=build/cuda/perf_tests/kmask_benchmarks old=build/ab/s33/mid_cuda_bench
cells='inplace_segmented_count_set_bits/|segmented_count_set_bits/ranges|count_set_bits/27'
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 200 build/cuda/unit_tests/kmask_unit_tests_cuda --gtest_brief=1 > "$out/unit-tests-kokkos-3.4.01-call-$call.log" 2>&1
echo "cuda unit tests rc=$?"; grep -E "FAILED|Failure" "$out/unit-tests-kokkos-3.4.01-call-$call.log" | head; tail -3 "$out/unit-tests-kokkos-3.4.01-call-$call.log"
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 build/cuda/unit_tests/kmask_unit_tests_cuda --gtest_brief=1 \
  '--gtest_filter=*device_range*:*range_lists*' > "$out/memcheck-device-ranges-call-$call.log" 2>&1
echo "memcheck rc=$?"; tail -4 "$out/memcheck-device-ranges-call-$call.log"
for r in 1 2 3; do
  for v in old new; do
    [ "$SECONDS" -lt 500 ] || break 2
    timeout 70 ${!v} --benchmark_min_time=0.1 "--benchmark_filter=$cells" --benchmark_out="$out/$tag-gpu-$v$r.json" > /dev/null 2>&1
    echo "gpu $v$r rc=$? at ${SECONDS}s"
  done
done
tar -C "$out" -czf "${OUT:-/tmp/kmask-ab}/record-$call.tar.gz" .
