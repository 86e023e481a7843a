#!/usr/bin/env python3
"""Tables of session 13's runs: for every cell, each binary's mean over its rounds of host wall
time (median of fenced calls, `median_us`), GPU event time (`gpu_us`), vs_copy and, for the tree,
speedup_per_level. Usage: summarize.py RUN_DIR (holding make-<binary>-<round>.json)."""
import collections
import glob
import json
import os
import sys

run = sys.argv[1]
cells = collections.OrderedDict()
binaries = []
for path in sorted(glob.glob(os.path.join(run, "make-*.json"))):
    binary = os.path.basename(path)[len("make-"):].rsplit("-", 1)[0]
    if binary not in binaries:
        binaries.append(binary)
    for b in json.load(open(path))["benchmarks"]:
        name = b["name"].replace("/manual_time", "")
        cells.setdefault(name, collections.defaultdict(list))[binary].append(b)


def mean(rows, key):
    vals = [r[key] for r in rows if key in r]
    return sum(vals) / len(vals) if vals else None


def fmt(v, digits=3):
    return "-" if v is None else ("%.*g" % (digits, v))


keys = [("median_us", "us"), ("gpu_us", "gpu us"), ("vs_copy", "vs_copy"), ("speedup_per_level", "vs per-level")]
print("| cell | " + " | ".join(binaries) + " |")
print("| --- |" + " --- |" * len(binaries))
for name, by in cells.items():
    parts = []
    for binary in binaries:
        rows = by.get(binary, [])
        if not rows:
            parts.append("-")
            continue
        shown = [fmt(mean(rows, k)) for k, _ in keys if mean(rows, k) is not None]
        parts.append(" / ".join(shown))
    print("| %s | %s |" % (name, " | ".join(parts)))
print()
print("Each entry: " + " / ".join(label for _, label in keys) + " (the last only for the tree), mean of the rounds.")
