#!/usr/bin/python3
"""Write W_lss.stopping: tungsten's electronic stopping in tungsten for fix electron/stopping, from the
Lindhard-Scharff (LSS) formula, for the electronic-stopping variant of the cascade benchmark (in.cascade_w with
`-var stopping 1`).

Lindhard and Scharff's velocity-proportional stopping (J. Lindhard, M. Scharff, Phys. Rev. 124, 128 (1961)), in
the practical form of Ziegler, Biersack and Littmark's textbook and Nastasi, Mayer and Hirvonen, "Ion-Solid
Interactions" (1996), eq. 5.29:

    S_e = 1.212 Z1^(7/6) Z2 / ((Z1^(2/3) + Z2^(2/3))^(3/2) M1^(1/2)) * sqrt(E / keV)   [eV / (1e15 atoms/cm^2)]

times the target's atomic density N gives eV/A: S_e [eV/A] = S_e [eV/(1e15 at/cm^2)] * N [at/A^3] * 10. For W in
W (Z = 74, M = 183.84 u, bcc a = 3.1652 A: N = 2/a^3 = 0.06307 at/A^3) that is 3.023 eV/A * sqrt(E/keV). It is
the low-energy limit LSS is meant for (well below the stopping maximum at about Z1^(4/3) * 25 keV/u), which
covers a 5 keV cascade; a user with SRIM or measured tables passes those instead. Rows: E (eV) and S_e (eV/A),
every 10 eV from 10 eV to 20 keV (fix electron/stopping refuses an atom faster than the last row).

Usage: make_w_lss_stopping.py [--output FILE | --check FILE]   (--check exits 1 if FILE differs)
"""
import argparse
import math
import sys

Z, M, A = 74.0, 183.84, 3.1652


def lss_prefactor():
    """S_e per sqrt(E/keV), eV/A."""
    per_areal = 1.212 * Z ** (7.0 / 6.0) * Z / ((2.0 * Z ** (2.0 / 3.0)) ** 1.5 * math.sqrt(M))
    density = 2.0 / A ** 3  # bcc: 2 atoms per cubic cell, atoms/A^3
    # eV cm^2/1e15 at x at/cm^3 (density x 1e24) = 1e9 eV/cm = 10 eV/A per unit of both.
    return per_areal * density * 10.0


def text():
    k = lss_prefactor()
    lines = [
        "# W in W electronic stopping, Lindhard-Scharff: S_e = %.6f eV/A * sqrt(E/keV)" % k,
        "# made by validation/perf/inputs/make_w_lss_stopping.py; columns: E (eV), S_e of type 1 (eV/A)",
    ]
    for e in range(10, 20001, 10):
        lines.append("%d %.10g" % (e, k * math.sqrt(e / 1000.0)))
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--output")
    g.add_argument("--check")
    a = p.parse_args()
    if a.output:
        with open(a.output, "w") as f:
            f.write(text())
        return 0
    with open(a.check) as f:
        same = f.read() == text()
    print("same" if same else "differs")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
