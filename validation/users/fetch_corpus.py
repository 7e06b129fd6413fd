#!/usr/bin/python3
"""Put back the users' own files of the corpus (validation/users/corpus/NAME/in.orig and the data files it reads)
from git copies of their public repositories: the files are not committed (they are other people's content);
each entry's source.json names them exactly and this script takes them out of a git copy of the repository at the
recorded commit and checks their sha256.

usage: validation/users/fetch_corpus.py [--mirrors DIR] [--clone [--cache DIR]] [NAME...]

--mirrors DIR (default $WAFERMD_CORPUS_MIRRORS; none when unset) holds one bare-or-normal git directory per repository as OWNER+NAME/repo (the
layout the search tool's `fetch github:OWNER/NAME` leaves). An entry whose repository is not there is listed with
the fetch to do, unless --clone is given: then the repository is cloned from https://github.com/OWNER/NAME into
--cache DIR (default ~/.cache/wafermd-corpus) as OWNER+NAME/repo, the recorded commit is fetched if the clone
lacks it and checked out (detached), and the files are taken from that commit. A clone already in the cache is
reused. source.json: "repo", "commit", "path" (the script), "sha256" (of in.orig) and optionally "files":
[{"name": "data.x", "path": "dir/data.x", "sha256": "…"}] for the files the script reads ("name" may contain
directories: "potentials/Fe.eam.fs").
"""
import hashlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
GITHUB = "https://github.com/{}"


def git(*args, **kw):
    return subprocess.run(["git", *args], capture_output=True, check=True, **kw).stdout


def git_show(gitdir, commit, path):
    return git("--git-dir", gitdir, "show", f"{commit}:{path}")


def git_dir(root, repo):
    """The git directory of OWNER/NAME under root (bare, or the .git of a normal clone), or None."""
    if not root:
        return None
    d = os.path.join(root, repo.replace("/", "+"), "repo")
    if os.path.isdir(os.path.join(d, ".git")):
        return os.path.join(d, ".git")
    return d if os.path.isdir(d) else None


def clone(cache, repo, commit):
    """Clone https://github.com/OWNER/NAME into the cache (once) and check out the commit; return its git dir."""
    work = os.path.join(cache, repo.replace("/", "+"), "repo")
    if not os.path.isdir(os.path.join(work, ".git")):
        os.makedirs(os.path.dirname(work), exist_ok=True)
        url = GITHUB.format(repo)
        print(f"cloning {url} into {work}", flush=True)
        git("clone", "--quiet", url, work)
    try:
        git("-C", work, "cat-file", "-e", f"{commit}^{{commit}}")
    except subprocess.CalledProcessError:  # a commit the default clone does not reach (another branch, force-push)
        git("-C", work, "fetch", "--quiet", "origin", commit)
    git("-C", work, "checkout", "--quiet", "--detach", commit)
    return os.path.join(work, ".git")


def main():
    args = sys.argv[1:]
    mirrors = os.environ.get("WAFERMD_CORPUS_MIRRORS")
    cache, use_clone = os.path.expanduser("~/.cache/wafermd-corpus"), False
    while args and args[0].startswith("--"):
        if args[0] == "--mirrors" and len(args) > 1:
            mirrors, args = args[1], args[2:]
        elif args[0] == "--cache" and len(args) > 1:
            cache, args = args[1], args[2:]
        elif args[0] == "--clone":
            use_clone, args = True, args[1:]
        else:
            sys.exit(__doc__)
    names = args or sorted(n for n in os.listdir(CORPUS) if os.path.isfile(os.path.join(CORPUS, n, "source.json")))
    missing, bad = [], 0
    for name in names:
        d = os.path.join(CORPUS, name)
        src = json.load(open(os.path.join(d, "source.json")))
        gitdir = git_dir(mirrors, src["repo"]) or (use_clone and git_dir(cache, src["repo"]))
        if use_clone:
            try:
                gitdir = clone(cache, src["repo"], src["commit"]) if not gitdir or gitdir.startswith(cache) else gitdir
            except subprocess.CalledProcessError as e:
                print(f"{name}: git {' '.join(e.cmd[1:3])} …: {e.stderr.decode().strip()}")
                bad += 1
                continue
        if not gitdir:
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
            dst = os.path.join(d, out)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            open(dst, "wb").write(data)
    for r in sorted(set(missing)):
        print(f"not fetched: {r} (fetch github:{r}, or run this again with --clone)")
    sys.exit(1 if bad or missing else 0)


if __name__ == "__main__":
    main()
