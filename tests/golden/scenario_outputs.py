#!/usr/bin/env python3
"""Runs one scenario and compares its result files with the stored ones, byte for byte.

    scenario_outputs.py DTSIM SCENARIO.yaml OUTPUT_DIR GOLDEN_DIR [--update]

Every result file (summary.json, metrics.csv, links.csv, sweep.csv, sweep.json, in every sweep point's folder) must
equal its stored copy. summary.json's `scenario` member (the echo of the resolved scenario, which grows as the
language does) and `origin` (the scenario's absolute file name), and sweep.json's `fingerprint` (a hash of
that echo, file names included), are left out of the comparison; everything the run measured must stay the
same. With --update the stored copies are replaced by this run's files.
"""

import json
import pathlib
import shutil
import subprocess
import sys

RESULT_FILES = {"summary.json", "metrics.csv", "links.csv", "sweep.csv", "sweep.json"}


def measured(path: pathlib.Path) -> bytes:
    """The bytes of a result file that the comparison covers."""
    if path.name == "sweep.json":
        manifest = json.loads(path.read_text(encoding="utf-8"))
        manifest.pop("fingerprint", None)
        return (json.dumps(manifest, indent=2, sort_keys=False) + "\n").encode("utf-8")
    if path.name != "summary.json":
        return path.read_bytes()
    summary = json.loads(path.read_text(encoding="utf-8"))
    summary.pop("scenario", None)
    summary.pop("origin", None)
    return (json.dumps(summary, indent=2, sort_keys=False) + "\n").encode("utf-8")


def result_files(folder: pathlib.Path) -> list:
    return sorted(p.relative_to(folder) for p in folder.rglob("*") if p.is_file() and p.name in RESULT_FILES)


def main() -> int:
    if len(sys.argv) not in (5, 6) or (len(sys.argv) == 6 and sys.argv[5] != "--update"):
        print(__doc__, file=sys.stderr)
        return 2
    dtsim, scenario, output, golden = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3]), pathlib.Path(sys.argv[4])
    update = len(sys.argv) == 6
    if output.exists():
        shutil.rmtree(output)
    run = subprocess.run([dtsim, "run", scenario, "-q", "-o", str(output)], check=False)
    if run.returncode != 0:
        print(f"dtsim run {scenario} exited with {run.returncode}", file=sys.stderr)
        return 1
    produced = result_files(output)
    if update:
        if golden.exists():
            shutil.rmtree(golden)
        for relative in produced:
            (golden / relative).parent.mkdir(parents=True, exist_ok=True)
            (golden / relative).write_bytes(measured(output / relative))
        print(f"stored {len(produced)} result files in {golden}")
        return 0
    if not golden.is_dir():
        print(f"no stored results in {golden}: run tests/golden/update_scenario_outputs.sh", file=sys.stderr)
        return 1
    stored = result_files(golden)
    failures = []
    for missing in sorted(set(stored) - set(produced)):
        failures.append(f"{missing}: stored but not written by this run")
    for extra in sorted(set(produced) - set(stored)):
        failures.append(f"{extra}: written by this run but not stored")
    for relative in sorted(set(stored) & set(produced)):
        now = measured(output / relative).decode("utf-8").splitlines()
        before = (golden / relative).read_text(encoding="utf-8").splitlines()
        if now != before:
            first = next((i for i, (a, b) in enumerate(zip(before, now)) if a != b), min(len(now), len(before)))
            failures.append(f"{relative}:{first + 1}: stored  {before[first] if first < len(before) else '<end>'}\n"
                            f"{' ' * (len(str(relative)) + len(str(first + 1)) + 3)}now     "
                            f"{now[first] if first < len(now) else '<end>'}")
    for failure in failures:
        print(failure, file=sys.stderr)
    if failures:
        print(f"{len(failures)} result file(s) differ from {golden}; if the change is intended, "
              "run tests/golden/update_scenario_outputs.sh and commit the stored files", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
