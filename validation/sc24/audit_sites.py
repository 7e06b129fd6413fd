#!/usr/bin/python3
"""The site mapping audited on the SC24 Ta slab at full size: the mesh emulator (mesh.mapping sites, the
cs2_sc24 wafer, fp32 PEs) runs the equilibrated 801,792-atom Ta configuration that validation/sc24/equilibrate.py
writes, then a 1 keV primary knock-on atom (ZBL at close range, 0.2 fs steps) started at the slab's centre in
it, with mesh.audit on: after every step's list upkeep a brute-force search checks that every pair within the
cutoff is in both PEs' lists. Writes validation/sc24/results/audit_sites.json.

Usage: validation/sc24/audit_sites.py [--data out/sc24/equilibrate/ta_256x261x6_wafermd_6000/config.data]
       [--steps 20] [--cascade-steps 100] [--wafermd build/wafermd]
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
POT = os.path.join(REPO, "inputs", "potentials", "Ta_Li_2003.eam.alloy")
ALAT = 3.3026 * 0.99888  # Ta.inc: alatt * thexp
MASS = 180.95
EV = 9648.5  # 1 eV in amu A^2 / ps^2


def centre_atom(data):
    """The id of the atom nearest the configuration's centre (x, y, and the middle layer)."""
    atoms, reading = [], False
    for line in open(data):
        w = line.split()
        if w[:1] == ["Atoms"]:
            reading = True
            continue
        if reading and w[:1] == ["Velocities"]:
            break
        if reading and len(w) >= 5:
            atoms.append((int(w[0]), float(w[2]), float(w[3]), float(w[4])))
    cx = sum(a[1] for a in atoms) / len(atoms)
    cy = sum(a[2] for a in atoms) / len(atoms)
    cz = sum(a[3] for a in atoms) / len(atoms)
    return min(atoms, key=lambda a: (a[1] - cx) ** 2 + (a[2] - cy) ** 2 + (a[3] - cz) ** 2)[0]


def script(data, steps, pka=None, cascade_steps=0):
    head = (f"units metal\natom_style atomic\natom_modify map hash\nboundary s s s\nlattice bcc {ALAT!r}\n"
            f"read_data {data}\nmass 1 {MASS}\n")
    if pka is None:
        pair = f"pair_style eam/alloy\npair_coeff * * {POT} Ta\n"
    else:
        pair = (f"pair_style hybrid/overlay eam/alloy zbl 1.0 2.0\npair_coeff * * eam/alloy {POT} Ta\n"
                "pair_coeff 1 1 zbl 73 73\n")
    body = ("neighbor 0.5 bin\nneigh_modify every 1 delay 0 check yes\nfix 1 all nve\n"
            "thermo_style custom step temp pe etotal\n")
    if pka is None:
        return head + pair + body + f"timestep 0.002\nthermo 10\nrun {steps}\n"
    v = math.sqrt(2 * 1000.0 * EV / MASS)  # 1 keV
    d = (0.8, 0.55, 0.24)  # mostly in-plane, off the close-packed directions
    n = math.sqrt(sum(c * c for c in d))
    vx, vy, vz = (v * c / n for c in d)
    return (head + pair + body + f"group pka id {pka}\nvelocity pka set {vx:.6f} {vy:.6f} {vz:.6f} units box\n"
            f"timestep 0.0002\nthermo 20\nrun {cascade_steps}\n")


def run(wafermd, text, tmp, name):
    path = os.path.join(tmp, f"in.{name}")
    with open(path, "w") as f:
        f.write(text)
    out = os.path.join(tmp, name)
    cmd = [wafermd, "run", path, "--backend", "mesh", "--set", "mesh.mapping=sites", "--set",
           "mesh.wafer=cs2_sc24", "--set", "mesh.audit=true", "--output", out]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed (exit {p.returncode}):\n{(p.stdout + p.stderr)[-3000:]}")
    fab = json.load(open(os.path.join(out, "report.json")))["fabric"]
    setup = next((l for l in p.stdout.splitlines() if l.startswith("Mesh:")), "")
    keys = ("mapping", "audit_steps", "audit_missing_pairs", "window_b", "swaps", "remaps", "guard_misses",
            "rebuilds", "site_mapping_left")
    r = {k: fab[k] for k in keys if k in fab}
    r["setup"] = setup
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(REPO, "out", "sc24", "equilibrate",
                                                   "ta_256x261x6_wafermd_6000", "config.data"))
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--cascade-steps", type=int, default=100)
    ap.add_argument("--wafermd", default=os.path.join(REPO, "build", "wafermd"))
    args = ap.parse_args()
    if not os.path.exists(args.data):
        sys.exit(f"{args.data}: no equilibrated configuration; run validation/sc24/equilibrate.py ta first")
    data = os.path.abspath(args.data)
    wafermd = os.path.abspath(args.wafermd)
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    result = {"command": "validation/sc24/audit_sites.py", "data": os.path.relpath(data, REPO), "cpu": cpu}
    with tempfile.TemporaryDirectory() as tmp:
        result["equilibrated"] = run(wafermd, script(data, args.steps), tmp, "thermal")
        print("equilibrated Ta:", result["equilibrated"], flush=True)
        pka = centre_atom(data)
        result["cascade_1kev"] = run(wafermd, script(data, 0, pka, args.cascade_steps), tmp, "cascade")
        result["cascade_1kev"]["pka_id"] = pka
        print("1 keV cascade:", result["cascade_1kev"], flush=True)
    out = os.path.join(HERE, "results", "audit_sites.json")
    with open(out, "w") as f:
        json.dump(result, f, indent=1)
    print("wrote", out)


if __name__ == "__main__":
    main()
