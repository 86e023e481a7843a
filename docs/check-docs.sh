#!/usr/bin/env bash
# Builds kmask's API reference (docs/Doxyfile -> build/docs/html) from the repository root and
# fails on any doxygen warning: an undocumented public symbol, a broken reference, a bad command.
# Usage: docs/check-docs.sh [path/to/doxygen]   (DOXYGEN in the environment works too)
# kmask/version.hpp is generated (cmake/version.hpp.in): KMASK_DOCS_GENERATED_INCLUDE names the
# include directory holding it (the kmask.docs ctest passes its build tree's include/); without it,
# the header is generated into build/docs/include first (needs cmake; CMAKE in the environment works too).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
doxygen="${1:-${DOXYGEN:-doxygen}}"
if ! command -v "$doxygen" >/dev/null 2>&1; then
  echo "check-docs: doxygen not found ('$doxygen')" >&2
  exit 2
fi

cd "$root"
mkdir -p build/docs  # doxygen 1.9 creates OUTPUT_DIRECTORY itself only when its parent exists
if [[ -z "${KMASK_DOCS_GENERATED_INCLUDE:-}" ]]; then
  KMASK_DOCS_GENERATED_INCLUDE="$root/build/docs/include"
  "${CMAKE:-cmake}" -DKMASK_VERSION_HEADER="$KMASK_DOCS_GENERATED_INCLUDE/kmask/version.hpp" \
    -P cmake/kmask_version_header.cmake
fi
if [[ ! -f "$KMASK_DOCS_GENERATED_INCLUDE/kmask/version.hpp" ]]; then
  echo "check-docs: no generated kmask/version.hpp in KMASK_DOCS_GENERATED_INCLUDE=$KMASK_DOCS_GENERATED_INCLUDE" >&2
  exit 2
fi
export KMASK_DOCS_GENERATED_INCLUDE
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

# The Doxyfile sets WARN_AS_ERROR = FAIL_ON_WARNINGS (non-zero exit after reporting every warning);
# anything doxygen writes to stderr is counted as well, in case a doxygen ignores that setting.
status=0
"$doxygen" docs/Doxyfile 2>"$log" || status=$?
if [[ -s "$log" ]]; then
  cat "$log" >&2
  echo "check-docs: doxygen reported $(grep -c . "$log") warning line(s) (exit status $status)" >&2
  exit 1
fi
if [[ $status -ne 0 ]]; then
  echo "check-docs: doxygen failed with exit status $status" >&2
  exit "$status"
fi
echo "check-docs: API reference built without warnings: $root/build/docs/html/index.html"
