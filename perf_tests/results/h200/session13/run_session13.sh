#!/bin/bash
# Session 13's device runs (the H200 machine, from the repository root). Binaries built on the
# development machine and carried: build/cuda (Kokkos 3.4.01, the working tree), build/before
# (20b56c1's benchmarks), build/var-bin and build/var2-bin
# (tuning variants of the working tree, KMASK_TUNING_OVERRIDE_HEADER), build/device-libs.
# Usage: run_session13.sh STEP... ; results under /tmp/s13, tarred into $OUT/s13.tar.gz.
set -u
export LD_LIBRARY_PATH=$PWD/build/device-libs PATH=$PATH:/usr/local/cuda/bin
o=/tmp/s13  # tarred into $OUT (the device returns at most 8 files)
mkdir -p "$o"
. "$(dirname "$0")/../device_helpers.sh"  # bench, prof (as they ran)
# The mask-making calls and the tree (issue 16).
makes='make_masks/|superimpose_nulls_tree/'
for s in "$@"; do
  case $s in
    info) gpu_info ;;
    tests) cuda_unit_tests ;;
    make)
      # New against before (20b56c1) and the tuning variants carried (run 2: build/var-bin the
      # gather one row at a time and the tree at 2 teams per SM, build/var2-bin mask builds with 4
      # words per GPU thread; run 3: build/var-bin the tree 2 nodes a batch at 3 teams per SM),
      # alternated, two rounds.
      for r in 1 2; do
        bench build/cuda/perf_tests/kmask_benchmarks "make-new-$r" 0.05 "$makes"
        [ -x build/before/perf_tests/kmask_benchmarks ] &&
          bench build/before/perf_tests/kmask_benchmarks "make-before-$r" 0.05 "$makes"
        [ -x build/var-bin/perf_tests/kmask_benchmarks ] &&
          bench build/var-bin/perf_tests/kmask_benchmarks "make-var-$r" 0.05 "$makes"
        [ -x build/var2-bin/perf_tests/kmask_benchmarks ] &&
          bench build/var2-bin/perf_tests/kmask_benchmarks "make-var2-$r" 0.05 'make_masks/'
      done
      ;;
    concurrency)
      # Issue 14's benchmark at this session's head: T host threads with a stream each (two rounds).
      for r in 1 2; do bench build/cuda/perf_tests/kmask_benchmarks "concurrency-$r" 0.05 'concurrency/'; done
      ;;
    res)
      # Registers, local memory and shared memory of the tree and mask-building kernels.
      cuobjdump -res-usage build/cuda/perf_tests/kmask_benchmarks 2>&1 | grep -A1 -E 'tree_gpu|build_words' > "$o/res-usage.txt"
      echo "res rc=$?"
      ;;
    ncu)
      prof tree-2p24 tree_gpu build/cuda/perf_tests/kmask_benchmarks 'superimpose_nulls_tree/struct:1x8x8/bits:16777216/aligned'
      prof gather-sorted build_words build/cuda/perf_tests/kmask_benchmarks 'make_masks/inplace_gather_bits/int32/sorted/24'
      prof gather-random build_words build/cuda/perf_tests/kmask_benchmarks 'make_masks/inplace_gather_bits/int32/random/24'
      ;;
  esac
  tar -czf "$OUT/s13.tar.gz" -C /tmp s13  # after every step: a run cut short still returns what it did
done
