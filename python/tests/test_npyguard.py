# SPDX-License-Identifier: BSD-3-Clause
"""npyguard's Python package against numpy and the corpus manifests.

Expected values come from numpy (numpy.load on the same file) and from the
manifests numpy's writer and reader produced (corpus/manifest.json,
corpus/npz/manifest.json); the class of each error code from README.md's
error table.
"""
import collections
import io
import os
import re
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import npyguard

from corpus_files import CORPUS, MANIFEST, NPZ, ROOT


def _readme_classes():
    """code name -> class, from docs/errors.md's error table."""
    out = {}
    with open(os.path.join(ROOT, "docs", "errors.md")) as f:
        for line in f:
            m = re.match(r"\|\s*(\d+)\s*\|\s*`(NPYG_\w+)`\s*\|\s*(\w+)\s*\|", line)
            if m:
                out[m.group(2)] = m.group(3)
    return out


CLASSES = _readme_classes()
EXC = {
    "usage": npyguard.UsageError, "io": npyguard.InputError, "magic": npyguard.MagicError,
    "header": npyguard.HeaderError, "descr": npyguard.DescrError, "shape": npyguard.ShapeError,
    "payload": npyguard.TruncatedError, "unsafe": npyguard.UnsafeError, "limit": npyguard.LimitError,
    "strict": npyguard.StrictError, "zip": npyguard.ZipError,
}


def names(group):
    return sorted(k for k, v in MANIFEST.items() if v["group"] == group)


def _header_size(entry):
    # the header size numpy was given to read the file (manifest), as an int
    v = entry["numpy_max_header_size"]
    return int(v["max_header_size"] if isinstance(v, dict) else v)


def numpy_kwargs(entry):
    return {"max_header_size": _header_size(entry)} if "numpy_max_header_size" in entry else {}


def npyguard_kwargs(entry):
    return {"max_header_bytes": _header_size(entry)} if "numpy_max_header_size" in entry else {}


def assert_same(a, b, padding=True):
    """npyguard's array is numpy's: dtype, shape, order, flags, bytes.

    padding=False: numpy read b from a file object, assigning records
    field by field, so its padding bytes are uninitialised memory; the
    fields are compared byte for byte instead (the payload's hash is
    checked separately against the manifest)."""
    assert type(a) is np.ndarray or isinstance(a, np.ndarray)
    assert a.dtype == b.dtype
    assert a.dtype.str == b.dtype.str
    assert a.dtype.descr == b.dtype.descr  # titles, padding, offsets
    assert a.dtype.itemsize == b.dtype.itemsize
    assert a.shape == b.shape
    assert a.strides == b.strides
    for flag in ("C_CONTIGUOUS", "F_CONTIGUOUS", "WRITEABLE", "ALIGNED"):
        assert a.flags[flag] == b.flags[flag], flag
    if a.dtype.kind in "fc":
        assert np.array_equal(a, b, equal_nan=True)
    # bit for bit, NaN payloads included
    if padding or not a.dtype.names:
        assert a.tobytes(order="A") == b.tobytes(order="A")
    else:
        for field in a.dtype.names:
            assert a[field].tobytes(order="A") == b[field].tobytes(order="A"), field


def expect_error(exc_info, name):
    e = exc_info.value
    assert e.name == name
    assert e.code == int(re.search(r"\| (\d+) \| `%s`" % name, README).group(1))
    assert type(e) is EXC[CLASSES[name]]
    assert isinstance(e, npyguard.Error)
    assert e.klass == CLASSES[name]
    assert isinstance(e.offset, int) and e.message
    assert e.offset_space in ("file", "archive", "member")


with open(os.path.join(ROOT, "docs", "errors.md")) as f:
    README = f.read()


# ---------------------------------------------------------------- corpus

@pytest.mark.parametrize("name", names("valid"))
def test_valid_equals_numpy(name):
    entry = MANIFEST[name]
    path = os.path.join(CORPUS, name)
    if "npyguard_error" in entry:  # refused under the default limits
        with pytest.raises(npyguard.Error) as ei:
            npyguard.load(path)
        expect_error(ei, entry["npyguard_error"])
        if "numpy_max_header_size" not in entry:
            return
    want = np.load(path, allow_pickle=False, **numpy_kwargs(entry))
    assert_same(npyguard.load(path, **npyguard_kwargs(entry)), want)
    with open(path, "rb") as f:
        data = f.read()
    assert_same(npyguard.load(data, **npyguard_kwargs(entry)), want)
    assert_same(npyguard.load(io.BytesIO(data), **npyguard_kwargs(entry)), want)
    info = npyguard.validate(path, hash=True, **npyguard_kwargs(entry))["npy"]
    assert info["payload_sha256"] == entry["payload_sha256"]
    assert info["shape"] == [int(d) for d in entry["shape"]]
    assert info["descr_repr"] == entry["descr_repr"]
    assert (info["data_offset"], info["header_len"], info["payload_bytes"], info["fortran_order"]) == (
        entry["data_offset"], entry["header_len"], int(entry["payload_bytes"]), entry["fortran_order"])
    assert info["version"] == "%d.%d" % tuple(entry["version"])


def _outcome(load):
    try:
        a = load()
        return ("array", a.dtype.str, a.shape, a.strides, a.tobytes(order="A"))
    except npyguard.Error as e:
        return (e.name, e.offset, e.message)


def test_one_call_and_general_routes_agree():
    """A path with the default limits is loaded in one C call (a small file
    read whole and parsed as a buffer); any limit given takes the general
    route (the library's file input). Over every .npy of the corpus both
    give the same array, or the same error at the same offset with the
    same message; the arrays themselves are held to numpy above."""
    default = npyguard._core.limits()["max_payload_bytes"][0]
    files = names("valid") + names("invalid") + names("unsafe")
    seen = collections.Counter()
    for name in files:
        path = os.path.join(CORPUS, name)
        one = _outcome(lambda: npyguard.load(path))
        general = _outcome(lambda: npyguard.load(path, max_payload_bytes=default))
        assert one == general, name
        seen[one[0] == "array"] += 1
    assert seen[True] > 100 and seen[False] > 100, seen


@pytest.mark.parametrize("name", names("invalid") + names("unsafe"))
def test_refused_with_manifest_code(name):
    entry = MANIFEST[name]
    path = os.path.join(CORPUS, name)
    for source in (path, open(path, "rb").read()):
        with pytest.raises(npyguard.Error) as ei:
            npyguard.load(source)
        expect_error(ei, entry["npyguard_error"])
        with pytest.raises(npyguard.Error) as ei:
            npyguard.validate(source)
        # validate() recognises the format by its content, as npyvalidate
        # does: a file without the whole six-byte .npy magic is of no
        # format it reads, where load(), asked for a .npy, says the magic
        # is wrong or cut short
        unrecognized = entry["npyguard_error"] == "NPYG_EMAGIC" or os.path.getsize(path) < len(b"\x93NUMPY")
        expect_error(ei, "NPYG_EUNRECOGNIZED" if unrecognized else entry["npyguard_error"])


def test_corpus_counts():
    # the corpus the parametrized tests above cover; a shrinking corpus fails here
    assert len(names("valid")) >= 400 and len(names("invalid")) >= 150 and len(names("unsafe")) >= 10
    assert len(NPZ) >= 70


@pytest.mark.parametrize("name", sorted(NPZ))
def test_npz_as_manifest_says(name):
    entry = NPZ[name]
    path = os.path.join(CORPUS, "npz", name)
    err, member = entry.get("npyguard_error"), entry.get("npyguard_error_member")
    if err and not member:
        with pytest.raises(npyguard.Error) as ei:
            npyguard.load_npz(path)
        expect_error(ei, err)
        return
    numpy_ok = entry["numpy"]["verdict"] == "accept"
    ref = np.load(path, allow_pickle=False) if numpy_ok else None
    with npyguard.load_npz(path) as z:
        assert len(z) == len(entry["members"])
        for m in entry["members"]:
            raw = m["name"]
            key = raw[:-4] if raw.endswith(".npy") else raw
            assert key in z
            if member == raw:
                with pytest.raises(npyguard.Error) as ei:
                    z[key]
                expect_error(ei, err)
                break
            got = z[key]
            if not m.get("npy", False):
                assert isinstance(got, bytes) and len(got) == m["uncompressed_size"]
                if ref is not None:
                    assert got == ref[key]
                continue
            import hashlib
            assert hashlib.sha256(got.tobytes(order="A")).hexdigest() == m["payload_sha256"]
            if ref is not None:
                assert_same(got, ref[key], padding=False)
        else:
            assert not err, "the manifest expects %s" % err


def test_npz_mapping():
    path = os.path.join(CORPUS, "npz", "valid", "versions-123.npz")
    z = npyguard.load_npz(path)
    assert isinstance(z, npyguard.NpzFile)
    assert sorted(z) == ["v1", "v2", "v3"] and z.files == list(z)
    with np.load(path) as ref:  # numpy takes the stored name too
        assert_same(z["v1.npy"], ref["v1.npy"])
    with pytest.raises(KeyError):
        z["v4"]
    with pytest.raises(TypeError):
        z["v1"] = 1  # read-only
    z.close()
    with pytest.raises(ValueError):
        z["v1"]
    with open(path, "rb") as f:
        with npyguard.load_npz(f) as z2, np.load(path) as ref:
            assert_same(z2["v2"], ref["v2"])
    with open(path, "rb") as f:
        with npyguard.load_npz(io.BytesIO(f.read())) as z3, np.load(path) as ref:
            assert_same(z3["v3"], ref["v3"])


# ---------------------------------------------------------------- hostile sizes

HOSTILE = textwrap.dedent("""
    import os, resource, sys, npyguard
    hdr = "{'descr': '|u1', 'fortran_order': False, 'shape': (%d,), }" % (2**40)
    hdr = hdr + " " * (118 - len(hdr) - 1) + "\\n"
    data = b"\\x93NUMPY\\x01\\x00" + len(hdr).to_bytes(2, "little") + hdr.encode() + b"\\0" * 16
    assert len(data) < 200
    path = sys.argv[1]
    with open(path, "wb") as f:
        f.write(data)
    codes = []
    for source in ("path", "bytes", "pipe"):
        try:
            if source == "path":
                npyguard.load(path)
            elif source == "bytes":
                npyguard.load(data)
            else:
                r, w = os.pipe()
                os.write(w, data)
                os.close(w)
                with open(r, "rb", buffering=0) as f:
                    npyguard.load(f)
        except npyguard.Error as e:
            codes.append(e.name)
    print(" ".join(codes))
    # the peak of this process's own memory (ru_maxrss would carry the
    # parent's peak across exec)
    print([l.split()[1] for l in open("/proc/self/status") if l.startswith("VmHWM:")][0])  # KiB
""")


def test_hostile_size_raises_before_allocating(tmp_path):
    out = subprocess.run([sys.executable, "-c", HOSTILE, str(tmp_path / "big.npy")], check=True,
                         capture_output=True, text=True, env=dict(os.environ)).stdout.split("\n")
    assert out[0].split() == ["NPYG_ETRUNC_PAYLOAD"] * 3
    assert int(out[1]) < 64 * 1024, "peak RSS %s KiB" % out[1]


def test_declared_size_over_limit():
    hdr = "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }"
    hdr = hdr + " " * (118 - len(hdr) - 1) + "\n"
    data = b"\x93NUMPY\x01\x00" + len(hdr).to_bytes(2, "little") + hdr.encode()
    with pytest.raises(npyguard.LimitError) as ei:
        npyguard.load(data)
    expect_error(ei, "NPYG_ELIMIT_PAYLOAD")
    with pytest.raises(npyguard.LimitError) as ei:
        npyguard.load(os.path.join(CORPUS, "valid", "f8-le-2d-F-v1.npy"), max_payload_bytes=95)
    assert ei.value.name == "NPYG_ELIMIT_PAYLOAD"
    assert_same(npyguard.load(os.path.join(CORPUS, "valid", "f8-le-2d-F-v1.npy"), max_payload_bytes=96),
                np.load(os.path.join(CORPUS, "valid", "f8-le-2d-F-v1.npy")))
    with pytest.raises(TypeError):
        npyguard.load(data, max_bogus=1)
    assert npyguard.worst_case_alloc() > 0
    assert npyguard.worst_case_alloc(max_header_bytes=100) < npyguard.worst_case_alloc()


# ---------------------------------------------------------------- one open

@pytest.mark.parametrize("route", ["one call", "with limits"])
def test_replacing_the_file_cannot_change_the_result(tmp_path, monkeypatch, route):
    """The file is replaced on disk between the header and the payload:
    in the one-call path when its array is made, in the general path (any
    limit given) when the payload is read. The payload still comes from
    the file the header was read from."""
    path = tmp_path / "a.npy"
    first = np.arange(1000, dtype="<f8")
    second = np.arange(1000, dtype="<f8")[::-1].copy()
    np.save(path, first)
    np.save(tmp_path / "b.npy", second)
    real = npyguard._core.Npy

    class Swapping:
        def __init__(self, *a, **k):
            self.npy = real(*a, **k)

        def info(self):
            return self.npy.info()

        def layout(self):
            return self.npy.layout()

        def read(self, *a, **k):
            os.replace(tmp_path / "b.npy", path)
            return self.npy.read(*a, **k)

        def close(self):
            self.npy.close()

    def swapping_empty(*a, **k):
        os.replace(tmp_path / "b.npy", path)
        return np.empty(*a, **k)

    if route == "one call":
        monkeypatch.setattr(npyguard, "_empty", swapping_empty)
        got = npyguard.load(path)
    else:
        monkeypatch.setattr(npyguard._core, "Npy", Swapping)
        got = npyguard.load(path, max_payload_bytes=1 << 20)
    monkeypatch.undo()
    assert np.array_equal(np.load(path), second)  # the file was replaced
    assert np.array_equal(got, first)  # what load returns was not


# ---------------------------------------------------------------- file objects

def _saved(arr, **kw):
    buf = io.BytesIO()
    np.save(buf, arr, **kw)
    return buf.getvalue()


def test_bytesio_and_sequential_arrays():
    a, b = np.arange(12, dtype=">i4").reshape(3, 4), np.asfortranarray(np.ones((2, 5), "<c16"))
    data = _saved(a) + _saved(b)
    f, g = io.BytesIO(data), io.BytesIO(data)
    # read from the current position and left just past the array, as numpy
    # does, so that arrays written one after another load one after another
    assert_same(npyguard.load(f), np.load(g))
    assert f.tell() == g.tell() == len(_saved(a))
    assert_same(npyguard.load(f), np.load(g))
    assert f.tell() == len(data)


def test_file_at_nonzero_offset(tmp_path):
    a = np.linspace(0, 1, 17, dtype="<f4")
    b = np.array([np.nan, -np.nan, np.inf], dtype="<f8")
    path = tmp_path / "x.bin"
    path.write_bytes(b"junk" * 5 + _saved(a) + _saved(b))
    with open(path, "rb") as f, open(path, "rb") as g:
        f.seek(20)
        g.seek(20)
        assert_same(npyguard.load(f), np.load(g))
        assert f.tell() == g.tell()  # just past the array, as numpy leaves it
        assert_same(npyguard.load(f), np.load(g))


def test_refused_file_object_keeps_its_position(tmp_path):
    path = tmp_path / "t.npy"
    path.write_bytes(b"head" + _saved(np.arange(10.0))[:-1])
    with open(path, "rb") as f:
        f.seek(4)
        with pytest.raises(npyguard.TruncatedError):
            npyguard.load(f)
        assert f.tell() == 4 and f.read(6) == b"\x93NUMPY"


@pytest.mark.parametrize("prealloc", [True, False])
def test_unseekable_pipe(prealloc, monkeypatch):
    if not prealloc:  # the path for large payloads: memory grows with the bytes that arrive
        monkeypatch.setattr(npyguard, "_STREAM_PREALLOC", 0)
    a = np.arange(300000, dtype="<u8")  # larger than a pipe's buffer
    data = _saved(a)
    r, w = os.pipe()

    def writer():
        with open(w, "wb") as fw:
            fw.write(data)

    t = threading.Thread(target=writer)
    t.start()
    with open(r, "rb") as f:
        got = npyguard.load(f)
    t.join()
    assert_same(got, np.load(io.BytesIO(data)))


def test_truncated_pipe():
    data = _saved(np.arange(100, dtype="<i2"))[:-5]
    r, w = os.pipe()
    os.write(w, data)
    os.close(w)
    with open(r, "rb") as f:
        with pytest.raises(npyguard.TruncatedError) as ei:
            npyguard.load(f)
    expect_error(ei, "NPYG_ETRUNC_PAYLOAD")
    assert ei.value.offset == len(data)


def test_strict_and_trailing():
    data = _saved(np.arange(3, dtype="<i8")) + b"x"
    assert_same(npyguard.load(data), np.arange(3, dtype="<i8"))
    assert npyguard.validate(data)["warnings"] == ["trailing_bytes"]
    with pytest.raises(npyguard.StrictError) as ei:
        npyguard.load(data, strict=True)
    expect_error(ei, "NPYG_ETRAILING")


# ---------------------------------------------------------------- mmap

@pytest.mark.parametrize("name", ["valid/f8-le-2d-F-v1.npy", "valid/struct-flat-be-2d-F-v1.npy"])
def test_mmap_modes(name, tmp_path):
    path = os.path.join(CORPUS, name)
    ref = np.load(path, mmap_mode="r")
    m = npyguard.load(path, mmap_mode="r")
    assert_same(m, ref)
    assert isinstance(m, np.memmap) and m.mode == ref.mode == "r" and m.offset == ref.offset
    assert m.filename == ref.filename
    with pytest.raises(ValueError):
        m.flat[0] = m.flat[1]
    c = npyguard.load(path, mmap_mode="c")
    assert_same(c, np.load(path, mmap_mode="c"))
    c.reshape(-1, order="A").view(np.uint8)[:1] ^= 0xFF  # copy on write: the file keeps its bytes
    assert_same(npyguard.load(path), np.load(path))
    for mode in ("r+", "w+"):
        with pytest.raises(ValueError):
            npyguard.load(path, mmap_mode=mode)
    with pytest.raises(ValueError):
        npyguard.load(open(path, "rb").read(), mmap_mode="r")


def test_mmap_refuses_truncated(tmp_path):
    p = tmp_path / "t.npy"
    p.write_bytes(_saved(np.arange(10.0))[:-1])
    with pytest.raises(npyguard.TruncatedError):
        npyguard.load(str(p), mmap_mode="r")


# ---------------------------------------------------------------- API surface

def test_docstrings_for_help():
    for fn in (npyguard.load, npyguard.load_npz, npyguard.validate):
        assert fn.__doc__ and len(fn.__doc__) > 200
    assert "mmap_mode" in npyguard.load.__doc__
    assert issubclass(npyguard.UnsafeError, npyguard.Error)
    assert not issubclass(npyguard.Error, (ValueError, MemoryError))


def test_no_bare_exceptions_on_garbage():
    rng = np.random.default_rng(12)
    base = _saved(np.arange(6, dtype="<f8").reshape(2, 3))
    for _ in range(300):
        data = bytearray(base)
        for _ in range(3):
            data[int(rng.integers(0, 128))] = int(rng.integers(0, 256))
        try:
            npyguard.load(bytes(data))
        except npyguard.Error:
            pass
