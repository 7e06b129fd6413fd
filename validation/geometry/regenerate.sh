#!/usr/bin/env bash
# Regenerates tests/data/geometry/: Debian lmp's atoms (ids, types, full-precision coordinates) after the
# geometry and atom-editing commands — lattice orient/spacing/origin/basis (fcc, bcc, diamond, hcp, custom),
# regions of every style, group algebra, set, create_atoms single/random, delete_atoms (region, group,
# porosity, overlap, compress after a run), replicate, change_box, dynamic groups, the geometry lines of
# examples/shear — and the vacancy and interstitial energies after minimize. The unit tests
# (tests/md/test_geometry.cpp) and the 3-rank case (tests/md/mpi_cases.py geometry) reproduce them.
# Usage: validation/geometry/regenerate.sh   (needs Debian's lmp and lammps-examples)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out="$here/../../tests/data/geometry"
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

head='units metal
atom_style atomic
boundary p p p'
# case NAME BODY [DUMP-COLUMNS]: BODY, then a potential, a full-precision dump sorted by id and run 0.
case_() {
  local name=$1 body=$2 cols=${3:-"id type x y z"}
  cat >"$work/in.$name" <<IN
$head
$body
mass * 58.69
pair_style eam
pair_coeff * * Ni_u3.eam
dump d all custom 1 $name.dump $cols
dump_modify d sort id format float %.17g
run 0
IN
  (cd "$work" && lmp -in "in.$name" -log none >/dev/null)
  cp "$work/in.$name" "$work/$name.dump" "$out/"
}

case_ lattice_fcc_orient 'lattice fcc 3.52 orient x 1 0 0 orient y 0 1 1 orient z 0 -1 1 origin 0.5 0 0
region box block 0 6 0 4 0 4
create_box 1 box
create_atoms 1 box'
case_ lattice_fcc_111 'lattice fcc 3.52 orient x 1 -1 0 orient y 1 1 -2 orient z 1 1 1
region box block 0 5 0 3 0 3
create_box 1 box
create_atoms 1 box'
case_ lattice_fcc_spacing 'lattice fcc 3.52 orient x 1 1 0 orient y -1 1 0 orient z 0 0 1 spacing 0.7071067811865476 0.7071067811865476 1 origin 0 0.5 0.25
region box block 0 10 0 10 0 6
create_box 1 box
create_atoms 1 box'
case_ lattice_bcc 'lattice bcc 2.87 orient x 1 1 1 orient y -1 1 0 orient z -1 -1 2 origin 0.1 0.2 0.3
region box block 0 5 0 6 0 4
create_box 1 box
create_atoms 1 box'
case_ lattice_diamond 'lattice diamond 5.43 orient x 1 1 0 orient y -1 1 0 orient z 0 0 1 spacing 1 1 1
region box block 0 4 0 4 0 5
create_box 2 box
create_atoms 1 box basis 5 2 basis 6 2 basis 7 2 basis 8 2'
case_ lattice_hcp 'lattice hcp 2.95 origin 0.25 0.1 0.05
region box block 0 8 0 5 0 5
create_box 1 box
create_atoms 1 box'
case_ lattice_hcp_orient 'lattice hcp 2.95 orient x 0 0 1 orient y 1 0 0 orient z 0 1 0
region box block 0 5 0 8 0 5
create_box 1 box
create_atoms 1 box'
case_ lattice_custom 'lattice custom 3.0 a1 1 0 0 a2 0.5 0.8660254 0 a3 0 0 1.6 basis 0 0 0 basis 0.3333333 0.3333333 0.5 spacing 1 0.8660254 1.6
region box block 0 8 0 8 0 5
create_box 1 box
create_atoms 1 box'
case_ regions 'lattice fcc 3.52
region box block 0 8 0 8 0 8
create_box 4 box
create_atoms 1 box
region s sphere 4 4 4 2.5
region c cylinder z 2 2 1.5 INF 5
region k cone x 4 4 1 3 EDGE 6 side out
region p plane 10 10 10 1 1 1 units box
variable dx equal 3.0
variable dy equal -2.5
region m sphere 4 4 4 1.2 move v_dx v_dy NULL
region u union 2 c m
region i intersect 3 s k p
set region s type 2
set region u type 3
set region i type 4
region del block INF 1.2 INF INF 6 EDGE
delete_atoms region del compress no
region q cylinder y v_dx 20 4 EDGE 12 units box
delete_atoms region q
create_atoms 2 region q'
case_ groups 'lattice fcc 3.52
region box block 0 6 0 6 0 6
create_box 4 box
create_atoms 1 box
region lo block INF INF INF 1.5 INF INF
region hi block INF INF 4.5 INF INF INF
group lower region lo
group upper region hi
group boundary union lower upper
group mobile subtract all boundary
group small id <= 100
group mid id <> 200 300
group both intersect mobile small
group odd id 1:864:2
group mix intersect odd mid
group heavy type != 1
set group both type 2
set group mix type 3
set group upper type 4
group e empty
group upper clear
set group upper type 1
set atom 700*710 type 3 vx 1.5
set type 3*4 vz -0.5
delete_atoms group mid' "id type x y z vx vy vz"
case_ create_single_random 'lattice fcc 3.52
region box block 0 6 0 6 0 6
create_box 2 box
create_atoms 1 box
create_atoms 2 single 0.25 0.25 0.25
create_atoms 2 single 7.1 3.3 2.2 units box
create_atoms 2 single 22.0 1 1 units box remap yes
create_atoms 2 single 30 30 30 units box
create_atoms 2 random 20 4567 NULL
region s sphere 7 7 7 3 units box
create_atoms 2 random 10 111 s'
case_ replicate 'lattice bcc 2.87 orient x 1 1 0 orient y -1 1 0 orient z 0 0 1
region box block 0 3 0 3 0 3
create_box 2 box
create_atoms 1 box
region s sphere 3 3 3 1.1
delete_atoms region s
set atom 5*9 type 2
displace_atoms all move 0.4 0.2 -0.3 units box
replicate 2 3 2' "id type x y z ix iy iz"
case_ random_choices 'lattice fcc 3.52
region box block 0 6 0 6 0 6
create_box 4 box
create_atoms 1 box
set group all type/fraction 2 0.3 4567
set type 1 type/ratio 3 0.25 999
set type 1 type/subset 4 100 321
region s sphere 3 3 3 2.2
delete_atoms porosity s 0.4 12345'
case_ overlap 'lattice fcc 3.52
region box block 0 6 0 6 0 6
create_box 2 box
create_atoms 1 box
create_atoms 2 random 50 9876 NULL
mass * 58.69
pair_style eam
pair_coeff * * Ni_u3.eam
delete_atoms overlap 1.6 all all'
case_ change_box 'lattice fcc 3.52
region box block 0 6 0 6 0 6
create_box 1 box
create_atoms 1 box
displace_atoms all move 0.3 -0.2 0.1 units box
change_box all x final -1 7 y delta -0.5 0.5 z scale 1.1 remap
change_box all x scale 0.95 y volume remap units box
region s block 0 3 INF INF INF INF
group left region s
change_box left z delta 0 2.0 remap units box
change_box all boundary p f p' "id type x y z ix iy iz"
# After 1100 steps LAMMPS has sorted its atoms (at the run's set-up and at step 1000): compress follows.
case_ sorted_compress 'lattice fcc 3.52
region box block 0 6 0 6 0 6
create_box 1 box
create_atoms 1 box
mass * 58.69
pair_style eam
pair_coeff * * Ni_u3.eam
velocity all create 300 4928 loop geom
fix 1 all nve
run 1100
region s sphere 8 8 8 2.6 units box
delete_atoms region s'

# A dynamic group in a moving sphere, dumped every 50 steps (ids only).
cat >"$work/in.dynamic_group" <<IN
$head
lattice fcc 3.52
region box block 0 6 0 6 0 6
create_box 1 box
create_atoms 1 box
mass * 58.69
pair_style eam
pair_coeff * * Ni_u3.eam
velocity all create 300 4928 loop geom
variable d equal "step*0.02"
region r sphere 8 8 8 5 units box move v_d NULL NULL
group g dynamic all region r every 10
fix 1 all nve
dump d g custom 50 dynamic_group.dump id
dump_modify d sort id
run 100
IN
(cd "$work" && lmp -in in.dynamic_group -log none >/dev/null)
cp "$work/in.dynamic_group" "$work/dynamic_group.dump" "$out/"

# examples/shear: everything before its first compute (which needs the computes issue), then a dump.
for v in shear shear.void; do
  name=$(echo "examples_$v" | tr . _)
  head -35 "/usr/share/lammps/examples/shear/in.$v" >"$work/in.$name"
  printf 'dump d all custom 1 %s.dump id type x y z\ndump_modify d sort id format float %%.17g\nrun 0\n' \
    "$name" >>"$work/in.$name"
  (cd "$work" && lmp -in "in.$name" -log none >/dev/null)
  cp "$work/in.$name" "$work/$name.dump" "$out/"
done

# Vacancy and interstitial (<100> dumbbell) energies after minimize, Cu_u3: the last thermo row's pe.
base="$head
lattice fcc 3.615
region box block 0 6 0 6 0 6
create_box 1 box
create_atoms 1 box
pair_style eam
pair_coeff 1 1 Cu_u3.eam
thermo_style custom step pe
thermo_modify format float %.15g
min_style cg
minimize 0 1e-10 10000 100000"
printf '%s\nregion v sphere 9.0375 9.0375 7.23 0.1 units box\ndelete_atoms region v\nminimize 0 1e-10 10000 100000\n' \
  "$base" >"$work/in.vacancy"
printf '%s\nregion c sphere 7.23 7.23 7.23 0.1 units box\ngroup center region c\n%s\n%s\nminimize 0 1e-10 10000 100000\n' \
  "$base" "displace_atoms center move -0.6 0 0 units box" "create_atoms 1 single 7.83 7.23 7.23 units box" \
  >"$work/in.interstitial"
: >"$out/energies.txt"
for name in vacancy interstitial; do
  (cd "$work" && lmp -in "in.$name" -log none >"$name.log")
  e=$(awk '/^Loop time/ {print prev} {prev=$0}' "$work/$name.log" | tail -1 | awk '{print $2}')
  echo "$name $e" >>"$out/energies.txt"
  cp "$work/in.$name" "$out/"
done
echo "wrote $out"
