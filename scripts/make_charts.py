#!/usr/bin/env python3
"""Draws gpuprim's performance charts (SVG) from the benchmark JSON in docs/data.

    python3 scripts/make_charts.py            # from the repository root; needs matplotlib
                                              # (Debian/Ubuntu: apt-get install python3-matplotlib)

    python3 scripts/make_charts.py --data docs/h100/data --out docs/h100/charts   # the H100 page

Reads docs/data/bench_*.json through scripts/bench_report.py (the same rows and medians as
docs/performance.md) and docs/data/sources.json (the commit each file was built from), and writes
docs/charts/*.svg (--data and --out choose other folders):
  - <op>_<type>.svg: throughput against n for gpuprim and CUB (reduce, scan: GB/s of input read;
    radix sort: Gkeys/s), and below it the ratio CUB time / gpuprim time (above 1: gpuprim faster);
  - ladder.svg: the classic reduction ladder next to gpuprim and CUB;
  - overview.svg: the geometric-mean ratio of every chart, the README's headline.
Every caption names the GPU, the date of the run, the commit and the data file read (its path
from the repository root). The output is byte-stable: the same JSON and matplotlib version give
the same files (fixed hash salt, no date in the metadata, text kept as text).
"""

import argparse
import glob
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FixedLocator, NullLocator  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_report  # noqa: E402

GPUPRIM_COLOR = "#1f77b4"
CUB_COLOR = "#7f7f7f"
FASTER_COLOR = "#2ca02c"
SLOWER_COLOR = "#d62728"

plt.rcParams.update({
    "svg.hashsalt": "gpuprim",
    "svg.fonttype": "none",  # text stays text: small files, searchable, no font-dependent paths
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "figure.dpi": 100,
})

SVG_METADATA = {"Date": None, "Creator": "gpuprim scripts/make_charts.py"}


class Dataset:
    """One benchmark file: its rows, GPU, date and commit."""

    def __init__(self, path, commit):
        contexts, rows, _ = bench_report.load([path])
        self.path = path
        self.rows = rows
        ctx = contexts[0] if contexts else {}
        self.gpu = ctx.get("gpu", "unknown GPU")
        self.date = (ctx.get("date") or "unknown date")[:10]
        self.commit = commit or "unknown commit"
        cub = ctx.get("cub_version")
        self.cub = "%d.%d.%d" % (int(cub) // 100000, int(cub) // 100 % 1000, int(cub) % 100) if cub else "?"
        cuda = ctx.get("cuda_runtime")
        self.cuda = "%d.%d" % (int(cuda) // 1000, int(cuda) % 1000 // 10) if cuda else "?"

    def source(self):
        """The data file read, relative to the repository root (docs/h100/data/... for the H100
        charts), or as given when it lies outside the repository."""
        rel = os.path.relpath(os.path.abspath(self.path), os.path.dirname(HERE))
        if rel == os.pardir or rel.startswith(os.pardir + os.sep):
            return self.path
        return rel.replace(os.sep, "/")

    def caption(self):
        return "%s, CUDA %s, CUB %s; run of %s; gpuprim %s; %s" % (
            self.gpu, self.cuda, self.cub, self.date, self.commit, self.source())


def log2_ticks(ax, ns):
    """A tick at every n. Where the sizes are denser than every other power of two (the sort's
    extra rows at 2048, 4864 and 8192), only the even powers of two are labelled, so that the
    labels do not run into each other."""
    ax.set_xscale("log", base=2)
    ticks = sorted(ns)
    dense = len(ticks) > len({n.bit_length() // 2 for n in ticks})

    def label(n):
        if n & (n - 1):
            return "" if dense else str(n)
        e = n.bit_length() - 1
        return "$2^{%d}$" % e if not dense or e % 2 == 0 else ""

    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([label(n) for n in ticks])
    ax.set_xlim(ticks[0] / 1.3, ticks[-1] * 1.3)


def save(fig, out_dir, name):
    path = os.path.join(out_dir, name)
    fig.savefig(path, format="svg", metadata=SVG_METADATA)
    plt.close(fig)
    return path


def throughput_chart(out_dir, name, title, by_n, rate, unit, data):
    """by_n: {n: {"gpuprim": Row, "cub": Row}}; rate(row, n) -> throughput in `unit`."""
    ns = sorted(by_n)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(6.4, 4.6), sharex=True,
                                      gridspec_kw={"height_ratios": [2.2, 1]})
    for impl, color, marker, label in (("gpuprim", GPUPRIM_COLOR, "o", "gpuprim"),
                                       ("cub", CUB_COLOR, "s", "CUB")):
        pts = [(n, rate(by_n[n][impl], n)) for n in ns if by_n[n].get(impl)]
        pts = [(n, y) for n, y in pts if y]
        top.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker, markersize=4, color=color,
                 label=label, linewidth=1.6)
    top.set_yscale("log")
    top.set_ylabel(unit)
    top.set_title(title, loc="left", fontsize=11, fontweight="bold")
    top.legend(loc="upper left", frameon=False)

    ratios = []
    for n in ns:
        g, c = by_n[n].get("gpuprim"), by_n[n].get("cub")
        if g and c and g.time_us > 0:
            ratios.append((n, c.time_us / g.time_us))
    bottom.axhline(1.0, color="black", linewidth=0.8)
    bottom.bar([n for n, _ in ratios], [r - 1.0 for _, r in ratios], bottom=1.0,
               width=[n * 0.5 for n, _ in ratios],
               color=[FASTER_COLOR if r >= 1.0 else SLOWER_COLOR for _, r in ratios])
    lo = min([r for _, r in ratios] + [0.9])
    hi = max([r for _, r in ratios] + [1.1])
    bottom.set_ylim(lo - 0.05, hi + 0.05)
    bottom.set_ylabel("CUB time /\ngpuprim time")
    bottom.set_xlabel("n (items)")
    log2_ticks(bottom, ns)
    fig.text(0.01, 0.005, data.caption(), fontsize=7, color="#444444", ha="left", va="bottom")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return save(fig, out_dir, name)


def ladder_chart(out_dir, ladder, data):
    steps = sorted(ladder)
    names = {"gpuprim": "gpuprim::sum", "cub": "cub::DeviceReduce::Sum"}
    labels = ["%d %s" % (k, names.get(ladder[k][0], ladder[k][0].replace("_", " "))) for k in steps]
    gbps = [ladder[k][1].gbps or 0.0 for k in steps]
    colors = [GPUPRIM_COLOR if ladder[k][0] == "gpuprim" else CUB_COLOR if ladder[k][0] == "cub" else "#ff7f0e"
              for k in steps]
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    y = list(range(len(steps)))[::-1]
    ax.barh(y, gbps, color=colors)
    ax.set_yticks(y)
    ax.set_yticklabels(labels)
    ax.yaxis.grid(False)
    for yi, k, g in zip(y, steps, gbps):
        ax.text(g + 40, yi, "%.0f GB/s, %.0f us" % (g, ladder[k][1].time_us), va="center", fontsize=7.5)
    n = next((int(r.counters["n"]) for _, r in ladder.values() if "n" in r.counters), None)
    ax.set_xlim(0, max(gbps) * 1.35)
    ax.set_xlabel("GB/s (input bytes read once; higher is better)")
    ax.set_title("Reduction ladder: sum of %s doubles" % (bench_report.fmt_n(n) if n else "n"),
                 loc="left", fontsize=11, fontweight="bold")
    fig.text(0.01, 0.005, data.caption(), fontsize=7, color="#444444", ha="left", va="bottom")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return save(fig, out_dir, "ladder.svg")


def overview_chart(out_dir, entries, captions):
    """entries: [(label, geomean ratio)], top to bottom."""
    fig, ax = plt.subplots(figsize=(6.4, 0.28 * len(entries) + 1.3))
    y = list(range(len(entries)))[::-1]
    ratios = [r for _, r in entries]
    ax.barh(y, [r - 1.0 for r in ratios], left=1.0,
            color=[FASTER_COLOR if r >= 1.0 else SLOWER_COLOR for r in ratios])
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_yticks(y)
    ax.set_yticklabels([label for label, _ in entries])
    ax.yaxis.grid(False)
    for yi, r in zip(y, ratios):
        ax.text(r + (0.01 if r >= 1.0 else -0.01), yi, "%.2f" % r, va="center",
                ha="left" if r >= 1.0 else "right", fontsize=7.5)
    ax.set_xlim(min(ratios + [0.9]) - 0.08, max(ratios + [1.1]) + 0.08)
    ax.set_xlabel("CUB time / gpuprim time, geometric mean over all n (above 1: gpuprim faster)")
    ax.set_title("gpuprim against CUB", loc="left", fontsize=11, fontweight="bold")
    fig.text(0.01, 0.005, "; ".join(captions), fontsize=6.5, color="#444444", ha="left", va="bottom", wrap=True)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return save(fig, out_dir, "overview.svg")


def main():
    root = os.path.dirname(HERE)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.path.join(root, "docs", "data"), help="folder of bench_*.json")
    ap.add_argument("--out", default=os.path.join(root, "docs", "charts"), help="folder for the SVGs")
    args = ap.parse_args()

    with open(os.path.join(args.data, "sources.json"), encoding="utf-8") as f:
        sources = json.load(f)
    os.makedirs(args.out, exist_ok=True)
    written, overview, captions = [], [], []
    order = {"bench_reduce.json": 0, "bench_reduce_ladder.json": 1, "bench_scan.json": 2, "bench_radix_sort.json": 3}
    paths = sorted(glob.glob(os.path.join(args.data, "bench_*.json")),
                   key=lambda p: (order.get(os.path.basename(p), 99), os.path.basename(p)))
    for path in paths:
        data = Dataset(path, sources.get(os.path.basename(path), {}).get("commit"))
        pairs, _, ladder, sorts, _ = bench_report.classify(data.rows)
        short = "%s, %s, gpuprim %s" % (data.gpu, data.date, data.commit)
        if (pairs or sorts) and short not in captions:
            captions.append(short)
        for (op, typ) in sorted(pairs, key=lambda k: (k[0], bench_report.TYPE_ORDER.get(k[1], 99), k[1])):
            by_n = pairs[(op, typ)]
            written.append(throughput_chart(args.out, "%s_%s.svg" % (op, typ), "%s, %s" % (op, typ), by_n,
                                            lambda r, n: r.gbps if r else None, "GB/s (input read)", data))
            ratios = [by_n[n]["cub"].time_us / by_n[n]["gpuprim"].time_us for n in by_n
                      if by_n[n].get("cub") and by_n[n].get("gpuprim")]
            overview.append(("%s %s" % (op, typ), bench_report.geomean(ratios)))
        for key in sorted(sorts, key=lambda k: (k[0], [bench_report.TYPE_ORDER.get(t, 99) for t in k[1].split("_")],
                                                   bench_report.DIST_ORDER.get(k[2], 99))):
            op, typ, dist = key
            by_n = sorts[key]
            written.append(throughput_chart(args.out, "%s_%s_%s.svg" % (op, typ, dist),
                                            "%s, %s, %s keys" % (op, typ.replace("_", " / "), dist), by_n,
                                            bench_report.gkeys, "Gkeys/s", data))
            ratios = [by_n[n]["cub"].time_us / by_n[n]["gpuprim"].time_us for n in by_n
                      if by_n[n].get("cub") and by_n[n].get("gpuprim")]
            overview.append(("%s %s %s" % (op.replace("radix_sort_", "sort_"), typ.replace("_", "/"), dist),
                             bench_report.geomean(ratios)))
        if ladder:
            written.append(ladder_chart(args.out, ladder, data))
    if overview:
        written.append(overview_chart(args.out, overview, captions))
    for path in written:
        print("wrote %s" % os.path.relpath(path, root))
    return 0


if __name__ == "__main__":
    sys.exit(main())
