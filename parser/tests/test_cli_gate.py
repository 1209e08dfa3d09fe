#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""npyvalidate as a gate that fails closed: -r checks every regular file by
its content whatever its name, content of no format is refused with its own
code unless --skip-unrecognized says otherwise, --include is the explicit
name filter, every entry a walk could not check (a symbolic link, a special
file, an unreadable directory, a name that vanished) leaves a record that
counts in the exit status, and --files-from is streamed, with a
NUL-separated form (-0/--null).

The arrays are corpus files written by numpy; what they should give comes
from corpus/manifest.json (numpy's verdict and npyguard's expected code).

Usage: test_cli_gate.py NPYVALIDATE CORPUS_DIR
"""
import faulthandler
import os
import resource
import select
import shutil
import subprocess
import sys
import tempfile

import cli_helpers
from cli_helpers import CORPUS, NPYV, check, json_lines, manifest, run

faulthandler.enable()
MANIFEST = manifest()["files"]
HDF5 = manifest("hdf5")["files"]
EVIL = "unsafe/obj-os-system-v1.npy"  # numpy.load(allow_pickle=False) refuses it: a pickle
VALID = "valid/f8-le-1d-C-v1.npy"


# AddressSanitizer reserves terabytes of shadow memory at start: under an
# address-space cap a sanitized build cannot start, so it gets the
# file-size cap only (the release build's run holds the memory bounds).
with open(NPYV, "rb") as _f:
    SANITIZED = b"__asan_init" in _f.read()


def limited():
    """Each npyvalidate run here: at most 256 MiB of address space and no
    file larger than 1 MiB written, so a regression cannot take the machine."""
    if not SANITIZED:
        resource.setrlimit(resource.RLIMIT_AS, (256 << 20, 256 << 20))
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))


def npyv(*args, stdin=None, timeout=60, prefix=(), env=None):
    return subprocess.run([*prefix, NPYV, *args], input=stdin, capture_output=True, timeout=timeout,
                          preexec_fn=limited, env=env)


def tree():
    """A directory as a data engineer receives it: a pickle-bearing array
    under an upper-case and under a neutral name, a valid array without its
    extension, a text file and an empty file."""
    d = tempfile.mkdtemp(prefix="npyv-gate-")
    shutil.copy(os.path.join(CORPUS, EVIL), os.path.join(d, "EVIL.NPY"))
    shutil.copy(os.path.join(CORPUS, EVIL), os.path.join(d, "evil.bin"))
    os.mkdir(os.path.join(d, "sub"))
    shutil.copy(os.path.join(CORPUS, VALID), os.path.join(d, "sub", "array"))
    with open(os.path.join(d, "notes.txt"), "w") as f:
        f.write("not an array\n")
    open(os.path.join(d, "empty"), "w").close()
    return d


def by_path(out):
    return {o["path"]: o for o in json_lines(out)}


def test_walk_reads_every_file_by_content():
    d = tree()
    try:
        r = npyv("-r", "--json", d)
        got = by_path(r.stdout)
        want_err = MANIFEST[EVIL]["npyguard_error"]
        check(MANIFEST[EVIL]["numpy"]["verdict"] == "reject", "numpy refuses %s" % EVIL)
        for name in ("EVIL.NPY", "evil.bin"):
            o = got.get(os.path.join(d, name))
            check(o is not None and o["ok"] is False and o["error"]["name"] == want_err,
                  "-r reads %s by content: %r" % (name, o))
        o = got.get(os.path.join(d, "sub", "array"))
        check(o is not None and o["ok"] is True and o["npy"]["shape"] == MANIFEST[VALID]["shape"],
              "-r reads a valid array without an extension: %r" % o)
        for name in ("notes.txt", "empty"):
            o = got.get(os.path.join(d, name))
            check(o is not None and o["ok"] is False and o["error"]["name"] == "NPYG_EUNRECOGNIZED"
                  and o["error"]["class"] == "magic", "content of no format refused with its own code: %r" % o)
        check(len(got) == 5, "one record per file: %r" % sorted(got))
        check(r.returncode == 1, "exit 1: %d" % r.returncode)
        # the text output names every file too
        r = npyv("-r", d)
        text = r.stdout.decode()
        check(all(os.path.join(d, n) + ":" in text for n in ("EVIL.NPY", "evil.bin", "notes.txt", "empty")),
              "text output names every file: %r" % text)
    finally:
        shutil.rmtree(d)


def test_skipping_takes_an_explicit_option():
    d = tree()
    try:
        os.unlink(os.path.join(d, "EVIL.NPY"))
        os.unlink(os.path.join(d, "evil.bin"))
        r = npyv("-r", "--json", "--skip-unrecognized", d)
        got = by_path(r.stdout)
        for name in ("notes.txt", "empty"):
            o = got.get(os.path.join(d, name))
            check(o is not None and o["ok"] is None and o["skipped"] == "unrecognized",
                  "--skip-unrecognized: listed as skipped: %r" % o)
        check(r.returncode == 0, "--skip-unrecognized over valid arrays and text: exit %d" % r.returncode)
        r = npyv("-r", "--skip-unrecognized", d)
        check(r.stdout.decode().count(": skipped: ") == 2, "skips shown in text: %r" % r.stdout)
        r = npyv("-r", "-q", "--skip-unrecognized", d)
        check(r.stdout == b"" and r.returncode == 0, "-q hides skips: %r" % r.stdout)
    finally:
        shutil.rmtree(d)
    d = tree()
    try:
        r = npyv("-r", "--json", "--include", "*.bin", "--include=arr*", d)
        got = by_path(r.stdout)
        check(got[os.path.join(d, "evil.bin")]["error"]["name"] == MANIFEST[EVIL]["npyguard_error"],
              "--include: a matching name is checked")
        check(got[os.path.join(d, "sub", "array")]["ok"] is True, "--include: a second pattern matches too")
        for name in ("EVIL.NPY", "notes.txt", "empty"):
            o = got.get(os.path.join(d, name))
            check(o is not None and o["ok"] is None and o["skipped"] == "excluded",
                  "--include: %s listed as excluded: %r" % (name, o))
        check(r.returncode == 1, "--include: the pickle still fails the run: %d" % r.returncode)
    finally:
        shutil.rmtree(d)


def test_polyglots_are_refused_by_content_under_any_name():
    d = tempfile.mkdtemp(prefix="npyv-gate-")
    try:
        for n in ("polyglot.npy", "polyglot.npz", "polyglot.ra"):
            shutil.copy(os.path.join(CORPUS, "hdf5", "hazard", n), os.path.join(d, n.replace(".", "_") + ".DAT"))
        r = npyv("-r", "--json", d)
        got = json_lines(r.stdout)
        check(len(got) == 3 and all(o["error"]["code"] == HDF5["hazard/polyglot.npy"]["error"] for o in got),
              "polyglots under -r: %r" % got)
    finally:
        shutil.rmtree(d)


def shim(d):
    """A preloaded lstat that removes any file named vanish.data just
    before it is looked at: a name readdir gave that is gone at lstat,
    every time. None when no C compiler is installed."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        return None
    src, lib = os.path.join(d, "vanish.c"), os.path.join(d, "vanish.so")
    with open(src, "w") as f:
        f.write("""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
static void gone(const char *p) { const char *s = strrchr(p, '/'); if (s && !strcmp(s + 1, "vanish.data")) unlink(p); }
int lstat(const char *p, struct stat *st) {
    gone(p); int (*real)(const char *, struct stat *) = (int (*)(const char *, struct stat *))dlsym(RTLD_NEXT, "lstat");
    return real(p, st); }
int lstat64(const char *p, struct stat64 *st) {
    gone(p); int (*real)(const char *, struct stat64 *) = (int (*)(const char *, struct stat64 *))dlsym(RTLD_NEXT, "lstat64");
    return real(p, st); }
""")
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", lib, src, "-ldl"], check=True, timeout=60)
    return lib


def test_unchecked_entries_leave_records():
    d = tempfile.mkdtemp(prefix="npyv-gate-")
    tools = tempfile.mkdtemp(prefix="npyv-shim-")
    try:
        os.chmod(d, 0o777)  # nobody (below) may remove vanish.data
        shutil.copy(os.path.join(CORPUS, VALID), os.path.join(d, "a.npy"))
        os.symlink(os.path.join(CORPUS, EVIL), os.path.join(d, "link.npy"))
        os.mkfifo(os.path.join(d, "pipe.npy"))
        os.mkdir(os.path.join(d, "locked"))
        shutil.copy(os.path.join(CORPUS, EVIL), os.path.join(d, "locked", "hidden.npy"))
        os.chmod(os.path.join(d, "locked"), 0)
        with open(os.path.join(d, "vanish.data"), "wb") as f:
            f.write(open(os.path.join(CORPUS, EVIL), "rb").read())
        # root reads any directory: the walk runs as nobody then
        prefix = ()
        if os.geteuid() == 0:
            setpriv = shutil.which("setpriv")
            check(setpriv is not None, "setpriv (util-linux) is installed to drop root")
            prefix = (setpriv, "--reuid=65534", "--regid=65534", "--clear-groups")
        lib = shim(tools)
        os.chmod(tools, 0o755)
        env = dict(os.environ, LD_PRELOAD=lib) if lib else None
        if lib is None:
            os.unlink(os.path.join(d, "vanish.data"))
        r = npyv("-r", "--json", d, prefix=prefix, env=env)
        got = by_path(r.stdout)
        want = {"link.npy": "symlink", "pipe.npy": "special", "locked": "unreadable_directory"}
        if lib:
            want["vanish.data"] = "vanished"
        for name, kind in want.items():
            o = got.get(os.path.join(d, name))
            check(o is not None and o["ok"] is False and o["not_checked"] == kind and o["error"]["class"] == "io",
                  "%s: a %s record: %r" % (name, kind, o))
        check(got.get(os.path.join(d, "a.npy"), {}).get("ok") is True, "the valid file beside them: %r" % got)
        check(len(got) == len(want) + 1, "one record per entry: %r" % sorted(got))
        check(r.returncode == 2, "entries not checked count in the exit status: %d" % r.returncode)
        if lib:  # the shim removed it: once more for the text run
            shutil.copy(os.path.join(CORPUS, EVIL), os.path.join(d, "vanish.data"))
        r = npyv("-r", "-q", d, prefix=prefix, env=env)
        text = r.stdout.decode()
        for name in want:
            check(os.path.join(d, name) + ": io: " in text, "text record for %s even with -q: %r" % (name, text))
        check(r.returncode == 2 and r.stderr == b"", "records on stdout, not stderr: %r" % r.stderr)
    finally:
        os.chmod(os.path.join(d, "locked"), 0o700)
        shutil.rmtree(d)
        shutil.rmtree(tools)


def test_files_from_is_streamed():
    """The first path's verdict arrives while the list is still open: the
    list is read as it is used, not whole first."""
    for jobs in ("1", "2"):
        p = subprocess.Popen([NPYV, "-j", jobs, "--files-from", "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, preexec_fn=limited)
        try:
            p.stdin.write((os.path.join(CORPUS, VALID) + "\n").encode())
            p.stdin.flush()
            ready, _, _ = select.select([p.stdout], [], [], 20)
            line = p.stdout.readline() if ready else b""
            check(line.startswith(os.path.join(CORPUS, VALID).encode() + b": ok "),
                  "-j%s: a verdict before the list ends: %r" % (jobs, line))
        finally:
            p.stdin.close()
            rc = p.wait(timeout=60)
        check(rc == 0, "-j%s: exit %d once the list ends" % (jobs, rc))


def peak_rss_kib(lines, jobs):
    """Peak resident size of `npyvalidate -q -j JOBS --files-from LIST`
    over `lines` paths of one small valid file (the kernel's count, of a
    shell that execs it: nothing of this interpreter is counted)."""
    with tempfile.NamedTemporaryFile("wb", suffix=".lst", delete=False) as f:
        one = (os.path.join(CORPUS, VALID) + "\n").encode()
        for _ in range(lines // 1000):
            f.write(one * 1000)
    try:
        caps = "ulimit -f 1024;" if SANITIZED else "ulimit -v 1048576; ulimit -f 1024;"
        p = subprocess.Popen(["sh", "-c", caps + ' exec "$0" "$@"', NPYV, "-q", "-j", jobs,
                              "--files-from", f.name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        check(p.returncode == 0, "%d-line list: exit %d" % (lines, p.returncode))
        return usage.ru_maxrss
    finally:
        os.unlink(f.name)


def test_long_lists_cost_no_memory():
    # 300,000 paths of ~60 bytes held whole would be ~25 MiB more (the
    # paths, their pointers and a job each); streamed, the same as 1,000.
    for jobs in ("1", "2"):
        small, big = peak_rss_kib(1000, jobs), peak_rss_kib(300000, jobs)
        # AddressSanitizer holds freed memory in quarantine (256 MiB by
        # default): its peak says nothing of the list; the release build's does.
        check(SANITIZED or big - small < 4096, "-j%s: peak RSS %d KiB for 300,000 paths, %d KiB for 1,000" % (jobs, big, small))


def test_null_separated_lists():
    d = tempfile.mkdtemp(prefix="npyv-gate-")
    try:
        odd = os.path.join(d, "new\nline.npy")
        plain = os.path.join(d, "plain.npy")
        shutil.copy(os.path.join(CORPUS, VALID), odd)
        shutil.copy(os.path.join(CORPUS, VALID), plain)
        listing = (odd + "\0" + plain + "\0").encode()
        for flag in ("-0", "--null"):
            r = npyv("--json", flag, "--files-from", "-", stdin=listing)
            got = json_lines(r.stdout)
            check([o["path"] for o in got] == [odd, plain] and all(o["ok"] for o in got) and r.returncode == 0,
                  "%s: 'new\\nline.npy' is one path: %r" % (flag, got))
        # as find writes it
        r = subprocess.run("find %s -name '*.npy' -print0 | %s -0 --files-from - --json" % (d, NPYV), shell=True,
                           capture_output=True, timeout=60)
        check(sorted(o["path"] for o in json_lines(r.stdout)) == sorted([odd, plain]) and r.returncode == 0,
              "find -print0 | npyvalidate -0: %r" % r.stdout)
        # without -0, a NUL inside a line is a record, not a silent cut
        r = npyv("--json", "--files-from", "-", stdin=listing + b"\n")
        got = json_lines(r.stdout)
        check(any(o.get("not_checked") == "bad_list_entry" for o in got) and r.returncode == 2,
              "a NUL in a newline list: %r" % got)
        # a record longer than any path is dropped as it streams past: a
        # record says so, memory stays bounded, the next path is checked
        r = npyv("--json", "--files-from", "-", stdin=b"x" * (64 << 20) + b"\n" + plain.encode() + b"\n")
        got = json_lines(r.stdout)
        check([o.get("not_checked") for o in got] == ["bad_list_entry", None] and got[1]["ok"] and r.returncode == 2,
              "a 64 MiB line: %r" % got)
        # a list that cannot be read is a record too
        r = npyv("--json", "--files-from", os.path.join(d, "no-such-list"))
        got = json_lines(r.stdout)
        check(len(got) == 1 and got[0]["not_checked"] == "unreadable_list" and r.returncode == 2,
              "a missing list: %r" % got)
    finally:
        shutil.rmtree(d)


if __name__ == "__main__":
    cli_helpers.main(globals())
