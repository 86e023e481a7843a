#!/usr/bin/env python3
"""Before/after table of make_masks benchmark JSON files: summarize.py base.json new.json."""
import json
import sys


def load(path):
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    return {b["name"].replace("/manual_time", ""): b for b in data.get("benchmarks", []) if "vs_copy" in b}


base, new = load(sys.argv[1]), load(sys.argv[2])
# Cells that gained an argument (a trailing /0) keep their old names.
new = {(k[:-2] if k.endswith("/0") and k[:-2] in base else k): v for k, v in new.items()}
print(f"{'case':52} {'base us':>9} {'new us':>9} {'gpu us':>8} {'base vs':>8} {'new vs':>7}")
for name in sorted(set(base) | set(new)):
    b, n = base.get(name, {}), new.get(name, {})
    f = lambda d, k: f"{d[k]:.{1 if k.endswith('us') else 3}f}" if k in d else "-"
    print(f"{name:52} {f(b, 'median_us'):>9} {f(n, 'median_us'):>9} {f(n, 'gpu_p50_us'):>8} "
          f"{f(b, 'vs_copy'):>8} {f(n, 'vs_copy'):>7}")
