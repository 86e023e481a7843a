#!/usr/bin/env bash
# Builds the kmask libFuzzer target into build/fuzz and fuzzes for a while.
#
#   fuzz/run.sh [SECONDS] [LIBFUZZER ARGS / EXTRA CORPUS DIRS...]     default 60 seconds
#
# Configures fuzz/ with clang++ against the Kokkos of `scripts/install-deps host` (override with
# Kokkos_DIR=<dir of KokkosConfig.cmake> or Kokkos_ROOT=<prefix>; ctest passes the Kokkos_DIR of
# the build it belongs to), RelWithDebInfo, builds, copies fuzz/corpus into a fresh run directory
# build/fuzz/runs/<timestamp>-<pid>/ and runs the fuzzer on that copy with -max_total_time.
# Crash / leak / timeout inputs land in that run directory (crash-*, leak-*, timeout-*) and the
# script exits non-zero. The committed corpus is never written to.
#   KMASK_FUZZ_BUILD_DIR   build directory (default build/fuzz)
#   KMASK_FUZZ_TARGET      fuzz_segmented_binop (CPU form of the kernels, default) or
#                          fuzz_segmented_binop_gpu_form (the GPU form, emulated on Serial)
#   CXX_FUZZ               clang++ to use (default clang++)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
seconds=${1:-60}
[ $# -gt 0 ] && shift
case $seconds in '' | *[!0-9]*) echo "fuzz/run.sh: SECONDS must be a whole number, got '$seconds'" >&2; exit 2 ;; esac

build=${KMASK_FUZZ_BUILD_DIR:-$root/build/fuzz}
target=${KMASK_FUZZ_TARGET:-fuzz_segmented_binop}
if [ -n "${Kokkos_DIR:-}" ]; then
  kokkos_arg=-DKokkos_DIR="$Kokkos_DIR"
  [ -f "$Kokkos_DIR/KokkosConfig.cmake" ] || { echo "fuzz/run.sh: no KokkosConfig.cmake in Kokkos_DIR=$Kokkos_DIR" >&2; exit 2; }
else
  kokkos_root=${Kokkos_ROOT:-$("$root/scripts/install-deps" --prefix host)}
  if [ ! -d "$kokkos_root/lib/cmake/Kokkos" ] && [ ! -d "$kokkos_root/lib64/cmake/Kokkos" ]; then
    echo "fuzz/run.sh: no Kokkos in $kokkos_root: run scripts/install-deps host first" >&2
    exit 2
  fi
  kokkos_arg=-DKokkos_ROOT="$kokkos_root"
fi
mkdir -p "$build"

# Configure + build under a lock: a ctest run and a long background run may share build/fuzz.
build_fuzzer() {
  cmake -S "$here" -B "$build" -DCMAKE_CXX_COMPILER="${CXX_FUZZ:-clang++}" "$kokkos_arg" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build/configure.log" 2>&1 ||
    { cat "$build/configure.log" >&2; echo "fuzz/run.sh: configure failed" >&2; return 1; }
  cmake --build "$build" -j "$(nproc)" >"$build/build.log" 2>&1 ||
    { cat "$build/build.log" >&2; echo "fuzz/run.sh: build failed" >&2; return 1; }
}
if command -v flock >/dev/null; then
  exec 9>"$build/.build.lock"
  flock 9
  build_fuzzer
  flock -u 9
else
  build_fuzzer
fi

run=$build/runs/$(date +%Y%m%d-%H%M%S)-$$-$target
mkdir -p "$run/corpus"
cp "$here"/corpus/* "$run/corpus/" 2>/dev/null || true
echo "fuzz/run.sh: fuzzing for ${seconds}s in $run (corpus: $(find "$run/corpus" -type f | wc -l) seeds)" >&2

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
set +e
# The run's corpus comes first: libFuzzer writes new inputs there. Further directories among the
# extra arguments (an earlier run's corpus, say) are only read.
"$build/$target" -max_total_time="$seconds" -timeout=60 -print_final_stats=1 -artifact_prefix="$run/" \
  "$run/corpus" "$@"
rc=$?
set -e
if [ $rc -ne 0 ]; then
  echo "fuzz/run.sh: the fuzzer failed (exit $rc); inputs that reproduce it:" >&2
  for f in "$run"/crash-* "$run"/leak-* "$run"/timeout-* "$run"/oom-*; do [ -e "$f" ] && echo "  $f" >&2; done
  echo "  reproduce: KMASK_FUZZ_VERBOSE=1 $build/$target <input>" >&2
fi
exit $rc
