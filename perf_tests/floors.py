#!/usr/bin/python3
"""Checks a record set of kmask_benchmarks JSON files against the issues' performance floors and
writes the markdown table the results README quotes: per floor, the cells it covers, their values
on each build, how many meet it, and the ones that miss.

usage: floors.py RECORD_DIR OUT.md
RECORD_DIR holds PART-BUILD.json files (record.sh): BUILD is k34 (Kokkos 3.4.01, CUDA), k46
(Kokkos 4.6.01, CUDA) or openmp (the host build on the device machine's cores); files named
diag-* (the same cells under a diagnostic setting) are left out. A cell measured in several
files (two machine starts, say) is judged in each.
"""
import json
import re
import sys
from pathlib import Path

# (issue, what, cell regex, metric, comparison, floor, builds). A metric is a counter name or a
# function of a benchmark's counters; `builds` the builds whose cells the floor is judged on.
GPU = ("k34", "k46")
HOST = ("openmp",)
BIG = r"(24|26|27|30)"  # the >= 2^24-bit sizes the benchmarks register


def ratio(num, den):
    return lambda b: b[num] / b[den] if b.get(num) and b.get(den) else None


FLOORS = [
    (14, "in place from T threads, a stream each: no slower than one thread", r"^concurrency/inplace/.*host_threads:[248]/", "speedup_vs_serial", ">=", 1.0, ("k34",)),
    (14, "plans from T threads: no slower than one thread", r"^concurrency/plan/.*host_threads:[248]/", "speedup_vs_serial", ">=", 1.0, ("k34",)),
    (14, "allocating calls from T threads: no slower than one thread", r"^concurrency/alloc/.*host_threads:[248]/", "speedup_vs_serial", ">=", 1.0, ("k34",)),
    (14, "in place, 2000 x 8 x 128, T = 4", r"^concurrency/inplace/segments:2000/.*host_threads:4/", "speedup_vs_serial", ">=", 2.0, ("k34",)),
    (14, "plan, 2000 x 8 x 128, T = 4", r"^concurrency/plan/segments:2000/.*host_threads:4/", "speedup_vs_serial", ">=", 2.0, ("k34",)),
    (15, "set_bits >= 2^24 bits", rf"^move_bits/set_bits/log_bits:{BIG}/", "vs_copy", ">=", 0.85, GPU),
    (15, "copy_bits >= 2^24 bits", rf"^move_bits/copy_bits/log_bits:{BIG}/", "vs_copy", ">=", 0.85, GPU),
    (15, "segmented_copy_bits, 1000 pieces", rf"^move_bits/segmented_copy_bits/log_bits:{BIG}/", "vs_copy", ">=", 0.85, GPU),
    (15, "inplace_concatenate, 10 / 100 / 10000 pieces", rf"^move_bits/inplace_concatenate/log_bits:{BIG}/", "vs_copy", ">=", 0.85, GPU),
    (15, "batch_count_unset_bits, 100 masks, >= 2^24 bits", rf"^batch_count/unset/masks:100/total_bits:(16777216|134217728|1073741824)/", "vs_copy", ">=", 0.85, GPU),
    # The same floor on the in-place form (counts into the caller's view): the allocating form pays
    # an allocation and a device-synchronising free per call (its alloc_us, timed alone in the same
    # run), more than the copy it is compared with takes at 2^24 bits.
    (15, "batch counts in place, 100 masks, >= 2^24 bits", rf"^batch_count/inplace_unset/masks:100/total_bits:(16777216|134217728|1073741824)/", "vs_copy", ">=", 0.85, GPU),
    (15, "host: moving calls >= 2^24 bits", rf"^move_bits/(set_bits|copy_bits|segmented_copy_bits|inplace_concatenate)/log_bits:{BIG}/", "vs_copy", ">=", 0.6, HOST),
    (15, "host: batch counts >= 2^24 bits", r"^batch_count/unset/masks:100/total_bits:(16777216|134217728|1073741824)/", "vs_copy", ">=", 0.6, HOST),
    (16, "inplace_valid_if (i % 3), >= 2^24 rows", rf"^make_masks/inplace_valid_if/mod3/{BIG}/", "vs_copy", ">=", 0.85, GPU),
    # Not a floor of the issue: the limit it names. valid_if's time against a plain kernel of the same
    # predicate (one word per iteration, nothing counted) measured in the same run; >= 1 says the
    # predicate's evaluation, not kmask, bounds the call.
    (16, "limit: inplace_valid_if against a plain kernel of its predicate", rf"^make_masks/inplace_valid_if/mod3/{BIG}/", "vs_plain", ">=", 1.0, GPU + HOST),
    (16, "inplace_bools_to_mask, >= 2^24 rows", rf"^make_masks/inplace_bools_to_mask/.*{BIG}/", "vs_copy", ">=", 0.85, GPU),
    (16, "inplace_mask_to_bools, >= 2^24 rows", rf"^make_masks/inplace_mask_to_bools/.*{BIG}/", "vs_copy", ">=", 0.85, GPU),
    (16, "inplace_gather_bits, sorted int32, 2^24 rows", r"^make_masks/inplace_gather_bits/int32/sorted/24/", "vs_copy", ">=", 0.85, GPU),
    (16, "inplace_gather_bits, random int32, 2^24 rows", r"^make_masks/inplace_gather_bits/int32/random/24/", "vs_copy", ">=", 0.5, GPU),
    (16, "superimpose_nulls_tree 1 x 8 x 8, 2^24 rows", r"^superimpose_nulls_tree/struct:1x8x8/bits:16777216/aligned", "vs_copy", ">=", 0.85, GPU),
    (16, "tree against superimpose_nulls per struct node", r"^superimpose_nulls_tree/struct:1x8x8/bits:16777216/aligned", "speedup_per_parent", ">=", 1.0, GPU),
    (16, "host: making calls >= 2^24 rows", rf"^make_masks/.*/{BIG}/", "vs_copy", ">=", 0.6, HOST),
    (16, "host: the tree >= 2^24 rows", r"^superimpose_nulls_tree/struct:1x8x8/bits:(16777216|67108864)/", "vs_copy", ">=", 0.6, HOST),
    (18, "1. count_set_bits >= 2^27 bits", r"^count_set_bits/(unaligned/)?(27|30)/", "vs_copy", ">=", 0.85, GPU),
    (18, "1. count_set_bits 2^20-2^24: host time / (launch + 8-byte read-back + fence)", r"^count_set_bits/(unaligned/)?(20|24)/", "vs_floor", "<=", 1.5, GPU),
    (18, "2. segmented counts, 1000 and 100000 ranges over 2^27 bits", r"^inplace_segmented_count_set_bits/27/", "vs_copy", ">=", 0.8, GPU),
    (18, "2. the same with the ranges already in device memory", r"^inplace_segmented_count_set_bits/device_ranges/27/", "vs_copy", ">=", 0.8, GPU),
    (18, "3. copy_bitmask into a destination, >= 2^24 bits", r"^copy_bitmask/(24|27|30)/", "into_dest_vs_copy", ">=", 0.85, GPU),
    (18, "3. copy_bitmask allocating / (into a destination + the allocation alone)", r"^copy_bitmask/(24|27|30)/", "vs_parts", "<=", 1.2, GPU),
    (18, "4. in place, 10 segments, 2^20 bits", r"^segmented_binop/inplace/and/segments:10/masks:(4|8|16)/bits:1048576/", "vs_copy", ">=", 0.85, GPU),
    (18, "4. in place, 10 segments, 2^24 bits", r"^segmented_binop/inplace/and/segments:10/masks:(4|8|16)/bits:16777216/", "vs_copy", ">=", 0.92, GPU),
    (18, "5. allocating calls: host p99 / p50", r"^(segmented_binop/alloc/|copy_bitmask/)", ratio("host_p99_us", "host_p50_us"), "<=", 2.0, GPU),
    (18, "6. in place: time of the warp-per-segment kernel / kmask's", r"^segmented_binop/inplace/and/", "speedup", ">=", 1.0, ("k34",)),
    (18, "7. host: count_set_bits >= 2^24 bits", r"^count_set_bits/(24|27)/", "vs_copy", ">=", 0.8, HOST),
    (18, "7. host: copy_bitmask into a destination >= 2^24 bits", r"^copy_bitmask/(24|27)/", "into_dest_vs_copy", ">=", 0.8, HOST),
]


def load(record_dir):
    cells = {}  # build -> [(name, file stem, benchmark)]
    for path in sorted(Path(record_dir).glob("*.json")):
        if path.name.startswith("diag-"):  # diagnostic variants of cells, not the record's
            continue
        build = path.stem.rsplit("-", 1)[-1]
        for b in json.loads(path.read_text())["benchmarks"]:
            if b.get("error_occurred") or b.get("run_type") == "aggregate":
                continue
            # A trailing "/" ends every name, so a pattern can end a field with one.
            cells.setdefault(build, []).append((b["name"].replace("/manual_time", "") + "/", path.stem, b))
    return cells


def value(b, metric):
    v = metric(b) if callable(metric) else b.get(metric)
    return float(v) if v is not None else None


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    cells = load(sys.argv[1])
    rows = ["| issue | floor | build | cells | meet | range | missed (value) |", "|---|---|---|---:|---:|---|---|"]
    judged = met = 0
    for issue, what, pattern, metric, cmp, floor, builds in FLOORS:
        rx = re.compile(pattern)
        for build in builds:
            got = [(n, f, value(b, metric)) for n, f, b in cells.get(build, []) if rx.search(n)]
            got = [(n, f, v) for n, f, v in got if v is not None]
            # A cell measured in several files (machine starts) is judged in each, named with its file.
            seen = {}
            for n, _, _ in got:
                seen[n] = seen.get(n, 0) + 1
            got = [(n.rstrip("/") + (f" ({f})" if seen[n] > 1 else ""), v) for n, f, v in sorted(got)]
            if not got:
                rows.append(f"| {issue} | {what} ({cmp} {floor}) | {build} | 0 | | not in the record | |")
                continue
            ok = [(n, v) for n, v in got if (v >= floor if cmp == ">=" else v <= floor)]
            bad = [(n, v) for n, v in got if (n, v) not in ok]
            vs = [v for _, v in got]
            judged += len(got)
            met += len(ok)
            missed = "; ".join(f"`{n}` {v:.2f}" for n, v in bad)
            rows.append(f"| {issue} | {what} ({cmp} {floor}) | {build} | {len(got)} | {len(ok)} | "
                        f"{min(vs):.2f}-{max(vs):.2f} | {missed} |")
    Path(sys.argv[2]).write_text("\n".join(rows) + "\n")
    print(f"wrote {sys.argv[2]}: {met} of {judged} judged cells meet their floor")


if __name__ == "__main__":
    main()
