#!/usr/bin/env python3
"""`rooftrace ops` of this branch beside its base and beside `gaps` (docs/ops.md,
"Cost of the views"): wall and CPU time (user + system, from getrusage) of each
command, runs interleaved. Usage:
  bench_ops_view.py RUNS BRANCH_BINARY BASE_BINARY TRACE...
(TRACE: file names under the corpus kineto/ directory, $ROOFTRACE_CORPUS)."""
import os, resource, statistics, subprocess, sys, tempfile, time

corpus = os.environ.get('ROOFTRACE_CORPUS',
                        os.path.join(os.path.dirname(__file__), '..', '..', 'shared', 'corpus')) + '/kineto/'
n, branch, base, traces = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
svg = os.path.join(tempfile.mkdtemp(), 'ops.svg')
runs = [
    ('ops (branch)', [branch, 'ops']),
    ('ops (base)', [base, 'ops']),
    ('ops --group-by kernel (branch)', [branch, 'ops', '--group-by', 'kernel']),
    ('ops --plot ops.svg (branch)', [branch, 'ops', '--plot', svg]),
    ('gaps (branch)', [branch, 'gaps']),
]
for t in traces:
    wall = {label: [] for label, _ in runs}
    cpu = {label: [] for label, _ in runs}
    for _ in range(n):
        for label, cmd in runs:
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(cmd[:2] + [corpus + t] + cmd[2:], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=True)
            wall[label].append(time.perf_counter() - start)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[label].append((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime))
    for label in wall:
        print(f"| {t} | {label} | {statistics.median(wall[label])*1000:.1f} | {min(wall[label])*1000:.1f} "
              f"| {statistics.median(cpu[label])*1000:.1f} | {min(cpu[label])*1000:.1f} |")
    ratio = lambda a, b: statistics.median(cpu[a]) / statistics.median(cpu[b])
    print(f"CPU median: ops branch/base {ratio('ops (branch)', 'ops (base)'):.2f}x, "
          f"ops/gaps {ratio('ops (branch)', 'gaps (branch)'):.2f}x")
