# SPDX-License-Identifier: BSD-3-Clause
"""npyvalidate --sarif writes one SARIF 2.1.0 log that has the structure
the OASIS standard gives (schema/sarif-2.1.0-subset.schema.json), and
one result for each refused file, archive member and HDF5 object that
--json reports: ruleId the error's name, the level its class's, the
file's path as a percent-encoded URI reference.

    test_sarif.py NPYVALIDATE CORPUS SARIF_SCHEMA
"""
import json
import os
import subprocess
import sys
import tempfile
import urllib.parse

import jsonschema

from schema_check import fail, failures, start

exe, corpus, validator = start(jsonschema.Draft7Validator)
WARNING_CLASSES = {"strict", "unsupported", "io", "usage"}


def run(args, stdin=None):
    r = subprocess.run([exe, "-j2", *args], input=stdin, capture_output=True, timeout=900)
    return r.returncode, r.stdout


def refusals(records):
    """(path bytes, rule, where, name) for each refusal --json shows."""
    out = []
    for r in records:
        path = bytes.fromhex(r["path_bytes"]) if "path_bytes" in r else r["path"].encode()
        inner = []
        if r["format"] == "npz":
            inner = [("member", m["name"], m["error"]["name"]) for m in r["npz"]["members"] if not m["ok"]]
        elif r["format"] in ("hdf5", "mat73"):
            inner = [("object", o["path"], o["error"]["name"]) for o in r["hdf5"]["objects"] if not o["ok"]]
        if inner:
            out += [(path, rule, where, name) for where, name, rule in inner]
        elif not r["ok"]:
            out.append((path, r["error"]["name"], None, None))
    return out


def check(paths, label, as_args=False):
    """paths as a --files-from listing, or (names with a newline) as arguments."""
    listing = None if as_args else b"".join(p + b"\n" for p in paths)
    where = ["--", *paths] if as_args else ["--files-from", "-"]
    js, jout = run(["--json", *where], stdin=listing)
    ss, sout = run(["--sarif", *where], stdin=listing)
    if js != ss:
        fail(f"{label}: exit status {ss} with --sarif, {js} with --json")
    try:
        log = json.loads(sout)
    except ValueError as e:
        fail(f"{label}: not JSON: {e}: {sout[:300]!r}")
        return None
    for e in validator.iter_errors(log):
        fail(f"{label}: {'/'.join(map(str, e.absolute_path))}: {e.message[:300]}")
    run0 = log["runs"][0]
    rules = run0["tool"]["driver"]["rules"]
    got = []
    for res in run0["results"]:
        rule = rules[res["ruleIndex"]]
        if rule["id"] != res["ruleId"]:
            fail(f"{label}: ruleIndex {res['ruleIndex']} is {rule['id']}, not {res['ruleId']}")
        want = "warning" if rule["properties"]["class"] in WARNING_CLASSES else "error"
        if res["level"] != want:
            fail(f"{label}: {res['ruleId']} at level {res['level']}, not {want}")
        loc = res["locations"][0]
        uri = loc["physicalLocation"]["artifactLocation"]["uri"]
        path = urllib.parse.unquote_to_bytes(uri[len("file://"):] if uri.startswith("file://") else uri)
        ll = loc.get("logicalLocations", [{}])[0]
        got.append((path, res["ruleId"], ll.get("kind"), ll.get("fullyQualifiedName")))
    records = [json.loads(line) for line in jout.splitlines()]
    want = [(p[2:] if p.startswith(b"./") else p, rule, where, name) for p, rule, where, name in refusals(records)]
    if got != want:
        fail(f"{label}: {len(got)} results, {len(want)} refusals in --json; first differing: "
             f"{next(((g, w) for g, w in zip(got, want) if g != w), None)}")
    return log


# The corpus: every .npy, .npz and .ra file, and the HDF5 files that are
# refused (their objects are the results).
files = sorted(os.path.join(d, n) for d, _, ns in os.walk(corpus) for n in ns
               if not n.endswith((".md", ".json")))
hdf5_refused = [p for p in files if "/hdf5/hazard/" in p or "/hdf5/invalid/" in p]
picked = [p.encode() for p in files if "/hdf5/" not in p] + [p.encode() for p in hdf5_refused[:12]]
log = check(picked, "corpus")
n = len(log["runs"][0]["results"]) if log else 0

# Odd names: each byte that is not unreserved comes back from the URI.
with tempfile.TemporaryDirectory() as tmp:
    bad = open(os.path.join(corpus, "invalid", sorted(os.listdir(os.path.join(corpus, "invalid")))[0]), "rb").read()
    names = [b"a b.npy", b"caf\xe9.npy", b"100%.npy", b"q?x#y.npy", b"new\nline.npy", "caf\u00e9.npy".encode()]
    odd = []
    for name in names:
        p = os.path.join(tmp.encode(), name)
        with open(p, "wb") as f:
            f.write(bad)
        odd.append(p)
    log2 = check(odd, "odd names", as_args=True)
    if log2 and len(log2["runs"][0]["results"]) != len(names):
        fail(f"odd names: {len(log2['runs'][0]['results'])} results for {len(names)} refused files")
    # no refusal: a log with no results, exit status 0
    st, out = run(["--sarif", os.path.join(corpus, "valid", sorted(os.listdir(os.path.join(corpus, "valid")))[0])])
    if st != 0 or json.loads(out)["runs"][0]["results"] != []:
        fail(f"a valid file: status {st}, {out[-200:]!r}")

print(f"SARIF: {n} results over {len(picked)} corpus files, {len(names)} odd names: "
      f"{'as the standard and --json say' if not failures else f'{len(failures)} failures'}")
sys.exit(1 if failures else 0)
