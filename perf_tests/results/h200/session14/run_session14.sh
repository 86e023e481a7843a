#!/bin/bash
# Session 14's device runs (the H200 machine, from the repository root). Binaries built on the
# development machine and carried: build/cuda (Kokkos 3.4.01, the working tree), build/before
# (d4b5d65's benchmarks, main at the session's start; run 5: c9d77aa's, from the CI clone), build/var (run 3: the working tree with
# the general walk at every size: -DCMAKE_CXX_FLAGS=-DKMASK_TUNING_OVERRIDE_HEADER=... (run 3's var
# lacked the flag and was the working tree again) setting
# tree_tuning<Kokkos::Cuda>::gpu_aligned_max_words = 0, not committed), build/device-libs.
# Usage: run_session14.sh STEP... ; results under /tmp/s14, tarred into $OUT/s14.tar.gz.
# bench() and prof() are session 13's (perf_tests/results/h200/session13/run_session13.sh).
set -u
export LD_LIBRARY_PATH=$PWD/build/device-libs PATH=$PATH:/usr/local/cuda/bin
o=/tmp/s14
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
