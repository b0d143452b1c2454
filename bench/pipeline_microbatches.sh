#!/bin/sh
# Long pipelines: one timing-only step of GPT-2 small in 8 stages (a DGX A100, 1F1B) at 2,048 / 8,192 / 16,384 /
# 65,536 micro-batches, and 2 stages at 500,000 (the 10^6 micro-batch passes a run may hold), message by message
# (`alpha_beta`) and under the analytical network. Prints the median wall time and peak memory of `runs` runs
# (default 3, from the environment) and the growth exponent between consecutive sizes (1: linear in the micro-batches).
#   usage: bench/pipeline_microbatches.sh [path/to/dtsim] [LIMIT seconds a run, default 120]
set -eu
dtsim=${1:-build/release/dtsim}
limit=${2:-120}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

. "$(dirname "$0")/measure.sh"

scenario() {  # stages, micro-batches, network model
  cat > "$out/step.yaml" <<YAML
name: long-pipeline
cluster: {workers: $1, device: {name: a100, precision: mixed, efficiency: 0.5}}
topology: {kind: ring, link: {bandwidth: "200Gbps", latency: "2us"}, network_model: $3}
model: {kind: "profile:gpt2_small"}
training:
  parallelism: {pipeline: $1, microbatches: $2, schedule: 1f1b}
  batch: {per_worker: $2}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 1}
YAML
}

for model in alpha_beta analytical; do
  previous=-
  previous_s=-
  for case in "8 2048" "8 8192" "8 16384" "8 65536" "2 500000"; do
    set -- $case
    scenario "$1" "$2" "$model"
    result=$(measure "$dtsim" run "$out/step.yaml" -q -o "$out/run")
    if [ "$result" = timeout ] || [ "$result" = refused ]; then
      printf '%-11s %d stages x %7d micro-batches  %s\n' "$model" "$1" "$2" "$result"
      continue
    fi
    set -- "$1" "$2" $result
    growth=-
    [ "$previous" != - ] && [ "$1" = 8 ] &&
      growth=$(awk -v t1="$previous_s" -v t2="$3" -v n1="$previous" -v n2="$2" 'BEGIN { printf "%.2f", log(t2 / t1) / log(n2 / n1) }')
    printf '%-11s %d stages x %7d micro-batches  %7.2f s  %5d MiB  growth %s\n' "$model" "$1" "$2" "$3" "$(($4 / 1024))" "$growth"
    previous=$2
    previous_s=$3
  done
done
