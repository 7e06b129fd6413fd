#!/usr/bin/python3
"""wafermd's cluster backend side by side with LAMMPS (`lmp`) on the same inputs and rank counts.

Interleaved rounds (per input: LAMMPS and wafermd at the first rank count, wafermd and LAMMPS at the second,
and so on, repeated) so that machine noise hits both alike; per-round ratio and median ratio of atom-steps/s over the step loop only (LAMMPS's "Loop time"
line; wafermd's report.json). Writes validation/perf/cluster_perf.md.

Usage: cluster_vs_lammps.py [--wafermd build/wafermd] [--ranks 1,2] [--rounds 3]
                            [--inputs in.eam,in.cu801792] [--set KEY=VALUE ...] [--out FILE.md]
                            [--probe PATH|none] [--max-steal PCT] [--retries N]

A shared host's hypervisor takes whole milliseconds from a virtual CPU at times (/proc/stat's steal). A
k-rank step waits for the slowest rank, so such spells weigh on parallel efficiency more than on one rank; a
round of an input in which any run lost more than --max-steal percent of a CPU is measured again (at most
--retries times; the least disturbed attempt stands), and the report lists the steal of every kept run and
each repeated round.
"""
import argparse
import datetime
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ANCHORS = "/work/shared/anchors/lammps"


def mpirun(ranks):
    cmd = ["mpirun"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    if ranks > (os.cpu_count() or 1):
        cmd.append("--oversubscribe")
    return cmd + ["-np", str(ranks)]


def cpu_jiffies():
    """Per CPU (cpu0, cpu1, ...): (all jiffies, steal jiffies) from /proc/stat; [] where it cannot be read."""
    try:
        with open("/proc/stat") as f:
            rows = [ln.split() for ln in f if re.match(r"cpu\d+ ", ln)]
    except OSError:
        return []
    # user nice system idle iowait irq softirq steal: steal is the time the hypervisor ran someone else while
    # this virtual CPU had work.
    return [(sum(int(v) for v in r[1:9]), int(r[8])) for r in rows if len(r) > 8]


def steal_share(before, after, ncpu):
    """The share of each of the first ncpu CPUs' time that the hypervisor took between two cpu_jiffies()."""
    out = []
    for (t0, s0), (t1, s1) in list(zip(before, after))[:ncpu]:
        out.append((s1 - s0) / (t1 - t0) if t1 > t0 else float("nan"))
    return out


def timed_steal(run, ranks):
    """Calls run() and adds to its result the steal on the CPUs its ranks are bound to (mpirun binds rank r to
    core r)."""
    before = cpu_jiffies()
    out = run()
    after = cpu_jiffies()
    if before and after:
        out["steal"] = steal_share(before, after, ranks)
    return out


def max_steal(runs):
    """The largest steal share on any CPU in any of the runs (NaN where none was measured)."""
    xs = [x for r in runs for x in r.get("steal", []) if x == x]
    return max(xs) if xs else float("nan")


def steal_text(run):
    """'2/31 %': the steal share on each CPU the run used; '?' where /proc/stat was not readable."""
    xs = run.get("steal")
    return "/".join(f"{x * 100:.0f}" for x in xs) + " %" if xs else "?"


def run_lammps(inp, ranks, workdir):
    # /usr/bin/time reports each rank's peak RSS (kB) on stderr, as report.json's peak_rss_mb does for us.
    p = subprocess.run(mpirun(ranks) + ["/usr/bin/time", "-f", "maxrss_kb %M", "lmp", "-in", inp, "-log", "none"],
                       cwd=workdir, capture_output=True, text=True, check=True)
    out = p.stdout
    rss = [int(v) for v in re.findall(r"maxrss_kb (\d+)", p.stderr)]
    m = re.findall(r"Loop time of ([0-9.eE+-]+) on \d+ procs for (\d+) steps with (\d+) atoms", out)
    if not m:
        sys.exit("error: no 'Loop time' line in LAMMPS's output:\n" + out[-2000:])
    secs, steps, atoms = float(m[-1][0]), int(m[-1][1]), int(m[-1][2])
    return {"aps": atoms * steps / secs, "sps": steps / secs,
            "mem": sum(rss) / len(rss) / 1024.0 if rss else float("nan")}


def run_wafermd(exe, inp, ranks, workdir, sets):
    outdir = os.path.join(workdir, f"wmd_{os.path.basename(inp)}_{ranks}")
    cmd = mpirun(ranks) + [exe, "run", inp, "--output", outdir]
    for s in sets:
        cmd += ["--set", s]
    p = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True)
    if p.returncode != 0:
        text = (p.stderr or "") + (p.stdout or "")
        errs = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("error:")]
        why = errs[0] if errs else (text.strip().splitlines() or ["no output"])[-1]
        return {"error": f"exit {p.returncode}: {why[:200]}"}
    with open(os.path.join(outdir, "report.json")) as f:
        r = json.load(f)
    out = {"aps": r["atom_steps_per_second"], "sps": r["steps_per_second"],
           "mem": r.get("peak_rss_mb", float("nan")) / ranks, "phases": r.get("phases", {})}
    # The log's LAMMPS-style breakdown: "Pair | min | avg | max | ..." over ranks.
    with open(os.path.join(outdir, "log.txt")) as f:
        m = re.search(r"^Pair\s*\|\s*([0-9.eE+-]+)\s*\|\s*[0-9.eE+-]+\s*\|\s*([0-9.eE+-]+)", f.read(), re.M)
    if m and float(m.group(1)) > 0:
        out["pair_spread"] = float(m.group(2)) / float(m.group(1)) - 1.0
    # Time blocked on the other ranks, least- and most-waiting rank, as fractions of the step loop.
    if ranks > 1 and "comm_wait" in r and r.get("wall_seconds", 0) > 0:
        out["wait"] = (r["comm_wait"]["min"] / r["wall_seconds"], r["comm_wait"]["max"] / r["wall_seconds"])
    return out


PROBE_ARGS = ["12", "12", "12", "300"]  # pair_kernel_perf's cells and steps: 6,912 atoms, cache-resident


def probe_cpus(probe, ncpu):
    """Runs one small cache-resident force loop (pair_kernel_perf) on each of the first ncpu CPUs at once, as a
    k-rank run keeps them busy, and returns each CPU's median rate (M atom-steps/s), or None without the tool.
    The CPUs of a shared host do not always run at one speed, and a k-rank step waits for the slowest."""
    if not probe or ncpu < 2 or not shutil.which("taskset"):
        return None
    procs = [subprocess.Popen(["taskset", "-c", str(c), probe] + PROBE_ARGS, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True) for c in range(ncpu)]
    rates = []
    for p in procs:
        out = p.communicate()[0]
        m = re.search(r"^(\d+) atoms, \d+ steps: .* median ([0-9.]+) s", out, re.M)
        rates.append(int(m.group(1)) / float(m.group(2)) / 1e6 if m and p.returncode == 0 else float("nan"))
    return rates


def probe_text(rates):
    """'CPUs 5.41, 3.52 M (slowest -35 %)'; a CPU whose probe failed shows as nan."""
    if not rates:
        return ""
    ok = [r for r in rates if r == r]
    gap = f" (slowest {(min(ok) / max(ok) - 1) * 100:+.0f} %)" if len(ok) == len(rates) else ""
    return "CPUs " + ", ".join(f"{r:.2f}" for r in rates) + " M" + gap


def finite_median(xs):
    """The median of the values that were measured (a run whose RSS line is missing gives NaN)."""
    xs = [x for x in xs if x == x]
    return statistics.median(xs) if xs else float("nan")


def megabytes(v):
    return f"{v:.0f}" if v == v else "—"


def per_round(res, inputs, ranks, show):
    """'in.eam at 2 ranks: a, b, c; …': show(wafermd's run) per round, for every rank count above one."""
    return "; ".join(f"{os.path.basename(i)} at {k} ranks: " + ", ".join(show(w) for _, w in res[(i, k)])
                     for i in inputs for k in ranks if k > 1)


def percent_rounds(xs):
    """'88% (84, 92, 88)': the median of per-round fractions, then each round."""
    return f"{statistics.median(xs) * 100:.0f}% (" + ", ".join(f"{x * 100:.0f}" for x in xs) + ")"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wafermd", default=os.path.join(ROOT, "build", "wafermd"))
    ap.add_argument("--ranks", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--inputs", default="in.eam,in.cu801792")
    ap.add_argument("--set", action="append", default=[], help="KEY=VALUE passed to wafermd run")
    ap.add_argument("--out", default=os.path.join(HERE, "cluster_perf.md"))
    ap.add_argument("--max-steal", type=float, default=5.0,
                    help="a round of an input in which the hypervisor took more than this percent of a CPU's time "
                         "during any run (/proc/stat's steal) is measured again, up to --retries times, and the "
                         "least disturbed attempt is kept; 'nan' keeps every first attempt")
    ap.add_argument("--retries", type=int, default=2)
    ap.add_argument("--probe", default=None,
                    help="pair_kernel_perf for the per-round CPU probe (default: next to --wafermd's build; "
                         "'none' to skip)")
    a = ap.parse_args()
    if not shutil.which("lmp"):
        sys.exit("error: lmp not found (apt-get install lammps)")
    exe = os.path.abspath(a.wafermd)
    ranks = [int(k) for k in a.ranks.split(",")]
    inputs = [os.path.join(ANCHORS, i) if not os.path.isabs(i) else i for i in a.inputs.split(",")]
    work = tempfile.mkdtemp(prefix="cluster_vs_lammps_")
    res = {}  # (input, ranks) -> list of (lammps, wafermd)
    probe = a.probe or os.path.join(os.path.dirname(exe), "validation", "perf", "pair_kernel_perf")
    probe = probe if probe != "none" and os.access(probe, os.X_OK) else None
    ncpu = min(max(ranks), os.cpu_count() or 1)
    probes = []  # per round: each CPU's rate with all of them busy
    repeated, kept_stolen = [], []  # rounds measured again for the host's steal; rounds kept after retries
    for rnd in range(1, a.rounds + 1):
        rates = probe_cpus(probe, ncpu)
        if rates:
            probes.append(rates)
            print(f"round {rnd}  probe: {probe_text(rates)}", flush=True)
        for inp in inputs:
            best = None  # (largest steal, runs) of the least disturbed attempt so far
            for attempt in range(a.retries + 1):
                runs = []  # (ranks, LAMMPS's run, wafermd's run) of this round of this input
                for n, k in enumerate(ranks):
                    # LAMMPS, wafermd, wafermd, LAMMPS, ...: each ratio compares neighbouring runs, and so do
                    # wafermd's 1- and 2-rank runs that its parallel efficiency divides.
                    lammps = lambda: timed_steal(lambda: run_lammps(inp, k, work), k)
                    ours = lambda: timed_steal(lambda: run_wafermd(exe, inp, k, work, a.set), k)
                    if n % 2 == 0:
                        lmp, wmd = lammps(), ours()
                    else:
                        wmd = ours()
                        lmp = lammps()
                    runs.append((k, lmp, wmd))
                    ratio = wmd["aps"] / lmp["aps"] if "aps" in wmd else float("nan")
                    print(f"round {rnd}  {os.path.basename(inp):12s} ranks {k}:  LAMMPS {lmp['aps'] / 1e6:7.3f} M  "
                          f"wafermd {wmd.get('aps', float('nan')) / 1e6:7.3f} M atom-steps/s  ratio {ratio:5.2f}"
                          + (f"  waits {wmd['wait'][0] * 100:.0f}-{wmd['wait'][1] * 100:.0f} % of the loop"
                             if "wait" in wmd else "")
                          + f"  steal {steal_text(lmp)} / {steal_text(wmd)}"
                          + (f"  ({wmd['error']})" if "error" in wmd else ""), flush=True)
                worst = max_steal(r for _, l, w in runs for r in (l, w))
                if best is None or worst < best[0]:
                    best = (worst, runs)
                if not worst > a.max_steal / 100:
                    break
                if attempt == a.retries:
                    # Every attempt lost more than allowed: the least disturbed one stands for the round.
                    kept_stolen.append(f"round {rnd} of {os.path.basename(inp)} ({best[0] * 100:.0f} %)")
                    print(f"round {rnd}  {os.path.basename(inp)}: over --max-steal in every attempt; the least "
                          f"disturbed one ({best[0] * 100:.0f} %) stands", flush=True)
                    break
                repeated.append(f"round {rnd} of {os.path.basename(inp)} ({worst * 100:.0f} %)")
                print(f"round {rnd}  {os.path.basename(inp)}: the host took {worst * 100:.0f} % of a CPU "
                      f"(over --max-steal {a.max_steal:g} %): this round is measured again", flush=True)
            runs = best[1]
            for k, lmp, wmd in runs:
                res.setdefault((inp, k), []).append((lmp, wmd))
    shutil.rmtree(work, ignore_errors=True)

    lines = ["# Cluster backend vs LAMMPS (same machine, same ranks, interleaved rounds)", "",
             f"Measured {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC} on "
             f"{os.cpu_count()} cores by `/usr/bin/python3 validation/perf/cluster_vs_lammps.py "
             f"--ranks {a.ranks} --rounds {a.rounds}" + "".join(f" --set {s}" for s in a.set) + "`.",
             "Atom-steps/s over the step loop only (LAMMPS: `Loop time`; wafermd: report.json). The machine is",
             "shared, so absolute figures drift; the ratio of neighbouring runs is the figure to read.", "",
             "| input | ranks | LAMMPS M atom-steps/s (rounds) | wafermd M atom-steps/s (rounds) | ratio per round "
             "| median ratio | parallel efficiency 1→k, median (rounds), wafermd / LAMMPS | peak MB per rank (wafermd / LAMMPS) |",
             "|---|---|---|---|---|---|---|---|"]
    effs, meds = {}, {}  # (input, ranks) -> wafermd's median parallel efficiency, median ratio
    for inp in inputs:
        for k in ranks:
            rows = res[(inp, k)]
            ratios = [w["aps"] / l["aps"] for l, w in rows if "aps" in w]
            med = meds[(inp, k)] = statistics.median(ratios) if ratios else float("nan")
            eff = "—"
            if k != ranks[0] and (inp, ranks[0]) in res:
                base = res[(inp, ranks[0])]
                we = [w["aps"] / bw["aps"] * ranks[0] / k for (_, w), (_, bw) in zip(rows, base)
                      if "aps" in w and "aps" in bw]
                le = [l["aps"] / bl["aps"] * ranks[0] / k for (l, _), (bl, _) in zip(rows, base)]
                # The median first (the figure to compare), then the rounds: this host's noise shows in their spread.
                eff = (f"{percent_rounds(we)} / " if we else "— / ") + percent_rounds(le)
                effs[(inp, k)] = statistics.median(we) if we else float("nan")
            mem_w = finite_median([w["mem"] for _, w in rows if "mem" in w])
            mem_l = finite_median([l["mem"] for l, _ in rows])
            lines.append(
                f"| {os.path.basename(inp)} | {k} | " + ", ".join(f"{l['aps'] / 1e6:.3f}" for l, _ in rows) + " | "
                + ", ".join(f"{w['aps'] / 1e6:.3f}" if "aps" in w else "failed" for _, w in rows) + " | "
                + ", ".join(f"{r:.2f}" for r in ratios) + (f" | **{med:.2f}**" if ratios else " | —")
                + f" | {eff} | " + megabytes(mem_w) + " / " + megabytes(mem_l) + " |")
            print(f"{os.path.basename(inp):12s} ranks {k}: median ratio {med:.2f}"
                  + (f", parallel efficiency {effs[(inp, k)] * 100:.0f} %" if (inp, k) in effs else ""))
    # Every rank holds the same number of pairs (the checkerboard rule), so a spread between the ranks' pair
    # phases is the virtual CPUs running at different speeds; a k-rank step waits for the slowest.
    spread = per_round(res, inputs, ranks,
                       lambda w: f"+{w['pair_spread'] * 100:.0f} %" if "pair_spread" in w else "—")
    if spread:
        lines += ["", "wafermd's slowest rank's pair phase over its fastest's, per round (equal pair counts, so this "
                  "is the CPUs' speed difference, which a step waits for): " + spread + "."]
    waits = per_round(res, inputs, ranks,
                      lambda w: f"{w['wait'][0] * 100:.0f}–{w['wait'][1] * 100:.0f} %" if "wait" in w else "—")
    if waits:
        lines += ["", "wafermd's ranks blocked on each other at the exchanges (report.json's comm_wait, the least and "
                  "the most waiting rank, as a share of the step loop), per round: " + waits + "."]
    if probes:
        lines += ["", "CPU probe before each round (`pair_kernel_perf " + " ".join(PROBE_ARGS) + "`, one copy pinned to each of the "
                  f"first {ncpu} CPUs at once, median step as M atom-steps/s): "
                  + "; ".join(f"round {r + 1}: {probe_text(p)}" for r, p in enumerate(probes))
                  + ". Equal code on each CPU, so a gap is the host's: a k-rank step waits for the slowest CPU, "
                  "and a 1-rank run sees only its own."]
    steal = "; ".join(f"{os.path.basename(i)} at {k} rank{'s' if k > 1 else ''}: "
                      + ", ".join(f"{steal_text(l)} / {steal_text(w)}" for l, w in res[(i, k)])
                      for i in inputs for k in ranks)
    lines += ["", "Host steal during each run (/proc/stat: the share of the time of each CPU the run's ranks were "
              "bound to that the hypervisor gave to someone else), LAMMPS / wafermd, per round: " + steal + "."]
    if a.max_steal == a.max_steal:
        lines += ["", f"Rounds measured again because a run lost more than {a.max_steal:g} % of a CPU to the host: "
                  + ("; ".join(repeated) if repeated else "none")
                  + (f". Over it in every attempt, so the least disturbed of {a.retries + 1} kept: "
                     + "; ".join(kept_stolen)
                     if kept_stolen else "") + "."]
    # Issue 5's acceptance at 2 ranks, next to the figures it is judged on.
    if 2 in ranks and 1 in ranks:
        verdicts = []
        for inp in inputs:
            med, eff = meds[(inp, 2)], effs.get((inp, 2), float("nan"))
            # One more digit than the table, so that a verdict never contradicts its rounded figure.
            verdicts.append(f"{os.path.basename(inp)} {med:.3f}× ({'met' if med >= 2.0 else 'not met'}), "
                            f"efficiency {eff * 100:.1f} % ({'met' if eff >= 0.9 else 'not met'})")
        target = "Targets at 2 ranks (≥ 2.0× LAMMPS, efficiency 1→2 ≥ 90 %): " + "; ".join(verdicts) + "."
        print(target)
        lines += ["", target]
    errors = [(os.path.basename(i), k, w["error"]) for (i, k), rows in res.items() for _, w in rows if "error" in w]
    if errors:
        lines += ["", "Failed wafermd runs: " + "; ".join(f"{i} at {k} ranks ({e})" for i, k, e in errors[:4])]
    lines += ["", "Peak memory: LAMMPS's per-rank peak RSS (`/usr/bin/time -f %M`, mean over ranks); wafermd's "
              "report.json peak_rss_mb / ranks."]
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
