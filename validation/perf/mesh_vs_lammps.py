#!/usr/bin/python3
"""The mesh backend against LAMMPS (Debian's `lmp`): the same fcc Cu slab (Cu_u3.eam, 300 K, skin 1.0, check every
step, dt 1 fs), written once as a LAMMPS script and run by `lmp` and by `wafermd run --backend mesh`, in
interleaved rounds on the same machine (each round runs both, alternating which goes first, so that a drift in
the machine's speed hits both alike). Throughput is atom-steps/s of the step loop only (LAMMPS: its "Loop time";
wafermd: report.json); the figure is the median over the rounds of the per-round ratio mesh / LAMMPS. Writes one
current table, validation/perf/mesh_perf.md (replaced on every run), naming the CPU and wafermd's SIMD target.

    /usr/bin/python3 validation/perf/mesh_vs_lammps.py [--cells 232 216 4] [--steps 20] [--rounds 3]
        [--lammps-ranks 2] [--mesh-ranks 1] [--wafermd build/wafermd] [--set KEY=VALUE ...] [--out FILE.md]

The default cells are inputs/wafer_cu_801792.yaml's (801,792 atoms, b = 10). Scratch files go to
out/perf_mesh_vs_lammps/."""
import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import (HERE, ROOT, cpu_model, git_commit, lammps_loop, lammps_version, mpirun,  # noqa: E402
                          read_report, repo_relative, simd_target, wafermd_exe)

LAMMPS = """units metal
atom_style atomic
boundary p p p
lattice fcc 3.615
region box block 0 {nx} 0 {ny} 0 {nz}
create_box 1 box
create_atoms 1 box
pair_style eam
pair_coeff 1 1 Cu_u3.eam
velocity all create 300.0 87287 loop geom
neighbor 1.0 bin
neigh_modify every 1 delay 0 check yes
fix 1 all nve
timestep 0.001
thermo {steps}
run {steps}
"""


def launcher(ranks):
    # One rank runs without mpirun, as a user would start it.
    return mpirun(ranks) if ranks > 1 else []


def run_lammps(work, ranks):
    p = subprocess.run(launcher(ranks) + ["lmp", "-in", "in.slab", "-log", "none"], cwd=work, check=True,
                       capture_output=True, text=True)
    secs, steps, atoms = lammps_loop(p.stdout)
    return atoms * steps / secs


def run_mesh(work, exe, ranks, sets):
    cmd = launcher(ranks) + [exe, "run", "in.slab", "--backend", "mesh", "--output", "mesh_out"]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, cwd=work, check=True, stdout=subprocess.DEVNULL)
    return read_report(os.path.join(work, "mesh_out"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cells", type=int, nargs=3, default=[232, 216, 4])
    # 20 steps, as inputs/wafer_cu_801792.yaml runs them; fewer make a round too short to time against noise.
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--lammps-ranks", type=int, default=2)
    ap.add_argument("--mesh-ranks", type=int, default=1)
    ap.add_argument("--wafermd", default=str(ROOT / "build" / "wafermd"))
    ap.add_argument("--out", default=str(HERE / "mesh_perf.md"))
    ap.add_argument("--set", action="append", default=[], help="KEY=VALUE passed to wafermd run (e.g. simd=avx2)")
    args = ap.parse_args()
    exe = wafermd_exe(args.wafermd)
    nx, ny, nz = args.cells
    natoms = 4 * nx * ny * nz
    cpu = cpu_model()
    print(f"CPU: {cpu}; {os.cpu_count()} cores; wafermd {repo_relative(exe)}", flush=True)
    work = ROOT / "out" / "perf_mesh_vs_lammps"
    work.mkdir(parents=True, exist_ok=True)
    (work / "in.slab").write_text(LAMMPS.format(nx=nx, ny=ny, nz=nz, steps=args.steps))
    ratios, lam, mesh = [], [], []
    report = {}
    for r in range(args.rounds):
        order = ["lammps", "mesh"] if r % 2 == 0 else ["mesh", "lammps"]
        got = {}
        for which in order:
            if which == "lammps":
                got["lammps"] = run_lammps(work, args.lammps_ranks)
            else:
                report = run_mesh(work, exe, args.mesh_ranks, args.set)
                got["mesh"] = report["atom_steps_per_second"]
        lam.append(got["lammps"])
        mesh.append(got["mesh"])
        ratios.append(got["mesh"] / got["lammps"])
        print(f"round {r + 1}: LAMMPS {got['lammps'] / 1e6:.3f} M atom-steps/s, mesh {got['mesh'] / 1e6:.3f} M, "
              f"ratio {ratios[-1]:.3f}  [{cpu}, {simd_target(report)}]", flush=True)
    med = statistics.median(ratios)
    rss = report.get("peak_rss_mb", float("nan"))
    simd = simd_target(report)
    defaults = args.cells == [232, 216, 4] and args.steps == 20 and args.lammps_ranks == 2
    command = ("/usr/bin/python3 validation/perf/mesh_vs_lammps.py"
               + ("" if defaults else f" --cells {nx} {ny} {nz} --steps {args.steps} --lammps-ranks {args.lammps_ranks}")
               + f" --rounds {args.rounds} --mesh-ranks {args.mesh_ranks}"
               + "".join(f" --set {s}" for s in args.set))
    lines = ["# Mesh backend vs LAMMPS", "",
             f"`{command}`: {args.rounds} interleaved round{'s' if args.rounds > 1 else ''} on {cpu}, {os.cpu_count()} cores; wafermd "
             f"`{repo_relative(exe)}` at commit {git_commit()} (`--backend mesh`, fp32 PE kernels), LAMMPS "
             f"{lammps_version()} (Debian `lmp`). fcc Cu slab of {nx}×{ny}×{nz} cells, Cu_u3.eam, 300 K, skin 1 Å, "
             f"`check yes` every step, dt 1 fs, {args.steps} steps. Atom-steps/s of the step loop (LAMMPS: `Loop "
             "time`; wafermd: report.json), medians of the rounds; the ratio is the median of the per-round ratios "
             "(the rounds in brackets). Peak memory: report.json's `peak_rss_mb`, summed over the mesh ranks.", "",
             "| atoms | LAMMPS ranks | mesh ranks | LAMMPS M atom-steps/s | mesh M atom-steps/s | mesh / LAMMPS "
             "| mesh peak memory | b | CPU | SIMD target |",
             "|---|---|---|---|---|---|---|---|---|---|",
             f"| {natoms:,} | {args.lammps_ranks} | {args.mesh_ranks} | {statistics.median(lam) / 1e6:.3f} "
             f"| {statistics.median(mesh) / 1e6:.3f} | **{med:.2f}×** ({', '.join(f'{x:.2f}' for x in ratios)}) "
             f"| {rss:.0f} MB ({rss * 1048576 / natoms:.0f} B/atom) | {report.get('fabric', {}).get('window_b', '?')} "
             f"| {cpu} | {simd} |"]
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"median ratio {med:.3f} [{cpu}, {simd}]; wrote {repo_relative(args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
