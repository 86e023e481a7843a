#!/usr/bin/python3
"""Turns kmask_benchmarks JSON files into the committed summary: a markdown table (with the
design note's A100 table reproduced next to ours), the counting/copy cases, and a PNG of vs_copy
against size_bits.

usage: plot_results.py RESULTS.json [MORE.json ...] OUT_DIR
A case present in several files is taken from the last one that has it.
"""
import json
import re
import sys
from pathlib import Path

# The design note's A100 numbers (one warp per segment -> word x segment), in-place AND, 2^20 bits.
DESIGN_NOTE_A100 = {  # (segments, masks): (before_us, after_us, speedup)
    (10, 4): (2306, 54.6, 42), (100, 4): (3122, 191.4, 16), (1000, 4): (4283, 1542, 2.8),
    (10, 8): (4006, 56.6, 71), (100, 8): (5066, 228.3, 22), (1000, 8): (6443, 1895, 3.4),
    (10, 16): (7814, 70.3, 111), (100, 16): (8975, 303.3, 30), (1000, 16): (10785, 2602, 4.1),
}
NAME = re.compile(r"segmented_binop/(\w+)/(\w+)/segments:(\d+)/masks:(\d+)/bits:(\d+)/(\w+)")


def median_rate(b):
    """GB/s from the median time (Google Benchmark's own rate divides by the mean, which a few slow
    iterations of an allocating call drag down)."""
    if b.get("bytes") and b.get("median_us"):
        return b["bytes"] / (b["median_us"] * 1e-6) / 1e9
    return b.get("GB/s")


def load(paths):
    cases, other, contexts = {}, {}, []
    for path in paths:
        data = json.loads(Path(path).read_text())
        contexts.append((Path(path).name, data.get("context", {})))
        for b in data["benchmarks"]:
            if b.get("error_occurred"):
                continue
            name = b["name"].replace("/manual_time", "")
            m = NAME.match(b["name"])
            if not m:
                if "vs_copy" in b:
                    other[name] = dict(name=name, us=b.get("median_us"), vs_copy=b.get("vs_copy"), file=Path(path).name)
                continue
            kind, op, segs, masks, bits, align = m.groups()
            cases[name] = dict(kind=kind, op=op, segments=int(segs), masks=int(masks), bits=int(bits), align=align,
                               us=b.get("median_us"), vs_copy=b.get("vs_copy"), speedup=b.get("speedup"),
                               blas=b.get("vs_kokkosblas"), gbs=median_rate(b), stage=b.get("stage_us"),
                               upload=b.get("upload_us"), kernel=b.get("kernel_us"), alloc=b.get("alloc_us"),
                               file=Path(path).name)
    return contexts, list(cases.values()), list(other.values())


def table(rows):
    out = ["| kind | op | segments | masks | size_bits | align | time (us) | GB/s | vs_copy | speedup vs warp | "
           "vs KokkosBlas | staging (us) | of which upload (us) | kernel (us) | result alloc + free (us) | from |",
           "|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    fmt = lambda v, f: "" if v is None else f.format(v)
    for r in sorted(rows, key=lambda r: (r["kind"], r["op"], r["bits"], r["segments"], r["masks"], r["align"])):
        out.append("| {kind} | {op} | {segments} | {masks} | {bits} | {align} | ".format(**r) +
                   " | ".join([fmt(r["us"], "{:.1f}"), fmt(r["gbs"], "{:.0f}"), fmt(r["vs_copy"], "{:.2f}"),
                               fmt(r["speedup"], "{:.1f}"), fmt(r["blas"], "{:.2f}"), fmt(r["stage"], "{:.1f}"),
                               fmt(r["upload"], "{:.1f}"), fmt(r["kernel"], "{:.1f}"), fmt(r["alloc"], "{:.1f}"),
                               r["file"]]) + " |")
    return "\n".join(out)


def other_table(rows):
    out = ["| case | time (us) | vs_copy | from |", "|---|---:|---:|---|"]
    for r in sorted(rows, key=lambda r: r["name"]):
        out.append(f"| {r['name']} | {r['us']:.1f} | {r['vs_copy']:.3f} | {r['file']} |")
    return "\n".join(out)


def design_note_table(rows):
    out = ["| segments | masks | A100 warp (us) | A100 word x segment (us) | A100 speedup | "
           "H200 warp (us) | H200 kmask (us) | H200 speedup | H200 % of copy speed |",
           "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for (segs, masks), (before, after, sp) in DESIGN_NOTE_A100.items():
        r = [x for x in rows if x["kind"] == "inplace" and x["op"] == "and" and x["bits"] == 1 << 20
             and x["segments"] == segs and x["masks"] == masks and x["align"] == "aligned"]
        if not r:
            continue
        r = r[0]
        warp = r["us"] * r["speedup"] if r["speedup"] else None
        out.append(f"| {segs} | {masks} | {before} | {after} | {sp}x | {warp:.1f} | {r['us']:.1f} | "
                   f"{r['speedup']:.1f}x | {100 * r['vs_copy']:.0f}% |")
    return "\n".join(out)


def plot(rows, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    for ax, align in zip(axes, ("aligned", "unaligned")):
        for masks in sorted({r["masks"] for r in rows}):
            for segs, style in ((10, "-o"), (100, "--s"), (1000, ":^")):
                pts = sorted((r["bits"], r["vs_copy"]) for r in rows
                             if r["kind"] == "inplace" and r["op"] == "and" and r["masks"] == masks
                             and r["segments"] == segs and r["align"] == align and r["vs_copy"])
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=f"{masks} masks, {segs} segs")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("size_bits")
        ax.set_title(f"in-place segmented AND, {align} sources")
        ax.axhline(1.0, color="grey", lw=0.5)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("vs_copy (same-bytes deep_copy time / kmask time)")
    axes[1].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    contexts, rows, other = load(sys.argv[1:-1])
    out = Path(sys.argv[-1])
    out.mkdir(parents=True, exist_ok=True)
    md = ["# kmask benchmark results", "", "Inputs (a case in several files is taken from the last):", ""]
    md += [f"- `{name}`: " + ", ".join(f"{k}={c.get(k)}" for k in ("execution_space", "kokkos", "kmask_version", "date"))
           for name, c in contexts]
    md += ["", "## The design note's table (2^20 bits, aligned, in-place AND)", "", design_note_table(rows), "",
           "## Every segmented case", "", table(rows), "", "## Counting and copying", "", other_table(other), ""]
    (out / "summary.md").write_text("\n".join(md))
    plot(rows, out / "vs_copy.png")
    print(f"wrote {out / 'summary.md'} and {out / 'vs_copy.png'} ({len(rows)} cases)")


if __name__ == "__main__":
    main()
