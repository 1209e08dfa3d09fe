# SPDX-License-Identifier: BSD-3-Clause
"""Every record npyvalidate --json writes for every corpus file (and for
the entries it cannot check) validates against
schema/npyvalidate-record.schema.json with python3-jsonschema, and says
what the corpus manifests say of the file.

    test_records.py NPYVALIDATE CORPUS SCHEMA
"""
import json
import os
import subprocess
import sys
import tempfile

import jsonschema

from schema_check import fail, failures, start

exe, corpus, validator = start(jsonschema.Draft202012Validator)


def records(args, stdin=None):
    r = subprocess.run([exe, "--json", "-j2", *args], input=stdin, capture_output=True, timeout=900)
    if r.returncode not in (0, 1, 2):
        fail(f"{args[:3]}: exit status {r.returncode}: {r.stderr[:300]!r}")
    return r.returncode, [json.loads(line) for line in r.stdout.decode("utf-8").splitlines()]


def check(rec, where):
    for e in validator.iter_errors(rec):
        fail(f"{where}: {'/'.join(map(str, e.absolute_path))}: {e.message[:300]}")


# Every file of the corpus, one record each, in input order.
files = sorted(os.path.join(d, n) for d, _, ns in os.walk(corpus) for n in ns
               if not n.endswith((".md", ".json")))
listing = "".join(p + "\n" for p in files).encode()
_, recs = records(["--files-from", "-"], stdin=listing)
if [r.get("path") for r in recs] != files:
    fail(f"{len(recs)} records for {len(files)} files, or out of order")
for r in recs:
    check(r, r.get("path"))

# --hash adds payload_sha256 wherever a payload was read: the valid
# .npy, .npz and .ra files (HDF5 is hashed by loading every dataset in the
# sandbox, which the run above already exercises).
hashed_dirs = tuple(os.path.join(corpus, d) + "/" for d in ("valid", "npz/valid", "ra"))
_, hashed = records(["--hash", "--files-from", "-"],
                    stdin="".join(p + "\n" for p in files if p.startswith(hashed_dirs)).encode())
if not any("payload_sha256" in (r.get("npy") or {}) for r in hashed):
    fail("--hash: no record has a payload_sha256")
for r in hashed:
    check(r, "--hash " + r.get("path", "?"))

# What the manifests say, the records say: each valid .npy file has the
# version, shape and fortran_order numpy wrote; each .npz, .ra, HDF5 and
# MAT file is named by its format, valid or not.
by_path = {r["path"]: r for r in recs}
with open(os.path.join(corpus, "manifest.json")) as f:
    manifest = json.load(f)
checked = 0
for name, e in manifest["files"].items():
    p = os.path.join(corpus, name)
    r = by_path.get(p)
    if r is None or e.get("group") != "valid" or "npyguard_error" in e:
        continue
    checked += 1
    npy = r.get("npy") or {}
    if not r["ok"] or r["format"] != "npy" or npy.get("shape") != e["shape"] \
            or npy.get("fortran_order") != e["fortran_order"] or npy.get("version") != "%d.%d" % tuple(e["version"]):
        fail(f"{p}: record {json.dumps(r)[:300]} against manifest {e}")
for sub, fmt in (("npz", {"npz"}), ("ra", {"ra"}), ("hdf5/valid", {"hdf5", "mat73"})):
    for p in files:
        if p.startswith(os.path.join(corpus, sub) + "/") and "/valid/" in p + "/" and by_path[p]["format"] not in fmt:
            fail(f"{p}: format {by_path[p]['format']}, not {fmt}")

# The top-level error: on every refused record, and for an archive the
# first refused member's, as an HDF5 file's is its refused object's.
for r in recs:
    if r["format"] == "npz" and not r["ok"]:
        bad = [m for m in r["npz"]["members"] if not m["ok"]]
        if bad and (r["error"].get("member") != bad[0]["name"] or r["error"]["code"] != bad[0]["error"]["code"]):
            fail(f"{r['path']}: top-level error {r['error']} is not the first refused member's")
    if r["format"] in ("hdf5", "mat73") and any(not o["ok"] for o in r["hdf5"]["objects"]) and r["ok"]:
        fail(f"{r['path']}: an object refused, the file ok")

# Entries that were not checked have a record too, with a format and an
# error: a missing file, a directory, a FIFO, a name that is not UTF-8,
# and standard input.
with tempfile.TemporaryDirectory() as tmp:
    odd = os.path.join(tmp.encode(), b"caf\xe9\n.npy")
    with open(odd, "wb") as f, open(files[0], "rb") as g:
        f.write(g.read())
    fifo = os.path.join(tmp, "pipe.npy")
    os.mkfifo(fifo)
    st, extra = records([os.path.join(tmp, "missing.npy"), tmp, fifo, os.fsdecode(odd)])
    for r in extra:
        check(r, "entry " + r["path"])
    if [r["ok"] for r in extra] != [False, False, False, by_path[files[0]]["ok"]] or st != 2:
        fail(f"unchecked entries: status {st}, {[(r['ok'], r['format']) for r in extra]}")
    if extra and extra[-1].get("path_bytes") != odd.hex():
        fail(f"non-UTF-8 name: path_bytes {extra[-1].get('path_bytes')!r}")
    # A walk records what it did not check (a symlink, a special file) and,
    # on the user's word, what it skipped (no format; a name --include
    # leaves out), each as a record of its own kind.
    walk = os.path.join(tmp, "walk")
    os.mkdir(walk)
    os.symlink(files[0], os.path.join(walk, "link.npy"))
    os.mkfifo(os.path.join(walk, "fifo"))
    with open(os.path.join(walk, "notes.txt"), "w") as f:
        f.write("not an array\n")
    with open(os.path.join(walk, "a.npy"), "wb") as f, open(files[0], "rb") as g:
        f.write(g.read())
    for opts, want in ((["--skip-unrecognized"], {"not_checked": 2, "skipped": 1}),
                       (["--include", "*.txt"], {"not_checked": 2, "skipped": 1}),
                       ([], {"not_checked": 2, "skipped": 0})):
        _, walked = records(["-r", *opts, walk])
        for r in walked:
            check(r, f"-r {opts} {r['path']}")
        got = {k: sum(k in r for r in walked) for k in want}
        if got != want:
            fail(f"-r {opts}: {got} records of each kind, not {want}")
    with open(files[0], "rb") as f:
        _, piped = records(["-"], stdin=f.read())
    for r in piped:
        check(r, "stdin")

print(f"{len(recs)} corpus records, {len(hashed)} with --hash, {checked} against the manifest: "
      f"{'all valid' if not failures else f'{len(failures)} failures'}")
sys.exit(1 if failures else 0)
