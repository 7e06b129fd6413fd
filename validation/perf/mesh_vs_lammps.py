#!/usr/bin/python3
"""Mesh backend vs LAMMPS, side by side: the same fcc Cu slab (Cu_u3.eam, 300 K, skin 1.0, check every step,
dt 1 fs) run by Debian's `lmp` and by `wafermd run --backend mesh`, in interleaved rounds on the same machine.
Throughput is atom-steps per second of the step loop only (LAMMPS: its "Loop time"; wafermd: report.json's
wall_seconds). The figure is the median over rounds of the per-round ratio mesh/LAMMPS.

    /usr/bin/python3 validation/perf/mesh_vs_lammps.py [--cells 232 216 4] [--steps 10] [--rounds 3]
        [--lammps-ranks 2] [--mesh-ranks 1] [--wafermd build/wafermd]

The default cells are inputs/wafer_cu_801792.yaml's (801,792 atoms). wafermd runs on one rank until the
multi-rank mesh lands (the ranks of each side are printed with the result). Writes out/perf_mesh_vs_lammps/ and
prints a Markdown table row for validation/perf/mesh_perf.md."""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

LAMMPS = """units metal
atom_style atomic
boundary p p p
lattice fcc 3.615
region box block 0 {nx} 0 {ny} 0 {nz}
create_box 1 box
create_atoms 1 box
pair_style eam
pair_coeff 1 1 /usr/share/lammps/potentials/Cu_u3.eam
velocity all create 300.0 87287 loop geom
neighbor 1.0 bin
neigh_modify every 1 delay 0 check yes
fix 1 all nve
timestep 0.001
thermo {steps}
run {steps}
"""


def run_lammps(work, ranks, natoms):
    cmd = ["lmp", "-in", "in.slab", "-log", "log.lammps"]
    if ranks > 1:
        cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", str(ranks)] + cmd
    subprocess.run(cmd, cwd=work, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    text = open(os.path.join(work, "log.lammps")).read()
    m = re.search(r"Loop time of ([0-9.eE+-]+) on (\d+) procs for (\d+) steps with (\d+) atoms", text)
    loop, steps = float(m.group(1)), int(m.group(3))
    return natoms * steps / loop


def run_mesh(work, exe, ranks):
    cmd = [exe, "run", "in.slab", "--backend", "mesh", "--output", "mesh_out"]
    if ranks > 1:
        cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", str(ranks)] + cmd
    subprocess.run(cmd, cwd=work, check=True, stdout=subprocess.DEVNULL)
    rep = json.load(open(os.path.join(work, "mesh_out", "report.json")))
    return rep["atom_steps_per_second"], rep.get("peak_rss_mb", 0.0), rep["fabric"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cells", type=int, nargs=3, default=[232, 216, 4])
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--lammps-ranks", type=int, default=2)
    ap.add_argument("--mesh-ranks", type=int, default=1)
    ap.add_argument("--wafermd", default=os.path.join(ROOT, "build", "wafermd"))
    args = ap.parse_args()
    nx, ny, nz = args.cells
    natoms = 4 * nx * ny * nz
    work = os.path.join(ROOT, "out", "perf_mesh_vs_lammps")
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "in.slab"), "w") as f:
        f.write(LAMMPS.format(nx=nx, ny=ny, nz=nz, steps=args.steps))
    ratios, lam, mesh = [], [], []
    rss = 0.0
    fabric = {}
    for r in range(args.rounds):
        # Interleaved: each round runs both, alternating which goes first, so load drifts hit both alike.
        order = ["lammps", "mesh"] if r % 2 == 0 else ["mesh", "lammps"]
        got = {}
        for which in order:
            if which == "lammps":
                got["lammps"] = run_lammps(work, args.lammps_ranks, natoms)
            else:
                got["mesh"], rss, fabric = run_mesh(work, args.wafermd, args.mesh_ranks)
        lam.append(got["lammps"])
        mesh.append(got["mesh"])
        ratios.append(got["mesh"] / got["lammps"])
        print(f"round {r + 1}: LAMMPS {got['lammps']:.4g} atom-steps/s, mesh {got['mesh']:.4g}, "
              f"ratio {ratios[-1]:.3f}", flush=True)
    med = statistics.median(ratios)
    print(f"| {time.strftime('%Y-%m-%d')} | {natoms:,} | {args.steps} | {args.rounds} | {args.lammps_ranks} | "
          f"{args.mesh_ranks} | {statistics.median(lam):.4g} | {statistics.median(mesh):.4g} | {med:.3f} | "
          f"{rss:.0f} MB ({rss * 1048576 / natoms:.0f} B/atom) | b = {fabric.get('window_b')} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
