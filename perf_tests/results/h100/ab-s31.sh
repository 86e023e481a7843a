#!/bin/bash
# Session 31, call 31.2: the threaded host pass of piece lists (f54e596), the inline per-piece tests
# of the serial pass (914e3e3), the CPU tree walk reading sliced nodes in place (2208f07) and host
# counts of 16-63 words by AVX-512 (604aaab), against bbb0190. From the repository root, with these
# binaries carried: build/ab/s31/old_host_bench (bbb0190, host preset), build/ab/s31/new_host_bench
# and build/ab/s31/kmask_unit_tests_openmp (604aaab, host preset), build/ab/s29head (the CUDA
# benchmarks of bbb0190's GPU code, Kokkos 3.4.01), build/cuda (2208f07: GPU code as 604aaab's),
# build/device-libs.
# The CUDA unit tests; up to three alternated rounds (none started past 180 s): the host at 16
# threads, the GPU's piece lists; the OpenMP unit tests at 16 threads; one round of the host's
# serial pass (1 thread) while time is left.
set -u
out=${OUT:-/tmp/kmask-ab}/record
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/build/device-libs PATH=$PATH:/usr/local/cuda/bin OMP_PROC_BIND=spread OMP_PLACES=threads
host='move_bits/(copy_bits|segmented_copy_bits|inplace_concatenate)/log_bits:(24|26)/|move_bits/small/|superimpose_nulls_tree/'
gpu='move_bits/(copy_bits|segmented_copy_bits|inplace_concatenate)/log_bits:24/|move_bits/small/'
timeout 240 build/cuda/unit_tests/kmask_unit_tests_cuda > "$out/unit-tests-kokkos-3.4.01-call-31.2.log" 2>&1
echo "cuda unit tests rc=$?"; tail -3 "$out/unit-tests-kokkos-3.4.01-call-31.2.log"
# perf_tests/probes/host_gather_bound.cpp (built as its header says, carried in build/ab/s31).
OMP_NUM_THREADS=16 timeout 60 build/ab/s31/host_gather_bound > "$out/probe-host-gather-call-31.2.txt" 2>&1
echo "probe rc=$?"; cat "$out/probe-host-gather-call-31.2.txt"
for r in 1 2 3; do
  [ "$SECONDS" -lt 180 ] || break
  for b in old new; do
    OMP_NUM_THREADS=16 timeout 120 build/ab/s31/${b}_host_bench --benchmark_min_time=0.1 "--benchmark_filter=$host" \
      --benchmark_out="$out/ab-s31-host-t16-$b$r.json" > /dev/null 2>&1
    echo "host t16 $b$r rc=$? at ${SECONDS}s"
  done
  timeout 120 build/ab/s29head/kmask_benchmarks --benchmark_min_time=0.05 "--benchmark_filter=$gpu" \
    --benchmark_out="$out/ab-s31-gpu-old$r.json" > /dev/null 2>&1; echo "gpu old$r rc=$? at ${SECONDS}s"
  timeout 120 build/cuda/perf_tests/kmask_benchmarks --benchmark_min_time=0.05 "--benchmark_filter=$gpu" \
    --benchmark_out="$out/ab-s31-gpu-new$r.json" > /dev/null 2>&1; echo "gpu new$r rc=$? at ${SECONDS}s"
done
OMP_NUM_THREADS=16 timeout 120 build/ab/s31/kmask_unit_tests_openmp > "$out/unit-tests-openmp16-call-31.2.log" 2>&1
echo "openmp unit tests rc=$?"; tail -3 "$out/unit-tests-openmp16-call-31.2.log"
# The serial pass (one thread), one round, while time is left.
for b in old new; do
  [ "$SECONDS" -lt 280 ] || break
  OMP_NUM_THREADS=1 timeout 60 build/ab/s31/${b}_host_bench --benchmark_min_time=0.1 \
    '--benchmark_filter=move_bits/(segmented_copy_bits|inplace_concatenate)/log_bits:24/|move_bits/small/' \
    --benchmark_out="$out/ab-s31-host-t1-${b}1.json" > /dev/null 2>&1
  echo "host t1 $b rc=$? at ${SECONDS}s"
done
