#!/usr/bin/env python3
"""No file outside the one being scanned is opened while scanning HDF5.

Runs the scan of every corpus/hdf5 file (test_hdf5, which opens the
manifest and each corpus file itself) under strace -f and checks, from the
system calls:
  - the sandboxed children open nothing but /dev/null, their own
    /proc/self/status (read for the memory they start with, before the
    filter) and the input they were handed (/proc/self/fd/3), and run no
    program;
  - no process opens support/canary.bin, where the external-storage
    hazard's raw data lives (support/target.h5, the external links' and
    the virtual dataset's target, is opened by the parent only as a corpus
    file of its own, and never by a child);
  - no child was killed by the seccomp filter (SIGSYS), which would mean
    libhdf5 tried to open something.
Usage: test_hdf5_noopen.py TEST_HDF5 CORPUS_HDF5_DIR      (skips, exit 77, without strace)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile


def main():
    test, corpus = sys.argv[1], os.path.abspath(sys.argv[2])
    strace = shutil.which("strace")
    if not strace:
        print("SKIP: no strace")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "trace")
        p = subprocess.run([strace, "-f", "-qq", "-e", "trace=open,openat,openat2,creat,execve",
                            "-e", "signal=SIGSYS", "-o", log, test, corpus],
                           capture_output=True, text=True)
        if p.returncode == 1 and "ptrace" in p.stderr:
            print("SKIP: strace cannot trace here: " + p.stderr.strip())
            return 77
        if p.returncode != 0:
            print(p.stdout + p.stderr)
            print("FAIL: the scan itself failed under strace")
            return 1
        lines = open(log).read().splitlines()
    main_pid = None
    children = set()
    failures = []
    opened_by_children = 0
    call = re.compile(r'^(\d+)\s+(open|openat|openat2|creat|execve)\((?:AT_FDCWD, )?"([^"]*)"')
    for line in lines:
        m = re.match(r"^(\d+)\s", line)
        if not m:
            continue
        pid = int(m.group(1))
        if main_pid is None:
            main_pid = pid
        if "SIGSYS" in line:
            failures.append("a child was killed by the seccomp filter: " + line)
        c = call.match(line)
        if not c:
            continue
        what, path = c.group(2), c.group(3)
        if pid != main_pid:
            children.add(pid)
            if what == "execve" or path not in ("/dev/null", "/proc/self/status", "/proc/self/fd/3"):
                failures.append("sandboxed child %d: %s" % (pid, line))
            else:
                opened_by_children += 1
        if "canary" in path or path == "/etc/hostname":
            failures.append("opened a file a hazard points at: " + line)
    for f in failures:
        print("FAIL: " + f)
    print("%d trace lines, %d sandboxed children, %d opens by them (all of their input)"
          % (len(lines), len(children), opened_by_children))
    if not children:
        print("FAIL: no sandboxed child seen: was the scan traced at all?")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
