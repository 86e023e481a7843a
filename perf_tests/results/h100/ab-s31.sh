#!/bin/bash
# Session 31, call 31.2: the threaded piece-list pass (move_bits_threaded_list.hpp) against bbb0190
# on the device machine's host cores, from the repository root with these host-preset binaries
# carried: build/ab/s31/old_host_bench (bbb0190), build/ab/s31/new_host_bench and
# build/ab/s31/kmask_unit_tests_openmp (the change), build/device-libs. Three alternated rounds
# at 16 and 4 threads, then the OpenMP unit tests at 16 threads.
set -u
out=${OUT:-/tmp/kmask-ab}/record
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/build/device-libs OMP_PROC_BIND=spread OMP_PLACES=threads
f='move_bits/(copy_bits|segmented_copy_bits|inplace_concatenate)/log_bits:(24|26)/|move_bits/small/'
for t in 16 4; do
  for r in 1 2 3; do
    for b in old new; do
      OMP_NUM_THREADS=$t timeout 120 build/ab/s31/${b}_host_bench --benchmark_min_time=0.1 "--benchmark_filter=$f" \
        --benchmark_out="$out/ab-s31-t$t-$b$r.json" > /dev/null 2>&1
      echo "t$t $b$r rc=$?"
    done
  done
done
OMP_NUM_THREADS=16 timeout 300 build/ab/s31/kmask_unit_tests_openmp > "$out/unit-tests-openmp-s31.log" 2>&1
echo "unit tests rc=$?"; tail -3 "$out/unit-tests-openmp-s31.log"
