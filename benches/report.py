#!/usr/bin/env python3
"""Writes benches/RESULTS.md and benches/results.svg from the data of one `benches/run`.

    python3 benches/report.py <run-dir> <benches-dir>

<run-dir> holds criterion/ (criterion's output: */new/{benchmark,estimates,sample}.json),
allocs.tsv (group, function, allocations per op, bytes: written by the benches through
benches::report::record), peers.tsv (the output of benches/peers/run) and meta.txt (machine,
versions, load averages). Standard library only.
"""

import glob
import html
import json
import math
import os
import re
import sys

# The function that is "ours" in a group: every other function of the group is a peer, and its
# ratio is peer ns / ours ns (above 1: ours is faster).
# (`fastjson2` first: its groups also time hessian2 on the same objects, as a reference.)
OURS = ["fastjson2", "hessian2", "registry-urlweight", "dubbo-codec", "proxy", "ours"]

# Rows of the Rust benches that stand for the peers' datasets (benches/peers/README.md).
# peer dataset/op -> [(label, rust group, rust function)]
CROSS = {
    ("mix", "encode"): [
        ("hessian2 typed `Mix` (D.m a nested Mix, 169 B)", "mix/encode", "hessian2"),
        ("hessian2 `Value` of Java's bytes (self-ref, 125 B)", "mix_self_ref/encode", "hessian2-value"),
    ],
    ("mix", "decode"): [
        ("hessian2 typed `Mix` (D.m a nested Mix, 169 B)", "mix/decode", "hessian2"),
        ("hessian2 typed `Mix`, reused `Deserializer` (D.m a nested Mix, 169 B)", "mix/decode",
         "hessian2-reused"),
        ("hessian2 borrowed `Mix` (`&str` text), reused `Deserializer` (169 B)", "mix/decode",
         "hessian2-borrowed-reused"),
        ("hessian2 `Value` of Java's bytes (self-ref, 125 B)", "mix_self_ref/decode", "hessian2-value"),
        ("hessian2 `Value` of Java's bytes, reused `ValueDecoder` (self-ref, 125 B)",
         "mix_self_ref/decode", "hessian2-value-reused"),
    ],
    ("user", "encode"): [("hessian2 typed `User` (112 B)", "user/encode", "hessian2")],
    ("user", "decode"): [
        ("hessian2 typed `User` (112 B)", "user/decode", "hessian2"),
        ("hessian2 typed `User`, reused `Deserializer` (112 B)", "user/decode", "hessian2-reused"),
        ("hessian2 borrowed `User` (`&str` text), reused `Deserializer` (112 B)", "user/decode",
         "hessian2-borrowed-reused"),
    ],
}
# The same for the fastjson2 bench (JSONB) against Java fastjson2's peer: Java measures the
# self-referencing Mix (`D["m"]` a `$ref` to the Mix itself); a Rust struct cannot hold itself,
# so the typed rows encode a nested Mix and the `Value` rows Java's exact bytes.
CROSS_FASTJSON2 = {
    ("mix", "encode"): [
        ("fastjson2 typed `Mix` (D.m a nested Mix)", "fastjson2_mix/encode", "fastjson2"),
        ("fastjson2 typed `Mix`, reused buffer", "fastjson2_mix/encode", "fastjson2-reused"),
        ("fastjson2 typed `Mix`, reused `Serializer`", "fastjson2_mix/encode", "fastjson2-serializer"),
        ("fastjson2 `Value` of Java's bytes (self-ref)", "fastjson2_mix_self_ref/encode", "fastjson2-value"),
    ],
    ("mix", "decode"): [
        ("fastjson2 typed `Mix` (D.m a nested Mix)", "fastjson2_mix/decode", "fastjson2"),
        ("fastjson2 typed `Mix`, reused `Deserializer`", "fastjson2_mix/decode", "fastjson2-reused"),
        ("owned floor: a clone of the nested `Mix`", "fastjson2_mix/decode", "owned-floor"),
        ("fastjson2 `Value` of Java's bytes (self-ref)", "fastjson2_mix_self_ref/decode", "fastjson2-value"),
        ("`Value` floor: a clone of that `Value`", "fastjson2_mix_self_ref/decode", "value-floor"),
    ],
    ("user", "encode"): [
        ("fastjson2 typed `User`", "fastjson2_user/encode", "fastjson2"),
        ("fastjson2 typed `User`, reused buffer", "fastjson2_user/encode", "fastjson2-reused"),
        ("fastjson2 typed `User`, reused `Serializer`", "fastjson2_user/encode", "fastjson2-serializer"),
    ],
    ("user", "decode"): [
        ("fastjson2 typed `User`", "fastjson2_user/decode", "fastjson2"),
        ("fastjson2 typed `User`, reused `Deserializer`", "fastjson2_user/decode", "fastjson2-reused"),
        ("owned floor: a clone of the `User`", "fastjson2_user/decode", "owned-floor"),
    ],
}
# Peers of the fastjson2 bench (the others are Hessian peers): Java fastjson2 2.0.52 (Dubbo
# 3.2.19; named before 2.0.56 was measured) and 2.0.56 (Dubbo 3.3).
FASTJSON2_PEERS = ("java-fastjson2", "java-fastjson2-2.0.56")
# Rows compared like-for-like only with some peers: a reused decoder with Java's reused
# Hessian2Input (Go's peer makes a new decoder per message, as `from_slice` does). The goals
# table lists such a row only against those peers.
LIKE_FOR_LIKE = {
    "hessian2-reused": ("java-hessian-lite3", "java-hessian-lite4"),
    "hessian2-borrowed-reused": ("java-hessian-lite3", "java-hessian-lite4"),
    "hessian2-value-reused": ("java-hessian-lite3", "java-hessian-lite4"),
}
# Functions that are references, not implementations: shown last in their group with what they
# stand for, never compared as peers (no chart bar).
REFERENCES = {
    "owned-floor": "reference, not a decoder: a clone of the expected value, the allocations "
                   "and copies any decode into an owned value makes",
    "borrowed-floor": "reference, not a decoder: a clone of the expected borrowed value, the "
                      "allocations and copies any borrowed decode makes",
    "value-floor": "reference, not a decoder: a clone of the expected `Value`, the allocations "
                   "and copies any decode into a `Value` makes",
}
PEER_NAMES = {
    "go-hessian2": "dubbo-go-hessian2",
    "java-hessian-lite3": "Java hessian-lite 3.2.13",
    "java-hessian-lite4": "Java hessian-lite 4.0.4",
    "java-fastjson2": "Java fastjson2 2.0.52 (JSONB)",
    "java-fastjson2-2.0.56": "Java fastjson2 2.0.56 (JSONB)",
}
# Issue 3's goals: (peer, factor).
GOALS = [("go-hessian2", 10.0), ("java-hessian-lite3", 5.0)]


def read_meta(run):
    meta = {}
    path = os.path.join(run, "meta.txt")
    if os.path.exists(path):
        for line in open(path):
            if "\t" in line:
                k, v = line.rstrip("\n").split("\t", 1)
                meta.setdefault(k, v)
                if k == "failed":
                    meta.setdefault("failed_list", []).append(v)
    return meta


def read_criterion(run):
    """{(group, function, param): {"mean", "median", "min", "sd"}} in ns."""
    out = {}
    for bj in glob.glob(os.path.join(run, "criterion", "**", "new", "benchmark.json"), recursive=True):
        d = os.path.dirname(bj)
        try:
            b = json.load(open(bj))
            e = json.load(open(os.path.join(d, "estimates.json")))
        except (OSError, ValueError):
            continue
        row = {
            "mean": e["mean"]["point_estimate"],
            "median": e["median"]["point_estimate"],
            "sd": e["std_dev"]["point_estimate"],
        }
        try:
            s = json.load(open(os.path.join(d, "sample.json")))
            row["min"] = min(t / i for t, i in zip(s["times"], s["iters"]) if i)
        except (OSError, ValueError, KeyError):
            row["min"] = None
        group = b.get("group_id") or ""
        function = b.get("function_id") or ""
        param = b.get("value_str") or ""
        if not function:
            # `BenchmarkId::from_parameter`: the parameter names the implementation.
            function, param = param, ""
        out[(group, function, param)] = row
    return out


def read_allocs(run):
    out = {}
    for path in sorted(glob.glob(os.path.join(run, "allocs*.tsv"))):
        for line in open(path):
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 3:
                bytes_ = parts[3] if len(parts) > 3 and parts[3] != "-" else None
                out[(parts[0], parts[1])] = (int(parts[2]), bytes_)
    return out


def read_peers(run):
    rows, header = [], []
    path = os.path.join(run, "peers.tsv")
    if not os.path.exists(path):
        return rows, header
    for line in open(path):
        line = line.rstrip("\n")
        if not line:
            continue
        if line.startswith("#"):
            header.append(line[1:].strip())
            continue
        p = line.split("\t")
        if len(p) < 9 or p[0] == "peer":
            continue
        num = lambda x: float(x) if x not in ("", "-", "NA", "nan") else None
        rows.append({
            "peer": p[0], "dataset": p[1], "op": p[2], "mean": num(p[3]),
            "allocs": p[4], "bytes": p[5], "sd": num(p[6]), "samples": p[7], "min": num(p[8]),
        })
    return rows, header


def lock_versions(root):
    versions = {}
    path = os.path.join(root, "Cargo.lock")
    if not os.path.exists(path):
        return versions
    text = open(path).read()
    for m in re.finditer(r'\[\[package\]\]\nname = "([^"]+)"\nversion = "([^"]+)"', text):
        versions.setdefault(m.group(1), m.group(2))
    return versions


def ns(v):
    if v is None:
        return "—"
    if v >= 1e6:
        return f"{v / 1e6:.2f} ms"
    if v >= 1e4:
        return f"{v / 1e3:.1f} µs"
    if v >= 1e3:
        return f"{v / 1e3:.2f} µs"
    return f"{v:.0f} ns"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def fx(r):
    return "—" if r is None else (f"{r:.1f}x" if r < 100 else f"{r:.0f}x")


def group_sort_key(key):
    return key


# Sections of RESULTS.md written by other tools' runs (not by `benches/run`): carried over
# verbatim when RESULTS.md is rewritten, so a regeneration does not drop them.
KEPT_SECTIONS = ("## Triple across processes",)


def kept_sections(path):
    """The KEPT_SECTIONS of the RESULTS.md at `path` (each up to the next `## ` heading)."""
    if not os.path.exists(path):
        return []
    kept, keeping = [], False
    for line in open(path).read().rstrip("\n").split("\n"):
        if line.startswith("## "):
            keeping = line.startswith(KEPT_SECTIONS)
        if keeping:
            kept.append(line)
    return kept + [""] if kept else []


def main():
    run, benches = sys.argv[1], sys.argv[2]
    root = os.path.dirname(os.path.abspath(benches))
    meta = read_meta(run)
    crit = read_criterion(run)
    allocs = read_allocs(run)
    peers, peer_header = read_peers(run)
    versions = lock_versions(root)

    # ---- per group tables
    groups = {}
    for (g, f, p), row in crit.items():
        groups.setdefault((g, p), {})[f] = row

    def ours_of(funcs):
        for o in OURS:
            if o in funcs:
                return o
        return None

    comparisons = []  # (label, ratio by mean, ratio by min, kind)
    lines = []
    w = lines.append
    w("# Benchmark results")
    w("")
    w(f"Written by `benches/run` ({meta.get('mode', '?')} mode) on {meta.get('date', '?')}, "
      f"commit {meta.get('commit', '?')}. Re-run with `benches/run` (or `benches/run --quick`); "
      "raw data in `$CARGO_TARGET_DIR/bench-run/`.")
    w("")
    w("## Machine and versions")
    w("")
    loads = [(k, v) for k, v in meta.items() if k.startswith("load_")]
    w(f"* Machine: {meta.get('cpu', '?')}, {meta.get('cores', '?')} cores, {meta.get('memory', '?')}, "
      f"{meta.get('kernel', '?')}. The machine is shared: **load average** (1/5/15 min) "
      + "; ".join(f"{k[5:].replace('_', ' ')}: {v}" for k, v in loads) + ".")
    w(f"* Rust: {meta.get('rustc', '?')}; criterion {versions.get('criterion', '?')} "
      f"({meta.get('criterion_args', '')}); hessian2 {versions.get('hessian2', '?')}, "
      f"serde {versions.get('serde', '?')}, serde_json {versions.get('serde_json', '?')}, "
      f"rmp-serde {versions.get('rmp-serde', '?')}, bytes {versions.get('bytes', '?')}.")
    for h in peer_header:
        if h.startswith(("go:", "java:", "java-hessian", "java-fastjson2", "benches/peers/run", "machine:")):
            w(f"* Peers — {h}")
    if meta.get("failed_list"):
        w(f"* **Failed benches** (no numbers): {', '.join(meta['failed_list'])}.")
    w("")
    w("ns/op is criterion's mean (peers: the mean of their samples); *min* is the fastest sample "
      "(criterion: the fastest of its ~100 samples, each the mean of many iterations), the better "
      "estimate of the undisturbed cost on a loaded machine. Ratios are *peer ns / hessian2 ns*: "
      "above 1 means hessian2 is faster.")
    w("")

    # ---- cross-language
    peer_by = {}
    for r in peers:
        peer_by.setdefault((r["dataset"], r["op"]), {})[r["peer"]] = r
    goal_rows = []
    hessian_peers = [r for r in peers if r["peer"] not in FASTJSON2_PEERS]
    if hessian_peers or any((g, f, "") in crit for v in CROSS.values() for _, g, f in v):
        w("## Cross-language: the same Mix and User in dubbo-go-hessian2 and Java hessian-lite")
        w("")
        w("The peers (`benches/peers/run`) encode and decode the seed article's `Mix` with "
          "`D = {\"A\": 97, \"floats\": CD, \"m\": <the Mix itself>}` (a cycle: Java writes `m` "
          "as a back-reference, 125 bytes). A Rust struct cannot contain itself, so two Rust "
          "rows stand for it: the typed `Mix` whose `D.m` is a second, nested Mix (169 bytes: "
          "strictly more to encode and decode than the peers' back-reference) and the dynamic "
          "`Value` of Java's exact bytes (the cycle kept as a reference).")
        w("")
        w("How each side decodes: Java's peer reuses one `Hessian2Input` per thread (`init` per "
          "message, as Dubbo does), so the *reused `Deserializer`* rows (`reset` per message) "
          "are the like-for-like comparison with Java; Go's peer makes a new decoder per message, "
          "as the `from_slice` rows do (a new `Deserializer` per message, its tables from a "
          "per-thread pool).")
        w("")
        peer_list = [p for p in PEER_NAMES
                     if p not in FASTJSON2_PEERS and any(p in v for v in peer_by.values())]

        def goals(dataset, op, label, f, p, rm, rn):
            for gp, factor in GOALS:
                if gp == p and dataset == "mix" and p in LIKE_FOR_LIKE.get(f, (p,)):
                    what = f"Mix {op}" + (" (both reuse their decoder)" if f in LIKE_FOR_LIKE else "")
                    goal_rows.append((what, label, p, factor, rm, rn))

        cross_rows(w, crit, allocs, peer_by, comparisons, CROSS, peer_list, "hessian2", goals)
        w("")
        floors = [(g, f, crit.get((g, f, "")), allocs.get((g, f), (None, None))[0])
                  for g, f in (("mix/decode", "owned-floor"), ("user/decode", "owned-floor"),
                               ("mix/decode", "borrowed-floor"),
                               ("user/decode", "borrowed-floor"),
                               ("mix_self_ref/decode", "value-floor"))]
        floors = [(g, f, row, a) for g, f, row, a in floors if row is not None]
        if floors:
            w("The floors under the decode rows (references, not implementations: each clones "
              "the expected value, making the allocations and copies any decoder that returns it "
              "must make; `owned-floor` under the typed rows, `borrowed-floor` under "
              "`hessian2-borrowed-reused`, `value-floor` under `hessian2-value`): "
              + "; ".join(f"{g} `{f}` {ns(row['mean'])} (min {ns(row['min'])}), "
                          f"{'—' if a is None else a} allocations" for g, f, row, a in floors)
              + ".")
            w("")
        if peers:
            w("Peer allocations per op (Go: `testing` allocs/op; Java: counted by the allocation "
              "instrumenter, an upper bound):")
            w("")
            w("| peer | dataset/op | allocs/op | B/op |")
            w("| --- | --- | ---: | ---: |")
            for r in peers:
                w(f"| {PEER_NAMES.get(r['peer'], r['peer'])} | {r['dataset']}/{r['op']} | {r['allocs']} | {r['bytes']} |")
            w("")

    # ---- fastjson2 against Java fastjson2
    cross_table(w, crit, allocs, peer_by, comparisons, CROSS_FASTJSON2, FASTJSON2_PEERS, "fastjson2",
                "## Cross-language: fastjson2 (JSONB) against Java fastjson2",
                "The Java peer (`benches/peers/java`, `Fastjson2Bench`, JMH) encodes and decodes the "
                "same `User` and the self-referencing `Mix` with fastjson2's JSONB and Dubbo's "
                "writer and reader features (serialization id 23), in 2.0.52 (Dubbo 3.2) and, from its "
                "own jar, 2.0.56 (Dubbo 3.3); each setup checks the library's version and its bytes "
                "against that version's vectors (`fastjson2/tests/vectors`, `vectors-2.0.56`). Java's "
                "`Mix` refers to itself (`$ref`): the typed Rust rows "
                "encode a nested Mix instead (more work), the `Value` rows Java's exact bytes.")

    # ---- goals
    json_goal = []
    for op in ("encode", "decode"):
        row = crit.get((f"mix/{op}", "hessian2", ""))
        js = crit.get((f"mix/{op}", "serde_json", ""))
        if row and js:
            json_goal.append((f"Mix {op}", ratio(js["mean"], row["mean"]), ratio(js["min"], row["min"])))
    if goal_rows or json_goal:
        w("## Goals of issue 3")
        w("")
        w("| goal | hessian2 row | needed | ratio by mean | ratio by min | met |")
        w("| --- | --- | ---: | ---: | ---: | --- |")
        for what, label, p, factor, rm, rn in goal_rows:
            met = "yes" if (rm or 0) >= factor and (rn or 0) >= factor else (
                "by one measure" if max(rm or 0, rn or 0) >= factor else "no")
            w(f"| {what} vs {PEER_NAMES[p]} | {label} | {factor:.0f}x | {fx(rm)} | {fx(rn)} | {met} |")
        for what, rm, rn in json_goal:
            met = "yes" if (rm or 0) > 1 and (rn or 0) > 1 else ("by one measure" if max(rm or 0, rn or 0) > 1 else "no")
            w(f"| {what} faster than serde_json (same struct) | typed `Mix` | >1x | {fx(rm)} | {fx(rn)} | {met} |")
        b = crit.get(("binary_1m/decode", "hessian2-from_bytes", ""))
        c = crit.get(("binary_1m/decode", "hessian2", ""))
        if b:
            w(f"| 1 MiB binary from `Bytes` | `hessian2::from_bytes` into `Bytes` | — | "
              f"{ns(b['mean'])} | {ns(b['min'])} | see below |")
        w("")
        w("The 1 MiB binary: Hessian chunks binaries (Java writes 4093-byte chunks; a chunk is at "
          "most 65535 bytes by the format), so a 1 MiB binary is never one contiguous run on the "
          "wire. `from_bytes` returns a zero-copy slice of the input `Bytes` for a one-chunk "
          "binary (`binary_4k`) and gathers a chunked one into a single new buffer with one copy "
          "(`binary_1m`); the bench log prints which of the two happened.")
        w("")

    # ---- summary: hessian2 against serde_json and rmp-serde
    summary = summary_table(crit, allocs)
    if summary:
        w("## hessian2 against serde_json and rmp-serde (same Rust values)")
        w("")
        lines.extend(summary)
        w("")

    # ---- all groups
    w("## Every group")
    w("")
    w("Groups are `dataset/op` (hessian2) or the bench's own names; the ratio column compares each "
      "function with the group's own implementation (`" + "`, `".join(OURS[:3]) + "`).")
    w("")
    w("| group | function | ns/op | min | ± sd | allocs/op | bytes | ratio to ours (mean / min) |")
    w("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for (g, p) in sorted(groups, key=group_sort_key):
        funcs = groups[(g, p)]
        ours = ours_of(funcs)
        base = funcs.get(ours) if ours else None
        order = sorted(funcs, key=lambda f: (f in REFERENCES, f != ours, not f.startswith(ours or "\0"), f))
        for f in order:
            row = funcs[f]
            # A parameterized function (`BenchmarkId::new(f, p)`) is recorded as `f/p`.
            a, size = allocs.get((g, f"{f}/{p}" if p else f), (None, None))
            name = f"{g}" + (f" ({p})" if p else "")
            # A peer's variant (`serde_json-borrowed`) is compared with ours of the same kind.
            base, base_name = funcs.get(ours) if ours else None, ours
            if ours and "-" in f and f"{ours}-{f.split('-', 1)[1]}" in funcs and f.split("-", 1)[0] != ours:
                base_name = f"{ours}-{f.split('-', 1)[1]}"
                base = funcs[base_name]
            r = "" if f == ours or base is None else f"{fx(ratio(row['mean'], base['mean']))} / {fx(ratio(row['min'], base['min']))}"
            label = f"{f} ({REFERENCES[f]})" if f in REFERENCES else f
            w(f"| {name} | {label} | {ns(row['mean'])} | {ns(row['min'])} | {ns(row['sd'])} | "
              f"{'—' if a is None else a} | {size or '—'} | {r} |")
            if f in REFERENCES:
                continue
            if base is not None and f != ours and ours == "hessian2" and not f.startswith("hessian2"):
                comparisons.append((f"{name}: {f} vs {base_name}", ratio(row["mean"], base["mean"]),
                                    ratio(row["min"], base["min"]), f.split("-borrowed")[0]))
            elif (base is not None and f != ours and ours != "hessian2" and f not in OURS
                  and not f.startswith(f"{ours}-")):
                comparisons.append((f"{name}: {f} vs {ours}", ratio(row["mean"], base["mean"]),
                                    ratio(row["min"], base["min"]), "other"))
    w("")
    w("![Ratios: peer time / our time, log scale](results.svg)")
    w("")

    # ---- allocation notes from the bench logs
    notes = []
    for log in sorted(glob.glob(os.path.join(run, "bench-*.log"))):
        name = os.path.basename(log)[6:-4]
        for line in open(log, errors="replace"):
            line = line.strip()
            if line.startswith(("Compiling ", "Finished ", "Running ")):
                continue  # cargo's own lines (a crate named *alloc*)
            if (("alloc" in line.lower() and not line.startswith("allocations ")) or
                    "zero-copy" in line or "slice of the input" in line or
                    re.match(r"payload_\w+: \d+ users", line)):
                notes.append(f"{name}: {line}")
    if notes:
        w("## Notes printed by the benches")
        w("")
        w("```")
        for n in notes[:80]:
            w(n)
        w("```")
        w("")
    # Bench files that are not criterion benches (no `time:` lines): their own report.
    for log in sorted(glob.glob(os.path.join(run, "bench-*.log"))):
        text = open(log, errors="replace").read()
        if "time:" in text or "Running" not in text:
            continue
        name = os.path.basename(log)[6:-4]
        body = text.split("Running", 1)[1].split("\n", 1)[1].rstrip()
        w(f"## `{name}` (its own report)")
        w("")
        w("```")
        w(body)
        w("```")
        w("")

    # benches/proxy-compare's tables, when its output was put in the run directory.
    pc = os.path.join(run, "proxy-compare.txt")
    if os.path.exists(pc):
        w("## proxy-compare: dubbo-proxy against HAProxy and direct calls (its own report)")
        w("")
        w("`benches/proxy-compare/run` (see its README): a Java Dubbo provider called directly and "
          "through each proxy in the same run; its peer is HAProxy in TCP mode.")
        w("")
        for line in open(pc).read().rstrip().split("\n"):
            # Its header lines ("# date, load") are text here, its tables' titles subsections.
            if line.startswith("# "):
                line = line[2:] + "  "
            elif line.startswith("## "):
                line = "#" + line
            w(line)
        w("")

    results = os.path.join(benches, "RESULTS.md")
    lines += kept_sections(results)
    open(results, "w").write("\n".join(lines) + "\n")
    update_readme(os.path.join(benches, "README.md"), lines, meta)
    write_svg(os.path.join(benches, "results.svg"), comparisons, meta)


def cross_table(w, crit, allocs, peer_by, comparisons, cross, peers, ours, title, intro):
    """A section: `title`, `intro`, then our rows (`cross`) against `peers`' rows."""
    peer_list = [p for p in peers if any(p in v for v in peer_by.values())]
    if not peer_list and not any((g, f, "") in crit for v in cross.values() for _, g, f in v):
        return
    w(title)
    w("")
    w(intro)
    w("")
    cross_rows(w, crit, allocs, peer_by, comparisons, cross, peer_list, ours)
    w("")


def cross_rows(w, crit, allocs, peer_by, comparisons, cross, peer_list, ours, on_ratio=None):
    """The table of our rows (`cross`: dataset/op -> [(label, group, function)]) against each
    peer of `peer_list`; `on_ratio(dataset, op, label, function, peer, ratio_mean, ratio_min)`
    sees every comparison."""
    head, sep = f"| dataset/op | {ours} | ns/op | min | allocs |", "| --- | --- | ---: | ---: | ---: |"
    for p in peer_list:
        head += f" {PEER_NAMES[p]} ns/op (min) | ratio mean (min) |"
        sep += " ---: | ---: |"
    w(head)
    w(sep)
    for (dataset, op), ours_rows in cross.items():
        for label, g, f in ours_rows:
            row = crit.get((g, f, ""))
            if row is None:
                continue
            a = allocs.get((g, f), (None, None))[0]
            line = f"| {dataset}/{op} | {label} | {ns(row['mean'])} | {ns(row['min'])} | {'—' if a is None else a} |"
            for p in peer_list:
                pr = peer_by.get((dataset, op), {}).get(p)
                if pr is None:
                    line += " — | — |"
                    continue
                rm, rn = ratio(pr["mean"], row["mean"]), ratio(pr["min"], row["min"])
                line += f" {ns(pr['mean'])} ({ns(pr['min'])}) | {fx(rm)} ({fx(rn)}) |"
                comparisons.append((f"{dataset}/{op}: {PEER_NAMES[p]} vs {label.split(' (')[0]}", rm, rn, p))
                if on_ratio:
                    on_ratio(dataset, op, label, f, p, rm, rn)
            w(line)


def summary_table(crit, allocs):
    """One row per hessian2 group: hessian2, serde_json and rmp-serde, mean (min)."""
    out = []
    # (Groups that time fastjson2 time hessian2 beside it, the fastjson2 bench's as a
    # reference, dubbo_call's as the other serialization: not hessian2 datasets.)
    groups = sorted({g for (g, f, p) in crit if f == "hessian2" and not p and not g.startswith("fastjson2_")
                     and (g, "fastjson2", "") not in crit})
    if not groups:
        return out
    out.append("| dataset/op | hessian2 ns/op (min) | allocs | serde_json (min) | ratio | rmp-serde (min) | ratio |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for g in groups:
        h = crit[(g, "hessian2", "")]
        a = allocs.get((g, "hessian2"), (None, None))[0]
        line = f"| {g} | {ns(h['mean'])} ({ns(h['min'])}) | {'—' if a is None else a} |"
        for peer in ("serde_json", "rmp-serde"):
            r = crit.get((g, peer, ""))
            if r is None:
                line += " — | — |"
            else:
                line += f" {ns(r['mean'])} ({ns(r['min'])}) | {fx(ratio(r['mean'], h['mean']))} |"
        out.append(line)
    return out


def update_readme(path, lines, meta):
    """Replaces the part of the README between the results markers with the cross-language
    table, the goals and the summary of RESULTS.md."""
    start, end = "<!-- results:start -->", "<!-- results:end -->"
    if not os.path.exists(path):
        return
    text = open(path).read()
    if start not in text or end not in text:
        return
    keep = []
    take = False
    for line in lines:
        if line.startswith("## "):
            take = line.startswith(("## Cross-language", "## Goals", "## hessian2 against"))
            if take:
                keep.append("#" + line)
                continue
        if take:
            keep.append(line)
    body = (f"{start}\n_From `benches/RESULTS.md`: {meta.get('mode', '?')} run of "
            f"{meta.get('date', '?')}, commit {meta.get('commit', '?')}, load average at the start "
            f"{meta.get('load_start', '?')} on {meta.get('cores', '?')} shared cores._\n\n"
            + "\n".join(keep).rstrip() + f"\n{end}")
    a, b = text.index(start), text.index(end) + len(end)
    open(path, "w").write(text[:a] + body + text[b:])


COLORS = {
    "go-hessian2": "#00add8",
    "java-hessian-lite3": "#e76f00",
    "java-hessian-lite4": "#b07219",
    "java-fastjson2": "#c0392b",
    "java-fastjson2-2.0.56": "#8e44ad",
    "serde_json": "#6a5acd",
    "rmp-serde": "#2e8b57",
    "other": "#888888",
}


def write_svg(path, comparisons, meta):
    rows = [c for c in comparisons if c[1] is not None]
    lo, hi = 0.1, 1000.0
    for _, rm, rn, _ in rows:
        for r in (rm, rn):
            if r:
                lo, hi = min(lo, r / 1.5), max(hi, r * 1.5)
    lo = 10 ** math.floor(math.log10(lo))
    hi = 10 ** math.ceil(math.log10(hi))
    label_w, bar_w, row_h, top = 470, 520, 18, 60
    width = label_w + bar_w + 90
    height = top + row_h * len(rows) + 62
    x_of = lambda r: label_w + bar_w * (math.log10(r) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="10" y="20" font-size="14" font-weight="bold">How many times faster the workspace\'s '
        f'crates are than each peer (peer ns / our ns, log scale)</text>',
        f'<text x="10" y="38" fill="#555">{html.escape(meta.get("date", ""))}, '
        f'{html.escape(meta.get("cpu", ""))}, load {html.escape(meta.get("load_start", "?"))}; '
        f'bar: ratio of means, tick: ratio of fastest samples; above 1x: ours is faster</text>',
    ]
    decade = lo
    while decade <= hi * 1.0001:
        x = x_of(decade)
        out.append(f'<line x1="{x:.1f}" y1="{top - 6}" x2="{x:.1f}" y2="{top + row_h * len(rows)}" '
                   f'stroke="{"#000" if abs(decade - 1) < 1e-9 else "#ddd"}"/>')
        out.append(f'<text x="{x:.1f}" y="{top - 9}" text-anchor="middle" fill="#555">{decade:g}x</text>')
        decade *= 10
    for k, (goal, color, who) in enumerate(((5, "#e76f00", "vs Java"), (10, "#00add8", "vs Go"))):
        if lo < goal < hi:
            x = x_of(goal)
            out.append(f'<line x1="{x:.1f}" y1="{top - 2}" x2="{x:.1f}" y2="{top + row_h * len(rows)}" '
                       f'stroke="{color}" stroke-dasharray="4,3"/>')
            out.append(f'<text x="{x + 3:.1f}" y="{top + row_h * len(rows) + 12 + 11 * k}" fill="{color}">'
                       f'Mix goal {goal}x {who}</text>')
    x1 = x_of(1)
    for i, (label, rm, rn, kind) in enumerate(rows):
        y = top + i * row_h
        color = COLORS.get(kind, COLORS["other"])
        out.append(f'<text x="{label_w - 6}" y="{y + 13}" text-anchor="end">{html.escape(label.replace("`", ""))}</text>')
        x = x_of(rm)
        out.append(f'<rect x="{min(x, x1):.1f}" y="{y + 3}" width="{abs(x - x1):.1f}" height="{row_h - 6}" '
                   f'fill="{color}" opacity="0.85"/>')
        if rn:
            xn = x_of(rn)
            out.append(f'<line x1="{xn:.1f}" y1="{y + 1}" x2="{xn:.1f}" y2="{y + row_h - 1}" stroke="#000" stroke-width="2"/>')
        out.append(f'<text x="{max(x, x1) + 4:.1f}" y="{y + 13}">{fx(rm)}</text>')
    y = top + row_h * len(rows) + 44
    x = 10
    for kind, color in COLORS.items():
        name = PEER_NAMES.get(kind, kind if kind != "other" else "other peers (url crate, naive, ...)")
        out.append(f'<rect x="{x}" y="{y - 9}" width="10" height="10" fill="{color}"/>')
        out.append(f'<text x="{x + 14}" y="{y}">{html.escape(name)}</text>')
        x += 14 + 7 * len(name) + 16
    out.append("</svg>")
    open(path, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
