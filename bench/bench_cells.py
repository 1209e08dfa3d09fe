#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""How loading a cell array grows with its cells: npyguard.loadmat side by
side with hdf5storage.loadmat on files hdf5storage.savemat writes, a cell
of N float scalars (bench/README.md).

  /usr/bin/python3 bench/bench_cells.py [--pkg DIR] [--rounds N] [--cells 400,4000] [--peer-up-to N]

--pkg: where the npyguard package is installed (default build/python).
--peer-up-to: hdf5storage only at sizes up to N cells (its own reading
of a large cell can take minutes on a loaded machine); its growth is
then not printed.

Each size's file is written once; the two readers then alternate within
each round after an unmeasured warm-up, in this process (npyguard's helper
already running, as in a program that loads many files). The figures are
the median wall time per load over the rounds, the ratio npyguard /
hdf5storage at each size, and each reader's growth: its median at the
largest size over its median at the smallest (linear is the ratio of the
sizes; a step that is quadratic in the cells shows as the square). Nothing
asserts a figure: read the ratios.
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def write_cells(path, n):
    import hdf5storage
    import numpy as np
    c = np.empty((n,), dtype=object)
    for i in range(n):
        c[i] = float(i)
    hdf5storage.savemat(path, {"c": c}, format="7.3")


def medians(contenders, path, rounds):
    for fn in contenders.values():
        fn(path)
    times = {name: [] for name in contenders}
    names = list(contenders)
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            t0 = time.perf_counter()
            contenders[name](path)
            times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(v) for name, v in times.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pkg", default=os.path.join(ROOT, "build", "python"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cells", default="400,1000,2000,4000")
    ap.add_argument("--peer-up-to", type=int, default=None)
    a = ap.parse_args()
    sys.path.insert(0, a.pkg)
    import hdf5storage
    import npyguard
    sizes = [int(s) for s in a.cells.split(",")]
    contenders = {"npyguard.loadmat": npyguard.loadmat, "hdf5storage.loadmat": hdf5storage.loadmat}
    got = {}
    with tempfile.TemporaryDirectory(prefix="npyguard-bench-") as d:
        print("%8s %18s %20s %8s" % ("cells", "npyguard s", "hdf5storage s", "ratio"))
        for n in sizes:
            path = os.path.join(d, "cells%d.mat" % n)
            write_cells(path, n)
            peer = a.peer_up_to is None or n <= a.peer_up_to
            got[n] = medians(contenders if peer else {"npyguard.loadmat": npyguard.loadmat}, path, a.rounds)
            g, h = got[n]["npyguard.loadmat"], got[n].get("hdf5storage.loadmat")
            if h is None:
                print("%8d %18.3f %20s %8s" % (n, g, "-", "-"), flush=True)
            else:
                print("%8d %18.3f %20.3f %8.2f" % (n, g, h, g / h), flush=True)
    lo, hi = sizes[0], sizes[-1]
    for name in contenders:
        if name in got[hi] and name in got[lo]:
            print("%s: %d cells take %.2f times as long as %d (linear: %.1f)"
                  % (name, hi, got[hi][name] / got[lo][name], lo, hi / lo))


if __name__ == "__main__":
    main()
