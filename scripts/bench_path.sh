#!/bin/sh
# docs/path.md ("## Command", speed): `rooftrace path TRACE` against
# `rooftrace gaps TRACE` of the same release build on the 54 MB V100 trace
# of the corpus (issue 46: path within 2x of gaps), alternated round by
# round (scripts/bench_pairs.py), medians of wall and CPU time and the
# median per-round ratio to gaps printed.
#   sh scripts/bench_path.sh [ROUNDS=5] [BINARY=target/release/rooftrace]
# Without BINARY it builds target/release/rooftrace. The trace is
# $ROOFTRACE_CORPUS/kineto/kineto_hta_v100_2rank_rank1.json.gz (default
# corpus: ../shared/corpus beside the clone); ROOFTRACE_BENCH_TRACE names
# another one.
set -eu
rounds=${1:-5}
bin=${2:-}
corpus=${ROOFTRACE_CORPUS:-$(dirname "$0")/../../shared/corpus}
trace=${ROOFTRACE_BENCH_TRACE:-$corpus/kineto/kineto_hta_v100_2rank_rank1.json.gz}
[ -f "$trace" ] || { echo "no trace at $trace: set ROOFTRACE_CORPUS or ROOFTRACE_BENCH_TRACE" >&2; exit 2; }
if [ -z "$bin" ]; then
    cargo build --release --locked --quiet
    bin=target/release/rooftrace
fi
[ -x "$bin" ] || { echo "not an executable: $bin" >&2; exit 2; }
echo "trace: $trace ($(stat -c %s "$trace") bytes); binary: $bin ($("$bin" --version))"
cat "$trace" > /dev/null # page cache warm for every command
exec python3 "$(dirname "$0")/bench_pairs.py" --rounds "$rounds" --ref gaps \
    "gaps=$bin gaps $trace --format json" \
    "path=$bin path $trace --format json"
