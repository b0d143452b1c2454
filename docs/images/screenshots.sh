#!/bin/sh
# Takes the screenshots docs/reports.md shows, with headless Chromium, from reports dtsim writes:
#   docs/images/screenshots.sh [path/to/dtsim]      (from the repository root)
set -eu
dtsim=${1:-build/release/dtsim}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
shoot() {  # page, png, height
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$out/profile" --virtual-time-budget=30000 \
    --hide-scrollbars --window-size=1000,"$3" --screenshot="$2" "file://$1" 2>/dev/null
}
# Only the sections whose heading starts with $2 (and the page's scripts): one chart to a picture.
only() {
  python3 - "$1" "$2" <<'PY'
import re, sys
page, keep = sys.argv[1], sys.argv[2]
text = open(page, encoding="utf-8").read()
text = re.sub(r"<section>\s*<h2>(?!" + re.escape(keep) + r").*?</section>", "", text, flags=re.S)
text = re.sub(r"<h2>Scenarios as dtsim read them</h2>.*?(?=<script>)", "", text, flags=re.S)
open(page, "w", encoding="utf-8").write(text)
PY
}
"$dtsim" run scenarios/compare/straggler.yaml -q --report -o "$out/straggler"
shoot "$out/straggler/report.html" docs/images/report-run.png 1400
cp "$out/straggler/report.html" "$out/timeline.html"
only "$out/timeline.html" "Timeline"
shoot "$out/timeline.html" docs/images/report-timeline.png 560
for s in no-straggler straggler-ssp straggler-async allreduce-straggler; do
  "$dtsim" run "scenarios/compare/$s.yaml" -q -o "$out/$s"
done
"$dtsim" report "$out/no-straggler" "$out/straggler" "$out/straggler-ssp" "$out/straggler-async" \
  "$out/allreduce-straggler" -o "$out/comparison.html" > /dev/null
only "$out/comparison.html" "Loss against simulated time"
shoot "$out/comparison.html" docs/images/report-comparison.png 900
"$dtsim" scale scenarios/scaling/digits-mlp.yaml --workers 1,2,4,8,16,32,64 -q -o "$out/scaling"
shoot "$out/scaling/report.html" docs/images/report-scaling.png 1500
echo "wrote docs/images/report-run.png report-timeline.png report-comparison.png report-scaling.png"
