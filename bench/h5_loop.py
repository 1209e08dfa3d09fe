#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The load the cage's measuring scripts trace or time: load_hdf5 on
every file of corpus/hdf5/valid/h5, one unmeasured pass, then PASSES
passes, in this one process (one helper).

  h5_loop.py PKG PASSES [--maps FILE] [--times]

--maps: after the unmeasured pass, write the helper's pid and its
/proc/PID/maps to FILE (its children are forks of it: the same
mappings). --times: print, per file, the fastest pass's wall time, this
process's CPU and the helper's and its reaped children's CPU, in
seconds.
"""
import argparse
import glob
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def command(pkg, passes, *options):
    """The command line that runs this loop."""
    return [sys.executable, os.path.join(HERE, "h5_loop.py"), pkg, str(passes)] + list(options)


def traced(doc, rounds):
    """The options of a script that traces this loop (--pkg, --rounds,
    --helper) and the environment that names its helper."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--pkg", default=os.path.join(ROOT, "build", "python"))
    ap.add_argument("--rounds", type=int, default=rounds)
    ap.add_argument("--helper", default=os.environ.get("NPYG_HDF5_HELPER",
                                                       os.path.join(ROOT, "build/release/parser/npyg-hdf5-helper")))
    a = ap.parse_args()
    return a, dict(os.environ, NPYG_HDF5_HELPER=a.helper)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pkg")
    ap.add_argument("passes", type=int)
    ap.add_argument("--maps")
    ap.add_argument("--times", action="store_true")
    a = ap.parse_args()
    sys.path.insert(0, a.pkg)
    import npyguard
    files = sorted(glob.glob(os.path.join(ROOT, "corpus/hdf5/valid/h5/*.h5")))
    for p in files:
        npyguard.load_hdf5(p)
    helper = subprocess.run(["pgrep", "-P", str(os.getpid())], capture_output=True, text=True).stdout.split()[0]
    if a.maps:
        with open(a.maps, "w") as out, open("/proc/%s/maps" % helper) as maps:
            out.write(helper + "\n" + maps.read())
    tick = os.sysconf("SC_CLK_TCK")

    def helper_cpu():  # utime, stime, cutime, cstime
        with open("/proc/%s/stat" % helper) as f:
            return sum(int(x) for x in f.read().rsplit(")", 1)[1].split()[11:15]) / tick

    walls, c0, h0 = [], time.process_time(), helper_cpu()
    for _ in range(a.passes):
        t0 = time.perf_counter()
        for p in files:
            npyguard.load_hdf5(p)
        walls.append((time.perf_counter() - t0) / len(files))
    n = a.passes * len(files)
    if a.times:
        print(min(walls), (time.process_time() - c0) / n, (helper_cpu() - h0) / n)


if __name__ == "__main__":
    main()
