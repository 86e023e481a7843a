#!/bin/bash
# Session 32, call 32.2: call 32.1's host A/B again after the counting pass of the host list
# counts moved from Kokkos' dynamic schedule to round-robin chunks under a static one (the new
# build = c8ffbfb); the same binaries otherwise (see ab-s32.sh), no CUDA tests.
set -u
out=${OUT:-/tmp/kmask-ab}/record
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/build/device-libs OMP_PROC_BIND=spread OMP_PLACES=threads
b=build/ab/s32
cells='segmented_count_set_bits/|count_set_bits/(24|27)/|batch_count/(inplace_)?unset/masks:(100|1000)/total_bits:(16777216|134217728)/'
lscpu | grep -iE "model name|flags" | cut -c1-2000 > "$out/host-cpu-call-32.2.txt"
OMP_NUM_THREADS=16 timeout 200 $b/kmask_unit_tests_openmp --gtest_brief=1 > "$out/unit-tests-openmp16-call-32.2.log" 2>&1
echo "openmp unit tests rc=$?"; tail -3 "$out/unit-tests-openmp16-call-32.2.log"
for r in 1 2 3; do
  for v in old new; do
    [ "$SECONDS" -lt 440 ] || break 2
    OMP_NUM_THREADS=16 timeout 100 $b/${v}_host_bench --benchmark_min_time=0.1 "--benchmark_filter=$cells" \
      --benchmark_out="$out/ab-s32b-host-t16-$v$r.json" > /dev/null 2>&1
    echo "host t16 $v$r rc=$? at ${SECONDS}s"
  done
done
for v in old new; do
  [ "$SECONDS" -lt 500 ] || break
  OMP_NUM_THREADS=1 timeout 60 $b/${v}_host_bench --benchmark_min_time=0.1 \
    '--benchmark_filter=inplace_segmented_count_set_bits/|batch_count/inplace_unset/masks:1000/total_bits:16777216/' \
    --benchmark_out="$out/ab-s32b-host-t1-${v}1.json" > /dev/null 2>&1
  echo "host t1 $v rc=$? at ${SECONDS}s"
done
tar -C "$out" -czf "${OUT:-/tmp/kmask-ab}/record-32.2.tar.gz" .
