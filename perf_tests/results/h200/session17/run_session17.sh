#!/bin/bash
# Session 17's device runs (the H200 machine, from the repository root). Binaries built on the
# development machine and carried: build/cuda (Kokkos 3.4.01, the working tree), build/before-s17
# (5b29a1b's benchmarks: the counting kernels main had at the session's start), build/k46-cuda (the
# working tree against Kokkos 4.6.01, built outside the repository as docs/kokkos-versions.md
# says), build/device-libs.
# Usage: run_session17.sh STEP... ; results under /tmp/s17, tarred into $OUT/s17.tar.gz.
# bench(), prof() and gpu_info() are in ../device_helpers.sh.
set -u
export LD_LIBRARY_PATH=$PWD/build/device-libs PATH=$PATH:/usr/local/cuda/bin
o=/tmp/s17
mkdir -p "$o"
. "$(dirname "$0")/../device_helpers.sh"
counts='count_set_bits/|segmented_count_set_bits/|batch_count/'
# Issue 18's cells as session 10 chose them: counts, copies, few-segment in-place cells, allocating cells.
i18='count_set_bits/|segmented_count_set_bits/ranges:1000/27|inplace_segmented_count_set_bits/27/|copy_bitmask/(24|27)/|segmented_binop/inplace/and/segments:10/masks:(4|16)/bits:(1048576|16777216)/|segmented_binop/alloc/and/segments:(1000|10000)/masks:(4|16)/bits:128/|segmented_binop/alloc/and/segments:(10|100)/masks:4/bits:1048576/'
for s in "$@"; do
  case $s in
    info) gpu_info ;;
    tests) cuda_unit_tests ;;
    tests46)
      timeout 300 build/k46-cuda/unit_tests/kmask_unit_tests_cuda > "$o/unit-tests-cuda-kokkos-4.6.01.log" 2>&1
      echo "tests 4.6.01 rc=$? $(tail -3 "$o/unit-tests-cuda-kokkos-4.6.01.log" | tr '\n' ' ')"
      ;;
    counts)
      # The counting calls: new against before, alternated, two rounds.
      for r in 1 2; do
        bench build/cuda/perf_tests/kmask_benchmarks "counts-new-$r" 0.05 "$counts"
        bench build/before-s17/kmask_benchmarks "counts-before-$r" 0.05 "$counts"
      done
      ;;
    table)
      # Batch counts with a team-to-range table instead of a binary search (build/s17-table: the
      # working tree with that change) against build/cuda (c5e899f) and before, alternated.
      for r in 1 2; do
        bench build/s17-table/kmask_benchmarks "counts-table-$r" 0.05 "$counts"
        bench build/cuda/perf_tests/kmask_benchmarks "counts-c5e899f-$r" 0.05 "$counts"
        bench build/before-s17/kmask_benchmarks "counts-before-$r" 0.05 "$counts"
      done
      timeout 120 ncu --clock-control none --kernel-name-base demangled -k "regex:batch_count" --launch-skip 3 \
        --launch-count 2 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
        build/s17-table/kmask_benchmarks --benchmark_min_time=0.001 \
        "--benchmark_filter=inplace_segmented_count_set_bits/27/1000/" > "$o/ncu-boost-table-segmented-27-1000.txt" 2>&1
      echo "ncu table rc=$?"
      ;;
    final)
      # The final tree (build/cuda, build/k46-cuda) and count_gpu_teams_per_sm = 3 (build/var-t3,
      # override-t3.hpp), alternated.
      for r in 1 2; do
        bench build/cuda/perf_tests/kmask_benchmarks "counts-final-$r" 0.05 "$counts"
        bench build/var-t3/perf_tests/kmask_benchmarks "counts-var-t3-$r" 0.05 "$counts"
        bench build/k46-cuda/perf_tests/kmask_benchmarks "counts-final-k46-$r" 0.05 "$counts"
      done
      timeout 120 ncu --clock-control none --kernel-name-base demangled -k "regex:count_stride" --launch-skip 3 \
        --launch-count 2 --section SpeedOfLight --section Occupancy --section LaunchStats \
        build/var-t3/perf_tests/kmask_benchmarks --benchmark_min_time=0.001 "--benchmark_filter=count_set_bits/30/" \
        > "$o/ncu-boost-var-t3-count_set_bits-30.txt" 2>&1
      echo "ncu t3 rc=$?"
      ;;
    i18)
      # Issue 18's cells on the final library, Kokkos 3.4.01 and 4.6.01 alternated.
      for r in 1 2; do
        KMASK_BENCH_NO_PEERS=1 bench build/cuda/perf_tests/kmask_benchmarks "i18-k34-$r" 0.02 "$i18"
        KMASK_BENCH_NO_PEERS=1 bench build/k46-cuda/perf_tests/kmask_benchmarks "i18-k46-$r" 0.02 "$i18"
      done
      ;;
    sanitize)
      # compute-sanitizer over the tests of this session's kernels and of the staging leases.
      for t in memcheck racecheck synccheck; do
        f='*count*:*batch*:*concurrent*:*destroyed*:*staging*'
        [ "$t" = racecheck ] && f='*count*:*batch*'
        timeout 200 compute-sanitizer --tool $t --error-exitcode 9 build/cuda/unit_tests/kmask_unit_tests_cuda \
          "--gtest_filter=$f" > "$o/sanitize-$t.log" 2>&1
        echo "sanitize $t rc=$? $(grep -E 'PASSED|FAILED|ERROR SUMMARY|RACECHECK SUMMARY' "$o/sanitize-$t.log" | tr '\n' ' ')"
      done
      ;;
    k46)
      # The same cells on the Kokkos 4.6.01 build (no 4.6.01 "before" binary: session 11-12's
      # records are the earlier 4.6.01 numbers).
      for r in 1 2; do
        bench build/k46-cuda/perf_tests/kmask_benchmarks "counts-k46-$r" 0.05 "$counts"
      done
      ;;
    ncuboost)
      # The count kernel at the clocks the benchmarks run at (the driver's), both alignments.
      for f in count_set_bits/30 count_set_bits/unaligned/30; do
        n=$(echo "$f" | tr '/' '-')
        timeout 120 ncu --clock-control none --kernel-name-base demangled -k "regex:count_stride" --launch-skip 3 \
          --launch-count 2 --section SpeedOfLight --section Occupancy --section LaunchStats \
          build/cuda/perf_tests/kmask_benchmarks --benchmark_min_time=0.001 "--benchmark_filter=$f/" \
          > "$o/ncu-boost-$n.txt" 2>&1
        echo "ncu $n rc=$?"
      done
      ;;
    probe)
      # Where the 1000-range segmented counts spend their time: the batch kernel under ncu (the
      # driver's clocks), a timeline of one cell when nsys is there, and the allocating 2^20-bit
      # cell alone (new, before) to see whether its 8 us gap in the full run follows the cells run
      # before it.
      timeout 120 ncu --clock-control none --kernel-name-base demangled -k "regex:batch_count" --launch-skip 3 \
        --launch-count 2 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
        build/cuda/perf_tests/kmask_benchmarks --benchmark_min_time=0.001 \
        "--benchmark_filter=inplace_segmented_count_set_bits/27/1000/" > "$o/ncu-boost-segmented-27-1000.txt" 2>&1
      echo "ncu segmented rc=$?"
      if command -v nsys > /dev/null; then
        timeout 150 nsys profile -o "$o/seg1000" --stats=true --force-overwrite true \
          build/cuda/perf_tests/kmask_benchmarks --benchmark_min_time=0.02 \
          "--benchmark_filter=inplace_segmented_count_set_bits/27/1000/" > "$o/nsys-segmented-27-1000.txt" 2>&1
        echo "nsys rc=$?"
        rm -f "$o"/seg1000.nsys-rep "$o"/seg1000.sqlite
      else
        echo "no nsys: $(ls /usr/local/cuda/bin | tr '\n' ' ')" > "$o/nsys-absent.txt"
      fi
      for r in 1 2; do
        bench build/cuda/perf_tests/kmask_benchmarks "alone-new-$r" 0.05 'segmented_count_set_bits/ranges:1000/20/'
        bench build/before-s17/kmask_benchmarks "alone-before-$r" 0.05 'segmented_count_set_bits/ranges:1000/20/'
      done
      ;;
  esac
  tar -czf "$OUT/s17.tar.gz" -C /tmp s17
done
