#!/bin/sh
# One timing-only iteration of a data-parallel model on WORKERS workers (default 65536, the most a scenario may
# declare), message by message: wall time and peak memory. Past 8,192 hosts the actors' stacks run without
# guard pages (sim/runtime/network/engine_session.cpp); with them, about 32,000 actors exhaust vm.max_map_count.
#   usage: bench/large_cluster.sh [path/to/dtsim] [workers]
#   TOPOLOGY=ring (default) or fat_tree (arity 16); MODEL=gpt2_xl (default) or another profile;
#   LIMIT=seconds stops the run there and reports the peak memory so far (a fat tree of 65,536 ranks takes
#   hours an iteration message by message; its memory is flat after the first minute).
set -eu
dtsim=${1:-build/release/dtsim}
workers=${2:-65536}
topology=${TOPOLOGY:-ring}
model=${MODEL:-gpt2_xl}
# Attention unfused for the transformers, as when the figures in docs/limits.md were measured (before the
# default followed the device); ResNet has none.
case $model in resnet*) attention="" ;; *) attention="attention: unfused" ;; esac
limit=${LIMIT:-0}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
case "$topology" in
  ring) shape="kind: ring" ;;
  fat_tree) shape="kind: fat_tree
  arity: 16" ;;
  *) echo "TOPOLOGY must be ring or fat_tree" >&2; exit 2 ;;
esac
cat > "$out/large.yaml" <<YAML
name: large-cluster
cluster:
  workers: $workers
  device: {name: a100, precision: mixed, efficiency: 0.5}
topology:
  $shape
  link: {bandwidth: "200Gbps", latency: "2us"}
model:
  kind: "profile:$model"
  ${attention}
training:
  batch: {per_worker: 4}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 1}
YAML
if [ "$limit" -gt 0 ]; then
  /usr/bin/time -f "%e %M" -o "$out/usage" timeout -s INT "$limit" "$dtsim" run "$out/large.yaml" -q -o "$out/run" || true
  what="stopped after"
else
  /usr/bin/time -f "%e %M" -o "$out/usage" "$dtsim" run "$out/large.yaml" -q -o "$out/run"
  what="one iteration:"
fi
awk -v workers="$workers" -v topology="$topology" -v model="$model" -v what="$what" \
  '$1 ~ /^[0-9.]+$/ { printf "%s on a %s of %d workers, %s wall time %.1f s, peak memory %.2f GiB\n", model, topology, workers, what, $1, $2 / 1048576 }' "$out/usage"
