#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""npyvalidate on corpus/hdf5/matlab/ (gen/gen_matlab_style.py).

Rules checked, under both profiles, for every file of its manifest:
  - a file laid out as MATLAB itself writes MAT v7.3 (its H5PATH values,
    classdef objects with MATLAB_object_decode, sparse groups, empty
    values, #refs# and #subsystem#), and hdf5storage's attributes written
    as UTF-8 strings, are `ok` with no object warned about;
  - a file whose attributes make a reader misread or fail is `ok` with
    exactly one storage-format warning, at the object the manifest names
    (numpy profile), and is refused with NPYG_EHDF5_FORMAT (128) at that
    object under --strict;
  - the file is the one the manifest describes (its SHA-256), so the
    manifest's record of what hdf5storage returns is about these bytes.
Usage: test_hdf5_matlab.py NPYVALIDATE CORPUS_HDF5_MATLAB_DIR
"""
import hashlib
import json
import os
import subprocess
import sys

NPYG_EHDF5_FORMAT = 128


def run(exe, paths, strict):
    args = [exe, "--json", "-j", "2"] + (["--strict"] if strict else []) + paths
    p = subprocess.run(args, capture_output=True, text=True, timeout=300)
    return {os.path.normpath(r["path"]): r for r in map(json.loads, p.stdout.splitlines())}


def check(rel, want, got, strict):
    """Problems with one file's record: [] when it is as the manifest says."""
    errs = []
    warned = [o["path"] for o in got.get("hdf5", {}).get("objects", []) if o.get("warnings")]
    refused = [o["path"] for o in got.get("hdf5", {}).get("objects", []) if not o["ok"]]
    where = want["format_finding"]
    if where is None:
        if not got["ok"]:
            errs.append("refused: %s" % json.dumps(got.get("error")))
        if warned or refused:
            errs.append("objects warned about %s, refused %s" % (warned, refused))
    elif strict:
        code = (got.get("error") or {}).get("code")
        if got["ok"] or code != NPYG_EHDF5_FORMAT:
            errs.append("want NPYG_EHDF5_FORMAT, got ok=%s code=%s" % (got["ok"], code))
        if refused != [where]:
            errs.append("objects refused %s, want [%r]" % (refused, where))
    else:
        if not got["ok"]:
            errs.append("refused: %s" % json.dumps(got.get("error")))
        if warned != [where]:
            errs.append("objects warned about %s, want [%r]" % (warned, where))
    return ["%s%s: %s" % (rel, " (--strict)" if strict else "", e) for e in errs]


def main():
    exe, corpus = sys.argv[1], os.path.abspath(sys.argv[2])
    with open(os.path.join(corpus, "manifest.json")) as f:
        files = json.load(f)["files"]
    on_disk = sorted(os.path.relpath(os.path.join(d, n), corpus)
                     for d, _, names in os.walk(corpus) for n in names if n != "manifest.json")
    errs = []
    if on_disk != sorted(files):
        errs.append("files on disk %s but in the manifest %s" % (on_disk, sorted(files)))
    paths = [os.path.join(corpus, rel) for rel in sorted(files)]
    for rel in sorted(files):
        with open(os.path.join(corpus, rel), "rb") as f:
            if hashlib.sha256(f.read()).hexdigest() != files[rel]["sha256"]:
                errs.append("%s: not the bytes the manifest describes" % rel)
    for strict in (False, True):
        got = run(exe, paths, strict)
        for rel in sorted(files):
            r = got.get(os.path.join(corpus, rel))
            if r is None:
                errs.append("%s: no record" % rel)
            else:
                errs += check(rel, files[rel], r, strict)
    for e in errs:
        print("FAIL: " + e)
    n_find = sum(1 for v in files.values() if v["format_finding"])
    print("%d files (%d with a finding), %d failures" % (len(files), n_find, len(errs)))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
