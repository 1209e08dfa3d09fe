#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Cases added for conformance suite 1.3.0: every one-defect family on every
base it applies to. Run gen_corpus.py, not this file.

Suite 1.2.0 built seven defects again on a 2-D, a structured and a
Fortran-ordered v3 base; the rest stayed on the 1-D '<f8' v1 file, so a
reader that refuses every 1-D array still "refused" most invalid files
without seeing their defect. Here each family is a function of a base
(its version, descr, fortran_order, shape and payload) and is built on
every base where the defect can be expressed: a defect of the descr goes
into a field of the structured base, a UTF-8 defect needs a v3 header, a
Python-2 'L' is only a defect outside v1/v2. The 3-D big-endian v2 base
adds the 4-byte length field and the other byte order, and makes the
bases of more than one dimension the majority, so that a reader refusing
every 1-D array fails most of the group.

A variant whose bytes equal a case already in the corpus is not added
again; that case is tagged with its base. numpy's verdict on every new
file is measured by gen_corpus.py like every other case, and a variant
numpy does not refuse is an error here unless listed in NOT_A_DEFECT.
"""

import io

# (name, version, descr text, fortran text, shape). The 1-D base is the one
# the 1.0.0 cases were built on (payload: arange(2) as '<f8').
BASES = [
    ("1d-v1", (1, 0), "'<f8'", "False", (2,)),
    ("2d-v1", (1, 0), "'<f8'", "False", (2, 3)),
    ("struct-v1", (1, 0), "[('a', '<i4'), ('b', '<f8')]", "False", (3,)),
    ("2d-F-v3", (3, 0), "'<i2'", "True", (2, 2)),
    ("3d-be-v2", (2, 0), "'>u2'", "False", (2, 2, 3)),
]

# Variants whose defect numpy 1.24 reads past on that base (checked when
# the generator runs): the family does not apply there.
NOT_A_DEFECT = {
    # numpy runs its token filter (which turns the form feed into an
    # indent) only on v1/v2 headers; a v3 header goes to literal_eval as is
    ("formfeed-indent", "2d-F-v3"),
}


def _shape_text(dims):
    dims = [str(d) for d in dims]
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


class Base:
    def __init__(self, g, name, ver, descr, ftext, shape):
        self.g, self.name, self.ver = g, name, ver
        self.descr, self.ftext, self.shape = descr, ftext, shape
        self.struct = descr.startswith("[")
        self.stext = _shape_text(shape)
        count = 1
        for d in shape:
            count *= d
        self.payload = g.f8(2) if name == "1d-v1" else g.payload_for(descr, count)
        self.good = g.craft(ver, self.H(), self.payload)
        self.text = g.padded(ver, self.H())
        kind = "struct" if self.struct else descr.strip("'")
        self.what = "%s %s%s, v%d" % (kind, self.stext,
                                      " Fortran order" if ftext == "True" else "", ver[0])

    def H(self, descr=None, fortran=None, shape=None):
        return self.g.header_dict(self.descr if descr is None else descr,
                                  self.ftext if fortran is None else fortran,
                                  self.stext if shape is None else shape)

    def craft(self, text, payload=None):
        return self.g.craft(self.ver, text, self.payload if payload is None else payload)

    def dims(self, first, rest=True):
        """The shape text with its first dim replaced."""
        return _shape_text([first] + (list(self.shape[1:]) if rest else []))

    def field(self, bad_type):
        """A bad element type where the base keeps its types: the whole descr,
        or the second field of the structured base."""
        return "[('a', '<i4'), ('b', %s)]" % bad_type if self.struct else bad_type

    def dict_body(self, d=None, f=None, s=None, kd="'descr'", kf="'fortran_order'",
                  ks="'shape'", extra=""):
        return "{%s%s: %s, %s: %s, %s: %s, }" % (
            extra, kd, self.descr if d is None else d, kf, self.ftext if f is None else f,
            ks, self.stext if s is None else s)


def families(b):
    """(family, data or None, npyguard code, description) for one base."""
    g, v = b.g, b.ver
    out = []

    def add(fam, data, code, desc):
        out.append((fam, data, code, desc))

    H, craft, hdr_from = b.H, b.craft, b.good[6:]
    # --- magic
    for fam, prefix, desc in [("magic-92", b"\x92NUMPY", "first magic byte 0x92 instead of 0x93"),
                              ("magic-00", b"\x00NUMPY", "first magic byte 0x00"),
                              ("magic-lowercase", b"\x93numpy", "magic in lower case"),
                              ("magic-matlb", b"\x93MATLB", "magic \\x93MATLB")]:
        add(fam, prefix + hdr_from, "NPYG_EMAGIC", desc)
    add("magic-no-x93", b.good[1:], "NPYG_EMAGIC", "magic without its 0x93 byte")
    add("magic-ascii-dict", H().encode("latin1") + b"\n" + b.payload, "NPYG_EMAGIC",
        "a bare header dict with no magic or length")
    # --- version
    for major, minor in sorted({(0, 0), (0, 1), (v[0], 1), (1, 1), (2, 1), (3, 1), (4, 0), (255, 255)}):
        add("version-%d.%d" % (major, minor), b.good[:6] + bytes([major, minor]) + b.good[8:],
            "NPYG_EVERSION", "format version %d.%d" % (major, minor))
    # --- header length
    text, lf = b.text, 2 if v[0] == 1 else 4
    add("hlen-past-eof", g.frame(v, text[:60], hlen=len(text)), "NPYG_ETRUNC_HEADER",
        "HEADER_LEN %d but the file ends after 60 header bytes" % len(text))
    add("hlen-past-eof-payload", g.frame(v, text + b.payload, hlen=len(text) + len(b.payload) + 100),
        "NPYG_ETRUNC_HEADER", "HEADER_LEN 100 bytes larger than everything after it")
    if v[0] == 1:
        add("hlen-65535", g.frame(v, text, hlen=0xFFFF), "NPYG_ELIMIT_HEADER",
            "HEADER_LEN 65535 (over the 10000 limit) in a short file")
    else:
        add("hlen-20000", g.frame(v, text, b.payload, hlen=20000), "NPYG_ELIMIT_HEADER",
            "HEADER_LEN 20000 (over the 10000 limit) in a short file")
    add("trunc-header", b.good[:50], "NPYG_ETRUNC_HEADER", "cut after 50 bytes, inside the header")
    add("trunc-header-last-byte", b.good[:8 + lf + len(text) - 1], "NPYG_ETRUNC_HEADER",
        "missing the header's final newline and the payload")
    add("hlen-zero-payload", g.frame(v, b"", text + b.payload), "NPYG_ESYNTAX",
        "HEADER_LEN 0 followed by what would have been the header")
    add("hlen-too-short", g.frame(v, text + b.payload, hlen=40), "NPYG_ESYNTAX",
        "HEADER_LEN 40 cuts the dict in the middle")
    # --- not a dict
    add("notdict-list", craft("[('descr', %s), ('fortran_order', %s), ('shape', %s)]"
                              % (b.descr, b.ftext, b.stext)), "NPYG_ENOTDICT", "header is a list of pairs")
    add("notdict-set", craft("{'descr', 'fortran_order', 'shape'}"), "NPYG_ENOTDICT", "header is a set")
    add("notdict-tuple", craft("(%s, %s, %s)" % (b.descr, b.ftext, b.stext)), "NPYG_ENOTDICT",
        "header is a tuple")
    # --- keys
    add("keys-missing-shape", craft("{'descr': %s, 'fortran_order': %s, }" % (b.descr, b.ftext)),
        "NPYG_EKEYS", "no 'shape' key")
    add("keys-missing-descr", craft("{'fortran_order': %s, 'shape': %s, }" % (b.ftext, b.stext)),
        "NPYG_EKEYS", "no 'descr' key")
    add("keys-missing-fortran", craft("{'descr': %s, 'shape': %s, }" % (b.descr, b.stext)),
        "NPYG_EKEYS", "no 'fortran_order' key")
    add("keys-extra", craft("{'descr': %s, 'extrakey': -1, 'fortran_order': %s, 'shape': %s, }"
                            % (b.descr, b.ftext, b.stext)), "NPYG_EKEYS", "an extra key")
    add("keys-bytes", craft(b.dict_body(kd="b'descr'", kf="b'fortran_order'", ks="b'shape'")),
        "NPYG_EKEYS", "bytes keys instead of str")
    add("keys-capitalised", craft(H().replace("'descr'", "'Descr'")), "NPYG_EKEYS",
        "key 'Descr' in the wrong case")
    add("keys-int-key", craft(b.dict_body(extra="1: 2, ")), "NPYG_EKEYS",
        "an int key next to the right ones")
    add("keys-trailing-space", craft(b.dict_body(kd="'descr '")), "NPYG_EKEYS",
        "key 'descr ' with a trailing space")
    # --- shape
    rest = ", ".join(str(d) for d in b.shape)
    for fam, shape, desc in [
            ("shape-list", "[%s]" % rest, "shape is a list"),
            ("shape-float", _shape_text(["%d.0" % d for d in b.shape]), "float dims"),
            ("shape-none", "None", "shape is None"),
            ("shape-int", str(b.shape[0]), "shape is a bare int"),
            ("shape-str", "'%s'" % rest, "shape is a string"),
            ("shape-nested", "(%s,)" % b.stext, "a tuple inside the shape tuple"),
            ("shape-complex", b.dims("%dj" % b.shape[0]), "a complex dim"),
            ("shape-space-separated", "(%s,)" % " ".join(str(d) for d in b.shape + (1,)),
             "numbers without a comma; digit scanners read several dims")]:
        code = "NPYG_ESYNTAX" if fam == "shape-space-separated" else "NPYG_ESHAPE"
        add(fam, craft(H(shape=shape)), code, desc)
    if v[0] != 3:
        add("shape-float-L", craft(H(shape=b.dims("%d.0L" % b.shape[0]))), "NPYG_ESHAPE",
            "Python-2 'L' after a float dim")
    add("shape-bracket-mismatch", craft(H(shape="[" + b.stext[1:])), "NPYG_ESYNTAX",
        "shape %s: a list opened, a tuple closed" % ("[" + b.stext[1:]))
    neg = _shape_text([-1, -1] + list(b.shape[2:]))
    add("dim-negative-two", craft(H(shape=neg)), "NPYG_EDIM", "two negative dims %s" % neg)
    for fam, first, desc in [("dim-2pow64", str(2 ** 64), "a dim of 2**64"),
                             ("dim-2pow63", str(2 ** 63), "a dim of 2**63"),
                             ("dim-huge-literal", "9" * 40, "a 40-digit dim"),
                             ("dim-bool-true", "True", "True as a dim")]:
        add(fam, craft(H(shape=b.dims(first))), "NPYG_EDIM", desc)
    add("dim-bool-false", craft(H(shape=b.dims("False")), b""), "NPYG_EDIM", "False as a dim")
    add("overflow-count-2pow32-sq", craft(H(shape="(%d, %d)" % (2 ** 32, 2 ** 32))), "NPYG_EOVERFLOW",
        "dims 2**32 x 2**32: element count 2**64 overflows")
    add("overflow-count-2pow62x4", craft(H(shape="(%d, 4)" % 2 ** 62)), "NPYG_EOVERFLOW",
        "dims 2**62 x 4: element count overflows 64 bits")
    add("huge-count", craft(H(shape=b.dims(2 ** 28))), "NPYG_ETRUNC_PAYLOAD",
        "first dim 2**28 (gigabytes declared) with the base's few payload bytes")
    # --- fortran_order
    for fam, val, desc in [("fortran-int-0", "0", "fortran_order 0"),
                           ("fortran-int-1", "1", "fortran_order 1"),
                           ("fortran-str", "'%s'" % b.ftext, "fortran_order '%s' (a string)" % b.ftext),
                           ("fortran-none", "None", "fortran_order None"),
                           ("fortran-float", "0.0", "fortran_order 0.0")]:
        add(fam, craft(H(fortran=val)), "NPYG_EFORTRAN", desc)
    if v[0] != 3:
        add("fortran-L", craft(H(fortran="0L")), "NPYG_EFORTRAN", "fortran_order 0L (0 after filtering)")
    jb = b.ftext.lower()
    add("fortran-json-" + jb, craft(H(fortran=jb)), "NPYG_ENOTLITERAL",
        "fortran_order spelled %s, as JSON does" % jb)
    add("fortran-falsey", craft(H(fortran=b.ftext + "y")), "NPYG_ENOTLITERAL",
        "fortran_order is the name %sy: a regular expression for (False|True) matches its prefix"
        % b.ftext)
    # --- descr: an element type (in the struct base: its second field)
    for fam, t, desc in [
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
            ("descr-dict", "{'names': ['a'], 'formats': ['<f8']}", "descr is a dict"),
            ("descr-view-mismatch", "('<i4', '<f8')", "(base, new) tuple of different sizes"),
            ("descr-bytes", "b'<f8'", "descr is a bytes literal"),
            ("descr-object-T", "'T'", "'T' (StringDType, numpy >= 2.0 only)"),
            ("overflow-itemsize-S2pow31", "'|S2147483648'", "'|S2147483648': itemsize over 2**31-1"),
            ("overflow-itemsize-U2pow29", "'<U536870912'", "'<U536870912': itemsize 2**31")]:
        code = "NPYG_EOVERFLOW" if fam.startswith("overflow") else "NPYG_EDESCR"
        add(fam, craft(H(descr=b.field(t))), code, desc + (" in a field" if b.struct else ""))
    # --- descr: the list of fields (replaces the base's element type)
    if not b.struct:
        t = b.descr
        for fam, d, desc in [
                ("descr-dup-field", "[('a', %s), ('a', '<f8')]" % t, "two fields named 'a'"),
                ("descr-two-empty-names", "[('', %s), ('', '<f4')]" % t,
                 "two real fields named '' (not void padding)"),
                ("descr-title-equals-name", "[(('a', 'a'), %s)]" % t, "title equal to the name"),
                ("descr-field-name-int", "[(1, %s)]" % t, "a field name that is an int"),
                ("descr-field-name-bytes", "[(b'a', %s)]" % t, "a field name that is bytes"),
                ("descr-field-1-tuple", "[('a',)]", "a field tuple with one element"),
                ("descr-field-4-tuple", "[('a', %s, (2,), 0)]" % t, "a field tuple of 4 elements"),
                ("descr-field-negative-shape", "[('a', %s, (-1,))]" % t, "a negative field dim")]:
            add(fam, craft(H(descr=d)), "NPYG_EDESCR", desc)
    else:
        for fam, d, desc in [
                ("descr-dup-field", "[('a', '<i4'), ('a', '<f8')]", "two fields named 'a'"),
                ("descr-field-name-int", "[('a', '<i4'), (1, '<f8')]", "a field name that is an int"),
                ("descr-field-1-tuple", "[('a', '<i4'), ('b',)]", "a field tuple with one element"),
                ("descr-field-4-tuple", "[('a', '<i4'), ('b', '<f8', (2,), 0)]",
                 "a field tuple of 4 elements"),
                ("descr-field-negative-shape", "[('a', '<i4'), ('b', '<f8', (-1,))]",
                 "a negative field dim")]:
            add(fam, craft(H(descr=d)), "NPYG_EDESCR", desc)
    # --- payload
    add("trunc-payload-last-byte", b.good[:-1], "NPYG_ETRUNC_PAYLOAD", "the last payload byte removed")
    add("trunc-payload-half", b.good[:len(b.good) - len(b.payload) // 2], "NPYG_ETRUNC_PAYLOAD",
        "half of the payload")
    add("trunc-payload-empty", b.good[:len(b.good) - len(b.payload)], "NPYG_ETRUNC_PAYLOAD",
        "no payload at all")
    # --- bytes in the header
    raw = b.text
    add("nul-padding", g.frame(v, raw[:-2] + b"\x00\n", b.payload), "NPYG_ENUL", "a NUL byte in the padding")
    add("nul-leading", g.frame(v, b"\x00" + raw[:-2] + b"\n", b.payload), "NPYG_ENUL", "a NUL byte before '{'")
    t0 = b.descr.replace("'<i4'", "'<i4\x00'", 1) if b.struct else b.descr[:-1] + "\x00'"
    add("nul-in-string", craft(H(descr=t0)), "NPYG_ENUL", "a NUL byte inside a type string")
    add("formfeed-indent", craft("\n\f" + H()), "NPYG_ESYNTAX",
        "a form feed opening the dict's line: numpy's token filter makes it an indent")
    if v[0] == 3:
        named = "[('\u00e9', %s)]" % b.descr if not b.struct else b.descr.replace("'a'", "'\u00e9'", 1)
        raw3 = b.g.padded(v, H(descr=named))
        e = "\u00e9".encode()
        for fam, rep, desc in [("utf8-invalid", b"\xff\xff", "the bytes FF FF in a field name"),
                               ("utf8-lone-continuation", b"\x80a", "a lone UTF-8 continuation byte"),
                               ("utf8-overlong", b"\xc0\xa9", "an overlong 2-byte encoding of ')'"),
                               ("utf8-surrogate", b"\xed\xa0\x80", "an encoded UTF-16 surrogate"),
                               ("utf8-truncated", b"\xe6\x95", "a truncated 3-byte sequence")]:
            add(fam, g.frame(v, raw3.replace(e, rep), b.payload), "NPYG_EUTF8", desc)
        add("bom", g.frame(v, b"\xef\xbb\xbf" + raw[:-4] + b"\n", b.payload), "NPYG_ESYNTAX",
            "a UTF-8 byte order mark before the dict")
        add("py2-long", craft(H(shape=b.dims("%dL" % b.shape[0]))), "NPYG_EPY2LONG",
            "Python-2 'L' suffix in a v3 header")
    else:
        add("cr-leading-pylong", craft("\r" + H(shape=b.dims("%dL" % b.shape[0]))), "NPYG_EUNSUPPORTED",
            "a CR before the dict hides the line from numpy's 'L' filter, so the 'L' stays")
    # --- syntax
    body = H()
    for fam, text, desc in [
            ("syntax-unbalanced-paren", body.replace(b.stext + ", }", b.stext[:-1] + ", }"),
             "shape tuple never closed"),
            ("syntax-unbalanced-brace", body[:-1], "dict never closed"),
            ("syntax-extra-brace", body + "}", "an extra '}'"),
            ("syntax-unterminated-string", body.replace("'shape':", "'shape:"),
             "the string 'shape: ... never closed"),
            ("syntax-junk-after", body + "\nxyz", "a name on a line after the dict"),
            ("syntax-semicolon", body + ";", "';' after the dict"),
            ("syntax-two-dicts", body + " " + body, "two dicts in a row"),
            ("syntax-lower-l", H(shape=b.dims("%dl" % b.shape[0])), "lower-case 'l' suffix"),
            ("syntax-double-L", H(shape=b.dims("%dLL" % b.shape[0])), "'LL' suffix"),
            # a list after a string is a subscript, so the struct base loses
            # the colon after another key
            ("syntax-missing-colon", body.replace("'fortran_order':", "'fortran_order'") if b.struct
             else body.replace("'descr':", "'descr'"), "a key without its ':'"),
            ("syntax-missing-comma", body.replace(", 'fortran_order'", " 'fortran_order'"),
             "no comma between two items"),
            ("syntax-leading-zero-int", H(shape=b.dims("0%d" % b.shape[0])), "a dim with a leading zero"),
            ("syntax-bad-escape", body.replace("'shape'", "'sh\\x8pe'"), "truncated \\x escape in a key"),
            ("descr-last-no-value", "{'fortran_order': %s, 'shape': %s, 'descr':}" % (b.ftext, b.stext),
             "'descr' is the last key and has no value"),
            ("descr-repeated-no-value", body[:-1] + "'descr':}",
             "a complete dict, then 'descr' again with no value"),
            ("end-after-descr-colon", "{'fortran_order': %s, 'shape': %s, 'descr': " % (b.ftext, b.stext),
             "the header ends after \"'descr': \""),
            ("end-mid-key", body[:-1] + "'sha", "the header ends inside a fourth key's string"),
            ("end-mid-tuple", body[:body.index("'shape': ") + 10 + len(b.stext) - 2],
             "the header ends inside the shape tuple")]:
        add(fam, craft(text), "NPYG_ESYNTAX", desc)
    add("end-mid-bool", craft("{'descr': %s, 'shape': %s, 'fortran_order': %s"
                              % (b.descr, b.stext, b.ftext[:3])), "NPYG_ENOTLITERAL",
        "the header ends inside the fortran_order value")
    add("dup-key-unhashable", craft("{'descr': {[1]}, " + body[1:]), "NPYG_ENOTLITERAL",
        "a discarded duplicate value {[1]}: literal_eval builds the set and fails")
    # --- not a literal
    for fam, text, desc in [
            ("notliteral-call", H(descr="dtype(%s)" % b.descr), "descr written as a call"),
            ("notliteral-name", H(descr=b.field("float64")), "a type written as a bare name"),
            ("notliteral-attribute", H(descr=b.field("np.float64")), "a type written as an attribute"),
            ("notliteral-binop", H(shape=b.dims("%d+0" % b.shape[0])), "an addition in the shape"),
            ("notliteral-mul", H(shape=b.dims("%d*1" % b.shape[0])), "a multiplication in the shape"),
            ("notliteral-fstring", H(descr=b.field("f'<f8'")), "a type as an f-string"),
            ("notliteral-not", H(fortran="not " + b.ftext), "fortran_order as 'not %s'" % b.ftext),
            ("notliteral-comprehension", H(shape="tuple(i for i in %s)" % b.stext),
             "shape built by a call over a generator"),
            ("notliteral-lambda", H(descr="(lambda: %s)()" % b.descr), "a lambda call"),
            ("notliteral-lowercase-false", H(fortran=b.ftext.lower()), None)]:
        if desc is None:
            continue  # the same file as fortran-json-*
        add(fam, craft(text), "NPYG_ENOTLITERAL", desc)
    return out


def gen(g):
    existing = {}
    for rel, case in g.CASES.items():
        if case["group"] == "invalid":
            existing.setdefault(case["data"], rel)
    counts = {}
    unexpected = []
    for name, ver, descr, ftext, shape in BASES:
        b = Base(g, name, ver, descr, ftext, shape)
        verdict, _a, _w = g.numpy_verdict(io.BytesIO(b.good))
        assert verdict["verdict"] == "accept", (name, verdict)
        seen = set()
        for fam, data, code, desc in families(b):
            assert fam not in seen, (name, fam)
            seen.add(fam)
            full = "%s (base: %s)" % (desc, b.what)
            if data in existing:
                rel = existing[data]
                g.CASES[rel].setdefault("base", name)
                counts[name] = counts.get(name, 0) + 1
                continue
            if (fam, name) in NOT_A_DEFECT:
                continue
            rel = "invalid/%s-%s.npy" % (fam, name)
            if rel in g.CASES:
                # an earlier suite built this family on this base its own way
                g.CASES[rel].setdefault("base", name)
                counts[name] = counts.get(name, 0) + 1
                continue
            v, _a, _w = g.numpy_verdict(io.BytesIO(data))
            if v["verdict"] != "reject":
                unexpected.append((fam, name))
                continue
            case = g.add("invalid", "%s-%s" % (fam, name), data, full, npyguard_error=code)
            case["base"] = name
            existing[data] = rel
            counts[name] = counts.get(name, 0) + 1
    if unexpected:
        raise SystemExit("gen_conform13: numpy reads these variants (add them to NOT_A_DEFECT "
                         "if the defect does not apply there): %r" % unexpected)
    return counts
