# SPDX-License-Identifier: BSD-3-Clause
"""The package under threads, streams, signals, processes and every kind of
file object numpy.load takes.

Expected values come from numpy (numpy.load on the same bytes, or the
arrays numpy wrote), from Python's own behaviour (pickle, copy, signals)
and from the C library's public header for codes; never from npyguard's
own output. Tests that could crash or hang the interpreter on a defect
run in a child process with faulthandler and a timeout, so a segfault or
a hang is a failure here, not a dead test run.
"""
import bz2
import copy
import gzip
import io
import lzma
import mmap
import os
import pickle
import signal
import socket
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import npyguard

PKG = os.path.dirname(os.path.dirname(os.path.abspath(npyguard.__file__)))


def _saved(arr):
    buf = io.BytesIO()
    np.save(buf, arr)
    return buf.getvalue()


def run_child(code, timeout=60, args=()):
    """Runs code in a fresh interpreter with faulthandler on; a crash or a
    hang fails the test with the child's output."""
    env = dict(os.environ, PYTHONPATH=PKG + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        code = ["-c", textwrap.dedent(code)] if code else []
        r = subprocess.run([sys.executable, "-X", "faulthandler"] + code + list(args),
                           env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        pytest.fail("the child hung (%ss): %s %s" % (timeout, e.stdout, e.stderr))
    assert r.returncode == 0, "child exited %d:\n%s\n%s" % (r.returncode, r.stdout, r.stderr[-4000:])
    return r.stdout


# ---------------------------------------------------------------- threads on one archive

THREADS = """
    import sys, threading, zipfile, io, numpy as np, npyguard
    path, compress = sys.argv[1], sys.argv[2] == "deflate"
    rng = np.random.default_rng(5)
    arrays = {"m%d" % k: rng.integers(0, 50, size=20000 + 997 * k).astype("<i4") for k in range(8)}
    (np.savez_compressed if compress else np.savez)(path, **arrays)
    errors = []
    def reader(z, rounds):
        try:
            for r in range(rounds):
                for k, want in arrays.items():
                    if not np.array_equal(z[k], want):
                        errors.append("wrong bytes in " + k)
        except ValueError as e:  # the archive was closed under us: the one allowed failure
            if "closed" not in str(e):
                errors.append(repr(e))
        except BaseException as e:
            errors.append(repr(e))
    z = npyguard.load_npz(path)
    ts = [threading.Thread(target=reader, args=(z, 6)) for _ in range(6)]
    for t in ts: t.start()
    for t in ts: t.join()
    assert not errors, errors[:5]
    # close() while readers run: it waits for the read in progress
    for _ in range(20):
        z = npyguard.load_npz(path)
        ts = [threading.Thread(target=reader, args=(z, 3)) for _ in range(4)]
        for t in ts: t.start()
        z.close()
        for t in ts: t.join()
        assert not errors, errors[:5]
    print("ok")
"""


@pytest.mark.parametrize("method", ["deflate", "stored"])
def test_threads_share_one_archive(method, tmp_path):
    assert run_child(THREADS, timeout=120, args=(str(tmp_path / "t.npz"), method)).strip() == "ok"


# ---------------------------------------------------------------- errors cross processes

def _all_error_classes():
    out, todo = [], [npyguard.Error]
    while todo:
        c = todo.pop()
        out.append(c)
        todo.extend(c.__subclasses__())
    return out


def _one_error():
    try:
        npyguard.load(_saved(np.array([None, 1], dtype=object)))
    except npyguard.Error as e:
        return e
    raise AssertionError("not refused")


@pytest.mark.parametrize("cls", _all_error_classes(), ids=lambda c: c.__name__)
def test_errors_pickle_and_copy(cls):
    e = cls(34, "NPYG_EOBJECT", "unsafe", 12, "object dtype", "member")
    e.member = "a.npy"
    for clone in (pickle.loads(pickle.dumps(e, protocol=p)) for p in range(pickle.HIGHEST_PROTOCOL + 1)):
        assert type(clone) is cls
        assert (clone.code, clone.name, clone.klass, clone.offset, clone.message, clone.offset_space,
                clone.member) == (34, "NPYG_EOBJECT", "unsafe", 12, "object dtype", "member", "a.npy")
        assert str(clone) == str(e) and clone.args == e.args
    for clone in (copy.copy(e), copy.deepcopy(e)):
        assert type(clone) is cls and vars(clone) == vars(e) and str(clone) == str(e)


def test_raised_error_pickles():
    e = _one_error()
    clone = pickle.loads(pickle.dumps(e))
    assert type(clone) is npyguard.UnsafeError and vars(clone) == vars(e) and str(clone) == str(e)
    assert "NPYG_EOBJECT" in str(e)


POOL = """
    import multiprocessing, npyguard
    def work(x):
        return npyguard.load(x).tolist()
    if __name__ == "__main__":
        good = open(__import__("sys").argv[1], "rb").read()
        with multiprocessing.get_context("spawn").Pool(2) as pool:
            try:
                pool.map(work, [good, b"\\x93NUMPY\\x09\\x00"], chunksize=1)
            except npyguard.MagicError as e:
                print(e.name, e.code, e.offset)
            print(pool.map(work, [good]))
"""


def test_pool_map_gets_the_worker_error(tmp_path):
    p = tmp_path / "g.npy"
    np.save(p, np.arange(3))
    script = tmp_path / "pool.py"
    script.write_text(textwrap.dedent(POOL))
    out = run_child(None, timeout=60, args=(str(script), str(p)))
    assert out.split("\n")[:2] == ["NPYG_EVERSION 11 6", "[[0, 1, 2]]"]


# ---------------------------------------------------------------- streams are read exactly

def _two_in_turn(f, a, b, end, what):
    """npyguard.load twice on f, in a thread, returns a and b while the
    stream stays open; end() then closes the writing side, which ends a
    load that waits for the end of the stream."""
    done = {}
    t = threading.Thread(target=lambda: done.update(a=npyguard.load(f), b=npyguard.load(f)), daemon=True)
    t.start()
    t.join(20)
    end()
    t.join(5)
    assert "b" in done, "load waited for the end of a %s that stays open" % what
    np.testing.assert_array_equal(done["a"], a)
    np.testing.assert_array_equal(done["b"], b)
    assert done["b"].dtype == b.dtype


def test_open_pipe_returns_after_the_array():
    a, b = np.arange(10, dtype="<i2"), np.ones((2, 3), ">f8")
    r, w = os.pipe()
    os.write(w, _saved(a) + _saved(b))  # the writer stays open
    with open(r, "rb") as f:
        _two_in_turn(f, a, b, lambda: os.close(w), "stream")


def test_socket_two_arrays_in_turn():
    a, b = np.arange(70000, dtype="<u4"), np.array([1.5, 2.5], "<f4")
    s1, s2 = socket.socketpair()
    s1.settimeout(30)
    sender = threading.Thread(target=lambda: s1.sendall(_saved(a) + _saved(b)))
    sender.start()
    f = s2.makefile("rb")

    def end():
        sender.join()
        s1.close()
    # the second array is read on a socket that stays open
    _two_in_turn(f, a, b, end, "socket")
    s2.close()


def test_streams_keep_the_bytes_after_the_array():
    data = _saved(np.arange(5)) + b"tail"
    r, w = os.pipe()
    os.write(w, data)
    os.close(w)
    with open(r, "rb") as f:
        npyguard.load(f, strict=True)  # trailing bytes are a property of a whole file
        assert f.read() == b"tail"


def test_load_npz_on_an_endless_stream_is_bounded():
    # /dev/zero never ends: the spool stops at what the zip limits admit
    with open("/dev/zero", "rb") as f:
        with pytest.raises(npyguard.LimitError) as ei:
            npyguard.load_npz(f, max_total_uncompressed=1 << 20)
    assert ei.value.name == "NPYG_ELIMIT_STDIN" and ei.value.code == 83


def test_load_npz_on_a_pipe(tmp_path):
    path = tmp_path / "p.npz"
    np.savez_compressed(path, x=np.arange(1000), y=np.eye(3))
    data = path.read_bytes()
    r, w = os.pipe()
    t = threading.Thread(target=lambda: (os.write(w, data), os.close(w)))
    t.start()
    with open(r, "rb") as f, npyguard.load_npz(f) as z, np.load(path) as ref:
        np.testing.assert_array_equal(z["x"], ref["x"])
        np.testing.assert_array_equal(z["y"], ref["y"])
    t.join()


# ---------------------------------------------------------------- signals

class _Interrupting(io.RawIOBase):
    def __init__(self, data, exc):
        self.data, self.exc, self.calls = data, exc, 0

    def readable(self):
        return True

    def readinto(self, b):
        self.calls += 1
        if self.calls > 2:
            raise self.exc
        n = min(len(b), len(self.data))
        b[:n] = self.data[:n]
        self.data = self.data[n:]
        return n


@pytest.mark.parametrize("exc", [KeyboardInterrupt, SystemExit, GeneratorExit])
def test_base_exceptions_from_readinto_propagate(exc):
    data = _saved(np.arange(100))
    with pytest.raises(exc):
        npyguard.load(_Interrupting(data, exc()))
    with pytest.raises(exc):  # validate() copies a stream in MiB reads: the third is past 2 MiB
        npyguard.validate(_Interrupting(_saved(np.arange(300_000)), exc()))


def test_an_oserror_is_an_input_error():
    with pytest.raises(npyguard.InputError) as ei:
        npyguard.load(_Interrupting(_saved(np.arange(100)), OSError("disk gone")))
    assert isinstance(ei.value.__cause__, OSError) and ei.value.name == "NPYG_EIO"


SIGINT = """
    import os, signal, threading, npyguard
    r, w = os.pipe()
    os.write(w, b"\\x93NUMPY")  # and then nothing, the writer open
    threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
    try:
        npyguard.load(open(r, "rb"))
    except KeyboardInterrupt:
        print("interrupted")
"""


def test_ctrl_c_interrupts_a_blocked_load():
    assert run_child(SIGINT, timeout=30).strip() == "interrupted"


# ---------------------------------------------------------------- file objects as numpy reads them

def test_mmap_read_from_its_position(tmp_path):
    a, b = np.arange(6, dtype="<i8"), np.linspace(0, 1, 4)
    p = tmp_path / "m.bin"
    p.write_bytes(_saved(a) + _saved(b))
    with open(p, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm, \
            mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as ref:
        mm.seek(len(_saved(a)))
        ref.seek(len(_saved(a)))
        got, want = npyguard.load(mm), np.load(ref)
        np.testing.assert_array_equal(got, want)
        assert mm.tell() == ref.tell() == len(_saved(a) + _saved(b))


@pytest.mark.parametrize("opener", [gzip.open, bz2.open, lzma.open], ids=["gzip", "bz2", "lzma"])
def test_compressed_file_objects(opener, tmp_path):
    a = np.arange(5000, dtype="<f4").reshape(50, 100)
    p = tmp_path / "c.npy.z"
    with opener(p, "wb") as f:
        np.save(f, a)
        np.save(f, a[::-1])
    with opener(p, "rb") as f, opener(p, "rb") as g:
        for _ in range(2):
            got, want = npyguard.load(f), np.load(g)
            np.testing.assert_array_equal(got, want)
            assert got.flags.owndata == want.flags.owndata and got.flags.writeable


def test_load_npz_keeps_its_own_descriptor(tmp_path):
    p, q = tmp_path / "a.npz", tmp_path / "b.bin"
    np.savez(p, x=np.arange(4))
    q.write_bytes(b"\0" * 100000)
    f = open(p, "rb")
    z = npyguard.load_npz(f)
    fd, g = f.fileno(), os.open(q, os.O_RDONLY)
    f.close()
    os.dup2(g, fd)  # the number f had now names another file
    try:
        np.testing.assert_array_equal(z["x"], np.arange(4))
    finally:
        z.close()
        os.close(fd)
        os.close(g)


@pytest.mark.parametrize("order", ["C", "F"])
def test_large_stream_payload_owns_its_data(order):
    a = np.asfortranarray(np.arange(5 << 20, dtype="<f4").reshape(1024, -1)) if order == "F" else \
        np.arange(5 << 20, dtype="<f4").reshape(1024, -1)  # 20 MiB, over the preallocation bound
    data = _saved(a)
    want = np.load(io.BytesIO(data))
    for src in (io.BytesIO(data), _Chunky(data)):
        got = npyguard.load(src)
        np.testing.assert_array_equal(got, want)
        for flag in ("OWNDATA", "C_CONTIGUOUS", "F_CONTIGUOUS", "WRITEABLE", "ALIGNED"):
            assert got.flags[flag] == want.flags[flag], flag


class _Chunky(io.RawIOBase):
    """An unseekable stream that hands out a few KiB at a time."""

    def __init__(self, data):
        self.data = memoryview(data)

    def readable(self):
        return True

    def readinto(self, b):
        n = min(len(b), len(self.data), 70000)
        b[:n] = self.data[:n]
        self.data = self.data[n:]
        return n


class _Keeper(io.RawIOBase):
    """A readinto that keeps every buffer it was given."""

    def __init__(self, data):
        self.data, self.kept = data, []

    def readable(self):
        return True

    def readinto(self, b):
        self.kept.append(b)
        n = min(len(b), len(self.data))
        b[:n] = self.data[:n]
        self.data = self.data[n:]
        return n


def test_readinto_that_keeps_its_buffers():
    a = np.arange(3000, dtype="<i8")
    k = _Keeper(_saved(a))
    got = npyguard.load(k)
    np.testing.assert_array_equal(got, a)
    del got
    for b in k.kept:  # still readable, still writable, no freed memory behind them
        bytes(b)
        if len(b):
            b[0] = b[0]


def test_mmap_mode_without_payload_is_a_readonly_memmap(tmp_path):
    for arr in (np.zeros((0, 3)), np.zeros(4, "V0")):
        p = tmp_path / "e.npy"
        np.save(p, arr)
        got, want = npyguard.load(p, mmap_mode="r"), np.load(p, mmap_mode="r")
        assert type(got) is type(want) is np.memmap
        assert got.flags.writeable == want.flags.writeable is False
        assert got.shape == want.shape and got.dtype == want.dtype


def _ndim_file(n):
    hdr = "{'descr': '<u1', 'fortran_order': False, 'shape': (%s), }" % ("1, " * n)
    hdr += " " * (64 * (1 + len(hdr) // 64) - 10 - len(hdr) - 1) + "\n"
    return b"\x93NUMPY\x01\x00" + len(hdr).to_bytes(2, "little") + hdr.encode() + b"\x07"


def test_more_dims_than_numpy_holds():
    with pytest.raises(ValueError):
        np.load(io.BytesIO(_ndim_file(33)))  # numpy's own refusal
    np.testing.assert_array_equal(npyguard.load(_ndim_file(32)), np.load(io.BytesIO(_ndim_file(32))))
    for kw in ({}, {"max_dims": 64}):
        with pytest.raises(npyguard.ShapeError) as ei:
            npyguard.load(_ndim_file(33), **kw)
        assert ei.value.name == "NPYG_ESHAPE" and ei.value.code == 30 and "32" in ei.value.message


# ---------------------------------------------------------------- every failure is clear

LIMITS = [  # name, smallest, largest (parser/include/npyguard.h)
    ("max_header_bytes", 1, 1 << 28), ("max_dims", 1, 2**32 - 1), ("max_fields", 1, 2**32 - 1),
    ("max_depth", 1, 64), ("max_payload_bytes", 0, 2**64 - 1),
    ("max_members", 0, 1000000), ("max_name_bytes", 1, 65535), ("max_total_uncompressed", 0, 2**64 - 1),
    ("max_ratio", 1, 2**64 - 1), ("ratio_grace_bytes", 0, 2**64 - 1), ("inflate_budget_bytes", 0, 2**64 - 1),
]


@pytest.mark.parametrize("name,lo,hi", LIMITS)
def test_limits_named_in_their_errors(name, lo, hi):
    data = _saved(np.arange(3))
    for bad in (lo - 1, hi + 1, 2**70):
        with pytest.raises(ValueError, match=name):
            npyguard.load(data, **{name: bad})
    for ok in (np.uint64(max(lo, 1000)) if hi >= 1000 else np.int32(hi), hi):
        npyguard.validate(data, **{name: ok})  # any integral type within the range
    for wrong in (1.0, "5", True, None):
        with pytest.raises(TypeError, match=name):
            npyguard.load(data, **{name: wrong})


def test_max_alloc_bytes_too_small_is_named():
    with pytest.raises(ValueError, match="max_alloc_bytes"):
        npyguard.load(_saved(np.arange(3)), max_alloc_bytes=1)
    lo = npyguard.LIMIT_RANGES["max_alloc_bytes"][0]
    npyguard.load(_saved(np.arange(3)), max_alloc_bytes=1 << 20)
    with pytest.raises(ValueError, match="max_alloc_bytes"):
        npyguard.load(_saved(np.arange(3)), max_alloc_bytes=lo - 1)


def test_limit_defaults_come_from_the_library():
    # npyguard.h's NPYG_DEFAULT_* values
    want = {"max_header_bytes": 10000, "max_dims": 64, "max_fields": 4096, "max_depth": 32,
            "max_alloc_bytes": 8 << 20, "max_payload_bytes": 1 << 40, "max_members": 4096,
            "max_name_bytes": 512, "max_total_uncompressed": 1 << 40, "max_ratio": 100,
            "ratio_grace_bytes": 64 << 20, "inflate_budget_bytes": 64 << 20}
    assert npyguard.LIMITS == want


def test_unknown_limit_and_bad_sources():
    with pytest.raises(TypeError, match="max_bogus"):
        npyguard.load(b"", max_bogus=1)
    m = memoryview(_saved(np.arange(4)) * 2)[::2]
    with pytest.raises(TypeError, match="contiguous"):
        npyguard.load(m)
    with open(__file__) as text:
        with pytest.raises(TypeError, match="text"):
            npyguard.load(text)
    with pytest.raises(TypeError, match="file"):
        npyguard.load(12.5)


class _ReadOnly:
    """Only read(), as numpy accepts."""

    def __init__(self, data):
        self.f = io.BytesIO(data)

    def read(self, n=-1):
        return self.f.read(n)


def test_objects_with_read_only():
    a = np.arange(20, dtype=">i4").reshape(4, 5)
    got = npyguard.load(_ReadOnly(_saved(a) + _saved(a.T)))
    np.testing.assert_array_equal(got, np.load(io.BytesIO(_saved(a))))
    assert npyguard.validate(_ReadOnly(_saved(a)))["npy"]["shape"] == [4, 5]


def test_a_payload_too_large_to_allocate(tmp_path):
    # a real file of 8 TiB (sparse), more than this machine can allocate
    p = tmp_path / "huge.npy"
    hdr = "{'descr': '|u1', 'fortran_order': False, 'shape': (%d,), }" % (1 << 43)
    hdr += " " * (118 - len(hdr) - 1) + "\n"
    with open(p, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(hdr).to_bytes(2, "little") + hdr.encode())
        try:
            f.truncate(128 + (1 << 43))
        except OSError:
            pytest.skip("the file system cannot hold a sparse file this large")
    with pytest.raises(npyguard.InputError) as ei:
        npyguard.load(p, max_payload_bytes=1 << 44)
    assert ei.value.name == "NPYG_ENOMEM" and ei.value.code == 2


# ---------------------------------------------------------------- numpy.load's arguments and NpzFile

def test_numpy_load_arguments(tmp_path):
    a = np.arange(6).reshape(2, 3)
    p = tmp_path / "a.npy"
    np.save(p, a)
    np.testing.assert_array_equal(npyguard.load(p, None, False), a)
    np.testing.assert_array_equal(npyguard.load(p, allow_pickle=False, max_header_size=200), a)
    with pytest.raises(ValueError, match="allow_pickle"):
        npyguard.load(p, allow_pickle=True)
    with pytest.raises(npyguard.LimitError):
        npyguard.load(p, max_header_size=10)
    with pytest.raises(TypeError):
        npyguard.load(p, max_header_size=100, max_header_bytes=100)


def test_load_returns_an_npzfile_for_an_archive(tmp_path):
    p = tmp_path / "z.npz"
    np.savez(p, a=np.arange(3), b=np.eye(2))
    for src in (p, p.read_bytes(), io.BytesIO(p.read_bytes())):
        z = npyguard.load(src)
        assert isinstance(z, npyguard.NpzFile)
        with z, np.load(p) as ref:
            assert z.files == ref.files
            np.testing.assert_array_equal(z["a.npy"], ref["a.npy"])
            assert ("a.npy" in z) == ("a.npy" in ref) is True
            assert ("c" in z) == ("c" in ref) is False
            np.testing.assert_array_equal(z.f.b, ref.f.b)
            with pytest.raises(AttributeError):
                z.f.nothing
            with pytest.raises(KeyError):
                z["nothing"]


def test_zip_limits_from_python(tmp_path):
    p = tmp_path / "many.npz"
    np.savez(p, **{"m%d" % k: np.arange(k) for k in range(5)})
    with pytest.raises(npyguard.LimitError) as ei:
        npyguard.load_npz(p, max_members=4)
    assert ei.value.name == "NPYG_ELIMIT_MEMBERS"
    with pytest.raises(npyguard.LimitError) as ei:
        npyguard.load_npz(p, max_name_bytes=4)
    assert ei.value.name == "NPYG_ELIMIT_NAME"
    z = np.zeros(1 << 20)
    np.savez_compressed(p, z=z)
    with npyguard.load_npz(p, max_ratio=2, ratio_grace_bytes=0) as zz:
        with pytest.raises(npyguard.LimitError) as ei:
            zz["z"]
    assert ei.value.name == "NPYG_ELIMIT_RATIO" and ei.value.member == "z"
    with npyguard.load_npz(p, max_ratio=10**6, inflate_budget_bytes=0) as zz:
        np.testing.assert_array_equal(zz["z"], z)


def test_member_names_decoded_as_zipfile_does(tmp_path):
    import zipfile
    p = tmp_path / "n.npz"
    with zipfile.ZipFile(p, "w") as zf:  # zipfile sets the UTF-8 flag for these
        zf.writestr("\u00e9t\u00e9.npy", _saved(np.arange(2)))
        zf.writestr("\u65e5\u672c.npy", _saved(np.arange(3)))
    with npyguard.load_npz(p) as z, np.load(p) as ref:
        assert z.files == ref.files
        for k in ref.files:
            np.testing.assert_array_equal(z[k], ref[k])


def test_info_descr_as_npyvalidate_prints_it(tmp_path):
    dt = np.dtype([("a", "<i4"), (("T", "b"), ">f8", (2, 3)), ("c", [("d", "|u1")])])
    p = tmp_path / "s.npy"
    np.save(p, np.zeros(2, dt))
    import json
    # numpy's descr with its tuples as JSON lists, as npyvalidate --json prints it
    assert npyguard.validate(p)["npy"]["descr"] == json.loads(json.dumps(np.load(p).dtype.descr))


# ---------------------------------------------------------------- packaging

def test_typed_package_and_all():
    assert os.path.exists(os.path.join(os.path.dirname(npyguard.__file__), "py.typed"))
    for name in npyguard.__all__:
        assert hasattr(npyguard, name), name
    import typing
    hints = typing.get_type_hints(npyguard.NpzFile.__getitem__)
    assert hints["key"] is str and hints["return"] == typing.Union[np.ndarray, bytes]
    for fn in (npyguard.load, npyguard.validate, npyguard.load_npz):
        assert "return" in typing.get_type_hints(fn)


def test_load_on_an_archive_from_a_pipe(tmp_path):
    p = tmp_path / "z.npz"
    np.savez(p, a=np.arange(7))
    data = p.read_bytes()
    r, w = os.pipe()
    t = threading.Thread(target=lambda: (os.write(w, data), os.close(w)))
    t.start()
    with open(r, "rb") as f:
        z = npyguard.load(f)  # looked into without being consumed, then copied within the zip limits
    t.join()
    with z, np.load(p) as ref:
        assert isinstance(z, npyguard.NpzFile) and z.files == ref.files
        np.testing.assert_array_equal(z["a"], ref["a"])
