#!/usr/bin/python3
"""Plots a strong-scaling study (scaling.csv from `wafermd scaling`) with reference curves: LAMMPS measured on
the same machine (lammps.csv from `wafermd scaling --lammps`, when given), the mesh backend's predicted wafer
steps/s (`wafermd model INPUT --json`, when given) and a GPU-cluster projection to 10,000 devices from the
latency/bandwidth model in frontier.yaml (see docs/scaling.md).

Usage: plot_scaling.py --csv scaling.csv --out scaling.png [--frontier frontier.yaml] [--model model.json]
                       [--lammps lammps.csv] [--title TEXT] [--atoms N]
"""
import argparse
import csv
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import yaml  # noqa: E402


STEAL_NOTE = 0.05  # a run whose ranks lost more than this share of their CPU time gets its steal printed


def load_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"error: {path} has no runs")
    return rows


def spread(ax, rows, ranks, rates, color):
    """Slowest-to-fastest bars around the medians of repeated runs (`wafermd scaling --repeat`); the legend note."""
    n = [int(r.get("repeats") or 1) for r in rows]
    if max(n) < 2:
        return ""
    lo = [float(r["steps_per_second_min"]) for r in rows]
    hi = [float(r["steps_per_second_max"]) for r in rows]
    ax.errorbar(ranks, rates, yerr=[[v - a for v, a in zip(rates, lo)], [b - v for v, b in zip(rates, hi)]],
                fmt="none", ecolor=color, capsize=3, alpha=0.8)
    return f"; median of {max(n)} runs, bars slowest to fastest"


def frontier_model(params, atoms, devices):
    """Seconds per step on `devices` GPUs for `atoms` atoms: compute + fixed launches + halo exchanges."""
    num = lambda d: {k: float(v) if isinstance(v, (int, float, str)) and k != "name" else v for k, v in d.items()}
    dev, net, dec = num(params["device"]), num(params["network"]), num(params["decomposition"])
    rate = dev["peak_fp64_tflops"] * 1e12 * dev["compute_efficiency"] / dev["flops_per_atom_step"]
    n = np.asarray(devices, dtype=float)
    local = atoms / n
    compute = local / rate
    launches = dev["kernel_launches_per_step"] * dev["kernel_launch_seconds"]
    # Sub-domain as a cube of `local` atoms; ghosts fill a shell one cut-off deep (capped by the whole system).
    rho = dec["number_density"]
    side = (local / rho) ** (1.0 / 3.0)
    rc = dec["ghost_cutoff_angstrom"]
    ghosts = np.minimum(((side + 2 * rc) ** 3 - side**3) * rho, 26.0 * atoms)
    ghosts = np.where(n > 1, ghosts, 0.0)
    msgs = np.where(n > 1, dec["messages_per_exchange"] * dec["exchanges_per_step"], 0)
    latency = msgs * net["latency_seconds"] + net["allreduce_per_step"] * np.log2(n) * net["latency_seconds"]
    volume = ghosts * dec["bytes_per_ghost_per_step"] / net["bandwidth_bytes_per_second_per_gcd"]
    return compute + launches + latency + volume, rate


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--csv", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--frontier")
    ap.add_argument("--model")
    ap.add_argument("--lammps")
    ap.add_argument("--title", default="")
    ap.add_argument("--atoms", type=int, help="atoms for the projection (default: the CSV's)")
    a = ap.parse_args()

    rows = load_csv(a.csv)
    ranks = [int(r["ranks"]) for r in rows]
    sps = [float(r["steps_per_second"]) for r in rows]
    measured_atoms = int(rows[0]["atoms"])
    atoms = a.atoms or measured_atoms

    fig, ax = plt.subplots(figsize=(8, 7))
    note = spread(ax, rows, ranks, sps, "C0")
    ax.plot(ranks, sps, "o-", color="C0",
            label=f"wafermd cluster backend on this machine (measured, {measured_atoms:,} atoms{note})")
    ideal = [sps[0] * k / ranks[0] for k in ranks]
    ax.plot(ranks, ideal, ":", color="C0", alpha=0.6, label="ideal strong scaling from the first point")
    stolen = 0
    for k, s, r in zip(ranks, sps, rows):
        label = f"{float(r['efficiency']) * 100:.0f}%"
        steal = float(r.get("host_steal") or 0.0)
        if steal > STEAL_NOTE:
            # A point the hypervisor disturbed says so where it is read, not only in the CSV.
            label += f"\nsteal {steal * 100:.0f}%"
            stolen += 1
        ax.annotate(label, (k, s), textcoords="offset points", xytext=(4, -6), va="top", fontsize=8, color="C0")
    if stolen:
        print(f"note: {stolen} of the {len(rows)} runs lost more than {STEAL_NOTE * 100:.0f}% of their CPU time to "
              "the host's hypervisor (labelled in the plot)")
        ax.plot([], [], " ", label=f"steal N%: the host's hypervisor took N% of the ranks' CPU time in that run's "
                                   f"step loop\n(/proc/stat; over {STEAL_NOTE * 100:.0f}% the speed and efficiency "
                                   "say more about the host than the code)")

    if a.lammps:
        lrows = load_csv(a.lammps)
        lk = [int(r["ranks"]) for r in lrows]
        ls = [float(r["steps_per_second"]) for r in lrows]
        lnote = spread(ax, lrows, lk, ls, "0.35")
        ax.plot(lk, ls, "s-", color="0.35", label="LAMMPS (lmp) on this machine, same script (measured just after "
                                                  f"each wafermd run{lnote})")
        for k, v, r in zip(lk, ls, lrows):
            ax.annotate(f"{float(r['efficiency']) * 100:.0f}%", (k, v), textcoords="offset points", xytext=(4, 6),
                        fontsize=8, color="0.35")

    xmax = max(ranks)
    if a.frontier:
        with open(a.frontier) as f:
            params = yaml.safe_load(f)
        devices = np.unique(np.round(np.logspace(0, 4, 60)).astype(int))
        t, rate = frontier_model(params, atoms, devices)
        best = devices[np.argmax(1 / t)]
        ax.plot(devices, 1.0 / t, "-", color="C3",
                label=f"GPU-cluster projection, {atoms:,} atoms (frontier.yaml: {rate:.2g} atom-steps/s per GCD\n"
                      f"+ latency/bandwidth model); best {1 / t.min():,.0f} steps/s at {best:,} GCDs")
        xmax = max(xmax, devices[-1])
        if atoms == 801792:
            ax.axhline(1.5e3, color="C3", ls="--", alpha=0.5,
                       label="published Frontier LAMMPS, 801,792 atoms (≈1.5k steps/s, wafer.md)")
    if a.model:
        try:
            with open(a.model) as f:
                m = json.load(f)
            pred = float(m["predicted_steps_per_second"])
            ax.axhline(pred, color="C2", ls="-.", label=f"mesh backend: predicted wafer ({m.get('wafer', 'wse2')}) "
                                                        f"{pred:,.0f} steps/s")
        except (OSError, ValueError, KeyError) as e:
            print(f"note: mesh prediction skipped ({e})", file=sys.stderr)

    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(0.8, xmax * 1.2)
    # Room below the lowest measured point for its efficiency (and steal) label.
    ax.set_ylim(bottom=min(sps + (ls if a.lammps else [])) / 3.0)
    ax.set_xlabel("MPI ranks (CPU cores) / GPU devices (GCDs)")
    ax.set_ylabel("simulation speed (timesteps per second)")
    ax.set_title(f"Strong scaling{': ' + a.title if a.title else ''}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=1)
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
