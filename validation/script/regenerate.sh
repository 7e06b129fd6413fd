#!/usr/bin/env bash
# Regenerates tests/data/script/: Debian lmp's outputs for the script commands of tests/md/test_script*.cpp —
# the lines print writes (in.print, in.loop, in.clear, in.atom_values: those starting with ">>"), the thermo lines of in.thermo
# and in.velocity_local (velocity create loop local after delete_atoms) and in.reset_ids (reset_atom_ids); the printed lines and thermo rows of in.run_every (run … every)
# (enthalpy, xy xz yz, fmax, fnorm, box lengths, volume, density), in.halt's (fix halt: messages, rows, steps per run), in.thresh's dumps (dump_modify thresh), in.gzname's (plain dump styles compressed by a .gz name, decompressed), in.lost's (lost atoms), in.shell's (shell with other programs), dump atom and dump xyz files with
# their dump_modify settings (in.dumps), dump cfg and write_dump files (in.cfg; a triclinic box's in in.dump_tri), one file per frame with '*' names and pad, xyz/gz (in.multifile), and dump custom/gz after read_data of a gzip-compressed data file
# (in.make_data writes data.alloy, compressed here to data.alloy.gz; in.gz reads it; custom.dump is lmp's
# custom.dump.gz decompressed). in.restart_one/in.restart_two are wafermd-only (bit-identical continuation).
# in.parse (LAMMPS's parsing rules: quotes, substitution, continuation, comments, UTF-8) and in.functions (special
# and math functions, thermo keywords between runs, file and atomfile variables): parse.ref is lmp's output from
# the first ">>" line to ">> end" (lmp 2021 crashes at exit when a variable is defined after a file variable was
# used up, so its output is taken unbuffered and its exit status ignored); bad/*.in each stop lmp with an ERROR, whose line bad/lmp_errors.ref
# records (the tests check that wafermd refuses each too).
# Usage: validation/script/regenerate.sh   (needs Debian's lmp and its potentials)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
data="$here/../../tests/data/script"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$data"/in.* "$data"/values.txt "$data"/values.atoms "$data"/dry_cd.inc "$work/"
cd "$work"
run() { lmp -in "$1" -log none -echo none >"$1.out"; }
run in.print
grep '^>>' in.print.out >"$data/print.ref"
run in.loop
grep '^>>' in.loop.out >"$data/loop.ref"
run in.clear
grep '^>>' in.clear.out >"$data/clear.ref"
run in.atom_values
grep '^>>' in.atom_values.out >"$data/atom_values.ref"
run in.lattice_default
grep '^>>' in.lattice_default.out >"$data/lattice_default.ref"
run in.restart_clear
grep '^>>' in.restart_clear.out >"$data/restart_clear.ref"
run in.run_pre_no
grep '^>>' in.run_pre_no.out >"$data/run_pre_no.ref"
run in.timer
grep '^>>' in.timer.out >"$data/timer.ref"
run in.box_time
grep '^>>' in.box_time.out >"$data/box_time.ref"
run in.element
cp element.dump element_default.dump "$data/"
run in.dry_cd
grep '^>>' in.dry_cd.out >"$data/dry_cd.ref"
run in.restart_shrink
grep '^>>' in.restart_shrink.out >"$data/restart_shrink.ref"
run in.restart_fixes
grep '^>>' in.restart_fixes.out >"$data/restart_fixes.ref"
cp second.txt "$data/restart_fixes_second.txt"
run in.thermo_multi
grep -E '^---------------- Step|^[A-Za-z_]+ += ' in.thermo_multi.out | sed -E 's/CPU = +[0-9.]+/CPU = X/' >"$data/thermo_multi.ref"
run in.thermo
sed -n '/^ *Step/,/^Loop time/p' in.thermo.out | grep -v '^Loop time' >"$data/thermo.ref"
run in.velocity_local
sed -n '/^ *Step/,/^Loop time/p' in.velocity_local.out | grep -v '^Loop time' >"$data/velocity_local.ref"
run in.reset_ids
sed -n '/^ *Step/,/^Loop time/p' in.reset_ids.out | grep -v '^Loop time' >"$data/reset_ids.ref"
run in.run_every
grep -E '^>>|^ +[0-9]+ ' in.run_every.out | grep -v 'MPI\|neighbor' >"$data/run_every.ref"
sed -n '/^ *Step/,/^Loop time/p' in.reset_ids.out | grep -v '^Loop time' >"$data/reset_ids.ref"
# fix halt: the printed lines, thermo rows, halt messages (without lmp's source location; diskfree's value
# is the machine's, so DISKFREE) and the steps each run took.
run in.halt
grep -E '^>>|^ +[0-9]+ |^Fix halt|^Loop time' in.halt.out | grep -v 'MPI\|neighbor' |
  sed -e 's/ (src.*//' -e 's/^Loop time of [^ ]* on [0-9]* procs/Loop time/' \
      -e 's/^\(Fix halt condition for fix-id hd met on step [0-9]* with value\) .*/\1 DISKFREE/' >"$data/halt.ref"
# Output by simulated time under fix dt/reset (thermo v_name, dump_modify every v_name, delay, fix halt on time,
# run every/upto/start): the same lines as in.halt's, and each dump's frame steps.
run in.time_output_halt
grep -E '^>>|^ +[0-9]+ |^Fix halt|^Loop time' in.time_output_halt.out | grep -v 'MPI\|neighbor' |
  sed -e 's/ (src.*//' -e 's/^Loop time of [^ ]* on [0-9]* procs/Loop time/' >"$data/time_output_halt.ref"
for f in halt_a halt_b; do
  echo "$f.dump: $(grep -A1 TIMESTEP $f.dump | grep -v 'TIME\|--' | tr '\n' ' ')"
done >"$data/time_output_halt.steps"
# restart v_name: the names of the files written at the variable's steps.
run in.restart_variable
ls rs.* | sort -t. -k2 -n | tr '\n' ' ' >"$data/restart_variable.ref"
echo >>"$data/restart_variable.ref"
# thermo_modify lost warn|ignore: rows, the warning (without lmp's source location), prints, steps and atoms.
run in.lost
grep -E '^>>|^ +[0-9]+ |^WARNING: Lost|^Loop time' in.lost.out | grep -v 'MPI\|neighbor' |
  sed -e 's/ (src.*//' -e 's/^Loop time of [^ ]* on [0-9]* procs/Loop time/' >"$data/lost.ref"
# shell with another program: the printed lines and lmp's warnings (without its source location).
run in.shell
grep -E '^>>|^WARNING: Shell' in.shell.out | sed 's/ (src.*//' >"$data/shell.ref"
# region prism in an orthogonal box, displace_atoms and velocity set with variables: the printed lines;
# fix deform volume, wiggle and variable: the printed lines and thermo rows; fix print's title, append,
# screen and variable steps: the printed lines and its files.
for name in region_prism displace_vars velocity_vars; do
  run in.$name
  grep '^>>' in.$name.out >"$data/$name.ref"
done
run in.deform_vars
grep -E '^>>|^ +[0-9]+ ' in.deform_vars.out | grep -v 'MPI\|neighbor' >"$data/deform_vars.ref"
# fix deform over runs with start/stop, and after write_restart/read_restart (the box the fix was defined with).
run in.deform_start_stop
grep -E '^>>|^ +[0-9]+ ' in.deform_start_stop.out | grep -v 'MPI\|neighbor\|atoms' >"$data/deform_start_stop.ref"
rm -f deform_start_stop.restart
# fix deform's tilt styles on a triclinic box: flips (yz's moving xz), the nearest-period walk, flip no.
run in.deform_tilts
grep -E '^>>|^ +[0-9]+ ' in.deform_tilts.out | grep -v 'MPI\|neighbor\|atoms' >"$data/deform_tilts.ref"
run in.fix_print
grep '^>>' in.fix_print.out >"$data/fix_print.ref"
for f in empty_title append default_title variable_steps unused; do cp "$f.txt" "$data/fix_print_$f.txt"; done
run in.thresh
for f in defects.dump and.dump last.dump none.dump defects.0.cfg defects.20.cfg; do cp "$f" "$data/thresh_$f"; done
run in.gzname
for f in custom atom xyz; do gzip -dc "gzname.$f.gz" >"$data/gzname_$f"; done
for s in 0 10; do gzip -dc "gzname.$s.cfg.gz" >"$data/gzname_$s.cfg"; done
gzip -dc gzname.local2.gz | head -9 >"$data/gzname_local_head"
run in.dumps
cp atom.dump plain.xyz atom_unscaled_image.dump element.xyz atom_every.dump atom_first.dump "$data/"
run in.cfg
cp wrapped.20.cfg unwrapped.20.cfg final.dump final.20.cfg "$data/"
run in.dump_tri
cp tri_wrapped.cfg tri_unwrapped.cfg tri.atom tri.xyz far.dump "$data/"
run in.multifile
cp frame.000.dump frame.005.dump frame.010.dump "$data/"
gzip -dc z.10.xyz.gz >"$data/z.10.xyz"
run in.make_data
gzip -n -9 -c data.alloy >"$data/data.alloy.gz"
cp "$data/data.alloy.gz" .
run in.gz
gzip -dc custom.dump.gz >"$data/custom.dump"
stdbuf -o0 lmp -in in.parse -log none -echo none >in.parse.out 2>&1 || true
sed -n '/^>>/,/^>> end/p' in.parse.out >"$data/parse.ref"
run in.functions
grep '^>>' in.functions.out >"$data/functions.ref"
cp -r "$data/bad" bad
(cd bad && for f in *.in; do
  r=$(stdbuf -o0 lmp -in "$f" -log none -echo none 2>&1 | grep -a -m1 ERROR | sed 's/ (src.*//;s/ERROR on proc 0: /ERROR: /' || true)
  echo "${f%.in}: ${r:-NO ERROR}"
done) >"$data/bad/lmp_errors.ref"
echo "regenerated $data"
