#!/usr/bin/env python3
"""npyguard's HDF5 load (libhdf5 in the sandbox) against h5py in-process, side by side.

  /usr/bin/python3 bench/bench_hdf5_load.py [--pkg DIR] [--helper PATH] [--rounds N] [--quick]

--pkg: where the npyguard package is installed (default build/release/python,
where `ctest --preset release` installs it); --helper: npyg-hdf5-helper
(default build/release/parser/npyg-hdf5-helper). Each contender runs in a
fresh process, contenders alternate in one session (rotating which goes
first) after one unmeasured warm-up each; figures are medians, results the
ratios of the medians:

 (a) every file of corpus/hdf5/valid and corpus/hdf5/matlab/valid, each
     read whole: npyguard.load_tree (every dataset and attribute, through
     the cage), or h5py opening the file and reading every dataset (d[()])
     and every attribute. The loop is timed per file; npyguard's first
     file, which starts the helper, is reported apart (the one-off cost a
     process pays), and the per-file figure with it included too;
 (b) one 256 MiB dataset (float64, contiguous): load_hdf5_mapping(f)["/x"]
     against h5py's f["x"][()]; wall and CPU time (this process only: the
     child's CPU is not in it, so wall is the fair figure) and the peak RSS
     the load adds to this process (ru_maxrss after minus VmRSS before).
     The child holds one run of at most 1 MiB plus libhdf5's own.
Nothing asserts a figure; the machine is shared, so read the ratios.
"""
import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = "/usr/bin/python3"

CHILD = r"""
import json, os, resource, sys, time
kind, what, who = sys.argv[1], sys.argv[2], sys.argv[3]
def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
if who == "npyguard":
    import npyguard
else:
    import h5py
def h5py_all(path):
    with h5py.File(path, "r") as f:
        def one(name, obj):
            for k in obj.attrs:
                obj.attrs[k]
            if isinstance(obj, h5py.Dataset):
                obj[()]
        for k in f.attrs:
            f.attrs[k]
        f.visititems(one)
if kind == "files":
    paths = json.loads(what)
    times = []
    c = time.process_time()
    for p in paths:
        t = time.perf_counter()
        npyguard.load_tree(p) if who == "npyguard" else h5py_all(p)
        times.append(time.perf_counter() - t)
    print(json.dumps({"first": times[0], "rest": sum(times[1:]) / (len(times) - 1), "all": sum(times) / len(times),
                      "cpu": (time.process_time() - c) / len(times)}))
else:
    if who == "npyguard":
        npyguard.load_tree(sys.argv[4])  # the helper started, as in a process that loads more than one file
    before = rss_kib()
    t, c = time.perf_counter(), time.process_time()
    if who == "npyguard":
        a = npyguard.load_hdf5_mapping(what)["/x"]
    else:
        with h5py.File(what, "r") as f:
            a = f["x"][()]
    s, cpu = time.perf_counter() - t, time.process_time() - c
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"s": s, "cpu": cpu, "added_kib": peak - before, "array_kib": a.nbytes // 1024}))
"""


def child(pkg, helper, *args):
    env = dict(os.environ, PYTHONPATH=pkg, NPYG_HDF5_HELPER=helper)
    r = subprocess.run([PY, "-c", CHILD] + list(args), env=env, check=True, capture_output=True, text=True)
    return json.loads(r.stdout)


def alternate(contenders, rounds):
    names = list(contenders)
    for n in names:  # warm-up, unmeasured
        contenders[n]()
    res = {n: [] for n in names}
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for n in order:
            res[n].append(contenders[n]())
    return res


def med(rs, key):
    return statistics.median(x[key] for x in rs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pkg", default=os.path.join(ROOT, "build", "release", "python"))
    ap.add_argument("--helper", default=os.path.join(ROOT, "build", "release", "parser", "npyg-hdf5-helper"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=0)
    a = ap.parse_args()
    if not os.path.isdir(os.path.join(a.pkg, "npyguard")):
        sys.exit("bench_hdf5_load: no npyguard package in %s (run ci/python-test.sh DIR)" % a.pkg)
    if not os.access(a.helper, os.X_OK):
        sys.exit("bench_hdf5_load: no helper at %s" % a.helper)
    files = sorted(glob.glob(os.path.join(ROOT, "corpus", "hdf5", "valid", "*", "*")) +
                   glob.glob(os.path.join(ROOT, "corpus", "hdf5", "matlab", "valid", "*")))
    out = {}
    rounds = a.rounds or (3 if a.quick else 7)
    res = alternate({w: (lambda w=w: child(a.pkg, a.helper, "files", json.dumps(files), w))
                     for w in ("npyguard", "h5py")}, rounds)
    m = {w: {k: med(v, k) for k in ("first", "rest", "all", "cpu")} for w, v in res.items()}
    out["files"] = {"files": len(files), "rounds": rounds, "median_seconds": m,
                    "npyguard_over_h5py": m["npyguard"]["rest"] / m["h5py"]["rest"],
                    "npyguard_over_h5py_helper_start_included": m["npyguard"]["all"] / m["h5py"]["all"]}
    print("(a) %d files, median of %d: npyguard %.2f ms/file, h5py %.2f ms/file: %.2fx; with npyguard's first "
          "file (helper start, %.1f ms) counted: %.2fx"
          % (len(files), rounds, m["npyguard"]["rest"] * 1e3, m["h5py"]["rest"] * 1e3,
             out["files"]["npyguard_over_h5py"], m["npyguard"]["first"] * 1e3,
             out["files"]["npyguard_over_h5py_helper_start_included"]), flush=True)
    tmp = tempfile.mkdtemp(prefix="npyguard-bench-h5load-")
    try:
        import h5py
        import numpy as np
        count = (1 << 23) if a.quick else (1 << 25)
        path = os.path.join(tmp, "large.h5")
        with h5py.File(path, "w") as f:
            d = f.create_dataset("x", (count,), dtype="<f8")
            chunk = np.random.default_rng(1).standard_normal(1 << 20)
            for i in range(count >> 20):
                d[i << 20:(i + 1) << 20] = chunk
        rounds = a.rounds or (3 if a.quick else 5)
        res = alternate({w: (lambda w=w: child(a.pkg, a.helper, "large", path, w, files[0]))
                         for w in ("npyguard", "h5py")}, rounds)
        s = {k: med(v, "s") for k, v in res.items()}
        cpu = {k: med(v, "cpu") for k, v in res.items()}
        added = {k: max(x["added_kib"] for x in v) for k, v in res.items()}
        arr = res["npyguard"][0]["array_kib"]
        out["large"] = {"payload_bytes": count * 8, "rounds": rounds, "seconds": s, "cpu_seconds": cpu,
                        "npyguard_over_h5py": s["npyguard"] / s["h5py"], "added_rss_kib_max": added,
                        "array_kib": arr}
        print("(b) %d MiB dataset, median of %d: npyguard %.3f s, h5py %.3f s: %.2fx; peak RSS added (max): "
              "npyguard %d MiB, h5py %d MiB for a %d MiB array"
              % (count * 8 >> 20, rounds, s["npyguard"], s["h5py"], s["npyguard"] / s["h5py"],
                 added["npyguard"] >> 10, added["h5py"] >> 10, arr >> 10), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
