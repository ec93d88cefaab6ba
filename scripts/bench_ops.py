#!/usr/bin/env python3
"""`rooftrace ops` beside `rooftrace gaps` on corpus traces (docs/ops.md, "Cost"):
wall and CPU time (user + system, from getrusage) of each command, runs interleaved.
Usage: bench_ops.py RUNS TRACE... (file names under the corpus kineto/ directory;
binaries: $ROOFTRACE_BRANCH (default /tmp/rooftrace-branch) for ops and gaps,
and $ROOFTRACE_MAIN's gaps beside them when set)."""
import subprocess, time, statistics, sys, resource
import os
C=os.environ.get('ROOFTRACE_CORPUS', os.path.join(os.path.dirname(__file__), '..', '..', 'shared', 'corpus')) + '/kineto/'
N=int(sys.argv[1]); traces=sys.argv[2:]
B=os.environ.get('ROOFTRACE_BRANCH', '/tmp/rooftrace-branch')
runs=[('ops (branch)',B,'ops'),('gaps (branch)',B,'gaps')]
if os.environ.get('ROOFTRACE_MAIN'):
    runs.append(('gaps (main)',os.environ['ROOFTRACE_MAIN'],'gaps'))
for t in traces:
    wall={l:[] for l,_,_ in runs}; cpu={l:[] for l,_,_ in runs}
    for i in range(N):
        for l,b,cmd in runs:
            r0=resource.getrusage(resource.RUSAGE_CHILDREN); s=time.perf_counter()
            subprocess.run([b,cmd,C+t],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL,check=True)
            wall[l].append(time.perf_counter()-s); r1=resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[l].append((r1.ru_utime-r0.ru_utime)+(r1.ru_stime-r0.ru_stime))
    for l in wall:
        print(f"| {t} | {l} | {statistics.median(wall[l])*1000:.1f} | {min(wall[l])*1000:.1f} | {statistics.median(cpu[l])*1000:.1f} | {min(cpu[l])*1000:.1f} |")
    o,g=runs[0][0],runs[1][0]
    print(f"ops/gaps: wall median {statistics.median(wall[o])/statistics.median(wall[g]):.2f}x, wall min {min(wall[o])/min(wall[g]):.2f}x, cpu median {statistics.median(cpu[o])/statistics.median(cpu[g]):.2f}x")
