#!/bin/sh
# Real-math scale: wall time and peak memory of bench/mlp_64_workers.yaml (64 workers, MLP on the digits,
# BSP, 20 epochs), the median of RUNS runs (default 3). Target: under 20 s on a 2-core machine.
#   usage: bench/real_math_scale.sh [path/to/dtsim]
set -eu
dtsim=${1:-build/release/dtsim}
scenario=bench/mlp_64_workers.yaml
runs=${RUNS:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
i=0
while [ "$i" -lt "$runs" ]; do
  /usr/bin/time -f "%e %M" -o "$out/time" "$dtsim" run "$scenario" -q -o "$out/run"
  cat "$out/time" >> "$out/times"
  i=$((i + 1))
done
grep -o '"val_accuracy": [0-9.]*' "$out/run/summary.json" | tail -1 > "$out/accuracy"
sort -n "$out/times" | awk -v runs="$runs" -v accuracy="$(cat "$out/accuracy")" '
  { t[NR] = $1; m[NR] = $2 }
  END {
    i = int((NR + 1) / 2)
    printf "%s runs: wall time median %.2f s (min %.2f, max %.2f), peak memory %.1f MB; final %s; target < 20 s: %s\n",
           runs, t[i], t[1], t[NR], m[i] / 1024, accuracy, (t[i] < 20 ? "met" : "MISSED")
  }'
