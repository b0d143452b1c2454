"""dtsim from Python: validate, run, sweep, scale, plan and compare scenarios, with results as pandas DataFrames.

    import dtsim
    run = dtsim.run("scenarios/quickstart.yaml")
    run.metrics          # metrics.csv: loss and accuracy against simulated time
    run.hosts, run.links # per worker and server, per link
    sweep = dtsim.sweep("scenarios/course/05-bsp.yaml")
    sweep.table          # sweep.csv: one row per point
    plan = dtsim.plan("scenarios/plan/gpt2-medium-a100-x16.yaml", gpus=16, top=3)
    plan.table           # plan.csv: the simulated splits, best first; plan.best is rank 1's Run

Every run is simulated in a child process (the simulator allows one engine per process), so a notebook can
run as many as it likes; an interrupt (Ctrl-C, Jupyter's stop button) stops it. Bad input raises
ScenarioError with dtsim's report (file:line:col, what was expected, a hint).
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
import numbers
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

try:
    import pandas as pd
except ModuleNotFoundError as missing:
    raise ModuleNotFoundError(
        "dtsim's Python package gives results as pandas DataFrames, and this Python has no pandas: install it "
        "(Debian: apt install python3-pandas; elsewhere: python3 -m pip install pandas)", name="pandas") from missing

from . import _dtsim
from .progress import Progress, receiver
from .results import Cluster, Plan, Run, Scaling, Sweep, load, read_csv

__all__ = ["ScenarioError", "SimulationError", "Run", "Cluster", "Sweep", "Scaling", "Plan", "load", "validate",
           "explain", "run", "sweep", "scale", "plan", "compare", "report", "collective", "catalog", "__version__"]

__version__ = _dtsim.version


class ScenarioError(ValueError):
    """A scenario (or a result folder) dtsim refuses; the message is dtsim's report, as on the command line."""


class SimulationError(RuntimeError):
    """The simulation crashed (one that runs past its `timeout` raises TimeoutError instead)."""


def _checked(outcome: tuple[str, str]) -> str:
    kind, text = outcome
    if kind == "input":
        raise ScenarioError(text.rstrip("\n"))
    if kind == "timed_out":
        raise TimeoutError(text)
    if kind != "ok":
        raise SimulationError(text)
    return text


def _executable() -> str:
    """The dtsim that runs a sweep's points: $DTSIM_EXECUTABLE, the installed one beside this package
    (<prefix>/lib/pythonX.Y/site-packages/dtsim -> <prefix>/bin/dtsim), else the one built with it."""
    chosen = os.environ.get("DTSIM_EXECUTABLE")
    if chosen:
        if not Path(chosen).is_file():
            raise FileNotFoundError(f"DTSIM_EXECUTABLE names {chosen}, which is not a file")
        return chosen
    here = Path(__file__).resolve()
    built = Path(_dtsim.built_executable)
    if built.parent == here.parents[2]:  # the package in the build tree: <build>/python/dtsim
        return str(built)
    if len(here.parents) > 4:
        installed = here.parents[4] / "bin" / "dtsim"
        if installed.is_file():
            return str(installed)
    return str(built)


def _path(value) -> str:
    """A path (str, bytes or os.PathLike) as str. A POSIX path is bytes that need not be UTF-8: bytes are decoded as
    os.fsdecode does, and _dtsim encodes the str back to the same bytes."""
    return os.fsdecode(value)


def _whole(value) -> bool:
    """An integer, numpy's too, and not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _arguments(seed=None, jobs=0, timeout=None, threads=0) -> tuple:
    """seed, jobs, timeout and threads within the command line's limits (numpy's numbers too), or ValueError in its
    words."""
    if seed is not None and not (_whole(seed) and 0 <= seed < 2**64):
        raise ValueError(f"a seed is a whole number from 0 to 18446744073709551615 (2^64-1), got {seed!r}")
    if not (_whole(jobs) and 0 <= jobs <= 1024):
        raise ValueError(f"jobs is a sweep's points at once, 1 to 1024, or 0 for the cores; got {jobs!r}")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, numbers.Real) or not timeout > 0):
        raise ValueError(f"timeout is seconds, more than 0 (or None: no limit); got {timeout!r}")
    if not (_whole(threads) and 0 <= threads <= 1024):
        raise ValueError(f"threads is for the workers' real math, 1 to 1024, or 0 for the cores; got {threads!r}")
    return (None if seed is None else int(seed)), int(jobs), (None if timeout is None else float(timeout)), int(threads)


def _whole_counts(given, name: str, what: str, example: str, single: bool = False) -> list[int]:
    """`given` as a flag of counts takes them: one or more whole numbers from 1 to 65,536 (numpy's too), with
    `single` one alone too; else TypeError or ValueError naming `name`, `what` it is and an `example`."""
    if single and _whole(given):
        given = [given]
    if isinstance(given, (str, bytes)) or not isinstance(given, Iterable):
        raise TypeError(f"{name} is {what}, such as {example}; got {given!r}")
    counts = list(given)
    if not counts or not all(_whole(count) and 1 <= count <= 65536 for count in counts):
        raise ValueError(f"{name} are one or more whole numbers from 1 to 65,536, such as {example}; got {counts!r}")
    return [int(count) for count in counts]


def _worker_counts(workers) -> list[int]:
    """`workers` as `dtsim scale --workers` takes them."""
    return _whole_counts(workers, "workers", "a list of worker counts", "[1, 2, 4, 8]")


def _device_counts(gpus) -> list[int]:
    """`gpus` as `dtsim plan --gpus` takes them: a count, or a list of them."""
    return _whole_counts(gpus, "gpus", "a device count, or a list of them", "16 or [256, 512]", single=True)


# The counts a plan's keywords fix besides its degrees, with the ranges of `dtsim plan`'s flags of the same names:
# what each is, the least and the most.
_PLAN_COUNTS = {"microbatches": ("a micro-batch count", 1, 65536), "zero": ("a ZeRO stage", 0, 3)}


def _plan_count(name: str, value, what: str, least: int, most: int) -> int | None:
    """`value` as an int within [least, most], or None; else TypeError or ValueError saying what it takes."""
    if value is not None and not (_whole(value) and least <= value <= most):
        error = ValueError if _whole(value) else TypeError
        raise error(f"{name} fixes {what}: a whole number from {least} to {most:,}, or None to try every one; "
                    f"got {value!r}")
    return None if value is None else int(value)


def _plan_degrees(degrees: dict) -> dict:
    """The parallel degrees fixed, by axis name (dtsim checks the names against its axes), as ints; None leaves
    one to the search. TypeError or ValueError for a value that is no degree."""
    fixed = {}
    for name, value in degrees.items():
        article = "an" if name[:1] in "aeiou" else "a"
        degree = _plan_count(name, value, f"{article} {name.replace('_', ' ')} degree", 1, 65536)
        if degree is not None:
            fixed[name] = degree
    return fixed


def _name_or_none(keyword: str, value, example: str) -> str | None:
    """A keyword that names a choice (dtsim checks the name): a str, or None; else TypeError."""
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{keyword} is a name such as {example!r}, or None; got {value!r}")
    return value


def _simulated(call, progress: Progress) -> str:
    """Calls _dtsim's `call(progress_receiver)` with the lines drawn or passed on as `progress` asks."""
    lines = receiver(progress)
    try:
        return _checked(call(lines))
    finally:
        if lines is not None:
            lines.close()


def _set_dotted(document: dict, path: str, value) -> None:
    """Sets `path` ("training.optimizer.learning_rate") of a nested dict, making the mappings on the way."""
    keys = path.split(".")
    node = document
    for depth, key in enumerate(keys[:-1]):
        child = node.setdefault(key, {})
        if not isinstance(child, dict):
            raise ValueError(f"override {path!r}: {'.'.join(keys[:depth + 1])} is a value, not a mapping")
        node = child
    node[keys[-1]] = value


def _plain(value):
    """A value json cannot write as it is: numpy's numbers as Python's, paths as text."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise TypeError(f"a scenario value must be a number, text, bool, list or mapping, got {type(value).__name__}")


def _scenario_folder(confine) -> Path:
    """Where _scenario_file writes: out/.scenarios/ of the working directory, or of the confined folder, since a
    confined run writes nowhere else. That folder may be someone else's: a link in it must not lead out of it."""
    if confine is None:
        return Path("out") / ".scenarios"
    root = Path(_path(confine)).resolve()
    if not root.is_dir():  # as _dtsim says it, before a folder of that name is made here
        raise ScenarioError(f"{_path(confine)}: error: --confine names no folder\n"
                            "  hint: give the folder a scenario may read files from")
    folder = root / "out" / ".scenarios"
    if not folder.resolve().is_relative_to(root):
        raise ScenarioError(f"{folder}: error: leads outside {root}, the only folder a confined run writes in\n"
                            "  hint: the package writes the scenarios it runs there: remove the link")
    return folder


def _scenario_file(scenario, overrides=None, points=None, confine=None) -> str:
    """The scenario file to run. A path without overrides or points is run as it is. Otherwise (a dict, or
    overrides or points) a file is written for them under out/.scenarios/ (of the confined folder when `confine`
    is given), named by its content so that the same call runs the same file and writes the same results: the
    dict itself, or a file that includes the scenario's, with each override (a dotted path through mappings: its
    keys win, as an including file's do) and the sweep of `points`."""
    if not isinstance(scenario, Mapping) and not overrides and points is None:
        return _path(scenario)
    if isinstance(scenario, Mapping):
        document = copy.deepcopy(dict(scenario))
    else:
        included = os.path.abspath(_path(scenario))
        try:
            included.encode()
        except UnicodeEncodeError:  # bytes os.fsdecode could not decode, which no UTF-8 file can name
            raise ScenarioError(f"{included}: error: overrides and points are given to dtsim in a scenario file that "
                                "includes this one, and a scenario file is UTF-8 text, which this path is not\n"
                                "  hint: rename the file, or link to it from a UTF-8 name") from None
        document = {"include": [included]}
    for path, value in (overrides or {}).items():
        _set_dotted(document, path, value)
    if points is not None:
        document["sweep"] = {"points": [dict(point) for point in points]}
    text = json.dumps(document, indent=2, default=_plain) + "\n"  # JSON is YAML
    folder = _scenario_folder(confine)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (hashlib.sha256(text.encode()).hexdigest()[:16] + ".yaml")
    if not path.is_file() or path.read_text() != text:
        partial = path.with_name(f".{path.name}.{os.getpid()}")
        partial.unlink(missing_ok=True)  # a link left there must not be written through: "x" makes a new file
        with partial.open("x", encoding="utf-8") as file:
            file.write(text)
        os.replace(partial, path)
    return str(path.resolve())


def _confine(folder):
    return None if folder is None else _path(folder)


def validate(*files, confine=None, records: bool = False) -> str | list[dict]:
    """Checks scenario files without simulating them (every sweep point). Returns dtsim's "FILE: ok ..."
    lines; raises ScenarioError listing every problem of every file. confine: a folder; includes, data and
    traces outside it are errors (as `--confine`: the way to check a scenario someone else wrote).

    records: return every problem of every file as a dict instead of raising, as `dtsim validate --json` prints
    them: file, line, column (1-based; 0 where the problem is the whole file), key ("" where none), message, hint
    ("" where none) and included_from (a list of {file, line, column}, innermost first); an empty list when every
    file is valid. A `confine` that names no folder still raises ScenarioError: no file was checked."""
    if not files:
        raise TypeError("validate() needs at least one scenario file")
    outcome = _dtsim.validate([_path(file) for file in files], _confine(confine), bool(records))
    if records and outcome[0] == "ok":
        return outcome[1]
    return _checked(outcome)


def explain(scenario, *, confine=None) -> str:
    """The scenario as dtsim reads it (includes merged, defaults filled), as YAML text. confine: as validate's."""
    return _checked(_dtsim.explain(_path(scenario), _confine(confine)))


def run(scenario, output=None, *, seed: int | None = None, point: str | None = None, report: bool = False,
        jobs: int = 0, force: bool = False, every_rank: bool = False, timeout: float | None = None,
        progress: Progress = None, confine=None, overrides: Mapping | None = None, threads: int = 0,
        values_by_message: bool = False) -> Run | Cluster | Sweep:
    """Simulates a scenario (a file, or a dict of its sections) and returns its results: a Run (a Cluster for a
    scenario of several jobs), or a Sweep when the scenario has a sweep (unless `point` picks one of its points).

    overrides: {"training.optimizer.learning_rate": 0.2, ...}, dotted paths through mappings set over the
    scenario's own values (a dict scenario's paths to files are best absolute: it runs from out/.scenarios/, that
    of the working directory, or of the confined folder when confine is given).
    output: the result folder (default: the scenario's outputs.folder, else out/<scenario name>).
    seed: overrides the scenario's. report: also write report.html. jobs: a sweep's points at once (0: the
    cores). force: run a sweep's points again even when done. timeout: seconds before the simulation is
    stopped (TimeoutError). progress: None (default) draws a progress line on stderr once the call has run
    for a second, True from the start, False never; a function is called with each progress line instead.
    confine: a folder; includes, data and traces outside it are refused (as `--confine`: the way to run a
    scenario someone else wrote), and the scenario written for a dict or overrides goes to its out/.scenarios/.
    threads: for the workers' real math (0: the cores; 1: none besides the simulation's); the results do not
    depend on it. values_by_message: send every value of a real model's
    collectives by message instead of computing them apart (the same results, slower)."""
    seed, jobs, timeout, threads = _arguments(seed, jobs, timeout, threads)
    file = _scenario_file(scenario, overrides, confine=confine)
    folder = _simulated(
        lambda lines: _dtsim.run(file, None if output is None else _path(output), seed, point, report,
                                 force, jobs, every_rank, False, _executable(), timeout, lines, _confine(confine),
                                 threads, bool(values_by_message)),
        progress)
    return load(folder)


def sweep(scenario, output=None, *, seed: int | None = None, report: bool = False, jobs: int = 0,
          force: bool = False, timeout: float | None = None, progress: Progress = None, confine=None,
          overrides: Mapping | None = None, points: list | None = None, threads: int = 0,
          values_by_message: bool = False) -> Sweep:
    """Runs every point of a scenario's sweep and returns the Sweep; a scenario without one is refused.
    points: the sweep itself, [{"training.parallelism.tensor": 8, ...}, ...] (as `sweep.points`, replacing the
    scenario's own sweep). overrides: as run's. progress: as run's, a line per point done. confine, threads and
    values_by_message: as run's, for every point."""
    seed, jobs, timeout, threads = _arguments(seed, jobs, timeout, threads)
    file = _scenario_file(scenario, overrides, points, confine)
    folder = _simulated(
        lambda lines: _dtsim.run(file, None if output is None else _path(output), seed, None, report,
                                 force, jobs, False, True, _executable(), timeout, lines, _confine(confine),
                                 threads, bool(values_by_message)),
        progress)
    return Sweep(folder)


def scale(scenario, workers, mode: str = "both", output=None, *, plan: bool = False, seed: int | None = None,
          jobs: int = 0, force: bool = False, timeout: float | None = None, progress: Progress = None,
          confine=None) -> Scaling:
    """A weak and/or strong scaling study over `workers` (such as [1, 2, 4, 8]); mode is "weak", "strong" or
    "both". plan: split each count as `dtsim plan` ranks best by its estimate (`dtsim scale --plan`; a profile
    model). Returns the Scaling (scaling.csv as `table`, the sweeps as `weak` and `strong`). progress: as
    run's, a line per point done, led by its mode. confine: as run's."""
    if mode not in ("weak", "strong", "both"):
        raise ValueError(f'mode must be "weak", "strong" or "both", not {mode!r}')
    seed, jobs, timeout, _ = _arguments(seed, jobs, timeout)
    counts = _worker_counts(workers)
    folder = _simulated(
        lambda lines: _dtsim.scale(_path(scenario), counts, mode, bool(plan), None if output is None else _path(output), seed,
                                   jobs, force, _executable(), timeout, lines, _confine(confine)), progress)
    return Scaling(folder)


def plan(scenario, gpus, output=None, *, top: int = 20, objective: str = "tokens_per_s", seed: int | None = None,
         jobs: int = 0, force: bool = False, timeout: float | None = None, progress: Progress = None, confine=None,
         microbatches: int | None = None, zero: int | None = None, recomputation: str | None = None,
         schedule: str | None = None, keep_placement: bool = False, max_memory: str | None = None,
         **degrees) -> Plan:
    """The best ways to split the scenario's model (a `profile:`) over `gpus` devices (a count, or a list of counts),
    as `dtsim plan` finds them: every split screened by the checks and the memory model, ranked by an estimate, the
    best `top` of each count simulated and ordered by `objective` ("tokens_per_s", "cost" or "energy"). Returns the
    Plan: plan.csv as `table` (best first), plan_candidates.csv as `candidates`, the simulated splits' `runs` and
    `best`.

    output: the plan's folder (default: out/<scenario name>-plan, as `dtsim plan`'s). A degree by its axis' name
    (tensor=8, pipeline=, context=, expert_tensor=, expert=: each axis the planner tries, as `dtsim plan --tensor`
    does), microbatches, zero, recomputation ("none", "selective" or "full"), schedule (such as "1f1b") and
    keep_placement fix those choices, max_memory (a size such as "70GiB") caps a device's memory, as the flags of
    the same names do; None leaves a choice to the search. seed, jobs (simulations at once), force, timeout,
    progress (a line as candidates are screened, then one per split simulated) and confine: as scale's."""
    if not (_whole(top) and 1 <= top <= 1000):
        raise ValueError(f"top is the splits simulated per device count, 1 to 1000; got {top!r}")
    if not isinstance(objective, str):
        raise TypeError(f'objective is "tokens_per_s", "cost" or "energy"; got {objective!r}')
    seed, jobs, timeout, _ = _arguments(seed, jobs, timeout)
    counts = _device_counts(gpus)
    fixed = _plan_degrees(degrees)
    counts_fixed = [_plan_count(name, value, *_PLAN_COUNTS[name])
                    for name, value in (("microbatches", microbatches), ("zero", zero))]
    choices = (_name_or_none("recomputation", recomputation, "selective"), _name_or_none("schedule", schedule, "1f1b"),
               bool(keep_placement), _name_or_none("max_memory", max_memory, "70GiB"))
    folder = _simulated(
        lambda lines: _dtsim.plan(_path(scenario), counts, int(top), objective, fixed, *counts_fixed, *choices,
                                  None if output is None else _path(output), seed, jobs, force, _executable(), timeout,
                                  lines, _confine(confine)), progress)
    return Plan(folder)


def compare(*results) -> pd.DataFrame:
    """Finished runs side by side, one row each (a Sweep, Scaling or Plan gives one row per run): simulated time,
    time to the target loss, final loss, staleness, waiting, bytes. Takes Run, Sweep, Scaling and Plan objects or
    result folders."""
    return read_csv(io.StringIO(_checked(_dtsim.compare(_folders_of(results, "compare")))))


def report(*results, output=None) -> Path:
    """report.html of finished runs, as `dtsim report` draws it (learning curves, every worker's timeline, the
    busiest links; several runs share each chart's axes). Takes what compare() takes. output: the file to
    write (default: <folder>/report.html for one folder, ./report.html for several). Returns its path."""
    folders = _folders_of(results, "report")
    return Path(_checked(_dtsim.report(folders, None if output is None else _path(output))))


def _folders_of(results, caller: str) -> list[str]:
    """The result folders that Run, Sweep, Scaling and Plan objects or folder paths stand for."""
    if not results:
        raise TypeError(f"{caller}() needs at least one run or result folder")
    folders = []
    for result in results:
        if isinstance(result, Scaling):
            folders += [_path(mode.folder) for mode in (result.weak, result.strong) if mode is not None]
        elif isinstance(result, Plan):
            # Its simulated splits, best first; the folder itself holds no run.
            folders += [_path(run.folder) for run in result.runs]
        else:
            folders.append(_path(result.folder if isinstance(result, (Run, Sweep)) else result))
    return folders


def collective(operation: str = "allreduce", algorithm: str = "all", *, ranks: int | None = None,
               sizes: str = "1KiB:64MiB", scenario=None, topology: str = "ring", bandwidth: str = "10Gbps",
               latency: str = "5us", network_model: str = "alpha_beta", library: str | None = None,
               timeout: float | None = None) -> pd.DataFrame:
    """Times a collective as `dtsim collective` does: one row per size and algorithm, with the simulated time,
    algorithm and bus bandwidth and the algorithm's closed-form time.

    sizes: FROM:TO[:FACTOR] such as "1KiB:256MiB". scenario: take the topology and network model from this
    scenario file (ranks default to its workers, else 8). library: "none" or "nccl"."""
    _, _, timeout, _ = _arguments(timeout=timeout)
    text = _checked(_dtsim.collective(operation, algorithm, ranks, sizes, None if scenario is None else _path(scenario),
                                      topology, bandwidth, latency, network_model, library, timeout))
    report = json.loads(text)
    rows = pd.DataFrame(report["rows"])
    rows.insert(0, "ranks", report["ranks"])
    rows.insert(0, "operation", report["operation"])
    return rows


def catalog(topic: str = "") -> str:
    """What dtsim knows, as `dtsim list` prints it: devices, nodes, topologies, collectives, strategies,
    optimizers, models, profiles or data (everything when empty)."""
    if topic and topic not in _dtsim.catalog_topics:
        raise ValueError(f"topic must be one of {', '.join(_dtsim.catalog_topics)}, not {topic!r}")
    return _checked(_dtsim.catalog(topic))
