"""One BERT-Large encoder layer, written as NVIDIA's DeepLearningExamples PyTorch BERT writes it (separate
query, key and value products, unfused attention: scores, softmax and dropout through memory, bias-GELU,
dropout, residual addition and LayerNorm), trained in mixed precision (torch.autocast, fp16) on the GPU at
hand, forward and backward. Prints and writes (to $OUT or the working folder) what the layer's kernels take
by kind, beside the two ceilings: a large fp16 matrix product and a device-to-device copy.

Usage: python3 bench/device/bert_layer_kernels.py   (needs a CUDA GPU and PyTorch)
"""
import math

import torch
import torch.nn.functional as F

from device_timing import median_seconds, open_device, seconds_by_kind, step_kernels, write_rows

WIDTH, HEADS, INNER = 1024, 16, 4096


def ceilings():
    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, n, device="cuda", dtype=torch.float16)
    matmul = 2 * n**3 / median_seconds(lambda: a @ b)
    src = torch.randn(256 * 1024 * 1024, device="cuda", dtype=torch.float32)
    dst = torch.empty_like(src)
    copy = 2 * src.numel() * 4 / median_seconds(lambda: dst.copy_(src))
    return matmul, copy


class Layer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.query = torch.nn.Linear(WIDTH, WIDTH)
        self.key = torch.nn.Linear(WIDTH, WIDTH)
        self.value = torch.nn.Linear(WIDTH, WIDTH)
        self.attention_output = torch.nn.Linear(WIDTH, WIDTH)
        self.norm1 = torch.nn.LayerNorm(WIDTH, eps=1e-12)
        self.up = torch.nn.Linear(WIDTH, INNER)
        self.down = torch.nn.Linear(INNER, WIDTH)
        self.norm2 = torch.nn.LayerNorm(WIDTH, eps=1e-12)

    def heads(self, x):
        b, s, _ = x.shape
        return x.view(b, s, HEADS, WIDTH // HEADS).permute(0, 2, 1, 3)

    def forward(self, x, mask):
        q, k, v = self.heads(self.query(x)), self.heads(self.key(x)), self.heads(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(WIDTH // HEADS) + mask
        probs = F.dropout(F.softmax(scores, dim=-1), 0.1, True)
        context = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous().view(x.shape)
        h = self.norm1(F.dropout(self.attention_output(context), 0.1, True) + x)
        return self.norm2(F.dropout(self.down(F.gelu(self.up(h))), 0.1, True) + h)


def kind_of(name):
    n = name.lower()
    if any(k in n for k in ("gemm", "cutlass", "xmma", "nvjet", "cublas", "sm90_", "sm80_")):
        return "matrix products"
    if n.startswith("triton"):
        return "fused (compiled)"
    if "softmax" in n:
        return "softmax"
    if "dropout" in n or "fused_dropout" in n or "bernoulli" in n:
        return "dropout"
    if "layer_norm" in n or "layernorm" in n:
        return "layer norm"
    if "copy" in n or "cast" in n or "to_copy" in n:
        return "copies and casts"
    return "other elementwise"


def run_layer(batch, sequence, rows, variant):
    """`variant`: "autocast eager" (fp32 weights, torch.autocast), "fp16 eager" (the whole layer in fp16, as
    DeepLearningExamples' multi-GPU runs halve the model), "fp16 compiled" (the same through torch.compile,
    which fuses the elementwise kernels between the products)."""
    half = variant.startswith("fp16")
    dtype = torch.float16 if half else torch.float32
    layer = Layer().cuda().to(dtype)
    x = torch.randn(batch, sequence, WIDTH, device="cuda", dtype=dtype, requires_grad=True)
    mask = torch.zeros(batch, 1, 1, sequence, device="cuda", dtype=dtype)
    grad = torch.randn(batch, sequence, WIDTH, device="cuda", dtype=torch.float16)
    forward = torch.compile(layer, dynamic=False) if variant.endswith("compiled") else layer

    def step():
        with torch.autocast("cuda", dtype=torch.float16, enabled=not half):
            y = forward(x, mask)
        y.backward(grad.to(y.dtype))

    wall = median_seconds(step)
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    launched = step_kernels(step)
    for name, count, seconds in launched:
        rows.append([batch, sequence, variant + " kernel", name[:120], int(count), seconds])
    by_kind, kernels = seconds_by_kind(launched, kind_of)
    tokens = batch * sequence
    flops = 3 * (2 * tokens * WIDTH * (4 * WIDTH + 2 * INNER) + 4 * batch * sequence * sequence * WIDTH)
    print(f"\nlayer {variant} b={batch} s={sequence}: {wall * 1e3:.2f} ms a step (forward+backward), {kernels:.0f} kernels, "
          f"{flops / wall / 1e12:.0f} TFLOP/s of the products' FLOPs")
    busy = sum(by_kind.values())
    for kind, seconds in sorted(by_kind.items(), key=lambda kv: -kv[1]):
        print(f"  {kind:18s} {seconds * 1e3:8.3f} ms  {100 * seconds / wall:5.1f}%")
        rows.append([batch, sequence, variant + " kind", kind, "", seconds])
    print(f"  {'idle between':18s} {(wall - busy) * 1e3:8.3f} ms  {100 * (wall - busy) / wall:5.1f}%")
    rows.append([batch, sequence, variant + " wall", "step", kernels, wall])


def run_products(tokens, rows):
    shapes = [("query/key/value/output", tokens, WIDTH, WIDTH), ("ffn up", tokens, WIDTH, INNER),
              ("ffn down", tokens, INNER, WIDTH), ("weight grad d x d", WIDTH, tokens, WIDTH),
              ("weight grad d x 4d", WIDTH, tokens, INNER)]
    for name, m, k, n in shapes:
        a = torch.randn(m, k, device="cuda", dtype=torch.float16)
        b = torch.randn(k, n, device="cuda", dtype=torch.float16)
        rate = 2 * m * n * k / median_seconds(lambda: a @ b)
        print(f"  product {name:22s} {m}x{k}x{n}: {rate / 1e12:6.1f} TFLOP/s")
        rows.append([tokens, "", "product", f"{name} {m}x{k}x{n}", "", rate])


def main():
    device = open_device()
    matmul, copy = ceilings()
    print(f"{device}: fp16 8192^3 product "
          f"{matmul / 1e12:.0f} TFLOP/s, device copy {copy / 1e12:.2f} TB/s (read + write)")
    rows = [["batch", "sequence", "what", "name", "count", "value"],
            ["", "", "ceiling", "fp16 product 8192^3 FLOP/s", "", matmul],
            ["", "", "ceiling", "device copy bytes/s", "", copy]]
    for tokens in (32768, 16384):
        run_products(tokens, rows)
    for variant in ("autocast eager", "fp16 eager", "fp16 compiled"):
        for batch, sequence in ((256, 128), (32, 512)):
            run_layer(batch, sequence, rows, variant)
    write_rows("bert_layer_kernels.csv", rows)


if __name__ == "__main__":
    main()
