#!/usr/bin/python3
"""What the wafer would do for a cascade, phase by phase, beside the measured cluster runs and the GPU-cluster
projection of the same run (docs/cascades.md, "The wafer's answer for a cascade").

It runs validation/perf/inputs/in.cascade_w (a 5 keV W cascade: EAM + ZBL, dt/reset, a Langevin border, fix halt
on simulated time) in the geometry a one-atom-per-PE wafer holds: `cells` bcc cells across x and y, `cz` along z
(the benchmark's 60-cell cube needs more memory per PE than the PE has: `wafermd model` of the cube is reported
too). Three runs of the same script:
  - the mesh emulator (`--set backend=mesh`, fp32 PEs, each cell column on a patch of PEs: mesh.mapping sites)
    on the chosen wafer preset, the border's Langevin noise in the wafer's form (`noise hashed`); report.json's
    fabric.timeline prices every interval of `--every` steps as its own step (the busiest PE's counts, rebuilds,
    remaps and window radius of that interval) with one PE program for the whole run;
  - wafermd's cluster backend and (with --lammps) Debian's lmp on this machine at `--ranks` ranks: wall time
    against simulated time from the thermo `cpu` column;
  - the GPU-cluster projection (validation/scaling/gpu_projection.py) at its best device count for this atom
    count: a constant time per step (it is fitted to benchmark steps; it does not price a cascade's extra
    rebuilds, so it flatters the GPU here).
Phases of simulated time after the kick (--kick, the thermalisation's end; --phases): ballistic, thermal spike,
relaxation. Writes phases.md/phases.csv, summary.json and cascade_wafer.png (steps/s and wall time against
simulated time, per backend) under --out.

Usage: wafer_cascade.py [--cells 60] [--cz 12] [--time 1.0] [--ranks 2] [--wafer cs2_sc24] [--gpu frontier]
                        [--every 50] [--lammps] [--out DIR] [--figure PNG] [--wafermd build/wafermd] [--replot]
"""
import argparse
import csv
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
INPUT = ROOT / "validation" / "perf" / "inputs" / "in.cascade_w"
sys.path.insert(0, str(ROOT / "validation" / "scaling"))
sys.path.insert(0, str(ROOT / "validation" / "perf"))
import study_series  # noqa: E402
from bench_common import cpu_model, git_commit, lammps_version, mpirun, simd_target  # noqa: E402


def wall_curve(text):
    """(step, simulated ps, wall seconds since the first run began) from a LAMMPS-style log: the rows of thermo
    tables with Time and CPU columns (LAMMPS's `cpu` restarts at every run), and each run's end from its `Loop
    time` line (its last step extrapolated with the last Dt, or the halt value where `fix halt` on the time
    ended it). Runs follow each other: a run's wall time continues from the previous runs' loop times."""
    pts, offset, header, run_rows, halt = [], 0.0, None, [], None
    for line in text.splitlines():
        f = line.split()
        if f and f[0] == "Step":
            header, run_rows = f, []
            continue
        m = re.match(r"Fix halt condition .* met on step (\d+) with value (\S+)", line)
        if m:
            halt = float(m.group(2))
            continue
        m = re.match(r"Loop time of (\S+) on \d+ procs for (\d+) steps", line)
        if m:
            loop = float(m.group(1))
            if run_rows and header and "CPU" in header and "Time" in header:
                s0, t, c = header.index("Step"), header.index("Time"), header.index("CPU")
                first, last = run_rows[0], run_rows[-1]
                step_end = int(first[s0]) + int(m.group(2))
                if halt is not None:
                    t_end = halt
                elif "Dt" in header:
                    t_end = last[t] + (step_end - last[s0]) * last[header.index("Dt")]
                else:
                    t_end = last[t]
                pts += [(int(r[s0]), r[t], offset + r[c]) for r in run_rows]
                if step_end > last[s0]:
                    pts.append((step_end, t_end, offset + loop))
            offset += loop
            header, run_rows, halt = None, [], None
            continue
        if header and len(f) == len(header):
            try:
                run_rows.append([float(x) for x in f])
            except ValueError:
                header = None
        elif header and f:
            header = None
    return pts


def run(cmd, cwd, what):
    start = time.monotonic()
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"error: {what} failed (exit {p.returncode}):\n{(p.stdout + p.stderr)[-3000:]}")
    return p, time.monotonic() - start


def phase_edges(kick, phases, end):
    """(name, start, end) of each phase that the run reaches, clipped to the run's end."""
    edges = [0.0, kick] + [kick + x for x in phases] + [float("inf")]
    names = ["thermalisation", "ballistic", "thermal spike", "relaxation"]
    return [(n, t0, min(t1, end)) for n, t0, t1 in zip(names, edges[:-1], edges[1:]) if t0 < end]


def at_time(curve, t):
    """(step, wall) interpolated at simulated time t on a (step, time, wall) curve."""
    if not curve:
        return float("nan"), float("nan")
    if t <= curve[0][1]:
        return curve[0][0], curve[0][2]
    for (s0, t0, w0), (s1, t1, w1) in zip(curve, curve[1:]):
        if t0 <= t <= t1 and t1 > t0:
            f = (t - t0) / (t1 - t0)
            return s0 + f * (s1 - s0), w0 + f * (w1 - w0)
    return curve[-1][0], curve[-1][2]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wafermd", default=str(ROOT / "build" / "wafermd"))
    ap.add_argument("--cells", type=int, default=60, help="bcc cells along x and y")
    ap.add_argument("--cz", type=int, default=12, help="bcc cells along z (the wafer's slab)")
    ap.add_argument("--time", type=float, default=1.0, help="ps of cascade after the kick")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--wafer", default="cs2_sc24")
    ap.add_argument("--gpu", default="frontier")
    ap.add_argument("--every", type=int, default=50, help="steps per priced interval of the wafer timeline")
    ap.add_argument("--kick", type=float, default=0.4, help="simulated ps at the kick (the thermalisation's end)")
    ap.add_argument("--phases", default="0.1,0.5", help="ps after the kick where the ballistic phase and the "
                    "thermal spike end")
    ap.add_argument("--lammps", action="store_true", help="run Debian's lmp on the same script too")
    ap.add_argument("--cube-cells", type=int, default=60, help="the benchmark cube `wafermd model` prices")
    ap.add_argument("--out", default="out/wafer_cascade")
    ap.add_argument("--figure", default="", help="also copy the plot here")
    ap.add_argument("--replot", action="store_true", help="redo the tables and the plot from --out's runs")
    a = ap.parse_args()
    exe = str(Path(a.wafermd).resolve())
    out = Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    phases = [float(x) for x in a.phases.split(",")]
    var = ["cells", str(a.cells), "cz", str(a.cz), "time", str(a.time)]
    wvar = [x for i in range(0, len(var), 2) for x in ("--var", var[i], var[i + 1])]
    cpu = cpu_model()

    # 1. The benchmark cube on the wafer: does one atom per PE fit?
    walls = json.loads((out / "walls.json").read_text()) if a.replot else {}
    if not a.replot:
        p, _ = run([exe, "model", str(INPUT), "--preset", a.wafer, "--json", "--var", "cells", str(a.cube_cells)],
                   INPUT.parent, "wafermd model (cube)")
        (out / "model_cube.json").write_text(p.stdout)
        p, _ = run([exe, "model", str(INPUT), "--preset", a.wafer, "--json"] + wvar, INPUT.parent,
                   "wafermd model (slab)")
        (out / "model_slab.json").write_text(p.stdout)
    cube = json.loads((out / "model_cube.json").read_text())
    slab_model = json.loads((out / "model_slab.json").read_text())
    print(f"model: cube {cube['atoms']:,} atoms feasible {cube['feasible']} ({cube['cycles_per_step']['bytes_per_pe']['total']} "
          f"B/PE); slab {slab_model['atoms']:,} atoms feasible {slab_model['feasible']}", flush=True)

    # 2. The mesh emulator's timeline, with the border's noise in the wafer's form (`noise hashed`: each PE hashes
    # its own atom's draws; LAMMPS's sequential stream would cost every PE ~30 cycles per group atom and step,
    # docs/fabric.md) and the potential named by its full path (the copy lives under --out).
    mesh_dir = out / "mesh"
    text = INPUT.read_text()
    text = text.replace("../../../inputs/potentials/", str(ROOT / "inputs" / "potentials") + "/")
    lines = [ln + " noise hashed" if ln.split()[:1] == ["fix"] and "langevin" in ln.split() else ln
             for ln in text.splitlines()]
    if lines == text.splitlines():
        sys.exit(f"error: no fix langevin line in {INPUT}")
    mesh_input = out / "in.cascade_w.mesh"
    mesh_input.write_text("\n".join(lines) + "\n")
    if not a.replot:
        shutil.rmtree(mesh_dir, ignore_errors=True)
        _, walls["mesh"] = run(mpirun(a.ranks) + [exe, "run", str(mesh_input), "--output", str(mesh_dir), "--set",
                                                  "backend=mesh", "--set", f"mesh.wafer={a.wafer}", "--set",
                                                  "mesh.mapping=sites", "--set", f"mesh.timeline_every={a.every}"]
                               + wvar, INPUT.parent, "the mesh run")
    mesh_wall = walls["mesh"]
    mesh = json.loads((mesh_dir / "report.json").read_text())
    tl = mesh["fabric"]["timeline"]
    print(f"mesh: {tl['steps']} steps, predicted {tl['predicted_seconds']:.4g} s on {a.wafer} "
          f"({tl['program']['variant']}, {tl['program']['table_layout']}, fits {tl['program']['fits']}); "
          f"emulator {mesh_wall:.0f} s here", flush=True)

    # 3. The cluster backend (and lmp) on this machine.
    cl_dir = out / "cluster"
    if not a.replot:
        shutil.rmtree(cl_dir, ignore_errors=True)
        _, walls["cluster"] = run(mpirun(a.ranks) + [exe, "run", str(INPUT), "--output", str(cl_dir)] + wvar,
                                  INPUT.parent, "the cluster run")
    cl_wall = walls["cluster"]
    cl_report = json.loads((cl_dir / "report.json").read_text())
    cl_curve = wall_curve((cl_dir / "log.txt").read_text())
    lmp_curve = []
    if a.lammps and not a.replot:
        p, walls["lammps"] = run(mpirun(a.ranks) + ["lmp", "-in", str(INPUT), "-log", "none"] +
                                 [x for i in range(0, len(var), 2) for x in ("-var", var[i], var[i + 1])],
                                 INPUT.parent, "lmp")
        (out / "lammps.log").write_text(p.stdout)
    if (a.lammps or a.replot) and (out / "lammps.log").is_file():
        lmp_curve = wall_curve((out / "lammps.log").read_text())
    (out / "walls.json").write_text(json.dumps(walls) + "\n")

    # 4. The GPU-cluster projection for this atom count and geometry.
    atoms = int(cl_report["atoms"])
    gpu = study_series.gpu_series(a.gpu, atoms, study_series.geometry({"setup": cl_report.get("setup")}))
    res = gpu["result"]
    gpu_sps, gpu_lo, gpu_hi = res["best_steps_per_second"], res["band_low"], res["band_high"]

    # 5. Phases.
    iv = tl["intervals"]
    end = max(r["time_ps_end"] for r in iv)
    rows = []
    for name, t0, t1 in phase_edges(a.kick, phases, end):
        last = t1 >= end
        sel = [r for r in iv if t0 <= 0.5 * (r["time_ps_start"] + r["time_ps_end"]) and
               (last or 0.5 * (r["time_ps_start"] + r["time_ps_end"]) < t1)]
        steps = sum(r["steps"] for r in sel)
        secs = sum(r["seconds"] for r in sel)
        c0, c1 = at_time(cl_curve, t0), at_time(cl_curve, t1 if not last else float("inf"))
        l0, l1 = at_time(lmp_curve, t0), at_time(lmp_curve, t1 if not last else float("inf"))
        row = {"phase": name, "t_start_ps": t0, "t_end_ps": t1, "wafer_steps": steps,
               "wafer_seconds": secs, "wafer_steps_per_second": steps / secs if secs > 0 else float("nan"),
               "max_b": max((r["b"] for r in sel), default=0), "remaps": sum(r["remaps"] for r in sel),
               "rebuilds": sum(r["rebuilds"] for r in sel),
               "busiest_pe_candidates": max((r["candidates"] for r in sel), default=0),
               "busiest_pe_zbl_pairs": max((r["zbl_pairs"] for r in sel), default=0),
               "bytes_per_pe_max": max((r["bytes_per_pe"] for r in sel), default=0),
               "cluster_steps": c1[0] - c0[0], "cluster_seconds": c1[1] - c0[1],
               "lammps_seconds": l1[1] - l0[1] if lmp_curve else float("nan"),
               "gpu_seconds": (c1[0] - c0[0]) / gpu_sps}
        rows.append(row)
    tot = {k: sum(r[k] for r in rows) for k in ("wafer_steps", "wafer_seconds", "cluster_steps", "cluster_seconds",
                                                  "lammps_seconds", "gpu_seconds")}
    with open(out / "phases.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    prov = (f"{atoms:,} W atoms ({a.cells}x{a.cells}x{a.cz} bcc cells), 5 keV PKA, {a.time} ps after the kick; "
            f"wafer {a.wafer} ({tl['clock_hz'] / 1e6:.0f} MHz), program {tl['program']['variant']} / "
            f"{tl['program']['table_layout']} ({tl['program']['bytes_per_pe_max']:.0f} of "
            f"{tl['program']['sram_bytes_per_pe']} B per PE{'' if tl['program']['fits'] else ', does not fit'}); "
            f"cluster: wafermd at {a.ranks} ranks on {cpu}, {simd_target(cl_report)} target"
            + (f", LAMMPS {lammps_version()} on the same" if a.lammps else "")
            + f"; GPU projection {res['name']} at {res['best_devices']} "
            f"device{'s' if res['best_devices'] != 1 else ''}; commit {git_commit()}")
    md = ["| phase | simulated ps | wafer steps | wafer predicted s | wafer steps/s | max b | remaps | rebuilds "
          "| bytes per PE (max) | cluster measured s | lmp measured s | GPU projected s |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        md.append(f"| {r['phase']} | {r['t_start_ps']:.2f}–{r['t_end_ps']:.2f} | {r['wafer_steps']:,} "
                  f"| {r['wafer_seconds']:.4g} | {r['wafer_steps_per_second']:.4g} | {r['max_b']} | {r['remaps']} "
                  f"| {r['rebuilds']} | {r['bytes_per_pe_max']:,} | {r['cluster_seconds']:.4g} | {r['lammps_seconds']:.4g} "
                  f"| {r['gpu_seconds']:.4g} |")
    md.append(f"| **whole run** | 0–{end:.2f} | {tot['wafer_steps']:,} | **{tot['wafer_seconds']:.4g}** | "
              f"{tot['wafer_steps'] / tot['wafer_seconds']:.4g} | | | | | **{tot['cluster_seconds']:.4g}** "
              f"| {tot['lammps_seconds']:.4g} | **{tot['gpu_seconds']:.4g}** (band {tot['cluster_steps'] / gpu_hi:.3g}–"
              f"{tot['cluster_steps'] / gpu_lo:.3g}) |")
    cube_b = cube["cycles_per_step"]["bytes_per_pe"]["total"]
    md += ["", prov, "",
           f"The benchmark cube ({cube['atoms']:,} atoms, {a.cube_cells}³ cells) on {a.wafer}: "
           + ("fits" if cube["feasible"] else f"no program fits the PE's {cube['sram_bytes_per_pe']:,} B "
              f"(b = {cube['window_b']}, {cube_b:,} B per PE in LAMMPS's table layout)") + "."]
    (out / "phases.md").write_text("\n".join(md) + "\n")
    summary = {"provenance": prov, "phases": rows, "totals": tot, "gpu": {"steps_per_second": gpu_sps,
               "band": [gpu_lo, gpu_hi], "devices": res["best_devices"], "name": res["name"]},
               "wafer_program": tl["program"], "cube_model": {"atoms": cube["atoms"], "feasible": cube["feasible"],
               "window_b": cube["window_b"], "bytes_per_pe": cube_b}, "slab_model_steps_per_second":
               slab_model.get("predicted_steps_per_second"), "emulator_wall_seconds": mesh_wall,
               "cluster_wall_seconds": cl_wall}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    print("\n".join(md))

    # 6. The plot: steps/s and wall time against simulated time, per backend.
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(12, 8), sharex=True)
    ax1.step([iv[0]["time_ps_start"]] + [r["time_ps_end"] for r in iv],
             [iv[0]["steps_per_second"]] + [r["steps_per_second"] for r in iv], where="pre", color="C3",
             label=f"wafer ({a.wafer}), predicted per {tl['every']}-step interval")

    def measured_rate(curve):
        xs, ys = [], []
        for (s0, t0, w0), (s1, t1, w1) in zip(curve, curve[1:]):
            if w1 > w0 and s1 > s0:
                if not xs:
                    xs.append(t0), ys.append((s1 - s0) / (w1 - w0))
                xs.append(t1), ys.append((s1 - s0) / (w1 - w0))
        return xs, ys
    x, y = measured_rate(cl_curve)
    ax1.step(x, y, where="pre", color="C0", label=f"wafermd cluster, {a.ranks} ranks here (measured)")
    if lmp_curve:
        x, y = measured_rate(lmp_curve)
        ax1.step(x, y, where="pre", color="C2", label=f"LAMMPS, {a.ranks} ranks here (measured)")
    ax1.axhline(gpu_sps, color="C1", label=f"GPU cluster, {res['name']} projection ({res['best_devices']} "
                f"device{'s' if res['best_devices'] != 1 else ''})")
    over = [r for r in iv if not r["fits"]]
    for k, r in enumerate(over):  # where the wafer's program needs more than the PE's memory
        ax1.axvspan(r["time_ps_start"], r["time_ps_end"], color="C3", alpha=0.07, lw=0,
                    label=f"wafer program over the PE's {tl['program']['sram_bytes_per_pe']:,} B" if k == 0 else None)
    ax1.axhspan(gpu_lo, gpu_hi, color="C1", alpha=0.12)
    ax1.set_yscale("log")
    ax1.set_ylabel("timesteps / s")
    cum = 0.0
    xs, ys = [], []
    for r in iv:
        cum += r["seconds"]
        xs.append(r["time_ps_end"]), ys.append(cum)
    ax2.plot(xs, ys, color="C3", label="wafer, predicted")
    def positive(curve, wall):
        kept = [(p[1], wall(p)) for p in curve[1:] if wall(p) > 0]  # from the first thermo interval on
        return [x for x, _ in kept], [y for _, y in kept]
    ax2.plot(*positive(cl_curve, lambda p: p[2]), color="C0", label="wafermd cluster, measured")
    if lmp_curve:
        ax2.plot(*positive(lmp_curve, lambda p: p[2]), color="C2", label="LAMMPS, measured")
    ax2.plot(*positive(cl_curve, lambda p: (p[0] - cl_curve[0][0]) / gpu_sps), color="C1",
             label="GPU cluster, projected (cluster run's steps)")
    ax2.set_yscale("log")
    ax2.set_ylabel("wall time since the start, s")
    ax2.set_xlabel("simulated time, ps (kick at %.2f ps)" % a.kick)
    for ax in (ax1, ax2):
        for name, t0, t1 in phase_edges(a.kick, phases, end)[1:]:
            ax.axvline(t0, color="grey", lw=0.6, ls=":")
        ax.grid(True, which="both", alpha=0.25)
    for name, t0, t1 in phase_edges(a.kick, phases, end):
        ax1.text(0.5 * (t0 + min(t1, end)), ax1.get_ylim()[1], name, ha="center", va="bottom", fontsize=8)
    ax1.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax2.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.suptitle("A 5 keV W cascade: steps/s and wall time per backend", y=0.995)
    fig.text(0.01, 0.005, prov, fontsize=5.5, wrap=True)
    fig.tight_layout(rect=(0, 0.04, 1, 0.98))
    png = out / "cascade_wafer.png"
    fig.savefig(png, dpi=130)
    if a.figure:
        shutil.copy(png, a.figure)
    print(f"wrote {out / 'phases.md'}, {png}")


if __name__ == "__main__":
    main()
