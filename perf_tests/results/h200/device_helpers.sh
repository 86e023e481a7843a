# Helpers for the per-session device run scripts (sessions 13-15 source them; older sessions keep their own forms).
# Source after setting o, the folder the results go to.
# bench BINARY NAME MIN_TIME FILTER [extra args]: one benchmark run, JSON and text under $o.
bench() {
  local bin=$1 name=$2 t=$3 f=$4
  shift 4
  KMASK_BENCH_NO_PEERS=1 timeout 240 "$bin" --benchmark_min_time="$t" "--benchmark_filter=$f" \
    --benchmark_out="$o/$name.json" --benchmark_out_format=json --benchmark_counters_tabular=true "$@" \
    > "$o/$name.txt" 2>&1
  echo "$name rc=$? $(grep -c manual_time "$o/$name.txt") cells"
}
# prof NAME KERNEL_REGEX BINARY FILTER: ncu of one launch of the kernel, clocks at base.
prof() {
  timeout 120 ncu --clock-control base --kernel-name-base demangled -k "regex:$2" --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats "$3" --benchmark_min_time=0.001 "--benchmark_filter=$4" \
    > "$o/ncu-$1.txt" 2>&1
  echo "ncu $1 rc=$?"
}
# variant_of build/NAME/perf_tests/kmask_benchmarks: NAME.
variant_of() { basename "$(dirname "$(dirname "$1")")"; }
# gpu_info: the GPU's name, driver, clocks, power and temperature into $o/gpu.txt.
gpu_info() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
    --format=csv > "$o/gpu.txt" 2>&1
}
# cuda_unit_tests: every CUDA unit test of build/cuda, log under $o.
cuda_unit_tests() {
  timeout 300 build/cuda/unit_tests/kmask_unit_tests_cuda > "$o/unit-tests-cuda-kokkos-3.4.01.log" 2>&1
  echo "tests 3.4.01 rc=$? $(tail -3 "$o/unit-tests-cuda-kokkos-3.4.01.log" | tr '\n' ' ')"
}
