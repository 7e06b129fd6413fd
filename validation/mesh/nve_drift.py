#!/usr/bin/python3
"""NVE energy drift of the mesh backend in fp32 (its default): 32,000-atom fcc Cu (Cu_u3.eam, 20x20x20 cells),
velocities at 300 K, dt = 1 fs, for 10 ps (10,000 steps). The drift is the slope of a least-squares line through
the total energy per atom (thermo every 100 steps) against time; the acceptance bound is 1e-5 eV/atom/ps.

    /usr/bin/python3 validation/mesh/nve_drift.py [--steps 10000] [--precision fp32] [--ranks 1]
        [--wafermd build/wafermd]

Writes out/validation_mesh/nve_drift_<precision>_<steps>/ (the run) and prints one summary line; exit status 1
when the bound is missed."""
import argparse
import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BOUND = 1e-5  # eV/atom/ps

INPUT = """backend: mesh
mesh: {{precision: {precision}}}
system:
  boundary: [p, p, p]
  lattice: {{style: fcc, constant: 3.615}}
  cells: [20, 20, 20]
potential:
  style: eam
  files: [Cu_u3.eam]
velocity: {{temperature: 300.0, seed: 4928459, loop: geom}}
neighbor: {{skin: 1.0, every: 1, delay: 0, check: true}}
timestep: 0.001
output:
  thermo_every: {thermo}
  thermo: [step, time, temp, pe, ke, etotal]
run: {steps}
"""


def slope(ts, es):
    n = len(ts)
    mt, me = sum(ts) / n, sum(es) / n
    sxx = sum((t - mt) ** 2 for t in ts)
    sxy = sum((t - mt) * (e - me) for t, e in zip(ts, es))
    return sxy / sxx


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=10000)
    ap.add_argument("--precision", default="fp32", choices=["fp32", "fp64"])
    ap.add_argument("--ranks", type=int, default=1, help="MPI ranks the emulator's PE grid is tiled over")
    ap.add_argument("--wafermd", default=os.path.join(ROOT, "build", "wafermd"))
    args = ap.parse_args()
    out = os.path.join(ROOT, "out", "validation_mesh", f"nve_drift_{args.precision}_{args.steps}")
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "nve_drift.yaml")
    thermo = max(1, min(100, args.steps // 20))
    with open(path, "w") as f:
        f.write(INPUT.format(precision=args.precision, steps=args.steps, thermo=thermo))
    cmd = [args.wafermd, "run", path, "--output", out]
    if args.ranks > 1:
        cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", str(args.ranks)] + cmd
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    natoms = 32000
    ts, es = [], []
    with open(os.path.join(out, "thermo.csv")) as f:
        for row in csv.DictReader(f):
            ts.append(float(row["time"]))
            es.append(float(row["etotal"]) / natoms)
    # The first 0.1 ps is the lattice's equipartition transient (kinetic energy flows into potential energy);
    # total energy is conserved through it, but leave it out as LAMMPS drift studies do.
    keep = [i for i, t in enumerate(ts) if t >= min(0.1, ts[-1] / 2)]
    d = slope([ts[i] for i in keep], [es[i] for i in keep])
    rep = json.load(open(os.path.join(out, "report.json")))
    ok = abs(d) <= BOUND
    print(f"mesh {args.precision} NVE drift over {ts[-1]:.3g} ps ({args.steps} steps, 32,000 Cu atoms, 300 K, dt 1 fs): "
          f"{d:.3e} eV/atom/ps (bound {BOUND:g}; {'pass' if ok else 'FAIL'}); "
          f"energy spread {max(es) - min(es):.2e} eV/atom; emulator {rep['steps_per_second']:.3g} steps/s on {args.ranks} rank(s); "
          f"swaps {rep['fabric']['swaps']}, remaps {rep['fabric']['remaps']}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
