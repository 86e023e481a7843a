#!/bin/bash
# Session 15's device runs (the H200 machine, from the repository root). Binaries built on the
# development machine and carried: build/cuda (Kokkos 3.4.01, the working tree), build/before
# (e996962's benchmarks, main at the session's start), build/var* (when present: the working tree
# built with a tuning override header, named in the session's README), build/device-libs.
# Usage: run_session15.sh STEP... ; results under /tmp/s15, tarred into $OUT/s15.tar.gz.
# bench() and prof() are session 13's (perf_tests/results/h200/session13/run_session13.sh).
set -u
export LD_LIBRARY_PATH=$PWD/build/device-libs PATH=$PATH:/usr/local/cuda/bin
o=/tmp/s15
mkdir -p "$o"
bench() {
  local bin=$1 name=$2 t=$3 f=$4
  shift 4
  KMASK_BENCH_NO_PEERS=1 timeout 240 "$bin" --benchmark_min_time="$t" "--benchmark_filter=$f" \
    --benchmark_out="$o/$name.json" --benchmark_out_format=json --benchmark_counters_tabular=true "$@" \
    > "$o/$name.txt" 2>&1
  echo "$name rc=$? $(grep -c manual_time "$o/$name.txt") cells"
}
prof() {
  timeout 120 ncu --clock-control base --kernel-name-base demangled -k "regex:$2" --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats "$3" --benchmark_min_time=0.001 "--benchmark_filter=$4" \
    > "$o/ncu-$1.txt" 2>&1
  echo "ncu $1 rc=$?"
}
for s in "$@"; do
  case $s in
    info)
      nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
        --format=csv > "$o/gpu.txt" 2>&1
      ;;
    tests)
      timeout 300 build/cuda/unit_tests/kmask_unit_tests_cuda > "$o/unit-tests-cuda-kokkos-3.4.01.log" 2>&1
      echo "tests 3.4.01 rc=$? $(tail -3 "$o/unit-tests-cuda-kokkos-3.4.01.log" | tr '\n' ' ')"
      ;;
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
          [ -x "$v" ] && bench "$v" "make-$(basename "$(dirname "$(dirname "$v")")")-$r" 0.05 'make_masks/'
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
        [ -x "$v" ] && prof "gather-sorted-$(basename "$(dirname "$(dirname "$v")")")" gathered_bits "$v" 'inplace_gather_bits/int32/sorted/24/'
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
