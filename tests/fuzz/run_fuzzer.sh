#!/bin/sh
# Runs the scenario reader fuzzer for SECONDS (default 60) on a corpus seeded from every scenario and
# every invalid case, with the scenario keys as a dictionary. Fails on any crash, leak, timeout or
# sanitizer report; the inputs that caused one are left in the crash folder it prints.
set -eu
fuzzer=$1
seconds=${2:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(dirname "$fuzzer")/fuzz-work
mkdir -p "$work/corpus" "$work/crashes"
find "$root/scenarios" "$root/tests/invalid" "$root/topologies/presets" -name '*.yaml' -exec cp {} "$work/corpus/" \;
# Every key and name of the format, quoted, as libFuzzer dictionary entries.
grep -o '"[a-z_][a-z0-9_]*"' "$root/dtsim.schema.json" | sort -u > "$work/scenario.dict"
echo "dtsim: fuzzing the scenario reader for $seconds s"
"$fuzzer" "$work/corpus" -dict="$work/scenario.dict" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=8192 -artifact_prefix="$work/crashes/" -print_final_stats=1
