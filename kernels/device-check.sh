#!/usr/bin/env bash
# Device check of `rooftrace calibrate` (issue 14, item 9), for a session
# lent a GPU: one chance, so no step may abort the others. Run it from the
# repository root on the GPU machine:
#
#   OUT=$OUT ROOFTRACE=./rooftrace-bin bash kernels/device-check.sh
#
# Needs there: a CUDA toolkit with nvcc and cuBLASLt (the machine has no
# network: no pip), ncu, python3 (for the HFMA2 check; skipped without it)
# and a rooftrace binary at $ROOFTRACE (build it on the dev machine with
# `cargo build --release`, copy it into the working tree, e.g.
# ./rooftrace-bin, so it travels). Everything it keeps goes to $OUT; the
# build cache does not (it is large and rebuilt anyway).
#
# No `set -e`: every step runs under a time limit taken from one overall
# budget (DEADLINE_S, default 330 s, under the 6 minutes a device call gets),
# and its exit code goes to $OUT/steps.tsv (124 = ran out of time).
# Clocks, power and throttle reasons are logged by nvidia-smi every 500 ms
# for the whole run ($OUT/smi-log.csv).
set -u
RT=${ROOFTRACE:-./rooftrace-bin}
OUT=${OUT:-./devcheck-out}
CACHE=${CACHE:-${TMPDIR:-/tmp}/rooftrace-devcheck-cache}
DEADLINE_S=${DEADLINE_S:-330}
FMA_R=${FMA_R:-1,16,256,2048}
mkdir -p "$OUT" "$CACHE"
START=$(date +%s)
STEPS="$OUT/steps.tsv"
printf 'step\texit\tseconds\n' > "$STEPS"

left() { echo $((DEADLINE_S - ($(date +%s) - START))); }

# step NAME CAP CMD...: runs CMD under `timeout min(CAP, time left - 5)`,
# stdout to $OUT/NAME.out, stderr to $OUT/NAME.err, exit code to steps.tsv.
step() {
  local name=$1 cap=$2 t0 limit rc
  shift 2
  limit=$(($(left) - 5))
  if [ "$limit" -gt "$cap" ]; then limit=$cap; fi
  if [ "$limit" -lt 5 ]; then
    printf '%s\tskipped (no time left)\t0\n' "$name" >> "$STEPS"
    return 0
  fi
  t0=$(date +%s)
  timeout --kill-after=5 "$limit" "$@" > "$OUT/$name.out" 2> "$OUT/$name.err"
  rc=$?
  printf '%s\t%s\t%s\n' "$name" "$rc" $(($(date +%s) - t0)) >> "$STEPS"
  return 0
}

if ! command -v nvcc > /dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi

# 0. What machine this is.
step nvidia-smi 20 nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit,memory.total,persistence_mode --format=csv
step nvcc-version 10 nvcc --version
step ncu-version 10 ncu --version
# shellcheck disable=SC2016 # expanded by the inner sh, on purpose
step cublaslt-libs 10 sh -c 'ldconfig -p | grep -i cublasLt; echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"'
step rooftrace-version 10 "$RT" --version

# Clocks/power/throttle log in the background for the whole run. The
# throttle field was renamed (clocks_throttle_reasons -> clocks_event_reasons);
# use the one this nvidia-smi knows.
REASONS=clocks_event_reasons.active
if ! nvidia-smi --query-gpu=$REASONS --format=csv > /dev/null 2>&1; then
  REASONS=clocks_throttle_reasons.active
fi
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu,$REASONS \
  --format=csv -lms 500 > "$OUT/smi-log.csv" 2> "$OUT/smi-log.err" &
SMI_PID=$!

# 1. The real path: build the embedded kernels (cache outside $OUT), run
#    them, select and write the roofs. The harness's stderr (NVML, skipped
#    and failed points) lands in calibrate.err.
step calibrate 200 "$RT" calibrate --cache-dir "$CACHE" \
  --save-results "$OUT/harness.jsonl" -o "$OUT/roofs.json"
H=$(find "$CACHE" -path '*/harness-*/rooftrace-harness' -type f 2> /dev/null | head -n 1)
printf 'harness: %s\n' "${H:-none built}" >> "$OUT/calibrate.err"

# 1b. Only if the live run saved nothing but the harness was built: run it
#     by hand, so the results come back anyway.
if [ -n "$H" ] && [ ! -s "$OUT/harness.jsonl" ]; then
  step harness-direct 150 "$H" --samples 9
  cp "$OUT/harness-direct.out" "$OUT/harness.jsonl"
fi
if [ -s "$OUT/harness.jsonl" ]; then
  step report-json 20 "$RT" calibrate --from "$OUT/harness.jsonl" --format json
  step report-md 20 "$RT" calibrate --from "$OUT/harness.jsonl" --format md
fi

# 2. ncu metrics rooftrace asks for, filtered through what ncu knows on
#    this chip (one unknown name makes ncu refuse the whole list).
step print-metrics 10 "$RT" ncu --print-metrics
step query-metrics 60 ncu --query-metrics
METRICS=""
if [ -s "$OUT/query-metrics.out" ]; then
  for m in $(tr ',' ' ' < "$OUT/print-metrics.out"); do
    base=${m%%.*}
    if grep -q -E "^[[:space:]]*${base}[[:space:]]" "$OUT/query-metrics.out"; then
      METRICS="$METRICS${METRICS:+,}$m"
    else
      echo "$m" >> "$OUT/metrics-dropped.txt"
    fi
  done
fi
# The HFMA2 check needs these whatever the filter said.
for m in smsp__sass_thread_inst_executed_op_hfma_pred_on.sum gpu__time_duration.sum; do
  case ",$METRICS," in *",$m,"*) ;; *) METRICS="$METRICS${METRICS:+,}$m" ;; esac
done
echo "$METRICS" | tr ',' '\n' > "$OUT/metrics-used.txt"

# 3. The FMA sweep under ncu, a few R values (--fma-r), each point once.
if [ -n "$H" ]; then
  step ncu-fma 90 ncu --clock-control none --csv --page raw --print-units base \
    --metrics "$METRICS" -k 'regex:fma_kernel' "$H" --once --only fma --fma-r "$FMA_R"
  step ncu-bandwidth 45 ncu --clock-control none --csv --page raw --print-units base \
    --metrics "$METRICS" -k 'regex:read_sum_kernel|copy_kernel|triad_kernel' \
    "$H" --once --quick --only bandwidth
  step rooftrace-ncu-fma 20 "$RT" ncu "$OUT/ncu-fma.out"
fi

# 4. HFMA2 accounting: ncu's count of HFMA2 thread instructions per packed
#    FMA kernel vs what the FP16 accounting assumes. The sweep reads 256 MiB
#    = 2^24 uint4 = 2^26 half2 pairs; each pair goes through R HFMA2, so
#    count = R x 2^26, i.e. rooftrace's FP16 FLOP (2 per HFMA2) = R x 2^27 =
#    R x elements: half the harness's lane FLOP (2R x elements).
if [ -s "$OUT/ncu-fma.out" ] && command -v python3 > /dev/null; then
  step hfma-check 20 python3 - "$OUT/ncu-fma.out" "$FMA_R" << 'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head = next(i for i, r in enumerate(rows) if "Kernel Name" in r)
cols = rows[head]
name, hfma = cols.index("Kernel Name"), cols.index("smsp__sass_thread_inst_executed_op_hfma_pred_on.sum")
data = [r for r in rows[head + 1:] if len(r) == len(cols) and "fma_kernel" in r[name]]
rs = [int(x) for x in sys.argv[2].split(",")]
# Launch order: fp64, fp32, fp16x2, bf16x2, each over the R list.
kinds = ["fp64", "fp32", "fp16x2", "bf16x2"]
pairs = 1 << 26
bad = 0
for i, r in enumerate(data):
    kind, R = kinds[i // len(rs)] if i // len(rs) < 4 else "?", rs[i % len(rs)]
    got = float(r[hfma].replace(",", "") or 0)
    want = R * pairs if kind in ("fp16x2", "bf16x2") else 0
    ok = abs(got - want) <= 0.001 * max(want, 1)
    bad += not ok
    print(f"{kind:7} R={R:5} hfma={got:.0f} expected={want} {'ok' if ok else 'MISMATCH'}")
print("all HFMA2 counts match" if bad == 0 else f"{bad} mismatches")
sys.exit(1 if bad else 0)
PY
else
  printf 'hfma-check\tskipped (no ncu-fma.out or no python3)\t0\n' >> "$STEPS"
fi

kill "$SMI_PID" 2> /dev/null
wait "$SMI_PID" 2> /dev/null
printf 'total\t-\t%s\n' $(($(date +%s) - START)) >> "$STEPS"
cat "$STEPS"
ls -la "$OUT"
