#!/usr/bin/python3
"""Plots a strong-scaling study (scaling.csv from `wafermd scaling`) with reference curves: LAMMPS measured on
the same machine (lammps.csv from `wafermd scaling --lammps`, when given), the mesh backend's predicted wafer
steps/s (`wafermd model INPUT --json`, when given) and, with --gpu, the GPU-cluster projection to 10,000 devices
fitted to published GPU timings (gpu_projection.py; docs/scaling.md): its band, and beside the study a panel of the
held-out rows against the projection. --projection-json writes the projection's best point and band.

Usage: plot_scaling.py --csv scaling.csv --out scaling.png [--gpu PRESET [--projection-json OUT]]
                       [--gpu-presets gpu_projection.yaml] [--measurements gpu_measurements.yaml]
                       [--model model.json] [--lammps lammps.csv] [--title TEXT] [--atoms N]
"""
import argparse
import csv
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_projection  # noqa: E402


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


def draw_projection(ax, ax_check, res, heldout, atoms):
    """The projection's band and central curve on the study's axes; the held-out rows on their own axes."""
    d = res["devices"]
    ax.fill_between(d, res["band_low_curve"], res["band_high_curve"], color="C3", alpha=0.18,
                    label="GPU-cluster projection band (spread of the fit)")
    ax.plot(d, res["steps_per_second"], "-", color="C3",
            label=f"GPU-cluster projection, {res['name']}, {atoms:,} EAM atoms\n(fitted to published LAMMPS GPU "
                  f"timings); best {res['best_steps_per_second']:,.0f} steps/s from {res['best_devices']:,} devices")
    for x in heldout:
        if x["use"] == "eam_best" and x["atoms"] == atoms:
            ax.axhline(x["measured"], color="C3", ls="--", alpha=0.7,
                       label=f"held out: published {x['id']} (best over its device counts, "
                             f"{x['measured']:,.0f} steps/s)")
    if ax_check is None:
        return
    styles = {"device_curve": ("o", "C0", "LJ, one device"), "network": ("s", "C2", "LJ, strong scaling"),
              "eam_best": ("*", "C3", "EAM, best published rate")}
    for use, (marker, color, label) in styles.items():
        pts = [x for x in heldout if x["use"] == use]
        if not pts:
            continue
        meas = np.array([x["measured"] for x in pts])
        mid = np.array([x["projected"] for x in pts])
        err = [mid - np.array([x["band_low"] for x in pts]), np.array([x["band_high"] for x in pts]) - mid]
        ax_check.errorbar(meas, mid, yerr=err, fmt=marker, color=color, ms=12 if use == "eam_best" else 5,
                          capsize=2, label=f"{label} ({len(pts)})")
        for x in pts:
            if use == "eam_best":
                ax_check.annotate(f"{x['atoms']:,} atoms\npublished {x['measured']:,.0f}, projected "
                                  f"{x['projected']:,.0f}", (x["measured"], x["projected"]),
                                  textcoords="offset points", xytext=(0, -62), ha="center", fontsize=8,
                                  color=color)
    lo = min(min(x["measured"], x["band_low"]) for x in heldout) / 2
    hi = max(max(x["measured"], x["band_high"]) for x in heldout) * 2
    span = np.array([lo, hi])
    ax_check.plot(span, span, "k-", lw=0.8, label="projected = published")
    ax_check.plot(span, 2 * span, "k:", lw=0.8, label="2x off")
    ax_check.plot(span, span / 2, "k:", lw=0.8)
    ax_check.set_xscale("log")
    ax_check.set_yscale("log")
    ax_check.set_xlim(lo, hi)
    ax_check.set_ylim(lo, hi)
    within = sum(x["within_2x"] for x in heldout)
    ax_check.set_title(f"Held-out rows, never read by the fit ({res['preset']}):\n{within} of {len(heldout)} "
                       "within 2x; bars: the band", fontsize=10)
    ax_check.set_xlabel("published steps/s")
    ax_check.set_ylabel("projected steps/s")
    ax_check.grid(True, which="both", alpha=0.3)
    ax_check.legend(fontsize=8, loc="upper left")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--csv", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--gpu", help="GPU preset of gpu_projection.yaml (frontier, h100)")
    ap.add_argument("--gpu-presets", default=gpu_projection.PRESETS)
    ap.add_argument("--measurements", default=gpu_projection.MEASUREMENTS)
    ap.add_argument("--projection-json", help="write the projection's best point and band here (with --gpu)")
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

    if a.gpu:
        fig, (ax, ax_check) = plt.subplots(1, 2, figsize=(15, 7.5), gridspec_kw={"width_ratios": [1.25, 1]})
    else:
        fig, ax = plt.subplots(figsize=(8, 7))
        ax_check = None
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
    if a.gpu:
        doc = gpu_projection.load_presets(a.gpu_presets)
        if a.gpu not in doc["presets"]:
            sys.exit(f"error: unknown GPU preset '{a.gpu}' (known: {', '.join(doc['presets'])})")
        train = gpu_projection.load_training(a.measurements)
        params = {name: gpu_projection.fit(train, doc, name) for name in doc["presets"]}
        res = gpu_projection.project(params[a.gpu], doc, atoms)
        heldout = [x for x in gpu_projection.compare(gpu_projection.load_heldout(a.measurements), doc, params)
                   if x["preset"] == a.gpu]
        draw_projection(ax, ax_check, res, heldout, atoms)
        xmax = max(xmax, res["devices"][-1])
        print(f"GPU projection ({a.gpu}): best {res['best_steps_per_second']:,.0f} steps/s from "
              f"{res['best_devices']:,} devices, band {res['band_low']:,.0f}-{res['band_high']:,.0f}")
        if a.projection_json:
            with open(a.projection_json, "w") as f:
                json.dump(res, f, indent=1)
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
    ax.set_xlabel("MPI ranks (CPU cores) / GPU devices (GPUs or GCDs)")
    ax.set_ylabel("simulation speed (timesteps per second)")
    ax.set_title(f"Strong scaling{': ' + a.title if a.title else ''}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=1)
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
