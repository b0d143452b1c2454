#!/bin/sh
# One step at scale on the analytical network: the scenario given (default DeepSeek-V3 on 256 B200s, Megatron-Bridge
# 26.02's layout: 61 layers over pipeline 16 x expert 8, 256 micro-batches) run 3 times; prints each run's wall time
# and peak memory (/usr/bin/time) and the median wall time. Issue 72's targets, <= 10 s a step each:
# - DeepSeek-V3 on 2,048 H800 (scenarios/moe/deepseek-v3-h800.yaml: seconds, its replicas standing for each other);
# - DeepSeek-V3 on 1,024 H100 (scenarios/validation/megatron-bridge-deepseek-v3-h100-x1024.yaml: seconds, its experts
#   on their own grid, each tensor rank's stand-in timing the expert groups with the others);
# - Llama 3 405B at 128K tokens on 16,384 H100, context 16 (bench/llama3_405b_128k.yaml: seconds, its context groups'
#   devices standing for each other).
#   usage: bench/step_wall_time.sh [path/to/dtsim] [scenario.yaml]
set -eu
dtsim=${1:-build/release/dtsim}
scenario=${2:-scenarios/validation/bridge-deepseek-v3-b200-mxfp8-x256-2602.yaml}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for i in 1 2 3; do
  /usr/bin/time -f '%e %M' -o "$out/time$i" "$dtsim" run "$scenario" -q -o "$out/run$i" > /dev/null
  read -r wall kb < "$out/time$i"
  printf 'run %s: %s s wall, %s MiB peak\n' "$i" "$wall" "$((kb / 1024))"
  echo "$wall" >> "$out/walls"
done
printf '%s: median %s s a step (3 runs)\n' "$(basename "$scenario" .yaml)" "$(sort -n "$out/walls" | sed -n 2p)"
