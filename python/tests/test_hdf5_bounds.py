# SPDX-License-Identifier: BSD-3-Clause
"""HDF5 and MAT loads bounded by what the caller will hold.

Files are written by hdf5storage and h5py, then edited with h5py the way
an attacker would: one large gzip dataset named by 2,000 references of a
cell, or by 2,000 hard links. The load budget (max_load_bytes plus 100
bytes per byte of the file) counts every value once per path and
reference that reaches it, in the child's verdict (npyvalidate refuses
what loadmat would expand) and in this process as the values arrive and
as the decoder makes them. Expected values come from hdf5storage.loadmat
and h5py on the small variants, which stay within the budget."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import npyguard
from corpus_files import ROOT, hdf5_helper

h5py = pytest.importorskip("h5py")
hdf5storage = pytest.importorskip("hdf5storage")

HELPER = hdf5_helper()
pytestmark = pytest.mark.skipif(HELPER is None, reason="no HDF5 helper built")

LIMIT = 137  # NPYG_ELIMIT_LOAD
FANOUT = 2000
BIG = 4 << 20  # float64 elements: 32 MiB


def _cli():
    for preset in ("release", "asan"):
        p = os.path.join(ROOT, "build", preset, "parser", "npyvalidate")
        if os.access(p, os.X_OK):
            return p
    if HELPER:
        p = os.path.join(os.path.dirname(HELPER), "npyvalidate")
        if os.access(p, os.X_OK):
            return p
    return None


def cell_fanout(path, elements, refs=FANOUT):
    """A MAT file from hdf5storage.savemat whose cell 'c' is then
    rewritten to hold `refs` references to its one element, a gzip
    column of `elements` zeros."""
    c = np.empty((1, 1), dtype=object)
    c[0, 0] = np.zeros((elements, 1))
    hdf5storage.savemat(path, {"c": c}, format="7.3", compress=True)
    with h5py.File(path, "r+") as f:
        target = f["c"][0, 0]
        attrs = dict(f["c"].attrs)
        del f["c"]
        d = f.create_dataset("c", shape=(refs, 1), dtype=h5py.ref_dtype)
        d[...] = np.full((refs, 1), target, dtype=h5py.ref_dtype)
        for k, v in attrs.items():
            d.attrs[k] = v
        d.attrs["Python.Shape"] = np.array([1, refs], dtype=np.uint64)
    return path


def link_fanout(path, elements, links=FANOUT):
    """A plain HDF5 file (h5py): one gzip dataset of `elements` zeros and
    `links` more hard links to it."""
    with h5py.File(path, "w") as f:
        d = f.create_dataset("d", data=np.zeros(elements), compression="gzip", chunks=(min(elements, 1 << 16),))
        for i in range(links):
            f["l%d" % i] = d
    return path


def _limit_error(excinfo):
    e = excinfo.value
    assert isinstance(e, npyguard.LimitError), type(e)
    assert e.code == LIMIT and e.name == "NPYG_ELIMIT_LOAD", (e.code, e.name)
    assert "max_load_bytes" in str(e), str(e)


@pytest.mark.parametrize("make", [cell_fanout, link_fanout], ids=["cell-refs", "hard-links"])
def test_fanout_refused_by_npyvalidate(tmp_path, make):
    """The verdict counts what loadmat would expand: a limit, naming the
    option, before anything is loaded (npyvalidate said ok before)."""
    cli = _cli()
    if cli is None:
        pytest.skip("npyvalidate not built")
    path = make(str(tmp_path / "f.mat"), BIG)
    assert os.path.getsize(path) < 300_000
    env = dict(os.environ, NPYG_HDF5_HELPER=HELPER)
    r = subprocess.run([cli, "-q", path], capture_output=True, text=True, env=env, timeout=120)
    out = r.stdout + r.stderr
    assert r.returncode == 1 and ":/: limit: " in out and "max_load_bytes" in out, out


def _bounded(code):
    """Runs code in a fresh interpreter (the package on this one's path);
    returns what it printed and its own peak RSS in MiB."""
    tail = "\nimport resource as _r\nprint('RSS', _r.getrusage(_r.RUSAGE_SELF).ru_maxrss)\n"
    env = dict(os.environ, NPYG_HDF5_HELPER=HELPER, PYTHONPATH=os.pathsep.join(sys.path))
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code) + tail], capture_output=True, text=True,
                       env=env, timeout=180)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines and lines[-1].startswith("RSS "), r.stdout
    return "\n".join(lines[:-1]), int(lines[-1].split()[1]) / 1024


@pytest.mark.parametrize("make,fn", [(cell_fanout, "loadmat"), (link_fanout, "load_hdf5"),
                                     (link_fanout, "load")], ids=["loadmat", "load_hdf5", "load"])
def test_fanout_refused_by_the_load(tmp_path, make, fn):
    """loadmat / load_hdf5 / load refuse at the defaults with a LimitError
    instead of allocating 62.5 GiB; the caller stays small."""
    path = make(str(tmp_path / "f.mat"), BIG)
    with pytest.raises(npyguard.Error) as ei:
        getattr(npyguard, fn)(path)
    _limit_error(ei)
    out, rss = _bounded("""
        import npyguard
        try:
            npyguard.%s(%r)
        except npyguard.LimitError as e:
            print(e.code)
        """ % (fn, path))
    assert out.strip() == str(LIMIT)
    assert rss < 256, "the caller reached %d MiB" % rss


def test_cell_fanout_within_budget_is_hdf5storages_value(tmp_path):
    """The same shape of file, small enough for the budget: the value is
    hdf5storage's, and a lower max_load_bytes refuses it."""
    path = cell_fanout(str(tmp_path / "small.mat"), 2048)
    want = hdf5storage.loadmat(path)["c"]
    got = npyguard.loadmat(path)["c"]
    assert got.shape == want.shape == (1, FANOUT) and got.dtype == want.dtype
    for a, b in zip(got.flat, want.flat):
        assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    with pytest.raises(npyguard.Error) as ei:
        npyguard.loadmat(path, max_load_bytes=1 << 20)
    _limit_error(ei)


def test_link_fanout_within_budget_is_h5pys_value(tmp_path):
    path = link_fanout(str(tmp_path / "small.h5"), 16384, links=50)
    assert 51 * 16384 * 8 > (1 << 20) + 100 * os.path.getsize(path)
    got = npyguard.load_hdf5(path)
    with h5py.File(path, "r") as f:
        for name in ["d"] + ["l%d" % i for i in range(50)]:
            want = f[name][()]
            assert got["/" + name].dtype == want.dtype and np.array_equal(got["/" + name], want)
    with pytest.raises(npyguard.Error) as ei:
        npyguard.load_hdf5(path, max_load_bytes=1 << 20)
    _limit_error(ei)


def test_memory_error_is_input_error(tmp_path):
    """A value within every limit that this process cannot allocate is
    npyguard.InputError with NPYG_ENOMEM, not a bare MemoryError."""
    path = link_fanout(str(tmp_path / "one.h5"), 6 << 20, links=0)  # 48 MiB of zeros, gzip
    out, _ = _bounded("""
        import resource, numpy, npyguard
        small = %r
        npyguard.load_hdf5(small)  # the helper runs before the limit
        with open("/proc/self/status") as f:
            vm = [int(l.split()[1]) for l in f if l.startswith("VmSize")][0] << 10
        resource.setrlimit(resource.RLIMIT_AS, (vm + (24 << 20), resource.RLIM_INFINITY))
        try:
            npyguard.load_hdf5(%r)
        except npyguard.InputError as e:
            print(e.code, e.name)
        except MemoryError:
            print("MemoryError")
        """ % (link_fanout(str(tmp_path / "small.h5"), 16, links=0), path))
    assert out.strip() == "2 NPYG_ENOMEM", out


def _escape_helper():
    # the build's, beside the CLI under test ($NPYG_CLI) or the helper
    for d in (os.path.dirname(os.environ.get("NPYG_CLI", "")), os.path.dirname(HELPER)):
        p = os.path.join(d, "npyg-hdf5-helper-escape")
        if d and os.access(p, os.X_OK):
            return p
    return None


def test_child_naming_the_file_300000_times(tmp_path):
    """A compromised child that names the whole file as the value of
    300,000 datasets ends in a limit error, the parent under 256 MiB
    (load-repeat of the escape-test helper)."""
    helper = _escape_helper()
    if helper is None:
        pytest.skip("no escape-test helper built")
    with h5py.File(str(tmp_path / "plain.h5"), "w") as f:
        f["x"] = np.arange(4.0)
    with open(str(tmp_path / "plain.h5"), "rb") as f:
        h5 = f.read()
    path = str(tmp_path / "repeat.h5")
    with open(path, "wb") as f:
        f.write(b"NPYG-ESCAPE load-repeat\n".ljust(512, b"\0") + h5)
    size = os.path.getsize(path)
    out, rss = _bounded("""
        import npyguard
        from npyguard._hdf5 import load_tree
        try:
            load_tree(%r, helper=%r)
        except npyguard.Error as e:
            print(e.code, e.klass)
        """ % (path, helper))
    assert out.split() == [str(LIMIT), "limit"], out
    assert 300_000 * size > (64 << 20) + 100 * size  # the lie is past the budget
    assert rss < 256, "the parent reached %d MiB" % rss


# ------------------------------------------------- cells and references

def write_cells(path, n):
    c = np.empty((n,), dtype=object)
    for i in range(n):
        c[i] = float(i)
    hdf5storage.savemat(path, {"c": c}, format="7.3")
    return path


def test_cell_of_5000_scalars_loads(tmp_path):
    """5,000 cells were refused as a timeout: every reference was named by
    a search of the whole file (H5Rget_name) and looked up in a tuple of
    #refs#'s names. The value is hdf5storage's, whose own reading of the
    same layout at 50 cells gives the pattern."""
    small = hdf5storage.loadmat(write_cells(str(tmp_path / "c50.mat"), 50))["c"]
    got = npyguard.loadmat(write_cells(str(tmp_path / "c5000.mat"), 5000))["c"]
    assert small.shape == (50,) and got.shape == (5000,) and got.dtype == small.dtype
    kind = type(small.flat[0])
    assert all(type(x) is kind for x in small.flat) and small.tolist() == [float(i) for i in range(50)]
    assert all(type(x) is kind for x in got.flat) and got.tolist() == [float(i) for i in range(5000)]


def test_reference_names_are_libhdf5s(tmp_path):
    """A reference is sent as the path libhdf5 gives it (h5py's
    f[ref].name), also when the object has several hard links and when
    it is a group."""
    path = str(tmp_path / "refs.h5")
    with h5py.File(path, "w") as f:
        g = f.create_group("b/inner")
        d = g.create_dataset("x", data=np.arange(3))
        f["a_first"] = d  # a second hard link, first in name order
        f["z"] = d
        f.create_group("#refs#").create_dataset("y", data=1.0)
        refs = [d.ref, f["#refs#/y"].ref, g.ref, f["b"].ref]
        f.create_dataset("r", data=np.array(refs, dtype=h5py.ref_dtype))
    with h5py.File(path, "r") as f:
        want = [f[r].name for r in f["r"][()]]
    got = npyguard.load_hdf5(path)["/r"]
    assert [str(x) for x in got.flat] == want


# --------------------------------------------------------------- char text

def char_column(path, n, text=None, row=False):
    """A MATLAB char column as MATLAB lays it out: uint16 code units of
    shape (1, n), MATLAB_class 'char', gzip, added with h5py to a MAT
    file hdf5storage.savemat wrote."""
    units = np.full((1, n), ord("a"), dtype=np.uint16) if text is None else \
        np.frombuffer(text.encode("utf-16-le"), dtype="<u2").reshape((-1, 1) if row else (1, -1))
    hdf5storage.savemat(path, {"other": 1.0}, format="7.3")
    with h5py.File(path, "r+") as f:
        d = f.create_dataset("s", data=units, compression="gzip", chunks=(min(units.shape[0], 1 << 16),
                                                                          min(units.shape[1], 1 << 16)))
        d.attrs["MATLAB_class"] = np.bytes_("char")
    return path


def test_char_values_are_hdf5storages(tmp_path):
    """Rows of UTF-16 with a byte-order mark, surrogate pairs and plain
    text decode as hdf5storage decodes them; a row hdf5storage cannot
    decode (half a surrogate pair) leaves the variable out, as loadmat
    does. Both layouts: one string per unit and one string of all."""
    texts = ["hello", "h\u00e9llo \U0001F600 x", "\ufeffabc", "\ufffeab", "a\x00b"]
    for i, (text, row) in enumerate([(t, r) for t in texts for r in (False, True)]):
        path = char_column(str(tmp_path / ("t%d.mat" % i)), 0, text, row)
        want = hdf5storage.loadmat(path)
        got = npyguard.loadmat(path)
        assert set(got) == set(want), (text, row, set(want))
        if "s" in want:
            a, b = got["s"], want["s"]
            assert a.dtype == b.dtype and a.shape == b.shape and a.tolist() == b.tolist(), (text, row)


def test_char_column_of_30_million_is_linear(tmp_path):
    """A 30-million-element char column (a 66 KB file) decoded in numpy
    operations, not one Python call per character (it ran for minutes);
    the run is bounded by a generous timeout only, and the decoded size
    is counted by the load budget (refused at the defaults)."""
    path = char_column(str(tmp_path / "col.mat"), 30_000_000)
    assert os.path.getsize(path) < 200_000
    with pytest.raises(npyguard.LimitError) as ei:
        npyguard.loadmat(path)
    _limit_error(ei)
    out, _ = _bounded("""
        import npyguard
        s = npyguard.loadmat(%r, max_load_bytes=1 << 30)["s"]
        print(s.shape, s.dtype, s[0], s[-1])
        """ % path)
    # hdf5storage: each of the n rows of the transposed (n, 1) units is a string of one
    assert out.strip() == "(30000000, 1) <U1 ['a'] ['a']", out


# ------------------------------------------------------------ cost per file

def test_a_small_file_libhdf5_loops_on_gets_its_share():
    """A 9.5 KB file on which libhdf5 loops (a fuzzer's find) cost 20 s
    of CPU, up to 60 s of wall clock, at the defaults, and was 'unsafe'.
    Its share of the limits, by its size, is now at most 5 s; the verdict
    is a limit that names the option raising it."""
    cli = _cli()
    if cli is None:
        pytest.skip("npyvalidate not built")
    path = os.path.join(ROOT, "corpus", "fuzz-regressions", "hdf5-global-heap-libhdf5-loop.h5")
    env = dict(os.environ, NPYG_HDF5_HELPER=HELPER)
    r = subprocess.run([cli, "--json", path], capture_output=True, text=True, env=env, timeout=120)
    import json
    import re
    err = json.loads(r.stdout)["error"]
    assert r.returncode == 1 and (err["code"], err["name"], err["class"]) == (117, "NPYG_EHDF5_TIMEOUT", "limit"), err
    m = re.match(r"the HDF5 library (?:ran longer than|used more than) (\d+) s .*raise (hdf5_wall_seconds|hdf5_cpu_seconds)",
                 err["message"])
    assert m and int(m.group(1)) <= 5, err["message"]
