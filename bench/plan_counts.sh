#!/bin/sh
# A plan over many device counts: GPT-3 175B (scenarios/plan/gpt3-175b-a100.yaml) over the 64 counts 64, 128, ...,
# 4,096 with --top 1 (each count screened, then its best and the best placed as the
# scenario places its axes simulated), run RUNS times (default 3): each run's wall time and peak memory
# (/usr/bin/time's maximum resident set, the simulations' child processes included), then the medians. Issue 72's
# target: at most 2 GB, a search's memory independent of the number of counts.
#   usage: bench/plan_counts.sh [path/to/dtsim] [last count, default 4096]
set -eu
dtsim=${1:-build/release/dtsim}
last=${2:-4096}
runs=${RUNS:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
counts=$(seq -s, 64 64 "$last")
i=0
while [ "$i" -lt "$runs" ]; do
  i=$((i + 1))
  /usr/bin/time -f '%e %M' -o "$out/time$i" "$dtsim" plan scenarios/plan/gpt3-175b-a100.yaml --gpus "$counts" --top 1 \
    -q -o "$out/plan$i" > /dev/null
  read -r wall kb < "$out/time$i"
  printf 'run %s: %s s wall, %s MiB peak\n' "$i" "$wall" "$((kb / 1024))"
  echo "$wall" >> "$out/walls"
  echo "$((kb / 1024))" >> "$out/peaks"
done
median() { sort -n | sed -n "$(((runs + 1) / 2))p"; }
printf 'GPT-3 175B planned over %s counts: median %s s, %s MiB peak (%s runs)\n' \
  "$(echo "$counts" | tr ',' '\n' | wc -l)" "$(median < "$out/walls")" "$(median < "$out/peaks")" "$runs"
