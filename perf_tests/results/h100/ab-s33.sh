#!/bin/bash
# Session 33, call 33.1: host range lists on the GPU checked and uploaded by chunks and counted by
# the device-range kernel's lanes (this session's change) against 828251f's benchmarks; the raw
# shapes of a device-range count (perf_tests/probes/range_count_shapes.cu). From the repository
# root with these carried: build/probes (the probe, nvcc -O3 -arch=sm_90), build/ab/s33/old_cuda_bench
# (828251f's CUDA benchmarks), build/cuda/perf_tests/kmask_benchmarks and
# build/cuda/unit_tests/kmask_unit_tests_cuda (the new code, Kokkos 3.4.01), build/device-libs.
set -u
out=${OUT:-/tmp/kmask-ab}/record
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/build/device-libs PATH=$PATH:/usr/local/cuda/bin
new=build/cuda/perf_tests/kmask_benchmarks old=build/ab/s33/old_cuda_bench
cells='inplace_segmented_count_set_bits/|segmented_count_set_bits/ranges|count_set_bits/27'
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 90 build/probes/range_count_shapes > "$out/probe-range-count-call-33.1.txt" 2>&1
echo "probe rc=$?"
timeout 200 build/cuda/unit_tests/kmask_unit_tests_cuda --gtest_brief=1 > "$out/unit-tests-kokkos-3.4.01-call-33.1.log" 2>&1
echo "cuda unit tests rc=$?"; tail -3 "$out/unit-tests-kokkos-3.4.01-call-33.1.log"
for r in 1 2 3; do
  for v in old new; do
    [ "$SECONDS" -lt 480 ] || break 2
    timeout 60 ${!v} --benchmark_min_time=0.1 "--benchmark_filter=$cells" --benchmark_out="$out/ab-s33-gpu-$v$r.json" > /dev/null 2>&1
    echo "gpu $v$r rc=$? at ${SECONDS}s"
  done
done
tar -C "$out" -czf "${OUT:-/tmp/kmask-ab}/record-33.1.tar.gz" .
