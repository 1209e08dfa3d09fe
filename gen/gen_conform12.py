#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Cases added for conformance suite 1.2.0, and the refusal classes of every
invalid and unsafe case. Run gen_corpus.py, not this file.

Until 1.1.0 nearly every one-defect file was built on one base, a 1-D
'<f8' array of shape (2,) in a v1 header. A reader that refuses every 1-D
array, or every array it cannot handle, then "refused" all of them without
ever looking at the defect. Here each defect is built again on bases that
such a reader otherwise accepts: a 2-D array, a structured array and a
Fortran-ordered v3 file. numpy's verdict on each is measured by
gen_corpus.py like every other case.

The refusal class says, coarsely, why the file must be refused. An adapter
that can tell may report it ("error_class"); npyconform then tells a
refusal for the file's defect from a refusal for another reason.
"""

import io

# Why a file is refused; PROTOCOL.md lists the same names.
CLASSES = ("magic", "version", "header", "descr", "shape", "payload", "pickle", "limit")

# The class of each npyguard error code the generators declare.
_BY_CODE = {
    "NPYG_EMAGIC": ("magic",),
    "NPYG_EVERSION": ("version",),
    # a file cut inside its first 12 bytes: readers call it a bad magic, a
    # bad version or a short header, all fair
    "NPYG_ETRUNC_PREAMBLE": ("magic", "version", "header"),
    "NPYG_ETRUNC_HEADER": ("header",),
    "NPYG_ELIMIT_HEADER": ("header", "limit"),
    "NPYG_ESYNTAX": ("header",),
    "NPYG_ENOTLITERAL": ("header",),
    "NPYG_ENOTDICT": ("header",),
    "NPYG_EKEYS": ("header",),
    "NPYG_EUTF8": ("header",),
    "NPYG_ENUL": ("header",),
    "NPYG_EPY2LONG": ("header",),
    "NPYG_EUNSUPPORTED": ("header",),
    "NPYG_EFORTRAN": ("header",),
    "NPYG_EDESCR": ("descr",),
    "NPYG_ESHAPE": ("shape",),
    "NPYG_EDIM": ("shape",),
    "NPYG_ETRUNC_PAYLOAD": ("payload",),
    "NPYG_EOBJECT": ("pickle",),
}


def refusal_classes(rel, case):
    """The classes a refusal of this invalid or unsafe case may give."""
    code = case["npyguard_error"]
    name = case["name"]
    if code == "NPYG_EOVERFLOW":
        # a count or byte total past 64 bits is the shape's; an item size
        # past numpy's C int is the descr's; either may hit a reader's limit
        count = name.startswith(("overflow-count", "overflow-bytes"))
        return ["shape" if count else "descr", "limit"]
    if name.startswith(("shape-bracket", "syntax-unbalanced-paren")):
        return ["header", "shape"]    # a shape that does not parse
    if name.startswith("huge-count"):
        return ["payload", "limit"]   # gigabytes declared, a few bytes given
    classes = _BY_CODE.get(code)
    assert classes, "%s: no refusal class for %s" % (rel, code)
    return list(classes)


# The bases each defect is built on again: (suffix, version, descr, fortran,
# shape). Each is a file numpy writes and reads; the generator asserts that
# numpy accepts the base before it crafts the defects.
BASES = [
    ("2d-v1", (1, 0), "'<f8'", False, (2, 3)),
    ("struct-v1", (1, 0), "[('a', '<i4'), ('b', '<f8')]", False, (3,)),
    ("2d-F-v3", (3, 0), "'<i2'", True, (2, 2)),
]


def _shape_text(shape):
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def gen(g):
    def bad(name, data, code, desc):
        g.add("invalid", name, data, desc, npyguard_error=code)

    P2 = g.f8(2)
    bad("shape-bracket-mismatch-v1", g.craft((1, 0), g.header_dict(shape="[2)"), P2), "NPYG_ESYNTAX",
        "shape [2): a list opened, a tuple closed")

    for suffix, ver, descr, fortran, shape in BASES:
        count = 1
        for d in shape:
            count *= d
        payload = g.payload_for(descr, count)
        stext = _shape_text(shape)
        ftext = "True" if fortran else "False"
        good = g.craft(ver, g.header_dict(descr, ftext, stext), payload)
        verdict, _arr, _w = g.numpy_verdict(io.BytesIO(good))
        assert verdict["verdict"] == "accept", (suffix, verdict)
        what = "%s %s%s, v%d" % (descr.strip("'") if descr.startswith("'") else "struct", stext,
                                 " Fortran order" if fortran else "", ver[0])

        def variant(tag, data, code, desc):
            bad("%s-%s" % (tag, suffix), data, code, "%s (base: %s)" % (desc, what))

        variant("magic-92", b"\x92" + good[1:], "NPYG_EMAGIC", "first magic byte 0x92 instead of 0x93")
        variant("version-0.0", good[:6] + b"\x00\x00" + good[8:], "NPYG_EVERSION",
                "format version 0.0")
        variant("version-%d.1" % ver[0], good[:7] + b"\x01" + good[8:], "NPYG_EVERSION",
                "format version %d.1" % ver[0])
        json_bool = "true" if fortran else "false"
        variant("fortran-json-" + json_bool,
                g.craft(ver, g.header_dict(descr, json_bool, stext), payload), "NPYG_ENOTLITERAL",
                "fortran_order spelled %s, as JSON does" % json_bool)
        variant("keys-capitalised",
                g.craft(ver, g.header_dict(descr, ftext, stext).replace("'descr'", "'Descr'"), payload),
                "NPYG_EKEYS", "key 'Descr' in the wrong case")
        variant("trunc-payload-half", good[:len(good) - len(payload) + len(payload) // 2],
                "NPYG_ETRUNC_PAYLOAD", "half of the payload")
        variant("shape-bracket-mismatch",
                g.craft(ver, g.header_dict(descr, ftext, "[" + stext[1:]), payload), "NPYG_ESYNTAX",
                "shape %s: a list opened, a tuple closed" % ("[" + stext[1:]))
