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
"""
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
WHY = ("size", "run length", "path", "potential")
# A corpus entry's own files that are not the user's (never copied into OUTDIR).
META = ("source.json", "in.orig")


class ReduceError(Exception):
    pass


def why_ok(why):
    return any(why == w or why.startswith(w + ":") for w in WHY)


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


def reduce(name, outdir):
    """Write OUTDIR/in.reduced and the entry's other files; return the edited file texts by name."""
    d, src = load(name)
    for p in src.get("potentials", []):
        sub = p.get("substitute")
        if sub and not os.path.exists(sub):
            raise ReduceError(f"{name}: substitute potential {sub} does not exist")
    texts = {}
    for f in sorted(os.listdir(d)):
        if f != "source.json" and os.path.isfile(os.path.join(d, f)):
            texts[f] = open(os.path.join(d, f), encoding="utf-8", errors="surrogateescape").read()
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
        dst = "in.reduced" if f == "in.orig" else f
        if f == "in.orig" or any(e.get("file") == f for e in src.get("edits", [])):
            open(os.path.join(outdir, dst), "w", encoding="utf-8", errors="surrogateescape").write(t)
        else:
            shutil.copyfile(os.path.join(d, f), os.path.join(outdir, dst))  # data files byte for byte
    return texts


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    try:
        reduce(sys.argv[1], sys.argv[2])
    except ReduceError as e:
        sys.exit(f"reduce.py: {e}")


if __name__ == "__main__":
    main()
