#!/usr/bin/env python3
"""Builds the hostile compressed inputs (tests/hostile/manifest.txt, *.gz) in a scratch directory: a data file
whose header is valid and whose gzip stream inflates a thousandfold (about 400 MB of blanks from 0.4 MB), so
that a case can show the inflated size is bounded before it is held in memory.
Usage: make_compressed.py DIR   (DIR holds a copy of tests/hostile/cases)"""
import os
import sys
import zlib


def main():
    d = sys.argv[1]
    header = b"LAMMPS data file\n\n4 atoms\n1 atom types\n0 1 xlo xhi\n0 1 ylo yhi\n0 1 zlo zhi\n\n"
    z = zlib.compressobj(9, zlib.DEFLATED, 31)  # wbits 31: a gzip stream
    blanks = b" " * (1 << 20)
    with open(os.path.join(d, "bomb.data.gz"), "wb") as f:
        f.write(z.compress(header))
        for _ in range(400):
            f.write(z.compress(blanks))
        f.write(z.flush())


if __name__ == "__main__":
    main()
