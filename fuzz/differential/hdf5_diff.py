#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Differential generator for npyguard's HDF5 verdicts.

"ok" for an HDF5 or MAT file means that the readers a user runs next
finish: hdf5storage.read of every top-level object, hdf5storage.loadmat,
and h5py reading every dataset and attribute through a recursive walk of
the groups that follows soft links. A grammar builds hostile variants with
h5py; npyvalidate gives each its verdict; every file it calls ok then goes
to each reader in a child under a wall-clock timeout, an address-space
limit (prlimit --as) and strace -f -e trace=%file, and the run fails when
a reader behind an ok

  hangs       runs past the timeout
  crashes     dies on a signal (a double free, a segfault)
  memory      raises MemoryError, dies at the address-space limit, or
              raises libhdf5's failed allocation as an OSError
  recursion   raises RecursionError (a reference or link it never leaves)
  opens       opens a file other than its input in the work directory,
              or looks for an HDF5 plugin

Families (each a grammar):
  links       hard links forming a DAG, soft links to ancestors, to
              siblings and along chains of any length
  references  cells referencing cells: chains, fan-out DAGs, cycles,
              references in attributes and in compound members
  vlen        vlen strings and sequences whose descriptors are patched to
              other lengths, other heap objects, or one large object, or
              whose element type is given another size
  attributes  hdf5storage's attributes: Python.Empty / MATLAB_empty with
              shapes of any size, for every type, bytes and str included
  filters     deflate and shuffle over zeros at any ratio
  chunking    chunked datasets never or partly written, declared at any size
  userblock   user blocks of 512 to 4096 bytes with junk in them
  polyglot    .npy, .npz and .ra files carrying an HDF5 file at a power of two
  layouts     integers and floats of random bit layouts (h5py.h5t: precision,
              offset, pad bits, byte order, float fields and bias) as
              datasets, chunked datasets, attributes, compound members,
              complex pairs, scalars, and a MAT variable rewritten in one
  shapes      scalar, zero-size and one-element dataspaces of several ranks
              for every type h5py writes (vlen strings, sequences, enums,
              compounds, ...), and Python values through hdf5storage
  names       link and attribute names with non-ASCII, control bytes,
              backslashes, dots, spaces, long names

With --npyguard DIR (the directory holding the npyguard package) every ok
file's values are compared too, in a child under the same limits, and a
difference fails the run like a reader failure (kind "differs"):
npyguard.load_tree against the tree h5py reads (each dataset and
attribute: type, dtype with byte order, shape, bytes); for a plain file
each value of npyguard.load_hdf5 against h5py's ds[()] and its Python type;
for a file hdf5storage wrote, npyguard.load_hdf5 of each top-level object
against hdf5storage.read and npyguard.loadmat against hdf5storage.loadmat.
A refusal by npyguard of an ok file is a difference; a reader's own
exception is counted as a note and that comparison skipped.

    /usr/bin/python3 fuzz/differential/hdf5_diff.py --npyvalidate build/release/parser/npyvalidate
        [--families links,...] [--count N | --seconds S] [--seed S] [--keep DIR] [--npyguard DIR]

npyvalidate runs with --max-payload 64 MiB, the readers with 2 GiB of
address space and 60 s of wall clock (the scan's own defaults). Exit status 0 when no ok verdict
hides a reader failure, 1 otherwise (the inputs are kept), 77 when the
interpreter has no h5py or hdf5storage (with --skip-without-h5py).
The same seed gives the same inputs.
"""

import argparse
import io
import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

FAMILIES = ("links", "references", "vlen", "attributes", "filters", "chunking", "userblock", "polyglot",
            "layouts", "shapes", "names")
MAX_PAYLOAD = 64 << 20
READER_AS = 2 << 30
READER_SECONDS = 60  # the scan's own wall-clock default (--hdf5-time)
READERS = ("read", "loadmat", "h5py")

# Runs in the child: one reader over one file. A Python exception that is
# not a reader failure prints "error NAME"; the failures print their kind.
READER = r"""
import sys
mode, path = sys.argv[1], sys.argv[2]
import numpy as np, h5py
def alloc_failed(e):
    # libhdf5 reports a failed allocation as an error of the call, which
    # h5py raises as OSError: under the address-space limit that is the
    # reader wanting more memory than the limits give
    msg = str(e).lower()
    return "allocation failed" in msg or "can't allocate" in msg
def h5walk(path):
    with h5py.File(path, "r") as f:
        def walk(g):
            for a in g.attrs: g.attrs[a]
            for k in g:
                o = g[k]
                if isinstance(o, h5py.Group): walk(o)
                else:
                    for a in o.attrs: o.attrs[a]
                    if isinstance(o, h5py.Dataset): o[()]
        walk(f)
try:
    if mode == "h5py":
        h5walk(path)
    else:
        import hdf5storage
        if mode == "loadmat":
            hdf5storage.loadmat(path, appendmat=False)
        else:
            with h5py.File(path, "r") as f:
                names = [k for k in f if k != "#refs#"]
            for k in names:
                try:
                    hdf5storage.read(path="/" + k, filename=path)
                except (MemoryError, RecursionError):
                    raise
                except Exception as e:
                    if alloc_failed(e):
                        raise
    print("done")
except MemoryError:
    print("memory")
except RecursionError:
    print("recursion")
except Exception as e:
    print("memory" if alloc_failed(e) else "error " + type(e).__name__)
"""

ref_dtype = None

# Runs in the child: npyguard's values of one ok file against the real
# readers'. Prints "equal", "differs WHERE: WHAT" (the first difference
# of each comparison) or "error NAME" when a reader itself fails. The
# comparisons: every path of npyguard.load_tree against the tree h5py
# reads (python/tests/h5tree_h5py.py: each dataset and attribute, type,
# dtype with byte order, shape, bytes); for a plain file, each value of
# npyguard.load_hdf5 against h5py's ds[()] with its Python type (a numpy
# scalar for a scalar dataspace); for a file hdf5storage wrote, each
# top-level object of npyguard.load_hdf5 against hdf5storage.read and
# npyguard.loadmat against hdf5storage.loadmat.
VALUES = r"""
import math, sys
path, tests = sys.argv[1], sys.argv[2]
sys.path.insert(0, tests)
import numpy as np, h5py, hdf5storage, npyguard
from npyguard._h5tree import Empty, Ref, _value_bytes, tree_differences
from h5tree_h5py import C32, dataset_value, tree_from_h5py

import re
UNLOADED = re.compile(r"does not load|not loaded|: not loaded|numpy's descr cannot spell|with padding|"
                      r"equals no standard type|at another size|no numpy (float )?type|has no (type|descr) for")

def same(a, b, where, out):
    if out:
        return
    if type(a) is not type(b):
        out.append("%s: %s against %s" % (where, type(a).__name__, type(b).__name__))
    elif isinstance(a, dict):
        if list(a) != list(b):
            out.append("%s: keys %r against %r" % (where, list(a)[:5], list(b)[:5]))
        for k in a:
            if k in b:
                same(a[k], b[k], "%s[%r]" % (where, k), out)
    elif isinstance(a, (list, tuple)):
        if len(a) != len(b):
            out.append("%s: %d items against %d" % (where, len(a), len(b)))
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, "%s[%d]" % (where, i), out)
    elif isinstance(a, np.ndarray):
        if a.dtype != b.dtype or a.dtype.str != b.dtype.str or a.shape != b.shape:
            out.append("%s: %s%s against %s%s" % (where, a.dtype.str, a.shape, b.dtype.str, b.shape))
        elif a.dtype.hasobject:
            for i, (x, y) in enumerate(zip(a.ravel(), b.ravel())):
                same(x, y, "%s[%d]" % (where, i), out)
        elif _value_bytes(a) != _value_bytes(b):
            out.append("%s: values differ" % where)
    elif isinstance(a, np.generic):
        if a.dtype.str != b.dtype.str or _value_bytes(np.asarray(a)) != _value_bytes(np.asarray(b)):
            out.append("%s: %r (%s) against %r (%s)" % (where, a, a.dtype.str, b, b.dtype.str))
    elif isinstance(a, Empty) or isinstance(a, h5py.Empty):
        if a.dtype != b.dtype:
            out.append("%s: Empty(%s) against Empty(%s)" % (where, a.dtype, b.dtype))
    elif isinstance(a, float) and math.isnan(a):
        if not math.isnan(b):
            out.append("%s: %r against %r" % (where, a, b))
    elif a != b:
        out.append("%s: %r against %r" % (where, a, b))

def h5py_value(f, ds):
    # what load_hdf5 documents for references and null dataspaces
    raw = dataset_value(ds)
    if isinstance(raw, h5py.Empty):
        return Empty(np.dtype(ds.dtype))
    if h5py.check_ref_dtype(ds.dtype) is h5py.Reference:
        name = lambda r: Ref(f[r].name if r else "")
        if not isinstance(raw, np.ndarray):
            return name(raw)
        out = np.empty(raw.shape, dtype=object)
        for i in np.ndindex(raw.shape):
            out[i] = name(raw[i])
        return out
    return raw

def paths(g, prefix, out, depth=0):
    for k in g:
        link = g.get(k, getlink=True)
        if not isinstance(link, h5py.HardLink) or depth > 32 or len(out) > 20000:
            continue
        p = prefix + "/" + k
        o = g[k]
        if isinstance(o, h5py.Dataset):
            out.append(p)
        elif isinstance(o, h5py.Group):
            paths(o, p, out, depth + 1)

def report(what, out):
    if out:
        print("differs %s: %s" % (what, out[0]))
        sys.exit(0)

try:
    tree = npyguard.load_tree(path)
except npyguard.Error as e:
    # a type the load documents as not loaded, refused by name, is the
    # rule's other outcome (README.md); any other refusal is a difference
    if e.code == 119 and UNLOADED.search(str(e)):
        print("unloaded %s" % e)
    else:
        print("differs load_tree: refused: %s" % e)
    sys.exit(0)
try:
    want = tree_from_h5py(path)
except TypeError as e:
    # h5py has no numpy type for it (an (r, i) pair of 16-bit floats would be
    # complex32): the reader's own failure, so nothing to compare with
    print("unread %s" % e)
    sys.exit(0)

# tree_from_h5py reads a '>c32' value through its (r, i) pair, since h5py
# reads it wrongly
if any(isinstance(v, np.ndarray) and v.dtype == C32
       for n in want.values() for v in [n.value, *n.attrs.values()]):
    print("note h5py reads '>c32' wrongly: taken as its (r, i) pair")
report("load_tree/h5py", tree_differences(tree, want)[:1])
hdf5storage_file = any(k.startswith("Python.") or k.startswith("MATLAB_") for n in tree.values() for k in n.attrs)
with h5py.File(path, "r") as f:
    names = [k for k in f if k != "#refs#"]
    if not hdf5storage_file:
        m = npyguard.load_hdf5(path)
        ps = []
        paths(f, "", ps)
        out = []
        same(sorted(m), sorted(ps), "load_hdf5 paths", out)
        for p in ps:
            same(m[p], h5py_value(f, f[p]), "load_hdf5 " + p, out)
        report("load_hdf5/h5py", out)
if hdf5storage_file:
    out = []
    for k in names:
        try:
            want = hdf5storage.read(path="/" + k, filename=path)
        except Exception as e:
            print("note hdf5storage.read /%s: %s" % (k, type(e).__name__))
            continue
        same(npyguard.load_hdf5(path, "/" + k), want, "load_hdf5 /" + k, out)
    report("load_hdf5/hdf5storage.read", out)
    try:
        want = hdf5storage.loadmat(path, appendmat=False)
    except Exception as e:
        want = None
        print("note hdf5storage.loadmat: %s" % type(e).__name__)
    if want is not None:
        out = []
        same(npyguard.loadmat(path), want, "loadmat", out)
        report("loadmat/hdf5storage.loadmat", out)
print("equal")
"""


# ------------------------------------------------------------- grammars

def new_file(path, rnd, **kw):
    import h5py
    return h5py.File(path, "w", libver=rnd.choice(["earliest", "latest"]), **kw)


def cell(parent, name, targets):
    import h5py
    import numpy as np
    d = parent.create_dataset(name, shape=(len(targets), 1), dtype=h5py.ref_dtype)
    for i, t in enumerate(targets):
        d[i, 0] = t.ref
    d.attrs["MATLAB_class"] = np.bytes_(b"cell")
    d.attrs["Python.Type"] = np.bytes_(b"numpy.ndarray")
    d.attrs["Python.numpy.UnderlyingType"] = np.bytes_(b"object")
    d.attrs["Python.numpy.Container"] = np.bytes_(b"ndarray")
    return d


def g_links(path, rnd):
    import h5py
    import numpy as np
    with new_file(path, rnd) as f:
        kind = rnd.choice(["dag", "soft-ancestor", "soft-chain", "soft-sibling"])
        if kind == "dag":
            levels, fan = rnd.randint(2, 22), rnd.randint(1, 4)
            gs = [f.create_group("a")] + [f.create_group("l%02d" % i) for i in range(levels)]
            for a, b in zip(gs, gs[1:]):
                for j in range(fan):
                    a["x%d" % j] = b
            gs[-1].create_dataset("v", data=np.arange(3.0))
        elif kind == "soft-ancestor":
            g = f.create_group("g")
            h = g.create_group("h")
            h.create_dataset("v", data=np.arange(2.0))
            target = rnd.choice([".", "/", "/g", "..", "/g/h", "/g/h/."])
            rnd.choice([g, h])["s"] = h5py.SoftLink(target)
        elif kind == "soft-chain":
            f.create_dataset("t", data=np.arange(2.0))
            n = rnd.randint(1, 20)
            f["s0"] = h5py.SoftLink("/t")
            for i in range(1, n):
                f["s%d" % i] = h5py.SoftLink("/s%d" % (i - 1))
        else:
            for i in range(rnd.randint(2, 6)):
                f.create_group("g%d" % i).create_dataset("v", data=np.arange(2.0))
            for i in range(rnd.randint(1, 8)):
                f["g%d" % rnd.randint(0, 1)]["s%d" % i] = h5py.SoftLink("/g%d" % rnd.randint(0, 5))
    return kind


def g_references(path, rnd):
    import h5py
    import numpy as np
    with new_file(path, rnd) as f:
        r = f.create_group("#refs#")
        leaf = r.create_dataset("leaf", data=np.arange(2.0))
        kind = rnd.choice(["chain", "fanout", "cycle", "attr", "compound"])
        if kind == "chain":
            prev = leaf
            for i in range(rnd.randint(1, 400)):
                prev = cell(r, "c%d" % i, [prev])
            cell(f, "top", [prev])
        elif kind == "fanout":
            prev = leaf
            fan = rnd.randint(2, 4)
            for i in range(rnd.randint(2, 24)):
                prev = cell(r, "c%d" % i, [prev] * fan)
            cell(f, "top", [prev])
        elif kind == "cycle":
            a = r.create_dataset("a", shape=(1, 1), dtype=h5py.ref_dtype)
            b = cell(r, "b", [a])
            a[0, 0] = rnd.choice([a, b]).ref
            cell(f, "top", [b])
        elif kind == "attr":
            d = f.create_dataset("x", data=np.arange(2.0))
            d.attrs.create("r", rnd.choice([d, leaf, f]).ref, dtype=h5py.ref_dtype)
        else:
            ct = np.dtype([("n", "<i4"), ("r", h5py.ref_dtype)])
            c = f.create_dataset("c", shape=(2,), dtype=ct)
            c[0] = (1, rnd.choice([leaf, c]).ref)
            if rnd.random() < 0.5:
                c[1] = (2, leaf.ref)
    return kind


def heap_objects(data):
    out = []
    at = data.find(b"GCOL")
    while at >= 0:
        size = struct.unpack_from("<Q", data, at + 8)[0]
        off = at + 16
        while 16 < size < (1 << 30) and off + 16 <= at + size:
            idx, _, _, sz = struct.unpack_from("<HHIQ", data, off)
            if idx == 0:
                break
            out.append((at, idx, sz))
            off += 16 + ((sz + 7) & ~7)
        at = data.find(b"GCOL", at + 4)
    return out


def g_vlen(path, rnd):
    import h5py
    import numpy as np
    where = rnd.choice(["dataset", "attribute", "sequence"])
    with new_file(path, rnd) as f:
        if where == "dataset":
            vals = ["x" * rnd.randint(1, 300) for _ in range(rnd.randint(1, 40))]
            if rnd.random() < 0.3:
                vals[0] = "y" * 65536
            f.create_dataset("s", data=np.array(vals, dtype=object), dtype=h5py.string_dtype())
        elif where == "attribute":
            d = f.create_dataset("d", data=np.arange(2.0))
            d.attrs.create("a", ["z" * rnd.randint(1, 200) for _ in range(rnd.randint(1, 5))],
                           dtype=h5py.string_dtype())
        else:
            vals = [np.arange(rnd.randint(1, 50), dtype=np.int32) for _ in range(rnd.randint(1, 20))]
            d = np.empty(len(vals), dtype=object)
            d[:] = vals
            f.create_dataset("q", data=d, dtype=h5py.vlen_dtype(np.int32))
    data = bytearray(open(path, "rb").read())
    objs = heap_objects(data)
    how = rnd.choice(["length", "index", "fanout", "base", "none"])
    if how == "base":
        # The element type inside the vlen type's message (version 1 to 3,
        # class 9, 16 bytes a descriptor): a reader's conversion allocates
        # the stored length times the size given here.
        bases = [m.start() for m in re.finditer(rb"[\x19\x29\x39]...\x10\x00\x00\x00[\x10-\x3f]", data, re.S)]
        for at in rnd.sample(bases, rnd.randint(1, len(bases))) if bases else []:
            struct.pack_into("<I", data, at + 12, rnd.choice([0, 2, 7, 1 << 20, 1 << 28, 0x42414C54, 0xFFFFFFFF]))
        open(path, "wb").write(data)
        return where + "-" + how
    descs = []
    for at, idx, sz in objs:
        for m in re.finditer(re.escape(struct.pack("<QI", at, idx)), data):
            if m.start() >= 4:
                descs.append((m.start() - 4, at, idx, sz))
    if descs and how != "none":
        big = max(objs, key=lambda o: o[2])
        for off, at, idx, sz in rnd.sample(descs, rnd.randint(1, len(descs))):
            if how == "length":
                struct.pack_into("<I", data, off, rnd.choice([0, 1, sz // 2, sz + 1, sz * 4, 0xFFFFFFFF]))
            elif how == "index":
                struct.pack_into("<I", data, off + 12, rnd.choice([idx + 1, 0, 0xFFFF, 70000]))
            else:
                struct.pack_into("<IQI", data, off, big[2], big[0], big[1])
    open(path, "wb").write(data)
    return where + "-" + how


def g_attributes(path, rnd):
    import h5py
    import hdf5storage
    import numpy as np
    kind = rnd.choice(["float64", "bytes", "str", "int8", "complex128", "bool"])
    empty = {"float64": np.zeros((0,)), "bytes": np.zeros((0,), dtype="S%d" % rnd.randint(1, 9)),
             "str": np.zeros((0,), dtype="U%d" % rnd.randint(1, 9)), "int8": np.zeros((0,), dtype=np.int8),
             "complex128": np.zeros((0,), dtype=np.complex128), "bool": np.zeros((0,), dtype=bool)}[kind]
    mc = rnd.random() < 0.5
    hdf5storage.write(empty, path="/v", filename=path, matlab_compatible=mc, truncate_existing=True)
    dims = [rnd.choice([1, 7, 1 << rnd.randint(4, 40)]) for _ in range(rnd.randint(1, 3))]
    with h5py.File(path, "r+") as f:
        d = f["v"]
        if "Python.Shape" in d.attrs:
            d.attrs["Python.Shape"] = np.array(dims, dtype=np.uint64)
        if mc and rnd.random() < 0.5:
            attrs = {k: v for k, v in d.attrs.items() if not k.startswith("Python.")}
            del f["v"]
            d = f.create_dataset("v", data=np.array(dims, dtype=np.uint64))
            for k, v in attrs.items():
                d.attrs[k] = v
    return kind + ("-mat" if mc else "")


def g_filters(path, rnd):
    import numpy as np
    n = 1 << rnd.randint(10, 26)
    with new_file(path, rnd) as f:
        d = f.create_dataset("x", shape=(n,), dtype=np.float64, chunks=(min(n, 1 << rnd.randint(10, 18)),),
                             compression="gzip", compression_opts=rnd.randint(1, 9), shuffle=rnd.random() < 0.5)
        d[...] = 0.0
    return "deflate-2^%d" % n.bit_length()


def g_chunking(path, rnd):
    import numpy as np
    n = 1 << rnd.randint(10, 36)
    with new_file(path, rnd) as f:
        d = f.create_dataset("x", shape=(n,), dtype=np.float64, chunks=(min(n, 1 << rnd.randint(8, 16)),),
                             fillvalue=rnd.choice([0.0, 1.0]))
        if rnd.random() < 0.5:
            d[: min(n, 1024)] = 1.0
    return "chunked-2^%d" % (n.bit_length() - 1)


def g_userblock(path, rnd):
    import numpy as np
    ub = rnd.choice([512, 1024, 2048, 4096])
    with new_file(path, rnd, userblock_size=ub) as f:
        f.create_dataset("x", data=np.arange(rnd.randint(1, 100), dtype=np.int16))
    data = bytearray(open(path, "rb").read())
    data[:ub] = bytes(rnd.getrandbits(8) for _ in range(ub))
    if rnd.random() < 0.3:
        data[:6] = b"\x93NUMPY"
    open(path, "wb").write(data)
    return "userblock-%d" % ub


def g_polyglot(path, rnd):
    import numpy as np
    inner = path + ".inner"
    with new_file(inner, rnd) as f:
        f.create_dataset("x", data=np.arange(rnd.randint(1, 1000), dtype=np.float64))
    h5 = open(inner, "rb").read()
    os.unlink(inner)
    kind = rnd.choice(["npy", "npz"])
    b = io.BytesIO()
    if kind == "npy":
        np.save(b, np.arange(rnd.randint(1, 500), dtype=np.int32))
    else:
        np.savez(b, a=np.arange(rnd.randint(1, 500), dtype=np.int32))
    head = b.getvalue()
    at = 512
    while at < len(head):
        at *= 2
    at *= rnd.choice([1, 2, 4])
    open(path, "wb").write(head + b"\0" * (at - len(head)) + h5)
    return kind


GRAMMARS = {"links": g_links, "references": g_references, "vlen": g_vlen, "attributes": g_attributes,
            "filters": g_filters, "chunking": g_chunking, "userblock": g_userblock, "polyglot": g_polyglot}



def odd_int(rnd, t):
    """A random integer layout: size, sign, order, precision, offset, pad."""
    size = rnd.choice([1, 2, 4, 8])
    tid = getattr(t, "STD_%s%d%s" % (rnd.choice("IU"), size * 8, rnd.choice(["LE", "BE"]))).copy()
    if rnd.random() < 0.8:
        prec = rnd.randint(2, size * 8)
        tid.set_precision(prec)
        tid.set_offset(rnd.randint(0, size * 8 - prec))
        tid.set_pad(rnd.choice([t.PAD_ZERO, t.PAD_ONE]), rnd.choice([t.PAD_ZERO, t.PAD_ONE]))
    return tid


def odd_float(rnd, t):
    """A random float layout: size, order, field positions and sizes, bias."""
    size = rnd.choice([2, 4, 8]) if rnd.random() < 0.8 else rnd.choice([4, 8])
    tid = t.IEEE_F64LE.copy() if size == 8 else t.IEEE_F32LE.copy()
    if size == 2:
        tid.set_fields(15, 10, 5, 0, 10)
        tid.set_size(2)
        tid.set_ebias(15)
    if rnd.random() < 0.8:
        bits = size * 8
        esize = rnd.randint(2, min(15, bits - 3))
        msize = rnd.randint(1, bits - esize - 1)
        mpos = rnd.randint(0, bits - esize - msize - 1)
        epos = mpos + msize
        spos = rnd.randint(epos + esize, bits - 1)
        tid.set_fields(spos, epos, esize, mpos, msize)
        full = (1 << (esize - 1)) - 1
        tid.set_ebias(max(1, full + rnd.randint(-full // 2, full // 2)) if rnd.random() < 0.5 else full)
    tid.set_order(rnd.choice([t.ORDER_LE, t.ORDER_BE]))
    return tid


def layout_values(rnd, tid, n):
    import numpy as np
    if tid.get_class() == 0:  # H5T_INTEGER: values the precision holds, written as int64
        signed = tid.get_sign() == 1
        bits = tid.get_precision()
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        return np.array([rnd.randint(lo, hi) for _ in range(n)], dtype="<i8" if signed else "<u8")
    return np.array([rnd.choice([0.0, 1.0, -2.5, 0.1, 1e-3, 65504.0, 3.4e38, 1e300, float("inf")])
                     for _ in range(n)], dtype="<f8")


def g_layouts(path, rnd):
    """Integers and floats of random bit layouts (h5py.h5t): datasets,
    contiguous or chunked and deflated, attributes, compound members,
    h5py complex pairs; or a MAT file's variable rewritten in one."""
    import h5py
    import numpy as np
    t = h5py.h5t
    made = []
    if rnd.random() < 0.25:
        import hdf5storage
        n = rnd.randint(1, 6)
        hdf5storage.savemat(path, {"a": np.arange(n, dtype=np.int32).reshape(n, 1)}, appendmat=False)
        tid = odd_int(rnd, t) if rnd.random() < 0.5 else odd_float(rnd, t)
        with h5py.File(path, "a") as f:
            attrs = {k: f["a"].attrs[k] for k in f["a"].attrs}
            del f["a"]
            ds = h5py.h5d.create(f.id, b"a", tid, h5py.h5s.create_simple((1, n)))
            ds.write(h5py.h5s.ALL, h5py.h5s.ALL, layout_values(rnd, tid, n).reshape(1, n))
            for k, v in attrs.items():
                f["a"].attrs[k] = v
        return "mat"
    with new_file(path, rnd) as f:
        for j in range(rnd.randint(1, 4)):
            tid = odd_int(rnd, t) if rnd.random() < 0.5 else odd_float(rnd, t)
            n = rnd.choice([1, 3, 17])
            form = rnd.choice(["dataset", "chunked", "attribute", "compound", "complex", "scalar"])
            name = ("v%d" % j).encode()
            if form == "complex":
                ft = odd_float(rnd, t)
                ctid = t.create(t.COMPOUND, 2 * ft.get_size())
                ctid.insert(b"r", 0, ft)
                ctid.insert(b"i", ft.get_size(), ft)
                ds = h5py.h5d.create(f.id, name, ctid, h5py.h5s.create_simple((n,)))
                vals = layout_values(rnd, ft, 2 * n).reshape(n, 2)
                mem = t.create(t.COMPOUND, 16)
                mem.insert(b"r", 0, t.NATIVE_DOUBLE)
                mem.insert(b"i", 8, t.NATIVE_DOUBLE)
                ds.write(h5py.h5s.ALL, h5py.h5s.ALL, vals.copy().view(np.dtype([("r", "<f8"), ("i", "<f8")])).ravel(),
                         mtype=mem)
            elif form == "compound":
                other = odd_int(rnd, t)
                ctid = t.create(t.COMPOUND, tid.get_size() + other.get_size())
                ctid.insert(b"a", 0, tid)
                ctid.insert(b"b", tid.get_size(), other)
                ds = h5py.h5d.create(f.id, name, ctid, h5py.h5s.create_simple((n,)))
                va, vb = layout_values(rnd, tid, n), layout_values(rnd, other, n)
                rec = np.zeros(n, dtype=[("a", va.dtype), ("b", vb.dtype)])
                rec["a"], rec["b"] = va, vb
                mem = t.create(t.COMPOUND, rec.dtype.itemsize)
                mem.insert(b"a", 0, t.py_create(va.dtype))
                mem.insert(b"b", va.dtype.itemsize, t.py_create(vb.dtype))
                ds.write(h5py.h5s.ALL, h5py.h5s.ALL, rec, mtype=mem)
            elif form == "attribute":
                aid = h5py.h5a.create(f.id, name, tid, h5py.h5s.create_simple((n,)))
                aid.write(layout_values(rnd, tid, n))
            else:
                dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
                if form == "chunked":
                    dcpl.set_chunk((rnd.randint(1, n),))
                    dcpl.set_deflate(rnd.randint(1, 9))
                space = h5py.h5s.create(h5py.h5s.SCALAR) if form == "scalar" else h5py.h5s.create_simple((n,))
                ds = h5py.h5d.create(f.id, name, tid, space, dcpl=dcpl)
                vals = layout_values(rnd, tid, 1 if form == "scalar" else n)
                ds.write(h5py.h5s.ALL, h5py.h5s.ALL, vals.reshape(()) if form == "scalar" else vals)
            made.append("%s:%s" % (form, "int" if tid.get_class() == 0 else "float"))
    return ",".join(made)


SHAPES = [(), (0,), (1,), (1, 1), (3,), (2, 3), (0, 4), (1, 0, 2), (4, 1)]


def shaped_value(rnd, kind, shape):
    import h5py
    import numpy as np
    n = int(np.prod(shape))
    if kind in ("vstr", "vstr_ascii"):
        pool = ["h\u00e9llo", "", "x", "\u2603" * 3] if kind == "vstr" else ["hello", "", "x"]
        flat = np.array([rnd.choice(pool) for _ in range(n)], dtype=object)
        dtype = h5py.string_dtype("utf-8" if kind == "vstr" else "ascii")
    elif kind == "vint":
        flat = np.empty(n, dtype=object)
        for i in range(n):
            flat[i] = np.arange(rnd.randint(0, 4), dtype="<i4")
        dtype = h5py.vlen_dtype(np.dtype("<i4"))
    elif kind == "bytes":
        flat = np.array([rnd.choice([b"ab", b"", b"c"]) for _ in range(n)], dtype="S%d" % rnd.randint(1, 4))
        dtype = flat.dtype
    elif kind == "compound":
        flat = np.zeros(n, dtype=[("a", rnd.choice(["<i4", ">f8"])), ("b", "S2")])
        dtype = flat.dtype
    elif kind == "enum":
        dtype = h5py.enum_dtype({"RED": 0, "GREEN": 1, "BLUE": 7}, basetype=rnd.choice(["u1", "<i2", ">u4"]))
        flat = np.array([rnd.choice([0, 1, 7]) for _ in range(n)], dtype=dtype)
    else:
        dt = np.dtype(kind)
        flat = (np.arange(n) * rnd.choice([1, 3, 7])).astype(dt)
        dtype = dt
    out = np.empty(shape, dtype=object if flat.dtype == object else flat.dtype)
    out.reshape(-1)[...] = flat if n else out.reshape(-1)
    return out, dtype


def g_shapes(path, rnd):
    """Dataspace shapes (scalar, zero-size, ones, several ranks) of every
    type h5py writes, as datasets and attributes; or Python values
    through hdf5storage.write."""
    import h5py
    import numpy as np
    if rnd.random() < 0.3:
        import hdf5storage
        pool = [1, 2.5, "text", b"raw", np.int16(3), np.float32(1.5), np.array("s"), np.bool_(True),
                [1, "a"], (2, 3.0), {"k": np.arange(3)}, np.zeros((0, 2)), np.arange(6).reshape(2, 3),
                np.array([b"ab", b"c"]), np.array(["x", "yz"]), None, 1 + 2j, np.complex64(1 - 1j)]
        data = {"v%d" % i: rnd.choice(pool) for i in range(rnd.randint(1, 4))}
        mc = rnd.random() < 0.5
        if mc:
            hdf5storage.savemat(path, {k: v for k, v in data.items() if v is not None}, appendmat=False)
        else:
            hdf5storage.write(data, path="/", filename=path, matlab_compatible=False, truncate_existing=True)
        return "hdf5storage" + ("-mat" if mc else "")
    kinds = ["vstr", "vstr_ascii", "vint", "bytes", "compound", "enum", "<i2", ">u8", "<f4", ">f8", "?", "<c8",
             ">c16", "i1"]
    made = []
    with new_file(path, rnd) as f:
        for j in range(rnd.randint(1, 5)):
            kind, shape = rnd.choice(kinds), rnd.choice(SHAPES)
            data, dtype = shaped_value(rnd, kind, shape)
            if rnd.random() < 0.3 and kind != "vint":
                f.attrs.create("a%d" % j, data, shape=shape, dtype=dtype)
            else:
                f.create_dataset("d%d" % j, shape=shape, dtype=dtype, data=data)
            made.append("%s%s" % (kind, shape))
        if rnd.random() < 0.2:
            f["s"] = rnd.choice(["hello", b"bytes", 3, 2.5])
    return ",".join(made)


def g_names(path, rnd):
    """Link and attribute names: non-ASCII, spaces, dots, control bytes,
    backslashes, long names, names hdf5storage escapes."""
    import h5py
    import numpy as np
    pool = ["a", "A", "\u00fcber", "\u65e5\u672c", " sp ace ", ".", "..x", "a.npy", "\\back", "tab\there",
            "\x01ctl", "@at", "#refs", "x" * rnd.randint(1, 200), "\u2603", "nul\u00e9"]
    if rnd.random() < 0.3:
        import hdf5storage
        keys = {rnd.choice(["a", "\u00fcber", "x y", "a.b", "b\\c", ".x", "#z"]) for _ in range(3)}
        hdf5storage.write({k: np.arange(2) for k in keys}, path="/", filename=path, matlab_compatible=False,
                          truncate_existing=True)
        return "hdf5storage"
    with new_file(path, rnd) as f:
        g = f
        for depth in range(rnd.randint(1, 3)):
            name = rnd.choice(pool)
            if name in (".",) or name in g:
                name = name + "%d" % depth
            if rnd.random() < 0.6:
                g[name] = np.arange(depth + 1, dtype="<i2")
                g[name].attrs[rnd.choice(pool)] = np.int8(depth)
            else:
                g = g.create_group(name)
                g.attrs[rnd.choice(pool)] = "v"
    return "h5py"


GRAMMARS.update(layouts=g_layouts, shapes=g_shapes, names=g_names)

# ------------------------------------------------------------- running

def verdict(npyvalidate, path):
    p = subprocess.run([npyvalidate, "--json", "--max-payload", str(MAX_PAYLOAD), path],
                       capture_output=True, timeout=300)
    line = p.stdout.decode(errors="replace").strip().splitlines()
    rec = json.loads(line[-1]) if line else {}
    return p.returncode, rec


def run_reader(mode, path, workdir, reader_py):
    trace = path + "." + mode + ".trace"
    cmd = ["timeout", "-s", "KILL", str(READER_SECONDS), "prlimit", "--as=%d" % READER_AS,
           "strace", "-f", "-qq", "-e", "trace=%file", "-o", trace,
           sys.executable, reader_py, mode, path]
    p = subprocess.run(cmd, capture_output=True, cwd=workdir)
    out = p.stdout.decode(errors="replace").strip().splitlines()
    last = out[-1] if out else ""
    err = p.stderr.decode(errors="replace")
    if p.returncode == 137 or p.returncode == -9:
        kind = "hangs"
    elif last in ("memory", "recursion"):
        kind = last
    elif p.returncode < 0 or p.returncode > 128:
        kind = "crashes"  # a signal, even after "done": glibc aborts at exit on a heap h5py corrupted
    elif "MemoryError" in err or "std::bad_alloc" in err:
        kind = "memory"
    elif p.returncode != 0 and last != "done" and not last.startswith("error"):
        kind = "crashes"
    else:
        kind = None
    opened = other_files(trace, path, workdir)
    if kind is None and opened:
        kind = "opens"
    try:
        os.unlink(trace)
    except OSError:
        pass
    detail = last if kind is None else "%s (exit %d%s%s)" % (kind, p.returncode, "; " if opened else "",
                                                              ", ".join(opened[:3]))
    return kind, detail


TESTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "tests")


def run_values(path, workdir, values_py, env):
    """npyguard's values of an ok file against the readers': None when
    equal, else what differs (or how the comparison failed)."""
    cmd = ["timeout", "-s", "KILL", str(READER_SECONDS), "prlimit", "--as=%d" % READER_AS,
           sys.executable, values_py, path, os.path.abspath(TESTS)]
    p = subprocess.run(cmd, capture_output=True, cwd=workdir, env=env)
    out = p.stdout.decode(errors="replace").strip().splitlines()
    last = out[-1] if out else ""
    if last == "equal":
        return None, [x for x in out if x.startswith("note ")]
    if last.startswith("unloaded "):
        return None, ["note npyguard refuses a type it does not load: " + last.split(": ")[-1]]
    if last.startswith("unread "):
        return None, ["note h5py has no numpy type for a type npyguard loads: " + last[len("unread "):]]
    if last.startswith("differs"):
        return last, []
    err = p.stderr.decode(errors="replace").strip().splitlines()
    return "values exit %d: %s" % (p.returncode, (err[-1] if err else last)[:300]), []


OPEN_RE = re.compile(r'^\d+\s+\w+\((?:AT_FDCWD|\d+), "([^"]*)"|^\d+\s+\w+\("([^"]*)"')


def other_files(trace, path, workdir):
    """Files in the work directory other than the input, and HDF5 plugin
    directories, that the reader tried to open or look at."""
    found = []
    try:
        lines = open(trace, errors="replace").read().splitlines()
    except OSError:
        return found
    base = os.path.basename(path)
    for line in lines:
        m = OPEN_RE.match(line)
        if not m:
            continue
        name = m.group(1) if m.group(1) is not None else m.group(2)
        if not name:
            continue
        full = os.path.normpath(os.path.join(workdir, name))
        if "hdf5/plugin" in name or "HDF5_PLUGIN" in name:
            found.append(name)
        elif full.startswith(workdir + os.sep) and os.path.basename(full) != base and \
                not full.endswith(".trace") and not full.endswith("reader.py"):
            found.append(name)
    return found


# The oracle must see what it is there to see: corpus files whose reader
# failures corpus/hdf5/README.md records, each with the kind this script
# must report for the reader named.
SELF_TEST = (("hazard/ref-chain.h5", "read", "recursion"),
             ("hazard/empty-huge.h5", "read", "memory"),
             ("hazard/external-link.h5", "h5py", "opens"))


def self_test(work, reader_py):
    corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "corpus", "hdf5")
    os.makedirs(os.path.join(work, "hazard"), exist_ok=True)
    os.makedirs(os.path.join(work, "support"), exist_ok=True)
    shutil.copy(os.path.join(corpus, "support", "target.h5"), os.path.join(work, "support"))
    bad = 0
    for rel, mode, want in SELF_TEST:
        path = os.path.join(work, rel)
        shutil.copy(os.path.join(corpus, rel), path)
        kind, detail = run_reader(mode, path, work, reader_py)
        print("hdf5_diff: self-test %s %s: %s" % (rel, mode, detail))
        if kind != want:
            print("hdf5_diff: FAIL self-test: %s under %s gave %s, the corpus records %s" % (rel, mode, kind, want))
            bad += 1
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--npyvalidate", required=True)
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--count", type=int, default=0, help="inputs (0: until --seconds)")
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", default="1")
    ap.add_argument("--keep", help="keep every input and a log here")
    ap.add_argument("--skip-without-h5py", action="store_true")
    ap.add_argument("--npyguard", help="the directory holding the npyguard package to compare (PYTHONPATH); "
                    "without it only the readers' ends are checked")
    ap.add_argument("--self-test", action="store_true",
                    help="first check that the readers' failures on corpus hazard files are seen")
    a = ap.parse_args()
    try:
        import h5py  # noqa: F401
        import hdf5storage  # noqa: F401
    except ImportError as e:
        if a.skip_without_h5py:
            print("SKIP: %s" % e)
            return 77
        raise
    if not shutil.which("strace") or not shutil.which("prlimit"):
        print("SKIP: strace or prlimit missing")
        return 77 if a.skip_without_h5py else 2
    fams = a.families.split(",")
    for fam in fams:
        if fam not in GRAMMARS:
            ap.error("unknown family " + fam)
    work = os.path.abspath(a.keep) if a.keep else tempfile.mkdtemp(prefix="npyguard-h5diff-")
    os.makedirs(work, exist_ok=True)
    reader_py = os.path.join(work, "reader.py")
    open(reader_py, "w").write(READER)
    if a.self_test and self_test(work, reader_py):
        return 1
    values_py, env = None, None
    if a.npyguard:
        values_py = os.path.join(work, "values.py")
        open(values_py, "w").write(VALUES)
        env = dict(os.environ, PYTHONPATH=os.path.abspath(a.npyguard),
                   NPYG_HDF5_HELPER=os.path.join(os.path.dirname(os.path.abspath(a.npyvalidate)), "npyg-hdf5-helper"))
    stats = {f: {"inputs": 0, "ok": 0, "refused": 0, "reader_runs": 0, "failures": 0, "equal": 0} for f in fams}
    notes = {}
    failures = []
    start = time.monotonic()
    i = 0
    while (a.count and i < a.count) or (not a.count and time.monotonic() - start < a.seconds):
        fam = fams[i % len(fams)]
        rnd = random.Random("%s-%d" % (a.seed, i))
        path = os.path.join(work, "case-%05d-%s.h5" % (i, fam))
        i += 1
        try:
            variant = GRAMMARS[fam](path, rnd)
        except Exception as e:  # the grammar asked h5py for something it refuses
            print("hdf5_diff: %s: generator: %s: %s" % (os.path.basename(path), type(e).__name__, e))
            continue
        st = stats[fam]
        st["inputs"] += 1
        rc, rec = verdict(a.npyvalidate, path)
        if rc == 2:
            failures.append((path, variant, "npyvalidate exit 2: %s" % rec))
            st["failures"] += 1
            print("hdf5_diff: FAIL %s (%s %s): npyvalidate exit 2: %s" % (os.path.basename(path), fam, variant, rec))
            continue
        if rc != 0:
            st["refused"] += 1
            if not a.keep:
                os.unlink(path)
            continue
        st["ok"] += 1
        bad = []
        for mode in READERS:
            st["reader_runs"] += 1
            kind, detail = run_reader(mode, path, work, reader_py)
            if kind:
                bad.append("%s %s" % (mode, detail))
        if not bad and values_py:
            diff, seen = run_values(path, work, values_py, env)
            for n in seen:
                notes[n] = notes.get(n, 0) + 1
            if diff:
                bad.append(diff)
            else:
                st["equal"] += 1
        if bad:
            st["failures"] += 1
            failures.append((path, variant, "; ".join(bad)))
            print("hdf5_diff: FAIL %s (%s %s): ok, but %s" % (os.path.basename(path), fam, variant, "; ".join(bad)))
        elif not a.keep:
            os.unlink(path)
    took = time.monotonic() - start
    print("hdf5_diff: seed %s, %.0f s: family, inputs, ok verdicts, refused, reader runs, values equal, "
          "failures behind an ok (reader failures and value differences)" % (a.seed, took))
    keys = ("inputs", "ok", "refused", "reader_runs", "equal", "failures")
    tot = {k: 0 for k in keys}
    for fam in fams:
        s = stats[fam]
        print("  %-11s" % fam + "".join(" %5d" % s[k] for k in keys))
        for k in tot:
            tot[k] += s[k]
    print("  %-11s" % "all" + "".join(" %5d" % tot[k] for k in keys))
    for n, c in sorted(notes.items()):
        print("  %s: %d file(s) (a reader's own failure: not compared)" % (n, c))
    if failures:
        print("hdf5_diff: %d failure(s); inputs kept in %s" % (len(failures), work))
        return 1
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
