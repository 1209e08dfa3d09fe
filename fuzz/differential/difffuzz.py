#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Differential fuzzing of npyguard against numpy.

A grammar generates .npy headers and .npz archives; every input goes to
numpy (np.load(path, allow_pickle=False), every key of an archive indexed)
and to npyvalidate, and the two verdicts are compared:

  lax         npyvalidate accepts, numpy refuses: always a failure
  refused     numpy loads it, npyvalidate refuses: a failure unless the code
              belongs to a class documented in parser/DIVERGENCES.md or
              corpus/npz/README.md (see allowed_refusal)

Families (each a grammar):
  header   literal forms, quoting, int spellings, whitespace and line-break
           bytes (CR, LF, FF, tab, backslash continuations, comments),
           duplicate keys with any discarded value, v1/v2/v3
  typestr  byte orders, kinds, odd integer spellings of the size, datetime
           units and metadata, names and aliases
  descr    structured dtypes: pads, titles, subarrays (int, tuple, list,
           zero, huge, 33 dims), nesting, objects, tuple field types
  npz      zip fields: version needed, comments (with end-record
           signatures), flag bits, methods, cp437 and UTF-8 names,
           duplicates, members that are not .npy

numpy runs in one worker process per batch, which generates the batch's
inputs (each from its own seed, so a crashed worker restarts at the next
input), sizes the payload from numpy's own header parse, writes the files
and loads them. npyvalidate then validates the whole batch in one run.

    /usr/bin/python3 fuzz/differential/difffuzz.py --npyvalidate build/release/parser/npyvalidate
        [--families header,typestr,descr,npz] [--count N] [--seed S] [--batch B]
        [--keep DIR] [--report FILE]

Exit status 0 when nothing failed, 1 otherwise. The same seed gives the
same inputs.
"""

import argparse
import io
import json
import os
import random
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..'))
FAMILIES = ('header', 'typestr', 'descr', 'npz')
WORKER_AS_LIMIT = 3 << 30
MiB = 1 << 20
FILLER = bytes(range(251)) * (MiB // 251 + 1)

# --------------------------------------------------------------------------
# verdict classes documented as deliberate refusals

# Codes that only ever mean "legal to numpy, declined by npyguard" or a limit.
ALWAYS_DOCUMENTED = {'NPYG_EUNSUPPORTED', 'NPYG_ELIMIT_HEADER', 'NPYG_ELIMIT_DIMS',
                     'NPYG_ELIMIT_FIELDS', 'NPYG_ELIMIT_DEPTH', 'NPYG_ELIMIT_ALLOC',
                     'NPYG_ELIMIT_PAYLOAD', 'NPYG_ELIMIT_MEMBERS', 'NPYG_ELIMIT_NAME',
                     'NPYG_ELIMIT_UNCOMPRESSED', 'NPYG_ELIMIT_RATIO'}
# corpus/npz/README.md: where npyguard is stricter than zipfile (an
# encrypted member numpy never reads, shadowed by a duplicate, included).
ZIP_DOCUMENTED = {'NPYG_EZIP_EOCD', 'NPYG_EZIP_ZIP64', 'NPYG_EZIP_MULTIDISK', 'NPYG_EZIP_CDIR',
                  'NPYG_EZIP_LOCAL', 'NPYG_EZIP_GAP', 'NPYG_EZIP_DUPNAME', 'NPYG_EZIP_NAME',
                  'NPYG_EZIP_METHOD', 'NPYG_EZIP_FLAGS', 'NPYG_EZIP_DESCRIPTOR', 'NPYG_EZIP_SIZE',
                  'NPYG_EZIP_CRC', 'NPYG_EZIP_ENCRYPTED'}
# Ordinary codes documented for one class each; the generator tags inputs
# of that class.
TAGGED = {'NPYG_EDIM': 'negative-dims', 'NPYG_EDESCR': 'flexible-size-range',
          'NPYG_EOVERFLOW': 'flexible-size-range'}


def allowed_refusal(code, tags, archive):
    if code in ALWAYS_DOCUMENTED:
        return True
    if archive and code in ZIP_DOCUMENTED:
        return True
    return TAGGED.get(code) in tags


# --------------------------------------------------------------------------
# the grammar

def pick(r, *opts):
    return opts[r.randrange(len(opts))]


def wpick(r, pairs):
    total = sum(w for w, _ in pairs)
    x = r.uniform(0, total)
    for w, v in pairs:
        x -= w
        if x <= 0:
            return v
    return pairs[-1][1]


def pystr(r, s):
    """A Python literal for the string s, in one of many spellings."""
    how = r.randrange(10)
    if how < 5:
        return repr(s)
    if how == 5:
        return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'
    if how == 6:
        return "'" + ''.join('\\x%02x' % ord(c) if ord(c) < 256 and r.random() < 0.4 else c
                             for c in s.replace('\\', '\\\\').replace("'", "\\'")) + "'"
    if how == 7 and len(s) > 1:
        k = r.randrange(1, len(s))
        return repr(s[:k]) + pick(r, ' ', '', '\t', ' \\\n') + repr(s[k:])
    if how == 8 and '\\' not in s and "'" not in s and '\n' not in s:
        return pick(r, 'r', 'u', 'R', 'U') + "'" + s + "'"
    return "'''" + s.replace('\\', '\\\\').replace("'", "\\'") + "'''"


GAPS = [(40, ''), (30, ' '), (4, '  '), (3, '\t'), (2, '\f'), (3, '\n'), (2, '\r\n'), (2, '\r'),
        (2, ' \\\n'), (1, '\\\r\n'), (1, '\\\r'), (2, ' #c\n'), (1, '#c\r'), (1, '\n\f'),
        (1, '\x0b'), (1, '\n '), (1, '\r\n\t')]


def gap(r, rich):
    return wpick(r, GAPS) if rich else pick(r, ' ', '')


def pyint(r, n, v12):
    """The int n spelled in one of Python's ways (and the Python-2 'L')."""
    s = str(abs(n))
    how = r.randrange(14)
    if how == 1:
        s = hex(abs(n)) if r.random() < 0.5 else '0X%X' % abs(n)
    elif how == 2:
        s = oct(abs(n))
    elif how == 3:
        s = bin(abs(n))
    elif how == 4 and len(s) > 1:
        s = s[0] + '_' + s[1:]
    elif how == 5:
        s = '0' + s if n else '00'
    elif how == 6:
        s = '(' + s + ')'
    elif how == 7:
        s = s + pick(r, 'L', ' L', 'l', 'LL', ' \\\nL', 'j', '.0', '.', 'e0')
    if n < 0:
        s = '-' + pick(r, '', ' ') + s
    elif how == 8:
        s = '+' + s
    return s


def junk_value(r, depth=0):
    """Any literal: discarded duplicate values, odd descrs and shapes."""
    k = r.randrange(16 if depth < 2 else 9)
    if k == 0: return pick(r, '1', '-1', '2.5', '1j', '0x10')
    if k == 1: return repr(pick(r, 'a', '<f8', '', 'x'))
    if k == 2: return pick(r, "b'x'", "b''")
    if k == 3: return pick(r, 'None', 'True', 'False', '...')
    if k == 4: return 'set()'
    if k == 5: return pick(r, '[]', '()', '{}')
    if k == 6: return pick(r, 'set(1)', 'dict()', 'x', 'f(1)', '1+2', 'not 1')
    if k == 7: return pick(r, '[1]', '[[]]')
    if k == 8: return '(%s,)' % pick(r, '1', "'a'")
    if k == 9: return '[%s]' % ', '.join(junk_value(r, depth + 1) for _ in range(r.randrange(3)))
    if k == 10: return '(%s, %s)' % (junk_value(r, depth + 1), junk_value(r, depth + 1))
    if k == 11: return '{%s}' % ', '.join(junk_value(r, depth + 1) for _ in range(1 + r.randrange(2)))
    if k == 12: return '{%s: %s}' % (junk_value(r, depth + 1), junk_value(r, depth + 1))
    if k == 13: return '{(1, %s)}' % junk_value(r, depth + 1)
    if k == 14: return '{%s: 1, %s: 2}' % (junk_value(r, depth + 1), junk_value(r, depth + 1))
    return '(%s)' % junk_value(r, depth + 1)


SIMPLE_DESCRS = ["'<f8'", "'|u1'", "'<i4'", "'>f4'", "'|b1'", "'<U3'", "'|S2'", "'<M8[s]'",
                 "[('a', '<i4')]", "[('a', '<i4'), ('b', '|u1', (2,))]", "'<c16'", "'|V4'"]


class Input:
    def __init__(self, data=None, header=None, version=1, tags=(), ext='.npy'):
        self.data = data          # complete file bytes (npz) or None
        self.header = header      # header text (npy)
        self.version = version
        self.tags = set(tags)
        self.ext = ext


def gen_shape(r, rich, v12, tags):
    nd = wpick(r, [(2, 0), (6, 1), (3, 2), (1, 3), (0.05, 33)])
    dims = []
    for _ in range(nd):
        n = wpick(r, [(6, r.randrange(0, 5)), (1, r.randrange(5, 40)), (0.3, -1), (0.2, -2),
                      (0.1, 2 ** 40), (0.05, 2 ** 63), (0.05, 2 ** 64)])
        if n < 0:
            tags.add('negative-dims')
        dims.append(pyint(r, n, v12) if rich else str(n))
    if r.random() < 0.03:
        dims = [pick(r, 'True', 'False', '2.0', "'2'", 'None')]
    body = (',' + gap(r, rich)).join(dims)
    if nd == 1 or (dims and r.random() < 0.3):
        body += ','
    if rich and r.random() < 0.03:
        return pick(r, '[3]', '3', 'set()', '{3}', '()')
    return '(' + gap(r, rich) + body + gap(r, rich) + ')'


def gen_header_family(r):
    version = pick(r, 1, 1, 2, 3)
    v12 = version < 3
    tags = set()
    rich = True
    descr = pick(r, *SIMPLE_DESCRS) if r.random() < 0.9 else junk_value(r)
    fortran = wpick(r, [(10, 'False'), (5, 'True'), (1, '(False)'), (0.3, '0'), (0.3, '1'),
                        (0.2, 'None')])
    shape = gen_shape(r, rich, v12, tags)
    items = [('descr', descr), ('fortran_order', fortran), ('shape', shape)]
    r.shuffle(items)
    while r.random() < 0.15:   # duplicate keys: the last wins, but all are built
        k = pick(r, 'descr', 'fortran_order', 'shape')
        items.insert(r.randrange(len(items) + 1), (k, junk_value(r)))
    if r.random() < 0.03:
        items.append((pick(r, 'extra', 'Descr'), '1'))
    parts = []
    for k, v in items:
        key = pystr(r, k) if r.random() < 0.3 else repr(k)
        parts.append(key + gap(r, rich) + ':' + gap(r, rich) + v)
    sep = ',' + gap(r, rich)
    body = '{' + gap(r, rich) + sep.join(parts) + pick(r, '', ',', ', ', ',' + gap(r, rich)) \
        + gap(r, rich) + '}'
    lead = wpick(r, [(20, ''), (2, '\n'), (1, ' '), (1, '\f'), (1, '\r'), (1, '#c\n'),
                     (1, '\n \\\n'), (1, '\t\\\n'), (1, '\n\f'), (1, '\r\n\f'), (1, '#\r'),
                     (1, '\f \\\n'), (1, '\n\t'), (1, ' \\\n '), (1, '\\\n')])
    trail = wpick(r, [(20, ''), (1, ' #pad'), (1, '\r'), (1, '\n  '), (1, '\t'), (1, ' \\\n'),
                      (1, '\n#x\r'), (1, ';'), (1, '\n\f'), (1, '\r '), (1, '\r#c')])
    return Input(header=lead + body + trail, version=version, tags=tags)


def gen_typestr(r, tags, flexible_sizes=True):
    if r.random() < 0.12:
        return pick(r, 'float64', 'int32', 'int', 'long', 'bool8', 'bool', 'object', 'str',
                    'bytes', 'void', 'datetime64', 'timedelta64[s]', 'datetime64[ms]', 'float128',
                    'int0', 'a5', 'i4,f8', '(2,)i4', '2i4', 'c', 'S', 'U', 'V', 'M', 'm', 'O',
                    'e', 'G', 'longdouble', 'uint', 'str_', 'unicode')
    order = wpick(r, [(8, '<'), (4, '>'), (3, '|'), (2, '='), (2, ''), (0.3, '!')])
    kind = wpick(r, [(3, 'f'), (3, 'i'), (2, 'u'), (1, 'c'), (1, 'b'), (2, 'S'), (2, 'U'),
                     (1, 'V'), (1, 'O'), (3, 'M'), (2, 'm'), (0.3, 'a'), (0.2, 'T'), (0.2, 'x'),
                     (0.3, '?'), (0.3, 'q')])
    if kind in 'SUV' and flexible_sizes:
        n = wpick(r, [(6, r.randrange(0, 20)), (1, -1), (1, -5), (0.5, 2 ** 31 - 1),
                      (0.5, 2 ** 31), (0.5, 2 ** 30), (0.3, 536870912), (0.3, 99999999999)])
        nbytes = n * 4 if kind == 'U' else n
        if n < 0 or nbytes > 2 ** 31 - 1 or (kind == 'U' and n >= 2 ** 29):
            tags.add('flexible-size-range')
    elif kind in 'SUV':
        n = r.randrange(0, 9)
    else:
        n = wpick(r, [(8, pick(r, 1, 2, 4, 8, 16)), (1, pick(r, 0, 3, 12, 32, 10))])
    size = str(abs(n))
    how = r.randrange(12)
    pre = ''
    if how == 1: pre = pick(r, ' ', '\t', '\n', '\x0b', '\f', '\r', '  ')
    elif how == 2: pre = '+'
    elif how == 3: pre = pick(r, '0', '00')
    elif how == 4: pre = pick(r, ' +', '\t0', '+0')
    if n < 0:
        pre = pre + '-' if pre in ('', ' ', '\t') else '-'
    size = pre + size
    if r.random() < 0.1 and kind not in 'Mm':
        size = ''
    tail = ''
    if kind in 'Mm':
        if r.random() < 0.3:
            size = pick(r, '8', '8', '08', ' 8', '+8', '\t8', '4', '16', '', '-8', '008')
        else:
            size = '8'
        tail = wpick(r, [(3, ''), (5, '[%s]' % pick(r, 's', 'ms', 'us', 'ns', 'D', 'h', 'm', 'Y',
                                                    'M', 'W', 'ps', 'fs', 'as', 'generic')),
                         (1, '[%d%s]' % (r.randrange(0, 30), pick(r, 's', 'ms', 'generic', 'D'))),
                         (0.5, pick(r, '[ 5s]', '[s/10]', '[-1s]', '[B]', '[2147483648s]',
                                    '[\u03bcs]', '[5 s]', '[s]x', '[]', '[+5s]', '[1s/0]'))])
        if '/0]' in tail:
            tail = '[s]'   # a zero divisor kills numpy (SIGFPE); corpus covers it
    return order + kind + size + tail


def gen_typestr_family(r):
    tags = set()
    version = pick(r, 1, 3)
    ts = gen_typestr(r, tags)
    if version == 1 and any(ord(c) > 255 for c in ts):
        version = 3
    shape = pick(r, '(2,)', '(0,)', '()', '(3, 1)')
    h = "{'descr': %s, 'fortran_order': False, 'shape': %s, }" % (pystr(r, ts), shape)
    return Input(header=h, version=version, tags=tags)


NAMES = ['a', 'b', 'c', '', 'a', 'x y', '\u00e9', 'a\u00e9b', '\u3000', '\u202e', "q'", 'q"',
         '\\', '\t', 'f0']


def gen_shape_spec(r, tags):
    k = r.randrange(14)
    if k < 3: return str(pick(r, 0, 1, 2, 3))
    if k < 9:
        nd = wpick(r, [(1, 0), (6, 1), (3, 2), (1, 3)])
        dims = [str(wpick(r, [(8, r.randrange(0, 5)), (1, 65536), (0.3, 2 ** 31),
                              (0.3, 2 ** 31 - 1), (0.3, -1)])) for _ in range(nd)]
        return '(' + ', '.join(dims) + (',' if nd == 1 else '') + ')'
    if k == 9: return '(' + '1, ' * pick(r, 32, 33, 64, 65) + ')'
    if k == 10: return pick(r, '[2]', 'None', '2.0', "'2'", 'True', '((2,),)')
    if k == 11: return pick(r, '(65536, 65536)', '(46341, 46341)', '(2147483647,)')
    return '()'


def gen_field_type(r, tags, depth):
    k = r.randrange(12)
    if k < 5 or depth > 3:
        return pystr(r, gen_typestr(r, tags, flexible_sizes=False)) if r.random() < 0.3 else \
            repr(pick(r, '<i4', '|u1', '<f8', '|S0', '|V4', '|V0', '|O', '<U2', '<M8', '|S3', '<f8'))
    if k < 8:
        return gen_struct(r, tags, depth + 1)
    inner = gen_field_type(r, tags, depth + 1)
    shape = gen_shape_spec(r, tags)
    if k < 11:
        return '(%s, %s)' % (inner, shape)
    return '(%s, %s, %s)' % (inner, shape, junk_value(r, 1))


def gen_struct(r, tags, depth=0):
    n = wpick(r, [(1, 0), (4, 1), (4, 2), (2, 3), (1, 5)])
    fields = []
    for _ in range(n):
        name = pick(r, *NAMES)
        nm = pystr(r, name)
        if r.random() < 0.1:
            nm = '(%s, %s)' % (pick(r, repr('t'), repr('u'), repr('a'), '1', 'None', "b't'"), nm)
        t = gen_field_type(r, tags, depth)
        if r.random() < 0.35:
            fields.append('(%s, %s, %s)' % (nm, t, gen_shape_spec(r, tags)))
        elif r.random() < 0.03:
            fields.append(pick(r, '[%s, %s]' % (nm, t), "'ab'", '(%s,)' % nm))
        else:
            fields.append('(%s, %s)' % (nm, t))
    return '[' + ', '.join(fields) + ']'


def gen_descr_family(r):
    tags = set()
    if r.random() < 0.1:
        d = gen_field_type(r, tags, 0)
    else:
        d = gen_struct(r, tags)
    version = pick(r, 1, 3)
    shape = pick(r, '(2,)', '(0,)', '()', '(1,)')
    h = "{'descr': %s, 'fortran_order': False, 'shape': %s, }" % (d, shape)
    try:
        h.encode('latin1')
    except UnicodeEncodeError:
        version = 3
    return Input(header=h, version=version, tags=tags)


def gen_npz_family(r):
    if os.path.join(ROOT, 'gen') not in sys.path:
        sys.path.insert(0, os.path.join(ROOT, 'gen'))
    import gen_npz
    import numpy as np
    members = []
    used = []
    for i in range(wpick(r, [(1, 0), (6, 1), (4, 2), (1, 3)])):
        nm = pick(r, b'a.npy', b'b.npy', b'a', b'\xc3\xa9.npy', b'\x82.npy', b'\x83.npy',
                  b'x/y.npy', b'../x.npy', b'c', b'\xe9.npy', b'd.NPY', b'a.npy.npy', b'\xff.npy')
        flags = wpick(r, [(10, 0), (3, 0x800), (1, 0x2), (1, 0x4), (1, 0x10), (0.5, 0x20),
                          (0.5, 0x1), (0.5, 0x40), (0.5, 0x1000), (0.5, 0x80), (1, 0x8)])
        method = wpick(r, [(6, 0), (6, 8), (0.5, 12), (0.5, 14), (0.3, 6), (0.3, 9)])
        kind = r.randrange(10)
        if kind < 7:
            arr = np.arange(r.randrange(0, 6)).astype(pick(r, '<f8', '|u1', '>i4', '<U2'))
            data = gen_npz.npy(arr, version=pick(r, None, (1, 0), (2, 0), (3, 0)))
        elif kind < 9:
            inp = gen_header_family(r)
            data = npy_bytes(inp.header, inp.version, b'\0' * 24)
        else:
            data = pick(r, b'hello', b'', b'\x93NUMP', b'PK\x03\x04')
        m = dict(name=nm, data=data, method=method, flags=flags)
        if method == 12:
            import bz2
            m['comp'] = bz2.compress(data)
        elif method == 14:
            import lzma
            m['comp'] = lzma.compress(data, format=lzma.FORMAT_ALONE)[:0] + b'\x09\x04\x05\x00' + \
                lzma.compress(data, format=lzma.FORMAT_RAW, filters=[{'id': lzma.FILTER_LZMA1}])
        if flags & 0x8:
            m['descriptor'] = pick(r, 'sig', 'nosig')
        v = wpick(r, [(10, 20), (2, 45), (1, 10), (1, 63), (1, 64), (1, 0xFF14), (0.5, 0x3F3F),
                      (0.5, 99)])
        if r.random() < 0.5:
            m['cd_version'] = v
        else:
            m['version'] = v
        members.append(m)
        used.append(nm)
    comment = wpick(r, [(8, b''), (2, b'hello'), (1, b'hello PK\x05\x06abc'),
                        (1, b'PK\x05\x06' + b'z' * r.randrange(0, 40)), (1, b'x' * 30 + b'PK\x05\x06'),
                        (0.5, b'PK\x05\x06' + bytes(18))])
    suffix = wpick(r, [(20, b''), (1, b'junk'), (0.5, b'PK\x05\x06')])
    data = gen_npz.build_zip(members, comment=comment, suffix=suffix)
    if r.random() < 0.05:
        data = data[:r.randrange(len(data))]
    return Input(data=data, ext='.npz')


GENERATORS = {'header': gen_header_family, 'typestr': gen_typestr_family,
              'descr': gen_descr_family, 'npz': gen_npz_family}


def npy_bytes(header, version, payload):
    h = header.encode('utf-8' if version == 3 else 'latin1')
    pre = 10 if version == 1 else 12
    h = h + b' ' * (64 - (pre + len(h) + 1) % 64) + b'\n'
    if version == 1 and len(h) > 65535:
        version, pre = 2, 12
    lenfield = struct.pack('<H' if version == 1 else '<I', len(h))
    return b'\x93NUMPY' + bytes([version, 0]) + lenfield + h + payload


def make_input(family, seed, idx):
    r = random.Random('%s:%s:%d' % (seed, family, idx))
    inp = GENERATORS[family](r)
    if inp.data is None:
        if inp.version < 3:
            try:
                inp.header.encode('latin1')
            except UnicodeEncodeError:
                inp.version = 3
        inp.data = npy_bytes(inp.header, inp.version, b'')
    return inp


# --------------------------------------------------------------------------
# worker: numpy's side of one batch

def numpy_payload_size(data):
    import numpy as np
    from numpy.lib import format as npformat
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        fp = io.BytesIO(data)
        ver = npformat.read_magic(fp)
        shape, _, dtype = npformat._read_array_header(fp, ver, max_header_size=2 ** 64)
        count = 1
        for d in shape:
            count *= d
        return count * dtype.itemsize


def numpy_verdict(path, archive):
    import numpy as np
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        try:
            if archive:
                with np.load(path, allow_pickle=False) as z:
                    for key in z.files:
                        z[key]
            else:
                a = np.load(path, allow_pickle=False)
                if not isinstance(a, np.ndarray):
                    return 'reject', 'not an array'
            return 'accept', ''
        except BaseException as e:   # any exception is numpy refusing
            return 'reject', type(e).__name__ + ': ' + str(e).split('\n')[0][:120]


def worker(args):
    resource.setrlimit(resource.RLIMIT_AS, (WORKER_AS_LIMIT, WORKER_AS_LIMIT))
    out = sys.stdout
    for idx in range(args.start, args.end):
        inp = make_input(args.family, args.seed, idx)
        data = inp.data
        if inp.ext == '.npy':
            try:
                n = numpy_payload_size(data)
            except BaseException:
                n = -1
            if 0 <= n <= MiB:
                data += FILLER[:n]
        path = os.path.join(args.dir, '%07d%s' % (idx, inp.ext))
        with open(path, 'wb') as f:
            f.write(data)
        v, why = numpy_verdict(path, inp.ext == '.npz')
        out.write(json.dumps({'idx': idx, 'path': path, 'numpy': v, 'why': why,
                              'tags': sorted(inp.tags)}) + '\n')
        out.flush()
    return 0


def run_numpy_batch(family, seed, start, end, bdir):
    """Results for [start, end); a dying worker costs one input (ProcessDied)."""
    results = {}
    pos = start
    while pos < end:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), '--worker',
                            '--family', family, '--seed', str(seed), '--start', str(pos),
                            '--end', str(end), '--dir', bdir],
                           capture_output=True, text=True,
                           env=dict(os.environ, OPENBLAS_NUM_THREADS='1', PYTHONHASHSEED='0'))
        for line in p.stdout.splitlines():
            rec = json.loads(line)
            results[rec['idx']] = rec
            pos = rec['idx'] + 1
        if p.returncode != 0 and pos < end:
            path = os.path.join(bdir, '%07d%s' % (pos, '.npz' if family == 'npz' else '.npy'))
            if not os.path.exists(path):   # the generator itself failed: a harness bug
                sys.stderr.write(p.stderr)
                raise SystemExit('difffuzz: worker failed before writing input %d' % pos)
            results[pos] = {'idx': pos, 'path': path, 'numpy': 'reject',
                            'why': 'ProcessDied %d' % p.returncode, 'tags': []}
            pos += 1
    return results


def run_npyvalidate(exe, paths):
    lst = '\n'.join(paths) + '\n'
    p = subprocess.run([exe, '--json', '-j', '1', '--files-from', '-'], input=lst,
                       capture_output=True, text=True, errors='replace')
    out = {}
    for line in p.stdout.splitlines():
        rec = json.loads(line)
        codes = []
        members = (rec.get('npz') or {}).get('members', [])
        # an archive's top-level error repeats its first refused member's
        if 'error' in rec and not any('error' in m for m in members):
            codes.append(rec['error']['name'])
        warns = set(rec.get('warnings', []))
        for m in members:
            if 'error' in m:
                codes.append(m['error']['name'])
            warns |= set(m.get('warnings', []))
        out[rec['path']] = (rec['ok'], codes, warns)
    return out


# --------------------------------------------------------------------------
# driver

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--npyvalidate')
    ap.add_argument('--families', default=','.join(FAMILIES))
    ap.add_argument('--count', type=int, default=2000, help='inputs per family')
    ap.add_argument('--seed', default='1')
    ap.add_argument('--batch', type=int, default=1000)
    ap.add_argument('--keep', help='copy failing inputs here')
    ap.add_argument('--report', help='append a JSON summary line here')
    ap.add_argument('--skip-without-numpy', action='store_true',
                    help='exit 77 (ctest: skipped) when numpy cannot be imported')
    ap.add_argument('--worker', action='store_true')
    ap.add_argument('--family')
    ap.add_argument('--start', type=int)
    ap.add_argument('--end', type=int)
    ap.add_argument('--dir')
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    if args.skip_without_numpy:
        try:
            import numpy  # noqa: F401
        except ImportError:
            return 77
    if not args.npyvalidate:
        ap.error('--npyvalidate is required')
    exe = os.path.abspath(args.npyvalidate)
    failures = 0
    summary = {'seed': args.seed, 'families': {}}
    t0 = time.time()
    shm = '/dev/shm' if os.path.isdir('/dev/shm') and os.access('/dev/shm', os.W_OK) else None
    with tempfile.TemporaryDirectory(prefix='npyg-diff-', dir=shm) as tmp:
        for family in args.families.split(','):
            st = dict(inputs=0, agree=0, numpy_accepts=0, lax=0, refused_documented=0,
                      refused_undocumented=0, documented_accept=0)
            for start in range(0, args.count, args.batch):
                end = min(args.count, start + args.batch)
                bdir = os.path.join(tmp, '%s-%d' % (family, start))
                os.makedirs(bdir)
                res = run_numpy_batch(family, args.seed, start, end, bdir)
                ng = run_npyvalidate(exe, [res[i]['path'] for i in sorted(res)])
                for i in sorted(res):
                    rec = res[i]
                    ok, codes, warns = ng.get(rec['path'], (False, ['missing'], set()))
                    st['inputs'] += 1
                    archive = family == 'npz'
                    bad = None
                    if rec['numpy'] == 'accept':
                        st['numpy_accepts'] += 1
                    if rec['numpy'] == 'accept' and not ok:
                        code = codes[0] if codes else '?'
                        if allowed_refusal(code, set(rec['tags']), archive):
                            st['refused_documented'] += 1
                        else:
                            st['refused_undocumented'] += 1
                            bad = 'refused %s' % code
                    elif rec['numpy'] == 'reject' and ok:
                        if 'dims_over_32' in warns and not archive:
                            st['documented_accept'] += 1     # dims-33-64, with its warning
                        else:
                            st['lax'] += 1
                            bad = 'lax'
                    else:
                        st['agree'] += 1
                    if bad:
                        failures += 1
                        with open(rec['path'], 'rb') as f:
                            blob = f.read()
                        sys.stdout.write('FAIL %s %s#%d: %s; numpy: %s; input %r\n' % (
                            bad, family, i, codes, rec['why'], blob[:400]))
                        if args.keep:
                            os.makedirs(args.keep, exist_ok=True)
                            shutil.copy(rec['path'], os.path.join(
                                args.keep, '%s-%s-%d%s' % (family, args.seed, i,
                                                           os.path.splitext(rec['path'])[1])))
                shutil.rmtree(bdir)
                sys.stderr.write('progress %s %s\n' % (family, ' '.join('%s=%d' % kv for kv in st.items())))
                sys.stderr.flush()
            summary['families'][family] = st
            sys.stdout.write('%-8s %s\n' % (family, ' '.join('%s=%d' % kv for kv in st.items())))
            sys.stdout.flush()
    summary['seconds'] = round(time.time() - t0, 1)
    if args.report:
        with open(args.report, 'a') as f:
            f.write(json.dumps(summary, sort_keys=True) + '\n')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
