#!/bin/bash
# Session 10's device runs (the H200 machine, from the repository root). Binaries built on the
# development machine and carried: build/cuda (Kokkos 3.4.01), build/k46-cuda (Kokkos 4.6.01),
# build/k46a-cuda (Kokkos 4.6.01 with Kokkos_ENABLE_IMPL_CUDA_MALLOC_ASYNC=ON), build/base-cuda
# (f27a36b: the plan without launch slots), build/host (Serial + OpenMP), build/device-libs.
# Usage: run_session10.sh STEP... ; results under $OUT/s10, tarred into $OUT/s10.tar.gz.
set -u
export LD_LIBRARY_PATH=$PWD/build/device-libs OMP_PROC_BIND=spread OMP_PLACES=threads
o=$OUT/s10
mkdir -p "$o"
# bench BINARY NAME MIN_TIME FILTER [extra args]
bench() {
  local bin=$1 name=$2 t=$3 f=$4
  shift 4
  timeout 300 "$bin" --benchmark_min_time="$t" "--benchmark_filter=$f" --benchmark_out="$o/$name.json" \
    --benchmark_out_format=json --benchmark_counters_tabular=true "$@" > "$o/$name.txt" 2>&1
  echo "$name rc=$? $(grep -c manual_time "$o/$name.txt") cells"
}
# Launch-bound concurrency cells and the launch diagnostics.
conc='concurrency/(plan|inplace)/segments:2000/masks:8/bits:128/|concurrency/empty'
# Issue 18's cells: counts, copies, few-segment in-place cells, allocating cells.
i18='count_set_bits/|segmented_count_set_bits/ranges:1000/27|inplace_segmented_count_set_bits/27/|copy_bitmask/(24|27)/|segmented_binop/inplace/and/segments:10/masks:(4|16)/bits:(1048576|16777216)/|segmented_binop/alloc/and/segments:(1000|10000)/masks:(4|16)/bits:128/|segmented_binop/alloc/and/segments:(10|100)/masks:4/bits:1048576/'
for s in "$@"; do
  case $s in
    info)
      nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
        --format=csv > "$o/gpu.txt" 2>&1
      ;;
    tests)
      build/cuda/unit_tests/kmask_unit_tests_cuda > "$o/unit-tests-cuda-kokkos-3.4.01.log" 2>&1
      echo "tests 3.4.01 rc=$? $(tail -3 "$o/unit-tests-cuda-kokkos-3.4.01.log" | tr '\n' ' ')"
      ;&
    tests46)
      build/k46-cuda/unit_tests/kmask_unit_tests_cuda > "$o/unit-tests-cuda-kokkos-4.6.01.log" 2>&1
      echo "tests 4.6.01 rc=$? $(tail -3 "$o/unit-tests-cuda-kokkos-4.6.01.log" | tr '\n' ' ')"
      ;;
    concurrency)
      # New (launch slots) and base alternated, two rounds each.
      for r in 1 2; do
        bench build/cuda/perf_tests/kmask_benchmarks "conc-new-$r" 0.05 "$conc"
        bench build/base-cuda/perf_tests/kmask_benchmarks "conc-base-$r" 0.05 "$conc"
      done
      ;;
    issue18)
      # The three Kokkos builds alternated, repetitions for the quantiles of allocating cells.
      for r in ${KMASK_S10_ROUNDS:-1 2}; do
        for b in cuda k46-cuda k46a-cuda; do
          KMASK_BENCH_NO_PEERS=1 bench "build/$b/perf_tests/kmask_benchmarks" "i18-$b-$r" 0.02 "$i18"
        done
      done
      ;;
    alloc-conc)
      # The allocating call from 1 and 4 threads on each Kokkos build (stream-ordered allocation or not).
      for b in cuda k46-cuda k46a-cuda; do
        bench "build/$b/perf_tests/kmask_benchmarks" "alloc-conc-$b" 0.05 \
          'concurrency/alloc/segments:100/masks:4/bits:1048576/host_threads:(1|4)/'
      done
      ;;
    run3)
      # The plan from 1 and 4 threads again (new and base), and Kokkos 4.6.01 with stream-ordered
      # allocation with and without the pool keeping freed memory (KMASK_BENCH_KEEP_POOL=1).
      plan='concurrency/plan/segments:2000/masks:8/bits:128/host_threads:(1|4)/|concurrency/empty_launch(_per_thread)?/segments:100/masks:4/bits:1048576/host_threads:4/'
      bench build/cuda/perf_tests/kmask_benchmarks conc-new-3 0.05 "$plan"
      bench build/base-cuda/perf_tests/kmask_benchmarks conc-base-3 0.05 "$plan"
      alloc='concurrency/alloc/segments:100/masks:4/bits:1048576/host_threads:(1|4)/'
      KMASK_BENCH_NO_PEERS=1 bench build/k46a-cuda/perf_tests/kmask_benchmarks i18-k46a-cuda-3 0.05 "$i18"
      KMASK_BENCH_KEEP_POOL=1 KMASK_BENCH_NO_PEERS=1 bench build/k46a-cuda/perf_tests/kmask_benchmarks \
        i18-k46a-keep-pool-3 0.05 "$i18"
      KMASK_BENCH_KEEP_POOL=1 bench build/k46a-cuda/perf_tests/kmask_benchmarks alloc-conc-k46a-keep-pool-3 0.05 "$alloc"
      ;;
    few)
      # The 4-words form of few-segment wide launches (9ddd749) against the binary before it (7b85507),
      # alternated, and ncu of the new form's kernel.
      f='segmented_binop/(inplace|alloc)/(and|and_not)/segments:10/masks:(4|8|16)/bits:(1048576|16777216)/|superimpose_nulls_tree/struct:1x8x8/bits:1048576/'
      for r in 1 2; do
        KMASK_BENCH_NO_PEERS=1 bench build/cuda/perf_tests/kmask_benchmarks "few-new-$r" 0.05 "$f"
        KMASK_BENCH_NO_PEERS=1 bench build/s10-before/perf_tests/kmask_benchmarks "few-before-$r" 0.05 "$f"
      done
      timeout 120 ncu --clock-control none --kernel-name-base demangled -k regex:kmask::detail --launch-skip 2 \
        --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats \
        build/cuda/perf_tests/kmask_benchmarks --benchmark_min_time=0.001 \
        '--benchmark_filter=segmented_binop/inplace/and/segments:10/masks:(4|16)/bits:1048576/aligned/' > "$o/few-ncu.txt" 2>&1
      grep -E "Duration|Grid Size|Achieved Occupancy|DRAM Throughput|Registers Per" "$o/few-ncu.txt"
      ;;
    host)
      bench build/host/perf_tests/kmask_benchmarks host-openmp 0.05 \
        'count_set_bits/(24|27)|copy_bitmask/(24|27)/|move_bits/|make_masks/|batch_count/|superimpose_nulls_tree/'
      ;;
  esac
done
tar -czf "$OUT/s10.tar.gz" -C "$OUT" s10
