"""Result folders written by dtsim, read into pandas DataFrames.

A run's folder holds summary.json, metrics.csv and links.csv (and trace.json, report.html when asked); a
cluster run's (several jobs) holds jobs.csv, utilization.csv and each job's run folder under jobs/; a sweep's
folder holds sweep.csv and one run folder per point; a scaling study's folder holds scaling.csv
and the sweeps weak/ and strong/; a plan's holds plan.csv, plan_candidates.csv and, for each device count N,
N-devices/ with a run folder per split simulated. Files are read when first asked for, then kept.
"""

from __future__ import annotations

import json
import os
from functools import cached_property
from pathlib import Path

import pandas as pd


def _unneutralised(cell):
    """A text cell's value. dtsim's CSV files (csv_field in sim/core/csv.cpp) put an apostrophe before a text that
    starts with = + - @, a tab or a carriage return (one a spreadsheet would run as a formula), and before one that
    starts with an apostrophe and one of those, so that taking it off, as csv_cells does, gives back the text."""
    if isinstance(cell, str) and len(cell) > 1 and cell[0] == "'" and cell[1] in "=+-@\t\r'":
        return cell[1:]
    return cell


def read_csv(source) -> pd.DataFrame:
    """A CSV file or text dtsim wrote, with values in its cells: a DataFrame is data, not a spreadsheet, so text
    cells come without the apostrophe that keeps a spreadsheet from running them."""
    table = pd.read_csv(source)
    for column in table.select_dtypes(include="object").columns:
        table[column] = table[column].map(_unneutralised)
    return table


def _result_folder(folder, marker: str, what: str) -> Path:
    """`folder` (str, bytes or a Path) as a Path, once it holds `marker`, the file a finished `what` always writes."""
    folder = Path(os.fsdecode(folder))
    if not (folder / marker).is_file():
        raise FileNotFoundError(f"{folder}: no {marker} (not the folder of a finished {what})")
    return folder


class Run:
    """One simulated run: its folder, summary.json as a dict, and its tables as DataFrames."""

    def __init__(self, folder):
        self.folder = _result_folder(folder, "summary.json", "dtsim run")

    @cached_property
    def summary(self) -> dict:
        """summary.json: the scenario's seed, versions, `result` and `hosts`."""
        with open(self.folder / "summary.json", encoding="utf-8") as file:
            return json.load(file)

    @property
    def result(self) -> dict:
        """The run's totals: simulated_s, iterations, bytes_sent, staleness, energy, time_to_target, final..."""
        return self.summary["result"]

    @cached_property
    def metrics(self) -> pd.DataFrame:
        """metrics.csv: one row per evaluation (sim_time_s, iteration, epoch, losses, accuracies, bytes, energy)."""
        return read_csv(self.folder / "metrics.csv")

    @cached_property
    def hosts(self) -> pd.DataFrame:
        """One row per worker and server: compute_s, communication_s, wait_s, bytes and messages sent, joules."""
        return pd.DataFrame(self.summary.get("hosts", []))

    @cached_property
    def links(self) -> pd.DataFrame:
        """links.csv: one row per link and direction: its class, bandwidth, bytes carried and utilization."""
        return read_csv(self.folder / "links.csv")

    @property
    def simulated_s(self) -> float:
        return float(self.result["simulated_s"])

    def __repr__(self) -> str:
        final = self.result.get("final", {})
        loss = f", final val_loss {final['val_loss']:.4g}" if "val_loss" in final else ""
        iterations = self.result.get("iterations")
        return f"Run('{self.folder}': {self.simulated_s:.6g} s simulated, {iterations} iterations{loss})"


class Cluster:
    """Several jobs on one cluster (a scenario with `jobs:`): jobs.csv as `table` (one row per job: its devices,
    placement, arrival, start, wait, end, run, alone, slowdown, and the times it was stopped for a job of higher
    priority), `utilization` (devices busy, jobs running and waiting at each change), the cluster's `links` and
    `link_utilization` over time, the `interference` matrix, and each job's own Run in `jobs`."""

    def __init__(self, folder):
        self.folder = _result_folder(folder, "jobs.csv", "cluster run")

    @cached_property
    def summary(self) -> dict:
        """summary.json: the scheduler, makespan_s, mean_wait_s, device_utilization, jobs, interference."""
        with open(self.folder / "summary.json", encoding="utf-8") as file:
            return json.load(file)

    @cached_property
    def table(self) -> pd.DataFrame:
        return read_csv(self.folder / "jobs.csv")

    @cached_property
    def utilization(self) -> pd.DataFrame:
        return read_csv(self.folder / "utilization.csv")

    @cached_property
    def links(self) -> pd.DataFrame:
        """links.csv: each link direction's bytes over all jobs, its utilization over the makespan, the jobs on it."""
        return read_csv(self.folder / "links.csv")

    @cached_property
    def link_utilization(self) -> pd.DataFrame:
        """link_utilization.csv: the busiest link directions' utilization in each of 100 bins of the makespan (t_s is
        the bin's start), one row per bin and direction."""
        return read_csv(self.folder / "link_utilization.csv")

    @cached_property
    def interference(self) -> pd.DataFrame:
        """Row job's time beside the column job alone over its time alone (1 where the two never met)."""
        matrix = self.summary["interference"]
        return pd.DataFrame(matrix["slowdown"], index=matrix["jobs"], columns=matrix["jobs"], dtype=float)

    @cached_property
    def jobs(self) -> dict[str, Run]:
        # Names from summary.json, as written: each job's folder is jobs/<name>.
        return {job["name"]: Run(self.folder / "jobs" / job["name"]) for job in self.summary["jobs"]}

    def __getitem__(self, job: str) -> Run:
        return self.jobs[job]

    def __repr__(self) -> str:
        return (f"Cluster('{self.folder}': {len(self.table)} jobs, makespan {self.summary['makespan_s']:.6g} s, "
                f"mean wait {self.summary['mean_wait_s']:.6g} s)")


def _run_or_cluster(folder: Path) -> Run | Cluster:
    return Cluster(folder) if (folder / "jobs.csv").is_file() else Run(folder)


class Sweep:
    """A sweep: sweep.csv as `table` (one row per point: its axes' values and final figures) and its runs."""

    def __init__(self, folder):
        self.folder = _result_folder(folder, "sweep.csv", "dtsim sweep")

    @cached_property
    def table(self) -> pd.DataFrame:
        # Axis values such as "10GFLOPS" or "ssp" stay text; figures are numbers.
        return read_csv(self.folder / "sweep.csv")

    @property
    def points(self) -> list[str]:
        """The points' labels, in the sweep's order (such as "workers=4,peak_flops=10GFLOPS")."""
        return list(self.table["point"])

    @cached_property
    def runs(self) -> dict[str, Run | Cluster]:
        """Each point's results: a Run, or a Cluster for a scenario of several jobs."""
        return {point: _run_or_cluster(self.folder / point) for point in self.points}

    def __getitem__(self, point: str) -> Run | Cluster:
        return self.runs[point]

    def _joined(self, table: str) -> pd.DataFrame:
        frames = [getattr(run, table).assign(point=point) for point, run in self.runs.items()]
        joined = pd.concat(frames, ignore_index=True)
        return joined[["point"] + [column for column in joined.columns if column != "point"]]

    @property
    def metrics(self) -> pd.DataFrame:
        """Every point's metrics.csv, with a `point` column first."""
        return self._joined("metrics")

    @property
    def hosts(self) -> pd.DataFrame:
        """Every point's hosts, with a `point` column first."""
        return self._joined("hosts")

    @property
    def links(self) -> pd.DataFrame:
        """Every point's links.csv, with a `point` column first."""
        return self._joined("links")

    def __repr__(self) -> str:
        return f"Sweep('{self.folder}': {len(self.points)} points)"


class Scaling:
    """A scaling study: scaling.csv as `table` (mode, workers, time per iteration, speedup, efficiency...) and
    the sweeps it ran, `weak` and `strong` (None for a mode not studied)."""

    def __init__(self, folder):
        self.folder = _result_folder(folder, "scaling.csv", "scaling study")

    @cached_property
    def table(self) -> pd.DataFrame:
        return read_csv(self.folder / "scaling.csv")

    def _mode(self, name: str) -> Sweep | None:
        return Sweep(self.folder / name) if (self.folder / name / "sweep.csv").is_file() else None

    @property
    def weak(self) -> Sweep | None:
        return self._mode("weak")

    @property
    def strong(self) -> Sweep | None:
        return self._mode("strong")

    def __repr__(self) -> str:
        return f"Scaling('{self.folder}': {len(self.table)} rows)"


class Plan:
    """A plan (`dtsim plan`): plan.csv as `table` (one row per split simulated, best first by the plan's objective:
    rank, devices, split, its degrees and choices, estimate_s, iteration_s, per_s, model_flops_utilization,
    peak_memory_bytes, energy_per_unit_j, cost_per_million, run), plan_candidates.csv as `candidates` (every split
    screened: its memory and estimate, whether it was simulated, or why it was discarded), each simulated split's
    Run in `runs` (in the table's order) and the best one's as `best`."""

    def __init__(self, folder):
        self.folder = _result_folder(folder, "plan.csv", "dtsim plan")

    @cached_property
    def table(self) -> pd.DataFrame:
        return read_csv(self.folder / "plan.csv")

    @cached_property
    def candidates(self) -> pd.DataFrame:
        return read_csv(self.folder / "plan_candidates.csv")

    @cached_property
    def runs(self) -> list[Run]:
        """The simulated splits' runs, runs[i] that of table row i: the `run` column names each one's folder,
        N-devices/<point>, relative to the plan's."""
        return [Run(self.folder / run) for run in self.table["run"]]

    @property
    def best(self) -> Run:
        """The run of rank 1 (a plan that simulated nothing is refused by dtsim, so there is one)."""
        return self.runs[0]

    def __repr__(self) -> str:
        best = f", best {self.table['split'].iloc[0]}" if len(self.table) else ""
        return f"Plan('{self.folder}': {len(self.table)} splits simulated{best})"


def load(folder) -> Run | Cluster | Sweep | Scaling | Plan:
    """The results in `folder`, as written by `dtsim run` (a Run, or a Cluster for several jobs), `dtsim sweep`,
    `dtsim scale` or `dtsim plan`."""
    folder = Path(os.fsdecode(folder))
    if (folder / "plan.csv").is_file():
        return Plan(folder)
    if (folder / "scaling.csv").is_file():
        return Scaling(folder)
    if (folder / "sweep.csv").is_file():
        return Sweep(folder)
    return _run_or_cluster(folder)
