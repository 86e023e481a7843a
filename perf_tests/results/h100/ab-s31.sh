#!/bin/bash
# Session 31, call 31.2: the threaded host pass of piece lists (move_bits_threaded_list.hpp) and the
# inline per-piece tests of the serial pass, against bbb0190. From the repository root, with these
# binaries carried: build/ab/s31/old_host_bench (bbb0190, host preset), build/ab/s31/new_host_bench
# and build/ab/s31/kmask_unit_tests_openmp (the change, host preset), build/ab/s29head (the CUDA
# benchmarks of bbb0190's GPU code, Kokkos 3.4.01), build/cuda (the change), build/device-libs.
# Alternated rounds: the host at 16 threads (threaded pass) and 1 (serial pass), the GPU's piece
# lists; then the CUDA and the OpenMP (16 threads) unit tests.
set -u
out=${OUT:-/tmp/kmask-ab}/record
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/build/device-libs PATH=$PATH:/usr/local/cuda/bin OMP_PROC_BIND=spread OMP_PLACES=threads
host='move_bits/(copy_bits|segmented_copy_bits|inplace_concatenate)/log_bits:(24|26)/|move_bits/small/'
gpu='move_bits/(copy_bits|segmented_copy_bits|inplace_concatenate)/log_bits:24/|move_bits/small/'
for r in 1 2 3; do
  for t in 16 1; do
    for b in old new; do
      OMP_NUM_THREADS=$t timeout 120 build/ab/s31/${b}_host_bench --benchmark_min_time=0.1 "--benchmark_filter=$host" \
        --benchmark_out="$out/ab-s31-host-t$t-$b$r.json" > /dev/null 2>&1
      echo "host t$t $b$r rc=$?"
    done
  done
  timeout 120 build/ab/s29head/kmask_benchmarks --benchmark_min_time=0.05 "--benchmark_filter=$gpu" \
    --benchmark_out="$out/ab-s31-gpu-old$r.json" > /dev/null 2>&1; echo "gpu old$r rc=$?"
  timeout 120 build/cuda/perf_tests/kmask_benchmarks --benchmark_min_time=0.05 "--benchmark_filter=$gpu" \
    --benchmark_out="$out/ab-s31-gpu-new$r.json" > /dev/null 2>&1; echo "gpu new$r rc=$?"
done
timeout 240 build/cuda/unit_tests/kmask_unit_tests_cuda > "$out/unit-tests-kokkos-3.4.01-call-31.2.log" 2>&1
echo "cuda unit tests rc=$?"; tail -3 "$out/unit-tests-kokkos-3.4.01-call-31.2.log"
OMP_NUM_THREADS=16 timeout 200 build/ab/s31/kmask_unit_tests_openmp > "$out/unit-tests-openmp16-call-31.2.log" 2>&1
echo "openmp unit tests rc=$?"; tail -3 "$out/unit-tests-openmp16-call-31.2.log"
