#!/bin/sh
# Wall time of each scenario of scenarios/cluster/ (several jobs on one cluster; each run includes every job's
# replay alone and every pair's replay together): the median of RUNS runs (default 3). Target: under 30 s a
# scenario on a 2-core machine, so that a course or a study can rerun them at will.
#   usage: bench/cluster_wall_time.sh [path/to/dtsim]
set -eu
dtsim=${1:-build/release/dtsim}
runs=${RUNS:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for scenario in scenarios/cluster/*.yaml; do
  : > "$out/times"
  i=0
  while [ "$i" -lt "$runs" ]; do
    start=$(date +%s.%N)
    "$dtsim" run "$scenario" --force -q -o "$out/run"
    end=$(date +%s.%N)
    awk -v s="$start" -v e="$end" 'BEGIN { printf "%.6f\n", e - s }' >> "$out/times"
    rm -rf "$out/run"
    i=$((i + 1))
  done
  sort -n "$out/times" | awk -v name="$(basename "$scenario" .yaml)" -v runs="$runs" '
    { t[NR] = $1 }
    END {
      median = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
      printf "%s: %d runs, wall time median %.2f s (max %.2f s); target < 30 s: %s\n",
             name, runs, median, t[NR], (median < 30 ? "met" : "MISSED")
    }'
done
