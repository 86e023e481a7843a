#!/bin/bash
# One device call: the make_masks benchmarks before and after on the H200 and its 16 host cores,
# the CUDA unit tests of these calls, ncu on the kernels of the cells given, and SASS of the
# kernels whose mangled names match $SASS. $D holds the carried binaries: new/{cuda_bench,
# cuda_tests,host_bench}, base/{cuda_bench,host_bench}, device-libs/.
# Usage: D=<folder> run_make_masks.sh [ncu-cells...]
set -u
D=${D:?set D to the folder of carried binaries}
export LD_LIBRARY_PATH=$D/device-libs OMP_PROC_BIND=spread OMP_PLACES=threads
O=${OUT:-/tmp/out}
mkdir -p "$O"
F=${FILTER:-'make_masks/.*/(24|26)'}
B="--benchmark_min_time=0.02 --benchmark_counters_tabular=true"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
if [ -x $D/new/cuda_tests ]; then
  $D/new/cuda_tests --gtest_brief=1 --gtest_filter='*make_masks*:*valid_if*:*bools*:*gather*:*inverted*' > $O/tests.log 2>&1
  tail -8 $O/tests.log
fi
for side in base new; do
  [ -x $D/$side/cuda_bench ] && $D/$side/cuda_bench --benchmark_filter="$F" $B --benchmark_out=$O/cuda-$side.json \
    --benchmark_out_format=json > /tmp/cuda-$side.txt 2>&1
  [ -x $D/$side/host_bench ] && $D/$side/host_bench --benchmark_filter="$F" $B --benchmark_out=$O/host-$side.json \
    --benchmark_out_format=json > /tmp/host-$side.txt 2>&1
done
if [ -n "${SASS:-}" ] && command -v cuobjdump > /dev/null; then
  # The SASS of the kernels whose mangled names match $SASS (a Python regex), and their sizes.
  cuobjdump -sass $D/new/cuda_bench > /tmp/sass_all.txt 2> /tmp/sass_err.txt || head -3 /tmp/sass_err.txt
  python3 - "$SASS" /tmp/sass_all.txt $O/sass.txt <<'PYEOF'
import re, sys
pat, src, dst = re.compile(sys.argv[1]), sys.argv[2], sys.argv[3]
blocks, cur = [], None
for line in open(src):
    if "Function :" in line:
        cur = [line] if pat.search(line) else None
        if cur is not None: blocks.append(cur)
    elif cur is not None:
        cur.append(line)
with open(dst, "w") as f:
    for b in blocks:
        n = sum(1 for l in b if re.search(r"/\*[0-9a-f]{4}\*/", l))
        print(n, "instructions:", b[0].strip()[:160])
        f.writelines(b)
PYEOF
fi
if [ $# -gt 0 ] && command -v ncu > /dev/null; then
  for cell in "$@"; do
    echo "=== $cell"
    ncu --clock-control none --kernel-name-base demangled -k regex:kmask::detail --launch-skip 2 --launch-count 1 \
      --section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis \
      --section WarpStateStats --section ComputeWorkloadAnalysis \
      $D/new/cuda_bench --benchmark_min_time=0.001 --benchmark_filter="$cell" 2>&1 \
      | grep -E "Duration|Throughput|Registers Per|Block Size|Grid Size|Achieved Occupancy|Hit Rate|==PROF==|Busy|Executed Ipc|Issue Slots|Stall|stall|Warp Cycles|SM Frequency"
  done > $O/ncu.txt 2>&1
  cut -c1-110 $O/ncu.txt
fi
S=$(dirname "$0")/summarize.py
echo "== CUDA"; python3 $S $O/cuda-base.json $O/cuda-new.json
echo "== host OpenMP"; python3 $S $O/host-base.json $O/host-new.json
