#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write corpus/ra/: RawArray (.ra) files and their manifest.

Usage: /usr/bin/python3 gen/gen_ra.py [OUTDIR]      (default: corpus/ra next to gen/)

The header is written here from the format's text (parser/RA.md cites it):
six little-endian u64 fields (magic b"rawarray", flags, eltype, elbyte,
size, ndims), then ndims u64 dims, the data segment, then optional
metadata. The data comes from numpy, laid out column-major (dims[0]
varies fastest: ndarray.tobytes(order="F") of an array whose shape is the
dims). Compressed data is one LZ4 block made by the real liblz4
(LZ4_compress_default through ctypes on liblz4.so.1). Nothing here calls
npyguard: every expected value comes from numpy, liblz4 or the defect
each invalid file was built with.

Deterministic: fixed arrays and liblz4's deterministic block compressor,
so two runs with the same numpy and liblz4 give identical bytes
(gen/check_regen.sh checks it).

Groups under OUTDIR:
  valid/    well-formed files: every eltype with its widths, both byte
            orders, 0-d to many dims, zero-size, LZ4, metadata after the data
  limit/    well-formed files npyguard refuses under its default limits
  invalid/  one defect each
and OUTDIR/manifest.json (described in OUTDIR/README.md).
"""

import ctypes
import ctypes.util
import hashlib
import json
import os
import shutil
import struct
import sys

import numpy as np

from npygen import json_int

HERE = os.path.dirname(os.path.abspath(__file__))
MAGIC = b"rawarray"            # the u64 0x7961727261776172, little-endian
FLAG_BIG_ENDIAN = 1
FLAG_COMPRESSED = 2
ELTYPE_NAMES = {0: "user", 1: "int", 2: "uint", 3: "float", 4: "complex", 5: "bool"}


# ---------------------------------------------------------------- liblz4

def load_lz4():
    name = ctypes.util.find_library("lz4") or "liblz4.so.1"
    lib = ctypes.CDLL(name)
    lib.LZ4_compress_default.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
    lib.LZ4_compress_default.restype = ctypes.c_int
    lib.LZ4_compressBound.argtypes = [ctypes.c_int]
    lib.LZ4_compressBound.restype = ctypes.c_int
    lib.LZ4_decompress_safe.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
    lib.LZ4_decompress_safe.restype = ctypes.c_int
    lib.LZ4_versionString.restype = ctypes.c_char_p
    return lib


LZ4 = load_lz4()


def lz4_block(data):
    bound = LZ4.LZ4_compressBound(len(data))
    out = ctypes.create_string_buffer(max(bound, 1))
    n = LZ4.LZ4_compress_default(data, out, len(data), bound)
    if n <= 0:
        raise RuntimeError("LZ4_compress_default failed")
    block = out.raw[:n]
    # Round trip with the library's own decoder, so the corpus cannot hold
    # a block liblz4 would not decode.
    back = ctypes.create_string_buffer(max(len(data), 1))
    if LZ4.LZ4_decompress_safe(block, back, len(block), len(data)) != len(data) or back.raw[:len(data)] != data:
        raise RuntimeError("LZ4 round trip failed")
    return block


# ---------------------------------------------------------------- writer

def header(flags, eltype, elbyte, size, dims, ndims=None):
    nd = len(dims) if ndims is None else ndims
    return MAGIC + struct.pack("<5Q", flags, eltype, elbyte, size, nd) + b"".join(struct.pack("<Q", d) for d in dims)


def sha(b):
    return hashlib.sha256(b).hexdigest()


def type_name(eltype, elbyte):
    # As the reference readers print it: kind, then bits (ra.py's query,
    # RawArray.jl's raquery); Boolean elements are "bool".
    return "bool" if eltype == 5 else "%s%d" % (ELTYPE_NAMES[eltype], elbyte * 8)


class Corpus:
    def __init__(self, outdir):
        self.outdir = outdir
        self.files = {}

    def put(self, group, name, blob, entry):
        path = os.path.join(self.outdir, group, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(blob)
        entry["group"] = group
        entry["file_size"] = len(blob)
        self.files["%s/%s" % (group, name)] = entry

    def array(self, group, name, arr, eltype, description, compress=False, metadata=b"", platform=False):
        """A well-formed file holding numpy array arr; its shape is the RA dims."""
        dt = arr.dtype
        big = dt.fields is None and dt.str[0] == ">"
        data = arr.tobytes(order="F")
        if platform:
            # x87 extended precision fills 10 of every 16 bytes; numpy leaves
            # the other 6 as they were in memory, so they are zeroed here.
            b = np.frombuffer(data, dtype="u1").copy().reshape(-1, 16)
            b[:, 10:] = 0
            data = b.tobytes()
        dims = list(arr.shape)
        elbyte = dt.itemsize
        stored = lz4_block(data) if compress else data
        flags = (FLAG_BIG_ENDIAN if big else 0) | (FLAG_COMPRESSED if compress else 0)
        blob = header(flags, eltype, elbyte, len(stored), dims) + stored + metadata
        entry = self.describe(flags, eltype, elbyte, len(stored), dims, stored, data, metadata)
        entry["description"] = description
        entry["numpy_dtype"] = dt.str if dt.fields is None else dt.descr
        if platform:
            entry["platform_dependent"] = True
        self.put(group, name, blob, entry)

    def raw(self, group, name, eltype, elbyte, dims, data, description, big=False, compress=False, metadata=b""):
        """A well-formed file from bytes the caller laid out (types numpy lacks)."""
        stored = lz4_block(data) if compress else data
        flags = (FLAG_BIG_ENDIAN if big else 0) | (FLAG_COMPRESSED if compress else 0)
        blob = header(flags, eltype, elbyte, len(stored), dims) + stored + metadata
        entry = self.describe(flags, eltype, elbyte, len(stored), dims, stored, data, metadata)
        entry["description"] = description
        self.put(group, name, blob, entry)

    @staticmethod
    def describe(flags, eltype, elbyte, size, dims, stored, data, metadata):
        count = 1
        for d in dims:
            count *= d
        e = {
            "flags": flags, "eltype": eltype, "elbyte": elbyte, "size": json_int(size),
            "ndims": len(dims), "dims": [json_int(d) for d in dims],
            "endianness": "big" if flags & FLAG_BIG_ENDIAN else "little",
            "compressed": bool(flags & FLAG_COMPRESSED),
            "type": type_name(eltype, elbyte),
            "count": json_int(count),
            "data_offset": 48 + 8 * len(dims),
            "data_bytes": json_int(elbyte * count),
            "metadata_bytes": len(metadata),
        }
        if stored is not None:
            e["data_sha256"] = sha(stored)
        if data is not None:
            e["array_sha256"] = sha(data)
        return e

    def bad(self, group, name, blob, code, description, **fields):
        """A file with one defect (or over a default limit); code is what it must get."""
        entry = {"description": description, "npyguard_error": code}
        entry.update(fields)
        self.put(group, name, blob, entry)


# ---------------------------------------------------------------- valid

def ints(n, dtype, seed):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    return rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)


def big_ints(n, signed, seed, big):
    # 128-bit integers (RawArray.jl's Int128/UInt128): numpy has none, so
    # the bytes are Python's int.to_bytes of fixed values.
    rng = np.random.default_rng(seed)
    out = b""
    for hi, lo in zip(rng.integers(0, 2 ** 63, n, dtype=np.uint64), rng.integers(0, 2 ** 63, n, dtype=np.uint64)):
        v = (int(hi) << 64) | int(lo)
        if signed and int(lo) & 1:
            v = -v
        out += v.to_bytes(16, "big" if big else "little", signed=signed)
    return out


def valid(c):
    rng = np.random.default_rng(2024)
    shape2 = (3, 4)

    # Integers and unsigned integers: every width numpy has, both orders.
    for kind, et in (("i", 1), ("u", 2)):
        for w in (1, 2, 4, 8):
            orders = "<>" if w > 1 else "|"
            for o in orders:
                dt = np.dtype(o + kind + str(w))
                a = ints(12, dt.newbyteorder("=") if o != "|" else dt, 10 * w + et).astype(dt).reshape(shape2)
                tag = {"<": "le", ">": "be", "|": "le"}[o]
                c.array("valid", "%s%d-%s-2d.ra" % (kind, w * 8, tag), a, et,
                        "%s, %s-endian, dims (3, 4)" % (dt.str, "big" if o == ">" else "little"))
        for big in (False, True):
            c.raw("valid", "%s128-%s-1d.ra" % (kind, "be" if big else "le"), et, 16, [5],
                  big_ints(5, kind == "i", et, big),
                  "128-bit %s integers (RawArray.jl writes Int128/UInt128), dims (5,)" % ("signed" if kind == "i" else "unsigned"),
                  big=big)

    # IEEE floats: half, single, double; x87 extended as numpy's float128.
    vals = np.array([0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, 1e-3, 3.0e4, 7.0, -1.0, 0.5, 2.0])
    for w in (2, 4, 8):
        for o in "<>":
            dt = np.dtype(o + "f" + str(w))
            c.array("valid", "f%d-%s-2d.ra" % (w * 8, "le" if o == "<" else "be"), vals.astype(dt).reshape(shape2), 3,
                    "%s, dims (3, 4), with signed zeros and infinities" % dt.str)
    c.array("valid", "f128-le-1d.ra", np.array([1.0, -2.5, 1e300], dtype="<f16"), 3,
            "numpy's long double (x87 80-bit in 16 bytes on x86-64): ra.py writes it as eltype 3, elbyte 16",
            platform=True)

    # Complex: pairs of floats, real part first.
    cvals = vals[:6] + 1j * vals[6:]
    for w in (8, 16):
        for o in "<>":
            dt = np.dtype(o + "c" + str(w))
            c.array("valid", "c%d-%s-2d.ra" % (w * 8, "le" if o == "<" else "be"), cvals.astype(dt).reshape(2, 3), 4,
                    "%s, dims (2, 3)" % dt.str)
    c.array("valid", "c256-le-1d.ra", np.array([1 + 2j, -3.5j], dtype="<c32"), 4,
            "numpy's complex long double, elbyte 32", platform=True)
    for big in (False, True):
        # Complex of two half floats (RawArray.jl's ComplexF16): numpy has
        # no such type; the data is interleaved float16 pairs.
        o = ">" if big else "<"
        pairs = np.stack([vals[:4], vals[4:8]], axis=-1).astype(o + "f2")
        c.raw("valid", "c32-%s-1d.ra" % ("be" if big else "le"), 4, 4, [4], pairs.tobytes(order="C"),
              "complex of two float16 (RawArray.jl's ComplexF16), elbyte 4, dims (4,)", big=big)

    # Boolean (RawArray.jl's eltype 5, one byte each).
    c.array("valid", "bool-2d.ra", (np.arange(12).reshape(shape2) % 3 == 0), 5, "Boolean, eltype 5, elbyte 1")

    # User-defined elements: the README's 80-byte struct, and a 10-byte one.
    foo = np.dtype([("info", "S12"), ("index", "<u4"), ("v", "<f8", (8,))])
    assert foo.itemsize == 80
    recs = np.zeros(3, dtype=foo)
    recs["info"] = [b"alpha", b"beta", b"gamma"]
    recs["index"] = [1, 2, 3]
    recs["v"] = np.arange(24, dtype="<f8").reshape(3, 8)
    c.array("valid", "user640-struct-foo.ra", recs, 0,
            "the README's struct foo (char[12], uint32, double[8]): eltype 0, elbyte 80")
    ten = np.zeros((2, 2), dtype=np.dtype([("a", "<u2"), ("b", "<f8")]))
    ten["a"] = [[1, 2], [3, 4]]
    ten["b"] = [[0.5, 1.5], [2.5, 3.5]]
    c.array("valid", "user80-2d.ra", ten, 0, "a packed 10-byte record (uint16, float64): eltype 0, elbyte 10")

    # Dimensions: 0-d, 1-d, 3-d, many, zero-size.
    c.array("valid", "f64-0d.ra", np.array(3.25, dtype="<f8"), 3, "0-d: ndims 0, one element")
    c.array("valid", "i32-3d.ra", np.arange(24, dtype="<i4").reshape(2, 3, 4), 1,
            "dims (2, 3, 4): the first varies fastest")
    c.array("valid", "u8-32d.ra", np.arange(2 ** 5, dtype="u1").reshape((2,) * 5 + (1,) * 27), 2, "32 dims")
    # numpy stops at 32 dims; trailing dims of 1 do not change the layout.
    c.raw("valid", "u8-64d.ra", 2, 1, [2, 2, 2] + [1] * 61, np.arange(8, dtype="u1").reshape(2, 2, 2).tobytes(order="F"),
          "64 dims: npyguard's default max_dims")
    c.array("valid", "f32-empty-1d.ra", np.zeros(0, dtype="<f4"), 3, "zero-size: dims (0,)")
    c.array("valid", "c64-empty-3d.ra", np.zeros((4, 0, 2), dtype="<c8"), 4, "zero-size: dims (4, 0, 2)")
    # Zero-size with huge other dims: accepted while elbyte times the
    # non-zero dims stays below 2**63, as ra.py's reshape decides
    # (zero_dim_verdicts() has the ones it refuses).
    for name, eltype, elbyte, dims, what in ZERO_DIM_VALID:
        assert ra_py_shapes(elbyte, dims) is None, name
        c.raw("valid", name, eltype, elbyte, dims, b"", what)
    c.array("valid", "u8-70000.ra", (np.arange(70000) % 251).astype("u1"), 2,
            "70,000 bytes of uint8: a data segment longer than one 64 KiB read")

    # The example in the format's documentation (README "File Introspection"):
    # eltype 4, elbyte 8, size 96, ndims 2, dims (3, 4); element k is k - i/k.
    k = np.arange(12, dtype=np.float32)
    ex = np.empty(12, dtype="<c8")
    ex.real = k
    with np.errstate(divide="ignore"):
        ex.imag = -1.0 / k
    c.array("valid", "test-readme-example.ra", ex.reshape(3, 4, order="F"), 4,
            "the documented example test.ra: complex64, dims (3, 4), element k = k - i/k")

    # Metadata after the data segment ("volatile metadata", allowed).
    c.array("valid", "f32-metadata.ra", vals.astype("<f4").reshape(shape2), 3,
            "dims (3, 4) followed by 27 bytes of text metadata", metadata=b"units: kelvin\nsource: gen\n\x00")

    # LZ4-compressed data (flag bit 1): size is the compressed length.
    c.array("valid", "f32-lz4-2d.ra", np.tile(vals.astype("<f4"), 64).reshape(24, 32), 3,
            "LZ4 block of 768 float32, dims (24, 32)", compress=True)
    c.array("valid", "i16-be-lz4.ra", (np.arange(600, dtype=">i2") % 7).reshape(20, 30), 1,
            "LZ4 block of big-endian int16", compress=True)
    c.array("valid", "u8-zeros-lz4.ra", np.zeros((256, 256, 16), dtype="u1"), 2,
            "1 MiB of zeros in a 4 KiB LZ4 block", compress=True)
    c.array("valid", "u8-lz4-1000000.ra", (np.arange(1000000) % 251).astype("u1"), 2,
            "1,000,000 bytes in one LZ4 block: decoding it fits max_alloc_bytes of 1 MiB in a new context",
            compress=True)
    c.array("valid", "u64-random-lz4.ra", rng.integers(0, 2 ** 63, size=100, dtype="<u8"), 2,
            "random uint64: the LZ4 block is longer than the data (within LZ4_compressBound)", compress=True)
    c.array("valid", "f64-empty-lz4.ra", np.zeros((0, 3), dtype="<f8"), 3,
            "zero-size, compressed: an LZ4 block of no bytes", compress=True)
    c.array("valid", "c64-lz4-metadata.ra", ex.reshape(3, 4, order="F"), 4,
            "the documented example, compressed, with metadata after the block", compress=True,
            metadata=b"# volatile metadata\n")


# ---------------------------------------------------------------- zero dims

def ra_py_shapes(elbyte, dims):
    """What ra.py's read() does with an empty data segment and these dims:
    np.fromstring of no bytes, then reshape to the dims reversed (as uint64).
    numpy refuses when elbyte times the non-zero dims reaches 2**63, a zero
    dim or not. Returns numpy's message, or None when it accepts."""
    dt = np.dtype("V%d" % elbyte) if elbyte > 8 else np.dtype("u%d" % elbyte)
    try:
        np.frombuffer(b"", dtype=dt).reshape(np.array(dims, dtype="<u8")[::-1])
    except ValueError as e:
        return "%s: %s" % (type(e).__name__, e)
    return None


ZERO_DIM_VALID = [
    ("f64-zero-dim-huge-ok.ra", 3, 8, [0, 2 ** 58, 3],
     "dims (0, 2**58, 3): zero elements; 8 x 2**58 x 3 bytes is under 2**63, so ra.py shapes it"),
    ("u8-zero-dim-max.ra", 2, 1, [2 ** 63 - 1, 0],
     "dims (2**63-1, 0) of uint8: zero elements, the largest non-zero dim numpy shapes"),
]

ZERO_DIM_INVALID = [
    ("f64-huge-zero-dim.ra", 3, 8, [0, 2 ** 62, 2 ** 62],
     "dims (0, 2**62, 2**62): zero elements, but ra.py's reshape refuses an array of 2**127 bytes"),
    ("f64-zero-dim-last.ra", 3, 8, [2 ** 62, 2 ** 62, 0],
     "dims (2**62, 2**62, 0): the product overflows before the zero dim; ra.py's reshape refuses it"),
    ("f64-zero-dim-2pow63.ra", 3, 8, [0, 2 ** 60],
     "dims (0, 2**60) of float64: 8 x 2**60 = 2**63 bytes, one past what numpy shapes"),
    ("u8-zero-dim-2pow63.ra", 2, 1, [2 ** 63, 0], "dims (2**63, 0) of uint8: numpy's largest dim is 2**63-1"),
]


def zero_dim_verdicts(c):
    for name, eltype, elbyte, dims, what in ZERO_DIM_INVALID:
        why = ra_py_shapes(elbyte, dims)
        assert why is not None, name
        c.bad("invalid", name, header(0, eltype, elbyte, 0, dims), "NPYG_ERA_OVERFLOW", what, ra_py=why)


# ---------------------------------------------------------------- invalid

def invalid(c):
    arr = np.arange(12, dtype="<f4")
    data = arr.tobytes()
    good = header(0, 3, 4, 48, [3, 4]) + data

    def fixed(flags=0, eltype=3, elbyte=4, size=48, dims=(3, 4), ndims=None):
        return header(flags, eltype, elbyte, size, list(dims), ndims)

    c.bad("invalid", "magic-wrong.ra", b"rawarrax" + good[8:], "NPYG_ERA_MAGIC", "last magic byte changed")
    c.bad("invalid", "magic-big-endian.ra", MAGIC[::-1] + good[8:], "NPYG_ERA_MAGIC",
          "the magic u64 written big-endian (\"yarrawar\")")
    c.bad("invalid", "trunc-header-0.ra", b"", "NPYG_ERA_TRUNC_HEADER", "empty file")
    c.bad("invalid", "trunc-header-30.ra", good[:30], "NPYG_ERA_TRUNC_HEADER", "ends inside the size field")
    c.bad("invalid", "trunc-header-47.ra", good[:47], "NPYG_ERA_TRUNC_HEADER", "one byte short of the 48-byte header")
    c.bad("invalid", "flags-bit2.ra", fixed(flags=4) + data, "NPYG_ERA_FLAGS",
          "flag bit 2 (RawArray.jl's BitArray flag): unknown to the C and Python readers")
    c.bad("invalid", "flags-bit63.ra", fixed(flags=1 << 63) + data, "NPYG_ERA_FLAGS", "flag bit 63")
    c.bad("invalid", "eltype-6.ra", fixed(eltype=6) + data, "NPYG_ERA_ELTYPE", "eltype 6")
    c.bad("invalid", "eltype-huge.ra", fixed(eltype=2 ** 63) + data, "NPYG_ERA_ELTYPE", "eltype 2**63")
    c.bad("invalid", "elbyte-float3.ra", fixed(elbyte=3, size=36) + data[:36], "NPYG_ERA_ELBYTE", "a 3-byte float")
    c.bad("invalid", "elbyte-float1.ra", fixed(elbyte=1, size=12) + data[:12], "NPYG_ERA_ELBYTE", "a 1-byte float")
    c.bad("invalid", "elbyte-int3.ra", fixed(eltype=1, elbyte=3, size=36) + data[:36], "NPYG_ERA_ELBYTE", "a 3-byte integer")
    c.bad("invalid", "elbyte-uint32bytes.ra", fixed(eltype=2, elbyte=32, size=384) + data * 8, "NPYG_ERA_ELBYTE",
          "a 32-byte unsigned integer")
    c.bad("invalid", "elbyte-complex2.ra", fixed(eltype=4, elbyte=2, size=24) + data[:24], "NPYG_ERA_ELBYTE",
          "complex of two 1-byte halves")
    c.bad("invalid", "elbyte-complex12.ra", fixed(eltype=4, elbyte=12, size=144) + data * 3, "NPYG_ERA_ELBYTE",
          "complex of two 6-byte halves")
    c.bad("invalid", "elbyte-bool2.ra", fixed(eltype=5, elbyte=2, size=24) + data[:24], "NPYG_ERA_ELBYTE", "a 2-byte Boolean")
    c.bad("invalid", "elbyte-user0.ra", fixed(eltype=0, elbyte=0, size=0), "NPYG_ERA_ELBYTE", "user type of width 0")
    c.bad("invalid", "elbyte-int0.ra", fixed(eltype=1, elbyte=0, size=0), "NPYG_ERA_ELBYTE", "integer of width 0")
    c.bad("invalid", "elbyte-float-huge.ra", fixed(eltype=3, elbyte=2 ** 64 - 1, size=0), "NPYG_ERA_ELBYTE",
          "a float of 2**64-1 bytes")
    c.bad("limit", "ndims-65.ra", fixed(dims=[1] * 65, size=4) + data[:4], "NPYG_ELIMIT_DIMS",
          "65 dims, over the default max_dims (64)")
    c.bad("invalid", "ndims-huge.ra", fixed(dims=[], ndims=2 ** 61) + data, "NPYG_ELIMIT_DIMS",
          "ndims 2**61: 8 * ndims overflows, the reference reader mallocs it")
    c.bad("invalid", "trunc-dims.ra", fixed(dims=(3, 4, 1))[:60], "NPYG_ERA_TRUNC_DIMS", "ends inside the second dim")
    c.bad("invalid", "trunc-dims-none.ra", fixed(dims=(3, 4))[:48], "NPYG_ERA_TRUNC_DIMS", "ends where the dims begin")
    c.bad("invalid", "overflow-dims.ra", fixed(elbyte=4, size=48, dims=(2 ** 32, 2 ** 32)) + data, "NPYG_ERA_OVERFLOW",
          "dims (2**32, 2**32): their product overflows 64 bits")
    c.bad("invalid", "overflow-elbyte.ra", fixed(eltype=0, elbyte=2 ** 40, size=48, dims=(2 ** 30,)) + data,
          "NPYG_ERA_OVERFLOW", "elbyte 2**40 times 2**30 elements overflows")
    c.bad("invalid", "size-short.ra", fixed(size=44) + data, "NPYG_ERA_SIZE",
          "size 44 for 48 bytes of data (the last 4 would read as metadata)")
    c.bad("invalid", "size-long.ra", fixed(size=52) + data + b"\0" * 4, "NPYG_ERA_SIZE", "size 52 for 48 bytes of data")
    c.bad("invalid", "size-zero.ra", fixed(size=0) + data, "NPYG_ERA_SIZE", "size 0 for dims (3, 4) of float32")
    c.bad("invalid", "size-wraps.ra", fixed(eltype=0, elbyte=2 ** 63, size=0, dims=(2,)), "NPYG_ERA_OVERFLOW",
          "elbyte 2**63 times 2 wraps to 0, which equals size 0")
    c.bad("invalid", "trunc-data.ra", good[:-1], "NPYG_ERA_TRUNC_DATA", "one data byte missing")
    c.bad("invalid", "trunc-data-none.ra", good[:64], "NPYG_ERA_TRUNC_DATA", "no data at all")

    # Compressed files.
    big = np.tile(np.arange(12, dtype="<f4"), 64)
    block = lz4_block(big.tobytes())
    def lz(blk, dims=(24, 32), eltype=3, elbyte=4, size=None):
        return header(FLAG_COMPRESSED, eltype, elbyte, len(blk) if size is None else size, list(dims)) + blk
    corrupt = bytearray(block)
    corrupt[0] = 0xFF  # token: 15+ literals, then a length byte that claims far more than the block holds
    c.bad("invalid", "lz4-corrupt-token.ra", lz(bytes(corrupt)), "NPYG_ERA_LZ4", "first LZ4 token changed")
    c.bad("invalid", "lz4-cut-block.ra", lz(block[:-6]), "NPYG_ERA_LZ4",
          "the block loses its last 6 bytes (size says so): the last sequence is cut")
    c.bad("invalid", "lz4-decodes-short.ra", lz(block, dims=(24, 33)), "NPYG_ERA_LZ4_SIZE",
          "dims (24, 33) declare 3168 bytes; the block decodes to 3072")
    c.bad("invalid", "lz4-decodes-long.ra", lz(block, dims=(24, 31)), "NPYG_ERA_LZ4",
          "dims (24, 31) declare 2976 bytes; the block decodes to 3072, past the declared length")
    c.bad("invalid", "lz4-size-zero.ra", lz(b"", dims=(3, 4)), "NPYG_ERA_LZ4", "compressed, size 0: not an LZ4 block")
    c.bad("invalid", "lz4-size-over-bound.ra", lz(b"\0" * 100, dims=(2,)), "NPYG_ERA_LZ4",
          "100 compressed bytes for 8 bytes of data: over LZ4_compressBound(8) = 24")
    c.bad("invalid", "lz4-size-over-2gib.ra", header(FLAG_COMPRESSED, 2, 1, 2 ** 31, [2 ** 31]), "NPYG_ERA_LZ4",
          "compressed size 2**31: above LZ4_MAX_INPUT_SIZE (0x7E000000), no LZ4 block is that long")
    c.bad("invalid", "lz4-decodes-over-2gib.ra", lz(b"\0" * 16, dims=(2 ** 31,), eltype=2, elbyte=1), "NPYG_ERA_LZ4",
          "16 compressed bytes declared to decode to 2**31: one LZ4 block decodes to at most LZ4_MAX_INPUT_SIZE")
    c.bad("invalid", "lz4-trunc-data.ra", lz(block)[:-10], "NPYG_ERA_TRUNC_DATA", "the file ends 10 bytes into the block")
    c.bad("invalid", "lz4-raw-data.ra", header(FLAG_COMPRESSED, 3, 4, 48, [3, 4]) + data, "NPYG_ERA_LZ4",
          "compressed flag on uncompressed float32 data")


def limits(c):
    # Well-formed headers npyguard refuses under its default limits; the
    # data is not there (the header alone decides).
    c.bad("limit", "payload-2tib.ra", header(0, 2, 1, 2 << 40, [2 << 40]), "NPYG_ELIMIT_PAYLOAD",
          "2 TiB of uint8 declared (over the default max_payload_bytes, 1 TiB); no data follows")
    c.bad("limit", "payload-2tib-lz4.ra", header(FLAG_COMPRESSED, 2, 1, 16, [2 << 40]) + b"\0" * 16,
          "NPYG_ELIMIT_PAYLOAD", "compressed, declaring 2 TiB once decompressed")
    zeros = lz4_block(bytes(16 << 20))
    c.bad("limit", "lz4-16mib.ra", header(FLAG_COMPRESSED, 2, 1, len(zeros), [16 << 20]) + zeros, "NPYG_ELIMIT_ALLOC",
          "a real 64 KiB LZ4 block of 16 MiB of zeros: decoding it needs more than the default max_alloc_bytes (8 MiB)",
          decodes_to=16 << 20, data_sha256=sha(zeros), array_sha256=sha(bytes(16 << 20)))


def main(argv):
    outdir = argv[1] if len(argv) > 1 else os.path.join(HERE, "..", "corpus", "ra")
    for g in ("valid", "invalid", "limit"):
        shutil.rmtree(os.path.join(outdir, g), ignore_errors=True)
    c = Corpus(outdir)
    valid(c)
    invalid(c)
    zero_dim_verdicts(c)
    limits(c)
    manifest = {
        "format": "RawArray",
        "numpy_version": np.__version__,
        "lz4_version": LZ4.LZ4_versionString().decode(),
        "files": c.files,
    }
    with open(os.path.join(outdir, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    counts = {}
    for e in c.files.values():
        counts[e["group"]] = counts.get(e["group"], 0) + 1
    print("corpus/ra: " + ", ".join("%s %d" % kv for kv in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
