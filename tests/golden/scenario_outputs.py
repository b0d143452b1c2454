#!/usr/bin/env python3
"""Runs one scenario and compares its result files with the stored ones, byte for byte.

    scenario_outputs.py DTSIM SCENARIO.yaml OUTPUT_DIR GOLDEN_DIR [--update]

Every result file (summary.json, metrics.csv, links.csv, sweep.csv, sweep.json, a cluster run's jobs.csv and
utilization.csv and link_utilization.csv, in every sweep point's and job's folder) must
equal its stored copy. summary.json's `scenario` member (the echo of the resolved scenario, which grows as the
language does) and `origin` (the scenario's absolute file name), and sweep.json's `fingerprint` (a hash of
that echo, file names included), are left out of the comparison; everything the run measured must stay the
same. With --update the stored copies are replaced by this run's files. A stored copy over 4 MiB (links.csv of
thousands of GPUs, summary.json of 16,384), or over 256 KiB in a sweep point's folder (many points of a large
cluster), is kept gzip-compressed as NAME.gz and compared uncompressed; a validation scenario's summary.json,
which the validation table reads, is always kept plain.
"""

import gzip
import json
import pathlib
import shutil
import subprocess
import sys

RESULT_FILES = {"summary.json", "metrics.csv", "links.csv", "sweep.csv", "sweep.json", "jobs.csv", "utilization.csv",
                "link_utilization.csv"}
# The largest stored copy kept as it is; larger ones are kept compressed, so that the repository stays small.
PLAIN_LIMIT = 4 * 1024 * 1024
POINT_PLAIN_LIMIT = 256 * 1024


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


def stored_files(golden: pathlib.Path) -> list:
    """The stored copies, each named as the run writes it (NAME for NAME.gz)."""
    out = []
    for p in golden.rglob("*"):
        name = p.name[:-3] if p.name.endswith(".gz") else p.name
        if p.is_file() and name in RESULT_FILES:
            out.append(p.relative_to(golden).with_name(name))
    return sorted(out)


def stored_bytes(golden: pathlib.Path, relative: pathlib.Path) -> bytes:
    plain = golden / relative
    if plain.exists():
        return plain.read_bytes()
    return gzip.decompress(plain.with_name(plain.name + ".gz").read_bytes())


def store(golden: pathlib.Path, relative: pathlib.Path, data: bytes) -> None:
    target = golden / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    read_as_it_is = relative.name == "summary.json" and "validation" in golden.parts
    limit = POINT_PLAIN_LIMIT if len(relative.parts) > 1 else PLAIN_LIMIT
    if len(data) > limit and not read_as_it_is:
        # mtime 0: the same bytes give the same file.
        target.with_name(target.name + ".gz").write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
    else:
        target.write_bytes(data)


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
            store(golden, relative, measured(output / relative))
        print(f"stored {len(produced)} result files in {golden}")
        return 0
    if not golden.is_dir():
        print(f"no stored results in {golden}: run tests/golden/update_scenario_outputs.sh", file=sys.stderr)
        return 1
    stored = stored_files(golden)
    failures = []
    for missing in sorted(set(stored) - set(produced)):
        failures.append(f"{missing}: stored but not written by this run")
    for extra in sorted(set(produced) - set(stored)):
        failures.append(f"{extra}: written by this run but not stored")
    for relative in sorted(set(stored) & set(produced)):
        now = measured(output / relative).decode("utf-8").splitlines()
        before = stored_bytes(golden, relative).decode("utf-8").splitlines()
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
