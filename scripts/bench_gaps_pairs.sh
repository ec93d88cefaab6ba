#!/bin/sh
# docs/bench-gaps.md: `rooftrace gaps FILE --format json` of one or more
# builds against the sqlite3 CLI's sorted kernel dump, alternated round by
# round (scripts/bench_pairs.py), medians and per-round ratios printed.
#   sh scripts/bench_gaps_pairs.sh [ROUNDS=5] [LABEL=BINARY ...]
# Without binaries it builds and times target/release/rooftrace. FILE is
# $TMPDIR/rooftrace-bench-$ROOFTRACE_BENCH_KERNELS.sqlite (5 M kernels by
# default; the file `cargo bench --bench gaps` writes), generated once; with
# ROOFTRACE_BENCH_FROM=REAL.sqlite it is grown from that real export instead
# (`gen_nsys --grow-from`: its rows, NVTX ranges and GPUs repeated) and named
# $TMPDIR/rooftrace-grown-$ROOFTRACE_BENCH_KERNELS.sqlite.
# Example (this tree against a build of another commit):
#   sh scripts/bench_gaps_pairs.sh 5 main=target/release/rooftrace \
#       base=/tmp/base/target/release/rooftrace
set -eu
rounds=${1:-5}
[ $# -gt 0 ] && shift
kernels=${ROOFTRACE_BENCH_KERNELS:-5000000}
from=${ROOFTRACE_BENCH_FROM:-}
kind=bench
[ -n "$from" ] && kind=grown
file=${ROOFTRACE_BENCH_FILE:-${TMPDIR:-/tmp}/rooftrace-$kind-$kernels.sqlite}
if [ $# -eq 0 ]; then
    cargo build --release --locked --quiet
    set -- "rooftrace=target/release/rooftrace"
fi
if [ ! -f "$file" ]; then
    rm -f "$file.partial"
    if [ -n "$from" ]; then
        cargo run --release --locked --quiet --example gen_nsys -- "$file.partial" "$kernels" --grow-from "$from"
    else
        cargo run --release --locked --quiet --example gen_nsys -- "$file.partial" "$kernels" 2 4
    fi
    mv "$file.partial" "$file"
fi
echo "file: $file ($kernels kernels, $(stat -c %s "$file") bytes)"
cat "$file" > /dev/null # page cache warm for every command
sql="select start,end,deviceId,streamId,shortName from CUPTI_ACTIVITY_KIND_KERNEL order by start"
# The loop's list is expanded once, before `set --` below replaces the
# arguments with the commands to time (sqlite3 first).
first=1
for pair in "$@"; do
    label=${pair%%=*}
    bin=${pair#*=}
    [ -x "$bin" ] || { echo "not an executable: $bin" >&2; exit 2; }
    if [ $first -eq 1 ]; then
        set -- "sqlite3=sqlite3 $file '$sql'"
        first=0
    fi
    set -- "$@" "$label=$bin gaps $file --format json"
done
# Ratios to the sqlite3 dump and, with two builds or more, to the first.
refs="--ref sqlite3"
[ $# -gt 2 ] && refs="$refs --ref ${2%%=*}"
# shellcheck disable=SC2086
exec python3 "$(dirname "$0")/bench_pairs.py" --rounds "$rounds" $refs \
    --per "$kernels" "$@"
