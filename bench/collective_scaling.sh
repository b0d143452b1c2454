#!/bin/sh
# Scaling of the simulator itself: wall time and peak memory of one ring allreduce of SIZE bytes (default
# 1 MiB) on a ring of p ranks, for p in RANKS (default "64 256 1024 4096"), each the median of RUNS runs
# (default 3), with the growth exponent between successive p (log ratio of times over log ratio of p).
# Extra options go to `dtsim collective`: --round-by-round shows the cost without the phase shortcut.
#   usage: bench/collective_scaling.sh [path/to/dtsim] [extra dtsim collective options...]
set -eu
dtsim=${1:-build/release/dtsim}
[ $# -gt 0 ] && shift
bytes=${SIZE:-1048576}
runs=${RUNS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%6s %10s %10s %14s %12s\n' ranks wall_s peak_MB simulated_s growth
previous_p= previous_t=
for p in ${RANKS:-64 256 1024 4096}; do
  : > "$work/times"
  i=0
  while [ "$i" -lt "$runs" ]; do
    /usr/bin/time -f "%e %M" -o "$work/time" "$dtsim" collective --topology ring --algo ring --ranks "$p" \
      --sizes "${bytes}B:${bytes}B" --json "$@" > "$work/out.json"
    cat "$work/time" >> "$work/times"
    i=$((i + 1))
  done
  wall=$(cut -d' ' -f1 "$work/times" | median)
  kb=$(cut -d' ' -f2 "$work/times" | median)
  sim=$(/usr/bin/python3 -c 'import json,sys; print("%.6e" % json.load(open(sys.argv[1]))["rows"][0]["time_s"])' "$work/out.json")
  growth=$(awk -v p="$p" -v t="$wall" -v pp="$previous_p" -v pt="$previous_t" \
    'BEGIN { if (pp == "" || pt <= 0) print "-"; else printf "p^%.2f\n", log(t / pt) / log(p / pp) }')
  printf '%6s %10.3f %10.1f %14s %12s\n' "$p" "$wall" "$(awk -v k="$kb" 'BEGIN { print k / 1024 }')" "$sim" "$growth"
  previous_p=$p previous_t=$wall
done
