#!/usr/bin/python3
"""Writes the SimGrid platform XML of a dtsim `ring` or `mesh` topology: hosts worker-0..p-1, one
split-duplex link per ring neighbour pair (or per pair, for a mesh), and fewest-hop routes between
every pair, as dtsim builds them. Usage: platform.py ring|mesh RANKS BANDWIDTH LATENCY > platform.xml"""
import sys


def main() -> None:
    kind, ranks, bandwidth, latency = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    out = ["<?xml version='1.0'?>", '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
           '<platform version="4.1">', '  <zone id="world" routing="Full">']
    for r in range(ranks):
        out.append(f'    <host id="worker-{r}" speed="1Gf"/>')
    routes = []
    if kind == "ring":
        links = ranks if ranks > 2 else ranks - 1
        for i in range(links):
            out.append(f'    <link id="link-{i}" bandwidth="{bandwidth}" latency="{latency}" sharing_policy="SPLITDUPLEX"/>')
        for a in range(ranks):
            for b in range(a + 1, ranks):
                forward = b - a
                if forward <= ranks - forward:   # a -> a+1 -> ... -> b: links a .. b-1, each traversed UP
                    hops = [(i, "UP") for i in range(a, b)]
                else:                            # a -> a-1 -> ... -> b (wrapping): links a-1, a-2, ..., b, DOWN
                    hops = [((a - 1 - k) % ranks, "DOWN") for k in range(ranks - forward)]
                routes.append((a, b, hops))
    elif kind == "mesh":
        for a in range(ranks):
            for b in range(a + 1, ranks):
                out.append(f'    <link id="link-{a}-{b}" bandwidth="{bandwidth}" latency="{latency}" sharing_policy="SPLITDUPLEX"/>')
                routes.append((a, b, [(f"{a}-{b}", "UP")]))
    else:
        sys.exit(f"unknown topology {kind}")
    for a, b, hops in routes:
        out.append(f'    <route src="worker-{a}" dst="worker-{b}" symmetrical="YES">')
        out.extend(f'      <link_ctn id="link-{link}" direction="{d}"/>' for link, d in hops)
        out.append("    </route>")
    out += ["  </zone>", "</platform>"]
    print("\n".join(out))


if __name__ == "__main__":
    main()
