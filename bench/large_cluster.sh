#!/bin/sh
# One timing-only iteration of GPT-2 XL data-parallel on a ring of WORKERS workers (default 65536, the most a
# scenario may declare): wall time and peak memory. Past 8,192 hosts the actors' stacks run without guard
# pages (sim/runtime/engine_session.cpp); with them, about 32,000 actors exhaust vm.max_map_count.
#   usage: bench/large_cluster.sh [path/to/dtsim] [workers]
set -eu
dtsim=${1:-build/release/dtsim}
workers=${2:-65536}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cat > "$out/large.yaml" <<YAML
name: large-cluster
cluster:
  workers: $workers
  device: {name: a100, precision: mixed, efficiency: 0.5}
topology:
  kind: ring
  link: {bandwidth: "200Gbps", latency: "2us"}
model:
  kind: "profile:gpt2_xl"
training:
  batch: {per_worker: 4}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 1}
YAML
/usr/bin/time -f "%e %M" -o "$out/usage" "$dtsim" run "$out/large.yaml" -q -o "$out/run"
awk -v workers="$workers" '{ printf "%d workers, one iteration: wall time %.1f s, peak memory %.2f GiB\n", workers, $1, $2 / 1048576 }' "$out/usage"
