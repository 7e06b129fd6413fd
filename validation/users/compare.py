#!/usr/bin/python3
"""Users' LAMMPS scripts side by side: each validation/users/in.NAME run unchanged by Debian's lmp and by
wafermd (one rank each, in scratch directories). Reported per script: both exit statuses, the last thermo row
of each (wafermd's against lmp's: the largest relative difference over its values, and both steps) and the
result lines the script prints.
Scripts with a random element (fix langevin) are run but their rows are not compared.

usage: validation/users/compare.py WAFERMD [OUT.md]   (needs Debian's lmp; writes a Markdown table)
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RANDOM = {"pka": "fix langevin on the border (its noise is wafermd's own stream)"}


def run(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=1800)
    return p.returncode, p.stdout + p.stderr


def last_row(text):
    """The last thermo row of the last thermo block (numbers only)."""
    rows, inside = [], False
    for ln in text.splitlines():
        w = ln.split()
        if w and w[0] == "Step":
            inside = True
            continue
        if inside and w and all(_num(x) for x in w):
            rows.append([float(x) for x in w])
        elif inside and w and w[0] == "Loop":
            inside = False
    return rows[-1] if rows else None


def _num(x):
    try:
        float(x)
        return True
    except ValueError:
        return False


def print_prefixes(script):
    """The literal text each `print` of the script starts with (up to its first substitution)."""
    out = []
    for ln in open(script).read().splitlines():
        w = ln.strip()
        if w.startswith("print "):
            text = w[6:].strip().strip('"').strip("'")
            prefix = text.split("$")[0]
            if prefix.strip():
                out.append(prefix)
    return out


def printed(text, prefixes):
    """The output lines that the script's prints wrote (LAMMPS's echo of the command left out)."""
    return [ln for ln in text.splitlines()
            if not ln.startswith("print ") and any(ln.startswith(p) for p in prefixes)]


def compare_printed(pl, pw):
    """'none', or the number of lines and their largest relative difference (words equal or numbers)."""
    if not pl and not pw:
        return "none"
    if len(pl) != len(pw):
        return f"{len(pl)} lines vs {len(pw)}"
    worst = 0.0
    for x, y in zip(pl, pw):
        wx, wy = x.split(), y.split()
        if len(wx) != len(wy):
            return f"`{x}` vs `{y}`"
        for a, b in zip(wx, wy):
            if a == b:
                continue
            if not (_num(a) and _num(b)):
                return f"`{x}` vs `{y}`"
            worst = max(worst, abs(float(a) - float(b)) / max(1.0, abs(float(a))))
    return f"{len(pl)} lines, numbers within {worst:.1e}"


def main():
    wafermd = os.path.abspath(sys.argv[1])
    out = sys.argv[2] if len(sys.argv) > 2 else None
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "?")
    lines = ["| script | lmp exit | wafermd exit | last thermo row: largest relative difference | printed |",
             "|---|---|---|---|---|"]
    worst = 0.0
    for name in sorted(f[3:] for f in os.listdir(HERE) if f.startswith("in.")):
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
            shutil.copy(os.path.join(HERE, "in." + name), a)
            shutil.copy(os.path.join(HERE, "in." + name), b)
            rl, tl = run(["lmp", "-in", "in." + name, "-log", "none"], a)
            rw, tw = run([wafermd, "run", "in." + name, "--output", "out"], b)
        la, lw = last_row(tl), last_row(tw)
        if name in RANDOM:
            diff = "not compared: " + RANDOM[name]
        elif la and lw and len(la) == len(lw):
            d = max(abs(x - y) / max(1.0, abs(x)) for x, y in zip(la[1:], lw[1:]))  # not the step
            worst = max(worst, d)
            diff = f"{d:.1e} (step {int(la[0])} / {int(lw[0])})"
        else:
            diff = "rows differ in shape" if la and lw else "no thermo"
        prefixes = print_prefixes(os.path.join(HERE, "in." + name))
        pl, pw = printed(tl, prefixes), printed(tw, prefixes)
        lines.append(f"| in.{name} | {rl} | {rw} | {diff} | {compare_printed(pl, pw)} |")
        print(lines[-1], flush=True)
    text = (f"Users' scripts (validation/users/compare.py), one rank each, on {cpu}; "
            f"largest compared row difference {worst:.1e}\n\n" + "\n".join(lines) + "\n")
    if out:
        open(out, "w").write(text)
    print(text)


if __name__ == "__main__":
    main()
