#!/usr/bin/python3
"""Paired cascade comparison, mesh backend vs cluster backend (docs/cascades.md, "Validation").

Reruns the wafermd inputs of a finished run_pairs.py batch (same crystal, thermalisation, PKA, direction,
border thermostat and dt/reset) on the mesh backend (fp32 PEs by default) and pairs its surviving Frenkel pairs,
seed by seed, with the cluster backend's (wafermd's built-in Wigner–Seitz count in both).

  /usr/bin/python3 validation/cascade/mesh_vs_cluster.py --batch validation/cascade/results/cu_1kev \
      --out validation/cascade/results/cu_1kev_mesh
writes OUT/pairs.csv, OUT/summary.json and OUT/defects_vs_time.png (mean defect count vs time, both backends);
--replot rebuilds the last two from an existing OUT, --trim then keeps per seed only the mesh defect series.
--only A-B runs a range of seeds (two calls on two cores split a batch), --resume keeps finished seeds,
--collect pairs the finished seeds only (a partial batch).
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys

from run_pairs import wafermd_defects  # the cluster batch's series, either layout

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def seed_input(batch, seed):
    """Seed k's wafermd input: its own if the batch kept it, else the batch's kept one (trimmed batches keep one
    seed's scripts) with its three seeds changed — run_pairs.py's inputs differ only in those (velocity
    1000 + 7919·k, PKA direction k, border Langevin 5000 + k)."""
    own = os.path.join(batch, f"seed{seed:03d}", "in.wafermd")
    if os.path.exists(own):
        return open(own).read()
    kept = sorted(n for n in os.listdir(batch) if n.startswith("seed") and
                  os.path.exists(os.path.join(batch, n, "in.wafermd")))
    if not kept:
        sys.exit(f"{batch} has no seedNNN/in.wafermd: regenerate the batch with run_pairs.py")
    m = int(kept[0][4:])
    text = open(os.path.join(batch, kept[0], "in.wafermd")).read()
    for old, new in ((f" {1000 + 7919 * m} loop geom", f" {1000 + 7919 * seed} loop geom"),
                     (f" random {m} time", f" random {seed} time"),
                     (f" 0.1 {5000 + m}\n", f" 0.1 {5000 + seed}\n")):
        if old not in text:
            sys.exit(f"{kept[0]}/in.wafermd lacks '{old.strip()}': regenerate the batch with run_pairs.py")
        text = text.replace(old, new)
    return text


def mesh_defects(out, seed):
    """A seed's mesh defect series (time, step, vacancies, ...), as run or trimmed."""
    d = os.path.join(out, f"seed{seed:03d}")
    path = os.path.join(d, "mesh", "defects.csv")
    return path if os.path.exists(path) else os.path.join(d, "mesh_defects.csv")



def run_seeds(args, cluster):
    rows = []
    for seed in sorted(cluster):
        if args.only and not args.only[0] <= seed <= args.only[1]:
            continue
        d = os.path.join(args.out, f"seed{seed:03d}")
        os.makedirs(d, exist_ok=True)
        done = os.path.join(d, "mesh.done")
        if args.collect and not os.path.exists(done):
            continue
        if not ((args.resume or args.collect) and os.path.exists(done)):
            with open(os.path.join(d, "in.wafermd"), "w") as f:
                f.write(seed_input(args.batch, seed))
            cmd = ["nice", args.exe, "run", "in.wafermd", "--backend", "mesh", "--set",
                   f"mesh.precision={args.precision}", "--output", "mesh"]
            with open(os.path.join(d, "mesh.out"), "w") as f:
                r = subprocess.run(cmd, cwd=d, stdout=f, stderr=subprocess.STDOUT)
            if r.returncode != 0:
                sys.exit(f"seed {seed}: mesh run failed ({r.returncode}), see {d}/mesh.out")
            open(done, "w").close()
        rep = json.load(open(os.path.join(d, "mesh", "report.json")))
        for name in ("final_wafermd.data", "spliced.eam.alloy"):
            if os.path.exists(os.path.join(d, name)):
                os.remove(os.path.join(d, name))
        row = dict(seed=seed, fp_cluster=int(cluster[seed]["fp_wafermd_builtin"]),
                   peak_cluster=int(cluster[seed]["peak_wafermd"]), fp_mesh=rep["cascade"]["frenkel_pairs"],
                   peak_mesh=rep["cascade"]["peak_defects"], remaps=rep["fabric"]["remaps"],
                   swaps=rep["fabric"]["swaps"])
        rows.append(row)
        print(f"seed {seed}: mesh FP {row['fp_mesh']} (peak {row['peak_mesh']}, remaps {row['remaps']}), "
              f"cluster FP {row['fp_cluster']} (peak {row['peak_cluster']})", flush=True)
    with open(os.path.join(args.out, "pairs.csv"), "w") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def summarize(args):
    """summary.json and defects_vs_time.png from OUT/pairs.csv and both backends' defect series."""
    rows = [{k: int(v) for k, v in r.items()} for r in csv.DictReader(open(os.path.join(args.out, "pairs.csv")))]
    n = len(rows)
    diff = [r["fp_mesh"] - r["fp_cluster"] for r in rows]
    mean = sum(diff) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in diff) / (n - 1)) if n > 1 else 0.0
    se = sd / math.sqrt(n) if n > 0 else 0.0
    command = ("/usr/bin/python3 validation/cascade/mesh_vs_cluster.py --batch " + os.path.relpath(args.batch, ROOT)
               + " --out " + os.path.relpath(args.out, ROOT) + f" --precision {args.precision}")
    summary = dict(seeds=n, precision=args.precision,
                   mean_fp_mesh=sum(r["fp_mesh"] for r in rows) / n,
                   mean_fp_cluster=sum(r["fp_cluster"] for r in rows) / n,
                   mean_paired_difference=mean, paired_standard_error=se,
                   within_two_standard_errors=abs(mean) <= 2 * se if se > 0 else mean == 0,
                   mean_peak_mesh=sum(r["peak_mesh"] for r in rows) / n,
                   mean_peak_cluster=sum(r["peak_cluster"] for r in rows) / n,
                   total_remaps=sum(r["remaps"] for r in rows), command=command)
    json.dump(summary, open(os.path.join(args.out, "summary.json"), "w"), indent=2)
    print(json.dumps(summary, indent=2))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    series = {"cluster (fp64)": [wafermd_defects(args.batch, r["seed"]) for r in rows],
              f"mesh ({args.precision})": [mesh_defects(args.out, r["seed"]) for r in rows]}
    data = {k: [np.loadtxt(p, delimiter=",", skiprows=1, ndmin=2) for p in v] for k, v in series.items()}
    tmax = min(a[-1, 0] for v in data.values() for a in v)
    grid = np.linspace(0.0, tmax, 301)
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for name, arrays in data.items():
        ax.plot(grid, np.mean([np.interp(grid, a[:, 0], a[:, 2]) for a in arrays], axis=0),
                label=f"{name}, mean of {n}")
    ax.set_xscale("symlog", linthresh=0.1)
    ax.set_xlim(0, tmax)
    ax.set_xlabel("time after the kick (ps)")
    ax.set_ylabel("Frenkel pairs (Wigner–Seitz vacancies)")
    ax.set_title(f"same seeds and directions on both backends: surviving {summary['mean_fp_mesh']:.2f} (mesh) vs "
                 f"{summary['mean_fp_cluster']:.2f} (cluster)", fontsize=9)
    ax.legend(fontsize=8)
    fig.text(0.01, 0.01, command + " --replot", fontsize=5)
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "defects_vs_time.png"), dpi=120)


def trim(out):
    """Keep per seed only the mesh defect series (what is committed)."""
    import shutil
    for name in sorted(os.listdir(out)):
        d = os.path.join(out, name)
        if not (name.startswith("seed") and os.path.isdir(d)):
            continue
        full = os.path.join(d, "mesh", "defects.csv")
        if os.path.exists(full):
            shutil.copyfile(full, os.path.join(d, "mesh_defects.csv"))
        for entry in os.listdir(d):
            if entry != "mesh_defects.csv":
                path = os.path.join(d, entry)
                shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", required=True, help="a run_pairs.py output directory (has pairs.csv, seedNNN/)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--exe", default=os.path.join(ROOT, "build", "wafermd"))
    ap.add_argument("--precision", default="fp32", choices=["fp32", "fp64"])
    ap.add_argument("--replot", action="store_true", help="only rebuild summary and figure from an existing --out")
    ap.add_argument("--only", help="run only seeds A-B (e.g. 11-20), to split a batch over cores")
    ap.add_argument("--resume", action="store_true", help="keep the seeds a previous call finished (mesh.done)")
    ap.add_argument("--collect", action="store_true", help="pair only the seeds already finished, run none")
    ap.add_argument("--trim", action="store_true", help="then reduce --out to the committed layout")
    args = ap.parse_args()
    args.batch, args.out = os.path.abspath(args.batch), os.path.abspath(args.out)
    args.only = tuple(int(v) for v in args.only.split("-")) if args.only else None
    cluster = {int(r["seed"]): r for r in csv.DictReader(open(os.path.join(args.batch, "pairs.csv")))}
    os.makedirs(args.out, exist_ok=True)
    if not args.replot:
        run_seeds(args, cluster)
    summarize(args)
    if args.trim:
        trim(args.out)


if __name__ == "__main__":
    main()
