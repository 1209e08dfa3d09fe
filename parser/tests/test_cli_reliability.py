#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""npyvalidate facing hostile input around the parser: option values, file
and member names that would drive a terminal, JSON that must stay strict
UTF-8 and map back to the bytes, special files, deflate work per archive
and archives on standard input. Archives are written with Python's zipfile
and zlib; .npy headers are written as numpy's format documentation gives
them.

Usage: test_cli_reliability.py NPYVALIDATE CORPUS_DIR
"""
import io
import json
import os
import shutil
import subprocess
import tempfile
import warnings
import zipfile

import cli_helpers
from cli_helpers import CORPUS, check, manifest, run, run_json

VALID = os.path.join(CORPUS, "valid", "f8-le-1d-C-v1.npy")


def test_option_values_are_digits_only():
    for args in (["--max-payload", "+5"], ["--max-payload", " 5"], ["--max-payload", "-5"],
                 ["--max-payload", ""], ["--max-payload", "5x"], ["--max-payload=0x10"],
                 ["--max-dims", "4 "], ["--max-payload", "18446744073709551616"],
                 ["--json=1"], ["--hash=yes"], ["--strict="], ["--recursive=0"], ["--quiet=1"]):
        r = run(*args, VALID)
        check(r.returncode == 2 and r.stdout == b"", "usage error for %r: %d %r" % (args, r.returncode, r.stdout))
    r = run("--max-payload", "18446744073709551615", "--json", VALID)
    check(r.returncode == 0, "the largest u64 is a value: %d %r" % (r.returncode, r.stderr))


def npy(descr, shape, payload, version=(1, 0)):
    """A .npy file laid out as numpy's format documentation gives it: magic,
    version, header length, a dict literal padded with spaces to a multiple
    of 64 and ending in a newline, then the payload."""
    text = "{'descr': %s, 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    body = text.encode("utf-8" if version[0] >= 3 else "latin1")
    lenbytes = 2 if version[0] == 1 else 4
    pre = 6 + 2 + lenbytes
    total = -(-(pre + len(body) + 1) // 64) * 64
    body += b" " * (total - pre - len(body) - 1) + b"\n"
    return (b"\x93NUMPY" + bytes(version) + len(body).to_bytes(lenbytes, "little") + body + payload)


F8 = npy("'<f8'", "(2,)", bytes(16))


def zip_with_names(names, data=F8, method=zipfile.ZIP_STORED):
    """An archive whose member names are the given bytes. A UTF-8 name is
    written by zipfile, which sets the UTF-8 flag; any other is written as a
    same-length ASCII stand-in (flag off), then put in place in both
    headers."""
    buf = io.BytesIO()
    stand_ins = []
    with zipfile.ZipFile(buf, "w", method) as z:
        for k, (raw, utf8) in enumerate(names):
            stand = raw if utf8 else chr(ord("A") + k).encode() * len(raw)
            stand_ins.append(stand)
            info = zipfile.ZipInfo(stand.decode())
            info.compress_type = method
            z.writestr(info, data)
    blob = buf.getvalue()
    for (raw, utf8), stand in zip(names, stand_ins):
        if not utf8:
            check(blob.count(stand) == 2, "stand-in name %r is unique" % stand)
            blob = blob.replace(stand, raw)
    return blob


# Hostile names: a terminal's escape sequences, a newline that would forge
# a verdict line, a raw C1 CSI byte (0x9b), C1 controls in UTF-8, bidi
# overrides and isolates, a byte that is not UTF-8.
HOSTILE = [
    b"a\x1b[2Jb\x07.npy",
    b"x.npy: ok <f8 shape=(3,) order=C v1.0\ny.npy",
    b"c\x9b31md.npy",
    "report\u202eypn.exe.npy".encode(),
    "iso\u2066late\u2069.npy".encode(),
    "c1\u0085\u009b.npy".encode(),
    b"bad\xff\x1b[2Jname\n.npy",
    b"tab\there\rcr\x7f.npy",
]


def bad_chars(text):
    """Characters of decoded output that a terminal could act on or that
    repr() would escape; a newline ends a line and is allowed."""
    return [c for c in text if c != "\n" and not c.isprintable()]


def clean(out, what):
    check(b"\x9b" not in out and b"\x1b" not in out, "%s: no ESC or raw CSI byte: %r" % (what, out[:300]))
    try:
        text = out.decode("utf-8")
    except UnicodeDecodeError as e:
        check(False, "%s: output is not UTF-8 (%s): %r" % (what, e, out[:300]))
        return ""
    bad = bad_chars(text)
    check(not bad, "%s: unescaped %r in %r" % (what, bad, text[:300]))
    return text


def test_hostile_file_names_are_escaped():
    d = tempfile.mkdtemp()
    try:
        db = os.fsencode(d)
        paths = []
        for k, name in enumerate(HOSTILE):
            p = os.path.join(db, name)
            with open(p, "wb") as f:
                f.write(F8 if k % 2 == 0 else b"\x93NUMPY\x01\x00garbage")
            paths.append(p)
        zpath = os.path.join(db, b"arch\x1b]0;title\x07\u202e.npz".replace(b"\u202e", "\u202e".encode()))
        with open(zpath, "wb") as f:
            f.write(zip_with_names([("m\u202eypn.npy".encode(), True), ("k\u0085\u2067.npy".encode(), True),
                                    (b"raw\x9bcsi.npy", False), (b"lat\xff\x80\x80.npy", False)]))
        paths.append(zpath)
        # Field names: a bidi override as an escape in a v1.0 header, and as
        # raw UTF-8 in a v3.0 one; a C1 control.
        for k, (descr, ver) in enumerate([("[('\\u202e', '<f8')]", (1, 0)), ("[('\u202e', '<f8')]", (3, 0)),
                                         ("[('a\\x85\\x9b', '<f8'), ('\\u2066', '<i4')]", (1, 0))]):
            p = os.path.join(db, b"field%d.npy" % k)
            payload = bytes(12) if "i4" in descr else bytes(8)
            with open(p, "wb") as f:
                f.write(npy(descr, "(1,)", payload, ver))
            paths.append(p)
        n_lines = None
        for args in ([], ["-j1"], ["-j4"], ["--strict"], ["--hash"]):
            r = run(*args, *paths)
            text = clean(r.stdout, "stdout %r" % args)
            clean(r.stderr, "stderr %r" % args)
            # One line per file, plus one per member after the archive's.
            lines = text.count("\n")
            if n_lines is None:
                n_lines = lines
            check(lines >= len(paths), "%r: a name cannot add lines: %d" % (args, lines))
            check(r.returncode in (1, 2), "%r: some inputs are invalid: %d" % (args, r.returncode))
        r = run(*paths)
        text = r.stdout.decode("utf-8", "replace")
        lines = text.splitlines()
        oks = [l for l in lines if ": ok " in l and "shape=(3,)" not in l]
        check(len(oks) == 4 + 4 + 3, "4 valid files, 4 members, 3 field files: %r" % text)
        check(all(l.startswith(d + "/") for l in lines), "every line starts with a path: %r" % text)
        check("\\u202e" in text and "\\x9b" in text and "\\x1b" in text and "\\x0a" in text,
              "escapes are visible: %r" % text)
        check(not any(l.endswith("x.npy: ok <f8 shape=(3,) order=C v1.0") for l in lines),
              "no forged verdict line: %r" % text)
        # Directory walk, and errors about a directory (stderr).
        r = run("-r", d)
        clean(r.stdout, "stdout -r")
        clean(r.stderr, "stderr -r")
        bad_dir = os.path.join(db, b"dir\x1b[2J\u202e".replace(b"\u202e", "\u202e".encode()))
        os.mkdir(bad_dir)
        os.chmod(bad_dir, 0)
        r = run("-r", bad_dir)
        os.chmod(bad_dir, 0o700)
        clean(r.stdout, "stdout unreadable dir")
        clean(r.stderr, "stderr unreadable dir")
        # Special files and missing files named with escapes.
        r = run(os.path.join(db, b"missing\x1b[2J\n.npy"), bad_dir)
        clean(r.stdout + r.stderr, "missing file / directory")
        # Option values and --files-from.
        r = run("--max-dims", "\x1b[2J\u202e")
        clean(r.stdout + r.stderr, "bad option value")
        r = run("--files-from", os.path.join(db, b"nolist\x1b[2J"))
        clean(r.stdout + r.stderr, "missing list file")
    finally:
        shutil.rmtree(d)


def test_json_is_strict_utf8_and_maps_back():
    d = tempfile.mkdtemp()
    try:
        db = os.fsencode(d)
        names = [b"plain.npy", b"bad\xff.npy", "\u00ff.npy".encode(), b"nl\n\x1b.npy", "\u202e.npy".encode()]
        paths = []
        for name in names:
            p = os.path.join(db, name)
            with open(p, "wb") as f:
                f.write(F8)
            paths.append(p)
        members = [b"FF\xff\x80\x80.npy", b"SUR\xed\xa0\x80.npy", b"OVL\xe0\x80\x80.npy", b"BIG\xf4\x90\x80\x80.npy",
                   b"C1\xc2\x85.npy", "ok\u00e9.npy".encode()]
        zpath = os.path.join(db, b"z\xfe.npz")
        with open(zpath, "wb") as f:
            f.write(zip_with_names([(m, False) for m in members]))
        paths.append(zpath)
        r = run("--json", *paths)
        check(r.returncode == 0, "all valid: %d %r" % (r.returncode, r.stderr))
        lines = r.stdout.split(b"\n")
        check(lines[-1] == b"" and len(lines) == len(paths) + 1, "one JSON line per file")
        seen = []
        for line in lines[:-1]:
            try:
                o = json.loads(line.decode("utf-8", "strict"))
            except (UnicodeDecodeError, ValueError) as e:
                check(False, "strict JSON line: %s: %r" % (e, line))
                continue
            check(not bad_chars(line.decode()), "no raw control or bidi character in %r" % line)

            def back(obj, key):
                if key + "_bytes" in obj:
                    raw = bytes.fromhex(obj[key + "_bytes"])
                    check(obj[key] == raw.decode("utf-8", "replace"), "%s is the replaced form of %s_bytes" % (key, key))
                    return raw
                return obj[key].encode("utf-8")
            seen.append(back(o, "path"))
            if o["format"] == "npz":
                got = [back(m, "name") for m in o["npz"]["members"]]
                check(got == members, "member names map back: %r" % got)
        check(seen == paths, "paths map back to the files: %r" % seen)
        check(b"\\u00ff" not in r.stdout or "\u00ff".encode() in r.stdout, "U+00FF and byte 0xff differ")
    finally:
        shutil.rmtree(d)


def test_special_files_say_what_they_are():
    """A FIFO, a device, a socket and a directory are refused with
    NPYG_ENOTREG and a message naming the kind of file; no errno left over
    from an earlier call ("Inappropriate ioctl for device")."""
    import socket
    d = tempfile.mkdtemp()
    fifo, sock = os.path.join(d, "f.npy"), os.path.join(d, "s.npy")
    os.mkfifo(fifo)
    s = socket.socket(socket.AF_UNIX)
    s.bind(sock)
    try:
        for p, kind in ((fifo, "FIFO"), ("/dev/zero", "character device"), ("/dev/null", "character device"),
                        (sock, "socket"), (d, "directory")):
            r = run("--json", p, timeout=10)
            check(r.returncode == 2, "%s refused: %d" % (p, r.returncode))
            try:
                e = json.loads(r.stdout)["error"]
            except ValueError:
                check(False, "%s: JSON error: %r" % (p, r.stdout))
                continue
            check(e["name"] == "NPYG_ENOTREG" and e["class"] == "io", "%s: NPYG_ENOTREG: %r" % (p, e))
            check(kind in e["message"] and "ioctl" not in e["message"], "%s: names a %s: %r" % (p, kind, e))
            r = run(p, timeout=10)
            check(kind in r.stdout.decode() and r.stdout.startswith(os.fsencode(p) + b": io: "),
                  "%s: text names a %s: %r" % (p, kind, r.stdout))
    finally:
        s.close()
        shutil.rmtree(d)


def test_paths_in_one_directory_keep_their_verdicts():
    """From the second path in a directory on, npyvalidate looks names up
    from a descriptor of that directory. Each path keeps the verdict the
    file system gives it: a FIFO, a symlink to a device and a directory
    are still refused unopened, a missing file says so, a change of
    directory and back is followed, and `d//a.npy` is `d/a.npy`."""
    import errno
    import re
    import socket
    d = tempfile.mkdtemp(prefix="npyg-dir-")
    try:
        one, two = os.path.join(d, "one"), os.path.join(d, "two")
        os.mkdir(one)
        os.mkdir(two)
        for p in ("a.npy", "b.npy"):
            shutil.copy(VALID, os.path.join(one, p))
        shutil.copy(VALID, os.path.join(two, "c.npy"))
        os.mkfifo(os.path.join(one, "f.npy"))
        os.symlink("/dev/zero", os.path.join(one, "z.npy"))
        os.mkdir(os.path.join(one, "sub.npy"))
        s = socket.socket(socket.AF_UNIX)
        s.bind(os.path.join(one, "s.npy"))
        refused = {"f.npy": "FIFO", "z.npy": "character device", "sub.npy": "directory", "s.npy": "socket"}
        names = ["a.npy", "f.npy", "z.npy", "sub.npy", "s.npy", "gone.npy", "b.npy"]
        paths = [os.path.join(one, n) for n in names] + [os.path.join(two, "c.npy"), one + "//a.npy",
                                                          os.path.join(one, "b.npy")]
        lst = os.path.join(d, "list")
        with open(lst, "w") as fh:
            fh.write("".join(p + "\n" for p in paths))
        for jobs in ("1", "2"):
            r = run("--json", "-j", jobs, "--files-from", lst, timeout=20)
            out = cli_helpers.json_lines(r.stdout)
            check(r.returncode == 2 and [o["path"] for o in out] == paths,
                  "-j%s: a line per path in order, exit 2: %d %r" % (jobs, r.returncode, r.stdout[:200]))
            for p, o in zip(paths, out):
                base = os.path.basename(p)
                if base in refused:
                    e = o.get("error", {})
                    check(e.get("name") == "NPYG_ENOTREG" and refused[base] in e.get("message", ""),
                          "-j%s %s: refused as a %s: %r" % (jobs, p, refused[base], o))
                elif base == "gone.npy":
                    e = o.get("error", {})
                    check(e.get("class") == "io" and os.strerror(errno.ENOENT) in e.get("message", ""),
                          "-j%s %s: missing: %r" % (jobs, p, o))
                else:
                    check(o.get("ok") is True, "-j%s %s: valid: %r" % (jobs, p, o))
        s.close()
        log = os.path.join(d, "trace")
        r = cli_helpers.run_traced(log, "openat,newfstatat", "-q", "-j", "1", "--files-from", lst, timeout=60)
        if r is None:
            print("SKIP: strace not installed; opens in one directory not traced")
            return
        with open(log, errors="replace") as fh:
            trace = fh.read()
        if r.returncode != 2 or "openat(" not in trace:
            print("SKIP: strace cannot trace here: %r" % trace[-200:])
            return
        opened = re.findall(r'openat\((AT_FDCWD|\d+)<[^>]*>, "([^"]*)", ([^)]*)\)', trace)
        for _at, name, flags in opened:
            if os.path.basename(name) in refused:
                check(False, "opened what is refused unopened: %s %s" % (name, flags))
        rel = [n for at, n, _f in opened if n == "b.npy" and at != "AT_FDCWD"]
        # b.npy follows a.npy, then `one//a.npy` (one's again): both from one's descriptor.
        check(len(rel) == 2, "b.npy opened by name from a descriptor of its directory: %r" % opened)
    finally:
        shutil.rmtree(d)


def test_a_slow_first_input_keeps_the_order():
    """Standard input first, arriving in two parts a second apart, then more
    files than the window holds: the other workers run ahead until the
    window is full and wait, and the worker that finishes the first input
    prints everything done behind it. Every report comes out once, in input
    order, with the manifest's verdict (numpy loads the valid/ files and
    refuses the invalid/ ones)."""
    import threading
    import time
    files = manifest()["files"]
    valid = sorted(n for n, e in files.items() if e["group"] == "valid" and n.endswith(".npy"))
    invalid = sorted(n for n, e in files.items() if e["group"] == "invalid" and n.endswith(".npy")
                     and e["numpy"]["verdict"] == "reject")
    names = [n for pair in zip(valid, invalid) for n in pair]
    names = (names * (1 + 600 // len(names)))[:600]  # -j3 holds 192 ahead of printing
    data = open(VALID, "rb").read()
    for jobs in ("-j2", "-j3"):
        p = subprocess.Popen([cli_helpers.NPYV, jobs, "--json", "-", *[os.path.join(CORPUS, n) for n in names]],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        def feed():
            p.stdin.write(data[:10]); p.stdin.flush()
            time.sleep(1.0)
            p.stdin.write(data[10:]); p.stdin.close()
        feeder = threading.Thread(target=feed)
        feeder.start()
        stuck = threading.Timer(60, p.kill)  # a worker left waiting hangs the run
        stuck.start()
        out, err = p.stdout.read(), p.stderr.read()
        p.wait()
        stuck.cancel()
        feeder.join()
        reports = cli_helpers.json_lines(out)
        check(p.returncode == 1 and err == b"" and len(reports) == 1 + len(names),
              "%s: one report per input: %d for %d, exit %d" % (jobs, len(reports), 1 + len(names), p.returncode))
        check(reports[0]["path"] == "-" and reports[0]["ok"], "%s: standard input's report first: %r" % (jobs, reports[:1]))
        want = [(os.path.join(CORPUS, n), files[n]["group"] == "valid") for n in names]
        got = [(o["path"], o["ok"]) for o in reports[1:]]
        wrong = [(w, g) for w, g in zip(want, got) if w != g]
        check(not wrong and len(got) == len(want), "%s: in input order, with the manifest's verdict: %r" % (jobs, wrong[:3]))


def test_what_is_read_is_what_the_file_gives():
    """A small file is read whole with the size stat() gave, plus one byte
    to see whether there is more; when there is (the file grew, or it is
    one of /proc's regular files, which stat() calls empty), the verdict
    is on what the file gives, as numpy.load reads it (to its end), not on
    an empty file. /proc/self/status is text: none of the formats, and
    the refusal names its first bytes, not an empty input."""
    p = "/proc/self/status"
    with open(p, "rb") as f:
        text = f.read()
    check(os.stat(p).st_size == 0 and len(text) > 0 and not text.startswith(b"\x93NUMPY"),
          "stat() calls %s empty; it holds %d bytes of text" % (p, len(text)))
    r = run_json(p)
    first = " ".join("%02x" % c for c in text[:6])  # "Name:\t", then each process's own name
    check(r["error"]["name"] == "NPYG_EUNRECOGNIZED" and "starts with bytes " + first in r["error"]["message"],
          "%s: refused for its content, not as empty: %r" % (p, r))


def zeros_archive(n, size):
    """n deflated members, each a valid uint8 .npy of `size` bytes of zeros
    (header included), written by zipfile with zlib."""
    member = npy("'|u1'", "(%d,)" % (size - 128), b"")
    member += bytes(size - len(member))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for k in range(n):
            z.writestr("z%02d.npy" % k, member)
    return buf.getvalue()


def test_inflation_is_bounded_per_archive():
    """Each member is under its 64 MiB ratio grace; together they are not,
    and the archive is refused with the budget's code before any member is
    inflated (the first member asked for is refused too)."""
    d = tempfile.mkdtemp()
    try:
        size = 8 << 20
        many = os.path.join(d, "many.npz")
        with open(many, "wb") as f:
            f.write(zeros_archive(16, size))
        one = os.path.join(d, "one.npz")
        with open(one, "wb") as f:
            f.write(zeros_archive(1, size))
        arch = os.path.getsize(many)
        check(16 * size > (64 << 20) + 100 * arch, "the archive is over the default budget (%d bytes)" % arch)
        r = run("--json", many)
        o = json.loads(r.stdout)
        errs = [m.get("error", {}).get("name") for m in o["npz"]["members"]]
        check(r.returncode == 1 and not o["ok"], "16 members of zeros refused: %d" % r.returncode)
        check(errs == ["NPYG_ELIMIT_INFLATE"] * 16, "every member refused by the budget, the first included: %r" % errs)
        check(all(m["error"]["offset_in"] == "archive" for m in o["npz"]["members"]), "budget errors are the archive's")
        r = run(many)
        check(b"limit: deflated members declare %d bytes" % (16 * size) in r.stdout, "text names the work: %r"
              % r.stdout[:300])
        # Raised from the command line, the budget lets it through.
        r = run("--inflate-budget", str(16 * size), many)
        check(r.returncode == 0, "within a raised budget: %d %r" % (r.returncode, r.stdout[-200:]))
        r = run("--inflate-budget", "0", "--max-ratio", str(16 * size // arch + 1), many)
        check(r.returncode == 0, "the ratio x archive part of the budget: %d" % r.returncode)
        # One such member is fine under the defaults, and its grace is
        # settable from the command line.
        r = run(one)
        check(r.returncode == 0, "one member of zeros passes: %d %r" % (r.returncode, r.stdout))
        o = run_json("--ratio-grace", str(1 << 20), one)
        check(o["npz"]["members"][0].get("error", {}).get("name") == "NPYG_ELIMIT_RATIO", "--ratio-grace: %r" % o)
    finally:
        shutil.rmtree(d)


def test_archive_on_standard_input():
    """A pipe holding an archive is spooled to an anonymous temporary file
    in $TMPDIR, bounded by the zip limits, then validated as that file; a
    .npy on a pipe is still streamed (no temporary file)."""
    npz_dir = os.path.join(CORPUS, "npz")
    files = manifest("npz")["files"]
    names = sorted(n for n, e in files.items() if n.endswith(".npz") and "bomb" not in n)[:40]
    check(len(names) >= 20, "archives to pipe: %d" % len(names))
    tmp = tempfile.mkdtemp()
    env = dict(os.environ, TMPDIR=tmp)
    try:
        for n in names:
            p = os.path.join(npz_dir, n)
            data = open(p, "rb").read()
            a = run("--json", p)
            b = run("--json", "-", stdin=data, env=env)
            oa, ob = json.loads(a.stdout), json.loads(b.stdout)
            oa.pop("path"), ob.pop("path")
            check(a.returncode == b.returncode and oa == ob, "%s: same verdict on a pipe as a file: %r / %r"
                  % (n, oa, ob))
        check(os.listdir(tmp) == [], "the temporary file is anonymous: %r" % os.listdir(tmp))
        # Past the largest archive the limits admit: the limit's code, exit 1.
        big = zip_with_names([(b"a.npy", False)], data=npy("'|u1'", "(400000,)", bytes(400000)))
        args = ["--max-uncompressed", "1000", "--max-members", "1", "--max-name-bytes", "16"]
        r = run("--json", *args, "-", stdin=big, env=env)
        o = json.loads(r.stdout)
        check(r.returncode == 1 and o["error"]["name"] == "NPYG_ELIMIT_STDIN" and o["error"]["class"] == "limit",
              "a stream past the bound: %d %r" % (r.returncode, o))
        small = zip_with_names([(b"a.npy", False)])
        r = run(*args, "-", stdin=small, env=env)
        check(r.returncode == 0 and r.stdout.startswith(b"-:a.npy: ok "), "a small archive under the same limits: %r"
              % r.stdout)
        # No temporary directory: an archive cannot be spooled (I/O error),
        # a .npy is streamed as before, however large.
        env["TMPDIR"] = os.path.join(tmp, "missing")
        r = run("-", stdin=small, env=env)
        check(r.returncode == 2 and b"temporary file" in r.stdout, "no TMPDIR: %r" % r.stdout)
        r = run(*args, "-", stdin=npy("'|u1'", "(400000,)", bytes(400000)), env=env)
        check(r.returncode == 0, ".npy on a pipe streams: %d %r" % (r.returncode, r.stdout))
    finally:
        shutil.rmtree(tmp)


def key_hash(key):
    """The hash the archive check puts keys in its table with (FNV-1a over
    code points, then a final mix); used only to pick names that collide
    there. Should it change, these names stop colliding and the tests
    below still check the verdicts, just not the fallback."""
    m = 0xFFFFFFFF
    h = 2166136261
    for ch in key:
        h = ((h ^ ord(ch)) * 16777619) & m
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & m
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & m
    return h ^ (h >> 16)


def colliding_keys(n):
    """n keys that all land in one slot of a table of 2n slots."""
    by_slot = {}
    k = 0
    while True:
        key = "k%d" % k
        got = by_slot.setdefault(key_hash(key) % (2 * n), [])
        got.append(key)
        if len(got) == n:
            return got
        k += 1


def stored_archive(names):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for name in names:
            z.writestr(name, F8)
    return buf.getvalue()


def test_names_crafted_to_collide_keep_their_verdicts():
    # Distinct keys that collide pass the probe budget of the linear check:
    # the sorting check then decides, with its verdicts and its words.
    d = tempfile.mkdtemp(prefix="npyg-collide-")
    try:
        keys = colliding_keys(64)
        cases = [
            ("distinct", [k + ".npy" for k in keys], 0, None),
            # zipfile writes a second member of one name (with a warning).
            ("same name", [k + ".npy" for k in keys] + [keys[40] + ".npy"], 1,
             "two members named '%s.npy'" % keys[40]),
            ("same key", [k + ".npy" for k in keys[:-1]] + [keys[7]], 1,
             "the key of '%s.npy' is the name of '%s'" % (keys[7], keys[7])),
        ]
        for what, names, rc, text in cases:
            p = os.path.join(d, "a.npz")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                blob = stored_archive(names)
            with open(p, "wb") as fh:
                fh.write(blob)
            with zipfile.ZipFile(p) as z:
                check(len(z.infolist()) == len(names), "%s: zipfile lists %d members" % (what, len(names)))
            r = run("-q", p)
            out = r.stdout.decode()
            check(r.returncode == rc, "%s: exit %d, want %d: %s" % (what, r.returncode, rc, out[:300]))
            if text:
                check(text in out, "%s: %r not in %r" % (what, text, out[:300]))
    finally:
        shutil.rmtree(d)


def test_directory_out_of_file_order_is_valid():
    # zipfile and numpy read members through the directory whatever its
    # order; the layout check sorts it only when it is not in file order.
    names = ["m%d.npy" % k for k in range(12)]
    blob = stored_archive(names)
    with zipfile.ZipFile(io.BytesIO(blob)) as z:
        cd_off = min(i.header_offset for i in z.infolist()) + sum(
            30 + len(i.filename) + len(i.extra) + i.compress_size for i in z.infolist())
    eocd = blob.rindex(b"PK\x05\x06")
    cd = blob[cd_off:eocd]
    entries, at = [], 0
    while at < len(cd):
        nl, xl, cl = (int.from_bytes(cd[at + o:at + o + 2], "little") for o in (28, 30, 32))
        entries.append(cd[at:at + 46 + nl + xl + cl])
        at += 46 + nl + xl + cl
    check(len(entries) == len(names), "split the directory into %d entries" % len(entries))
    shuffled = blob[:cd_off] + b"".join(entries[5:] + entries[:5][::-1]) + blob[eocd:]
    with zipfile.ZipFile(io.BytesIO(shuffled)) as z:
        order = [i.filename for i in z.infolist()]
        check(order == names[5:] + names[:5][::-1], "zipfile reads the new order: %r" % order)
        check(all(z.read(n) == F8 for n in names), "zipfile reads every member")
    d = tempfile.mkdtemp(prefix="npyg-order-")
    try:
        p = os.path.join(d, "a.npz")
        with open(p, "wb") as fh:
            fh.write(shuffled)
        r = run("-q", p)
        check(r.returncode == 0 and r.stdout == b"", "out-of-order directory: %d %r" % (r.returncode, r.stdout))
        r = run(p)
        lines = r.stdout.decode().splitlines()
        check(len(lines) >= len(names), "a line per member: %r" % lines[:3])
    finally:
        shutil.rmtree(d)


if __name__ == "__main__":
    cli_helpers.main(globals())
