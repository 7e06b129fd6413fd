#!/usr/bin/python3
"""Reduce one corpus script: validation/users/corpus/NAME/in.orig (a public user's LAMMPS script, verbatim)
with the edits of its source.json applied, written as OUTDIR/in.reduced next to copies of the script's own
data/include files.

usage: validation/users/reduce.py NAME OUTDIR

source.json's "edits" are applied in order, each to in.orig (or to the file named by the edit's optional
"file" key, one of the script's own files): every occurrence of "from" is replaced by "to", and "from" must
occur at least once (else the corpus entry is stale: error). An edit may only change sizes, run lengths, paths
and potentials, so its "why" must be one of
    size | run length | path | potential
optionally followed by ": detail" ("run length: minimize maxiter 10000 -> 20"). Anything else is refused:
a reduction that changed the physics would make the comparison meaningless.
Each "potentials" entry's "substitute" (a Debian lammps-data file) must exist.

The user's own driver (a job or shell script that runs LAMMPS) is reproduced, not edited, by three optional keys:
    "before": ["in.equilibrate"]   the entry's own scripts (among its "files") run first, in this order, by the
                                   same program in the same directory (a two-step workflow: equilibrate, then
                                   the PKA run that reads its restart);
    "vars": [{"name": "Nx", "value": "6", "why": "size: …"}]
                                   command-line variables (lmp -var NAME VALUE, wafermd --var NAME VALUE) for
                                   every script of the entry; "why" is one of the four above or
                                   "command line: WHERE" (the value the user's driver passes, and where);
    "mkdir": [{"path": "out/all", "why": "command line: run-pka.sh makes it"}]
                                   directories the driver makes before running (made in OUTDIR);
    "write": [{"path": "potential/potential.in", "text": "pair_style eam/fs\n…", "why": "command line: …"}]
                                   files the driver writes before running (a job script's here-document that
                                   fills in the potential), our text reproducing it, written in OUTDIR.
"""
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
WHY = ("size", "run length", "path", "potential")
# A command-line variable may also carry the value the user's own driver passes ("command line: run-pka.sh").
VAR_WHY = WHY + ("command line",)
# A corpus entry's own files that are not the user's (never copied into OUTDIR).
META = ("source.json", "in.orig")


class ReduceError(Exception):
    pass


def why_ok(why, allowed=WHY):
    return any(why == w or why.startswith(w + ":") for w in allowed)


def entry_files(d):
    """The entry's files (relative paths, subdirectories included), source.json left out."""
    out = []
    for root, dirs, files in os.walk(d):
        dirs.sort()
        for f in sorted(files):
            rel = os.path.relpath(os.path.join(root, f), d)
            if rel != "source.json":
                out.append(rel)
    return out


def load(name):
    d = os.path.join(CORPUS, name)
    if not os.path.isfile(os.path.join(d, "in.orig")):
        raise ReduceError(f"{d}/in.orig is not there: the users' files are not committed, "
                          "run validation/users/fetch_corpus.py first")
    try:
        src = json.load(open(os.path.join(d, "source.json")))
    except (OSError, ValueError) as e:
        raise ReduceError(f"{d}/source.json: {e}")
    return d, src


def reduce(name, outdir, potentials_dir=None):
    """Write OUTDIR/in.reduced and the entry's other files; return the edited file texts by name.
    A substitute potential named by file name is looked for in POTENTIALS_DIR (else $LAMMPS_POTENTIALS), where
    lmp and wafermd find it."""
    d, src = load(name)
    potentials_dir = potentials_dir or os.environ.get("LAMMPS_POTENTIALS")
    for p in src.get("potentials", []):
        sub = p.get("substitute")
        if not sub:
            continue
        where = sub if os.path.isabs(sub) or not potentials_dir else os.path.join(potentials_dir, sub)
        if (os.path.isabs(sub) or potentials_dir) and not os.path.exists(where):
            raise ReduceError(f"{name}: substitute potential {where} does not exist")
    texts = {}
    for f in entry_files(d):
        texts[f] = open(os.path.join(d, f), encoding="utf-8", errors="surrogateescape").read()
    for b in src.get("before", []):
        if b not in texts or b == "in.orig":
            raise ReduceError(f"{name}: 'before' script {b!r} is not one of the entry's files")
    for i, v in enumerate(src.get("vars", [])):
        if not (isinstance(v.get("name"), str) and v["name"] and isinstance(v.get("value"), str)):
            raise ReduceError(f"{name}: vars {i + 1}: 'name' and 'value' must be strings")
        if not why_ok(v.get("why", ""), VAR_WHY):
            raise ReduceError(f"{name}: vars {i + 1} ({v['name']}): why {v.get('why')!r} is not one of "
                              + ", ".join(VAR_WHY))
    for i, m in enumerate(src.get("mkdir", [])):
        p = m.get("path", "")
        if not p or os.path.isabs(p) or ".." in p.split("/") or not why_ok(m.get("why", ""), VAR_WHY):
            raise ReduceError(f"{name}: mkdir {i + 1}: a relative 'path' and a 'why' ("
                              + ", ".join(VAR_WHY) + ") are needed")
    for i, w in enumerate(src.get("write", [])):
        p = w.get("path", "")
        if (not p or os.path.isabs(p) or ".." in p.split("/") or not isinstance(w.get("text"), str)
                or not why_ok(w.get("why", ""), VAR_WHY)):
            raise ReduceError(f"{name}: write {i + 1}: a relative 'path', a 'text' and a 'why' ("
                              + ", ".join(VAR_WHY) + ") are needed")
    for i, e in enumerate(src.get("edits", [])):
        why = e.get("why", "")
        if not why_ok(why):
            raise ReduceError(f"{name}: edit {i + 1} ({e.get('from')!r}): why {why!r} is not one of "
                              + ", ".join(WHY) + " (a reduction changes only sizes, run lengths, paths, potentials)")
        f = e.get("file", "in.orig")
        if f not in texts or f == "source.json":
            raise ReduceError(f"{name}: edit {i + 1}: file {f!r} is not one of the entry's files")
        frm, to = e.get("from"), e.get("to")
        if not isinstance(frm, str) or not frm or not isinstance(to, str):
            raise ReduceError(f"{name}: edit {i + 1}: 'from' and 'to' must be strings ('from' not empty)")
        if frm not in texts[f]:
            raise ReduceError(f"{name}: edit {i + 1}: {frm!r} does not occur in {f} (after the edits before it)")
        texts[f] = texts[f].replace(frm, to)
    os.makedirs(outdir, exist_ok=True)
    for f, t in texts.items():
        dst = os.path.join(outdir, "in.reduced" if f == "in.orig" else f)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if f == "in.orig" or any(e.get("file") == f for e in src.get("edits", [])):
            open(dst, "w", encoding="utf-8", errors="surrogateescape").write(t)
        else:
            shutil.copyfile(os.path.join(d, f), dst)  # data files byte for byte
    for m in src.get("mkdir", []):
        os.makedirs(os.path.join(outdir, m["path"]), exist_ok=True)
    for w in src.get("write", []):
        dst = os.path.join(outdir, w["path"])
        os.makedirs(os.path.dirname(dst) or outdir, exist_ok=True)
        open(dst, "w", encoding="utf-8").write(w["text"])
    return texts


def scripts(src):
    """The entry's scripts in the order the driver runs them (the reduced names)."""
    return list(src.get("before", [])) + ["in.reduced"]


def variables(src):
    """The command-line variables as (name, value) pairs."""
    return [(v["name"], v["value"]) for v in src.get("vars", [])]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    try:
        reduce(sys.argv[1], sys.argv[2])
    except ReduceError as e:
        sys.exit(f"reduce.py: {e}")


if __name__ == "__main__":
    main()
