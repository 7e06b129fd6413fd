#!/usr/bin/env python3
"""Builds the hostile checkpoints (tests/hostile/manifest.txt, ckpt_*) in a scratch directory: a valid
checkpoint written by wafermd itself from cases/in.ok, then copies with one value, shape or dataset changed
(h5py) or the file itself cut or replaced.
Usage: make_checkpoints.py WAFERMD DIR   (DIR holds a copy of tests/hostile/cases)"""
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np


def mutate(base, out, change):
    shutil.copyfile(base, out)
    with h5py.File(out, "r+") as f:
        change(f)


def replace(f, name, data):
    del f[name]
    f[name] = data


def main():
    exe, d = sys.argv[1], sys.argv[2]
    subprocess.run([exe, "run", "in.ok", "--set", "output.checkpoint_every=5", "--output", "ckpt_base"],
                   cwd=d, check=True, stdout=subprocess.DEVNULL)
    base = os.path.join(d, "ckpt_base", "checkpoint.h5")
    p = lambda n: os.path.join(d, n + ".h5")
    with h5py.File(base, "r") as f:
        n = len(f["atoms/x"])
    mutate(base, p("ckpt_type_negative"), lambda f: replace(f, "atoms/type", -3 * np.ones(n, dtype=f["atoms/type"].dtype)))
    mutate(base, p("ckpt_x_half"), lambda f: replace(f, "atoms/x", f["atoms/x"][: n // 2]))
    mutate(base, p("ckpt_natoms_huge"), lambda f: replace(f, "meta/natoms", np.array([1 << 40], dtype=f["meta/natoms"].dtype)))
    mutate(base, p("ckpt_dt_inf"), lambda f: replace(f, "meta/dt", np.array([np.inf])))
    mutate(base, p("ckpt_box_flat"), lambda f: replace(f, "box/hi", f["box/lo"][:]))
    mutate(base, p("ckpt_mass_negative"), lambda f: replace(f, "types/mass", -f["types/mass"][:]))
    mutate(base, p("ckpt_ids_zero"), lambda f: replace(f, "atoms/id", np.zeros(n, dtype=f["atoms/id"].dtype)))
    mutate(base, p("ckpt_rank_counts_more"), lambda f: replace(f, "atoms/rank_counts", f["atoms/rank_counts"][:] + 5))
    mutate(base, p("ckpt_vx_missing"), lambda f: f.__delitem__("atoms/vx"))
    mutate(base, p("ckpt_x_matrix"), lambda f: replace(f, "atoms/x", np.zeros((n, 3))))
    data = open(base, "rb").read()
    open(p("ckpt_truncated"), "wb").write(data[: len(data) * 6 // 10])
    open(p("ckpt_not_hdf5"), "w").write("this is not an HDF5 file\n")


if __name__ == "__main__":
    main()
