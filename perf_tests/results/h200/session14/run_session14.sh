#!/bin/bash
# Session 14's device runs (the H200 machine, from the repository root). Binaries built on the
# development machine and carried: build/cuda (Kokkos 3.4.01, the working tree), build/before
# (d4b5d65's benchmarks, main at the session's start; run 5: c9d77aa's, from the CI clone), build/var (run 3: the working tree with
# the general walk at every size: -DCMAKE_CXX_FLAGS=-DKMASK_TUNING_OVERRIDE_HEADER=... (run 3's var
# lacked the flag and was the working tree again) setting
# tree_tuning<Kokkos::Cuda>::gpu_aligned_max_words = 0, not committed), build/device-libs.
# Usage: run_session14.sh STEP... ; results under /tmp/s14, tarred into $OUT/s14.tar.gz.
# bench() and prof(): ../device_helpers.sh (session 13's, as they ran).
set -u
export LD_LIBRARY_PATH=$PWD/build/device-libs PATH=$PATH:/usr/local/cuda/bin
o=/tmp/s14
mkdir -p "$o"
. "$(dirname "$0")/../device_helpers.sh"  # bench, prof (as they ran)
for s in "$@"; do
  case $s in
    info) gpu_info ;;
    tests) cuda_unit_tests ;;
    tree)
      # The tree (issue 16): new against before, alternated, two rounds.
      for r in 1 2; do
        bench build/cuda/perf_tests/kmask_benchmarks "make-new-$r" 0.05 'superimpose_nulls_tree/'
        bench build/before/perf_tests/kmask_benchmarks "make-before-$r" 0.05 'superimpose_nulls_tree/'
        [ -x build/var/perf_tests/kmask_benchmarks ] &&
          bench build/var/perf_tests/kmask_benchmarks "make-var-$r" 0.05 'superimpose_nulls_tree/'
      done
      ;;
    concurrency)
      # Issue 14's launch-bound shape only (the whole benchmark does not fit the 240 s limit).
      bench build/cuda/perf_tests/kmask_benchmarks concurrency-2000 0.05 'concurrency/.*segments:2000/'
      ;;
    res)
      cuobjdump -res-usage build/cuda/perf_tests/kmask_benchmarks 2>&1 | grep -A1 -E 'tree_' > "$o/res-usage.txt"
      echo "res rc=$?"
      ;;
    ncu)
      prof tree-aligned-2p24 tree_aligned build/cuda/perf_tests/kmask_benchmarks 'superimpose_nulls_tree/struct:1x8x8/bits:16777216/aligned'
      prof tree-aligned-2p20 tree_aligned build/cuda/perf_tests/kmask_benchmarks 'superimpose_nulls_tree/struct:1x8x8/bits:1048576/aligned'
      ;;
  esac
  tar -czf "$OUT/s14.tar.gz" -C /tmp s14
done
