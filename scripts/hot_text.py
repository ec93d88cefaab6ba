#!/usr/bin/env python3
"""Writes `assets/link/hot-text.ld`: the functions the main jobs run, placed
together at the start of the executable's code (docs/bench-kineto.md,
"Code pages").

Why: Linux maps a file's pages 64 KiB at a time around each page a process
touches (fault-around), and resident set size counts every page mapped.
The ~1,100 functions `gaps` runs on a PyTorch trace are about 1 MB of code,
but in link order they lie spread over 94 of the 124 64-KiB windows of the
7.7 MiB `.text`, so the process held 5-6 MiB of code pages. Placed
together they fit in about 16 windows.

How: each job below runs once under callgrind (`--demangle=no`, so the
names are the symbols'); every function it entered that is a code symbol
of the binary becomes one input-section pattern of a linker script that
`build.rs` hands to the linker. The script is inserted before `.text`
(`INSERT BEFORE`), so it adds one output section and changes nothing else
of the default layout; LLD and GNU ld both read it. Where a symbol has
parts that change with the compiler version or the build options (the
16-hex-digit hash of a legacy symbol, ThinLTO's `.llvm.N`, the crate
disambiguators of the standard library's v0 symbols), its pattern has
`*` there; the path does not change. A pattern that matches nothing is
ignored by the linker, so a stale script costs memory, never a build.

Usage (from the repository root, after `cargo build --release`):

    python3 scripts/hot_text.py target/release/rooftrace [CORPUS]

CORPUS is `../shared/corpus` by default; jobs whose input is missing are
skipped and named. Needs `valgrind` and `nm`. Takes about 3 minutes.
"""

import os
import re
import subprocess
import sys
import tempfile

OUT = "assets/link/hot-text.ld"

# The jobs, in the order their functions are placed. The PyTorch trace
# first: it is the job whose peak RSS is nearest its floor (issue 30).
JOBS = [
    ["gaps", "{corpus}/kineto/kineto_hta_v100_2rank_rank1.json.gz", "--format", "json"],
    ["gaps", "{corpus}/kineto/kineto_hta_v100_2rank_rank1.json.gz"],
    ["gaps", "fixtures/kineto/sampled_rank-0.json.gz", "--format", "md"],
    ["ncu", "fixtures/ncu/sgemm_a100_printfp_details15.csv", "--gpu", "a100-40gb"],
    ["ncu", "fixtures/ncu/sgemm_a100_printfp_details15.csv", "--gpu", "a100-40gb", "--format", "json"],
    ["gaps", "fixtures/nsys/nsys2024.5.1_pipit_cloverleaf.sqlite", "--nvtx", "."],
    ["gaps", "fixtures/nsys/nsys2024.5.1_pipit_cloverleaf.sqlite", "--format", "json"],
]

# The parts of a symbol that change with the compiler and the build
# options, not with the code: a legacy symbol's hash, the `.llvm.N` that
# ThinLTO appends to a function it made global, and the crate
# disambiguators of a v0 symbol (the standard library's).
HASH = re.compile(r"17h[0-9a-f]{16}E(\.llvm\.[0-9]+)?$")
LLVM = re.compile(r"\.llvm\.[0-9]+$")
CRATE = re.compile(r"Cs[0-9A-Za-z]+_")


def code_symbols(binary):
    """The binary's defined code symbols."""
    out = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True)
    names = set()
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tT":
            names.add(parts[2])
    return names


def entered(binary, args):
    """The functions a run of `binary args` entered, as callgrind names them."""
    with tempfile.TemporaryDirectory() as tmp:
        cg = os.path.join(tmp, "cg.out")
        subprocess.run(
            ["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={cg}", binary, *args, "-o", os.devnull],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=True,
        )
        names = []
        with open(cg) as f:
            for line in f:
                m = re.match(r"^c?fn=\(\d+\)\s*(\S.*)$", line)
                if m:
                    names.append(m.group(1).strip())
        return names


def pattern(symbol):
    """The pattern of one function's symbol in its section's name."""
    if symbol.startswith("_ZN"):
        symbol = HASH.sub("17h*E*", symbol)
    elif symbol.startswith("_R"):
        symbol = LLVM.sub("*", CRATE.sub("Cs*_", symbol))
    return symbol


def sections(name):
    """The input sections of a function: `.text.NAME`, or, for one the
    compiler marked cold (`#[cold]`, e.g. a vector's growth), where it ran
    or not, `.text.unlikely.NAME`."""
    return f"(.text.{name} .text.unlikely.{name})"


def main():
    binary = sys.argv[1]
    corpus = sys.argv[2] if len(sys.argv) > 2 else "../shared/corpus"
    symbols = code_symbols(binary)
    placed = []
    exact = []
    seen = set()
    for job in JOBS:
        args = [a.format(corpus=corpus) for a in job]
        missing = [a for a in args if ("/" in a) and not os.path.exists(a)]
        if missing:
            print(f"skipped (no {missing[0]}): rooftrace {' '.join(args)}", file=sys.stderr)
            continue
        ran = [n for n in entered(binary, args) if n in symbols]
        exact.extend(sorted(set(ran) - set(exact)))
        mine = sorted({pattern(n) for n in ran} - seen)
        seen.update(mine)
        placed.append((args, mine))
        print(f"{len(mine):5d} new functions: rooftrace {' '.join(args)}", file=sys.stderr)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write("/* Written by scripts/hot_text.py: the functions the main jobs run,\n")
        f.write("   placed together before the rest of the code (fewer code pages\n")
        f.write("   resident). Regenerate, do not edit. */\n")
        f.write("SECTIONS\n{\n  .text.hot.rooftrace : {\n")
        f.write("    /* The functions as this build named them: with the same compiler\n")
        f.write("       and options, exactly the ones that ran, first. */\n")
        for name in exact:
            f.write(f"    *{sections(name)}\n")
        f.write("    /* The same functions whatever the compiler's hashes (with a generic\n")
        f.write("       function, every instance of it): what the lines above miss. */\n")
        for args, mine in placed:
            f.write(f"    /* rooftrace {' '.join(args).replace('*/', '* /')} */\n")
            for p in mine:
                f.write(f"    *{sections(p)}\n")
        f.write("  }\n}\nINSERT BEFORE .text;\n")
    print(f"{len(exact)} functions ({len(seen)} patterns) in {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
