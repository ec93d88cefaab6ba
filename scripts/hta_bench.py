#!/usr/bin/env python3
"""HTA's side of docs/bench-kineto.md: load one trace with HTA's
TraceAnalysis, then get_temporal_breakdown and get_idle_time_breakdown, as a
user of HTA would for the figures `rooftrace gaps` gives.

  python3 scripts/hta_bench.py TRACE.json      (run under /usr/bin/time -v)
"""
import logging
import os
import sys
import tempfile
import time

logging.disable(logging.CRITICAL)
from hta.trace_analysis import TraceAnalysis  # noqa: E402

path = os.path.abspath(sys.argv[1])
d = tempfile.mkdtemp()
os.symlink(path, os.path.join(d, os.path.basename(path)))
t0 = time.time()
t = TraceAnalysis(trace_dir=d)
t1 = time.time()
tb = t.get_temporal_breakdown(visualize=False)
# Every rank loaded (the default, rank 0, is absent from a rank-1 trace).
ib = t.get_idle_time_breakdown(ranks=sorted(t.t.traces), visualize=False)
t2 = time.time()
print(f"hta load {t1 - t0:.2f} s, breakdowns {t2 - t1:.2f} s", file=sys.stderr)
print(tb.to_string())
