#!/bin/bash
# Session 12's device runs (the H200 machine, from the repository root). Binaries built on the
# development machine and carried: build/cuda (Kokkos 3.4.01), build/k46-cuda (Kokkos 4.6.01),
# build/s10-before (7b85507: the moving kernel before this session), build/device-libs.
# Usage: run_session12.sh STEP... ; results under $OUT/s12, tarred into $OUT/s12.tar.gz.
set -u
export LD_LIBRARY_PATH=$PWD/build/device-libs PATH=$PATH:/usr/local/cuda/bin
o=$OUT/s12
mkdir -p "$o"
# bench BINARY NAME MIN_TIME FILTER [extra args]
bench() {
  local bin=$1 name=$2 t=$3 f=$4
  shift 4
  KMASK_BENCH_NO_PEERS=1 timeout 240 "$bin" --benchmark_min_time="$t" "--benchmark_filter=$f" \
    --benchmark_out="$o/$name.json" --benchmark_out_format=json --benchmark_counters_tabular=true "$@" \
    > "$o/$name.txt" 2>&1
  echo "$name rc=$? $(grep -c manual_time "$o/$name.txt") cells"
}
# The moving kernel's cells (issue 15) and copy_bitmask (issue 18: its copy into a destination).
moves='move_bits/|copy_bitmask/(24|27|30)/'
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
    tests46)
      timeout 300 build/k46-cuda/unit_tests/kmask_unit_tests_cuda > "$o/unit-tests-cuda-kokkos-4.6.01.log" 2>&1
      echo "tests 4.6.01 rc=$? $(tail -3 "$o/unit-tests-cuda-kokkos-4.6.01.log" | tr '\n' ' ')"
      ;;
    move)
      # New (the working tree's build/cuda) against 7b85507 (before), alternated, two rounds.
      for r in 1 2; do
        bench build/cuda/perf_tests/kmask_benchmarks "move-new-$r" 0.05 "$moves"
        bench build/s10-before/perf_tests/kmask_benchmarks "move-before-$r" 0.05 "$moves"
      done
      ;;
    move46)
      bench build/k46-cuda/perf_tests/kmask_benchmarks move-k46-1 0.05 "$moves"
      ;;
    ncu)
      # The moving kernel of copy_bitmask's 2^30 bits, clocks at base (as session 11's run 4).
      timeout 120 ncu --clock-control base --kernel-name-base demangled -k regex:move_team --launch-skip 3 \
        --launch-count 2 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
        --section LaunchStats --section WarpStateStats --section SchedulerStats \
        build/cuda/perf_tests/kmask_benchmarks --benchmark_min_time=0.001 --benchmark_filter=copy_bitmask/30/0 \
        > "$o/ncu-move-2p30.txt" 2>&1
      echo "ncu rc=$?"
      ;;
    counted)
      # Counted launches (concatenate) with the uncounted launches' halving of groups per thread
      # (build/scratch/bench_counted_halving, not committed) against the committed rule, alternated.
      for r in 1 2; do
        bench build/cuda/perf_tests/kmask_benchmarks "counted-new-$r" 0.05 'move_bits/inplace_concatenate'
        bench build/scratch/bench_counted_halving "counted-halving-$r" 0.05 'move_bits/inplace_concatenate'
      done
      ;;
    reduce)
      # The counted kernel's team sum as team_reduce (the working tree) against 559260f's nested
      # TeamThreadRange parallel_reduce (build/scratch/*559260f), both Kokkos builds, alternated.
      f='move_bits/inplace_concatenate|move_bits/small/inplace'
      for r in 1 2; do
        bench build/k46-cuda/perf_tests/kmask_benchmarks "reduce-k46-new-$r" 0.05 "$f"
        bench build/scratch/k46_bench_559260f "reduce-k46-before-$r" 0.05 "$f"
        bench build/cuda/perf_tests/kmask_benchmarks "reduce-new-$r" 0.05 "$f"
        bench build/scratch/bench_559260f "reduce-before-$r" 0.05 "$f"
      done
      for b in build/k46-cuda/perf_tests/kmask_benchmarks build/scratch/k46_bench_559260f; do
        echo "##### $b" >> "$o/ncu-concatenate-k46.txt"
        timeout 60 ncu --clock-control base --kernel-name-base demangled -k regex:move_team --launch-skip 2 \
          --launch-count 1 --section SpeedOfLight --section LaunchStats --section MemoryWorkloadAnalysis "$b" \
          --benchmark_min_time=0.001 '--benchmark_filter=inplace_concatenate/log_bits:26/unaligned:0/pieces:10/' \
          >> "$o/ncu-concatenate-k46.txt" 2>&1
      done
      ;;
    k46before)
      # The counted moving launch on Kokkos 4.6.01 before this session (build/k46-3dfa: 3dfa8c2)
      # against the working tree's build/k46-cuda, alternated.
      f='move_bits/inplace_concatenate/log_bits:2[46]/unaligned:0|copy_bitmask/(24|27)/0'
      for r in 1 2; do
        bench build/k46-3dfa/perf_tests/kmask_benchmarks "k46-3dfa-$r" 0.05 "$f"
        bench build/k46-cuda/perf_tests/kmask_benchmarks "k46-new-$r" 0.05 "$f"
      done
      ;;
    kreduce)
      # The counted GPU form as a Kokkos parallel_reduce into the count (the working tree, an
      # experiment) against the ticket form with team_reduce (build/scratch/*teamreduce), both builds.
      f='move_bits/inplace_concatenate|move_bits/small/inplace'
      for r in 1 2; do
        bench build/k46-cuda/perf_tests/kmask_benchmarks "kreduce-k46-new-$r" 0.05 "$f"
        bench build/scratch/k46_bench_teamreduce "kreduce-k46-ticket-$r" 0.05 "$f"
        bench build/cuda/perf_tests/kmask_benchmarks "kreduce-new-$r" 0.05 "$f"
        bench build/scratch/bench_teamreduce "kreduce-ticket-$r" 0.05 "$f"
      done
      ;;
    ncupieces)
      # Every kmask kernel of one call of the many-piece cells: durations and what bounds them.
      which nsys > "$o/nsys-where.txt" 2>&1
      for cell in 'segmented_copy_bits/log_bits:24/unaligned:0' 'inplace_concatenate/log_bits:24/unaligned:1/pieces:10000' \
        'small/inplace_concatenate'; do
        echo "##### $cell" >> "$o/ncu-pieces.txt"
        timeout 100 ncu --clock-control base --kernel-name-base demangled -k regex:move_team --launch-skip 4 \
          --launch-count 4 --section SpeedOfLight --section LaunchStats \
          build/cuda/perf_tests/kmask_benchmarks --benchmark_min_time=0.001 "--benchmark_filter=$cell" \
          >> "$o/ncu-pieces.txt" 2>&1
      done
      echo "ncupieces done"
      ;;
  esac
done
tar -czf "$OUT/s12.tar.gz" -C "$OUT" s12
