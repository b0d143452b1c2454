#!/usr/bin/env python3
"""The wide-area bandwidth each method needs for a compute utilisation, recomputed by dtsim beside Streaming
DiLoCo's table 4 (Douillard et al. 2025, arXiv:2501.18512), its 10B row.

Each method runs scenarios/datacenters/streaming-10b-bandwidth.yaml with its own `training.sync` at each of the
paper's bandwidths. Its compute utilisation is the steady state's: the compute added by 100 more inner steps over
the simulated time they add (so that the exchanges at the end of a run, the same at either length, cancel).

    python3 tools/diloco_bandwidth_table.py [--dtsim build/release/dtsim] [--latency 1us]
"""

import argparse
import json
import pathlib
import subprocess
import tempfile

GRID = [0.4, 0.5, 0.6, 0.7, 0.9, 1.1, 1.4, 1.7, 2.0, 2.4, 3.0, 3.6, 4.3, 5.2, 6.2, 7.5, 9.1, 11.0, 13.3, 16.0,
        19.3, 23.3, 28.1, 33.9, 40.9, 49.4, 59.6, 71.9, 86.8, 104.8, 126.5, 152.6, 184.2, 222.3, 268.3, 323.8,
        390.7, 471.5, 569.0]
LEVELS = [0.5, 0.8, 0.9, 0.95, 0.99]
# Table 4, 10B (48 layers, a step of 0.8 s): Gbit/s for 50, 80, 90, 95 and 99% compute utilisation.
METHODS = [
    ("Data-Parallel", "{strategy: bsp}", [104.8, 222.3, 222.3, 268.3, 471.5]),
    ("DiLoCo", "{strategy: streaming_diloco, inner_steps: 100, fragments: 1, overlap_steps: 0, mixing: 0}",
     [1.7, 7.5, 16.0, 33.9, 104.8]),
    ("Streaming DiLoCo", "{strategy: streaming_diloco, inner_steps: 100, fragments: 16, overlap_steps: 0}",
     [1.7, 5.2, 9.1, 13.3, 19.3]),
    ("... overlapped", "{strategy: streaming_diloco, inner_steps: 100, fragments: 16, overlap_steps: 1}",
     [1.7, 3.6, 5.2, 6.2, 7.5]),
    ("... overlapped, FP4",
     "{strategy: streaming_diloco, inner_steps: 100, fragments: 16, overlap_steps: 1, outer_precision: fp4}",
     [0.4, 0.9, 1.4, 1.4, 1.7]),
]


def run(dtsim, scenario, folder, sync, bandwidth, latency, iterations):
    """The scenario with `sync`, the wide-area link and the run's length replaced, its sweep left out."""
    lines = []
    for line in scenario.read_text().split("\n"):
        if line.startswith("sweep:"):
            break
        if line.startswith("  sync:"):
            line = f"  sync: {sync}" + ("\n  overlap: true" if "bsp" in sync else "")
        elif line.startswith("  wan:"):
            line = f"  wan: {{bandwidth: \"{bandwidth}Gbps\", latency: \"{latency}\"}}"
        elif line.startswith("  stop:"):
            line = f"  stop: {{iterations: {iterations}}}"
        lines.append(line)
    path = folder / "point.yaml"
    path.write_text("\n".join(lines) + "\n")
    subprocess.run([dtsim, "run", str(path), "-o", str(folder / "out"), "-q"], check=True, capture_output=True)
    result = json.loads((folder / "out" / "summary.json").read_text())["result"]
    return result["simulated_s"], result["sites"][0]["compute_s"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dtsim", default="build/release/dtsim")
    parser.add_argument("--latency", default="1us", help="the wide-area link's latency")
    args = parser.parse_args()
    scenario = pathlib.Path("scenarios/datacenters/streaming-10b-bandwidth.yaml").resolve()
    print(f"| method | {' | '.join(f'{int(l * 100)}%' for l in LEVELS)} |")
    print(f"|---|{'---|' * len(LEVELS)}")
    with tempfile.TemporaryDirectory() as scratch:
        folder = pathlib.Path(scratch)
        for name, sync, paper in METHODS:
            # Data-parallel steps are alike: one more step is its steady state.
            short, long = (2, 3) if "bsp" in sync else (200, 300)
            needed = {}
            for bandwidth in GRID:
                a = run(args.dtsim, scenario, folder, sync, bandwidth, args.latency, short)
                b = run(args.dtsim, scenario, folder, sync, bandwidth, args.latency, long)
                utilisation = (b[1] - a[1]) / (b[0] - a[0])
                for level in LEVELS:
                    if level not in needed and utilisation >= level:
                        needed[level] = bandwidth
                if len(needed) == len(LEVELS):
                    break
            cells = [f"{needed.get(l, '>569')} ({p})" for l, p in zip(LEVELS, paper)]
            print(f"| {name} | {' | '.join(cells)} |", flush=True)


if __name__ == "__main__":
    main()
