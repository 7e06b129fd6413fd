#!/usr/bin/python3
"""Users' LAMMPS scripts side by side: every script of the corpus (validation/users/corpus/NAME/, public users'
scripts reduced by reduce.py) and the project's own validation/users/in.* scripts, each run by Debian's lmp
(1 rank) and by wafermd (1 rank, and 3 ranks under mpirun), every run in its own scratch directory.

usage: validation/users/compare.py WAFERMD [OUT.md] [--only NAME]... [--jobs J] [--timeout S] [--keep DIR]

What is compared, wafermd's run against lmp's (the FIRST difference is reported):
  - the outputs' events in order: every thermo row (all rows of every run and minimisation, with the column
    names; the step must be equal, CPU-time columns are left out) and every line a `print` or `fix print` of the
    script wrote to the screen (found by the print texts of the script's files: the literal text around the
    substitutions must match; a print with no literal text cannot be told from other output and is not used);
  - every file the script writes by `print … file|append`, `fix print … file|append` and `fix ave/time|chunk|
    histo|correlate … file`, line by line (a file lmp writes and wafermd does not is a difference).
  Numbers agree when |wafermd - lmp| <= 1e-6 * max(|lmp|, 1): relative 1e-6, with an absolute floor of 1e-6 in
  the script's units for values near zero (pressures and energies that cancel to ~0 carry the round-off of
  their terms, not of their sum). Other words must be equal.
  A script whose source.json has "known": "docs/…#anchor" (a difference that is lmp 2021's own quirk, documented
  there) is reported as explained when it differs, never as agreeing. lmp itself runs at 2 and 4 ranks too:
  where its own 2- or 4-rank output already parts from its 1-rank output at or before wafermd's first difference (a
  minimisation whose stop round-off decides, etol 1e-25; a box/relax path near convergence), the script is
  reported as lmp-varies — lmp does not reproduce that value itself — never as agreeing.
  wafermd exiting non-zero (exit 2 included: a refusal) where lmp exits 0 is a failure.
The reduction limits (<= 4,000 atoms, MD runs <= 20 steps) are checked on lmp's "Loop time" lines.
A corpus entry with a driver (source.json "before", "vars", "mkdir"; see reduce.py) runs its scripts one after
the other in one directory, each with the command-line variables (lmp -var, wafermd --var); the outputs are read
as one.
"""
import argparse
import concurrent.futures as cf
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import reduce as reducer  # noqa: E402

CORPUS = os.path.join(HERE, "corpus")
REL, FLOOR = 1e-6, 1.0
TIME_COLUMNS = {"CPU", "T/CPU", "S/CPU", "CPULeft", "CPURemain"}
MAX_ATOMS, MAX_STEPS = 4000, 20
# The project's own scripts (validation/users/in.*): category and kind.
OWN = {"frenkel": ("radiation", "frenkel"), "pka": ("radiation", "pka"), "gb": ("other", "gb"),
       "melt": ("other", "melting"), "sfe": ("other", "dislocation"), "tensile": ("other", "tension"),
       "thexp": ("other", "thermal"), "vac": ("other", "vacancy")}
# in.vac minimises with etol 1e-15, at round-off: where it stops is round-off's choice (documented).
OWN_KNOWN = {"vac": "docs/lammps-scripts.md#differences-to-know (minimize at etol 1e-15)"}


# ---------------------------------------------------------------------------------------------- script text
def script_lines(text):
    """LAMMPS command lines: '&' continuations joined, comments removed (quote-aware), triple quotes kept whole."""
    out, cur, i, n = [], "", 0, len(text)
    quote = None
    while i < n:
        c = text[i]
        if quote is None:
            if text.startswith('"""', i):
                quote = '"""'
                cur += c * 3
                i += 3
                continue
            if c in "\"'":
                quote = c
            elif c == "#":
                while i < n and text[i] != "\n":
                    i += 1
                continue
            elif c == "&" and text[i + 1:i + 2] == "\n":
                i += 2
                continue
            elif c == "\n":
                out.append(cur.strip())
                cur = ""
                i += 1
                continue
        elif quote == '"""':
            if text.startswith('"""', i):
                quote = None
                cur += c * 3
                i += 3
                continue
        elif c == quote or c == "\n":
            quote = None
        cur += c
        i += 1
    out.append(cur.strip())
    return [ln for ln in out if ln]


def words(line):
    """LAMMPS's word split: quotes ('', "", triple) group words and are removed."""
    out, i, n = [], 0, len(line)
    while i < n:
        if line[i].isspace():
            i += 1
            continue
        if line.startswith('"""', i):
            j = line.find('"""', i + 3)
            j = n if j < 0 else j
            out.append(line[i + 3:j])
            i = j + 3
        elif line[i] in "\"'":
            j = line.find(line[i], i + 1)
            j = n if j < 0 else j
            out.append(line[i + 1:j])
            i = j + 1
        else:
            j = i
            while j < n and not line[j].isspace():
                j += 1
            out.append(line[i:j])
            i = j
    return out


def split_subst(text):
    """The text's literal pieces around its substitutions ($x, ${name}, $(formula))."""
    parts, cur, i = [], "", 0
    while i < len(text):
        if text[i] == "$" and i + 1 < len(text):
            parts.append(cur)
            cur = ""
            if text[i + 1] == "{":
                j = text.find("}", i)
                i = len(text) if j < 0 else j + 1
            elif text[i + 1] == "(":
                depth, j = 0, i + 1
                while j < len(text):
                    depth += text[j] == "("
                    depth -= text[j] == ")"
                    if depth == 0:
                        break
                    j += 1
                i = j + 1
            else:
                i += 2
            continue
        cur += text[i]
        i += 1
    parts.append(cur)
    return parts


def pattern(text):
    """A regex for one line of printed text (None if it has no literal text to recognise it by)."""
    parts = split_subst(text)
    if not "".join(parts).strip():
        return None
    return re.compile("^" + "(.*?)".join(re.escape(p) for p in parts).strip() + "$")


def script_outputs(files):
    """From the script's files: the print patterns (one per printed line) and the output-file name patterns."""
    prints, outfiles = [], []
    for text in files.values():
        for ln in script_lines(text):
            w = words(ln)
            if not w:
                continue
            text_arg, kw = None, []
            if w[0] == "print" and len(w) > 1:
                text_arg, kw = w[1], w[2:]
            elif w[0] == "fix" and len(w) > 5 and w[3] == "print":
                text_arg, kw = w[5], w[6:]
            elif w[0] == "fix" and len(w) > 3 and w[3] in ("ave/time", "ave/chunk", "ave/histo", "ave/correlate"):
                kw = w[4:]
            if text_arg is not None and "screen" not in [k for k, v in zip(kw, kw[1:] + [""]) if v == "no"]:
                for piece in text_arg.split("\n"):
                    p = pattern(piece)
                    if p:
                        prints.append(p)
            for k, v in zip(kw, kw[1:]):
                if k in ("file", "append"):
                    parts = split_subst(v)
                    outfiles.append(re.compile("^" + "(.*?)".join(re.escape(p) for p in parts) + "$"))
    return prints, outfiles


# ---------------------------------------------------------------------------------------------- output events
def _num(x):
    try:
        float(x)
        return True
    except ValueError:
        return False


def events(text, prints, echo):
    """The output's events in order: ('row', header, values) for every thermo row, ('print', line)."""
    ev, lines, i = [], text.splitlines(), 0
    header, multi = None, None
    while i < len(lines):
        ln = lines[i].rstrip()
        s = ln.strip()
        i += 1
        if s.startswith("Per MPI rank memory allocation"):
            while i < len(lines) and not lines[i].strip():
                i += 1
            if i < len(lines):
                h = lines[i].split()
                i += 1
                if h and h[0].startswith("---") and "Step" in h:
                    multi = {}
                    _multi_line(h, multi)
                    header = "multi"
                else:
                    header, multi = h, None
            continue
        if header is None and s and s not in echo:
            # A thermo header without the memory line before it (a `run … pre no` skips the set-up's lines):
            # words that are not numbers, followed by a row of as many numbers (or a multi block's first line).
            w = s.split()
            nxt = next((x.split() for x in lines[i:i + 3] if x.strip()), [])
            if w[0].startswith("---") and "Step" in w:
                multi = {}
                _multi_line(w, multi)
                header = "multi"
                continue
            if (not any(_num(x) for x in w) and len(nxt) == len(w) and all(_num(x) for x in nxt)
                    and not any(p.match(s) for p in prints)):
                header, multi = w, None
                continue
        if s.startswith("Loop time of"):
            if multi:
                ev.append(_multi_row(multi))
            header, multi = None, None
            continue
        if not s or s in echo or s.startswith(("print ", "WARNING", "ERROR", "error:", "warning:")):
            continue
        if header == "multi":
            w = s.split()
            if w[0].startswith("---") and "Step" in w:
                if multi:
                    ev.append(_multi_row(multi))
                multi = {}
                _multi_line(w, multi)
                continue
            if "=" in w and len(w) % 3 == 0 and all(w[k + 1] == "=" for k in range(0, len(w), 3)):
                for k in range(0, len(w), 3):
                    multi[w[k]] = w[k + 2]
                continue
        elif header:
            w = s.split()
            if len(w) == len(header) and all(_num(x) for x in w):
                ev.append(("row", tuple(header), tuple(w)))
                continue
        if any(p.match(s) for p in prints):
            ev.append(("print", s))
    return ev


def _multi_line(w, d):
    d["Step"] = w[w.index("Step") + 1]


def _multi_row(d):
    return ("row", tuple(d.keys()), tuple(d.values()))


# ---------------------------------------------------------------------------------------------- comparison
def close(a, b):
    a, b = float(a), float(b)
    if a != a or b != b:  # nan: equal only to nan
        return a != a and b != b
    return abs(a - b) <= REL * max(abs(a), FLOOR)


NUMBER = re.compile(r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)")


def tokens(line):
    """A line's words, a word that glues numbers to text (`lx=21.718`, `E:-3.54eV`) split into its text and
    number parts, so that the numbers are compared as numbers."""
    out = []
    for w in line.split():
        if _num(w):
            out.append(w)
        else:
            out.extend(p for p in NUMBER.split(w) if p)
    return out


def word_diff(x, y, numbers=True):
    """None if the word lists agree, else (index, a, b)."""
    wx, wy = tokens(x), tokens(y)
    for k, (a, b) in enumerate(zip(wx, wy)):
        if a == b:
            continue
        if _num(a) and _num(b):
            if numbers and not close(a, b):
                return k, a, b
        else:
            return k, a, b
    if len(wx) != len(wy):
        return min(len(wx), len(wy)), " ".join(wx[len(wy):]) or "(end)", " ".join(wy[len(wx):]) or "(end)"
    return None


def _rel(a, b):
    a, b = float(a), float(b)
    return abs(a - b) / max(abs(a), FLOOR)


def first_event_diff(el, ew, numbers=True):
    """The first difference between lmp's events and wafermd's (None if they agree)."""
    d = first_event_diff_at(el, ew, numbers)
    return d[1] if d else None


def first_event_diff_at(el, ew, numbers=True):
    """(index of the first differing output item, its description), or None if the outputs agree."""
    d = _first_event_diff(el, ew, numbers)
    return d


def _first_event_diff(el, ew, numbers=True):
    rows = 0
    for k, (a, b) in enumerate(zip(el, ew)):
        if a[0] == "row":
            rows += 1
        if a[0] != b[0]:
            what = lambda e: (f"thermo row (step {e[2][e[1].index('Step')]})" if e[0] == "row" and "Step" in e[1]
                              else "thermo row" if e[0] == "row" else f"print `{e[1]}`")
            return k, f"output item {k + 1}: lmp has {what(a)}, wafermd {what(b)}"
        if a[0] == "print":
            d = word_diff(a[1], b[1], numbers)
            if d:
                return k, f"print: `{a[1]}` vs `{b[1]}`"
            continue
        ha, va, hb, vb = a[1], a[2], b[1], b[2]
        step = va[ha.index("Step")] if "Step" in ha else "?"
        if ha != hb:
            return k, f"thermo row {rows} (step {step}): columns `{' '.join(ha)}` vs `{' '.join(hb)}`"
        for h, x, y in zip(ha, va, vb):
            if h in TIME_COLUMNS:
                continue
            if h == "Step" or h == "Elapsed":
                if x != y:
                    return k, f"thermo row {rows}: step {x} vs {y}"
                continue
            if numbers and not close(x, y):
                return k, f"thermo row {rows} (step {step}): {h} {x} vs {y} (rel {_rel(x, y):.1e})"
    if len(el) != len(ew):
        k = min(len(el), len(ew))
        extra = (el if len(el) > len(ew) else ew)[k]
        desc = (f"thermo row (step {extra[2][extra[1].index('Step')]})" if extra[0] == "row" and "Step" in extra[1]
                else "thermo row" if extra[0] == "row" else f"print `{extra[1]}`")
        who = "lmp" if len(el) > len(ew) else "wafermd"
        return k, f"{who} has more output ({len(el)} vs {len(ew)} items); the first extra: {desc}"
    return None


def out_files(d, patterns):
    found = {}
    for root, dirs, files in os.walk(d):
        dirs[:] = [x for x in dirs if not x.startswith(".wafermd")]
        for f in files:
            rel = os.path.relpath(os.path.join(root, f), d)
            if any(p.match(rel) or p.match(f) for p in patterns):
                found[rel] = os.path.join(root, f)
    return found


def first_file_diff(dl, dw, patterns, inputs, numbers=True):
    fl = {k: v for k, v in out_files(dl, patterns).items() if k not in inputs}
    fw = {k: v for k, v in out_files(dw, patterns).items() if k not in inputs}
    for name in sorted(fl):
        if name not in fw:
            return f"file {name}: written by lmp, not by wafermd"
        ll = open(fl[name], errors="replace").read().splitlines()
        lw = open(fw[name], errors="replace").read().splitlines()
        for k, (x, y) in enumerate(zip(ll, lw)):
            if word_diff(x, y, numbers):
                return f"file {name} line {k + 1}: `{x.strip()}` vs `{y.strip()}`"
        if len(ll) != len(lw):
            return f"file {name}: {len(ll)} lines vs {len(lw)}"
    for name in sorted(fw):
        if name not in fl:
            return f"file {name}: written by wafermd, not by lmp"
    return None


# ---------------------------------------------------------------------------------------------- running
def run(cmd, cwd, timeout):
    env = dict(os.environ, OMP_NUM_THREADS="1", OMPI_MCA_rmaps_base_oversubscribe="1")
    t0 = time.time()
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, errors="replace", timeout=timeout,
                           env=env, stdin=subprocess.DEVNULL)
        return p.returncode, p.stdout, p.stderr, time.time() - t0
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        return "timeout", out, err, time.time() - t0


def error_line(out, err):
    for ln in (err + "\n" + out).splitlines():
        s = ln.strip()
        if s.startswith(("error:", "ERROR")):
            return s
    tail = [ln.strip() for ln in (err or out).splitlines() if ln.strip()]
    return tail[-1] if tail else "(no output)"


class Case:
    def __init__(self, name, category, kind, known, template, scripts, own, variables=()):
        self.name, self.category, self.kind, self.known = name, category, kind, known
        self.template, self.scripts, self.own, self.variables = template, scripts, own, list(variables)
        self.files = {}
        for f in os.listdir(template):
            try:
                self.files[f] = open(os.path.join(template, f), encoding="utf-8").read()
            except (UnicodeDecodeError, IsADirectoryError):
                pass
        text = "\n".join(self.files.values())
        self.random = False  # fix langevin draws LAMMPS's stream (docs/input.md): compared like the rest
        self.prints, self.outfiles = script_outputs(self.files)
        self.echo = {ln.strip() for t in self.files.values() for ln in t.splitlines() if ln.strip()}


def cases(only, scratch, potentials_dir):
    out = []
    for name in sorted(os.listdir(CORPUS)) if os.path.isdir(CORPUS) else []:
        if only and name not in only or not os.path.isfile(os.path.join(CORPUS, name, "source.json")):
            continue
        tdir = os.path.join(scratch, "template", name)
        src = json.load(open(os.path.join(CORPUS, name, "source.json")))
        try:
            reducer.reduce(name, tdir, potentials_dir)
        except reducer.ReduceError as e:
            out.append((name, str(e)))
            continue
        out.append(Case(name, src.get("category", "?"), src.get("kind", "?"), src.get("known"), tdir,
                        reducer.scripts(src), False, reducer.variables(src)))
    for f in sorted(os.listdir(HERE)):
        if not f.startswith("in.") or only and f not in only and f[3:] not in only:
            continue
        tdir = os.path.join(scratch, "template", f)
        os.makedirs(tdir)
        shutil.copy(os.path.join(HERE, f), tdir)
        cat, kind = OWN.get(f[3:], ("other", "other"))
        out.append(Case(f, cat, kind, OWN_KNOWN.get(f[3:]), tdir, [f], True))
    return out


def job(case, which, wafermd, scratch, timeout):
    """Run the case's scripts in order (the user's driver: the 'before' scripts, then the reduced script) in one
    directory; the outputs are concatenated, and the first non-zero exit ends the job."""
    d = os.path.join(scratch, which, case.name)
    shutil.copytree(case.template, d)
    outs, errs, secs, rc = [], [], 0.0, 0
    for k, script in enumerate(case.scripts):
        output = ".wafermd" if k == len(case.scripts) - 1 else f".wafermd-{k + 1}"
        if which in ("lmp", "lmp2", "lmp4"):
            cmd = ["lmp", "-in", script, "-log", "none", "-nocite"]
            cmd += [a for n, v in case.variables for a in ("-var", n, v)]
            if which != "lmp":
                cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", which[3:]] + cmd
        else:
            cmd = [wafermd, "run", script, "--output", output]
            cmd += [a for n, v in case.variables for a in ("--var", n, v)]
            if which == "w3":
                cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "3"] + cmd
        rc, out, err, s = run(cmd, d, max(1.0, timeout - secs))
        outs.append(out)
        errs.append(err)
        secs += s
        if rc != 0:
            break
    return dict(rc=rc, out="\n".join(outs), err="\n".join(errs), secs=secs, dir=d)


def limits(lmp_out):
    """Breaches of the reduction limits in lmp's run: MD runs over 20 steps, over 4,000 atoms."""
    bad, lines = [], lmp_out.splitlines()
    for k, ln in enumerate(lines):
        m = re.match(r"Loop time of \S+ on \d+ procs for (\d+) steps with (\d+) atoms", ln)
        if not m:
            continue
        steps, atoms = int(m.group(1)), int(m.group(2))
        minimize = any("Minimization stats" in x for x in lines[k + 1:k + 6])
        if steps > MAX_STEPS and not minimize:
            bad.append(f"run of {steps} steps")
        if atoms > MAX_ATOMS:
            bad.append(f"{atoms} atoms")
    return sorted(set(bad))


def lmp_parts_from_itself(case, lmp, others, k_w):
    """Where lmp's own 2- or 4-rank run leaves its 1-rank path at or before output item k_w (None: neither
    does): such a stop or value is decided by round-off, which lmp itself does not reproduce across rank counts
    (a minimisation at etol 1e-25, a box/relax near convergence)."""
    el = events(lmp["out"], case.prints, case.echo)
    for ranks, other in others:
        if other is None or other["rc"] != 0:
            continue
        d = first_event_diff_at(el, events(other["out"], case.prints, case.echo), True)
        if d is not None and (k_w is None or d[0] <= k_w):
            return f"on {ranks} ranks, {d[1]}"
        if k_w is None and d is None:
            f = first_file_diff(lmp["dir"], other["dir"], case.outfiles, set(case.files), True)
            if f:
                return f"on {ranks} ranks, {f}"
    return None


def verdict(case, lmp, w, others=()):
    """(status, text): status one of agrees, explained, lmp-varies, differs, fails, timeout, lmp-fails."""
    if lmp["rc"] != 0:
        return "lmp-fails", f"lmp: exit {lmp['rc']}: {error_line(lmp['out'], lmp['err'])}"
    if w["rc"] == "timeout":
        return "fails", f"wafermd: timeout after {w['secs']:.0f} s"
    el = events(lmp["out"], case.prints, case.echo)
    ew = events(w["out"], case.prints, case.echo)
    numbers = not case.random
    dk = first_event_diff_at(el, ew, numbers)
    d = dk[1] if dk else None
    if w["rc"] != 0:
        msg = f"wafermd exit {w['rc']}: {error_line(w['out'], w['err'])}"
        if d and not d.startswith("lmp has more output"):
            msg += f" (before it: {d})"
        return "fails", msg
    if d is None:
        d = first_file_diff(lmp["dir"], w["dir"], case.outfiles, set(case.files), numbers)
    if d is None:
        if case.random:
            return "explained", "same output shape; numbers not compared (fix langevin: wafermd's own noise)"
        return "agrees", f"{sum(e[0] == 'row' for e in el)} thermo rows, {sum(e[0] == 'print' for e in el)} prints"
    if case.known:
        return "explained", f"{d} — explained: {case.known}"
    own = lmp_parts_from_itself(case, lmp, others, dk[0] if dk else None)
    if own:
        return "lmp-varies", f"{d} — lmp itself already parts from its 1-rank run there: {own}"
    return "differs", d


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("wafermd")
    ap.add_argument("out", nargs="?")
    ap.add_argument("--only", action="append", help="a corpus NAME or in.NAME (repeatable)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per run")
    ap.add_argument("--keep", help="keep the scratch directories here")
    a = ap.parse_args()
    wafermd = os.path.abspath(a.wafermd)
    scratch = os.path.abspath(a.keep) if a.keep else tempfile.mkdtemp(prefix="users-compare-")
    if a.keep:
        shutil.rmtree(scratch, ignore_errors=True)
        os.makedirs(scratch)
    t0 = time.time()
    potentials_dir = subprocess.run([wafermd, "--potentials-dir"], capture_output=True, text=True,
                                    check=True).stdout.strip()
    all_cases = cases(set(a.only) if a.only else None, scratch, potentials_dir)
    runnable = [c for c in all_cases if isinstance(c, Case)]
    res = {}
    with cf.ThreadPoolExecutor(max(1, a.jobs)) as pool:
        futs = {pool.submit(job, c, which, wafermd, scratch, a.timeout): (c.name, which)
                for c in runnable for which in ("lmp", "lmp2", "lmp4", "w1", "w3")}
        for f in cf.as_completed(futs):
            res[futs[f]] = f.result()
    rows, stats = [], {}
    for c in all_cases:
        if not isinstance(c, Case):
            rows.append(f"| {c[0]} | ? | – | – | – | reduce.py refuses: {c[1]} | |")
            continue
        lmp, w1, w3 = res[(c.name, "lmp")], res[(c.name, "w1")], res[(c.name, "w3")]
        others = ((2, res[(c.name, "lmp2")]), (4, res[(c.name, "lmp4")]))
        s1, t1 = verdict(c, lmp, w1, others)
        s3, t3 = verdict(c, lmp, w3, others)
        lim = limits(lmp["out"]) if c.own is False else []
        note = f" (reduction exceeds: {', '.join(lim)})" if lim else ""
        c3 = "as at 1 rank" if (s3, t3) == (s1, t1) else f"{s3}: {_md(t3)}"
        name = c.name if c.own else f"[{c.name}](corpus/{c.name}/source.json)"
        rows.append(f"| {name} | {c.category}/{c.kind} | {lmp['rc']} | {w1['rc']} | {w3['rc']} | "
                    f"{s1}: {_md(t1)}{note} | {c3} |")
        stats[c.name] = (c, s1, s3)
        print(rows[-1], flush=True)
    summary = []
    for label, sel in (("corpus (public users' scripts)", lambda c: not c.own),
                       ("project scripts (validation/users/in.*)", lambda c: c.own)):
        st = [v for v in stats.values() if sel(v[0])]
        if not st:
            continue
        n = len(st)
        r = sum(v[0].category == "radiation" for v in st)
        f = [v for v in st if v[1] != "lmp-fails"]
        line = f"{label}: {n} scripts, {r} radiation; lmp finishes {len(f)}"
        for k, ranks in ((1, "1 rank"), (2, "3 ranks")):
            runs = sum(v[k] in ("agrees", "explained", "lmp-varies", "differs") for v in f)
            agree = sum(v[k] == "agrees" for v in f)
            expl = sum(v[k] == "explained" for v in f)
            varies = sum(v[k] == "lmp-varies" for v in f)
            pct = 100.0 * agree / len(f) if f else 0.0
            line += (f"; at {ranks} wafermd runs {runs} of them and agrees on {agree} ({pct:.0f} %)"
                     + (f", {expl} explained" if expl else "")
                     + (f", {varies} where lmp's own 2- or 4-rank run already parts from its 1-rank run" if varies else ""))
        summary.append(line)
        rad = [v for v in f if v[0].category == "radiation"]
        if rad:
            ag = sum(v[1] == "agrees" for v in rad)
            summary.append(f"  of which radiation: lmp finishes {len(rad)}, wafermd agrees on {ag} at 1 rank, "
                           f"{sum(v[2] == 'agrees' for v in rad)} at 3 ranks")
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "?")
    text = ("Command: `/usr/bin/python3 validation/users/compare.py " + " ".join(sys.argv[1:]) + "`\n\n"
            f"Users' scripts side by side (validation/users/compare.py): lmp (Debian, 29 Sep 2021) at 1 rank "
            f"(and at 2 and 4, to see where lmp does not reproduce itself), wafermd at 1 and 3 ranks, on {os.cpu_count()} × {cpu}, --jobs {a.jobs}, "
            f"{time.time() - t0:.0f} s in all. Numbers agree when |wafermd − lmp| ≤ 1e-6·max(|lmp|, 1); every "
            f"thermo row, print line and print/fix print/fix ave file is compared and the first difference is "
            f"shown (docs/lammps-scripts.md, \"Users' scripts side by side\").\n\n"
            + "\n".join("- " + s if not s.startswith("  ") else "  - " + s.strip() for s in summary) + "\n\n"
            "| script | category/kind | lmp exit | wafermd exit (1 rank) | wafermd exit (3 ranks) | "
            "1 rank: first difference | 3 ranks |\n|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n")
    if a.out:
        open(a.out, "w").write(text)
    print(text)
    if not a.keep:
        shutil.rmtree(scratch, ignore_errors=True)


def _md(s):
    return s.replace("|", "\\|").replace("\n", " ")


if __name__ == "__main__":
    main()
