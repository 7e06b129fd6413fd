#!/usr/bin/python3
"""Paired cascade comparison, mesh backend vs cluster backend (docs/cascades.md, "Validation").

Reruns the wafermd inputs of a finished run_pairs.py batch (same crystal, thermalisation, PKA, direction,
border thermostat and dt/reset) on the mesh backend (fp32 PEs by default) and pairs its surviving Frenkel pairs,
seed by seed, with the cluster backend's (wafermd's built-in Wigner–Seitz count in both).

  /usr/bin/python3 validation/cascade/mesh_vs_cluster.py --batch validation/cascade/results/cu_1kev \
      --out validation/cascade/results/cu_1kev_mesh
writes OUT/pairs.csv and OUT/summary.json.
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys

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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", required=True, help="a run_pairs.py output directory (has pairs.csv, seedNNN/)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--exe", default=os.path.join(ROOT, "build", "wafermd"))
    ap.add_argument("--precision", default="fp32", choices=["fp32", "fp64"])
    args = ap.parse_args()
    cluster = {int(r["seed"]): r for r in csv.DictReader(open(os.path.join(args.batch, "pairs.csv")))}
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for seed in sorted(cluster):
        d = os.path.join(args.out, f"seed{seed:03d}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "in.wafermd"), "w") as f:
            f.write(seed_input(args.batch, seed))
        cmd = ["nice", args.exe, "run", "in.wafermd", "--backend", "mesh", "--set",
               f"mesh.precision={args.precision}", "--output", "mesh"]
        with open(os.path.join(d, "mesh.out"), "w") as f:
            r = subprocess.run(cmd, cwd=d, stdout=f, stderr=subprocess.STDOUT)
        if r.returncode != 0:
            sys.exit(f"seed {seed}: mesh run failed ({r.returncode}), see {d}/mesh.out")
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
    n = len(rows)
    diff = [r["fp_mesh"] - r["fp_cluster"] for r in rows]
    mean = sum(diff) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in diff) / (n - 1)) if n > 1 else 0.0
    se = sd / math.sqrt(n) if n > 0 else 0.0
    summary = dict(seeds=n, precision=args.precision,
                   mean_fp_mesh=sum(r["fp_mesh"] for r in rows) / n,
                   mean_fp_cluster=sum(r["fp_cluster"] for r in rows) / n,
                   mean_paired_difference=mean, paired_standard_error=se,
                   within_two_standard_errors=abs(mean) <= 2 * se if se > 0 else mean == 0,
                   mean_peak_mesh=sum(r["peak_mesh"] for r in rows) / n,
                   mean_peak_cluster=sum(r["peak_cluster"] for r in rows) / n,
                   total_remaps=sum(r["remaps"] for r in rows))
    json.dump(summary, open(os.path.join(args.out, "summary.json"), "w"), indent=2)
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
