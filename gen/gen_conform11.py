#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Cases added for conformance suite 1.1.0, kept apart from gen_corpus.py.

gen_corpus.py calls gen(module) with itself as the module, after its own
groups; these cases go through the same add()/measure path, so numpy's
verdict is recorded exactly as for every other case. Run gen_corpus.py, not
this file.

Each case has one defect (or, for compat, one unusual spelling numpy reads)
chosen because a reader that scans the header as a string, instead of
parsing it as a Python literal, gets it wrong:

* find-the-key readers (the first occurrence of "'descr'" or
  "fortran_order" wins) accept a dict that repeats a key without a value,
  or that never closes;
* readers that read a fixed number of characters after the key (key
  position + 16) misread `'fortran_order':True` without the usual space;
* regular expressions like `'fortran_order':\\s*(False|True)` accept
  `Falsey`; digit scanners read `(3 4,)` as two dimensions;
* readers that allocate count * itemsize before reading the payload
  allocate gigabytes for a few bytes of file.
"""


def gen(g):
    H = g.header_dict
    craft = g.craft
    f8 = g.f8

    def bad(name, data, code, desc, **kw):
        g.add("invalid", name, data, desc, npyguard_error=code, **kw)

    def c(name, data, desc, **kw):
        g.add("compat", name, data, desc, **kw)

    # --- huge declared element count, a few bytes of payload
    bad("huge-count-f8-1d-v1", craft((1, 0), H(shape="(268435456,)"), f8(1)),
        "NPYG_ETRUNC_PAYLOAD",
        "shape (268435456,) of '<f8' (2 GiB) with 8 bytes of payload")
    bad("huge-count-f8-2d-v1", craft((1, 0), H(shape="(16384, 16384)"), f8(1)),
        "NPYG_ETRUNC_PAYLOAD",
        "shape (16384, 16384) of '<f8' (2 GiB) with 8 bytes of payload")
    sdescr = "[('a', '<i4'), ('b', '<f8')]"
    bad("huge-count-struct-v1", craft((1, 0), H(descr=sdescr, shape="(134217728,)"),
                                      g.payload_for(sdescr, 1)),
        "NPYG_ETRUNC_PAYLOAD",
        "shape (134217728,) of a 12-byte struct (1.5 GiB) with one item of payload")

    # --- headers that end mid-token, 'descr' last without a value
    P3 = f8(3)
    bad("descr-last-no-value-v1",
        craft((1, 0), "{'fortran_order': False, 'shape': (3,), 'descr':}", P3),
        "NPYG_ESYNTAX", "'descr' is the last key and has no value")
    bad("descr-repeated-no-value-v1",
        craft((1, 0), "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), 'descr':}", P3),
        "NPYG_ESYNTAX",
        "a complete dict, then 'descr' again with no value: a reader that takes the "
        "first 'descr' it finds reads a valid header")
    bad("end-after-descr-colon-v1",
        craft((1, 0), "{'fortran_order': False, 'shape': (3,), 'descr': ", P3),
        "NPYG_ESYNTAX", "the header ends after \"'descr': \" (no value, no closing brace)")
    bad("end-mid-key-v1",
        craft((1, 0), "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), 'sha", P3),
        "NPYG_ESYNTAX", "the header ends inside a fourth key's string")
    bad("end-mid-tuple-v1",
        craft((1, 0), "{'descr': '<f8', 'fortran_order': False, 'shape': (3,", P3),
        "NPYG_ESYNTAX", "the header ends inside the shape tuple")
    bad("end-mid-bool-v1",
        craft((1, 0), "{'descr': '<f8', 'shape': (3,), 'fortran_order': Fal", P3),
        "NPYG_ENOTLITERAL", "the header ends inside the fortran_order value ('Fal')")

    # --- one defect that pattern matching does not see
    bad("fortran-falsey-v1",
        craft((1, 0), "{'descr': '<f8', 'fortran_order': Falsey, 'shape': (3,), }", P3),
        "NPYG_ENOTLITERAL",
        "fortran_order is the name Falsey: a regular expression for (False|True) matches its prefix")
    bad("shape-space-separated-v1",
        craft((1, 0), "{'descr': '<f8', 'fortran_order': False, 'shape': (3 1,), }", P3),
        "NPYG_ESYNTAX", "shape (3 1,): two numbers without a comma; digit scanners read two dims")

    # --- spellings numpy reads, which fixed-offset readers misread
    P6 = f8(6)
    c("fortran-no-space-True-v1",
      craft((1, 0), "{'descr': '<f8', 'fortran_order':True, 'shape': (2, 3), }", P6),
      "'fortran_order':True with no space after the colon (Fortran order, 2x3)")
    c("fortran-two-spaces-True-v1",
      craft((1, 0), "{'descr': '<f8', 'fortran_order':  True, 'shape': (2, 3), }", P6),
      "'fortran_order':  True with two spaces after the colon (Fortran order, 2x3)")
    c("keys-space-before-colon-v1",
      craft((1, 0), "{'descr' : '>f8', 'fortran_order' : True, 'shape' : (2, 3), }",
            g.np.arange(6, dtype=">f8").tobytes()),
      "a space before every colon; big-endian, Fortran order, 2x3")
