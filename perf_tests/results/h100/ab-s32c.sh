#!/bin/bash
# Session 32, call 32.4: device-range counts a team a range where the mean range fills a team
# (7e37fb4) against 46d5837's GPU code (5f0cab2's). From the repository root with these carried:
# build/ab/s32/old_cuda_bench (46d5837's CUDA benchmarks), build/cuda/perf_tests/kmask_benchmarks
# and build/cuda/unit_tests/kmask_unit_tests_cuda (7e37fb4, Kokkos 3.4.01), build/device-libs.
# The CUDA unit tests; three alternated rounds of the segmented-count cells; ncu of the new kernel.
set -u
out=${OUT:-/tmp/kmask-ab}/record
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/build/device-libs PATH=$PATH:/usr/local/cuda/bin
new=build/cuda/perf_tests/kmask_benchmarks old=build/ab/s32/old_cuda_bench
cells='inplace_segmented_count_set_bits/|segmented_count_set_bits/ranges|count_set_bits/27'
timeout 200 build/cuda/unit_tests/kmask_unit_tests_cuda --gtest_brief=1 > "$out/unit-tests-kokkos-3.4.01-call-32.4.log" 2>&1
echo "cuda unit tests rc=$?"; tail -3 "$out/unit-tests-kokkos-3.4.01-call-32.4.log"
for r in 1 2 3; do
  for v in old new; do
    [ "$SECONDS" -lt 420 ] || break 2
    timeout 60 ${!v} --benchmark_min_time=0.1 "--benchmark_filter=$cells" --benchmark_out="$out/ab-s32c-gpu-$v$r.json" > /dev/null 2>&1
    echo "gpu $v$r rc=$? at ${SECONDS}s"
  done
done
timeout 100 ncu --clock-control none --kernel-name-base demangled -k "regex:device_long_range_count_functor" \
  --launch-skip 6 --launch-count 1 --section SpeedOfLight --section LaunchStats --section Occupancy \
  $new --benchmark_min_time=0.001 "--benchmark_filter=^inplace_segmented_count_set_bits/device_ranges/27/1000/" \
  > "$out/ncu-long-device-ranges-1000-call-32.4.txt" 2>&1
echo "ncu rc=$? $(grep -E ' Duration|Grid Size|DRAM Throughput|Achieved Occupancy' "$out/ncu-long-device-ranges-1000-call-32.4.txt" | tr -s ' ' | tr '\n' ';')"
tar -C "$out" -czf "${OUT:-/tmp/kmask-ab}/record-32.4.tar.gz" .
