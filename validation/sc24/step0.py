#!/usr/bin/python3
"""Regenerates validation/sc24/lammps_step0.txt: Debian lmp's and wafermd's (cluster backend) thermo rows for
inputs/sc24_{ta,w,cu}_801792.lmp at steps 0, 5 and 10, printed with 15 significant digits.

Each input runs unchanged but for one added line after its thermo_style, `thermo_modify format float %.15g`
(a copy in a temporary directory), with -var steps 10 -var thermo_every 5. Both programs run in inputs/, where
Debian's lmp finds potentials/ (it ignores $LAMMPS_POTENTIALS). 801,792 atoms, 1 rank: ~5 s per program and
element on a 2-vCPU machine.

Usage: validation/sc24/step0.py [--wafermd build/wafermd] [--lmp lmp] [--output FILE] [ELEMENT...]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
INPUTS = os.path.join(REPO, "inputs")
ELEMENTS = ["ta", "w", "cu"]
COLUMNS = ["Step", "Temp", "PotEng", "TotEng", "Press"]


def rows(text):
    """The first thermo block's rows as {step: {column: string}}."""
    out, header = {}, None
    for line in text.splitlines():
        words = line.split()
        if words[:1] == ["Step"] and header is None:
            header = words
            continue
        if header is not None:
            if line.startswith("Loop time"):
                break
            if len(words) == len(header) and re.fullmatch(r"-?\d+", words[0]):
                out[int(words[0])] = dict(zip(header, words))
    return out


def run(cmd, log):
    with open(log, "w") as f:
        p = subprocess.run(cmd, cwd=INPUTS, stdout=f, stderr=subprocess.STDOUT)
    text = open(log).read()
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed (exit {p.returncode}):\n{text[-2000:]}")
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wafermd", default=os.path.join(REPO, "build", "wafermd"))
    ap.add_argument("--lmp", default="lmp")
    ap.add_argument("--output", default=os.path.join(HERE, "lammps_step0.txt"))
    ap.add_argument("elements", nargs="*", default=ELEMENTS)
    args = ap.parse_args()
    wafermd = os.path.abspath(args.wafermd)
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    lines = [
        "# lmp (Debian 29 Sep 2021) vs wafermd (cluster backend, 1 rank): thermo of inputs/sc24_*_801792.lmp,",
        "# 801,792 atoms, with `thermo_modify format float %.15g` added after thermo_style, -var steps 10",
        "# -var thermo_every 5. Regenerate: validation/sc24/step0.py   (CPU: %s)" % cpu,
        "# rel = max over pe, etotal, press of |wafermd - lmp| / |lmp|",
        "%-4s %-7s %5s %-20s %-20s %-20s %-20s %s" % ("elem", "program", "step", "temp", "pe", "etotal", "press",
                                                        "rel"),
    ]
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for elem in args.elements:
            name = f"sc24_{elem}_801792.lmp"
            script = open(os.path.join(INPUTS, name)).read()
            script, n = re.subn(r"^(thermo_style .*)$", r"\1\nthermo_modify   format float %.15g", script,
                                flags=re.M)
            if n != 1:
                sys.exit(f"{name}: expected one thermo_style line")
            copy = os.path.join(tmp, name)
            with open(copy, "w") as f:
                f.write(script)
            common = ["steps", "10", "thermo_every", "5"]
            lmp_vars = [a for i in range(0, 4, 2) for a in ("-var", common[i], common[i + 1])]
            waf_vars = [a for i in range(0, 4, 2) for a in ("--var", common[i], common[i + 1])]
            ref = rows(run([args.lmp, "-in", copy, "-log", "none"] + lmp_vars, os.path.join(tmp, elem + ".lmp")))
            got = rows(run([wafermd, "run", copy, "--output", os.path.join(tmp, "out_" + elem)] + waf_vars,
                           os.path.join(tmp, elem + ".wafermd")))
            for step in sorted(ref):
                r, g = ref[step], got.get(step)
                if g is None:
                    sys.exit(f"{name}: wafermd printed no row for step {step}")
                rel = max(abs(float(g[c]) - float(r[c])) / max(abs(float(r[c])), 1e-300)
                          for c in ("PotEng", "TotEng", "Press"))
                worst = max(worst, rel)
                for prog, row, tail in (("lmp", r, ""), ("wafermd", g, "%.1e" % rel)):
                    lines.append("%-4s %-7s %5d %-20s %-20s %-20s %-20s %s" % (
                        elem, prog, step, row["Temp"], row["PotEng"], row["TotEng"], row["Press"], tail))
    lines.append("# largest rel: %.1e" % worst)
    with open(args.output, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
