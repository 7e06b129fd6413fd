#!/usr/bin/python3
"""The series of a strong-scaling study, per platform, for plot_scaling.py and scaling_table.py: the runs
measured on this machine (wafermd, LAMMPS), the CPU-cluster and GPU-cluster projections for the study's problem,
the mesh backend's wafer prediction, and the published benchmark's points when the input is that benchmark's
system (published_points.yaml). docs/scaling.md.

A series is a dict: platform ("CPU cluster", "GPU cluster", "wafer"), kind ("measured", "projection",
"prediction", "published"), label, unit of its hardware count ("ranks", "GCDs", "wafer"), counts and
steps_per_second (lists), and where it has them band_low/band_high (lists, a projection's band; a prediction's
range) or lo/hi (the slowest and fastest of repeated runs).
"""
import csv
import json
import math
import os
import sys

import numpy as np
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gpu_projection  # noqa: E402

PUBLISHED = os.path.join(HERE, "published_points.yaml")


def load_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"error: {path} has no runs")
    return rows


def load_json(path):
    if not path:
        return None
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"note: {path} skipped ({e})", file=sys.stderr)
        return None


def geometry(provenance):
    """The problem's cut-off + skin, number density and neighbour pairs per atom (None where unknown)."""
    st = (provenance or {}).get("setup") or {}
    cut = st.get("cutoff_angstrom")
    skin = st.get("skin_angstrom")
    return {
        "ghost_cutoff": cut + skin if cut and skin is not None else None,
        "number_density": st.get("number_density_per_cubic_angstrom") or None,
        "pairs_per_atom": (provenance or {}).get("neighbor_pairs_per_atom") or None,
    }


def timestep_fs(provenance):
    st = (provenance or {}).get("setup") or {}
    return 1000.0 * st["timestep_ps"] if st.get("timestep_ps") else None


def measured(path, label, kind="measured"):
    rows = load_csv(path)
    s = {"platform": "CPU cluster", "kind": kind, "label": label, "unit": "ranks",
         "counts": [int(r["ranks"]) for r in rows],
         "steps_per_second": [float(r["steps_per_second"]) for r in rows],
         "atoms": int(rows[0]["atoms"]), "rows": rows}
    if max(int(r.get("repeats") or 1) for r in rows) > 1:
        s["lo"] = [float(r["steps_per_second_min"]) for r in rows]
        s["hi"] = [float(r["steps_per_second_max"]) for r in rows]
        s["repeats"] = max(int(r.get("repeats") or 1) for r in rows)
    return s


def gpu_series(preset, atoms, geo, presets=gpu_projection.PRESETS, measurements=gpu_projection.MEASUREMENTS):
    """The GPU-cluster projection for the study's atoms, with its ghost shell taken from the study's cut-off,
    skin and density where known (the EAM/LJ cost ratio stays the fit's)."""
    doc = gpu_projection.load_presets(presets)
    if preset not in doc["presets"]:
        sys.exit(f"error: unknown GPU preset '{preset}' (known: {', '.join(doc['presets'])})")
    train = gpu_projection.load_training(measurements)
    params = {name: gpu_projection.fit(train, doc, name) for name in doc["presets"]}
    heldout = [x for x in gpu_projection.compare(gpu_projection.load_heldout(measurements), doc, params)
               if x["preset"] == preset]
    if geo.get("ghost_cutoff") and geo.get("number_density"):
        doc["potentials"]["eam"] = dict(doc["potentials"]["eam"], ghost_cutoff=geo["ghost_cutoff"],
                                        number_density=geo["number_density"])
    res = gpu_projection.project(params[preset], doc, atoms)
    s = {"platform": "GPU cluster", "kind": "projection", "unit": "GCDs" if preset == "frontier" else "GPUs",
         "label": f"GPU-cluster projection, {res['name']}", "counts": res["devices"],
         "steps_per_second": res["steps_per_second"], "band_low": res["band_low_curve"],
         "band_high": res["band_high_curve"], "best_count": res["best_devices"], "result": res,
         "heldout": heldout, "preset": preset}
    return s


def cpu_series(preset, atoms, geo, system=None):
    """The CPU-cluster projection for the study's problem. One of the published benchmark's slabs takes its named
    geometry (decomposed in x and y only, as its `processors * * 1`) with the study's measured pairs per atom;
    any other input a 3-d decomposition of its own cut-off + skin, density and pairs per atom."""
    import cpu_projection  # noqa: E402  (only a study with a CPU projection needs it)

    doc = cpu_projection.load_presets()
    if preset not in doc["presets"]:
        sys.exit(f"error: unknown CPU preset '{preset}' (known: {', '.join(doc['presets'])})")
    named = f"{system.lower()}-sc24" if system and f"{system.lower()}-sc24" in doc["geometries"] else None
    if named:
        res = cpu_projection.project(preset, atoms, pairs_per_atom=geo.get("pairs_per_atom"), geometry_name=named)
    else:
        res = cpu_projection.project(preset, atoms, cutoff=geo.get("ghost_cutoff"), density=geo.get("number_density"),
                                     pairs_per_atom=geo.get("pairs_per_atom"))
    heldout = [dict(x, use=x.get("machine", "row")) for x in cpu_projection.heldout_check()]
    return {"platform": "CPU cluster", "kind": "projection", "unit": "ranks",
            "label": f"CPU-cluster projection, {res['name']}", "counts": res["ranks"],
            "steps_per_second": res["steps_per_second"], "band_low": res["band_low_curve"],
            "band_high": res["band_high_curve"], "best_count": res["best_ranks"], "result": res,
            "heldout": heldout, "preset": preset, "cores_per_node": res["params"].get("cores_per_node")}


def wafer_series(model):
    m = load_json(model)
    if not m or m.get("predicted_steps_per_second") in (None, 0):
        return None
    pred = float(m["predicted_steps_per_second"])
    s = {"platform": "wafer", "kind": "prediction", "unit": "wafer", "counts": [1], "steps_per_second": [pred],
         "label": f"mesh backend's prediction, {m.get('wafer', 'wafer')}"}
    if m.get("predicted_steps_per_second_low") and m.get("predicted_steps_per_second_high"):
        # The preset's ranged parameters at their slow and fast ends (docs/fabric.md).
        s["band_low"] = [float(m["predicted_steps_per_second_low"])]
        s["band_high"] = [float(m["predicted_steps_per_second_high"])]
    s["note"] = f"{m.get('step_variant', '')}, {m.get('table_layout', '')}, b = {m.get('window_b')}"
    return s


def published(atoms, provenance, path=PUBLISHED):
    """The benchmark's published points for this problem: only when the atom count and the potential file match
    one of its systems; [] otherwise."""
    with open(path) as f:
        doc = yaml.safe_load(f)
    files = [os.path.basename(p) for p in ((provenance or {}).get("setup") or {}).get("potential_files", [])]
    system = next((name for name, sy in doc["systems"].items()
                   if sy["atoms"] == atoms and sy["potential"] in files), None)
    if system is None:
        return None, []
    pts = []
    for p in doc["points"]:
        if system not in p["systems"]:
            continue
        p = dict(p, kind="published", platform={"cpu": "CPU cluster", "gpu": "GPU cluster",
                                                 "wafer": "wafer"}[p["platform"]],
                 cite=doc["sources"][p["source"]]["cite"])
        pts.append(p)
    return system, pts


def study(csv_path, lammps=None, model=None, provenance=None, gpu=None, cpu=None, atoms=None,
          gpu_presets=gpu_projection.PRESETS, gpu_measurements=gpu_projection.MEASUREMENTS):
    """Everything the plot and the table show: (provenance dict, series, published system, its points, atoms).
    The series come in drawing order: wafermd measured, LAMMPS measured, CPU projection, GPU projection, wafer."""
    prov = load_json(provenance) or {}
    ours = measured(csv_path, "wafermd cluster backend, this machine")
    ours["who"] = "wafermd"
    atoms = atoms or ours["atoms"]
    geo = geometry(prov) if atoms == ours["atoms"] else {}
    system, points = published(atoms, prov)
    series = [ours]
    if lammps:
        series.append(dict(measured(lammps, "LAMMPS (lmp) on this machine, same script, run just after each "
                                            "wafermd run"), who="lammps"))
    if cpu:
        series.append(cpu_series(cpu, atoms, geo, system))
    if gpu:
        series.append(gpu_series(gpu, atoms, geo, gpu_presets, gpu_measurements))
    w = wafer_series(model)
    if w:
        series.append(w)
    return prov, series, system, points, atoms


def best(s):
    """(index, count, steps/s) of a series' best point: a measured series' fastest point; a projection's maximum,
    reached (within 1 %) from the smallest count given here — past it the plateau buys nothing (projection.json's
    best_steps_per_second and best_devices)."""
    v = np.asarray(s["steps_per_second"], dtype=float)
    i = int(np.argmax(v >= 0.99 * v.max())) if s["kind"] == "projection" else int(np.argmax(v))
    return i, s["counts"][i], float(v.max())


def time_to_solution(steps_per_second, dt_fs):
    """ns of simulated time per wall day, and wall days per simulated microsecond, at the input's dt."""
    if not dt_fs or steps_per_second <= 0:
        return math.nan, math.nan
    ns_per_day = steps_per_second * dt_fs * 86400.0 / 1e6
    days_per_us = (1e9 / dt_fs) / steps_per_second / 86400.0
    return ns_per_day, days_per_us


def provenance_lines(prov, atoms, system):
    st = prov.get("setup") or {}
    mach = prov.get("machine") or {}
    lines = [f"- command: `{prov.get('command', '?')}` ({prov.get('date_utc', '?')})",
             f"- input: {prov.get('input', '?')}" + (f" (the published benchmark's {system} system)" if system
                                                    else ""),
             f"- atoms: {atoms:,}; steps per run: {prov.get('steps_per_run', '?')}; runs per rank count: "
             f"{prov.get('repeats', 1)}"]
    if st:
        lines.append(f"- potential: pair_style {st.get('pair_style')} "
                     f"{', '.join(st.get('potential_files', []))}; cut-off {st.get('cutoff_angstrom', 0):.4g} Å, "
                     f"skin {st.get('skin_angstrom', 0):.3g} Å; {prov.get('neighbor_pairs_per_atom', 0):.3g} "
                     "neighbour pairs per atom")
        lines.append(f"- timestep {1000 * st.get('timestep_ps', 0):.4g} fs; boundary {st.get('boundary')}; box "
                     f"{' x '.join(f'{x:.5g}' for x in st.get('box_angstrom', []))} Å")
    if mach:
        lines.append(f"- measured on: {mach.get('cpu')}, {mach.get('logical_cpus')} logical CPUs, SIMD target "
                     f"{mach.get('simd_target')}, {mach.get('precision')}; wafermd "
                     f"{prov.get('wafermd_version', '?')}" +
                     (f", LAMMPS {prov['lammps_version']}" if prov.get("lammps_version") else ""))
    proj = prov.get("projections") or {}
    if proj:
        lines.append(f"- projections: CPU cluster `{proj.get('cpu')}`, GPU cluster `{proj.get('gpu')}` "
                     "(docs/scaling.md)")
    return lines
