#!/bin/sh
# Simulator speed, side by side: ring allreduce of SIZE bytes (default 1 MiB) on RANKS ranks (default 256),
# REPEAT times in a row (default 10), by `dtsim collective` and by the same MPI_Allreduce under smpirun
# (SMPI's `lr` ring algorithm) on the same ring platform with the textbook alpha-beta settings. Each is run
# RUNS times (default 3); prints the medians of wall time and peak memory, the simulated times, and the
# ratios. Targets: dtsim at least 20x faster, with at most 1/10 of smpirun's peak memory.
#   usage: bench/smpi/speed_vs_smpirun.sh [path/to/dtsim]
set -eu
dtsim=${1:-build/release/dtsim}
ranks=${RANKS:-256}
bytes=${SIZE:-1048576}
repeat=${REPEAT:-10}
runs=${RUNS:-3}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
smpicxx -O2 -o "$work/allreduce_timer" "$here/allreduce_timer.cpp"
/usr/bin/python3 "$here/platform.py" ring "$ranks" 10Gbps 5us > "$work/platform.xml"
seq 0 $((ranks - 1)) | sed 's/^/worker-/' > "$work/hosts.txt"
settings="--cfg=network/model:CM02 --cfg=network/TCP-gamma:0 --cfg=network/crosstraffic:0 --cfg=smpi/simulate-computation:no"

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

i=0
while [ "$i" -lt "$runs" ]; do
  /usr/bin/time -f "%e %M" -o "$work/dtsim.time" "$dtsim" collective --topology ring --ranks "$ranks" --algo ring \
    --sizes "${bytes}B:${bytes}B" --repeat "$repeat" --json > "$work/dtsim.json"
  cat "$work/dtsim.time" >> "$work/dtsim.times"
  (cd "$work" && /usr/bin/time -f "%e %M" -o smpi.time smpirun -np "$ranks" -platform platform.xml -hostfile hosts.txt \
    --cfg=smpi/allreduce:lr $settings --log=root.thresh:critical ./allreduce_timer $((bytes / 4)) "$repeat" \
    2>/dev/null | tail -1 > smpi.out)
  cat "$work/smpi.time" >> "$work/smpi.times"
  i=$((i + 1))
done
dtsim_wall=$(cut -d' ' -f1 "$work/dtsim.times" | median)
dtsim_kb=$(cut -d' ' -f2 "$work/dtsim.times" | median)
smpi_wall=$(cut -d' ' -f1 "$work/smpi.times" | median)
smpi_kb=$(cut -d' ' -f2 "$work/smpi.times" | median)
dtsim_sim=$(/usr/bin/python3 -c 'import json,sys; print("%.6e" % json.load(open(sys.argv[1]))["rows"][0]["time_s"])' "$work/dtsim.json")
smpi_sim=$(cat "$work/smpi.out")
awk -v dw="$dtsim_wall" -v dk="$dtsim_kb" -v sw="$smpi_wall" -v sk="$smpi_kb" -v ds="$dtsim_sim" -v ss="$smpi_sim" \
    -v ranks="$ranks" -v bytes="$bytes" -v repeat="$repeat" -v runs="$runs" 'BEGIN {
  printf "ring allreduce of %d B on %d ranks, %d times; medians of %d runs\n", bytes, ranks, repeat, runs
  printf "%-8s %12s %14s %22s\n", "", "wall_s", "peak_MB", "simulated_s_per_op"
  printf "%-8s %12.3f %14.1f %22s\n", "dtsim", dw, dk / 1024, ds
  printf "%-8s %12.3f %14.1f %22s\n", "smpirun", sw, sk / 1024, ss
  speed = sw / dw; memory = dk / sk
  printf "speed: dtsim %.1fx faster (target >= 20x: %s); memory: dtsim %.3f of smpirun (target <= 0.1: %s)\n",
         speed, (speed >= 20 ? "met" : "MISSED"), memory, (memory <= 0.1 ? "met" : "MISSED")
  printf "simulated time: smpirun/dtsim = %.4f\n", ss / ds
}'
