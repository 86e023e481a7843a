#!/usr/bin/env bash
# Session 9, superimpose_nulls_tree and batch_count on the device machine, from a folder holding
# copies of the binaries (the device tool sends the session's checkout, not a helper's worktree):
#   cuda-bench, host-bench (kmask_benchmarks of build/cuda and build/host), cuda-ut
#   (kmask_unit_tests_cuda), libs (build/device-libs), tuning variants bench-v* (built with
#   KMASK_TUNING_OVERRIDE_HEADER), and this script.
# Benchmarks of both calls (CUDA, then host OpenMP on 16 cores), the whole CUDA unit-test suite,
# ncu on the two kernels, then memcheck and racecheck on the calls' tests. Results under $OUT.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
out=${OUT:-/tmp/kmask-device-out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OMP_PROC_BIND=spread OMP_PLACES=threads
log="$out/all.txt"
filter='superimpose_nulls_tree/|batch_count/'
bench() {  # BINARY NAME
  [ -x "$1" ] || { echo "missing $1"; return; }
  "$1" --benchmark_filter="$filter" --benchmark_min_time=0.02 --benchmark_out="$out/$2.json" \
    --benchmark_out_format=json --benchmark_counters_tabular=true >/tmp/$2.txt 2>&1
  { echo "== $2"; cat /tmp/$2.txt; } >>"$log"
  echo "== $2"; grep -E "^(superimpose|batch)" /tmp/$2.txt | awk '{print $1, $2, $3}' | sed 's#/manual_time##'
}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,utilization.gpu --format=csv,noheader | tee -a "$log"
bench ./cuda-bench cuda-new
# Tuning variants of the tree's GPU form (bench-vIT: gpu_items I, gpu_min_teams_per_sm T), tree cells only.
for v in bench-v*; do
  [ -x "$v" ] && filter='superimpose_nulls_tree/' bench "./$v" "cuda-${v#bench-}"
done
bench ./host-bench host-new
./cuda-ut --gtest_brief=1 >/tmp/ut.log 2>&1
echo "unit tests (all) rc $?" | tee -a "$log"; tail -4 /tmp/ut.log | tee -a "$log"
for cell in 'superimpose_nulls_tree/struct:1x8x8/bits:16777216/aligned' 'batch_count/unset/masks:100/total_bits:134217728/aligned'; do
  timeout 40 ncu --clock-control none --kernel-name-base demangled -k regex:kmask::detail --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
    ./cuda-bench --benchmark_min_time=0.001 --benchmark_filter="$cell" >/tmp/ncu.txt 2>&1
  cat /tmp/ncu.txt >>"$log"
  grep -E "functor|Duration|Registers|Achieved Occ|DRAM Through" /tmp/ncu.txt | cut -c1-120
done
for tool in memcheck racecheck; do
  KMASK_TEST_SKIP_HUGE=1 timeout 30 compute-sanitizer --tool $tool --error-exitcode 99 ./cuda-ut --gtest_brief=1 \
    --gtest_filter='*tree*:*batch_count*:*batch_counts*' >/tmp/san.txt 2>&1
  echo "compute-sanitizer $tool rc $?" | tee -a "$log"; tail -3 /tmp/san.txt | tee -a "$log"
done
