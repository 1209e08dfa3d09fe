#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Two builds of the HDF5 helper against each other: processes that
alternate A and B, each loading every file of corpus/hdf5/valid/h5 with
load_hdf5 after one unmeasured pass. Per file, each process gives its
wall time (the fastest of its passes), its own CPU and the CPU of its
helper and the helper's children (reaped, from /proc/PID/stat); the
figure is the median of the ratios B/A of the pairs, which met the same
machine.

  /usr/bin/python3 bench/helper_ab.py HELPER_A HELPER_B [--pairs N] [--passes K] [--pkg DIR]

A helper is a path to npyg-hdf5-helper with its stand-ins beside it
(copy build/release/parser/npyg-hdf5-helper and npyg-h5-noc*.so into a
directory per build). On two noisy cores a pair's ratio moves by a
fifth either way: take 30 pairs of 2 passes to see 5%.
"""
import argparse
import os
import statistics
import subprocess

import h5_loop

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FIGURES = ("wall", "caller CPU", "helper and children CPU")


def run(helper, pkg, passes):
    env = dict(os.environ, NPYG_HDF5_HELPER=helper)
    out = subprocess.run(h5_loop.command(pkg, passes, "--times"), env=env,
                         capture_output=True, text=True, check=True).stdout
    return [float(x) for x in out.split()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--pairs", type=int, default=30)
    ap.add_argument("--passes", type=int, default=2)
    ap.add_argument("--pkg", default=os.path.join(ROOT, "build", "python"))
    args = ap.parse_args()
    got = {"a": [], "b": []}
    for i in range(args.pairs):
        for who in ("a", "b") if i % 2 == 0 else ("b", "a"):
            got[who].append(run(getattr(args, who), args.pkg, args.passes))
    print("%d pairs of %d passes; per file, medians; B/A the median of the pairs' ratios" % (args.pairs, args.passes))
    for k, name in enumerate(FIGURES):
        a = [x[k] for x in got["a"]]
        b = [x[k] for x in got["b"]]
        r = sorted(y / x for x, y in zip(a, b))
        print("  %-24s A %.3f ms  B %.3f ms  B/A %.3f (%.2f to %.2f)"
              % (name, statistics.median(a) * 1e3, statistics.median(b) * 1e3, statistics.median(r), r[0], r[-1]))


if __name__ == "__main__":
    main()
