#!/usr/bin/env python3
"""report.html as a reader opens it: written by `dtsim run --report` and by `dtsim report` for one run, a
comparison of several, a sweep's folder and an energy run; each opened in headless Chromium with every
host name unresolvable (a page that fetched anything would fail), every chart drawn without a console error
or warning, a screenshot taken of one of each kind; each chart's Vega-Lite spec valid against the Vega-Lite JSON schema; and
nothing in the page loading a file or address outside it.

  report_test.py DTSIM SOURCE_DIR OUTPUT_DIR
Exit status 77 (skipped) where Chromium is not installed: `make test` installs it.
"""
import json
import os
import re
import shutil
import subprocess
import sys

import jsonschema

DTSIM, SOURCE, OUT = sys.argv[1:4]
CHROMIUM = shutil.which("chromium")
if CHROMIUM is None:
    print("skipped: chromium is not installed (make test installs it with the other packages)")
    sys.exit(77)
SCHEMA = json.load(open(os.path.join(SOURCE, "node_modules", "vega-lite", "build", "vega-lite-schema.json")))
VALIDATOR = jsonschema.Draft7Validator(SCHEMA)
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)


def dtsim(*arguments):
    run = subprocess.run([DTSIM, *arguments], capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        sys.exit(f"dtsim {' '.join(arguments)} failed ({run.returncode}):\n{run.stdout}\n{run.stderr}")
    return run.stdout


def chromium(page, *arguments):
    profile = os.path.join(OUT, "chromium-profile")
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--host-resolver-rules=MAP * ~NOTFOUND", f"--user-data-dir={profile}",
               "--virtual-time-budget=30000", *arguments, "file://" + os.path.abspath(page)]
    return subprocess.run(command, capture_output=True, text=True, timeout=600)


# Pages whose screenshot is taken too (each is one more Chromium start; the others are checked by their DOM only).
SCREENSHOTS = {"one-run", "cluster", "comparison", "sweep"}


def check_report(name, page, expected_titles):
    text = open(page, encoding="utf-8").read()
    # Self-contained: no element loads anything (the inlined libraries' own code aside, which builds
    # elements only for features the report does not use), no style imports or fetches.
    tags = re.findall(r"<script\b[^>]*>", text)
    check(not any("src" in tag for tag in tags), f"{name}: a script loads a file or address: {tags}")
    markup = re.sub(r"<script\b[^>]*>.*?</script>", "", text, flags=re.S)
    check(not re.search(r"<(img|link|iframe|source|video|audio|embed|object)\b", markup, re.I),
          f"{name}: an element that loads a file or address")
    check(not re.search(r"\b(src|href)\s*=", markup, re.I), f"{name}: a src or href attribute")
    style = "".join(re.findall(r"<style>(.*?)</style>", text, re.S))
    check("url(" not in style and "@import" not in style, f"{name}: the style loads something")
    # Every chart's spec is valid Vega-Lite.
    specs = re.findall(r'<script type="application/json" class="dtsim-spec" data-target="([^"]+)">(.*?)</script>', text, re.S)
    check(len(specs) > 0, f"{name}: no charts")
    for target, spec in specs:
        errors = list(VALIDATOR.iter_errors(json.loads(spec)))
        check(not errors, f"{name} {target}: not valid Vega-Lite: {[e.message[:300] for e in errors[:3]]}")
    titles = re.findall(r"<h2>(.*?)</h2>", text)
    for title in expected_titles:
        check(any(t.startswith(title) for t in titles), f"{name}: no chart titled '{title}' (has {titles})")
    # Drawn in Chromium: the page records how many charts it drew and what the console said.
    dom = chromium(page, "--dump-dom")
    body = re.search(r"<body data-charts[^>]*>", dom.stdout)
    check(body is not None, f"{name}: Chromium gave no page: {dom.stderr[-2000:]}")
    if body is None:
        return
    attributes = dict(re.findall(r'data-([a-z]+)="([^"]*)"', body.group(0)))
    check(attributes.get("rendered") == str(len(specs)),
          f"{name}: {attributes.get('rendered')} of {len(specs)} charts drawn ({body.group(0)})")
    check(attributes.get("errors") == "0" and attributes.get("warnings") == "0",
          f"{name}: console errors or warnings: {re.findall(r'id=.dtsim-status.>([^<]*)', dom.stdout)}")
    check(dom.stdout.count("<svg") >= len(specs), f"{name}: fewer drawings than charts")
    if name not in SCREENSHOTS:
        print(f"{name}: {len(specs)} charts drawn")
        return
    shot = os.path.join(OUT, name + ".png")
    if os.path.exists(shot):
        os.remove(shot)
    chromium(page, "--hide-scrollbars", "--window-size=1000,3000", f"--screenshot={shot}")
    check(os.path.exists(shot) and os.path.getsize(shot) > 20000, f"{name}: no screenshot")
    print(f"{name}: {len(specs)} charts drawn, screenshot {shot}")


os.makedirs(OUT, exist_ok=True)
scenarios = os.path.join(SOURCE, "scenarios")

one = os.path.join(OUT, "straggler")
dtsim("run", os.path.join(scenarios, "compare", "straggler.yaml"), "-q", "--report", "-o", one)
check_report("one-run", os.path.join(one, "report.html"),
             ["Loss against simulated time", "Accuracy against iterations", "Time per host", "Busiest links",
              "Staleness", "Timeline of the first iterations", "Scenarios as dtsim read them"])
check(not os.path.exists(os.path.join(one, "trace.json")), "--report alone writes no trace.json")

# Several jobs on one cluster: the jobs on the devices, the queue, the waits and the interference matrix.
cluster = os.path.join(OUT, "cluster")
dtsim("run", os.path.join(scenarios, "course", "11-placement.yaml"), "--point", "placement=spread", "-q", "--report",
      "-o", cluster)
check_report("cluster", os.path.join(cluster, "report.html"),
             ["Jobs on the devices", "Devices busy and jobs waiting", "Waits and slowdowns", "Interference matrix",
              "Links over time"])

# Every run of the comparison set on shared axes.
folders = []
for scenario in sorted(os.listdir(os.path.join(scenarios, "compare"))):
    if scenario == "base.yaml":
        continue
    folder = os.path.join(OUT, "compare", scenario[:-len(".yaml")])
    dtsim("run", os.path.join(scenarios, "compare", scenario), "-q", "-o", folder)
    folders.append(folder)
comparison = os.path.join(OUT, "comparison.html")
print(dtsim("report", *folders, "-o", comparison).strip())
check_report("comparison", comparison, ["Loss against simulated time", "Time per host (mean)", "Staleness"])

# Every teaching scenario (some are sweeps: their folder stands for their points).
for scenario in sorted(os.listdir(os.path.join(scenarios, "teaching"))):
    folder = os.path.join(OUT, "teaching", scenario[:-len(".yaml")])
    dtsim("run", os.path.join(scenarios, "teaching", scenario), "-q", "-o", folder)
    dtsim("report", folder)
    check_report("teaching-" + scenario[:-len(".yaml")], os.path.join(folder, "report.html"), ["Time per host"])

sweep = os.path.join(OUT, "pipeline-sweep")
dtsim("run", os.path.join(scenarios, "parallelism", "bert-large-pipeline.yaml"), "-q", "-o", sweep)
print(dtsim("report", sweep).strip())
check_report("sweep", os.path.join(sweep, "report.html"), ["Iteration time", "Throughput", "Time per host (mean)"])

energy = os.path.join(OUT, "energy")
dtsim("run", os.path.join(scenarios, "energy", "cost-of-waiting.yaml"), "-q", "--report", "-o", energy)
for page in sorted(p for p in os.listdir(energy) if p == "report.html"):
    check_report("energy", os.path.join(energy, page), ["Energy"])

# A budget's projected run with failures: the drawn run's interruptions over its days.
projected = os.path.join(OUT, "projected-failures")
dtsim("run", os.path.join(scenarios, "projection", "llama2-70b-2t-h100-x1024-failures.yaml"), "-q", "--report", "-o",
      projected)
check_report("projected-failures", os.path.join(projected, "report.html"), ["Interruptions over the whole run"])

# Names written by someone else, of every kind (scenario, node, link class, sweep value), each able to end a
# <script> element, open a comment or a tag, or end a JavaScript string: the page still draws every chart,
# and none of them reaches the page's markup outside an escaped text or an escaped JSON string.
HOSTILE = "<!--<script>x</script>&\u2028\u2029"
hostile = os.path.join(OUT, "hostile.yaml")
with open(hostile, "w", encoding="utf-8") as scenario:
    scenario.write(f"""name: hostile
description: '{HOSTILE}'
cluster:
  workers: 2
  device: {{name: '{HOSTILE}', peak_flops: "10GFLOPS", efficiency: 0.5}}
topology:
  kind: custom
  link: {{bandwidth: "10Gbps", latency: "5us"}}
  link_classes:
    '{HOSTILE}': {{bandwidth: "10Gbps", latency: "5us"}}
  nodes:
    - {{name: 'w0 {HOSTILE}'}}
    - {{name: 'w1 {HOSTILE}'}}
  links:
    - {{from: 'w0 {HOSTILE}', to: 'w1 {HOSTILE}', class: '{HOSTILE}'}}
model: {{kind: logistic_regression}}
data: {{kind: synthetic_classification, samples: 400, features: 4}}
training:
  batch: {{per_worker: 8}}
  optimizer: {{kind: sgd, learning_rate: 0.1}}
  sync: {{strategy: bsp}}
  stop: {{iterations: 6}}
  evaluate_every: 2
sweep:
  axes:
    description: ['a {HOSTILE}', 'b {HOSTILE}']
""")
hostile_out = os.path.join(OUT, "hostile")
dtsim("run", hostile, "-q", "-o", hostile_out)
print(dtsim("report", hostile_out).strip())
check_report("hostile-names", os.path.join(hostile_out, "report.html"), ["Time per host"])
point = sorted(p for p in os.listdir(hostile_out) if os.path.isdir(os.path.join(hostile_out, p)))[0]
dtsim("report", os.path.join(hostile_out, point))
for page in [os.path.join(hostile_out, "report.html"), os.path.join(hostile_out, point, "report.html")]:
    text = open(page, encoding="utf-8").read()
    body = text[text.index("<body"):]
    scripts = re.findall(r"<script\b[^>]*>(.*?)</script>", body, re.S)
    check("<!--" not in body and "<script>x" not in body and
          not any("\u2028" in script or "\u2029" in script for script in scripts),
          f"{page}: a hostile name reached the markup or a script raw")
    check_report("hostile-" + os.path.basename(os.path.dirname(page)), page, ["Time per host"])

study = os.path.join(OUT, "scaling")
with open(os.path.join(OUT, "compute-only.yaml"), "w") as scenario:
    scenario.write("""name: compute-only
cluster:
  workers: 4
  device: {name: flat, peak_flops: "1TFLOPS", efficiency: 1}
topology:
  kind: ring
  link: {bandwidth: "100Gbps", latency: "5us"}
model: {kind: "profile:resnet50"}
training:
  batch: {per_worker: 16}
  optimizer: {kind: sgd, learning_rate: 0.1}
  stop: {iterations: 2}
""")
dtsim("scale", os.path.join(OUT, "compute-only.yaml"), "--workers", "1,2,4,8", "-q", "-o", study)
check_report("scaling", os.path.join(study, "report.html"), ["Speedup", "Parallel efficiency", "Iteration time",
                                                            "Where the time goes", "Weak scaling", "Strong scaling"])

# A pipelined run of 1,024 hosts (t8 p8 d16) and one iteration: its hosts drawn per stage and tensor rank (64 bars,
# each the mean of 16 replicas' hosts), its iteration as bars.
pipelined = os.path.join(OUT, "pipelined")
dtsim("run", os.path.join(scenarios, "plan", "gpt3-175b-a100.yaml"), "-q", "--report", "-o", pipelined)
page = os.path.join(pipelined, "report.html")
check_report("pipelined", page, ["Time per stage and tensor rank"])
text = open(page, encoding="utf-8").read()
check('<table class="summary">' in text and "<td>t8 p8 d16</td>" in text, f"{page}: no summary of the timing-only run")
check('"stage":"stage 7"' in text and '"rank":7' in text and '"xOffset"' in text,
      f"{page}: the hosts are not drawn per stage and tensor rank")
check("the mean of the 16 hosts holding that stage and rank" in text, f"{page}: the groups' size is not said")

# A plan's page: throughput against memory, and the discards by reason.
dtsim("plan", os.path.join(scenarios, "plan", "gpt2-medium-a100-x16.yaml"), "--gpus", "16", "--zero", "1", "--top", "3", "-q", "-o", os.path.join(OUT, "plan"))
check_report("plan", os.path.join(OUT, "plan", "report.html"), ["Throughput against memory", "Why candidates were discarded"])

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print("every report drawn")
