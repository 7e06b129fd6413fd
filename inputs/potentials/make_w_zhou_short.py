#!/usr/bin/python3
"""Derive W_zhou_short.eam.alloy (the SC24 artifact's W potential) from LAMMPS's W_zhou.eam.alloy.

The artifact (LLNL/CerebrasTrilabs-SC24AD, potentials/W_zhou_short.eam.alloy.readme.txt) describes its file as
Zhou, Wadley and Johnson's W table with the cutoff set to rc = 5.524750 A, rho(r) and r*phi(r) keeping every
14th point starting with the first and dropping points with r > rc, and F(rho) keeping every 20th point: 501
points per table instead of 10001. This script does exactly that to Debian's /usr/share/lammps/potentials
/W_zhou.eam.alloy, so the repository needs no copy of the artifact's file to reproduce it.

The header's new spacings are the last kept grid point written with 15 significant digits, divided by the 500
intervals: that is what the artifact's header holds (drho 0.80344959668657401, dr 0.01104839516048396), 5-6
units in the last place away from 20*drho and 14*dr. Values are the kept points as LAMMPS's file prints them,
"% .8e", three per line, as in the artifact's file.

Usage: make_w_zhou_short.py [--source W_zhou.eam.alloy] [--output FILE | --check FILE]
  --check FILE compares the generated text with FILE and exits 1 on any difference (0 when equal, 77 when the
  source file is absent so ctest can report the test as skipped).
"""
import argparse
import sys

DEFAULT_SOURCE = "/usr/share/lammps/potentials/W_zhou.eam.alloy"
CUTOFF = 5.524750  # A, from the artifact's readme
R_STRIDE = 14  # rho(r) and r*phi(r): every 14th point
RHO_STRIDE = 20  # F(rho): every 20th point

# The artifact's three comment lines: its licence tag, the original provenance line with the modification named,
# and the original third line.
COMMENTS = [
    "# SPDX-License-Identifier: GPL-2.0-only",
    "DATE: 2007-10-12 UNITS: metal CONTRIBUTOR: G. Ziegenhain, gerolf@ziegenhain.com CITATION: Zhou et al, "
    "Acta Mater, 49, 4005 (2001) ; modified by T. Oppelstrup to shorten cutoff and table (2024)",
    "# Zhou W Acta mater(2001)49:4005",
]


def read_setfl(path):
    """One-element setfl: (element line, header numbers, element info line, F, rho, rphi)."""
    with open(path) as f:
        lines = f.read().splitlines()
    element_line = lines[3].split()
    if element_line[0] != "1":
        raise SystemExit(f"{path}: expected one element, found '{lines[3]}'")
    nrho_s, drho_s, nr_s, dr_s, cut_s = lines[4].split()[:5]
    nrho, nr = int(nrho_s), int(nr_s)
    info = lines[5].split()
    values = [float(v) for line in lines[6:] for v in line.split()]
    if len(values) != nrho + 2 * nr:
        raise SystemExit(f"{path}: {len(values)} table values, expected {nrho + 2 * nr}")
    F = values[:nrho]
    rho = values[nrho:nrho + nr]
    rphi = values[nrho + nr:]
    return element_line, (nrho, float(drho_s), nr, float(dr_s), float(cut_s)), info, F, rho, rphi


def shorten(path):
    element_line, (nrho, drho, nr, dr, _), info, F, rho, rphi = read_setfl(path)
    keep_rho = list(range(0, nrho, RHO_STRIDE))
    # setfl grids start at 0: point i sits at r = i*dr (F at rho = i*drho).
    keep_r = [i for i in range(0, nr, R_STRIDE) if i * dr <= CUTOFF]
    new_drho = float("%.15g" % (keep_rho[-1] * drho)) / (len(keep_rho) - 1)
    new_dr = float("%.15g" % (keep_r[-1] * dr)) / (len(keep_r) - 1)

    out = list(COMMENTS)
    out.append(" ".join(element_line))
    out.append("%d  %.17g  %d  %.17g  %.6f" % (len(keep_rho), new_drho, len(keep_r), new_dr, CUTOFF))
    mass, a0, lattice = float(info[1]), float(info[2]), info[3]
    out.append("%s  %.5f  %.5f  %s" % (info[0], mass, a0, lattice))
    for table, keep in ((F, keep_rho), (rho, keep_r), (rphi, keep_r)):
        kept = [table[i] for i in keep]
        for k in range(0, len(kept), 3):
            out.append("  ".join("% .8e" % v for v in kept[k:k + 3]))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source", default=DEFAULT_SOURCE)
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--output", help="write here (default: stdout)")
    group.add_argument("--check", help="compare with this file instead of writing")
    args = ap.parse_args()
    try:
        text = shorten(args.source)
    except FileNotFoundError:
        print(f"SKIP: {args.source} is absent (Debian's lammps-data package ships it); nothing to derive from",
              file=sys.stderr)
        return 77 if args.check else 2
    if args.check:
        with open(args.check) as f:
            want = f.read()
        if text == want:
            print(f"{args.check}: identical to the table derived from {args.source}")
            return 0
        got_lines, want_lines = text.splitlines(), want.splitlines()
        for n, (g, w) in enumerate(zip(got_lines, want_lines), 1):
            if g != w:
                print(f"{args.check}:{n}: differs from the derived table\n  derived: {g}\n  file:    {w}")
                break
        else:
            print(f"{args.check}: {len(want_lines)} lines, derived table {len(got_lines)} lines")
        return 1
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
