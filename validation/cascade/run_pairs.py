#!/usr/bin/python3
"""Paired cascade comparison, wafermd vs LAMMPS (docs/cascades.md, "Validation").

For each seed k the same crystal (LAMMPS-exact lattice and `velocity ... loop geom` velocities), 1 ps of NVE
thermalisation from 2T, the same PKA atom, energy and direction (wafermd's seeded random direction), a Langevin
border slab, fix dt/reset with the same parameters and no electronic stopping, run to the same simulated time.
LAMMPS reads wafermd's spliced potential file (write_potential). Surviving Frenkel pairs of both codes are counted
by one Wigner–Seitz implementation (scipy, below) on the final positions, and paired seed by seed.

  /usr/bin/python3 validation/cascade/run_pairs.py --material cu --seeds 20 --cells 10 --time 3 --out DIR
writes DIR/pairs.csv, DIR/summary.json, DIR/defects_vs_time.png.
"""
import argparse
import json
import math
import os
import subprocess
import sys

import numpy as np
from scipy.spatial import cKDTree

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
POT = ""
MATERIALS = {
    # style, lattice, a, potential file, pair style, element, mass, Z, E_d, b, c (Nordlund 2018)
    "cu": dict(lattice="fcc", a=3.615, file=POT + "Cu_mishin1.eam.alloy", style="eam/alloy", el="Cu",
               mass=63.546, z=29, ed=33.0, b=-0.68, c=0.16, energy=1000.0, spliced="spliced.eam.alloy"),
    "w": dict(lattice="bcc", a=3.157, file=POT + "W_zhou.eam.alloy", style="eam/alloy", el="W",
              mass=183.84, z=74, ed=70.0, b=-0.56, c=0.12, energy=5000.0, spliced="spliced.eam.alloy"),
}
MVV2E = 1.0364269e-4


def setup_lines(m, cells, pair_file):
    return [
        "units metal", "atom_style atomic", "boundary p p p", f"lattice {m['lattice']} {m['a']}",
        f"region box block 0 {cells} 0 {cells} 0 {cells}", "create_box 1 box", "create_atoms 1 box",
        f"pair_style {m['style']}", f"pair_coeff * * {pair_file} {m['el']}",
    ]


THERMALISE_PS = 1.0  # 500 steps of 2 fs; Debian LAMMPS's reset_timestep keeps the time, so it is subtracted


def thermalise_lines(seed, temp, wafermd):
    return [
        "neighbor 1.0 bin", "neigh_modify every 1 delay 0 check yes",
        f"velocity all create {2 * temp} {seed} loop geom", "fix 1 all nve", "timestep 0.002", "run 500",
        "reset_timestep 0 time 0" if wafermd else "reset_timestep 0",
    ]


def ws_frenkel(data_file, m, cells):
    """Surviving Frenkel pairs by Wigner–Seitz occupancy against the perfect lattice of the final box."""
    with open(data_file) as f:
        lines = f.read().splitlines()
    lo_hi = [[float(w) for w in l.split()[:2]] for l in lines if l.endswith(("xlo xhi", "ylo yhi", "zlo zhi"))]
    start = next(i for i, l in enumerate(lines) if l.strip().startswith("Atoms"))
    pos = []
    for l in lines[start + 2:]:
        w = l.split()
        if not w:
            if pos:
                break
            continue
        pos.append([float(w[2]), float(w[3]), float(w[4])])
    pos = np.array(pos)
    lo = np.array([p[0] for p in lo_hi])
    L = np.array([p[1] - p[0] for p in lo_hi])
    return ws_count(pos, lo, L, m, cells)


def ws_count(pos, lo, L, m, cells):
    basis = [[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]] if m["lattice"] == "fcc" else \
        [[0, 0, 0], [0.5, 0.5, 0.5]]
    g = np.arange(cells)
    cell = np.array(np.meshgrid(g, g, g, indexing="ij")).reshape(3, -1).T
    sites = np.concatenate([(cell + np.array(b)) * (L / cells) for b in basis])
    tree = cKDTree(np.mod(sites, L), boxsize=L)
    _, idx = tree.query(np.mod(pos - lo, L))
    occ = np.bincount(idx, minlength=len(sites))
    return int(np.sum(occ == 0))


def read_dump_series(prefix_dir, m, cells):
    """(time, vacancies) from LAMMPS dump files dump.STEP.txt carrying the time in a header."""
    out = []
    for name in sorted(os.listdir(prefix_dir)):
        if not name.startswith("dump.") or not name.endswith(".txt"):
            continue
        with open(os.path.join(prefix_dir, name)) as f:
            lines = f.read().splitlines()
        t = float(lines[lines.index("ITEM: TIME") + 1]) if "ITEM: TIME" in lines else None
        bi = lines.index(next(l for l in lines if l.startswith("ITEM: BOX")))
        b = np.array([[float(w) for w in lines[bi + k].split()[:2]] for k in (1, 2, 3)])
        ai = lines.index(next(l for l in lines if l.startswith("ITEM: ATOMS")))
        pos = np.array([[float(w) for w in l.split()[1:4]] for l in lines[ai + 1:] if l.strip()])
        out.append((t - THERMALISE_PS, ws_count(pos, b[:, 0], b[:, 1] - b[:, 0], m, cells)))
    return sorted(out)


def run(cmd, cwd, log):
    with open(os.path.join(cwd, log), "w") as f:
        r = subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {' '.join(cmd)} in {cwd}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--material", default="cu", choices=sorted(MATERIALS))
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--cells", type=int, default=10)
    ap.add_argument("--time", type=float, default=3.0)
    ap.add_argument("--temp", type=float, default=300.0)
    ap.add_argument("--border", type=float, default=3.0)
    ap.add_argument("--xmax", type=float, default=0.1)
    ap.add_argument("--tmax", type=float, default=0.004)
    ap.add_argument("--out", required=True)
    ap.add_argument("--exe", default=os.path.join(ROOT, "build", "wafermd"))
    ap.add_argument("--replot", action="store_true", help="rebuild summary and figure from an existing --out")
    ap.add_argument("--trim", action="store_true", help="reduce a finished --out to the committed layout")
    args = ap.parse_args()
    m = MATERIALS[args.material]
    os.makedirs(args.out, exist_ok=True)
    if args.replot:
        rows = []
        for r in csv_rows(os.path.join(args.out, "pairs.csv")):
            c = dpa_figures(args.out, int(r["seed"]))
            rows.append(dict(seed=int(r["seed"]), pka_id=int(r["pka_id"]), fp_wafermd=int(r["fp_wafermd"]),
                             fp_wafermd_builtin=int(r["fp_wafermd_builtin"]), peak_wafermd=int(r["peak_wafermd"]),
                             fp_lammps=int(r["fp_lammps"]), peak_lammps=int(r["peak_lammps"]), nrt=c["nrt_dpa"],
                             arc=c["arc_dpa"], damage_energy=c["damage_energy_ev"]))
        write_outputs(rows, m, args)
        return
    if args.trim:
        trim(args.out)
        return
    rows = []
    for k in range(args.first, args.first + args.seeds):
        os.makedirs(os.path.join(args.out, f"seed{k:03d}"), exist_ok=True)
        one = one_pair_separate(k, m, args)
        rows.append(one)
        print(f"seed {k}: wafermd FP {one['fp_wafermd']} (own WS {one['fp_wafermd_builtin']}, peak "
              f"{one['peak_wafermd']}), LAMMPS FP {one['fp_lammps']}", flush=True)
        write_outputs(rows, m, args)


def one_pair_separate(k, m, args):
    d = os.path.join(args.out, f"seed{k:03d}")
    c = args.cells * m["a"] / 2.0
    vseed = 1000 + 7919 * k
    w = [*setup_lines(m, args.cells, m["file"]), f"zbl_splice {m['el']}", f"write_potential {m['spliced']}",
         *thermalise_lines(vseed, args.temp, True), "defects every 20",
         f"cascade near {c} {c} {c} energy {m['energy']} random {k} time {args.time} border {args.border} "
         f"element {m['el']}",
         f"fix b cascade_border langevin {args.temp} {args.temp} 0.1 {5000 + k}",
         f"fix dt all dt/reset 1 1.0e-6 {args.tmax} {args.xmax} emax 20 units box",
         "thermo_style custom step time dt temp pe etotal vacancies interstitials", "thermo 100",
         "run 100000000", "write_data final_wafermd.data"]
    with open(os.path.join(d, "in.wafermd"), "w") as f:
        f.write("\n".join(w) + "\n")
    run(["nice", args.exe, "run", "in.wafermd", "--output", "wafermd"], d, "wafermd.out")
    rep = json.load(open(os.path.join(d, "wafermd", "report.json")))["cascade"]
    pid, dirv = rep["pka_id"], rep["pka_direction"]
    v = math.sqrt(2.0 * m["energy"] / (m["mass"] * MVV2E))
    lo, hi = args.border, args.cells * m["a"] - args.border
    lmp = [*setup_lines(m, args.cells, m["spliced"]), f"mass 1 {m['mass']}",
           *thermalise_lines(vseed, args.temp, False), f"group pka id {pid}",
           f"velocity pka set {v * dirv[0]!r} {v * dirv[1]!r} {v * dirv[2]!r} sum yes units box",
           "velocity all zero linear",
           f"region inner block {lo} {hi} {lo} {hi} {lo} {hi} units box", "group inner region inner",
           "group border subtract all inner",
           f"fix b border langevin {args.temp} {args.temp} 0.1 {5000 + k}",
           f"fix dt all dt/reset 1 1.0e-6 {args.tmax} {args.xmax} emax 20 units box",
           "variable t equal time", f"fix h all halt 1 v_t >= {args.time + THERMALISE_PS - 1e-9} error continue",
           "dump d all custom 100 dump.*.txt id x y z", "dump_modify d time yes",
           "thermo_style custom step time dt temp pe etotal", "thermo 100", "run 100000000",
           "write_data final_lammps.data"]
    with open(os.path.join(d, "in.lammps"), "w") as f:
        f.write("\n".join(lmp) + "\n")
    run(["nice", "lmp", "-in", "in.lammps", "-log", "log.lammps", "-echo", "none", "-screen", "none"], d,
        "lammps.out")
    series_l = read_dump_series(d, m, args.cells)
    for name in os.listdir(d):  # the dumps are large; keep only their defect counts
        if name.startswith("dump."):
            os.remove(os.path.join(d, name))
    with open(os.path.join(d, "lammps_defects.csv"), "w") as f:
        f.write("time_ps,vacancies\n" + "".join(f"{t},{n}\n" for t, n in series_l))
    return dict(seed=k, pka_id=pid, direction=dirv,
                fp_wafermd=ws_frenkel(os.path.join(d, "final_wafermd.data"), m, args.cells),
                fp_wafermd_builtin=rep["frenkel_pairs"], peak_wafermd=rep["peak_defects"],
                fp_lammps=ws_frenkel(os.path.join(d, "final_lammps.data"), m, args.cells),
                peak_lammps=max((n for _, n in series_l), default=0),
                nrt=rep.get("nrt_dpa"), arc=rep.get("arc_dpa"), damage_energy=rep.get("damage_energy_ev"))


def dpa_figures(out, seed):
    """Damage energy, NRT-dpa and arc-dpa of a seed: from its report.json, or (trimmed batches) summary.json."""
    rep = os.path.join(out, f"seed{seed:03d}", "wafermd", "report.json")
    if os.path.exists(rep):
        return json.load(open(rep))["cascade"]
    return json.load(open(os.path.join(out, "summary.json")))


def wafermd_defects(out, seed):
    """A seed's wafermd defect series (time, step, vacancies, ...), untrimmed or trimmed layout."""
    d = os.path.join(out, f"seed{seed:03d}")
    path = os.path.join(d, "wafermd", "defects.csv")
    return path if os.path.exists(path) else os.path.join(d, "wafermd_defects.csv")


def trim(out):
    """Reduce a finished batch to what is committed: per seed the two defect series; the first seed keeps
    its two input scripts (mesh_vs_cluster.py derives every seed's input from them)."""
    import shutil
    seeds = sorted(int(r["seed"]) for r in csv_rows(os.path.join(out, "pairs.csv")))
    first = next((k for k in seeds if os.path.exists(os.path.join(out, f"seed{k:03d}", "in.wafermd"))), None)
    for k in seeds:
        d = os.path.join(out, f"seed{k:03d}")
        full = os.path.join(d, "wafermd", "defects.csv")
        if os.path.exists(full):
            shutil.copyfile(full, os.path.join(d, "wafermd_defects.csv"))
        keep = {"lammps_defects.csv", "wafermd_defects.csv"} | ({"in.wafermd", "in.lammps"} if k == first else set())
        for name in os.listdir(d):
            if name not in keep:
                path = os.path.join(d, name)
                shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)


def csv_rows(path):
    import csv
    with open(path) as f:
        return list(csv.DictReader(f))


def write_outputs(rows, m, args):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with open(os.path.join(args.out, "pairs.csv"), "w") as f:
        f.write("seed,pka_id,fp_wafermd,fp_wafermd_builtin,peak_wafermd,fp_lammps,peak_lammps\n")
        for r in rows:
            f.write(f"{r['seed']},{r['pka_id']},{r['fp_wafermd']},{r['fp_wafermd_builtin']},{r['peak_wafermd']},"
                    f"{r['fp_lammps']},{r['peak_lammps']}\n")
    dlt = np.array([r["fp_wafermd"] - r["fp_lammps"] for r in rows], dtype=float)
    n = len(dlt)
    se = float(np.std(dlt, ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
    mw = float(np.mean([r["fp_wafermd"] for r in rows]))
    ml = float(np.mean([r["fp_lammps"] for r in rows]))
    summary = dict(material=args.material, pka_energy_ev=m["energy"], seeds=n, cells=args.cells,
                   atoms=args.cells ** 3 * (4 if m["lattice"] == "fcc" else 2), time_ps=args.time,
                   temperature_k=args.temp, border_a=args.border, dt_reset=dict(xmax=args.xmax, tmax=args.tmax),
                   mean_fp_wafermd=mw, mean_fp_lammps=ml, mean_paired_difference=float(np.mean(dlt)),
                   paired_standard_error=se,
                   within_two_se=bool(n > 1 and abs(float(np.mean(dlt))) <= 2 * se) if se > 0 else
                   bool(np.all(dlt == 0)),
                   builtin_ws_agrees=all(r["fp_wafermd"] == r["fp_wafermd_builtin"] for r in rows),
                   damage_energy_ev=rows[0]["damage_energy"], nrt_dpa=rows[0]["nrt"], arc_dpa=rows[0]["arc"],
                   ratio_to_nrt=dict(wafermd=mw / rows[0]["nrt"], lammps=ml / rows[0]["nrt"]),
                   ratio_to_arc=dict(wafermd=mw / rows[0]["arc"], lammps=ml / rows[0]["arc"]),
                   command="/usr/bin/python3 validation/cascade/run_pairs.py "
                   + " ".join(a for a in sys.argv[1:] if a not in ("--replot", "--trim")))
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    # Mean defect count vs time, both codes, on a common time grid.
    grid = np.linspace(0, args.time, 151)
    curves = {"wafermd": [], "LAMMPS": []}
    for r in rows:
        d = os.path.join(args.out, f"seed{r['seed']:03d}")
        w = np.loadtxt(wafermd_defects(args.out, r["seed"]), delimiter=",", skiprows=1, ndmin=2)
        curves["wafermd"].append(np.interp(grid, w[:, 0], w[:, 2]))
        l = np.loadtxt(os.path.join(d, "lammps_defects.csv"), delimiter=",", skiprows=1, ndmin=2)
        curves["LAMMPS"].append(np.interp(grid, l[:, 0], l[:, 1]))
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for name, cs in curves.items():
        ax.plot(grid, np.mean(cs, axis=0), label=f"{name} (mean of {n})")
    ax.axhline(rows[0]["nrt"], ls="--", c="k", lw=0.8, label="NRT-dpa")
    ax.axhline(rows[0]["arc"], ls=":", c="k", lw=0.8, label="arc-dpa")
    ax.set_xscale("symlog", linthresh=0.1)
    ax.set_xlim(0, args.time)
    ax.set_xlabel("time (ps)")
    ax.set_ylabel("Frenkel pairs (Wigner–Seitz vacancies)")
    ax.set_title(f"{m['el']} {m['energy'] / 1000:g} keV, {summary['atoms']} atoms, {args.temp:g} K "
                 "(wafermd sampled every 20 steps, LAMMPS every 100)", fontsize=9)
    ax.legend(fontsize=8)
    fig.text(0.01, 0.01, summary["command"], fontsize=5)
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "defects_vs_time.png"), dpi=120)


if __name__ == "__main__":
    main()
