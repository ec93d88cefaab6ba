#!/usr/bin/env python3
"""Pandas baseline for benches/ncu_parse.rs (issue 19, item 6).

Reads an ncu details-page CSV (one metric per row, as `ncu --csv` writes by
default) and pivots it to one row per launch x metric (launch = ID, columns =
"Metric Name", values = "Metric Value" as numbers, thousands separators
removed). Prints the wall time and the CPU time (user + sys of this process,
`time.process_time`) of read + pivot, best of --repeat runs; interpreter
start-up and `import pandas` are outside both.

Usage: python3 scripts/ncu_pandas_baseline.py bench-data/ncu_details15_N.csv [--repeat 1]
Needs: pip install pandas
"""
import argparse
import os
import time

import pandas as pd


def read_and_pivot(path):
    df = pd.read_csv(
        path,
        usecols=["ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value"],
        thousands=",",
        dtype={"ID": "int64", "Metric Value": "object"},
        low_memory=False,
    )
    # Metric Value mixes numbers and text ("n/a", rule text): numbers only.
    df["Metric Value"] = pd.to_numeric(
        df["Metric Value"].str.replace(",", "", regex=False), errors="coerce"
    )
    df = df[df["Metric Name"].notna()]
    return df.pivot_table(
        index=["ID", "Kernel Name"],
        columns="Metric Name",
        values="Metric Value",
        aggfunc="first",
    )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    mb = os.path.getsize(a.csv) / 1e6
    best = cpu = float("inf")
    for _ in range(a.repeat):
        t, c = time.perf_counter(), time.process_time()
        wide = read_and_pivot(a.csv)
        best = min(best, time.perf_counter() - t)
        cpu = min(cpu, time.process_time() - c)
    print(f"file: {a.csv} ({mb:.0f} MB), pivot {wide.shape[0]} launches x {wide.shape[1]} metrics")
    print(f"pandas {pd.__version__} read+pivot: {best:.3f} s, {mb / best:.0f} MB/s (best of {a.repeat})")
    print(f"pandas read+pivot cpu: {cpu:.3f} s")


if __name__ == "__main__":
    main()
