#!/bin/bash
# Session 35, call 35.1 (ab-s34.sh was never lent a device in session 34): the Kokkos 4.6.01 CUDA
# suite (build/k46-cuda, HEAD on 4.6.01 patched for CUDA 13 as docs/kokkos-versions.md says), then
# ab-s34.sh as call 35.1, then two variants of superimpose_nulls_tree's general walk alternated
# with HEAD (build/ab/s35/tree_t3: gpu_min_teams_per_sm = 3; tree_b2: that and gpu_batch = 2;
# tree_b8: batches of 8 nodes, their counts in two packed reductions, where built: HEAD with
# variants/tree-batch8.diff applied by git apply: 109 registers, a 144-byte stack frame, no
# spill stores),
# then the 4.6.01 benchmarks of the same cells where build/k46-cuda/perf_tests/kmask_benchmarks
# is carried (it was not in 35.1: the carry's size). Carried: what ab-s34.sh names, build/ab (all
# of it), build/k46-cuda/unit_tests/kmask_unit_tests_cuda, every binary stripped. Returns one
# tar, record-35.1.tar.gz. NOT MADE in session 35: four starts refused, then the device was
# paused for the session; the binaries were built (t3: 80 registers, 16 bytes spilled; b2: 79,
# none) and the next session can rebuild them from HEAD with the edits named above. Why these
# variants: in calls 30.2-30.3 the walk's GPU time at 2^26 bits is 535-570 us for 1.22 GB
# (2.15-2.29 TB/s) where the same-bytes copy moves 2.9 TB/s, so the kernel, not the call, is
# short; 2 teams of 256 an SM with about 20 words a lane in flight is ~40 KB an SM, which may not
# cover the memory's latency. t3 raises the warps, b8 the words a warp has in flight.
final=$OUT
export OUT=/tmp/kab CALL=35.1 AB_UNTIL=${AB_UNTIL:-300} NCU_UNTIL=${NCU_UNTIL:-380}
rec=$OUT/record
mkdir -p "$rec"
export LD_LIBRARY_PATH=$PWD/build/device-libs
timeout 200 build/k46-cuda/unit_tests/kmask_unit_tests_cuda --gtest_brief=1 > "$rec/unit-tests-kokkos-4.6.01-call-35.1.log" 2>&1
echo "k46 cuda unit tests rc=$?"; grep -E "FAILED|Failure" "$rec/unit-tests-kokkos-4.6.01-call-35.1.log" | head; tail -n 3 "$rec/unit-tests-kokkos-4.6.01-call-35.1.log"
bash perf_tests/results/h100/ab-s34.sh
new=build/cuda/perf_tests/kmask_benchmarks t3=build/ab/s35/tree_t3 b2=build/ab/s35/tree_b2 b8=build/ab/s35/tree_b8
for r in 1 2 3; do
  for v in new t3 b2 b8; do
    [ -x "${!v}" ] || continue
    [ "$SECONDS" -lt ${TREE_UNTIL:-480} ] || break 2
    timeout 40 ${!v} --benchmark_min_time=0.1 '--benchmark_filter=superimpose_nulls_tree/struct:1x8x8' --benchmark_out="$rec/tree-ab-$v$r.json" > /dev/null 2>&1
    echo "tree $v$r rc=$? at ${SECONDS}s"
  done
done
[ "$SECONDS" -lt 530 ] && [ -x build/k46-cuda/perf_tests/kmask_benchmarks ] && timeout 50 build/k46-cuda/perf_tests/kmask_benchmarks --benchmark_min_time=0.1 \
  '--benchmark_filter=superimpose_nulls_tree|inplace_segmented_count_set_bits/|segmented_count_set_bits/ranges|count_set_bits/27' \
  --benchmark_out="$rec/k46-cells-call-35.1.json" > /dev/null 2>&1
echo "k46 cells rc=$? at ${SECONDS}s"
tar -C "$rec" -czf "$final/record-35.1.tar.gz" .
