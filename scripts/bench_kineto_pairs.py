#!/usr/bin/env python3
"""docs/bench-kineto.md: rooftrace and HTA side by side, alternating runs.

  python3 scripts/bench_kineto_pairs.py ROOFTRACE HTA_PYTHON RUNS TRACE...

For each trace: RUNS rounds of (rooftrace gaps TRACE --format json, then
scripts/hta_bench.py TRACE), each a child whose CPU time (user + sys, to
the microsecond) comes from os.wait4 (see `timed` for the peak RSS);
prints one line per trace with the medians of wall time, CPU time and
peak RSS of each side, their ratios, the JSON size (decompressed), each
run's CPU time and the 1-minute load average before and after the
trace's runs. The machine is shared: read the load average with every
figure.
"""
import gzip
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd):
    """(wall s, cpu s, ru_maxrss KiB) of one run of `cmd`, a child of this
    process: user + sys to the microsecond from os.wait4 (not /usr/bin/time's
    10 ms figures)."""
    # stderr to a file, not a pipe: a child that logs more than a pipe
    # holds would block while we wait for it.
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - t0
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            err.seek(0)
            raise subprocess.CalledProcessError(child.returncode, cmd, stderr=err.read())
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def peak_rss(cmd):
    """Peak RSS (KiB) of `cmd` under /usr/bin/time. Not from os.wait4: Linux
    keeps the peak of the memory a process had before its exec, and a child
    of this process starts as a copy of Python (about 14 MiB), more than a
    small rooftrace run; /usr/bin/time's child starts from a small program."""
    out = subprocess.run(
        ["/usr/bin/time", "-f", "%M"] + cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=True,
    )
    return int(out.stderr.strip().splitlines()[-1])


def timed(cmd, own_rss):
    """(wall s, cpu s, peak RSS KiB) of `cmd`: the CPU time of a direct
    child; the peak RSS from the same run when it is above Python's own
    (HTA's always is), else from a second run under /usr/bin/time."""
    wall, cpu, rss = run(cmd)
    if rss <= own_rss:
        rss = peak_rss(cmd)
    return wall, cpu, rss


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
            own_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            ours.append(timed([rooftrace, "gaps", trace, "--format", "json"], own_rss))
            theirs.append(
                timed(
                    [hta_python, os.path.join(ROOT, "scripts", "hta_bench.py"), trace],
                    own_rss,
                )
            )
        load1 = os.getloadavg()[0]
        med = lambda xs, i: statistics.median(x[i] for x in xs)  # noqa: E731
        ow, oc, orss = med(ours, 0), med(ours, 1), med(ours, 2)
        hw, hc, hrss = med(theirs, 0), med(theirs, 1), med(theirs, 2)
        print(
            f"{os.path.basename(trace)}: {size} B JSON; "
            f"rooftrace wall {ow:.3f} s cpu {oc:.3f} s rss {orss / 1024:.1f} MiB "
            f"({orss * 1024 / size:.3f}x JSON); "
            f"HTA wall {hw:.3f} s cpu {hc:.3f} s rss {hrss / 1024:.0f} MiB; "
            f"wall ratio {hw / max(ow, 1e-6):.1f}x, cpu ratio {hc / max(oc, 1e-6):.1f}x; "
            f"runs {runs}; load {load0:.1f} -> {load1:.1f}; "
            f"rooftrace cpus {[round(x[1], 4) for x in ours]} "
            f"HTA cpus {[round(x[1], 3) for x in theirs]}",
            flush=True,
        )


if __name__ == "__main__":
    main()
