"""Turns a gemm_shapes.csv measured by gemm_shapes.py into the table of sim/compute/gemm_shape.cpp: for each
(m, n, k) of the grid, the mean of the fp16 and bf16 throughputs over that of the 8192 x 8192 x 8192 product.
Grid points the benchmark skipped (m n k > 2^41, products of more than 4 TFLOP) take the point of the next
smaller m with the same n and k: products that large have reached their plateau.

Usage: python3 bench/device/gemm_shape_table.py bench/device/results/h100-gemm-shapes.csv
"""
import csv
import sys
from collections import defaultdict


def main(path):
    rates = defaultdict(list)
    for row in csv.DictReader(open(path)):
        if row["kind"] == "gemm":
            rates[(int(row["m"]), int(row["n"]), int(row["k"]))].append(float(row["flops_per_second"]))
    mean = {shape: sum(v) / len(v) for shape, v in rates.items()}
    reference = mean[(8192, 8192, 8192)]
    ms = sorted({s[0] for s in mean})
    nks = sorted({s[1] for s in mean})
    print(f"// m: {ms}; n and k: {nks}; reference {reference / 1e12:.1f} TFLOP/s")
    for m_index, m in enumerate(ms):
        print("    {")
        for n in nks:
            values = []
            for k in nks:
                at = m_index
                while (ms[at], n, k) not in mean:
                    at -= 1
                values.append(f"{mean[(ms[at], n, k)] / reference:.3f}")
            print("        {" + ", ".join(values) + "},")
        print("    },")


if __name__ == "__main__":
    main(sys.argv[1])
