# SPDX-License-Identifier: BSD-3-Clause
"""Benchmark 6 of bench/bench.py: .npz at the speed of the hardware.

Sixteen arrays of 32 MiB (float64, rounded to two decimals, so that they
deflate as real measurements do) saved by np.savez (512 MiB stored) and by
np.savez_compressed, and one 256 MiB .npy; BENCH_QUICK=1 uses 2 MiB arrays
and a 16 MiB .npy. Rows, each a ratio of medians of contenders run
alternately in one run (bench.alternate):

  6a. npyvalidate on the stored archive     against `cat` of the same file
  6b. npyvalidate on the deflated archive   against floor_inflate (zlib
      inflate + CRC-32 of the same members, in npyguard's chunk size)
  6c. npyguard.load_npz, every member read  against numpy.load, stored
  6d. the same                              on the deflated archive
  6e. npyguard.load(io.BytesIO(data))       against numpy.load of the same,
      data being the file's bytes as one bytes object: the case users
      write, where BytesIO.getbuffer() would copy the whole payload.
      Measured by bench_bytesio.py on this file: CPU time, both in one
      process, alternating, 11 rounds; and the peak resident set each
      load adds, in payloads
  6f. floor_whole: every deflated member inflated whole into one buffer
      and CRC-checked, libdeflate against ISA-L (CPU seconds of that work
      alone): whether the load path, which inflates a member straight into
      the array's memory, would gain from libdeflate

Every contender of 6a-6d runs in a fresh process. The command-line rows
time the process (runrss); 6c and 6d time the load alone, in the child,
after the import. Row 6e does not: the wall time of one 256 MiB load in a
fresh process on a shared machine is mostly the wait for a core and the
kernel's first touch of fresh memory (on a virtual machine several times
the load's own work, and the same for both contenders), so five such
samples told nothing about the loaders. The data lives in the benchmark's
temporary directory and is removed with it.
"""
import json
import os
import zipfile

PY = "/usr/bin/python3"
MIB = 1 << 20
HERE = os.path.dirname(os.path.abspath(__file__))

GEN = r"""
import sys
import numpy as np
stored, deflated, npy, arr_mib, npy_mib = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
rng = np.random.default_rng(20261128)
n = arr_mib * (1 << 20) // 8
arrays = {"a%02d" % k: np.round(rng.standard_normal(n) * 100.0, 2) for k in range(16)}
np.savez(stored, **arrays)
np.savez_compressed(deflated, **arrays)
del arrays
np.save(npy, np.round(rng.standard_normal(npy_mib * (1 << 20) // 8) * 100.0, 2))
"""

# argv: who (npyguard|numpy), path of an .npz. Prints seconds and the CPU
# seconds of the load, and a checksum of what was loaded so that nothing is
# left unread.
LOAD = r"""
import json, sys, time
import numpy as np
who, path = sys.argv[1:3]
if who == "npyguard":
    import npyguard
t, c = time.perf_counter(), time.process_time()
if who == "npyguard":
    with npyguard.load_npz(path) as z:
        arrs = [z[k] for k in z.files]
else:
    with np.load(path, allow_pickle=False) as z:
        arrs = [z[k] for k in z.files]
s, cpu = time.perf_counter() - t, time.process_time() - c
n = sum(a.nbytes for a in arrs)
check = float(sum(a[-1] for a in arrs))
print(json.dumps({"s": s, "cpu": cpu, "bytes": n, "check": check}))
"""


def members_file(path, out):
    """floor_inflate's member table: data offset, sizes and CRC of each
    deflated member, read with zipfile (the floor parses no zip)."""
    with zipfile.ZipFile(path) as zf, open(path, "rb") as raw, open(out, "w") as fh:
        for info in zf.infolist():
            raw.seek(info.header_offset + 26)
            nlen, xlen = int.from_bytes(raw.read(2), "little"), int.from_bytes(raw.read(2), "little")
            fh.write("%d %d %d %d\n" % (info.header_offset + 30 + nlen + xlen, info.compress_size, info.file_size,
                                         info.CRC))


def bench_npz_speed(b, tmp, quick, checked, alternate, log):
    arr_mib, npy_mib = (2, 16) if quick else (32, 256)
    rounds = 3 if quick else 5
    log("== 6. .npz at hardware speed: 16 x %d MiB float64 (generating)" % arr_mib)
    stored, deflated, npy = (os.path.join(tmp, n) for n in ("speed-stored.npz", "speed-deflated.npz", "speed.npy"))
    members = os.path.join(tmp, "speed-members.txt")
    checked([PY, "-c", GEN, stored, deflated, npy, str(arr_mib), str(npy_mib)])
    members_file(deflated, members)
    env_py = dict(os.environ, PYTHONPATH=b["pkg"])

    def cmd(argv):
        def f():
            r = checked(argv, False)
            return {"s": r["wall"], "rss_kib": r["rss_kib"]}
        return f

    def py(who, path):
        def f():
            r = checked([PY, "-c", LOAD, who, path], env=env_py)
            d = json.loads(r["out"])
            return {"s": d["s"], "cpu": d["cpu"], "check": d["check"]}
        return f

    out = {"array_mib": arr_mib, "npy_mib": npy_mib, "stored_bytes": os.path.getsize(stored),
           "deflated_bytes": os.path.getsize(deflated), "rounds": rounds}

    log("   6a. validate the stored archive, against cat")
    r = alternate({"npyvalidate": cmd([b["npyvalidate"], "-q", "-j", "1", stored]),
                   "cat": cmd(["cat", stored])}, rounds)
    out["stored_validate"] = {"seconds": {k: v["s"] for k, v in r.items()},
                              "rss_mib": r["npyvalidate"]["rss_kib"] / 1024,
                              "x_cat": r["npyvalidate"]["s"] / r["cat"]["s"]}

    log("   6b. validate the deflated archive, against zlib inflate + CRC-32")
    r = alternate({"npyvalidate": cmd([b["npyvalidate"], "-q", "-j", "1", deflated]),
                   "floor_inflate": cmd([b["floor_inflate"], deflated, members])}, rounds)
    out["deflated_validate"] = {"seconds": {k: v["s"] for k, v in r.items()},
                                "rss_mib": r["npyvalidate"]["rss_kib"] / 1024,
                                "x_floor": r["npyvalidate"]["s"] / r["floor_inflate"]["s"]}

    for key, path in (("stored_load", stored), ("deflated_load", deflated)):
        log("   6%s. load_npz every member (%s), against numpy.load" % ("c" if key == "stored_load" else "d",
                                                                          key.split("_")[0]))
        r = alternate({"npyguard": py("npyguard", path), "numpy": py("numpy", path)}, rounds)
        if r["npyguard"]["check"] != r["numpy"]["check"]:
            raise SystemExit("bench: npyguard.load_npz and numpy.load disagree on %s" % path)
        out[key] = {"seconds": {k: v["s"] for k, v in r.items()}, "speedup": r["numpy"]["s"] / r["npyguard"]["s"]}

    log("   6e. load(io.BytesIO(bytes)) of a %d MiB .npy, against numpy.load" % npy_mib)
    # bench_bytesio.py's own measurement, on this .npy (see the docstring)
    report = os.path.join(tmp, "speed-bytesio.json")
    checked([PY, os.path.join(HERE, "bench_bytesio.py"), "--pkg", b["pkg"], "--npy", npy,
             "--rounds", str(rounds if quick else 11), "--json", report])
    with open(report) as fh:
        x = json.load(fh)
    os.unlink(report)
    out["bytesio_load"] = {"cpu_seconds": x["seconds"], "x_numpy": x["npyguard_over_numpy"],
                           "peak_rss_payloads": x["peak_rss_payloads"]}
    if b.get("floor_whole"):
        log("   6f. whole-member inflate+CRC, libdeflate against ISA-L")
        whole = lambda engine: (lambda: {"s": json.loads(checked([b["floor_whole"], engine, deflated, members])["out"])["seconds"]})
        r = alternate({"isal": whole("isal"), "libdeflate": whole("libdeflate"), "zlib": whole("zlib")}, rounds)
        out["whole_member"] = {"seconds": {k: v["s"] for k, v in r.items()},
                               "libdeflate_x_isal": r["libdeflate"]["s"] / r["isal"]["s"]}
    for p in (stored, deflated, npy, members):
        os.unlink(p)

    out["goals"] = {
        "stored_validate": (out["stored_validate"]["x_cat"] <= 1.5, "<= 1.5x cat"),
        "deflated_validate": (out["deflated_validate"]["x_floor"] <= 0.5, "<= 0.5x the zlib floor"),
        "rss": (max(out["stored_validate"]["rss_mib"], out["deflated_validate"]["rss_mib"]) <= 16,
                "peak RSS <= 16 MiB"),
        "stored_load": (out["stored_load"]["speedup"] >= 1.5, ">= 1.5x numpy"),
        "deflated_load": (out["deflated_load"]["speedup"] >= 2.5, ">= 2.5x numpy"),
        "bytesio_load": (out["bytesio_load"]["x_numpy"] <= 1.1, "<= 1.1x numpy"),
        # a second copy of the payload would add 2.0 (bench_bytesio.py)
        "bytesio_copy": (out["bytesio_load"]["peak_rss_payloads"]["npyguard"] is not None and
                         out["bytesio_load"]["peak_rss_payloads"]["npyguard"] < 1.25, "< 1.25 payloads"),
    }
    out["met"] = all(m for m, _ in out["goals"].values())
    return out


def rows(z, add, yes):
    """The table rows of benchmark 6 (bench.table)."""
    g = z["goals"]
    sv, dv = z["stored_validate"], z["deflated_validate"]
    what = "16 x %d MiB float64" % z["array_mib"]
    add("6a. validate np.savez archive (%s, %d MiB)" % (what, z["stored_bytes"] // MIB),
        "%.3f s" % sv["seconds"]["npyvalidate"], "cat %.3f s" % sv["seconds"]["cat"], "%.2fx cat" % sv["x_cat"],
        g["stored_validate"][1], yes(g["stored_validate"][0]))
    add("6b. validate np.savez_compressed archive (%d MiB)" % (z["deflated_bytes"] // MIB),
        "%.3f s" % dv["seconds"]["npyvalidate"], "zlib inflate+crc32 %.3f s" % dv["seconds"]["floor_inflate"],
        "%.2fx the floor" % dv["x_floor"], g["deflated_validate"][1], yes(g["deflated_validate"][0]))
    add("6a/b. peak RSS of validation", "%.1f / %.1f MiB" % (sv["rss_mib"], dv["rss_mib"]), "", "",
        g["rss"][1], yes(g["rss"][0]))
    for key, label in (("stored_load", "6c. load_npz, every member, stored"),
                       ("deflated_load", "6d. load_npz, every member, deflated")):
        x = z[key]
        add(label, "%.3f s" % x["seconds"]["npyguard"], "numpy.load %.3f s" % x["seconds"]["numpy"],
            "%.2fx faster" % x["speedup"], g[key][1], yes(g[key][0]))
    w = z.get("whole_member")
    if w:
        add("6f. whole-member inflate+CRC (CPU), libdeflate", "%.3f s" % w["seconds"]["libdeflate"],
            "ISA-L %.3f s (zlib %.3f s)" % (w["seconds"]["isal"], w["seconds"]["zlib"]),
            "%.2fx ISA-L's time" % w["libdeflate_x_isal"], "decides the load path", "")
    x = z["bytesio_load"]
    add("6e. load(io.BytesIO(bytes)) (CPU), %d MiB .npy" % z["npy_mib"], "%.3f s" % x["cpu_seconds"]["npyguard"],
        "numpy.load %.3f s" % x["cpu_seconds"]["numpy"], "%.2fx numpy's time" % x["x_numpy"],
        g["bytesio_load"][1], yes(g["bytesio_load"][0]))
    peak = x["peak_rss_payloads"]
    add("6e. peak RSS the load adds, in payloads", "%s" % _payloads(peak["npyguard"]),
        "numpy.load %s" % _payloads(peak["numpy"]), "", g["bytesio_copy"][1], yes(g["bytesio_copy"][0]))


def _payloads(p):
    return "failed" if p is None else "%.2f" % p
