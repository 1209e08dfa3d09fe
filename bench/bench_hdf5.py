#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The HDF5 cage's cost per file, side by side with an unsandboxed h5py walk.

    /usr/bin/python3 bench/bench_hdf5.py build/release/parser/npyvalidate [DIR] [--rounds N] [--copies K]

DIR defaults to corpus/hdf5/valid (every .h5 and .mat under it).

npyguard: `npyvalidate -q -j1` over the files K times and once; the
difference, divided by (K - 1) x files, is the cost of one more file
(one fresh caged child, libhdf5's walk, the records), without the
process's start and the helper's (reported apart: the wall time of
`npyvalidate --sandbox-info`, which starts the helper and nothing else).

h5py: one Python process with h5py imported opens each file, reads every
dataset (`d[()]`) and every attribute of every object, and closes it, K
times over; its per-file figure is the mean of that loop, timed inside
the process, so it is charged no start-up at all.

Rounds alternate the contenders (warm-up first, unmeasured); each figure
is the median of the rounds and the result is the ratio of the medians,
of wall time and of CPU time (user + system; for npyvalidate that of the
process, its helper and every child). On a loaded machine the wall figure
of a process per file also counts the waits for a CPU at each of the
hand-overs (parent, helper, child), which the in-process walk does not
have: the CPU figure is the cost itself.
"""
import argparse
import json
import os
import resource
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
c0, t0 = time.process_time(), time.perf_counter()
for _ in range(copies):
    for p in paths:
        with h5py.File(p, "r") as f:
            reads += visit(f)
t1, c1 = time.perf_counter(), time.process_time()
print(json.dumps({"seconds": t1 - t0, "cpu": c1 - c0, "reads": reads}))
"""


def files_under(top):
    out = []
    for d, _, names in os.walk(top):
        out += [os.path.join(d, n) for n in names if n.endswith((".h5", ".mat"))]
    return sorted(out)


def cpu_of_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_npyvalidate(exe, paths):
    """Wall and CPU seconds; the CPU counts the helper and its children
    (each reaped by its parent), and nothing else."""
    c0, t0 = cpu_of_children(), time.perf_counter()
    p = subprocess.run([exe, "-q", "-j1"] + paths, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    t1, c1 = time.perf_counter(), cpu_of_children()
    if p.returncode not in (0, 1):
        sys.exit("npyvalidate failed: %s" % p.stderr.decode()[-300:])
    return t1 - t0, c1 - c0


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
    ours, ours_cpu, fixed, theirs, theirs_cpu = [], [], [], [], []
    for r in range(a.rounds):
        order = [0, 1] if r % 2 == 0 else [1, 0]
        for who in order:
            if who == 0:
                tk, ck = run_npyvalidate(a.npyvalidate, many)
                t1, c1 = run_npyvalidate(a.npyvalidate, paths)
                ours.append((tk - t1) / ((k - 1) * n))
                ours_cpu.append((ck - c1) / ((k - 1) * n))
                t0 = time.perf_counter()
                subprocess.run([a.npyvalidate, "--sandbox-info"], stdout=subprocess.DEVNULL, check=True)
                fixed.append(time.perf_counter() - t0)
            else:
                h = run_h5py(paths, k)
                theirs.append(h["seconds"] / (k * n))
                theirs_cpu.append(h["cpu"] / (k * n))
    med = statistics.median
    o, t, oc, tc = med(ours), med(theirs), med(ours_cpu), med(theirs_cpu)
    print("%d files, %.3f MB (%.1f KB per file), %d rounds, %d copies, load average %s" % (
        n, mb, 1000 * mb / n, a.rounds, k, open("/proc/loadavg").read().split()[0]))
    print("%-32s %11s %11s %11s %11s" % ("", "wall/file", "wall/MB", "CPU/file", "CPU/MB"))
    for name, w, c in (("npyvalidate -j1 (caged child)", o, oc), ("h5py in-process walk, no cage", t, tc)):
        print("%-32s %8.3f ms %8.1f ms %8.3f ms %8.1f ms" % (name, 1000 * w, 1000 * w * n / mb, 1000 * c,
                                                           1000 * c * n / mb))
    print("ratio of the medians: wall %.2fx, CPU %.2fx" % (o / t, oc / tc))
    print("once per run: npyvalidate --sandbox-info (start, the helper's start, libhdf5's load, the cage): "
          "%.1f ms wall" % (1000 * med(fixed)))
    print("rounds (wall ms per file): npyvalidate %s; h5py %s" % (
        " ".join("%.3f" % (1000 * x) for x in ours), " ".join("%.3f" % (1000 * x) for x in theirs)))


if __name__ == "__main__":
    main()
