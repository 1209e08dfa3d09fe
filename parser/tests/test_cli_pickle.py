#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""npyvalidate names what an object array's pickle would import, in text
and JSON, for .npy files and .npz members. Expected imports come from the
manifests (pickletools' view: corpus/manifest.json, corpus/pickle/).

Usage: test_cli_pickle.py NPYVALIDATE CORPUS_DIR
"""
import os
import tempfile

import cli_helpers
from cli_helpers import CORPUS, check, manifest, run, run_json

PREFIX = ": unsafe: object dtype: the payload is a pickle that imports "


def text_imports(line):
    """The names after PREFIX, cut before a '(the scan stopped' note."""
    rest = line.split(PREFIX, 1)[1]
    rest = rest.split(" (the scan stopped", 1)[0]
    return [] if rest == "nothing" else rest.split(", ")


def entries():
    """(path, expected imports in order or None, sorted imports, called, complete)"""
    man = manifest()["files"]
    for name, e in sorted(man.items()):
        if "pickle_imports" in e and not any(i.startswith("<") for i in e["pickle_imports"]):
            yield os.path.join(CORPUS, name), None, e["pickle_imports"], None, True
    man = manifest("pickle")["files"]
    for name, e in sorted(man.items()):
        if e["npyguard_scan"] != "NPYG_OK" and not e["pickle_imports"]:
            continue
        order = e.get("npyguard_imports_in_order", e["pickle_imports_in_order"])
        if any(len(part) > 255 for i in e["pickle_imports_in_order"] for part in i.split(".")):
            continue  # cut names are escaped-equal only; the library test covers them
        yield (os.path.join(CORPUS, "pickle", name), order, sorted(order), e["pickle_called"],
               e["npyguard_scan"] == "NPYG_OK")


def import_name(i):
    """An import of the JSON report as pickletools names it."""
    return "%s.%s" % (i["module"], i["name"]) if "ext_code" not in i else "ext:%d" % i["ext_code"]


def test_text_and_json():
    n = 0
    for path, order, imports, called, complete in entries():
        n += 1
        r = run(path)
        line = r.stdout.decode("utf-8", "replace")
        check(r.returncode == 1 and line.count("\n") == 1 and PREFIX in line, "%s: %r" % (path, line))
        if PREFIX not in line:
            continue
        got = text_imports(line.rstrip("\n"))
        if order is not None:
            check(got == order, "%s: text %s, pickletools %s" % (path, got, order))
        else:
            check(sorted(got) == imports, "%s: text %s, pickletools %s" % (path, got, imports))
        check(("(the scan stopped" in line) != complete, "%s: completeness note: %r" % (path, line))
        j = run_json(path)
        p = j.get("pickle")
        check(j["error"]["name"] == "NPYG_EOBJECT" and p is not None, "%s: json %r" % (path, j))
        if not p:
            continue
        names = sorted(import_name(i) for i in p["imports"])
        names = ["?." + x.split(".", 1)[1] if x.startswith(".") else x for x in names]
        check(sorted(text_imports(line.rstrip("\n"))) == sorted(
            "?." + x[2:] if x.startswith("?.") else x for x in names) or names == imports,
            "%s: json imports %s" % (path, names))
        if called is not None:
            got_called = sorted(import_name(i) for i in p["imports"] if i["called"])
            check(got_called == called, "%s: json called %s, pickletools %s" % (path, got_called, called))
        check(p["complete"] == complete, "%s: complete %s" % (path, p["complete"]))
    check(n >= 60, "only %d files" % n)


def test_npz_members():
    path = os.path.join(CORPUS, "pickle", "object-members.npz")
    want = manifest("pickle")["archives"]["object-members.npz"]["members"]
    r = run(path)
    lines = r.stdout.decode().splitlines()
    check(len(lines) == len(want), "one line per member: %r" % lines)
    for line in lines:
        member = line[len(path) + 1:].split(":", 1)[0]
        check(member in want and PREFIX in line and sorted(text_imports(line)) == want[member],
              "member line %r, pickletools %s" % (line, want.get(member)))
    j = run_json(path)
    for m in j["npz"]["members"]:
        got = sorted("%s.%s" % (i["module"], i["name"]) for i in m["pickle"]["imports"])
        check(got == want[m["name"]], "json member %s: %s" % (m["name"], got))


def test_hostile_names_are_escaped():
    # GLOBAL naming "\x1b[2J" and "\xe2\x80\xae" (right-to-left override):
    # neither reaches the terminal.
    header = b"{'descr': '|O', 'fortran_order': False, 'shape': (), }"
    header += b" " * (64 - 10 - len(header) - 1) + b"\n"
    data = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header
    data += b"c\x1b[2Jx\n\xe2\x80\xaey\n."
    with tempfile.TemporaryDirectory() as tmp:
        p = os.path.join(tmp, "hostile.npy")
        with open(p, "wb") as f:
            f.write(data)
        for args in ((p,), ("--json", p)):
            r = run(*args)
            out = r.stdout + r.stderr
            check(b"\x1b" not in out, "%s: raw escape in %r" % (args, out))
            # JSON may carry U+202E as a valid character; text must not.
            check(args[0] == "--json" or b"\xe2\x80\xae" not in out, "%s: raw override in %r" % (args, out))
            check(b"\\x1b[2Jx" in out or b"\\u001b[2Jx" in out, "%s: escaped name missing: %r" % (args, out))


if __name__ == "__main__":
    cli_helpers.main(globals())
