#!/bin/sh
# Reports at size: the wall time of `dtsim report` over the comparison set (every run of scenarios/compare),
# and over a thousand-worker run with its timeline (bench/thousand_workers.yaml: the trace's size under the
# default bounds, the first 10 of its 12 iterations on 64 of its hosts, and the report's). Medians of 3.
# About 3 minutes, most of it the thousand-worker run.
#   usage: bench/report_scale.sh [path/to/dtsim]
set -eu
dtsim=${1:-build/release/dtsim}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
median3() {  # command...: prints the median wall time of three runs, in seconds
  for i in 1 2 3; do
    start=$(date +%s.%N)
    "$@" > /dev/null
    end=$(date +%s.%N)
    awk "BEGIN { print $end - $start }"
  done | sort -n | sed -n 2p
}
folders=""
for scenario in scenarios/compare/*.yaml; do
  name=$(basename "$scenario" .yaml)
  [ "$name" = base ] && continue
  "$dtsim" run "$scenario" -q -o "$out/compare/$name"
  folders="$folders $out/compare/$name"
done
runs=$(echo $folders | wc -w)
# shellcheck disable=SC2086
t=$(median3 "$dtsim" report $folders -o "$out/compare.html")
printf 'comparison set: %d runs, report %.2f s (median of 3), %s bytes\n' "$runs" "$t" "$(stat -c %s "$out/compare.html")"
start=$(date +%s.%N)
"$dtsim" run bench/thousand_workers.yaml -q -o "$out/thousand"
end=$(date +%s.%N)
printf 'thousand workers: run %.1f s, trace.json %s bytes\n' "$(awk "BEGIN { print $end - $start }")" "$(stat -c %s "$out/thousand/trace.json")"
t=$(median3 "$dtsim" report "$out/thousand" -o "$out/thousand.html")
printf 'thousand workers: report %.2f s (median of 3), %s bytes\n' "$t" "$(stat -c %s "$out/thousand.html")"
