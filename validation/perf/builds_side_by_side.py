#!/usr/bin/python3
"""Two wafermd executables (or one with two sets of --set options) on the same inputs, rank count and machine,
in interleaved rounds (A, B, B, A, ...), so that a change of build or of SIMD target is measured without the
host's drift between separate benchmark runs. Prints each round and the median B / A of atom-steps/s.

Usage: builds_side_by_side.py --a EXE [--a-set KEY=VALUE ...] --b EXE [--b-set KEY=VALUE ...]
                              [--inputs in.eam,in.cu801792] [--ranks 2] [--rounds 3]
Example (a -march=native build against the portable build's avx512 and avx2 targets):
  builds_side_by_side.py --a native/wafermd --b build/wafermd --b-set simd=avx512
"""
import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import cpu_model, repo_relative, wafermd_exe  # noqa: E402
from cluster_vs_lammps import find_input, run_wafermd  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, help="the baseline executable")
    ap.add_argument("--b", required=True, help="the executable compared with it")
    ap.add_argument("--a-set", action="append", default=[], help="KEY=VALUE passed to A's runs")
    ap.add_argument("--b-set", action="append", default=[], help="KEY=VALUE passed to B's runs")
    ap.add_argument("--inputs", default="in.eam,in.cu801792")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    exes = {"A": (wafermd_exe(a.a), a.a_set), "B": (wafermd_exe(a.b), a.b_set)}
    cpu = cpu_model()
    print(f"CPU: {cpu}; {os.cpu_count()} cores; A = {repo_relative(exes['A'][0])} {' '.join(a.a_set)}; "
          f"B = {repo_relative(exes['B'][0])} {' '.join(a.b_set)}; {a.ranks} ranks", flush=True)
    work = tempfile.mkdtemp(prefix="builds_side_by_side_")
    for name in a.inputs.split(","):
        inp = find_input(name)
        ratios = []
        for rnd in range(1, a.rounds + 1):
            order = ("A", "B") if rnd % 2 else ("B", "A")
            got = {}
            for key in order:
                exe, sets = exes[key]
                got[key] = run_wafermd(exe, inp, a.ranks, work, sets)
                if "error" in got[key]:
                    sys.exit(f"error: {key} on {inp.name}: {got[key]['error']}")
            ratios.append(got["B"]["aps"] / got["A"]["aps"])
            print(f"round {rnd}  {inp.name:12s}  A {got['A']['aps'] / 1e6:7.3f} M [{got['A']['simd']}]  "
                  f"B {got['B']['aps'] / 1e6:7.3f} M [{got['B']['simd']}]  B/A {ratios[-1]:.3f}", flush=True)
        print(f"{inp.name}: median B/A {statistics.median(ratios):.3f} over {a.rounds} rounds [{cpu}]", flush=True)


if __name__ == "__main__":
    main()
