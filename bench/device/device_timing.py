"""Timing shared by the device scripts: a step's median time by device events, and the kernels a step runs
as PyTorch's profiler sees them."""
import csv
import os
import statistics
import sys

import torch
from torch.profiler import ProfilerActivity, profile


def open_device():
    """Exits unless a CUDA GPU is here; seeds PyTorch; returns the line that names the device and PyTorch."""
    if not torch.cuda.is_available():
        sys.exit("needs a CUDA GPU")
    torch.manual_seed(1)
    props = torch.cuda.get_device_properties(0)
    return f"{props.name}, {props.multi_processor_count} SMs, torch {torch.__version__}"


def write_rows(name, rows):
    """Writes `rows` as the CSV file `name` in $OUT (the working folder without it)."""
    with open(os.path.join(os.environ.get("OUT", "."), name), "w", newline="") as f:
        csv.writer(f).writerows(rows)


def median_seconds(fn, repeats=20, warmup=5):
    """The median of `repeats` runs of `fn` after `warmup`, each timed with device events."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / 1e3)
    return statistics.median(times)


def step_kernels(step, iterations=10):
    """Each kernel `step` runs, as (name, launches a step, device seconds a step), over `iterations` steps."""
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(iterations):
            step()
        torch.cuda.synchronize()
    out = []
    for event in prof.key_averages():
        device_time = getattr(event, "self_device_time_total", None)
        if device_time is None:
            device_time = event.self_cuda_time_total
        if device_time > 0:
            out.append((event.key, event.count / iterations, device_time / 1e6 / iterations))
    return out


def seconds_by_kind(kernels, kind_of):
    """The kernels' device seconds summed by kind_of(name), and their launches a step."""
    by_kind = {}
    for name, _, seconds in kernels:
        by_kind[kind_of(name)] = by_kind.get(kind_of(name), 0.0) + seconds
    return by_kind, sum(count for _, count, _ in kernels)
