#!/usr/bin/env bash
# Session 9, superimpose_nulls_tree and batch_count: the new CUDA and host binaries against the
# baseline ones (build/baseline, copies of main's builds) in one device call, then the CUDA unit
# tests of both calls and ncu on the new kernels. Results under $OUT.
#   scripts/device-tree-batch.sh [ncu|noncu]
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=${OUT:-/tmp/kmask-device-out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/build/device-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OMP_PROC_BIND=spread OMP_PLACES=threads
filter='superimpose_nulls_tree/|batch_count/'
bench() {  # BINARY NAME
  [ -x "$1" ] || { echo "missing $1"; return; }
  "$1" --benchmark_filter="$filter" --benchmark_min_time=0.02 --benchmark_out="$out/$2.json" \
    --benchmark_out_format=json --benchmark_counters_tabular=true >"$out/$2.txt" 2>&1
  echo "== $2"; grep -E "^(superimpose|batch)" "$out/$2.txt" | awk '{print $1, $2, $3}' | sed 's#/manual_time##'
}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,utilization.gpu --format=csv,noheader
bench build/cuda/perf_tests/kmask_benchmarks cuda-new
bench build/baseline/kmask_benchmarks_cuda cuda-base
bench build/host/perf_tests/kmask_benchmarks host-new
bench build/baseline/kmask_benchmarks_host host-base
if [ -x build/cuda/unit_tests/kmask_unit_tests_cuda ]; then
  build/cuda/unit_tests/kmask_unit_tests_cuda --gtest_brief=1 --gtest_filter='*tree*:*batch_count*' >"$out/unit-cuda.log" 2>&1
  echo "unit tests rc $?"; tail -3 "$out/unit-cuda.log"
fi
if [ "${1:-ncu}" = ncu ]; then
  for cell in 'superimpose_nulls_tree/struct:1x8x8/bits:16777216/aligned' 'batch_count/unset/masks:100/total_bits:134217728/aligned'; do
    timeout 40 ncu --clock-control none --kernel-name-base demangled -k regex:kmask::detail --launch-skip 2 --launch-count 1 \
      --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
      build/cuda/perf_tests/kmask_benchmarks --benchmark_min_time=0.001 --benchmark_filter="$cell" >>"$out/ncu.txt" 2>&1
    grep -E "functor|Duration|Registers|Achieved Occ|DRAM Through|Memory Throughput|Grid Size|Block Size" "$out/ncu.txt" | tail -10
  done
fi
