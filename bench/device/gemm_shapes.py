"""Matrix-product throughput by shape on the GPU at hand (cuBLAS through PyTorch, fp16 and bf16 inputs,
fp32 accumulation): the grid dtsim's matrix-product efficiency by shape is judged on. Each shape is timed
as a run of back-to-back products between two device events (at least 2 ms of them, median of 5 runs),
as a training step issues them. Writes gemm_shapes.csv (to $OUT or the working folder) and prints a table.

Usage: python3 bench/device/gemm_shapes.py   (needs a CUDA GPU and PyTorch)
"""
import statistics
import time

import torch

from device_timing import open_device, write_rows


def seconds_per_product(fn, budget=2e-3, runs=5):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    guess = max(time.perf_counter() - start, 1e-6)
    count = max(3, min(2000, int(budget / guess)))
    times = []
    for _ in range(runs):
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        begin.record()
        for _ in range(count):
            fn()
        end.record()
        end.synchronize()
        times.append(begin.elapsed_time(end) / 1e3 / count)
    return statistics.median(times)


def main():
    device = open_device()
    rows = [["dtype", "kind", "batch", "m", "n", "k", "seconds", "flops_per_second"]]
    print(device)
    sizes_m = [256, 1024, 4096, 8192, 16384, 32768, 65536]
    sizes_nk = [256, 512, 1024, 2048, 4096, 8192, 16384]
    for dtype in (torch.float16, torch.bfloat16):
        name = str(dtype).replace("torch.", "")
        for m in sizes_m:
            line = []
            for n in sizes_nk:
                for k in sizes_nk:
                    if m * n * k > 2**41:
                        continue
                    a = torch.randn(m, k, device="cuda", dtype=dtype)
                    b = torch.randn(k, n, device="cuda", dtype=dtype)
                    t = seconds_per_product(lambda: a @ b)
                    rows.append([name, "gemm", 1, m, n, k, t, 2 * m * n * k / t])
                    if n == k:
                        line.append(f"{2 * m * n * k / t / 1e12:5.0f}")
            print(f"{name} m={m:6d} n=k in {sizes_nk[0]}..{sizes_nk[-1]}: " + " ".join(line) + " TFLOP/s")
        # Attention's batched products: scores (s x d_head by d_head x s) and context (s x s by s x d_head)
        # for 16 heads of 64 and 128 over enough sequences to hold 64k tokens.
        for head in (64, 128):
            for s in (128, 256, 512, 1024, 2048, 4096):
                batch = max(1, 65536 // s) * 16
                q = torch.randn(batch, s, head, device="cuda", dtype=dtype)
                kt = torch.randn(batch, head, s, device="cuda", dtype=dtype)
                p = torch.randn(batch, s, s, device="cuda", dtype=dtype) if batch * s * s <= 2**31 else None
                t = seconds_per_product(lambda: torch.bmm(q, kt))
                rows.append([name, "scores", batch, s, s, head, t, 2 * batch * s * s * head / t])
                if p is not None:
                    v = torch.randn(batch, s, head, device="cuda", dtype=dtype)
                    t2 = seconds_per_product(lambda: torch.bmm(p, v))
                    rows.append([name, "context", batch, s, head, s, t2, 2 * batch * s * s * head / t2])
                del q, kt, p
            print(f"{name} attention products, head {head}: done")
    write_rows("gemm_shapes.csv", rows)


if __name__ == "__main__":
    main()
