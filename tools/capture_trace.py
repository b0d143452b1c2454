#!/usr/bin/env python3
"""Profile a few training steps of a model on this machine's GPU and write the trace dtsim calibrates from.

    python3 tools/capture_trace.py --model resnet50 --batch 32 -o resnet50-step.json.gz
    python3 tools/capture_trace.py --model gpt2 --batch 8 --sequence 1024 --precision bf16 -o gpt2-step.json.gz

It trains the model on random data (the time of a step does not depend on the values) with SGD, lets the
profiler skip `--wait` steps and warm up for `--warmup`, records `--steps` steps, and writes PyTorch's
Chrome-trace JSON (gzipped when the name ends in .gz), with the input shapes recorded and each module's forward
pass marked by a host annotation "module: NAME" (its qualified name, as `model.named_modules()` gives it), by
which dtsim matches the trace's layers to a profile's by name. It then times `--timed` steps without the
profiler (CUDA events) and prints their median, the profiler's own cost being the difference. Then:

    dtsim calibrate resnet50-step.json.gz --scenario my-gpu-resnet50.yaml -o my-gpu.yaml

Needs PyTorch with CUDA or ROCm, and torchvision for the torchvision models or transformers for the Hugging Face
ones. docs/how-it-works.md ("Calibrating from a profiled step") gives the whole round trip.
"""

import argparse
import gzip
import os
import shutil
import sys
import tempfile


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True,
                        help="a torchvision model (resnet18, resnet50, ...) or a Hugging Face causal language model "
                             "(gpt2, meta-llama/Llama-3.2-1B, ...)")
    parser.add_argument("--batch", type=int, required=True, help="samples per step on this GPU")
    parser.add_argument("--sequence", type=int, default=1024, help="tokens per sample of a language model")
    parser.add_argument("--precision", choices=["fp32", "bf16", "fp16"], default="fp32",
                        help="autocast precision of the forward pass (fp32: none)")
    parser.add_argument("--wait", type=int, default=2, help="steps before the profiler starts")
    parser.add_argument("--warmup", type=int, default=2, help="steps the profiler warms up on, not recorded")
    parser.add_argument("--steps", type=int, default=3, help="steps recorded")
    parser.add_argument("--timed", type=int, default=5, help="steps timed without the profiler afterwards")
    parser.add_argument("-o", "--output", required=True, help="the trace to write (.json or .json.gz)")
    return parser.parse_args()


def build(name, batch, sequence, device):
    """The model and a function giving one step's loss on random data."""
    import torch
    try:
        import torchvision.models as vision
        if hasattr(vision, name):
            model = getattr(vision, name)().to(device)
            images = torch.randn(batch, 3, 224, 224, device=device)
            labels = torch.randint(0, 1000, (batch,), device=device)
            return model, lambda: torch.nn.functional.cross_entropy(model(images), labels)
    except ImportError:
        pass
    from transformers import AutoConfig, AutoModelForCausalLM
    model = AutoModelForCausalLM.from_config(language_model_config(name)).to(device)
    tokens = torch.randint(0, model.config.vocab_size, (batch, sequence), device=device)
    return model, lambda: model(input_ids=tokens, labels=tokens).loss


def language_model_config(name):
    """The Hugging Face configuration `name`: from the Hub (or its cache), else, offline, the defaults of the
    model type `name` (gpt2's are GPT-2 small). The weights are never needed: the model is initialised at
    random."""
    from transformers import AutoConfig
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING
    try:
        return AutoConfig.from_pretrained(name)
    except (OSError, ValueError):
        if name in CONFIG_MAPPING:
            return AutoConfig.for_model(name)
        raise


def annotate_modules(model):
    """Marks each module's forward pass on the host with "module: NAME", its qualified name."""
    from torch.autograd.profiler import record_function
    open_spans = {}

    def enter(name):
        def hook(module, inputs):
            span = record_function("module: " + name)
            span.__enter__()
            open_spans.setdefault(name, []).append(span)
        return hook

    def leave(name):
        def hook(module, inputs, output):
            spans = open_spans.get(name)
            if spans:
                spans.pop().__exit__(None, None, None)
        return hook

    for name, module in model.named_modules():
        if name:
            module.register_forward_pre_hook(enter(name))
            module.register_forward_hook(leave(name))


def step(model_step, optimizer, dtype):
    import torch
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast("cuda", dtype=dtype, enabled=dtype is not None):
        loss = model_step()
    loss.backward()
    optimizer.step()


def median_step_seconds(model_step, optimizer, dtype, count):
    """The median of `count` steps' times on the GPU's clock (CUDA events), with no profiler running."""
    import torch
    times = []
    for _ in range(count):
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        begin.record()
        step(model_step, optimizer, dtype)
        end.record()
        end.synchronize()
        times.append(begin.elapsed_time(end) / 1e3)
    times.sort()
    return times[len(times) // 2]


def main():
    arguments = parse_arguments()
    import torch
    from torch.profiler import ProfilerActivity, profile, schedule
    if not torch.cuda.is_available():
        sys.exit("capture_trace: no GPU is visible to PyTorch (CUDA or ROCm)")
    device = torch.device("cuda")
    model, loss_of = build(arguments.model, arguments.batch, arguments.sequence, device)
    annotate_modules(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(arguments.precision)
    total = arguments.wait + arguments.warmup + arguments.steps
    folder = tempfile.mkdtemp()
    written = os.path.join(folder, "trace.json")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                 schedule=schedule(wait=arguments.wait, warmup=arguments.warmup, active=arguments.steps),
                 on_trace_ready=lambda p: p.export_chrome_trace(written)) as profiler:
        for _ in range(total):
            step(loss_of, optimizer, dtype)
            profiler.step()
    torch.cuda.synchronize()
    unprofiled = median_step_seconds(loss_of, optimizer, dtype, arguments.timed) if arguments.timed > 0 else None
    if arguments.output.endswith(".gz"):
        with open(written, "rb") as source, gzip.open(arguments.output, "wb") as target:
            shutil.copyfileobj(source, target)
    else:
        shutil.copyfile(written, arguments.output)
    shutil.rmtree(folder)
    print(f"{arguments.steps} steps of {arguments.model} (batch {arguments.batch}, {arguments.precision}) on "
          f"{torch.cuda.get_device_name()} (PyTorch {torch.__version__}) written to {arguments.output}")
    if unprofiled is not None:
        print(f"a step without the profiler: {unprofiled * 1e3:.3f} ms (median of {arguments.timed}, CUDA events)")


if __name__ == "__main__":
    main()
