#!/usr/bin/env python3
"""Prints the proxy-compare tables from results.tsv and syscalls.tsv (see ./run): one table per
scenario, medians over the rounds.

Usage: table.py RESULTS.tsv CLK_TCK [SYSCALLS.tsv]

For the Triple scenarios (issue 25) it also prints the CPU ratios of the goals: in tri/*, each
proxy's CPU per call / haproxy-h2c's; in bridge/*, the bridge's / plain Triple forwarding's on
the same engine (bridge / dubbo-proxy-tri, bridge-epoll / dubbo-proxy-epoll-tri); in rbridge/*,
the Triple-to-Dubbo bridge's / plain Dubbo forwarding's (rbridge / dubbo-proxy). Each ratio is
taken over all rounds (sum of ticks / sum of calls on both sides), with the range of the
per-round ratios beside it.
"""
import csv
import statistics
import sys

path, clk_tck = sys.argv[1], int(sys.argv[2])
sys_path = sys.argv[3] if len(sys.argv) > 3 else None
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


def per_call(ticks, calls):
    return f"{ticks / clk_tck / calls * 1e6:.1f}" if calls else "-"


# System calls per call: (scenario, target) -> {kind: per call}, "total" included.
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


def share(part, whole):
    return f"{part / whole:.0%}" if whole else "-"


HDR = ("target", "calls/s", "ratio", "p50 us", "p99 us", "added p50 us", "added p99 us", "CPU us/call",
       "kernel share", "switches/call", "provider CPU us/call", "syscalls/call", "syscalls/call by kind", "RSS MiB", "errors")


def table(scenario):
    rs = [r for r in rows if r["scenario"] == scenario]
    by = {}
    for r in rs:
        by.setdefault(r["target"], []).append(r)
    direct_rps = {r["round"]: f(r["rps"]) for r in by.get("direct", [])}
    d_p50 = med([f(r["p50_us"]) for r in by.get("direct", [])])
    d_p99 = med([f(r["p99_us"]) for r in by.get("direct", [])])
    out = [HDR]
    for t in ordered("target", rs):
        m = by[t]
        ratios = [f(r["rps"]) / direct_rps[r["round"]] for r in m if direct_rps.get(r["round"])]
        calls = sum(f(r["calls"]) for r in m)
        p50 = med([f(r["p50_us"]) for r in m])
        p99 = med([f(r["p99_us"]) for r in m])
        # The Java consumer reports no percentiles.
        timed = any(r["p50_us"] for r in m)
        is_direct = t == "direct"
        total, kinds = syscall_cells(scenario, t)
        out.append((
            t,
            f"{med([f(r['rps']) for r in m]):.0f}",
            f"{med(ratios):.2f}",
            f"{p50:.0f}" if timed else "-",
            f"{p99:.0f}" if timed else "-",
            "-" if is_direct or not timed else f"{p50 - d_p50:+.0f}",
            "-" if is_direct or not timed else f"{p99 - d_p99:+.0f}",
            "-" if is_direct else per_call(sum(f(r["cpu_ticks"]) for r in m), calls),
            "-" if is_direct else share(sum(f(r.get("sys_ticks")) for r in m), sum(f(r["cpu_ticks"]) for r in m)),
            "-" if is_direct or not calls else f"{sum(f(r.get('ctx_switches')) for r in m) / calls:.2f}",
            per_call(sum(f(r["provider_ticks"]) for r in m), calls),
            total,
            kinds,
            "-" if is_direct else f"{max(f(r['rss_kib']) for r in m) / 1024:.1f}",
            f"{sum(f(r['errors']) for r in m):.0f}",
        ))
    loads = [f(r["loadavg"]) for r in rs]
    rounds = len(ordered("round", rs))
    print(f"\n## {scenario} (callers x calls in flight / payload bytes): {rounds} rounds, "
          f"load average {min(loads):.2f}-{max(loads):.2f} during them")
    print()
    w = [max(len(str(r[i])) for r in out) for i in range(len(HDR))]
    for i, r in enumerate(out):
        print("| " + " | ".join(str(c).ljust(w[j]) for j, c in enumerate(r)) + " |")
        if i == 0:
            print("|" + "|".join("-" * (x + 2) for x in w) + "|")


for s in ordered("scenario", rows):
    table(s)
# The goals' ratios: (scenario prefix, target, reference target).
GOALS = [("tri/", t, "haproxy-h2c") for t in ("dubbo-proxy-tri", "dubbo-proxy-epoll-tri")] + [
    ("bridge/", "bridge", "dubbo-proxy-tri"), ("bridge/", "bridge-epoll", "dubbo-proxy-epoll-tri"),
    # The other direction (Triple callers, Dubbo-only provider): against plain Dubbo forwarding.
    ("rbridge/", "rbridge", "dubbo-proxy"), ("rbridge/", "rbridge-epoll", "dubbo-proxy-epoll")] + [
    # Stock Java consumers (issue 29): each engine at most 0.7x HAProxy, epoll at most 0.85x tokio.
    ("java", "dubbo-proxy", "haproxy"), ("java", "dubbo-proxy-epoll", "haproxy"),
    ("java", "dubbo-proxy-epoll", "dubbo-proxy")]


def cpu_ratio(scenario, target, ref):
    """CPU per call of target / ref over all rounds, and the per-round ratios."""
    def per_round(t):
        return {r["round"]: (f(r["cpu_ticks"]), f(r["calls"])) for r in rows
                if r["scenario"] == scenario and r["target"] == t}
    a, b = per_round(target), per_round(ref)
    if not a or not b:
        return None
    ta, ca = map(sum, zip(*a.values()))
    tb, cb = map(sum, zip(*b.values()))
    if not (ca and cb and tb):
        return None
    rounds = [(a[k][0] / a[k][1]) / (b[k][0] / b[k][1]) for k in a
              if k in b and a[k][1] and b[k][1] and b[k][0]]
    return (ta / ca) / (tb / cb), min(rounds, default=0), max(rounds, default=0)


goal_lines = []
for s in ordered("scenario", rows):
    for prefix, t, ref in GOALS:
        if s.startswith(prefix):
            r = cpu_ratio(s, t, ref)
            if r:
                goal_lines.append(f"| {s} | {t} / {ref} | {r[0]:.2f} | {r[1]:.2f}-{r[2]:.2f} |")
if goal_lines:
    print("\n## CPU per call ratios (the goals: tri/* at most 0.8x haproxy-h2c, bridge/* at most 1.2x plain Triple;"
          " java*: at most 0.7x haproxy, epoll at most 0.85x tokio)\n")
    print("| scenario | CPU per call of / over | all rounds | per-round range |")
    print("|---|---|---:|---|")
    print("\n".join(goal_lines))

print("\nratio: median of the per-round ratios of calls/s to direct's in the same round; added p50/p99: "
      "the target's median minus direct's; CPU us/call: the process's utime+stime over all rounds / calls; "
      "kernel share: its stime / (utime+stime); switches/call: context switches of all its threads / calls; "
      "provider CPU: the Java provider's, the same way; syscalls/call: perf stat over one separate "
      "measurement (syscalls:sys_enter_*), / its calls.")
