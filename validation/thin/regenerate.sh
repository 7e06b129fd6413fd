#!/usr/bin/env bash
# Regenerates tests/data/thin/lammps_*.txt: Debian lmp's thermo rows (header, then the rows of the first run
# or minimisation) of each tests/data/thin/in.NAME on one rank, and lmp's dump NAME.dump as lammps_NAME.dump
# where the input writes one. ClusterMpi.thin_subdomains (tests/md/mpi_cases.py) compares wafermd on
# sub-domains thinner than the neighbour cutoff (2, 3 and 4 ranks) with them.
# Usage: validation/thin/regenerate.sh   (needs Debian's lmp)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
data="$here/../../tests/data/thin"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rows() { awk '/^ *Step/ {on = 1; n++} /^Loop time/ {on = 0} on && n == 1' "$1" >"$2"; }
for input in "$data"/in.*; do
  name=${input##*/in.}
  (cd "$work" && lmp -in "$input" -log "$work/log.$name" >/dev/null)
  rows "$work/log.$name" "$data/lammps_$name.txt"
  if [ -f "$work/$name.dump" ]; then cp "$work/$name.dump" "$data/lammps_$name.dump"; fi
done
