#!/usr/bin/python3
"""The SC24 benchmark inputs (inputs/sc24_{ta,w,cu}_801792.lmp) shrunk to 8 x 8 x 6 cells, run unchanged on the
cluster backend at 1 and 3 ranks from a scratch directory (so the potentials are found beside the script, not
in the working directory), against Debian lmp's rows (tests/data/sc24, validation/sc24/regenerate_small.sh).

usage: sc24_inputs.py MPIEXEC WAFERMD SOURCE_DIR SCRATCH ELEMENT
"""
import os
import shutil
import subprocess
import sys

MPIEXEC, WAFERMD, SOURCE, SCRATCH, ELEM = sys.argv[1:6]
# Of max(1, |lmp|): 100 steps of NVE from the same lattice follow lmp to round-off.
TOLERANCE = 1e-10


def rows_of(path):
    lines = open(path).read().splitlines()
    return [[float(x) for x in ln.replace(",", " ").split()] for ln in lines[1:] if ln.strip()]


def main():
    inp = os.path.join(SOURCE, "inputs", f"sc24_{ELEM}_801792.lmp")
    ref = rows_of(os.path.join(SOURCE, "tests", "data", "sc24", f"lammps_{ELEM}_8x8.txt"))
    work = os.path.join(SCRATCH, ELEM)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    failures = 0
    for ranks in (1, 3):
        out = os.path.join(work, f"out{ranks}")
        cmd = [MPIEXEC, "--oversubscribe", "--allow-run-as-root", "-np", str(ranks), WAFERMD, "run", inp,
               "--var", "nx", "8", "--var", "ny", "8", "--var", "steps", "100", "--var", "thermo_every", "10",
               "--output", out]
        p = subprocess.run(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            print(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stdout[-3000:]}")
            return 1
        got = rows_of(os.path.join(out, "thermo.csv"))
        if len(got) != len(ref):
            print(f"{ranks} ranks: {len(got)} thermo rows, lmp {len(ref)}")
            failures += 1
            continue
        worst = 0.0
        for r, g in zip(ref, got):
            for a, b in zip(r, g):
                err = abs(a - b) / max(1.0, abs(a))
                worst = max(worst, err)
                if err > TOLERANCE:
                    print(f"{ranks} ranks, step {int(r[0])}: wafermd {b!r}, lmp {a!r} (rel {err:.2e})")
                    failures += 1
        print(f"{ELEM} 8x8x6, {ranks} ranks: {len(got)} rows, largest rel difference {worst:.2e}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
