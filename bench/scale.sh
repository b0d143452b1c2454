#!/bin/sh
# Scale of one simulation: wall time and peak memory (medians of 3) of
#  - one timing-only GPT-2 XL iteration on dgx_h100 nodes (8 GPUs each, a NIC per GPU) joined by a three-tier
#    k-ary fat tree (the smallest even k whose k^3/4 ports hold the NICs), with the hierarchical and the
#    ring allreduce, at 1,024 / 4,096 / 16,384 / 65,536 GPUs;
#  - one timing-only GPT-3 175B iteration, tensor 8 x pipeline 8 x data (GPUs / 64), on the same fabrics;
#  - a 64 MiB ring, direct and halving-doubling allreduce on a two-level fat tree (arity 16) at 256 / 1,024 /
#    4,096 ranks;
# and the growth exponent of wall time between consecutive sizes (log(t2/t1) / log(n2/n1)). A case that
# runs past LIMIT seconds (default 120) is reported as such, one dtsim refuses with its error; either way its
# larger sizes are skipped.
# Each step runs with `network_model: analytical` (collectives timed at once per group; the workers, all
# alike, simulated as one, or replica 0's 64 ranks for every replica of the model-parallel job) and `alpha_beta` (every message through SimGrid); the collectives on the fat tree
# too (the direct allreduce past 128 ranks under the analytical network only: its every-to-every steps timed from
# the links' loads). MODELS (default "analytical alpha_beta") picks the network models for the steps; PARTS
# (default "steps collectives") which of the two parts run.
#   usage: bench/scale.sh [path/to/dtsim] [LIMIT] [largest GPU count]
set -eu
dtsim=${1:-build/release/dtsim}
limit=${2:-120}
largest=${3:-65536}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

. "$(dirname "$0")/measure.sh"

radix_for() {  # the smallest even k with k^3/4 >= $1
  k=2
  while [ $((k * k * k / 4)) -lt "$1" ]; do k=$((k + 2)); done
  echo "$k"
}

report() {  # case, size, "seconds kib" or timeout, previous size, previous seconds
  if [ "$3" = timeout ]; then
    printf '%-52s %7s  > %s s\n' "$1" "$2" "$limit"
    return
  fi
  if [ "$3" = refused ]; then
    printf '%-52s %7s  refused: %s\n' "$1" "$2" "$(grep -m1 error "$out/err" | sed 's/.*error: //')"
    return
  fi
  # case, size, seconds, kib, previous size, previous seconds
  set -- "$1" "$2" $3 "$4" "$5"
  growth=-
  [ "$5" != - ] && growth=$(awk -v t1="$6" -v t2="$3" -v n1="$5" -v n2="$2" 'BEGIN { printf "%.2f", log(t2 / t1) / log(n2 / n1) }')
  printf '%-52s %7s  %8.2f s  %6.2f GiB  growth %s\n' "$1" "$2" "$3" "$(awk -v k="$4" 'BEGIN { print k / 1048576 }')" "$growth"
}

# The model and training sections of each step case: GPT-2 XL data parallel with the hierarchical or the ring
# allreduce; GPT-3 175B tensor 8 x pipeline 8 x data (a node a tensor group), 1F1B over 8 micro-batches.
# Attention unfused, as when the figures in docs/validation.md were measured (before the default followed the
# device), so that they stay comparable.
sections() {
  case $1 in
    model-parallel) cat <<YAML
model: {kind: "profile:gpt3_175b", attention: unfused}
training:
  parallelism: {tensor: 8, pipeline: 8, microbatches: 8, schedule: 1f1b}
  recomputation: full
  batch: {per_worker: 8}
  optimizer: {kind: adam, learning_rate: 0.00006}
  stop: {iterations: 1}
YAML
    ;;
    *) cat <<YAML
model: {kind: "profile:gpt2_xl", attention: unfused}
training:
  batch: {per_worker: 4}
  optimizer: {kind: adam, learning_rate: 0.0001}
  architecture: {kind: allreduce, algorithm: $1}
  stop: {iterations: 1}
YAML
    ;;
  esac
}

models=${MODELS:-analytical alpha_beta}
parts=${PARTS:-steps collectives}
case " $parts " in *" steps "*) ;; *) models= ;; esac
for case in hierarchical ring model-parallel; do
for model in $models; do
  previous=- ; previous_s=-
  for gpus in 1024 4096 16384 65536; do
    [ "$gpus" -gt "$largest" ] && break
    k=$(radix_for "$gpus")
    cat > "$out/step.yaml" <<YAML
name: scale
cluster:
  workers: $gpus
  device: {name: h100, precision: mixed, efficiency: 0.5}
  nodes:
    - {type: dgx_h100, count: $((gpus / 8))}
topology:
  kind: hierarchical
  fabric: k_ary_fat_tree
  k: $k
  nic: per_device
  network_model: $model
  link: {bandwidth: "400Gbps", latency: "2us"}
$(sections "$case")
YAML
    result=$(measure "$dtsim" run "$out/step.yaml" -q -o "$out/run")
    if [ "$case" = model-parallel ]; then
      label="gpt3-175b step, t8 x p8 x d$((gpus / 64)), k=$k, $model"
    else
      label="gpt2-xl step, $case, k=$k, $model"
    fi
    report "$label" "$gpus" "$result" "$previous" "$previous_s"
    case $result in timeout|refused) break ;; esac
    previous=$gpus ; previous_s=${result% *}
  done
done
done

collectives="ring analytical,ring alpha_beta,direct analytical,direct alpha_beta,halving_doubling analytical"
case " $parts " in *" collectives "*) ;; *) collectives= ;; esac
old_ifs=$IFS
IFS=,
for case in $collectives; do
  IFS=$old_ifs
  set -- $case
  algorithm=$1 ; model=$2
  previous=- ; previous_s=-
  for ranks in 256 1024 4096; do
    result=$(measure "$dtsim" collective --topology fat_tree --arity 16 --ranks "$ranks" --algo "$algorithm" \
               --sizes 64MiB:64MiB --bandwidth 400Gbps --latency 2us --network-model "$model")
    report "64 MiB $algorithm allreduce, fat_tree, $model" "$ranks" "$result" "$previous" "$previous_s"
    case $result in timeout|refused) break ;; esac
    previous=$ranks ; previous_s=${result% *}
  done
done
IFS=$old_ifs
