#!/usr/bin/env python3
"""Prints the proxy-compare table from results.tsv (see ./run): medians over the rounds."""
import csv
import statistics
import sys

path, clk_tck, conns = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = list(csv.DictReader(open(path), delimiter="\t"))
order = []
for r in rows:
    if r["target"] not in order:
        order.append(r["target"])


def f(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return 0.0


def med(xs):
    return statistics.median(xs) if xs else 0.0


by = {}
for r in rows:
    by.setdefault((r["scenario"], r["target"]), []).append(r)
direct = {(r["scenario"], r["round"]): f(r["rps"]) for r in rows if r["target"] == "direct"}

hdr = ("target", f"load rps ({conns}x1)", "ratio", "p50 us", "p99 us", "1x1 p50 us", "added p50 us",
       "1x1 p99 us", "CPU us/call", "RSS MiB", "errors")
out = [hdr]
d_single = med([f(r["p50_us"]) for r in by.get(("single", "direct"), [])])
for t in order:
    load = by.get(("load", t), [])
    single = by.get(("single", t), [])
    ratios = [f(r["rps"]) / direct[("load", r["round"])] for r in load if direct.get(("load", r["round"]))]
    calls = sum(f(r["calls"]) for r in load + single)
    ticks = sum(f(r["cpu_ticks"]) for r in load + single)
    cpu = "-" if t == "direct" or calls == 0 else f"{ticks / clk_tck / calls * 1e6:.1f}"
    rss = "-" if t == "direct" else f"{max(f(r['rss_kib']) for r in load) / 1024:.1f}"
    p50s = med([f(r["p50_us"]) for r in single])
    out.append((t, f"{med([f(r['rps']) for r in load]):.0f}", f"{med(ratios):.2f}",
                f"{med([f(r['p50_us']) for r in load]):.0f}", f"{med([f(r['p99_us']) for r in load]):.0f}",
                f"{p50s:.0f}", "-" if t == "direct" else f"{p50s - d_single:+.0f}",
                f"{med([f(r['p99_us']) for r in single]):.0f}", cpu, rss,
                f"{sum(f(r['errors']) for r in load + single):.0f}"))
w = [max(len(str(r[i])) for r in out) for i in range(len(hdr))]
for i, r in enumerate(out):
    print("| " + " | ".join(str(c).ljust(w[j]) for j, c in enumerate(r)) + " |")
    if i == 0:
        print("|" + "|".join("-" * (x + 2) for x in w) + "|")
