#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Writes the seed corpus of every harness from corpus/.

    fuzz/seeds.py OUTDIR   ->  OUTDIR/<target>/<name>

Every input ends with the harnesses' 4-byte configuration trailer
(fuzz_common.h): all-zero is the numpy profile with default limits, 1 the
strict profile. npy_header_fuzzer and npy_file_fuzzer get each corpus file
whole; npy_descr_fuzzer gets the descr value cut out of each header, plus
a few hand-written forms the corpus does not spell. npz_fuzzer gets the
archives of corpus/npz/ under 1 MiB (the bomb would only cost time).
ra_fuzzer gets every file of corpus/ra/, the valid ones also with the
payload sink on (trailer bit 15).
pickle_fuzzer gets the object files of corpus/unsafe/ and corpus/pickle/,
each whole and as its bare pickle.
inflate_diff_fuzzer gets a configuration byte and a raw deflate stream:
every deflated member of corpus/npz/ archives under 1 MiB, and zlib's
output for a few byte patterns at each level and strategy;
inflate_libdeflate_fuzzer the same streams (its configuration byte picks
the declared size: 0 the cap, the size made asked back; 1 the true
size; 2 one less; 3 one more).
"""
import os
import struct
import sys
import zipfile
import zlib

TARGETS = ("npy_header_fuzzer", "npy_file_fuzzer", "npy_descr_fuzzer", "npz_fuzzer", "ra_fuzzer",
           "mat_fuzzer", "pickle_fuzzer", "hdf5_walk_fuzzer", "inflate_diff_fuzzer",
           "inflate_libdeflate_fuzzer")
RA_GROUPS = ("valid", "invalid", "limit")
SINK = struct.pack("<I", 1 << 15)
# pickle_fuzzer: trailer bit 22 ("extra" bit 0) scans the input as a bare
# pickle instead of a .npy file.
BARE = struct.pack("<I", 1 << 22)
PICKLE_DIRS = ("unsafe", "pickle")
NPZ_SEED_MAX = 1 << 20
# fuzz-regressions/ is left out on purpose: an open finding in the seeds
# would stop afl-fuzz and libFuzzer at start-up; ctest replays them instead.
GROUPS = ("valid", "compat", "invalid", "unsafe")
DEFAULT = struct.pack("<I", 0)
STRICT = struct.pack("<I", 1)

EXTRA_DESCRS = [
    b"'<f8'", b"'|b1'", b"'>i2'", b"'<U3'", b"'|S0'", b"'|V16'", b"'<M8[25s]'",
    b"'>m8[as]'", b"'<M8[\xce\xbcs]'", b"'float64'", b"'datetime64'", b"'<c32'",
    b"[('a', '<i4'), ('b', '<f8', (2, 3))]",
    b"[(('title', 'x'), '|u1'), ('', '|V3'), ('y', [('z', '>u2')], (2,))]",
    b"[('a', ('<i4', (2,)), (3,))]",
    b"[('a', '<i4', 1), ('b', '<i4', ())]",
    b"[('n\\xe9', '<u8'), (u'r', r'<f4'), ('q\\'', '|S2')]",
    b"['<i4']", b"('<i4', (1,))", b"{'a'}", b"'i4' 'x'", b"'''<f8'''",
    b"[('a', '|O')]", b"'<i4'L", b"[('a', '<i8', (2L,))]",
]


def descr_of(data):
    """The text of the descr value of a .npy header, if it can be found."""
    if not data.startswith(b"\x93NUMPY") or len(data) < 10:
        return None
    pre = 10 if data[6] == 1 else 12
    if len(data) < pre:
        return None
    hlen = int.from_bytes(data[8:pre], "little")
    text = data[pre:pre + hlen]
    k = text.find(b"'descr':")
    if k < 0:
        return None
    v = text[k + len(b"'descr':"):].lstrip(b" ")
    e = v.find(b", 'fortran_order'")
    if e < 0:
        e = v.find(b", 'shape'")
    return v[:e] if e > 0 else None


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def group_files(corpus, sub, groups, keep):
    """(group, name, bytes) of each regular file in corpus/SUB/GROUP, groups
    in order and names sorted, that keep(name, path) accepts."""
    for group in groups:
        d = os.path.join(corpus, sub, group)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            p = os.path.join(d, name)
            if os.path.isfile(p) and keep(name, p):
                with open(p, "rb") as f:
                    yield group, name, f.read()


def small(name, path):
    return os.path.getsize(path) <= NPZ_SEED_MAX


def not_hidden_or_prose(name, path):
    return not name.startswith(".") and not name.endswith(".md")


def is_npy(name, path):
    return name.endswith(".npy")


def deflated_members(data):
    """The raw deflate bytes of each deflated member, where zipfile opens it."""
    import io
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        infos = zf.infolist()
    except Exception:
        return
    for info in infos:
        if info.compress_type != zipfile.ZIP_DEFLATED:
            continue
        off = info.header_offset
        head = data[off:off + 30]
        if len(head) < 30 or head[:4] != b"PK\x03\x04":
            continue
        nlen, xlen = struct.unpack("<HH", head[26:30])
        start = off + 30 + nlen + xlen
        yield info.filename, data[start:start + info.compress_size]


def deflate_samples():
    texts = [b"", b"a", b"abc" * 3000, bytes(range(256)) * 64, struct.pack("<512d", *[i / 100 for i in range(512)]),
             b"\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (10,), }" + b" " * 50]
    strategies = (zlib.Z_DEFAULT_STRATEGY, zlib.Z_FILTERED, zlib.Z_HUFFMAN_ONLY, zlib.Z_RLE, zlib.Z_FIXED)
    for ti, t in enumerate(texts):
        for level in (0, 1, 6, 9):
            for si, strategy in enumerate(strategies):
                if level == 0 and si:
                    continue
                c = zlib.compressobj(level, zlib.DEFLATED, -15, 8, strategy)
                yield "t%d-l%d-s%d" % (ti, level, si), c.compress(t) + c.flush()


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: seeds.py OUTDIR")
    out = sys.argv[1]
    corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus")
    for t in TARGETS:
        os.makedirs(os.path.join(out, t), exist_ok=True)
    descrs = set()
    count = 0
    for group, name, data in group_files(corpus, "", GROUPS, not_hidden_or_prose):
        base = group + "-" + name
        for t in ("npy_header_fuzzer", "npy_file_fuzzer"):
            write(os.path.join(out, t, base), data + DEFAULT)
            if group == "valid":
                write(os.path.join(out, t, base + ".strict"), data + STRICT)
        dv = descr_of(data)
        if dv is not None:
            descrs.add(dv)
        count += 1
    narchives = 0
    for group, name, data in group_files(corpus, "npz", GROUPS, small):
        write(os.path.join(out, "npz_fuzzer", group + "-" + name), data + DEFAULT)
        narchives += 1
        for k, (member, raw) in enumerate(deflated_members(data)):
            write(os.path.join(out, "inflate_diff_fuzzer", "%s-%s-%d" % (group, name, k)), b"\x00" + raw)
            write(os.path.join(out, "inflate_libdeflate_fuzzer", "%s-%s-%d" % (group, name, k)), b"\x01" + raw)
    for name, raw in deflate_samples():
        for cfg in (0x00, 0x09, 0x1c):  # whole; 1-byte pieces in and out; 4 KiB in, 8 B out
            write(os.path.join(out, "inflate_diff_fuzzer", "%s-c%02x" % (name, cfg)), bytes([cfg]) + raw)
        for cfg in (0, 1, 2, 3):
            write(os.path.join(out, "inflate_libdeflate_fuzzer", "%s-s%d" % (name, cfg)), bytes([cfg]) + raw)
    nra = 0
    for group, name, data in group_files(corpus, "ra", RA_GROUPS, small):
        write(os.path.join(out, "ra_fuzzer", group + "-" + name), data + DEFAULT)
        if group == "valid":
            write(os.path.join(out, "ra_fuzzer", group + "-" + name + ".sink"), data + SINK)
        nra += 1
    # mat_fuzzer: the first 4 KiB of every HDF5 / MAT file (the probe reads
    # the MAT header, the user block and the signature at 512, 1024, 2048)
    nmat = 0
    hroot = os.path.join(corpus, "hdf5")
    for dirpath, _, names in sorted(os.walk(hroot)):
        for name in sorted(names):
            if name.endswith(".json"):
                continue
            with open(os.path.join(dirpath, name), "rb") as f:
                data = f.read(4096)
            rel = os.path.relpath(os.path.join(dirpath, name), hroot).replace(os.sep, "-")
            write(os.path.join(out, "mat_fuzzer", rel), data + DEFAULT)
            nmat += 1
    # hdf5_walk_fuzzer: whole HDF5 / MAT files (no trailer; the last byte
    # picks the profile), up to 256 KiB
    for dirpath, _, names in sorted(os.walk(hroot)):
        for name in sorted(names):
            full = os.path.join(dirpath, name)
            if name.endswith((".json", ".md")) or os.path.getsize(full) > (256 << 10):
                continue
            rel = os.path.relpath(full, hroot).replace(os.sep, "-")
            with open(full, "rb") as f:
                write(os.path.join(out, "hdf5_walk_fuzzer", rel), f.read())
    npickles = 0
    for group, name, data in group_files(corpus, "", PICKLE_DIRS, is_npy):
        pre = 10 if data[6:7] == b"\x01" else 12
        off = pre + int.from_bytes(data[8:pre], "little")
        write(os.path.join(out, "pickle_fuzzer", group + "-" + name), data + DEFAULT)
        write(os.path.join(out, "pickle_fuzzer", group + "-" + name + ".pkl"), data[off:] + BARE)
        npickles += 1
    for k, dv in enumerate(sorted(descrs | set(EXTRA_DESCRS))):
        write(os.path.join(out, "npy_descr_fuzzer", "descr-%04d" % k), dv + DEFAULT)
    print("seeds: %d corpus files, %d descr fragments, %d archives, %d .ra files, %d HDF5/MAT files, "
          "%d pickles -> %s" % (count, len(descrs | set(EXTRA_DESCRS)), narchives, nra, nmat, npickles, out))


if __name__ == "__main__":
    main()
