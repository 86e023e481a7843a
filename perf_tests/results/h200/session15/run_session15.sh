#!/bin/bash
# Session 15's device runs (the H200 machine, from the repository root). Binaries built on the
# development machine and carried: build/cuda (Kokkos 3.4.01, the working tree), build/before
# (e996962's benchmarks, main at the session's start), build/var* (when present: the working tree
# built with a tuning override header, named in the session's README), build/device-libs.
# Usage: run_session15.sh STEP... ; results under /tmp/s15, tarred into $OUT/s15.tar.gz.
# bench(), prof() and variant_of() are in ../device_helpers.sh (session 13's bench() and prof(), as run).
set -u
export LD_LIBRARY_PATH=$PWD/build/device-libs PATH=$PATH:/usr/local/cuda/bin
o=/tmp/s15
mkdir -p "$o"
. "$(dirname "$0")/../device_helpers.sh"
for s in "$@"; do
  case $s in
    info) gpu_info ;;
    tests) cuda_unit_tests ;;
    maketests)
      timeout 300 build/cuda/unit_tests/kmask_unit_tests_cuda --gtest_filter='*make_masks*:*inverted_new*:*absent*' \
        > "$o/unit-tests-cuda-make-masks.log" 2>&1
      echo "make tests rc=$? $(tail -3 "$o/unit-tests-cuda-make-masks.log" | tr '\n' ' ')"
      ;;
    make)
      # The mask builds (issue 16): new against before (and var), alternated, two rounds.
      for r in 1 2; do
        bench build/cuda/perf_tests/kmask_benchmarks "make-new-$r" 0.05 'make_masks/'
        bench build/before/perf_tests/kmask_benchmarks "make-before-$r" 0.05 'make_masks/'
        for v in build/var*/perf_tests/kmask_benchmarks; do
          [ -x "$v" ] && bench "$v" "make-$(variant_of "$v")-$r" 0.05 'make_masks/'
        done
      done
      ;;
    res)
      for b in build/cuda build/var*; do
        [ -x "$b/perf_tests/kmask_benchmarks" ] && cuobjdump -res-usage "$b/perf_tests/kmask_benchmarks" 2>&1 |
          grep -A1 -E 'build_words' > "$o/res-usage-$(basename "$b").txt"
      done
      echo "res rc=$?"
      ;;
    ncu)
      for v in build/var*/perf_tests/kmask_benchmarks; do
        [ -x "$v" ] && prof "gather-sorted-$(variant_of "$v")" gathered_bits "$v" 'inplace_gather_bits/int32/sorted/24/'
      done
      prof gather-sorted gathered_bits build/cuda/perf_tests/kmask_benchmarks 'inplace_gather_bits/int32/sorted/24/'
      prof gather-random gathered_bits build/cuda/perf_tests/kmask_benchmarks 'inplace_gather_bits/int32/random/24/'
      ;;
    ncubools)
      prof bools-2p26 bool_bits build/cuda/perf_tests/kmask_benchmarks 'inplace_bools_to_mask/uint8/26/'
      prof valid-if-2p26 predicate_bits build/cuda/perf_tests/kmask_benchmarks 'inplace_valid_if/mod3/26'
      ;;
  esac
  tar -czf "$OUT/s15.tar.gz" -C /tmp s15
done
