#!/bin/bash
# One device call: the make_masks benchmarks before (build/base) and after (build/cuda, build/host)
# on the H200 and its 16 host cores, the CUDA unit tests of these calls, and ncu on the kernels.
# Usage (from the repository root, on the device machine): run_make_masks.sh [ncu-cells...]
set -u
export LD_LIBRARY_PATH=$PWD/build/device-libs OMP_PROC_BIND=spread OMP_PLACES=threads
O=${OUT:-/tmp/out}
mkdir -p "$O"
F='make_masks/.*/(24|26)'
B="--benchmark_min_time=0.02 --benchmark_counters_tabular=true"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
if [ -x build/cuda/unit_tests/kmask_unit_tests_cuda ]; then
  build/cuda/unit_tests/kmask_unit_tests_cuda --gtest_brief=1 \
    --gtest_filter='*make_masks*:*valid_if*:*bools*:*gather*:*inverted*' 2>&1 | tail -8
fi
for side in base new; do
  if [ $side = base ]; then cb=build/base/cuda_bench; hb=build/base/host_bench; else cb=build/cuda/perf_tests/kmask_benchmarks; hb=build/host/perf_tests/kmask_benchmarks; fi
  [ -x $cb ] && $cb --benchmark_filter="$F" $B --benchmark_out=$O/cuda-$side.json --benchmark_out_format=json > $O/cuda-$side.txt 2>&1
  [ -x $hb ] && $hb --benchmark_filter="$F" $B --benchmark_out=$O/host-$side.json --benchmark_out_format=json > $O/host-$side.txt 2>&1
done
if [ $# -gt 0 ] && command -v ncu > /dev/null; then
  for cell in "$@"; do
    ncu --clock-control none --kernel-name-base demangled -k regex:kmask::detail --launch-skip 2 --launch-count 1 \
      --section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis \
      build/cuda/perf_tests/kmask_benchmarks --benchmark_min_time=0.001 --benchmark_filter="$cell" 2>&1 \
      | grep -E "build_words|Duration|Throughput|Registers|Block Size|Grid Size|Achieved Occupancy|Hit Rate|==PROF==|Busy" 
  done > $O/ncu.txt 2>&1
fi
if [ -n "${SASS:-}" ] && command -v cuobjdump > /dev/null; then
  # The device code of the benchmark's kernels named in $SASS (an awk regex on the mangled name).
  cuobjdump -sass build/cuda/perf_tests/kmask_benchmarks | awk -v re="$SASS" '/Function :/ {p = ($0 ~ re)} p' > $O/sass.txt
  grep "Function :" $O/sass.txt | cut -c1-60 | sort | uniq -c | head
fi
S=$(dirname "$0")/summarize.py
echo "== CUDA"; python3 $S $O/cuda-base.json $O/cuda-new.json
echo "== host OpenMP"; python3 $S $O/host-base.json $O/host-new.json
