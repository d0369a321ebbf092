#!/usr/bin/env python3
"""Turns `go test -bench` output and JMH JSON results into the peer table rows.

  parse.py go PEER GO_BENCH_OUTPUT
  parse.py jmh PEER JMH_JSON ALLOC_COUNT_TSV

Row: peer, dataset, op, ns_per_op (mean), allocs_per_op, bytes_per_op, ns_spread (sample standard
deviation), samples, ns_min (fastest sample) -- tab-separated, integers rounded, "-" when unknown.
"""
import json
import re
import statistics
import sys

GO_NAMES = {  # benchmark name -> (dataset, op)
    "EncodeMix": ("mix", "encode"),
    "DecodeMix": ("mix", "decode"),
    "EncodeUser": ("user", "encode"),
    "DecodeUser": ("user", "decode"),
    "EncodeMixSeed": ("mix-seed", "encode"),
    "DecodeMixSeed": ("mix-seed", "decode"),
}
JMH_NAMES = {
    "encodeMix": ("mix", "encode"),
    "decodeMix": ("mix", "decode"),
    "encodeUser": ("user", "encode"),
    "decodeUser": ("user", "decode"),
}
ORDER = ["mix", "user", "mix-seed"]


def fmt(x):
    if x is None:
        return "-"
    if abs(x - round(x)) < 0.05 or abs(x) >= 100:
        return str(int(round(x)))
    return "%.1f" % x


def row(peer, dataset, op, samples, allocs, bytes_):
    ns = statistics.mean(samples)
    spread = statistics.stdev(samples) if len(samples) > 1 else None
    return "\t".join([peer, dataset, op, fmt(ns), fmt(allocs), fmt(bytes_), fmt(spread), str(len(samples)),
                      fmt(min(samples))])


def sort_key(k):
    dataset, op = k
    return (ORDER.index(dataset) if dataset in ORDER else 99, 0 if op == "encode" else 1)


def go(peer, path):
    samples = {}
    line_re = re.compile(r"^Benchmark(\w+?)(?:-\d+)?\s+\d+\s+(.*)$")
    for line in open(path, encoding="utf-8"):
        m = line_re.match(line.strip())
        if not m or m.group(1) not in GO_NAMES:
            continue
        fields = m.group(2).split()
        vals = {fields[i + 1]: float(fields[i]) for i in range(0, len(fields) - 1, 2)}
        samples.setdefault(GO_NAMES[m.group(1)], []).append(vals)
    if not samples:
        sys.exit("parse.py: no benchmark lines in " + path)
    for key in sorted(samples, key=sort_key):
        s = samples[key]
        ns = [v["ns/op"] for v in s]
        print(row(peer, key[0], key[1], ns, statistics.mean(v.get("allocs/op", 0) for v in s),
                  statistics.mean(v.get("B/op", 0) for v in s)))


def jmh(peer, path, allocs_path):
    allocs = {}
    for line in open(allocs_path, encoding="utf-8"):
        f = line.split()
        if len(f) == 4:
            allocs[(f[0], f[1])] = float(f[2])
    out = {}
    for r in json.load(open(path, encoding="utf-8")):
        name = r["benchmark"].rsplit(".", 1)[1]
        if name not in JMH_NAMES:
            continue
        pm = r["primaryMetric"]
        if pm["scoreUnit"] != "ns/op":
            sys.exit("parse.py: unexpected unit " + pm["scoreUnit"])
        raw = [x for fork in pm["rawData"] for x in fork]
        norm = r.get("secondaryMetrics", {}).get("gc.alloc.rate.norm")
        key = JMH_NAMES[name]
        out[key] = row(peer, key[0], key[1], raw, allocs.get(key), norm["score"] if norm else None)
    for key in sorted(out, key=sort_key):
        print(out[key])


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "go":
        go(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "jmh":
        jmh(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
