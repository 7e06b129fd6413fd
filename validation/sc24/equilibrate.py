#!/usr/bin/python3
"""Equilibrates the SC24 benchmark slabs (inputs/sc24_{ta,w,cu}_801792.lmp) as the artifact's in.eq does —
velocities at 2T = 580 K (seed 87287, loop geom, zero linear and angular momentum), NVE, 2 fs steps,
neighbor 0.5 bin every 1 check yes — for N steps, writes the equilibrated configuration and a summary.

For each element it runs a copy of the input that differs in three places only: the thermo line also prints
the x, y, z parts of the mean-squared displacement (compute msd, taken from the lattice sites after
displace_atoms, i.e. the initial sites) with 15 significant digits; after the run it writes
  DIR/config.data   write_data (positions, velocities, box; read_data restarts from it)
  DIR/config.dump   write_dump custom id type x y z vx vy vz fx fy fz, sorted by id, %.17g — the artifact's
                    dump.<element>-crystal.<nx>x<ny>x<nz>.open columns (its in.bench reads them with read_dump)
and the script writes DIR/summary.json (last thermo row: temperature, pe, etotal, press, MSD per axis and total,
rms displacement sqrt(MSD); means of temp and MSD over the last 1000 steps' rows; energy drift; seconds per
step; from the dumps: the slab's homogeneous strain, the rms displacement without it, and the local rms
displacement — less the mean displacement of its 13 A in-plane block, i.e. vibration and surface relaxation
without the slab's long-wavelength breathing) and DIR/thermo.txt (every thermo row).

DIR is OUT/<element>_<nx>x<ny>x<nz>_<program>_<steps> (OUT default out/sc24/equilibrate, git-ignored).
The default N per element is what one rank of the 2-vCPU development machine (shared) runs in ~15 minutes
(docs/sc24.md): Ta 6000, W 3000, Cu 3500 steps. The artifact runs 20,000.

Usage: validation/sc24/equilibrate.py [--steps N] [--ranks R] [--cells NXxNY] [--program wafermd|lmp]
                                      [--out OUT] [--thermo-every K] [--no-config] [ELEMENT...]
  e.g. nice validation/sc24/equilibrate.py ta
       nice validation/sc24/equilibrate.py --program lmp --cells 20x20 --steps 20000 ta w cu
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
INPUTS = os.path.join(REPO, "inputs")
DEFAULT_STEPS = {"ta": 6000, "w": 3000, "cu": 3500}
FULL_CELLS = {"ta": (256, 261, 6), "w": (256, 261, 6), "cu": (174, 192, 6)}
ATOMS_PER_CELL = {"ta": 2, "w": 2, "cu": 4}
DT_PS = 0.002
BLOCK_A = 13.0  # in-plane block (about 4 cells) for the local displacement
THERMO = "thermo_style    custom step temp pe etotal press c_msd[1] c_msd[2] c_msd[3] c_msd[4]"


def cpu_name():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "?"


def thermo_rows(text):
    header, rows = None, []
    for line in text.splitlines():
        words = line.split()
        if words[:1] == ["Step"] and header is None:
            header = words
        elif header is not None:
            if line.startswith("Loop time"):
                break
            if len(words) == len(header) and re.fullmatch(r"-?\d+", words[0]):
                rows.append([float(w) for w in words])
    return header, rows


def script_copy(elem, outdir, write_config, dump_every):
    text = open(os.path.join(INPUTS, f"sc24_{elem}_801792.lmp")).read()
    text, n = re.subn(r"^thermo_style .*$", THERMO + "\nthermo_modify   format float %.15g", text, flags=re.M)
    if n != 1:
        sys.exit(f"sc24_{elem}_801792.lmp: expected one thermo_style line")
    # The initial lattice sites (after displace_atoms, where compute msd starts) and, every dump_every steps,
    # the positions: the analysis separates the slab's homogeneous strain from the rest of the displacement.
    before_run = f"write_dump      all custom {outdir}/initial.dump id x y z modify sort id format float %.17g\n"
    if dump_every:
        before_run += (f"dump            snap all custom {dump_every} {outdir}/snapshots.dump id x y z\n"
                       "dump_modify     snap sort id format float %.17g\n")
    text, n = re.subn(r"^(run .*)$", before_run.replace("\\", "\\\\") + r"\1", text, flags=re.M)
    if n != 1:
        sys.exit(f"sc24_{elem}_801792.lmp: expected one run line")
    if write_config:
        text += (f"\nwrite_data      {outdir}/config.data\n"
                 f"write_dump      all custom {outdir}/config.dump id type x y z vx vy vz fx fy fz "
                 "modify sort id format float %.17g\n")
    return text


def dump_frames(path):
    """(step, id-sorted rows of id x y z) for every frame of a LAMMPS custom dump."""
    import numpy as np
    frames = []
    with open(path) as f:
        while True:
            line = f.readline()
            if not line:
                return frames
            if line.startswith("ITEM: TIMESTEP"):
                step = int(f.readline())
            elif line.startswith("ITEM: NUMBER OF ATOMS"):
                count = int(f.readline())
            elif line.startswith("ITEM: ATOMS"):
                names = line.split()[2:]
                text = "".join(f.readline() for _ in range(count))
                rows = np.fromstring(text, sep=" ").reshape(count, -1)[:, [names.index(c) for c in ("id", "x", "y", "z")]]
                frames.append((step, rows[np.argsort(rows[:, 0])]))


def displacement_analysis(initial, frame):
    """Displacements from the initial sites: the total rms (sqrt of compute msd's total), the slab's homogeneous
    strain (the affine map x0 -> x that fits best, least squares) and the rms left once it is taken out."""
    import numpy as np
    x0, x = initial[:, 1:4], frame[:, 1:4]
    d = x - x0
    design = np.hstack([x0, np.ones((len(x0), 1))])
    coef, *_ = np.linalg.lstsq(design, x, rcond=None)
    resid = x - design @ coef
    strain = coef[:3, :3].T - np.eye(3)
    msd = (d * d).sum(axis=1).mean()
    # The local part: the displacement without the homogeneous strain (which takes out the thickness change)
    # less its mean over the atom's in-plane block (BLOCK_A square, the slab's whole thickness, from the
    # initial sites), which takes out the rest of the long-wavelength motion (the breathing is not exactly
    # affine: its profile is a sine) and leaves vibration and surface relaxation.
    cell = np.floor((x0[:, :2] - x0[:, :2].min(axis=0)) / BLOCK_A).astype(np.int64)
    block = cell[:, 0] * (cell[:, 1].max() + 1) + cell[:, 1]
    counts = np.bincount(block)
    local = resid - np.stack([np.bincount(block, weights=resid[:, k])[block] / counts[block] for k in range(3)],
                             axis=1)
    return {"msd_A2": float(msd), "rms_displacement_A": float(np.sqrt(msd)),
            "rms_displacement_z_A": float(np.sqrt((d[:, 2] ** 2).mean())),
            "strain_xx_yy_zz": [float(strain[0, 0]), float(strain[1, 1]), float(strain[2, 2])],
            "rms_without_strain_A": float(np.sqrt((resid * resid).sum(axis=1).mean())),
            "rms_without_strain_z_A": float(np.sqrt((resid[:, 2] ** 2).mean())),
            "rms_local_A": float(np.sqrt((local * local).sum(axis=1).mean())),
            "rms_local_z_A": float(np.sqrt((local[:, 2] ** 2).mean()))}


def run_one(elem, args):
    nx, ny, nz = FULL_CELLS[elem]
    if args.cells:
        nx, ny = (int(v) for v in args.cells.lower().split("x"))
    steps = args.steps if args.steps is not None else DEFAULT_STEPS[elem]
    outdir = os.path.abspath(os.path.join(args.out, f"{elem}_{nx}x{ny}x{nz}_{args.program}_{steps}"))
    os.makedirs(outdir, exist_ok=True)
    script = os.path.join(outdir, f"in.sc24_{elem}")
    with open(script if not args.analyse_only else os.devnull, "w") as f:
        f.write(script_copy(elem, outdir, not args.no_config, args.dump_every))
    every = args.thermo_every
    variables = {"nx": nx, "ny": ny, "steps": steps, "thermo_every": every}
    mpi = []
    if args.ranks > 1:
        mpi = [args.mpirun, "--oversubscribe", "--allow-run-as-root", "-np", str(args.ranks)]
    if args.program == "lmp":
        cmd = mpi + [args.lmp, "-in", script, "-log", os.path.join(outdir, "log.lammps")]
        for k, v in variables.items():
            cmd += ["-var", k, str(v)]
    else:
        cmd = mpi + [os.path.abspath(args.wafermd), "run", script, "--output", os.path.join(outdir, "wafermd")]
        for k, v in variables.items():
            cmd += ["--var", k, str(v)]
    start = time.time()
    if args.analyse_only:
        p = subprocess.CompletedProcess(cmd, 0)
        wall = json.load(open(os.path.join(outdir, "summary.json")))["wall_s"]
    else:
        print(f"[{elem}] {' '.join(cmd)}  (in {INPUTS})", flush=True)
        # Run in inputs/: Debian's lmp finds potentials/ only relative to the working directory.
        with open(os.path.join(outdir, "stdout.txt"), "w") as log:
            p = subprocess.run(cmd, cwd=INPUTS, stdout=log, stderr=subprocess.STDOUT)
        wall = time.time() - start
    text = open(os.path.join(outdir, "stdout.txt")).read()
    if p.returncode != 0:
        sys.exit(f"[{elem}] exit {p.returncode}:\n{text[-3000:]}")
    header, rows = thermo_rows(text)
    loop = re.search(r"Loop time of ([0-9.eE+-]+) on (\d+) procs for (\d+) steps with (\d+) atoms", text)
    loop_s, atoms = float(loop.group(1)), int(loop.group(4))
    lattice = [float(v) for v in re.search(r"Lattice spacing in x,y,z = (\S+) (\S+) (\S+)", text).groups()]
    col = {name: i for i, name in enumerate(header)}
    with open(os.path.join(outdir, "thermo.txt"), "w") as f:
        f.write(" ".join(header) + "\n")
        for r in rows:
            f.write(" ".join("%d" % r[0] if i == 0 else repr(v) for i, v in enumerate(r)) + "\n")
    last, first = rows[-1], rows[0]
    tail = [r for r in rows if r[0] >= last[0] - 1000 and r[0] > 0]

    def mean(name):
        return sum(r[col[name]] for r in tail) / len(tail)

    msd = [last[col[f"c_msd[{k}]"]] for k in (1, 2, 3, 4)]
    summary = {
        "element": elem.capitalize() if elem != "w" else "W",
        "program": args.program,
        "ranks": args.ranks,
        "cells": [nx, ny, nz],
        "atoms": atoms,
        "expected_atoms": ATOMS_PER_CELL[elem] * nx * ny * nz,
        "lattice_A": lattice,
        "steps": int(last[0]),
        "time_ps": last[0] * DT_PS,
        "temp_K": last[col["Temp"]],
        "pe_eV": last[col["PotEng"]],
        "pe_eV_per_atom": last[col["PotEng"]] / atoms,
        "etotal_eV": last[col["TotEng"]],
        "press_bar": last[col["Press"]],
        "msd_A2": {"x": msd[0], "y": msd[1], "z": msd[2], "total": msd[3]},
        "rms_displacement_A": math.sqrt(msd[3]),
        "rms_displacement_z_A": math.sqrt(msd[2]),
        "last_1000_steps_mean": {"temp_K": mean("Temp"), "msd_A2": mean("c_msd[4]"), "rows": len(tail)},
        "etotal_drift_eV_per_atom": (last[col["TotEng"]] - first[col["TotEng"]]) / atoms,
        "loop_s": loop_s,
        "s_per_step": loop_s / max(1, int(last[0])),
        "wall_s": wall,
        "cpu": cpu_name(),
        "command": " ".join(cmd),
        "config": None if args.no_config else [os.path.join(outdir, "config.data"),
                                               os.path.join(outdir, "config.dump")],
    }
    # Separate the homogeneous strain (the free slab breathes in-plane: it starts under its surface stress)
    # from the rest of the displacement, at every dumped step and at the end.
    initial = dump_frames(os.path.join(outdir, "initial.dump"))[0][1]
    analysed = []
    if args.dump_every:
        for step, frame in dump_frames(os.path.join(outdir, "snapshots.dump")):
            analysed.append(dict(step=step, **displacement_analysis(initial, frame)))
    elif not args.no_config:
        step, frame = dump_frames(os.path.join(outdir, "config.dump"))[0]
        analysed.append(dict(step=step, **displacement_analysis(initial, frame)))
    summary["displacements"] = analysed
    if analysed:
        print(f"[{elem}] step {analysed[-1]['step']}: rms {analysed[-1]['rms_displacement_A']:.4f} A, without the "
              f"homogeneous strain {analysed[-1]['rms_without_strain_A']:.4f} A, local {analysed[-1]['rms_local_A']:.4f} A, strain "
              f"{' '.join('%.2e' % e for e in analysed[-1]['strain_xx_yy_zz'])}", flush=True)
    with open(os.path.join(outdir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(f"[{elem}] {atoms} atoms, {summary['steps']} steps in {loop_s:.1f} s ({summary['s_per_step']:.4f} s/step): "
          f"T {summary['temp_K']:.2f} K, MSD {msd[3]:.5f} A^2, rms {summary['rms_displacement_A']:.4f} A "
          f"-> {outdir}/summary.json", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("elements", nargs="*", default=["ta", "w", "cu"], choices=["ta", "w", "cu"])
    ap.add_argument("--steps", type=int, help="steps (default per element: Ta 6000, W 3000, Cu 3500)")
    ap.add_argument("--ranks", type=int, default=1)
    ap.add_argument("--cells", help="NXxNY cells instead of the 801,792-atom slab (nz stays 6)")
    ap.add_argument("--program", choices=["wafermd", "lmp"], default="wafermd")
    ap.add_argument("--out", default=os.path.join(REPO, "out", "sc24", "equilibrate"))
    ap.add_argument("--thermo-every", type=int, default=100)
    ap.add_argument("--no-config", action="store_true", help="write no configuration (summary only)")
    ap.add_argument("--analyse-only", action="store_true",
                    help="run nothing: analyse the dumps and output of an earlier run with the same options again")
    ap.add_argument("--dump-every", type=int, default=0, help="also dump positions every K steps (analysed)")
    ap.add_argument("--wafermd", default=os.path.join(REPO, "build", "wafermd"))
    ap.add_argument("--lmp", default="lmp")
    ap.add_argument("--mpirun", default="mpirun")
    args = ap.parse_args()
    for elem in args.elements:
        run_one(elem, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
