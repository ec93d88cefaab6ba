#!/usr/bin/env python3
"""HTA's own critical path on the Kineto fixtures: the independent oracle
of tests/it/path_hta.rs (issue 46 item 4).

For each case below, loads the trace with HolisticTraceAnalysis 0.5.0
(`pip install holistictraceanalysis==0.5.0`, MIT) and runs
`critical_path_analysis(rank, annotation, instance_id)`, then records:

- the annotation and instance analysed, the instance's name
  (`ProfilerStep#N`) and its CPU window [start, end] in µs;
- the graph's node and edge counts, and the path's node count;
- `path_us`: the path's length, the sum of the graph's edge weights
  along `critical_path_nodes` (HTA sets a negative weight to 0 in the
  graph, not in the edge object: `_validate_graph`);
- `bound_by_us`: `get_critical_path_breakdown()`'s durations (the edge
  objects' weights) summed per `bound_by` class, HTA's empty class (its
  dependency and sync edges, always 0 µs) written as "none";
- `edge_type_us` and `edge_type_count`: the same per edge type;

or what HTA did instead: `"raises"` (the exception), `"no_annotation"`
(HTA returned None), `"failed"` (the graph had a cycle or a negative
edge). HTA's rules are written down in docs/path-hta.md.

The cases: the traces and arguments of HTA's own critical-path tests
(tests/test_critical_path_analysis.py @ f4d0062), every ProfilerStep
instance of each other fixtures/kineto trace, and one ProfilerStep of the
corpus's V100 and NCCL traces (../shared/corpus/kineto/, beside the clone).

  python3 scripts/hta_critical_path.py --write fixtures/kineto/hta_critical_path.json
  python3 scripts/hta_critical_path.py --check fixtures/kineto/hta_critical_path.json   # CI
"""
import argparse
import json
import logging
import os
import shutil
import sys
import tempfile

ALEX = "[param|pytorch.model.alex_net|0|0|0|measure|forward]"
# (trace, annotation, instance): HTA's own critical-path tests.
HTA_TESTS = [
    ("simple_add", ALEX, 1),
    ("alexnet", ALEX, 1),
    ("cuda_event_sync", "ProfilerStep", 0),
    ("cuda_event_sync_multi_stream", "", None),
]
# Every ProfilerStep instance of these (at most MAX_STEPS each).
FIXTURES = [
    "simple_add",
    "cuda_event_sync",
    "sampled_rank-0",
    "sampled_rank-1",
    "amd_mi250_rocm6.2",
    "cupti_profiler_counters",
]
MAX_STEPS = 4
# Large corpus traces (../shared/corpus/kineto/, beside the clone in CI):
# (file name without .json.gz, ProfilerStep instance), one step each.
CORPUS = [
    ("kineto_hta_v100_2rank_rank1", 0),
    ("kineto_hta_nccl_allreduce_rank0", 0),
]


def case_key(trace, annotation, instance):
    return f"{trace} | {annotation or '(whole trace)'} | {instance}"


def instance_window(t, rank, annotation, instance):
    """The annotation instance's name and CPU window, as HTA picks it."""
    df = t.get_trace(rank)
    if annotation == "":
        return None, [int(df.ts.min()), int((df.ts + df.dur).max())]
    sym = t.symbol_table.get_sym_id_map()
    ids = [v for k, v in sym.items() if annotation in k]
    ann = df[df.name.isin(ids)]
    row = ann.iloc[instance]
    name = t.symbol_table.get_sym_table()[int(row["name"])]
    return name, [int(row["ts"]), int(row["ts"] + row["dur"])]


def analyse(ta, rank, annotation, instance):
    from hta.analyzers.critical_path_analysis import CriticalPathAnalysis

    name, window = instance_window(ta.t, rank, annotation, instance)
    out = {"annotation": annotation, "instance": instance, "instance_name": name, "window_us": window}
    result = CriticalPathAnalysis.critical_path_analysis(ta.t, rank, annotation, instance)
    if result is None:
        out["no_annotation"] = True
        return out
    graph, ok = result
    out["graph_nodes"] = graph.number_of_nodes()
    out["graph_edges"] = graph.number_of_edges()
    if not ok:
        out["failed"] = True
        return out
    path = graph.critical_path_nodes
    out["path_nodes"] = len(path)
    out["path_us"] = int(sum(graph.edges[u, v]["weight"] for u, v in zip(path, path[1:])))
    df = graph.get_critical_path_breakdown()
    by = lambda col: {  # noqa: E731
        (k or "none"): int(v) for k, v in sorted(df.groupby(col).duration.sum().items())
    }
    out["bound_by_us"] = by("bound_by")
    out["edge_type_us"] = by("type")
    out["edge_type_count"] = {k: int(v) for k, v in sorted(df.groupby("type").size().items())}
    return out


def steps_of(ta, rank):
    sym = ta.t.symbol_table.get_sym_id_map()
    ids = [v for k, v in sym.items() if "ProfilerStep" in k]
    df = ta.t.get_trace(rank)
    return int(df.name.isin(ids).sum())


def run_trace(path, cases):
    """Each (annotation, instance) of `cases` on one trace; `cases` None:
    every ProfilerStep instance."""
    from hta.trace_analysis import TraceAnalysis

    d = tempfile.mkdtemp()
    try:
        shutil.copy(path, os.path.join(d, os.path.basename(path)))
        try:
            ta = TraceAnalysis(trace_dir=d)
            rank = sorted(ta.t.traces.keys())[0]
        except Exception as e:  # HTA cannot load it: recorded
            return {"*": {"raises": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300]}}
        if cases is None:
            n = steps_of(ta, rank)
            cases = [("ProfilerStep", i) for i in range(min(n, MAX_STEPS))]
            if not cases:
                return {"ProfilerStep": {"no_annotation": True}}
        out = {}
        for annotation, instance in cases:
            key = f"{annotation or '(whole trace)'} | {instance}"
            try:
                out[key] = dict(analyse(ta, rank, annotation, instance), rank=int(rank))
            except Exception as e:  # HTA raises on some real traces: recorded
                out[key] = {"raises": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300]}
        return out
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write")
    g.add_argument("--check")
    a = ap.parse_args()
    logging.disable(logging.CRITICAL)
    import hta

    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "kineto")
    figures = {"hta_version": getattr(hta, "__version__", "?"), "hta_tests": {}, "fixtures": {}}
    by_trace = {}
    for trace, annotation, instance in HTA_TESTS:
        by_trace.setdefault(trace, []).append((annotation, instance))
    for trace, cases in by_trace.items():
        figures["hta_tests"][trace] = run_trace(os.path.join(root, trace + ".json.gz"), cases)
    for trace in FIXTURES:
        figures["fixtures"][trace] = run_trace(os.path.join(root, trace + ".json.gz"), None)
    corpus = os.path.join(root, "..", "..", "..", "shared", "corpus", "kineto")
    figures["corpus"] = {
        trace: run_trace(os.path.join(corpus, trace + ".json.gz"), [("ProfilerStep", step)])
        for trace, step in CORPUS
    }
    text = json.dumps(figures, indent=1, sort_keys=True) + "\n"
    if a.write:
        with open(a.write, "w") as f:
            f.write(text)
        return 0
    with open(a.check) as f:
        committed = f.read()
    if committed != text:
        sys.stderr.write(
            f"{a.check} differs from what HTA {figures['hta_version']} says now; "
            "rerun with --write and review the diff\n"
        )
        return 1
    print(f"{a.check}: HTA {figures['hta_version']} agrees")
    return 0


if __name__ == "__main__":
    sys.exit(main())
