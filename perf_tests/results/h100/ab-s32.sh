#!/bin/bash
# Session 32, call 32.1: the CUDA unit tests, then on the host: segmented counts of long range lists and batch counts of many
# masks by the host space's threads (8115dfe, 46d5837) and int32 gathers by two-word windows and
# VPSHUFBITQMB (8aa1f7a), against 5f0cab2. From the repository root, with these binaries carried:
# build/ab/s32/old_host_bench (5f0cab2, host preset), build/ab/s32/new_host_bench and
# build/ab/s32/kmask_unit_tests_openmp (46d5837), build/cuda (46d5837, Kokkos 3.4.01), build/ab/s32/host_gather_bound
# (perf_tests/probes/host_gather_bound.cpp, built as its header says), build/device-libs.
# The OpenMP unit tests at 16 threads; three alternated rounds at 16 threads; one round at 1
# thread; the gathers at 1-16 threads (what bounds the sorted gather: does it scale with cores?).
set -u
out=${OUT:-/tmp/kmask-ab}/record
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/build/device-libs OMP_PROC_BIND=spread OMP_PLACES=threads
b=build/ab/s32
cells='inplace_segmented_count_set_bits/|segmented_count_set_bits/|count_set_bits/(24|27)/|batch_count/(inplace_)?unset/masks:(100|1000)/total_bits:(16777216|134217728)/|make_masks/inplace_gather_bits/'
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi -L > "$out/device-call-32.1.txt" 2>&1
timeout 200 build/cuda/unit_tests/kmask_unit_tests_cuda --gtest_brief=1 > "$out/unit-tests-kokkos-3.4.01-call-32.1.log" 2>&1
echo "cuda unit tests rc=$?"; tail -3 "$out/unit-tests-kokkos-3.4.01-call-32.1.log"
lscpu | grep -iE "model name|flags" | cut -c1-2000 > "$out/host-cpu-call-32.1.txt"
OMP_NUM_THREADS=16 timeout 200 $b/kmask_unit_tests_openmp --gtest_brief=1 > "$out/unit-tests-openmp16-call-32.1.log" 2>&1
echo "openmp unit tests rc=$?"; tail -3 "$out/unit-tests-openmp16-call-32.1.log"
OMP_NUM_THREADS=16 timeout 60 $b/host_gather_bound > "$out/probe-host-gather-call-32.1.txt" 2>&1
echo "probe rc=$?"; cat "$out/probe-host-gather-call-32.1.txt"
for r in 1 2 3; do
  for v in old new; do
    [ "$SECONDS" -lt 440 ] || break 2
    OMP_NUM_THREADS=16 timeout 100 $b/${v}_host_bench --benchmark_min_time=0.1 "--benchmark_filter=$cells" \
      --benchmark_out="$out/ab-s32-host-t16-$v$r.json" > /dev/null 2>&1
    echo "host t16 $v$r rc=$? at ${SECONDS}s"
  done
done
for v in old new; do
  [ "$SECONDS" -lt 500 ] || break
  OMP_NUM_THREADS=1 timeout 60 $b/${v}_host_bench --benchmark_min_time=0.1 \
    '--benchmark_filter=inplace_segmented_count_set_bits/|batch_count/inplace_unset/masks:1000/total_bits:16777216/|make_masks/inplace_gather_bits/int32/sorted/24' \
    --benchmark_out="$out/ab-s32-host-t1-${v}1.json" > /dev/null 2>&1
  echo "host t1 $v rc=$? at ${SECONDS}s"
done
for t in 2 4 8; do
  [ "$SECONDS" -lt 550 ] || break
  OMP_NUM_THREADS=$t timeout 30 $b/new_host_bench --benchmark_min_time=0.1 '--benchmark_filter=make_masks/inplace_gather_bits/int32/(sorted|random)/24' \
    --benchmark_out="$out/ab-s32-gather-t$t.json" > /dev/null 2>&1
  echo "gather t$t rc=$? at ${SECONDS}s"
done
tar -C "$out" -czf "${OUT:-/tmp/kmask-ab}/record-32.1.tar.gz" .
