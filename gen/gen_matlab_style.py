#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write corpus/hdf5/matlab/: MAT v7.3 files laid out as MATLAB itself
writes them, and files whose hdf5storage attributes a reader cannot take
at their word; with their manifest.

Usage: /usr/bin/python3 gen/gen_matlab_style.py [OUTDIR]  (default: corpus/hdf5/matlab next to gen/)

Groups under OUTDIR:
  valid/     written with h5py by MATLAB's conventions (corpus/hdf5/README.md,
             "MATLAB's own conventions", measured on files MATLAB wrote):
             the 512-byte MAT header in the user block, H5PATH as MATLAB
             sets it, char as UTF-16 code units, logical as uint8, empty
             values as their dimensions, cells and struct arrays as
             references into /#refs#, sparse matrices as groups, classdef
             objects (MATLAB_object_decode 3) with /#subsystem#/MCOS;
             and one hdf5storage file whose string attributes are UTF-8
             (h5py's default for str)
  findings/  one object each whose attributes make a reader misread or
             fail: npyguard warns there (numpy profile) and refuses the
             file with NPYG_EHDF5_FORMAT under --strict
and OUTDIR/manifest.json, and the last section of OUTDIR/../README.md,
"MATLAB's own conventions" (gen_hdf5.py writes the rest of that page: run
this after it). The manifest holds, for every file, the object the
finding must name (none for valid files) and what hdf5storage returns for
each variable (loadmat for .mat, read for .h5: dtype, shape, SHA-256 of
the bytes, small values inline), measured in a child process (2 GiB
address space, 60 s CPU); and, described by h5describe.describe, what
hdf5storage.read('/') and hdf5storage.loadmat return for the whole file
(hdf5storage_read_root, hdf5storage_loadmat: #subsystem# included, which
loadmat reads like any variable).

The opaque bytes of the classdef objects (the FileWrapper__ blob) are
npyguard's own placeholder, not MATLAB's serialisation: neither npyguard
nor hdf5storage decodes them; the layout around them is MATLAB's.

Reproducible bytes: libver='earliest', no dataset timestamps, a fixed
"Created on" time in the MAT header; hdf5storage's random /#refs# names
are seeded per file. gen/check_regen_hdf5.sh regenerates and compares.
"""

import hashlib
import json
import os
import random
import resource
import shutil
import sys

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_hdf5 import mat_header  # noqa: E402  (the MAT v7.3 header, one definition)
from h5describe import reader_descriptions  # noqa: E402  (one describer for generators and tests)

HEADER_TEXT = ("MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Tue Jan  2 03:04:05 2024 "
               "HDF5 schema 1.00 .")


# ------------------------------------------------------- MATLAB's layout

def ascii_attr(obj, name, text):
    """A scalar fixed-length ASCII string, NUL-terminated, exactly as long
    as the text: MATLAB's form for MATLAB_class and H5PATH."""
    t = h5py.h5t.C_S1.copy()
    t.set_size(len(text))
    t.set_strpad(h5py.h5t.STR_NULLTERM)
    a = h5py.h5a.create(obj.id, name.encode(), t, h5py.h5s.create(h5py.h5s.SCALAR))
    a.write(np.array(text.encode(), dtype="S%d" % len(text)), mtype=t)


def int_attr(obj, name, value, dtype):
    obj.attrs.create(name, np.array(value, dtype=dtype))


def fields_attr(obj, names):
    """MATLAB_fields: each name a variable-length sequence of 1-byte strings."""
    v = np.empty(len(names), dtype=object)
    for i, n in enumerate(names):
        v[i] = np.frombuffer(n.encode(), dtype="S1")
    obj.attrs.create("MATLAB_fields", v, dtype=h5py.vlen_dtype(np.dtype("S1")))


class Mat:
    """One MAT v7.3 file being written the way MATLAB lays it out."""

    def __init__(self, path):
        self.path = path
        self.f = h5py.File(path, "w", libver="earliest", userblock_size=512)
        self.nref = 0
        self.refs = None

    def dataset(self, parent, name, data, mclass, h5path=None):
        """A dataset as MATLAB stores it: the array's dimensions reversed
        (MATLAB is column-major), small ones in compact layout."""
        data = np.asarray(data)
        stored = data.T if data.ndim > 1 else data
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_obj_track_times(False)
        if stored.nbytes < 60000:
            dcpl.set_layout(h5py.h5d.COMPACT)
        tid = h5py.h5t.py_create(stored.dtype, logical=True)
        h5py.h5d.create(parent.id, name.encode(), tid, h5py.h5s.create_simple(stored.shape), dcpl=dcpl)
        ds = parent[name]
        ds[...] = stored
        if h5path is not None:
            ascii_attr(ds, "H5PATH", h5path)
        if mclass is not None:
            ascii_attr(ds, "MATLAB_class", mclass)
        return ds

    def group(self, parent, name, mclass, h5path=None, fields=None):
        g = parent.create_group(name)
        if h5path is not None:
            ascii_attr(g, "H5PATH", h5path)
        ascii_attr(g, "MATLAB_class", mclass)
        if fields is not None:
            fields_attr(g, fields)
        return g

    def refs_group(self):
        """/#refs#, whose first member MATLAB always writes: 'a', a
        canonical empty without H5PATH."""
        if self.refs is None:
            self.refs = self.f.create_group("#refs#")
            self.empty(self.refs, "a", "canonical empty", (0, 0))
            self.nref = 1
        return self.refs

    def ref_name(self):
        """MATLAB's first /#refs# names: a..z, then A..Z (these files need
        no more)."""
        n, self.nref = self.nref, self.nref + 1
        return "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[n]

    def in_refs(self, write):
        """Writes one element into /#refs# (write(group, name, h5path));
        returns its reference. There MATLAB's H5PATH is the object's own path."""
        g = self.refs_group()
        name = self.ref_name()
        write(g, name, "/#refs#/" + name)
        return g[name].ref

    def refs_dataset(self, parent, name, refs, mclass="cell", h5path=None):
        refs = np.asarray(refs, dtype=h5py.ref_dtype)
        return self.dataset(parent, name, refs, mclass, h5path)

    def empty(self, parent, name, mclass, dims, h5path=None):
        """An empty value: its MATLAB dimensions as uint64, MATLAB_empty 1."""
        ds = self.dataset(parent, name, np.array(dims, dtype=np.uint64), mclass, h5path)
        int_attr(ds, "MATLAB_empty", 1, np.uint8)
        return ds

    def char(self, parent, name, text, h5path=None):
        """char: UTF-16 code units in uint16, a row vector (MATLAB 1xN)."""
        codes = np.frombuffer(text.encode("utf-16-le"), dtype="<u2").reshape(1, -1)
        ds = self.dataset(parent, name, codes, "char", h5path)
        int_attr(ds, "MATLAB_int_decode", 2, np.int32)
        return ds

    def logical(self, parent, name, values, h5path=None):
        ds = self.dataset(parent, name, np.asarray(values, dtype=np.uint8), "logical", h5path)
        int_attr(ds, "MATLAB_int_decode", 1, np.int32)
        return ds

    def close(self):
        self.f.close()
        with open(self.path, "r+b") as f:
            f.write(mat_header(HEADER_TEXT).ljust(512, b"\0"))


def complex_of(z):
    z = np.asarray(z, dtype=np.complex128)
    out = np.empty(z.shape, dtype=[("real", "<f8"), ("imag", "<f8")])
    out["real"], out["imag"] = z.real, z.imag
    return out


# ------------------------------------------------------------ valid files

def write_numeric(m):
    f = m.f
    m.dataset(f, "d", np.arange(6.0).reshape(2, 3), "double")
    m.dataset(f, "scalar", np.array([[2.5]]), "double")
    m.dataset(f, "f", np.array([[1.5, -2.0]], dtype=np.float32), "single")
    for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"):
        m.dataset(f, "i_" + t, np.array([[1, 2], [3, 4]], dtype=t), t)
    m.dataset(f, "z", complex_of([[1 + 2j, 3 - 4j]]), "double")
    m.logical(f, "b", [[1, 0, 1]])
    m.char(f, "s", "héllo")
    ds = m.dataset(f, "s2", np.frombuffer("abcdef".encode("utf-16-le"), dtype="<u2").reshape(2, 3), "char")
    int_attr(ds, "MATLAB_int_decode", 2, np.int32)


def write_empty(m):
    f = m.f
    for name, cls, dims in (("d", "double", (0, 0)), ("d03", "double", (0, 3)), ("s", "char", (0, 0)),
                            ("c", "cell", (0, 0)), ("st", "struct", (0, 0)), ("b", "logical", (0, 0)),
                            ("u", "uint8", (1, 0)), ("nofields", "struct", (1, 1))):
        m.empty(f, name, cls, dims)


def write_cell(m):
    f = m.f
    one = m.in_refs(lambda g, n, p: m.dataset(g, n, np.array([[1.0]]), "double", p))
    txt = m.in_refs(lambda g, n, p: m.char(g, n, "ab", p))
    i8 = m.in_refs(lambda g, n, p: m.dataset(g, n, np.array([[3]], dtype=np.int8), "int8", p))
    inner = m.in_refs(lambda g, n, p: m.dataset(g, n, np.array([[2.0, 4.0]]), "double", p))
    nested = m.in_refs(lambda g, n, p: m.refs_dataset(g, n, [[inner]], "cell", p))
    m.refs_dataset(f, "c", [[one, txt], [i8, nested]])
    m.empty(f, "c0", "cell", (0, 0))


def write_struct(m):
    f = m.f
    s = m.group(f, "s", "struct", fields=["a", "name", "inner"])
    m.dataset(s, "a", np.array([[1.0]]), "double", "/s")
    m.char(s, "name", "x", "/s")
    # MATLAB's H5PATH below the first level: the parent's H5PATH followed
    # by the parent's name, without a separator
    inner = m.group(s, "inner", "struct", "/s", fields=["c", "deep"])
    m.dataset(inner, "c", np.array([[2]], dtype=np.int32), "int32", "/sinner")
    deep = m.group(inner, "deep", "struct", "/sinner", fields=["d"])
    m.logical(deep, "d", [[1]], "/sinnerdeep")
    # a 1x2 struct array: each field a reference per element into /#refs#
    ids = [m.in_refs(lambda g, n, p, v=v: m.dataset(g, n, np.array([[v]]), "double", p)) for v in (1.0, 2.0)]
    names = [m.in_refs(lambda g, n, p, v=v: m.char(g, n, v, p)) for v in ("one", "two")]
    arr = m.group(f, "sa", "struct", fields=["id", "label"])
    m.refs_dataset(arr, "id", np.array([ids]).T, None)
    m.refs_dataset(arr, "label", np.array([names]).T, None)


def write_sparse(m):
    """MATLAB's sparse matrix: a group holding data (the non-zeros), ir
    (their row indices), jc (column starts), MATLAB_sparse its row count."""
    f = m.f
    for name, cls, rows, data, ir, jc in (
            ("sp", "double", 3, np.array([1.0, 2.0, 3.0]), [0, 2, 1], [0, 2, 2, 3]),
            ("spz", "double", 2, None, None, [0, 0, 0]),
            ("spb", "logical", 2, np.array([1, 1], dtype=np.uint8), [0, 1], [0, 1, 2])):
        g = m.group(f, name, cls)
        int_attr(g, "MATLAB_sparse", rows, np.uint64)
        if cls == "logical":
            int_attr(g, "MATLAB_int_decode", 1, np.int32)
        if data is not None:
            m.dataset(g, "data", data, None)
            m.dataset(g, "ir", np.array(ir, dtype=np.uint64), None)
        m.dataset(g, "jc", np.array(jc, dtype=np.uint64), None)


def write_objects(m):
    """classdef objects: a uint32 reference into the MCOS store (0xDD000000,
    dims, object id, class id), the store /#subsystem#/MCOS a FileWrapper__
    cell of references into /#refs#; a function handle (decode 1) whose
    workspace is such an object; an enumeration stored as a group."""
    f = m.f
    blob = m.in_refs(lambda g, n, p: m.dataset(g, n, np.zeros((1, 64), dtype=np.uint8), "uint8", p))
    props = m.in_refs(lambda g, n, p: m.char(g, n, "text", p))
    sub = f.create_group("#subsystem#")
    ds = m.refs_dataset(sub, "MCOS", [[blob, props]], "FileWrapper__")
    int_attr(ds, "MATLAB_object_decode", 3, np.int32)
    for name, cls, oid in (("str", "string", 1), ("when", "datetime", 2), ("obj", "pkg.MyClass", 3)):
        ds = m.dataset(f, name, np.array([[0xDD000000, 2, 1, 1, oid, oid]], dtype=np.uint32).T, cls)
        int_attr(ds, "MATLAB_object_decode", 3, np.int32)
    fh = m.group(f, "fh", "function_handle", fields=["matlabroot", "function_handle"])
    int_attr(fh, "MATLAB_object_decode", 1, np.int32)
    m.char(fh, "matlabroot", "/opt/matlab", "/fh")
    inner = m.group(fh, "function_handle", "struct", "/fh", fields=["function", "type", "workspace"])
    m.char(inner, "function", "@(x)x+1", "/fhfunction_handle")
    m.char(inner, "type", "anonymous", "/fhfunction_handle")
    ws = m.dataset(inner, "workspace", np.array([[0xDD000000, 2, 1, 1, 4, 4]], dtype=np.uint32).T,
                   "function_handle_workspace", "/fhfunction_handle")
    int_attr(ws, "MATLAB_object_decode", 3, np.int32)
    en = m.group(f, "enum", "pkg.Color", fields=["ValueIndices"])
    int_attr(en, "MATLAB_object_decode", 3, np.int32)
    m.dataset(en, "ValueIndices", np.array([[0, 1]], dtype=np.uint32), None)


def write_utf8_attrs(path):
    """hdf5storage's file with its string attributes rewritten as h5py
    writes a str: variable-length UTF-8."""
    hdf5storage_write(path, np.arange(6.0).reshape(2, 3))
    with h5py.File(path, "r+") as f:
        for k in ("Python.Type", "Python.numpy.UnderlyingType", "Python.numpy.Container"):
            v = f["x"].attrs[k].decode()
            del f["x"].attrs[k]
            f["x"].attrs[k] = v


def hdf5storage_write(path, value):
    import hdf5storage
    random.seed(os.path.basename(path))
    hdf5storage.write(value, path="/x", filename=path, matlab_compatible=False, truncate_existing=True)


# --------------------------------------------------------------- findings

def retype(path, name, value, dtype=None, shape=None):
    """Replaces the attribute `name` of /x."""
    with h5py.File(path, "r+") as f:
        del f["x"].attrs[name]
        f["x"].attrs.create(name, value, dtype=dtype, shape=shape)


def write_findings(out):
    made = []

    def h5(name, what, change):
        p = os.path.join(out, "findings", name)
        hdf5storage_write(p, np.arange(6.0).reshape(2, 3))
        change(p)
        made.append(("findings/" + name, what, "/x"))

    utf8 = h5py.string_dtype("utf-8")
    h5("utf8-contradict.h5", "Python.numpy.UnderlyingType 'int8' as a UTF-8 string over float64 data",
       lambda p: retype(p, "Python.numpy.UnderlyingType", "int8", utf8))
    h5("utf8-invalid.h5", "Python.Type a UTF-8 string whose bytes are not UTF-8",
       lambda p: retype(p, "Python.Type", b"numpy.ndarray\xff", utf8))
    h5("type-not-string.h5", "Python.Type an integer",
       lambda p: retype(p, "Python.Type", np.int32(7)))
    h5("type-array.h5", "Python.numpy.UnderlyingType a one-element array of strings",
       lambda p: retype(p, "Python.numpy.UnderlyingType", np.array([b"int8"]), shape=(1,)))
    h5("nul-inside.h5", "Python.numpy.UnderlyingType 'float64' NUL 'x' (a fixed string)",
       lambda p: retype(p, "Python.numpy.UnderlyingType", np.bytes_(b"float64\0x")))
    h5("type-no-value.h5", "Python.Type a string attribute with no value (null dataspace)",
       lambda p: retype(p, "Python.Type", h5py.Empty("S13")))
    h5("type-too-long.h5", "Python.Type a UTF-8 string of 100 characters",
       lambda p: retype(p, "Python.Type", "numpy.ndarray" + "x" * 87, utf8))
    h5("type-over-4096.h5", "Python.numpy.UnderlyingType a fixed string of 5000 bytes",
       lambda p: retype(p, "Python.numpy.UnderlyingType", np.bytes_(b"f" * 5000)))

    def mat(name, what, path, write):
        m = Mat(os.path.join(out, "findings", name))
        write(m)
        m.close()
        made.append(("findings/" + name, what, path))

    def object_without_decode(m):
        m.dataset(m.f, "s", np.array([[0xDD000000, 2, 1, 1, 1, 1]], dtype=np.uint32).T, "string")

    def decode_unknown(m):
        ds = m.dataset(m.f, "s", np.array([[0xDD000000, 2, 1, 1, 1, 1]], dtype=np.uint32).T, "string")
        int_attr(ds, "MATLAB_object_decode", 7, np.int32)

    def char_over_double(m):
        m.dataset(m.f, "c", np.array([[104.5, 105.0]]), "char")

    def sparse_dataset(m):
        ds = m.dataset(m.f, "sp", np.array([[1.0, 2.0]]), "double")
        int_attr(ds, "MATLAB_sparse", 1, np.uint64)

    def decode_without_class(m):
        ds = m.dataset(m.f, "s", np.array([[0xDD000000, 2, 1, 1, 1, 1]], dtype=np.uint32).T, None)
        int_attr(ds, "MATLAB_object_decode", 3, np.int32)

    def handle_decode_on_struct(m):
        g = m.group(m.f, "g", "struct", fields=["a"])
        int_attr(g, "MATLAB_object_decode", 1, np.int32)
        m.dataset(g, "a", np.array([[1.0]]), "double", "/g")

    def class_too_long(m):
        ds = m.dataset(m.f, "s", np.array([[0xDD000000, 2, 1, 1, 1, 1]], dtype=np.uint32).T, "p" * 300)
        int_attr(ds, "MATLAB_object_decode", 3, np.int32)

    def sparse_negative(m):
        g = m.group(m.f, "sp", "double")
        int_attr(g, "MATLAB_sparse", -1, np.int64)
        m.dataset(g, "jc", np.array([0, 0], dtype=np.uint64), None)

    mat("decode-without-class.mat", "MATLAB_object_decode 3 on a dataset without MATLAB_class", "/s",
        decode_without_class)
    mat("handle-decode-on-struct.mat", "MATLAB_object_decode 1 (function handle) on a struct", "/g",
        handle_decode_on_struct)
    mat("class-too-long.mat", "MATLAB_class a 300-byte name (decode 3)", "/s", class_too_long)
    mat("sparse-negative.mat", "MATLAB_sparse -1", "/sp", sparse_negative)
    mat("object-without-decode.mat", "MATLAB_class 'string' without MATLAB_object_decode", "/s",
        object_without_decode)
    mat("object-decode-7.mat", "MATLAB_object_decode 7 (MATLAB writes 1, 2, 3)", "/s", decode_unknown)
    mat("char-over-double.mat", "MATLAB_class 'char' over float64 data", "/c", char_over_double)
    mat("sparse-dataset.mat", "MATLAB_sparse on a dataset (MATLAB's sparse is a group)", "/sp", sparse_dataset)
    return made


def write_valid(out):
    made = []
    for name, what, write in (
            ("numeric.mat", "double, single, the integer classes, complex, logical, char", write_numeric),
            ("empty.mat", "empty values of each class, and a struct with no fields", write_empty),
            ("cell.mat", "a 2x2 cell with a nested cell, elements in /#refs#; an empty cell", write_cell),
            ("struct.mat", "a nested struct (MATLAB's H5PATH) and a 1x2 struct array", write_struct),
            ("sparse.mat", "sparse double, all-zero sparse, sparse logical", write_sparse),
            ("objects.mat", "classdef objects (string, datetime, a user class, an enumeration) "
                            "and a function handle", write_objects)):
        m = Mat(os.path.join(out, "valid", name))
        write(m)
        m.close()
        made.append(("valid/" + name, what, None))
    write_utf8_attrs(os.path.join(out, "valid", "utf8-attrs.h5"))
    made.append(("valid/utf8-attrs.h5", "hdf5storage's attributes as UTF-8 strings (h5py's str)", None))
    return made


# ------------------------------------------------ what hdf5storage returns

def describe(v):
    """A JSON summary of a value hdf5storage returned."""
    if isinstance(v, dict):
        return {"type": "dict", "items": {str(k): describe(x) for k, x in v.items()}}
    if isinstance(v, np.void) and v.dtype.names:
        return {"type": "void", "fields": {n: describe(v[n]) for n in v.dtype.names}}
    if isinstance(v, np.generic) and v.dtype.kind in "biuU":
        return {"type": type(v).__name__, "value": v.item()}
    if isinstance(v, np.generic) and v.dtype.kind == "f":
        return {"type": type(v).__name__, "value": float(v)}
    if not isinstance(v, np.ndarray):
        return {"type": type(v).__name__, "repr": repr(v)}
    d = {"type": type(v).__name__, "dtype": v.dtype.str, "shape": list(v.shape)}
    if v.dtype.names:
        d["fields"] = {n: [describe(x) for x in v[n].flat] for n in v.dtype.names}
    elif v.dtype == object:
        d["items"] = [describe(x) for x in v.flat]
    else:
        d["sha256"] = hashlib.sha256(np.ascontiguousarray(v).tobytes()).hexdigest()
        if v.size <= 8 and v.dtype.kind in "biuU":
            d["values"] = v.ravel().tolist()
        elif v.size <= 8 and v.dtype.kind == "f":
            d["values"] = [float(x) for x in v.ravel()]
    return d


def read_all(path):
    """name -> summary: hdf5storage.loadmat's variables for a MAT file (a
    variable it leaves out is "dropped"), hdf5storage.read of each
    top-level object of a plain HDF5 file (an exception is its name)."""
    import hdf5storage
    with h5py.File(path, "r") as f:
        top = sorted(k for k in f if not k.startswith("#"))
    if path.endswith(".mat"):
        d = hdf5storage.loadmat(path)
        return {k: describe(d[k]) if k in d else "dropped" for k in top}
    r = {}
    for k in top:
        try:
            r[k] = describe(hdf5storage.read(path="/" + k, filename=path))
        except Exception as e:
            r[k] = {"exception": type(e).__name__}
    return r


def measure(path):
    """read_all in a child under the limits."""
    rd, wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rd)
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
        resource.setrlimit(resource.RLIMIT_CPU, (60, 60))
        try:
            r = read_all(path)
        except BaseException as e:
            r = {"exception": type(e).__name__}
        os.write(wr, json.dumps(r).encode())
        os._exit(0)
    os.close(wr)
    data = b""
    while True:
        b = os.read(rd, 1 << 16)
        if not b:
            break
        data += b
    os.close(rd)
    _, st = os.waitpid(pid, 0)
    return json.loads(data) if data else {"exception": "process died: status %d" % st}

# ------------------------------------------------ corpus/hdf5/README.md

# The last section of corpus/hdf5/README.md; gen_hdf5.py writes the rest
# of that page, and this generator, run after it, replaces this section.
README_MARK = "## MATLAB's own conventions"

README_SECTION = README_MARK + """

Measured on 31 MAT v7.3 files that MATLAB itself wrote (header "Created
on:", platforms GLNXA64, PCWIN64 and MACA64, 2018 to 2026), taken from the
test suites of four public MAT-file readers and not copied here:
skjerns/mat7.3 (13), foreverallama/matio (13),
Social-Evolution-and-Behavior/pymatreader (3), tbeu/matio (2).
hdf5storage.loadmat (%(hdf5storage)s) reads all 31 without an exception.
npyvalidate without this section's rules: `ok` for all 31 with
3,516 objects warned about (3,418 `H5PATH X but the object is in Y`, 98
`MATLAB_class X is not a MATLAB class`), and `--strict` refused 24 of the
31; after: no warning, no refusal.

How MATLAB lays out a value, and what `hdf5storage.loadmat` returns for it:

| what | MATLAB writes | hdf5storage.loadmat returns |
|---|---|---|
| header | a 512-byte user block: the 116-byte text `MATLAB 7.3 MAT-file, Platform: P, Created on: D HDF5 schema 1.00 .` padded with spaces, 8 zero bytes (subsystem offset), version 0x0200, `IM`, then zeros; HDF5 superblock version 0 | (ignores it) |
| dimensions | an m-by-n array is stored as HDF5 (n, m) (column-major) | the array as (m, n) |
| double, single, int8..uint64 | the matching HDF5 type; MATLAB_class the class; small datasets in compact layout, large ones chunked | an ndarray of that dtype |
| complex | a compound of `real` and `imag` | complex128 |
| logical | uint8, MATLAB_int_decode 1 | bool |
| char | uint16 UTF-16 code units, MATLAB_int_decode 2 | a `<U` array, one string per row: a row vector is shape (1, 1) |
| empty value | a uint64 dataset holding the MATLAB dimensions, MATLAB_empty 1, MATLAB_class of the value (`double`, `char`, `cell`, `struct`, `logical`, ...); `/#refs#/a` is always a `canonical empty` without H5PATH | an empty array of the class's dtype, the dimensions reversed (`zeros(0,3)` comes back as shape (3, 0)); a struct with no fields (dimensions [1, 1]) as `[[0]]` |
| cell | an object-reference dataset, MATLAB_class `cell`; each element an object in `/#refs#` (named a, b, ...) | an object ndarray of the elements |
| struct | a group, MATLAB_class `struct`, MATLAB_fields the names (a variable-length sequence of 1-byte strings per name; a reference when there are too many for an attribute: one struct of 4,093 fields); a struct array holds one reference dataset per field into `/#refs#` | a structured ndarray, one field per member |
| sparse | a group holding `data`, `ir`, `jc` (only `jc` when all zero), MATLAB_sparse the row count (uint64), MATLAB_class `double` or `logical` (with MATLAB_int_decode 1) | a structured array of `data`, `ir`, `jc` (not a sparse matrix); a sparse logical is left out of the result |
| classdef object | MATLAB_class the class (`string`, `datetime`, `duration`, `calendarDuration`, `categorical`, `table`, `timetable`, `dictionary`, `containers.Map`, `missing`, user classes `pkg.Name`), MATLAB_object_decode 3 (int32); a uint32 dataset (0xDD000000, number of dimensions, dimensions, object id, class id); the objects themselves in `/#subsystem#/MCOS` (MATLAB_class `FileWrapper__`, MATLAB_object_decode 3), a cell of references into `/#refs#`; an enumeration is a group with MATLAB_fields; Java (`java.lang.String`, uint8) and COM objects (references) are decode 3 too | the uint32 array as stored: it decodes no object; an enumeration as a structured array |
| function handle | a group, MATLAB_class `function_handle`, MATLAB_object_decode 1, MATLAB_fields; its workspace an object of class `function_handle_workspace` (decode 3) | a structured array of the fields |
| H5PATH | a fixed-length ASCII string on most objects below the top level: a member of `/#refs#` has its own path, a member of a top-level struct the struct's path, anything deeper its parent's H5PATH followed by the parent's name without a `/` (`/s/inner/c` has `/sinner`); of 8,169 values 4,748 name the object's group, 2,347 the object itself and 1,074 neither | (never read; hdf5storage writes its group's path, and does not read it back) |
| attribute types | MATLAB_class and H5PATH: scalar fixed-length ASCII strings, NUL-terminated, exactly as long as the text; MATLAB_int_decode and MATLAB_object_decode int32, MATLAB_empty uint8, MATLAB_sparse uint64 | |

What npyguard makes of them: none of the above is a warning or a
`--strict` error. H5PATH is not compared with anything (no reader reads
it). A MATLAB_class outside MATLAB's fundamental classes is MATLAB's when
MATLAB_object_decode is 2 or 3 and the name is identifiers joined by dots.
What stays a finding (a warning, `NPYG_EHDF5_FORMAT` under `--strict`): a
MATLAB_class that is no class, or a class name without MATLAB_object_decode
2 or 3; MATLAB_object_decode other than 1, 2, 3, without MATLAB_class, or 1
on anything but a `function_handle`; MATLAB_sparse on a dataset; a
MATLAB_class that contradicts the stored type or hdf5storage's attributes;
and any of the four string attributes hdf5storage reads to decide what an
object is (`Python.Type`, `Python.numpy.UnderlyingType`,
`Python.numpy.Container`, `MATLAB_class`) that is not one string, holds a
NUL byte, or is too long or too large to read. These are read in their own
character set: a UTF-8 string (h5py's default for `str`), which hdf5storage
reads like an ASCII one, used to fail the conversion to ASCII and count as
absent, so the check was skipped.

`matlab/` holds files written with h5py by these rules and the findings,
by `gen/gen_matlab_style.py`; `matlab/manifest.json` records, for each, the
object the finding names and what hdf5storage returns (loadmat for `.mat`,
read for `.h5`), and, described by `gen/h5describe.py`, what
`hdf5storage.read('/')` and `hdf5storage.loadmat` return for the whole
file (`#subsystem#` included: loadmat reads it like any variable). ctest
`hdf5_matlab_style` checks npyvalidate against it under both profiles;
`python/tests/test_matlab_decode.py` holds npyguard's decoder of these
conventions to the recorded descriptions, for these files and every valid
file of `valid/`.

| file | what | npyguard | hdf5storage |
|---|---|---|---|
"""


def brief(r):
    """A one-line summary of what hdf5storage returned for a file."""
    if "exception" in r and isinstance(r["exception"], str):
        return r["exception"]
    parts = []
    for k, v in sorted(r.items()):
        if v == "dropped":
            parts.append("`%s` left out" % k)
        elif "exception" in v:
            parts.append("`%s`: %s" % (k, v["exception"]))
        else:
            kind = "record" if "fields" in v else np.dtype(v["dtype"]).name if "dtype" in v else v["type"]
            parts.append("`%s` %s %s" % (k, kind, tuple(v.get("shape", ()))))
    return "; ".join(parts)


def write_readme_section(out, manifest):
    path = os.path.join(out, "..", "README.md")
    head = ""
    if os.path.exists(path):
        with open(path) as f:
            head = f.read().split("\n" + README_MARK + "\n")[0].rstrip("\n") + "\n\n"
    lines = [README_SECTION % {"hdf5storage": manifest["hdf5storage_version"]}]
    for rel, e in sorted(manifest["files"].items()):
        verdict = ("warning at `%s` (`--strict`: NPYG_EHDF5_FORMAT)" % e["format_finding"]
                   if e["format_finding"] else "ok")
        lines.append("| `matlab/%s` | %s | %s | %s |\n" % (rel, e["description"], verdict, brief(e["hdf5storage"])))
    with open(path, "w") as f:
        f.write(head + "".join(lines))


def main():
    out = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "corpus", "hdf5", "matlab"))
    for sub in ("valid", "findings"):
        shutil.rmtree(os.path.join(out, sub), ignore_errors=True)
        os.makedirs(os.path.join(out, sub))
    import hdf5storage
    manifest = {"generator": "gen/gen_matlab_style.py",
                "h5py_version": h5py.__version__,
                "hdf5_version": h5py.version.hdf5_version,
                "hdf5storage_version": hdf5storage.__version__,
                "numpy_version": np.__version__,
                "files": {}}
    for rel, what, finding in write_valid(out) + write_findings(out):
        p = os.path.join(out, rel)
        manifest["files"][rel] = {
            "description": what,
            "verdict": "ok",
            "format_finding": finding,
            "sha256": hashlib.sha256(open(p, "rb").read()).hexdigest(),
            "hdf5storage": measure(p)}
        returns = reader_descriptions(p)
        manifest["files"][rel]["hdf5storage_read_root"] = returns["read"]
        manifest["files"][rel]["hdf5storage_loadmat"] = returns["loadmat"]
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    write_readme_section(out, manifest)
    print("wrote %d files to %s" % (len(manifest["files"]), out))


if __name__ == "__main__":
    main()
