#!/usr/bin/python3
"""Sums up validation/perf/cluster_sets.md (one row per benchmark set of cluster_vs_lammps.py) for one code
version: the range of each input's median speed ratio at 2 ranks, how many sets held issue 5's targets
(>= 2.0x LAMMPS, efficiency 1->2 >= 90 %), and LAMMPS's own efficiency in the same sets.

Usage: /usr/bin/python3 validation/perf/cluster_sets_summary.py [--code "item 25" | --code all] [FILE]
docs/performance.md ("Where issue 5's figures stand") quotes its output.
"""
import argparse
import os
import re
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))


def numbers(cell):
    """'82 / 96 %' -> [82.0, 96.0]; '—' -> []."""
    return [float(x) for x in re.findall(r"\d+(?:\.\d+)?", cell)]


def read_sets(path, code):
    """Rows of the table whose code column is `code` ('all': every row): (when, eam speed, eam effs, cu speed,
    cu effs)."""
    sets = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) != 6 or not cells[1].startswith("item") or code not in ("all", cells[1]):
                continue
            speed = [numbers(cells[2]), numbers(cells[4])]
            sets.append((cells[0], speed[0][0] if speed[0] else None, numbers(cells[3]),
                         speed[1][0] if speed[1] else None, numbers(cells[5])))
    return sets


def describe(values, target, unit):
    """'2.65–4.34×, median 3.2×; at the target in 25 of 25'."""
    if not values:
        return "—"
    held = sum(v >= target for v in values)
    return (f"{min(values):g}–{max(values):g}{unit}, median {statistics.median(values):g}{unit}; "
            f"at the target in {held} of {len(values)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", nargs="?", default=os.path.join(HERE, "cluster_sets.md"))
    ap.add_argument("--code", default="item 25",
                    help="the code column's text to select (default: item 25), or 'all' for every set")
    a = ap.parse_args()
    sets = read_sets(a.file, a.code)
    if not sets:
        raise SystemExit(f"error: {a.file}: no row with code '{a.code}'")
    both = [s for s in sets if s[2] and s[4]]
    print(f"{len(sets)} sets with code '{a.code}', {sets[0][0]} to {sets[-1][0]}")
    print("| at 2 ranks, each set's median of 3 rounds | in.eam | in.cu801792 |")
    print("|---|---|---|")
    print(f"| speed, wafermd / LAMMPS (target ≥ 2.0×) | {describe([s[1] for s in sets if s[1]], 2.0, '×')} "
          f"| {describe([s[3] for s in sets if s[3]], 2.0, '×')} |")
    for who, k in (("wafermd", 0), ("LAMMPS", 1)):
        eam = [s[2][k] for s in sets if len(s[2]) > k]
        cu = [s[4][k] for s in sets if len(s[4]) > k]
        print(f"| {who}'s efficiency 1→2 (target ≥ 90 %) | {describe(eam, 90.0, ' %')} | {describe(cu, 90.0, ' %')} |")
    for who, k in (("wafermd", 0), ("LAMMPS", 1)):
        rows = [s for s in both if len(s[2]) > k and len(s[4]) > k]
        held = [s for s in rows if s[2][k] >= 90.0 and s[4][k] >= 90.0]
        print(f"{who}: efficiency ≥ 90 % on both inputs at once in {len(held)} of {len(rows)} sets")
    full = [s for s in sets if s[1] and s[3] and s[2] and s[4]]
    every = [s for s in full if s[1] >= 2.0 and s[3] >= 2.0 and s[2][0] >= 90.0 and s[4][0] >= 90.0]
    print(f"all four targets at once: {len(every)} of {len(full)} sets"
          + (" (" + ", ".join(s[0] for s in every) + ")" if every else ""))


if __name__ == "__main__":
    main()
