#!/usr/bin/env python3
"""HTA's critical-path time on one trace and one step: the figure
`rooftrace path` is compared against (issue 46 item 5: at least 50x HTA).

Times HolisticTraceAnalysis's `critical_path_analysis` (graph construction
plus `nx.dag_longest_path`, as `TraceAnalysis.critical_path_analysis`
runs it) for one annotation instance, RUNS times, each run in a fresh
process state (a new `TraceAnalysis`, so nothing is cached):

- load + CP: `TraceAnalysis(trace_dir=...)` (parsing the trace) and then
  the critical path;
- CP alone: the critical path on the loaded trace (the same runs).

and prints the median and every run, in seconds, as JSON. HTA 0.5.0
(`pip install holistictraceanalysis==0.5.0 pandas==2.3.3`, MIT; pandas 3
makes HTA's critical path raise, docs/path-hta.md).

With `--rooftrace BIN`, also times `BIN path TRACE --format json` (the
whole command: read, graph, walk, what-if, JSON) RUNS times in the same
session, so that both figures come from one machine under one load, and
prints HTA's load + CP and CP alone over rooftrace's median.

  python3 scripts/bench_path_hta.py ../shared/corpus/kineto/kineto_hta_v100_2rank_rank1.json.gz
  python3 scripts/bench_path_hta.py TRACE --annotation ProfilerStep --instance 0 --runs 3 \
      --rooftrace target/release/rooftrace
"""
import argparse
import json
import logging
import os
import platform
import shutil
import statistics
import subprocess
import tempfile
import time


def one_run(trace_dir, annotation, instance):
    from hta.trace_analysis import TraceAnalysis

    t0 = time.perf_counter()
    ta = TraceAnalysis(trace_dir=trace_dir)
    t1 = time.perf_counter()
    rank = sorted(ta.t.traces.keys())[0]
    result = ta.critical_path_analysis(rank=rank, annotation=annotation, instance_id=instance)
    t2 = time.perf_counter()
    if result is None:
        raise SystemExit(f"HTA found no annotation {annotation!r} in the trace")
    graph, ok = result
    sym = ta.t.symbol_table.get_sym_id_map()
    df = ta.t.get_trace(rank)
    ann = df[df.name.isin([v for k, v in sym.items() if annotation in k])]
    return {
        "instance_name": ta.t.symbol_table.get_sym_table()[int(ann.iloc[instance]["name"])],
        "step_host_us": int(ann.iloc[instance]["dur"]),
        "load_s": t1 - t0,
        "cp_s": t2 - t1,
        "load_and_cp_s": t2 - t0,
        "rank": int(rank),
        "ok": bool(ok),
        "nodes": graph.number_of_nodes(),
        "edges": graph.number_of_edges(),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--annotation", default="ProfilerStep")
    ap.add_argument("--instance", type=int, default=0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rooftrace", help="a rooftrace binary to time `path` with, side by side")
    a = ap.parse_args()
    logging.disable(logging.CRITICAL)
    import hta
    import networkx
    import pandas

    d = tempfile.mkdtemp()
    try:
        shutil.copy(a.trace, os.path.join(d, os.path.basename(a.trace)))
        runs = [one_run(d, a.annotation, a.instance) for _ in range(a.runs)]
    finally:
        shutil.rmtree(d, ignore_errors=True)
    med = {k: round(statistics.median(r[k] for r in runs), 3) for k in ["load_s", "cp_s", "load_and_cp_s"]}
    side = {}
    if a.rooftrace:
        times = []
        for _ in range(a.runs):
            t0 = time.perf_counter()
            subprocess.run([a.rooftrace, "path", a.trace, "--format", "json"], check=True, stdout=subprocess.DEVNULL)
            times.append(time.perf_counter() - t0)
        r = statistics.median(times)
        side = {
            "rooftrace_path_s": round(r, 3),
            "rooftrace_runs_s": [round(x, 3) for x in times],
            "hta_load_and_cp_over_rooftrace": round(med["load_and_cp_s"] / r, 1),
            "hta_cp_over_rooftrace": round(med["cp_s"] / r, 1),
        }
    print(
        json.dumps(
            {
                "trace": os.path.basename(a.trace),
                "annotation": a.annotation,
                "instance": a.instance,
                "hta_version": getattr(hta, "__version__", "?"),
                "python": platform.python_version(),
                "pandas": pandas.__version__,
                "networkx": networkx.__version__,
                "median": med,
                **side,
                "runs": [{k: (round(v, 3) if isinstance(v, float) else v) for k, v in r.items()} for r in runs],
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
