"""Scaling of the header path: ns per npyg_parse_header (bench_header) as
one thing grows, each series fitted to ns = a * x**k on a log-log least
squares line over the whole series and over its last two points (the
large end, where a super-linear term shows); k near 1 is linear, k well
above 1 a bug.

    /usr/bin/python3 bench/scaling.py BUILD_DIR [WORKDIR] [--files]

Series measured here: fields of a structured dtype (1 .. 4096, which also
takes the header from ~100 B to ~66 KB with the same field shape) and
dims of the shape (1 .. 64). Headers are written with numpy's own
header writer (np.lib.format._write_array_header), so they are what numpy
writes; 64 dims is past numpy's own limit of 32 and is written the same way.
With --files, also files: `npyvalidate -j1 -q --files-from LIST` over the
first 1,000 / 10,000 / 100,000 of 100,000 small files from npside.py
gen-files (wall time, median of 3 after one warm-up run).
"""
import io
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import numpy.lib.format as fmt


def write(path, descr, shape):
    buf = io.BytesIO()
    fmt._write_array_header(buf, {"descr": descr, "fortran_order": False, "shape": shape}, None)
    with open(path, "wb") as fh:
        fh.write(buf.getvalue())
    return len(buf.getvalue())


def fit(xs, ys):
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def measure(bench, work, name, points):
    lst = os.path.join(work, name + ".tsv")
    with open(lst, "w") as fh:
        for x, path in points:
            fh.write("p%d\t%s\n" % (x, path))
    out = subprocess.run([bench, "-H", "100000000", "-r", "5", "-t", "0.05", lst],
                         check=True, capture_output=True, text=True).stdout
    res = json.loads(out)
    return [(x, res["p%d" % x]["ns"]) for x, _ in points]


def files_series(build, work):
    here = os.path.dirname(os.path.abspath(__file__))
    d, full = os.path.join(work, "files"), os.path.join(work, "files.list")
    if not os.path.exists(full):
        subprocess.run([sys.executable, os.path.join(here, "npside.py"), "gen-files", d, "100000", full], check=True)
    with open(full) as fh:
        paths = fh.read().splitlines()
    exe = os.path.join(build, "parser", "npyvalidate")
    out, sizes = [], {}
    for n in (1000, 10000, 100000):
        lst = os.path.join(work, "files%d.list" % n)
        with open(lst, "w") as fh:
            fh.write("\n".join(paths[:n]) + "\n")
        cmd = [exe, "-j1", "-q", "--files-from", lst]
        subprocess.run(cmd, check=True)
        ts = []
        for _ in range(3):
            t = time.perf_counter()
            subprocess.run(cmd, check=True)
            ts.append((time.perf_counter() - t) * 1e9)
        out.append((n, sorted(ts)[1]))
        sizes[n] = 0
    return out, sizes


def main():
    args = [a for a in sys.argv[1:] if a != "--files"]
    build = args[0]
    bench = os.path.join(build, "bench", "bench_header")
    work = args[1] if len(args) > 1 else tempfile.mkdtemp(prefix="npyguard-scaling-")
    rows = []
    pts, sizes = [], {}
    for n in (1, 4, 16, 64, 256, 1024, 4096):
        p = os.path.join(work, "fields%d.npy" % n)
        sizes[n] = write(p, [("f%d" % i, "<f8") for i in range(n)], (0,))
        pts.append((n, p))
    rows.append(("fields", measure(bench, work, "fields", pts), sizes))
    pts, sizes = [], {}
    for d in (1, 2, 4, 8, 16, 32, 64):
        p = os.path.join(work, "dims%d.npy" % d)
        sizes[d] = write(p, "<f8", (1,) * d)
        pts.append((d, p))
    rows.append(("dims", measure(bench, work, "dims", pts), sizes))
    if "--files" in sys.argv:
        m, sizes = files_series(build, work)
        rows.append(("files (ns per run)", m, sizes))
    print("| series | points (x: ns per header; header bytes) | fitted exponent | last two points |")
    print("| --- | --- | ---: | ---: |")
    for name, m, sizes in rows:
        k = fit([x for x, _ in m], [y for _, y in m])
        pts = ", ".join("%d: %.0f ns (%d B)" % (x, y, sizes[x]) for x, y in m)
        print("| %s | %s | %.2f | %.2f |" % (name, pts, k, fit([x for x, _ in m[-2:]], [y for _, y in m[-2:]])))


if __name__ == "__main__":
    main()
