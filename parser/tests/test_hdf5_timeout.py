#!/usr/bin/env python3
"""A libhdf5 child that runs past its time limits is the file's verdict.

No corpus file keeps libhdf5 busy for long, so one is written here, into a
temporary directory, with h5py: GROUPS empty groups, whose walk takes
several seconds of CPU (about 7 s for 100000 on a 2-core x86-64 machine,
so 200000 leaves a wide margin over the 1 s limits used below). Then

  npyvalidate --json --hdf5-cpu 1  -> the child gets SIGXCPU,
  npyvalidate --json --hdf5-time 1 -> the child is killed by the parent,

and each must report code 117 NPYG_EHDF5_TIMEOUT, class unsafe, with the
message naming the limit that was hit, and npyvalidate must exit 1.
Usage: test_hdf5_timeout.py NPYVALIDATE      (skips, exit 77, without h5py;
registered only when npyvalidate is built with HDF5)
"""
import json
import os
import subprocess
import sys
import tempfile

GROUPS = 200000

WRITER = """
import sys, h5py
with h5py.File(sys.argv[1], "w", libver="latest") as f:
    for i in range(int(sys.argv[2])):
        f.create_group("g%d" % i)
"""


def python_with_h5py():
    for exe in (sys.executable, "/usr/bin/python3"):
        if exe and os.path.exists(exe) and subprocess.run(
                [exe, "-c", "import h5py"], capture_output=True).returncode == 0:
            return exe
    return None


def check(npyvalidate, path, option, message):
    args = [npyvalidate, "--json", option, "1", "--max-objects", "10000000", path]
    p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    failures = []
    if p.returncode != 1:
        failures.append("%s: npyvalidate exited %d, not 1; stderr: %s" % (option, p.returncode, p.stderr[-500:]))
    try:
        report = json.loads(p.stdout)
    except ValueError as e:
        return failures + ["%s: not one JSON report (%s): %r" % (option, e, p.stdout[:300])]
    err = report.get("error") or {}
    if report.get("ok") is not False:
        failures.append("%s: the report says ok=%r" % (option, report.get("ok")))
    if report.get("format") != "hdf5":
        failures.append("%s: format %r, not hdf5" % (option, report.get("format")))
    if (err.get("code"), err.get("name"), err.get("class")) != (117, "NPYG_EHDF5_TIMEOUT", "unsafe"):
        failures.append("%s: error %r, not 117 NPYG_EHDF5_TIMEOUT unsafe" % (option, err))
    if err.get("message") != message:
        failures.append("%s: message %r, not %r" % (option, err.get("message"), message))
    # the walk was cut short: some objects were reported, not all of them
    n = len(report.get("objects") or [])
    if n >= GROUPS:
        failures.append("%s: all %d objects were reported, the limit cut nothing" % (option, n))
    print("%s 1: code %s, %d of %d objects reported before the limit" % (option, err.get("code"), n, GROUPS))
    return failures


def main():
    npyvalidate = os.path.abspath(sys.argv[1])
    py = python_with_h5py()
    if not py:
        print("SKIP: no python with h5py")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "many-groups.h5")
        subprocess.run([py, "-c", WRITER, path, str(GROUPS)], check=True, timeout=120)
        failures = check(npyvalidate, path, "--hdf5-cpu",
                         "the HDF5 library used more than 1 s of CPU on this file")
        failures += check(npyvalidate, path, "--hdf5-time",
                          "the HDF5 library ran longer than 1 s on this file")
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
