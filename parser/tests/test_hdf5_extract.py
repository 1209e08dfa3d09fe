#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""npyvalidate --extract and --hash on HDF5 / MAT v7.3 files, held to h5py.

For every file of corpus/hdf5/valid and corpus/hdf5/matlab/valid:
  - `npyvalidate --extract OUT.npz FILE` writes one member per dataset
    ("/g/x" -> "g/x.npy"), and `npyvalidate --strict OUT.npz` accepts it;
  - numpy.load of each member equals what h5py reads: the same dtype,
    shape and bytes for numbers, fixed strings and compounds; for
    variable-length strings the same bytes items; for object references
    the paths h5py names;
  - `npyvalidate --hash --json FILE` gives each dataset of those types
    the SHA-256 of h5py's value bytes.
A file with a hazard writes nothing and leaves no file behind.
Usage: test_hdf5_extract.py NPYVALIDATE CORPUS_HDF5_DIR
"""
import glob
import hashlib
import json
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np


def datasets(f):
    out = {}
    f.visititems(lambda n, o: out.__setitem__("/" + n, o) if isinstance(o, h5py.Dataset) else None)
    return out


def expected(f, ds):
    """What the member holds, from h5py; None: no member (null dataspace)."""
    if ds.shape is None:
        return None
    raw = ds[()]
    if h5py.check_ref_dtype(ds.dtype):
        items = [f[r].name.encode() if r else b"" for r in np.ravel(raw)]
        return np.array(items, dtype="S%d" % max([1] + [len(i) for i in items])).reshape(ds.shape)
    info = h5py.check_string_dtype(ds.dtype)
    if info is not None and info.length is None:
        items = [x.encode("utf-8", "surrogateescape") if isinstance(x, str) else bytes(x)
                 for x in np.ravel(np.asarray(raw, dtype=object))]
        return np.array(items, dtype="S%d" % max([1] + [len(i) for i in items])).reshape(ds.shape)
    return np.asarray(raw, dtype=ds.dtype).reshape(ds.shape)


def main():
    npyvalidate, corpus = sys.argv[1], sys.argv[2]
    files = sorted(glob.glob(os.path.join(corpus, "valid", "*", "*")) +
                   glob.glob(os.path.join(corpus, "matlab", "valid", "*")))
    failures, members, hashed = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.npz")
        for path in files:
            if os.path.exists(out):
                os.unlink(out)
            p = subprocess.run([npyvalidate, "--extract", out, path], capture_output=True, text=True, timeout=120)
            with h5py.File(path, "r") as f:
                want = {n: expected(f, d) for n, d in datasets(f).items()}
                vlen = [n for n, d in datasets(f).items()
                        if h5py.check_vlen_dtype(d.dtype) is not None and h5py.check_string_dtype(d.dtype) is None]
            if vlen:
                if p.returncode != 1 or os.path.exists(out) or vlen[0] not in p.stderr:
                    failures.append("%s: a vlen dataset should refuse: %s" % (path, p.stderr.strip()))
                continue
            if p.returncode != 0:
                failures.append("%s: --extract failed: %s" % (path, p.stderr.strip()))
                continue
            s = subprocess.run([npyvalidate, "-q", "--strict", out], capture_output=True, text=True)
            if s.returncode != 0:
                failures.append("%s: the .npz is not strict: %s" % (path, s.stdout + s.stderr))
            with np.load(out) as z:
                names = {"/" + k for k in z.files}
                if names != {n for n, v in want.items() if v is not None}:
                    failures.append("%s: members %s, datasets %s" % (path, sorted(names), sorted(want)))
                    continue
                for n, v in want.items():
                    if v is None:
                        continue
                    got = z[n[1:]]
                    members += 1
                    if got.dtype != v.dtype or got.shape != v.shape or got.tobytes() != v.tobytes():
                        failures.append("%s%s: %s%s against h5py's %s%s" % (path, n, got.dtype, got.shape,
                                                                             v.dtype, v.shape))
            h = subprocess.run([npyvalidate, "--hash", "--json", path], capture_output=True, text=True)
            report = json.loads(h.stdout)
            for o in report["hdf5"]["objects"]:
                v = want.get(o["path"])
                if o["kind"] != "dataset" or v is None:
                    continue
                with h5py.File(path, "r") as f:
                    d = f[o["path"]]
                    plain = h5py.check_string_dtype(d.dtype) is None and not h5py.check_ref_dtype(d.dtype)
                if plain:
                    hashed += 1
                    if o.get("payload_sha256") != hashlib.sha256(v.tobytes()).hexdigest():
                        failures.append("%s%s: sha256 %s" % (path, o["path"], o.get("payload_sha256")))
        # a hazard: nothing written, nothing left behind
        hazard = os.path.join(corpus, "hazard", "external-link.h5")
        if os.path.exists(out):
            os.unlink(out)
        p = subprocess.run([npyvalidate, "--extract", out, hazard], capture_output=True, text=True)
        if p.returncode != 1 or os.listdir(tmp) or "/x" not in p.stderr:
            failures.append("hazard: status %d, files %s, %s" % (p.returncode, os.listdir(tmp), p.stderr.strip()))
        # written here: a null dataspace (no member), a soft link (not
        # followed), then a vlen sequence, which refuses the whole file
        made = os.path.join(tmp, "made.h5")
        with h5py.File(made, "w") as f:
            f["a"] = np.arange(3)
            f.create_dataset("n", data=h5py.Empty("<f8"))
            f["s"] = h5py.SoftLink("/a")
        p = subprocess.run([npyvalidate, "--extract", out, made], capture_output=True, text=True)
        with np.load(out) as z:
            if p.returncode != 0 or z.files != ["a"]:
                failures.append("made: %d, members %s" % (p.returncode, z.files))
        os.unlink(out)
        seq = np.empty(1, dtype=object)
        seq[0] = np.arange(2, dtype="<i4")
        with h5py.File(made, "a") as f:
            f.create_dataset("v", data=seq, dtype=h5py.vlen_dtype("<i4"))
        p = subprocess.run([npyvalidate, "--extract", out, made], capture_output=True, text=True)
        if p.returncode != 1 or os.path.exists(out) or "/v: a variable-length sequence" not in p.stderr:
            failures.append("vlen: %d, %s" % (p.returncode, p.stderr.strip()))
    for line in failures:
        print("FAIL", line)
    print("%d files, %d members equal to h5py, %d hashes checked, %d failures" % (len(files), members, hashed,
                                                                                  len(failures)))
    ok = not failures and len(files) == 124 and members > 200 and hashed > 150
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
