#!/usr/bin/python3
"""Checks the JSON Schema printed by `dtsim schema` against real files: every scenario under
scenarios/ must be accepted, and each case of tests/invalid/ must get the verdict its second line
declares (`# json-schema: rejects`, `accepts` when its fault is beyond what a JSON Schema can say, such
as a cross-field contradiction or a feature not supported yet, or `skip` when the file is not YAML a
schema can see on its own: syntax errors, duplicate keys, includes)."""
import json
import pathlib
import subprocess
import sys

import jsonschema
import yaml


def main() -> int:
    dtsim, source = sys.argv[1], pathlib.Path(sys.argv[2])
    schema = json.loads(subprocess.run([dtsim, "schema"], check=True, capture_output=True, text=True).stdout)
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    failures = []
    checked = 0
    for path in sorted((source / "scenarios").rglob("*.yaml")):
        document = yaml.safe_load(path.read_text())
        # Catalogs are fragments for `include`, not scenarios.
        if "catalogs" in path.parts:
            continue
        checked += 1
        errors = [e.message for e in validator.iter_errors(document)]
        if errors:
            failures.append(f"{path}: a valid scenario is rejected: {errors[0]}")
    for path in sorted((source / "tests" / "invalid").glob("[0-9]*.yaml")):
        # Some cases hold bytes that are not UTF-8 on purpose; their verdict line is plain ASCII.
        verdict = path.read_bytes().decode("utf-8", "replace").splitlines()[1].removeprefix("# json-schema: ").strip()
        if verdict == "skip":
            continue
        checked += 1
        rejected = any(True for _ in validator.iter_errors(yaml.safe_load(path.read_text())))
        if rejected != (verdict == "rejects"):
            failures.append(f"{path}: expected the schema to {verdict[:-1]}, it did the opposite")
    for failure in failures:
        print(failure)
    print(f"{checked} files checked against the JSON Schema, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
