#!/bin/sh
# Wall time of each lab of docs/course/ as its handout runs it (every scenario of the lab, one after the
# other; lab 9 is a `dtsim scale` study): the median of RUNS runs (default 3). Target: under 10 s a lab on a
# 2-core machine.
#   usage: bench/course_labs_wall_time.sh [path/to/dtsim]
set -eu
dtsim=${1:-build/release/dtsim}
runs=${RUNS:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
lab_commands() {
  case "$1" in
    09) echo "scale scenarios/course/09-scaling.yaml --workers 1,2,4,8,16 --force" ;;
    *) for f in scenarios/course/"$1"-*.yaml; do echo "run $f --force"; done ;;
  esac
}
for lab in 01 02 03 04 05 06 07 08 09 10 11; do
  : > "$out/times"
  i=0
  while [ "$i" -lt "$runs" ]; do
    start=$(date +%s.%N)
    lab_commands "$lab" | while read -r command; do
      # shellcheck disable=SC2086
      "$dtsim" $command -q -o "$out/run-$(echo "$command" | md5sum | cut -c1-8)"
    done
    end=$(date +%s.%N)
    awk -v s="$start" -v e="$end" 'BEGIN { printf "%.6f\n", e - s }' >> "$out/times"
    i=$((i + 1))
  done
  sort -n "$out/times" | awk -v lab="$lab" -v runs="$runs" '
    { t[NR] = $1 }
    END {
      median = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
      printf "lab %s: %d runs, wall time median %.2f s (max %.2f s); target < 10 s: %s\n",
             lab, runs, median, t[NR], (median < 10 ? "met" : "MISSED")
    }'
done
