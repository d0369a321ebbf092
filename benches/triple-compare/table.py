#!/usr/bin/env python3
"""Prints the triple-compare tables from results.tsv and syscalls.tsv (see ./run): one table per
scenario (medians over the rounds), then issue 24's goals as measured ratios.

Usage: table.py RESULTS.tsv CLK_TCK [SYSCALLS.tsv] [--svg CHART.svg]

With --svg, the goals are also drawn as a chart (one bar per goal and scenario: the ratio, the
goal's limit as a line).
"""
import csv
import html
import statistics
import sys

args = sys.argv[1:]
svg_path = None
if "--svg" in args:
    i = args.index("--svg")
    svg_path = args[i + 1]
    del args[i:i + 2]
path, clk_tck = args[0], int(args[1])
sys_path = args[2] if len(args) > 2 else None
rows = list(csv.DictReader(open(path), delimiter="\t"))
sys_rows = list(csv.DictReader(open(sys_path), delimiter="\t")) if sys_path else []


def ordered(key, rs):
    seen = []
    for r in rs:
        if r[key] not in seen:
            seen.append(r[key])
    return seen


def f(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return 0.0


def med(xs):
    return statistics.median(xs) if xs else 0.0


syscalls = {}
for r in sys_rows:
    calls = f(r["calls"])
    if calls:
        syscalls.setdefault((r["scenario"], r["target"]), {})[r["syscall"]] = f(r["count"]) / calls


def syscall_cells(scenario, target):
    by_kind = syscalls.get((scenario, target))
    if not by_kind:
        return "-", "-"
    total = by_kind.get("total", 0.0)
    kinds = sorted(((v, k) for k, v in by_kind.items() if k != "total" and v >= 0.005), reverse=True)
    named = sum(v for v, _ in kinds)
    parts = [f"{k} {v:.2f}" for v, k in kinds]
    if total - named >= 0.005:
        parts.append(f"other {total - named:.2f}")
    return f"{total:.2f}", ", ".join(parts)


def per_call(m, key):
    """CPU us per call over all rounds of a target: sum of ticks / sum of calls."""
    calls = sum(f(r["calls"]) for r in m)
    ticks = sum(f(r[key]) for r in m)
    return ticks / clk_tck / calls * 1e6 if calls else None


HDR = ("target", "calls/s", "p50 us", "p99 us", "server CPU us/call", "client CPU us/call",
       "server syscalls/call", "by kind", "server RSS MiB", "errors")
cpu = {}  # (scenario, target) -> (server, client)


def table(scenario):
    rs = [r for r in rows if r["scenario"] == scenario]
    by = {}
    for r in rs:
        by.setdefault(r["target"], []).append(r)
    out = [HDR]
    for t in ordered("target", rs):
        m = by[t]
        s, c = per_call(m, "server_ticks"), per_call(m, "client_ticks")
        cpu[(scenario, t)] = (s, c)
        total, kinds = syscall_cells(scenario, t)
        out.append((
            t,
            f"{med([f(r['rps']) for r in m]):.0f}",
            f"{med([f(r['p50_us']) for r in m]):.0f}",
            f"{med([f(r['p99_us']) for r in m]):.0f}",
            "-" if s is None else f"{s:.1f}",
            "-" if c is None or t.startswith("dubbo2/") else f"{c:.1f}",
            total,
            kinds,
            f"{max(f(r['rss_kib']) for r in m) / 1024:.1f}",
            f"{sum(f(r['errors']) for r in m):.0f}",
        ))
    loads = [f(r["loadavg"]) for r in rs]
    rounds = len(ordered("round", rs))
    print(f"\n## {scenario} (connections x concurrent callers / payload bytes): {rounds} rounds, "
          f"load average {min(loads):.2f}-{max(loads):.2f} during them\n")
    w = [max(len(str(r[i])) for r in out) for i in range(len(HDR))]
    for i, r in enumerate(out):
        print("| " + " | ".join(str(c).ljust(w[j]) for j, c in enumerate(r)) + " |")
        if i == 0:
            print("|" + "|".join("-" * (x + 2) for x in w) + "|")


scenarios = ordered("scenario", rows)
for s in scenarios:
    table(s)
print("\nserver CPU: the server process's utime+stime over all rounds / calls (connection set-up and "
      "the calls still in flight at the end included); client CPU: the load generator's own, over its "
      "measured seconds / calls (dubbo-load reports none); syscalls: perf stat over one separate "
      "measurement (syscalls:sys_enter_*), / its calls; RSS: VmRSS in the middle of a measurement, max "
      "over the rounds.")

# Issue 24's goals: our server's CPU per call <= tonic's and <= 1/3 of Java 3.3's Triple
# provider's; our client's <= tonic's client.
GOALS = [
    ("server: idl/ours vs idl/tonic (<= 1.00)", "idl/ours", "idl/tonic", 0, 1.0),
    ("server: tri/ours vs tri/java (<= 1/3)", "tri/ours", "tri/java", 0, 1 / 3),
    ("server: idl/ours vs idl/java (<= 1/3)", "idl/ours", "idl/java", 0, 1 / 3),
    ("client: ours vs tonic's, to our server (<= 1.00)", "idl/ours", "idl/ours<-tonic", 1, 1.0),
    ("client: ours vs tonic's, to tonic (<= 1.00)", "idl/tonic", "idl/tonic<-tonic", 1, 1.0),
    ("server streaming, per message: stream/ours vs stream/tonic (<= 1.00)", "stream/ours", "stream/tonic", 0, 1.0),
    ("(what Triple costs) server: tri/ours vs dubbo2/ours", "tri/ours", "dubbo2/ours", 0, None),
]
print("\n## Goals (CPU per call, ratio ours / peer)\n")
hdr = ["goal"] + scenarios
print("| " + " | ".join(hdr) + " |")
print("|" + "|".join("---" for _ in hdr) + "|")
bars = []  # (goal, scenario, ratio, limit)
for name, a, b, i, limit in GOALS:
    cells = []
    for s in scenarios:
        x, y = cpu.get((s, a)), cpu.get((s, b))
        if not x or not y or not x[i] or not y[i]:
            cells.append("-")
            continue
        ratio = x[i] / y[i]
        bars.append((name, s, ratio, limit))
        verdict = "" if limit is None else (" met" if ratio <= limit else " NOT met")
        cells.append(f"{int(ratio * 1000) / 1000:.3f}{verdict}")
    print("| " + " | ".join([name] + cells) + " |")


def write_svg(out_path, title):
    """The goals' ratios as horizontal bars on a linear scale; each goal's limit a dashed line."""
    label_w, bar_w, row_h, top = 110, 600, 16, 52
    hi = max([1.5] + [r * 1.1 for _, _, r, _ in bars])
    x_of = lambda r: label_w + bar_w * r / hi
    height = top + row_h * len(bars) + 12 * len(GOALS) + 40
    width = label_w + bar_w + 80
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           '<text x="10" y="20" font-size="14" font-weight="bold">Triple: CPU per call, ours / peer '
           '(lower is better; dashed: the goal)</text>',
           f'<text x="10" y="38" fill="#555">{html.escape(title)}</text>']
    y = top
    last = None
    for name, scenario, ratio, limit in bars:
        if name != last:
            y += 12
            out.append(f'<text x="10" y="{y - 2}" font-weight="bold">{html.escape(name)}</text>')
            last = name
        met = limit is None or ratio <= limit
        color = "#888" if limit is None else ("#2a9d8f" if met else "#e76f51")
        out.append(f'<text x="{label_w - 6}" y="{y + 12}" text-anchor="end">{html.escape(scenario)}</text>')
        out.append(f'<rect x="{label_w}" y="{y + 3}" width="{x_of(ratio) - label_w:.1f}" '
                   f'height="{row_h - 5}" fill="{color}"/>')
        out.append(f'<text x="{x_of(ratio) + 4:.1f}" y="{y + 12}">{ratio:.2f}</text>')
        if limit is not None:
            out.append(f'<line x1="{x_of(limit):.1f}" y1="{y + 1}" x2="{x_of(limit):.1f}" '
                       f'y2="{y + row_h}" stroke="#000" stroke-dasharray="3,2"/>')
        y += row_h
    for r in (0.5, 1.0, 1.5, 2.0, 3.0, 4.0):
        if r <= hi:
            out.append(f'<text x="{x_of(r):.1f}" y="{y + 16}" text-anchor="middle" fill="#555">{r:g}x</text>')
    out.append("</svg>")
    open(out_path, "w").write("\n".join(out) + "\n")


if svg_path:
    write_svg(svg_path, f"{len(ordered('round', rows))} rounds; scenarios: connections x callers / payload bytes")
