#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The Python package against Python's own floor and numpy, side by side
(bench/README.md, "The Python package").

  /usr/bin/python3 bench/bench_py.py [--pkg DIR] [--quick] [--rounds N] [--syscalls]

--pkg: where the npyguard package is installed (default build/python, where
ci/python-test.sh installs it). Three comparisons, in one process; in each,
the contenders run in turn within every round (rotating which goes first),
after one unmeasured warm-up each, and the figure is the ratio of the
medians:

 (a) 2,000 small .npy files written by numpy (a spread of dtypes and
     shapes, 80 B to 4 KiB of payload): npyguard.load(path) for each,
     against the floor, Python's own open-read-close of the same files
     (os.open, os.read, np.frombuffer, os.close: nothing parsed, nothing
     checked), and numpy.load(path) for information;
 (b) a 256 MiB float64 array in a BytesIO: npyguard.load against
     numpy.load (each from position 0, the BytesIO made once);
 (c) 64 arrays of 4 MiB as bytes, loaded by 1 thread and by 8 threads
     (npyguard.load(bytes)): the speed-up of 8 threads over 1, which the
     cores of the machine bound (os.cpu_count() is printed with it).
(a) and (b) are timed in CPU time (time.process_time), (c) in wall time.
--syscalls adds, where strace is installed, the system calls of one load
of one of the small files, by npyguard.load and by the floor (strace -f
in a child process, counted between two markers).
On a machine shared with other work, (c) also measures the scheduler: 8
runnable threads get more of a busy machine than 1.
Nothing asserts a figure; the machine may be shared, so read the ratios.
"""
import argparse
import io
import json
import os
import shutil
import sys
import tempfile
import threading
import time

import numpy as np

from rotation import rounds_of

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def small_files(d, n):
    rng = np.random.default_rng(7)
    kinds = ["<f8", "<i4", "|u1", "<c16", ">i2", "|b1", "<M8[s]", "|S7", "<U3", [("a", "<i4"), ("b", "<f8")]]
    paths = []
    for k in range(n):
        sub = os.path.join(d, "%02d" % (k % 50))
        os.makedirs(sub, exist_ok=True)
        dt = np.dtype(kinds[k % len(kinds)])
        count = int(rng.integers(10, max(11, 4096 // dt.itemsize)))
        a = np.zeros(count, dt)
        if k % 3 == 0 and count % 2 == 0:
            a = a.reshape(2, -1)
        if k % 7 == 0 and a.ndim == 2:
            a = np.asfortranarray(a)
        p = os.path.join(sub, "f%05d.npy" % k)
        np.save(p, a)
        paths.append(p)
    return paths


def floor_load(p):
    fd = os.open(p, os.O_RDONLY)
    try:
        return np.frombuffer(os.read(fd, 1 << 16), np.uint8)
    finally:
        os.close(fd)


SYSCALL_CHILD = r"""
import os, sys
sys.path.insert(0, sys.argv[1])
import numpy as np, npyguard
exec(sys.argv[3])
p = sys.argv[2]
npyguard.load(p); floor_load(p)  # warm: imports, caches
for name, fn in (("npyguard", npyguard.load), ("floor", floor_load)):
    os.write(1, b"<" + name.encode() + b">")
    fn(p)
    os.write(1, b"</" + name.encode() + b">")
"""


def syscalls_per_load(pkg, path):
    """{contender: [syscall names]} of one load of path, or None without
    strace."""
    strace = shutil.which("strace")
    if not strace:
        return None
    import inspect
    import subprocess
    with tempfile.NamedTemporaryFile("r", suffix=".strace") as log:
        subprocess.run([strace, "-f", "-qq", "-o", log.name, sys.executable, "-c", SYSCALL_CHILD, pkg, path,
                        inspect.getsource(floor_load)], check=True, stdout=subprocess.DEVNULL)
        calls, current = {}, None
        for line in log:
            call = line.split("(", 1)[0].split()[-1] if "(" in line else ""
            if call == "write" and '"<' in line:
                tag = line.split('"<', 1)[1].split(">", 1)[0]
                current = None if tag.startswith("/") else tag
                if current:
                    calls[current] = []
            elif current and call:
                calls[current].append(call)
        return calls


def threaded(fn, items, threads):
    parts = [items[k::threads] for k in range(threads)]
    ts = [threading.Thread(target=lambda part=part: [fn(x) for x in part]) for part in parts]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pkg", default=os.path.join(ROOT, "build", "python"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=0)
    ap.add_argument("--syscalls", action="store_true")
    a = ap.parse_args()
    sys.path.insert(0, a.pkg)
    import npyguard
    if not npyguard.__file__.startswith(os.path.abspath(a.pkg)):
        sys.exit("bench_py: no npyguard package in %s (run ci/python-test.sh DIR)" % a.pkg)
    rounds = a.rounds or (5 if a.quick else 11)
    out = {"cpus": os.cpu_count(), "rounds": rounds}
    tmp = tempfile.mkdtemp(prefix="npyguard-bench-py-")
    try:
        paths = small_files(tmp, 2000)
        m = rounds_of({"npyguard": lambda: [npyguard.load(p) for p in paths],
                       "floor": lambda: [floor_load(p) for p in paths],
                       "numpy": lambda: [np.load(p, allow_pickle=False) for p in paths]}, rounds,
                      time.process_time)
        us = {k: v * 1e6 / len(paths) for k, v in m.items()}
        out["small_files"] = {"files": len(paths), "us_per_file": us, "npyguard_over_floor": us["npyguard"] / us["floor"],
                              "numpy_over_npyguard": us["numpy"] / us["npyguard"]}
        print("(a) %d small files, CPU time: npyguard %.1f us, floor %.1f us, numpy.load %.1f us per file; "
              "npyguard/floor %.2fx, numpy/npyguard %.2fx" % (len(paths), us["npyguard"], us["floor"], us["numpy"],
                                                             us["npyguard"] / us["floor"],
                                                             us["numpy"] / us["npyguard"]), flush=True)
        calls = syscalls_per_load(a.pkg, paths[0]) if a.syscalls else None
        if calls:
            out["small_files"]["syscalls"] = calls
            print("    system calls of one load: " + "; ".join("%s %d (%s)" % (k, len(v), ", ".join(v))
                                                           for k, v in calls.items()), flush=True)

        big = io.BytesIO()
        np.save(big, np.random.default_rng(1).standard_normal((64 if a.quick else 256) << 17))
        mib = len(big.getbuffer()) >> 20

        def from_bytesio(load):
            big.seek(0)
            return load(big)

        m = rounds_of({"npyguard": lambda: from_bytesio(npyguard.load),
                       "numpy": lambda: from_bytesio(lambda f: np.load(f, allow_pickle=False))},
                      max(3, rounds // 2), time.process_time)
        out["bytesio"] = {"mib": mib, "seconds": m, "npyguard_over_numpy": m["npyguard"] / m["numpy"]}
        print("(b) BytesIO of %d MiB, CPU time: npyguard %.3f s, numpy.load %.3f s; npyguard/numpy %.2fx"
              % (mib, m["npyguard"], m["numpy"], m["npyguard"] / m["numpy"]), flush=True)
        del big

        blobs = []
        for k in range(64):
            buf = io.BytesIO()
            np.save(buf, np.full(1 << 19, k, "<f8"))  # 4 MiB
            blobs.append(buf.getvalue())
        m = rounds_of({"1 thread": lambda: threaded(npyguard.load, blobs, 1),
                       "8 threads": lambda: threaded(npyguard.load, blobs, 8)}, rounds)
        out["threads"] = {"arrays": len(blobs), "seconds": m, "speedup": m["1 thread"] / m["8 threads"]}
        print("(c) 64 x 4 MiB from bytes, wall time: 1 thread %.3f s, 8 threads %.3f s; speed-up %.2fx on %d CPUs"
              % (m["1 thread"], m["8 threads"], m["1 thread"] / m["8 threads"], os.cpu_count()), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
