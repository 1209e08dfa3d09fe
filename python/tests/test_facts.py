# SPDX-License-Identifier: BSD-3-Clause
"""The package's facts come from the C library: they are checked here
against the readers that define them (zipfile for member names, numpy for
the descr); validate()'s record, which is npyvalidate's, in
test_validate_record.py."""

import os
import zipfile

import numpy as np

import npyguard

from corpus_files import CORPUS, MANIFEST, NPZ, ROOT

VALID = sorted(k for k, v in MANIFEST.items() if v["group"] == "valid" and "npyguard_error" not in v)


def test_member_names_are_zipfiles():
    """z.files is zipfile's namelist() without '.npy', as numpy's NpzFile
    has it: UTF-8 names with flag bit 11, cp437 without."""
    compared = non_ascii = 0
    for name in sorted(NPZ):
        path = os.path.join(CORPUS, "npz", name)
        try:
            z = npyguard.load_npz(path)
        except npyguard.Error:
            continue
        with z, zipfile.ZipFile(path) as zf:
            want = zf.namelist()
            assert z.files == [n[:-4] if n.endswith(".npy") else n for n in want], name
            for n in want:
                key = n[:-4] if n.endswith(".npy") else n
                assert n in z and key in z, (name, n)
        compared += 1
        non_ascii += any(not n.isascii() for n in want)
    assert compared >= sum(1 for k in NPZ if k.startswith("valid/")) and non_ascii >= 3


def _numpy_rule(descr):
    """numpy's dtype.descr in the documented JSON form: lists for tuples,
    a titled name as [title, name], the ('', '|Vn') pads left out."""
    if isinstance(descr, str):
        return descr
    if isinstance(descr, tuple):  # a subarray: (descr, shape)
        return [_numpy_rule(descr[0]), list(descr[1])]
    out = []
    for field in descr:
        name, t = field[0], field[1]
        if name == "" and len(field) == 2 and isinstance(t, str) and t.startswith("|V"):
            continue
        item = [list(name) if isinstance(name, tuple) else name, _numpy_rule(t)]
        out.extend([item + [list(field[2])]] if len(field) == 3 else [item])
    return out


def _header_kwargs(entry):
    v = entry.get("numpy_max_header_size")
    if v is None:
        return {}, {}
    v = int(v["max_header_size"] if isinstance(v, dict) else v)
    return {"max_header_size": v}, {"max_header_bytes": v}


def test_descr_is_numpys():
    structured = 0
    for name in VALID:
        path = os.path.join(CORPUS, name)
        np_kw, ng_kw = _header_kwargs(MANIFEST[name])
        dtype = np.load(path, mmap_mode="r", **np_kw).dtype
        got = npyguard.validate(path, **ng_kw)["npy"]["descr"]
        want = _numpy_rule(dtype.descr) if dtype.names is not None else dtype.descr[0][1]
        assert got == want, name
        structured += dtype.names is not None
    assert structured >= 10


def _codes_of_header():
    """Every NPYG_E* code npyguard.h defines, read from the header itself."""
    import re
    text = open(os.path.join(ROOT, "parser", "include", "npyguard.h")).read()
    return {int(v): n for n, v in re.findall(r"^\s*(NPYG_E[A-Z0-9_]+)\s*=\s*(\d+),", text, re.M)}


def test_every_error_code_raises_its_class():
    """The exception map covers every class errors.c gives, and each code
    of npyguard.h comes out as the class the library names for it."""
    codes = _codes_of_header()
    assert len(codes) > 60
    for code, name in sorted(codes.items()):
        lib_name, klass = npyguard._core.error_info(code)
        assert lib_name == name, (code, lib_name, name)
        assert klass in npyguard._CLASSES, (name, klass)
        e = npyguard._error(code, 0, "x")
        assert type(e) is npyguard._CLASSES[klass] and e.code == code and e.klass == klass
        assert isinstance(e, npyguard.Error)
