#!/usr/bin/env python3
"""Side-by-side CPU time of ncu CSV parsers on one file (docs/bench-ncu.md).

Runs each command once per round, in the same order every round (so the
commands alternate), under `/usr/bin/time`, and prints per command the median
over the rounds of CPU time (user + sys), wall time and peak RSS, and the
ratio of CPU times to the pandas read-and-pivot. Prints the load average
before and after: on a shared machine compare the CPU-time ratios.

Each rooftrace command is the `ncu_parse_once` example of one build (one
`rooftrace::ncu::parse` of the file, then a checksum line, so every build can
be checked to have read the same figures). pandas is
`scripts/ncu_pandas_baseline.py`; its CPU time is the read + pivot alone
(`time.process_time` inside the script: interpreter start-up and
`import pandas` are left out, which favours pandas), its RSS the process's.

Usage:
  python3 scripts/ncu_bench_side_by_side.py FILE --rounds 3 \\
      --rooftrace p19=target/release/examples/ncu_parse_once \\
      --rooftrace main=/tmp/main/target/release/examples/ncu_parse_once
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def timed(cmd):
    """(user+sys s, wall s, peak RSS KiB, stdout) of one run of cmd."""
    p = subprocess.run(
        ["/usr/bin/time", "-f", "TIME %U %S %e %M"] + cmd,
        capture_output=True,
        text=True,
        check=False,
    )
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr}")
    m = re.search(r"TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)", p.stderr)
    user, sys_, wall, rss = float(m[1]), float(m[2]), float(m[3]), int(m[4])
    return user + sys_, wall, rss, p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--rooftrace", action="append", default=[], metavar="NAME=BINARY")
    ap.add_argument("--no-pandas", action="store_true")
    a = ap.parse_args()
    cmds = [(n, [b, a.csv]) for n, b in (r.split("=", 1) for r in a.rooftrace)]
    if not a.no_pandas:
        cmds.append(("pandas", [sys.executable, os.path.join(HERE, "ncu_pandas_baseline.py"), a.csv]))
    print(f"file: {a.csv} ({os.path.getsize(a.csv) / 1e6:.0f} MB)")
    print(f"load average before: {os.getloadavg()}")
    runs = {n: [] for n, _ in cmds}
    for r in range(a.rounds):
        for name, cmd in cmds:
            cpu, wall, rss, out = timed(cmd)
            if name == "pandas":
                cpu = float(re.search(r"read\+pivot cpu: ([\d.]+)", out)[1])
                wall = float(re.search(r"read\+pivot: ([\d.]+) s", out)[1])
                check = re.search(r"pivot (.*)", out)[1]
            else:
                check = out.strip()
            runs[name].append((cpu, wall, rss))
            print(f"round {r + 1} {name}: cpu {cpu:.2f} s, wall {wall:.2f} s, "
                  f"peak RSS {rss / 1024:.0f} MiB; {check}", flush=True)
    print(f"load average after: {os.getloadavg()}")
    pandas = statistics.median(c for c, _, _ in runs["pandas"]) if "pandas" in runs else None
    print("| command | CPU s (median) | wall s (median) | peak RSS MiB | CPU ratio to pandas |")
    print("|---|---:|---:|---:|---:|")
    for name, rs in runs.items():
        cpu = statistics.median(c for c, _, _ in rs)
        wall = statistics.median(w for _, w, _ in rs)
        rss = max(m for _, _, m in rs) / 1024
        ratio = f"{cpu / pandas:.2f}x" if pandas else "-"
        print(f"| {name} | {cpu:.2f} | {wall:.2f} | {rss:.0f} | {ratio} |")


if __name__ == "__main__":
    main()
