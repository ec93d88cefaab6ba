#!/usr/bin/env bash
# Device check of `rooftrace calibrate` (issue 4, section 3), for a session
# lent a GPU. Run from the repository root on the GPU machine; everything it
# produces goes to $OUT. Needs there: nvcc with cuBLASLt (a CUDA toolkit;
# the machine has no network, so no pip), ncu, and a rooftrace binary at
# $ROOFTRACE (build it on the dev machine with `cargo build --release` and
# copy it into the working tree, e.g. ./rooftrace-bin, so it travels).
# Budget: about 6 minutes on an H200.
set -euo pipefail
RT=${ROOFTRACE:-./rooftrace-bin}
OUT=${OUT:-./devcheck-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total \
  --format=csv > "$OUT/nvidia-smi.csv"
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
nvcc --version > "$OUT/nvcc-version.txt"
ncu --version > "$OUT/ncu-version.txt"

# 1. Build the embedded kernels, run them, write the roofs.
timeout 240 "$RT" calibrate --cache-dir "$OUT/cache" \
  --save-results "$OUT/h200-harness.jsonl" -o "$OUT/h200-roofs.json" \
  | tee "$OUT/h200-calibrate.txt"

# 2. The FMA sweep (every R, every type) and the bandwidth kernels (--quick:
#    one L2-resident and one DRAM working set) under Nsight Compute, each
#    point launched once (--once).
H=$(ls "$OUT"/cache/harness-*/rooftrace-harness)
METRICS=$("$RT" ncu --print-metrics)
timeout 150 ncu --clock-control none --csv --page raw --print-units base \
  --metrics "$METRICS" -k 'regex:fma_kernel' \
  "$H" --once --only fma > "$OUT/h200-fma-sweep-ncu.csv"
timeout 60 ncu --clock-control none --csv --page raw --print-units base \
  --metrics "$METRICS" -k 'regex:read_sum_kernel|copy_kernel|triad_kernel' \
  "$H" --once --quick --only bandwidth > "$OUT/h200-bandwidth-ncu.csv"
rm -rf "$OUT/cache"
ls -la "$OUT"
