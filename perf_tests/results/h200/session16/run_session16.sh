#!/bin/bash
# Session 16's device runs (the H200 machine, from the repository root). Binaries built on the
# development machine and carried: build/cuda (Kokkos 3.4.01, the working tree), build/before
# (4896a0f's benchmarks, main at the session's start), build/device-libs.
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
    counts)
      # The counting calls (issues 15 and 18): new against before, alternated, two rounds.
      for r in 1 2; do
        bench build/cuda/perf_tests/kmask_benchmarks "counts-new-$r" 0.05 "$counts"
        bench build/before/perf_tests/kmask_benchmarks "counts-before-$r" 0.05 "$counts"
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
