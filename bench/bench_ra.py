#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The RawArray load against the format's own Python reader, side by side
(bench/README.md, "RawArray load").

  /usr/bin/python3 bench/bench_ra.py [--build DIR] [--ra-py PATH] [--rounds N] [--mib N]

Two files are written to a temporary directory from numpy (the layout of
gen/gen_ra.py): a plain one, float32 with dims (1024, N), and an LZ4 one,
uint16 with dims (1024, N) holding a slowly varying ramp (one LZ4 block made
by liblz4). Each contender loads one file in a fresh process and times the
load alone, result touched (every page read once):

  plain file:  npyguard  (build/bench/bench_ra: npyg_set_input_fd and npyg_ra_open, then
                          npyg_ra_read_data into a fresh buffer)
               ra.py     (the reference reader, python/ra.py of
                          davidssmith/ra: ra.read(path))
               fromfile  (numpy.fromfile of the data segment, reshaped in
                          Fortran order: the floor for a Python reader)
  LZ4 file:    npyguard, and the floor: the file read whole and one
               LZ4_decompress_safe into a fresh buffer, which is what the
               reference C reader's ra_read and ra_decompress do (ra.py
               cannot read compressed files).

Contenders alternate in one run, rotating which goes first, after one
unmeasured warm-up each (which also fills the page cache); the figure is
the ratio of the medians. Nothing asserts a figure.
"""
import argparse
import ctypes
import ctypes.util
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = "/usr/bin/python3"

CHILD = r"""
import json, sys, time, warnings
import numpy as np
warnings.simplefilter("ignore")   # ra.py calls np.fromstring
who, path = sys.argv[1], sys.argv[2]
if who == "ra.py":
    sys.path.insert(0, sys.argv[3])
    import ra
    t = time.perf_counter()
    a = ra.read(path)
else:
    off, dtype, dims = int(sys.argv[3]), sys.argv[4], [int(d) for d in sys.argv[5].split(",")]
    t = time.perf_counter()
    a = np.fromfile(path, dtype=dtype, offset=off).reshape(dims, order="F")
s = a.ravel(order="K").view("u1")[::4096].sum()
print(json.dumps({"s": time.perf_counter() - t, "bytes": a.nbytes}))
"""


def ra_file(path, arr, compress):
    lz4 = ctypes.CDLL(ctypes.util.find_library("lz4") or "liblz4.so.1")
    data = arr.tobytes(order="F")
    if compress:
        bound = lz4.LZ4_compressBound(len(data))
        out = ctypes.create_string_buffer(bound)
        n = lz4.LZ4_compress_default(data, out, len(data), bound)
        data = out.raw[:n]
    flags = 2 if compress else 0
    eltype = {"f": 3, "u": 2}[arr.dtype.kind]
    with open(path, "wb") as f:
        f.write(b"rawarray" + struct.pack("<5Q", flags, eltype, arr.dtype.itemsize, len(data), arr.ndim))
        f.write(b"".join(struct.pack("<Q", d) for d in arr.shape) + data)
    return 48 + 8 * arr.ndim


def measure(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def race(contenders, rounds):
    times = {name: [] for name in contenders}
    for name, cmd in contenders.items():
        measure(cmd)  # warm-up
    names = list(contenders)
    for k in range(rounds):
        for name in names[k % len(names):] + names[:k % len(names)]:
            times[name].append(measure(contenders[name])["s"])
    return {name: statistics.median(t) for name, t in times.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build", "release"))
    ap.add_argument("--ra-py", default=None, help="directory holding the reference ra.py")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--mib", type=int, default=256, help="size of each array")
    a = ap.parse_args()
    exe = os.path.join(a.build, "bench", "bench_ra")
    tmp = tempfile.mkdtemp(prefix="npyguard-bench-ra-")
    try:
        n = a.mib * (1 << 20) // 4 // 1024
        plain = os.path.join(tmp, "plain.ra")
        off = ra_file(plain, np.arange(1024 * n, dtype="<f4").reshape(1024, n), False)
        packed = os.path.join(tmp, "lz4.ra")
        ramp = (np.arange(1024 * n * 2, dtype=np.uint64) // 64 % 65536).astype("<u2").reshape(1024, 2 * n)
        ra_file(packed, ramp, True)
        print("files: %s (%d MiB float32), %s (%d MiB uint16 as %d KiB of LZ4)" % (
            plain, os.path.getsize(plain) >> 20, packed, ramp.nbytes >> 20, os.path.getsize(packed) >> 10))
        contenders = {
            "npyguard": [exe, "npyguard", plain],
            "fromfile": [PY, "-c", CHILD, "fromfile", plain, str(off), "<f4", "1024,%d" % n],
        }
        if a.ra_py:
            contenders["ra.py"] = [PY, "-c", CHILD, "ra.py", plain, a.ra_py]
        res = {"plain": race(contenders, a.rounds)}
        res["lz4"] = race({"npyguard": [exe, "npyguard", packed], "floor": [exe, "floor", packed]}, a.rounds)
        for what, r in res.items():
            base = r["npyguard"]
            for name, s in r.items():
                print("%-6s %-9s %8.1f ms   %.3fx npyguard's time" % (what, name, s * 1e3, s / base))
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    sys.exit(main())
