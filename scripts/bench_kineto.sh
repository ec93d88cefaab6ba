#!/bin/sh
# docs/bench-kineto.md: rooftrace gaps vs HTA (load + temporal + idle
# breakdowns) on one large Kineto trace built from a corpus trace.
#   sh scripts/bench_kineto.sh [REPS=100] [HTA_PYTHON=python3]
# Builds target/release/rooftrace and the generator, writes
# $TMPDIR/rooftrace-kineto-REPS.json once (REPS copies of
# fixtures/kineto/sampled_rank-0.json.gz, 1.76 MB of JSON each), then runs
# each tool once under /usr/bin/time -v and prints wall time and peak RSS.
set -eu
reps=${1:-100}
py=${2:-python3}
tmp=${TMPDIR:-/tmp}
trace=$tmp/rooftrace-kineto-$reps.json
cargo build --release --locked --quiet --example gen_kineto
cargo build --release --locked --quiet
if [ ! -f "$trace" ]; then
    target/release/examples/gen_kineto fixtures/kineto/sampled_rank-0.json.gz "$trace" "$reps"
fi
size=$(stat -c %s "$trace")
echo "trace: $trace ($size bytes of JSON)"
cat "$trace" > /dev/null   # page cache warm for both
run() {
    name=$1; shift
    /usr/bin/time -v "$@" > /dev/null 2> "$tmp/rooftrace-bench-$name.txt" || { cat "$tmp/rooftrace-bench-$name.txt"; exit 1; }
    wall=$(grep 'Elapsed (wall' "$tmp/rooftrace-bench-$name.txt" | awk '{print $NF}')
    rss=$(grep 'Maximum resident' "$tmp/rooftrace-bench-$name.txt" | awk '{print $NF}')
    echo "$name: wall $wall, peak RSS $rss KiB ($(echo "scale=3; $rss * 1024 / $size" | bc) × the JSON)"
}
run rooftrace target/release/rooftrace gaps "$trace" --format json
run hta "$py" scripts/hta_bench.py "$trace"
