"""Scaling of the header path: ns per npyg_parse_header (bench_header) as
one thing grows, each series fitted to ns = a * x**k on a log-log least
squares line over the whole series and over its last two points (the
large end, where a super-linear term shows); k near 1 is linear, k well
above 1 a bug.

    /usr/bin/python3 bench/scaling.py BUILD_DIR [WORKDIR]

Series measured here: fields of a structured dtype (1 .. 4096, which also
takes the header from ~100 B to ~66 KB with the same field shape) and
dims of the shape (1 .. 64). Headers are written with numpy's own
header writer (np.lib.format._write_array_header), so they are what numpy
writes; 64 dims is past numpy's own limit of 32 and is written the same way.
"""
import io
import json
import math
import os
import subprocess
import sys
import tempfile

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


def main():
    build = sys.argv[1]
    bench = os.path.join(build, "bench", "bench_header")
    work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="npyguard-scaling-")
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
    print("| series | points (x: ns per header; header bytes) | fitted exponent | last two points |")
    print("| --- | --- | ---: | ---: |")
    for name, m, sizes in rows:
        k = fit([x for x, _ in m], [y for _, y in m])
        pts = ", ".join("%d: %.0f ns (%d B)" % (x, y, sizes[x]) for x, y in m)
        print("| %s | %s | %.2f | %.2f |" % (name, pts, k, fit([x for x, _ in m[-2:]], [y for _, y in m[-2:]])))


if __name__ == "__main__":
    main()
