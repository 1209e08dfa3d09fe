#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write corpus/npz/: .npz archives and their manifest.

Usage: /usr/bin/python3 gen/gen_npz.py [OUTDIR]      (default: corpus/npz next to gen/)

Deterministic: fixed arrays, zipfile's fixed 1980-01-01 timestamps, and a
zip writer of our own for the crafted archives, so that two runs with the
same numpy, Python and zlib give identical bytes.

Groups under OUTDIR:
  valid/    written by numpy (np.savez, np.savez_compressed) or by zipfile the
            way numpy's _savez uses it (zipf.open(name, 'w', force_zip64=True)),
            to reach every format version and the data-descriptor layout
  unsafe/   numpy-written archives with object (pickle) members, written with
            allow_pickle=True from harmless lists; never unpickled here
  compat/   crafted; numpy loads every member (npyguard may still refuse: it is
            stricter than zipfile), and the 4 GiB bomb, a valid array
  invalid/  crafted; numpy fails on some member
and OUTDIR/manifest.json.

For every file the manifest records what Python's zipfile does (open, then
read every member to its end, which checks each CRC) and what np.load does
(open, then index every key), each as a verdict and the exception; per
member the zip fields, and for .npy members numpy can read the header fields
and the payload SHA-256; and the npyguard error expected under the numpy
and strict profiles (absent: accepted).

Each measurement runs in a forked child under a 3 GiB address-space limit
(RLIMIT_AS), so that the bomb costs numpy a MemoryError instead of 4 GiB of
this machine's memory; the manifest says so where it matters.
"""

import hashlib
import io
import json
import os
import resource
import shutil
import struct
import sys
import traceback
import warnings
import zipfile
import zlib

import numpy as np
import numpy.lib.format as npf

from npygen import MAGIC, descr_json, exc_name, json_int, pickle_imports, read_framing

HERE = os.path.dirname(os.path.abspath(__file__))
AS_LIMIT = 3 << 30
DOS_DATE_1980 = (0 << 9) | (1 << 5) | 1


# ---------------------------------------------------------------- npy bytes

def npy(arr, version=None):
    b = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        npf.write_array(b, np.asanyarray(arr), version=version, allow_pickle=True)
    return b.getvalue()


def sample_arrays():
    """Members of the numpy-written archives: several kinds, orders, shapes."""
    return {
        "f8_2d": np.arange(12, dtype="<f8").reshape(3, 4) / 7,
        "i4_be": np.arange(-5, 5, dtype=">i4"),
        "u2_F": np.asfortranarray(np.arange(24, dtype="<u2").reshape(4, 6)),
        "c16_be_scalar": np.array(1.5 - 2j, dtype=">c16"),
        "b1": np.array([True, False, True]),
        "U5": np.array(["numpy", "zip", ""], dtype="<U5"),
        "S3_empty": np.zeros((0, 3), dtype="S3"),
        "M8_ns": np.array(["2020-01-01T00:00:00", "1969-12-31T23:59:59"], dtype=">M8[ns]"),
        "struct": np.array([(1, 2.5, b"ab"), (3, -1.0, b"c")],
                           dtype=[("id", "<i4"), ("x", ">f8"), ("tag", "S2")]),
        "nested": np.zeros(2, dtype=[("p", [("a", "<i2"), ("b", "u1", (3,))]), ("q", ">f4")]),
    }


class NonSeekable:
    """A sink zipfile cannot seek: it writes data descriptors (flag bit 3)."""

    def __init__(self):
        self.buf = bytearray()

    def write(self, b):
        self.buf += b
        return len(b)

    def flush(self):
        pass


def savez_like(members, compress, sink=None):
    """numpy's _savez, with a chosen format version per member."""
    out = sink if sink is not None else io.BytesIO()
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(out, mode="w", compression=method, allowZip64=True) as zf:
        for name, arr, version in members:
            with zf.open(name, "w", force_zip64=True) as f:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    npf.write_array(f, np.asanyarray(arr), version=version, allow_pickle=True)
    return bytes(out.buf) if sink is not None else out.getvalue()


def np_savez(fn, *args, **kw):
    b = io.BytesIO()
    fn(b, *args, **kw)
    return b.getvalue()


# ---------------------------------------------------------------- our zip writer

def deflate(data, level=6):
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def zip64_local_extra(usize, csize):
    return struct.pack("<HHQQ", 1, 16, usize, csize)


def build_zip(members, comment=b"", prefix=b"", suffix=b"", zip64_eocd=False, eocd=None,
              cd_trailing=b"", cd_order=None, extra_cd=()):
    """Craft an archive. Each member is a dict; every field the archive
    states can be overridden (local_*, cd_*, desc_*) to make one defect."""
    out = bytearray(prefix)
    cds = []
    for m in members:
        name = m["name"]
        data = m.get("data", b"")
        method = m.get("method", 0)
        comp = m.get("comp")
        if comp is None:
            comp = deflate(data) if method == 8 else data
        crc = m.get("crc", zlib.crc32(data))
        csize = m.get("csize", len(comp))
        usize = m.get("usize", len(data))
        flags = m.get("flags", 0)
        offset = len(out) - len(prefix) + m.get("offset_delta", 0)
        desc = m.get("descriptor")          # None, "sig", "nosig", "missing"
        wide = m.get("local_zip64", False) or usize >= 0xFFFFFFFF or csize >= 0xFFFFFFFF
        # local header
        l_crc, l_cs, l_us = crc, csize, usize
        if desc:
            l_crc = l_cs = l_us = 0
        l_crc = m.get("local_crc", l_crc)
        l_cs = m.get("local_csize", l_cs)
        l_us = m.get("local_usize", l_us)
        l_extra = m.get("local_extra", b"")
        if wide:
            l_extra = zip64_local_extra(l_us, l_cs) + l_extra
            if l_us >= 0xFFFFFFFF or l_cs >= 0xFFFFFFFF:
                l_us32 = l_cs32 = 0xFFFFFFFF
            else:
                l_us32, l_cs32 = l_us, l_cs
        else:
            l_us32, l_cs32 = l_us, l_cs
        l_name = m.get("local_name", name)
        out += struct.pack("<IHHHHHIIIHH", 0x04034b50, m.get("version", 20),
                           m.get("local_flags", flags), m.get("local_method", method),
                           0, DOS_DATE_1980, l_crc, l_cs32, l_us32, len(l_name), len(l_extra))
        out += l_name + l_extra + comp
        if desc in ("sig", "nosig"):
            d_crc = m.get("desc_crc", crc)
            body = struct.pack("<IQQ" if wide else "<III", d_crc, csize, usize)
            out += (struct.pack("<I", 0x08074b50) if desc == "sig" else b"") + body
        out += m.get("after", b"")
        # central entry
        c_us, c_cs, c_off = usize, csize, offset
        c_extra = b""
        z64 = b""
        if c_us >= 0xFFFFFFFF:
            z64 += struct.pack("<Q", c_us)
            c_us = 0xFFFFFFFF
        if c_cs >= 0xFFFFFFFF:
            z64 += struct.pack("<Q", c_cs)
            c_cs = 0xFFFFFFFF
        if m.get("cd_zip64_offset"):
            z64 += struct.pack("<Q", c_off)
            c_off = 0xFFFFFFFF
        if z64:
            c_extra = struct.pack("<HH", 1, len(z64)) + z64
        c_extra = m.get("cd_extra", c_extra)
        cname = m.get("cd_name", name)
        cd = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 0x031E, m.get("cd_version", m.get("version", 20)), flags,
                         method, 0, DOS_DATE_1980, crc, m.get("cd_csize32", c_cs),
                         m.get("cd_usize32", c_us), len(cname), len(c_extra), 0,
                         m.get("cd_disk", 0), 0, 0o600 << 16, c_off)
        cds.append(cd + cname + c_extra)
    for c in extra_cd:
        cds.append(c)
    if cd_order:
        cds = [cds[k] for k in cd_order]
    cd_off = len(out) - len(prefix)
    cd = b"".join(cds) + cd_trailing
    out += cd
    n = len(cds)
    e = dict(disk=0, cd_disk=0, n_disk=n, n=n, cd_size=len(cd), cd_off=cd_off)
    e.update(eocd or {})
    if zip64_eocd:
        rec_at = len(out) - len(prefix)
        out += struct.pack("<IQHHIIQQQQ", 0x06064b50, 44, 0x031E, 45, 0, 0,
                           e["n_disk"], e["n"], e["cd_size"], e["cd_off"])
        out += struct.pack("<IIQI", 0x07064b50, 0, rec_at, e.get("disks", 1))
        e.update(n_disk=0xFFFF, n=0xFFFF, cd_size=0xFFFFFFFF, cd_off=0xFFFFFFFF)
    out += struct.pack("<IHHHHIIH", 0x06054b50, e["disk"], e["cd_disk"], e["n_disk"], e["n"],
                       e["cd_size"], e["cd_off"], len(comment)) + comment
    out += suffix
    return bytes(out)


def m_npy(name, arr, method=0, **kw):
    d = dict(name=name.encode() if isinstance(name, str) else name, data=npy(arr), method=method)
    d.update(kw)
    return d


def zeros_bomb(total_zeros, header):
    """Raw deflate of header + total_zeros zero bytes, built from one
    self-contained 16 MiB block repeated, so it is made in seconds."""
    block = 16 << 20
    assert total_zeros % block == 0
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = c.compress(header) + c.flush(zlib.Z_FULL_FLUSH)
    c2 = zlib.compressobj(9, zlib.DEFLATED, -15)
    body = c2.compress(bytes(block)) + c2.flush(zlib.Z_FULL_FLUSH)
    comp = head + body * (total_zeros // block) + b"\x03\x00"   # empty final fixed block
    crc = zlib.crc32(header)
    zero = bytes(block)
    for _ in range(total_zeros // block):
        crc = zlib.crc32(zero, crc)
    return comp, crc


def npy_header(descr, shape):
    """Just the preamble and header numpy would write for (descr, shape)."""
    d = {"descr": descr, "fortran_order": False, "shape": shape}
    b = io.BytesIO()
    npf._write_array_header(b, d, (1, 0))
    return b.getvalue()


# ---------------------------------------------------------------- the cases

CASES = []


def case(group, name, data, description, error=None, strict_error=None, member=None,
         strict_member=None, note=None):
    """error/strict_error: expected NPYG_E* under the numpy/strict profile
    (None: accepted); member: the member it is reported for (None: the
    archive, when it is opened)."""
    if strict_error is None and error is not None:
        strict_error = error
        if strict_member is None:
            strict_member = member
    CASES.append(dict(group=group, name=name, data=data, description=description, error=error,
                      strict_error=strict_error, member=member, strict_member=strict_member, note=note))


def gen_valid():
    A = sample_arrays()
    case("valid", "savez-several.npz", np_savez(np.savez, **A),
         "np.savez: ten members of every kind, byte order, C and Fortran order, structured")
    case("valid", "savez-compressed-several.npz", np_savez(np.savez_compressed, **A),
         "np.savez_compressed: the same ten members, deflated")
    case("valid", "savez-positional.npz", np_savez(np.savez, np.arange(3), np.eye(2)),
         "np.savez with positional arrays: members arr_0.npy, arr_1.npy")
    case("valid", "savez-empty.npz", np_savez(np.savez),
         "np.savez with no arrays: the 22-byte empty end record")
    case("valid", "savez-compressed-empty.npz", np_savez(np.savez_compressed),
         "np.savez_compressed with no arrays")
    case("valid", "savez-big-endian.npz",
         np_savez(np.savez, a=np.arange(6, dtype=">f8"), b=np.arange(6, dtype=">i8").reshape(2, 3),
                  c=np.array(["x", "yz"], dtype=">U2")),
         "np.savez of big-endian arrays")
    case("valid", "savez-structured.npz",
         np_savez(np.savez_compressed, s=A["struct"], n=A["nested"],
                  t=np.zeros(3, dtype=np.dtype({"names": ["a", "b"], "formats": ["<i4", "<f8"],
                                                "offsets": [0, 8], "titles": ["A", None]}))),
         "np.savez_compressed of structured arrays (nested, padded, titled)")
    v = np.arange(5, dtype="<f4")
    uni = np.zeros(2, dtype=[("\u00fcber", "<i2"), ("\u03b1", "<f4")])
    for comp in (False, True):
        tag = "compressed-" if comp else ""
        case("valid", "versions-%s123.npz" % tag,
             savez_like([("v1.npy", v, (1, 0)), ("v2.npy", v, (2, 0)), ("v3.npy", uni, (3, 0))], comp),
             "members in format 1.0, 2.0 and 3.0, written the way np.savez%s writes them"
             % ("_compressed" if comp else ""))
    case("valid", "descriptor-stored.npz",
         savez_like([("a.npy", np.arange(4), None), ("b.npy", A["U5"], None)], False, NonSeekable()),
         "zipfile on a stream it cannot seek: data descriptors (flag bit 3) with zip64 sizes")
    case("valid", "descriptor-deflate.npz",
         savez_like([("a.npy", np.arange(100), None), ("b.npy", A["struct"], None)], True, NonSeekable()),
         "the same, deflated")
    big = np.arange(300000, dtype="<i8") % 1000
    case("valid", "savez-compressed-multichunk.npz", np_savez(np.savez_compressed, big=big, small=v),
         "a 2.4 MB member: inflated across many 64 KiB chunks")


def gen_unsafe():
    case("unsafe", "pickle-member.npz",
         np_savez(np.savez, ok=np.arange(3), obj=np.array([1, "two", None, [3]], dtype=object)),
         "np.savez of an object array from a harmless list: a pickle member",
         error="NPYG_EOBJECT", member="obj.npy")
    case("unsafe", "pickle-member-compressed.npz",
         np_savez(np.savez_compressed, obj=np.array([{"a": 1}, (2, 3)], dtype=object)),
         "np.savez_compressed of an object array: a deflated pickle member",
         error="NPYG_EOBJECT", member="obj.npy")
    case("unsafe", "pickle-struct-field.npz",
         np_savez(np.savez, rec=np.array([(1, "x")], dtype=[("i", "<i4"), ("o", "O")])),
         "a structured member with an object field", error="NPYG_EOBJECT", member="rec.npy")


def gen_crafted():
    x = np.arange(10, dtype="<i8")
    y = np.ones((2, 3), dtype=">f4")
    good = [m_npy("x.npy", x), m_npy("y.npy", y, method=8)]
    xb = npy(x)

    # ---- accepted by npyguard (numpy profile), possibly refused under strict
    case("crafted", "crafted-baseline.npz", build_zip(good),
         "our own writer: a stored and a deflated member, no zip64 records")
    case("crafted", "zip64-everything.npz",
         build_zip([dict(m, local_zip64=True, cd_zip64_offset=True) for m in good], zip64_eocd=True),
         "zip64 end record and locator, zip64 extras in local headers and directory (offsets)")
    case("crafted", "descriptor-no-signature.npz",
         build_zip([dict(good[0], flags=8, descriptor="nosig"), dict(good[1], flags=8, descriptor="nosig")]),
         "data descriptors without their optional signature")
    case("crafted", "comment.npz", build_zip(good, comment=b"made by hand"),
         "archive comment", strict_error="NPYG_EZIP_COMMENT")
    case("crafted", "non-npy-member.npz",
         build_zip([m_npy("test1.npy", x), m_npy("test2", x), dict(name=b"metadata", data=b"Name: Test")]),
         "numpy's test_load_non_npy: an .npy without the suffix and raw bytes; numpy returns bytes",
         strict_error="NPYG_EZIP_NOTNPY", strict_member="test2")
    case("crafted", "npy-name-not-npy.npz", build_zip([dict(name=b"x.npy", data=b"hello")]),
         "a member named x.npy holding b'hello': numpy returns the bytes",
         strict_error="NPYG_EZIP_NOTNPY", strict_member="x.npy")
    case("crafted", "member-trailing-bytes.npz", build_zip([dict(name=b"x.npy", data=xb + b"junk")]),
         "four bytes after the payload inside the member", strict_error="NPYG_ETRAILING",
         strict_member="x.npy")
    case("crafted", "cp437-name.npz", build_zip([m_npy(b"caf\x82.npy", x)]),
         "a non-ASCII name without the UTF-8 flag (cp437 to zipfile)", strict_error="NPYG_EZIP_NAME")
    case("crafted", "utf8-name.npz", build_zip([m_npy("caf\u00e9.npy".encode(), x, flags=0x800)]),
         "a UTF-8 name with flag bit 11")

    # ---- numpy accepts, npyguard refuses (stricter than zipfile)
    case("crafted", "appended-bytes.npz", build_zip(good, suffix=b"appended"),
         "bytes after the end record (zipfile finds the record anyway)", error="NPYG_EZIP_EOCD")
    case("crafted", "empty-eocd-then-zeros.npz", b"PK\x05\x06" + bytes(100),
         "PK\\5\\6 and 100 zero bytes: numpy opens an empty archive", error="NPYG_EZIP_EOCD")
    case("crafted", "duplicate-name.npz", build_zip([m_npy("x.npy", x), m_npy("x.npy", y)]),
         "two members named x.npy: zipfile and numpy use the last", error="NPYG_EZIP_DUPNAME")
    case("crafted", "duplicate-key.npz", build_zip([m_npy("x", x), m_npy("x.npy", y)]),
         "members x and x.npy: both are key 'x' to numpy", error="NPYG_EZIP_DUPNAME")
    for fname, nm, what in [("name-dotdot", b"../evil.npy", "a '..' component"),
                            ("name-dotdot-inner", b"a/../../evil.npy", "'..' inside the path"),
                            ("name-absolute", b"/tmp/evil.npy", "an absolute path"),
                            ("name-backslash", b"..\\evil.npy", "a backslash"),
                            ("name-drive", b"C:/evil.npy", "a drive letter"),
                            ("name-dot-component", b"a/./x.npy", "a '.' component"),
                            ("name-newline", b"x\n.npy", "a newline (forges report lines)"),
                            ("name-nul", b"x.npy\x00.txt", "a NUL byte (zipfile cuts the name there)")]:
        case("crafted", fname + ".npz", build_zip([m_npy(nm, x)]),
             "member name with %s" % what, error="NPYG_EZIP_NAME")
    case("crafted", "name-too-long.npz", build_zip([m_npy(b"n" * 600 + b".npy", x)]),
         "a 604-byte name, over the default max_name_bytes (512)", error="NPYG_ELIMIT_NAME")
    case("crafted", "gap-between-members.npz",
         build_zip([dict(good[0], after=b"hidden bytes"), good[1]]),
         "bytes between two members that belong to no entry", error="NPYG_EZIP_GAP")
    case("crafted", "local-method-differs.npz", build_zip([good[0], dict(good[1], local_method=0)]),
         "local header says stored, the directory deflate (zipfile reads the directory)",
         error="NPYG_EZIP_LOCAL")
    case("crafted", "local-size-differs.npz", build_zip([dict(good[0], local_csize=5, local_usize=5)]),
         "local sizes differ from the directory's", error="NPYG_EZIP_LOCAL")
    case("crafted", "local-crc-differs.npz", build_zip([dict(good[0], local_crc=0x12345678)]),
         "local CRC differs from the directory's", error="NPYG_EZIP_LOCAL")
    case("crafted", "local-flags-differ.npz", build_zip([dict(good[0], local_flags=0x800)]),
         "local flags differ from the directory's", error="NPYG_EZIP_LOCAL")
    case("crafted", "descriptor-wrong-crc.npz",
         build_zip([dict(good[0], flags=8, descriptor="sig", desc_crc=0xDEADBEEF)]),
         "data descriptor with a CRC that disagrees with the directory", error="NPYG_EZIP_DESCRIPTOR")
    case("crafted", "descriptor-missing.npz",
         build_zip([dict(good[0], flags=8, descriptor=None, local_crc=0, local_csize=0, local_usize=0),
                    good[1]]),
         "flag bit 3 and zeroed local fields, but no data descriptor", error="NPYG_EZIP_DESCRIPTOR")
    case("crafted", "method-bzip2.npz",
         build_zip([dict(name=b"x.npy", data=xb, method=12, comp=__import__("bz2").compress(xb))]),
         "a bzip2 member (method 12), which zipfile reads", error="NPYG_EZIP_METHOD")
    case("crafted", "cdir-misplaced.npz",
         b"PK\x03\x04" + bytes(26) + build_zip(good),
         "a 30-byte dummy local header, then an archive whose offsets ignore it: zipfile shifts "
         "every offset by the difference ('concat') and reads the members", error="NPYG_EZIP_CDIR")
    lie_hdr = npy_header("|u1", (1000,))
    comp = deflate(lie_hdr + bytes(64 << 20), 9)
    decl = lie_hdr + bytes(1000)
    case("crafted", "bomb-lying-size.npz",
         build_zip([dict(name=b"x.npy", data=decl, comp=comp, method=8)]),
         "deflate stream of 64 MiB declared as 1128 bytes (CRC of those): zipfile stops at the "
         "declared size and never notices", error="NPYG_EZIP_SIZE", member="x.npy")
    crc_big = npy(np.arange(10, dtype="<f8")) + bytes(300000)
    case("crafted", "crc-wrong-unread-tail.npz",
         build_zip([dict(name=b"x.npy", data=crc_big, method=8, crc=zlib.crc32(crc_big) ^ 1)]),
         "wrong CRC, 300 KB of trailing bytes numpy never reads, so it never checks",
         error="NPYG_EZIP_CRC", member="x.npy", strict_error="NPYG_ETRAILING", strict_member="x.npy")
    case("crafted", "deflate-junk-after-stream.npz",
         build_zip([dict(name=b"x.npy", data=xb, method=8, comp=deflate(xb) + b"junk")]),
         "compressed size covers 4 bytes after the end of the deflate stream",
         error="NPYG_EZIP_SIZE", member="x.npy")

    # ---- zipfile or numpy fails too
    case("crafted", "prepended-bytes.npz", b"junk" + build_zip(good),
         "bytes before the first local header: numpy takes it for a pickle", error="NPYG_EZIP_NOTZIP")
    case("crafted", "pk34-junk.npz", b"PK\x03\x04" + b"junk" * 10,
         "PK\\3\\4 followed by junk", error="NPYG_EZIP_EOCD")
    case("crafted", "truncated-archive.npz", build_zip(good)[:-30],
         "the last 30 bytes cut off", error="NPYG_EZIP_EOCD")
    case("crafted", "local-name-differs.npz", build_zip([dict(good[0], local_name=b"z.npy")]),
         "local name differs from the directory's", error="NPYG_EZIP_LOCAL")
    case("crafted", "overlap.npz",
         overlap_archive(x, y),
         "b.npy's local header and data lie inside a.npy's data", error="NPYG_EZIP_OVERLAP")
    case("crafted", "encrypted.npz", build_zip([dict(good[0], flags=1)]),
         "encryption flag (bit 0)", error="NPYG_EZIP_ENCRYPTED")
    case("crafted", "method-implode.npz", build_zip([dict(good[0], method=6)]),
         "compression method 6 (implode)", error="NPYG_EZIP_METHOD")
    case("crafted", "flag-patched-data.npz", build_zip([dict(good[0], flags=0x20)]),
         "flag bit 5 (compressed patched data)", error="NPYG_EZIP_FLAGS")
    case("crafted", "multidisk.npz", build_zip(good, eocd=dict(disk=1, cd_disk=1)),
         "end record on disk 1", error="NPYG_EZIP_MULTIDISK")
    case("crafted", "multidisk-zip64.npz", build_zip(good, zip64_eocd=True, eocd=dict(disks=2)),
         "zip64 locator naming two disks", error="NPYG_EZIP_MULTIDISK")
    case("crafted", "cdir-trailing-junk.npz", build_zip(good, cd_trailing=b"junk" * 8),
         "32 bytes of junk inside the directory after its last entry", error="NPYG_EZIP_CDIR")
    case("crafted", "cdir-offset-wrong.npz",
         build_zip(good, eocd=dict(cd_off=len(build_zip(good)) - 22 - 10 - 2 * 46 - 10)),
         "end record's directory offset is wrong", error="NPYG_EZIP_CDIR")
    case("crafted", "zip64-extra-missing.npz", build_zip([dict(good[0], cd_usize32=0xFFFFFFFF)]),
         "directory size 0xFFFFFFFF without a zip64 extra field", error="NPYG_EZIP_ZIP64")
    case("crafted", "crc-wrong.npz", build_zip([dict(good[0], crc=zlib.crc32(xb) ^ 0x80)]),
         "wrong CRC on a stored member read to its end", error="NPYG_EZIP_CRC", member="x.npy")
    case("crafted", "crc-wrong-deflate.npz", build_zip([dict(good[1], crc=0)]),
         "wrong CRC on a deflated member", error="NPYG_EZIP_CRC", member="y.npy")
    comp = bytearray(deflate(xb))
    comp[len(comp) // 2] ^= 0xFF
    comp[1] ^= 0x55
    case("crafted", "deflate-corrupt.npz",
         build_zip([dict(name=b"x.npy", data=xb, method=8, comp=bytes(comp))]),
         "corrupt deflate stream", error="NPYG_EZIP_INFLATE", member="x.npy")
    comp = deflate(xb)
    case("crafted", "deflate-truncated.npz",
         build_zip([dict(name=b"x.npy", data=xb, method=8, comp=comp[:len(comp) // 2])]),
         "deflate stream cut in half (sizes say so)", error="NPYG_EZIP_INFLATE", member="x.npy")
    case("crafted", "usize-too-large.npz",
         build_zip([dict(name=b"x.npy", data=xb, method=8, usize=len(xb) + 100)]),
         "declared uncompressed size 100 bytes more than the stream gives",
         error="NPYG_EZIP_SIZE", member="x.npy")
    case("crafted", "member-truncated-payload.npz",
         build_zip([dict(name=b"x.npy", data=xb[:-16], method=8)]),
         "a member whose .npy payload is 16 bytes short", error="NPYG_ETRUNC_PAYLOAD", member="x.npy")
    case("crafted", "member-bad-header.npz",
         build_zip([dict(name=b"x.npy", data=xb.replace(b"'descr'", b"'descx'"))]),
         "a member whose .npy header has a wrong key", error="NPYG_EKEYS", member="x.npy")

    # ---- where zipfile reads a field or a name differently than npyguard did
    case("crafted", "version-needed-63.npz", build_zip([dict(good[0], cd_version=63), good[1]]),
         "'version needed to extract' 6.3 in the directory, the highest zipfile opens")
    case("crafted", "version-needed-64.npz", build_zip([dict(good[0], cd_version=64), good[1]]),
         "'version needed to extract' 6.4 in the directory (2.0 in the local header): zipfile "
         "raises NotImplementedError", error="NPYG_EZIP_VERSION")
    case("crafted", "version-needed-local-only.npz", build_zip([dict(good[0], version=64, cd_version=20)]),
         "'version needed to extract' 6.4 in the local header only, which zipfile never reads")
    case("crafted", "version-needed-high-byte.npz", build_zip([dict(good[0], cd_version=0xFF14)]),
         "'version needed' 0xFF14: zipfile reads the low byte (2.0) and ignores the high one")
    case("crafted", "comment-eocd-signature-tail.npz", build_zip(good, comment=b"hello PK\x05\x06abc"),
         "a comment holding PK\\5\\6 in its last 21 bytes: zipfile takes that signature and fails",
         error="NPYG_EZIP_EOCD")
    case("crafted", "comment-eocd-signature-early.npz",
         build_zip(good, comment=b"PK\x05\x06" + b"z" * 30),
         "a comment starting with PK\\5\\6 and 30 more bytes: zipfile reads a bogus end record",
         error="NPYG_EZIP_EOCD")
    case("crafted", "duplicate-name-utf8-cp437.npz",
         build_zip([m_npy("\u00e9.npy".encode(), x, flags=0x800), m_npy(b"\x82.npy", y)]),
         "'\u00e9.npy' flagged UTF-8 and b'\\x82.npy' in cp437: one name to zipfile and numpy, the "
         "last shadows the first", error="NPYG_EZIP_DUPNAME", strict_error="NPYG_EZIP_NAME")
    case("crafted", "duplicate-key-utf8-cp437.npz",
         build_zip([m_npy("\u00e9".encode(), x, flags=0x800), m_npy(b"\x82.npy", y)]),
         "'\u00e9' flagged UTF-8 and b'\\x82.npy' in cp437: one key to numpy", error="NPYG_EZIP_DUPNAME",
         strict_error="NPYG_EZIP_NAME")
    case("crafted", "key-is-other-name.npz",
         build_zip([m_npy("a.npy.npy", x), m_npy("a.npy", y)]),
         "members a.npy.npy (key 'a.npy') and a.npy: numpy looks 'a.npy' up as a whole name "
         "first and never reads a.npy.npy", error="NPYG_EZIP_DUPNAME")
    case("crafted", "utf8-cp437-different.npz",
         build_zip([m_npy("\u00e9.npy".encode(), x, flags=0x800), m_npy(b"\x83.npy", y)]),
         "'\u00e9.npy' flagged UTF-8 and b'\\x83.npy' (\u00e2) in cp437: two keys",
         strict_error="NPYG_EZIP_NAME")

    # ---- bombs
    hdr = npy_header("|u1", (0xFFFFFF00,))
    claim = 0xFFFFFF00 + len(hdr)
    case("crafted", "bomb-stored-claim.npz",
         build_zip([dict(name=b"x.npy", data=hdr, csize=claim, usize=claim, local_zip64=True)]),
         "a stored member claiming 4 GiB in a 300-byte archive", error="NPYG_EZIP_BOUNDS")
    total = 4 << 30
    hdr = npy_header("|u1", (total,))
    comp, crc = zeros_bomb(total, hdr)
    data = build_zip([dict(name=b"x.npy", data=b"", comp=comp, crc=crc, method=8,
                           usize=total + len(hdr), local_zip64=True)])
    case("crafted", "bomb-deflate-4g.npz", data,
         "%d bytes that inflate to a valid 4 GiB uint8 array of zeros (ratio ~%d)"
         % (len(data), total // len(comp)),
         error="NPYG_ELIMIT_RATIO", member="x.npy",
         note="numpy measured under a %d GiB address-space limit (RLIMIT_AS)" % (AS_LIMIT >> 30))


def overlap_archive(x, y):
    """a.npy (stored) whose data contains b.npy's whole local record."""
    xb, yb = npy(x), npy(y)
    inner = build_zip([dict(name=b"b.npy", data=yb)])
    b_local = inner[:30 + 5 + len(yb)]
    a_data = xb + b_local
    arc = bytearray()
    arc += struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, 0, 0, DOS_DATE_1980, zlib.crc32(a_data),
                       len(a_data), len(a_data), 5, 0) + b"a.npy" + a_data
    b_off = 30 + 5 + len(xb)
    cds = b""
    for name, data, off in ((b"a.npy", a_data, 0), (b"b.npy", yb, b_off)):
        cds += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 0x031E, 20, 0, 0, 0, DOS_DATE_1980,
                           zlib.crc32(data), len(data), len(data), 5, 0, 0, 0, 0, 0o600 << 16, off) + name
    cd_off = len(arc)
    arc += cds + struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 2, 2, len(cds), cd_off, 0)
    return bytes(arc)


# ---------------------------------------------------------------- measuring

def verdict(e=None):
    if e is None:
        return {"verdict": "accept"}
    msg = str(e)
    if len(msg) > 500:
        msg = msg[:500] + "...[%d chars]" % len(msg)
    return {"verdict": "reject", "exception": exc_name(e), "message": msg}


def npy_fields(data):
    """Header fields and payload hash of a member numpy can parse."""
    if data[:6] != MAGIC or len(data) < 10:
        return None
    fp = io.BytesIO(data)
    ver = npf.read_magic(fp)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        shape, fortran, dtype = npf._read_array_header(fp, ver)
    fr = read_framing(data)
    hlen, off = fr["header_len"], fr["data_offset"]
    out = {"version": list(ver), "header_len": hlen, "data_offset": off,
           "descr_repr": repr(npf.dtype_to_descr(dtype)), "descr": descr_json(npf.dtype_to_descr(dtype)),
           "shape": [json_int(s) for s in shape], "fortran_order": bool(fortran)}
    if dtype.hasobject:
        out["pickle_imports"] = pickle_imports(data[off:])
        return out
    count = int(np.prod(shape, dtype=object)) if shape else 1
    nbytes = count * dtype.itemsize
    out.update(itemsize=dtype.itemsize, count=json_int(count), payload_bytes=json_int(nbytes),
               payload_sha256=hashlib.sha256(data[off:off + nbytes]).hexdigest(),
               trailing_bytes=len(data) - off - nbytes)
    return out


def read_member(zf, info, keep_limit):
    """Reads a member to its end (CRC checked); keeps the bytes if small."""
    parts, n = [], 0
    with zf.open(info) as f:
        while True:
            b = f.read(1 << 20)
            if not b:
                break
            n += len(b)
            if n <= keep_limit:
                parts.append(b)
    return b"".join(parts) if n <= keep_limit else None


def measure(path):
    """What zipfile and numpy do with the file (run in a child process)."""
    out = {}
    members = []
    try:
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                raw = info.orig_filename.encode("utf-8" if info.flag_bits & 0x800 else "cp437")
                m = {"name": info.orig_filename, "name_hex": raw.hex(), "method": info.compress_type,
                     "compressed_size": json_int(info.compress_size),
                     "uncompressed_size": json_int(info.file_size), "crc32": info.CRC,
                     "header_offset": json_int(info.header_offset)}
                members.append(m)
            out["zipfile"] = verdict()
            for info, m in zip(zf.infolist(), members):
                try:
                    data = read_member(zf, info, 64 << 20)
                except BaseException as e:   # noqa: the first failure is zipfile's verdict
                    m["zipfile"] = verdict(e)
                    if out["zipfile"]["verdict"] == "accept":
                        out["zipfile"] = verdict(e)
                    continue
                if data is None:
                    continue
                m["npy"] = data[:6] == MAGIC
                try:
                    fields = npy_fields(data) if m["npy"] else None
                except BaseException:   # noqa: numpy's own verdict below says why
                    fields = None
                if fields:
                    m.update(fields)
    except BaseException as e:   # noqa: opening failed
        out["zipfile"] = verdict(e)
    out["members"] = members
    try:
        with np.load(path, allow_pickle=False) as z:
            for key in z.files:
                z[key]
        out["numpy"] = verdict()
    except BaseException as e:   # noqa
        out["numpy"] = verdict(e)
    for m in members:       # member by member, by full name as numpy looks it up first
        try:
            with np.load(path, allow_pickle=False) as z:
                v = z[m["name"]]
            m["numpy"] = verdict()
            m["numpy_returns"] = "bytes" if isinstance(v, bytes) else "array"
        except BaseException as e:   # noqa
            m["numpy"] = verdict(e)
    return out


def measure_in_child(path):
    """measure(path) in a forked child under AS_LIMIT: a bomb's MemoryError
    stays there, and the parent's numpy is reused instead of started again
    (an interpreter per case was most of this generator's time)."""
    rd, wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(rd)
            resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))
            data = json.dumps(measure(path)).encode()
            while data:
                data = data[os.write(wr, data):]
            code = 0
        except BaseException:   # noqa: said here, then the parent's error names the case
            traceback.print_exc()
        finally:
            os._exit(code)
    os.close(wr)
    with os.fdopen(rd, "rb") as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    if status != 0:
        raise RuntimeError("measuring %s: the child ended with status %#x" % (path, status))
    return json.loads(data)


# ---------------------------------------------------------------- main

def main(argv):
    outdir = argv[1] if len(argv) > 1 else os.path.join(HERE, "..", "corpus", "npz")
    outdir = os.path.abspath(outdir)
    gen_valid()
    gen_unsafe()
    gen_crafted()
    for g in ("valid", "unsafe", "compat", "invalid"):
        shutil.rmtree(os.path.join(outdir, g), ignore_errors=True)
        os.makedirs(os.path.join(outdir, g))
    files = {}
    for c in CASES:
        tmp = os.path.join(outdir, "measuring.npz")
        with open(tmp, "wb") as f:
            f.write(c["data"])
        m = measure_in_child(tmp)
        if c["group"] == "crafted":   # compat when numpy loads every member, else invalid
            c["group"] = "compat" if m["numpy"]["verdict"] == "accept" else "invalid"
            if c["name"].startswith("bomb-deflate"):
                c["group"] = "compat"   # a valid array numpy cannot hold in its memory limit
        rel = "%s/%s" % (c["group"], c["name"])
        assert rel not in files, rel
        os.replace(tmp, os.path.join(outdir, rel))
        e = {"group": c["group"], "description": c["description"], "size": len(c["data"])}
        e.update(m)
        if c["note"]:
            e["note"] = c["note"]
        for key, val in (("npyguard_error", c["error"]), ("npyguard_error_member", c["member"]),
                         ("npyguard_strict_error", c["strict_error"]),
                         ("npyguard_strict_error_member", c["strict_member"])):
            if val is not None:
                e[key] = val
        # Where the groups say who fails, hold the measurements to it.
        if c["group"] in ("valid", "compat"):
            assert e["numpy"]["verdict"] == "accept" or c["name"].startswith("bomb-"), (rel, e["numpy"])
        if c["group"] == "valid":
            assert e["zipfile"]["verdict"] == "accept" and c["error"] is None and c["strict_error"] is None
        if c["group"] == "invalid":
            assert "reject" in (e["numpy"]["verdict"], e["zipfile"]["verdict"]), rel
        if c["group"] == "unsafe":
            assert e["numpy"]["verdict"] == "reject", rel
        files[rel] = e
        print("%-45s %7d zipfile %-6s numpy %-6s npyguard %s" % (
            rel, len(c["data"]), e["zipfile"]["verdict"], e["numpy"]["verdict"], c["error"] or "ok"))
    manifest = {"suite_version": "1.0.0", "numpy_version": np.__version__,
                "python_version": "%d.%d.%d" % sys.version_info[:3], "zlib_version": zlib.ZLIB_VERSION,
                "prefix_cases": ["valid/savez-compressed-several.npz", "valid/descriptor-stored.npz",
                                 "compat/zip64-everything.npz"],
                "files": files}
    with open(os.path.join(outdir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
