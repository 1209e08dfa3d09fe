#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""npyvalidate as a neighbour: it never modifies what it reads, and it dies
quietly when its reader goes away.

1. The SHA-256, size and mtime of every corpus file are the same before
   and after `npyvalidate -r CORPUS --hash`, and under strace every file it
   opens is opened read-only (skipped when strace is absent; CI installs
   it).
2. `npyvalidate -r CORPUS | head -1`: once the reader has its first line
   and closes the pipe, npyvalidate ends (by SIGPIPE, or exiting) without
   a word on stderr (a sanitizer build reports leaks there) and the line
   the reader got is one whole verdict line.

Usage: test_robustness.py NPYVALIDATE CORPUS_DIR
"""
import hashlib
import os
import re
import signal
import subprocess
import tempfile

import cli_helpers
from cli_helpers import NPYV, check, run, run_traced

# strace -y names the directory a relative open starts from; the corpus
# is named by absolute path so that every open under it can be told.
CORPUS = os.path.abspath(cli_helpers.CORPUS)


def snapshot():
    out = {}
    for d, _dirs, files in os.walk(CORPUS):
        for f in files:
            p = os.path.join(d, f)
            st = os.lstat(p)
            with open(p, "rb") as fh:
                digest = hashlib.sha256(fh.read()).hexdigest()
            out[p] = (digest, st.st_size, st.st_mtime_ns, st.st_mode)
    return out


def test_files_unchanged():
    before = snapshot()
    r = run("-r", CORPUS, "--hash", timeout=600)
    check(r.returncode in (0, 1), "npyvalidate -r --hash exits %d: %s" % (r.returncode, r.stderr[-500:]))
    check(r.stdout.count(b"\n") >= 600, "npyvalidate printed %d lines" % r.stdout.count(b"\n"))
    after = snapshot()
    check(before.keys() == after.keys(), "files appeared or vanished: %s" % (before.keys() ^ after.keys()))
    changed = [p for p in before if p in after and before[p] != after[p]]
    check(not changed, "modified: %s" % changed[:5])


# pid  openat(AT_FDCWD|fd<dir>, "name", flags...: npyvalidate looks a path
# up from a descriptor of its directory when the path before was there too.
OPEN_RE = re.compile(r'^\d+\s+(open|openat|openat2|creat)\((?:AT_FDCWD|\d+)<((?:[^>\\]|\\.)*)>, '
                     r'"((?:[^"\\]|\\.)*)"(?:\.\.\.)?, ([^)<]*)')


def test_opens_are_read_only():
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "trace")
        r = run_traced(log, "open,openat,openat2,creat", "-r", CORPUS, "--hash", "-j", "4", timeout=900)
        if r is None:
            print("SKIP: strace not installed; read-only opens not traced")
            return
        check(r.returncode in (0, 1), "under strace: exit %d %s" % (r.returncode, r.stderr[-300:]))
        corpus_opens = writes = 0
        with open(log, errors="replace") as fh:
            for line in fh:
                m = OPEN_RE.match(line)
                if not m:
                    continue
                call, at, name, flags = m.groups()
                if at and not name.startswith("/"):
                    name = os.path.join(at, name)
                if name.endswith((".profraw", ".gcda")):
                    continue  # a coverage build writing its own counters
                if name == "/dev/null":
                    continue  # the HDF5 child's stdio: nothing written there reaches a file
                if call == "creat" or re.search(r"O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND", flags):
                    writes += 1
                    check(False, "opened for writing: %s" % line.strip())
                if name.startswith(CORPUS):
                    corpus_opens += 1
                    check("O_RDONLY" in flags, "corpus file not opened O_RDONLY: %s" % line.strip())
        # Every .npy and .npz file is opened (directories too): the trace saw the run.
        n = sum(1 for d, _s, fs in os.walk(CORPUS) for f in fs if f.endswith((".npy", ".npz")))
        check(corpus_opens >= n, "only %d opens under the corpus for %d files" % (corpus_opens, n))
        check(writes == 0, "%d opens for writing" % writes)


VERDICT = re.compile(rb"^[^\n]+: (ok |warning: |[a-z]+: )[^\n]*\n$|^[^\n]+:\d+: [a-z]+: [^\n]*\n$")


def test_sigpipe_is_quiet():
    # JSON lines with hashes over the corpus twice: far more than a pipe
    # holds, so npyvalidate is still writing when the reader leaves.
    p = subprocess.Popen([NPYV, "-r", "--hash", CORPUS, CORPUS], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    first = p.stdout.readline()
    p.stdout.close()
    try:
        err = p.stderr.read()
        rc = p.wait(timeout=300)
    except subprocess.TimeoutExpired:
        p.kill()
        check(False, "npyvalidate still running after its reader left")
        return
    check(first.endswith(b"\n") and VERDICT.match(first), "first line %r is not a whole verdict line" % first)
    check(rc in (-signal.SIGPIPE, 0, 1, 2), "ended with status %d" % rc)
    check(err == b"", "wrote to stderr after the reader left: %r" % err[:500])


if __name__ == "__main__":
    cli_helpers.main(globals())
