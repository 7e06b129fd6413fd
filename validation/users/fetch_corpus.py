#!/usr/bin/python3
"""Put back the users' own files of the corpus (validation/users/corpus/NAME/in.orig and the data files it reads)
from fetched copies of their public repositories: the files are not committed (they are other people's content);
each entry's source.json names them exactly and this script takes them out of a git copy of the repository at the
recorded commit and checks their sha256.

usage: validation/users/fetch_corpus.py [--mirrors DIR] [NAME...]

DIR (default /work/.mirror) holds one bare-or-normal git directory per repository as OWNER+NAME/repo (the layout
the search tool's `fetch github:OWNER/NAME` leaves). An entry whose repository is not there is listed with the
fetch to do. source.json: "repo", "commit", "path" (the script), "sha256" (of in.orig) and optionally "files":
[{"name": "data.x", "path": "dir/data.x", "sha256": "…"}] for the files the script reads.
"""
import hashlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")


def git_show(gitdir, commit, path):
    return subprocess.run(["git", "--git-dir", gitdir, "show", f"{commit}:{path}"], capture_output=True,
                          check=True).stdout


def main():
    args = sys.argv[1:]
    mirrors = "/work/.mirror"
    if args[:1] == ["--mirrors"]:
        mirrors, args = args[1], args[2:]
    names = args or sorted(n for n in os.listdir(CORPUS) if os.path.isfile(os.path.join(CORPUS, n, "source.json")))
    missing, bad = [], 0
    for name in names:
        d = os.path.join(CORPUS, name)
        src = json.load(open(os.path.join(d, "source.json")))
        gitdir = os.path.join(mirrors, src["repo"].replace("/", "+"), "repo")
        if os.path.isdir(os.path.join(gitdir, ".git")):  # a normal clone rather than a bare git directory
            gitdir = os.path.join(gitdir, ".git")
        if not os.path.isdir(gitdir):
            missing.append(src["repo"])
            continue
        want = [("in.orig", src["path"], src.get("sha256"))]
        want += [(f["name"], f["path"], f.get("sha256")) for f in src.get("files", [])]
        for out, path, sha in want:
            try:
                data = git_show(gitdir, src["commit"], path)
            except subprocess.CalledProcessError as e:
                print(f"{name}: {path} at {src['commit']}: {e.stderr.decode().strip()}")
                bad += 1
                continue
            got = hashlib.sha256(data).hexdigest()
            if sha and got != sha:
                print(f"{name}: {path}: sha256 {got} is not the recorded {sha}")
                bad += 1
                continue
            open(os.path.join(d, out), "wb").write(data)
    for r in sorted(set(missing)):
        print(f"not fetched: {r} (fetch github:{r}, then run this again)")
    sys.exit(1 if bad or missing else 0)


if __name__ == "__main__":
    main()
