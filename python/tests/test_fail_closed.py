# SPDX-License-Identifier: BSD-3-Clause
"""The package fails closed: streams are read in place or copied within a
bound, a caller's exceptions and interrupts arrive as they were raised,
and every refusal is a ValueError or an OSError as numpy.load's are.

Expected values come from numpy (numpy.load and numpy.savez on the same
bytes), from Python's own behaviour (signals, pickle, copy, the OSError
hierarchy) and from the C library's public header for codes; never from
npyguard's own output. Whatever could hang, crash, fill a disk or exhaust
memory runs in a child with faulthandler on, a timeout, and RLIMIT_FSIZE
(and RLIMIT_AS where memory is the point), so a regression fails the
test, not the machine.
"""
import copy
import io
import json
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import textwrap
import zipfile

import numpy as np
import pytest

import npyguard
from corpus_files import CORPUS, MANIFEST, hdf5_helper

PKG = os.path.dirname(os.path.dirname(os.path.abspath(npyguard.__file__)))
TESTS = os.path.dirname(os.path.abspath(__file__))

# npyguard.h's codes
NPYG_EIO, NPYG_ENOMEM, NPYG_EOBJECT = 3, 2, 70
NPYG_ELIMIT_STDIN, NPYG_ELIMIT_RATIO = 83, 88


def run_child(code, timeout=60, fsize=64 << 20, address_space=None, env=None):
    """code in a fresh interpreter (faulthandler on) under a timeout, with
    RLIMIT_FSIZE so that a regression cannot fill the disk; returns its
    stdout, failing the test with its output when it fails or hangs."""
    def limit():
        import resource
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        if address_space:
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    e = dict(os.environ, PYTHONPATH=os.pathsep.join([PKG, TESTS, os.environ.get("PYTHONPATH", "")]))
    e.update(env or {})
    try:
        r = subprocess.run([sys.executable, "-X", "faulthandler", "-c", textwrap.dedent(code)], env=e,
                           capture_output=True, text=True, timeout=timeout, preexec_fn=limit)
    except subprocess.TimeoutExpired as x:
        pytest.fail("the child hung (%ss): %s %s" % (timeout, x.stdout, x.stderr))
    assert r.returncode == 0, "child exited %d:\n%s\n%s" % (r.returncode, r.stdout, r.stderr[-4000:])
    return r.stdout


def _npz(**arrays):
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _npy(arr):
    buf = io.BytesIO()
    np.save(buf, arr)
    return buf.getvalue()


# ---------------------------------------------------------------- streams and disks

class Counting(io.RawIOBase):
    """A seekable file object that is not a regular file (as an fsspec, S3
    or HTTP file is), counting the bytes it hands out."""

    def __init__(self, data):
        self.data, self.pos, self.given = data, 0, 0

    def readable(self):
        return True

    def seekable(self):
        return True

    def tell(self):
        return self.pos

    def seek(self, off, whence=0):
        self.pos = off if whence == 0 else (self.pos + off if whence == 1 else len(self.data) + off)
        return self.pos

    def readinto(self, b):
        n = min(len(b), max(0, len(self.data) - self.pos))
        b[:n] = self.data[self.pos:self.pos + n]
        self.pos += n
        self.given += n
        return n


def _no_spool(monkeypatch):
    """Copying the input to a temporary file fails the test."""
    def refused(*a, **k):
        raise AssertionError("a seekable file object was copied to a temporary file")
    monkeypatch.setattr(tempfile, "TemporaryFile", refused)


def test_seekable_file_object_is_read_in_place(monkeypatch):
    _no_spool(monkeypatch)
    rng = np.random.default_rng(1)
    small = rng.integers(0, 9, 1000).astype("<i4")
    data = _npz(big=np.zeros(16 << 20, np.uint8), small=small)  # stored: the big member is 16 MiB
    f = Counting(data)
    with npyguard.load_npz(f) as z:
        assert np.array_equal(z["small"], np.load(io.BytesIO(data))["small"])
    # the member, its local header, the directory and the end record's
    # search (the last 64 KiB + 22 bytes, as zipfile reads them): not the
    # 16 MiB beside them
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        info = zf.getinfo("small.npy")
    assert f.given < info.compress_size + 128 * 1024, f.given
    f = Counting(data)
    assert npyguard.load(f)["big"].nbytes == 16 << 20  # load() of an archive, in place too
    assert f.given < len(data) + 64 * 1024


def test_fsspec_file_is_read_in_place(monkeypatch):
    fsspec = pytest.importorskip("fsspec")
    _no_spool(monkeypatch)
    data = _npz(a=np.arange(10.0), b=np.zeros(1 << 20))
    fs = fsspec.filesystem("memory")
    fs.pipe("/npyguard-test/x.npz", data)
    with fs.open("/npyguard-test/x.npz", "rb") as f, npyguard.load_npz(f) as z:
        assert np.array_equal(z["a"], np.load(io.BytesIO(data))["a"])
    fs.rm("/npyguard-test/x.npz")


ENDLESS = """
    import io, npyguard
    class Endless(io.RawIOBase):  # an unseekable stream that never ends: /dev/zero after a zip magic
        first = True
        def readable(self): return True
        def readinto(self, b):
            b[:] = bytes(len(b))
            if self.first:
                b[:4], self.first = b"PK\\x03\\x04", False
            return len(b)
"""


def test_unseekable_stream_is_spooled_within_a_small_default_bound():
    # Today's bound under the default limits is about 1 TiB: the child
    # would run into RLIMIT_FSIZE (a bare OSError) or fill the disk.
    out = run_child(ENDLESS + """
    try:
        npyguard.load_npz(Endless())
    except npyguard.LimitError as e:
        assert e.code == %d, e
        print(e.offset)
    """ % NPYG_ELIMIT_STDIN, fsize=(npyguard.SPOOL_DEFAULT_TOTAL + (64 << 20)), timeout=120)
    bound = int(out)
    assert npyguard.SPOOL_DEFAULT_TOTAL <= bound < npyguard.SPOOL_DEFAULT_TOTAL + (80 << 20), bound


def test_unseekable_stream_bound_follows_the_callers_limits():
    out = run_child(ENDLESS + """
    for total in (1 << 20, 4 << 20):
        try:
            npyguard.load_npz(Endless(), max_total_uncompressed=total, max_members=16)
        except npyguard.LimitError as e:
            assert e.code == %d, e
            print(total, e.offset)
    """ % NPYG_ELIMIT_STDIN)
    for line in out.split("\n")[:2]:
        total, bound = map(int, line.split())
        # the data, deflate's overhead on stored blocks, and per member its
        # headers, names and a small allowance: not 196 KB each
        assert total < bound < total + total // 200 + 16 * (2 * 4096 + 4096) + 70000, (total, bound)


def test_spool_failure_is_an_input_error():
    # RLIMIT_FSIZE stands for a full disk: the write fails (EFBIG) as it
    # would with ENOSPC; the package says InputError, an OSError.
    out = run_child(ENDLESS + """
    import errno
    try:
        npyguard.load_npz(Endless(), max_total_uncompressed=64 << 20)
    except npyguard.InputError as e:
        assert isinstance(e, OSError) and e.errno == errno.EFBIG, (e, e.errno)
        assert e.code == %d
        print("input error")
    """ % NPYG_EIO, fsize=4 << 20)
    assert out.strip() == "input error"


BAD_COUNTS = """
    import io, sys, numpy as np, npyguard
    data = open(sys.argv[1], "rb").read() if len(sys.argv) > 1 else None
    class Bad(io.RawIOBase):
        def __init__(self, how): self.how, self.calls = how, 0
        def readable(self): return True
        def seekable(self): return False
        def readinto(self, b):
            self.calls += 1
            if self.calls == 1:
                b[:4] = b"PK\\x03\\x04"
                return 4
            return {"negative": -1, "float": 1.5, "more": len(b) + 1, "none": None}[self.how]
    class BadRead:
        def __init__(self, how): self.how = how
        def read(self, n=-1):
            return {"none": None, "more": b"x" * (n + 1), "str": "PK", "raise": 1 // 0}[self.how]
    class WriteOnly(io.RawIOBase):
        def writable(self): return True
        def write(self, b): return len(b)
    cases = [Bad(h) for h in ("negative", "float", "more", "none")] + [BadRead(h) for h in ("none", "more", "str", "raise")]
    cases.append(io.BufferedWriter(WriteOnly()))
    for f in cases:
        for fn in (npyguard.load_npz, npyguard.load):
            try:
                fn(f)
            except npyguard.InputError as e:
                assert isinstance(e, OSError)
                print("ok")
            except BaseException as e:
                print("escaped", fn.__name__, type(e).__name__, e)
"""


def test_bad_counts_and_misbehaving_file_objects_are_input_errors():
    out = run_child(BAD_COUNTS, timeout=60, fsize=8 << 20)
    lines = out.split()
    assert "escaped" not in out, out
    assert lines.count("ok") == 18, out


def test_a_read_that_never_ends_is_bounded():
    out = run_child("""
    import npyguard
    class Forever:  # read() never returns b""
        def read(self, n=-1):
            return b"PK\\x03\\x04" + bytes(min(n, 65536) - 4)
    try:
        npyguard.load_npz(Forever(), max_total_uncompressed=1 << 20)
    except npyguard.LimitError as e:
        print(e.code)
    """)
    assert int(out) == NPYG_ELIMIT_STDIN


# ---------------------------------------------------------------- exceptions kept

SINK = """
    import io, sys, numpy as np, npyguard
    big = np.zeros((40 << 20) // 8)   # a stream payload past the 16 MiB the package reads at once
    buf = io.BytesIO(); np.save(buf, big); data = buf.getvalue(); del buf, big
    class Pipe(io.RawIOBase):  # an unseekable stream
        def __init__(self): self.pos = 0
        def readable(self): return True
        def readinto(self, b):
            n = min(len(b), len(data) - self.pos)
            b[:n] = data[self.pos:self.pos + n]; self.pos += n
            return n
    grow = npyguard._Growing.__call__
    for name in ("KeyboardInterrupt", "SystemExit", "MemoryError"):
        what = {"KeyboardInterrupt": KeyboardInterrupt, "SystemExit": SystemExit, "MemoryError": MemoryError}[name]
        for where in ("sink", "readinto"):
            if where == "sink":  # raised in the sink that grows the array
                calls = [0]
                def raising(self, chunk, calls=calls, what=what):
                    calls[0] += 1
                    if calls[0] == 3:
                        raise what("from the sink")
                    return grow(self, chunk)
                npyguard._Growing.__call__ = raising
                f = Pipe()
            else:  # raised by the stream's readinto, past 16 MiB
                npyguard._Growing.__call__ = grow
                class Raising(Pipe):
                    def readinto(self, b, what=what):
                        if self.pos > (20 << 20):
                            raise what("from the readinto")
                        return Pipe.readinto(self, b)
                f = Raising()
            try:
                npyguard.load(io.BufferedReader(f))
                print(name, where, "nothing raised")
            except BaseException as e:
                print(name, where, type(e).__name__, "|", e.args[0] if e.args else "", "|", e.__cause__ is None)
"""


def test_exceptions_in_a_stream_payload_arrive_unchanged():
    out = run_child(SINK, timeout=180)
    lines = out.strip().split("\n")
    assert len(lines) == 6, out
    for line in lines:
        name, where, rest = line.split(" ", 2)
        # the very exception, with its own message, not an npyguard.InputError caused by it
        assert rest == "%s | from the %s | True" % (name, where), line


# ---------------------------------------------------------------- Ctrl-C

# Child code: SIGINT to the child itself from a thread after delay seconds;
# prints the seconds from then to the KeyboardInterrupt that call raises.
CTRL_C = """
    import os, signal, threading, time
    def ctrl_c(delay, call):
        sent = []
        def interrupt():
            time.sleep(delay)
            sent.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGINT)
        threading.Thread(target=interrupt, daemon=True).start()
        try:
            call()
        except KeyboardInterrupt:
            print("%.4f" % (time.monotonic() - sent[0]))
"""

FIFO = CTRL_C + """
    import os, signal, sys, threading, time, numpy as np, npyguard
    path = sys.argv[1]
    os.mkfifo(path)
    def writer():  # the header and part of the payload, then the writer stays open
        fd = os.open(path, os.O_WRONLY)
        import io
        buf = io.BytesIO(); np.save(buf, np.zeros(1 << 20)); data = buf.getvalue()
        os.write(fd, data[:4096])
        time.sleep(60)
    threading.Thread(target=writer, daemon=True).start()
    ctrl_c(1.0, lambda: npyguard.load(path))
"""


def _interrupt_latency(code, args, env, tries=3):
    """Seconds from SIGINT to the KeyboardInterrupt in the child, the best
    of up to tries runs: a machine shared with other work may leave the
    child unscheduled for a while, a load that holds the interrupt holds
    it in every run (until the child's timeout)."""
    seen = []
    for k in range(tries):
        r = subprocess.run([sys.executable, "-X", "faulthandler", "-c", textwrap.dedent(code)] + [a(k) for a in args],
                           env=dict(os.environ, **env), capture_output=True, text=True, timeout=60)
        assert r.returncode == 0 and r.stdout.strip(), r.stderr[-3000:]
        seen.append(float(r.stdout.split()[0]))
        if seen[-1] < 0.1:
            break
    return min(seen), seen


def test_ctrl_c_ends_a_load_from_a_fifo(tmp_path):
    best, seen = _interrupt_latency(FIFO, [lambda k: str(tmp_path / ("fifo%d" % k))], {"PYTHONPATH": PKG})
    assert best < 0.1, seen


HELPER = hdf5_helper()
MAT = os.path.join(CORPUS, "hdf5", "valid", "mat")

HDF5_STOPPED = CTRL_C + """
    import glob, os, signal, sys, threading, time, numpy as np, npyguard
    path, how = sys.argv[1], sys.argv[2]
    # starts the helper process, kept for the next load with these limits
    load = (lambda: npyguard.load(path)) if how == "interrupt" else (lambda: npyguard.load_hdf5(path, hdf5_wall_seconds=2))
    load()
    helpers = set()
    for t in os.listdir("/proc/self/task"):
        with open("/proc/self/task/%s/children" % t) as f:
            helpers.update(int(p) for p in f.read().split())
    assert helpers, "no helper process"
    for pid in helpers:
        os.kill(pid, signal.SIGSTOP)   # a helper that never answers
    t0 = time.monotonic()
    if how == "interrupt":
        ctrl_c(0.5, load)
    else:
        try:
            load()
        except npyguard.Error as e:
            print("%.1f %s" % (time.monotonic() - t0, e.name))
    for pid in helpers:   # killed, not left stopped
        assert not os.path.exists("/proc/%d" % pid) or open("/proc/%d/stat" % pid).read().split()[2] == "Z", pid
"""


def _an_hdf5_file():
    return os.path.join(CORPUS, "hdf5", "valid", "h5", "bool.h5")


@pytest.mark.skipif(HELPER is None, reason="no npyg-hdf5-helper built (set NPYG_HDF5_HELPER)")
def test_ctrl_c_ends_an_hdf5_load_and_kills_the_helper():
    best, seen = _interrupt_latency(HDF5_STOPPED, [lambda k: _an_hdf5_file(), lambda k: "interrupt"],
                                    {"PYTHONPATH": PKG, "NPYG_HDF5_HELPER": HELPER})
    assert best < 0.1, seen


@pytest.mark.skipif(HELPER is None, reason="no npyg-hdf5-helper built (set NPYG_HDF5_HELPER)")
def test_a_stopped_helper_meets_the_parents_deadline():
    r = subprocess.run([sys.executable, "-X", "faulthandler", "-c", textwrap.dedent(HDF5_STOPPED),
                        _an_hdf5_file(), "deadline"], env=dict(os.environ, PYTHONPATH=PKG, NPYG_HDF5_HELPER=HELPER),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip(), r.stderr[-3000:]
    seconds, name = r.stdout.split()
    assert name == "NPYG_EHDF5_TIMEOUT" and float(seconds) < 10, r.stdout


# ---------------------------------------------------------------- one error model

def test_content_refusals_are_value_errors_and_io_failures_os_errors(tmp_path):
    bad = tmp_path / "bad.npy"
    bad.write_bytes(b"\x93NUMPY\x01\x00\x10\x00{'descr': 5}    \n")
    with pytest.raises(ValueError):  # what numpy.load raises
        np.load(bad)
    with pytest.raises(ValueError) as e:
        npyguard.load(bad)
    assert isinstance(e.value, npyguard.Error)
    obj = tmp_path / "obj.npy"
    np.save(obj, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError):
        np.load(obj)
    with pytest.raises(ValueError) as e:
        npyguard.load(obj)
    assert isinstance(e.value, npyguard.UnsafeError)
    missing = tmp_path / "missing.npy"
    for fn in (npyguard.load, npyguard.load_npz, npyguard.validate, lambda p: npyguard.load(p, max_dims=8),
               lambda p: npyguard.load(p, mmap_mode="r")):
        with pytest.raises(FileNotFoundError) as e:
            fn(missing)
        assert isinstance(e.value, npyguard.InputError) and e.value.errno == 2 and e.value.code == NPYG_EIO
    for cls in (npyguard.MagicError, npyguard.HeaderError, npyguard.DescrError, npyguard.ShapeError,
                npyguard.TruncatedError, npyguard.UnsafeError, npyguard.LimitError, npyguard.StrictError,
                npyguard.ZipError, npyguard.RawArrayError, npyguard.PickleError, npyguard.Hdf5Error,
                npyguard.MatError, npyguard.UnsupportedError, npyguard.NotLoadableError, npyguard.UsageError):
        assert issubclass(cls, ValueError) and not issubclass(cls, OSError), cls
    assert issubclass(npyguard.InputError, OSError) and not issubclass(npyguard.InputError, ValueError)


def test_errors_pickle_with_every_field(tmp_path):
    obj = tmp_path / "obj.npy"
    np.save(obj, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(npyguard.UnsafeError) as e:
        npyguard.load(obj)
    missing = tmp_path / "missing.npy"
    with pytest.raises(npyguard.FileMissingError) as m:
        npyguard.load(missing)
    for err in (e.value, m.value):
        for back in (pickle.loads(pickle.dumps(err)), copy.copy(err)):
            assert type(back) is type(err)
            for k in ("code", "name", "klass", "offset", "message", "offset_space", "member", "imports"):
                assert getattr(back, k, None) == getattr(err, k, None), k
            assert str(back) == str(err)
    assert m.value.errno == pickle.loads(pickle.dumps(m.value)).errno == 2


def test_unsafe_error_names_what_the_pickle_would_import(tmp_path):
    import collections
    obj = tmp_path / "obj.npy"
    np.save(obj, np.array([collections.OrderedDict(a=1)], dtype=object), allow_pickle=True)
    # what pickle itself names: the GLOBAL opcodes pickletools reads
    import pickletools
    with open(obj, "rb") as f:
        np.lib.format.read_magic(f)
        np.lib.format.read_array_header_1_0(f)
        payload = f.read()
    names = [a.replace(" ", ".") for op, a, _ in pickletools.genops(payload) if op.name == "GLOBAL"]
    assert "collections.OrderedDict" in names
    for src in (str(obj), obj.read_bytes(), open(obj, "rb"), io.BytesIO(obj.read_bytes())):
        with pytest.raises(npyguard.UnsafeError) as e:
            npyguard.load(src)
        for name in names:
            assert name in e.value.imports, (name, e.value.imports)
    # an archive's member, read in place or from bytes
    npz = tmp_path / "obj.npz"
    with zipfile.ZipFile(npz, "w") as zf:
        zf.writestr("o.npy", obj.read_bytes())
    for src in (str(npz), npz.read_bytes(), Counting(npz.read_bytes())):
        with npyguard.load_npz(src) as z, pytest.raises(npyguard.UnsafeError) as e:
            z["o"]
        for name in names:
            assert name in e.value.imports, (name, e.value.imports)


def test_no_bare_builtin_escapes(tmp_path):
    # loadmat of a BytesIO: libhdf5 reads a descriptor in its cage
    mats = sorted(f for f in os.listdir(MAT) if f.endswith(".mat")) if os.path.isdir(MAT) else []
    if mats:
        data = open(os.path.join(MAT, mats[0]), "rb").read()
        with pytest.raises(npyguard.Error):
            npyguard.loadmat(io.BytesIO(data))
        with pytest.raises(npyguard.Error):
            npyguard.load(io.BytesIO(data))


def test_special_files_raise_only_npyguard_errors(tmp_path):
    out = run_child("""
    import sys, npyguard
    calls = [npyguard.load, npyguard.validate, npyguard.load_ra, npyguard.loadmat,
             lambda p: npyguard.load(p, mmap_mode="r"), lambda p: npyguard.load_npz(p, max_total_uncompressed=1 << 20)]
    for path in (%r, "/dev/null", "/dev/zero"):
        for fn in calls:
            try:
                fn(path)
                print("loaded", path)
            except npyguard.Error as e:
                print("refused", path, type(e).__name__)
            except BaseException as e:
                print("escaped", path, type(e).__name__, e)
    """ % str(tmp_path))
    assert "escaped" not in out and "loaded" not in out, out
    assert out.count("refused") == 18, out


@pytest.mark.skipif(HELPER is None, reason="no npyg-hdf5-helper built (set NPYG_HDF5_HELPER)")
def test_every_documented_load_keyword_is_taken_whatever_the_content():
    path = _an_hdf5_file()
    want = npyguard.load(path)
    for kw in ({"max_members": 10}, {"max_ratio": 50}, {"max_total_uncompressed": 1 << 30},
               {"max_header_size": 20000}, {"inflate_budget_bytes": 1 << 30}, {"max_name_bytes": 100}):
        got = npyguard.load(path, **kw)
        assert type(got) is type(want), kw


def test_mmap_under_an_address_space_cap_is_an_input_error(tmp_path):
    path = tmp_path / "big.npy"
    np.lib.format.open_memmap(path, mode="w+", dtype=np.uint8, shape=(768 << 20,)).flush()
    out = run_child("""
    import sys, npyguard
    try:
        npyguard.load(sys.argv[1] if len(sys.argv) > 1 else %r, mmap_mode="r")
    except npyguard.InputError as e:
        assert isinstance(e, OSError)
        print(e.code)
    """ % str(path), address_space=512 << 20, fsize=1 << 30)
    assert int(out) == NPYG_ENOMEM


def _lz4_ra(count):
    """A RawArray file (parser/RA.md) whose data segment is one LZ4 block
    of count zero bytes (uint8), written to the LZ4 block format's
    documentation: one literal, a match at offset 1 for the rest, and the
    five literals a block ends with."""
    match = count - 1 - 5
    block = bytearray([(1 << 4) | min(match - 4, 15), 0, 1, 0])
    if match - 4 >= 15:
        rest = match - 4 - 15
        block += b"\xff" * (rest // 255) + bytes([rest % 255])
    block += bytes([5 << 4]) + bytes(5)
    hdr = np.array([int.from_bytes(b"rawarray", "little"), 2, 2, 1, len(block), 1, count], "<u8").tobytes()
    return hdr + bytes(block)


def test_lz4_rawarray_is_held_to_the_archive_ratio(tmp_path):
    count = 96 << 20  # past the 64 MiB grace, from about 1/255 of it: numpy's limit for .npz is 100
    data = _lz4_ra(count)
    # one verdict: the library's, so npyvalidate says the same
    cli = os.environ.get("NPYG_CLI")
    if cli:
        (tmp_path / "bomb.ra").write_bytes(data)
        r = subprocess.run([cli, "--json", str(tmp_path / "bomb.ra")], capture_output=True, timeout=60)
        assert r.returncode == 1 and json.loads(r.stdout)["error"]["code"] == NPYG_ELIMIT_RATIO, r.stdout
    assert count / len(data) > npyguard.LIMITS["max_ratio"] and count > npyguard.LIMITS["ratio_grace_bytes"]
    with pytest.raises(npyguard.LimitError) as e:
        npyguard.load(data)
    assert e.value.code == NPYG_ELIMIT_RATIO
    with pytest.raises(npyguard.LimitError):
        npyguard.load_ra(data)
    loaded = npyguard.load(data, max_ratio=1000)
    assert loaded.shape == (count,) and not loaded.any()
    del loaded


def test_copy_of_an_npzfile_closes_its_descriptor_once(tmp_path):
    path = tmp_path / "x.npz"
    np.savez(path, a=np.arange(3))
    z = npyguard.load_npz(path)
    c = copy.copy(z)
    z.close()
    r, w = os.pipe()  # takes the number the archive's descriptor had, if it were closed already
    try:
        assert np.array_equal(c["a"], np.arange(3))  # the copy still reads
        c.close()
        os.write(w, b"x")  # the unrelated pipe is open still
        assert os.read(r, 1) == b"x"
    finally:
        os.close(r)
        os.close(w)


def _zero_payload_files():
    for name, entry in sorted(MANIFEST.items()):
        if entry.get("payload_bytes") == 0 and entry.get("numpy", {}).get("verdict", "accept") == "accept":
            yield os.path.join(CORPUS, name)


def test_mmap_of_zero_payload_files_matches_numpy():
    files = list(_zero_payload_files())
    if not files:
        pytest.skip("no zero-payload file in the manifest")
    checked = 0
    for path in files:
        for mode in ("r", "c"):
            try:
                want = np.load(path, mmap_mode=mode)
                got = npyguard.load(path, mmap_mode=mode)
            except npyguard.Error:  # refused as parser/DIVERGENCES.md says: nothing to compare
                continue
            assert type(got) is type(want), path
            assert got.shape == want.shape and got.dtype == want.dtype, path
            assert got.strides == want.strides, (path, mode, got.strides, want.strides)
            for flag in ("C_CONTIGUOUS", "F_CONTIGUOUS", "WRITEABLE", "OWNDATA"):
                assert got.flags[flag] == want.flags[flag], (path, mode, flag)
            checked += 1
    assert checked


def test_npzfile_has_numpys_zip_fid_keyerror_and_closed_behaviour(tmp_path):
    path = tmp_path / "x.npz"
    np.savez(path, a=np.arange(3), b=np.ones(2))
    want = np.load(path)
    got = npyguard.load_npz(path)
    assert got.zip.namelist() == want.zip.namelist()
    assert (got.fid is None) == (want.fid is None)
    with pytest.raises(KeyError) as we:
        want["x"]
    with pytest.raises(KeyError) as ge:
        got["x"]
    assert str(ge.value) == str(we.value)
    assert ("a" in got) == ("a" in want) and ("x" in got) == ("x" in want)
    want.close()
    got.close()
    assert got.zip is None and got.fid is None and want.zip is None and want.fid is None
    # numpy answers a member of a closed archive by failing to read it
    with pytest.raises(Exception):
        "a" in want
    with pytest.raises(ValueError):
        "a" in got
    assert ("x" in got) is False


def test_load_is_typed_as_numpy_load(tmp_path):
    mypy = subprocess.run([sys.executable, "-c", "import mypy"], capture_output=True)
    if mypy.returncode:
        pytest.skip("mypy is not installed (Debian: python3-mypy)")
    example = tmp_path / "typed.py"
    example.write_text(textwrap.dedent("""
        import numpy as np
        import npyguard

        arr: np.ndarray = npyguard.load("x.npy")
        same: np.ndarray = np.load("x.npy")
        mat: dict = npyguard.load("x.mat")
        with npyguard.load_npz("x.npz") as z:
            w = z["w"]
        record: dict = npyguard.validate("x.npy")
        n: int = record["npy"]["payload_bytes"]
    """))
    r = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", str(tmp_path / "cache"),
                        "--ignore-missing-imports", str(example)], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, MYPYPATH=PKG), cwd=str(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr


# ---------------------------------------------------------------- BytesIO without a copy

def test_bytesio_from_bytes_loads_without_a_second_copy():
    # The peak resident set is reset (clear_refs 5) once the bytes exist,
    # so what the load adds is measured: the array, not a copy as well.
    out = run_child("""
    import io, numpy as np, npyguard
    def kib(field):
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) for l in f if l.startswith(field + ":")) * 1024
    n = 96 << 20
    buf = io.BytesIO(); np.save(buf, np.ones(n, np.uint8)); data = buf.getvalue(); del buf
    f = io.BytesIO(data)
    with open("/proc/self/clear_refs", "w") as c:
        c.write("5")
    before = kib("VmRSS")
    arr = npyguard.load(f)
    peak = kib("VmHWM")
    assert arr.nbytes == n and f.tell() == len(data) and arr.all()
    print(peak - before)
    """, fsize=1 << 20, timeout=120)
    grown = int(out)
    # the array itself (96 MiB), not the array plus a copy of the bytes
    assert (96 << 20) * 0.9 < grown < (96 << 20) * 1.25, grown
