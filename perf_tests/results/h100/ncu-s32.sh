#!/bin/bash
# Session 32, call 32.3: where the device-range segmented count stands (issue 18, item 2, "open" in
# misses-session30.md): ncu of its check and count kernels at 1000 and 100000 ranges over 2^27
# bits, the call's own timings beside. From the repository root with build/cuda (46d5837's
# benchmarks, Kokkos 3.4.01; the GPU code is 5f0cab2's) and build/device-libs carried.
set -u
out=${OUT:-/tmp/kmask-ncu}/record
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/build/device-libs PATH=$PATH:/usr/local/cuda/bin
bin=build/cuda/perf_tests/kmask_benchmarks
for n in 1000 100000; do
  timeout 240 ncu --clock-control none --kernel-name-base demangled -k "regex:device_range_count_functor|range_check_functor" \
    --launch-skip 6 --launch-count 2 --section SpeedOfLight --section LaunchStats --section Occupancy \
    --section MemoryWorkloadAnalysis --section WarpStateStats \
    $bin --benchmark_min_time=0.001 "--benchmark_filter=^inplace_segmented_count_set_bits/device_ranges/27/$n/" \
    > "$out/ncu-device-ranges-$n-call-32.3.txt" 2>&1
  echo "ncu $n rc=$? $(grep -E ' Duration|Grid Size|DRAM Throughput|Achieved Occupancy|Registers Per' "$out/ncu-device-ranges-$n-call-32.3.txt" | tr -s ' ' | tr '\n' ';')"
done
timeout 60 $bin --benchmark_min_time=0.1 '--benchmark_filter=inplace_segmented_count_set_bits/|count_set_bits/27' \
  --benchmark_out="$out/device-ranges-call-32.3.json" > /dev/null 2>&1
echo "bench rc=$?"
tar -C "$out" -czf "${OUT:-/tmp/kmask-ncu}/record-32.3.tar.gz" .
