#!/usr/bin/python3
"""Draws docs/figures/step_dataflow.png: the data flow of one time step through the cluster and mesh backends.

    /usr/bin/python3 docs/figures/make_architecture_figure.py
"""
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch  # noqa: E402

OUT = Path(__file__).resolve().parent / "step_dataflow.png"

# (shared step, cluster detail, mesh detail); None detail = the same code on both sides (md/ run loop)
STEPS = [
    ("half-kick + drift (fix nve initial)", None, None),
    ("neighbour decision", "skin/2 check → wrap, ghost images,\nbins, half list (Verlet)", "swap/remap atoms so each PE\nholds its nearest atom; window b"),
    ("exchange positions", "halo: ghost image positions\n(MPI between ranks)", "fabric multicast of x within\nthe b×b window (fabric/ routes)"),
    ("density pass  ρ̄_i = Σ ρ_j(r_ij)", "half list, Newton: ρ̄ folded\nfrom images onto owners", "full neighbourhood per PE\n(md/force/eam_atom_kernels.hpp)"),
    ("embedding  F(ρ̄), F′(ρ̄)", "per owned atom", "per PE"),
    ("exchange F′", "forward comm: images take\ntheir owner's F′", "one-word fabric multicast\nof F′ within the window"),
    ("force pass  f_i, virial, energy", "half list, f_j −= f_ij;\nimages folded onto owners", "full neighbourhood,\nno reverse exchange"),
    ("post-force fixes, half-kick (fix nve final)", None, None),
    ("global sums: thermo, minimiser dot products", "Comm (MPI, rank order)", "fabric reduction (cost model)"),
    ("thermo / dumps / report (rank 0 writes)", None, None),
]


def box(ax, x, y, w, h, text, color, size=8):
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.01,rounding_size=0.015", fc=color, ec="0.3", lw=0.8))
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=size)


def main():
    fig, ax = plt.subplots(figsize=(12, 9.5))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.axis("off")
    n = len(STEPS)
    top, bottom = 0.93, 0.03
    dy = (top - bottom) / n
    h = dy * 0.78
    ax.text(0.5, 0.975, "One time step (LAMMPS order) through both backends — md/ run loop calls Backend::compute",
            ha="center", fontsize=11, weight="bold")
    ax.text(0.14, 0.945, "md/cluster/ (MPI + Kokkos)", ha="center", fontsize=10, color="#1f4e99", weight="bold")
    ax.text(0.86, 0.945, "md/mesh/ (one atom per PE, fabric/)", ha="center", fontsize=10, color="#8a3b00", weight="bold")
    for k, (shared, cl, me) in enumerate(STEPS):
        y = top - (k + 1) * dy + (dy - h) / 2
        box(ax, 0.32, y, 0.36, h, shared, "#eeeeee" if cl is None or k == 8 else "#fff7d6", 9)
        if cl is not None:
            box(ax, 0.01, y, 0.26, h, cl, "#dce8fa", 7.5)
            box(ax, 0.73, y, 0.26, h, me, "#fde3cf", 7.5)
            for x0, x1 in ((0.32, 0.27), (0.68, 0.73)):
                ax.add_patch(FancyArrowPatch((x0, y + h / 2), (x1, y + h / 2), arrowstyle="-", lw=0.8,
                                             linestyle=":", color="0.4"))
        if k + 1 < n:
            ax.add_patch(FancyArrowPatch((0.5, y), (0.5, y - (dy - h)), arrowstyle="-|>", mutation_scale=10,
                                         lw=1.0, color="0.2"))
    ax.text(0.5, 0.005, "grey: shared md/ code (State, fixes, Comm); yellow: Backend::setup/compute; "
            "blue/orange: how each backend does it.  Reproduce: /usr/bin/python3 docs/figures/make_architecture_figure.py",
            ha="center", fontsize=7.5, color="0.3")
    fig.savefig(OUT, dpi=110)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
