#!/usr/bin/python3
"""Draws the systolic window multicast (10x10 mesh, b = 2) phase by phase from fabric_perf's schedule dump.

Usage: build-fabric/validation/perf/fabric_perf --dump-schedule /tmp/fabric_schedule.json
       /usr/bin/python3 docs/figures/make_fabric_figure.py /tmp/fabric_schedule.json docs/figures/fabric_multicast.png
Reads FILE and FILE.wrap.json; top row: without wrap (both directions per phase), bottom row: folded torus
(one direction per phase, logical steps of up to 2 physical hops).
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def draw(ax, dump, phase, title):
    n = dump["grid"][0]
    ax.set_xlim(-0.7, n - 0.3)
    ax.set_ylim(n - 0.3, -0.7)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    xs = [x for x in range(n) for _ in range(n)]
    ys = [y for _ in range(n) for y in range(n)]
    ax.scatter(xs, ys, s=6, c="0.75", zorder=1)
    cmap = plt.get_cmap("tab20")
    senders = set()
    for st in dump["phases"][phase]:
        path = st["path"]
        senders.add(tuple(path[0]))
        for (x0, y0), (x1, y1) in zip(path[:-1], path[1:]):
            # Offset each direction sideways so the two directions of one link stay apart.
            ox = 0.12 * (1 if y1 > y0 else -1 if y1 < y0 else 0)
            oy = 0.12 * (1 if x1 > x0 else -1 if x1 < x0 else 0)
            ax.annotate("", xy=(x1 - (x1 - x0) * 0.18 + ox, y1 - (y1 - y0) * 0.18 + oy),
                        xytext=(x0 + (x1 - x0) * 0.18 + ox, y0 + (y1 - y0) * 0.18 + oy),
                        arrowprops=dict(arrowstyle="-|>", lw=0.8, color=cmap(st["color"] % 20), shrinkA=0, shrinkB=0),
                        zorder=2)
    ax.set_title(title, fontsize=8)


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "/tmp/fabric_schedule.json"
    out = sys.argv[2] if len(sys.argv) > 2 else "docs/figures/fabric_multicast.png"
    plain = json.load(open(src))
    wrap = json.load(open(src + ".wrap.json"))
    b = plain["b"]
    fig, axes = plt.subplots(2, 4, figsize=(13, 8.2))
    for k in range(4):
        stage = "horizontal" if k < b else "vertical"
        step = k % b + 1
        draw(axes[0][k], plain, k,
             f"no wrap, {stage} step {step}: {plain['phase_cycles'][k]} cycles\n"
             f"longest stream: {max(s['words'] for s in plain['phases'][k])} words")
    for k in range(4):
        step = k // 2 + 1
        direction = "+x" if k % 2 == 0 else "-x"
        draw(axes[1][k], wrap, k,
             f"folded torus, horizontal step {step} ({direction}): {wrap['phase_cycles'][k]} cycles\n"
             "logical step = up to 2 physical hops")
    fig.suptitle(
        f"Systolic window multicast, {plain['grid'][0]}x{plain['grid'][1]} PEs, b = {b}, {plain['words']}-word payload "
        f"(arrows: one stream per link per phase, colored by route color)\n"
        f"no wrap: {plain['colors_used']} colors, {plain['simulated_cycles']} cycles simulated / "
        f"{plain['modeled_cycles']} modeled; folded torus: {wrap['colors_used']} colors, "
        f"{wrap['simulated_cycles']} simulated / {wrap['modeled_cycles']} modeled",
        fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=130)
    print("wrote", out)


if __name__ == "__main__":
    main()
