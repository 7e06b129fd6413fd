#!/usr/bin/env bash
# Regenerates tests/data/styles/lammps_*.txt: Debian lmp's thermo rows (header, then the rows of the first run)
# for each tests/data/styles/in.* (computes and their references, thermo_modify temp, fix temp/rescale,
# setforce, indent, spring, recenter, deposit, nvt on a sub-group, group functions in formulas, fix deform
# remap v with compute temp/deform; per-atom computes and voronoi/atom occupation on a cascade, whose NAME.dump
# is kept as lammps_NAME.dump (fix deposit's too), and a dump local NAME.local as lammps_NAME.local; fix
# ave/time, fix ave/chunk and fix print, whose files NAME.out.* are kept as lammps_NAME.out.*)
# and for examples/shear/in.shear and in.shear.void from lammps-examples,
# whose Ni_u3.eam lmp finds in its potentials directory and whose first thermo block is printed
# with full precision (thermo_modify … format float %.15g; the 3000-step shear run is cut to 0 steps, it is
# not compared). tests/md/styles_cases.py compares wafermd's thermo.csv with them at 1 and 3 ranks.
# Usage: validation/styles/regenerate.sh [NAME...]   (needs Debian's lmp and lammps-examples; with NAMEs, only
# those cases' in.NAME are run, and not the shear and EAM3D examples)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
data="$here/../../tests/data/styles"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# rows LOG OUT: the header and rows of the first thermo block of a LAMMPS log.
rows() { awk '/^ *Step/ {on = 1; n++} /^Loop time/ {on = 0} on && n == 1' "$1" >"$2"; }
inputs=("$data"/in.*)
if [ $# -gt 0 ]; then inputs=(); for n in "$@"; do inputs+=("$data/in.$n"); done; fi
for input in "${inputs[@]}"; do
  name=${input##*/in.}
  # A case may need a script run before it in the same directory (NAME.pre: the restart file it reads).
  if [ -f "$data/$name.pre" ]; then (cd "$work" && lmp -in "$data/$name.pre" -log none >/dev/null); fi
  (cd "$work" && lmp -in "$input" -log "$work/log.$name" >/dev/null)
  rows "$work/log.$name" "$data/lammps_$name.txt"
  # A case that dumps per-atom values keeps lmp's dump beside its rows.
  if [ -f "$work/$name.dump" ]; then cp "$work/$name.dump" "$data/lammps_$name.dump"; fi
  # And one that writes a dump local NAME.local (property/local, pair/local), lammps_NAME.local.
  if [ -f "$work/$name.local" ]; then cp "$work/$name.local" "$data/lammps_$name.local"; fi
  # So does one that writes files NAME.out.* (fix ave/time, fix print).
  for out in "$work/$name".out.*; do if [ -f "$out" ]; then cp "$out" "$data/lammps_${out##*/}"; fi; done
done
[ $# -gt 0 ] && exit 0
ex=/usr/share/lammps/examples/shear
for name in shear shear.void; do
  sed -e 's/^thermo_modify\(.*temp new3d.*\)$/thermo_modify\1 format float %.15g/' \
      -e 's/^run\t\t3000/run 0/' "$ex/in.$name" >"$work/in.$name"
  (cd "$work" && lmp -in "in.$name" -log "log.$name" >/dev/null)
  rows "$work/log.$name" "$data/lammps_examples_${name/./_}.txt"
done
# examples/shear/in.shear in a triclinic box (its block a prism with xz = 1 lattice spacing; shrink-wrapped
# x and y faces on a tilted box), the shear run cut to 0 steps.
sed -e 's/^region\t\tbox block 0 16.0 0 10.0 0 2.828427/region\t\tbox prism 0 16.0 0 10.0 0 2.828427 0 1.0 0/' \
    -e 's/^thermo_modify\(.*temp new3d.*\)$/thermo_modify\1 format float %.15g/' -e 's/^run\t\t3000/run 0/' \
    /usr/share/lammps/examples/shear/in.shear >"$work/in.shear_tri"
(cd "$work" && lmp -in in.shear_tri -log log.shear_tri >/dev/null)
rows "$work/log.shear_tri" "$data/lammps_examples_shear_tri.txt"
# PACKAGES/phonon/3-3D-FCC-Cu-EAM/in.EAM3D (a triclinic data file, fix npt iso with pchain and drag) without
# its fix phonon (Debian's lmp has none) and restart lines, 500 of its 6.5 million steps.
eam3d=/usr/share/lammps/examples/PACKAGES/phonon/3-3D-FCC-Cu-EAM
cp "$eam3d"/data.pos "$eam3d"/cuu3.eam "$work"/
sed -e '/^fix *2 all phonon/d' -e '/^restart /d' -e 's/^run.*/run 500/' "$eam3d/in.EAM3D" >"$work/in.EAM3D"
(cd "$work" && lmp -in in.EAM3D -log log.EAM3D >/dev/null)
rows "$work/log.EAM3D" "$data/lammps_examples_eam3d.txt"
# examples/ELASTIC/in.elastic (a prism box, change_box tilts with remap, box tilt large, read_restart and
# minimize per strain) with Cu_u3.eam on an fcc lattice in place of its Stillinger-Weber silicon: the printed
# elastic constants and moduli.
mkdir -p "$work/elastic" && cp /usr/share/lammps/examples/ELASTIC/* "$work/elastic/"
sed -i -e 's/^pair_style\tsw/pair_style eam/' -e 's|^pair_coeff \* \* Si.sw Si|pair_coeff 1 1 Cu_u3.eam|' "$work/elastic/potential.mod"
sed -i -e 's/^lattice         diamond \$a/lattice fcc 3.615/' -e 's/^mass 1 1.0e-20/mass 1 63.546/' \
    -e 's/^variable a equal 5.43/variable a equal 3.615/' "$work/elastic/init.mod"
(cd "$work/elastic" && lmp -in in.elastic -log log.elastic >/dev/null)
grep -E '^(Elastic Constant|Bulk Modulus|Shear Modulus|Poisson Ratio)' "$work/elastic/log.elastic" >"$data/lammps_examples_elastic.txt"
