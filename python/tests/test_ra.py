# SPDX-License-Identifier: BSD-3-Clause
"""RawArray (.ra) loading against corpus/ra/manifest.json, whose values
gen/gen_ra.py recorded from numpy and the format's readers: every valid
file gives the array ra.py gives (its dtype in the file's byte order, the
dims as stored in Fortran order, the same bytes), every refused file the
code the manifest names, in the exception of its class."""

import hashlib
import io
import json
import os
import re
import threading

import numpy as np
import pytest

import npyguard

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
RA = os.path.join(ROOT, "corpus", "ra")

with open(os.path.join(RA, "manifest.json")) as f:
    MANIFEST = json.load(f)["files"]
with open(os.path.join(ROOT, "docs", "errors.md")) as f:
    README = f.read()

# code name -> (code, class), from docs/errors.md's error table
CODES = {m.group(2): (int(m.group(1)), m.group(3))
         for m in re.finditer(r"^\|\s*(\d+)\s*\|\s*`(NPYG_\w+)`\s*\|\s*(\w+)\s*\|", README, re.M)}
EXC = {"ra": npyguard.RawArrayError, "limit": npyguard.LimitError}
# ra.py's dtype names, by eltype (dtype_enum_to_name), and the kinds it lacks
RA_PY_NAMES = {1: "int", 2: "uint", 3: "float", 4: "complex"}

VALID = sorted(k for k, v in MANIFEST.items() if v["group"] == "valid")
REFUSED = sorted(k for k, v in MANIFEST.items() if v["group"] != "valid")


def expected_dtype(e):
    """ra.py's dtype ('%s%d' % (name, bits)) in the file's byte order; for
    what ra.py does not read, numpy's dtype for the stored bytes: bool
    (eltype 5) and raw records (eltype 0). None: numpy has none."""
    order = ">" if e["endianness"] == "big" else "<"
    try:
        if e["eltype"] == 0:
            return np.dtype("V%d" % e["elbyte"])
        name = "bool" if e["eltype"] == 5 else "%s%d" % (RA_PY_NAMES[e["eltype"]], 8 * e["elbyte"])
        dt = np.dtype(name)
    except TypeError:
        return None
    return dt.newbyteorder(order) if dt.itemsize > 1 else dt


def check_array(a, e):
    want = expected_dtype(e)
    assert a.dtype == want and a.dtype.str == want.str
    if "numpy_dtype" in e and isinstance(e["numpy_dtype"], str):
        assert a.dtype.str == np.dtype(e["numpy_dtype"]).str  # the dtype the file was written from
    assert a.shape == tuple(int(d) for d in e["dims"])  # ra.py: reshape(dims[::-1]).transpose()
    assert a.flags["F_CONTIGUOUS"] and a.flags["WRITEABLE"] and a.flags["OWNDATA"] is False
    assert hashlib.sha256(a.tobytes(order="F")).hexdigest() == e["array_sha256"]


# numpy's most dimensions: NPY_MAXDIMS, 32 before numpy 2.0 and 64 since
NUMPY_MAX_DIMS = 64 if np.lib.NumpyVersion(np.__version__) >= "2.0.0" else 32


@pytest.mark.parametrize("name", VALID)
def test_valid_is_ra_pys_array(name):
    e = MANIFEST[name]
    path = os.path.join(RA, name)
    if e["ndims"] > NUMPY_MAX_DIMS:  # numpy 1.x: ra.py's reshape fails too
        with pytest.raises(npyguard.ShapeError):
            npyguard.load(path)
        return
    if expected_dtype(e) is None:
        with pytest.raises(npyguard.NotLoadableError) as ei:
            npyguard.load(path)
        assert ei.value.name == "NPYG_ERA_ELBYTE" and ei.value.offset == 24
        assert e["type"] in str(ei.value)
        return
    check_array(npyguard.load(path), e)
    check_array(npyguard.load_ra(path), e)


@pytest.mark.parametrize("name", REFUSED)
def test_refused_with_manifest_code(name):
    e = MANIFEST[name]
    path = os.path.join(RA, name)
    code, klass = CODES[e["npyguard_error"]]
    if code == CODES["NPYG_ELIMIT_ALLOC"][0]:
        # What validation must decode in memory of its own (over
        # max_alloc_bytes) a load decodes into the array: the caller's
        # memory, bounded by max_payload_bytes.
        a = npyguard.load(path)
        assert a.nbytes == e["decodes_to"] and hashlib.sha256(a.tobytes(order="F")).hexdigest() == e["array_sha256"]
        with pytest.raises(npyguard.LimitError):
            npyguard.load(path, max_payload_bytes=e["decodes_to"] - 1)
        return
    with open(path, "rb") as f:
        is_ra = f.read(8) == b"rawarray"
    for load in (npyguard.load_ra, npyguard.load) if is_ra else (npyguard.load_ra,):
        with pytest.raises(npyguard.Error) as ei:
            load(path)
        assert ei.value.name == e["npyguard_error"] and ei.value.code == code
        assert type(ei.value) is EXC[klass] and ei.value.klass == klass
    if not is_ra:  # recognised by content: not a RawArray file, nor any other
        with pytest.raises(npyguard.MagicError):
            npyguard.load(path)


def test_corpus_covers_the_types():
    types = {(MANIFEST[n]["eltype"], MANIFEST[n]["endianness"], MANIFEST[n]["compressed"]) for n in VALID}
    assert {(k, "little", False) for k in range(6)} <= types
    assert {(k, "big", False) for k in range(1, 5)} <= types and (3, "little", True) in types
    assert len(VALID) >= 50 and len(REFUSED) >= 45


INPUTS = {
    "path": lambda p: p,
    "pathlib": lambda p: __import__("pathlib").Path(p),
    "bytes": lambda p: open(p, "rb").read(),
    "bytearray": lambda p: bytearray(open(p, "rb").read()),
    "BytesIO": lambda p: io.BytesIO(open(p, "rb").read()),
    "file": lambda p: open(p, "rb"),
    "unbuffered": lambda p: open(p, "rb", buffering=0),
}


@pytest.mark.parametrize("how", sorted(INPUTS))
@pytest.mark.parametrize("name", ["valid/c64-lz4-metadata.ra", "valid/f64-be-2d.ra", "valid/user80-2d.ra"])
def test_every_input(name, how):
    src = INPUTS[how](os.path.join(RA, name))
    try:
        check_array(npyguard.load(src), MANIFEST[name])
        if hasattr(src, "tell"):  # a .ra file runs to its end (metadata)
            assert src.tell() == MANIFEST[name]["file_size"]
    finally:
        if hasattr(src, "close"):
            src.close()


def test_pipe():
    name = "valid/u8-lz4-1000000.ra"
    with open(os.path.join(RA, name), "rb") as f:
        blob = f.read()
    r, w = os.pipe()
    t = threading.Thread(target=lambda: (os.write(w, blob), os.close(w)))
    t.start()
    with os.fdopen(r, "rb") as f:
        check_array(npyguard.load(f), MANIFEST[name])
    t.join()


def test_content_not_name(tmp_path):
    # recognised by its bytes, as numpy.load tells .npy from .npz
    p = tmp_path / "looks-like.npy"
    p.write_bytes(open(os.path.join(RA, "valid/i32-3d.ra"), "rb").read())
    check_array(npyguard.load(str(p)), MANIFEST["valid/i32-3d.ra"])


def test_limits_before_allocating():
    # the header is validated and the size checked before the array exists
    name = "valid/u8-70000.ra"
    with pytest.raises(npyguard.LimitError) as ei:
        npyguard.load(os.path.join(RA, name), max_payload_bytes=69999)
    assert ei.value.name == "NPYG_ELIMIT_PAYLOAD"
    check_array(npyguard.load(os.path.join(RA, name), max_payload_bytes=70000), MANIFEST[name])
    with pytest.raises(npyguard.LimitError):
        npyguard.load_ra(os.path.join(RA, "valid/u8-64d.ra"), max_dims=63)


def test_not_ra_nor_npy():
    with pytest.raises(npyguard.MagicError):
        npyguard.load(b"rawarra")  # one byte short of the magic: not recognised
    with pytest.raises(npyguard.RawArrayError) as ei:
        npyguard.load_ra(b"\x93NUMPY\x01\x00")
    assert ei.value.name == "NPYG_ERA_MAGIC"
