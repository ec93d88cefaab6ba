"""A mechanical reading of docs/path.md (the `rooftrace path` contract),
written from the contract alone, for the scenes of `rooftrace::synth::path`
only (integer-µs Kineto traces: `cudaLaunchKernel`, `cudaDeviceSynchronize`,
`cudaStreamWaitEvent`, bf16 `aten::mm` shapes bounded on the a100-80gb row,
NCCL kernels matched across ranks by order). It checks the hand-derived
numbers of tests/it/path_synth.rs by a second method, and can stand in for
`rooftrace path` to check that those tests pass against a conforming
implementation and fail against a wrong one.

    cargo run --example gen_path -- /tmp/scenes
    python3 scripts/path_contract_check.py /tmp/scenes/host_bound_rank0.pt.trace.json \
        /tmp/scenes/straggler_rank0.pt.trace.json,/tmp/scenes/straggler_rank1.pt.trace.json
    python3 scripts/path_contract_check.py --json FILE... [other args ignored]   # rooftrace.path/1

Its readings where the contract allows more than one are those listed at
the top of tests/it/path_synth.rs. Not a general implementation: no
memcpy, graphs, nested calls, several threads or devices.
"""
import json, sys

FLOOR = 2000
def ns(us): return int(round(us * 1000))

def load(path):
    d = json.load(open(path))
    ev = d["traceEvents"]
    calls, ops, ann, mm = [], [], [], []
    for e in ev:
        c = e.get("cat")
        if c == "cuda_runtime":
            calls.append(dict(kind="call", name=e["name"], pid=e["pid"], tid=e["tid"],
                              start=ns(e["ts"]), end=ns(e["ts"] + e["dur"]),
                              corr=e["args"]["correlation"]))
        elif c in ("kernel", "gpu_memcpy"):
            a = e["args"]
            ops.append(dict(kind="op", copy=c == "gpu_memcpy", name=e["name"], stream=a["stream"], dev=a["device"],
                            start=ns(e["ts"]), end=ns(e["ts"] + e["dur"]), corr=a["correlation"]))
        elif c == "user_annotation" and e["name"].startswith("ProfilerStep#"):
            ann.append((e["name"], ns(e["ts"]), ns(e["ts"] + e["dur"])))
        elif c == "cpu_op" and "Input Dims" in e.get("args", {}):
            mm.append((ns(e["ts"]), ns(e["ts"] + e["dur"]), e["args"]["Input Dims"]))
    return calls, ops, ann, mm

def bound(op, launch, mm):
    for s, e, dims in mm:
        if s <= launch["start"] and launch["end"] <= e:
            (m, k), (_, n) = dims
            c = 2 * m * n * k / 293550.0
            mem = 2 * (m * k + k * n + m * n) / 1682.5
            return (round(max(c, mem)), "compute" if c > mem else "memory")
    return None

def build(calls, ops):
    by_corr = {c["corr"]: c for c in calls}
    waits = any("StreamWaitEvent" in c["name"] for c in calls)
    for o in ops:
        o["launch"] = by_corr.get(o["corr"])
    for c in calls:
        c["blocking"] = c["name"].startswith("cudaMemcpy") and "Async" not in c["name"]
        c["sync"] = "Synchronize" in c["name"] or c["blocking"]
        c["launches"] = any(o["corr"] == c["corr"] for o in ops)
    calls.sort(key=lambda c: c["start"])
    for i, c in enumerate(calls):
        c["prev"] = calls[i - 1] if i else None
    ops.sort(key=lambda o: o["start"])
    for o in ops:
        same = [p for p in ops if p["stream"] == o["stream"] and p["start"] < o["start"]]
        o["prev"] = same[-1] if same else None
    for o in ops:  # start edges: (kind, constraint, pred, pred_at)
        edges = []
        if o["prev"]: edges.append(("stream", o["prev"]["end"], o["prev"], "end"))
        if o["launch"]: edges.append(("launch", o["launch"]["start"], o["launch"], "start"))
        latest = max((e[1] for e in edges), default=None)
        if waits and latest is not None:
            cands = [p for p in ops if p["stream"] != o["stream"] and latest < p["end"] <= o["start"]]
            if o["start"] > latest + 1000 and cands:
                p = max(cands, key=lambda p: p["end"])
                edges.append(("cross", p["end"], p, "end"))
        o["edges"] = edges
    for c in calls:
        c["edges"] = [("host", c["prev"]["end"], c["prev"], "end")] if c["prev"] else []
        c["sync_edge"] = None
        if c["sync"]:
            cands = [o for o in ops if o["launch"] and (o["launch"]["start"] < c["start"]
                     if not c["blocking"] else o["launch"] is c) and c["start"] < o["end"] <= c["end"]]
            if cands:
                c["sync_edge"] = max(cands, key=lambda o: o["end"])
    for n in calls + ops:
        tie = {"sync": 0, "stream": 1, "cross": 2, "launch": 3, "host": 4}
        if n["edges"]:
            b = max(n["edges"], key=lambda e: (e[1], -tie[e[0]]))
            n["slack"], n["slack_kind"] = max(0, n["start"] - b[1]), b[0]
        else:
            n["slack"], n["slack_kind"] = 0, None
    return calls, ops

def kernel_part(o, bounds):
    if o["copy"]: return "copy"
    if o["name"].startswith("nccl"): return "collective"
    b = bounds.get(id(o))
    return "kernel_no_model" if b is None else ("kernel_memory" if b[1] == "memory" else "kernel_compute")

def walk(ops_step, g0, bounds, arrivals):
    last = max(ops_step, key=lambda o: (o["end"], -o["start"]))
    segs = []
    def seg(a, b, part):
        a = max(a, g0)
        if b > a: segs.append((a, b, part))
    node, at = last, "end"
    while True:
        if node["kind"] == "op":
            if at == "end":
                lastarr = arrivals.get(id(node))
                if lastarr is not None and lastarr > node["start"]:
                    seg(lastarr, node["end"], "collective"); seg(node["start"], lastarr, "waiting_for_rank")
                else:
                    seg(node["start"], node["end"], kernel_part(node, bounds))
            if node["start"] <= g0: break
            if not node["edges"]:
                seg(g0, node["start"], "before_first_event"); break
            tie = {"stream": 1, "cross": 2, "launch": 3}
            k, t, p, pat = max(node["edges"], key=lambda e: (e[1], -tie[e[0]]))
            seg(t, node["start"], {"stream": "gpu_gap", "cross": "dependency", "launch": "launch_overhead"}[k])
            node, at = p, pat
        else:
            if at == "end":
                se = node["sync_edge"]
                host_t = node["edges"][0][1] if node["edges"] else -1
                if se is not None and se["end"] >= host_t:
                    seg(se["end"], node["end"], "sync")
                    if se["end"] <= g0: break
                    node, at = se, "end"; continue
                seg(node["start"], node["end"], "host_call")
            if node["start"] <= g0 or not node["edges"]:
                seg(g0, node["start"], "before_first_event"); break
            k, t, p, pat = node["edges"][0]
            seg(t, node["start"], "host_work")
            node, at = p, pat
    return segs

ORDER = ["kernel_memory", "kernel_compute", "kernel_no_model", "collective", "copy", "graph",
         "launch_overhead", "gpu_gap", "dependency", "sync", "host_work", "host_call",
         "waiting_for_rank", "before_first_event"]

def replay(calls, ops, ops_step, g0, change, bounds, arrivals):
    memo_s, memo_e = {}, {}
    def dur(n):
        d = n["end"] - n["start"]
        if n["kind"] == "op":
            b = bounds.get(id(n))
            if b and (change == "all" or change == "kernels_at_roof" or change == "kernel:" + n["name"]):
                d = min(d, max(b[0], FLOOR))
            la = arrivals.get(id(n))
            if la is not None and change in ("straggler_on_time", "all"):
                d = n["end"] - max(la, n["start"])
        elif n["launches"] and change in ("launch_overhead_removed", "all"):
            d = min(d, 2000)
        return d
    def slack(n):
        k = n["slack_kind"]
        if k == "launch" and change in ("launch_overhead_removed", "all"): return 0
        if k == "host" and change in ("host_work_removed", "all"): return 0
        if k == "stream" and change in ("gpu_gaps_removed", "all"): return 0
        return n["slack"]
    def rs(n):
        if id(n) in memo_s: return memo_s[id(n)]
        if n["start"] < g0 or not n["edges"]:
            v = n["start"]
        else:
            v = max((re(p) if pat == "end" else rs(p)) for _, _, p, pat in n["edges"]) + slack(n)
        memo_s[id(n)] = v; return v
    def re(n):
        if id(n) in memo_e: return memo_e[id(n)]
        if n["start"] < g0:
            v = n["end"]
        elif n["kind"] == "call" and n["sync_edge"] is not None:
            op = n["sync_edge"]
            v = max(rs(n), re(op) + (n["end"] - op["end"]))
        else:
            v = rs(n) + dur(n)
        memo_e[id(n)] = v; return v
    return max(re(o) for o in ops_step) - min(rs(o) for o in ops_step)

def touched(calls, ops, ops_step, g0, change, bounds, arrivals):
    """Σ (old - new) over the step's nodes the change touches, and how many."""
    tot, moved = 0, 0
    for n in calls + ops:
        if n["start"] < g0 or n["start"] > max(o["end"] for o in ops_step): continue
        d0 = n["end"] - n["start"]; dn = d0
        if n["kind"] == "op":
            b = bounds.get(id(n)); la = arrivals.get(id(n))
            if b and (change in ("all", "kernels_at_roof") or change == "kernel:" + n["name"]):
                dn = min(d0, max(b[0], FLOOR))
            if la is not None and change in ("straggler_on_time", "all"):
                dn = n["end"] - max(la, n["start"])
        elif n["launches"] and change in ("launch_overhead_removed", "all"):
            dn = min(d0, 2000)
        k = n["slack_kind"]; sl = n["slack"]
        if (k == "launch" and change in ("launch_overhead_removed", "all")) or \
           (k == "host" and change in ("host_work_removed", "all")) or \
           (k == "stream" and change in ("gpu_gaps_removed", "all")):
            sl = 0
        diff = (d0 - dn) + (n["slack"] - sl)
        if diff > 0: tot += diff; moved += 1
    return tot, moved

def analyse(files):
    ranks = [load(f) for f in files]
    built = []
    for calls, ops, ann, mm in ranks:
        calls, ops = build(calls, ops)
        bounds = {}
        for o in ops:
            if o["launch"]:
                b = bound(o, o["launch"], mm)
                if b: bounds[id(o)] = b
        built.append((calls, ops, ann, bounds))
    arrivals = {}
    if len(built) > 1:
        colls = [[o for o in ops if o["name"].startswith("nccl")] for _, ops, _, _ in built]
        for group in zip(*colls):
            last = max(o["start"] for o in group)
            for o in group: arrivals[id(o)] = last
    for r, (calls, ops, ann, bounds) in enumerate(built):
        for name, a0, a1 in sorted(ann, key=lambda a: a[1]):
            ops_step = [o for o in ops if o["launch"] and a0 <= o["launch"]["start"] <= a1]
            g0 = min(o["start"] for o in ops_step); g1 = max(o["end"] for o in ops_step)
            step = g1 - g0
            segs = walk(ops_step, g0, bounds, arrivals)
            parts = {}
            for a, b, p in segs: parts[p] = parts.get(p, 0) + b - a
            plist = [(p, parts[p]) for p in ORDER if parts.get(p)]
            changes = ["kernels_at_roof", "launch_overhead_removed", "host_work_removed",
                       "gpu_gaps_removed", "straggler_on_time", "all"]
            changes += sorted({"kernel:" + o["name"] for o in ops_step if id(o) in bounds})
            wi = {c: step - replay(calls, ops, ops_step, g0, c, bounds, arrivals) for c in changes}
            rows = []
            for c in changes:
                sf, mv = touched(calls, ops, ops_step, g0, c, bounds, arrivals)
                if mv == 0: continue
                sv = max(0, wi[c])
                rows.append(dict(change=c, saved_ns=sv, new_step_ns=step - wi[c], shortfall_ns=sf, moved=mv))
            rows.sort(key=lambda w: (-w["saved_ns"], w["change"]))
            pid = calls[0]["pid"]
            STEPS_OUT.append(dict(name=name, pid=pid, device=0, start_ns=g0, step_ns=step, path_ns=sum(parts.values()),
                                  parts=[dict(name=p, ns=v) for p, v in plist], what_if=rows))
            if not JSON:
                print(f"rank {r} {name} start {g0} step {step} sum {sum(parts.values())} parts {plist}")
                print("   saved", {c: v for c, v in wi.items()})

STEPS_OUT = []
JSON = sys.argv[1] == "--json"
if JSON:
    analyse([a for a in sys.argv[2:] if a.endswith(".json")])
    diags = []
    best = None
    for st in STEPS_OUT:
        singles = [w for w in st["what_if"] if w["change"] != "all" and not w["change"].startswith("kernel:")]
        al = [w for w in st["what_if"] if w["change"] == "all"]
        if al and sum(w["saved_ns"] for w in singles) > al[0]["saved_ns"]:
            diags.append("the single changes saved more summed than all of them together")
    med = STEPS_OUT[1]
    sing = [w for w in med["what_if"] if w["change"] != "all"]
    if sing:
        b = sing[0]; best = dict(change=b["change"], saved_ns=b["saved_ns"], why="")
    print(json.dumps(dict(schema="rooftrace.path/1", steps=STEPS_OUT, best=best, diagnostics=sorted(set(diags)))))
else:
    for f in sys.argv[1:]:
        print("==", f)
        analyse(f.split(","))
