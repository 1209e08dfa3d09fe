#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Runs npyguard's benchmarks and prints a table and JSON (see README.md).

    /usr/bin/python3 bench/bench.py --build DIR [--fuzz DIR] [--json FILE] [--markdown FILE]

DIR is a CMake build of this repository (Release) holding
parser/npyvalidate and bench/{bench_header,floor_files,floor_inflate};
--fuzz a libFuzzer build (fuzz/build.sh libfuzzer DIR). BENCH_QUICK=1 runs
small sizes and fewer rounds. Data goes to a temporary directory that is
removed at the end, whatever happens.

Every figure is the median of several runs, the contenders of a benchmark
run alternately in the same run (rotating who goes first), after one
unmeasured warm-up run each; ratios compare those medians. Absolute times
are printed for information and never checked.
"""
import argparse
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import npz_speed
from rotation import rotate

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
NPSIDE = os.path.join(HERE, "npside.py")
PY = "/usr/bin/python3"
MIB = 1 << 20


def log(*a):
    print(*a, file=sys.stderr, flush=True)


RUNRSS = None  # bench/runrss of the build: wall time and peak RSS of one command


def run(cmd, capture=True, env=None):
    """Runs cmd under runrss; returns wall seconds, peak RSS (KiB), stdout,
    stderr and exit status."""
    fd, stats = tempfile.mkstemp(prefix="npyguard-bench-rss-")
    os.close(fd)
    try:
        p = subprocess.run([RUNRSS, stats] + cmd if RUNRSS else cmd, cwd=ROOT, stderr=subprocess.PIPE, env=env,
                           stdout=subprocess.PIPE if capture else subprocess.DEVNULL)
        with open(stats) as fh:
            f = fh.read().split() if RUNRSS else []
    finally:
        os.unlink(stats)
    if len(f) != 3:
        f = ["nan", "0", str(p.returncode)]
    return {"wall": float(f[0]), "rss_kib": int(f[1]), "out": (p.stdout or b"").decode(errors="replace"),
            "err": p.stderr.decode(errors="replace"), "rc": int(f[2])}


def checked(cmd, capture=True, ok=(0,), env=None):
    r = run(cmd, capture, env)
    if r["rc"] not in ok:
        raise SystemExit("bench: %s exited with %d\n%s%s" % (" ".join(cmd), r["rc"], r["out"][-2000:], r["err"][-2000:]))
    return r


def alternate(contenders, rounds):
    """contenders: name -> function returning a dict of figures. Runs each
    once unmeasured, then `rounds` rounds, rotating the order; returns, per
    name, the median of every figure and the raw samples."""
    samples = rotate(contenders, rounds, lambda f: f())
    out = {}
    for n in samples:
        keys = samples[n][0].keys()
        out[n] = {key: statistics.median(s[key] for s in samples[n]) for key in keys}
        out[n]["samples"] = len(samples[n])
    return out


def machine():
    model = "?"
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    ver = lambda cmd: (run(cmd)["out"].strip().splitlines() or ["?"])[0]
    return {
        "nproc": os.cpu_count(),
        "cpu": model,
        "loadavg_start": os.getloadavg(),
        "kernel": platform.release(),
        "gcc": ver(["gcc", "-dumpfullversion"]) if shutil.which("gcc") else None,
        "numpy": ver([PY, "-c", "import numpy; print(numpy.__version__)"]),
        "openssl": ver(["openssl", "version"]) if shutil.which("openssl") else None,
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "commit": ver(["git", "-C", ROOT, "describe", "--always", "--dirty"]) if shutil.which("git") else None,
    }


# ---------------------------------------------------------------- 1. headers

def bench_header(b, tmp, quick):
    log("== 1. header parse")
    lst = os.path.join(tmp, "headers.tsv")
    valid = os.path.join(ROOT, "corpus", "valid")
    with open(lst, "w") as fh:
        for name in sorted(os.listdir(valid)):
            if not name.endswith(".npy"):
                continue
            group = "big" if name.startswith("struct-big-header") else "struct" if name.startswith("struct-") else "plain"
            fh.write("%s\t%s\n" % (group, os.path.join(valid, name)))
    t = "0.05" if quick else "0.2"
    reps = "3" if quick else "5"
    ours = lambda: json.loads(checked([b["bench_header"], "-H", "1000000", "-r", reps, "-t", t, lst])["out"])
    theirs = lambda: json.loads(checked([PY, NPSIDE, "header", "-r", reps, "-t", t, lst])["out"])
    flat = lambda f: (lambda: {g + "/" + k: v for g, d in f().items() for k, v in d.items()})
    res = alternate({"npyguard": flat(ours), "numpy": flat(theirs)}, 3 if quick else 5)
    groups = {}
    for key in res["npyguard"]:
        g, _, k = key.partition("/")
        if k != "ns":
            continue
        a, n = res["npyguard"][key], res["numpy"][key]
        groups[g] = {"n": int(res["npyguard"][g + "/n"]), "npyguard_ns": a, "numpy_ns": n, "ratio": n / a}
    return {"groups": groups, "goal": ">= 200x numpy (mix)", "met": groups["all"]["ratio"] >= 200}


# ---------------------------------------------------------------- 2. many files

def bench_files(b, tmp, quick):
    n = 2000 if quick else 10000
    log("== 2. %d small files" % n)
    d, lst = os.path.join(tmp, "files"), os.path.join(tmp, "files.txt")
    checked([PY, NPSIDE, "gen-files", d, str(n), lst])
    def c(cmd):
        def f():
            r = checked(cmd, False)
            return {"s": r["wall"], "rss_kib": r["rss_kib"]}
        return f

    # The same paths in the order they were written, each in another
    # directory than the one before: no directory descriptor is reused.
    mixed = os.path.join(tmp, "files-mixed.txt")
    with open(lst) as fh:
        paths = fh.read().splitlines()
    with open(mixed, "w") as fh:
        fh.write("\n".join(sorted(paths, key=os.path.basename)) + "\n")
    nv = lambda j, l=lst: c([b["npyvalidate"], "-q", "-j", str(j), "--files-from", l])
    floor = lambda j, *extra, l=lst: c([b["floor_files"], "-j", str(j), *extra, l])

    def numpy():
        r = checked([PY, NPSIDE, "files", lst])
        return {"s": json.loads(r["out"])["seconds"], "rss_kib": r["rss_kib"]}

    # The goals are ratios of tens of milliseconds a few percent apart, and
    # this machine's run-to-run spread is larger than that: 41 rounds of the
    # fast commands (seven rounds put consecutive runs 0.14x apart at -j1).
    # numpy, at seconds a round and far from its line, runs seven times.
    res = alternate({"npyvalidate -j1": nv(1), "npyvalidate -j2": nv(2), "floor -j1": floor(1),
                     "floor -j2": floor(2), "stat floor -j1": floor(1, "--stat-first"),
                     "stat floor -j2": floor(2, "--stat-first"),
                     "npyvalidate -j1, mixed order": nv(1, mixed),
                     "floor -j1, mixed order": floor(1, l=mixed)}, 5 if quick else 41)
    res.update(alternate({"numpy": numpy}, 3 if quick else 7))
    shutil.rmtree(d)
    s = {k: v["s"] for k, v in res.items()}
    out = {
        "files": n,
        "seconds": s,
        "us_per_file": {k: v * 1e6 / n for k, v in s.items()},
        "vs_numpy_j1": s["numpy"] / s["npyvalidate -j1"],
        "vs_numpy_j2": s["numpy"] / s["npyvalidate -j2"],
        "vs_floor_j1": s["npyvalidate -j1"] / s["floor -j1"],
        "vs_floor_j2": s["npyvalidate -j2"] / s["floor -j2"],
        # the floor of a reader that stats a path before opening it, as
        # npyvalidate does to never open a device or FIFO
        "vs_stat_floor_j1": s["npyvalidate -j1"] / s["stat floor -j1"],
        "vs_stat_floor_j2": s["npyvalidate -j2"] / s["stat floor -j2"],
        "floor_vs_numpy_j1": s["numpy"] / s["floor -j1"],
        "vs_floor_j1_mixed_order": s["npyvalidate -j1, mixed order"] / s["floor -j1, mixed order"],
        "goal": "<= 1.2x the floor with one thread, <= 1.3x with two",
    }
    out["met"] = out["vs_floor_j1"] <= 1.2 and out["vs_floor_j2"] <= 1.3
    return out


# ---------------------------------------------------------------- 3. hashing

def bench_hash(b, tmp, quick):
    mib = 256 if quick else 1024
    log("== 3. validate + SHA-256 of a %d MiB payload" % mib)
    path = os.path.join(tmp, "big.npy")
    checked([PY, NPSIDE, "gen-npy", path, str(mib)])
    size = os.path.getsize(path)
    sums = {}

    def nv():
        r = checked([b["npyvalidate"], "--hash", "-j", "1", path])
        sums["npyvalidate"] = r["out"].split("sha256=")[1].split()[0]
        return {"s": r["wall"], "rss_kib": r["rss_kib"]}

    def ossl():
        r = checked(["openssl", "dgst", "-sha256", path])
        sums["openssl"] = r["out"].strip().split()[-1]
        return {"s": r["wall"], "rss_kib": r["rss_kib"]}

    if not shutil.which("openssl"):
        log("bench: no openssl command; skipping")
        return {"skipped": "no openssl command"}
    res = alternate({"npyvalidate --hash": nv, "openssl dgst": ossl}, 3 if quick else 5)
    os.unlink(path)
    # The payload alone is hashed by npyvalidate, the whole file by openssl.
    out = {
        "file_bytes": size,
        "seconds": {k: v["s"] for k, v in res.items()},
        "gb_per_s": {k: size / v["s"] / 1e9 for k, v in res.items()},
        "rss_mib": {k: v["rss_kib"] / 1024 for k, v in res.items()},
        "throughput_vs_openssl": res["openssl dgst"]["s"] / res["npyvalidate --hash"]["s"],
        "digests_differ_as_expected": sums["npyvalidate"] != sums["openssl"],
        "goal": ">= 0.9x openssl, peak RSS <= 16 MiB",
    }
    out["met"] = out["throughput_vs_openssl"] >= 0.9 and out["rss_mib"]["npyvalidate --hash"] <= 16
    return out


# ---------------------------------------------------------------- 4. npz

def bench_npz(b, tmp, quick):
    mib = 128 if quick else 1024
    log("== 4. .npz of %d MiB of arrays (np.savez_compressed; generating takes a while)" % mib)
    path, members = os.path.join(tmp, "big.npz"), os.path.join(tmp, "members.txt")
    t0 = time.perf_counter()
    checked([PY, NPSIDE, "gen-npz", path, str(mib), members])
    gen_s = time.perf_counter() - t0
    with open(members) as fh:
        rows = [list(map(int, line.split())) for line in fh if line.strip()]
    usize = sum(r[2] for r in rows)

    def c(cmd):
        def f():
            r = checked(cmd, False)
            return {"s": r["wall"], "rss_kib": r["rss_kib"]}
        return f

    def numpy():
        r = checked([PY, NPSIDE, "npz", path])
        return {"s": json.loads(r["out"])["seconds"], "rss_kib": r["rss_kib"]}

    res = alternate({
        "npyvalidate": c([b["npyvalidate"], "-q", "-j", "1", path]),
        "floor inflate+crc32": c([b["floor_inflate"], path, members]),
        "floor inflate": c([b["floor_inflate"], "--no-crc", path, members]),
        "numpy": numpy,
    }, 3 if quick else 5)
    s = {k: v["s"] for k, v in res.items()}
    out = {
        "archive_bytes": os.path.getsize(path),
        "uncompressed_bytes": usize,
        "members": len(rows),
        "generation_s": gen_s,
        "seconds": s,
        "gb_per_s_uncompressed": {k: usize / v / 1e9 for k, v in s.items()},
        "rss_mib": {k: v["rss_kib"] / 1024 for k, v in res.items()},
        "vs_floor_crc": s["floor inflate+crc32"] / s["npyvalidate"],
        "vs_floor_inflate": s["floor inflate"] / s["npyvalidate"],
        "vs_numpy": s["numpy"] / s["npyvalidate"],
        "goal": ">= 0.9x the zlib floor, bounded RSS",
    }
    os.unlink(path)
    out["met"] = out["vs_floor_crc"] >= 0.9 and out["rss_mib"]["npyvalidate"] <= 64
    return out


# ---------------------------------------------------------------- 5. fuzz

def bench_fuzz(b, tmp, quick, fuzz_dir, header_ns):
    exe = os.path.join(fuzz_dir or "", "fuzz", "npy_header_fuzzer")
    if not fuzz_dir or not os.access(exe, os.X_OK):
        log("== 5. fuzz throughput: skipped (no libFuzzer build)")
        return {"skipped": "no libFuzzer build (needs clang)"}
    runs = 20000 if quick else 100000
    log("== 5. fuzz throughput (%d runs)" % runs)
    seeds = os.path.join(tmp, "seeds")
    checked([PY, os.path.join(ROOT, "fuzz", "seeds.py"), seeds])

    def once():
        work = tempfile.mkdtemp(dir=tmp)
        r = checked([exe, "-runs=%d" % runs, "-seed=1", "-print_final_stats=1",
                     "-dict=" + os.path.join(ROOT, "fuzz", "npy.dict"), work,
                     os.path.join(seeds, "npy_header_fuzzer")])
        shutil.rmtree(work)
        execs = runs
        for line in r["err"].splitlines():
            if line.startswith("stat::number_of_executed_units:"):
                execs = int(line.rsplit(":", 1)[1])
        return {"execs": execs, "s": r["wall"], "execs_per_s": execs / r["wall"]}

    res = alternate({"npy_header_fuzzer": once}, 3)["npy_header_fuzzer"]
    out = {"runs": runs, "execs_per_s": res["execs_per_s"], "seconds": res["s"]}
    if header_ns:
        out["exec_cost_in_parses"] = 1e9 / res["execs_per_s"] / header_ns
    return out


# ---------------------------------------------------------------- output

def table(r):
    rows = []
    add = lambda *c: rows.append("| " + " | ".join(c) + " |")
    yes = lambda m: "yes" if m else "**no**"
    add("benchmark", "npyguard", "compared with", "ratio", "goal", "met")
    add("---", "---:", "---", "---:", "---", "---")
    h = r.get("header")
    if h:
        for g, label in (("all", "mix"), ("plain", "plain"), ("struct", "structured"), ("big", "66 KB structured")):
            if g in h["groups"]:
                x = h["groups"][g]
                add("1. header parse, %s (%d)" % (label, x["n"]), "%.0f ns" % x["npyguard_ns"],
                    "numpy %.0f ns" % x["numpy_ns"], "%.1fx faster" % x["ratio"],
                    ">= 200x" if g == "all" else "", yes(h["met"]) if g == "all" else "")
    f = r.get("files")
    if f:
        u = f["us_per_file"]
        add("2. %d small files, -j1" % f["files"], "%.1f us/file" % u["npyvalidate -j1"],
            "numpy %.1f us/file" % u["numpy"], "%.1fx faster" % f["vs_numpy_j1"], "", "")
        add("2. %d small files, -j2" % f["files"], "%.1f us/file" % u["npyvalidate -j2"],
            "numpy %.1f us/file" % u["numpy"], "%.1fx faster" % f["vs_numpy_j2"], "", "")
        add("2. vs floor, 1 thread", "%.1f us/file" % u["npyvalidate -j1"], "floor %.1f us/file" % u["floor -j1"],
            "%.2fx the floor" % f["vs_floor_j1"], "<= 1.2x", yes(f["vs_floor_j1"] <= 1.2))
        add("2. vs floor, 2 threads", "%.1f us/file" % u["npyvalidate -j2"], "floor %.1f us/file" % u["floor -j2"],
            "%.2fx the floor" % f["vs_floor_j2"], "<= 1.3x", yes(f["vs_floor_j2"] <= 1.3))
        add("2. vs the stat-first floor, 1 thread", "%.1f us/file" % u["npyvalidate -j1"],
            "floor --stat-first %.1f us/file" % u["stat floor -j1"], "%.2fx" % f["vs_stat_floor_j1"], "", "")
        add("2. vs the stat-first floor, 2 threads", "%.1f us/file" % u["npyvalidate -j2"],
            "floor --stat-first %.1f us/file" % u["stat floor -j2"], "%.2fx" % f["vs_stat_floor_j2"], "", "")
        add("2. vs floor, 1 thread, list not in directory order", "%.1f us/file" % u["npyvalidate -j1, mixed order"],
            "floor %.1f us/file" % u["floor -j1, mixed order"], "%.2fx the floor" % f["vs_floor_j1_mixed_order"], "", "")
        add("2. (floor vs numpy, 1 thread)", "", "", "%.1fx" % f["floor_vs_numpy_j1"], "", "")
    s = r.get("hash")
    if s and "skipped" not in s:
        g = s["gb_per_s"]
        add("3. validate + SHA-256, %d MiB" % (s["file_bytes"] // MIB), "%.2f GB/s" % g["npyvalidate --hash"],
            "openssl dgst %.2f GB/s" % g["openssl dgst"], "%.2fx openssl" % s["throughput_vs_openssl"], ">= 0.9x",
            yes(s["throughput_vs_openssl"] >= 0.9))
        add("3. peak RSS", "%.1f MiB" % s["rss_mib"]["npyvalidate --hash"],
            "openssl %.1f MiB" % s["rss_mib"]["openssl dgst"], "", "<= 16 MiB", yes(s["rss_mib"]["npyvalidate --hash"] <= 16))
    z = r.get("npz")
    if z:
        g = z["gb_per_s_uncompressed"]
        what = "4. .npz, %d MiB in %d members (%d MiB zipped)" % (z["uncompressed_bytes"] // MIB, z["members"],
                                                               z["archive_bytes"] // MIB)
        add(what, "%.0f MB/s" % (g["npyvalidate"] * 1e3), "zlib inflate+crc32 %.0f MB/s" % (g["floor inflate+crc32"] * 1e3),
            "%.2fx the floor" % z["vs_floor_crc"], ">= 0.9x", yes(z["vs_floor_crc"] >= 0.9))
        add("4. (same)", "", "zlib inflate only %.0f MB/s" % (g["floor inflate"] * 1e3),
            "%.2fx" % z["vs_floor_inflate"], "", "")
        add("4. (same)", "", "numpy %.0f MB/s" % (g["numpy"] * 1e3), "%.1fx faster" % z["vs_numpy"], "", "")
        add("4. peak RSS", "%.1f MiB" % z["rss_mib"]["npyvalidate"], "numpy %.0f MiB, floor %.1f MiB" % (
            z["rss_mib"]["numpy"], z["rss_mib"]["floor inflate+crc32"]), "", "bounded", yes(z["rss_mib"]["npyvalidate"] <= 64))
    if r.get("npzspeed"):
        npz_speed.rows(r["npzspeed"], add, yes)
    fz = r.get("fuzz")
    if fz and "skipped" not in fz:
        add("5. npy_header_fuzzer, -runs=%d" % fz["runs"], "%.0f exec/s" % fz["execs_per_s"], "plain parse (1.)",
            "%.0f parses per exec" % fz.get("exec_cost_in_parses", 0), "health", "")
    m = r["machine"]
    head = "%s, %d cores, load %.2f / %.2f / %.2f at start, %.2f at the end; %s; numpy %s; %s%s" % (
        m["cpu"], m["nproc"], *m["loadavg_start"], m["loadavg_end"][0], m["kernel"], m["numpy"], m["openssl"],
        "; quick mode" if r["quick"] else "")
    return "Measured %s on: %s.\n\n%s\n" % (m["date"], head, "\n".join(rows))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--fuzz")
    ap.add_argument("--json")
    ap.add_argument("--markdown")
    ap.add_argument("--pkg", help="the installed npyguard Python package (default: BUILD/python)")
    ap.add_argument("--only", help="comma-separated: header,files,hash,npz,npzspeed,fuzz")
    a = ap.parse_args()
    quick = os.environ.get("BENCH_QUICK", "") not in ("", "0")
    b = {
        "npyvalidate": os.path.join(a.build, "parser", "npyvalidate"),
        "bench_header": os.path.join(a.build, "bench", "bench_header"),
        "floor_files": os.path.join(a.build, "bench", "floor_files"),
        "floor_inflate": os.path.join(a.build, "bench", "floor_inflate"),
        "runrss": os.path.join(a.build, "bench", "runrss"),
    }
    for k, p in b.items():
        if not os.access(p, os.X_OK):
            raise SystemExit("bench: %s not built (%s)" % (k, p))
    whole = os.path.join(a.build, "bench", "floor_whole")  # only where ISA-L and libdeflate are
    b["floor_whole"] = whole if os.access(whole, os.X_OK) else None
    global RUNRSS
    RUNRSS = b["runrss"]
    b["pkg"] = a.pkg or os.path.join(a.build, "python")
    only = set((a.only or "header,files,hash,npz,npzspeed,fuzz").split(","))
    if "npzspeed" in only and not os.path.isdir(os.path.join(b["pkg"], "npyguard")):
        raise SystemExit("bench: no npyguard package in %s (ci/bench.sh installs it)" % b["pkg"])
    tmp = tempfile.mkdtemp(prefix="npyguard-bench-")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    r = {"quick": quick, "machine": machine()}
    try:
        if "header" in only:
            r["header"] = bench_header(b, tmp, quick)
        if "files" in only:
            r["files"] = bench_files(b, tmp, quick)
        if "hash" in only:
            r["hash"] = bench_hash(b, tmp, quick)
        if "npz" in only:
            r["npz"] = bench_npz(b, tmp, quick)
        if "npzspeed" in only:
            r["npzspeed"] = npz_speed.bench_npz_speed(b, tmp, quick, checked, alternate, log)
        if "fuzz" in only:
            hns = r.get("header", {}).get("groups", {}).get("plain", {}).get("npyguard_ns")
            r["fuzz"] = bench_fuzz(b, tmp, quick, a.fuzz, hns)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    r["machine"]["loadavg_end"] = os.getloadavg()
    md = table(r)
    print(md)
    print(json.dumps(r, indent=1, default=float))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(r, fh, indent=1)
            fh.write("\n")
    if a.markdown:
        with open(a.markdown, "w") as fh:
            fh.write(md)


if __name__ == "__main__":
    main()
