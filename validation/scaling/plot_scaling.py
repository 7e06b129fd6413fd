#!/usr/bin/python3
"""Plots a strong-scaling study (`wafermd scaling`) as the published comparison reads: timesteps/s against
hardware count for one fixed problem, with
  - the runs measured on this machine: wafermd (scaling.csv) and, when given, LAMMPS (lammps.csv), with their
    spread over repeated runs and their efficiencies;
  - the CPU-cluster projection (--cpu, cpu_projection.py) and the GPU-cluster projection (--gpu,
    gpu_projection.py), each fitted to published LAMMPS timings, as bands to thousands of devices;
  - the mesh backend's wafer prediction (--model, `wafermd model INPUT --json`) at one wafer;
  - the published benchmark's points (published_points.yaml) when the input is one of its systems;
atoms per rank or device on the top axis, beside panels of the projections' held-out rows, and the study's
provenance (--provenance) underneath. --projection-json writes the GPU projection's best point and band.

Usage: plot_scaling.py --csv scaling.csv --out scaling.png [--gpu PRESET [--projection-json OUT]] [--cpu PRESET]
                       [--gpu-presets gpu_projection.yaml] [--measurements gpu_measurements.yaml]
                       [--model model.json] [--lammps lammps.csv] [--provenance provenance.json]
                       [--title TEXT] [--atoms N]
"""
import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_projection  # noqa: E402
import study_series  # noqa: E402

STEAL_NOTE = 0.05  # a run whose ranks lost more than this share of their CPU time gets its steal printed
COLORS = {"wafermd": "C0", "lammps": "0.35", "CPU cluster": "C1", "GPU cluster": "C3", "wafer": "C2"}


def draw_measured(ax, s, color, marker, prov, efficiency_offset):
    """A measured series with its spread, efficiencies, and a reason printed at any speed-down."""
    k, v = s["counts"], s["steps_per_second"]
    note = ""
    if s.get("lo"):
        ax.errorbar(k, v, yerr=[[a - b for a, b in zip(v, s["lo"])], [b - a for a, b in zip(v, s["hi"])]],
                    fmt="none", ecolor=color, capsize=3, alpha=0.8)
        note = f"; median of {s['repeats']} runs, bars slowest to fastest"
    ax.plot(k, v, marker + "-", color=color, label=f"{s['label']} (measured{note})")
    stolen = 0
    cpus = (prov.get("machine") or {}).get("logical_cpus")
    for j, (kk, vv, r) in enumerate(zip(k, v, s["rows"])):
        label = f"{float(r['efficiency']) * 100:.0f}%"
        steal = float(r.get("host_steal") or 0.0)
        if steal > STEAL_NOTE:
            # A point the hypervisor disturbed says so where it is read, not only in the CSV.
            label += f"\nsteal {steal * 100:.0f}%"
            stolen += 1
        if j > 0 and vv < v[0]:
            # A speed-down is never shown without its reason.
            if cpus and kk > cpus:
                why = f"{kk} ranks on {cpus} logical CPUs (oversubscribed)"
            elif steal > STEAL_NOTE:
                why = "the hypervisor took the CPU time"
            else:
                why = "the host was busy (no steal seen; compare LAMMPS, measured just after)"
            label += f"\nslower than {k[0]} rank{'s' if k[0] > 1 else ''}: {why}"
            print(f"note: {s['label']}: {kk} ranks ran slower than {k[0]} ({vv:.4g} < {v[0]:.4g} steps/s): {why}")
        ax.annotate(label, (kk, vv), textcoords="offset points", xytext=efficiency_offset, va="top", fontsize=7,
                    color=color)
    return stolen


def draw_projection(ax, s, color):
    res = s["result"]
    ax.fill_between(s["counts"], s["band_low"], s["band_high"], color=color, alpha=0.15)
    i, count, sps = study_series.best(s)
    ax.plot(s["counts"], s["steps_per_second"], "-", color=color,
            label=f"{s['label']} (fitted to published LAMMPS timings; band: the fit's spread);\n"
                  f"best {sps:,.0f} steps/s from {count:,} {s['unit']} "
                  f"(band {max(s['band_low']):,.0f}-{max(s['band_high']):,.0f})")
    ax.plot([count], [sps], "o", mfc="white", color=color, ms=7)
    return res


def draw_wafer(ax, s):
    v = s["steps_per_second"][0]
    if s.get("band_low"):
        ax.errorbar([1], [v], yerr=[[v - s["band_low"][0]], [s["band_high"][0] - v]], fmt="D", color=COLORS["wafer"],
                    ms=9, capsize=4, label=f"{s['label']}: {v:,.0f} steps/s at one wafer\n(range "
                                           f"{s['band_low'][0]:,.0f}-{s['band_high'][0]:,.0f}: the preset's "
                                           "estimated parameters at their ends)")
    else:
        ax.plot([1], [v], "D", color=COLORS["wafer"], ms=9, label=f"{s['label']}: {v:,.0f} steps/s at one wafer")
    ax.axhline(v, color=COLORS["wafer"], ls=":", lw=0.8, alpha=0.6)


def draw_published(ax, points, cpu_cores_per_node):
    for p in points:
        color = COLORS[p["platform"]]
        v = float(p["steps_per_second"])
        marker = "^" if p.get("bound") == "lower" else "*"
        if p.get("count") is not None:
            x = p["count"] * (p.get("cores_per_node") or cpu_cores_per_node or 1) if p["unit"] == "nodes" \
                else p["count"]
            # An inferred point is drawn hollow: it is carried from a published sentence, not published itself.
            ax.plot([x], [v], marker, color=color, mec="black", ms=14, mfc="none" if p.get("inferred") else color,
                    label=p["label"] + (f" ({p['count']} nodes = {x:,} ranks)" if p["unit"] == "nodes" else ""))
            ax.annotate(p["label"].split(":")[0], (x, v), textcoords="offset points", xytext=(8, 4), fontsize=7)
        else:
            lo, hi = p["count_range"]
            ax.plot([lo, hi], [v, v], "-", color=color, lw=3, alpha=0.6)
            ax.plot([np.sqrt(lo * hi)], [v], marker, color=color, mec="black", ms=14,
                    label=p["label"] + " (count not given: the bar spans the counts tried)")


def draw_heldout(ax, rows, title):
    if not rows:
        ax.set_axis_off()
        return
    uses = sorted({x.get("use", "row") for x in rows})
    markers = ["o", "s", "*", "D", "^", "v"]
    for j, use in enumerate(uses):
        pts = [x for x in rows if x.get("use", "row") == use]
        meas = np.array([x["measured"] for x in pts])
        mid = np.array([x["projected"] for x in pts])
        err = [np.maximum(0, mid - np.array([x.get("band_low", x["projected"]) for x in pts])),
               np.maximum(0, np.array([x.get("band_high", x["projected"]) for x in pts]) - mid)]
        ax.errorbar(meas, mid, yerr=err, fmt=markers[j % len(markers)], color=f"C{j}", ms=6, capsize=2,
                    label=f"{use} ({len(pts)})")
    lo = min(min(x["measured"], x.get("band_low", x["projected"])) for x in rows) / 2
    hi = max(max(x["measured"], x.get("band_high", x["projected"])) for x in rows) * 2
    span = np.array([lo, hi])
    ax.plot(span, span, "k-", lw=0.8)
    ax.plot(span, 2 * span, "k:", lw=0.8, label="2x off")
    ax.plot(span, span / 2, "k:", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    within = sum(bool(x["within_2x"]) for x in rows)
    ax.set_title(f"{title}: {within} of {len(rows)} held-out rows within 2x\n(never read by the fit; bars: band)",
                 fontsize=9)
    ax.set_xlabel("published steps/s", fontsize=8)
    ax.set_ylabel("projected steps/s", fontsize=8)
    ax.tick_params(labelsize=7)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--csv", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--gpu", help="GPU preset of gpu_projection.yaml (frontier, h100)")
    ap.add_argument("--cpu", help="CPU preset of cpu_projection.yaml (quartz)")
    ap.add_argument("--gpu-presets", default=gpu_projection.PRESETS)
    ap.add_argument("--measurements", default=gpu_projection.MEASUREMENTS)
    ap.add_argument("--projection-json", help="write the GPU projection's best point and band here (with --gpu)")
    ap.add_argument("--model")
    ap.add_argument("--lammps")
    ap.add_argument("--provenance")
    ap.add_argument("--title", default="")
    ap.add_argument("--atoms", type=int, help="atoms for the projections (default: the CSV's)")
    a = ap.parse_args()

    prov, series, system, points, atoms = study_series.study(a.csv, a.lammps, a.model, a.provenance, a.gpu, a.cpu,
                                                             a.atoms, a.gpu_presets, a.measurements)
    side = bool(a.gpu or a.cpu)
    if side:
        fig = plt.figure(figsize=(17, 10))
        gs = fig.add_gridspec(2, 2, width_ratios=[2.0, 1], hspace=0.35, wspace=0.18)
        ax = fig.add_subplot(gs[:, 0])
        panels = {"GPU cluster": fig.add_subplot(gs[0, 1]), "CPU cluster": fig.add_subplot(gs[1, 1])}
    else:
        fig, ax = plt.subplots(figsize=(9, 8))
    lows, xmax, cores_per_node = [], 1, None
    for s in series:
        if s["kind"] == "measured":
            ours = s.get("who") == "wafermd"
            stolen = draw_measured(ax, s, COLORS[s["who"]], "o" if ours else "s", prov, (4, -6) if ours else (4, 12))
            lows += s["steps_per_second"]
            if ours:
                k0, v0 = s["counts"], s["steps_per_second"]
                ax.plot(k0, [v0[0] * k / k0[0] for k in k0], ":", color=COLORS["wafermd"], alpha=0.6,
                        label="ideal strong scaling from wafermd's first point")
                if stolen:
                    print(f"note: {stolen} of the {len(k0)} runs lost more than {STEAL_NOTE * 100:.0f}% of their CPU "
                          "time to the host's hypervisor (labelled in the plot)")
                    ax.plot([], [], " ", label="steal N%: the host's hypervisor took N% of the ranks' CPU time in "
                                               f"that run's step loop\n(/proc/stat; over {STEAL_NOTE * 100:.0f}% the "
                                               "speed and efficiency say more about the host than the code)")
        elif s["kind"] == "projection":
            res = draw_projection(ax, s, COLORS[s["platform"]])
            draw_heldout(panels[s["platform"]], s["heldout"], f"{s['label'].split(',')[0]} ({s['preset']})")
            _, count, best = study_series.best(s)
            print(f"{s['label']}: best {best:,.0f} steps/s from {count:,} {s['unit']}, band "
                  f"{max(s['band_low']):,.0f}-{max(s['band_high']):,.0f}")
            if s["platform"] == "CPU cluster":
                cores_per_node = s.get("cores_per_node")
            elif a.projection_json:
                with open(a.projection_json, "w") as f:
                    json.dump(res, f, indent=1)
        elif s["kind"] == "prediction":
            draw_wafer(ax, s)
        xmax = max(xmax, s["counts"][-1])
    draw_published(ax, points, cores_per_node)
    if side:
        for platform, panel in panels.items():
            if not any(s["kind"] == "projection" and s["platform"] == platform for s in series):
                panel.set_axis_off()

    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(0.7, xmax * 1.3)
    # Room below the lowest measured point for its efficiency (and steal) label.
    ax.set_ylim(bottom=min(lows) / 3.0)
    ax.set_xlabel("hardware count: MPI ranks = CPU cores (this machine, CPU cluster); GCDs or GPUs (GPU cluster); "
                  "wafers (WSE)")
    ax.set_ylabel("simulation speed (timesteps per second)")
    top = ax.secondary_xaxis("top", functions=(lambda x: atoms / np.maximum(x, 1e-9),
                                               lambda y: atoms / np.maximum(y, 1e-9)))
    top.set_xlabel("atoms per rank or device (a wafer: one atom per PE)")
    title = f"Strong scaling, {atoms:,} atoms" + (f": {a.title}" if a.title else "")
    if system:
        title += f" (the published benchmark's {system})"
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(0.0, -0.08), ncol=2)
    if prov:
        text = "\n".join(line.replace("`", "") for line in study_series.provenance_lines(prov, atoms, system))
        fig.text(0.01, 0.005, text, fontsize=7, va="bottom", ha="left", family="monospace")
    fig.subplots_adjust(left=0.05, right=0.98, top=0.92, bottom=0.29 if prov else 0.25)
    fig.savefig(a.out, dpi=110)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
