#!/usr/bin/env bash
# Runs prebuilt CUDA (and host) binaries on the GPU machine; used through the `device` tool with
# build/cuda, build/host and build/device-libs carried. Writes logs and results under $OUT.
#   scripts/device-run.sh STEP...   steps: info tests sanitize sanitize-all bench-key bench-wide bench-rest bench-alloc
#                                   bench-full bench-host bench-variants bench-host-variants
#                                   sanitize-large ncu ncu-calls bench-concurrency bench-compare bench-calls
#   KMASK_HOST_BUILD   host build directory with OpenMP benchmarks (default build/host)
#   KMASK_CUDA_BUILD   CUDA build directory (default build/cuda)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=${OUT:-/tmp/kmask-device-out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/build/device-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# Kokkos' OpenMP threads (the host space of both builds) pinned one per core, as Kokkos advises.
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}
cuda_bin=${KMASK_CUDA_BUILD:-build/cuda}  # another CUDA build (a Kokkos 4.x one, say) with KMASK_CUDA_BUILD
host_bin=${KMASK_HOST_BUILD:-build/host}
rc=0
step() { echo "=== $* ($(date +%T))"; }
# The tests the sanitizers slow most (for time), as parts of their names.
large_tests="more_segments many_ranges longer_than repeated_runs a_million_segments around_a_grid_dimension"
# excluding NAME...: a gtest filter leaving out the tests whose names contain a NAME, and the
# resource-failure test (its deliberate out-of-memory cudaMalloc is an API error to the tools).
excluding() {
  local f=- n
  for n in "$@" resource_failure; do f+="*$n*:"; done
  echo "${f%:}"
}
# sanitized TIMEOUT TOOL GTEST_FILTER LOG: the CUDA unit tests under one compute-sanitizer tool
sanitized() {
  timeout "$1" compute-sanitizer --tool "$2" --error-exitcode 99 --print-limit 100000 \
    "$cuda_bin/unit_tests/kmask_unit_tests_cuda" --gtest_brief=1 "--gtest_filter=$3" >"$4" 2>&1
}
# sanitize TIMEOUT GTEST_FILTER: the CUDA unit tests under each compute-sanitizer tool in turn
sanitize() {
  local tool r
  for tool in memcheck racecheck initcheck synccheck; do
    step "compute-sanitizer $tool"
    KMASK_TEST_SKIP_HUGE=1 sanitized "$1" "$tool" "$2" "$out/sanitize-$tool.log"
    r=$?
    tail -4 "$out/sanitize-$tool.log"
    [ $r -eq 0 ] || rc=1
  done
}
# bench BINARY NAME MIN_TIME FILTER: one benchmark run, JSON + text under $out/bench-NAME.*
bench() {
  "$1" --benchmark_min_time="$3" "--benchmark_filter=$4" --benchmark_out="$out/bench-$2.json" \
    --benchmark_out_format=json --benchmark_counters_tabular=true 2>&1 | tee "$out/bench-$2.txt" |
    grep -v "^-" | cut -c1-230
}

for s in "$@"; do
  case $s in
    info)
      step info
      nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
        --format=csv | tee "$out/gpu.txt"
      # The host side too: the OpenMP benchmarks and the allocating call's host pass run on it.
      lscpu | grep -E "Model name|^CPU\(s\)|Thread|Socket|NUMA node\(s\)|L[23] cache|MHz" | tee "$out/host-cpu.txt"
      ;;
    tests)
      step tests
      "$cuda_bin/unit_tests/kmask_unit_tests_cuda" 2>&1 | tee "$out/unit-cuda.log" | tail -30 || rc=1
      grep -q "PASSED" "$out/unit-cuda.log" && ! grep -q "FAILED" "$out/unit-cuda.log" || rc=1
      ;;
    sanitize)
      # The sanitizers slow kernels 10-100x: the six largest tests are left to the plain run, and
      # the resource-failure test too (its deliberate out-of-memory cudaMalloc is an API error to them).
      sanitize "${KMASK_SANITIZE_TIMEOUT:-100}" "$(excluding $large_tests)"
      ;;
    bench-key)
      step "benchmarks (key cells)"
      bench "$cuda_bin/perf_tests/kmask_benchmarks" key 0.05 \
        'segmented_binop/inplace/and/segments:(10|100|1000)/masks:(4|8|16)/bits:(1048576|16777216)/|segmented_binop/(inplace|alloc)/and/segments:(1000|10000)/masks:(4|16)/bits:(32|128)/|count_set_bits|segmented_count_set_bits|copy_bitmask'
      ;;
    bench-rest)
      # What bench-wide leaves out: small masks in place and allocating, counting and copying.
      step "benchmarks (small masks, allocating, counting, copying)"
      bench "$cuda_bin/perf_tests/kmask_benchmarks" rest 0.02 \
        'segmented_binop/(inplace|alloc)/and/segments:(1000|10000)/masks:(4|16)/bits:(32|128)/|count_set_bits|segmented_count_set_bits|copy_bitmask'
      ;;
    bench-alloc)
      # The allocating call end to end, its descriptor staging on every host core (Kokkos' OpenMP
      # host space) and on one, side by side.
      # KMASK_ALLOC_ACTIVE=1 adds 16 threads that spin between calls instead of sleeping
      # (OMP_WAIT_POLICY=active): how much of a call is waking the host threads.
      for threads in 16 1 ${KMASK_ALLOC_ACTIVE:+16-active}; do
        step "benchmarks (allocating, $threads host threads)"
        (
          [ "$threads" = 16-active ] && export OMP_WAIT_POLICY=active
          filter=${KMASK_ALLOC_FILTER:-segmented_binop/alloc/and/segments:(1000|10000)/masks:(4|16)/bits:(32|128)/}
          # The comparison runs may take fewer cases (KMASK_ALLOC_EXTRA_FILTER).
          [ "$threads" = 16 ] || filter=${KMASK_ALLOC_EXTRA_FILTER:-$filter}
          OMP_NUM_THREADS=${threads%-active} bench "$cuda_bin/perf_tests/kmask_benchmarks" "alloc-threads$threads" 0.02 \
            "$filter"
        )
      done
      ;;
    bench-wide)
      # The wide-kernel cells of the targets (2^20, 2^24 and 2^27 bits, in place, AND and the OR case).
      step "benchmarks (wide cells)"
      bench "$cuda_bin/perf_tests/kmask_benchmarks" wide 0.02 \
        "${KMASK_WIDE_FILTER:-segmented_binop/inplace/(and|or)/segments:(10|100|1000)/masks:(4|8|16)/bits:(1048576|16777216)/|segmented_binop/inplace/and/segments:10/masks:(4|16)/bits:134217728/}"
      ;;
    bench-full)
      step "benchmarks (all)"
      # The GPU holds 139 GB: allow working sets up to 100 GiB (2^24 bits x 1000 segments x 16 masks).
      KMASK_BENCH_MAX_BYTES=$((100 << 30)) "$cuda_bin/perf_tests/kmask_benchmarks" --benchmark_min_time=0.05 \
        --benchmark_out="$out/bench-cuda.json" --benchmark_out_format=json \
        --benchmark_counters_tabular=true >"$out/bench-cuda.txt" 2>&1 || rc=1
      tail -5 "$out/bench-cuda.txt"
      ;;
    bench-host)
      step "host benchmarks (OpenMP, all cores)"
      OMP_PROC_BIND=spread OMP_PLACES=threads bench "$host_bin/perf_tests/kmask_benchmarks" host-openmp 0.05 \
        "${KMASK_HOST_FILTER:-segmented_binop/inplace/and/segments:(10|100)/masks:(4|16)/bits:(16777216|134217728)/|count_set_bits/(24|27)|copy_bitmask/(24|27)/}"
      ;;
    sanitize-all)
      # Every test except the >2^32-bit case (1.6 GB under memcheck's shadow memory runs for many
      # minutes; the plain `tests` step runs it) and the resource-failure test (see above).
      sanitize "${KMASK_SANITIZE_TIMEOUT:-240}" "$(excluding longer_than)"
      ;;
    bench-variants)
      # Tuning builds (build/cuda-* or build/tune/cuda-*) side by side on the wide-kernel cells, without
      # the peers. A variant is built from a header that specialises detail::launch_tuning<Kokkos::Cuda>
      # (include/kmask/detail/launch_tuning.hpp shows how), named when the build is configured:
      #   cmake --preset cuda -B build/tune/cuda-NAME '-DCMAKE_CXX_FLAGS=-DKMASK_TUNING_OVERRIDE_HEADER=\"/abs/NAME.hpp\"'
      # The header is read at compile time only; the step's log names it (CMAKE_CXX_FLAGS).
      # KMASK_VARIANT_DIRS picks the builds; KMASK_VARIANT_PEERS=1 keeps the peers (warp mapping, KokkosBlas).
      for dir in ${KMASK_VARIANT_DIRS:-"$cuda_bin"/ build/cuda-*/ build/tune/cuda-*/}; do
        name=$(basename "$dir")
        [ -x "$dir/perf_tests/kmask_benchmarks" ] || continue
        step "benchmarks, variant $name ($(grep -o 'CMAKE_CXX_FLAGS:STRING=.*' "$dir/CMakeCache.txt"))"
        if [ "${KMASK_VARIANT_PEERS:-0}" = 1 ]; then unset KMASK_BENCH_NO_PEERS; else export KMASK_BENCH_NO_PEERS=1; fi
        bench "$dir/perf_tests/kmask_benchmarks" "${KMASK_VARIANT_PREFIX:-}$name" "${KMASK_VARIANT_MIN_TIME:-0.05}" \
          "${KMASK_VARIANT_FILTER:-segmented_binop/inplace/and/segments:(10|100|1000)/masks:(4|16)/bits:1048576/|segmented_binop/inplace/and/segments:(10|100)/masks:(4|16)/bits:16777216/}"
      done
      ;;
    bench-host-variants)
      # Host tuning builds (build/host and build/tune/host-*, a header specialising
      # launch_tuning<Kokkos::OpenMP> as above) side by side, OpenMP on all cores.
      for dir in "$host_bin"/ build/tune/host-*/; do
        name=$(basename "$dir")
        [ -x "$dir/perf_tests/kmask_benchmarks" ] || continue
        step "host benchmarks, variant $name ($(grep -o 'CMAKE_CXX_FLAGS:STRING=.*' "$dir/CMakeCache.txt"))"
        OMP_PROC_BIND=spread OMP_PLACES=threads KMASK_BENCH_NO_PEERS=1 bench "$dir/perf_tests/kmask_benchmarks" \
          "host-$name" "${KMASK_VARIANT_MIN_TIME:-0.05}" \
          "${KMASK_HOST_FILTER:-segmented_binop/inplace/and/segments:(10|100)/masks:(4|16)/bits:16777216/}"
      done
      ;;
    sanitize-large)
      # Everything under every tool at once, one process per (tool, test set), side by side (the
      # tools' cost is mostly host-side): the sanitize step's set as one process per tool, and each
      # large test it leaves out as its own process; each under KMASK_SANITIZE_TIMEOUT seconds.
      step "compute-sanitizer, all tests, in parallel"
      pids=()
      large=${KMASK_SANITIZE_LARGE:-$large_tests plan_runs}
      for tool in memcheck racecheck initcheck synccheck; do
        for t in small $large; do
          if [ "$t" = small ]; then filter=$(excluding $large_tests plan_runs); else filter="*$t*"; fi
          sanitized "${KMASK_SANITIZE_TIMEOUT:-500}" "$tool" "$filter" "$out/sanitize-$tool-$t.log" &
          pids+=($!)
        done
      done
      for p in "${pids[@]}"; do wait "$p" || rc=1; done
      for f in "$out"/sanitize-*-*.log; do
        echo "$(basename "$f"): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED|SKIPPED \[' "$f" | tr '\n' ' ')"
      done
      ;;
    ncu)
      # Hardware counters for the wide kernel (clocks left alone): 2^24 bits x 10 segments x 4 masks
      # aligned and unaligned, and 2^20 bits x 1000 segments x 4 masks; one report file.
      step "ncu"
      for cell in segments:10/masks:4/bits:16777216/aligned segments:10/masks:4/bits:16777216/unaligned \
        segments:1000/masks:4/bits:1048576/aligned; do
        echo "##### $cell" >>"$out/ncu.txt"
        timeout 200 ncu --clock-control none --kernel-name-base demangled -k regex:wide_segments_functor --launch-skip 3 --launch-count 1 \
          --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
          --section WarpStateStats --section SchedulerStats \
          env KMASK_BENCH_NO_PEERS=1 "$cuda_bin/perf_tests/kmask_benchmarks" --benchmark_min_time=0.01 \
          "--benchmark_filter=segmented_binop/inplace/and/$cell/" >>"$out/ncu.txt" 2>&1 || rc=1
      done
      grep -E "#####|Duration|DRAM Throughput|Achieved Occupancy|Registers Per|Theoretical Occupancy|Stall|Warp Cycles Per Issued|Eligible Warps|No Eligible" "$out/ncu.txt" | head -60
      ;;
    ncu-calls)
      # Hardware counters for the kernels of the calls of issues 15, 16 and 18 (kmask's own kernels
      # only: the benchmark's fills and copies are left out by name), a few launches of each cell;
      # KMASK_NCU_CELLS picks the benchmark cells (regexes), one report file with a summary after it.
      step "ncu (new calls)"
      for cell in ${KMASK_NCU_CELLS:-make_masks/inplace_valid_if/mod3/24/ make_masks/inplace_bools_to_mask/uint8/24/ \
        make_masks/inplace_mask_to_bools/24/ make_masks/inplace_gather_bits/int32/sorted/24/ \
        make_masks/inplace_gather_bits/int32/random/24/ move_bits/set_bits/log_bits:24/unaligned:1/ \
        move_bits/copy_bits/log_bits:24/unaligned:1/ batch_count/unset/masks:100/total_bits:134217728/aligned/ \
        superimpose_nulls_tree/struct:1x8x8/bits:16777216/aligned/ count_set_bits/30/}; do
        echo "##### $cell" >>"$out/ncu-calls.txt"
        timeout 120 ncu --clock-control none --kernel-name-base demangled -k regex:kmask::detail --launch-skip 2 \
          --launch-count 2 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
          --section LaunchStats --section WarpStateStats \
          "$cuda_bin/perf_tests/kmask_benchmarks" --benchmark_min_time=0.001 "--benchmark_filter=$cell" \
          >>"$out/ncu-calls.txt" 2>&1 || rc=1
      done
      grep -E "#####|^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Block Size|Grid Size|Warp Cycles Per Issued|Compute \(SM\) Throughput" \
        "$out/ncu-calls.txt" | cut -c1-200 >"$out/ncu-calls-summary.txt"
      head -150 "$out/ncu-calls-summary.txt"
      ;;
    bench-concurrency)
      # T host threads (1, 2, 4, 8), each with a CUDA stream of its own (Kokkos::Cuda(stream)), each
      # making the same number of calls of one form (allocating, in place, a plan of its own) on
      # 100 x 4 x 2^20 and 2000 x 8 x 128 bits: per-call time, and speedup_vs_serial = the same calls
      # from one thread, round-robin over the same streams, / with T threads, in the same run.
      # KMASK_CONCURRENCY_FILTER picks cases, KMASK_CONCURRENCY_MIN_TIME the minimum time per case.
      step "benchmarks (concurrency: host threads, a stream each)"
      bench "$cuda_bin/perf_tests/kmask_benchmarks" concurrency "${KMASK_CONCURRENCY_MIN_TIME:-0.05}" \
        "${KMASK_CONCURRENCY_FILTER:-concurrency/}" || rc=1
      ! grep -q "ERROR OCCURRED" "$out/bench-concurrency.txt" || rc=1
      ;;
    bench-compare)
      # Before/after: the benchmark binary of an earlier build (KMASK_OLD_BUILD, default
      # build/old-cuda) and this one, alternated (old, new, old, new) over the same cells, peers left
      # out; perf_tests/compare_runs.py makes the table from the four JSON files.
      old_bin=${KMASK_OLD_BUILD:-build/old-cuda}/perf_tests/kmask_benchmarks
      filter=${KMASK_COMPARE_FILTER:-segmented_binop/inplace/and/segments:(10|100|1000)/masks:(4|16)/bits:(1048576|16777216)/|segmented_binop/(inplace|alloc)/and/segments:(1000|10000)/masks:(4|16)/bits:(32|128)/|segmented_binop/alloc/and/segments:(10|100)/masks:4/bits:1048576/|count_set_bits/(20|24|27)|segmented_count_set_bits/ranges:1000/(20|24)|copy_bitmask/(20|24)/}
      for round in 1 2; do
        for build in old new; do
          step "benchmarks ($build build, round $round)"
          bin=$cuda_bin/perf_tests/kmask_benchmarks
          [ $build = old ] && bin=$old_bin
          KMASK_BENCH_NO_PEERS=1 bench "$bin" "compare-$build-$round" "${KMASK_COMPARE_MIN_TIME:-0.02}" "$filter" >/dev/null || rc=1
        done
      done
      ;;
    bench-calls)
      # The calls of issues 15 and 16 (moving bits, negated sources, batch counts, making masks, the
      # struct tree) and issue 18's tails (counts, copies: gpu_us, host p50/p90/p99, floor_us,
      # alloc_us), each against the same-bytes copy of the same run.
      # KMASK_CALLS_FILTER picks cases, KMASK_CALLS_MIN_TIME the minimum time per case.
      step "benchmarks (new calls and tails)"
      bench "$cuda_bin/perf_tests/kmask_benchmarks" calls "${KMASK_CALLS_MIN_TIME:-0.02}" \
        "${KMASK_CALLS_FILTER:-move_bits/|batch_count/|make_masks/|superimpose_nulls_tree/|segmented_binop/inplace/and_not/|inplace_segmented_count|count_set_bits/(20|24|27|30)|copy_bitmask/(24|27)/}" || rc=1
      ! grep -q "ERROR OCCURRED" "$out/bench-calls.txt" || rc=1
      ;;
    *) echo "unknown step $s"; rc=2 ;;
  esac
done
exit $rc
