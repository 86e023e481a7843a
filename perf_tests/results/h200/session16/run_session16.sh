#!/bin/bash
# Session 16's device runs (the H200 machine, from the repository root). Binaries built on the
# development machine and carried: build/cuda (Kokkos 3.4.01, the working tree), build/before
# (4896a0f's benchmarks, main at the session's start), build/var-* (when present: the working tree
# built with perf_tests/results/h200/session16/override-*.hpp), build/device-libs.
# Usage: run_session16.sh STEP... ; results under /tmp/s16, tarred into $OUT/s16.tar.gz.
# bench(), prof() and gpu_info() are in ../device_helpers.sh.
set -u
export LD_LIBRARY_PATH=$PWD/build/device-libs PATH=$PATH:/usr/local/cuda/bin
o=/tmp/s16
mkdir -p "$o"
. "$(dirname "$0")/../device_helpers.sh"
counts='count_set_bits/|segmented_count_set_bits/|batch_count/'
for s in "$@"; do
  case $s in
    info) gpu_info ;;
    tests) cuda_unit_tests ;;
    citests)
      # The CUDA unit tests built by a fresh clone's .ci/run (copied to build/ci-cuda).
      timeout 300 build/ci-cuda/unit_tests/kmask_unit_tests_cuda > "$o/unit-tests-cuda-ci-build.log" 2>&1
      echo "ci tests rc=$? $(tail -3 "$o/unit-tests-cuda-ci-build.log" | tr '\n' ' ')"
      ;;
    counts)
      # The counting calls (issues 15 and 18): new against before, alternated, two rounds.
      for r in 1 2; do
        bench build/cuda/perf_tests/kmask_benchmarks "counts-new-$r" 0.05 "$counts"
        bench build/before/perf_tests/kmask_benchmarks "counts-before-$r" 0.05 "$counts"
      done
      ;;
    var)
      # The counting calls in the tuning variants, between new and before rounds.
      for r in 1 2; do
        for v in build/var*/perf_tests/kmask_benchmarks; do
          [ -x "$v" ] && bench "$v" "counts-$(variant_of "$v")-$r" 0.05 "$counts"
        done
        bench build/cuda/perf_tests/kmask_benchmarks "counts-new-var-$r" 0.05 "$counts"
      done
      ;;
    make)
      # The mask builds (issue 16), whose null count now comes from team tickets: new against before.
      for r in 1 2; do
        bench build/cuda/perf_tests/kmask_benchmarks "make-new-$r" 0.05 'make_masks/'
        bench build/before/perf_tests/kmask_benchmarks "make-before-$r" 0.05 'make_masks/'
      done
      ;;
    ncuboost)
      # Kernel durations at the clocks the benchmarks run at (the driver's), for the launch's share.
      for k in count_stride:count_set_bits/30/ batch_count:'batch_count/unset/masks:100/total_bits:1073741824/aligned'; do
        timeout 120 ncu --clock-control none --kernel-name-base demangled -k "regex:${k%%:*}" --launch-skip 3 \
          --launch-count 3 --section SpeedOfLight --section Occupancy --section LaunchStats \
          build/cuda/perf_tests/kmask_benchmarks --benchmark_min_time=0.001 "--benchmark_filter=${k#*:}" \
          > "$o/ncu-boost-${k%%:*}.txt" 2>&1
        echo "ncu ${k%%:*} rc=$?"
      done
      ;;
    exp)
      # The exploratory count kernels (built outside the repository, session16/README.md says from what).
      build/exp/kk > "$o/exp-count-kernels.txt" 2>&1
      echo "exp rc=$?"
      ;;
    res)
      cuobjdump -res-usage build/cuda/perf_tests/kmask_benchmarks 2>&1 | grep -A1 -E 'count_stride|batch_count|range_count' \
        > "$o/res-usage-counts.txt"
      echo "res rc=$?"
      ;;
    ncu)
      prof count-2p30 count_stride build/cuda/perf_tests/kmask_benchmarks 'count_set_bits/30/'
      prof batch-2p30 batch_count build/cuda/perf_tests/kmask_benchmarks 'batch_count/unset/masks:100/total_bits:1073741824/aligned'
      prof segmented-2p27 range_count build/cuda/perf_tests/kmask_benchmarks 'inplace_segmented_count_set_bits/27/1000/'
      ;;
  esac
  tar -czf "$OUT/s16.tar.gz" -C /tmp s16
done
