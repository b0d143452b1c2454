#!/usr/bin/env python3
"""Checks that the scenario tests cover every scenario file, and that each has stored results.

    scenario_list_check.py SCENARIOS_DIR GOLDEN_DIR NAME...

NAME is a scenario's path under SCENARIOS_DIR without `.yaml`, as tests/CMakeLists.txt lists them.
"""

import pathlib
import sys

# Files under scenarios/ that are not runs: included by others, or device catalogs.
NOT_RUNS = {"compare/base", "catalogs/devices"}


def main() -> int:
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    scenarios, golden, listed = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), set(sys.argv[3:])
    found = {str(p.relative_to(scenarios).with_suffix("")) for p in scenarios.rglob("*.yaml")} - NOT_RUNS
    problems = [f"scenarios/{name}.yaml is not listed in tests/CMakeLists.txt (dtsim_scenarios)"
                for name in sorted(found - listed)]
    problems += [f"tests/CMakeLists.txt lists {name}, which is not a file under scenarios/"
                 for name in sorted(listed - found)]
    problems += [f"no stored results for {name}: run tests/golden/update_scenario_outputs.sh"
                 for name in sorted(listed & found) if not (golden / name).is_dir()]
    stale = {str(p.parent.relative_to(golden)) for p in golden.rglob("summary.json*")}
    problems += [f"tests/golden/outputs/{name} is stored for a scenario that no longer exists"
                 for name in sorted(stale) if not any(name == n or name.startswith(n + "/") for n in listed)]
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
