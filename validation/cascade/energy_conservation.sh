#!/bin/bash
# Acceptance check: energy conservation through a cascade without thermostat or stopping.
# 32,000-atom Cu (20³ fcc cells, Mishin EAM + ZBL), 300 K, 1 keV PKA, 2 ps of NVE with fix dt/reset
# (Xmax 0.02 Å, Tmax 2 fs, emax 10 eV). Passes if max |E_total(t) − E_total(0)| ≤ 1e-3 × 1000 eV.
#   validation/cascade/energy_conservation.sh [OUTDIR]      (default out/cascade_energy; several CPU minutes)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-out/cascade_energy}
mkdir -p "$out"
cat > "$out/in.energy" <<'EOT'
units metal
atom_style atomic
boundary p p p
lattice fcc 3.615
region box block 0 20 0 20 0 20
create_box 1 box
create_atoms 1 box
pair_style eam/alloy
pair_coeff * * Cu_mishin1.eam.alloy Cu
zbl_splice Cu
neighbor 1.0 bin
neigh_modify every 1 delay 0 check yes
velocity all create 300 4928459 loop geom
fix 1 all nve
defects every 50
cascade near 36.15 36.15 36.15 energy 1000 random 1 time 2.0 element Cu
fix 2 all dt/reset 1 1.0e-6 0.002 0.02 emax 10 units box
thermo_style custom step time dt temp pe etotal vacancies
thermo 20
run 100000000
EOT
"$root/build/wafermd" run "$out/in.energy" --output "$out" > "$out/stdout.txt"
/usr/bin/python3 - "$out" <<'EOT'
import csv, json, sys
out = sys.argv[1]
rows = list(csv.DictReader(open(out + "/thermo.csv")))
e = [float(r["etotal"]) for r in rows]
worst = max(abs(x - e[0]) for x in e)
rep = json.load(open(out + "/report.json"))
ok = worst <= 1e-3 * 1000.0
result = {"atoms": rep["atoms"], "time_ps": float(rows[-1]["time"]), "steps": rep["steps"],
          "max_abs_delta_e_ev": worst, "limit_ev": 1.0, "pass": ok,
          "peak_defects": rep["cascade"]["peak_defects"], "frenkel_pairs": rep["cascade"]["frenkel_pairs"]}
json.dump(result, open(out + "/energy_conservation.json", "w"), indent=2)
print(json.dumps(result))
sys.exit(0 if ok else 1)
EOT
