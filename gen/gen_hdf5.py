#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write corpus/hdf5/: HDF5 and MAT files and their manifest.

Usage: /usr/bin/python3 gen/gen_hdf5.py [OUTDIR]     (default: corpus/hdf5 next to gen/)

Groups under OUTDIR:
  valid/mat/  written by hdf5storage.write with matlab_compatible=True
              (MAT v7.3: a 512-byte user block holding the MAT header)
  valid/h5/   written by hdf5storage.write with matlab_compatible=False
  hazard/     crafted with h5py: what a hostile file can make a reader do
              (external storage and links, soft links that dangle or leave
              the file, a virtual dataset, an unknown filter, references
              that cycle or point nowhere, oversized declarations, deep
              nesting, many objects, attributes that contradict the data)
  invalid/    MAT v5 and v4 files (not HDF5) and broken MAT v7.3 headers,
              crafted byte by byte from the MAT-file format description
  support/    files the hazards point at: canary.bin (external storage),
              target.h5 (external links, the virtual dataset's source)
and OUTDIR/manifest.json and OUTDIR/README.md (the table of hazards and
what hdf5storage.read does with each).

Reproducible bytes: every dataset is written without timestamps
(h5py's default track_times=False; hdf5storage uses it too), h5py files use
libver='earliest', and the MAT header's "Created on" time, which
hdf5storage takes from datetime.now(), is pinned to one fixed instant.
check_regen_hdf5.sh compares the regenerated files byte for byte.

For every file the manifest records what hdf5storage.read does with each
top-level object (the value's digest, the exception's name, and whether the
value holds the bytes of a file the object points at: "reads
support/canary.bin"), measured in a child process under an address-space
and CPU limit, with the working directory set to the file's own directory;
and the verdict and hazard codes npyguard must give. For every valid file
it also records what hdf5storage.read('/') and hdf5storage.loadmat return,
described by h5describe.describe (hdf5storage_read_root,
hdf5storage_loadmat).
"""

import collections
import datetime
import hashlib
import io
import json
import os
import random
import re
import resource
import shutil
import struct
import subprocess
import sys

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import npygen  # noqa: E402  (the generators' shared facts)
from h5describe import reader_descriptions  # noqa: E402  (one describer for generators and tests)
CANARY = b"npyguard canary: if you can read this, the reader opened a file it was not given\n"

# npyguard codes (parser/include/npyguard.h)
E = {
    "MAT_V5": 110, "MAT_V4": 111, "MAT_HEADER": 112, "NOT_HDF5": 113,
    "HDF5_OPEN": 115, "OBJECT": 119, "EXTLINK": 120, "SOFTLINK": 121, "EXTFILE": 122,
    "VDS": 123, "FILTER": 124, "REFCYCLE": 125, "REFDANGLE": 126,
    "UDLINK": 127, "FORMAT": 128, "LIMIT_OBJECTS": 130, "LIMIT_NESTING": 131,
    "POLYGLOT": 132, "LIMIT_PATHS": 133, "LIMIT_REFDEPTH": 134, "VLEN": 135, "INFLATE": 136,
    "LIMIT_PAYLOAD": 55,
}

FIXED_NOW = datetime.datetime(2024, 1, 2, 3, 4, 5)


class _FixedDatetime(datetime.datetime):
    @classmethod
    def now(cls, tz=None):
        return FIXED_NOW


def pin_hdf5storage_clock():
    import hdf5storage
    shim = type(sys)("datetime")
    shim.datetime = _FixedDatetime
    hdf5storage.datetime = shim


# ------------------------------------------------------------ valid files

def valid_values():
    """name -> value: every type in hdf5storage's storage-format table,
    empty values, nested dicts and cells."""
    v = collections.OrderedDict()
    v["bool"] = True
    v["int"] = 7
    v["float"] = 2.5
    v["complex"] = 1.5 - 2j
    v["str"] = "hello"
    v["bytes"] = b"bytes"
    v["bytearray"] = bytearray(b"bytearray")
    v["none"] = None
    v["list"] = [1, 2.0, "three"]
    v["tuple"] = (1, "two")
    v["set"] = {3}
    v["frozenset"] = frozenset([4])
    v["deque"] = collections.deque([5, 6])
    v["dict"] = {"a": 1, "b": np.arange(3.0)}
    for t in ["bool_", "int8", "int16", "int32", "int64", "uint8", "uint16",
              "uint32", "uint64", "float16", "float32", "float64",
              "complex64", "complex128"]:
        v["np-" + t] = getattr(np, t)(1)
        v["nd-" + t] = np.arange(6).reshape(2, 3).astype(getattr(np, t))
    v["np-bytes_"] = np.bytes_(b"abc")
    v["np-str_"] = np.str_("abc")
    v["nd-bytes"] = np.array([b"ab", b"cd"])
    v["nd-str"] = np.array(["ab", "cde"])
    v["nd-object"] = np.array([1, "two", np.arange(2.0)], dtype=object)
    v["matrix"] = np.matrix([[1.0, 2.0], [3.0, 4.0]])
    v["chararray"] = np.char.array([b"x", b"yz"])
    v["structured"] = np.array([(1, 2.0), (3, 4.0)], dtype=[("i", "<i4"), ("f", "<f8")])
    v["recarray"] = np.rec.array([(1, 2.0)], dtype=[("i", "<i4"), ("f", "<f8")])
    v["nd-3d"] = np.arange(24.0).reshape(2, 3, 4)
    v["empty-float"] = np.zeros((0, 3))
    v["empty-str"] = ""
    v["empty-bytes"] = b""
    v["empty-list"] = []
    v["empty-dict"] = {}
    v["nested-dict"] = {"a": {"b": {"c": np.arange(4, dtype=np.int16)}}}
    v["cell-nested"] = np.array([np.array([1, 2], dtype=object), "x"], dtype=object)
    return v


def write_valid(out):
    import hdf5storage
    pin_hdf5storage_clock()
    made = []
    for name, value in valid_values().items():
        for mc, sub, ext in ((True, "mat", "mat"), (False, "h5", "h5")):
            rel = "valid/%s/%s.%s" % (sub, name, ext)
            path = os.path.join(out, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            # hdf5storage names the cells it writes under /#refs# with
            # random.getrandbits: seeded per file, the names repeat
            random.seed(rel)
            try:
                hdf5storage.write(value, path="/v", filename=path, matlab_compatible=mc,
                                  truncate_existing=True)
            except hdf5storage.lowlevel.TypeNotMatlabCompatibleError:
                # MATLAB has no such type (float16): nothing to write
                os.unlink(path)
                continue
            made.append((rel, {"description": "hdf5storage.write of %s (%r), matlab_compatible=%s"
                               % (type(value).__name__, name, mc),
                               "verdict": "ok", "hazards": []}))
    # several variables in one MAT file, as savemat writes them
    rel = "valid/mat/savemat-several.mat"
    random.seed(rel)
    hdf5storage.savemat(os.path.join(out, rel),
                        {"a": np.arange(6.0).reshape(2, 3), "b": "text",
                         "c": {"d": np.int32(4)}}, truncate_existing=True)
    made.append((rel, {"description": "hdf5storage.savemat of three variables",
                       "verdict": "ok", "hazards": []}))
    return made


# ---------------------------------------------------------- hazard files

def h5file(path, **kw):
    return h5py.File(path, "w", libver="earliest", **kw)


def typed(ds, utype, container="ndarray", mclass=None):
    """hdf5storage's attributes, so that hdf5storage.read takes the object
    for what the attributes say."""
    ds.attrs["Python.Type"] = np.bytes_(b"numpy.ndarray")
    ds.attrs["Python.numpy.UnderlyingType"] = np.bytes_(utype.encode())
    ds.attrs["Python.numpy.Container"] = np.bytes_(container.encode())
    ds.attrs["Python.Shape"] = np.array(ds.shape[::-1] if ds.shape else (), dtype=np.uint64)
    if mclass:
        ds.attrs["MATLAB_class"] = np.bytes_(mclass.encode())


def write_hazards(out):
    made = []
    sup = os.path.join(out, "support")
    hz = os.path.join(out, "hazard")
    os.makedirs(sup, exist_ok=True)
    os.makedirs(hz, exist_ok=True)
    with open(os.path.join(sup, "canary.bin"), "wb") as f:
        f.write(CANARY)
    with h5file(os.path.join(sup, "target.h5")) as f:
        d = f.create_dataset("secret", data=np.arange(8, dtype=np.int32))
        typed(d, "int32")
    made.append(("support/target.h5", {"description": "the file the external links and the virtual dataset point at",
                                        "verdict": "ok", "hazards": []}))

    def add(name, desc, hazards, verdict="unsafe", limits=None, error=None):
        e = {"description": desc, "verdict": verdict,
             "hazards": [[E[c], p] for c, p in hazards]}
        if limits:
            e["limits"] = limits
        if error:
            e["error"] = E[error]
        made.append(("hazard/" + name, e))
        return os.path.join(hz, name)

    # external raw-data storage: the dataset's bytes live in another file
    p = add("external-storage.h5", "dataset whose raw data is stored in ../support/canary.bin",
            [("EXTFILE", "/x")])
    with h5file(p) as f:
        d = f.create_dataset("x", shape=(len(CANARY),), dtype=np.uint8,
                             external=[("../support/canary.bin", 0, len(CANARY))])
        typed(d, "uint8")
        f.create_dataset("fine", data=np.arange(3.0))

    p = add("external-link.h5", "external link to ../support/target.h5:/secret",
            [("EXTLINK", "/x")])
    with h5file(p) as f:
        f["x"] = h5py.ExternalLink("../support/target.h5", "/secret")

    p = add("soft-dangling.h5", "soft link to a path that does not exist",
            [("SOFTLINK", "/x")])
    with h5file(p) as f:
        f.create_dataset("real", data=np.arange(2.0))
        f["x"] = h5py.SoftLink("/nowhere")

    p = add("soft-escape.h5", "soft link whose target path runs through an external link",
            [("EXTLINK", "/ext"), ("SOFTLINK", "/x")])
    with h5file(p) as f:
        f["ext"] = h5py.ExternalLink("../support/target.h5", "/")
        f["x"] = h5py.SoftLink("/ext/secret")

    p = add("soft-loop.h5", "two soft links that point at each other",
            [("SOFTLINK", "/a"), ("SOFTLINK", "/b")])
    with h5file(p) as f:
        f["a"] = h5py.SoftLink("/b")
        f["b"] = h5py.SoftLink("/a")

    p = add("virtual.h5", "virtual dataset mapping ../support/target.h5:/secret",
            [("VDS", "/x")])
    with h5py.File(p, "w", libver=("earliest", "v110")) as f:
        # low-level, to leave out the timestamps create_virtual_dataset writes
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_obj_track_times(False)
        dcpl.set_fill_value(np.array(-1, dtype=np.int32))
        vspace = h5py.h5s.create_simple((8,))
        dcpl.set_virtual(vspace, b"../support/target.h5", b"secret", h5py.h5s.create_simple((8,)))
        d = h5py.Dataset(h5py.h5d.create(f.id, b"x", h5py.h5t.STD_I32LE, vspace, dcpl=dcpl))
        typed(d, "int32")

    p = add("filter-unknown.h5", "chunked dataset with filter id 32767, which no HDF5 build has",
            [("FILTER", "/x")])
    with h5file(p) as f:
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_chunk((4,))
        dcpl.set_obj_track_times(False)
        dcpl.set_filter(32767, h5py.h5z.FLAG_OPTIONAL, (1,))
        sid = h5py.h5s.create_simple((8,))
        dsid = h5py.h5d.create(f.id, b"x", h5py.h5t.NATIVE_DOUBLE, sid, dcpl=dcpl)
        d = h5py.Dataset(dsid)
        d[...] = np.arange(8.0)
        typed(d, "float64")

    ref = h5py.ref_dtype
    p = add("ref-cycle.h5", "cell whose element references a cell that references itself",
            [("REFCYCLE", "/#refs#/a")])
    with h5file(p) as f:
        r = f.create_group("#refs#")
        a = r.create_dataset("a", shape=(1, 1), dtype=ref)
        a[0, 0] = a.ref
        typed(a, "object", mclass="cell")
        c = f.create_dataset("c", shape=(1, 1), dtype=ref)
        c[0, 0] = a.ref
        typed(c, "object", mclass="cell")

    p = add("ref-dangling.h5", "cell whose reference points at an object that was unlinked",
            [("REFDANGLE", "/c")])
    with h5file(p) as f:
        r = f.create_group("#refs#")
        gone = r.create_dataset("gone", data=np.arange(2.0))
        c = f.create_dataset("c", shape=(1, 1), dtype=ref)
        c[0, 0] = gone.ref
        typed(c, "object", mclass="cell")
        del r["gone"]

    p = add("ref-null.h5", "cell with a null reference (address 0)",
            [("REFDANGLE", "/c")])
    with h5file(p) as f:
        c = f.create_dataset("c", shape=(2,), dtype=ref)
        f.create_group("#refs#").create_dataset("ok", data=np.arange(2.0))
        c[0] = f["#refs#/ok"].ref
        typed(c, "object", mclass="cell")

    p = add("oversize.h5", "chunked float64 dataset declaring 2**38 elements (2 TiB) with no chunk written",
            [("LIMIT_PAYLOAD", "/x")])
    with h5file(p) as f:
        d = f.create_dataset("x", shape=(1 << 38,), dtype=np.float64, chunks=(1024,))
        typed(d, "float64")

    p = add("oversize-attr.h5", "dataset with an attribute declaring 2**41 bytes: libhdf5 refuses to load it",
            [("OBJECT", "/x")])
    with h5file(p) as f:
        d = f.create_dataset("x", data=np.arange(2.0))
        # an attribute's data sits in the object header: the declaration is
        # made by writing a small one and enlarging its dataspace by hand
        aid = h5py.h5a.create(d.id, b"big", h5py.h5t.NATIVE_UINT8, h5py.h5s.create_simple((291,)))
        aid.write(np.zeros(291, np.uint8))
    patch_attr_dims(p, 291, 1 << 41)

    p = add("payload-limit.h5", "a 24-byte dataset with a 16-byte attribute; scanned with --max-payload 8",
            [("LIMIT_PAYLOAD", "/x"), ("LIMIT_PAYLOAD", "/x@a")], limits={"max_payload_bytes": 8})
    with h5file(p) as f:
        d = f.create_dataset("x", data=np.arange(3.0))
        d.attrs["a"] = np.arange(2.0)
        f.create_dataset("small", data=np.float64(1))

    p = add("deep.h5", "groups nested 40 deep (the default limit is 32)",
            [("LIMIT_NESTING", "/" + "/".join(["g"] * 33))])
    with h5file(p) as f:
        g = f
        for _ in range(40):
            g = g.create_group("g")
        g.create_dataset("leaf", data=np.arange(2.0))

    p = add("many.h5", "120 datasets; scanned with --max-objects 100",
            [("LIMIT_OBJECTS", "/d100")], limits={"max_objects": 100})
    with h5file(p) as f:
        for i in range(120):
            f.create_dataset("d%03d" % i, data=np.float64(i))

    p = add("contradict.h5", "hdf5storage-written float64 array whose attributes say int8 and another shape",
            [("FORMAT", "/x")], verdict="ok")
    import hdf5storage
    random.seed("hazard/contradict.h5")
    hdf5storage.write(np.arange(6.0).reshape(2, 3), path="/x", filename=p,
                      matlab_compatible=False, truncate_existing=True)
    with h5py.File(p, "r+") as f:
        f["x"].attrs["Python.numpy.UnderlyingType"] = np.bytes_(b"int8")
        f["x"].attrs["Python.Shape"] = np.array([5, 7], dtype=np.uint64)
    p = add("contradict-class.mat", "MAT file whose MATLAB_class says char over float64 data",
            [("FORMAT", "/x")], verdict="ok")
    pin_hdf5storage_clock()
    hdf5storage.write(np.arange(6.0).reshape(2, 3), path="/x", filename=p,
                      matlab_compatible=True, truncate_existing=True)
    with h5py.File(p, "r+") as f:
        f["x"].attrs["MATLAB_class"] = np.bytes_(b"char")

    p = add("hardlink-cycle.h5", "group holding a hard link to its own parent",
            [("REFCYCLE", "/g/up")])
    with h5file(p) as f:
        g = f.create_group("g")
        g["up"] = f
    write_verdict_hazards(add)
    return made


# Files that a validator once called ok while the reader that ran next hung,
# crashed or grew past its memory: each class of the differential generator
# (fuzz/differential/hdf5_diff.py), kept small.

def refs_dataset(parent, name, targets, mclass="cell"):
    d = parent.create_dataset(name, shape=(len(targets), 1), dtype=h5py.ref_dtype)
    for i, t in enumerate(targets):
        d[i, 0] = t.ref
    d.attrs["MATLAB_class"] = np.bytes_(mclass.encode())
    return d


def patch_vlen(path, old_len, new_len, count=None, base=0):
    """Rewrites the length of the vlen descriptors (4-byte length, 8-byte
    collection address, 4-byte index: HDF5's global heap ID on disk) of
    length old_len that point into the file's collections (addresses count
    from base, the user block's size)."""
    with open(path, "rb") as f:
        data = bytearray(f.read())
    n = 0
    at = data.find(b"GCOL")
    while at >= 0:
        for idx in range(1, 4096):
            old = struct.pack("<IQI", old_len, at - base, idx)
            k = data.count(old)
            if k:
                data = data.replace(old, struct.pack("<IQI", new_len, at - base, idx))
                n += k
        at = data.find(b"GCOL", at + 4)
    assert n and (count is None or n == count), "vlen descriptors of length %d: %d in %s" % (old_len, n, path)
    with open(path, "wb") as f:
        f.write(data)


def patch_vlen_base(path, size):
    """Gives the element type of the file's one vlen string type (a
    datatype message of version 1, class 9, string, 16 bytes a descriptor,
    over a 1-byte integer) another size."""
    with open(path, "rb") as f:
        data = bytearray(f.read())
    at = [m.start() for m in re.finditer(rb"\x19\x01[\x00\x01]\x00\x10\x00\x00\x00\x10\x00\x00\x00\x01\x00\x00\x00", data)]
    assert len(at) == 1, "vlen string types in %s: %d" % (path, len(at))
    struct.pack_into("<I", data, at[0] + 12, size)
    with open(path, "wb") as f:
        f.write(data)


def heap_objects(data):
    """(collection offset, index, size) of every object of every global heap
    collection in the file ("GCOL", version, reserved, size, then objects:
    index, reference count, reserved, size, data padded to 8 bytes)."""
    out = []
    at = data.find(b"GCOL")
    while at >= 0:
        size = struct.unpack_from("<Q", data, at + 8)[0]
        off = at + 16
        while off + 16 <= at + size:
            idx, _, _, sz = struct.unpack_from("<HHIQ", data, off)
            if idx == 0:
                break
            out.append((at, idx, sz))
            off += 16 + ((sz + 7) & ~7)
        at = data.find(b"GCOL", at + size)
    return out


def point_vlen(path, small_len, big_len):
    """Points every descriptor of length small_len at the heap object of
    big_len bytes: many records, one large object."""
    with open(path, "rb") as f:
        data = bytearray(f.read())
    objs = heap_objects(data)
    big = [(at, idx) for at, idx, sz in objs if sz == big_len]
    assert len(big) == 1, big
    n = 0
    for at, idx, sz in objs:
        old = struct.pack("<IQI", small_len, at, idx)
        if sz == small_len and data.count(old):
            n += data.count(old)
            data = data.replace(old, struct.pack("<IQI", big_len, big[0][0], big[0][1]))
    with open(path, "wb") as f:
        f.write(data)
    return n


def pad_to_power(data):
    n = 512
    while n < len(data):
        n *= 2
    return data + b"\0" * (n - len(data))


def write_verdict_hazards(add):
    import hdf5storage

    # expansion without a cycle: each level links twice to the next
    p = add("dag-links.h5", "10 groups, each holding two hard links to the next: 2**10 paths to the last; a loop "
            "over every group's keys visits 6132 objects; scanned with --max-paths 1000", [("LIMIT_PATHS", "/")],
            limits={"max_paths": 1000})
    with h5file(p) as f:
        gs = [f.create_group("a")] + [f.create_group("#refs#/l%02d" % i) for i in range(10)]
        for a, b in zip(gs, gs[1:]):
            a["x"] = b
            a["y"] = b
        gs[-1].create_dataset("leaf", data=np.arange(2.0))

    p = add("ref-chain.h5", "a cell whose element is a cell whose element is a cell ... 340 deep",
            [("LIMIT_REFDEPTH", "/top")])
    with h5file(p) as f:
        r = f.create_group("#refs#")
        prev = r.create_dataset("leaf", data=np.arange(2.0))
        for i in range(340):
            prev = refs_dataset(r, "c%03d" % i, [prev])
        refs_dataset(f, "top", [prev])

    p = add("soft-ancestor.h5", "soft links to '.', to '/', to the parent group, and a struct field to its own struct",
            [("SOFTLINK", "/g/dot"), ("SOFTLINK", "/g/h/up"), ("SOFTLINK", "/g/root"), ("SOFTLINK", "/s/self")])
    with h5file(p) as f:
        g = f.create_group("g")
        g.create_dataset("v", data=np.arange(2.0))
        g["dot"] = h5py.SoftLink(".")
        g["root"] = h5py.SoftLink("/")
        g.create_group("h")["up"] = h5py.SoftLink("/g")
        st = f.create_group("s")
        st.attrs["MATLAB_class"] = np.bytes_(b"struct")
        st.create_dataset("a", data=np.arange(2.0))
        st["self"] = h5py.SoftLink("/s")

    p = add("soft-chain.h5", "soft links chained: /s15 follows 16 (libhdf5 does), /s16 would follow 17 (libhdf5 stops)",
            [("SOFTLINK", "/s16")])
    with h5file(p) as f:
        f.create_dataset("t", data=np.arange(2.0))
        f["s00"] = h5py.SoftLink("/t")
        for i in range(1, 17):
            f["s%02d" % i] = h5py.SoftLink("/s%02d" % (i - 1))

    p = add("vlen-short.h5", "vlen string dataset whose second descriptor says 10 bytes for a 100-byte heap object",
            [("VLEN", "/x")])
    with h5file(p) as f:
        f.create_dataset("x", data=np.array(["A" * 50, "B" * 100], dtype=object), dtype=h5py.string_dtype())
    patch_vlen(p, 100, 10, count=1)

    p = add("vlen-long-attr.h5", "vlen string attribute whose descriptor says 1000000 bytes for a 100-byte heap object",
            [("VLEN", "/x@s")])
    with h5file(p) as f:
        d = f.create_dataset("x", data=np.arange(2.0))
        d.attrs.create("s", "C" * 100, dtype=h5py.string_dtype())
    patch_vlen(p, 100, 1000000, count=1)

    p = add("vlen-matlab-fields.mat", "hdf5storage's own MATLAB_fields and Python.Fields attributes, whose vlen "
            "descriptors say 3 elements for the 5 of 'alpha'", [("VLEN", "/v@MATLAB_fields"), ("VLEN", "/v@Python.Fields")])
    random.seed("hazard/vlen-matlab-fields.mat")
    hdf5storage.write({"alpha": np.float64(1), "beta": np.float64(2)}, path="/v", filename=p,
                      matlab_compatible=True, truncate_existing=True)
    patch_vlen(p, 5, 3, count=2, base=512)

    p = add("vlen-fanout.h5", "1100 vlen strings that all point at one 64 KiB heap object: 70 MiB in a reader",
            [("INFLATE", "/x")])
    with h5file(p) as f:
        f.create_dataset("x", data=np.array(["D" * 65536] + ["e"] * 1100, dtype=object), dtype=h5py.string_dtype())
    assert point_vlen(p, 1, 65536) == 1100

    p = add("vlen-str-base.h5", "vlen string attribute of 7 characters whose type gives each character 1 GiB: "
            "7 GiB in a reader's conversion", [("VLEN", "/x@s")])
    with h5file(p) as f:
        d = f.create_dataset("x", data=np.arange(2.0))
        d.attrs.create("s", "ndarray", dtype=h5py.string_dtype())
    patch_vlen_base(p, 1 << 30)

    p = add("empty-huge.h5", "values marked empty (Python.Empty) whose Python.Shape says 2**40 elements: "
            "float64, bytes and str", [("LIMIT_PAYLOAD", "/b"), ("LIMIT_PAYLOAD", "/f"), ("LIMIT_PAYLOAD", "/s")])
    random.seed("hazard/empty-huge.h5")
    for name, v in (("f", np.zeros((0,))), ("b", np.zeros((0,), dtype="S8")), ("s", np.zeros((0,), dtype="U8"))):
        hdf5storage.write(v, path="/" + name, filename=p, matlab_compatible=False, truncate_existing=name == "f")
    with h5py.File(p, "r+") as f:
        for name in ("f", "b", "s"):
            f[name].attrs["Python.Shape"] = np.array([1 << 20, 1 << 20], dtype=np.uint64)

    p = add("empty-matlab.mat", "a MATLAB value marked empty (MATLAB_empty) whose dimensions say 2**20 x 2**20 doubles",
            [("LIMIT_PAYLOAD", "/v")])
    pin_hdf5storage_clock()
    random.seed("hazard/empty-matlab.mat")
    hdf5storage.write(np.zeros((0, 3)), path="/v", filename=p, matlab_compatible=True, truncate_existing=True)
    with h5py.File(p, "r+") as f:
        attrs = dict(f["v"].attrs)
        del f["v"]
        d = f.create_dataset("v", data=np.array([1 << 20, 1 << 20], dtype=np.uint64))
        for k, val in attrs.items():
            if not k.startswith("Python."):  # so that hdf5storage reads it as MATLAB's
                d.attrs[k] = val

    p = add("empty-zeros.h5", "a float64 value marked empty whose Python.Shape says 2**27 elements: 1 GiB of zeros "
            "from a file of a few KiB", [("INFLATE", "/f")])
    random.seed("hazard/empty-zeros.h5")
    hdf5storage.write(np.zeros((0,)), path="/f", filename=p, matlab_compatible=False, truncate_existing=True)
    with h5py.File(p, "r+") as f:
        f["f"].attrs["Python.Shape"] = np.array([1 << 27], dtype=np.uint64)

    p = add("inflate-chunks.h5", "chunked, deflated float64 zeros: 128 MiB from about 130 KiB", [("INFLATE", "/x")])
    with h5file(p) as f:
        d = f.create_dataset("x", shape=(1 << 24,), dtype=np.float64, chunks=(1 << 18,), compression="gzip",
                             compression_opts=9)
        d[...] = 0.0
        typed(d, "float64")

    p = add("unwritten.h5", "chunked float64 dataset of 2**27 elements (1 GiB) never written: a reader makes the fill value",
            [("INFLATE", "/x")])
    with h5file(p) as f:
        d = f.create_dataset("x", shape=(1 << 27,), dtype=np.float64, chunks=(1 << 16,))
        typed(d, "float64")

    p = add("refs-hidden.h5", "references where no reference dataset is: an attribute that references its own "
            "dataset, a compound member that is a null reference, a named datatype's attribute that dangles",
            [("REFCYCLE", "/a"), ("REFDANGLE", "/c"), ("REFDANGLE", "/t@r")])
    with h5file(p) as f:
        a = f.create_dataset("a", data=np.arange(2.0))
        a.attrs.create("r", a.ref, dtype=h5py.ref_dtype)
        ct = np.dtype([("n", "<i4"), ("r", h5py.ref_dtype)])
        c = f.create_dataset("c", shape=(2,), dtype=ct)
        c[0] = (1, a.ref)
        f["t"] = np.dtype("<f8")
        gone = f.create_dataset("gone", data=np.arange(2.0))
        f["t"].attrs.create("r", gone.ref, dtype=h5py.ref_dtype)
        del f["gone"]

    # two formats: each also an HDF5 file, its superblock at a power of two
    inner = os.path.join(os.path.dirname(p), ".inner.h5")
    with h5file(inner) as f:
        f.create_dataset("x", data=np.arange(4.0))
    h5 = open(inner, "rb").read()
    os.unlink(inner)
    buf = io.BytesIO()
    np.save(buf, np.arange(3, dtype=np.int32))
    npz = io.BytesIO()
    np.savez(npz, a=np.arange(3, dtype=np.int32))
    ra = open(os.path.join(HERE, "..", "corpus", "ra", "valid", "f64-le-2d.ra"), "rb").read()
    for name, head, what in (("polyglot.npy", buf.getvalue(), "an .npy"), ("polyglot.npz", npz.getvalue(), "an .npz"),
                             ("polyglot.ra", ra, "a RawArray .ra")):
        body = pad_to_power(head)
        p = add(name, "%s file (numpy reads it) followed by an HDF5 file at offset %d (h5py reads it)"
                % (what, len(body)), [], error="POLYGLOT")
        with open(p, "wb") as f:
            f.write(body + h5)


def patch_attr_dims(path, old, new):
    """Rewrites, in an attribute's dataspace message, the dimension `old`
    and its maximum (8 bytes little-endian each, as libhdf5 writes sizes;
    they are the only two such byte strings in the file) to `new`."""
    with open(path, "rb") as f:
        data = bytearray(f.read())
    needle = struct.pack("<Q", old)
    assert data.count(needle) == 2, "dimension and maximum not found in " + path
    data = data.replace(needle, struct.pack("<Q", new))
    with open(path, "wb") as f:
        f.write(data)


# -------------------------------------------------- MAT v5/v4 and headers

def mat_text(s):
    b = s.encode("ascii")
    return b + b" " * (116 - len(b))


def mat_header(text, subsys=b"\0" * 8, version=0x0200, endian=b"IM"):
    ver = struct.pack("<H" if endian == b"IM" else ">H", version)
    return mat_text(text) + subsys + ver + endian


def mat_v5_file():
    """A MAT v5 file with one 1x1 double 'a' = 1.0 (miMATRIX element)."""
    def el(t, payload):
        pad = (-len(payload)) % 8
        return struct.pack("<II", t, len(payload)) + payload + b"\0" * pad
    body = (el(6, struct.pack("<II", 6, 0))            # array flags: mxDOUBLE_CLASS
            + el(5, struct.pack("<ii", 1, 1))          # dimensions
            + el(1, b"a")                              # name (miINT8)
            + el(9, struct.pack("<d", 1.0)))           # real part (miDOUBLE)
    return (mat_header("MATLAB 5.0 MAT-file, Platform: GLNXA64, Created on: Tue Jan  2 03:04:05 2024",
                       version=0x0100)
            + struct.pack("<II", 14, len(body)) + body)


def mat_v4_file():
    """A MAT v4 file: one 1x1 full double matrix 'a' (type 0000, little-endian)."""
    return struct.pack("<iiiii", 0, 1, 1, 0, 2) + b"a\0" + struct.pack("<d", 1.0)


def write_invalid(out):
    made = []
    d = os.path.join(out, "invalid")
    os.makedirs(d, exist_ok=True)

    def add(name, data, desc, code, verdict="invalid"):
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
        made.append(("invalid/" + name, {"description": desc, "verdict": verdict,
                                          "error": E[code], "hazards": []}))

    add("mat-v5.mat", mat_v5_file(), "MAT v5 file (not HDF5): unsupported", "MAT_V5")
    add("mat-v4.mat", mat_v4_file(), "MAT v4 file: unsupported", "MAT_V4")
    good = open(os.path.join(out, "valid/mat/nd-float64.mat"), "rb").read()
    hdr = good[:128]

    def patched(off, b):
        x = bytearray(good)
        x[off:off + len(b)] = b
        return bytes(x)
    add("mat73-bad-version.mat", patched(124, struct.pack("<H", 0x0300)),
        "MAT v7.3 header with version 0x0300", "MAT_HEADER")
    add("mat73-bad-endian.mat", patched(126, b"XY"),
        "MAT v7.3 header with endian indicator 'XY'", "MAT_HEADER")
    add("mat73-v5-version.mat", patched(124, struct.pack("<H", 0x0100)),
        "text says 7.3 and an HDF5 file follows, but the version field says 0x0100 (v5)", "MAT_HEADER")
    add("mat73-no-hdf5.mat", hdr + b"\0" * 384,
        "MAT v7.3 header in a user block with no HDF5 file after it", "MAT_HEADER")
    add("mat73-truncated.mat", hdr[:100], "file ends inside the MAT header", "MAT_HEADER")
    add("hdf5-truncated.h5", good[512:512 + 40], "HDF5 superblock cut after 40 bytes", "HDF5_OPEN")
    add("not-a-format.bin", b"hello, this is not an array file\n", "text: no format recognised", "NOT_HDF5")
    return made


# ------------------------------------------------------------ measurement

# Runs in a child of this generator: imports hdf5storage once, then reads
# each object in a forked grandchild under the limits, from the file's own
# directory, and prints one JSON line per object. The CPU limit ends the
# reads that never end (hazard/soft-ancestor.h5's /g) and must sit well
# clear of the slowest read that does: that file's /s takes 9.5 s at
# Python's default recursion limit (its time grows as the limit's cube),
# and a 10 s limit recorded it as killed on a slower or busier machine.
CPU_SECONDS = 30
MEASURE = r"""
import hashlib, os, resource, sys, json
import numpy as np, hdf5storage, h5py
jobs, canaries = json.loads(sys.argv[1]), json.loads(sys.argv[2])
sys.path.insert(0, sys.argv[3])
CPU_SECONDS = int(sys.argv[4])
from npygen import exc_name
def flat(v, out):
    if isinstance(v, np.ndarray) and v.dtype == object:
        out.append(repr(v.shape).encode())
        for x in v.flat: flat(x, out)
    elif isinstance(v, np.ndarray) and v.dtype.hasobject:  # records holding references: no pointers
        out.append(repr((v.dtype.str, v.shape)).encode())
        for x in v.flat: out.append(repr(x).encode())
    elif isinstance(v, np.ndarray):
        out.append(repr((v.dtype.str, v.shape)).encode()); out.append(np.ascontiguousarray(v).tobytes())
    elif isinstance(v, dict):
        for k in v: out.append(repr(k).encode()); flat(v[k], out)
    elif isinstance(v, (list, tuple)):
        out.append(type(v).__name__.encode())
        for x in v: flat(x, out)
    else:
        out.append(repr(v).encode())
def one(path, name):
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))
    sys.setrecursionlimit(1000)
    os.chdir(os.path.dirname(path))
    try:
        v = hdf5storage.read(path="/" + name, filename=os.path.basename(path))
        parts = []
        flat(v, parts)
        blob = b"".join(parts)
    except BaseException as e:
        return {"exception": exc_name(e)}
    r = {"value_sha256": hashlib.sha256(blob).hexdigest(), "type": type(v).__name__}
    reads = [c for c, content in canaries.items() if content.encode("latin-1") in blob]
    if reads: r["reads"] = reads
    return r
for path, name in jobs:
    rd, wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rd)
        os.write(wr, json.dumps(one(path, name)).encode())
        os._exit(0)
    os.close(wr)
    data = b""
    while True:
        b = os.read(rd, 65536)
        if not b: break
        data += b
    os.close(rd)
    _, st = os.waitpid(pid, 0)
    if data:
        r = json.loads(data)
    elif os.WIFSIGNALED(st):
        import signal
        r = {"exception": "killed by %s" % signal.Signals(os.WTERMSIG(st)).name}
    else:
        r = {"exception": "exited with status %d" % os.WEXITSTATUS(st)}
    print(json.dumps([path, name, r]), flush=True)
"""


def canary_contents(out):
    c = {"support/canary.bin": CANARY.decode("latin-1")}
    with h5py.File(os.path.join(out, "support/target.h5"), "r") as f:
        c["support/target.h5:/secret"] = f["secret"][()].tobytes().decode("latin-1")
    return c


def h5py_datasets(path):
    """path -> [dtype.str, shape] of every dataset h5py reaches by hard
    links from the root (visititems follows neither soft nor external
    links); None when h5py cannot open the file."""
    out = {}
    try:
        with h5py.File(path, "r") as f:
            def visit(name, obj):
                if isinstance(obj, h5py.Dataset):
                    out["/" + name] = [obj.dtype.str, list(obj.shape) if obj.shape is not None else None]
            f.visititems(visit)
    except OSError:
        return None
    return out


def top_names(path):
    try:
        with h5py.File(path, "r") as f:
            return sorted(k for k in f.keys() if k != "#refs#")
    except OSError as e:
        return npygen.exc_name(e)


def measure_all(out, rels, canaries):
    """rel -> {object name: what hdf5storage.read did}"""
    res, jobs = {}, []
    for rel in rels:
        names = top_names(os.path.join(out, rel))
        if isinstance(names, str):
            res[rel] = {"h5py_open": names}
            continue
        res[rel] = {}
        jobs += [[os.path.join(out, rel), n] for n in names]
    p = subprocess.run([sys.executable, "-c", MEASURE, json.dumps(jobs), json.dumps(canaries), HERE, str(CPU_SECONDS)],
                       capture_output=True, check=True, timeout=1800)
    for line in p.stdout.decode().splitlines():
        path, name, r = json.loads(line)
        res[os.path.relpath(path, out)][name] = r
    return res


CODE_NAMES = {110: "NPYG_EMAT_V5", 111: "NPYG_EMAT_V4", 112: "NPYG_EMAT_HEADER", 113: "NPYG_EHDF5_NOTHDF5",
              132: "NPYG_EPOLYGLOT", 133: "NPYG_ELIMIT_PATHS", 134: "NPYG_ELIMIT_REFDEPTH", 135: "NPYG_EHDF5_VLEN",
              136: "NPYG_EHDF5_INFLATE", 127: "NPYG_EHDF5_UDLINK",
              115: "NPYG_EHDF5_OPEN", 119: "NPYG_EHDF5_OBJECT", 120: "NPYG_EHDF5_EXTLINK",
              121: "NPYG_EHDF5_SOFTLINK", 122: "NPYG_EHDF5_EXTFILE", 123: "NPYG_EHDF5_VIRTUAL",
              124: "NPYG_EHDF5_FILTER", 125: "NPYG_EHDF5_REFCYCLE", 126: "NPYG_EHDF5_REFDANGLE",
              128: "NPYG_EHDF5_FORMAT", 130: "NPYG_ELIMIT_OBJECTS", 131: "NPYG_ELIMIT_NESTING",
              55: "NPYG_ELIMIT_PAYLOAD"}

README_HEAD = """# corpus/hdf5: HDF5 and MAT v7.3 files

Written by `gen/gen_hdf5.py` (which also writes this page) with Debian's
python3-hdf5storage %s and h5py %s (HDF5 %s, numpy %s); `manifest.json`
holds, for every file, the verdict and the hazards (code, object path)
npyguard must report, the dtype and shape h5py reads for every dataset,
and what `hdf5storage.read` does with each top-level object, measured in a
child process (2 GiB address space, %d s CPU, recursion limit 1000) from
the file's own directory: a digest of the value, the exception's name, or
"reads X" when the value holds the bytes of a file the object points at.
For every valid file it also records what `hdf5storage.read('/')` and
`hdf5storage.loadmat` return (`hdf5storage_read_root`,
`hdf5storage_loadmat`), described by `gen/h5describe.py`: types, dtypes
with their byte order, shapes and a SHA-256 of the value bytes, recursively
through dicts, lists, object and structured arrays, strings by value; the
tests of npyguard's MATLAB decoder compare their result with these.
The files regenerate byte for byte (`gen/check_regen_hdf5.sh`): no dataset
timestamps, the MAT header's clock pinned, hdf5storage's random `#refs#`
names seeded.

| group | files | what |
|---|---|---|
| `valid/mat/` | %d | `hdf5storage.write(..., matlab_compatible=True)`: every type of hdf5storage's storage-format table that MATLAB has (float16 has no MATLAB class), empty values, nested dicts, cells; one `savemat` of three variables |
| `valid/h5/` | %d | the same values with `matlab_compatible=False` (plain HDF5, Python attributes only) |
| `hazard/` | %d | crafted with h5py: what a hostile file can make a reader do |
| `invalid/` | %d | MAT v5 and v4 files and broken MAT v7.3 headers, crafted from the MAT-file format description; a truncated HDF5 file; not a format |
| `support/` | 2 | `canary.bin` (the external-storage hazard's raw data) and `target.h5` (the external links' and the virtual dataset's target) |

Every valid file is `ok` under both profiles, with no warning.

## Hazard and invalid files, and what hdf5storage.read does with them

| file | what | npyguard | hdf5storage.read |
|---|---|---|---|
"""

README_NOTES = """
Notes, measured:
- `external-storage.h5`, `external-link.h5`, `soft-escape.h5` and
  `virtual.h5` hand out the bytes of another file on the reader's disk;
  npyguard's scan opens none of them (ctest `hdf5_opens_no_other_file`
  traces it with strace; a seccomp filter kills the scanning child if it
  opens any file after its input).
- `ref-cycle.h5` ends `hdf5storage.read` in RecursionError;
  `hardlink-cycle.h5` in UnboundLocalError.
- `filter-unknown.h5`: the filter was stored optional (h5py cannot write a
  mandatory filter it does not have), so every chunk carries the "skipped"
  bit and hdf5storage reads the values; strace showed no plugin directory
  opened for this file. npyguard reports any filter id other than libhdf5's
  six built-in ones, whatever its flags.
- `oversize-attr.h5`: libhdf5 itself refuses to load an attribute that
  declares 2 TiB, so the scan reports `NPYG_EHDF5_OBJECT` at the object;
  the attribute size limit is shown by `payload-limit.h5`.
- `mat73-bad-*.mat` and `mat73-v5-version.mat`: h5py and hdf5storage ignore
  the MAT header (the user block) and read the data; npyguard refuses the
  file as a MAT v7.3 file with a broken header.
- The files from `dag-links.h5` to `polyglot.ra` are the classes of
  `fuzz/differential/hdf5_diff.py`, each a file an earlier npyguard called
  `ok`: the readers' column is what they do now, measured again on every
  regeneration. `soft-ancestor.h5`'s `g` is killed at the CPU limit (the
  reader follows `.` for ever), `ref-chain.h5` ends in RecursionError,
  `empty-huge.h5` in MemoryError; `empty-zeros.h5` and `unwritten.h5` make
  1 GiB from a few KiB, and `dag-links.h5` (scanned with a small
  `--max-paths`) grows as 2**levels.
- The vlen files carry descriptors whose lengths disagree with their heap
  objects (`vlen-short.h5`, `vlen-long-attr.h5`, and hdf5storage's own
  `MATLAB_fields` and `Python.Fields` in `vlen-matlab-fields.mat`), or
  1100 descriptors that share one 64 KiB object (`vlen-fanout.h5`: 70 MiB in
  a reader from 115 KiB), or a vlen string type whose characters are 1 GiB
  each (`vlen-str-base.h5`: a reader's conversion allocates length times
  that size; h5py, given no limit, grew to 15 GB on such a file). With libhdf5 1.10.8 these particular lies did
  not crash hdf5storage or h5py in our runs, so the readers' column shows
  values; npyguard refuses every disagreement before any conversion,
  since the length decides the buffer libhdf5 copies the heap object into.
- `polyglot.npy`, `.npz` and `.ra`: numpy reads the array, and h5py (so
  hdf5storage, so MATLAB) reads the HDF5 file at 512: the readers' column
  is h5py's reading.
"""


def write_readme(out, m):
    count = {}
    for k in m["files"]:
        g = "/".join(k.split("/")[:2]) if k.startswith("valid/") else k.split("/")[0]
        count[g] = count.get(g, 0) + 1
    lines = [README_HEAD % (m["hdf5storage_version"], m["h5py_version"], m["hdf5_version"], m["numpy_version"],
                            CPU_SECONDS, count.get("valid/mat", 0), count.get("valid/h5", 0), count.get("hazard", 0),
                            count.get("invalid", 0))]
    for k, v in m["files"].items():
        if not (k.startswith("hazard/") or k.startswith("invalid/")):
            continue
        r = v["hdf5storage_read"]
        if "h5py_open" in r:
            rd = "h5py cannot open it (%s)" % r["h5py_open"]
        else:
            parts = []
            for n, x in sorted(r.items()):
                if "exception" in x:
                    parts.append("`%s`: %s" % (n, x["exception"]))
                elif "reads" in x:
                    parts.append("`%s`: **reads %s**" % (n, ", ".join(x["reads"])))
                else:
                    parts.append("`%s`: a value" % n)
            if len(parts) > 6:
                parts = ["%d objects, each a value" % len(parts)]
            rd = "; ".join(parts)
        hz = ", ".join("%s `%s`" % (CODE_NAMES[c], p) for c, p in v["hazards"])
        if not hz and "error" in v:
            hz = CODE_NAMES[v["error"]]
        if v["verdict"] == "ok" and v["hazards"]:
            hz = "warning (`--strict`: %s)" % hz
        lines.append("| `%s` | %s | %s | %s |\n" % (k, v["description"], hz, rd))
    lines.append(README_NOTES)
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("".join(lines))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "corpus", "hdf5")
    out = os.path.abspath(out)
    for sub in ("valid", "hazard", "invalid", "support"):
        shutil.rmtree(os.path.join(out, sub), ignore_errors=True)
    os.makedirs(out, exist_ok=True)
    files = write_valid(out) + write_hazards(out) + write_invalid(out)
    canaries = canary_contents(out)
    manifest = {"generator": "gen/gen_hdf5.py",
                "h5py_version": h5py.__version__,
                "hdf5_version": h5py.version.hdf5_version,
                "hdf5storage_version": __import__("hdf5storage").__version__,
                "numpy_version": np.__version__,
                "files": {}}
    measured = measure_all(out, [rel for rel, _ in files], canaries)
    for rel, entry in sorted(files):
        entry["sha256"] = hashlib.sha256(open(os.path.join(out, rel), "rb").read()).hexdigest()
        entry["hdf5storage_read"] = measured[rel]
        if rel.startswith("valid/"):
            returns = reader_descriptions(os.path.join(out, rel))
            entry["hdf5storage_read_root"] = returns["read"]
            entry["hdf5storage_loadmat"] = returns["loadmat"]
        ds = h5py_datasets(os.path.join(out, rel))
        if ds is not None:
            entry["h5py_datasets"] = ds
        manifest["files"][rel] = entry
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    write_readme(out, manifest)
    print("wrote %d files to %s" % (len(files), out))


if __name__ == "__main__":
    main()
