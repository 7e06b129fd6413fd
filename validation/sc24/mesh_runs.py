#!/usr/bin/python3
"""The mesh emulator on the SC24 inputs (inputs/sc24_{ta,w,cu}_801792.lmp, 801,792 atoms each): fp32 for
--steps steps (default 200, 0.4 ps at 2 fs) with total energy every 10 steps, and fp64 for 10 steps; each
step-0 row against Debian lmp's (validation/sc24/lammps_step0.txt), the fp32 run's energy drift (slope of a
linear fit of etotal per atom against time) and spread. Writes validation/sc24/results/mesh_runs.json and
prints a table.

Usage: validation/sc24/mesh_runs.py [--wafermd build/wafermd] [--steps N] [--mapping bisection|lattice|sites]
       [ELEMENT...]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
INPUTS = os.path.join(REPO, "inputs")
ATOMS = 801792
DT_PS = 0.002
MAPPING = "bisection"  # --mapping


def lmp_step0():
    ref = {}
    for line in open(os.path.join(HERE, "lammps_step0.txt")):
        w = line.split()
        if len(w) >= 7 and w[1] == "lmp" and w[2] == "0":
            ref[w[0]] = {"temp": float(w[3]), "pe": float(w[4]), "etotal": float(w[5]), "press": float(w[6])}
    return ref


def thermo(text):
    out, header = [], None
    for line in text.splitlines():
        words = line.split()
        if words[:1] == ["Step"]:
            header = words
            continue
        if header and len(words) == len(header) and re.fullmatch(r"-?\d+", words[0]):
            out.append(dict(zip(header, map(float, words))))
        elif header and line.startswith("Loop time"):
            header = None
    return out


def run(wafermd, elem, precision, steps, every, tmp, backend="mesh"):
    name = f"sc24_{elem}_801792.lmp"
    script = open(os.path.join(INPUTS, name)).read()
    script = re.sub(r"^(thermo_style .*)$", r"\1\nthermo_modify   format float %.15g", script, flags=re.M)
    copy = os.path.join(INPUTS, f".mesh_runs_{elem}.lmp")  # beside the input: its potentials are found
    with open(copy, "w") as f:
        f.write(script)
    try:
        cmd = [wafermd, "run", copy, "--backend", backend, "--var", "steps", str(steps), "--var", "thermo_every",
               str(every), "--output", os.path.join(tmp, f"{elem}_{backend}_{precision}")]
        if backend == "mesh":
            cmd += ["--set", f"mesh.precision={precision}", "--set", f"mesh.mapping={MAPPING}"]
        p = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True)
    finally:
        os.remove(copy)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed (exit {p.returncode}):\n{(p.stdout + p.stderr)[-2000:]}")
    speed = re.search(r"Mesh speed: emulator ([\d.e+-]+) steps/s.*?wafer ([\d.e+-]+) steps/s \((\d+) cycles/step, "
                      r"b = (\d+)\)", p.stdout)
    return thermo(p.stdout), speed.groups() if speed else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wafermd", default=os.path.join(REPO, "build", "wafermd"))
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--mapping", default="bisection", choices=["bisection", "lattice", "sites"])
    ap.add_argument("elements", nargs="*", default=["ta", "w", "cu"])
    args = ap.parse_args()
    global MAPPING
    MAPPING = args.mapping
    wafermd = os.path.abspath(args.wafermd)
    ref = lmp_step0()
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    result = {"command": "validation/sc24/mesh_runs.py --steps %d --mapping %s" % (args.steps, args.mapping),
              "cpu": cpu, "elements": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for elem in args.elements:
            r32, s32 = run(wafermd, elem, "fp32", args.steps, 10, tmp)
            r64, _ = run(wafermd, elem, "fp64", 10, 5, tmp)
            # The same steps on the cluster backend (fp64 throughout): the integrator's own energy error at
            # 2 fs, against which the fp32 PEs' is read.
            rc, _ = run(wafermd, elem, "fp64", args.steps, 10, tmp, backend="cluster")

            def drift(rows):
                t = np.array([r["Step"] for r in rows]) * DT_PS
                e = np.array([r["TotEng"] for r in rows]) / ATOMS
                return (float(np.polyfit(t, e, 1)[0]) if len(t) > 2 else 0.0), float(e.max() - e.min())

            slope, spread = drift(r32)
            cslope, cspread = drift(rc)
            lm = ref[elem]
            rel = lambda row: max(abs(row[k] - lm[v]) / abs(lm[v]) for k, v in
                                  (("PotEng", "pe"), ("TotEng", "etotal"), ("Press", "press")))
            result["elements"][elem] = {
                "fp32_step0_rel_to_lmp": rel(r32[0]),
                "fp64_step0_rel_to_lmp": rel(r64[0]),
                "fp64_step0": r64[0],
                "lmp_step0": lm,
                "fp32_steps": int(r32[-1]["Step"]),
                "fp32_etotal_drift_eV_per_atom_per_ps": slope,
                "fp32_etotal_spread_eV_per_atom": spread,
                "cluster_fp64_etotal_drift_eV_per_atom_per_ps": cslope,
                "cluster_fp64_etotal_spread_eV_per_atom": cspread,
                "fp32_temp_first_last": [r32[0]["Temp"], r32[-1]["Temp"]],
                "emulator_steps_per_s": float(s32[0]) if s32 else None,
                "run_report_wafer_steps_per_s": float(s32[1]) if s32 else None,
                "run_report_cycles_per_step": int(s32[2]) if s32 else None,
                "b": int(s32[3]) if s32 else None,
            }
            x = result["elements"][elem]
            print(f"{elem}: step 0 vs lmp fp32 {x['fp32_step0_rel_to_lmp']:.1e} fp64 {x['fp64_step0_rel_to_lmp']:.1e}; "
                  f"fp32 {x['fp32_steps']} steps drift {slope:.2e} eV/atom/ps spread "
                  f"{spread:.1e} (cluster fp64: {cslope:.2e}, {cspread:.1e}); emulator {x['emulator_steps_per_s']} steps/s, b {x['b']}",
                  flush=True)
    out = os.path.join(HERE, "results", "mesh_runs.json")
    with open(out, "w") as f:
        json.dump(result, f, indent=1)
    print("wrote", out)


if __name__ == "__main__":
    main()
