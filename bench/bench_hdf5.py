#!/usr/bin/env python3
"""The HDF5 cage's cost per file, side by side with an unsandboxed h5py walk.

    /usr/bin/python3 bench/bench_hdf5.py build/release/parser/npyvalidate [DIR] [--rounds N] [--copies K]

DIR defaults to corpus/hdf5/valid (every .h5 and .mat under it).

npyguard: `npyvalidate -q -j1` over the files K times and once; the
difference, divided by (K - 1) x files, is the cost of one more file
(one fresh caged child, libhdf5's walk, the records), without the
process's start and the helper's (reported apart as the fixed cost).

h5py: one Python process with h5py imported opens each file, reads every
dataset (`d[()]`) and every attribute of every object, and closes it, K
times over; its per-file figure is the mean of that loop, timed inside
the process, so it is charged no start-up at all.

Rounds alternate the contenders (warm-up first, unmeasured); each figure
is the median of the rounds and the result is the ratio of the medians.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

WALK = r"""
import json, sys, time, h5py
paths, copies = json.loads(sys.argv[1]), int(sys.argv[2])
def visit(f):
    n = 0
    def one(name, obj):
        nonlocal n
        for k in obj.attrs:
            obj.attrs[k]; n += 1
        if isinstance(obj, h5py.Dataset):
            obj[()]; n += 1
    for k in f.attrs:
        f.attrs[k]; n += 1
    f.visititems(one)
    return n
reads = 0
t0 = time.perf_counter()
for _ in range(copies):
    for p in paths:
        with h5py.File(p, "r") as f:
            reads += visit(f)
t1 = time.perf_counter()
print(json.dumps({"seconds": t1 - t0, "reads": reads}))
"""


def files_under(top):
    out = []
    for d, _, names in os.walk(top):
        out += [os.path.join(d, n) for n in names if n.endswith((".h5", ".mat"))]
    return sorted(out)


def run_npyvalidate(exe, paths):
    t0 = time.perf_counter()
    p = subprocess.run([exe, "-q", "-j1"] + paths, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    t1 = time.perf_counter()
    if p.returncode not in (0, 1):
        sys.exit("npyvalidate failed: %s" % p.stderr.decode()[-300:])
    return t1 - t0


def run_h5py(paths, copies):
    p = subprocess.run(["/usr/bin/python3", "-c", WALK, json.dumps(paths), str(copies)], capture_output=True,
                       text=True, check=True)
    return json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("npyvalidate")
    ap.add_argument("dir", nargs="?", default=os.path.join(os.path.dirname(__file__), "..", "corpus", "hdf5", "valid"))
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--copies", type=int, default=5)
    a = ap.parse_args()
    paths = files_under(a.dir)
    n, k = len(paths), a.copies
    mb = sum(os.path.getsize(p) for p in paths) / 1e6
    many = paths * k
    run_npyvalidate(a.npyvalidate, many)  # warm-up: page cache, both sides
    run_h5py(paths, 1)
    ours, fixed, theirs = [], [], []
    for r in range(a.rounds):
        order = [0, 1] if r % 2 == 0 else [1, 0]
        for who in order:
            if who == 0:
                tk = run_npyvalidate(a.npyvalidate, many)
                t1 = run_npyvalidate(a.npyvalidate, paths)
                per = (tk - t1) / ((k - 1) * n)
                ours.append(per)
                fixed.append(t1 - n * per)
            else:
                theirs.append(run_h5py(paths, k)["seconds"] / (k * n))
    o, t, f = statistics.median(ours), statistics.median(theirs), statistics.median(fixed)
    print("%d files, %.3f MB (%.1f KB per file), %d rounds, %d copies" % (n, mb, 1000 * mb / n, a.rounds, k))
    print("%-34s %10s %10s" % ("", "per file", "per MB"))
    print("%-34s %8.3f ms %8.1f ms" % ("npyvalidate -j1 (caged child)", 1000 * o, 1000 * o * n / mb))
    print("%-34s %8.3f ms %8.1f ms" % ("h5py in-process walk, no cage", 1000 * t, 1000 * t * n / mb))
    print("ratio of the medians: %.2fx" % (o / t))
    print("fixed cost of one run (process start, the helper's start and libhdf5's load): %.1f ms" % (1000 * f))
    print("rounds (ms per file): npyvalidate %s; h5py %s" % (
        " ".join("%.3f" % (1000 * x) for x in ours), " ".join("%.3f" % (1000 * x) for x in theirs)))


if __name__ == "__main__":
    main()
