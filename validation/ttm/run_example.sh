#!/bin/sh
# Runs Debian's examples/ttm/in.ttm and in.ttm.grid unchanged (16,000 Fe atoms, 1,000 steps, ~20 s each on
# one core) and compares the thermo rows with LAMMPS's own one-rank log of the example
# (lammps_log_ttm_1rank.txt). Usage: validation/ttm/run_example.sh [WAFERMD] [RANKS]
set -e
here=$(cd "$(dirname "$0")" && pwd)
exe=${1:-$here/../../build/wafermd}
ranks=${2:-1}
work=$(mktemp -d)
cp /usr/share/lammps/examples/ttm/* "$work"
cd "$work"
for input in in.ttm in.ttm.grid; do
  if [ "$ranks" = 1 ]; then "$exe" run $input --output o_$input >/dev/null
  else mpirun --allow-run-as-root --oversubscribe -np "$ranks" "$exe" run $input --output o_$input >/dev/null; fi
  /usr/bin/python3 - "$here/lammps_log_ttm_1rank.txt" o_$input/log.txt "$input" <<'PY'
import sys
want = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip() and not l.startswith('#')]
got, on = [], False
for l in open(sys.argv[2]):
    w = l.split()
    if w[:1] == ['Step']: on = True; continue
    if on:
        try: got.append(list(map(float, w)))
        except ValueError: on = False
worst = [0.0] * 5
for g, r in zip(got, want):
    for k in range(1, 5):
        worst[k] = max(worst[k], abs(g[k] - r[k]) / max(1.0, abs(r[k])))
ok = len(got) == len(want) and max(worst) < 1e-9
print("%s: %d rows; largest relative difference from lmp's log: temp %.1e etotal %.1e f[1] %.1e f[2] %.1e %s"
      % (sys.argv[3], len(got), worst[1], worst[2], worst[3], worst[4], "OK" if ok else "FAIL"))
sys.exit(0 if ok else 1)
PY
done
