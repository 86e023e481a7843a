#!/bin/bash
# Session 11's device runs (the H200 machine, from the repository root). Binaries built on the
# development machine and carried: build/cuda (Kokkos 3.4.01), build/k46-cuda (Kokkos 4.6.01),
# build/s10-before (7b85507: the counting kernels before this session), build/host (Serial +
# OpenMP), build/host-before (bf2a9bb's host build, from its fresh-clone CI), build/device-libs.
# Usage: run_session11.sh STEP... ; results under $OUT/s11, tarred into $OUT/s11.tar.gz.
set -u
export LD_LIBRARY_PATH=$PWD/build/device-libs OMP_PROC_BIND=spread OMP_PLACES=threads
o=$OUT/s11
mkdir -p "$o"
# bench BINARY NAME MIN_TIME FILTER [extra args]
bench() {
  local bin=$1 name=$2 t=$3 f=$4
  shift 4
  timeout 240 "$bin" --benchmark_min_time="$t" "--benchmark_filter=$f" --benchmark_out="$o/$name.json" \
    --benchmark_out_format=json --benchmark_counters_tabular=true "$@" > "$o/$name.txt" 2>&1
  echo "$name rc=$? $(grep -c manual_time "$o/$name.txt") cells"
}
# The counting and copying cells of issue 18.
counts='count_set_bits/|segmented_count_set_bits/ranges:1000/|inplace_segmented_count_set_bits/|copy_bitmask/(24|27|30)/'
for s in "$@"; do
  case $s in
    info)
      nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
        --format=csv > "$o/gpu.txt" 2>&1
      grep -m1 -o 'flags.*' /proc/cpuinfo | tr ' ' '\n' | grep -E 'popcnt|avx2|avx512' | tr '\n' ' ' > "$o/cpu-flags.txt"
      ;;
    tests)
      timeout 300 build/cuda/unit_tests/kmask_unit_tests_cuda > "$o/unit-tests-cuda-kokkos-3.4.01.log" 2>&1
      echo "tests 3.4.01 rc=$? $(tail -3 "$o/unit-tests-cuda-kokkos-3.4.01.log" | tr '\n' ' ')"
      ;;
    tests46)
      timeout 300 build/k46-cuda/unit_tests/kmask_unit_tests_cuda --gtest_filter='*count*' > "$o/unit-tests-cuda-kokkos-4.6.01-counts.log" 2>&1
      echo "tests 4.6.01 rc=$? $(tail -3 "$o/unit-tests-cuda-kokkos-4.6.01-counts.log" | tr '\n' ' ')"
      ;;
    counts)
      # New and before alternated, two rounds, then the Kokkos 4.6.01 build of the new code.
      for r in 1 2; do
        KMASK_BENCH_NO_PEERS=1 bench build/cuda/perf_tests/kmask_benchmarks "counts-new-$r" 0.05 "$counts"
        KMASK_BENCH_NO_PEERS=1 bench build/s10-before/perf_tests/kmask_benchmarks "counts-before-$r" 0.05 "$counts"
      done
      ;;
    counts46)
      KMASK_BENCH_NO_PEERS=1 bench build/k46-cuda/perf_tests/kmask_benchmarks counts-k46-1 0.05 "$counts"
      ;;
    hosttests)
      for b in openmp serial; do
        timeout 200 build/host/unit_tests/kmask_unit_tests_$b --gtest_filter='*count*' > "$o/unit-tests-host-$b-counts.log" 2>&1
        echo "host tests $b rc=$? $(tail -3 "$o/unit-tests-host-$b-counts.log" | tr '\n' ' ')"
      done
      ;;
    hostbench)
      # The host OpenMP counts (AVX-512 where the processor has it) against bf2a9bb's, alternated.
      h='count_set_bits/(24|27|30)|segmented_count_set_bits/ranges:1000/(24|27)|inplace_segmented_count_set_bits/|batch_count/unset/masks:100/total_bits:(16777216|134217728)/'
      for r in 1 2; do
        bench build/host/perf_tests/kmask_benchmarks "host-new-$r" 0.05 "$h"
        bench build/host-before/perf_tests/kmask_benchmarks "host-before-$r" 0.05 "$h"
      done
      ;;
    move)
      # The moving kernel with its loads issued before its stores (new: a change measured in run 3
      # and not committed) against 7b85507 (before), alternated, with copy_bitmask (its copy into a
      # destination is that kernel).
      m='move_bits/|copy_bitmask/(24|27|30)/'
      for r in 1 2; do
        KMASK_BENCH_NO_PEERS=1 bench build/cuda/perf_tests/kmask_benchmarks "move-new-$r" 0.05 "$m"
        KMASK_BENCH_NO_PEERS=1 bench build/s10-before/perf_tests/kmask_benchmarks "move-before-$r" 0.05 "$m"
      done
      ;;
    ncu)
      for cell in count_set_bits/27/ count_set_bits/30/ inplace_segmented_count_set_bits/27/1000/ \
        inplace_segmented_count_set_bits/27/100000/; do
        echo "##### $cell" >> "$o/ncu-counts.txt"
        timeout 100 ncu --clock-control none --kernel-name-base demangled -k regex:kmask --launch-skip 2 \
          --launch-count 2 --section SpeedOfLight --section Occupancy --section LaunchStats \
          build/cuda/perf_tests/kmask_benchmarks --benchmark_min_time=0.001 "--benchmark_filter=$cell" \
          >> "$o/ncu-counts.txt" 2>&1
      done
      ;;
  esac
done
tar -czf "$OUT/s11.tar.gz" -C "$OUT" s11
