#!/bin/bash
# The H200 record set in this directory: every benchmark and the CUDA unit tests, from the
# repository root on the device machine, with these binaries built on the development machine
# and carried (the device tool's `carry`):
#   build/cuda/perf_tests/kmask_benchmarks, build/cuda/unit_tests/kmask_unit_tests_cuda
#       Kokkos 3.4.01 from `scripts/install-deps cuda` (`cmake --preset cuda`);
#   build/k46-cuda/...   the same tree against Kokkos 4.6.01 (built outside the repository as
#       docs/kokkos-versions.md says);
#   build/host/perf_tests/kmask_benchmarks   the `host` preset (Serial + OpenMP);
#   build/device-libs    the shared libraries the device image lacks (libbenchmark).
# Usage: record.sh PART...   parts: info tests tests-k46 seg-small seg-wide calls conc k46 host alloc threads ncu-tree ncu-tree-sass
#   ncu-move ncu-count ncu-make make-teams k46-ticket ab-bulk ab-args ab-gather
#   mutation memcheck-moves calls-ab ab-seg ab-s24 s25 ab-s25 s26 ab-s26 ncu-s26 ab-s27 ncu-s27 ab-s27b ab-s27c probe-read ncu-s28 ab-s28 ab-s28b ab-s29 ab-s29d ab-s29k46 probe-markers
#   ab-s29m ab-s29mq tests-mk tails host-scale
# Results go to $OUT/record/PART-BUILD.{json,txt} and are tarred into $OUT/record.tar.gz (the
# device tool returns at most 8 files a call).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/kmask-record}/record
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/build/device-libs PATH=$PATH:/usr/local/cuda/bin
# Kokkos' OpenMP threads (the host space of every build) one per core, as Kokkos advises.
export OMP_PROC_BIND=spread OMP_PLACES=threads
k34=build/cuda k46=build/k46-cuda
# Every call of issues 15, 16 and 18 that is not a segmented binop (those are `seg`).
calls='count_set_bits/|segmented_count_set_bits/|inplace_segmented_count_set_bits/|copy_bitmask/|batch_count/|move_bits/|make_masks/|superimpose_nulls_tree/'
# The cells the bulk route (bulk_words.hpp) changes, and their unaligned neighbours.
bulk='move_bits/(set_bits|copy_bits)/|copy_bitmask/'
# Issue 18's cells of the segmented call: few-segment in place, allocating (p50 / p99).
i18seg='segmented_binop/inplace/and/segments:10/masks:(4|16)/bits:(1048576|16777216)/|segmented_binop/alloc/and/segments:(1000|10000)/masks:(4|16)/bits:128/|segmented_binop/alloc/and/segments:(10|100)/masks:4/bits:1048576/'
wide='segmented_binop/inplace/(and|or)/segments:(10|100|1000)/masks:(4|8|16)/bits:(1048576|16777216)/|segmented_binop/inplace/and/segments:10/masks:(4|16)/bits:134217728/'
alloc='segmented_binop/alloc/and/segments:(1000|10000)/masks:(2|4|16)/bits:128/|segmented_binop/alloc/and/segments:(10|100)/masks:4/bits:1048576/'
# Few segments in place, planned and one-shot (the cells descriptors in the launch's arguments change).
abseg='segmented_binop/inplace(_call)?/and/segments:(10|100)/masks:(4|16)/bits:(1048576|16777216)/'
# Session 27's changed cells: batch counts of 100 masks (one team a mask at 2^20 bits: unchanged,
# a control), segmented counts over host and device ranges, the making calls that count (their
# counts by warp and one packed atomic) and counted moves (one packed atomic a team).
s27='batch_count/(inplace_)?unset/masks:100/total_bits:(1048576|16777216|134217728)/aligned|inplace_segmented_count_set_bits/|segmented_count_set_bits/ranges:1000/27/|make_masks/inplace_(valid_if/mod3|bools_to_mask/uint8|gather_bits/int32/(sorted|random))/(16|24)/|move_bits/inplace_concatenate/log_bits:(24|26)/unaligned:0/pieces:(10|100)/'
# Session 29's cells: the counted calls that lease scratch asynchronously, and two controls.
s29='make_masks/inplace_(valid_if/mod3|bools_to_mask/uint8)/(16|24)/|batch_count/inplace_unset/masks:100/total_bits:(16777216|134217728)/aligned|move_bits/inplace_concatenate/log_bits:24/unaligned:0/pieces:(10|100)/|count_set_bits/(20|27)/'
# Session 29's marker cells: leases that upload, one that does not, a synchronous count.
s29m='segmented_binop/inplace(_call)?/and/segments:10/masks:4/bits:(1048576|16777216)/|move_bits/inplace_concatenate/log_bits:24/unaligned:0/pieces:(10|100)/|move_bits/segmented_copy_bits/log_bits:24/|inplace_segmented_count_set_bits/27/1000|make_masks/inplace_bools_to_mask/uint8/16/0|count_set_bits/20/'
# The allocating cells whose tails miss issue 18's p99 <= 2 x p50 (10000 segments of 4 masks or
# more), and 10000 x 2, whose host pass stays on the calling thread.
tails='segmented_binop/alloc/and/segments:10000/masks:(2|4|16)/bits:(32|128)/'
# The host's piece lists and a one-piece copy of the same bits (host-scale).
hostscale='move_bits/(copy_bits|segmented_copy_bits)/log_bits:24/unaligned:0|move_bits/inplace_concatenate/log_bits:24/unaligned:0/pieces:(10|100)/'
# The host floors' cells (>= 2^24 bits), on the device machine's 16 cores.
host='segmented_binop/inplace/and/segments:(10|100)/masks:(4|16)/bits:(16777216|134217728)/|count_set_bits/(24|27)|copy_bitmask/(24|27)/|move_bits/(set_bits|copy_bits|segmented_copy_bits|inplace_concatenate)/|batch_count/|make_masks/|superimpose_nulls_tree/'

# A device call may run 600 s: every process ends by the deadline (seconds from the start), so the
# tar at the end always runs; a part past it is skipped and says so.
deadline=${RECORD_DEADLINE:-585}
left() { echo $((deadline - SECONDS)); }
# bench BINARY NAME MIN_TIME FILTER: one benchmark process, JSON and text under $out.
bench() {
  local s=$SECONDS
  if [ "$(left)" -lt 20 ]; then echo "$2 skipped: past the deadline"; return; fi
  timeout "$(left)" "$1" --benchmark_min_time="$3" "--benchmark_filter=$4" --benchmark_out="$out/$2.json" \
    --benchmark_out_format=json --benchmark_counters_tabular=true > "$out/$2.txt" 2>&1
  echo "$2 rc=$? $(grep -c manual_time "$out/$2.txt") cells, $((SECONDS - s)) s"
}
# ab NAME BASE FILTER [NEW]: BASE/kmask_benchmarks and NEW's (default build/cuda's perf_tests)
# alternated, three rounds, as diag-NAME-{base,new}-{1,2,3}.
ab() {
  local new=${4:-$k34/perf_tests}
  for r in 1 2 3; do
    bench "$2/kmask_benchmarks" "diag-$1-base-$r" 0.05 "$3"
    bench "$new/kmask_benchmarks" "diag-$1-new-$r" 0.05 "$3"
  done
}
tests() {
  local s=$SECONDS
  if [ "$(left)" -lt 60 ]; then echo "tests $2 skipped: past the deadline"; return; fi
  timeout "$(left)" "$1/unit_tests/kmask_unit_tests_cuda" > "$out/unit-tests-$2.log" 2>&1
  echo "tests $2 rc=$? $(grep -E '^\[  PASSED|^\[  SKIPPED|^\[  FAILED' "$out/unit-tests-$2.log" | tr '\n' ' ') $((SECONDS - s)) s"
}

# ncu_cells PREFIX KERNELS OPTIONS CELL...: one steady-state launch (NCU_LAUNCHES, default 1) of the
# kernels matching the regex KERNELS under ncu, with the ncu OPTIONS (sections, metrics, cache
# control), in each benchmark CELL of NCU_BINARY (default build/cuda's), as $out/PREFIX-<cell>.txt,
# and a line of its duration, shape, DRAM and occupancy.
ncu_cells() {
  local prefix=$1 kernels=$2 opts=$3 f name
  shift 3
  for f in "$@"; do
    name=$(echo "$f" | tr -c 'a-z0-9\n' '-' | tr -s '-')
    # $opts unquoted: one ncu argument a word.
    timeout "$(left)" ncu --clock-control none --kernel-name-base demangled -k "regex:$kernels" --launch-skip 6 \
      --launch-count "${NCU_LAUNCHES:-1}" $opts "${NCU_BINARY:-$k34/perf_tests/kmask_benchmarks}" \
      --benchmark_min_time=0.001 "--benchmark_filter=^$f/" > "$out/$prefix-$name.txt" 2>&1
    echo "ncu $f rc=$? $(grep -E ' Duration|Grid Size|Block Size|DRAM Throughput|Registers Per|Achieved Occupancy|gpu__time_duration|registers_per' "$out/$prefix-$name.txt" | tr -s ' ' | tr '\n' ';')"
  done
}

for part in "$@"; do
  case $part in
    info)
      nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
        --format=csv > "$out/gpu.txt" 2>&1
      lscpu | grep -E "Model name|^CPU\(s\)|Thread|Socket|NUMA node\(s\)|L[23] cache|MHz" > "$out/host-cpu.txt"
      cat "$out/gpu.txt"
      ;;
    tests) tests $k34 kokkos-3.4.01 ;;
    tests-k46) tests $k46 kokkos-4.6.01 ;;
    # The stream-marker library's suite (s29-stream-markers' compat.hpp on d8d8d67's tests, built
    # into build/ab/mk/unit_tests; Kokkos 3.4.01). Run in call 30.1.
    tests-mk) tests build/ab/mk kokkos-3.4.01-markers ;;
    # The segmented cells with the warp-per-segment and KokkosBlas peers: every mask of 32 and 128
    # bits (6.5 minutes: preparing 10^4-10^5 masks one allocation each is most of it), and the wide
    # cells of the design note's table at 2^20 and 2^24 bits, the OR case and 10 segments at 2^27.
    seg-small) bench $k34/perf_tests/kmask_benchmarks seg-small-k34 0.02 'segmented_binop/.*/bits:(32|128)/' ;;
    seg-wide) bench $k34/perf_tests/kmask_benchmarks seg-wide-k34 0.02 "$wide" ;;
    calls) bench $k34/perf_tests/kmask_benchmarks calls-k34 0.02 "$calls" ;;
    # T host threads with a stream each against the same calls from one thread (issue 14).
    conc) bench $k34/perf_tests/kmask_benchmarks conc-k34 0.05 'concurrency/' ;;
    # The library before the bulk route (build/ab/old, carried) and build/cuda alternated, three
    # rounds, on the cells it changes (word-aligned set_bits, copy_bits, copy_bitmask).
    ab-bulk)
      for r in 1 2 3; do
        bench build/ab/old/kmask_benchmarks diag-ab-bulk-old-$r 0.05 "$bulk"
        bench $k34/perf_tests/kmask_benchmarks diag-ab-bulk-new-$r 0.05 "$bulk"
      done
      ;;
    # Three libraries alternated, three rounds, on the moving and copying cells: before the bulk
    # route (build/ab/old, 4b5e176), before lists went in the kernel's arguments (build/ab/base,
    # 27e43b9) and build/cuda.
    ab-args)
      for r in 1 2 3; do
        for b in old base; do
          bench build/ab/$b/kmask_benchmarks diag-ab-args-$b-$r 0.05 'move_bits/|copy_bitmask/'
        done
        bench $k34/perf_tests/kmask_benchmarks diag-ab-args-new-$r 0.05 'move_bits/|copy_bitmask/'
      done
      ;;
    # The gathers before (build/ab/base, 27e43b9) and after their whole-block path, alternated.
    ab-gather) ab ab-gather build/ab/base 'make_masks/inplace_gather_bits/' ;;
    # Few-segment in-place calls, planned and one-shot, before (build/ab/base2: 27e43b9 with this
    # session's benchmark file, whose inplace_call family it lacked) and after their descriptors
    # went into the launch's arguments, alternated, three rounds.
    ab-seg) ab ab-seg build/ab/base2 "$abseg" ;;
    # Session 24: shifted chunks for unaligned booleans and counts written into page-locked result
    # words, before (build/ab/head: 6100cd2's library with this session's benchmark file) and
    # after, alternated, three rounds.
    ab-s24) ab ab-s24 build/ab/head 'make_masks/inplace_bools_to_mask/|count_set_bits/|inplace_binop/|copy_bitmask/|move_bits/inplace_concatenate/log_bits:24/' ;;
    # Session 25: the segmented counts, host ranges against ranges already in device memory
    # (count_device_ranges.hpp), and the single count beside them; two rounds.
    s25)
      for r in 1 2; do
        bench $k34/perf_tests/kmask_benchmarks "s25-counts-$r" 0.05 'count_set_bits/(24|27)/|segmented_count_set_bits/'
      done
      ;;
    # Session 25: count_set_bits' warp sums and one-word ticket against build/ab/s25base (e46a9eb's
    # binary: Kokkos' team reduction and the two-word ticket; its device-range league already capped).
    ab-s25) ab ab-s25 build/ab/s25base 'count_set_bits/|inplace_segmented_count_set_bits/' ;;
    # Session 26: the batch counts, allocating and in place (inplace_batch_count_unset_bits: up to
    # 128 masks in the launch's arguments), and the segmented counts beside them; two rounds.
    s26)
      for r in 1 2; do
        bench $k34/perf_tests/kmask_benchmarks "s26-batch-$r" 0.05 'batch_count/(inplace_)?unset/|segmented_count_set_bits/'
      done
      ;;
    # Session 26: the gathers' whole blocks with 16-byte index loads (32-bit indices at an aligned
    # address) against build/ab/s26head (a675d64's binary), alternated, three rounds.
    ab-s26) ab ab-s26 build/ab/s26head 'make_masks/inplace_gather_bits/' ;;
    # Session 26: kernel durations against the calls' times where the floors are missed by a few
    # microseconds: the in-place batch count (100 masks), count_set_bits at 2^27 bits, the sorted
    # gather at 2^24 rows and 10 segments in place at 2^20 bits.
    ncu-s26)
      ncu_cells ncu-s26 'batch_count_functor|count_stride|build_words|wide_segments|small_segments' \
        '--section SpeedOfLight --section LaunchStats --section Occupancy' \
        'batch_count/inplace_unset/masks:100/total_bits:16777216/aligned' \
        'batch_count/inplace_unset/masks:100/total_bits:134217728/aligned' 'count_set_bits/27' \
        'make_masks/inplace_gather_bits/int32/sorted/24/0' \
        'segmented_binop/inplace/and/segments:10/masks:4/bits:1048576/aligned'
      ;;
    # Session 27: batch counts whose ranges of several teams finish by warp sums and one packed
    # atomic, device-range counts with lanes sized to the mask's words per range, the making
    # calls' counts by warp, counted moves by one packed atomic a team; against build/ab/s27base
    # (d74e3a7's binary), alternated, three rounds.
    ab-s27) ab ab-s27 build/ab/s27base "$s27" ;;
    # Session 27: the device-range count's teams resident together, by launch bounds
    # (build/ab/s27lb) or by half the teams (build/ab/s27t2), against build/ab/s27head (fc431f5),
    # alternated, three rounds; then each one's kernel under ncu.
    ab-s27b)
      for r in 1 2 3; do
        for b in build/ab/s27head build/ab/s27t2 build/ab/s27lb; do
          bench $b/kmask_benchmarks "diag-ab-s27b-$(basename $b)-$r" 0.05 'inplace_segmented_count_set_bits/'
        done
      done
      for b in build/ab/s27head build/ab/s27t2 build/ab/s27lb; do
        f="$out/ncu-s27b-$(basename $b).txt"
        timeout "$(left)" ncu --clock-control none --kernel-name-base demangled -k "regex:device_range_count" --launch-skip 6 \
          --launch-count 1 --section SpeedOfLight --section LaunchStats --section Occupancy \
          $b/kmask_benchmarks --benchmark_min_time=0.001 '--benchmark_filter=^inplace_segmented_count_set_bits/device_ranges/27/100000/' \
          > "$f" 2>&1
        echo "ncu $b rc=$? $(grep -E ' Duration|Registers Per|Achieved Occupancy|Theoretical Occ' "$f" | tr -s ' ' | tr '\n' ';')"
      done
      ;;
    # Session 27: every counting thread 0 loads its edge words before its units (build/cuda)
    # against build/ab/s27final (34ea32c), alternated, three rounds; then the kernels under ncu.
    ab-s27c)
      ab ab-s27c build/ab/s27final "count_set_bits/|batch_count/(inplace_)?unset/masks:100/total_bits:(1048576|16777216|134217728)/aligned|inplace_segmented_count_set_bits/|segmented_count_set_bits/ranges:1000/27/"
      ncu_cells ncu-s27c 'batch_count_functor|count_stride' '--section SpeedOfLight --section LaunchStats --section Occupancy' \
        'count_set_bits/27' 'batch_count/inplace_unset/masks:100/total_bits:16777216/aligned'
      ;;
    # Session 27: the changed kernels' durations, occupancy and stalls (new binary).
    ncu-s27)
      ncu_cells ncu-s27 'batch_count_functor|device_range_count|build_words' \
        '--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats' \
        'batch_count/inplace_unset/masks:100/total_bits:16777216/aligned' \
        'batch_count/inplace_unset/masks:100/total_bits:134217728/aligned' \
        'inplace_segmented_count_set_bits/device_ranges/27/100000' 'make_masks/inplace_bools_to_mask/uint8/24/0'
      ;;
    # Session 28: raw-CUDA shapes of reading a mask and of turning bytes into bits
    # (perf_tests/probes/read_shapes.cu, built by nvcc into build/probe/) against cudaMemcpyAsync,
    # GPU event time; then the library's cells that read that way, for the same machine.
    probe-read)
      timeout "$(left)" build/probe/read_shapes > "$out/probe-read.txt" 2>&1
      echo "probe rc=$?"
      bench $k34/perf_tests/kmask_benchmarks s28-reads-k34 0.05 'count_set_bits/|make_masks/inplace_(bools_to_mask|mask_to_bools)/'
      ;;
    # Session 28: kernel durations, warm (--cache-control none, as the benchmarks' repeated calls
    # find their data) and flushed: the probe's counting and copying shapes at 2^27 bits, then the
    # library's counting, boolean and moving kernels in their benchmark cells.
    ncu-s28)
      m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,launch__registers_per_thread,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active
      for cc in ${NCU_CACHE:-none all}; do
        for b in 24 27; do
          PROBE_BITS=$b PROBE_REPS=2 timeout "$(left)" ncu --clock-control none --cache-control $cc --metrics $m \
            -k 'regex:count_|copy_strided|bytes_to_bits|empty' build/probe/read_shapes > "$out/ncu-s28-probe-$b-$cc.txt" 2>&1
          echo "ncu probe $b $cc rc=$?"
        done
        ncu_cells "ncu-s28-$cc" 'count_stride|build_words|mask_to_bools|kmask' "--cache-control $cc --metrics $m" \
          count_set_bits/27 count_set_bits/24 make_masks/inplace_bools_to_mask/uint8/24/0 \
          make_masks/inplace_mask_to_bools/24/0 move_bits/inplace_concatenate/log_bits:24/unaligned:0/pieces:10 \
          move_bits/inplace_concatenate/log_bits:26/unaligned:0/pieces:10 move_bits/copy_bits/log_bits:24/unaligned:1
      done
      ;;
    # Session 28: the moving kernel's threads load all their whole groups before storing any
    # (counted concatenations, copies of 2^27 bits and more: two groups a thread), against
    # build/ab/s28base (0832304's binary), alternated, three rounds; an unaligned copy of 2^26
    # bits (one group a thread, unchanged) as the control.
    ab-s28) ab ab-s28 build/ab/s28base 'move_bits/(small/)?inplace_concatenate/|copy_bitmask/(27|30)/|move_bits/copy_bits/log_bits:26/unaligned:1' ;;
    # Session 28: count_set_bits' parts a team (Kokkos' team reduction, one packed atomic a team)
    # instead of a warp, against build/ab/s28base (0832304), alternated, three rounds; then both
    # kernels under ncu (warm; call 28.3 ran it without --kernel-name-base demangled, so ncu matched
    # no kmask kernel), and the probe's strided counts with warp and block atomics.
    ab-s28b)
      ab ab-s28b build/ab/s28base 'count_set_bits/'
      m=gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size
      for b in build/ab/s28base $k34/perf_tests; do
        NCU_BINARY=$b/kmask_benchmarks NCU_LAUNCHES=3 ncu_cells "ncu-s28b-$(basename $b)" count_stride \
          "--cache-control none --metrics $m" count_set_bits/27 count_set_bits/24
      done
      for bits in 24 27; do
        PROBE_BITS=$bits PROBE_REPS=1 timeout "$(left)" ncu --clock-control none --cache-control none --metrics $m \
          -k 'regex:count_strided' build/probe/read_shapes > "$out/ncu-s28b-probe-$bits.txt" 2>&1
        echo "ncu probe $bits rc=$?"
      done
      ;;
    # Session 29: scratch leases (a count's running total, ticket and result word) taken from the
    # buffer the caller's own stream gave back last, without an event query, against
    # build/ab/s29base (04a7402's library, this benchmark tree), alternated, three rounds, both on
    # a stream of the benchmarks' own (KMASK_BENCH_OWN_QUEUE=1: where the change acts) and on the
    # default instance (Kokkos 3.4's null stream: no identity, so only the cost of asking each
    # lease's stream id shows). Asynchronous counted calls change; the synchronous count and the
    # 100-piece concatenation (descriptors in an upload lease) are controls.
    ab-s29) (export KMASK_BENCH_OWN_QUEUE=1; ab ab-s29 build/ab/s29base "$s29") ;;
    ab-s29d) ab ab-s29d build/ab/s29base "$s29" ;;
    # The same on Kokkos 4.6.01, whose default CUDA instance has a stream of its own: base
    # build/ab/s29k46base (04a7402's library), new build/k46-cuda, on the default instance.
    ab-s29k46)
      for r in 1 2 3; do
        bench build/ab/s29k46base/kmask_benchmarks "diag-ab-s29k46-base-$r" 0.05 "$s29"
        bench $k46/perf_tests/kmask_benchmarks "diag-ab-s29k46-new-$r" 0.05 "$s29"
      done
      ;;
    # Session 29, run in call 30.1 (../h100/ab-s29m.md): staging buffers marked by a stream memory
    # write into page-locked memory (asked by reading it) instead of an event (asked by
    # cudaEventQuery; branch s29-stream-markers built into build/cuda), against build/ab/s29head
    # (41de1ea), alternated, three rounds, on the default instance and on a stream of the
    # benchmarks' own: calls whose leases upload (one-shot in-place segmented, concatenations,
    # piece lists, segmented counts over host ranges), a scratch-leasing call and a synchronous count.
    ab-s29m) ab ab-s29m build/ab/s29head "$s29m" ;;
    ab-s29mq) (export KMASK_BENCH_OWN_QUEUE=1; ab ab-s29mq build/ab/s29head "$s29m") ;;
    # What marking a point of a stream and asking it later costs the host: events against stream
    # memory writes into page-locked memory (perf_tests/probes/queue_markers.cu, build/probe; run
    # in call 30.1).
    probe-markers)
      timeout "$(left)" build/probe/queue_markers > "$out/probe-markers.txt" 2>&1
      echo "probe-markers rc=$?"; cat "$out/probe-markers.txt"
      ;;
    # The CUDA unit tests of a build whose gathers' whole-block path flips one row's bit
    # (build/mut, made by hand for the check): the gather tests must fail.
    mutation)
      timeout "$(left)" build/mut/kmask_unit_tests_cuda --gtest_brief=1 '--gtest_filter=*gather*' > "$out/mutation.log" 2>&1
      echo "mutation rc=$? (non-zero expected) $(grep -c '^\[  FAILED  \]' "$out/mutation.log") failed lines"
      ;;
    # compute-sanitizer memcheck over the moving and gathering tests (the kernels changed in session
    # 23), or the tests MEMCHECK_FILTER names (session 24: '*make_masks*:*count*:*binop*:*concatenate*').
    memcheck-moves)
      KMASK_TEST_SKIP_HUGE=1 timeout "$(left)" compute-sanitizer --tool memcheck --error-exitcode 99 \
        $k34/unit_tests/kmask_unit_tests_cuda --gtest_brief=1 \
        "--gtest_filter=${MEMCHECK_FILTER:-*gather*:*concatenate*:*piece*:*move*:*copy_bits*:*set_bits*:*copy_bitmask*:*inverted*}" \
        > "$out/memcheck-moves.log" 2>&1
      echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' "$out/memcheck-moves.log" | tr '\n' ' ')"
      ;;
    # Every call of issues 15, 16 and 18 on build/ab/base (27e43b9) and build/cuda, alternated, one
    # round per number in CALLS_AB_ROUNDS (call 23.16 ran round 1, call 23.17 rounds 2 and 3).
    calls-ab)
      for r in ${CALLS_AB_ROUNDS:-1}; do
        bench build/ab/base/kmask_benchmarks diag-calls-base-$r 0.02 "$calls"
        bench $k34/perf_tests/kmask_benchmarks diag-calls-new-$r 0.02 "$calls"
      done
      ;;
    # The Kokkos 4.6.01 build: its unit tests, every non-segmented call and issue 18's segmented cells.
    k46)
      tests $k46 kokkos-4.6.01
      KMASK_BENCH_NO_PEERS=1 bench $k46/perf_tests/kmask_benchmarks calls-k46 0.02 "$calls|$i18seg"
      ;;
    # Issue 18's allocating cells phase by phase (stage, kernel, allocation, release: p50 and p99),
    # and the same with every mask carved from one allocation (diag-: not judged by floors.py).
    alloc)
      bench $k34/perf_tests/kmask_benchmarks alloc-k34 0.02 "$alloc"
      KMASK_BENCH_POOLED_MASKS=1 bench $k34/perf_tests/kmask_benchmarks diag-pooled-alloc-k34 0.02 "$alloc"
      ;;
    # The 10000-segment allocating cells with the call's host pass on 1, 8 and 16 OpenMP threads
    # (masks carved from one allocation, which makes them fast to prepare and keeps their tail).
    threads)
      for t in 1 8 16; do
        OMP_NUM_THREADS=$t KMASK_BENCH_POOLED_MASKS=1 bench $k34/perf_tests/kmask_benchmarks diag-threads-$t-k34 0.02 \
          'segmented_binop/alloc/and/segments:10000/masks:(4|8|16)/bits:(32|128)/'
      done
      ;;
    # Session 30's question about the allocating tails: every cell over 2x p50 at p99 in calls
    # 30.2-30.4 is a call whose host pass is threaded (>= 32768 sources). Are the 3-16 ms outliers
    # the caller losing its core for a scheduler tick while the OpenMP workers spin on every core?
    # The same cells (masks carved from one allocation, which keeps their tails and prepares them
    # in seconds; 10000 x 2, a serial pass, as the control), two rounds, alternating: workers
    # spinning (the default), sleeping at once (OMP_WAIT_POLICY=passive), one core left to the
    # CUDA driver's threads (OMP_NUM_THREADS=15).
    tails)
      for r in 1 2; do
        KMASK_BENCH_POOLED_MASKS=1 bench $k34/perf_tests/kmask_benchmarks diag-tails-default-$r 0.2 "$tails"
        KMASK_BENCH_POOLED_MASKS=1 OMP_WAIT_POLICY=passive bench $k34/perf_tests/kmask_benchmarks diag-tails-passive-$r 0.2 "$tails"
        KMASK_BENCH_POOLED_MASKS=1 OMP_NUM_THREADS=15 bench $k34/perf_tests/kmask_benchmarks diag-tails-t15-$r 0.2 "$tails"
      done
      ;;
    # Session 30 (not yet run: no device time was left): the host's piece lists against thread
    # count. segmented_copy_bits of 1000 pieces costs ~90 us more than one piece of the same bits
    # on the 16 cores (call 30.2) and ~27 us more on the 2-core development machine: its time
    # against OMP_NUM_THREADS 1-16 beside copy_bits of the same bits, then the 16-thread case
    # under perf (where the device image has it).
    host-scale)
      for t in 1 2 4 8 16; do
        OMP_NUM_THREADS=$t bench build/host/perf_tests/kmask_benchmarks diag-host-scale-t$t 0.1 "$hostscale"
      done
      if command -v perf > /dev/null; then
        timeout "$(left)" perf record -o /tmp/host-scale.perf build/host/perf_tests/kmask_benchmarks \
          --benchmark_min_time=1 '--benchmark_filter=move_bits/segmented_copy_bits/log_bits:24/unaligned:0' > /dev/null 2>&1
        perf report -i /tmp/host-scale.perf --no-children --percent-limit 0.5 --stdio > "$out/perf-host-scale.txt" 2>&1
        echo "perf rc=$?"; head -40 "$out/perf-host-scale.txt"
      else
        echo "no perf on this machine"
      fi
      ;;
    # ncu of the struct tree's walk at 2^20 and 2^24 bits on both Kokkos builds (4.6.01 read 3x slower).
    ncu-tree)
      for b in k34 k46; do
        bin=$k34
        [ $b = k46 ] && bin=$k46
        for bits in 1048576 16777216; do
          timeout "$(left)" ncu --clock-control none --kernel-name-base demangled -k "regex:tree_" --launch-skip 2 \
            --launch-count 2 --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
            $bin/perf_tests/kmask_benchmarks --benchmark_min_time=0.001 \
            "--benchmark_filter=superimpose_nulls_tree/struct:1x8x8/bits:$bits/aligned" > "$out/ncu-tree-$bits-$b.txt" 2>&1
          echo "ncu tree $bits $b rc=$? $(grep -E 'Duration|Registers Per|Achieved Occupancy' "$out/ncu-tree-$bits-$b.txt" | tr -s ' ' | tr '\n' ';')"
        done
      done
      ;;
    # The tree's general walk at 2^24 bits with its SASS and stall samples, one page per build
    # (device calls 5-10 ran these commands by hand).
    ncu-tree-sass)
      for b in k34 k46; do
        bin=$k34
        [ $b = k46 ] && bin=$k46
        timeout "$(left)" ncu --clock-control none --kernel-name-base demangled -k regex:tree_gpu --launch-skip 2 \
          --launch-count 1 --section SourceCounters --section WarpStateStats --page source --print-source sass --csv \
          $bin/perf_tests/kmask_benchmarks --benchmark_min_time=0.001 \
          --benchmark_filter=superimpose_nulls_tree/struct:1x8x8/bits:16777216/aligned > "$out/sass-tree-16777216-$b.csv" 2>&1
        echo "ncu sass $b rc=$?"
        gzip -9f "$out/sass-tree-16777216-$b.csv"
      done
      ;;
    host) bench build/host/perf_tests/kmask_benchmarks host-openmp 0.05 "$host" ;;
    # The moving kernel where it is furthest from a copy (many pieces): its kernels' durations,
    # occupancy and stalls, to split a call's time into host pass, upload and kernel.
    ncu-move)
      for f in 'move_bits/inplace_concatenate/log_bits:24/unaligned:0/pieces:(10|10000)/' \
               'move_bits/segmented_copy_bits/log_bits:24/unaligned:0/pieces:1000/' 'move_bits/small/segmented_copy_bits'; do
        name=$(echo "$f" | tr -c 'a-z0-9\n' '-' | tr -s '-')
        timeout "$(left)" ncu --clock-control none --kernel-name-base demangled -k regex:move_team --launch-skip 4 \
          --launch-count 2 --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
          $k34/perf_tests/kmask_benchmarks --benchmark_min_time=0.001 "--benchmark_filter=$f" > "$out/ncu-move-$name.txt" 2>&1
        echo "ncu move $f rc=$? $(grep -E ' Duration|Achieved Occupancy|Grid Size' "$out/ncu-move-$name.txt" | tr -s ' ' | tr '\n' ';')"
      done
      ;;
    # count_set_bits and copy_bitmask into a destination at 2^27 bits (0.64-0.80 of copy): their
    # kernels' durations against the calls' host times, on both builds.
    ncu-count)
      for b in k34 k46; do
        bin=$k34
        [ $b = k46 ] && bin=$k46
        for f in count_set_bits/27 copy_bitmask/27/0; do
          timeout "$(left)" ncu --clock-control none --kernel-name-base demangled -k "regex:count_stride|move_team" \
            --launch-skip 4 --launch-count 1 --section SpeedOfLight --section LaunchStats --section Occupancy \
            $bin/perf_tests/kmask_benchmarks --benchmark_min_time=0.001 "--benchmark_filter=^$f/" \
            > "$out/ncu-count-$(echo $f | tr / -)-$b.txt" 2>&1
          echo "ncu $f $b rc=$? $(grep -E ' Duration|Grid Size|DRAM Throughput' "$out/ncu-count-$(echo $f | tr / -)-$b.txt" | tr -s ' ' | tr '\n' ';')"
        done
      done
      ;;
    # The making calls furthest below copy speed (issue 16): compute or memory bound, per kernel.
    ncu-make)
      for f in inplace_valid_if/mod3/26 inplace_bools_to_mask/uint8/26/0 inplace_bools_to_mask/uint8/unaligned/24/1 \
               inplace_gather_bits/int32/sorted/24/0 inplace_gather_bits/int32/random/24/1 inplace_mask_to_bools/24/0; do
        timeout "$(left)" ncu --clock-control none --kernel-name-base demangled -k "regex:build_words|bools" \
          --launch-skip 4 --launch-count 1 --section SpeedOfLight --section LaunchStats --section Occupancy \
          --section WarpStateStats --section ComputeWorkloadAnalysis $k34/perf_tests/kmask_benchmarks \
          --benchmark_min_time=0.001 "--benchmark_filter=^make_masks/$f/" > "$out/ncu-make-$(echo $f | tr / -).txt" 2>&1
        echo "ncu $f rc=$? $(grep -E ' Duration|Compute \(SM\) Throughput|DRAM Throughput|Achieved Occupancy|Issue Slots Busy' "$out/ncu-make-$(echo $f | tr / -).txt" | tr -s ' ' | tr '\n' ';')"
      done
      ;;
    # The making calls with their counts finished by ticket at 8 teams per SM (build/cuda) against
    # 2 and 4 (build/cuda-t2, build/cuda-t4: -DKMASK_EXPERIMENT_MAKE_TEAMS_PER_SM=2 or 4, a define
    # that existed only for those builds), alternated, two rounds (MAKE_ROUND names the files).
    # The define is gone since b3ab413 fixed the value at 4: this is the command calls 19.4-19.6 ran.
    make-teams)
      for r in 1 2; do
        for t in 2 4 8; do
          bin=build/cuda-t$t
          [ $t = 8 ] && bin=$k34
          KMASK_BENCH_NO_PEERS=1 bench $bin/perf_tests/kmask_benchmarks diag-make-t$t-${MAKE_ROUND:-r}$r-k34 0.02 'make_masks/'
        done
      done
      ;;
    # Kokkos 4.6.01 with every one-count launch finished by kmask's ticket instead of Kokkos' team
    # reduction (build/k46-ticket: -DKMASK_EXPERIMENT_TICKET_COUNTS), the cells that choice touches.
    # The define was in the uncommitted tree of device call 19.1 only; this is the command that ran.
    k46-ticket)
      KMASK_BENCH_NO_PEERS=1 bench build/k46-ticket/perf_tests/kmask_benchmarks diag-ticket-k46 0.02 \
        'count_set_bits/|move_bits/inplace_concatenate/|copy_bitmask/'
      ;;
    *) echo "unknown part $part" ;;
  esac
done
tar czf "${OUT:-/tmp/kmask-record}/record.tar.gz" -C "$out" .
