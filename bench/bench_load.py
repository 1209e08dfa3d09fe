#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""npyguard.load against numpy.load, side by side (bench/README.md, "Safe loading").

  /usr/bin/python3 bench/bench_load.py [--pkg DIR] [--quick] [--rounds N]

--pkg: where the npyguard package is installed (default build/release/python,
where `ctest --preset release` installs it; or run ci/python-test.sh DIR). Two benchmarks, each contender in a fresh
process, contenders alternating in one run (rotating which goes
first), one unmeasured warm-up each (which also fills the page cache);
the figure is the ratio of the medians:

 (a) the 10,000 small files of benchmark 2 (bench/npside.py gen-files):
     one process loads every file with npyguard.load, or numpy.load(path,
     allow_pickle=False); the loop alone is timed;
 (b) one 1 GiB .npy (float64, 2**27 elements): npyguard.load, numpy.load
     and the floor, a bare readinto of the payload into a fresh array;
     the load alone is timed, and the peak RSS it adds is measured in the
     same process (ru_maxrss after minus VmRSS before).
Nothing asserts a figure; the machine is shared, so read the ratios.
"""
import argparse
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
import numpy as np
kind, what = sys.argv[1], sys.argv[2]
def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
if kind == "files":
    with open(what) as f:
        paths = f.read().split("\n")[:-1]
    if sys.argv[3] == "npyguard":
        import npyguard
        load = npyguard.load
    else:
        load = lambda p: np.load(p, allow_pickle=False)
    t, c = time.perf_counter(), time.process_time()
    for p in paths:
        load(p)
    print(json.dumps({"s": time.perf_counter() - t, "cpu": time.process_time() - c}))
else:
    who = sys.argv[3]
    if who == "npyguard":
        import npyguard
    before = rss_kib()
    t, c = time.perf_counter(), time.process_time()
    if who == "npyguard":
        a = npyguard.load(what)
    elif who == "numpy":
        a = np.load(what, allow_pickle=False)
    else:  # the floor: the payload's bytes into a fresh array, nothing checked
        with open(what, "rb", buffering=0) as f:
            f.seek(128)
            a = np.empty((os.fstat(f.fileno()).st_size - 128) // 8, dtype="<f8")
            f.readinto(memoryview(a).cast("B"))
    s, cpu = time.perf_counter() - t, time.process_time() - c
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"s": s, "cpu": cpu, "added_kib": peak - before, "array_kib": a.nbytes // 1024}))
"""


def child(pkg, *args):
    env = dict(os.environ, PYTHONPATH=pkg)
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


def med(rs, key="s"):
    return statistics.median(x[key] for x in rs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pkg", default=os.path.join(ROOT, "build", "release", "python"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=0)
    ap.add_argument("--only", default="files,large")
    a = ap.parse_args()
    if not os.path.isdir(os.path.join(a.pkg, "npyguard")):
        sys.exit("bench_load: no npyguard package in %s (run ci/python-test.sh DIR, or ctest --preset release)" % a.pkg)
    only = a.only.split(",")
    tmp = tempfile.mkdtemp(prefix="npyguard-bench-load-")
    out = {}
    try:
        if "files" in only:
            n = 2000 if a.quick else 10000
            d, lst = os.path.join(tmp, "files"), os.path.join(tmp, "files.txt")
            subprocess.run([PY, os.path.join(HERE, "npside.py"), "gen-files", d, str(n), lst], check=True,
                           stdout=subprocess.DEVNULL)
            rounds = a.rounds or (3 if a.quick else 7)
            res = alternate({w: (lambda w=w: child(a.pkg, "files", lst, w)) for w in ("npyguard", "numpy")}, rounds)
            s = {k: med(v) for k, v in res.items()}
            cpu = {k: med(v, "cpu") for k, v in res.items()}
            out["files"] = {"files": n, "rounds": rounds, "seconds": s, "cpu_seconds": cpu,
                            "cpu_numpy_over_npyguard": cpu["numpy"] / cpu["npyguard"],
                            "us_per_file": {k: v * 1e6 / n for k, v in s.items()},
                            "numpy_over_npyguard": s["numpy"] / s["npyguard"]}
            print("(a) %d small files, median of %d: npyguard %.1f us/file, numpy.load %.1f us/file: %.2fx"
                  % (n, rounds, s["npyguard"] * 1e6 / n, s["numpy"] * 1e6 / n, s["numpy"] / s["npyguard"]),
                  flush=True)
            print("    CPU time (user+sys), median: npyguard %.1f us/file, numpy.load %.1f us/file: %.2fx"
                  % (cpu["npyguard"] * 1e6 / n, cpu["numpy"] * 1e6 / n, cpu["numpy"] / cpu["npyguard"]), flush=True)
            shutil.rmtree(d)
        if "large" in only:
            import numpy as np
            count = (1 << 25) if a.quick else (1 << 27)
            path = os.path.join(tmp, "large.npy")
            with open(path, "wb") as f:
                np.lib.format.write_array_header_1_0(f, {"descr": "<f8", "fortran_order": False,
                                                         "shape": (count,)})
                assert f.tell() == 128
                chunk = np.random.default_rng(1).standard_normal(1 << 20)
                for _ in range(count >> 20):
                    chunk.tofile(f)
            rounds = a.rounds or (3 if a.quick else 5)
            res = alternate({w: (lambda w=w: child(a.pkg, "large", path, w))
                             for w in ("npyguard", "numpy", "readinto")}, rounds)
            s = {k: med(v) for k, v in res.items()}
            cpu = {k: med(v, "cpu") for k, v in res.items()}
            added = {k: max(x["added_kib"] for x in v) for k, v in res.items()}
            arr_kib = res["npyguard"][0]["array_kib"]
            out["large"] = {"payload_bytes": count * 8, "rounds": rounds, "seconds": s, "cpu_seconds": cpu,
                            "cpu_npyguard_over_numpy": cpu["npyguard"] / cpu["numpy"],
                            "cpu_npyguard_over_readinto": cpu["npyguard"] / cpu["readinto"],
                            "npyguard_over_numpy": s["npyguard"] / s["numpy"],
                            "npyguard_over_readinto": s["npyguard"] / s["readinto"],
                            "added_rss_kib_max": added, "array_kib": arr_kib}
            print("(b) %d MiB payload, median of %d: npyguard %.3f s, numpy.load %.3f s, readinto %.3f s; "
                  "npyguard/numpy %.2fx, npyguard/readinto %.2fx; peak RSS added (max): npyguard %d MiB, "
                  "numpy %d MiB, readinto %d MiB for a %d MiB array"
                  % (count * 8 >> 20, rounds, s["npyguard"], s["numpy"], s["readinto"],
                     s["npyguard"] / s["numpy"], s["npyguard"] / s["readinto"], added["npyguard"] >> 10,
                     added["numpy"] >> 10, added["readinto"] >> 10, arr_kib >> 10), flush=True)
            print("    CPU time (user+sys), median: npyguard %.3f s, numpy.load %.3f s, readinto %.3f s; "
                  "npyguard/numpy %.2fx, npyguard/readinto %.2fx"
                  % (cpu["npyguard"], cpu["numpy"], cpu["readinto"], cpu["npyguard"] / cpu["numpy"],
                     cpu["npyguard"] / cpu["readinto"]), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
