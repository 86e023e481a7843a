#!/bin/bash
# The H200 record set in this directory: every benchmark and the CUDA unit tests, from the
# repository root on the device machine, with these binaries built on the development machine
# and carried (the device tool's `carry`):
#   build/cuda/perf_tests/kmask_benchmarks, build/cuda/unit_tests/kmask_unit_tests_cuda
#       Kokkos 3.4.01 from `scripts/install-deps cuda` (`cmake --preset cuda`);
#   build/k46-cuda/...   the same tree against Kokkos 4.6.01 (built outside the repository as
#       docs/kokkos-versions.md says);
#   build/host/perf_tests/kmask_benchmarks   the `host` preset (Serial + OpenMP);
#   build/device-libs    the shared libraries the device image lacks (libbenchmark).
# Usage: record.sh PART...   parts: info tests seg calls conc k46 host
# Results go to $OUT/record/PART-BUILD.{json,txt} and are tarred into $OUT/record.tar.gz (the
# device tool returns at most 8 files a call).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/kmask-record}/record
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/build/device-libs PATH=$PATH:/usr/local/cuda/bin
# Kokkos' OpenMP threads (the host space of every build) one per core, as Kokkos advises.
export OMP_PROC_BIND=spread OMP_PLACES=threads
k34=build/cuda k46=build/k46-cuda
# Every call of issues 15, 16 and 18 that is not a segmented binop (those are `seg`).
calls='count_set_bits/|segmented_count_set_bits/|inplace_segmented_count_set_bits/|copy_bitmask/|batch_count/|move_bits/|make_masks/|superimpose_nulls_tree/'
# Issue 18's cells of the segmented call: few-segment in place, allocating (p50 / p99).
i18seg='segmented_binop/inplace/and/segments:10/masks:(4|16)/bits:(1048576|16777216)/|segmented_binop/alloc/and/segments:(1000|10000)/masks:(4|16)/bits:128/|segmented_binop/alloc/and/segments:(10|100)/masks:4/bits:1048576/'
# The host floors' cells (>= 2^24 bits), on the device machine's 16 cores.
host='segmented_binop/inplace/and/segments:(10|100)/masks:(4|16)/bits:(16777216|134217728)/|count_set_bits/(24|27)|copy_bitmask/(24|27)/|move_bits/(set_bits|copy_bits|segmented_copy_bits|inplace_concatenate)/|batch_count/|make_masks/|superimpose_nulls_tree/'

# bench BINARY NAME MIN_TIME FILTER: one benchmark process, JSON and text under $out.
bench() {
  local s=$SECONDS
  timeout 560 "$1" --benchmark_min_time="$3" "--benchmark_filter=$4" --benchmark_out="$out/$2.json" \
    --benchmark_out_format=json --benchmark_counters_tabular=true > "$out/$2.txt" 2>&1
  echo "$2 rc=$? $(grep -c manual_time "$out/$2.txt") cells, $((SECONDS - s)) s"
}
tests() {
  local s=$SECONDS
  timeout 300 "$1/unit_tests/kmask_unit_tests_cuda" > "$out/unit-tests-$2.log" 2>&1
  echo "tests $2 rc=$? $(grep -E '^\[  PASSED|^\[  SKIPPED|^\[  FAILED' "$out/unit-tests-$2.log" | tr '\n' ' ') $((SECONDS - s)) s"
}

for part in "$@"; do
  case $part in
    info)
      nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
        --format=csv > "$out/gpu.txt" 2>&1
      lscpu | grep -E "Model name|^CPU\(s\)|Thread|Socket|NUMA node\(s\)|L[23] cache|MHz" > "$out/host-cpu.txt"
      cat "$out/gpu.txt"
      ;;
    tests) tests $k34 kokkos-3.4.01 ;;
    # Every segmented cell (the design note's table with its warp-per-segment and KokkosBlas peers).
    seg) bench $k34/perf_tests/kmask_benchmarks seg-k34 0.02 'segmented_binop/' ;;
    calls) bench $k34/perf_tests/kmask_benchmarks calls-k34 0.02 "$calls" ;;
    # T host threads with a stream each against the same calls from one thread (issue 14).
    conc) bench $k34/perf_tests/kmask_benchmarks conc-k34 0.05 'concurrency/' ;;
    # The Kokkos 4.6.01 build: its unit tests, every non-segmented call and issue 18's segmented cells.
    k46)
      tests $k46 kokkos-4.6.01
      KMASK_BENCH_NO_PEERS=1 bench $k46/perf_tests/kmask_benchmarks calls-k46 0.02 "$calls|$i18seg"
      ;;
    host) bench build/host/perf_tests/kmask_benchmarks host-openmp 0.05 "$host" ;;
    *) echo "unknown part $part" ;;
  esac
done
tar czf "${OUT:-/tmp/kmask-record}/record.tar.gz" -C "$out" .
