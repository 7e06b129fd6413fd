#!/usr/bin/env bash
# Regenerates tests/data/lattice_velocity/: LAMMPS's create_atoms coordinates and `velocity create` results
# (loop geom uniform, loop all gaussian) at full precision, which the unit tests must reproduce bit for bit.
# Usage: validation/lattice_velocity/regenerate.sh   (needs Debian's lmp)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out="$here/../../tests/data/lattice_velocity"
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
write_case() {  # name lattice a cells velocity-args
  cat >"$work/in.$1" <<IN
units metal
atom_style atomic
boundary p p p
lattice $2 $3
region box block 0 $4 0 $4 0 $4
create_box 2 box
create_atoms 1 box
mass 1 63.55
mass 2 26.98
group odd id 1:1000:2
set group odd type 2
velocity all create $5
dump 1 all custom 1 $1.dump id type x y z vx vy vz
dump_modify 1 sort id format float %.17g
run 0
IN
  (cd "$work" && lmp -in "in.$1" -log none >/dev/null)
  cp "$work/in.$1" "$out/in.$1"
  cp "$work/$1.dump" "$out/$1.dump"
}
write_case fcc_geom fcc 3.615 4 "300.0 4928459 loop geom"
write_case bcc_all_gauss bcc 3.165 4 "1200.0 87287 loop all dist gaussian"
write_case sc_geom_gauss sc 2.5 5 "50.0 12345 loop geom dist gaussian mom yes rot yes"
echo "wrote $out"
