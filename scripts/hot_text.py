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
    python3 scripts/hot_text.py --check BINARY    # has the section (.ci/run)

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


def section_sizes(binary):
    """{name: size} of the sections of a 64-bit little-endian ELF file
    (System V gABI header and section-header offsets); works on a stripped
    binary."""
    import struct

    with open(binary, "rb") as f:
        b = f.read()
    if b[:6] != b"\x7fELF\x02\x01":
        sys.exit(f"{binary}: not a 64-bit little-endian ELF file")
    shoff = struct.unpack_from("<Q", b, 0x28)[0]
    entsize, count, names = struct.unpack_from("<HHH", b, 0x3A)
    strtab = struct.unpack_from("<Q", b, shoff + names * entsize + 0x18)[0]
    out = {}
    for i in range(count):
        h = shoff + i * entsize
        name_at = strtab + struct.unpack_from("<I", b, h)[0]
        name = b[name_at : b.index(b"\0", name_at)].decode()
        out[name] = struct.unpack_from("<Q", b, h + 0x20)[0]
    return out


def check(binary):
    """Exits non-zero unless `binary` has the hot section, holding at least
    the code of the job placed first (about 1 MB)."""
    size = section_sizes(binary).get(".text.hot.rooftrace", 0)
    if size < 1 << 20:
        sys.exit(
            f"{binary}: .text.hot.rooftrace is {size} bytes: build.rs did not hand the linker "
            f"{OUT}, or its patterns name little of this build (run scripts/hot_text.py)"
        )
    print(f"{binary}: .text.hot.rooftrace holds {size:,} bytes of code")


def main():
    if sys.argv[1] == "--check":
        return check(sys.argv[2])
    binary = sys.argv[1]
    corpus = sys.argv[2] if len(sys.argv) > 2 else "../shared/corpus"
    symbols = code_symbols(binary)
    exact = []  # (job, the names it ran first)
    patterns = []  # (job, the patterns of those names not met before)
    names_seen = set()
    patterns_seen = set()
    for job in JOBS:
        args = [a.format(corpus=corpus) for a in job]
        missing = [a for a in args if ("/" in a) and not os.path.exists(a)]
        if missing:
            print(f"skipped (no {missing[0]}): rooftrace {' '.join(args)}", file=sys.stderr)
            continue
        ran = {n for n in entered(binary, args) if n in symbols}
        mine = sorted(ran - names_seen)
        names_seen.update(mine)
        wild = sorted({pattern(n) for n in mine} - patterns_seen)
        patterns_seen.update(wild)
        shown = " ".join(args).replace("*/", "* /")
        exact.append((shown, mine))
        patterns.append((shown, wild))
        print(f"{len(mine):5d} new functions: rooftrace {shown}", file=sys.stderr)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write("/* Written by scripts/hot_text.py: the functions the main jobs run,\n")
        f.write("   placed together before the rest of the code (fewer code pages\n")
        f.write("   resident). Regenerate, do not edit. One input-section\n")
        f.write("   description per job: the linker tries each section against the\n")
        f.write("   descriptions in turn, so few long ones link in seconds where one\n")
        f.write("   per function took 18 s. */\n")
        f.write("SECTIONS\n{\n  .text.hot.rooftrace : {\n")
        f.write("    /* The functions as this build named them: with the same compiler\n")
        f.write("       and options, exactly the ones that ran, job by job. */\n")
        for shown, names in exact:
            write_description(f, shown, names)
        f.write("    /* The same functions whatever the compiler's hashes (with a generic\n")
        f.write("       function, every instance of it): what the names above miss. */\n")
        for shown, wild in patterns:
            write_description(f, shown, wild)
        f.write("  }\n}\nINSERT BEFORE .text;\n")
    print(f"{len(names_seen)} functions ({len(patterns_seen)} patterns) in {OUT}", file=sys.stderr)


def write_description(f, shown, names):
    """One input-section description: every section of `names`."""
    if not names:
        return
    f.write(f"    /* rooftrace {shown} */\n    *(\n")
    for name in names:
        f.write(f"      .text.{name} .text.unlikely.{name}\n")
    f.write("    )\n")


if __name__ == "__main__":
    main()
