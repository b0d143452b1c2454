#!/bin/sh
# Real math at scale: wall time and peak memory (medians of RUNS runs, default 3) of runs whose workers compute
# their gradients for real, with the growth exponent of wall time between consecutive sizes
# (log(t2/t1) / log(n2/n1)) and the peak memory per worker:
#  1. quickstart-like logistic regression (64 features), one sample per worker, one epoch (one iteration), ring
#     allreduce on a ring, network_model: analytical, at 1,024 / 4,096 / 16,384 / 65,536 workers; the same
#     under alpha_beta (SimGrid round by round; the ring's chunks of 0 or 1 of 130 values differ, which the phase
#     shortcut does not take) at 1,024 (and once at 4,096), and with every value sent by message
#     (--values-by-message, as before values were computed apart) at 1,024 (and once at 4,096);
#  2. the digits MLP (64 -> 64 relu -> 10) on 1,024 workers for 20 epochs: BSP by ring allreduce (analytical),
#     and asynchronous on 8 parameter-server shards (alpha_beta: a server's pushes and pulls are messages);
#  3. gossip with a random peer on a 4,096-worker random regular graph of degree 4 (alpha_beta), and local SGD
#     (4 local steps) on 4,096 workers on a ring (analytical), 10 epochs each;
#  4. bench/mlp_64_workers.yaml (64 workers, digits MLP, BSP, 20 epochs; target under 20 s).
# Targets (case 1): 4,096 workers <= 5 s; 65,536 <= 60 s and <= 8 GB; growth no faster than p log p from 1,024.
# A case past LIMIT seconds (default 600) is reported as such and its larger sizes skipped.
#   usage: bench/real_math_scale.sh [path/to/dtsim] [largest worker count]
set -eu
dtsim=${1:-build/release/dtsim}
largest=${2:-65536}
runs=${RUNS:-3}
limit=${LIMIT:-600}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

. "$(dirname "$0")/measure.sh"

# case, workers, "seconds kib" or timeout, previous workers, previous seconds
report() {
  if [ "$3" = timeout ]; then
    printf '%-58s %6s  > %s s\n' "$1" "$2" "$limit"
    return
  fi
  if [ "$3" = refused ]; then
    printf '%-58s %6s  refused: %s\n' "$1" "$2" "$(grep -m1 error "$out/err" | sed 's/.*error: //')"
    return
  fi
  set -- "$1" "$2" $3 "$4" "$5"
  growth=-
  [ "$5" != - ] && growth=$(awk -v t1="$6" -v t2="$3" -v n1="$5" -v n2="$2" 'BEGIN { printf "%.2f", log(t2 / t1) / log(n2 / n1) }')
  printf '%-58s %6s  %8.2f s  %7.3f GiB  %6.1f KB/worker  growth %s\n' "$1" "$2" "$3" \
    "$(awk -v k="$4" 'BEGIN { print k / 1048576 }')" "$(awk -v k="$4" -v n="$2" 'BEGIN { print k * 1.024 / n }')" "$growth"
}

# workers, network model: the quickstart's logistic regression, one sample per worker, one iteration
logistic() {
  cat <<YAML
name: logistic-scale
seed: 42
cluster: {workers: $1, device: {name: cpu-core, peak_flops: "100GFLOPS", efficiency: 0.5}}
topology: {kind: ring, network_model: $2, link: {bandwidth: "10Gbps", latency: "5us"}}
model: {kind: logistic_regression}
data: {kind: synthetic_classification, samples: $(($1 * 5 / 4)), features: 64, validation_fraction: 0.2, label_noise: 0.1}
training:
  batch: {per_worker: 1}
  optimizer: {kind: sgd, learning_rate: 0.5}
  sync: {strategy: bsp}
  architecture: {kind: allreduce, algorithm: ring}
  stop: {epochs: 1}
YAML
}

sweep_logistic() {  # label, network model, largest, extra flags
  previous=- ; previous_s=-
  for workers in 1024 4096 16384 65536; do
    [ "$workers" -gt "$3" ] && break
    logistic "$workers" "$2" > "$out/case.yaml"
    result=$(measure "$dtsim" run "$out/case.yaml" -q $4 -o "$out/run")
    report "$1" "$workers" "$result" "$previous" "$previous_s"
    case $result in timeout|refused) break ;; esac
    previous=$workers ; previous_s=${result% *}
  done
}

sweep_logistic "logistic, ring, analytical" analytical "$largest" ""
# SimGrid times every round of these rings (minutes at 4,096 workers): one run at 4,096.
sweep_logistic "logistic, ring, alpha_beta" alpha_beta 1024 ""
sweep_logistic "logistic, ring, alpha_beta, --values-by-message" alpha_beta 1024 "--values-by-message"
saved_runs=$runs
runs=1
for flags in "" "--values-by-message"; do
  logistic 4096 alpha_beta > "$out/case.yaml"
  result=$(measure "$dtsim" run "$out/case.yaml" -q $flags -o "$out/run")
  report "logistic, ring, alpha_beta $flags (1 run)" 4096 "$result" - -
done
runs=$saved_runs

# name, workers, topology, sync, architecture, epochs, samples per worker
digits_like() {
  cat <<YAML
name: $1
seed: 3
cluster: {workers: $2, device: {name: laptop-core, peak_flops: "10GFLOPS", efficiency: 0.5}}
topology: $3
model: {kind: mlp, layers: [64]}
data: {kind: digits}
training:
  batch: {per_worker: 1}
  optimizer: {learning_rate: 0.1}
  sync: $4
  architecture: $5
  stop: {epochs: $6}
YAML
}

digits_like digits-bsp 1024 "{kind: ring, network_model: analytical, link: {bandwidth: \"10Gbps\", latency: \"5us\"}}" \
  "{strategy: bsp}" "{kind: allreduce, algorithm: ring}" 20 > "$out/case.yaml"
report "digits MLP, BSP ring allreduce, analytical, 20 epochs" 1024 "$(measure "$dtsim" run "$out/case.yaml" -q -o "$out/run")" - -
digits_like digits-async 1024 "{kind: parameter_server, link: {bandwidth: \"10Gbps\", latency: \"5us\"}}" \
  "{strategy: async}" "{kind: parameter_server, shards: 8}" 20 > "$out/case.yaml"
report "digits MLP, async, 8 server shards, 20 epochs" 1024 "$(measure "$dtsim" run "$out/case.yaml" -q -o "$out/run")" - -

# workers, topology, sync: logistic regression, 4 samples per worker, 10 epochs
decentralized() {
  cat <<YAML
name: decentralized
seed: 5
cluster: {workers: $1, device: {name: cpu-core, peak_flops: "100GFLOPS", efficiency: 0.5}}
topology: $2
model: {kind: logistic_regression}
data: {kind: synthetic_classification, samples: $(($1 * 5)), features: 64, validation_fraction: 0.2, label_noise: 0.1}
training:
  batch: {per_worker: 1}
  optimizer: {kind: sgd, learning_rate: 0.5}
  sync: $3
  architecture: {kind: allreduce, algorithm: ring}
  stop: {epochs: 10}
  evaluate_every: 10
YAML
}
decentralized 4096 "{kind: random_regular, degree: 4, link: {bandwidth: \"10Gbps\", latency: \"5us\"}}" \
  "{strategy: gossip, peers: random}" > "$out/case.yaml"
report "gossip, random regular graph of degree 4, 10 epochs" 4096 "$(measure "$dtsim" run "$out/case.yaml" -q -o "$out/run")" - -
decentralized 4096 "{kind: ring, network_model: analytical, link: {bandwidth: \"10Gbps\", latency: \"5us\"}}" \
  "{strategy: local_sgd, local_steps: 4}" > "$out/case.yaml"
report "local SGD (4 local steps), ring, analytical, 10 epochs" 4096 "$(measure "$dtsim" run "$out/case.yaml" -q -o "$out/run")" - -

report "bench/mlp_64_workers.yaml (target < 20 s)" 64 "$(measure "$dtsim" run bench/mlp_64_workers.yaml -q -o "$out/run")" - -
