#!/usr/bin/python3
"""Thermal state after N steps vs the artifact's 20,000, from equilibrate.py's summaries.

Reads OUT/<elem>_20x20x6_lmp_20000/summary.json (made by
  nice validation/sc24/equilibrate.py --program lmp --cells 20x20 --steps 20000 --dump-every 500 --no-config)
and, where present, the 801,792-atom runs OUT/<elem>_<full>_wafermd_<N>/summary.json, and prints (and writes to
validation/sc24/displacements.txt with --write) per element: at N (equilibrate.py's default steps) and at 20,000,
the temperature (thermo row and mean of the rows of the 1000 steps before), the rms displacement from the initial
sites, the slab's in-plane strain, and the rms displacement once that homogeneous strain is taken out.

Usage: validation/sc24/compare_steps.py [--out OUT] [--write]
"""
import argparse
import glob
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
N = {"ta": 6000, "w": 3000, "cu": 3500}


def thermo(path):
    lines = open(path).read().splitlines()
    head = lines[0].split()
    return head, [[float(x) for x in ln.split()] for ln in lines[1:]]


def row_at(summary, thermo_rows, col, step):
    frame = next((f for f in summary["displacements"] if f["step"] == step), None)
    rows = {int(r[0]): r for r in thermo_rows}
    window = [r[col["Temp"]] for r in thermo_rows if step - 1000 < r[0] <= step]
    return frame, rows.get(step), sum(window) / len(window) if window else float("nan")


def fmt(summary, frame, row, col, tmean, step):
    return ("%-2s %-14s %6d %7.1f %7.1f %7.4f %7.4f %+8.4f %+8.4f %7.4f %7.4f" % (
        summary["element"], "x".join(map(str, summary["cells"])) + " " + summary["program"][:3], step,
        row[col["Temp"]], tmean, frame["rms_displacement_A"], frame["msd_A2"], frame["strain_xx_yy_zz"][0],
        frame["strain_xx_yy_zz"][1], frame["rms_without_strain_A"], frame["rms_local_A"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(REPO, "out", "sc24", "equilibrate"))
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    cpu = "?"
    lines = ["# el cells prog        step  T(K)  T1000(K) rms(A)  MSD(A2)  e_xx     e_yy   rms-strain local(A)",
             "# T1000: mean of the thermo rows (every 100 steps) of the 1000 steps up to `step`; rms: from the",
             "# initial sites (sqrt of compute msd); e_xx, e_yy: the slab's homogeneous in-plane strain (best affine",
             "# fit of the positions); rms-strain: the rms displacement with that strain taken out; local: that less",
             "# the mean over its 13 A in-plane block (vibration and surface relaxation, no long-wavelength motion)."]
    for elem in ("ta", "w", "cu"):
        runs = sorted(glob.glob(os.path.join(args.out, f"{elem}_*_lmp_20000", "summary.json")),
                      key=lambda p: int(os.path.basename(os.path.dirname(p)).split("_")[1].split("x")[0]))
        runs += sorted(glob.glob(os.path.join(args.out, f"{elem}_*_wafermd_*", "summary.json")))
        for path in runs:
            summary = json.load(open(path))
            cpu = summary["cpu"]
            head, rows = thermo(os.path.join(os.path.dirname(path), "thermo.txt"))
            col = {h: i for i, h in enumerate(head)}
            steps = sorted({N[elem], 20000} & {f["step"] for f in summary["displacements"]})
            for step in steps:
                frame, row, tmean = row_at(summary, rows, col, step)
                if frame and row:
                    lines.append(fmt(summary, frame, row, col, tmean, step))
            late = [f["rms_local_A"] for f in summary["displacements"] if f["step"] >= 1000]
            if len(late) > 1:
                lines.append("#  %s %s: local over steps 1000-%d: %.4f-%.4f A (mean %.4f); strain e_xx %.4f to %.4f" % (
                    summary["element"], "x".join(map(str, summary["cells"])), summary["steps"], min(late), max(late),
                    sum(late) / len(late), min(f["strain_xx_yy_zz"][0] for f in summary["displacements"] if f["step"]),
                    max(f["strain_xx_yy_zz"][0] for f in summary["displacements"] if f["step"])))
    # The in-plane breathing's period grows with the slab's side: compare the 801,792-atom run's strain at step s
    # with a smaller lmp slab's at s * nx_small / nx_full.
    lines.append("# time-scaled: the full slab at step s against a smaller slab at s * nx_small / nx_full")
    for elem in ("ta", "w", "cu"):
        full = glob.glob(os.path.join(args.out, f"{elem}_*_wafermd_*", "summary.json"))
        small = glob.glob(os.path.join(args.out, f"{elem}_*_lmp_20000", "summary.json"))
        for fpath in full:
            f = json.load(open(fpath))
            for spath in small:
                sm = json.load(open(spath))
                scale = sm["cells"][0] / f["cells"][0]
                frames = {fr["step"]: fr for fr in sm["displacements"]}
                for fr in f["displacements"]:
                    twin = frames.get(round(fr["step"] * scale))
                    if fr["step"] and twin and abs(twin["step"] - fr["step"] * scale) < 1e-9:
                        lines.append("#  %s %s step %5d: e_xx %+.4f e_yy %+.4f | %s step %5d: e_xx %+.4f e_yy %+.4f" % (
                            f["element"], "x".join(map(str, f["cells"])), fr["step"], fr["strain_xx_yy_zz"][0],
                            fr["strain_xx_yy_zz"][1], "x".join(map(str, sm["cells"])), twin["step"],
                            twin["strain_xx_yy_zz"][0], twin["strain_xx_yy_zz"][1]))
                # The artifact's 20,000 steps, which the full slab here did not run: the smaller slab's twin
                # and the rms displacement its strain gives the full slab's in-plane size (L^2/12 per axis).
                twin = frames.get(round(20000 * scale))
                if twin and abs(twin["step"] - 20000 * scale) < 1e-9 and f["steps"] < 20000:
                    ex, ey, _ = twin["strain_xx_yy_zz"]
                    lx, ly = (f["cells"][k] * f["lattice_A"][k] for k in (0, 1))
                    msd = (ex * lx) ** 2 / 12 + (ey * ly) ** 2 / 12
                    lines.append("#  %s %s step 20000 (not run) ~ %s step %5d: e_xx %+.4f e_yy %+.4f -> rms from "
                                 "the strain alone ~%.1f A" % (f["element"], "x".join(map(str, f["cells"])),
                                                                "x".join(map(str, sm["cells"])), twin["step"], ex, ey,
                                                                msd ** 0.5))
    lines.insert(0, "# validation/sc24/compare_steps.py (CPU: %s)" % cpu)
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.write:
        with open(os.path.join(HERE, "displacements.txt"), "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
