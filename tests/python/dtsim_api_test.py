"""The dtsim Python package against the simulator it wraps: its tables are the run's files, its runs are the
command line's (byte for byte) and deterministic, bad input raises dtsim's positioned report, and a time limit
or an interrupt stops a simulation. Run by CTest (tests/python/CMakeLists.txt), one process per case."""

import contextlib
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import unittest
from pathlib import Path

import pandas as pd

import dtsim

SOURCE = Path(os.environ["DTSIM_SOURCE_DIR"])
SCENARIOS = SOURCE / "scenarios"
OUTPUT = Path(os.environ["DTSIM_TEST_OUTPUT_DIR"])


def fresh(name: str) -> Path:
    """An empty folder for one case's files."""
    folder = OUTPUT / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def files_of(folder: Path) -> dict:
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def long_scenario(folder: Path) -> Path:
    """The quickstart trained for a very long time: a run that is still going when it is stopped."""
    text = (SCENARIOS / "quickstart.yaml").read_text().replace("epochs: 5", "epochs: 1000000")
    assert "epochs: 1000000" in text
    path = folder / "long.yaml"
    path.write_text(text)
    return path


class RunTest(unittest.TestCase):
    def test_returns_its_tables(self):
        folder = fresh("run-tables")
        run = dtsim.run(SCENARIOS / "quickstart.yaml", folder / "quickstart")
        self.assertIsInstance(run, dtsim.Run)
        self.assertEqual(run.folder, folder / "quickstart")
        self.assertEqual(run.simulated_s, run.summary["result"]["simulated_s"])
        # The tables are the files, read by pandas.
        pd.testing.assert_frame_equal(run.metrics, pd.read_csv(run.folder / "metrics.csv"))
        pd.testing.assert_frame_equal(run.links, pd.read_csv(run.folder / "links.csv"))
        self.assertEqual(list(run.hosts["name"]), [f"worker-{i}" for i in range(8)])
        self.assertEqual(run.metrics["iteration"].iloc[-1], run.result["iterations"])
        self.assertLess(run.metrics["val_loss"].iloc[-1], run.metrics["val_loss"].iloc[0])
        self.assertAlmostEqual(run.links["bytes"].sum(), run.result["bytes_sent"], delta=1.0)
        self.assertIn("quickstart", repr(run))

    def test_writes_what_the_command_line_writes(self):
        folder = fresh("run-cli")
        dtsim.run(SCENARIOS / "quickstart.yaml", folder / "python", seed=7)
        subprocess.run([dtsim._dtsim.built_executable, "run", str(SCENARIOS / "quickstart.yaml"), "-q", "--seed", "7",
                        "-o", str(folder / "cli")], check=True)
        self.assertEqual(files_of(folder / "python"), files_of(folder / "cli"))

    def test_same_seed_same_files(self):
        folder = fresh("run-twice")
        first = dtsim.run(SCENARIOS / "course" / "05-ssp.yaml", folder / "first")
        second = dtsim.run(SCENARIOS / "course" / "05-ssp.yaml", folder / "second")
        self.assertEqual(files_of(first.folder), files_of(second.folder))
        other = dtsim.run(SCENARIOS / "course" / "05-ssp.yaml", folder / "other", seed=2)
        self.assertNotEqual(files_of(first.folder)["metrics.csv"], files_of(other.folder)["metrics.csv"])

    def test_threads_and_values_by_message_give_the_same_files(self):
        folder = fresh("run-threads")
        scenario = SCENARIOS / "course" / "05-ssp.yaml"
        first = dtsim.run(scenario, folder / "cores")
        one = dtsim.run(scenario, folder / "one", threads=1, values_by_message=True)
        self.assertEqual(files_of(first.folder), files_of(one.folder))

    def test_bad_input_raises_with_its_position(self):
        folder = fresh("run-bad")
        text = (SCENARIOS / "quickstart.yaml").read_text().replace("  workers: 8", "  wrokers: 8")
        scenario = folder / "typo.yaml"
        scenario.write_text(text)
        with self.assertRaises(dtsim.ScenarioError) as raised:
            dtsim.run(scenario, folder / "out")
        line = text.splitlines().index("  wrokers: 8") + 1
        self.assertRegex(str(raised.exception), re.escape(f"{scenario}:{line}:3: error:") + ".*wrokers")
        self.assertIn("workers", str(raised.exception))  # the suggestion
        self.assertFalse((folder / "out").exists())
        with self.assertRaises(FileNotFoundError):
            dtsim.load(folder / "out")
        with self.assertRaises(dtsim.ScenarioError):
            dtsim.run(folder / "missing.yaml", folder / "out")

    def test_paths_that_are_not_utf8_come_back_as_given(self):
        # A POSIX path is bytes, UTF-8 or not: such a name goes in as os.fsencode gives it and comes back as
        # os.fsdecode gives it, so a run that wrote its folder is not reported as failing over its name.
        folder = fresh("run-bytes")
        scenario = folder / os.fsdecode(b"s\xff.yaml")
        shutil.copyfile(SCENARIOS / "quickstart.yaml", scenario)
        self.assertIn(os.fsdecode(b"s\xff.yaml: ok"), dtsim.validate(scenario))
        self.assertIn(os.fsdecode(b"s\xff.yaml: ok"), dtsim.validate(os.fsencode(scenario)))
        run = dtsim.run(scenario, folder / os.fsdecode(b"o\xff"), progress=False)
        self.assertEqual(os.fsencode(run.folder), os.fsencode(folder) + b"/o\xff")
        self.assertEqual(list(dtsim.compare(run.folder)["run"]), ["quickstart"])
        self.assertIsInstance(dtsim.load(os.fsencode(run.folder)), dtsim.Run)
        missing = folder / os.fsdecode(b"missing\xff.yaml")
        with self.assertRaisesRegex(dtsim.ScenarioError, re.escape(f"{missing}: error: cannot read scenario file")):
            dtsim.run(missing, folder / "missing", progress=False)
        # Overrides reach dtsim in a scenario file, UTF-8 text, that includes the given one: it cannot name this one.
        with self.assertRaisesRegex(dtsim.ScenarioError, re.escape(f"{scenario}: error: ") + ".* UTF-8"):
            dtsim.run(scenario, folder / "overridden", overrides={"seed": 3}, progress=False)
        self.assertFalse((folder / "overridden").exists())

    def test_arguments_out_of_range_are_refused(self):
        folder = fresh("run-arguments")
        quickstart = SCENARIOS / "quickstart.yaml"
        for arguments, words in [({"seed": -1}, "a seed is a whole number"), ({"seed": 2**64}, "2\\^64-1"),
                                 ({"seed": 1.5}, "a seed"), ({"jobs": -3}, "jobs is"), ({"jobs": 1025}, "1 to 1024"),
                                 ({"timeout": 0}, "more than 0"), ({"timeout": -1.0}, "timeout is seconds"),
                                 ({"timeout": float("nan")}, "timeout"), ({"threads": -1}, "threads is"),
                                 ({"threads": 2.0}, "0 for the cores")]:
            with self.subTest(arguments=arguments), self.assertRaisesRegex(ValueError, words):
                dtsim.run(quickstart, folder / "out", **arguments)
        self.assertFalse((folder / "out").exists())
        with self.assertRaisesRegex(ValueError, "jobs"):
            dtsim.scale(SCENARIOS / "course" / "09-scaling.yaml", [1, 2], output=folder / "study", jobs=-1)
        with self.assertRaisesRegex(ValueError, "timeout"):
            dtsim.collective(algorithm="ring", timeout=-5)
        # A scaling study's worker counts are --workers': whole numbers from 1 to 65,536.
        scaling = SCENARIOS / "course" / "09-scaling.yaml"
        for workers, error in [([1.5], ValueError), ([2.0], ValueError), ([2**40], ValueError), ([65537], ValueError),
                               ([0], ValueError), ([], ValueError), ([True], ValueError), ("abc", TypeError),
                               (4, TypeError)]:
            with self.subTest(workers=workers), self.assertRaisesRegex(error, r"^workers .*such as \[1, 2, 4, 8\]"):
                dtsim.scale(scaling, workers, output=folder / "study")
        self.assertFalse((folder / "study").exists())
        # The largest seed, numpy's integers and an endless timeout are taken.
        import numpy
        run = dtsim.run(quickstart, folder / "largest", seed=numpy.uint64(2**64 - 1), jobs=numpy.int64(1),
                        timeout=float("inf"))
        self.assertEqual(run.summary["seed"], 2**64 - 1)

    def test_a_time_limit_stops_it(self):
        folder = fresh("run-timeout")
        started = time.monotonic()
        with self.assertRaises(TimeoutError):
            dtsim.run(long_scenario(folder), folder / "out", timeout=1.0)
        self.assertLess(time.monotonic() - started, 300)
        self.assertFalse((folder / "out").exists())

    def test_an_interrupt_stops_it(self):
        folder = fresh("run-interrupt")
        program = "import sys, dtsim\nprint('running', flush=True)\ndtsim.run(sys.argv[1], sys.argv[2])\n"
        child = subprocess.Popen([sys.executable, "-c", program, str(long_scenario(folder)), str(folder / "out")],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(child.stdout.readline(), "running\n")
        time.sleep(1.0)
        child.send_signal(signal.SIGINT)
        _, errors = child.communicate(timeout=300)
        self.assertNotEqual(child.returncode, 0)
        self.assertIn("KeyboardInterrupt", errors)
        self.assertFalse((folder / "out").exists())


class FilesTest(unittest.TestCase):
    def test_validate_and_explain(self):
        report = dtsim.validate(SCENARIOS / "quickstart.yaml", SCENARIOS / "course" / "03-collectives.yaml")
        self.assertIn("quickstart.yaml: ok", report)
        self.assertIn("03-collectives.yaml: ok", report)
        folder = fresh("validate")
        bad = folder / "bad.yaml"
        bad.write_text((SCENARIOS / "quickstart.yaml").read_text().replace("strategy: bsp", "strategy: bspp"))
        with self.assertRaisesRegex(dtsim.ScenarioError, re.escape(str(bad)) + r":\d+:\d+: error:.*bspp"):
            dtsim.validate(bad)
        explained = dtsim.explain(SCENARIOS / "quickstart.yaml")
        self.assertIn("name: quickstart", explained)
        self.assertIn("strategy: bsp", explained)
        with self.assertRaises(TypeError):
            dtsim.validate()

    def test_validate_records(self):
        # With records=True the problems come back as `dtsim validate --json` prints them, one dict each, instead of
        # raising: the corpus's expected reports, field by field (its files name their paths from the source tree).
        self.enterContext(contextlib.chdir(SOURCE))
        records = dtsim.validate("tests/invalid/013-unknown-training-key.yaml",
                                 "tests/invalid/100-include-two-levels.yaml", records=True)
        self.assertEqual(records, [
            {"file": "tests/invalid/013-unknown-training-key.yaml", "line": 20, "column": 3,
             "key": "training.optimizer", "message": "missing required key", "hint": "", "included_from": []},
            {"file": "tests/invalid/013-unknown-training-key.yaml", "line": 22, "column": 3,
             "key": "training.optimiser", "message": "unknown key", "hint": "did you mean 'optimizer'?",
             "included_from": []},
            {"file": "tests/invalid/include/inner.yaml", "line": 2, "column": 18, "key": "topology.network_model",
             "message": "unknown network model 'tpc'", "hint": "did you mean 'tcp'?",
             "included_from": [{"file": "tests/invalid/include/outer.yaml", "line": 1, "column": 10},
                               {"file": "tests/invalid/100-include-two-levels.yaml", "line": 3, "column": 10}]}])
        self.assertEqual([list(record) for record in records[:1]],
                         [["file", "line", "column", "key", "message", "hint", "included_from"]])
        # A problem of the whole file has no line, column or key; a valid file gives none; without records=True
        # the same files raise, as before.
        whole = dtsim.validate("tests/invalid/002-empty-file.yaml", SCENARIOS / "quickstart.yaml", records=True)
        self.assertEqual([(record["line"], record["column"], record["key"]) for record in whole], [(0, 0, "")])
        self.assertEqual(dtsim.validate(SCENARIOS / "quickstart.yaml", records=True), [])
        expected = (SOURCE / "tests/invalid/013-unknown-training-key.expected").read_text().rstrip("\n")
        with self.assertRaises(dtsim.ScenarioError) as raised:
            dtsim.validate("tests/invalid/013-unknown-training-key.yaml")
        self.assertEqual(str(raised.exception), expected)
        # A confined folder that does not exist is the call's mistake, not a file's: it raises either way.
        with self.assertRaisesRegex(dtsim.ScenarioError, "names no folder"):
            dtsim.validate(SCENARIOS / "quickstart.yaml", confine=SOURCE / "no-such-folder", records=True)

    def test_confine_refuses_files_outside_its_folder(self):
        folder = fresh("confine")
        jail = folder / "jail"
        jail.mkdir()
        (folder / "rows.csv").write_text("1,2,0\n3,4,1\n")
        scenario = jail / "s.yaml"
        scenario.write_text((SCENARIOS / "quickstart.yaml").read_text().replace(
            "kind: synthetic_classification", "kind: csv\n  path: ../rows.csv"))
        with self.assertRaisesRegex(dtsim.ScenarioError, r"data.path: '../rows.csv' is outside .*jail, the only folder "
                                                          r"this run may read \(--confine\)"):
            dtsim.validate(scenario, confine=jail)
        with self.assertRaisesRegex(dtsim.ScenarioError, "is outside"):
            dtsim.run(scenario, folder / "out", confine=jail, progress=False)
        self.assertFalse((folder / "out").exists())
        self.assertIn("quickstart.yaml: ok", dtsim.validate(SCENARIOS / "quickstart.yaml", confine=SCENARIOS))

    def test_confine_keeps_the_scenarios_it_writes_inside(self):
        folder = fresh("confine-writes")
        jail = folder / "jail"
        jail.mkdir()
        shutil.copyfile(SCENARIOS / "quickstart.yaml", jail / "base.yaml")
        self.enterContext(contextlib.chdir(folder))
        # A dict and overrides are written as scenario files: in the confined folder's out/.scenarios, not the
        # working directory's.
        named = dtsim.run({"include": [str(jail / "base.yaml")], "name": "pyc"}, jail / "res1", confine=jail,
                          progress=False)
        self.assertEqual(named.summary["scenario"]["name"], "pyc")
        seeded = dtsim.run(jail / "base.yaml", jail / "res2", confine=jail, overrides={"seed": 3}, progress=False)
        self.assertEqual(seeded.summary["seed"], 3)
        self.assertFalse((folder / "out").exists())
        self.assertEqual(len(list((jail / "out" / ".scenarios").glob("*.yaml"))), 2)
        # The confined folder may be someone else's: a link there does not lead the file out of it.
        outside = folder / "outside"
        outside.mkdir()
        shutil.rmtree(jail / "out")
        (jail / "out").symlink_to(outside)
        with self.assertRaisesRegex(dtsim.ScenarioError, re.escape(f"leads outside {jail.resolve()}")):
            dtsim.run(jail / "base.yaml", jail / "res3", confine=jail, overrides={"seed": 4}, progress=False)
        self.assertEqual(list(outside.iterdir()), [])
        # A confined folder that does not exist is refused, as without overrides, and not made.
        for overrides in ({"seed": 5}, None):
            with self.subTest(overrides=overrides), self.assertRaisesRegex(dtsim.ScenarioError, "names no folder"):
                dtsim.run(jail / "base.yaml", jail / "res4", confine=folder / "none", overrides=overrides,
                          progress=False)
        self.assertFalse((folder / "none").exists())
        self.assertFalse((jail / "res3").exists() or (jail / "res4").exists())

    def test_load_and_compare(self):
        folder = fresh("compare")
        bsp = dtsim.run(SCENARIOS / "course" / "05-bsp.yaml", folder / "bsp")
        ssp = dtsim.run(SCENARIOS / "course" / "05-ssp.yaml", folder / "ssp")
        self.assertIsInstance(dtsim.load(bsp.folder), dtsim.Run)
        table = dtsim.compare(bsp, ssp.folder)
        self.assertEqual(list(table["strategy"]), ["bsp", "ssp"])
        self.assertEqual(list(table["simulated_s"].round(9)), [round(bsp.simulated_s, 9), round(ssp.simulated_s, 9)])
        self.assertAlmostEqual(table["time_to_target_s"].iloc[0], bsp.result["time_to_target"]["sim_time_s"], places=9)
        with self.assertRaisesRegex(dtsim.ScenarioError, "summary.json"):
            dtsim.compare(folder)

    def test_tables_hold_values_not_spreadsheet_escapes(self):
        # dtsim's CSV files put an apostrophe before a text a spreadsheet would run as a formula; the DataFrames
        # hold the texts themselves, and each job's run is found by its name.
        folder = fresh("csv-escapes")
        text = (SCENARIOS / "cluster" / "packed-against-spread.yaml").read_text()
        text = text.replace("{name: job-a, workers: 16}", '{name: "=a,b<script>", workers: 16}')
        self.assertEqual(text.count("sweep:"), 1)
        (folder / "cluster.yaml").write_text(text.split("sweep:")[0])  # packed only, not the sweep
        cluster = dtsim.run(folder / "cluster.yaml", folder / "cluster", progress=False)
        self.assertIn(""""'=a,b<script>",16,""", (cluster.folder / "jobs.csv").read_text())
        self.assertEqual(list(cluster.table["job"]), ["=a,b<script>", "job-b"])
        self.assertEqual(list(cluster.jobs), ["=a,b<script>", "job-b"])
        self.assertEqual(cluster["=a,b<script>"].folder, cluster.folder / "jobs" / "=a,b<script>")
        named = folder / "named.yaml"
        named.write_text((SCENARIOS / "quickstart.yaml").read_text().replace("name: quickstart", 'name: "=cmd"'))
        row = dtsim.compare(dtsim.run(named, folder / "named", progress=False)).iloc[0]
        self.assertEqual((row["run"], row["stragglers"]), ("=cmd", "-"))
        # Exactly the apostrophe csv_field adds comes off: one it doubled stays, as does one before plain text.
        table = dtsim.results.read_csv(io.StringIO("name,n\n''=kept,1\n'plain,2\n'@at,3\n'\t,4\n"))
        self.assertEqual(list(table["name"]), ["'=kept", "'plain", "@at", "\t"])

    def test_load_a_cluster(self):
        # A stored cluster run (the preemption scenario's golden files): its jobs, stops and links over time.
        stored = SOURCE / "tests" / "golden" / "outputs" / "cluster" / "preemption-by-checkpoint" / "preemption=checkpoint"
        cluster = dtsim.load(stored)
        self.assertIsInstance(cluster, dtsim.Cluster)
        self.assertEqual(list(cluster.table["stops"]), [1, 0, 0])
        self.assertGreater(cluster.table["preempted_s"].iloc[0], 0.0)
        over_time = cluster.link_utilization
        self.assertEqual(list(over_time.columns), ["t_s", "link", "from", "to", "utilization"])
        # Each direction's mean over the bins is its utilization over the makespan.
        first = over_time[(over_time["link"] == over_time["link"].iloc[0]) & (over_time["from"] == over_time["from"].iloc[0])]
        self.assertEqual(len(first), 100)
        row = cluster.links[(cluster.links["link"] == first["link"].iloc[0]) & (cluster.links["from"] == first["from"].iloc[0])]
        self.assertAlmostEqual(first["utilization"].mean(), row["utilization"].iloc[0], places=5)

    def test_report(self):
        folder = fresh("report")
        bsp = dtsim.run(SCENARIOS / "course" / "05-bsp.yaml", folder / "bsp")
        ssp = dtsim.run(SCENARIOS / "course" / "05-ssp.yaml", folder / "ssp")
        one = dtsim.report(bsp)
        self.assertEqual(one, bsp.folder / "report.html")
        both = dtsim.report(bsp, ssp.folder, output=folder / "both.html")
        self.assertEqual(both, folder / "both.html")
        # The same report as the command line draws.
        subprocess.run([dtsim._dtsim.built_executable, "report", str(bsp.folder), str(ssp.folder), "-o",
                        str(folder / "command.html")], check=True, stdout=subprocess.DEVNULL)
        self.assertEqual(both.read_bytes(), (folder / "command.html").read_bytes())
        self.assertIn(b"<html", one.read_bytes()[:200].lower())
        with self.assertRaisesRegex(dtsim.ScenarioError, "summary.json"):
            dtsim.report(folder)
        with self.assertRaises(TypeError):
            dtsim.report()

    def test_catalog(self):
        self.assertIn("a100", dtsim.catalog("devices"))
        self.assertIn("ssp", dtsim.catalog("strategies"))
        with self.assertRaisesRegex(ValueError, "devices"):
            dtsim.catalog("device")


class SweepTest(unittest.TestCase):
    def test_sweep_and_its_tables(self):
        folder = fresh("sweep")
        sweep = dtsim.sweep(SCENARIOS / "course" / "01-scale-up-or-out.yaml", folder / "sweep", jobs=2)
        self.assertEqual(sweep.points, ["workers=1,peak_flops=10GFLOPS", "workers=1,peak_flops=40GFLOPS",
                                        "workers=4,peak_flops=10GFLOPS", "workers=4,peak_flops=40GFLOPS"])
        self.assertEqual(list(sweep.table["cluster.device.peak_flops"]), ["10GFLOPS", "40GFLOPS"] * 2)
        for point, run in sweep.runs.items():
            in_table = sweep.table.set_index("point").loc[point, "simulated_s"]
            self.assertLess(abs(in_table - run.simulated_s), 1e-8 * run.simulated_s)  # sweep.csv has 9 digits
            rows = sweep.metrics[sweep.metrics["point"] == point].drop(columns="point").reset_index(drop=True)
            pd.testing.assert_frame_equal(rows, run.metrics)
        self.assertEqual(list(sweep.hosts.columns[:2]), ["point", "name"])
        self.assertEqual(len(sweep.hosts), 1 + 1 + 4 + 4)
        # dtsim.run on a sweep gives the sweep (its points run again, their math on one thread, every value by
        # message: the same results); dtsim.sweep refuses a scenario without one.
        again = dtsim.run(SCENARIOS / "course" / "01-scale-up-or-out.yaml", folder / "sweep", force=True, threads=1,
                          values_by_message=True)
        self.assertIsInstance(again, dtsim.Sweep)
        pd.testing.assert_frame_equal(again.table, sweep.table)
        with self.assertRaisesRegex(dtsim.ScenarioError, "no sweep"):
            dtsim.sweep(SCENARIOS / "quickstart.yaml", folder / "none")

    def test_points_and_overrides(self):
        folder = fresh("points")
        quickstart = SCENARIOS / "quickstart.yaml"
        # The package writes the scenarios it runs under out/.scenarios of the working directory.
        self.enterContext(contextlib.chdir(folder))
        # Overrides win over the scenario's values; the same call writes the same files.
        run = dtsim.run(quickstart, folder / "lr", overrides={"training.optimizer.learning_rate": 0.2})
        self.assertEqual(run.summary["scenario"]["training"]["optimizer"]["learning_rate"], 0.2)
        self.assertEqual(run.summary["scenario"]["name"], "quickstart")
        again = dtsim.run(quickstart, folder / "lr-again", overrides={"training.optimizer.learning_rate": 0.2})
        self.assertEqual(files_of(run.folder), files_of(again.folder))
        # A sweep given as its points, and a scenario given as a dict.
        sweep = dtsim.sweep({"include": [str(quickstart)], "name": "from-dict"}, folder / "sweep",
                            points=[{"cluster.workers": 2, "seed": 1}, {"cluster.workers": 2, "seed": 2},
                                    {"cluster.workers": 4, "seed": 1}], jobs=2)
        self.assertEqual(sweep.points, ["workers=2,seed=1", "workers=2,seed=2", "workers=4,seed=1"])
        self.assertEqual(list(sweep.table["cluster.workers"]), [2, 2, 4])
        # Values read from a table (numpy's numbers) are written as numbers.
        numpy_run = dtsim.run(quickstart, folder / "numpy", overrides={"seed": sweep.table["cluster.workers"].iloc[2]})
        self.assertEqual(numpy_run.summary["seed"], 4)
        self.assertEqual(sweep.runs["workers=4,seed=1"].summary["scenario"]["name"], "from-dict")
        self.assertEqual(len(list((folder / "out" / ".scenarios").glob("*.yaml"))), 3)
        with self.assertRaisesRegex(ValueError, "is a value, not a mapping"):
            dtsim.run({"include": [str(quickstart)], "seed": 3}, folder / "bad", overrides={"seed.value": 1})

    def test_scale(self):
        folder = fresh("scale")
        study = dtsim.scale(SCENARIOS / "course" / "09-scaling.yaml", [1, 2, 4], output=folder / "study")
        self.assertEqual(sorted(set(study.table["mode"])), ["strong", "weak"])
        self.assertEqual(len(study.table), 6)
        self.assertEqual(len(study.weak.points), 3)
        self.assertEqual(len(study.strong.points), 3)
        one = study.table[study.table["workers"] == 1]
        self.assertTrue((one["efficiency"] - 1.0).abs().max() < 1e-9)
        # The strong points' names hold a comma ("scaling[workers=2,per_worker=128]"): one row each all the same.
        rows = dtsim.compare(study)
        self.assertEqual(len(rows), 6)
        self.assertIn("scaling[workers=2,per_worker=128]", list(rows["run"]))
        self.assertEqual(list(rows["strategy"]), ["bsp"] * 6)
        with self.assertRaisesRegex(ValueError, "mode"):
            dtsim.scale(SCENARIOS / "course" / "09-scaling.yaml", [1, 2], mode="both ways")

    def test_scale_replanned(self):
        folder = fresh("scale_plan")
        study = dtsim.scale(SCENARIOS / "plan" / "gpt2-medium-a100-x16.yaml", [8, 16], mode="strong", plan=True,
                            output=folder / "study")
        self.assertEqual(list(study.table["workers"]), [8, 16])
        # At 16 GPUs (two nodes) the best estimate splits the model; its layout is in the table.
        self.assertTrue(str(study.table["layout"].iloc[1]).startswith("t"))
        self.assertIn("written by `dtsim scale --plan`", (folder / "study" / "strong.yaml").read_text())


class PlanTest(unittest.TestCase):
    SCENARIO = SCENARIOS / "plan" / "gpt2-medium-a100-x16.yaml"
    # ZeRO 1, selective recomputation and 1F1B fixed: 182 candidates (PlanCommand.*), the best 3 simulated.
    FIXED = {"zero": 1, "recomputation": "selective", "schedule": "1f1b"}

    def test_returns_its_table_and_best_run(self):
        folder = fresh("plan")
        lines = []
        plan = dtsim.plan(self.SCENARIO, 16, folder / "plan", top=3, jobs=2, progress=lines.append, **self.FIXED)
        self.assertIsInstance(plan, dtsim.Plan)
        self.assertEqual(plan.folder, folder / "plan")
        self.assertEqual(list(plan.table.columns[:3]), ["rank", "devices", "split"])
        self.assertEqual(plan.table.columns[-1], "run")
        self.assertEqual(list(plan.table["rank"]), list(range(1, len(plan.table) + 1)))
        self.assertTrue((plan.table["devices"] == 16).all())
        # Best first by tokens per second; the estimate's best three, and at most the scenario's own split and the
        # best placed as the scenario places its axes beside them.
        self.assertTrue(plan.table["per_s"].is_monotonic_decreasing)
        self.assertTrue(3 <= len(plan.table) <= 5, plan.table)
        # Every row was simulated: each has its Run, in the table's order, and the best is rank 1's.
        self.assertEqual(len(plan.runs), len(plan.table))
        self.assertIsInstance(plan.best, dtsim.Run)
        self.assertEqual(plan.best.folder, plan.folder / plan.table["run"].iloc[0])
        self.assertTrue((plan.best.folder / "summary.json").is_file())
        iteration_s = plan.best.simulated_s / plan.best.result["iterations"]
        self.assertLess(abs(iteration_s - plan.table["iteration_s"].iloc[0]), 1e-5 * iteration_s)  # 6 digits
        self.assertEqual(len(plan.candidates), 182)
        self.assertEqual(int(plan.candidates["simulated"].eq("yes").sum()), len(plan.table))
        self.assertIsInstance(dtsim.load(plan.folder), dtsim.Plan)
        self.assertEqual(len(dtsim.compare(plan)), len(plan.table))
        # The search's line, the last once it has screened every candidate, then the simulations' points.
        self.assertTrue(any(re.match(r"16 devices: (\d+)/\1 candidates screened \(100%\)", line) for line in lines),
                        lines)
        self.assertTrue(lines[-1].startswith("16-devices: "), lines[-1])
        # The keywords are the flags: the command line's plan ranks the same splits alike.
        subprocess.run([dtsim._dtsim.built_executable, "plan", str(self.SCENARIO), "--gpus", "16", "--top", "3", "-j",
                        "2", "--zero", "1", "--recomputation", "selective", "--schedule", "1f1b", "-q", "-o",
                        str(folder / "cli")], check=True)
        for table in ("plan.csv", "plan_candidates.csv"):
            self.assertEqual((plan.folder / table).read_bytes(), (folder / "cli" / table).read_bytes(), table)

    def test_fixes_a_degree_by_its_axis_name(self):
        # A degree is a keyword named as its axis, read against dtsim's table of axes as --tensor is.
        folder = fresh("plan-fixed")
        plan = dtsim.plan(self.SCENARIO, 16, folder / "plan", top=2, jobs=2, tensor=2, **self.FIXED)
        self.assertTrue((plan.candidates["tensor"] == 2).all(), plan.candidates)
        self.assertTrue((plan.table["tensor"] == 2).all(), plan.table)
        subprocess.run([dtsim._dtsim.built_executable, "plan", str(self.SCENARIO), "--gpus", "16", "--top", "2", "-j",
                        "2", "--tensor", "2", "--zero", "1", "--recomputation", "selective", "--schedule", "1f1b", "-q",
                        "-o", str(folder / "cli")], check=True)
        self.assertEqual((plan.folder / "plan.csv").read_bytes(), (folder / "cli" / "plan.csv").read_bytes())

    def test_refuses_what_dtsim_plan_refuses(self):
        folder = fresh("plan-refused")
        output = folder / "plan"
        # dtsim's own refusals, at the flag the keyword stands for, before anything is simulated.
        for arguments, words in [({"objective": "speed"}, "dtsim plan: error: --objective: no objective 'speed'\n"
                                                          "  hint: tokens_per_s, cost or energy"),
                                 ({"schedule": "1f1c"}, "dtsim plan: error: --schedule: unknown pipeline schedule "
                                                        "'1f1c'\n  hint: did you mean '1f1b'?"),
                                 ({"recomputation": "most"}, "--recomputation: unknown recomputation 'most'\n"
                                                             "  hint: one of none, selective, full"),
                                 ({"max_memory": "70"}, "--max-memory: a size needs a unit"),
                                 ({"max_memory": "0GiB"}, "--max-memory: must be above zero"),
                                 ({"gpus": [16, 12]}, "--gpus: 12 devices do not fill whole nodes of 8"),
                                 ({"tensr": 2}, "dtsim plan: error: tensr: the planner tries no degree named 'tensr'\n"
                                                "  hint: fix one of tensor, pipeline, context, expert_tensor, expert")]:
            call = {"gpus": 16, "output": output, **arguments}
            with self.subTest(arguments=arguments), self.assertRaisesRegex(dtsim.ScenarioError, re.escape(words)):
                dtsim.plan(self.SCENARIO, **call)
        with self.assertRaisesRegex(dtsim.ScenarioError, "trains for real"):
            dtsim.plan(SCENARIOS / "quickstart.yaml", 8, output)
        # The keywords' types and ranges, as the flags' are checked (the ranges of --gpus, --top, --zero...).
        for arguments, error, words in [({"gpus": 0}, ValueError, r"^gpus are .* from 1 to 65,536"),
                                        ({"gpus": "16"}, TypeError, r"^gpus is a device count"),
                                        ({"gpus": []}, ValueError, r"^gpus are"),
                                        ({"top": 0}, ValueError, r"^top is .* 1 to 1000"),
                                        ({"zero": 4}, ValueError, r"^zero fixes a ZeRO stage: a whole number from 0 to 3"),
                                        ({"tensor": 0}, ValueError, r"^tensor fixes a tensor degree: .* 1 to 65,536"),
                                        ({"tensor": 2.0}, TypeError, r"^tensor fixes"),
                                        ({"schedule": 1}, TypeError, r"^schedule is a name such as '1f1b'"),
                                        ({"objective": None}, TypeError, r"^objective is"),
                                        ({"jobs": -1}, ValueError, r"^jobs is")]:
            call = {"gpus": 16, "output": output, **arguments}
            with self.subTest(arguments=arguments), self.assertRaisesRegex(error, words):
                dtsim.plan(self.SCENARIO, **call)
        self.assertFalse(output.exists())


class ProgressTest(unittest.TestCase):
    def test_a_run_sends_its_iterations(self):
        folder = fresh("progress-run")
        lines = []
        run = dtsim.run(SCENARIOS / "course" / "05-bsp.yaml", folder / "bsp", progress=lines.append)
        total = run.result["iterations"]
        self.assertEqual(lines[-1], f"iteration {total}/{total} (100%), simulated {run.simulated_s:.6f} s")
        numbers = [int(re.match(r"iteration (\d+)/", line).group(1)) for line in lines]
        self.assertEqual(numbers, sorted(numbers))
        self.assertGreaterEqual(len(lines), 100)  # at least one a percent
        # Progress changes nothing in the files.
        quiet = dtsim.run(SCENARIOS / "course" / "05-bsp.yaml", folder / "quiet", progress=False)
        self.assertEqual(files_of(run.folder), files_of(quiet.folder))

    def test_drawn_on_one_line_of_stderr(self):
        folder = fresh("progress-drawn")
        drawn = io.StringIO()
        with contextlib.redirect_stderr(drawn):
            dtsim.run(SCENARIOS / "course" / "05-bsp.yaml", folder / "drawn", progress=True)
        text = drawn.getvalue()
        self.assertTrue(text.startswith("\riteration 1/"), text[:80])
        self.assertTrue(text.endswith("\n"))
        self.assertTrue(text[:-1].rstrip(" ").endswith("(100%), simulated 0.025511 s"), text[-80:])
        self.assertEqual(text.count("\n"), 1)
        # By default nothing is drawn before the call has run for QUIET_FOR_S (made long here, so that a slow
        # machine cannot make the run outlast it).
        default_wait = dtsim.progress.QUIET_FOR_S
        try:
            dtsim.progress.QUIET_FOR_S = 3600.0
            silent = io.StringIO()
            with contextlib.redirect_stderr(silent):
                dtsim.run(SCENARIOS / "quickstart.yaml", folder / "quickstart")
            self.assertEqual(silent.getvalue(), "")
        finally:
            dtsim.progress.QUIET_FOR_S = default_wait
        self.assertEqual(default_wait, 1.0)

    def test_a_sweep_and_a_study_send_their_points(self):
        folder = fresh("progress-sweep")
        lines = []
        dtsim.sweep(SCENARIOS / "course" / "01-scale-up-or-out.yaml", folder / "sweep", jobs=2, progress=lines.append)
        self.assertEqual([line.split(" ")[0] for line in lines], ["1/4", "2/4", "3/4", "4/4"])
        self.assertIn("points done", lines[-1])
        lines.clear()
        dtsim.scale(SCENARIOS / "course" / "09-scaling.yaml", [1, 2], output=folder / "study", progress=lines.append)
        self.assertEqual([line.split(" points")[0] for line in lines], ["weak: 1/2", "weak: 2/2", "strong: 1/2",
                                                                         "strong: 2/2"])

    def test_an_error_in_the_function_stops_the_run(self):
        folder = fresh("progress-error")

        def fails(line):
            raise KeyError(f"stopped at {line}")

        started = time.monotonic()
        with self.assertRaisesRegex(KeyError, "stopped at iteration 1/"):
            dtsim.run(long_scenario(folder), folder / "long", progress=fails)
        self.assertLess(time.monotonic() - started, 600)  # not the run's million epochs
        self.assertFalse((folder / "long").exists())
        with self.assertRaisesRegex(TypeError, "progress must be"):
            dtsim.run(SCENARIOS / "quickstart.yaml", folder / "q", progress="yes")


class CollectiveTest(unittest.TestCase):
    def test_matches_its_closed_form(self):
        rows = dtsim.collective(algorithm="ring", ranks=8, sizes="1KiB:1MiB:4", bandwidth="10Gbps", latency="5us")
        self.assertEqual(list(rows["size_bytes"]), [1024.0 * 4**i for i in range(6)])
        self.assertTrue(((rows["time_s"] - rows["closed_form_s"]).abs() <= 1e-9 * rows["closed_form_s"]).all())
        self.assertTrue((rows["ranks"] == 8).all())
        with self.assertRaisesRegex(dtsim.ScenarioError, "ringg"):
            dtsim.collective(algorithm="ringg")


class InstalledTest(unittest.TestCase):
    def test_runs_a_sweep_with_the_installed_dtsim(self):
        """The package and the command installed into a prefix use each other and the installed data sets."""
        prefix = fresh("installed")
        subprocess.run([os.environ["DTSIM_CMAKE"], "--install", os.environ["DTSIM_BUILD_DIR"], "--prefix", str(prefix)],
                       check=True, stdout=subprocess.DEVNULL)
        package = prefix / os.environ["DTSIM_PYTHON_INSTALL_DIR"]
        program = ("import sys, dtsim\n"
                   "print(dtsim.__file__)\n"
                   "print(dtsim._executable())\n"
                   "print(len(dtsim.sweep(sys.argv[1], sys.argv[2]).points))\n"
                   "print(dtsim.catalog('data').splitlines()[-1])\n")
        environment = {key: value for key, value in os.environ.items() if key != "DTSIM_EXECUTABLE"}
        environment["PYTHONPATH"] = str(package)
        done = subprocess.run([sys.executable, "-c", program, str(SCENARIOS / "course" / "04-parameter-server.yaml"),
                               str(prefix / "sweep")], env=environment, capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        module, executable, points, data = done.stdout.splitlines()
        self.assertEqual(Path(module).resolve(), (package / "dtsim" / "__init__.py").resolve())
        self.assertEqual(Path(executable).resolve(), (prefix / "bin" / "dtsim").resolve())
        self.assertEqual(points, "3")
        # The installed data sets, not the source tree's, for the module and the command alike.
        installed_data = (prefix / "share" / "dtsim" / "data").resolve()
        self.assertTrue((installed_data / "iris.csv").is_file())
        self.assertIn(f"read from {installed_data} ", data)
        listed = subprocess.run([str(prefix / "bin" / "dtsim"), "list", "data"], env=environment, capture_output=True,
                                text=True, check=True)
        self.assertIn(f"read from {installed_data} ", listed.stdout)


class ImportTest(unittest.TestCase):
    def test_without_pandas_it_says_what_to_install(self):
        # None in sys.modules makes `import pandas` fail as it does where pandas is not installed.
        probe = subprocess.run([sys.executable, "-c", "import sys; sys.modules['pandas'] = None; import dtsim"],
                               capture_output=True, text=True, timeout=120)
        self.assertNotEqual(probe.returncode, 0)
        self.assertIn("ModuleNotFoundError: dtsim's Python package gives results as pandas DataFrames, and this "
                      "Python has no pandas: install it (Debian: apt install python3-pandas", probe.stderr)


if __name__ == "__main__":
    unittest.main()
