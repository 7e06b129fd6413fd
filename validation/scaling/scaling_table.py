#!/usr/bin/python3
"""The best point of each platform in a strong-scaling study (`wafermd scaling`), as CSV and Markdown: the
hardware count where it is reached, steps/s, atom-steps/s, atom-steps/s per device, parallel efficiency against
the series' smallest count, ns/day and wall days per simulated microsecond at the input's timestep; then the
study's provenance. docs/scaling.md, "The best-points table".

Usage: scaling_table.py --csv scaling.csv --out-csv T.csv --out-md T.md [--lammps lammps.csv] [--model model.json]
                        [--gpu PRESET] [--cpu PRESET] [--provenance provenance.json] [--atoms N]
"""
import argparse
import csv
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import study_series  # noqa: E402

COLUMNS = ["platform", "source", "hardware_count", "unit", "steps_per_second", "atom_steps_per_second",
           "atom_steps_per_second_per_device", "parallel_efficiency", "ns_per_day", "wall_days_per_microsecond",
           "note"]


def rows_for(series, points, atoms, dt_fs):
    out = []
    for s in series:
        i, count, sps = study_series.best(s)
        c0, s0 = s["counts"][0], s["steps_per_second"][0]
        eff = (sps / count) / (s0 / c0) if s["kind"] != "prediction" else math.nan
        note = ""
        if s["kind"] == "measured" and s.get("repeats"):
            note = f"median of {s['repeats']} runs ({s['lo'][i]:.4g}-{s['hi'][i]:.4g})"
        elif s["kind"] == "projection":
            note = (f"band {max(s['band_low']):.4g}-{max(s['band_high']):.4g} steps/s; "
                    f"efficiency against {c0} {s['unit']}")
            if s.get("cores_per_node"):
                note += f"; {count / s['cores_per_node']:.4g} nodes of {s['cores_per_node']} cores"
        elif s["kind"] == "prediction":
            if s.get("band_low"):
                note = f"range {s['band_low'][0]:.4g}-{s['band_high'][0]:.4g}; "
            note += s.get("note", "")
        ns_day, days_us = study_series.time_to_solution(sps, dt_fs)
        out.append({"platform": s["platform"], "source": f"{s['kind']}: {s['label']}", "hardware_count": count,
                    "unit": s["unit"], "steps_per_second": sps, "atom_steps_per_second": sps * atoms,
                    "atom_steps_per_second_per_device": sps * atoms / count, "parallel_efficiency": eff,
                    "ns_per_day": ns_day, "wall_days_per_microsecond": days_us, "note": note})
    for p in points:
        sps = float(p["steps_per_second"])
        count = p.get("count")
        ns_day, days_us = study_series.time_to_solution(sps, dt_fs)
        note = ("a lower bound (the source says over, or at most for the time)" if p.get("bound") == "lower"
                else "") + (
            f"; device count not given (tried {p['count_range'][0]}-{p['count_range'][1]} {p['unit']})"
            if count is None and p.get("count_range") else "")
        out.append({"platform": p["platform"],
                    "source": f"{'inferred from published' if p.get('inferred') else 'published'}: "
                              f"{p['label'].removeprefix('published ')}",
                    "hardware_count": count if count is not None else "", "unit": p["unit"],
                    "steps_per_second": sps, "atom_steps_per_second": sps * atoms,
                    "atom_steps_per_second_per_device": sps * atoms / count if count else math.nan,
                    "parallel_efficiency": math.nan, "ns_per_day": ns_day, "wall_days_per_microsecond": days_us,
                    "note": note.strip("; ")})
    return out


def fmt(v, digits=4):
    if v == "" or v is None:
        return "–"
    if isinstance(v, float):
        if math.isnan(v):
            return "–"
        return f"{v:,.{digits}g}" if abs(v) < 1e6 else f"{v:.{digits - 1}e}"
    return f"{v:,}" if isinstance(v, int) else str(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--csv", required=True)
    ap.add_argument("--out-csv", required=True)
    ap.add_argument("--out-md", required=True)
    ap.add_argument("--lammps")
    ap.add_argument("--model")
    ap.add_argument("--gpu")
    ap.add_argument("--cpu")
    ap.add_argument("--provenance")
    ap.add_argument("--atoms", type=int)
    a = ap.parse_args()

    prov, series, system, points, atoms = study_series.study(a.csv, a.lammps, a.model, a.provenance, a.gpu, a.cpu,
                                                             a.atoms)
    dt_fs = study_series.timestep_fs(prov)
    rows = rows_for(series, points, atoms, dt_fs)
    with open(a.out_csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    title = os.path.basename(prov.get("input", a.csv))
    md = [f"## Best point per platform: {title}, {atoms:,} atoms" + (f" ({system})" if system else ""), "",
          "| platform | source | hardware count | steps/s | atom-steps/s | atom-steps/s per device | efficiency "
          "| ns/day | wall days per µs | note |",
          "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        count = f"{fmt(r['hardware_count'])} {r['unit']}" if r["hardware_count"] != "" else f"– ({r['unit']})"
        eff = r["parallel_efficiency"]
        md.append(f"| {r['platform']} | {r['source']} | {count} | {fmt(r['steps_per_second'])} | "
                  f"{fmt(r['atom_steps_per_second'], 3)} | {fmt(r['atom_steps_per_second_per_device'], 3)} | "
                  f"{'–' if math.isnan(eff) else f'{eff * 100:.0f} %'} | {fmt(r['ns_per_day'], 3)} | "
                  f"{fmt(r['wall_days_per_microsecond'], 3)} | {r['note']} |")
    md += ["", "Provenance:", ""] + study_series.provenance_lines(prov, atoms, system) + [""]
    with open(a.out_md, "w") as f:
        f.write("\n".join(md))
    print(f"wrote {a.out_csv} and {a.out_md}")


if __name__ == "__main__":
    main()
