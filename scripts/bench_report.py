#!/usr/bin/env python3
"""Turns gpuprim's Google Benchmark JSON into Markdown tables (python3, standard library only).

Reads one or more files written by the benchmark binaries with --benchmark_format=json or
--benchmark_out=FILE (Google Benchmark 1.7 or 1.8), with or without repetitions. A row's figure is
its "median" aggregate when the file has one, else the median over its repetitions, else the one
run. Later files override earlier ones for the same benchmark name.

Pairs "<op>/<type>/gpuprim/<n>" with "<op>/<type>/cub/<n>" and prints per (op, type):
    n | gpuprim (us) | CUB (us) | gpuprim GB/s | CUB GB/s | ratio (CUB time / gpuprim time)
pairs the sorts "radix_sort_<keys|pairs>/<type>/<distribution>/<gpuprim|cub>/<n>" the same way,
in keys per second (Gkeys/s = n / time), then prints the bandwidth ceilings ("ceiling/<kind>/<n>")
and the reduction ladder ("ladder/<k>_<name>").

    scripts/bench_report.py reduce.json ladder.json
    scripts/bench_report.py reduce.json ladder.json --out docs/performance.md \\
        --commit "$(git rev-parse --short HEAD)" --command "scripts/gpu-check.sh bench"

With --out, the page embeds the charts of scripts/make_charts.py that exist in the folder
charts/ next to it (docs/charts/<op>_<type>.svg, ladder.svg, overview.svg) above their tables,
and ends with the exact commands that regenerate the charts and the page itself.
"""

import argparse
import json
import math
import os
import shlex
import statistics
import sys

# Folder of the charts to embed (set by main() from --out; None: no charts).
CHART_DIR = None


def chart_line(name, alt):
    """A Markdown image for charts/<name>.svg when that chart exists, else nothing."""
    if CHART_DIR is None or not os.path.exists(os.path.join(CHART_DIR, name + ".svg")):
        return []
    return ["![%s](charts/%s.svg)" % (alt, name), ""]

TIME_TO_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
IMPLS = ("gpuprim", "cub", "copy")  # copy: cudaMemcpyAsync of the same bytes, where a bench has it
NAME_SUFFIXES = ("/manual_time", "/real_time", "/process_time")


def base_name(run_name):
    """'sum/i32/cub/1024/manual_time' -> 'sum/i32/cub/1024'."""
    for suffix in NAME_SUFFIXES:
        if run_name.endswith(suffix):
            return run_name[: -len(suffix)]
    return run_name


class Row:
    """One benchmark's figures: time in microseconds, GB/s and the user counters."""

    def __init__(self, name, time_us, gbps, counters, source):
        self.name = name
        self.time_us = time_us
        self.gbps = gbps
        self.counters = counters
        self.source = source  # "median aggregate", "median of N runs" or "1 run"


def entry_figures(entry):
    unit = entry.get("time_unit", "ns")
    time_us = float(entry["real_time"]) * TIME_TO_US.get(unit, 1e-3)
    if "GBps" in entry:
        gbps = float(entry["GBps"])
    elif "bytes_per_second" in entry:
        gbps = float(entry["bytes_per_second"]) / 1e9
    else:
        gbps = None
    skip = {
        "name", "run_name", "run_type", "aggregate_name", "aggregate_unit", "family_index",
        "per_family_instance_index", "repetitions", "repetition_index", "threads", "iterations",
        "real_time", "cpu_time", "time_unit", "label", "error_occurred", "error_message",
        "skipped", "skip_message",
    }
    counters = {k: v for k, v in entry.items() if k not in skip and isinstance(v, (int, float))}
    return time_us, gbps, counters


def load(paths):
    """Returns (contexts, rows by base name, errors as (name, message))."""
    contexts, rows, errors = [], {}, []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        contexts.append(doc.get("context", {}))
        medians, runs = {}, {}
        for entry in doc.get("benchmarks", []):
            run_name = entry.get("run_name", entry.get("name", ""))
            name = base_name(run_name)
            if entry.get("error_occurred") or entry.get("skipped"):
                errors.append((name, entry.get("error_message") or entry.get("skip_message") or "skipped"))
                continue
            if entry.get("run_type") == "aggregate":
                if entry.get("aggregate_name") == "median":
                    medians[name] = entry
                continue
            runs.setdefault(name, []).append(entry)
        for name in list(medians) + [n for n in runs if n not in medians]:
            if name in medians:
                t, g, c = entry_figures(medians[name])
                rows[name] = Row(name, t, g, c, "median aggregate")
                continue
            figs = [entry_figures(e) for e in runs[name]]
            t = statistics.median(x[0] for x in figs)
            gs = [x[1] for x in figs if x[1] is not None]
            g = statistics.median(gs) if gs else None
            keys = set().union(*(x[2].keys() for x in figs))
            c = {k: statistics.median(x[2][k] for x in figs if k in x[2]) for k in keys}
            source = "median of %d runs" % len(figs) if len(figs) > 1 else "1 run"
            rows[name] = Row(name, t, g, c, source)
    merge_cub_counts(rows)
    # An error only matters if no file measured that benchmark.
    errors = list(dict((n, m) for n, m in errors if n not in rows).items())
    errors = [(cub_name(n), m) for n, m in errors if cub_name(n) not in rows]
    return contexts, rows, errors


# CUB run more than one way; its row is the faster: the count type (32- or 64-bit offsets, and
# their tuning), and for the segmented sorts its two algorithms.
CUB_COUNT_VARIANTS = {"/cub64/": "64-bit count", "/cub32/": "32-bit count",
                      "/cub_radix/": "DeviceSegmentedRadixSort", "/cub_segsort/": "DeviceSegmentedSort"}


def cub_name(name):
    """'<...>/cub64/<n>', '<...>/cub_radix/<n>', ... -> '<...>/cub/<n>'; other names unchanged."""
    for tag in CUB_COUNT_VARIANTS:
        name = name.replace(tag, "/cub/")
    return name


def merge_cub_counts(rows):
    """CUB at its best: where a case also ran CUB with the other count type ("<...>/cub64/<n>" or
    "<...>/cub32/<n>": CUB picks 32- or 64-bit offsets, and their tuning, from the count type), its
    CUB row becomes the faster of the runs."""
    for tag, label in CUB_COUNT_VARIANTS.items():
        for name in [n for n in rows if tag in n]:
            alt = rows.pop(name)
            base = cub_name(name)
            if base not in rows or alt.time_us < rows[base].time_us:
                alt.name = base
                alt.source += ", " + label
                rows[base] = alt


def classify(rows):
    pairs = {}     # (op, type) -> {n: {impl: Row}}
    ceilings = {}  # (kind, n) -> Row
    ladder = {}    # step -> (label, Row)
    sorts = {}     # (op, type, distribution) -> {n: {impl: Row}}
    others = []
    for name, row in rows.items():
        parts = name.split("/")
        if parts[0] == "ceiling" and len(parts) == 3 and parts[2].isdigit():
            ceilings[(parts[1], int(parts[2]))] = row
        elif parts[0] == "ladder" and len(parts) == 2 and "_" in parts[1]:
            step, label = parts[1].split("_", 1)
            if step.isdigit():
                ladder[int(step)] = (label, row)
            else:
                others.append(row)
        elif len(parts) == 4 and parts[2] in IMPLS and parts[3].isdigit():
            pairs.setdefault((parts[0], parts[1]), {}).setdefault(int(parts[3]), {})[parts[2]] = row
        elif (len(parts) == 5 and parts[0].startswith("radix_sort") and parts[3] in IMPLS
              and parts[4].isdigit()):
            sorts.setdefault((parts[0], parts[1], parts[2]), {}).setdefault(int(parts[4]), {})[parts[3]] = row
        else:
            others.append(row)
    return pairs, ceilings, ladder, sorts, others


def fmt_n(n):
    if n > 0 and n & (n - 1) == 0:
        return "2^%d" % (n.bit_length() - 1)
    return str(n)


def fmt_us(t):
    if t is None:
        return "-"
    if t < 100:
        return "%.2f" % t
    if t < 10000:
        return "%.1f" % t
    return "%.0f" % t


def fmt_gbps(g):
    return "-" if g is None else ("%.1f" % g if g < 100 else "%.0f" % g)


def fmt_ratio(r):
    return "-" if r is None else "%.2f" % r


def geomean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


TYPE_ORDER = {"i8": 0, "u8": 1, "i16": 2, "u16": 3, "i32": 4, "u32": 5, "i64": 6, "u64": 7,
              "f32": 8, "f64": 9}


def ratio_table(title, by_n, unit, rate, chart=None):
    """One gpuprim-vs-CUB table over n: time, `unit` from `rate(row, n)`, ratio, after the chart
    `chart` when it exists. Returns the Markdown lines and the ratios (None where a side is
    missing)."""
    out = ["### %s\n" % title]
    if chart:
        out += chart_line(chart, "%s: %s against n, gpuprim and CUB" % (title, unit))
    # Where the same run copied the same bytes (cudaMemcpyAsync), each side's share of that.
    has_copy = any("copy" in v for v in by_n.values())
    copy_head = " copy (us) | gpuprim % of copy | CUB % of copy |" if has_copy else ""
    out += ["| n | gpuprim (us) | CUB (us) | gpuprim %s | CUB %s | ratio (CUB time / gpuprim time) |%s" % (
                unit, unit, copy_head),
            "| ---: | ---: | ---: | ---: | ---: | ---: |" + (" ---: | ---: | ---: |" if has_copy else "")]
    ratios = []
    for n in sorted(by_n):
        g, c, k = by_n[n].get("gpuprim"), by_n[n].get("cub"), by_n[n].get("copy")
        ratio = c.time_us / g.time_us if g and c and g.time_us > 0 else None
        ratios.append(ratio)
        share = lambda r: ("%.0f%%" % (100 * k.time_us / r.time_us)) if (k and r and r.time_us > 0) else "-"
        copy_cells = (" %s | %s | %s |" % (fmt_us(k.time_us if k else None), share(g), share(c))) if has_copy else ""
        out.append("| %s | %s | %s | %s | %s | %s |%s" % (
            fmt_n(n), fmt_us(g.time_us if g else None), fmt_us(c.time_us if c else None),
            fmt_gbps(rate(g, n)), fmt_gbps(rate(c, n)), fmt_ratio(ratio), copy_cells))
    out.append("")
    return out, ratios


def pair_tables(pairs, read_ceiling):
    out, summary = [], []
    for (op, typ) in sorted(pairs, key=lambda k: (k[0], TYPE_ORDER.get(k[1], 99), k[1])):
        by_n = pairs[(op, typ)]
        lines, ratios = ratio_table("%s, %s" % (op, typ), by_n, "GB/s", lambda r, n: r.gbps if r else None,
                                    chart="%s_%s" % (op, typ))
        out += lines
        n_max = max(by_n)
        g_max = by_n[n_max].get("gpuprim")
        c_max = by_n[n_max].get("cub")
        pct = lambda r: ("%.0f%%" % (100 * r.gbps / read_ceiling)) if (r and r.gbps and read_ceiling) else "-"
        summary.append("| %s | %s | %s | %d of %d | %s | %s | %s |" % (
            op, typ, fmt_ratio(geomean(ratios)),
            sum(1 for r in ratios if r is not None and r >= 1.0), sum(1 for r in ratios if r is not None),
            fmt_n(n_max), pct(g_max), pct(c_max)))
    head = [
        "| op | type | geomean ratio | sizes where gpuprim is at least as fast | largest n | gpuprim % of read ceiling | CUB % of read ceiling |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    return head + summary + [""], out


DIST_ORDER = {"uniform": 0, "and2": 1, "and3": 2, "bits20": 3}


def gkeys(row, n):
    """Keys per second in 1e9, from the (median) time: the same figure as items_per_second."""
    return n / row.time_us / 1e3 if row and row.time_us > 0 else None


def sort_tables(sorts):
    """Radix sorts: per (op, keys_values type, distribution), gpuprim and CUB in Gkeys/s."""
    def order(key):
        op, typ, dist = key
        return (op, [TYPE_ORDER.get(t, 99) for t in typ.split("_")], typ, DIST_ORDER.get(dist, 99), dist)

    out, summary = [], []
    for (op, typ, dist) in sorted(sorts, key=order):
        by_n = sorts[(op, typ, dist)]
        key_type, _, value_type = typ.partition("_")
        lines, ratios = ratio_table("%s, %s, %s" % (op, typ, dist), by_n, "Gkeys/s", gkeys,
                                    chart="%s_%s_%s" % (op, typ, dist))
        out += lines
        n_max = max(by_n)
        summary.append("| %s | %s | %s | %s | %s | %d of %d | %s | %s | %s |" % (
            op, key_type, value_type or "-", dist, fmt_ratio(geomean(ratios)),
            sum(1 for r in ratios if r is not None and r >= 1.0), sum(1 for r in ratios if r is not None),
            fmt_n(n_max), fmt_gbps(gkeys(by_n[n_max].get("gpuprim"), n_max)),
            fmt_gbps(gkeys(by_n[n_max].get("cub"), n_max))))
    head = [
        "| op | keys | values | distribution | geomean ratio | sizes where gpuprim is at least as fast | largest n | gpuprim Gkeys/s | CUB Gkeys/s |",
        "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    return head + summary + [""], out


def ceiling_table(ceilings):
    out = ["| ceiling | n (int32) | bytes counted | time (us) | GB/s |", "| --- | ---: | ---: | ---: | ---: |"]
    for (kind, n) in sorted(ceilings, key=lambda k: (k[0] != "read", k[0], k[1])):
        row = ceilings[(kind, n)]
        moved = n * 4 * (2 if kind == "copy" else 1)
        out.append("| %s | %s | %.2f GiB%s | %s | %s |" % (
            kind, fmt_n(n), moved / 2**30, " (read + write)" if kind == "copy" else "",
            fmt_us(row.time_us), fmt_gbps(row.gbps)))
    return out + [""]


# Seed 000's Tesla P100 times for steps 1-9 on 2^24 doubles (its partials were summed on the
# host, outside its timing; here the final pass runs on the GPU and is timed).
SEED_P100_US = {1: 2044, 2: 1141, 3: 958, 4: 620, 5: 382, 6: 318, 7: 306, 8: 306, 9: 305}


def ladder_table(ladder):
    base = ladder.get(1, (None, None))[1]
    out = ["| step | kernel | grid x block | time (us) | GB/s | speedup vs step 1 | seed on P100 (us) |",
           "| ---: | --- | --- | ---: | ---: | ---: | ---: |"]
    for step in sorted(ladder):
        label, row = ladder[step]
        grid, block = row.counters.get("grid"), row.counters.get("block")
        shape = "%d x %d" % (grid, block) if grid and block else "-"
        speedup = base.time_us / row.time_us if base and row.time_us > 0 else None
        out.append("| %d | %s | %s | %s | %s | %s | %s |" % (
            step, label, shape, fmt_us(row.time_us), fmt_gbps(row.gbps),
            "-" if speedup is None else "%.2fx" % speedup,
            SEED_P100_US.get(step, "-")))
    return out + [""]


def context_lines(contexts, args):
    ctx = {}
    for c in contexts:  # the first file's value wins, later files fill gaps
        for k, v in c.items():
            ctx.setdefault(k, v)
    gpus = sorted({c.get("gpu") for c in contexts if c.get("gpu")})
    if len(gpus) > 1:
        print("warning: the files come from different GPUs: %s" % ", ".join(gpus), file=sys.stderr)
    gpu = " / ".join(gpus) if gpus else "unknown (no \"gpu\" in the JSON context)"
    extra = []
    if ctx.get("gpu_cc"):
        extra.append("compute capability " + ctx["gpu_cc"])
    if ctx.get("gpu_sms"):
        extra.append(ctx["gpu_sms"] + " SMs")
    if ctx.get("gpu_l2_bytes"):
        extra.append("L2 %.0f MiB" % (int(ctx["gpu_l2_bytes"]) / 2**20))
    if ctx.get("gpu_memory_bytes"):
        extra.append("%.0f GiB" % (int(ctx["gpu_memory_bytes"]) / 2**30))
    lines = ["- GPU: %s%s" % (gpu, " (" + ", ".join(extra) + ")" if extra else "")]

    def version(v, parts):
        try:
            v = int(v)
        except (TypeError, ValueError):
            return str(v)
        if parts == "cuda":
            return "%d.%d" % (v // 1000, (v % 1000) // 10)
        return "%d.%d.%d" % (v // 100000, (v // 100) % 1000, v % 100)

    tools = []
    if ctx.get("cuda_runtime"):
        tools.append("CUDA runtime " + version(ctx["cuda_runtime"], "cuda"))
    if ctx.get("cuda_driver"):
        tools.append("driver API " + version(ctx["cuda_driver"], "cuda"))
    if ctx.get("cub_version"):
        tools.append("CUB " + version(ctx["cub_version"], "cub"))
    if ctx.get("gpuprim_version"):
        tools.append("gpuprim " + ctx["gpuprim_version"])
    if tools:
        lines.append("- Toolchain: " + ", ".join(tools))
    lines.append("- Date: %s" % (args.date or ctx.get("date", "unknown")))
    if args.commit:
        lines.append("- Commit: `%s`" % args.commit)
    if args.command:
        lines.append("- Command: `%s`" % args.command)
    if ctx.get("seed"):
        lines.append("- Input seed: %s (GPUPRIM_BENCH_SEED reproduces it)" % ctx["seed"])
    timings = sorted({c.get("timing", "launch") for c in contexts})
    lines.append("- Timing: %s (GPUPRIM_BENCH_TIMING; see Method)" % " / ".join(timings))
    orders = sorted({c.get("order", "registration") for c in contexts})
    lines.append("- Order: %s (see Method)" % " / ".join(orders))
    return lines


METHOD = """\
## Method

- Each row is one Google Benchmark case timed with CUDA events around the call on a dedicated
  stream (`UseManualTime`), synchronised after every iteration; launch gaps inside the call count.
  With `--benchmark_repetitions` the median of the repetitions is shown. Runs from 2026-11-23 on
  run each case untimed for 0.05 s first (`--benchmark_min_warmup_time`).
- Order `interleaved` (`--benchmark_enable_random_interleaving=true`, the run scripts' default
  since 2026-11-30): the repetitions of all cases run in one random order, so that a slow phase
  of the machine (the launch floor drifts by ~1 us over seconds) falls on gpuprim's and CUB's
  rows alike. Order `registration` (files without an "order" context are of this kind): each
  case's repetitions back to back, its gpuprim row right before its CUB rows.
- Timing `launch` (the default; files without a "timing" context are of this kind): the start
  event is recorded on an idle GPU, so the host's launch of the call's first kernel counts, as a
  caller sees it. Timing `queued` (GPUPRIM_BENCH_TIMING=queued): a kernel that waits for the host
  holds the stream until the events and the whole call are queued (nvbench's blocking kernel), so
  only GPU time counts: kernels and the gaps between them.
- Inputs are random integers in -4..-1, 1..4 (never zero), the same values in every type, so every
  sum is exact; each case checks its result against the host before and after timing.
- Inputs smaller than 4x L2 are replicated and every iteration reads the next copy, so no
  iteration finds its input in L2. GB/s counts the input bytes read once (10^9 bytes/s).
- ratio = CUB time / gpuprim time: above 1 gpuprim is faster. Both run in the same process on
  the same input, so the ratio is the figure to trust; absolute times move with clocks.
- Ceilings: `read` is a 16-byte-load read-only kernel; `copy` is `cudaMemcpyAsync` device to
  device, counting bytes read plus bytes written.
- The ladder (seed 000: the classic reduction steps) runs on 2^24 doubles. Steps 1-9 reduce in
  place in global memory and finish with one single-block kernel, both timed. Before every
  iteration, untimed, the input is restored and L2 is flushed by reading a buffer 4x its size;
  rows 10 and 11 get the same preparation.
"""


SORT_METHOD = """\
- Radix sorts: both libraries sort every bit of the key, ascending, through their workspace
  forms (workspace allocated once, outside the timing). Keys are random bit patterns (`uniform`;
  f32: finite patterns only), the bitwise AND of 2 or 3 random words (`and2`, `and3`: lower
  entropy), or uniform in [0, 2^20) (`bits20`); pairs carry u32 values. Before and after timing,
  untimed, CUB's output must be sorted (stable for pairs) and gpuprim's must equal it bit for bit.
  CUB runs twice per case, with an `int` count (its 32-bit offsets) and with a `std::size_t`
  count (its 64-bit offsets, another tuning); the CUB column is the faster of the two (figures
  marked "64-bit count" came from the latter). Gkeys/s = n / time (10^9 keys per second).
"""


def regenerate_lines(args):
    """The commands that rebuild the charts and this page from the same JSON, exactly."""
    cmd = ["python3", "scripts/bench_report.py"] + list(args.json) + ["--out", args.out]
    for flag, value in (("--commit", args.commit), ("--command", args.command), ("--date", args.date)):
        if value:
            cmd += [flag, value]
    return ["## Regenerating this page", "",
            "From the repository root (charts first: they need matplotlib, e.g. Debian's "
            "`python3-matplotlib`; the page needs only python3):", "",
            "```sh",
            charts_command(args),
            " ".join(shlex.quote(c) for c in cmd),
            "```", ""]


def charts_command(args):
    """The make_charts.py call for this page: its defaults (docs/data -> docs/charts) unless the
    JSON comes from another folder, e.g. a page per GPU (docs/h100/data -> docs/h100/charts)."""
    data_dir = os.path.relpath(os.path.dirname(os.path.abspath(args.json[0])))
    chart_dir = os.path.relpath(CHART_DIR) if CHART_DIR is not None else None
    if chart_dir is None or (data_dir, chart_dir) == (os.path.join("docs", "data"), os.path.join("docs", "charts")):
        return "python3 scripts/make_charts.py"
    return "python3 scripts/make_charts.py --data %s --out %s" % (shlex.quote(data_dir), shlex.quote(chart_dir))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", nargs="+", help="Google Benchmark JSON files")
    ap.add_argument("--out", help="write a complete Markdown page here (e.g. docs/performance.md)")
    ap.add_argument("--commit", help="commit the binaries were built from")
    ap.add_argument("--command", help="command that produced the JSON")
    ap.add_argument("--date", help="override the date taken from the JSON context")
    args = ap.parse_args()

    global CHART_DIR
    if args.out:
        CHART_DIR = os.path.join(os.path.dirname(os.path.abspath(args.out)), "charts")
    contexts, rows, errors = load(args.json)
    pairs, ceilings, ladder, sorts, others = classify(rows)
    read_ceiling = max((r.gbps for (k, _), r in ceilings.items() if k == "read" and r.gbps), default=None)

    body = []
    overview = chart_line("overview", "gpuprim against CUB: geometric-mean time ratio per algorithm and type")
    if overview:
        body += ["## At a glance", "",
                 "Geometric mean over n of CUB time / gpuprim time (above 1 gpuprim is faster); every "
                 "table below has its chart of throughput against n. Charts: `%s`." % charts_command(args),
                 ""] + overview
    if pairs:
        summary, tables = pair_tables(pairs, read_ceiling)
        body += ["## gpuprim and CUB", "", "Summary (ratio = CUB time / gpuprim time; above 1 gpuprim is faster):", ""]
        body += summary + tables
    if sorts:
        summary, tables = sort_tables(sorts)
        body += ["## Radix sort: gpuprim and CUB", "",
                 "Summary (ratio = CUB time / gpuprim time; above 1 gpuprim is faster; Gkeys/s at the largest n):", ""]
        body += summary + tables
    if ceilings:
        body += ["## Bandwidth ceilings", ""] + ceiling_table(ceilings)
    if ladder:
        n = next((int(r.counters["n"]) for _, r in ladder.values() if "n" in r.counters), None)
        body += ["## Reduction ladder%s" % (" (%s doubles)" % fmt_n(n) if n else ""), ""]
        body += chart_line("ladder", "The reduction ladder: GB/s per step, gpuprim and CUB")
        body += ladder_table(ladder)
    if others:
        body += ["## Other rows", "", "| benchmark | time (us) | GB/s |", "| --- | ---: | ---: |"]
        body += ["| %s | %s | %s |" % (r.name, fmt_us(r.time_us), fmt_gbps(r.gbps)) for r in sorted(others, key=lambda r: r.name)]
        body.append("")
    if errors:
        body += ["## Not measured", "", "| benchmark | reason |", "| --- | --- |"]
        body += ["| %s | %s |" % (n, m.replace("|", "/")) for n, m in errors]
        body.append("")
    sources = sorted({r.source for r in rows.values()})
    header = context_lines(contexts, args) + ["- Figures: %s" % (", ".join(sources) or "none")]

    if args.out:
        page = ["# gpuprim performance", "",
                "Generated by `scripts/bench_report.py` from Google Benchmark JSON; do not edit by hand.", ""]
        if CHART_DIR is not None and os.path.isdir(CHART_DIR):
            # Links into docs/ from wherever the page lives (docs/ or a folder below it).
            docs = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs")
            link = lambda name: os.path.relpath(os.path.join(docs, name), os.path.dirname(os.path.abspath(args.out)))
            page += ["Back to the [documentation index](%s); the classic reduction steps next to "
                     "gpuprim and CUB, explained: [the reduction ladder](%s)." % (link("README.md"), link("ladder.md")), ""]
        page += header + [""] + body + [METHOD + (SORT_METHOD if sorts else "")]
        page += regenerate_lines(args)
        with open(args.out, "w", encoding="utf-8") as f:
            f.write("\n".join(page))
        print("wrote %s (%d rows, %d not measured)" % (args.out, len(rows), len(errors)))
    else:
        print("\n".join(header + [""] + body))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # output piped into head
        sys.exit(0)
