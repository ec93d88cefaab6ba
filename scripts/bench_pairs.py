#!/usr/bin/env python3
"""Side-by-side timing of shell commands, alternated, with medians.

    python3 scripts/bench_pairs.py [--rounds 5] [--ref LABEL ...] [--per N] \
        LABEL='COMMAND' LABEL='COMMAND' ...

Each round runs every command once under `/usr/bin/time` (stdout to
/dev/null); the order rotates from round to round (A B C, B C A, C A B, ...),
so no command always runs first or last after another. Per command it prints
every run and the median wall time, CPU time (user + system) and peak RSS;
with `--ref` (repeatable), the median over rounds of each command's ratio
to the reference command *of the same round* (wall and CPU), so a load
change between rounds moves both sides of a ratio alike; with `--per N`, the peak
RSS divided by N (bytes per kernel). The load average is printed before and
after. Used by docs/bench-gaps.md and docs/bench-diff.md.
"""

import argparse
import os
import statistics
import subprocess
import sys


def run_once(cmd):
    """(wall s, CPU s, peak RSS bytes) of one `sh -c cmd` run."""
    fmt = "%e %U %S %M"
    p = subprocess.run(
        ["/usr/bin/time", "-f", fmt, "sh", "-c", cmd + " > /dev/null"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    if p.returncode != 0:
        sys.exit(f"command failed ({p.returncode}): {cmd}\n{p.stderr}")
    last = p.stderr.strip().splitlines()[-1].split()
    wall, user, system, rss_kib = float(last[0]), float(last[1]), float(last[2]), int(last[3])
    return wall, user + system, rss_kib * 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--ref", action="append", default=[],
                    help="label of a command the others are divided by (repeatable)")
    ap.add_argument("--per", type=float, help="divide peak RSS by this (e.g. kernels)")
    ap.add_argument("commands", nargs="+", metavar="LABEL=COMMAND")
    a = ap.parse_args()
    cmds = []
    for c in a.commands:
        label, sep, cmd = c.partition("=")
        if not sep or not cmd:
            sys.exit(f"expected LABEL=COMMAND, got {c!r}")
        cmds.append((label, cmd))
    labels = [l for l, _ in cmds]
    for ref in a.ref:
        if ref not in labels:
            sys.exit(f"--ref {ref!r} is not one of {labels}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
          f"{os.cpu_count()} CPUs, {a.rounds} rounds")
    res = {l: [] for l in labels}
    for r in range(a.rounds):
        order = cmds[r % len(cmds):] + cmds[:r % len(cmds)]
        for label, cmd in order:
            res[label].append(run_once(cmd))
            w, c, m = res[label][-1]
            print(f"round {r + 1} {label}: {w:.2f} s wall, {c:.2f} s CPU, "
                  f"{m / 2**20:.0f} MiB", flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print()
    print("| command | median wall s | median CPU s | peak RSS (largest) |"
          + (" B/kernel |" if a.per else "")
          + "".join(f" wall / {r} | CPU / {r} |" for r in a.ref))
    print("|---|---|---|---|" + ("---|" if a.per else "") + "---|---|" * len(a.ref))
    for label in labels:
        runs = res[label]
        wall = statistics.median(x[0] for x in runs)
        cpu = statistics.median(x[1] for x in runs)
        rss = max(x[2] for x in runs)
        row = f"| {label} | {wall:.2f} | {cpu:.2f} | {rss / 2**20:.0f} MiB |"
        if a.per:
            row += f" {rss / a.per:.1f} |"
        for r in a.ref:
            ref = res[r]
            for k in (0, 1):  # wall, CPU
                q = [x[k] / y[k] for x, y in zip(runs, ref) if y[k] > 0]
                row += f" {statistics.median(q):.3f} |" if len(q) == len(runs) else " n/a |"
        print(row)


if __name__ == "__main__":
    main()
