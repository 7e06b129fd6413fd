#!/usr/bin/python3
"""wafermd's cluster backend against LAMMPS (Debian's `lmp`) on the same inputs, machine and rank counts.

Each round runs every input as LAMMPS and wafermd at the first rank count, wafermd and LAMMPS at the second, and
so on, so that each ratio compares neighbouring runs and a drift in the machine's speed hits both codes alike.
LAMMPS runs twice each time: its plain styles, and with `-sf opt` (pair eam/opt and its alloy and fs forms, the
fastest CPU pair style Debian's lmp has), so the ratios stand against the style a user would pick.
Throughput is atom-steps/s over the step loop only (LAMMPS's "Loop time" line; wafermd's report.json); the
figures are medians over the rounds. Writes one current table, validation/perf/cluster_perf.md (replaced on
every run), naming the CPU and wafermd's SIMD target next to each ratio.

Usage: cluster_vs_lammps.py [--wafermd build/wafermd] [--ranks 1,2] [--rounds 3]
                            [--inputs in.eam,in.cu801792] [--set KEY=VALUE ...] [--no-opt] [--out FILE.md]
                            [--var NAME VALUE ...] [--seeds S1,S2,...] [--final COLUMN]

--var defines an index variable in both codes (lmp -var, wafermd --var); --seeds gives round r the variable
`seed` = S_r (so each round is another sample of a stochastic input); --final COLUMN reads that thermo column's
last value from both codes' logs (a cascade's surviving vacancies) and tabulates it per round with its mean and
standard error. End-to-end atom-steps/s are atoms × all loops' steps ÷ the command's wall time.

Inputs are looked up as given, then in validation/perf/inputs/ (in.cu801792: 801,792 Cu atoms, 600 K, 20 steps;
in.cascade_w: a 5 keV cascade in 432,000 W atoms, EAM + ZBL, dt/reset, a Langevin border, 1 ps) and
inputs/lammps/ (in.eam: LAMMPS's 32,000-atom EAM benchmark, 1600 K, 100 steps).
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import (HERE, ROOT, cpu_model, git_commit, lammps_loop, lammps_version, mpirun,  # noqa: E402
                          read_report, repo_relative, simd_target, wafermd_exe)

INPUT_DIRS = [HERE / "inputs", ROOT / "inputs" / "lammps"]


def find_input(name):
    """An input named on the command line: as a path, else by name in INPUT_DIRS."""
    if Path(name).is_file():
        return Path(name).resolve()
    for d in INPUT_DIRS:
        if (d / name).is_file():
            return d / name
    sys.exit(f"error: input {name} not found (looked in {', '.join(repo_relative(d) for d in INPUT_DIRS)})")


def final_value(text, column):
    """The last thermo row's value of `column` in a LAMMPS-style log (the last table whose header names it)."""
    value, header = None, None
    for line in text.splitlines():
        f = line.split()
        if f and f[0] == "Step":
            header = f if column in f else None
        elif header and len(f) == len(header):
            try:
                value = float(f[header.index(column)])
            except ValueError:
                header = None
        elif header and f:
            header = None
    return value if value is not None else float("nan")


def var_args(variables, flag):
    return [x for name, val in variables for x in (flag, name, val)]


def run_lammps(inp, ranks, workdir, suffix=None, variables=(), column=None):
    # From the input's directory, as lmp users start it: a relative potential path means what it says.
    # /usr/bin/time reports each rank's peak RSS (kB) on stderr, as report.json's peak_rss_mb does for wafermd.
    extra = ["-sf", suffix] if suffix else []
    start = time.monotonic()
    p = subprocess.run(mpirun(ranks) + ["/usr/bin/time", "-f", "maxrss_kb %M", "lmp", "-in", str(inp),
                                        "-log", "none"] + extra + var_args(variables, "-var"), cwd=inp.parent, capture_output=True, text=True,
                       check=True)
    wall = time.monotonic() - start
    secs, steps, atoms = lammps_loop(p.stdout)
    rss = [int(v) for v in re.findall(r"maxrss_kb (\d+)", p.stderr)]
    return {"aps": atoms * steps / secs, "atoms": atoms, "wall": wall, "e2e": atoms * steps / wall,
            "mem": sum(rss) / len(rss) / 1024.0 if rss else float("nan"),
            "final": final_value(p.stdout, column) if column else float("nan")}


def run_wafermd(exe, inp, ranks, workdir, sets, variables=(), column=None):
    outdir = os.path.join(workdir, f"wmd_{inp.name}_{ranks}")
    cmd = mpirun(ranks) + [exe, "run", str(inp), "--output", outdir] + var_args(variables, "--var")
    for s in sets:
        cmd += ["--set", s]
    start = time.monotonic()
    p = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True)
    wall = time.monotonic() - start
    if p.returncode != 0:
        text = (p.stderr or "") + (p.stdout or "")
        errs = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("error:")]
        why = errs[0] if errs else (text.strip().splitlines() or ["no output"])[-1]
        return {"error": f"exit {p.returncode}: {why[:200]}"}
    r = read_report(outdir)
    final = float("nan")
    if column:
        with open(os.path.join(outdir, "log.txt")) as f:
            final = final_value(f.read(), column)
    return {"aps": r["atom_steps_per_second"], "mem": r.get("peak_rss_mb", float("nan")) / ranks, "wall": wall,
            "simd": simd_target(r), "e2e": r["atom_steps_per_second"] * r["wall_seconds"] / wall,
            "final": final}


def median(xs):
    """The median of the values that were measured (a failed run or a missing RSS line gives none or NaN)."""
    xs = [x for x in xs if x == x]
    return statistics.median(xs) if xs else float("nan")


def fmt(v, spec):
    return format(v, spec) if v == v else "—"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wafermd", default=str(ROOT / "build" / "wafermd"))
    ap.add_argument("--ranks", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--inputs", default="in.eam,in.cu801792")
    ap.add_argument("--set", action="append", default=[], help="KEY=VALUE passed to wafermd run")
    ap.add_argument("--no-opt", action="store_true", help="skip LAMMPS's -sf opt runs")
    ap.add_argument("--out", default=str(HERE / "cluster_perf.md"))
    ap.add_argument("--var", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                    help="an index variable for both codes")
    ap.add_argument("--seeds", default="", help="S1,S2,...: round r runs with variable seed = S_r")
    ap.add_argument("--final", default="", help="a thermo column whose last value both codes report")
    a = ap.parse_args()
    seeds = [s for s in a.seeds.split(",") if s]
    if seeds and len(seeds) < a.rounds:
        sys.exit(f"error: --seeds gives {len(seeds)} seeds for {a.rounds} rounds")
    if not shutil.which("lmp"):
        sys.exit("error: lmp not found (apt-get install lammps)")
    exe = wafermd_exe(a.wafermd)
    ranks = [int(k) for k in a.ranks.split(",")]
    inputs = [find_input(i) for i in a.inputs.split(",")]
    cpu = cpu_model()
    print(f"CPU: {cpu}; {os.cpu_count()} cores; wafermd {repo_relative(exe)}", flush=True)
    work = tempfile.mkdtemp(prefix="cluster_vs_lammps_")
    res = {}  # (input, ranks) -> list over rounds of (LAMMPS's run, wafermd's run)
    try:
        for rnd in range(1, a.rounds + 1):
            variables = [tuple(v) for v in a.var] + ([("seed", seeds[rnd - 1])] if seeds else [])
            col = a.final or None
            for inp in inputs:
                for n, k in enumerate(ranks):
                    # LAMMPS, wafermd, wafermd, LAMMPS, ...: each ratio compares neighbouring runs, and so do
                    # wafermd's runs at neighbouring rank counts that its parallel efficiency divides.
                    nan = {"aps": float("nan"), "mem": float("nan")}
                    if n % 2 == 0:
                        lmp = run_lammps(inp, k, work, None, variables, col)
                        opt = nan if a.no_opt else run_lammps(inp, k, work, "opt", variables, col)
                        wmd = run_wafermd(exe, inp, k, work, a.set, variables, col)
                    else:
                        wmd = run_wafermd(exe, inp, k, work, a.set, variables, col)
                        opt = nan if a.no_opt else run_lammps(inp, k, work, "opt", variables, col)
                        lmp = run_lammps(inp, k, work, None, variables, col)
                    lmp["opt_aps"] = opt["aps"]
                    lmp["opt_e2e"] = opt.get("e2e", float("nan"))
                    lmp["opt_final"] = opt.get("final", float("nan"))
                    res.setdefault((inp, k), []).append((lmp, wmd))
                    ratio = wmd["aps"] / lmp["aps"] if "aps" in wmd else float("nan")
                    ratio_opt = wmd["aps"] / opt["aps"] if "aps" in wmd else float("nan")
                    print(f"round {rnd}  {inp.name:12s} ranks {k}:  LAMMPS {lmp['aps'] / 1e6:7.3f} M (-sf opt "
                          f"{opt['aps'] / 1e6:7.3f} M)  wafermd {wmd.get('aps', float('nan')) / 1e6:7.3f} M "
                          f"atom-steps/s  ratio {ratio:5.2f} (against opt {ratio_opt:5.2f})  "
                          f"[{cpu}, {wmd.get('simd', '?')}]" + (f"  ({wmd['error']})" if "error" in wmd else "")
                          + f"  end to end: LAMMPS {lmp['e2e'] / 1e6:.3f} (opt {lmp['opt_e2e'] / 1e6:.3f}) wafermd "
                          f"{wmd.get('e2e', float('nan')) / 1e6:.3f} M",
                          flush=True)
                    if col:
                        print(f"round {rnd}  {inp.name:12s} ranks {k}:  final {col}: LAMMPS {lmp['final']:g} "
                              f"(-sf opt {lmp['opt_final']:g}) wafermd {wmd.get('final', float('nan')):g}"
                              + (f"  [seed {seeds[rnd - 1]}]" if seeds else ""), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    command = (f"/usr/bin/python3 validation/perf/cluster_vs_lammps.py --ranks {a.ranks} --rounds {a.rounds}"
               + ("" if a.inputs == "in.eam,in.cu801792" else f" --inputs {a.inputs}")
               + "".join(f" --set {s}" for s in a.set) + (" --no-opt" if a.no_opt else "")
               + "".join(f" --var {n} {v}" for n, v in a.var) + (f" --seeds {a.seeds}" if seeds else "")
               + (f" --final {a.final}" if a.final else ""))
    lines = ["# Cluster backend vs LAMMPS", "",
             f"`{command}`: {a.rounds} interleaved round{'s' if a.rounds > 1 else ''} on {cpu}, {os.cpu_count()} cores; wafermd "
             f"`{repo_relative(exe)}` at commit {git_commit()}, LAMMPS {lammps_version()} (Debian `lmp`).",
             "Atom-steps/s over the step loop only (LAMMPS: `Loop time`; wafermd: report.json), medians of the "
             "rounds; the ratio is the median of the per-round ratios (the rounds in brackets). Parallel "
             f"efficiency: a round's atom-steps/s at k ranks ÷ ({'k' if ranks[0] == 1 else f'k/{ranks[0]}'} × the "
             f"same round's at {ranks[0]} rank{'s' if ranks[0] > 1 else ''}), median of the rounds. Peak memory: "
             "LAMMPS's per-rank peak RSS "
             "(`/usr/bin/time -f %M`, mean over ranks), wafermd's report.json `peak_rss_mb` / ranks. End to end: "
             "the whole command's wall time, start-up, set-up and output included (medians; the ratio is the median "
             "of the rounds' ratios).", "",
             "| input | atoms | ranks | LAMMPS M atom-steps/s | LAMMPS -sf opt | wafermd M atom-steps/s "
             "| wafermd / LAMMPS | wafermd / LAMMPS -sf opt "
             "| parallel efficiency wafermd / LAMMPS | peak MB per rank wafermd / LAMMPS "
             "| end to end, s: wafermd / LAMMPS (LAMMPS ÷ wafermd) "
             "| end to end M atom-steps/s: wafermd / LAMMPS / -sf opt (÷ LAMMPS, ÷ opt) | CPU | SIMD target |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for inp in inputs:
        base = res[(inp, ranks[0])]
        for k in ranks:
            rows = res[(inp, k)]
            ratios = [w["aps"] / l["aps"] for l, w in rows if "aps" in w]
            med = median(ratios)
            opt_ratios = [w["aps"] / l["opt_aps"] for l, w in rows if "aps" in w and l["opt_aps"] == l["opt_aps"]]
            eff, eff_text = float("nan"), "—"
            if k != ranks[0]:
                scale = ranks[0] / k
                we = [w["aps"] / bw["aps"] * scale for (_, w), (_, bw) in zip(rows, base) if "aps" in w and "aps" in bw]
                le = [l["aps"] / bl["aps"] * scale for (l, _), (bl, _) in zip(rows, base)]
                eff = median(we)
                eff_text = f"{fmt(eff * 100, '.0f')} / {fmt(median(le) * 100, '.0f')} %"
            simd = sorted({w["simd"] for _, w in rows if "simd" in w}) or ["?"]
            lines.append(
                f"| {inp.name} | {rows[0][0]['atoms']:,} | {k} | {median([l['aps'] for l, _ in rows]) / 1e6:.3f} "
                f"| {fmt(median([l['opt_aps'] for l, _ in rows]) / 1e6, '.3f')} "
                f"| {fmt(median([w.get('aps', float('nan')) for _, w in rows]) / 1e6, '.3f')} "
                f"| **{fmt(med, '.2f')}×** ({', '.join(f'{r:.2f}' for r in ratios)}) "
                f"| **{fmt(median(opt_ratios), '.2f')}×** ({', '.join(f'{r:.2f}' for r in opt_ratios)}) | {eff_text} "
                f"| {fmt(median([w.get('mem', float('nan')) for _, w in rows]), '.0f')} / "
                f"{fmt(median([l['mem'] for l, _ in rows]), '.0f')} "
                f"| {fmt(median([w.get('wall', float('nan')) for _, w in rows]), '.1f')} / "
                f"{fmt(median([l['wall'] for l, _ in rows]), '.1f')} "
                f"({fmt(median([l['wall'] / w['wall'] for l, w in rows if 'wall' in w]), '.2f')}×) "
                f"| {fmt(median([w.get('e2e', float('nan')) for _, w in rows]) / 1e6, '.3f')} / "
                f"{fmt(median([l['e2e'] for l, _ in rows]) / 1e6, '.3f')} / "
                f"{fmt(median([l['opt_e2e'] for l, _ in rows]) / 1e6, '.3f')} "
                f"({fmt(median([w['e2e'] / l['e2e'] for l, w in rows if 'e2e' in w]), '.2f')}×, "
                f"{fmt(median([w['e2e'] / l['opt_e2e'] for l, w in rows if 'e2e' in w]), '.2f')}×) "
                f"| {cpu} | {', '.join(simd)} |")
            print(f"{inp.name:12s} ranks {k}: median ratio {med:.2f}, against -sf opt {median(opt_ratios):.2f} "
                  f"[{cpu}, {', '.join(simd)}]"
                  + (f", parallel efficiency {eff * 100:.0f} %" if eff == eff else ""))
    if a.final:
        lines += ["", f"Final `{a.final}` per round" + (f" (seed {', '.join(seeds[:a.rounds])})" if seeds else "")
                  + ": mean ± standard error over the rounds.", "",
                  "| input | ranks | LAMMPS | LAMMPS -sf opt | wafermd |", "|---|---|---|---|---|"]

        def stat(xs):
            xs = [x for x in xs if x == x]
            if not xs:
                return "—"
            se = statistics.stdev(xs) / len(xs) ** 0.5 if len(xs) > 1 else float("nan")
            return f"{', '.join(f'{x:g}' for x in xs)} ({statistics.mean(xs):.1f} ± {fmt(se, '.1f')})"
        for inp in inputs:
            for k in ranks:
                rows = res[(inp, k)]
                lines.append(f"| {inp.name} | {k} | {stat([l['final'] for l, _ in rows])} "
                             f"| {stat([l['opt_final'] for l, _ in rows])} "
                             f"| {stat([w.get('final', float('nan')) for _, w in rows])} |")
    errors = [(i.name, k, w["error"]) for (i, k), rows in res.items() for _, w in rows if "error" in w]
    if errors:
        lines += ["", "Failed wafermd runs: " + "; ".join(f"{i} at {k} ranks ({e})" for i, k, e in errors[:4])]
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {repo_relative(a.out)}")


if __name__ == "__main__":
    main()
