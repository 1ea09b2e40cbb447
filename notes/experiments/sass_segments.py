#!/usr/bin/env python3
"""Stall samples of an ncu SASS CSV (`ncu -i rep --page source --csv --print-source sass`) by the
segments between barriers (BAR.SYNC), and optionally the hot instructions of one range.

  sass_segments.py FILE.csv                 # samples and warp instructions per segment
  sass_segments.py FILE.csv FIRST LAST [N]  # instructions FIRST..LAST with N or more samples
"""
import csv
import sys


def load(path):
    rows = list(csv.reader(open(path)))
    hdr, data = rows[1], rows[2:]
    i_src = hdr.index("Source")
    i_s = hdr.index("Warp Stall Sampling (All Samples)")
    i_e = hdr.index("Instructions Executed")
    return [(r[i_src].strip(), int(r[i_s] or 0), int(r[i_e] or 0)) for r in data if len(r) > i_e]


def segments(d):
    segs, start, s_sum, e_sum = [], 0, 0, 0
    for k, (src, s, e) in enumerate(d):
        s_sum += s
        e_sum += e
        if "BAR.SYNC" in src or k == len(d) - 1:
            segs.append((start, k, s_sum, e_sum))
            start, s_sum, e_sum = k + 1, 0, 0
    return segs


def main():
    d = load(sys.argv[1])
    if len(sys.argv) > 3:
        a, b = int(sys.argv[2]), int(sys.argv[3])
        n = int(sys.argv[4]) if len(sys.argv) > 4 else 3
        for k in range(a, b + 1):
            src, s, e = d[k]
            if s >= n or "BAR" in src:
                print(f"{k:5d} {s:4d} {e:8d}  {src[:90]}")
        return
    segs = segments(d)
    total = sum(x[2] for x in segs) or 1
    print(f"samples {total}, warp instructions {sum(x[3] for x in segs)}")
    for a, b, s, e in segs:
        print(f"  [{a:4d}-{b:4d}] samples {s:6d} ({100 * s / total:5.1f}%) instructions {e:9d}")


if __name__ == "__main__":
    main()
