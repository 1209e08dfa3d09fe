#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every escape from the HDF5 cage is refused or kills the child, and the
parent gives the file a clear verdict.

npyg-hdf5-helper-escape is the helper built with NPYG_H5_ESCAPE_TESTS
(tests only): a child whose input starts with "NPYG-ESCAPE <name>" tries
that escape once the cage is in force, as code running in a compromised
libhdf5 would (parser/src/hdf5/escape.c). Each input here is that line
padded to 512 bytes, followed by a real HDF5 file, so that the parent's
own probe finds the superblock at 512 and hands it to the child (the
escape line then sits where hdf5storage puts the MAT header: the user
block, which libhdf5 skips).

Expected, with npyvalidate --json:
  open, openat                  refused by the filter with EACCES: the child
                                reports 119 "escape X refused: errno 13"
  every other system call       the child is killed (SIGSYS): 116
                                NPYG_EHDF5_CRASH, class unsafe, naming SIGSYS
  a code not its own, a record  129 NPYG_EHDF5_PROTOCOL, class unsafe
  after the end, garbage, a
  line past the limit
  getpid (allowed: the control) "was not stopped": ok, so a call that gets
                                through is seen, and this test can fail
  end-then-spin (first)         a valid end, then the pipe closed and a
                                loop that never exits: ok (the parent cannot
                                tell); the next file's end, which the parent
                                waits for, may not wait behind it
All files go through one npyvalidate -j1 run, so one helper outlives every
killed child. Also `--sandbox-info` names the layers in force (the
stand-ins for libcurl and libcrypto among them), and a helper whose
stand-in libhdf5 cannot load with starts again without it.

Usage: test_hdf5_sandbox.py NPYVALIDATE ESCAPE_HELPER CORPUS_HDF5_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

KILLED = ["io_uring_setup", "pidfd_open", "pidfd_getfd", "kill", "tgkill", "ptrace", "process_vm_readv",
          "clone", "fork", "vfork", "execve", "socket", "bpf", "userfaultfd", "perf_event_open", "keyctl",
          "mount", "mkdir", "unlink", "rename", "creat", "write-other", "write-input", "mmap-exec"]
REFUSED = ["open", "openat"]
LIES = ["code-not-its-own", "code-ok-then-more", "garbage", "kind-unknown", "long-line"]
ORDER = ["end-then-spin"] + KILLED + REFUSED + LIES + ["getpid"]
SIGSYS = "the HDF5 library tried a forbidden system call (opening another file?): signal 31 (SIGSYS)"


def expected(name):
    if name in KILLED:
        return 116, "NPYG_EHDF5_CRASH", SIGSYS
    if name in REFUSED:
        return 119, "NPYG_EHDF5_OBJECT", "escape %s refused: errno 13" % name
    if name in LIES:
        return 129, "NPYG_EHDF5_PROTOCOL", "the HDF5 child broke the record protocol"
    return None


def stand_ins_refused(npyvalidate, helper, h5):
    """A helper whose libcurl stand-in lacks libcurl's functions (libhdf5
    cannot load with it) starts again without stand-ins: it still scans,
    and --sandbox-info says libcurl and libcrypto are loaded."""
    here = os.path.dirname(os.path.abspath(helper))
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy2(helper, os.path.join(tmp, "npyg-hdf5-helper"))
        shutil.copy2(os.path.join(here, "npyg-h5-nocrypto.so"), tmp)
        shutil.copy2(os.path.join(here, "npyg-h5-nocurl-broken.so"), os.path.join(tmp, "npyg-h5-nocurl.so"))
        env = dict(os.environ, NPYG_HDF5_HELPER=os.path.join(tmp, "npyg-hdf5-helper"))
        info = subprocess.run([npyvalidate, "--sandbox-info"], env=env, capture_output=True, text=True, timeout=60)
        scan = subprocess.run([npyvalidate, "--json", h5], env=env, capture_output=True, text=True, timeout=60)
    print("broken stand-in: --sandbox-info: %s; scan: %s" % (info.stdout.strip(), scan.stdout.strip()[:80]))
    if info.returncode != 0 or not info.stdout.rstrip().endswith(", libcurl and libcrypto loaded"):
        failures.append("broken stand-in: --sandbox-info: exit %d, %r %r" % (info.returncode, info.stdout, info.stderr))
    if scan.returncode != 0 or json.loads(scan.stdout or "{}").get("ok") is not True:
        failures.append("broken stand-in: the scan of %s: exit %d, %r" % (h5, scan.returncode, scan.stdout))
    return failures


def main():
    npyvalidate, helper, corpus = sys.argv[1:4]
    with open(os.path.join(corpus, "valid", "h5", "bool.h5"), "rb") as fh:
        h5 = fh.read()
    sig = b"\x89HDF\r\n\x1a\n"
    if h5[512:520] == sig:  # hdf5storage's 512-byte user block: ours to write
        h5 = h5[512:]
    assert h5[:8] == sig
    failures = []
    env = dict(os.environ, NPYG_HDF5_HELPER=os.path.abspath(helper))
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for name in ORDER:
            path = os.path.join(tmp, name + ".h5")
            with open(path, "wb") as fh:
                fh.write(("NPYG-ESCAPE %s\n" % name).encode().ljust(512, b"\0") + h5)
            paths[path] = name
        p = subprocess.run([npyvalidate, "--json", "-j1", "--hdf5-time", "20"] + list(paths), env=env,
                           capture_output=True, text=True, timeout=120)
        reports = {}
        for line in p.stdout.splitlines():
            r = json.loads(line)
            reports[paths[r["path"]]] = r
        for name in paths.values():
            r = reports.get(name)
            if r is None:
                failures.append("%s: no report" % name)
                continue
            err = r.get("error") or {}
            want = expected(name)
            if want is None:  # the control
                ok = r.get("ok") is True
                print("%-18s ok=%r" % (name, r.get("ok")))
                if not ok:
                    failures.append("%s (allowed): not ok: %r" % (name, r))
                continue
            got = (err.get("code"), err.get("name"), err.get("message"))
            print("%-18s %s %s: %s" % (name, got[0], got[1], got[2]))
            if r.get("ok") is not False or got != want:
                failures.append("%s: %r, want %r" % (name, got, want))
            if want[0] != 119 and err.get("class") != "unsafe":
                failures.append("%s: class %r, not unsafe" % (name, err.get("class")))
        if p.returncode != 1:
            failures.append("npyvalidate exited %d, not 1; stderr %s" % (p.returncode, p.stderr[-300:]))

    p = subprocess.run([npyvalidate, "--sandbox-info"], env=env, capture_output=True, text=True, timeout=60)
    print("--sandbox-info: " + p.stdout.strip())
    if p.returncode != 0 or not p.stdout.startswith("sandbox: seccomp allow-list, ") or \
            not p.stdout.rstrip().endswith(", no libcurl or libcrypto"):
        failures.append("--sandbox-info: exit %d, %r %r" % (p.returncode, p.stdout, p.stderr))
    failures += stand_ins_refused(npyvalidate, helper, os.path.join(corpus, "valid", "h5", "bool.h5"))
    for f in failures:
        print("FAIL: " + f)
    print("%d escapes tried, %d failure(s)" % (len(KILLED + REFUSED + LIES), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
