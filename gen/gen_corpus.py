#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the npyguard golden corpus.

Usage: /usr/bin/python3 gen/gen_corpus.py [OUTDIR]     (default: corpus/ next to gen/)

The output is deterministic: every array comes from np.random.default_rng
seeded with a CRC-32 of the case's data key, nothing depends on time or on
the order of dict iteration, and running the script twice gives identical
bytes (gen/check_regen.sh checks this against the committed corpus).

Groups written under OUTDIR:
  valid/    files written by numpy itself (np.save, np.lib.format.write_array)
  compat/   crafted byte by byte: numpy 1.24 loads them (or loads them with a
            raised max_header_size, or numpy 2 does), a strict reader may refuse
  invalid/  crafted byte by byte, one defect each; numpy must reject every one
  unsafe/   object dtypes (the payload is a pickle); never unpickled here
and OUTDIR/manifest.json, which describes every file.

Every numpy verdict in the manifest is measured here, with
np.load(path, allow_pickle=False) on the real file. The generator asserts that
each file lands where its group says it must (valid/compat accepted, invalid
and unsafe rejected, with the documented exceptions).
"""

import ast
import hashlib
import io
import json
import os
import re
import shutil
import struct
import sys
import warnings
import zlib

import numpy as np
import numpy.lib.format as npf

import gen_conform12
from npygen import (MAGIC, descr_json, json_int, norm_message, numpy_verdict, pickle_imports, preamble,
                    read_framing)

SUITE_VERSION = "1.3.0"
BIG_LIMIT = 10 ** 7          # "raised" max_header_size used for second opinions

# ---------------------------------------------------------------------------
# Case registry
# ---------------------------------------------------------------------------

CASES = {}   # relative path -> case dict


def add(group, name, data, description, **extra):
    """Register one file. extra keys starting with '_' stay out of the manifest."""
    assert group in ("valid", "compat", "invalid", "unsafe"), group
    assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.+-]*", name), name
    rel = "%s/%s.npy" % (group, name)
    assert rel not in CASES, "duplicate case name " + rel
    assert "\n" not in description
    case = {"group": group, "name": name, "data": bytes(data),
            "description": description}
    case.update(extra)
    CASES[rel] = case
    return case


def rng_for(key):
    return np.random.default_rng(zlib.crc32(key.encode("utf-8")))


# ---------------------------------------------------------------------------
# Writing with numpy
# ---------------------------------------------------------------------------

def numpy_bytes(arr, version=None, allow_pickle=False):
    """The exact bytes numpy writes for arr (np.save, or write_array with a
    forced version)."""
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if version is None:
            np.save(buf, arr, allow_pickle=allow_pickle)
        else:
            npf.write_array(buf, arr, version=version, allow_pickle=allow_pickle)
    return buf.getvalue()


def written_fortran(arr):
    # the rule numpy's writer applies
    return bool(arr.flags.f_contiguous and not arr.flags.c_contiguous)


# ---------------------------------------------------------------------------
# Data for every dtype, native order first, then swapped if asked
# ---------------------------------------------------------------------------

WORDS = [b"", b"a", b"npy", b"guard", b"NumPy", b"\x00x", b"xyz\x00", b"0123456789",
         b"\xff\xfe", b"hello world"]
CHARS = ["a", "b", "Z", "0", " ", "\u00e9", "\u00df", "\u0436", "\u03c0",
         "\u6574", "\u5f62", "\U0001f600", "\u20ac", "\x00"]


def is_longdouble(dt):
    return dt.type in (np.longdouble, np.clongdouble)


def has_longdouble(dt):
    if dt.names:
        return any(has_longdouble(dt.fields[n][0]) for n in dt.names)
    if dt.subdtype is not None:
        return has_longdouble(dt.subdtype[0])
    return is_longdouble(dt)


def zero_longdouble_padding(arr):
    """x87 long doubles use 10 of their 16 bytes; the other 6 are whatever the
    allocator left there. Zero them so the payload is reproducible."""
    if not is_longdouble(arr.dtype) or np.finfo(np.longdouble).nmant != 63 or \
            np.dtype(np.longdouble).itemsize != 16:
        return arr
    u8 = arr.view(np.uint8).reshape(-1, 16)
    u8[:, 10:] = 0
    return arr


def native_values(dt, n, rng):
    """n values of the native-order version of dt (1-D, C order)."""
    nat = dt.newbyteorder("=") if dt.byteorder in "<>" else dt
    k = dt.kind
    if k == "b":
        return rng.integers(0, 2, n).astype(bool)
    if k in "iu":
        info = np.iinfo(nat)
        return rng.integers(int(info.min), int(info.max), n, endpoint=True,
                            dtype=nat.type).astype(nat)
    if k == "f":
        vals = rng.standard_normal(n) * 1000.0
        specials = [-0.0, np.inf, -np.inf, np.nan]
        if n >= 8:
            vals[1:5] = specials
        out = np.empty(n, dtype=nat)
        if n:
            out[...] = vals
        return zero_longdouble_padding(out)
    if k == "c":
        vals = rng.standard_normal(n) * 100.0 + 1j * rng.standard_normal(n) * 100.0
        out = np.empty(n, dtype=nat)
        if n:
            out[...] = vals
        return zero_longdouble_padding(out)
    if k == "S":
        if dt.itemsize == 0:
            return np.zeros(n, dtype=[("a", dt.str)])["a"]
        picks = rng.integers(0, len(WORDS), n)
        return np.array([WORDS[i][:dt.itemsize] for i in picks], dtype=nat)
    if k == "U":
        if dt.itemsize == 0:
            return np.zeros(n, dtype=[("a", dt.str)])["a"]
        nch = dt.itemsize // 4
        lens = rng.integers(0, nch + 1, n)
        vals = []
        for ln in lens:
            idx = rng.integers(0, len(CHARS) - 1, ln)   # no NUL: numpy strips it
            vals.append("".join(CHARS[i] for i in idx))
        return np.array(vals, dtype=nat)
    if k == "V":
        if dt.itemsize == 0:
            return np.zeros(n, dtype=nat)
        return np.frombuffer(rng.bytes(n * dt.itemsize), dtype=nat).copy()
    if k in "Mm":
        ints = rng.integers(-10 ** 6, 10 ** 6, n, dtype=np.int64)
        if n >= 3:
            ints[2] = np.iinfo(np.int64).min      # NaT
        return ints.view(nat).copy()
    raise AssertionError(dt)


def make_array(dtstr, shape, order, key):
    """Array of dtype dtstr, shape, 'C' or 'F' memory order, deterministic."""
    dt = np.dtype(dtstr)
    rng = rng_for(key)
    n = int(np.prod(shape, dtype=np.int64)) if shape else 1
    flat = native_values(dt, n, rng)
    if flat.dtype != dt:
        flat = flat.byteswap().view(dt) if not dt.isnative else flat.view(dt)
    arr = flat.reshape(shape)
    if order == "F" and dt.itemsize:
        arr = np.asfortranarray(arr)   # (a zero-itemsize array is both C and F)
    assert arr.dtype == dt, (arr.dtype, dt)
    return arr


# ---------------------------------------------------------------------------
# Crafting helpers
# ---------------------------------------------------------------------------

def header_dict(descr="'<f8'", fortran="False", shape="(2,)"):
    """The dict text as numpy's writer spells it (without padding)."""
    return "{'descr': %s, 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape)


def frame(version, header, payload=b"", hlen=None):
    """Magic + version + length field + header bytes + payload."""
    major, minor = version
    if isinstance(header, str):
        header = header.encode("utf-8" if major == 3 else "latin1")
    n = len(header) if hlen is None else hlen
    return preamble((major, minor), n) + header + payload


def padded(version, text, align=64, pad=" ", end="\n", length_field=None):
    """Pad text the way numpy's writer does (1..align pad characters, then the
    terminator) so the payload starts at a multiple of align. length_field
    overrides the size of the length field assumed in the computation (numpy
    1.9-1.13 assumed 2 bytes even for v2)."""
    enc = "utf-8" if version[0] == 3 else "latin1"
    raw = text.encode(enc)
    lf = length_field if length_field is not None else (2 if version[0] == 1 else 4)
    used = 8 + lf + len(raw) + len(end.encode(enc))
    padlen = align - (used % align)
    return raw + (pad * padlen + end).encode(enc)


def craft(version, text, payload=b"", align=64, pad=" ", end="\n", length_field=None):
    return frame(version, padded(version, text, align, pad, end, length_field), payload)


def payload_for(descr_text, count):
    """count items of deterministic bytes for the dtype numpy reads from descr_text."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dt = npf.descr_to_dtype(ast.literal_eval(descr_text))
    return bytes((i * 37 + 11) % 256 for i in range(count * dt.itemsize))


def f8(n, start=0):
    return np.arange(start, start + n, dtype="<f8").tobytes()


# ---------------------------------------------------------------------------
# valid/: written by numpy
# ---------------------------------------------------------------------------

NUMERIC = ["b1", "i1", "u1"] + [k + s for k in "iu" for s in "248"] + \
    ["f2", "f4", "f8", "longdouble", "c8", "c16", "clongdouble"]
STRINGS = ["S0", "S1", "S7", "U0", "U1", "U5", "V0", "V8"]

SHAPES = [  # tag, shape, order
    ("scalar", (), "C"),
    ("1d", (7,), "C"),
    ("2d", (3, 4), "C"),
    ("2d", (3, 4), "F"),
    ("3d", (2, 3, 4), "C"),
    ("3d", (2, 3, 4), "F"),
    ("0", (0,), "C"),
]
ZERO_SHAPES = [("0x5", (0, 5), "C"), ("5x0", (5, 0), "C")]
DIMS32_1 = (1,) * 32
DIMS32_6 = (2,) + (1,) * 30 + (3,)

UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"]
MULTIPLES = ["10ms", "25s", "2D", "100ns"]


def byteorders(dtstr):
    if np.dtype(dtstr).byteorder == "|":
        return [("na", "|")]
    return [("le", "<"), ("be", ">")]


def typestr_for(tok, bo):
    if tok == "longdouble":
        base = np.dtype(np.longdouble)
    elif tok == "clongdouble":
        base = np.dtype(np.clongdouble)
    else:
        base = np.dtype(tok)
    if bo == "|":
        return base.str if base.byteorder == "|" else base.newbyteorder("=").str
    return base.newbyteorder(bo).str


def token_of(dt):
    s = dt.str[1:]
    return s.replace("[", "-").replace("]", "")


def add_valid_array(name, arr, description, version=None, expect_fortran=None,
                    **extra):
    data = numpy_bytes(arr, version)
    if expect_fortran is not None:
        assert written_fortran(arr) == expect_fortran, name
    case = add("valid", name, data, description, _arr=arr, **extra)
    if has_longdouble(arr.dtype):
        case["platform_dependent"] = True
    return case


def shape_words(shape):
    if shape == ():
        return "shape () scalar"
    return "shape (%s%s)" % (", ".join(str(d) for d in shape), "," if len(shape) == 1 else "")


def gen_valid():
    vtag = {None: "v1", (1, 0): "v1", (2, 0): "v2", (3, 0): "v3"}
    plan = []   # (tok, bo_tag, bo, tag, shape, order)
    for tok in NUMERIC + STRINGS:
        for bo_tag, bo in byteorders(typestr_for(tok, "<")):
            for tag, shape, order in SHAPES:
                plan.append((tok, bo_tag, bo, tag, shape, order))
    for tok, bo in [("f8", "<"), ("i4", ">"), ("U5", "<"), ("S7", "|"), ("b1", "|"),
                    ("c8", ">")]:
        bo_tag = {"<": "le", ">": "be", "|": "na"}[bo]
        for tag, shape, order in ZERO_SHAPES:
            plan.append((tok, bo_tag, bo, tag, shape, order))
    plan.append(("f8", "le", "<", "32d", DIMS32_1, "C"))
    plan.append(("i2", "be", ">", "32d", DIMS32_6, "C"))
    plan.append(("i2", "be", ">", "32d", DIMS32_6, "F"))
    plan.append(("u1", "na", "|", "32d", DIMS32_6, "F"))

    for tok, bo_tag, bo, tag, shape, order in plan:
        ts = typestr_for(tok, bo)
        dt = np.dtype(ts)
        key = "%s|%s|%s|%s" % (ts, tag, shape, order)
        arr = make_array(ts, shape, order, key)
        if order == "F" and not written_fortran(arr):
            continue          # numpy would write it as C order: nothing new
        dtok = token_of(dt)
        name = "%s-%s-%s-%s-v1" % (dtok, bo_tag, tag, order)
        desc = "numpy-written %s %s, %s order, format 1.0" % (
            dt.str, shape_words(shape), order)
        if tok in ("longdouble", "clongdouble"):
            desc += " (%s: layout depends on the platform)" % tok
        add_valid_array(name, arr, desc, None, _key=key)

    # datetime64 / timedelta64: every unit, multiples, generic, both byte orders
    for kind in ("M8", "m8"):
        for unit in UNITS + MULTIPLES + ["generic"]:
            for bo_tag, bo in [("le", "<"), ("be", ">")]:
                ts = bo + kind + ("" if unit == "generic" else "[%s]" % unit)
                shapes = [("1d", (6,), "C")]
                if unit in ("ns", "D", "generic"):
                    shapes += [("scalar", (), "C"), ("2d", (3, 4), "C"), ("2d", (3, 4), "F")]
                for tag, shape, order in shapes:
                    key = "%s|%s|%s|%s" % (ts, tag, shape, order)
                    arr = make_array(ts, shape, order, key)
                    dt = arr.dtype
                    name = "%s-%s-%s-%s-v1" % (token_of(dt) if unit != "generic"
                                               else kind + "-generic",
                                               bo_tag, tag, order)
                    what = "datetime64" if kind == "M8" else "timedelta64"
                    add_valid_array(name, arr, "numpy-written %s %s (%s unit), %s, %s order, "
                                    "one NaT where size allows, format 1.0"
                                    % (what, dt.str, unit, shape_words(shape), order),
                                    None, _key=key)

    # the same arrays in all three versions (version handling in isolation)
    for ts, tag, shape, order in [("<f8", "2d", (3, 4), "C"), (">i4", "3d", (2, 3, 4), "F"),
                                  ("<U5", "1d", (7,), "C"), ("|b1", "0", (0,), "C"),
                                  (">c16", "scalar", (), "C")]:
        key = "%s|%s|%s|%s" % (ts, tag, shape, order)
        arr = make_array(ts, shape, order, key)
        bo_tag = {"<": "le", ">": "be", "|": "na"}[ts[0]]
        for version in [(2, 0), (3, 0)]:
            name = "%s-%s-%s-%s-%s" % (token_of(arr.dtype), bo_tag, tag, order, vtag[version])
            add_valid_array(name, arr, "numpy-written %s %s, %s order, format %d.0 forced with "
                            "write_array(version=%r); same payload as the -v1 file"
                            % (arr.dtype.str, shape_words(shape), order, version[0], version),
                            version, _key=key)

    gen_valid_structs()


def fill_struct(arr, rng):
    """Fill every leaf field of a structured array with deterministic values."""
    def fill(view):
        dt = view.dtype
        if dt.names:
            for nm in dt.names:
                fill(view[nm])
            return
        if dt.subdtype is not None:
            raise AssertionError("subdtype views are expanded by numpy")
        n = view.size
        vals = native_values(dt, n, rng)
        if vals.dtype != dt:
            vals = vals.byteswap().view(dt) if not dt.isnative else vals.view(dt)
        view[...] = vals.reshape(view.shape)
    fill(arr)
    return arr


def struct_array(dtype, shape, order, key):
    arr = np.zeros(shape, dtype=dtype, order=order)
    fill_struct(arr, rng_for(key))
    if order == "F":
        arr = np.asfortranarray(arr)
    return arr


def swap_descr(spec, bo):
    """Rewrite every '<' in a list-of-tuples dtype spec to bo."""
    if isinstance(spec, str):
        return spec.replace("<", bo)
    if isinstance(spec, tuple):
        return tuple(swap_descr(x, bo) for x in spec)
    if isinstance(spec, list):
        return [swap_descr(x, bo) for x in spec]
    return spec


FLAT = [("x", "<i4"), ("y", "<f8"), ("z", "|u1"), ("w", "<U3"), ("s", "|S4"), ("b", "|b1"),
        ("t", "<M8[us]"), ("c", "<c8")]
PDESCR = [("x", "<i4", (2,)), ("y", "<f8", (2, 2)), ("z", "|u1")]
NDESCR = [
    ("x", "<i4", (2,)),
    ("Info", [
        ("value", "<c16"),
        ("y2", "<f8"),
        ("Info2", [("name", "|S2"), ("value", "<c16", (2,)), ("y3", "<f8", (2,)),
                   ("z3", "<u4", (2,))]),
        ("name", "|S2"),
        ("z2", "|b1")]),
    ("color", "|S2"),
    ("info", [("Name", "<U8"), ("Value", "<c16")]),
    ("y", "<f8", (2, 2)),
    ("z", "|u1"),
]


def gen_valid_structs():
    items = []   # name, dtype, shape, order, description, version
    for bo_tag, bo in [("le", "<"), ("be", ">")]:
        flat = np.dtype(swap_descr(FLAT, bo))
        for tag, shape, order in [("scalar", (), "C"), ("1d", (5,), "C"),
                                  ("2d", (3, 4), "C"), ("2d", (3, 4), "F")]:
            items.append(("struct-flat-%s-%s-%s" % (bo_tag, tag, order), flat, shape, order,
                          "flat structured dtype (int, float, bytes, str, bool, datetime, "
                          "complex fields)"))
        items.append(("struct-pdescr-%s-1d-C" % bo_tag, np.dtype(swap_descr(PDESCR, bo)), (2,),
                      "C", "structured dtype with subarray fields (numpy test Pdescr)"))
        items.append(("struct-nested-%s-1d-C" % bo_tag, np.dtype(swap_descr(NDESCR, bo)), (2,),
                      "C", "nested structured dtype three levels deep (numpy test Ndescr)"))
        items.append(("struct-nested-%s-2d-F" % bo_tag, np.dtype(swap_descr(NDESCR, bo)), (2, 3),
                      "F", "nested structured dtype (numpy test Ndescr), Fortran order"))
        items.append(("struct-subsub-%s-1d-C" % bo_tag,
                      np.dtype([("c", (bo + "f8", (5,)), (2,))]), (1,), "C",
                      "subarray of a subarray: field type ('f8', (5,)) with field shape (2,)"))
    padded_inner = np.dtype({"names": ["a", "b"], "formats": ["i1", "i1"], "offsets": [0, 4],
                             "itemsize": 8})
    dt2 = np.dtype({"names": ["a", "b"], "formats": ["<i4", "<i4"], "offsets": [1, 6]})
    items += [
        ("struct-subarray-of-struct-le-1d-C",
         np.dtype([("x", (padded_inner, (3,)), (4,))]), (2,), "C",
         "field whose type is a (padded struct, (3,)) subarray, with field shape (4,)"),
        ("struct-deep-subarray-le-1d-C",
         np.dtype([("a", (np.dtype([("a", "<i8"), ("b", padded_inner)]), (3,)), (4,)),
                   ("z", "<f4", (5,))]), (2,), "C",
         "subarrays of a struct that holds a padded struct"),
        ("struct-aligned-le-1d-C", np.dtype("i1, i4, i1", align=True), (3,), "C",
         "align=True struct: numpy writes its padding as ('', '|V3') fields"),
        ("struct-offsets-le-1d-C", dt2, (3,), "C",
         "explicit offsets [1, 6]: leading and inner padding written as ('', '|V1')"),
        ("struct-nested-offsets-le-1d-C",
         np.dtype({"names": ["c", "d"], "formats": ["<i4", dt2]}), (3,), "C",
         "padding inside a nested struct"),
        ("struct-only-padding-na-1d-C",
         np.dtype({"names": [], "formats": [], "itemsize": 8}), (3,), "C",
         "struct with no fields and itemsize 8: written as [('', '|V8')]"),
        ("struct-empty-name-le-1d-C",
         np.dtype({"names": ["a", "", "b"], "formats": ["<i4"] * 3}), (3,), "C",
         "a real field named '' on a non-void type: written as ('', '<i4')"),
        ("struct-titles-le-1d-C",
         np.dtype({"names": ["a", "b"], "formats": ["<i4", "<f8"],
                   "titles": ["Title A", "Title B"]}), (3,), "C",
         "fields with titles: names written as (title, name)"),
        ("struct-titles-offsets-le-1d-C",
         np.dtype({"names": ["a", "b"], "formats": ["<i4", "<i4"], "offsets": [1, 6],
                   "titles": ["aa", "bb"]}), (3,), "C",
         "titles plus explicit offsets (numpy test dt5)"),
        ("struct-empty-na-1d-C", np.dtype([]), (3,), "C",
         "structured dtype with no fields and itemsize 0: descr []"),
        ("struct-mixed-be-2d-F",
         np.dtype([("when", ">M8[ms]"), ("delta", ">m8[25s]"), ("g", np.dtype(np.longdouble)
                                                                .newbyteorder(">")),
                   ("v", "|V3"), ("u", ">U2", (2,))]), (2, 3), "F",
         "big-endian struct with datetime, timedelta, longdouble, void and str subarray fields"),
    ]
    for name, dt, shape, order, desc in items:
        key = "struct|" + name
        arr = struct_array(dt, shape, order, key)
        add_valid_array(name + "-v1", arr, "numpy-written %s, %s, %s order, format 1.0"
                        % (desc, shape_words(shape), order), None,
                        expect_fortran=(order == "F"), _key=key)

    # the flat struct in all three versions
    flat = np.dtype(FLAT)
    key = "struct|struct-flat-le-1d-C"
    arr = struct_array(flat, (5,), "C", key)
    for version in [(2, 0), (3, 0)]:
        add_valid_array("struct-flat-le-1d-C-v%d" % version[0], arr,
                        "numpy-written flat structured dtype, shape (5,), format %d.0 forced "
                        "with write_array; same payload as the -v1 file" % version[0],
                        version, _key=key)

    # unicode field names: np.save picks format 3.0 by itself
    for name, spec, desc in [
            ("struct-unicode-names-le-1d-C", [("int", "<i8"), ("\u6574\u5f62", "<i8")],
             "field names with CJK characters (numpy test_unicode_field_names)"),
            ("struct-unicode-names2-le-1d-C", [("\u03c0", "<f8"), ("\u0451", "<U2"),
                                                ("\U0001f600", "|u1")],
             "field names outside latin1, one outside the BMP")]:
        key = "struct|" + name
        arr = struct_array(np.dtype(spec), (4,), "C", key)
        data = numpy_bytes(arr)
        assert data[6] == 3, name
        add_valid_array(name + "-v3", arr, "numpy-written %s; np.save chooses format 3.0 "
                        "(utf-8 header)" % desc, None, _key=key)

    # names repr() writes raw in latin1, or escapes: np.save keeps format 1.0
    for name, spec, desc in [
            ("struct-latin1-name-le-1d-C", [("a\u00e9b", "<f8")],
             "a latin1 field name: the v1 header holds it as one byte"),
            ("struct-escaped-names-le-1d-C",
             [("\u202e", "<f8"), ("\u200b", "<f8"), ("\u3000", "<f8"), ("\ufeff", "<f8"),
              ("\ud7ff", "<f8"), ("\u0378", "<f8"), ("\x85", "|u1"), ("\xa0", "|u1"),
              ("\xad", "|u1"), ("\U000e0001", "|u1")],
             "field names that repr() escapes (format, space, unassigned, C1 controls)")]:
        key = "struct|" + name
        arr = struct_array(np.dtype(spec), (3,), "C", key)
        assert numpy_bytes(arr)[6] == 1, name
        add_valid_array(name + "-v1", arr, "numpy-written %s" % desc, None, _key=key)
    key = "struct|struct-escaped-names-utf8-le-1d-C"
    arr = struct_array(np.dtype([("\u6574\u202e", "<i4"), ("\u00e9\u3000", "<i4")]), (3,), "C", key)
    add_valid_array("struct-escaped-names-utf8-le-1d-C-v3", arr,
                    "numpy-written names mixing printable CJK (raw UTF-8) and escaped characters; "
                    "np.save chooses format 3.0", None, _key=key)

    # a header over 65535 bytes: np.save chooses format 2.0 (many short fields)
    nf = 2300
    spec = [("n%05dxxxxxxxxxx" % i, "|u1") for i in range(nf)]
    key = "struct|struct-big-header"
    arr = struct_array(np.dtype(spec), (2,), "C", key)
    data = numpy_bytes(arr)
    assert data[6] == 2, "big header must need v2"
    add_valid_array("struct-big-header-na-1d-C-v2", arr,
                    "numpy-written struct of %d one-byte fields: the header exceeds 65535 "
                    "bytes, so np.save chooses format 2.0; numpy only loads it with a raised "
                    "max_header_size" % nf, None, _key=key,
                    _expect="reject", npyguard_error="NPYG_ELIMIT_HEADER")


# ---------------------------------------------------------------------------
# compat/: crafted, numpy 1.24 loads them (unless noted)
# ---------------------------------------------------------------------------

NATIVE_ORDER_CASES = {"descr-no-byteorder", "descr-native-eq", "descr-native-bar",
                      "descr-native-bar-U", "descr-name-float64", "descr-char-code-d"}


def gen_compat():
    H = header_dict
    P2 = f8(2)

    def c(name, data, desc, **kw):
        add("compat", name, data, desc, **kw)

    # --- alignment and layout
    c("align16-v1", craft((1, 0), H(), P2, align=16),
      "numpy <= 1.13 layout: header padded to a 16-byte boundary (data offset 80)")
    c("align16-nocomma-v1", craft((1, 0), "{'descr': '<f8', 'fortran_order': False, "
                                  "'shape': (2,)}", P2, align=16),
      "numpy <= 1.13 layout without the trailing ', ' before '}'")
    c("align16-mod2-v2", craft((2, 0), H(), P2, align=16, length_field=2),
      "format 2.0 aligned the numpy 1.9-1.13 way: data offset = 2 mod 16")
    c("align-none-v1", frame((1, 0), H() + "\n", P2),
      "no padding at all: the payload starts right after the newline, unaligned")
    c("no-newline-v1", craft((1, 0), H(), P2, end=""),
      "header padded with spaces but with no terminating newline")
    c("no-padding-no-newline-v1", frame((1, 0), H(), P2),
      "header is the bare dict: no padding, no newline")
    c("tab-padding-v1", craft((1, 0), H(), P2, pad="\t"),
      "header padded with tabs instead of spaces")
    c("crlf-v1", craft((1, 0), H(), P2, end="\r\n"),
      "header terminated by CR LF")
    c("many-newlines-v1", craft((1, 0), H(), P2, pad="\n"),
      "header padded with newlines")
    c("formfeed-v1", craft((1, 0), H() + "\x0c", P2),
      "form feed after the dict")
    c("leading-newline-v1", craft((1, 0), "\n" + H(), P2),
      "header starts with a newline before '{'")
    c("leading-space-v1", craft((1, 0), " " + H(), P2),
      "header starts with a space before '{' (accepted by ast.literal_eval only on "
      "CPython >= 3.10)")
    c("trailing-bytes-v1", craft((1, 0), H(), P2 + b"trailing garbage\x00\xff"),
      "18 bytes after the payload (numpy ignores them)")
    c("trailing-npy-v1", craft((1, 0), H(), P2) + craft((1, 0), H(), f8(2, 5)),
      "two .npy files concatenated: the second is trailing bytes of the first")
    c("tiny-header-v2", frame((2, 0), "{'descr':'<f8','fortran_order':False,'shape':(2,)}\n",
                              P2),
      "format 2.0 with a 51-byte compact header, unaligned")
    c("tiny-header-v3", frame((3, 0), "{'descr':'<f8','fortran_order':False,'shape':(2,)}\n",
                              P2),
      "format 3.0 with a 51-byte compact pure-ASCII header, unaligned")
    c("ascii-aligned-v2", craft((2, 0), H(), P2),
      "format 2.0 for a header that fits in 1.0, aligned like numpy's writer")

    # --- Python-2 'L' suffixes (v1/v2 only)
    c("py2-long-v1", craft((1, 0), H(shape="(2L,)"), P2, align=16),
      "Python-2 long suffix in shape (2L,), 16-byte aligned like win64python2.npy")
    c("py2-long-space-v1", craft((1, 0), H(shape="(2 L,)"), P2),
      "Python-2 long suffix separated by a space: (2 L,)")
    c("py2-long-2d-v1", craft((1, 0), H(shape="(1L, 2L)"), P2),
      "Python-2 long suffixes on every dim: (1L, 2L)")
    c("py2-long-v2", craft((2, 0), H(shape="(2L,)"), P2),
      "Python-2 long suffix in a format 2.0 header")
    c("py2-long-descr-v1", craft((1, 0), H(descr="[('a', '<f8', (2L,))]", shape="(1L,)"), P2),
      "Python-2 long suffix inside a descr subarray shape")

    # --- literal syntax numpy's writer never emits
    c("unsorted-keys-v1", craft((1, 0), "{'shape': (2,), 'fortran_order': False, "
                                "'descr': '<f8', }", P2),
      "keys in reverse order")
    c("duplicate-key-v1", craft((1, 0), "{'descr': '|u1', 'descr': '<f8', "
                                "'fortran_order': False, 'shape': (2,), }", P2),
      "descr given twice: the last one ('<f8') wins")
    c("double-quotes-v1", craft((1, 0), '{"descr": "<f8", "fortran_order": False, '
                                '"shape": (2,), }', P2),
      "keys and values in double quotes")
    c("triple-quotes-v1", craft((1, 0), "{'''descr''': \"\"\"<f8\"\"\", 'fortran_order': "
                                "False, 'shape': (2,), }", P2),
      "triple-quoted key and value")
    c("prefixed-strings-v1", craft((1, 0), "{u'descr': r'<f8', U'fortran_order': False, "
                                   "R'shape': (2,), }", P2),
      "u'' and r'' string prefixes")
    c("escapes-v1", craft((1, 0), "{'d\\x65scr': '<f\\x38', 'fortran_order': False, "
                          "'shap\\u0065': (2,), }", P2),
      "escape sequences in keys and descr ('<f\\x38' is '<f8')")
    c("concat-strings-v1", craft((1, 0), "{'desc' 'r': '<' 'f8', 'fortran_order': False, "
                                 "'shape': (2,), }", P2),
      "implicit string concatenation in a key and in descr")
    c("parens-v1", craft((1, 0), "{('descr'): ('<f8'), 'fortran_order': (False), "
                         "'shape': ((2,)), }", P2),
      "redundant parentheses around keys and values")
    c("int-forms-v1", craft((1, 0), H(shape="(0x1, 0b1, 0o1, 1_0, +2)"), f8(20)),
      "dims spelled 0x1, 0b1, 0o1, 1_0 and +2")
    c("no-trailing-comma-v1", craft((1, 0), "{'descr': '<f8', 'fortran_order': False, "
                                    "'shape': (2,)}", P2),
      "no ', ' after the last value")
    c("shape-no-comma-v1", craft((1, 0), H(shape="(2, 3)"), f8(6)),
      "shape written without a trailing comma after the last dim")
    c("comment-v1", craft((1, 0), "{'descr': '<f8', # the dtype\n 'fortran_order': False, "
                          "'shape': (2,), } # end", P2),
      "Python comments inside and after the dict")
    c("line-continuation-v1", craft((1, 0), "{'descr': '<f8', \\\n'fortran_order': False, "
                                    "'shape': (2,), }", P2),
      "backslash line continuation inside the dict")
    pprint = ("{'descr': [('x', '<i4', (2,)), ('y', '<f8', (2, 2)), ('z', '|u1')],\n"
              " 'fortran_order': False,\n 'shape': (2,)}")
    c("pprint-multiline-v1", craft((1, 0), pprint, bytes((i * 7) % 256 for i in range(2 * 41)),
                                   align=16),
      "multi-line pprint-style header of numpy <= 1.1 (no trailing comma, 16-byte aligned)")
    c("whitespace-inside-v1", craft((1, 0), "{ 'descr' :'<f8' ,'fortran_order':False,"
                                    "'shape':( 2 , ) }", P2),
      "unusual spacing inside the dict")

    # --- header size limit
    base = H()
    for total, name, expect, desc, extra in [
            (10000, "header-10000-v1", "accept",
             "HEADER_LEN exactly 10000 (padding spaces): numpy's default max_header_size "
             "lets it through", {}),
            (10001, "header-10001-v1", "reject",
             "HEADER_LEN 10001: over numpy's default max_header_size of 10000 (loads with "
             "a raised limit)", {"npyguard_error": "NPYG_ELIMIT_HEADER"})]:
        text = base + " " * (total - len(base) - 1) + "\n"
        assert len(text) == total
        c(name, frame((1, 0), text, P2), desc, _expect=expect, **extra)
    text3 = H() + " #" + "\u20ac" * 3400 + "\n"
    assert len(text3) <= 10000 < len(text3.encode("utf-8"))
    c("header-chars-vs-bytes-v3", frame((3, 0), text3, P2),
      "v3 header of %d characters but %d UTF-8 bytes (a comment of euro signs): numpy "
      "counts characters against max_header_size and loads it; npyguard counts bytes"
      % (len(text3), len(text3.encode("utf-8"))), npyguard_error="NPYG_ELIMIT_HEADER")

    # --- descr spellings
    for name, descr, desc in [
            ("descr-no-byteorder", "'f8'", "typestr without a byte order: native"),
            ("descr-native-eq", "'=f8'", "'=' byte order on a multi-byte type: native"),
            ("descr-native-bar", "'|f8'", "'|' byte order on a multi-byte type: native"),
            ("descr-native-bar-U", "'|U2'", "'|' byte order on a str type: native"),
            ("descr-space-size", "'<f 8'", "space between kind and size ('<f 8')"),
            ("descr-leading-zero", "'<f08'", "leading zero in the size ('<f08')"),
            ("descr-plus-size", "'<f+8'", "plus sign in the size ('<f+8')"),
            ("descr-name-float64", "'float64'", "dtype name instead of a typestr"),
            ("descr-char-code-d", "'d'", "single-character type code 'd'"),
            ("descr-a-alias", "'|a2'", "'a' alias of 'S' (removed in numpy 2.5)"),
            ("descr-be-on-u1", "'>u1'", "byte order '>' on a one-byte type"),
            ("descr-le-on-S", "'<S2'", "byte order '<' on a bytes type"),
            ("descr-bool8-alias", "'bool8'", "alias 'bool8' (removed in numpy 2.0)"),
            ("descr-comma-string", "'<i4,<f8'", "comma-separated typestr makes a struct"),
            ("descr-M8-mult-zero", "'<M8[0s]'", "datetime unit multiplier 0"),
            ("descr-M8-divisor", "'<M8[s/10]'", "datetime unit with a divisor: [s/10] is [100ms]"),
            ("descr-M8-space", "'<M8[ 5s]'", "space inside the datetime unit brackets"),
            ("descr-field-list", "[['a', '<f8']]", "a field given as a list, not a tuple"),
            ("descr-field-int-shape", "[('a', '<f4', 2)]",
             "field shape given as a bare int 2"),
            ("descr-field-shape-1", "[('a', '<f8', 1)]",
             "field shape given as the int 1: numpy 1.24 reads a plain field, numpy 2 a (1,)"
             " subarray"),
            ("descr-field-shape-empty", "[('a', '<f8', ())]", "field shape () means no subarray"),
            ("descr-pad-subarray", "[('', '|V4', (2,)), ('a', '<f8')]",
             "a '' padding field with a subarray shape"),
            ("descr-tuple-size", "('|S0', 8)", "top-level (type, size) tuple: S0 sized to S8"),
            ("descr-tuple-view", "('<f8', '<i8')", "top-level (base, new) view tuple"),
            ("descr-toplevel-subarray-1", "('<f8', (1,))",
             "top-level subarray dtype of one element"),
            ("descr-utf8-name", "[('\u00e6\u0095\u00b4', '<f8')]",
             "UTF-8 bytes of a CJK field name in a v1 header, read as latin1 mojibake"),
    ]:
        extra = {}
        if name in NATIVE_ORDER_CASES:
            extra["platform_dependent"] = True
            desc += " (the byte order is the reader's native one)"
        c(name + "-v1", craft((1, 0), H(descr=descr), payload_for(descr, 2)), desc, **extra)
    c("latin1-name-v1", craft((1, 0), H(descr="[('caf\u00e9', '<f8')]"), P2),
      "latin1 byte 0xE9 in a v1 field name (decoded as 'caf\u00e9')")
    c("U-itemsize-wrap-v1", craft((1, 0), H(descr="'<U1073741824'"), b""),
      "'<U1073741824': 4 * 2**30 bytes wraps to itemsize 0 in numpy 1.24, which loads it",
      npyguard_error="NPYG_EOVERFLOW")

    # --- shapes
    c("negative-dim-v1", craft((1, 0), H(shape="(-1,)"), f8(3)),
      "shape (-1,): numpy 1.24 reads all remaining data of a real file as 3 items "
      "(rejected on the file-like path)", npyguard_error="NPYG_EDIM")
    c("negative-dim-2d-v1", craft((1, 0), H(shape="(-1, 2)"), f8(6)),
      "shape (-1, 2): numpy 1.24 infers 3 rows from the file size",
      npyguard_error="NPYG_EDIM")
    c("S0-huge-count-v1", craft((1, 0), H(descr="'|S0'", shape="(%d,)" % 10 ** 18)),
      "zero itemsize '|S0' with shape (10**18,): no payload at all")
    c("V0-huge-2d-v1", craft((1, 0), H(descr="'|V0'", shape="(%d, %d)" % (10 ** 9, 10 ** 9))),
      "zero itemsize '|V0' with shape (10**9, 10**9)")
    c("zero-dim-huge-v1", craft((1, 0), H(shape="(0, %d)" % (2 ** 40))),
      "shape (0, 2**40): zero items although one dim is huge")
    c("fortran-zero-size-v1", craft((1, 0), H(fortran="True", shape="(0, 5)")),
      "fortran_order True on a zero-size 2-D array (numpy writes these as C order)")
    c("fortran-scalar-v1", craft((1, 0), H(fortran="True", shape="()"), f8(1)),
      "fortran_order True with shape (): no effect")
    c("fortran-1d-v1", craft((1, 0), H(fortran="True", shape="(2,)"), P2),
      "fortran_order True on a 1-D array (numpy writes these as C order)")
    for nd, expect in [(33, "reject"), (64, "reject")]:
        c("dims%d-v1" % nd, craft((1, 0), H(shape="(" + "1, " * nd + ")"), f8(1)),
          "%d dims of size 1: over numpy 1.x's limit of 32 (numpy 2 allows 64)" % nd,
          _expect=expect)
    c("dims33-F-v1", craft((1, 0), H(fortran="True", shape="(2, " + "1, " * 31 + "3)"),
                           f8(6)),
      "33 dims, Fortran order, 6 items: over numpy 1.x's limit of 32", _expect="reject")

    # --- where an earlier npyguard differed from numpy
    c("object-in-pad-v1", craft((1, 0), H("[('', '|O', (2,)), ('b', '<f8')]"), f8(6)),
      "an object subarray in a '' pad: numpy drops the pad before building the dtype, so "
      "no object and no pickle")
    c("datetime-size-08-v1", craft((1, 0), H("'<M08'"), P2),
      "'<M08': numpy's integer parse of the size reads a generic datetime64")
    c("field-type-3-tuple-v1", craft((1, 0), H("[('a', ('<f8', (1,), 5))]"), P2),
      "a field type (type, shape, extra): numpy ignores the third item")
    c("continuation-after-blank-v1", craft((1, 0), "\n \\\n" + H(), P2),
      "a blank line, then an indented backslash continuation: numpy's token filter drops "
      "the indent (the same text fails as v3)")
    c("descr-set-call-v1", craft((1, 0), H("set()"), b""),
      "descr set(): literal_eval's empty set, which numpy builds as an empty struct")
    c("cr-leading-v1", craft((1, 0), "\r" + H(), P2),
      "a CR before the dict: numpy's tokenize and CPython read the line differently")
    c("descr-tuple-empty-dict-v1", craft((1, 0), H("[('a', ([], {}))]"), b""),
      "a field type ([], {}): numpy reads {} as a struct without fields, the view form")
    c("field-type-none-v1", craft((1, 0), H("[('a', ('<M8', None))]"), f8(2)),
      "a field type ('<M8', None): numpy reads None as float64, the view form")
    c("zero-sub-base-int-v1", craft((1, 0), H("[('a', ('<f8', (0,)), 3)]"), f8(2)[:6]),
      "a zero-item subarray as an unsized base: numpy makes the int 3 its itemsize")


# ---------------------------------------------------------------------------
# invalid/: one defect each; numpy must reject every one
# ---------------------------------------------------------------------------

def gen_invalid():
    H = header_dict
    P2 = f8(2)
    good = craft((1, 0), H(), P2)
    good_hdr = good[8:]          # length field + header + payload

    def bad(name, data, code, desc, **kw):
        add("invalid", name, data, desc, npyguard_error=code, **kw)

    # --- where an earlier npyguard accepted what numpy refuses
    bad("dup-key-unhashable-v1", craft((1, 0), "{'descr': {[1]}, 'descr': '<f8', "
                                       "'fortran_order': False, 'shape': (2,), }", P2),
        "NPYG_ENOTLITERAL", "a discarded duplicate value {[1]}: literal_eval builds the set and "
        "fails (unhashable type)")
    bad("subarray-items-over-int-v1", craft((1, 0), H("[('a', [], (65536, 65536))]"), b""),
        "NPYG_EOVERFLOW", "a subarray of an empty struct with 2**32 items: numpy keeps the count "
        "in a C int")
    bad("zero-sub-base-tuple-v1", craft((1, 0), H("[('a', ('<f8', (0,)), (2,))]"), b""),
        "NPYG_EDESCR", "a zero-item subarray as the base of another: numpy's 'invalid itemsize in "
        "generic type tuple'")
    bad("cr-leading-pylong-v1", craft((1, 0), "\r" + H(shape="(2L,)"), P2),
        "NPYG_EUNSUPPORTED", "a CR before the dict hides the line from numpy's 'L' filter, so the "
        "'L' stays and the header fails")
    bad("formfeed-indent-v1", craft((1, 0), "\n\f" + H(), P2), "NPYG_ESYNTAX",
        "a form feed opening the dict's line: numpy's token filter makes it an indent")
    bad("subarray-dims33-v1", craft((1, 0), H("[('a', '<f8', (" + "1, " * 33 + "))]"), P2),
        "NPYG_EDESCR", "a field subarray with 33 dims: numpy 1.x's limit is 32")

    # --- magic
    for name, prefix, desc in [
            ("magic-92", b"\x92NUMPY", "first magic byte 0x92 instead of 0x93"),
            ("magic-00", b"\x00NUMPY", "first magic byte 0x00"),
            ("magic-lowercase", b"\x93numpy", "magic in lower case"),
            ("magic-matlb", b"\x93MATLB", "magic \\x93MATLB"),
            ("magic-no-x93", b"NUMPY\x01", "magic without its 0x93 byte")]:
        bad(name, prefix + b"\x01\x00" + good_hdr, "NPYG_EMAGIC", desc)
    bad("magic-ascii-dict", H().encode() + b"\n" + P2, "NPYG_EMAGIC",
        "a bare header dict with no magic or length")

    # --- truncated preamble
    for name, data, desc in [
            ("trunc-empty", b"", "empty file"),
            ("trunc-magic-3", MAGIC[:3], "3 bytes: ends inside the magic"),
            ("trunc-magic-6", MAGIC, "6 bytes: magic only, no version"),
            ("trunc-version-7", MAGIC + b"\x01", "7 bytes: ends inside the version"),
            ("trunc-length-8-v1", MAGIC + b"\x01\x00", "v1, ends before the length field"),
            ("trunc-length-9-v1", MAGIC + b"\x01\x00\x76", "v1, ends inside the length field"),
            ("trunc-length-10-v2", MAGIC + b"\x02\x00\x76\x00",
             "v2, ends inside the 4-byte length field"),
            ("trunc-length-11-v3", MAGIC + b"\x03\x00\x76\x00\x00",
             "v3, ends inside the 4-byte length field")]:
        bad(name, data, "NPYG_ETRUNC_PREAMBLE", desc)

    # --- versions
    for major, minor in [(0, 0), (0, 1), (1, 1), (2, 1), (3, 1), (4, 0), (255, 255)]:
        bad("version-%d.%d" % (major, minor), MAGIC + bytes([major, minor]) + good_hdr,
            "NPYG_EVERSION", "format version %d.%d followed by a valid v1 header"
            % (major, minor))

    # --- header length field
    text = padded((1, 0), H())
    bad("hlen-past-eof-v1", frame((1, 0), text[:60], hlen=len(text)), "NPYG_ETRUNC_HEADER",
        "HEADER_LEN %d but the file ends after 60 header bytes" % len(text))
    text2 = padded((2, 0), H())
    bad("hlen-past-eof-v2", frame((2, 0), text2[:60], hlen=len(text2)), "NPYG_ETRUNC_HEADER",
        "v2 HEADER_LEN %d but the file ends after 60 header bytes" % len(text2))
    bad("hlen-past-eof-payload-v1", frame((1, 0), text + P2, hlen=len(text) + 100),
        "NPYG_ETRUNC_HEADER", "HEADER_LEN 100 bytes larger than everything after it")
    bad("hlen-4gib-v2", frame((2, 0), b"{'", hlen=0xFFFFFFFF), "NPYG_ELIMIT_HEADER",
        "v2 HEADER_LEN 0xFFFFFFFF in a 14-byte file")
    bad("hlen-4gib-v3", frame((3, 0), b"{'", hlen=0xFFFFFFFF), "NPYG_ELIMIT_HEADER",
        "v3 HEADER_LEN 0xFFFFFFFF in a 14-byte file")
    bad("hlen-65535-v1", frame((1, 0), text, hlen=0xFFFF), "NPYG_ELIMIT_HEADER",
        "v1 HEADER_LEN 65535 (over the 10000 limit) in a short file")
    bad("hlen-20000-v2", frame((2, 0), text2, P2, hlen=20000), "NPYG_ELIMIT_HEADER",
        "v2 HEADER_LEN 20000 (over the 10000 limit) in a short file")
    real = numpy_bytes(make_array("<f8", (3, 4), "C", "trunc"))
    bad("trunc-header-v1", real[:50], "NPYG_ETRUNC_HEADER",
        "numpy-written file cut after 50 bytes, inside the header")
    bad("trunc-header-last-byte-v1", real[:127], "NPYG_ETRUNC_HEADER",
        "numpy-written file missing the header's final newline and the payload")
    bad("hlen-zero-v1", frame((1, 0), b""), "NPYG_ESYNTAX", "HEADER_LEN 0: empty header")
    bad("hlen-zero-payload-v1", frame((1, 0), b"", text + P2), "NPYG_ESYNTAX",
        "HEADER_LEN 0 followed by what would have been the header")
    bad("hlen-too-short-v1", frame((1, 0), text + P2, hlen=40), "NPYG_ESYNTAX",
        "HEADER_LEN 40 cuts the dict in the middle (unbalanced brace)")

    # --- not a dict
    for name, body, desc in [
            ("notdict-list", "[('descr', '<f8'), ('fortran_order', False), ('shape', (2,))]",
             "header is a list of pairs"),
            ("notdict-set", "{'descr', 'fortran_order', 'shape'}", "header is a set"),
            ("notdict-tuple", "('<f8', False, (2,))", "header is a tuple"),
            ("notdict-string", "'descr'", "header is a string"),
            ("notdict-int", "42", "header is an int"),
            ("notdict-none", "None", "header is None")]:
        bad(name + "-v1", craft((1, 0), body, P2), "NPYG_ENOTDICT", desc)

    # --- keys
    for name, body, desc in [
            ("keys-missing-shape", "{'descr': '<f8', 'fortran_order': False, }",
             "no 'shape' key"),
            ("keys-missing-descr", "{'fortran_order': False, 'shape': (2,), }",
             "no 'descr' key"),
            ("keys-missing-fortran", "{'descr': '<f8', 'shape': (2,), }",
             "no 'fortran_order' key"),
            ("keys-empty-dict", "{}", "empty dict"),
            ("keys-extra", "{'descr': '<f8', 'extrakey': -1, 'fortran_order': False, "
             "'shape': (2,), }", "an extra key"),
            ("keys-bytes", "{b'descr': '<f8', b'fortran_order': False, b'shape': (2,), }",
             "bytes keys instead of str"),
            ("keys-capitalised", "{'Descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
             "key 'Descr' in the wrong case"),
            ("keys-int-key", "{1: 2, 'descr': '<f8', 'fortran_order': False, "
             "'shape': (2,), }", "an int key next to the right ones"),
            ("keys-trailing-space", "{'descr ': '<f8', 'fortran_order': False, "
             "'shape': (2,), }", "key 'descr ' with a trailing space")]:
        bad(name + "-v1", craft((1, 0), body, P2), "NPYG_EKEYS", desc)

    # --- shape
    for name, shape, desc in [
            ("shape-list", "[2]", "shape is a list"),
            ("shape-float", "(2.0,)", "a float dim"),
            ("shape-none", "None", "shape is None"),
            ("shape-int", "2", "shape is a bare int"),
            ("shape-str", "'2'", "shape is a string"),
            ("shape-nested", "((2,),)", "a tuple inside the shape tuple"),
            ("shape-float-L", "(2.0L,)", "Python-2 'L' after a float: (2.0,) after filtering"),
            ("shape-complex", "(2j,)", "a complex dim")]:
        bad(name + "-v1", craft((1, 0), H(shape=shape), P2), "NPYG_ESHAPE", desc)
    for name, shape, payload, desc in [
            ("dim-negative-two", "(-1, -1)", P2, "two negative dims"),
            ("dim-negative-indivisible", "(-2, 3)", f8(8),
             "a negative dim with 8 items of data (not a multiple of 3)"),
            ("dim-negative-no-data", "(-1, 4)", f8(1), "a negative dim with too little data"),
            ("dim-2pow64", "(%d,)" % 2 ** 64, P2, "a dim of 2**64"),
            ("dim-2pow63", "(%d,)" % 2 ** 63, P2, "a dim of 2**63"),
            ("dim-huge-literal", "(%s,)" % ("9" * 40), P2, "a 40-digit dim"),
            ("dim-bool-true", "(True, 2)", P2, "True as a dim"),
            ("dim-bool-false", "(False,)", b"", "False as a dim")]:
        bad(name + "-v1", craft((1, 0), H(shape=shape), payload), "NPYG_EDIM", desc)
    for name, descr, shape, payload, desc in [
            ("overflow-count-2pow32-sq", "'<f8'", "(%d, %d)" % (2 ** 32, 2 ** 32), P2,
             "dims 2**32 x 2**32: element count 2**64 overflows"),
            ("overflow-count-2pow62x4", "'<f8'", "(%d, 4)" % 2 ** 62, P2,
             "dims 2**62 x 4: element count overflows 64 bits"),
            ("overflow-bytes-2pow62-f8", "'<f8'", "(%d,)" % 2 ** 62, P2,
             "2**62 items of 8 bytes: byte count 2**65 overflows"),
            ("overflow-bytes-2pow61-c32", "'<c16'", "(%d,)" % 2 ** 61, P2,
             "2**61 items of 16 bytes: byte count 2**65 overflows"),
            ("overflow-itemsize-S2pow31", "'|S2147483648'", "(1,)", P2,
             "'|S2147483648': itemsize over 2**31-1"),
            ("overflow-itemsize-U2pow29", "'<U536870912'", "(1,)", P2,
             "'<U536870912': itemsize 2**31, over 2**31-1"),
            ("overflow-struct", "[('a', '|S1073741824'), ('b', '|S1073741824')]", "(1,)", P2,
             "two fields of 2**30 bytes: struct itemsize 2**31"),
            ("overflow-struct-offset", "[('a', '|S2147483647'), ('b', '|u1')]", "(1,)", P2,
             "fields of 2**31-1 and 1 bytes: struct itemsize 2**31"),
            ("overflow-subarray-bytes", "[('a', '<f8', (%d,))]" % 2 ** 28, "(1,)", P2,
             "subarray field of 2**28 doubles: 2**31 bytes"),
            ("overflow-subarray-dim", "[('a', '<f8', (%d,))]" % 2 ** 31, "(1,)", P2,
             "subarray dim 2**31: does not fit a C int"),
            ("overflow-subarray-nested", "[('a', [('b', '<f8', (%d,))], (4,))]" % 2 ** 27,
             "(1,)", P2, "subarray of a struct holding a subarray: 2**31 bytes in total"),
            ("overflow-toplevel-subarray", "('<f8', (%d,))" % 2 ** 28, "(1,)", P2,
             "top-level subarray of 2**31 bytes")]:
        code = "NPYG_EOVERFLOW"
        bad(name + "-v1", craft((1, 0), H(descr=descr, shape=shape), payload), code, desc)

    # --- fortran_order
    for name, val, desc in [("fortran-int-0", "0", "fortran_order 0"),
                            ("fortran-int-1", "1", "fortran_order 1"),
                            ("fortran-str", "'False'", "fortran_order 'False' (a string)"),
                            ("fortran-none", "None", "fortran_order None"),
                            ("fortran-float", "0.0", "fortran_order 0.0"),
                            ("fortran-L", "0L", "fortran_order 0L (0 after filtering)")]:
        bad(name + "-v1", craft((1, 0), H(fortran=val), P2), "NPYG_EFORTRAN", desc)

    # --- descr
    for name, descr, desc in [
            ("descr-int", "8", "descr is an int"),
            ("descr-none", "None", "descr is None"),
            ("descr-empty-string", "''", "descr is ''"),
            ("descr-kind-x", "'<x8'", "unknown kind 'x'"),
            ("descr-i3", "'<i3'", "no 3-byte int"),
            ("descr-f12", "'<f12'", "no 12-byte float on this platform"),
            ("descr-i16", "'<i16'", "no 16-byte int"),
            ("descr-bang", "'!f8'", "byte order '!'"),
            ("descr-trailing-space", "'<f8 '", "trailing space in the typestr"),
            ("descr-M8-bad-unit", "'<M8[B]'", "unknown datetime unit 'B'"),
            ("descr-M8-junk", "'<M8[s]x'", "junk after the datetime unit"),
            ("descr-M4", "'<M4'", "datetime of 4 bytes"),
            ("descr-S-negative", "'|S-5'", "negative bytes size"),
            ("descr-1-tuple", "('<i4',)", "a 1-tuple"),
            ("descr-dup-field", "[('a', '<i4'), ('a', '<f8')]", "two fields named 'a'"),
            ("descr-two-empty-names", "[('', '<i4'), ('', '<f4')]",
             "two real fields named '' (not void padding)"),
            ("descr-title-equals-name", "[(('a', 'a'), '<i4')]", "title equal to the name"),
            ("descr-field-name-int", "[(1, '<f8')]", "a field name that is an int"),
            ("descr-field-name-bytes", "[(b'a', '<f8')]", "a field name that is bytes"),
            ("descr-field-1-tuple", "[('a',)]", "a field tuple with one element"),
            ("descr-field-4-tuple", "[('a', '<f8', (2,), 0)]", "a field tuple of 4 elements"),
            ("descr-field-negative-shape", "[('a', '<f8', (-1,))]", "a negative field dim"),
            ("descr-metadata", "[('a', '<f8'), ('b', ('|S3', {'some': 'stuff'}))]",
             "a metadata dict in a field's descr, as numpy 1.24's writer emits it"),
            ("descr-dict", "{'names': ['a'], 'formats': ['<f8']}", "descr is a dict"),
            ("descr-view-mismatch", "('<i4', '<f8')", "(base, new) tuple of different sizes"),
            ("descr-bytes", "b'<f8'", "descr is a bytes literal"),
            ("descr-subarray-reshape", "('<f8', (2,))",
             "top-level subarray of 2 elements with shape (2,): cannot be attached"),
    ]:
        payload = P2 if "(2,))" not in descr else f8(4)
        bad(name + "-v1", craft((1, 0), H(descr=descr), payload), "NPYG_EDESCR", desc)
    bad("descr-object-T-v1", craft((1, 0), H(descr="'T'"), P2), "NPYG_EDESCR",
        "'T' (StringDType, numpy >= 2.0 only)")

    # --- payload
    for name, descr, shape, order, desc in [
            ("trunc-payload-f8-1d", "<f8", (7,), "C", "1-D <f8"),
            ("trunc-payload-i2-2d-F", ">i2", (3, 4), "F", "2-D >i2 Fortran order"),
            ("trunc-payload-U5", "<U5", (3,), "C", "<U5"),
            ("trunc-payload-c16-scalar", "<c16", (), "C", "<c16 scalar")]:
        arr = make_array(descr, shape, order, "trunc|" + name)
        data = numpy_bytes(arr)
        bad(name + "-v1", data[:-1], "NPYG_ETRUNC_PAYLOAD",
            "numpy-written %s %s with its last payload byte removed" % (desc, shape_words(shape)))
    arr = struct_array(np.dtype(NDESCR), (2,), "C", "trunc|struct")
    bad("trunc-payload-struct-v1", numpy_bytes(arr)[:-1], "NPYG_ETRUNC_PAYLOAD",
        "numpy-written nested struct with its last payload byte removed")
    bad("trunc-payload-scalar-empty-v1", craft((1, 0), H(shape="()")), "NPYG_ETRUNC_PAYLOAD",
        "shape () scalar <f8 with no payload at all")
    bad("trunc-payload-half-v1", craft((1, 0), H(shape="(4,)"), f8(2)),
        "NPYG_ETRUNC_PAYLOAD", "shape (4,) <f8 with only 2 items of payload")
    bad("trunc-payload-empty-v2", craft((2, 0), H(shape="(3, 3)")), "NPYG_ETRUNC_PAYLOAD",
        "v2, shape (3, 3) with no payload")

    # --- encodings and bytes in the header
    hdr3 = H(descr="[('\u00e9', '<f8')]")
    raw3 = padded((3, 0), hdr3)
    bad("utf8-invalid-v3", frame((3, 0), raw3.replace("\u00e9".encode(), b"\xff\xff"), P2),
        "NPYG_EUTF8", "v3 header with the bytes FF FF in a field name")
    bad("utf8-lone-continuation-v3", frame((3, 0), raw3.replace("\u00e9".encode(), b"\x80a"), P2),
        "NPYG_EUTF8", "v3 header with a lone UTF-8 continuation byte")
    bad("utf8-overlong-v3", frame((3, 0), raw3.replace("\u00e9".encode(), b"\xc0\xa9"), P2),
        "NPYG_EUTF8", "v3 header with an overlong 2-byte encoding of ')'")
    bad("utf8-surrogate-v3", frame((3, 0), raw3.replace("\u00e9".encode(), b"\xed\xa0\x80"),
                                   P2),
        "NPYG_EUTF8", "v3 header with an encoded UTF-16 surrogate")
    bad("utf8-truncated-v3", frame((3, 0), raw3.replace("\u00e9".encode(), b"\xe6\x95"), P2),
        "NPYG_EUTF8", "v3 header with a truncated 3-byte sequence")
    bad("bom-v3", frame((3, 0), b"\xef\xbb\xbf" + padded((3, 0), H())[:-4] + b"\n", P2),
        "NPYG_ESYNTAX", "v3 header starting with a UTF-8 byte order mark")
    bad("py2-long-v3", craft((3, 0), H(shape="(2L,)"), P2), "NPYG_EPY2LONG",
        "Python-2 'L' suffix in a v3 header")
    bad("py2-long-descr-v3", craft((3, 0), H(descr="[('a', '<f8', (2L,))]", shape="(1,)"), P2),
        "NPYG_EPY2LONG", "Python-2 'L' suffix in a v3 descr subarray")
    raw1 = padded((1, 0), H())
    bad("nul-padding-v1", frame((1, 0), raw1[:-2] + b"\x00\n", P2), "NPYG_ENUL",
        "a NUL byte in the padding")
    bad("nul-in-string-v1", craft((1, 0), H(descr="'<f8\x00'"), P2), "NPYG_ENUL",
        "a NUL byte inside the descr string")
    bad("nul-leading-v1", frame((1, 0), b"\x00" + raw1[:-2] + b"\n", P2), "NPYG_ENUL",
        "a NUL byte before '{'")
    bad("nul-padding-v3", frame((3, 0), padded((3, 0), H())[:-2] + b"\x00\n", P2), "NPYG_ENUL",
        "a NUL byte in the padding of a v3 header")

    # --- syntax
    for name, body, desc in [
            ("syntax-unbalanced-paren", "{'descr': '<f8', 'fortran_order': False, "
             "'shape': (2,, }", "shape tuple never closed"),
            ("syntax-unbalanced-brace", "{'descr': '<f8', 'fortran_order': False, "
             "'shape': (2,), ", "dict never closed"),
            ("syntax-extra-brace", H() + "}", "an extra '}'"),
            ("syntax-unterminated-string", "{'descr': '<f8, 'fortran_order': False, "
             "'shape': (2,), }", "an unterminated string"),
            ("syntax-junk-after", H() + "\nxyz", "a name on a line after the dict"),
            ("syntax-semicolon", H() + ";", "';' after the dict"),
            ("syntax-two-dicts", H() + " " + H(), "two dicts in a row"),
            ("syntax-lower-l", H(shape="(2l,)"), "lower-case 'l' suffix (not filtered)"),
            ("syntax-double-L", H(shape="(2LL,)"), "'LL' suffix"),
            ("syntax-missing-colon", "{'descr' '<f8', 'fortran_order': False, "
             "'shape': (2,), }", "key without ':' (the strings concatenate)"),
            ("syntax-missing-comma", "{'descr': '<f8' 'fortran_order': False, "
             "'shape': (2,), }", "no comma between two items"),
            ("syntax-leading-zero-int", H(shape="(02,)"), "decimal int with a leading zero"),
            ("syntax-bad-escape", "{'descr': '<f\\x8', 'fortran_order': False, "
             "'shape': (2,), }", "truncated \\x escape in a string"),
            ]:
        bad(name + "-v1", craft((1, 0), body, P2), "NPYG_ESYNTAX", desc)

    # --- not a literal
    for name, body, desc in [
            ("notliteral-call", H(descr="dtype('<f8')"), "descr written as a call"),
            ("notliteral-name", H(descr="float64"), "descr written as a bare name"),
            ("notliteral-attribute", H(descr="np.float64"), "descr written as an attribute"),
            ("notliteral-binop", H(shape="(1+1,)"), "an addition in the shape"),
            ("notliteral-mul", H(shape="(2*1,)"), "a multiplication in the shape"),
            ("notliteral-fstring", H(descr="f'<f8'"), "descr as an f-string"),
            ("notliteral-not", H(fortran="not True"), "fortran_order as 'not True'"),
            ("notliteral-comprehension", H(shape="tuple(i for i in (2,))"),
             "shape built by a call over a generator"),
            ("notliteral-lambda", H(descr="(lambda: '<f8')()"), "a lambda call"),
            ("notliteral-lowercase-false", H(fortran="false"), "fortran_order as the name false")]:
        bad(name + "-v1", craft((1, 0), body, P2), "NPYG_ENOTLITERAL", desc)


# ---------------------------------------------------------------------------
# unsafe/: object dtypes (pickle payloads)
# ---------------------------------------------------------------------------

def pickle_bytes_os_system():
    """A protocol-2 pickle that would call os.system('echo ...'), written opcode
    by opcode. It is never loaded."""
    cmd = b"echo npyguard-corpus: this pickle would run a shell command"
    return (b"\x80\x02"                          # PROTO 2
            b"cos\nsystem\n"                     # GLOBAL 'os system'
            b"X" + struct.pack("<I", len(cmd)) + cmd +   # BINUNICODE
            b"\x85"                              # TUPLE1
            b"R"                                 # REDUCE
            b".")                                # STOP


def pickle_bytes_stack_global():
    """Protocol 4: posix.system through STACK_GLOBAL, written by hand."""
    cmd = b"echo npyguard-corpus"
    body = (b"\x8c\x05posix\x94"                 # SHORT_BINUNICODE 'posix', MEMOIZE
            b"\x8c\x06system\x94"                # SHORT_BINUNICODE 'system', MEMOIZE
            b"\x93\x94"                          # STACK_GLOBAL, MEMOIZE
            b"\x8c" + bytes([len(cmd)]) + cmd + b"\x94"
            b"\x85\x94"                          # TUPLE1
            b"R\x94"                             # REDUCE
            b".")
    return b"\x80\x04\x95" + struct.pack("<Q", len(body)) + body    # PROTO 4, FRAME


def pickle_bytes_plain_list():
    """Protocol 2 pickle of [1, 2]: no globals at all."""
    return b"\x80\x02]q\x00(K\x01K\x02e."


def gen_unsafe():
    H = header_dict

    def u(name, data, desc):
        add("unsafe", name, data, desc, npyguard_error="NPYG_EOBJECT")

    arr = np.array([1, "two", None, 3.5], dtype=object)
    u("obj-toplevel-v1", numpy_bytes(arr, allow_pickle=True),
      "numpy-written object array [1, 'two', None, 3.5]: descr '|O', pickle protocol 3")
    arr2 = np.empty((2, 2), dtype=object)
    arr2[...] = [[1, 2], ["a", None]]
    u("obj-toplevel-2d-F-v1", numpy_bytes(np.asfortranarray(arr2), allow_pickle=True),
      "numpy-written 2x2 object array in Fortran order")
    u("obj-py2-O8-v1", craft((1, 0), H(descr="'|O8'", shape="(2,)"), pickle_bytes_plain_list(),
                             align=16),
      "Python-2 style descr '|O8', 16-byte aligned, hand-written protocol-2 pickle of [1, 2]")
    u("obj-bare-O-v1", craft((1, 0), H(descr="'O'", shape="(2,)"), pickle_bytes_plain_list(),
                             align=16),
      "descr 'O' without byte order (numpy <= 1.1 style)")
    dt = np.dtype([("a", "<i4"), ("b", "O")])
    s = np.zeros(2, dt)
    s["a"] = [1, 2]
    s["b"] = ["x", None]
    u("obj-field-v1", numpy_bytes(s, allow_pickle=True),
      "numpy-written struct with an object field")
    dt = np.dtype([("a", "<i4"), ("n", [("x", "<f8"), ("o", "O")])])
    s = np.zeros(2, dt)
    s["n"]["o"] = [b"bytes", 7]
    u("obj-nested-field-v1", numpy_bytes(s, allow_pickle=True),
      "numpy-written struct with an object field inside a nested struct")
    dt = np.dtype([("a", "O", (2,)), ("b", "<f4")])
    s = np.zeros(2, dt)
    s["a"] = [[1, "one"], [2, "two"]]
    u("obj-subarray-field-v1", numpy_bytes(s, allow_pickle=True),
      "numpy-written struct with an object subarray field")
    u("obj-os-system-v1", craft((1, 0), H(descr="'|O'", shape="(1,)"),
                                pickle_bytes_os_system()),
      "pickle payload that would call os.system (GLOBAL opcode, written by hand)")
    u("obj-posix-system-stack-global-v1",
      craft((1, 0), H(descr="'|O'", shape="(1,)"), pickle_bytes_stack_global()),
      "protocol-4 pickle that would call posix.system through STACK_GLOBAL")
    u("obj-field-os-system-v1",
      craft((1, 0), H(descr="[('a', '<f8'), ('b', '|O')]", shape="(1,)"),
            pickle_bytes_os_system()),
      "object field in a struct; the pickle would call os.system")


# ---------------------------------------------------------------------------
# Measuring
# ---------------------------------------------------------------------------

def read_header(path, ver, limit):
    with open(path, "rb") as fp:
        got = npf.read_magic(fp)
        assert got == ver
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return npf._read_array_header(fp, ver, max_header_size=limit)


def header_literal(data, fr):
    """The header dict as numpy's reader sees it (for numpy-written files)."""
    text = data[fr["data_offset"] - fr["header_len"]:fr["data_offset"]]
    text = text.decode("utf-8" if fr["version"][0] == 3 else "latin1")
    return ast.literal_eval(text)


def measure_case(rel, case, path):
    data = case["data"]
    group = case["group"]
    entry = {"group": group, "description": case["description"]}
    fr = read_framing(data)
    entry.update(fr)
    for k in ("npyguard_error", "platform_dependent", "base"):
        if k in case:
            entry[k] = case[k]

    verdict, arr, caught = numpy_verdict(path)
    entry["numpy"] = verdict
    wlist = sorted(set("%s: %s" % (w.category.__name__, norm_message(str(w.message)))
                       for w in caught))
    if wlist:
        entry["numpy_warnings"] = wlist
    expect = case.get("_expect", "reject" if group in ("invalid", "unsafe") else "accept")
    if verdict["verdict"] != expect:
        raise SystemExit("FATAL: %s: numpy verdict %r, expected %s (%s)"
                         % (rel, verdict, expect, case["description"]))
    if group in ("invalid", "unsafe"):
        assert verdict["verdict"] == "reject"

    fl_verdict, _a, _w = numpy_verdict(io.BytesIO(data))
    if fl_verdict != verdict:
        entry["numpy_filelike"] = fl_verdict
    limit = None
    if verdict["verdict"] == "reject" and \
            verdict["message"].startswith("Header info length"):
        limit = BIG_LIMIT
        rv, arr, _w = numpy_verdict(path, max_header_size=BIG_LIMIT)
        entry["numpy_max_header_size"] = dict(rv, max_header_size=BIG_LIMIT)

    if group in ("invalid", "unsafe"):
        entry["refusal_classes"] = gen_conform12.refusal_classes(rel, case)
    if group == "unsafe":
        if "data_offset" in fr:
            entry["pickle_imports"] = pickle_imports(data[fr["data_offset"]:])
        return entry
    if group == "invalid":
        return entry

    # valid / compat: the parsed header
    ver = tuple(fr["version"])
    shape, fortran, dtype = read_header(path, ver, limit or BIG_LIMIT)
    if group == "valid":
        lit = header_literal(data, fr)
        descr = lit["descr"]
        src = case["_arr"]
        assert repr(descr) == repr(npf.dtype_to_descr(src.dtype)), rel
        if repr(npf.dtype_to_descr(dtype)) != repr(descr):
            print("note: %s: parsed descr %r differs from written %r"
                  % (rel, npf.dtype_to_descr(dtype), descr), file=sys.stderr)
    else:
        descr = npf.dtype_to_descr(dtype)
    entry["descr_repr"] = repr(descr)
    entry["descr"] = descr_json(descr)
    entry["shape"] = [json_int(x) for x in shape]
    entry["fortran_order"] = bool(fortran)
    itemsize = dtype.itemsize
    count = 1
    for x in shape:
        count *= int(x)
    if arr is not None and count < 0:
        # numpy 1.24 on a real file: a single negative dim takes what is left
        entry["numpy_loaded_shape"] = list(arr.shape)
        count = arr.size
    payload = count * itemsize
    entry["itemsize"] = itemsize
    entry["count"] = json_int(count)
    entry["payload_bytes"] = json_int(payload)
    off = fr["data_offset"]
    assert len(data) >= off + payload, rel
    entry["payload_sha256"] = hashlib.sha256(data[off:off + payload]).hexdigest()
    entry["trailing_bytes"] = len(data) - off - payload
    if arr is not None and arr.dtype.itemsize and count:
        order = "F" if fortran else "C"
        got = np.ascontiguousarray(arr.T).tobytes() if order == "F" else arr.tobytes()
        if arr.ndim == len(shape) or "numpy_loaded_shape" in entry:
            assert got == data[off:off + payload], "%s: numpy's array != payload" % rel
    if group == "valid":
        assert arr is None or arr.tobytes() == case["_arr"].tobytes(), rel
        if arr is not None:
            assert arr.dtype == case["_arr"].dtype or case["_arr"].dtype.isalignedstruct, rel
    return entry


# ---------------------------------------------------------------------------

PREFIX_CASES = [
    "valid/f8-le-1d-C-v1.npy",
    "valid/i2-be-2d-F-v1.npy",
    "valid/U5-be-3d-C-v1.npy",
    "valid/M8-ns-be-2d-F-v1.npy",
    "valid/c16-be-scalar-C-v3.npy",
    "valid/struct-nested-le-1d-C-v1.npy",
    "valid/struct-unicode-names-le-1d-C-v3.npy",
    "valid/f8-le-2d-C-v2.npy",
    # little-endian v1 files of more than one dimension (suite 1.2.0)
    "valid/f8-le-2d-C-v1.npy",
    "valid/i4-le-2d-F-v1.npy",
]


def check_prefixes(root):
    """Every strict prefix of the prefix cases must be rejected by numpy."""
    for rel in PREFIX_CASES:
        data = CASES[rel]["data"]
        for n in range(len(data)):
            v, _a, _w = numpy_verdict(io.BytesIO(data[:n]))
            if v["verdict"] != "reject":
                raise SystemExit("FATAL: numpy accepts the %d-byte prefix of %s" % (n, rel))


def main(argv):
    # A set's repr (one numpy message quotes one) depends on string hashing:
    # pin it so the manifest is reproducible.
    if os.environ.get("PYTHONHASHSEED") != "0":
        env = dict(os.environ, PYTHONHASHSEED="0")
        os.execve(sys.executable, [sys.executable] + argv, env)
    here = os.path.dirname(os.path.abspath(__file__))
    out = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(here), "corpus")
    os.makedirs(out, exist_ok=True)
    for g in ("valid", "compat", "invalid", "unsafe"):
        shutil.rmtree(os.path.join(out, g), ignore_errors=True)
        os.makedirs(os.path.join(out, g))

    gen_valid()
    gen_compat()
    gen_invalid()
    gen_unsafe()
    # --- suite 1.1.0 cases: their own script, gen_conform11.py
    import gen_conform11
    gen_conform11.gen(sys.modules[__name__])
    # --- suite 1.2.0: each defect again on other bases (gen_conform12.py)
    gen_conform12.gen(sys.modules[__name__])
    # --- suite 1.3.0: every defect family on every base (gen_conform13.py)
    import gen_conform13
    gen_conform13.gen(sys.modules[__name__])

    for rel in sorted(CASES):
        with open(os.path.join(out, rel), "wb") as f:
            f.write(CASES[rel]["data"])

    files = {}
    for rel in sorted(CASES):
        files[rel] = measure_case(rel, CASES[rel], os.path.join(out, rel))
    for rel in PREFIX_CASES:
        assert rel in CASES and CASES[rel]["group"] == "valid", rel
    check_prefixes(out)

    manifest = {
        "suite_version": SUITE_VERSION,
        "numpy_version": np.__version__,
        "python_version": "%d.%d.%d" % sys.version_info[:3],
        "platform_note": "longdouble/clongdouble files and files whose descr has no explicit "
                         "byte order were generated on little-endian x86-64 Linux",
        "prefix_cases": PREFIX_CASES,
        "files": files,
    }
    with open(os.path.join(out, "manifest.json"), "w", encoding="ascii", newline="\n") as f:
        json.dump(manifest, f, indent=1, sort_keys=True, ensure_ascii=True)
        f.write("\n")

    counts = {}
    for c in CASES.values():
        counts[c["group"]] = counts.get(c["group"], 0) + 1
    total = sum(len(c["data"]) for c in CASES.values())
    print("wrote %d files (%s), %d bytes of .npy, to %s"
          % (len(CASES), ", ".join("%s %d" % kv for kv in sorted(counts.items())), total, out))


if __name__ == "__main__":
    main(sys.argv)
