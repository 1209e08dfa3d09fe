#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""npyguard.load against numpy.load on a BytesIO made from bytes, the way
users write it: ``npyguard.load(io.BytesIO(data))`` where data came from a
socket, a database or a remote object (bench/README.md, "The Python
package").

  /usr/bin/python3 bench/bench_bytesio.py [--pkg DIR] [--quick] [--rounds N] [--npy FILE]

--pkg: where the npyguard package is installed (default build/python, where
ci/python-test.sh installs it). One process; a float64 array of 256 MiB
(--quick: 64 MiB) saved by numpy into bytes, or the bytes of --npy FILE
(benchmark 6e of bench.py passes its own). Each round makes a fresh
io.BytesIO(data) for each contender (which shares the bytes object, as
CPython's BytesIO does until it is written) and loads it; the contenders
alternate within every round (rotating which goes first) after one
unmeasured warm-up each. Time is CPU time (time.process_time), the figure
the ratio of the medians npyguard/numpy.

Peak memory: each contender also loads once in a child process of its
own, which resets its peak resident set once the bytes exist
(/proc/self/clear_refs) and reports how far the peak (VmHWM) rose above
the resident set during the load, as a multiple of the payload: 1.0 is
the array alone; a copy of the BytesIO's bytes on the way adds another.
Nothing asserts a figure; the machine may be shared, so read the ratios.
"""
import argparse
import io
import json
import os
import subprocess
import sys
import time

import numpy as np

from rotation import rounds_of

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

PEAK_CHILD = r"""
import io, sys
sys.path.insert(0, sys.argv[1])
import numpy as np, npyguard
def status(field):
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith(field + ":")) * 1024
which, what = sys.argv[2], sys.argv[3]
if what.isdigit():
    buf = io.BytesIO(); np.save(buf, np.ones(int(what) << 17)); data = buf.getvalue(); del buf
else:
    with open(what, "rb") as fh:
        data = fh.read()
load = npyguard.load if which == "npyguard" else (lambda f: np.load(f, allow_pickle=False))
f = io.BytesIO(data)
with open("/proc/self/clear_refs", "w") as c:  # the peak from here on (VmHWM)
    c.write("5")
before = status("VmRSS")
arr = load(f)
print((status("VmHWM") - before) / arr.nbytes)
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pkg", default=os.path.join(ROOT, "build", "python"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--npy", help="load the bytes of this .npy instead of a generated one")
    ap.add_argument("--json")
    a = ap.parse_args()
    sys.path.insert(0, a.pkg)
    import npyguard
    if not npyguard.__file__.startswith(os.path.abspath(a.pkg)):
        sys.exit("bench_bytesio: no npyguard package in %s (run ci/python-test.sh DIR)" % a.pkg)
    if a.npy:
        with open(a.npy, "rb") as fh:
            data = fh.read()
        mib = len(data) >> 20
    else:
        mib = 64 if a.quick else 256
        buf = io.BytesIO()
        np.save(buf, np.random.default_rng(1).standard_normal(mib << 17))
        data = buf.getvalue()
        del buf
    want = np.load(io.BytesIO(data))
    assert np.array_equal(npyguard.load(io.BytesIO(data)), want)
    del want
    m = rounds_of({"npyguard": lambda: npyguard.load(io.BytesIO(data)),
                   "numpy": lambda: np.load(io.BytesIO(data), allow_pickle=False)}, a.rounds,
                  time.process_time)
    ratio = m["npyguard"] / m["numpy"]
    print("BytesIO(bytes) of %d MiB, CPU time, median of %d: npyguard %.3f s, numpy.load %.3f s; "
          "npyguard/numpy %.2fx" % (mib, a.rounds, m["npyguard"], m["numpy"], ratio), flush=True)
    peak = {}
    what = os.path.abspath(a.npy) if a.npy else str(mib)
    for which in ("npyguard", "numpy"):
        r = subprocess.run([sys.executable, "-c", PEAK_CHILD, a.pkg, which, what], capture_output=True,
                           text=True, timeout=600)
        peak[which] = float(r.stdout) if r.returncode == 0 else None
    print("peak RSS growth during one load, in payloads: npyguard %s, numpy.load %s"
          % tuple("%.2f" % peak[w] if peak[w] is not None else "failed" for w in ("npyguard", "numpy")))
    out = {"mib": mib, "rounds": a.rounds, "seconds": m, "npyguard_over_numpy": ratio, "peak_rss_payloads": peak}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
