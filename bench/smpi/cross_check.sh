#!/bin/sh
# Cross-checks dtsim's allreduce times against SMPI (SimGrid's MPI simulator) on the same platform:
# ring allreduce on a ring against SMPI's `lr`, halving_doubling on a full mesh against SMPI's `rab_rdb`
# (Rabenseifner: recursive-halving reduce-scatter, recursive-doubling allgather), for several rank counts
# and sizes, both under the textbook alpha-beta settings. Prints one row per case and fails when the two
# differ by more than 5%.   Usage: cross_check.sh DTSIM [WORKDIR]
set -eu
dtsim=$1
work=${2:-$(mktemp -d)}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
smpicxx -O2 -o "$work/allreduce_timer" "$here/allreduce_timer.cpp"
settings="--cfg=network/model:CM02 --cfg=network/TCP-gamma:0 --cfg=network/crosstraffic:0 --cfg=smpi/simulate-computation:no"
printf '%-8s %-18s %5s %10s %14s %14s %9s\n' topology algorithm ranks size_B dtsim_s smpi_s smpi/dtsim
status=0
for case in "ring ring lr" "mesh halving_doubling rab_rdb"; do
  set -- $case
  topology=$1 algorithm=$2 smpi_algorithm=$3
  for ranks in 4 8 16; do
    /usr/bin/python3 "$here/platform.py" "$topology" "$ranks" 10Gbps 5us > "$work/platform.xml"
    seq 0 $((ranks - 1)) | sed 's/^/worker-/' > "$work/hosts.txt"
    for bytes in 65536 1048576 16777216; do
      dtsim_s=$("$dtsim" collective --topology "$topology" --ranks "$ranks" --algo "$algorithm" \
        --sizes "${bytes}B:${bytes}B" --json | /usr/bin/python3 -c 'import json,sys; print("%.9e" % json.load(sys.stdin)["rows"][0]["time_s"])')
      smpi_s=$(cd "$work" && smpirun -np "$ranks" -platform platform.xml -hostfile hosts.txt \
        --cfg=smpi/allreduce:"$smpi_algorithm" $settings --log=root.thresh:critical \
        ./allreduce_timer $((bytes / 4)) 2>/dev/null | tail -1)
      ratio=$(/usr/bin/python3 -c "print(f'{$smpi_s / $dtsim_s:.4f}')")
      printf '%-8s %-18s %5s %10s %14s %14s %9s\n' "$topology" "$algorithm" "$ranks" "$bytes" "$dtsim_s" "$smpi_s" "$ratio"
      /usr/bin/python3 -c "import sys; sys.exit(0 if abs($smpi_s / $dtsim_s - 1) <= 0.05 else 1)" || status=1
    done
  done
done
exit $status
