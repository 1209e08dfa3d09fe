#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""npyvalidate's behaviour as a command: exit status, output formats, input
kinds, ordering, and that inputs are never written. Expected header fields
and payload hashes come from corpus/manifest.json (measured with numpy).

Usage: test_cli.py NPYVALIDATE CORPUS_DIR
"""
import hashlib
import json
import os
import subprocess
import tempfile

import cli_helpers
from cli_helpers import CORPUS, NPYV, check, json_lines, manifest, run, run_json

MANIFEST = manifest()["files"]


def path(name):
    return os.path.join(CORPUS, name)


def group(g):
    return sorted(n for n, e in MANIFEST.items() if e["group"] == g)


def expect_ok(name):
    e = MANIFEST[name]
    return e["group"] == "valid" and "npyguard_error" not in e


valid = [n for n in group("valid") if expect_ok(n)]
invalid = group("invalid")


def test_exit_status():
    r = run(*[path(n) for n in valid[:20]])
    check(r.returncode == 0, "exit 0 when every file is valid: %d %s" % (r.returncode, r.stderr))
    r = run(path(valid[0]), path(invalid[0]))
    check(r.returncode == 1, "exit 1 when a file is invalid: %d" % r.returncode)
    r = run(path(valid[0]), "/nonexistent/file.npy")
    check(r.returncode == 2, "exit 2 on a missing file: %d" % r.returncode)
    r = run("--no-such-option", path(valid[0]))
    check(r.returncode == 2, "exit 2 on a bad option: %d" % r.returncode)
    r = run()
    check(r.returncode == 2, "exit 2 without paths")
    r = run(CORPUS)
    check(r.returncode == 2 and b"-r" in r.stdout, "a directory without -r is an error")
    r = run("--max-dims", "x", path(valid[0]))
    check(r.returncode == 2, "exit 2 on a bad limit value")


def test_human_output():
    name = "valid/f8-le-1d-C-v1.npy"
    e = MANIFEST[name]
    r = run(path(name))
    want = "%s: ok <f8 shape=(%d,) order=C v1.0\n" % (path(name), e["shape"][0])
    check(r.stdout.decode() == want, "human ok line: %r, want %r" % (r.stdout, want))
    bad = next(n for n in invalid if MANIFEST[n]["npyguard_error"] == "NPYG_EKEYS")
    r = run(path(bad))
    line = r.stdout.decode()
    head, _, rest = line.partition(": ")
    check(head.startswith(path(bad) + ":") and head[len(path(bad)) + 1:].isdigit(),
          "error line is path:offset: %r" % line)
    check(rest.startswith("header: "), "error class after the offset: %r" % line)


def test_json_matches_manifest():
    names = valid
    r = run("--json", "--hash", *[path(n) for n in names])
    lines = json_lines(r.stdout)
    check(len(lines) == len(names), "one JSON line per file (%d for %d)" % (len(lines), len(names)))
    for n, rec in zip(names, lines):
        e = MANIFEST[n]
        check(rec["path"] == path(n), "JSON in input order: %s" % n)
        check(rec["ok"] is True and rec["format"] == "npy", "JSON ok for %s" % n)
        o = rec["npy"]
        check([int(x) for x in o["shape"]] == [int(x) for x in e["shape"]], "shape of %s" % n)
        check(o["fortran_order"] == e["fortran_order"], "fortran_order of %s" % n)
        check(o["header_len"] == e["header_len"] and o["data_offset"] == e["data_offset"], "offsets of %s" % n)
        check(o["version"] == "%d.%d" % tuple(e["version"]), "version of %s" % n)
        check(o.get("payload_sha256") == e["payload_sha256"], "--hash of %s" % n)
        if not e.get("platform_dependent"):
            check(o["descr_repr"] == e["descr_repr"], "descr_repr of %s: %s" % (n, o["descr_repr"]))
    bad = invalid[0]
    o = run_json(path(bad))
    check(o["ok"] is False and o["error"]["name"] == MANIFEST[bad]["npyguard_error"], "JSON error of %s" % bad)
    check(isinstance(o["error"]["offset"], int) and o["error"]["code"] > 0, "JSON error fields")


def test_unsafe_is_refused():
    for n in group("unsafe"):
        o = run_json(path(n))
        check(not o["ok"] and o["error"]["name"] == "NPYG_EOBJECT" and o["error"]["class"] == "unsafe",
              "object array refused: %s" % n)


def test_parallel_output_keeps_input_order():
    names = [path(n) for n in sorted(MANIFEST)]
    one = run("-j", "1", "--json", *names).stdout
    two = run("-j", "2", "--json", *names).stdout
    check(one == two, "-j 2 output identical to -j 1")
    paths = [o["path"] for o in json_lines(two)]
    check(paths == names, "output in input order")


def test_recursive_and_files_from():
    r = run("-r", "--json", os.path.join(CORPUS, "valid"))
    got = sorted(o["path"] for o in json_lines(r.stdout))
    want = sorted(path(n) for n in group("valid"))
    check(got == want, "-r finds every *.npy (%d of %d)" % (len(got), len(want)))
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(path(n) for n in valid[:5]) + "\n")
    r = run("--files-from", f.name, "--json")
    os.unlink(f.name)
    check(len(r.stdout.decode().splitlines()) == 5 and r.returncode == 0, "--files-from")


def test_stdin_pipe_and_hash():
    name = "valid/f8-le-1d-C-v1.npy"
    data = open(path(name), "rb").read()
    o = run_json("--hash", "-", stdin=data)
    check(o["ok"] and o["npy"]["payload_sha256"] == MANIFEST[name]["payload_sha256"], "stdin with --hash")


def test_refuses_fifo_and_devices_without_hanging():
    d = tempfile.mkdtemp()
    fifo = os.path.join(d, "fifo.npy")
    os.mkfifo(fifo)
    try:
        r = run(fifo, timeout=10)
        check(r.returncode == 2, "a FIFO is refused, not waited on: %d" % r.returncode)
    except subprocess.TimeoutExpired:
        check(False, "npyvalidate hung on a FIFO")
    finally:
        os.unlink(fifo)
        os.rmdir(d)
    r = run("/dev/zero", timeout=10)
    check(r.returncode == 2, "a device is refused")


def test_progress_line_only_on_a_terminal():
    """A run longer than a second shows "done/total files" on stderr when it is
    a terminal, and erases it before the next result; a pipe never sees it."""
    import pty
    import threading
    import time
    name = "valid/f8-le-1d-C-v1.npy"
    data = open(path(name), "rb").read()
    lines = ("-: ok", path(name) + ": ok")
    for jobs in ("-j1", "-j2"):
        master, slave = pty.openpty()
        p = subprocess.Popen([NPYV, jobs, "-", path(name)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=slave)
        os.close(slave)
        def feed():  # stdin arrives slowly, so the run lasts about 1.5 s
            p.stdin.write(data[:10]); p.stdin.flush()
            time.sleep(1.5)
            p.stdin.write(data[10:]); p.stdin.close()
        feeder = threading.Thread(target=feed)
        feeder.start()
        err = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO once the last writer is gone
                break
            if not chunk:
                break
            err += chunk
        os.close(master)
        out = p.stdout.read().decode()
        p.wait()
        feeder.join()
        check(p.returncode == 0 and [l.split(" <")[0] for l in out.splitlines()] == list(lines),
              "%s under a terminal: results on stdout, in order: %r" % (jobs, out))
        shown = b"/2 files" in err
        check(shown and err.endswith(b"\r\033[K"), "%s: progress shown and erased: %r" % (jobs, err))
        check(b"\n" not in err and b"\r\n" not in err, "%s: the progress line stays one line: %r" % (jobs, err))
    r = run("-j1", "-", path(name), stdin=data)
    check(r.returncode == 0 and r.stderr == b"", "no progress line into a pipe: %r" % r.stderr)


def test_strict_and_limits():
    trailing = next(n for n, e in MANIFEST.items() if e["group"] == "compat" and e.get("trailing_bytes", 0) > 0
                    and "npyguard_error" not in e and e["numpy"]["verdict"] == "accept")
    check(run(path(trailing)).returncode == 0, "trailing bytes accepted by default")
    r = run("--strict", path(trailing))
    check(r.returncode == 1 and b"strict" in r.stdout, "trailing bytes refused by --strict")
    r = run("--strict", *[path(n) for n in valid[:50]])
    check(r.returncode == 0, "--strict accepts numpy-written files")
    name = "valid/f8-le-1d-C-v1.npy"
    r = run("--json", "--max-header-bytes", "64", path(name))
    o = json.loads(r.stdout)
    check(r.returncode == 1 and o["error"]["name"] == "NPYG_ELIMIT_HEADER", "--max-header-bytes")
    check(run_json("--max-payload=8", path(name))["error"]["name"] == "NPYG_ELIMIT_PAYLOAD", "--max-payload")


def test_quiet_prints_only_problems():
    r = run("-q", path(valid[0]), path(invalid[0]))
    out = r.stdout.decode()
    check(path(valid[0]) not in out and path(invalid[0]) in out, "-q output: %r" % out)


def test_inputs_are_never_written():
    names = sorted(MANIFEST)
    before = {n: (os.stat(path(n)).st_mtime_ns, hashlib.sha256(open(path(n), "rb").read()).hexdigest())
              for n in names}
    run("--hash", "--strict", *[path(n) for n in names])
    after = {n: (os.stat(path(n)).st_mtime_ns, hashlib.sha256(open(path(n), "rb").read()).hexdigest())
             for n in names}
    check(before == after, "no input modified")


def test_option_spellings():
    """Short options run together and attached values, as getopt allows."""
    files = [path(valid[0]), path(invalid[0])]
    want = run("-q", "-j", "1", *files)
    check(want.returncode == 1 and want.stdout, "-q -j 1 reports the invalid file")
    for spelling in (["-qj1"], ["-qj", "1"], ["-q", "-j1"], ["-q", "--jobs=1"], ["-rq", "--jobs", "1"]):
        r = run(*spelling, *files)
        check((r.returncode, r.stdout, r.stderr) == (want.returncode, want.stdout, want.stderr),
              "%s behaves as -q -j 1: %r" % (" ".join(spelling), r))
    for bad in (["-qx", *files], ["-jx", *files], ["-j0", *files], ["-qj"]):
        r = run(*bad)
        check(r.returncode == 2 and r.stdout == b"", "%s is a usage error: %r" % (bad[0], r.returncode))


def test_npz_member_warnings():
    """Members numpy hands back as raw bytes, or under a name without .npy,
    are accepted with a warning per member (corpus/npz/manifest.json)."""
    npz = manifest("npz")["files"]
    for name in ("compat/non-npy-member.npz", "compat/npy-name-not-npy.npz"):
        f = os.path.join(CORPUS, "npz", name)
        r = run(f)
        out = r.stdout.decode()
        check(r.returncode == 0, "%s accepted with warnings: %d" % (name, r.returncode))
        for m in npz[name]["members"]:
            label = "%s:%s: warning: " % (f, m["name"])
            warned = [l[len(label):] for l in out.splitlines() if l.startswith(label)]
            raw = m["npy"] is False and m["numpy_returns"] == "bytes"
            check(any("raw bytes" in w for w in warned) == raw, "%s %s: raw-bytes warning %r" % (name, m["name"], warned))
            check(any(".npy" in w and "name" in w for w in warned) == (not m["name"].endswith(".npy")),
                  "%s %s: name warning %r" % (name, m["name"], warned))


def test_help_and_version():
    r = run("--help")
    check(r.returncode == 0 and b"usage: npyvalidate" in r.stdout, "--help")
    r = run("--version")
    check(r.returncode == 0 and r.stdout.startswith(b"npyvalidate "), "--version")


RA = manifest("ra")["files"]


def ra_int(v):
    return int(v)


def test_ra_json_matches_manifest():
    # corpus/ra/manifest.json: header fields from the format's text, hashes
    # of the data as numpy and liblz4 wrote it (gen/gen_ra.py).
    names = sorted(RA)
    r = run("--json", "--hash", "-j", "2", *[os.path.join(CORPUS, "ra", n) for n in names])
    lines = r.stdout.decode().splitlines()
    check(len(lines) == len(names), "one JSON line per .ra file (%d for %d)" % (len(lines), len(names)))
    for n, line in zip(names, lines):
        rec, e = json.loads(line), RA[n]
        o = dict(rec.get("ra") or {}, ok=rec["ok"], format=rec["format"], error=rec.get("error"))
        if e["group"] == "valid":
            same = (o["ok"] is True and o["format"] == "ra" and o["type"] == e["type"] and o["flags"] == e["flags"]
                    and o["eltype"] == e["eltype"] and o["elbyte"] == e["elbyte"]
                    and [ra_int(d) for d in o["dims"]] == [ra_int(d) for d in e["dims"]]
                    and o["endianness"] == e["endianness"] and o["compressed"] == e["compressed"]
                    and ra_int(o["size"]) == ra_int(e["size"]) and ra_int(o["data_bytes"]) == ra_int(e["data_bytes"])
                    and o["metadata_bytes"] == e["metadata_bytes"] and o["data_offset"] == e["data_offset"]
                    and o["payload_sha256"] == e["data_sha256"])
            check(same, "JSON of %s: %s" % (n, line))
        elif open(os.path.join(CORPUS, "ra", n), "rb").read(8) != b"rawarray":
            # Recognised by content: without the magic it is not a .ra file
            # to the command, and the .npy reader's magic check refuses it.
            check(o["ok"] is False and o["error"]["class"] == "magic", "no RawArray magic: %s" % line)
        else:
            check(o["ok"] is False and o["error"]["name"] == e["npyguard_error"] and o["error"]["class"] in ("ra", "limit"),
                  "JSON error of %s: %s" % (n, line))
    check(r.returncode == 1, "exit 1 with invalid .ra files")


def test_ra_human_line_and_content_recognition():
    src = os.path.join(CORPUS, "ra", "valid", "test-readme-example.ra")
    want = "ok ra complex64 dims=(3, 4) endian=little data=96 metadata=0\n"
    r = run(src)
    check(r.returncode == 0 and r.stdout.decode() == src + ": " + want, "human .ra line: %r" % r.stdout)
    data = open(src, "rb").read()
    with tempfile.TemporaryDirectory() as d:
        for name in ("array.npy", "noextension"):
            p = os.path.join(d, name)
            with open(p, "wb") as f:
                f.write(data)
            r = run(p)
            check(r.returncode == 0 and r.stdout.decode() == p + ": " + want, "recognised by content as %s" % name)
    r = run("--hash", "-", stdin=data)
    sha = RA["valid/test-readme-example.ra"]["data_sha256"]
    check(r.returncode == 0 and r.stdout.decode() == "-: " + want[:-1] + " sha256=" + sha + "\n",
          "a .ra file on stdin: %r" % r.stdout)
    bad = os.path.join(CORPUS, "ra", "invalid", "elbyte-float3.ra")
    r = run(bad)
    check(r.returncode == 1 and r.stdout.decode() == bad + ":24: ra: elbyte 3 is not a width of float elements\n",
          "human .ra error: %r" % r.stdout)
    lz = os.path.join(CORPUS, "ra", "limit", "lz4-16mib.ra")
    check(run_json(lz)["error"]["name"] == "NPYG_ELIMIT_ALLOC", "16 MiB LZ4 over --max-alloc")
    o = run_json("--max-alloc", str(64 << 20), lz)
    check(o["ok"] and o["ra"]["data_bytes"] == 16 << 20, "16 MiB LZ4 decoded once --max-alloc allows it")


def test_ra_recursive():
    d = os.path.join(CORPUS, "ra", "valid")
    r = run("-r", "--json", d)
    got = sorted(o["path"] for o in json_lines(r.stdout))
    want = sorted(os.path.join(CORPUS, "ra", n) for n, e in RA.items() if e["group"] == "valid")
    check(got == want and r.returncode == 0, "-r finds every *.ra (%d of %d)" % (len(got), len(want)))


cli_helpers.main(globals())
