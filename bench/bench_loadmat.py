#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Loading MAT v7.3 and HDF5 files through the cage, side by side with
the readers people use in their own process (bench/README.md).

  /usr/bin/python3 bench/bench_loadmat.py [--pkg DIR] [--rounds N] [--mib M] [--quick]

--pkg: where the npyguard package is installed (default build/python).

 (a) every MAT file of corpus/hdf5/valid/mat and corpus/hdf5/matlab/valid:
     npyguard.loadmat(path) against hdf5storage.loadmat(path);
 (b) every HDF5 file of corpus/hdf5/valid/h5 (written by hdf5storage):
     npyguard.load_hdf5(path) against hdf5storage.read('/', filename=path),
     which it equals, and against h5py reading what load_hdf5 reads,
     every dataset (`ds[()]`) and attribute, decoding nothing (the h5py
     reader of DESIGN.md); and, for information, h5py reading the
     datasets alone;
 (c) one float64 dataset of M MiB (default 256), written by h5py (plain
     HDF5) and by hdf5storage.savemat (MAT): each reader in a fresh
     process, wall time of the load and the process's peak RSS;
 (d) one small corpus file, each reader in a fresh interpreter, timed
     from outside: imports, npyguard's helper start and the load (h5py
     reading every dataset and attribute, as in (b)).

(a) and (b) run in this process, the contenders alternating within each
round after an unmeasured warm-up; the figure is the median wall time per
file over the rounds and the ratio of the medians. npyguard's figure
includes what the cage costs per file (a fresh child that runs libhdf5,
the values sent as .npy bytes and validated here); the others run libhdf5
in this process, with no cage. (c) takes the median of the rounds.
Nothing asserts a figure: read the ratios.
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def h5py_read(path, attributes):
    """Every dataset's value (`ds[()]`) and, with attributes, every
    attribute's too, root's included: what load_hdf5 reads of a file
    (the h5py reader of DESIGN.md), or the datasets alone."""
    import h5py
    out = {}
    with h5py.File(path, "r") as f:
        def one(name, obj):
            if attributes:
                out[name + "@"] = {k: obj.attrs[k] for k in obj.attrs}
            if isinstance(obj, h5py.Dataset):
                out[name] = obj[()]
        if attributes:
            out["@"] = {k: f.attrs[k] for k in f.attrs}
        f.visititems(one)
    return out


def per_file(contenders, files, rounds, times=None):
    """Median seconds per file of each contender; times, if given, gets
    each round's figure."""
    if times is None:
        times = {}
    times.update({name: [] for name in contenders})
    for fn in contenders.values():
        for p in files:
            fn(p)
    names = list(contenders)
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            t0 = time.perf_counter()
            for p in files:
                contenders[name](p)
            times[name].append((time.perf_counter() - t0) / len(files))
    return {name: statistics.median(v) for name, v in times.items()}


ONE = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
what, path = sys.argv[2], sys.argv[3]
if what == "npyguard.load_hdf5":
    import npyguard
    t = time.perf_counter(); x = npyguard.load_hdf5(path)["/x"]
elif what == "npyguard.loadmat":
    import npyguard
    t = time.perf_counter(); x = npyguard.loadmat(path)["x"]
elif what == "h5py":
    import h5py
    t = time.perf_counter()
    with h5py.File(path, "r") as f: x = f["x"][()]
else:
    import hdf5storage
    t = time.perf_counter(); x = hdf5storage.loadmat(path)["x"]
s = time.perf_counter() - t
# this process's own peak (ru_maxrss would carry the forking parent's over exec)
hwm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(json.dumps({"seconds": s, "rss": hwm * 1024, "nbytes": int(x.nbytes)}))
"""


def large(pkg, mib, rounds):
    import h5py
    import hdf5storage
    import numpy as np
    # random bits: nothing for gzip to take, as with measured data
    x = np.random.default_rng(7).random(mib * (1 << 20) // 8)
    with tempfile.TemporaryDirectory() as d:
        h5 = os.path.join(d, "large.h5")
        mat = os.path.join(d, "large.mat")
        with h5py.File(h5, "w") as f:
            f["x"] = x
        hdf5storage.savemat(mat, {"x": x}, format="7.3")
        del x
        pairs = [("npyguard.load_hdf5", "h5py", h5), ("npyguard.loadmat", "hdf5storage.loadmat", mat)]
        for ours, theirs, path in pairs:
            got = {ours: [], theirs: []}
            for r in range(rounds):
                for who in ((ours, theirs) if r % 2 == 0 else (theirs, ours)):
                    p = subprocess.run([sys.executable, "-c", ONE, pkg, who, path],
                                       capture_output=True, text=True)
                    if p.returncode:
                        sys.exit("%s failed: %s" % (who, p.stderr.strip()[-400:]))
                    got[who].append(json.loads(p.stdout))
            med = {w: (statistics.median(g["seconds"] for g in v), statistics.median(g["rss"] for g in v))
                   for w, v in got.items()}
            print("  %-22s %8.1f ms   peak RSS %6.0f MiB (array %d MiB)"
                  % (ours, med[ours][0] * 1e3, med[ours][1] / 2**20, mib))
            print("  %-22s %8.1f ms   peak RSS %6.0f MiB" % (theirs, med[theirs][0] * 1e3, med[theirs][1] / 2**20))
            print("  ratio of the medians: time %.2fx, peak RSS %.2fx; npyguard's RSS over the array: %.0f MiB"
                  % (med[ours][0] / med[theirs][0], med[ours][1] / med[theirs][1], med[ours][1] / 2**20 - mib))


FRESH = {
    "npyguard.load_hdf5": "import sys; sys.path.insert(0, sys.argv[1]); import npyguard; npyguard.load_hdf5(sys.argv[2])",
    "hdf5storage.read": "import sys, hdf5storage; hdf5storage.read('/', filename=sys.argv[2])",
    "h5py": "import sys, h5py\n"
            "def read(name, obj):\n"
            "    [obj.attrs[k] for k in obj.attrs]\n"
            "    if isinstance(obj, h5py.Dataset):\n"
            "        obj[()]\n"
            "with h5py.File(sys.argv[2], 'r') as f:\n"
            "    read('/', f)\n"
            "    f.visititems(read)",
}


def fresh(pkg, path, rounds):
    """Each reader in an interpreter of its own for one small file, timed
    from outside: what a script that loads one file costs, imports and
    (for npyguard) the helper's start included."""
    times = {name: [] for name in FRESH}
    names = list(FRESH)
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            t = time.perf_counter()
            p = subprocess.run([sys.executable, "-c", FRESH[name], pkg, path], capture_output=True, text=True)
            if p.returncode:
                sys.exit("%s failed: %s" % (name, p.stderr.strip()[-400:]))
            times[name].append(time.perf_counter() - t)
    med = {name: statistics.median(v) for name, v in times.items()}
    for name, v in med.items():
        print("  %-22s %8.1f ms per process" % (name, v * 1e3))
    print("  ratio of the medians: %.2fx hdf5storage.read, %.2fx h5py"
          % (med["npyguard.load_hdf5"] / med["hdf5storage.read"], med["npyguard.load_hdf5"] / med["h5py"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pkg", default=os.path.join(ROOT, "build", "python"))
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--quick", action="store_true", help="3 rounds, a 32 MiB dataset")
    a = ap.parse_args()
    if a.quick:
        a.rounds, a.mib = 3, 32
    sys.path.insert(0, os.path.abspath(a.pkg))
    import hdf5storage
    import npyguard
    mats = sorted(glob.glob(os.path.join(ROOT, "corpus/hdf5/valid/mat/*.mat")) +
                  glob.glob(os.path.join(ROOT, "corpus/hdf5/matlab/valid/*.mat")))
    h5s = sorted(glob.glob(os.path.join(ROOT, "corpus/hdf5/valid/h5/*.h5")))
    print("load average %.2f, %d cores" % (os.getloadavg()[0], os.cpu_count()))
    print("(a) %d MAT files, %d rounds" % (len(mats), a.rounds))
    m = per_file({"npyguard.loadmat": npyguard.loadmat, "hdf5storage.loadmat": hdf5storage.loadmat}, mats, a.rounds)
    for k, v in m.items():
        print("  %-22s %8.3f ms per file" % (k, v * 1e3))
    print("  ratio of the medians: %.2fx" % (m["npyguard.loadmat"] / m["hdf5storage.loadmat"]))
    print("(b) %d plain HDF5 files, %d rounds" % (len(h5s), a.rounds))
    t = {}
    m = per_file({"npyguard.load_hdf5": npyguard.load_hdf5,
                  "hdf5storage.read": lambda p: hdf5storage.read("/", filename=p),
                  "h5py": lambda p: h5py_read(p, True),
                  "h5py, datasets only": lambda p: h5py_read(p, False)}, h5s, a.rounds, t)
    for k, v in m.items():
        print("  %-22s %8.3f ms per file" % (k, v * 1e3))
    print("  ratio of the medians: %.2fx hdf5storage.read, %.2fx h5py, %.2fx h5py reading datasets only"
          % (m["npyguard.load_hdf5"] / m["hdf5storage.read"], m["npyguard.load_hdf5"] / m["h5py"],
             m["npyguard.load_hdf5"] / m["h5py, datasets only"]))
    # the contenders of a round met the same machine: the spread of these
    # is the machine's noise on the ratio
    for other in ("h5py", "h5py, datasets only"):
        r = sorted(x / y for x, y in zip(t["npyguard.load_hdf5"], t[other]))
        print("  load_hdf5 / %s round by round: median %.2fx, %.2fx to %.2fx"
              % (other, statistics.median(r), r[0], r[-1]))
    print("(c) one float64 dataset of %d MiB, a fresh process per load, %d rounds" % (a.mib, a.rounds))
    large(os.path.abspath(a.pkg), a.mib, a.rounds)
    small = os.path.join(ROOT, "corpus/hdf5/valid/h5/dict.h5")
    print("(d) %s, a fresh interpreter per load (process start included), %d rounds"
          % (os.path.relpath(small, ROOT), max(a.rounds, 5)))
    fresh(os.path.abspath(a.pkg), small, max(a.rounds, 5))


if __name__ == "__main__":
    main()
