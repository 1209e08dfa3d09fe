# SPDX-License-Identifier: BSD-3-Clause
"""The numpy side of the benchmarks, and the data they run on.

Run with /usr/bin/python3 (Debian's python3-numpy). Subcommands:

  header [-r R] [-t S] LIST   numpy's header reader over the headers listed
                              ("group<TAB>path" lines); prints JSON like
                              bench_header: median ns per header per group.
  files LIST                  np.load(path, mmap_mode='r') for every path in
                              LIST, in this process; prints the loop's seconds.
  npz PATH                    np.load(PATH) and every member read in full;
                              prints the loop's seconds and bytes.
  gen-files DIR N LIST        N small .npy files in 100 directories under DIR,
                              their paths in LIST in directory order (as find
                              and npyvalidate -r list them).
  gen-npy PATH MIB            one .npy file with a MIB MiB payload.
  gen-npz PATH MIB MEMBERS    np.savez_compressed archive of about MIB MiB of
                              arrays; MEMBERS gets each member's data offset,
                              compressed size, uncompressed size and CRC-32.

Every timing is taken inside the process (interpreter and numpy start-up
left out), with time.perf_counter or timeit.
"""
import io
import json
import os
import struct
import sys
import time
import timeit
import zipfile

import numpy as np
from numpy.lib import format as npformat

BIG_HEADER = 1 << 20


# ---------------------------------------------------------------- header

def read_header(buf):
    """What np.load does to a header, on bytes in memory."""
    f = io.BytesIO(buf)
    version = npformat.read_magic(f)
    if version == (1, 0):
        return npformat.read_array_header_1_0(f, max_header_size=BIG_HEADER)
    if version == (2, 0):
        return npformat.read_array_header_2_0(f, max_header_size=BIG_HEADER)
    return npformat._read_array_header(f, version, max_header_size=BIG_HEADER)


def header_bytes(path):
    with open(path, "rb") as fh:
        data = fh.read()
    f = io.BytesIO(data)
    version = npformat.read_magic(f)
    npformat._read_array_header(f, version, max_header_size=BIG_HEADER)
    return data[: f.tell()]


def cmd_header(argv):
    repeats, seconds, lst = 5, 0.2, None
    i = 0
    while i < len(argv):
        if argv[i] == "-r":
            repeats, i = int(argv[i + 1]), i + 2
        elif argv[i] == "-t":
            seconds, i = float(argv[i + 1]), i + 2
        else:
            lst, i = argv[i], i + 1
    headers = []
    with open(lst) as fh:
        for line in fh:
            line = line.rstrip("\r\n")
            if "\t" in line:
                group, path = line.split("\t", 1)
                headers.append((group, header_bytes(path)))
    order = []
    for g, _ in headers:
        if g not in order:
            order.append(g)
    out = {}
    for group in [None] + order:
        bufs = [b for g, b in headers if group is None or g == group]

        def loop(bufs=bufs):
            for b in bufs:
                read_header(b)

        timer = timeit.Timer(loop)
        iters = 1
        while timer.timeit(iters) < seconds and iters < 1 << 20:
            iters *= 2
        ns = sorted(t * 1e9 / (iters * len(bufs)) for t in timer.repeat(repeats, iters))
        out[group or "all"] = {"n": len(bufs), "ns": round(ns[len(ns) // 2], 2), "min_ns": round(ns[0], 2)}
    print(json.dumps(out))


# ---------------------------------------------------------------- many files

def cmd_files(argv):
    with open(argv[0]) as fh:
        paths = [p.rstrip("\r\n") for p in fh if p.strip()]
    load = np.load
    t0 = time.perf_counter()
    for p in paths:
        a = load(p, mmap_mode="r")
        del a
    dt = time.perf_counter() - t0
    print(json.dumps({"files": len(paths), "seconds": dt}))


def small_arrays(rng):
    """A realistic spread of small arrays: scalars, vectors, matrices (some
    Fortran-ordered), strings, datetimes and records."""
    rec = np.dtype([("id", "<u4"), ("x", "<f8"), ("y", "<f8"), ("tag", "S4")])
    while True:
        kind = rng.integers(0, 10)
        n = int(rng.integers(1, 200))
        if kind == 0:
            yield rng.standard_normal(n)
        elif kind == 1:
            yield rng.integers(-1000, 1000, n, dtype=np.int32)
        elif kind == 2:
            yield rng.standard_normal((int(rng.integers(1, 16)), int(rng.integers(1, 16)))).astype(np.float32)
        elif kind == 3:
            yield np.asfortranarray(rng.standard_normal((int(rng.integers(2, 12)), 3)))
        elif kind == 4:
            yield rng.integers(0, 255, (n, 3), dtype=np.uint8)
        elif kind == 5:
            yield np.array(float(rng.standard_normal()))
        elif kind == 6:
            yield np.array(["s%d" % k for k in range(min(n, 40))])
        elif kind == 7:
            yield np.datetime64("2024-01-01") + np.arange(min(n, 100)).astype("m8[D]")
        elif kind == 8:
            a = np.zeros(min(n, 60), dtype=rec)
            a["id"] = np.arange(len(a))
            yield a
        else:
            yield (rng.standard_normal(min(n, 100)) > 0)


def cmd_gen_files(argv):
    d, n, lst = argv[0], int(argv[1]), argv[2]
    rng = np.random.default_rng(7)
    gen = small_arrays(rng)
    paths = []
    for k in range(n):
        sub = os.path.join(d, "%02d" % (k % 100))
        if k < 100:
            os.makedirs(sub, exist_ok=True)
        p = os.path.join(sub, "a%05d.npy" % k)
        np.save(p, next(gen))
        paths.append(p)
    with open(lst, "w") as fh:
        fh.write("\n".join(sorted(paths)) + "\n")


# ---------------------------------------------------------------- one big file

def cmd_gen_npy(argv):
    path, mib = argv[0], int(argv[1])
    count = mib * (1 << 20) // 8
    m = npformat.open_memmap(path, mode="w+", dtype="<u8", shape=(count,))
    step = 1 << 22
    for s in range(0, count, step):
        e = min(count, s + step)
        m[s:e] = np.arange(s, e, dtype="<u8") * np.uint64(0x9E3779B97F4A7C15)
    m.flush()
    del m


# ---------------------------------------------------------------- npz

def npz_members(rng, total_mib):
    """Arrays that compress the way real data does: quantised smooth fields,
    noisy float sensor traces, small counts, 16-bit images and label maps."""
    per = 64 << 20
    if total_mib < 256:
        per = max(1 << 20, (total_mib << 20) // 8)
    kinds = ["field_f4", "sensor_f8", "counts_i2", "image_u2", "labels_u1"]
    for k in range(max(1, round((total_mib << 20) / per))):
        kind = kinds[k % len(kinds)]
        if kind == "field_f4":
            n = per // 4
            x = np.linspace(0, 50 + k, n)
            a = (np.sin(x) * 20 + 15 + rng.normal(0, 0.05, n)).round(2).astype("<f4")
        elif kind == "sensor_f8":
            n = per // 8
            a = np.sin(np.linspace(0, 500, n)) + rng.normal(0, 0.01, n)
        elif kind == "counts_i2":
            a = rng.poisson(20, per // 2).astype("<i2")
        elif kind == "image_u2":
            side = int((per // 2) ** 0.5)
            yy, xx = np.mgrid[0:side, 0:side]
            a = (2000 + 1000 * np.sin(xx / 97.0) * np.cos(yy / 61.0) + rng.normal(0, 4, (side, side))).astype("<u2")
        else:
            a = np.repeat(rng.integers(0, 12, per // 64), 64).astype("u1")
        yield "%s_%02d" % (kind, k), a


def cmd_gen_npz(argv):
    path, mib, members = argv[0], int(argv[1]), argv[2]
    rng = np.random.default_rng(11)
    arrays = dict(npz_members(rng, mib))
    np.savez_compressed(path, **arrays)
    del arrays
    rows = []
    with open(path, "rb") as raw, zipfile.ZipFile(path) as z:
        for info in z.infolist():
            raw.seek(info.header_offset)
            local = raw.read(30)
            name_len, extra_len = struct.unpack("<HH", local[26:30])
            data = info.header_offset + 30 + name_len + extra_len
            rows.append("%d %d %d %d" % (data, info.compress_size, info.file_size, info.CRC))
    with open(members, "w") as fh:
        fh.write("\n".join(rows) + "\n")


def cmd_npz(argv):
    t0 = time.perf_counter()
    total = 0
    with np.load(argv[0]) as z:
        for name in z.files:
            total += z[name].nbytes
    dt = time.perf_counter() - t0
    print(json.dumps({"seconds": dt, "bytes": total}))


COMMANDS = {
    "header": cmd_header,
    "files": cmd_files,
    "npz": cmd_npz,
    "gen-files": cmd_gen_files,
    "gen-npy": cmd_gen_npy,
    "gen-npz": cmd_gen_npz,
}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit("usage: npside.py " + "|".join(COMMANDS) + " ...")
    COMMANDS[sys.argv[1]](sys.argv[2:])
