#!/usr/bin/env python3
"""docs/bench-kineto.md: rooftrace and HTA side by side, alternating runs.

  python3 scripts/bench_kineto_pairs.py ROOFTRACE HTA_PYTHON RUNS TRACE...

For each trace: RUNS rounds of (rooftrace gaps TRACE --format json, then
scripts/hta_bench.py TRACE), each under /usr/bin/time; prints one line per
trace with the medians of wall time, CPU time (user + sys) and peak RSS of
each side, their ratios, the JSON size (decompressed) and the 1-minute load
average before and after the trace's runs. The machine is shared: read the
load average with every figure.
"""
import gzip
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(cmd):
    """(wall s, cpu s, peak RSS KiB) of one run."""
    out = subprocess.run(
        ["/usr/bin/time", "-f", "%e %U %S %M"] + cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=True,
    )
    wall, user, sys_, rss = out.stderr.strip().splitlines()[-1].split()
    return float(wall), float(user) + float(sys_), int(rss)


def json_bytes(path):
    with open(path, "rb") as f:
        head = f.read(2)
    if head == b"\x1f\x8b":
        n = 0
        with gzip.open(path, "rb") as g:
            while True:
                b = g.read(1 << 20)
                if not b:
                    return n
                n += len(b)
    return os.path.getsize(path)


def main():
    rooftrace, hta_python, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    for trace in sys.argv[4:]:
        size = json_bytes(trace)
        load0 = os.getloadavg()[0]
        ours, theirs = [], []
        for _ in range(runs):
            ours.append(timed([rooftrace, "gaps", trace, "--format", "json"]))
            theirs.append(
                timed([hta_python, os.path.join(ROOT, "scripts", "hta_bench.py"), trace])
            )
        load1 = os.getloadavg()[0]
        med = lambda xs, i: statistics.median(x[i] for x in xs)  # noqa: E731
        ow, oc, orss = med(ours, 0), med(ours, 1), med(ours, 2)
        hw, hc, hrss = med(theirs, 0), med(theirs, 1), med(theirs, 2)
        print(
            f"{os.path.basename(trace)}: {size} B JSON; "
            f"rooftrace wall {ow:.2f} s cpu {oc:.2f} s rss {orss / 1024:.1f} MiB "
            f"({orss * 1024 / size:.3f}x JSON); "
            f"HTA wall {hw:.2f} s cpu {hc:.2f} s rss {hrss / 1024:.0f} MiB; "
            f"wall ratio {hw / max(ow, 0.005):.1f}x, cpu ratio {hc / max(oc, 0.005):.1f}x; "
            f"runs {runs}; load {load0:.1f} -> {load1:.1f}; "
            f"rooftrace walls {[x[0] for x in ours]} HTA walls {[x[0] for x in theirs]}",
            flush=True,
        )


if __name__ == "__main__":
    main()
