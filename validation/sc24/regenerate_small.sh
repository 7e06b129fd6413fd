#!/usr/bin/env bash
# Regenerates tests/data/sc24/lammps_{ta,w,cu}_8x8.txt: Debian lmp's thermo rows (header, then the rows) for
# inputs/sc24_{ta,w,cu}_801792.lmp shrunk to 8 x 8 x 6 cells (-var nx 8 -var ny 8), 100 steps, thermo every 10,
# printed with 15 significant digits (`thermo_modify format float %.15g` added after thermo_style in a copy).
# tests/md/sc24_inputs.py runs the inputs unchanged on wafermd at the same size (ctest Sc24Inputs.*).
# Usage: validation/sc24/regenerate_small.sh   (needs Debian's lmp; runs in inputs/, where lmp finds potentials/)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
data="$repo/tests/data/sc24"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$data"
for elem in ta w cu; do
  sed 's/^\(thermo_style .*\)$/\1\nthermo_modify   format float %.15g/' "$repo/inputs/sc24_${elem}_801792.lmp" \
    >"$work/in.$elem"
  (cd "$repo/inputs" && lmp -in "$work/in.$elem" -var nx 8 -var ny 8 -var steps 100 -var thermo_every 10 \
    -log "$work/log.$elem" >/dev/null)
  awk '/^ *Step/ {on = 1; n++} /^Loop time/ {on = 0} on && n == 1' "$work/log.$elem" >"$data/lammps_${elem}_8x8.txt"
done
