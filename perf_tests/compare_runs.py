#!/usr/bin/env python3
"""Before/after table of two builds' benchmark runs made side by side (alternated) in one device run.

    perf_tests/compare_runs.py --old old-1.json old-2.json --new new-1.json new-2.json [--out table.md]

For every case in both, the time is the case's `median_us` counter (its own median over repeated
fenced runs) where it has one, else Google Benchmark's real_time; a build's time is the mean over
its runs, and the spread (max - min over runs, as a share of the mean) says how much one build
moves between runs. new/old above 1.03 is flagged; a flag inside the spread is noise.
"""
import argparse
import json
import re
import sys


def benchmarks(path):
    """The file's cases; from a file a timeout cut short, the cases written in full."""
    with open(path) as f:
        text = f.read()
    try:
        return json.loads(text)["benchmarks"]
    except json.JSONDecodeError:
        found = []
        for obj in re.findall(r'\{\s*"name":.*?\n    \}', text, re.S):
            try:
                found.append(json.loads(obj))
            except json.JSONDecodeError:
                pass
        sys.stderr.write(f"{path}: cut short; {len(found)} complete cases read\n")
        return found


def load(paths):
    runs = []
    for p in paths:
        cases = {}
        for b in benchmarks(p):
            if b.get("error_occurred"):
                continue
            t = b.get("median_us", b.get("real_time"))
            cases[b["name"].replace("/manual_time", "")] = float(t)
        runs.append(cases)
    return runs


def summary(runs, name):
    ts = [r[name] for r in runs if name in r]
    mean = sum(ts) / len(ts)
    return mean, (max(ts) - min(ts)) / mean if mean > 0 else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", nargs="+", required=True)
    ap.add_argument("--new", nargs="+", required=True)
    ap.add_argument("--out")
    a = ap.parse_args()
    old, new = load(a.old), load(a.new)
    names = [n for n in old[0] if all(n in r for r in old + new)]
    lines = ["| case | old (us) | new (us) | new / old | old spread | new spread |", "|---|---:|---:|---:|---:|---:|"]
    flagged = 0
    for n in names:
        o, os_ = summary(old, n)
        w, ws = summary(new, n)
        r = w / o
        mark = " **>3%**" if r > 1.03 else ""
        flagged += r > 1.03
        lines.append(f"| {n} | {o:.2f} | {w:.2f} | {r:.3f}{mark} | {100 * os_:.1f}% | {100 * ws:.1f}% |")
    ratios = sorted(summary(new, n)[0] / summary(old, n)[0] for n in names)
    lines.append("")
    lines.append(f"{len(names)} cases; new/old median {ratios[len(ratios) // 2]:.3f}, range {ratios[0]:.3f}-{ratios[-1]:.3f}; "
                 f"{flagged} above 1.03")
    text = "\n".join(lines) + "\n"
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
