#!/bin/sh
# Wall time of `dtsim run scenarios/quickstart.yaml` after the build: the median of RUNS runs (default 7).
# Target: under 10 s on a 2-core machine.
#   usage: bench/quickstart_wall_time.sh [path/to/dtsim] [scenario.yaml]
set -eu
dtsim=${1:-build/release/dtsim}
scenario=${2:-scenarios/quickstart.yaml}
runs=${RUNS:-7}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
i=0
while [ "$i" -lt "$runs" ]; do
  start=$(date +%s.%N)
  "$dtsim" run "$scenario" -q -o "$out/run"
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.6f\n", e - s }' >> "$out/times"
  i=$((i + 1))
done
sort -n "$out/times" | awk -v runs="$runs" -v scenario="$scenario" '
  { t[NR] = $1 }
  END {
    median = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
    printf "%s: %d runs, wall time median %.3f s (min %.3f s, max %.3f s); target < 10 s: %s\n",
           scenario, runs, median, t[1], t[NR], (median < 10 ? "met" : "MISSED")
  }'
