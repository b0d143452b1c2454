"""One GPT decoder layer as Megatron-LM builds it (pre-norm: LayerNorm, one query-key-value product, causal
fused attention, output product, residual addition; LayerNorm, 4h GELU feed-forward, residual addition),
in bf16 on the GPU at hand, forward and backward, one sequence of 4,096 tokens, at several widths: its
time, and what its kernels take by kind, eager and through torch.compile (which fuses the kernels between
the products). Writes gpt_layer_kernels.csv (to $OUT or the working folder) and prints a table.

Usage: python3 bench/device/gpt_layer_kernels.py   (needs a CUDA GPU and PyTorch)
"""

import torch
import torch.nn.functional as F

from device_timing import median_seconds, open_device, seconds_by_kind, step_kernels, write_rows

SEQUENCE = 4096


class Layer(torch.nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.norm1 = torch.nn.LayerNorm(width)
        self.qkv = torch.nn.Linear(width, 3 * width)
        self.out = torch.nn.Linear(width, width)
        self.norm2 = torch.nn.LayerNorm(width)
        self.up = torch.nn.Linear(width, 4 * width)
        self.down = torch.nn.Linear(4 * width, width)

    def forward(self, x):
        b, s, w = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, s, 3, self.heads, w // self.heads).permute(2, 0, 3, 1, 4)
        context = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.out(context.transpose(1, 2).reshape(b, s, w))
        return x + self.down(F.gelu(self.up(self.norm2(x)), approximate="tanh"))


def kind_of(name):
    n = name.lower()
    if "flash" in n or "fmha" in n or "attention" in n or "cudnn" in n:
        return "attention"
    if any(k in n for k in ("gemm", "cutlass", "xmma", "nvjet", "cublas", "sm90_", "sm80_")):
        return "matrix products"
    if n.startswith("triton"):
        return "fused (compiled)"
    return "other kernels"


def run(width, heads, compiled, rows):
    layer = Layer(width, heads).cuda().to(torch.bfloat16)
    x = torch.randn(1, SEQUENCE, width, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    grad = torch.randn_like(x)
    forward = torch.compile(layer, dynamic=False) if compiled else layer

    def step():
        forward(x).backward(grad)

    wall = median_seconds(step)
    by_kind, kernels = seconds_by_kind(step_kernels(step), kind_of)
    variant = "compiled" if compiled else "eager"
    products = 3 * 2 * SEQUENCE * width * width * 12
    attention = 3.5 * 2 * SEQUENCE * SEQUENCE * width  # causal: half the 4 s^2 h, backward 2.5x forward
    print(f"width {width} ({heads} heads) {variant}: {wall * 1e3:.3f} ms, {kernels:.0f} kernels, products "
          f"{products / 1e12:.3f} TFLOP, attention {attention / 1e12:.3f} TFLOP")
    busy = sum(by_kind.values())
    for kind, seconds in sorted(by_kind.items(), key=lambda kv: -kv[1]):
        print(f"  {kind:18s} {seconds * 1e3:8.3f} ms  {100 * seconds / wall:5.1f}%")
        rows.append([width, heads, variant, kind, seconds])
    print(f"  {'idle between':18s} {(wall - busy) * 1e3:8.3f} ms  {100 * (wall - busy) / wall:5.1f}%")
    rows.append([width, heads, variant, "idle between", wall - busy])
    rows.append([width, heads, variant, "step", wall])
    rows.append([width, heads, variant, "kernels", kernels])


def main():
    print(f"{open_device()}, sequence {SEQUENCE}, bf16")
    rows = [["width", "heads", "variant", "what", "value"]]
    for width, heads in ((2048, 16), (4096, 32), (6144, 48), (8192, 64)):
        for compiled in (False, True):
            run(width, heads, compiled, rows)
    write_rows("gpt_layer_kernels.csv", rows)


if __name__ == "__main__":
    main()
