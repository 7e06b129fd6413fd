"""What the two benchmark scripts against LAMMPS share: where things are, how to start ranks, which CPU and SIMD
path produced a figure, and how to read LAMMPS's and wafermd's throughput."""
import json
import os
import re
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent  # validation/perf
ROOT = HERE.parents[1]                   # the repository root


def repo_relative(path):
    """A path as the reports print it: relative to the repository root (no machine's folders in committed
    files), or just its name when it lies outside the repository."""
    p = Path(path).resolve()
    try:
        return str(p.relative_to(ROOT))
    except ValueError:
        return p.name


def wafermd_exe(arg):
    """--wafermd made absolute: the runs start in scratch folders, where a relative path would not resolve."""
    exe = Path(arg).expanduser().resolve()
    if not (exe.is_file() and os.access(exe, os.X_OK)):
        raise SystemExit(f"error: wafermd executable not found: {arg} (build it, or pass --wafermd)")
    return str(exe)


def mpirun(ranks):
    """The command prefix that starts `ranks` ranks (mpirun binds rank r to core r)."""
    cmd = ["mpirun"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    if ranks > (os.cpu_count() or 1):
        cmd.append("--oversubscribe")
    return cmd + ["-np", str(ranks)]


def cpu_model():
    """/proc/cpuinfo's model name and the widest vector extension the CPU reports, e.g. 'AMD EPYC (AVX-512)'.
    Figures are only comparable on the same CPU and SIMD path, so every table names both."""
    name, flags = "unknown CPU", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "model name" and name == "unknown CPU":
                    name = value.strip()
                elif key in ("flags", "Features") and not flags:
                    flags = set(value.split())
    except OSError:
        pass
    for flag, label in (("avx512f", "AVX-512"), ("avx2", "AVX2"), ("sve", "SVE"), ("asimd", "NEON")):
        if flag in flags:
            return f"{name} ({label})"
    return name


def simd_target(report):
    """The SIMD target wafermd ran with (report.json's `simd_target`), or 'native build' for a binary that
    compiles its kernels for the build machine and does not report one."""
    return report.get("simd_target") or "native build"


def read_report(outdir):
    with open(os.path.join(outdir, "report.json")) as f:
        return json.load(f)


def lammps_loop(text):
    """(seconds, steps, atoms) of LAMMPS's step loops: the seconds and steps of every 'Loop time' line summed (an
    input of several runs, a cascade's thermalisation and its cascade, counts them all), the last line's atoms;
    throughput over the step loops only, as wafermd's report.json counts it."""
    m = re.findall(r"Loop time of ([0-9.eE+-]+) on \d+ procs for (\d+) steps with (\d+) atoms", text)
    if not m:
        raise SystemExit("error: no 'Loop time' line in LAMMPS's output:\n" + text[-2000:])
    return sum(float(x[0]) for x in m), sum(int(x[1]) for x in m), int(m[-1][2])


def lammps_version():
    """'29 Sep 2021 - Update 2' from the banner of `lmp -h`, or '?'."""
    try:
        out = subprocess.run(["lmp", "-h"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return "?"
    m = re.search(r"Simulator - (.+)", out)
    return m.group(1).strip() if m else "?"


def git_commit():
    """The short commit of the tree the benchmark ran from, '+' when it had uncommitted changes."""
    def git(*args):
        return subprocess.run(["git", "-C", str(ROOT)] + list(args), capture_output=True, text=True).stdout.strip()
    commit = git("rev-parse", "--short", "HEAD")
    return (commit + ("+" if git("status", "--porcelain", "--untracked-files=no") else "")) if commit else "?"
