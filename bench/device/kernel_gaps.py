"""The time a GPU idles between kernels in a training step: one layer's forward and backward pass run
eagerly (each kernel launched by the host as the step reaches it) against the same kernels replayed from a
CUDA graph (launched together), both timed with device events; the difference over the kernels launched
is the gap each costs. Layers: BERT-Large's encoder layer (fp16, unfused attention) and a GPT layer (bf16,
fused attention), at several batch sizes. Writes kernel_gaps.csv (to $OUT or the working folder).

Usage: python3 bench/device/kernel_gaps.py   (needs a CUDA GPU and PyTorch)
"""
import math

import torch
import torch.nn.functional as F

from device_timing import median_seconds, open_device, step_kernels, write_rows



class Bert(torch.nn.Module):
    def __init__(self, width=1024, heads=16):
        super().__init__()
        self.heads = heads
        self.query, self.key, self.value = (torch.nn.Linear(width, width) for _ in range(3))
        self.attention_output = torch.nn.Linear(width, width)
        self.norm1, self.norm2 = torch.nn.LayerNorm(width), torch.nn.LayerNorm(width)
        self.up, self.down = torch.nn.Linear(width, 4 * width), torch.nn.Linear(4 * width, width)

    def split(self, x):
        b, s, w = x.shape
        return x.view(b, s, self.heads, w // self.heads).permute(0, 2, 1, 3)

    def forward(self, x):
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
        probs = F.dropout(F.softmax(scores, dim=-1), 0.1, True)
        context = torch.matmul(probs, v).permute(0, 2, 1, 3).reshape(x.shape)
        h = self.norm1(F.dropout(self.attention_output(context), 0.1, True) + x)
        return self.norm2(F.dropout(self.down(F.gelu(self.up(h))), 0.1, True) + h)


class Gpt(torch.nn.Module):
    def __init__(self, width=4096, heads=32):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = torch.nn.LayerNorm(width), torch.nn.LayerNorm(width)
        self.qkv, self.out = torch.nn.Linear(width, 3 * width), torch.nn.Linear(width, width)
        self.up, self.down = torch.nn.Linear(width, 4 * width), torch.nn.Linear(4 * width, width)

    def forward(self, x):
        b, s, w = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, s, 3, self.heads, w // self.heads).permute(2, 0, 3, 1, 4)
        x = x + self.out(F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, s, w))
        return x + self.down(F.gelu(self.up(self.norm2(x)), approximate="tanh"))


def measure(name, layer, shape, dtype, rows):
    layer = layer.cuda().to(dtype)
    x = torch.randn(*shape, device="cuda", dtype=dtype, requires_grad=True)
    grad = torch.randn(*shape, device="cuda", dtype=dtype)

    def step():
        layer(x).backward(grad)
        x.grad = None
        for p in layer.parameters():
            p.grad = None

    eager = median_seconds(step, repeats=30)
    kernels = round(sum(count for _, count, _ in step_kernels(step, iterations=1)))
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            step()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        layer(x).backward(grad)
    replay = median_seconds(graph.replay, repeats=30)
    gap = (eager - replay) / kernels
    print(f"{name:28s} eager {eager * 1e3:8.3f} ms, graph {replay * 1e3:8.3f} ms, {kernels} kernels: "
          f"{gap * 1e6:5.2f} us a kernel")
    rows.append([name, kernels, eager, replay, gap])


def main():
    print(open_device())
    rows = [["layer", "kernels", "eager_s", "graph_s", "gap_s"]]
    for batch in (8, 32, 128, 256):
        measure(f"bert-large b={batch} s=128", Bert(), (batch, 128, 1024), torch.float16, rows)
    for batch in (4, 16):
        measure(f"bert-large b={batch} s=512", Bert(), (batch, 512, 1024), torch.float16, rows)
    for width, heads in ((2048, 16), (4096, 32)):
        measure(f"gpt w={width} s=4096", Gpt(width, heads), (1, 4096, width), torch.bfloat16, rows)
    write_rows("kernel_gaps.csv", rows)


if __name__ == "__main__":
    main()
