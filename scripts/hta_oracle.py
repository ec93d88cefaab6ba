#!/usr/bin/env python3
"""HTA's own figures on the Kineto fixtures: the independent oracle of
tests/it/kineto_hta.rs.

For each trace of fixtures/kineto/, loads it with HolisticTraceAnalysis
(`pip install holistictraceanalysis`, MIT) and records
`get_temporal_breakdown` (idle and kernel time, µs) and
`get_idle_time_breakdown` (per stream: host_wait / kernel_wait / other, µs,
consecutive_kernel_delay 30 as HTA's default), `get_comm_comp_overlap` (on
traces with NCCL kernels), or the exception HTA raises.

  python3 scripts/hta_oracle.py --write fixtures/kineto/hta_oracle.json
  python3 scripts/hta_oracle.py --check fixtures/kineto/hta_oracle.json   # CI

And for each pair of TRACE_DIFFS, HTA's `TraceDiff` (`compare_traces` and
`ops_diff`, every iteration of each trace, GPU ops, restricted to the names
of kernel events): the kernels added, deleted, run more (increased) or fewer
(decreased) times, with both sides' counts and total durations (µs) for
each of those, and how many kernel names are unchanged in count: the oracle
of tests/it/diff_kernels.rs.

--check recomputes and fails when the committed figures differ: the Rust
tests read the committed file, CI proves it is what HTA says.
"""
import argparse
import json
import logging
import os
import shutil
import sys
import tempfile

TRACES = [
    "simple_add",
    "cuda_event_sync",
    "sampled_rank-0",
    "sampled_rank-1",
    "amd_mi250_rocm6.2",
    "cupti_profiler_counters",
]
DELAY = 30
# (control, test) pairs of fixtures/kineto/ compared with HTA's TraceDiff.
TRACE_DIFFS = [("sampled_rank-0", "sampled_rank-1")]


def one(path):
    from hta.trace_analysis import TraceAnalysis

    d = tempfile.mkdtemp()
    try:
        shutil.copy(path, os.path.join(d, os.path.basename(path)))
        try:
            t = TraceAnalysis(trace_dir=d)
            rank = sorted(t.t.traces.keys())[0]
            tb = t.get_temporal_breakdown(visualize=False)
            row = tb[tb["rank"] == rank].iloc[0]
            out = {
                "rank": int(rank),
                "temporal": {
                    "idle_time_us": int(row["idle_time(us)"]),
                    "kernel_time_us": int(row["kernel_time(us)"]),
                },
            }
            ib = t.get_idle_time_breakdown(
                ranks=[rank], consecutive_kernel_delay=DELAY, visualize=False
            )
            ib = ib[0] if isinstance(ib, tuple) else ib
            streams = {}
            for _, r in ib.iterrows():
                s = streams.setdefault(str(int(r["stream"])), {})
                s[str(r["idle_category"])] = int(round(float(r["idle_time"])))
            out["idle_per_stream_us"] = dict(sorted(streams.items(), key=lambda kv: int(kv[0])))
            # get_comm_comp_overlap: per rank, the share of communication
            # kernel time with a computation kernel running (percent, 2
            # decimals); only where the trace has communication kernels.
            if any(str(n).startswith("nccl") for n in t.t.symbol_table.get_sym_table()):
                ov = t.get_comm_comp_overlap(visualize=False)
                out["comm_comp_overlap_pctg"] = float(ov[ov["rank"] == rank]["comp_comm_overlap_pctg"].iloc[0])
            return out
        except Exception as e:  # HTA raises on some real traces: recorded
            return {"raises": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300]}
    finally:
        shutil.rmtree(d, ignore_errors=True)


def trace_diff(control_path, test_path):
    """HTA's TraceDiff of two traces, kernels only (see the module doc)."""
    from hta.trace_diff import DeviceType, LabeledTrace, TraceDiff

    dirs = []
    try:
        def labeled(path, label):
            d = tempfile.mkdtemp()
            dirs.append(d)
            shutil.copy(path, os.path.join(d, os.path.basename(path)))
            return LabeledTrace(label=label, trace_dir=d)

        control, test = labeled(control_path, "control"), labeled(test_path, "test")
        args = dict(
            control_iteration=control.iterations(),
            test_iteration=test.iterations(),
            device_type=DeviceType.GPU,
        )
        comp = TraceDiff.compare_traces(control, test, **args)
        sets = TraceDiff.ops_diff(control, test, **args)

        def kernel_names(lt):
            df = lt.t.get_trace(lt.ranks()[0])
            gpu = df[df["stream"].ne(-1)]
            return {lt.s_tab[n] for n, c in zip(gpu["name"], gpu["cat"]) if lt.s_tab[c] == "kernel"}

        kernels = kernel_names(control) | kernel_names(test)
        out = {"kernel_names": len(kernels)}
        for what in ["added", "deleted", "increased", "decreased"]:
            rows = {}
            for name in sorted(n for n in sets[what] if n in kernels):
                r = comp.loc[name]
                rows[name] = {
                    "control_counts": int(r["control_counts"]),
                    "test_counts": int(r["test_counts"]),
                    "control_total_duration_us": round(float(r["control_total_duration"]), 3),
                    "test_total_duration_us": round(float(r["test_total_duration"]), 3),
                }
            out[what] = rows
        out["unchanged"] = len([n for n in sets["unchanged"] if n in kernels])
        return out
    finally:
        for d in dirs:
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
    figures = {"hta_version": getattr(hta, "__version__", "?"), "consecutive_kernel_delay_us": DELAY, "traces": {}}
    for name in TRACES:
        figures["traces"][name] = one(os.path.join(root, name + ".json.gz"))
    figures["trace_diff"] = {
        f"{c} -> {t}": trace_diff(os.path.join(root, c + ".json.gz"), os.path.join(root, t + ".json.gz"))
        for c, t in TRACE_DIFFS
    }
    text = json.dumps(figures, indent=1, sort_keys=True) + "\n"
    if a.write:
        open(a.write, "w").write(text)
        return 0
    old = json.load(open(a.check))
    if old["traces"] != figures["traces"] or old.get("trace_diff") != figures["trace_diff"]:
        sys.stderr.write("HTA's figures differ from " + a.check + ":\n" + text)
        return 1
    print("HTA figures match", a.check)
    return 0


if __name__ == "__main__":
    sys.exit(main())
