# SPDX-License-Identifier: BSD-3-Clause
"""HDF5 and MAT v7.3 files loaded through npyguard's sandbox, held to h5py.

The expected tree of every file is the one h5py itself reads
(h5tree_h5py.tree_from_h5py); the refusals are the hazards
gen/gen_hdf5.py recorded in corpus/hdf5/manifest.json.
"""
import glob
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import npyguard
from npyguard._h5tree import Empty, Node, Ref, tree_differences

from corpus_files import CORPUS, ROOT, manifest, hdf5_helper

h5py = pytest.importorskip("h5py")
from h5tree_h5py import tree_from_h5py  # noqa: E402  (needs h5py)




HELPER = hdf5_helper()
pytestmark = pytest.mark.skipif(HELPER is None, reason="no npyg-hdf5-helper built (set NPYG_HDF5_HELPER)")

HDF5 = os.path.join(CORPUS, "hdf5")


def load(path, **kw):
    return npyguard.load_tree(path, helper=HELPER, **kw)


def _files(*parts):
    return sorted(p for p in glob.glob(os.path.join(HDF5, *parts, "**", "*"), recursive=True) if os.path.isfile(p))


def test_every_valid_file_equals_h5py():
    files = sorted(_files("valid") + _files("matlab", "valid"))
    listed = [k for k in manifest("hdf5") if k.startswith("valid/")]
    listed += ["matlab/" + k for k in manifest("hdf5", "matlab") if k.startswith("valid/")]
    assert sorted(os.path.join(HDF5, k) for k in listed) == files
    equal = []
    for f in files:
        d = tree_differences(load(f), tree_from_h5py(f))
        assert d == [], (f, d[:5])
        equal.append(f)
    assert len(equal) == len(files) == 124


def test_mapping_equals_h5py_datasets():
    for f in _files("valid", "h5"):
        m = npyguard.load_hdf5_mapping(f, helper=HELPER)
        with h5py.File(f, "r") as h:
            names = []
            h.visititems(lambda n, o: names.append("/" + n) if isinstance(o, h5py.Dataset) else None)
            assert sorted(m) == sorted(names), f
            for n in names:
                want = h[n][()]
                got = m[n]
                if h5py.check_ref_dtype(h[n].dtype):
                    assert [str(r) for r in np.ravel(got)] == [h[x].name if x else "" for x in np.ravel(want)]
                    continue
                if isinstance(want, h5py.Empty):
                    assert isinstance(got, Empty) and got.dtype == want.dtype, (f, n)
                    continue
                _same(got, want, (f, n))
        with pytest.raises(TypeError):
            m["/x"] = 1


HAZARDS = {k: v for k, v in manifest("hdf5").items() if k.split("/")[0] in ("hazard", "invalid")}


@pytest.mark.parametrize("name", sorted(HAZARDS))
def test_hazards_and_invalid_files_refused(name):
    entry = HAZARDS[name]
    path = os.path.join(HDF5, name)
    codes = {c for c, _ in entry["hazards"]} or {entry["error"]}
    # storage-format contradictions refuse under the strict profile only
    strict = codes == {128}
    if strict:
        tree = load(path, **entry.get("limits", {}))
        assert tree["/"].kind == "group"
    with pytest.raises(npyguard.Error) as e:
        load(path, strict=strict, **entry.get("limits", {}))
    assert e.value.code in codes, (name, e.value.code, str(e.value))
    paths = [p for _, p in entry["hazards"]]
    if paths:
        assert any(str(e.value).startswith(p + ":") or (p + ":") in str(e.value) for p in paths), str(e.value)


# ---------------------------------------------------------------- files h5py writes here

def _write(path):
    """Types and layouts the corpus lacks: pieces, soft links, null
    dataspaces, byte orders, vlen datasets, enums, opaque data."""
    with h5py.File(path, "w") as f:
        # 3-d, one row of 2 MiB: sent in runs inside a row
        f["big"] = np.arange(3 * 2 * 131072, dtype="<f8").reshape(3, 2, 131072)
        # 2-d, small rows, 5 MiB: runs of whole rows; chunked and deflated
        f.create_dataset("rows", data=np.arange(5 * 2 ** 20 // 4, dtype=">i4").reshape(-1, 64), chunks=(512, 64),
                         compression="gzip")
        f["be_float"] = np.linspace(0, 1, 7).astype(">f4")
        f["u2"] = np.array([1, 2, 65535], dtype="<u2")
        f["zero"] = np.zeros((0, 4), dtype="<i8")
        f["scalar"] = np.float64(2.5)
        f["fixed"] = np.array([b"ab", b"c", b""], dtype="S3")
        f["fixed_scalar"] = np.bytes_(b"xyz")
        f["vstr"] = np.array([b"one", b"", "\u00e9t\u00e9".encode()] * 50000, dtype=h5py.string_dtype("utf-8"))
        f["vstr_ascii"] = np.array([b"a", b"bc"], dtype=h5py.string_dtype("ascii"))
        seq = np.empty(4, dtype=object)
        for i in range(4):
            seq[i] = np.arange(i, dtype="<i4")
        f.create_dataset("vint", data=seq, dtype=h5py.vlen_dtype(np.dtype("<i4")))
        f["bool"] = np.array([True, False, True])
        f.create_dataset("enum", data=np.array([0, 2, 1], dtype="u1"),
                         dtype=h5py.enum_dtype({"RED": 0, "GREEN": 1, "BLUE": 2}, basetype="u1"))
        f["opaque"] = np.array([b"\x01\x02\x03"], dtype="V3")
        f["complex"] = np.array([1 + 2j, 3 - 4j], dtype="<c16")
        f["nested"] = np.zeros(2, dtype=[("a", "<i2"), ("b", [("x", "<f4"), ("y", "S2")])])
        f.create_dataset("null", data=h5py.Empty("<f8"))
        g = f.create_group("g \u00fc/sub")
        g["d"] = np.arange(3, dtype="i1")
        g.attrs["null"] = h5py.Empty("<i4")
        g.attrs["vs"] = "caf\u00e9"
        g.attrs["arr"] = np.array([[1, 2], [3, 4]], dtype=">i8")
        f["soft"] = h5py.SoftLink("/g \u00fc/sub/d")
        f["hard"] = f["g \u00fc/sub/d"]
        refs = f.create_dataset("refs", (3,), dtype=h5py.ref_dtype)
        refs[0] = f["big"].ref
        refs[1] = f["g \u00fc/sub"].ref
        refs[2] = f["hard"].ref
        f.attrs["ref"] = f["scalar"].ref


def test_written_types_equal_h5py(tmp_path):
    path = str(tmp_path / "types.h5")
    _write(path)
    tree = load(path)
    assert tree_differences(tree, tree_from_h5py(path)) == []
    assert tree["/soft"].kind == "link" and tree["/soft"].value == "/g \u00fc/sub/d"
    assert isinstance(tree["/null"].value, Empty) and tree["/null"].value.dtype == np.dtype("<f8")
    assert tree["/refs"].value.tolist() == [Ref("/big"), Ref("/g \u00fc/sub"), Ref("/g \u00fc/sub/d")]
    assert tree["/vstr"].value[2] == "\u00e9t\u00e9".encode() and tree["/vstr"].cset == "utf-8"
    assert tree["/big"].value.shape == (3, 2, 131072)


@pytest.mark.skipif(np.finfo(np.longdouble).nmant != 63, reason="numpy's long double is not x87 extended")
def test_long_double_padding_is_not_part_of_the_value(tmp_path):
    # A 16-bit big-endian float with an 11-bit exponent (bias 845) and a
    # 2-bit mantissa at bit 1: too wide for float64, so h5py reads it as
    # '>f16', an x87 extended value in 16 bytes of which 6 are padding that
    # HDF5's conversion leaves as it finds them. 0x1ae8 is 2**(861 - 845).
    from h5py import h5d, h5s, h5t
    t = h5t.IEEE_F32BE.copy()
    t.set_fields(15, 3, 11, 1, 2)
    t.set_precision(16)
    t.set_size(2)
    t.set_ebias(845)
    path = str(tmp_path / "f16.h5")
    with h5py.File(path, "w") as f:
        d = h5d.create(f.id, b"v", t, h5s.create(h5s.SCALAR))
        d.write(h5s.ALL, h5s.ALL, np.frombuffer(bytes.fromhex("1ae8"), dtype="u1"), mtype=t)
    with h5py.File(path, "r") as f:
        assert f["v"].dtype == np.dtype(">f16") and f["v"][()] == 2.0 ** 16
    assert tree_differences(load(path), tree_from_h5py(path)) == []
    # x87 65536.0: sign and exponent 0x400f, significand 0x8000000000000000
    x87 = "400f8000000000000000"
    value = np.frombuffer(bytes.fromhex("000000000000" + x87), dtype=">f16")
    assert value[0] == 2.0 ** 16
    node = lambda hex_: {"/v": Node("dataset", value=np.frombuffer(bytes.fromhex(hex_), dtype=">f16"))}
    assert tree_differences(node("000000000000" + x87), node("00000000ffff" + x87)) == []
    assert tree_differences(node("000000000000" + x87), node("000000000000" + x87[:-1] + "1")) == [
        "/v: values differ"]


def test_payload_limit_names_the_path(tmp_path):
    path = str(tmp_path / "limit.h5")
    with h5py.File(path, "w") as f:
        f["small"] = np.arange(4)
        f["large"] = np.arange(4096, dtype="<f8")
    with pytest.raises(npyguard.LimitError, match="/large"):
        load(path, max_payload_bytes=1000)


def test_unloaded_type_names_the_path(tmp_path):
    path = str(tmp_path / "subarray.h5")
    with h5py.File(path, "w") as f:
        f["ok"] = np.arange(3)
        f["sub"] = np.zeros(2, dtype=[("a", "<i4", (2,))])
    with pytest.raises(npyguard.Hdf5Error, match=": /sub: "):
        load(path)


def test_descriptor_and_file_object(tmp_path):
    src = os.path.join(HDF5, "valid", "mat", "dict.mat")
    with open(src, "rb") as fh:
        a = npyguard.load_tree(fh, helper=HELPER)
    fd = os.open(src, os.O_RDONLY)
    try:
        b = npyguard.load_tree(fd, helper=HELPER)
    finally:
        os.close(fd)
    assert tree_differences(a, b) == [] and tree_differences(a, tree_from_h5py(src)) == []


def test_swapped_file_is_not_reopened(tmp_path):
    """The file is read once, through the descriptor given: replacing the
    path afterwards changes nothing."""
    src = os.path.join(HDF5, "valid", "mat", "dict.mat")
    path = str(tmp_path / "x.mat")
    shutil.copy(src, path)
    with open(path, "rb") as fh:
        os.unlink(path)
        shutil.copy(os.path.join(HDF5, "valid", "mat", "complex.mat"), path)
        tree = npyguard.load_tree(fh, helper=HELPER)
    assert tree_differences(tree, tree_from_h5py(src)) == []


def test_parser_limits_apply_to_each_value():
    """Each value's .npy header goes through the context's own limits."""
    src = os.path.join(HDF5, "valid", "mat", "dict.mat")
    with pytest.raises(npyguard.LimitError) as e:
        load(src, max_dims=1)  # /v/a is the first value with 2 dimensions
    assert e.value.code == 51 and "/v/a:" in str(e.value)
    with pytest.raises(npyguard.LimitError) as e:
        load(src, max_header_bytes=100)  # every header here is 118 bytes
    assert e.value.code == 50 and ": /v@" in str(e.value)
    assert tree_differences(load(src, max_dims=2, max_header_bytes=118), tree_from_h5py(src)) == []


def test_child_memory_bounded_by_the_limit_not_the_dataset(tmp_path):
    """A 40 MiB dataset loads through a child allowed 16 MiB of data
    memory (RLIMIT_DATA over its start; hdf5_cli_child_memory shows the
    limit bites): the child reads and sends it in runs."""
    path = str(tmp_path / "large.h5")
    with h5py.File(path, "w") as f:
        f["x"] = np.arange(5 << 20, dtype="<f8")
    m = npyguard.load_hdf5_mapping(path, helper=HELPER, hdf5_memory_bytes=16 << 20)
    assert m["/x"].shape == (5 << 20,) and np.array_equal(m["/x"], np.arange(5 << 20, dtype="<f8"))


def test_datasets_read_in_runs_equal_h5py(tmp_path):
    """Datasets of several MiB and ranks, chunked and compressed or not,
    read by the child in runs of whole rows (or of one row's elements):
    each equals h5py's ds[()]."""
    path = str(tmp_path / "runs.h5")
    rng = np.random.default_rng(5)
    with h5py.File(path, "w") as f:
        f.create_dataset("a", data=rng.standard_normal((300, 700, 3)), chunks=(7, 100, 3), compression="gzip")
        f.create_dataset("b", data=rng.integers(0, 1 << 30, (3, 400000), dtype="<i4"), chunks=(1, 65536))
        f.create_dataset("c", data=rng.standard_normal((1 << 19, 1)), chunks=(8192, 1), compression="gzip",
                         fletcher32=True)
        f.create_dataset("d", data=rng.integers(0, 255, (5, 3, 300000), dtype="u1"))
    m = npyguard.load_hdf5_mapping(path, helper=HELPER, hdf5_memory_bytes=16 << 20)
    with h5py.File(path, "r") as f:
        for k in "abcd":
            want = f[k][()]
            assert m["/" + k].dtype == want.dtype and m["/" + k].shape == want.shape, k
            assert np.array_equal(m["/" + k], want), k


def test_loads_from_threads():
    """The load waits for the child without the GIL; loads from several
    threads at once each get their own file's tree."""
    import threading
    files = _files("valid", "mat")[:20]
    want = {f: tree_from_h5py(f) for f in files}
    wrong = []

    def work(order):
        for f in order:
            if tree_differences(load(f), want[f]):
                wrong.append(f)

    threads = [threading.Thread(target=work, args=(files[k:] + files[:k],)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == [] and len(files) == 20


def test_helper_spawned_by_an_ended_thread_still_serves():
    """The helper of the kept context is spawned by whichever thread loads
    first; when that thread ends, the next load from another thread finds
    it serving (a parent-death signal would follow the thread, and the
    next load failed with 'Connection reset by peer' or 'Protocol
    error')."""
    import threading
    files = _files("valid", "mat")[:2]
    want = tree_from_h5py(files[1])
    for k in range(5):
        # limits of their own: a context, so a helper, made in the thread
        lim = {"hdf5_memory_bytes": (256 << 20) + (k << 20)}
        t = threading.Thread(target=load, args=(files[0],), kwargs=lim)
        t.start()
        t.join()
        assert tree_differences(load(files[1], **lim), want) == []


HELPER_OUTLIVES = r"""
import os, sys, time
sys.path[:0] = sys.argv[2:]
import npyguard
npyguard.load_tree(sys.argv[1], helper=os.environ["NPYG_HDF5_HELPER"])
def parent(pid):
    try:
        return open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()[1]
    except OSError:  # ended since the listing
        return None
helpers = [p for p in os.listdir("/proc") if p.isdigit() and parent(p) == str(os.getpid())]
if os.fork() == 0:  # holds the helper's socket after its parent is gone
    os.close(1)
    os.close(2)
    time.sleep(3)
    os._exit(0)
print(" ".join(helpers), flush=True)
os._exit(0)
"""


def test_helper_ends_with_its_parent_process(tmp_path):
    """The helper ends when its parent process does, even while a forked
    child of the parent keeps the helper's socket open."""
    import subprocess
    import time
    f = _files("valid", "mat")[0]
    env = dict(os.environ, NPYG_HDF5_HELPER=HELPER)
    out = subprocess.run([sys.executable, "-c", HELPER_OUTLIVES, f] + sys.path, env=env, capture_output=True,
                         text=True, timeout=60)
    pids = out.stdout.split()
    assert pids, out.stderr

    def alive(pid):
        try:
            return open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False
    deadline = time.monotonic() + 2
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not any(alive(p) for p in pids)


def test_read_failure_mid_value_names_the_path(tmp_path):
    """A deflated chunk whose bytes are garbage passes the walk (it reads
    no raw data) and fails libhdf5's read in the load: the child finishes
    the value it promised with zeros and reports the failure, which the
    parent raises with the path; nothing of the file is returned."""
    path = str(tmp_path / "bad-chunk.h5")
    with h5py.File(path, "w") as f:
        f["a"] = np.arange(3)
        d = f.create_dataset("z", data=np.arange(1 << 16, dtype="<f8").reshape(256, 256), chunks=(64, 256),
                             compression="gzip")
        info = d.id.get_chunk_info(2)
    with open(path, "r+b") as fh:
        fh.seek(info.byte_offset + 8)
        fh.write(b"\xff" * 64)
    with pytest.raises(npyguard.Hdf5Error) as e:
        load(path)
    assert e.value.code == 119 and ": /z: libhdf5 cannot read the dataset" in str(e.value)


# ------------------------------------------------ the reader's value

def _npyvalidate():
    """The CLI under test ($NPYG_CLI), else the one built beside the helper."""
    p = os.environ.get("NPYG_CLI") or os.path.join(os.path.dirname(HELPER), "npyvalidate")
    assert os.access(p, os.X_OK), p
    return p


def _odd_types():
    """(name, stored type, numpy values written through it): integer and
    float layouts that equal no standard type, made with h5py.h5t."""
    t = h5py.h5t
    out = []
    i12 = t.STD_I32LE.copy()          # MATLAB's int32 column, 12 bits at bit 4
    i12.set_precision(12)
    i12.set_offset(4)
    out.append(("i12", i12, np.array([1, -1, 100, 2047], "<i4")))
    u10 = t.STD_U16BE.copy()          # pad bits set to one
    u10.set_precision(10)
    u10.set_offset(3)
    u10.set_pad(t.PAD_ONE, t.PAD_ONE)
    out.append(("u10", u10, np.array([1, 2, 1000, 0], ">u2")))
    i8 = t.STD_I64BE.copy()
    i8.set_precision(40)
    i8.set_offset(16)
    out.append(("i40", i8, np.array([-(1 << 39), 5, (1 << 39) - 1], ">i8")))
    fb = t.IEEE_F32LE.copy()          # own exponent bias
    fb.set_ebias(100)
    out.append(("fbias", fb, np.array([1.5, -2.0, 3.25, 0.0], "<f4")))
    fm = t.IEEE_F64BE.copy()          # a 40-bit mantissa in 64 bits
    fm.set_fields(63, 52, 11, 12, 40)
    out.append(("fnarrow", fm, np.array([1.5, -2.0, 1e300, 0.1], ">f8")))
    return out


def _write_odd(path, chunked=False):
    with h5py.File(path, "w") as f:
        for name, tid, values in _odd_types():
            space = h5py.h5s.create_simple(values.shape)
            dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
            if chunked:
                dcpl.set_chunk((2,))
                dcpl.set_deflate(6)
            ds = h5py.h5d.create(f.id, name.encode(), tid, space, dcpl=dcpl)
            ds.write(h5py.h5s.ALL, h5py.h5s.ALL, values)
            aid = h5py.h5a.create(f.id, name.encode(), tid, space)
            aid.write(values)


@pytest.mark.parametrize("chunked", [False, True])
def test_nonstandard_layouts_are_converted_as_h5py_reads_them(tmp_path, chunked):
    """Integers with fewer bits than bytes, at an offset, with pad bits
    set; floats with their own bias or fields: the values are h5py's
    (libhdf5's conversion to the dtype h5py gives), never raw bytes."""
    path = str(tmp_path / "odd.h5")
    _write_odd(path, chunked)
    tree = load(path)
    assert tree_differences(tree, tree_from_h5py(path)) == []
    with h5py.File(path, "r") as f:
        for name, _, _ in _odd_types():
            want = f[name][()]
            got = tree["/" + name].value
            assert got.dtype.str == want.dtype.str and got.tolist() == want.tolist(), name
            assert tree["/"].attrs[name].tolist() == f.attrs[name].tolist(), name
    assert tree["/i12"].value.tolist() == [1, -1, 100, 2047]
    m = npyguard.load_hdf5(path, helper=HELPER)
    assert m["/fbias"].dtype.str == "<f8" and m["/fbias"].tolist() == [1.5, -2.0, 3.25, 0.0]


def test_long_float_layout_loads_as_h5py_longdouble(tmp_path):
    """A float whose exponent no float64 holds: h5py gives longdouble."""
    path = str(tmp_path / "wide.h5")
    wide = h5py.h5t.IEEE_F64LE.copy()
    wide.set_fields(63, 48, 15, 0, 48)
    wide.set_ebias(16383)
    with h5py.File(path, "w") as f:
        space = h5py.h5s.create_simple((3,))
        ds = h5py.h5d.create(f.id, b"w", wide, space)
        ds.write(h5py.h5s.ALL, h5py.h5s.ALL, np.array([1.5, -2.0, 1e300]))
    with h5py.File(path, "r") as f:
        want = f["w"][()]
    got = npyguard.load_hdf5(path, helper=HELPER)["/w"]
    assert got.dtype == want.dtype and got.tolist() == want.tolist()


def _odd_mat(path):
    """hdf5storage.savemat's file, its int32 column rewritten with 12
    significant bits at bit 4 and its Python.Shape/MATLAB_class kept."""
    hdf5storage = pytest.importorskip("hdf5storage")
    hdf5storage.savemat(path, {"a": np.array([[1], [-1], [100], [2047]], dtype=np.int32)})
    with h5py.File(path, "a") as f:
        attrs = {k: (f["a"].attrs.get_id(k).get_type(), f["a"].attrs[k]) for k in f["a"].attrs}
        values = f["a"][()]
        del f["a"]
        i12 = h5py.h5t.STD_I32LE.copy()
        i12.set_precision(12)
        i12.set_offset(4)
        ds = h5py.h5d.create(f.id, b"a", i12, h5py.h5s.create_simple(values.shape))
        ds.write(h5py.h5s.ALL, h5py.h5s.ALL, np.ascontiguousarray(values, dtype="<i4"))
        for k, (tid, v) in attrs.items():
            f["a"].attrs.create(k, v, dtype=tid.dtype) if tid.get_class() != h5py.h5t.STRING else None
            if tid.get_class() == h5py.h5t.STRING:
                aid = h5py.h5a.create(ds, k.encode(), tid, h5py.h5s.create(h5py.h5s.SCALAR)
                                      if np.ndim(v) == 0 else h5py.h5s.create_simple(np.shape(v)))
                aid.write(np.asarray(v, dtype=tid.dtype))


def test_matlab_int32_with_12_bit_precision_equals_loadmat(tmp_path):
    hdf5storage = pytest.importorskip("hdf5storage")
    path = str(tmp_path / "odd.mat")
    _odd_mat(path)
    want = hdf5storage.loadmat(path)["a"]
    got = npyguard.loadmat(path, helper=HELPER)["a"]
    assert want.ravel().tolist() == [1, -1, 100, 2047]
    assert got.dtype == want.dtype and got.shape == want.shape and got.tolist() == want.tolist()


def test_odd_attributes_read_as_hdf5storage_reads_them(tmp_path):
    """Python.Shape as 20-bit integers at bit 8 of uint64 and Python.Empty
    as one bit at bit 2 of a byte: the decoder gets the values
    hdf5storage.read gets (an empty (0, 3) int16 array)."""
    hdf5storage = pytest.importorskip("hdf5storage")
    path = str(tmp_path / "shape.h5")
    hdf5storage.write(np.zeros((0, 3), dtype=np.int16), path="/x", filename=path, matlab_compatible=False)
    with h5py.File(path, "a") as f:
        x = f["x"]
        shape, empty = x.attrs["Python.Shape"], x.attrs["Python.Empty"]
        del x.attrs["Python.Shape"], x.attrs["Python.Empty"]
        odd = h5py.h5t.STD_U64LE.copy()
        odd.set_precision(20)
        odd.set_offset(8)
        h5py.h5a.create(x.id, b"Python.Shape", odd, h5py.h5s.create_simple(shape.shape)).write(
            np.asarray(shape, dtype="<u8"))
        bit = h5py.h5t.STD_U8LE.copy()
        bit.set_precision(1)
        bit.set_offset(2)
        h5py.h5a.create(x.id, b"Python.Empty", bit, h5py.h5s.create(h5py.h5s.SCALAR)).write(
            np.asarray(empty, dtype="u1"))
    want = hdf5storage.read(path="/x", filename=path)
    got = npyguard.load_hdf5(path, "/x", helper=HELPER)
    assert want.shape == (0, 3) and want.dtype == np.int16
    assert got.dtype == want.dtype and got.shape == want.shape


def test_strict_refuses_layouts_no_writer_produces(tmp_path):
    npyvalidate = _npyvalidate()
    for chunked in (False, True):
        path = str(tmp_path / ("odd%d.h5" % chunked))
        _write_odd(path, chunked)
        strict = subprocess.run([npyvalidate, "--strict", path], capture_output=True, text=True)
        assert strict.returncode != 0 and "i12" in strict.stdout + strict.stderr, strict.stdout
        lax = subprocess.run([npyvalidate, path], capture_output=True, text=True)
        assert lax.returncode == 0, lax.stdout + lax.stderr
    mat = str(tmp_path / "odd.mat")
    _odd_mat(mat)
    assert subprocess.run([npyvalidate, "--strict", mat], capture_output=True).returncode != 0
    plain = str(tmp_path / "plain.h5")
    _write(plain)
    assert subprocess.run([npyvalidate, "--strict", plain], capture_output=True).returncode == 0


# every (shape, type) pair h5py writes, scalar included
SHAPES = [(), (1,), (0,), (1, 1), (3,)]
KINDS = {
    "vstr": lambda n: np.array(["h\u00e9llo", "", "x"] * n, dtype=h5py.string_dtype("utf-8"))[:n],
    "vstr_ascii": lambda n: np.array([b"hello", b"", b"x"] * n, dtype=h5py.string_dtype("ascii"))[:n],
    "bytes": lambda n: np.array([b"ab", b"", b"c"] * n, dtype="S2")[:n],
    "int16": lambda n: np.arange(n, dtype="<i2") - 1,
    "uint64be": lambda n: np.arange(n, dtype=">u8") + 7,
    "float32": lambda n: np.arange(n, dtype="<f4") / 3,
    "float64be": lambda n: np.arange(n, dtype=">f8") / 7,
    "bool": lambda n: np.arange(n) % 2 == 0,
    "complex": lambda n: np.arange(n, dtype="<c16") * (1 + 2j),
    "compound": lambda n: np.array([(i, b"k") for i in range(n)], dtype=[("a", "<i4"), ("b", "S1")]),
    "vint": lambda n: np.array([np.arange(i + 1, dtype="<i4") for i in range(n)] + [None], dtype=object)[:n],
    "enum": lambda n: np.array([0, 2, 1] * n, dtype=h5py.enum_dtype({"R": 0, "G": 1, "B": 2}, basetype="<i2"))[:n],
    "opaque": lambda n: np.array([b"\x01\x02\x03"] * n, dtype="V3"),
}


def _shaped(kind, shape):
    n = int(np.prod(shape))
    flat = KINDS[kind](n)
    if kind == "vint":
        out = np.empty(shape, dtype=object)
        for i, ix in enumerate(np.ndindex(shape)):
            out[ix] = flat[i]
        return out, h5py.vlen_dtype(np.dtype("<i4"))
    return flat.reshape(shape), flat.dtype


def _write_shapes(path, kinds=tuple(KINDS)):
    with h5py.File(path, "w") as f:
        for kind in kinds:
            for shape in SHAPES:
                data, dtype = _shaped(kind, shape)
                f.create_dataset("%s_%s" % (kind, "x".join(map(str, shape)) or "scalar"), shape=shape,
                                 dtype=dtype, data=data)
        f["a"] = "hello"   # h5py's own scalar string


def _same(got, want, where):
    assert type(got) is type(want), (where, type(got), type(want))
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape, (where, got.dtype, want.dtype, got.shape)
        if want.dtype.hasobject:
            for x, y in zip(got.ravel(), want.ravel()):
                _same(x, y, where)
        else:
            assert got.tobytes() == want.tobytes(), where
    elif isinstance(want, np.generic):
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), where
    else:
        assert got == want, where


def test_every_shape_of_every_type_loads_as_h5py_gives_it(tmp_path):
    """Scalar, (1,), (0,), (1, 1) and (n,) of each type h5py writes, the
    variable-length string of one element included: load_hdf5 and load
    give h5py's ds[()] with its type (a numpy scalar, bytes for a scalar
    string)."""
    path = str(tmp_path / "shapes.h5")
    _write_shapes(path)
    whole = npyguard.load_hdf5(path, helper=HELPER)
    via_load = npyguard.load(path)
    with h5py.File(path, "r") as f:
        names = list(f)
        assert len(names) == len(KINDS) * len(SHAPES) + 1
        for name in names:
            want = f[name][()]
            _same(whole["/" + name], want, name)
            _same(via_load["/" + name], want, name)
            _same(npyguard.load_hdf5(path, "/" + name, helper=HELPER), want, name)
    assert isinstance(whole["/int16_scalar"], np.int16)
    assert whole["/a"] == b"hello"


def test_every_shape_of_every_type_extracts(tmp_path):
    """npyvalidate --extract writes each of them, as h5py reads it (but
    the vlen sequences, which .npy holds only as pickles: refused)."""
    path = str(tmp_path / "shapes.h5")
    _write_shapes(path, [k for k in KINDS if k != "vint"])
    out = str(tmp_path / "out.npz")
    r = subprocess.run([_npyvalidate(), "--extract", out, path], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    with np.load(out, allow_pickle=False) as z, h5py.File(path, "r") as f:
        assert sorted(z.files) == sorted(f)
        for name in f:
            want = np.asarray(f[name][()])
            if h5py.check_string_dtype(f[name].dtype) and h5py.check_string_dtype(f[name].dtype).length is None:
                items = [x if isinstance(x, bytes) else x.encode() for x in want.ravel().tolist()]
                want = np.array(items, dtype="S%d" % max([1] + [len(i) for i in items])).reshape(want.shape)
            got = z[name]
            assert got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes(), name


def test_compound_h5py_reads_through_overlapping_fields_is_refused(tmp_path):
    """A compound whose 2-byte float member h5py reads as a larger float
    at the stored offsets: h5py's dtype has overlapping fields (reading
    it corrupts h5py's heap), so npyvalidate and the load refuse it."""
    path = str(tmp_path / "overlap.h5")
    half = h5py.h5t.IEEE_F32LE.copy()
    half.set_fields(15, 10, 5, 0, 10)
    half.set_size(2)
    half.set_ebias(7)        # a bias no float16 has: h5py reads float32
    ctid = h5py.h5t.create(h5py.h5t.COMPOUND, 10)
    ctid.insert(b"a", 0, half)
    ctid.insert(b"b", 2, h5py.h5t.STD_U64LE)
    with h5py.File(path, "w") as f:
        h5py.h5d.create(f.id, b"v", ctid, h5py.h5s.create_simple((3,)))
    with h5py.File(path, "r") as f:
        dt = f["v"].dtype
    assert dt.fields["a"][1] + dt.fields["a"][0].itemsize > dt.fields["b"][1]   # h5py's own dtype overlaps
    r = subprocess.run([_npyvalidate(), path], capture_output=True, text=True)
    assert r.returncode == 1 and "/v" in r.stdout and "overlapping" in r.stdout, r.stdout
    with pytest.raises(npyguard.Error, match="/v"):
        npyguard.load_hdf5(path, helper=HELPER)
