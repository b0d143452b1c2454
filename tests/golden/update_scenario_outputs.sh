#!/bin/sh
# Stores every scenario's result files as the expected ones (tests/golden/outputs/), after a change that
# is meant to change results. Review `git diff tests/golden/outputs` before committing it.
#   tests/golden/update_scenario_outputs.sh [BUILD_DIR]    (default build/release)
set -eu
cd "$(dirname "$0")/../.."
build=${1:-build/release}
ctest --test-dir "$build" -N -L scenario | sed -n 's/^ *Test *#[0-9]*: scenario\.//p' | while read -r name; do
  python3 tests/golden/scenario_outputs.py "$build/dtsim" "scenarios/$name.yaml" "$build/tests/output/scenarios/$name" \
    "tests/golden/outputs/$name" --update
done
