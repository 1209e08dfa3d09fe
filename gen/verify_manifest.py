#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check corpus/manifest.json against what numpy reads from the files.

Usage: /usr/bin/python3 gen/verify_manifest.py [CORPUSDIR]   (default: corpus/ next to gen/)

For every valid and compat file, the header is read again with numpy
(read_magic + the header reader) and the file is loaded with np.load; descr,
shape, fortran_order, header_len, data_offset, itemsize, count, payload
bytes and payload SHA-256 must match the manifest. For every file, numpy's
verdict (np.load(path, allow_pickle=False), and on a BytesIO) is measured
again and must match. The last line printed is "N passed, M failed"; the exit
status is 1 when anything failed.
"""

import hashlib
import io
import json
import os
import re
import sys
import warnings

import numpy as np
import numpy.lib.format as npf

from gen_conform12 import CLASSES as REFUSAL_CLASSES
from npygen import descr_json, numpy_verdict, pickle_imports, read_framing

GROUPS = ("valid", "compat", "invalid", "unsafe")


def as_int(v):
    return int(v) if isinstance(v, str) else v


def verdict(src, **kw):
    v, arr, _warnings = numpy_verdict(src, **kw)
    return v, arr


def error_codes(root):
    path = os.path.join(os.path.dirname(os.path.abspath(root)), "parser", "include",
                        "npyguard.h")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return set(re.findall(r"\b(NPYG_E[A-Z0-9_]+)\s*=", f.read()))


def check_file(root, rel, e, codes):
    errs = []
    path = os.path.join(root, rel)
    with open(path, "rb") as f:
        data = f.read()
    group = rel.split("/", 1)[0]
    if e.get("group") != group:
        errs.append("group %r but the file is in %s/" % (e.get("group"), group))
    if not e.get("description"):
        errs.append("no description")

    # framing
    fr = read_framing(data)
    if "version" in fr:
        if e.get("version") != fr["version"]:
            errs.append("version %r, file has %r" % (e.get("version"), fr["version"]))
        if "header_len" in fr and (e.get("header_len"), e.get("data_offset")) != (fr["header_len"], fr["data_offset"]):
            errs.append("header_len/data_offset %r/%r, file has %d/%d"
                        % (e.get("header_len"), e.get("data_offset"), fr["header_len"], fr["data_offset"]))
    elif "version" in e:
        errs.append("manifest has a version but the file has no readable preamble")

    # verdicts
    v, arr = verdict(path)
    if v != e.get("numpy"):
        errs.append("np.load verdict %r, manifest %r" % (v, e.get("numpy")))
    vf, _ = verdict(io.BytesIO(data))
    if vf != e.get("numpy_filelike", e.get("numpy")):
        errs.append("file-like verdict %r, manifest %r"
                    % (vf, e.get("numpy_filelike", e.get("numpy"))))
    limit = None
    if "numpy_max_header_size" in e:
        want = dict(e["numpy_max_header_size"])
        limit = want.pop("max_header_size")
        vl, arr = verdict(path, max_header_size=limit)
        if vl != want:
            errs.append("verdict with max_header_size=%d: %r, manifest %r" % (limit, vl, want))
    expected = {"valid": "accept", "compat": "accept", "invalid": "reject", "unsafe": "reject"}
    if group in ("invalid", "unsafe") and v["verdict"] != "reject":
        errs.append("numpy accepts a file of group %s" % group)
    if group == "valid" and v["verdict"] != expected[group] and "numpy_max_header_size" not in e:
        errs.append("numpy rejects a valid file")

    if group in ("invalid", "unsafe"):
        code = e.get("npyguard_error")
        if not code or (codes is not None and code not in codes):
            errs.append("npyguard_error %r is not a code in npyguard.h" % code)
        classes = e.get("refusal_classes")
        if not classes or len(set(classes)) != len(classes) or not set(classes) <= set(REFUSAL_CLASSES):
            errs.append("refusal_classes %r: not a list of distinct classes of %s" % (classes, REFUSAL_CLASSES))
    if group == "unsafe":
        if e.get("npyguard_error") != "NPYG_EOBJECT":
            errs.append("unsafe file without NPYG_EOBJECT")
        got = pickle_imports(data[e["data_offset"]:])
        if got != e.get("pickle_imports"):
            errs.append("pickle_imports %r, opcodes say %r" % (e.get("pickle_imports"), got))
    if group not in ("valid", "compat"):
        return errs
    if "npyguard_error" in e and codes is not None and e["npyguard_error"] not in codes:
        errs.append("npyguard_error %r is not a code in npyguard.h" % e["npyguard_error"])

    # the header as numpy reads it
    with open(path, "rb") as f:
        ver = npf.read_magic(f)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if ver == (1, 0) and limit is None:
                shape, fortran, dtype = npf.read_array_header_1_0(f)
            elif ver == (2, 0) and limit is None:
                shape, fortran, dtype = npf.read_array_header_2_0(f)
            else:
                shape, fortran, dtype = npf._read_array_header(
                    f, ver, max_header_size=limit or 10 ** 7)
        if f.tell() != e["data_offset"]:
            errs.append("header ends at %d, manifest data_offset %d" % (f.tell(), e["data_offset"]))
    descr = npf.dtype_to_descr(dtype)
    if group == "compat" and repr(descr) != e.get("descr_repr"):
        errs.append("descr_repr %r, numpy reads %r" % (e.get("descr_repr"), repr(descr)))
    if group == "valid":
        # the writer's descr must describe the same dtype numpy reads back
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import ast
            written = npf.descr_to_dtype(ast.literal_eval(e["descr_repr"]))
        if written != dtype or repr(descr) != e["descr_repr"]:
            errs.append("descr_repr %r, numpy reads %r" % (e["descr_repr"], repr(descr)))
        header = data[e["data_offset"] - e["header_len"]:e["data_offset"]]
        header = header.decode("utf-8" if ver[0] == 3 else "latin1")
        if "'descr': %s, " % e["descr_repr"] not in header:
            errs.append("descr_repr is not spelled as in the header")
    if descr_json(descr) != e.get("descr"):
        errs.append("descr %r, numpy reads %r" % (e.get("descr"), descr_json(descr)))
    if [as_int(x) for x in e.get("shape", [])] != list(shape):
        errs.append("shape %r, numpy reads %r" % (e.get("shape"), shape))
    if e.get("fortran_order") is not bool(fortran):
        errs.append("fortran_order %r, numpy reads %r" % (e.get("fortran_order"), fortran))
    if e.get("itemsize") != dtype.itemsize:
        errs.append("itemsize %r, numpy reads %d" % (e.get("itemsize"), dtype.itemsize))
    count = 1
    for x in shape:
        count *= int(x)
    if count < 0 and arr is not None:
        count = arr.size
        if e.get("numpy_loaded_shape") != list(arr.shape):
            errs.append("numpy_loaded_shape %r, numpy loads %r"
                        % (e.get("numpy_loaded_shape"), arr.shape))
    if as_int(e.get("count")) != count:
        errs.append("count %r, expected %d" % (e.get("count"), count))
    nbytes = count * dtype.itemsize
    if as_int(e.get("payload_bytes")) != nbytes:
        errs.append("payload_bytes %r, expected %d" % (e.get("payload_bytes"), nbytes))
    off = e["data_offset"]
    if len(data) < off + nbytes:
        errs.append("file too short for its payload")
    else:
        sha = hashlib.sha256(data[off:off + nbytes]).hexdigest()
        if sha != e.get("payload_sha256"):
            errs.append("payload_sha256 mismatch")
        if e.get("trailing_bytes") != len(data) - off - nbytes:
            errs.append("trailing_bytes %r, file has %d"
                        % (e.get("trailing_bytes"), len(data) - off - nbytes))
    if arr is not None and dtype.itemsize and count > 0 and arr.ndim == len(shape):
        raw = np.ascontiguousarray(arr.T).tobytes() if fortran else arr.tobytes()
        if raw != data[off:off + nbytes]:
            errs.append("the array numpy loads does not hold the payload bytes")
    return errs


def check_prefixes(root, manifest):
    errs = []
    for rel in manifest.get("prefix_cases", []):
        if manifest["files"].get(rel, {}).get("group") != "valid":
            errs.append("prefix case %s is not a valid file" % rel)
            continue
        with open(os.path.join(root, rel), "rb") as f:
            data = f.read()
        for n in range(len(data)):
            v, _ = verdict(io.BytesIO(data[:n]))
            if v["verdict"] != "reject":
                errs.append("numpy accepts the %d-byte prefix of %s" % (n, rel))
                break
    return errs


def main(argv):
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.execve(sys.executable, [sys.executable] + argv,
                  dict(os.environ, PYTHONHASHSEED="0"))
    here = os.path.dirname(os.path.abspath(__file__))
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(here), "corpus")
    with open(os.path.join(root, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    passed = failed = 0
    if manifest.get("numpy_version") != np.__version__:
        print("note: manifest made with numpy %s, checking with numpy %s; messages may differ"
              % (manifest.get("numpy_version"), np.__version__))
    codes = error_codes(root)
    on_disk = set()
    for g in GROUPS:
        d = os.path.join(root, g)
        if os.path.isdir(d):
            on_disk |= {"%s/%s" % (g, n) for n in os.listdir(d)}
    listed = set(manifest["files"])
    for rel in sorted(on_disk - listed):
        print("FAIL %s: file not in the manifest" % rel)
        failed += 1
    for rel in sorted(listed - on_disk):
        print("FAIL %s: in the manifest but missing" % rel)
        failed += 1
    for rel in sorted(listed & on_disk):
        try:
            errs = check_file(root, rel, manifest["files"][rel], codes)
        except Exception as e:   # a crash in a check is a failure, not an abort
            errs = ["check raised %s: %s" % (type(e).__name__, e)]
        if errs:
            failed += 1
            for msg in errs:
                print("FAIL %s: %s" % (rel, msg))
        else:
            passed += 1
    perrs = check_prefixes(root, manifest)
    for msg in perrs:
        print("FAIL prefix_cases: %s" % msg)
    if perrs:
        failed += 1
    else:
        passed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
