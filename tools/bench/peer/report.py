#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make bench-peer's report: pto-npu and simpler's CPU simulator side by side.

Reads the === PTO-PEER lines of the bench VM's console log (pto-npu and the
simulator, one boot) and of the simulator's native run on the host, writes
build/bench/peer.json and prints the table (reStructuredText, as in
Documentation/performance.rst, "Against simpler's CPU simulator").

usage: report.py --vm-log FILE --native-log FILE --out peer.json
"""
import argparse
import json
import sys

WORKLOADS = [
    ("fan", "fan of N, per task"),
    ("chain", "chain of N, per task"),
    ("skip", "N never dispatched, per task"),
    ("singles48", "48 one-block tasks, per 48"),
    ("spmd48", "one 48-block task, per task"),
]
CAVEATS = [
    "per-task cost is the slope between N = 200 and N = 2000 (the 48-block forms: between 5 and 40 "
    "forms), the median of the per-repetition slopes: every simulator run starts and joins all its "
    "AICPU and AICore threads, so a single run's time is mostly that, and its run-to-run noise is "
    "larger than a cheap task's cost times 1800",
    "the simulator's idle AICPU and AICore threads spin (sched_yield()) while pto-npu's sleep: on one "
    "vCPU every spinning thread takes turns with the ones doing work",
    "the simulator takes a fixed 8 clusters (SIM_AUTO_BLOCKDIM); reduced (2 clusters, 2 AICPU threads) "
    "and full (24 clusters, 4 AICPU threads) come from a build copy patched to read "
    "PTO_PEER_SIM_BLOCKDIM (tools/bench/peer/build.sh); pto-npu runs its default 24 clusters",
    "pto-npu's never-dispatched tasks are predicated tasks whose predicate is false (retired SKIPPED), "
    "the simulator's are dependency-only tasks (rt_submit_dummy_task)",
    "both in one boot of the bench VM (qemu TCG, 1 vCPU); native: the simulator on the host, pinned "
    "to one CPU; absolute times depend on the host, compare the ratios",
]


def parse(path):
    info, rows, crashes = {}, [], []
    try:
        lines = open(path, errors="replace").read().splitlines()
    except OSError:
        return info, rows, crashes
    for line in lines:
        for tag, sink in (("=== PTO-PEER-INFO ", None), ("=== PTO-PEER-CRASH ", crashes),
                          ("=== PTO-PEER ", rows)):
            i = line.find(tag)
            if i < 0:
                continue
            try:
                obj = json.loads(line[i + len(tag):])
            except ValueError:
                break
            if sink is None:
                info = obj
            else:
                sink.append(obj)
            break
    return info, rows, crashes


def find(rows, runtime, width, workload):
    for r in rows:
        if r["runtime"] == runtime and r["workload"] == workload and (
                runtime != "sim" or r["width"] == width):
            return r
    return None


def fmt(v, digits=3):
    if v is None:
        return "--"
    return f"{v:.{digits}g}"


def quartiles(v):
    v = sorted(v)
    if not v:
        return None, None

    def q(p):
        x = p * (len(v) - 1)
        lo = int(x)
        hi = min(lo + 1, len(v) - 1)
        return v[lo] + (v[hi] - v[lo]) * (x - lo)
    return q(0.25), q(0.75)


def resolved(r):
    """False when the slopes' interquartile range spans zero: the per-task
    cost is below what the two sizes resolve against the run's noise."""
    q1, q3 = quartiles(r.get("slopes_us", []))
    return q1 is None or not (q1 <= 0 <= q3)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vm-log", required=True)
    ap.add_argument("--native-log", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    vinfo, vrows, vcrash = parse(a.vm_log)
    ninfo, nrows, ncrash = parse(a.native_log)
    if not vrows:
        print(f"bench-peer: no figures in {a.vm_log}", file=sys.stderr)
        return 1

    cols = [("pto-npu", "pto-npu", None, vrows), ("pto replay", "pto-npu-replay", None, vrows),
            ("sim reduced", "sim", "reduced", vrows),
            ("sim full", "sim", "full", vrows), ("sim reduced native", "sim", "reduced", nrows),
            ("sim full native", "sim", "full", nrows)]
    table, ratios, iqr, unresolved = {}, {}, {}, set()
    for wl, _ in WORKLOADS:
        table[wl], iqr[wl] = {}, {}
        for name, rt, width, rows in cols:
            r = find(rows, rt, width, wl)
            table[wl][name] = r["per_task_us"] if r else None
            iqr[wl][name] = quartiles(r.get("slopes_us", [])) if r else (None, None)
            if r and not resolved(r):
                unresolved.add((wl, name))
        ratios[wl] = {}
        for form, key in (("pto-npu", ""), ("pto replay", "replay ")):
            p = table[wl][form]
            for w in ("reduced", "full"):
                sim = table[wl][f"sim {w}"]
                ratios[wl][key + w] = (p / sim if p is not None and sim not in (None, 0)
                                       and (wl, f"sim {w}") not in unresolved else None)
    spmd = {}
    for name, *_ in cols:
        s, m = table["singles48"][name], table["spmd48"][name]
        spmd[name] = (s / m if s is not None and m not in (None, 0) and ("singles48", name) not in unresolved
                      and ("spmd48", name) not in unresolved else None)

    doc = {
        "simpler_commit": vinfo.get("simpler_commit") or ninfo.get("simpler_commit"),
        "vm": vinfo, "native": ninfo,
        "per_task_us": table,
        "per_task_iqr_us": iqr,
        "unresolved": sorted(f"{w}/{n}" for w, n in unresolved),
        "pto_sections_us": {r["workload"]: {k: r.get(k) for k in ("push_us", "doorbell_us", "reap_us")}
                            for r in vrows if r["runtime"] == "pto-npu"},
        "ratio_pto_over_sim": ratios,
        "singles48_over_spmd48": spmd,
        "rows": {"vm": vrows, "native": nrows},
        "crashes": {"vm": vcrash, "native": ncrash},
        "caveats": CAVEATS,
    }
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)

    w = [34, 9, 10, 11, 9, 12, 12, 13, 13, 13, 11]
    hdr = ["us (slope)", "pto-npu", "pto replay", "sim reduced", "sim full", "pto/sim red",
           "pto/sim full", "replay/sim red", "replay/sim full", "native red", "native full"]
    rule = "  ".join("=" * n for n in w)
    out = [rule, "  ".join(h.ljust(n) for h, n in zip(hdr, w)).rstrip(), rule]
    for wl, title in WORKLOADS:
        t, r = table[wl], ratios[wl]

        def cell(name):
            return "~0" if (wl, name) in unresolved else fmt(t[name])
        cells = [title, cell("pto-npu"), cell("pto replay"), cell("sim reduced"),
                 cell("sim full"), fmt(r["reduced"]), fmt(r["full"]), fmt(r["replay reduced"]),
                 fmt(r["replay full"]), cell("sim reduced native"), cell("sim full native")]
        out.append("  ".join(c.ljust(n) for c, n in zip(cells, w)).rstrip())
    cells = ["48 singles / SPMD 48 (ratio)", fmt(spmd["pto-npu"]), fmt(spmd["pto replay"]),
             fmt(spmd["sim reduced"]), fmt(spmd["sim full"]), "", "", "", "",
             fmt(spmd["sim reduced native"]), fmt(spmd["sim full native"])]
    out.append("  ".join(c.ljust(n) for c, n in zip(cells, w)).rstrip())
    out.append(rule)
    print(f"bench-peer: pto-npu vs simpler's CPU simulator (a2a3sim, simpler {doc['simpler_commit']}),"
          f" VM {vinfo.get('kernel', '?')} on {vinfo.get('cpus', '?')} vCPU")
    print("\n".join(out))
    if unresolved:
        print("~0: the per-repetition slopes' interquartile range spans zero (below what N = 200 vs 2000"
              " resolves against the run-to-run noise); peer.json has the figures")
    sec = doc["pto_sections_us"]
    if sec:
        print("pto-npu per task at the large size, us: " + "; ".join(
            f"{w} push {fmt(v['push_us'])} doorbell {fmt(v['doorbell_us'])} reap {fmt(v['reap_us'])}"
            for w, v in sec.items() if v.get("push_us") is not None))
    for c in vcrash + ncrash:
        print(f"bench-peer: simulator crash (retried): {json.dumps(c)}")
    print("caveats:")
    for c in CAVEATS:
        print(f"  - {c}")
    print(f"bench-peer: {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
