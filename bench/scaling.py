# SPDX-License-Identifier: BSD-3-Clause
"""Scaling: how the cost grows with the work, each series fitted to
cost = a * x**k on a log-log least squares line over the whole series and
over its last two points (the large end, where a super-linear term shows);
k near 1 is linear, k well above 1 a bug.

Usage (the first form is the old one and still works):

    /usr/bin/python3 bench/scaling.py BUILD_DIR [WORKDIR] [--files]
    /usr/bin/python3 bench/scaling.py BUILD_DIR [WORKDIR] [--files] [--members]
        [--payload] [--payload-dir DIR] [--callgrind] [--rounds N]

Series (ns per npyg_parse_header in bench_header, always): fields of a
structured dtype (1 .. 4096, which also takes the header from ~100 B to
~66 KB with the same field shape) and dims of the shape (1 .. 64).
Headers are written with numpy's own header writer
(np.lib.format._write_array_header), so they are what numpy writes; 64
dims is past numpy's own limit of 32 and is written the same way.

--files: `npyvalidate -j1 -q --files-from LIST` over the first 1,000 /
10,000 / 100,000 of 100,000 small files from npside.py gen-files (wall
time, median of 3 after one warm-up run).

--members: `npyvalidate -q --max-members 65535 ARCHIVE` on archives
written by np.savez and by np.savez_compressed with 10, 100, 1,000, 10,000
and 65,535 members (each a '<f8' array of shape (4,)), and with none
(the fixed cost: start-up, open, end record); the limit is raised because
the default max_members (4096) refuses the two largest.
Wall time and peak RSS through bench/runrss (median of --rounds runs
after one warm-up).

--payload: one .npy per size, 1, 4, 16, 64, 256 and 1024 MiB of '<u8',
written by numpy (np.lib.format.open_memmap, npside.py gen-npy), and one
of shape (0,) (the fixed cost, np.save), timed as
`npyvalidate --hash -q FILE` and `npyvalidate -q FILE` the same way. The
files go to --payload-dir (default WORKDIR/payload) and are deleted at
the end.

These series print a second table whose last column is the exponent of
the last two points after subtracting the cost at 0: a fixed cost of
~0.1 s (mostly the dynamic loader) otherwise flattens every exponent.

--callgrind: also the instructions of each run of --members and
--payload under `valgrind --tool=callgrind` (one run per point; counts do
not depend on the machine's load). The 1 GiB --hash point takes minutes.
"""
import argparse
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


def runrss(build, cmd):
    """Wall seconds and peak RSS (KiB) of one run of cmd, through runrss
    (a command started from Python would report Python's RSS)."""
    fd, stats = tempfile.mkstemp(prefix="npyguard-scaling-rss-")
    os.close(fd)
    try:
        p = subprocess.run([os.path.join(build, "bench", "runrss"), stats] + cmd,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        with open(stats) as fh:
            wall, rss, rc = fh.read().split()
    finally:
        os.unlink(stats)
    if int(rc) != 0:
        raise SystemExit("scaling: %s exited with %s\n%s" % (" ".join(cmd), rc, p.stderr.decode(errors="replace")))
    return float(wall), int(rss)


def timed(build, cmd, rounds):
    """Median wall ns and median peak RSS (KiB) of `rounds` runs after one warm-up."""
    runrss(build, cmd)
    runs = [runrss(build, cmd) for _ in range(rounds)]
    walls = sorted(w for w, _ in runs)
    rsss = sorted(r for _, r in runs)
    return walls[len(walls) // 2] * 1e9, rsss[len(rsss) // 2]


def instructions(cmd):
    """Instructions of one run of cmd, counted by callgrind."""
    fd, out = tempfile.mkstemp(prefix="npyguard-scaling-cg-")
    os.close(fd)
    try:
        p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out] + cmd,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            raise SystemExit("scaling: callgrind of %s exited with %d\n%s" % (" ".join(cmd), p.returncode, p.stderr))
        with open(out) as fh:
            for line in fh:
                if line.startswith("summary:") or line.startswith("totals:"):
                    return int(line.split()[1])
    finally:
        os.unlink(out)
    raise SystemExit("scaling: no instruction count from callgrind")


MEMBERS = (0, 10, 100, 1000, 10000, 65535)  # 0: the fixed cost, subtracted for "net"


def members_series(build, work, rounds, callgrind):
    """Archives written by np.savez / np.savez_compressed with n members of
    the same shape; the same arrays in both."""
    exe = os.path.join(build, "parser", "npyvalidate")
    rows = []
    for kind, save in (("savez", np.savez), ("savez_compressed", np.savez_compressed)):
        paths = {}
        for n in MEMBERS:
            p = os.path.join(work, "members-%s-%d.npz" % (kind, n))
            if not os.path.exists(p):
                save(p, **{"a%d" % i: np.arange(4, dtype="<f8") + i for i in range(n)})
            paths[n] = p
        wall, rss, ins = [], {}, []
        for n in MEMBERS:
            cmd = [exe, "-q", "--max-members", "65535", paths[n]]
            ns, kib = timed(build, cmd, rounds)
            wall.append((n, ns))
            rss[n] = kib
            if callgrind:
                ins.append((n, instructions(cmd)))
        rows.append(("members, %s (wall)" % kind, wall, rss, "ms"))
        if callgrind:
            rows.append(("members, %s (instructions)" % kind, ins, None, "Ir"))
    return rows


PAYLOAD_MIB = (0, 1, 4, 16, 64, 256, 1024)  # 0: shape (0,), the fixed cost


def payload_series(build, pdir, rounds, callgrind):
    here = os.path.dirname(os.path.abspath(__file__))
    exe = os.path.join(build, "parser", "npyvalidate")
    os.makedirs(pdir, exist_ok=True)
    made = []
    rows = []
    try:
        paths = {}
        for mib in PAYLOAD_MIB:
            p = os.path.join(pdir, "payload-%d.npy" % mib)
            if not os.path.exists(p):
                made.append(p)
                if mib:
                    subprocess.run([sys.executable, os.path.join(here, "npside.py"), "gen-npy", p, str(mib)],
                                   check=True)
                else:
                    np.save(p, np.zeros(0, dtype="<u8"))
            paths[mib] = p
        for name, flags in (("payload, --hash", ["--hash", "-q"]), ("payload, plain", ["-q"])):
            wall, rss, ins = [], {}, []
            for mib in PAYLOAD_MIB:
                cmd = [exe] + flags + [paths[mib]]
                ns, kib = timed(build, cmd, rounds)
                wall.append((mib, ns))
                rss[mib] = kib
                if callgrind:
                    ins.append((mib, instructions(cmd)))
            rows.append((name + " (wall)", wall, rss, "ms"))
            if callgrind:
                rows.append((name + " (instructions)", ins, None, "Ir"))
    finally:
        for p in made:  # the big files do not outlive the run
            os.unlink(p)
    return rows


def main():
    ap = argparse.ArgumentParser(description="scaling series of npyguard (see the top of this file)")
    ap.add_argument("build")
    ap.add_argument("work", nargs="?")
    ap.add_argument("--files", action="store_true")
    ap.add_argument("--members", action="store_true")
    ap.add_argument("--payload", action="store_true")
    ap.add_argument("--payload-dir")
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    build = a.build
    bench = os.path.join(build, "bench", "bench_header")
    work = a.work or tempfile.mkdtemp(prefix="npyguard-scaling-")
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
    if a.files:
        m, sizes = files_series(build, work)
        rows.append(("files (ns per run)", m, sizes))
    print("| series | points (x: ns per header; header bytes) | fitted exponent | last two points |")
    print("| --- | --- | ---: | ---: |")
    for name, m, sizes in rows:
        k = fit([x for x, _ in m], [y for _, y in m])
        pts = ", ".join("%d: %.0f ns (%d B)" % (x, y, sizes[x]) for x, y in m)
        print("| %s | %s | %.2f | %.2f |" % (name, pts, k, fit([x for x, _ in m[-2:]], [y for _, y in m[-2:]])))
    runs = []
    if a.members:
        runs += members_series(build, work, a.rounds, a.callgrind)
    if a.payload:
        runs += payload_series(build, a.payload_dir or os.path.join(work, "payload"), a.rounds, a.callgrind)
    if runs:
        print()
        print("| series | points (x: median wall ms and peak RSS, or instructions; 0: the fixed cost) "
              "| fitted exponent | last two points | last two, net of x = 0 |")
        print("| --- | --- | ---: | ---: | ---: |")
        for name, m, rss, unit in runs:
            base = m[0][1]
            m = m[1:]
            k = fit([x for x, _ in m], [y for _, y in m])
            net = [(x, y - base) for x, y in m[-2:]]
            knet = fit([x for x, _ in net], [y for _, y in net]) if min(y for _, y in net) > 0 else float("nan")
            if unit == "ms":
                pts = ", ".join("%d: %.1f ms (%.1f MiB)" % (x, y / 1e6, rss[x] / 1024) for x, y in [(0, base)] + m)
            else:
                pts = ", ".join("%d: %.1f M" % (x, y / 1e6) for x, y in [(0, base)] + m)
            print("| %s | %s | %.2f | %.2f | %.2f |" % (name, pts, k, fit([x for x, _ in m[-2:]], [y for _, y in m[-2:]]),
                                                      knet), flush=True)


if __name__ == "__main__":
    main()
