#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""No file outside the one being scanned is opened while scanning HDF5.

Runs the scan of every corpus/hdf5 file (test_hdf5, which opens the
manifest and each corpus file itself) under strace -f and checks, from the
system calls and the process tree they draw:
  - the helper (the process that execs npyg-hdf5-helper) opens, before it
    has seen any input, /dev/null for its standard descriptors, the
    dynamic loader's cache and shared objects (libhdf5 and its
    dependencies, two of them stand-ins from the helper's directory: no
    libcurl and no libcrypto) and its own /proc/self/status, and runs no
    other program;
  - each file's child (a process the helper forks) opens nothing: its
    attempts, libhdf5's check that no file of the image's name exists, are
    "/npyguard-input" and fail with EACCES, answered by the filter;
  - no process opens support/canary.bin, where the external-storage
    hazard's raw data lives (support/target.h5, the external links' and
    the virtual dataset's target, is opened by the parent only as a corpus
    file of its own, and never by a child);
  - no child was killed by the seccomp filter (SIGSYS), which would mean
    libhdf5 tried a call the allow list does not have.
In sanitizer builds (an argument "sanitized") the helper may also read
/proc/self/maps, cmdline and environ: the sanitizer runtime does, at start
and at each dlopen, still before any input. In builds instrumented for
coverage (an argument "instrumented") it may also write default.profraw,
the profile runtime's file (its environment, LLVM_PROFILE_FILE included,
is cleared), which it does as it exits.
Usage: test_hdf5_noopen.py TEST_HDF5 CORPUS_HDF5_DIR [sanitized] [instrumented]   (skips, exit 77, without strace)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HELPER = "npyg-hdf5-helper"
LIBRARY = re.compile(r"(^/etc/ld\.so\.cache$|\.so(\.[0-9.]+)?$)")
NETWORK = re.compile(r"/lib(curl|crypto|ssl|gnutls|nghttp2|ssh2?|ldap|gssapi_krb5)[^/]*\.so")
STAND_IN = re.compile(r"/npyg-h5-no(curl|crypto)\.so$")
CALLS = "clone,clone3,fork,vfork,execve,open,openat,openat2,creat"


def main():
    test, corpus = sys.argv[1], os.path.abspath(sys.argv[2])
    helper_may = {"/dev/null", "/proc/self/status"}
    if "sanitized" in sys.argv[3:]:
        helper_may |= {"/proc/self/maps", "/proc/self/cmdline", "/proc/self/environ"}
    if "instrumented" in sys.argv[3:]:
        helper_may |= {"default.profraw"}
    strace = shutil.which("strace")
    if not strace:
        print("SKIP: no strace")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "trace")
        p = subprocess.run([strace, "-f", "-qq", "-e", "trace=" + CALLS, "-e", "signal=SIGSYS", "-o", log,
                            test, corpus], capture_output=True, text=True)
        if p.returncode == 1 and "ptrace" in p.stderr:
            print("SKIP: strace cannot trace here: " + p.stderr.strip())
            return 77
        if p.returncode != 0:
            print(p.stdout + p.stderr)
            print("FAIL: the scan itself failed under strace")
            return 1
        lines = open(log).read().splitlines()

    parent_of = {}
    helpers, children = set(), set()
    failures = []
    opens = {"helper": 0, "child": 0}
    stand_ins = set()
    call = re.compile(r'^(\d+)\s+(open|openat|openat2|creat|execve)\((?:AT_FDCWD, )?"([^"]*)"(.*)$')
    made = re.compile(r"^(\d+)\s+(?:<\.\.\. )?(?:clone3?|fork|vfork)\b.*= (\d+)$")
    # a call another process interrupted is split in two lines: join them
    pending, joined = {}, []
    for line in lines:
        pid = line.split(" ", 1)[0]
        if line.endswith("<unfinished ...>"):
            pending[pid] = line[: -len("<unfinished ...>")].rstrip()
            continue
        r = re.match(r"^(\d+)\s+<\.\.\. \w+ resumed>(.*)$", line)
        if r and r.group(1) in pending:
            line = pending.pop(r.group(1)) + r.group(2)
        joined.append(line)
    for line in joined:
        m = made.match(line)
        if m and "CLONE_THREAD" not in line:
            parent_of[int(m.group(2))] = int(m.group(1))
        if "SIGSYS" in line:
            failures.append("a process was killed by the seccomp filter: " + line)
        c = call.match(line)
        if not c:
            continue
        pid, what, path, rest = int(c.group(1)), c.group(2), c.group(3), c.group(4)
        if "canary" in path or path == "/etc/hostname":
            failures.append("opened a file a hazard points at: " + line)
        if what == "execve" and os.path.basename(path) == HELPER:
            helpers.add(pid)
            continue
        # "= ?" or "<detached ...>": the call never returned, its process
        # killed in it (a child that waited for a file when its helper ended)
        refused = "EACCES" in rest or rest.rstrip().endswith(("= ?", "<detached ...>"))
        if path == "/npyguard-input" and what == "openat" and refused and parent_of.get(pid) not in helpers:
            # a child whose fork strace could not show (its helper was
            # killed inside the clone), under a number a helper had before
            # (numbers wrap around at pid_max in a long run)
            opens["child"] += 1
            continue
        if parent_of.get(pid) in helpers:
            children.add(pid)
            opens["child"] += 1
            if what != "openat" or path != "/npyguard-input" or not refused:
                failures.append("a file's child %d: %s" % (pid, line))
        elif pid in helpers:
            opens["helper"] += 1
            if what == "execve" or not (path in helper_may or LIBRARY.search(path)):
                failures.append("the helper %d, before any input: %s" % (pid, line))
            elif NETWORK.search(path):
                failures.append("the helper %d loaded a network library its stand-ins replace: %s" % (pid, line))
            elif STAND_IN.search(path):
                stand_ins.add(os.path.basename(path))
        elif parent_of.get(pid) is not None and what != "execve" and path != "/dev/null":
            # between posix_spawn's clone and its exec: /dev/null only
            failures.append("process %d before it became the helper: %s" % (pid, line))
    for f in failures:
        print("FAIL: " + f)
    print("%d trace lines, %d helper(s) (%d opens, all before any input), %d files' children "
          "(%d opens, each refused)" % (len(lines), len(helpers), opens["helper"], len(children), opens["child"]))
    if stand_ins != {"npyg-h5-nocurl.so", "npyg-h5-nocrypto.so"}:
        print("FAIL: the helpers loaded stand-ins %s, not both" % sorted(stand_ins))
        return 1
    if not helpers or len(children) < 50:
        print("FAIL: too few helpers or children seen: was the scan traced at all?")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
