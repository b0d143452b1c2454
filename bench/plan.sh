#!/bin/sh
# `dtsim plan` at size: GPT-3 175B on 4,096 A100s (scenarios/plan/gpt3-175b-a100.yaml), every candidate split
# screened and estimated, the best 20 simulated. Targets: at least 10,000 candidates screened in <= 60 s, the
# top 20 simulated in <= 60 s more, on a 2-core machine. Prints each of 3 runs' figures as dtsim reports them
# (wall time, stdout only) and their medians. About 2 minutes.
#   usage: bench/plan.sh [path/to/dtsim] [device count]
set -eu
dtsim=${1:-build/release/dtsim}
devices=${2:-4096}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for i in 1 2 3; do
  "$dtsim" plan scenarios/plan/gpt3-175b-a100.yaml --gpus "$devices" --top 20 -o "$out/run$i" |
    grep -E '^[0-9]+ devices: [0-9]+ (candidates screened|simulated)' | tee -a "$out/figures"
done
median() { sort -n | sed -n 2p; }
candidates=$(sed -n 's/^[0-9]* devices: \([0-9]*\) candidates screened.*/\1/p' "$out/figures" | head -1)
screen=$(sed -n 's/.*candidates screened in \([0-9.]*\) s.*/\1/p' "$out/figures" | median)
simulate=$(sed -n 's/.* simulated in \([0-9.]*\) s.*/\1/p' "$out/figures" | median)
printf 'GPT-3 175B on %s devices: %s candidates screened in %s s, the best 20 simulated in %s s (medians of 3)\n' \
  "$devices" "$candidates" "$screen" "$simulate"
