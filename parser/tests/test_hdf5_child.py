#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The libhdf5 child's limits, and its death, are the file's verdict.

Files are written here, into a temporary directory, with h5py:

- GROUPS empty groups, whose walk takes several seconds of CPU (about 7 s
  for 100000 on a 2-core x86-64 machine, so 200000 leaves a wide margin
  over the 1 s limits used below);
- a float64 dataset of three values with one attribute of 4,000,000
  float64 (32 MB), which libhdf5 reads into memory to list it;
- the same dataset without the attribute.

`limits` mode:
  --hdf5-cpu 1  -> the child gets SIGXCPU,
  --hdf5-time 1 -> the child is killed by the parent,
each must report 117 NPYG_EHDF5_TIMEOUT, class limit, naming the limit;
  the child killed from outside while it walks, with SIGABRT and then
  SIGILL (as a failed assertion or a trap in libhdf5 would kill it; the
  sanitizer runtimes leave both alone), must report 116 NPYG_EHDF5_CRASH,
  class unsafe, naming the signal.
In all of them npyvalidate exits 1.

`memory` mode (not for sanitizer builds, which do not cap the child):
  --hdf5-memory 16 MiB: the 32 MB attribute is refused, and the small file
  is read, at -j1 and at -j2 alike. The cap counts from the memory the
  child starts with, so it holds in a child forked from a worker thread
  (whose malloc arena grows with mprotect), and what the caller holds
  (libhdf5, thread stacks) does not eat it.

Usage: test_hdf5_child.py NPYVALIDATE limits|memory
(skips, exit 77, without h5py; registered only when npyvalidate is built
with HDF5)
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

GROUPS = 200000

WRITER = """
import sys, h5py, numpy
what, path = sys.argv[1], sys.argv[2]
with h5py.File(path, "w", libver="latest") as f:
    if what == "groups":
        for i in range(int(sys.argv[3])):
            f.create_group("g%d" % i)
    else:
        d = f.create_dataset("x", data=numpy.arange(3.0))
        if what == "big-attribute":
            d.attrs.create("big", numpy.zeros(4000000))
"""


def python_with_h5py():
    for exe in (sys.executable, "/usr/bin/python3"):
        if exe and os.path.exists(exe) and subprocess.run(
                [exe, "-c", "import h5py"], capture_output=True).returncode == 0:
            return exe
    return None


def verdict(what, p, code, name, message):
    """Failures of one run against the one JSON report it must print."""
    failures = []
    if p.returncode != 1:
        failures.append("%s: npyvalidate exited %d, not 1; stderr: %s" % (what, p.returncode, p.stderr[-500:]))
    try:
        report = json.loads(p.stdout)
    except ValueError as e:
        return failures + ["%s: not one JSON report (%s): %r" % (what, e, p.stdout[:300])]
    err = report.get("error") or {}
    if report.get("ok") is not False:
        failures.append("%s: the report says ok=%r" % (what, report.get("ok")))
    if report.get("format") != "hdf5":
        failures.append("%s: format %r, not hdf5" % (what, report.get("format")))
    klass = "limit" if code == 117 else "unsafe"
    if (err.get("code"), err.get("name"), err.get("class")) != (code, name, klass):
        failures.append("%s: error %r, not %d %s %s" % (what, err, code, name, klass))
    if not (err.get("message") or "").startswith(message):
        failures.append("%s: message %r, not %r" % (what, err.get("message"), message))
    # the walk was cut short: some objects were reported, not all of them
    n = len((report.get("hdf5") or {}).get("objects") or [])
    if n >= GROUPS:
        failures.append("%s: all %d objects were reported, the walk was not cut" % (what, n))
    print("%s: code %s, %d of %d objects reported" % (what, err.get("code"), n, GROUPS))
    return failures


def past_a_limit(npyvalidate, path, option, message):
    args = [npyvalidate, "--json", option, "1", "--max-objects", "10000000", path]
    p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    return verdict(option + " 1", p, 117, "NPYG_EHDF5_TIMEOUT", message)


def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as fh:
            return [int(c) for c in fh.read().split()]
    except OSError:
        return []


def file_child(pid):
    """The child that reads the file: npyvalidate's helper's child."""
    for helper in children(pid):
        for child in children(helper):
            return child
    return None


def killed(npyvalidate, path, sig):
    """The child, found as the only child of npyvalidate's helper, is sent sig while it walks."""
    p = subprocess.Popen([npyvalidate, "--json", "--max-objects", "10000000", path],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    child = None
    deadline = time.monotonic() + 30
    while child is None and time.monotonic() < deadline and p.poll() is None:
        child = file_child(p.pid)
        if child is None:
            time.sleep(0.02)
    if child is None:
        p.kill()
        p.communicate()
        return ["%s: no child of npyvalidate's helper was seen" % signal.Signals(sig).name]
    time.sleep(0.5)  # inside the walk, which takes seconds
    child = file_child(p.pid) or child  # not the helper's short-lived probe of the kernel
    os.kill(child, sig)
    out, err = p.communicate(timeout=60)
    name = signal.Signals(sig).name
    return verdict("killed by " + name, subprocess.CompletedProcess(p.args, p.returncode, out, err), 116,
                   "NPYG_EHDF5_CRASH", "the HDF5 library failed on this file: signal %d (%s)" % (sig, name))


def memory(npyvalidate, big, small):
    failures = []
    cap = str(16 << 20)
    for jobs in ("-j1", "-j2"):
        for path, want_ok in ((big, False), (small, True)):
            # several copies, so that at -j2 the HDF5 children are forked from worker threads
            p = subprocess.run([npyvalidate, "--json", jobs, "--hdf5-memory", cap] + [path] * 4,
                               capture_output=True, text=True, timeout=300)
            reports = [json.loads(line) for line in p.stdout.splitlines()]
            oks = [r.get("ok") for r in reports]
            print("%s --hdf5-memory %s %s: ok=%r, exit %d" % (jobs, cap, os.path.basename(path), oks, p.returncode))
            if len(reports) != 4 or oks != [want_ok] * 4 or p.returncode != (0 if want_ok else 1):
                failures.append("%s %s: ok=%r exit %d, want every report ok=%r; %s"
                                % (jobs, os.path.basename(path), oks, p.returncode, want_ok, p.stdout[-400:]))
    # Under the default cap, h5py's own file is read: the refusal above is the cap's.
    p = subprocess.run([npyvalidate, "--json", big], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        failures.append("default cap: %s refused: %s" % (os.path.basename(big), p.stdout[-400:]))
    return failures


def main():
    npyvalidate, mode = os.path.abspath(sys.argv[1]), sys.argv[2]
    py = python_with_h5py()
    if not py:
        print("SKIP: no python with h5py")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        def write(what, *extra):
            path = os.path.join(tmp, what + ".h5")
            subprocess.run([py, "-c", WRITER, what, path, *extra], check=True, timeout=300)
            return path
        if mode == "limits":
            path = write("groups", str(GROUPS))
            failures = past_a_limit(npyvalidate, path, "--hdf5-cpu",
                                    "the HDF5 library used more than 1 s of CPU on this file")
            failures += past_a_limit(npyvalidate, path, "--hdf5-time",
                                     "the HDF5 library ran longer than 1 s on this file")
            failures += killed(npyvalidate, path, signal.SIGABRT)
            failures += killed(npyvalidate, path, signal.SIGILL)
        else:
            failures = memory(npyvalidate, write("big-attribute"), write("small"))
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
