#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Generate parser/tests/data/numpy_cases.tsv: .npy header test cases whose
expected verdicts come from numpy itself.

Each case is a complete .npy file. The generator builds it, asks numpy how
it parses the header (to size a payload), writes it to a temporary file and
records what np.load(path, allow_pickle=False) does with it.

Run with the interpreter that has numpy (Debian's python3-numpy):

    /usr/bin/python3 gen/gen_cases.py [output.tsv]

The output is deterministic: same bytes on every run, sorted by case name.
The cases are evaluated in a few forked numpy processes (one per core, with
an address-space limit) that each take case after case, so that a crash or
a huge allocation inside numpy cannot take the generator down; a process
that dies is replaced and its case recorded as ProcessDied. (A fork per case
spent more time forking than in numpy.)
"""

import gc
import io
import json
import os
import re
import resource
import select
import struct
import sys
import tempfile
import warnings

import numpy as np
from numpy.lib import format as npformat

from npygen import MAGIC, preamble
MiB = 1 << 20
CHILD_AS_LIMIT = 16 << 30         # address-space limit for the numpy child
MSG_MAX = 200                     # message column is cut to this many chars

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.normpath(os.path.join(HERE, '..', 'parser', 'tests', 'data',
                                            'numpy_cases.tsv'))

RULES = ('magic', 'version', 'length', 'encoding', 'literal', 'pylong',
         'dict', 'keys', 'shape', 'fortran', 'descr-typestr', 'descr-datetime',
         'descr-struct', 'descr-subarray', 'descr-title', 'descr-pad',
         'object', 'payload', 'limit', 'align')


# --------------------------------------------------------------------------
# case table

class Case:
    __slots__ = ('name', 'version', 'header', 'pad', 'hlen', 'lenfmt',
                 'payload', 'payload_len', 'delta', 'raw', 'parse_as')

    def __init__(self, name, header=None, version=(1, 0), pad='npy', hlen=None,
                 lenfmt=None, payload=None, payload_len=None, delta=0,
                 raw=None, parse_as=None):
        self.name = name
        self.version = version
        self.header = header
        self.pad = pad
        self.hlen = hlen
        self.lenfmt = lenfmt
        self.payload = payload
        self.payload_len = payload_len
        self.delta = delta
        self.raw = raw
        self.parse_as = parse_as


CASES = []
_NAMES = set()

V1, V2, V3 = (1, 0), (2, 0), (3, 0)
ALLV = (V1, V2, V3)


def add(name, header=None, **kw):
    rule = name.split('/', 1)[0]
    assert rule in RULES, name
    assert name not in _NAMES, 'duplicate case name ' + name
    _NAMES.add(name)
    CASES.append(Case(name, header, **kw))


def addv(name, header, versions=ALLV, **kw):
    """Add the same header once per format version (name@v1, @v2, @v3)."""
    for v in versions:
        add('%s@v%d' % (name, v[0]), header, version=v, **kw)


def hdr(descr="'<f8'", fortran='False', shape='(3,)'):
    """Header dict text in numpy's writer layout, from source fragments."""
    return "{'descr': %s, 'fortran_order': %s, 'shape': %s, }" % (
        descr, fortran, shape)


def q(s):
    """Single-quoted Python literal for a plain string (no escaping)."""
    return "'" + s + "'"


GOOD = hdr()


def filler(n):
    return bytes(i % 251 for i in range(n))


def preamble_size(version, lenfmt):
    return len(MAGIC) + 2 + struct.calcsize(lenfmt)


def default_lenfmt(version):
    return '<H' if version[0] in (0, 1) else '<I'


def build(case):
    """Return (file bytes without payload, header-end offset, lenfmt)."""
    if case.raw is not None:
        return case.raw, None, None
    fmt = case.lenfmt or default_lenfmt(case.version)
    pre = preamble_size(case.version, fmt)
    h = case.header
    if isinstance(h, str):
        h = h.encode('utf-8' if case.version[0] == 3 else 'latin1')
    pad = case.pad
    if pad == 'npy':
        padlen = 64 - ((pre + len(h) + 1) % 64)
        h = h + b' ' * padlen + b'\n'
    elif pad == 'align16':
        padlen = 16 - ((pre + len(h) + 1) % 16)
        h = h + b' ' * padlen + b'\n'
    elif pad == 'legacy-v2':
        # numpy 1.9-1.13: pad computed as if the length field had 2 bytes
        padlen = 16 - ((10 + len(h) + 1) % 16)
        h = h + b' ' * padlen + b'\n'
    elif pad == 'none':
        pass
    elif isinstance(pad, bytes):
        h = h + pad
    elif isinstance(pad, tuple) and pad[0] == 'chars':
        # pad with spaces + '\n' to exactly pad[1] decoded characters
        enc = 'utf-8' if case.version[0] == 3 else 'latin1'
        nchar = len(h.decode(enc))
        assert nchar < pad[1]
        h = h + b' ' * (pad[1] - nchar - 1) + b'\n'
    else:
        raise AssertionError(pad)
    hlen = len(h) if case.hlen is None else case.hlen
    out = preamble(case.version, hlen, fmt) + h
    return out, pre + hlen, fmt


def numpy_header(data, version):
    """numpy's own header parse of an in-memory file: (shape, fortran, dtype)."""
    fp = io.BytesIO(data)
    npformat.read_magic(fp)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return npformat._read_array_header(fp, version, max_header_size=2**64)


def parse_version_for(case, fmt):
    if case.parse_as is not None:
        return case.parse_as
    if case.version in (V1, V2, V3):
        return case.version
    if fmt == '<H':
        return V1
    return V3 if case.version[0] == 3 else V2


def make_file(case):
    data, _, fmt = build(case)
    if case.raw is not None:
        return data
    if case.payload is not None:
        return data + case.payload
    if case.payload_len is not None:
        return data + filler(case.payload_len)
    try:
        shape, _, dtype = numpy_header(data, parse_version_for(case, fmt))
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            count = 1 if len(shape) == 0 else int(
                np.multiply.reduce(shape, dtype=np.int64))
        n = count * dtype.itemsize
    except BaseException:
        return data
    if 0 <= n <= MiB:
        return data + filler(max(0, n + case.delta))
    return data


# --------------------------------------------------------------------------
# running numpy on one case (in a child process)

_ADDR = re.compile(r' at 0x[0-9a-fA-F]+>')


def first_line(e):
    """First line of an exception message, without object addresses."""
    s = str(e).split('\n', 1)[0]
    return _ADDR.sub(' at 0x...>', s)


def evaluate(case, path, tmpdir):
    blob = make_file(case)
    with open(path, 'wb') as fh:
        fh.write(blob)
    res = {'file_hex': blob.hex(), 'version': '-'}
    if case.raw is None:
        res['version'] = '%d.%d' % case.version
    elif len(blob) >= 8:
        res['version'] = '%d.%d' % (blob[6], blob[7])
    with warnings.catch_warnings(record=True) as wlist:
        warnings.simplefilter('always')
        try:
            arr = np.load(path, allow_pickle=False)
            exc = None
        except BaseException as e:      # any exception is a rejection
            exc = e
    wnames = sorted({w.category.__name__ for w in wlist})
    res['warning'] = ','.join(wnames) if wnames else '-'
    if exc is not None:
        res['verdict'] = 'reject'
        res['exception'] = type(exc).__name__
        res['message'] = first_line(exc).replace(path, '<file>').replace(
            tmpdir, '<dir>')
        return res
    if not isinstance(arr, np.ndarray):
        res['verdict'] = 'reject'
        res['exception'] = '-'
        res['message'] = 'np.load returned ' + type(arr).__name__
        return res
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        fp = io.BytesIO(blob)
        ver = npformat.read_magic(fp)
        _, fortran, _ = npformat._read_array_header(fp, ver,
                                                    max_header_size=2**64)
        hend = fp.tell()
    res.update(
        verdict='accept', exception='-', message='-',
        itemsize=arr.dtype.itemsize,
        shape=','.join(str(d) for d in arr.shape),
        fortran=1 if fortran else 0,
        count=int(arr.size),
        payload_bytes=int(arr.nbytes),
        data_offset=hend,
        descr=ascii(npformat.dtype_to_descr(arr.dtype)),
    )
    return res


def case_path(tmpdir, idx):
    return os.path.join(tmpdir, 'c%05d.npy' % idx)


def worker(cases, tmpdir, rfd, wfd):
    """A numpy process: reads case indices, one a line, and answers each
    with evaluate()'s result as one JSON line. Any exception ends it with
    status 3, as a crash or a signal does."""
    code = 0
    try:
        resource.setrlimit(resource.RLIMIT_AS,
                           (CHILD_AS_LIMIT, CHILD_AS_LIMIT))
        gc.freeze()     # the collections below look at a case's objects only
        with os.fdopen(rfd, 'rb') as r, os.fdopen(wfd, 'wb') as w:
            for line in r:
                idx = int(line)
                try:
                    res = evaluate(cases[idx], case_path(tmpdir, idx), tmpdir)
                except BaseException:
                    import traceback
                    sys.stderr.write('case %s:\n' % cases[idx].name)
                    traceback.print_exc()
                    code = 3
                    break
                w.write(json.dumps(res).encode() + b'\n')
                w.flush()
                # What a case left for the cycle collector (a file np.load
                # did not close, held by its exception's traceback) goes
                # now: collected later, its ResourceWarning would land in
                # another case's warnings. A process per case never saw it.
                del res
                with warnings.catch_warnings():
                    warnings.simplefilter('ignore')
                    gc.collect()
    except BaseException:
        import traceback
        traceback.print_exc()
        code = 3
    os._exit(code)


class Worker:
    """The parent's end of one worker process."""

    def __init__(self, cases, tmpdir, others):
        to_r, to_w = os.pipe()
        from_r, from_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            os.close(to_w)
            os.close(from_r)
            for o in others:       # the other workers' pipes are theirs
                o.close_files()
            worker(cases, tmpdir, to_r, from_w)
        os.close(to_r)
        os.close(from_w)
        self.pid = pid
        self.send = os.fdopen(to_w, 'wb')
        self.recv = os.fdopen(from_r, 'rb')
        self.idx = None

    def start(self, idx):
        self.idx = idx
        self.send.write(b'%d\n' % idx)
        self.send.flush()

    def close_files(self):
        for f in (self.send, self.recv):
            try:
                f.close()
            except OSError:
                pass

    def finish(self):
        """Stops the worker; returns its wait status."""
        self.close_files()
        return os.waitpid(self.pid, 0)[1]


def died(case, path, status):
    """The row of a case whose numpy process died: a rejection. The file
    it wrote is kept; if it died while sizing the payload, the file is the
    header alone."""
    try:
        with open(path, 'rb') as fh:
            blob = fh.read()
    except FileNotFoundError:
        blob = build(case)[0]
    else:
        os.unlink(path)
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
    return {'file_hex': blob.hex(),
            'version': '%d.%d' % case.version if case.raw is None else '-',
            'verdict': 'reject', 'exception': 'ProcessDied',
            'warning': '-', 'message': 'status %d signal %d' % (status, sig)}


def workers():
    """One worker per core this process may use, at most 4."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:
        n = os.cpu_count() or 1
    return max(1, min(4, n))


def run_cases(cases, tmpdir, nworkers):
    """evaluate() of every case, in a few long-lived forked numpy processes
    (with an address-space limit), so that a crash or a huge allocation
    inside numpy costs one worker, not the generator. A worker that dies
    is replaced; its case is recorded as died()."""
    results = [None] * len(cases)
    todo = list(range(len(cases) - 1, -1, -1))
    busy = {}
    idle = []
    nworkers = max(1, min(nworkers, len(cases)))
    for _ in range(nworkers):
        idle.append(Worker(cases, tmpdir, idle))
    while todo or busy:
        while idle and todo:
            w = idle.pop()
            w.start(todo.pop())
            busy[w.recv.fileno()] = w
        ready, _, _ = select.select(list(busy), [], [])
        for fd in ready:
            w = busy.pop(fd)
            idx = w.idx
            line = w.recv.readline()
            path = case_path(tmpdir, idx)
            if line.endswith(b'\n'):
                os.unlink(path)
                results[idx] = json.loads(line)
                idle.append(w)
                continue
            status = w.finish()
            results[idx] = died(cases[idx], path, status)
            idle.append(Worker(cases, tmpdir, idle + list(busy.values())))
    for w in idle:
        status = w.finish()
        if status != 0:
            raise SystemExit('gen_cases: a worker ended with status %d' % status)
    return results


def esc(s):
    """ASCII-only, one-line form of a message (Python string-escape style)."""
    return ascii(s)[1:-1]


COLUMNS = ('name', 'version', 'file_hex', 'verdict', 'exception', 'itemsize',
           'shape', 'fortran', 'count', 'payload_bytes', 'data_offset',
           'descr_repr', 'warning', 'message')


def row(case, res):
    acc = res['verdict'] == 'accept'

    def num(k):
        return str(res[k]) if acc else '-'
    msg = res.get('message', '-')
    if msg != '-':
        msg = esc(msg)
        if len(msg) > MSG_MAX:
            msg = msg[:MSG_MAX] + '...'
    descr = '-'
    if acc:
        descr = res['descr']        # ascii() text: no raw tab/newline
    fields = [case.name, res['version'], res['file_hex'], res['verdict'],
              res['exception'], num('itemsize'),
              res['shape'] if acc else '-', num('fortran'), num('count'),
              num('payload_bytes'), num('data_offset'), descr,
              res['warning'], msg or '-']
    for fld in fields:
        assert '\t' not in fld and '\n' not in fld, (case.name, fld)
    return '\t'.join(fields)


# --------------------------------------------------------------------------
# the cases, one function per rule group

def cases_magic():
    good = GOOD.encode() + b' ' * 5 + b'\n'     # any valid body
    body = struct.pack('<H', len(good)) + good + filler(24)
    add('magic/good', raw=MAGIC + b'\x01\x00' + body)
    for i in range(6):
        bad = bytearray(MAGIC)
        bad[i] ^= 0x20 if i else 0x01
        add('magic/byte%d-wrong' % i, raw=bytes(bad) + b'\x01\x00' + body)
    add('magic/lowercase', raw=b'\x93numpy\x01\x00' + body)
    add('magic/no-x93', raw=b'NUMPY\x01\x00' + body)
    add('magic/x93-missing-shifted', raw=b'NUMPY\x01\x00\x00' + body)
    add('magic/leading-space', raw=b' ' + MAGIC + b'\x01\x00' + body)
    add('magic/empty-file', raw=b'')
    add('magic/zip-prefix-junk', raw=b'PK\x03\x04' + b'junk' * 4)
    add('magic/pickle-proto2', raw=b'\x80\x02K\x01.')
    v1 = MAGIC + b'\x01\x00' + body
    for n in range(0, 10):
        add('magic/cut-at-%d@v1' % n, raw=v1[:n])
    for v in (V2, V3):
        h = GOOD.encode() + b' ' * 3 + b'\n'
        f = MAGIC + bytes(v) + struct.pack('<I', len(h)) + h
        for n in range(6, 12):
            add('magic/cut-at-%d@v%d' % (n, v[0]), raw=f[:n])


def cases_version():
    for v in [(0, 0), (0, 1), (1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (3, 0),
              (3, 1), (4, 0), (1, 255), (255, 255), (0, 255), (5, 0)]:
        add('version/%d.%d-u16len' % v, GOOD, version=v, lenfmt='<H')
        add('version/%d.%d-u32len' % v, GOOD, version=v, lenfmt='<I')
    # a version higher than needed is fine
    addv('version/tiny-ascii-header', GOOD, versions=(V2, V3), pad='none')


def cases_length():
    for v in ALLV:
        t = v[0]
        add('length/zero@v%d' % t, GOOD, version=v, hlen=0)
        add('length/zero-empty-file-after@v%d' % t, b'', version=v, pad='none')
        add('length/one@v%d' % t, GOOD, version=v, hlen=1)
        # exactly to EOF: a zero-size array, no payload
        add('length/exact-to-eof-shape0@v%d' % t, hdr(shape='(0,)'),
            version=v)
        add('length/exact-to-eof-nopad@v%d' % t, hdr(shape='(0,)'),
            version=v, pad='none')
        # one byte past EOF (no payload follows)
        add('length/past-eof-by-1@v%d' % t, hdr(shape='(0,)'), version=v,
            hlen=64 - (12 if t > 1 else 10) + 1)
        add('length/past-eof-far@v%d' % t, hdr(shape='(0,)'), version=v,
            hlen=0xFFFF if t == 1 else 0xFFFFFFFF)
        # claims fewer bytes than the header text: cut inside the dict
        g = GOOD.encode()
        add('length/cut-inside-dict@v%d' % t, g, version=v, pad='none',
            hlen=len(g) - 5, payload=b'')
        add('length/cut-inside-string@v%d' % t, g, version=v, pad='none',
            hlen=g.index(b'<f8') + 1, payload=b'')
        # ends exactly at '}' with payload right after
        add('length/ends-at-brace@v%d' % t, g, version=v, pad='none',
            payload_len=24)
        # header length swallows the first payload bytes
        add('length/swallows-payload@v%d' % t, g, version=v, pad='none',
            hlen=len(g) + 4, payload_len=24)
        add('length/swallows-spaces@v%d' % t, g + b'    ', version=v,
            pad='none', hlen=len(g) + 2, payload=b'  ' + filler(24))
        # cut inside the padding: still valid, payload is then misplaced
        add('length/cut-in-padding@v%d' % t, g + b'     \n', version=v,
            pad='none', hlen=len(g) + 2, payload=b'   \n' + filler(20))
    add('length/v1-ffff-short-file', GOOD, version=V1, hlen=0xFFFF)
    add('length/v2-over-64k', GOOD + ' ' * 70000, version=V2)


def cases_encoding():
    # latin1 in v1/v2: inside a string (field name) and outside strings
    for v in (V1, V2):
        t = v[0]
        add('encoding/latin1-field-name@v%d' % t,
            hdr("[('\xe9', '<i4')]"), version=v)
        add('encoding/latin1-ff-field-name@v%d' % t,
            hdr("[('\xff', '<i4')]"), version=v)
        add('encoding/latin1-all-high-field-name@v%d' % t,
            hdr("[('" + ''.join(chr(c) for c in range(0xa0, 0x100)) +
                "', '<i1')]"), version=v)
        add('encoding/latin1-c1-control-field-name@v%d' % t,
            hdr("[('\x85\x80', '<i4')]"), version=v)
        add('encoding/latin1-in-comment@v%d' % t,
            GOOD + ' # caf\xe9', version=v)
        add('encoding/latin1-nbsp-outside-string@v%d' % t,
            GOOD.replace(", 'shape'", ",\xa0'shape'"), version=v)
        add('encoding/latin1-letter-outside-string@v%d' % t,
            GOOD.replace(", 'shape'", ", \xe9 'shape'"), version=v)
        add('encoding/latin1-in-descr-typestr@v%d' % t,
            hdr("'<f\xe98'"), version=v)
        add('encoding/utf8-bytes-field-name@v%d' % t,
            hdr(b"[('\xe6\x95\xb4', '<i4')]".decode('latin1')), version=v)
        add('encoding/utf8-bom-start@v%d' % t,
            b'\xef\xbb\xbf' + GOOD.encode(), version=v)
    # v3: UTF-8
    add('encoding/v3-utf8-field-name-2byte', hdr("[('\xe9', '<i4')]"),
        version=V3)
    add('encoding/v3-utf8-field-name-3byte', hdr("[('\u6574\u6570', '<i4')]"),
        version=V3)
    add('encoding/v3-utf8-field-name-4byte', hdr("[('\U0001F600', '<i4')]"),
        version=V3)
    add('encoding/v3-utf8-field-name-u-ffff', hdr("[('\uffff', '<i4')]"),
        version=V3)
    add('encoding/v3-utf8-field-name-max', hdr("[('\U0010ffff', '<i4')]"),
        version=V3)
    add('encoding/v3-utf8-two-fields', hdr("[('\xe9', '<i4'), ('\xe8', '<f8')]"),
        version=V3)
    add('encoding/v3-utf8-in-comment', GOOD + ' # \u00e9\u6574\U0001F600',
        version=V3)
    add('encoding/v3-utf8-nbsp-outside-string',
        GOOD.replace(", 'shape'", ",\xa0'shape'"), version=V3)
    add('encoding/v3-utf8-ideographic-space-outside',
        GOOD.replace(", 'shape'", ",\u3000'shape'"), version=V3)
    add('encoding/v3-utf8-letter-outside-string',
        GOOD.replace(", 'shape'", ", \xe9 'shape'"), version=V3)
    add('encoding/v3-utf8-in-descr-typestr', hdr("'<f\xe98'"), version=V3)
    add('encoding/v3-ascii-only', GOOD, version=V3)
    add('encoding/v3-bom-start', b'\xef\xbb\xbf' + GOOD.encode(), version=V3)
    add('encoding/v3-bom-in-field-name',
        hdr("[('\ufeff', '<i4')]"), version=V3)
    add('encoding/v3-bom-after-dict', GOOD + '\ufeff', version=V3)
    add('encoding/v3-bom-in-padding', GOOD.encode() + b' \xef\xbb\xbf',
        version=V3)
    add('encoding/v3-escaped-nonascii-name', hdr("[('\\u00e9', '<i4')]"),
        version=V3)
    add('encoding/v1-escaped-nonascii-name', hdr("[('\\u00e9', '<i4')]"),
        version=V1)
    add('encoding/v1-escaped-astral-name', hdr("[('\\U0001F600', '<i4')]"),
        version=V1)

    def fld(raw):
        return (b"{'descr': [('" + raw + b"', '<i4')], "
                b"'fortran_order': False, 'shape': (3,), }")
    bad = {
        'lone-ff': b'\xff',
        'lone-fe': b'\xfe',
        'lone-continuation-80': b'\x80',
        'lone-continuation-bf': b'\xbf',
        'truncated-2byte-c3': b'\xc3',
        'truncated-3byte-e6-95': b'\xe6\x95',
        'truncated-4byte-f0-9f-98': b'\xf0\x9f\x98',
        'overlong-slash-c0-af': b'\xc0\xaf',
        'overlong-c1-81': b'\xc1\x81',
        'overlong-3byte-e0-80-af': b'\xe0\x80\xaf',
        'overlong-4byte-f0-80-80-af': b'\xf0\x80\x80\xaf',
        'overlong-nul-c0-80': b'\xc0\x80',
        'surrogate-ed-a0-80': b'\xed\xa0\x80',
        'surrogate-ed-bf-bf': b'\xed\xbf\xbf',
        'surrogate-pair-cesu': b'\xed\xa0\xbd\xed\xb8\x80',
        'above-10ffff-f4-90': b'\xf4\x90\x80\x80',
        'f5-lead': b'\xf5\x80\x80\x80',
        'latin1-e9': b'\xe9',
        'ok-2byte-c3-a9': b'\xc3\xa9',
        'ok-3byte-ed-9f-bf': b'\xed\x9f\xbf',
        'ok-3byte-ee-80-80': b'\xee\x80\x80',
        'ok-4byte-f4-8f-bf-bf': b'\xf4\x8f\xbf\xbf',
    }
    for k in sorted(bad):
        add('encoding/v3-utf8-%s' % k, fld(bad[k]), version=V3)
    add('encoding/v3-invalid-utf8-in-padding', GOOD.encode() + b' \xff',
        version=V3)
    add('encoding/v3-invalid-utf8-in-comment', GOOD.encode() + b' # \xff',
        version=V3)
    # NUL bytes, all versions
    addv('encoding/nul-in-field-name', hdr("[('a\x00b', '<i4')]"))
    addv('encoding/nul-in-descr-string', hdr("'<f8\x00'"))
    addv('encoding/nul-after-dict', GOOD + '\x00')
    addv('encoding/nul-before-dict', '\x00' + GOOD)
    addv('encoding/nul-between-items', GOOD.replace(", 'shape'",
                                                    ",\x00 'shape'"))
    addv('encoding/nul-in-padding', GOOD.encode() + b'   \x00  ', pad=b'\n')
    addv('encoding/nul-in-comment', GOOD + ' # a\x00b')
    addv('encoding/escaped-nul-in-field-name', hdr("[('a\\x00b', '<i4')]"))
    addv('encoding/ctrl-01-outside-string',
         GOOD.replace(", 'shape'", ",\x01 'shape'"))
    addv('encoding/ctrl-7f-outside-string',
         GOOD.replace(", 'shape'", ",\x7f 'shape'"))
    addv('encoding/ctrl-01-in-field-name', hdr("[('a\x01', '<i4')]"))
    addv('encoding/vertical-tab-outside-string',
         GOOD.replace(", 'shape'", ",\x0b'shape'"))


def cases_literal():
    L = []

    def lit(what, header, **kw):
        L.append((what, header, kw))

    D, F, S = "'descr'", "'fortran_order'", "'shape'"

    def dct(d="'<f8'", f='False', s='(3,)', kd=D, kf=F, ks=S, sep=', ',
            end=', }', start='{'):
        return start + kd + ': ' + d + sep + kf + ': ' + f + sep + ks + \
            ': ' + s + end

    # quotes
    lit('double-quotes', '{"descr": "<f8", "fortran_order": False, '
        '"shape": (3,), }')
    lit('mixed-quotes', dct(d='"<f8"'))
    lit('triple-single-quotes', dct(d="'''<f8'''"))
    lit('triple-double-quotes', dct(d='"""<f8"""'))
    lit('triple-quoted-key', dct(kd="'''descr'''"))
    lit('triple-quoted-multiline-name',
        dct(d="[('''a\nb''', '<i4')]"))
    lit('unterminated-string', dct(d="'<f8"))
    lit('unterminated-triple-string', dct(d="'''<f8'"))
    lit('string-with-newline-inside', dct(d="'<f\n8'"))
    # prefixes
    for p in ('u', 'U', 'r', 'R', 'b', 'B', 'br', 'rb', 'Rb', 'bR', 'BR',
              'rB', 'f', 'F', 'fr', 'rf', 'ur', 'ub', 'bu', 'x'):
        lit('prefix-%s-descr' % p, dct(d=p + "'<f8'"))
    for p in ('u', 'r', 'b', 'f'):
        lit('prefix-%s-key' % p, dct(kd=p + D))
    lit('prefix-b-field-name', dct(d="[(b'a', '<i4')]"))
    lit('prefix-u-field-name', dct(d="[(u'a', '<i4')]"))
    lit('f-string-with-field', dct(d="f'<f{8}'"))
    # escapes
    escapes = {
        'x41-hex': "[('\\x41', '<i4')]",
        'x38-in-typestr': "'<f\\x38'",
        'octal-101': "[('\\101', '<i4')]",
        'octal-070-in-typestr': "'<f\\070'",
        'octal-0': "[('a\\0', '<i4')]",
        'octal-400-overflow': "[('\\400', '<i4')]",
        'u0041': "[('\\u0041', '<i4')]",
        'u0038-in-typestr': "'<f\\u0038'",
        'U00000041': "[('\\U00000041', '<i4')]",
        'U00000038-in-typestr': "'<f\\U00000038'",
        'newline-escape-in-name': "[('a\\nb', '<i4')]",
        'tab-escape-in-name': "[('a\\tb', '<i4')]",
        'newline-escape-in-typestr': "'<f8\\n'",
        'backslash-escape': "[('a\\\\b', '<i4')]",
        'single-quote-escape': "[('a\\'b', '<i4')]",
        'double-quote-escape': "[('a\\\"b', '<i4')]",
        'bell-a-escape': "[('\\a', '<i4')]",
        'escape-b-f-v-r': "[('\\b\\f\\v\\r', '<i4')]",
        'unknown-escape-q': "[('a\\qb', '<i4')]",
        'unknown-escape-in-typestr': "'<f\\8'",
        'N-named': "'<\\N{LATIN SMALL LETTER F}8'",
        'N-named-in-name': "[('\\N{GREEK SMALL LETTER MU}', '<i4')]",
        'N-unknown-name': "'<\\N{NO SUCH CHARACTER NAME}8'",
        'N-unterminated': "'<\\N{LATIN SMALL LETTER F8'",
        'bad-x4': "'<f\\x4'",
        'bad-x-no-digits': "'<f\\x'",
        'bad-u-short': "'<f\\u003'",
        'bad-U00110000': "[('\\U00110000', '<i4')]",
        'U0010FFFF': "[('\\U0010FFFF', '<i4')]",
        'u-surrogate-d800': "[('\\ud800', '<i4')]",
        'line-continuation-in-string': "'<f\\\n8'",
        'raw-x38-in-typestr': "r'<f\\x38'",
        'bytes-u-escape-field': "[(b'\\u0041', '<i4')]",
    }
    for k in sorted(escapes):
        lit('escape-' + k, dct(d=escapes[k]))
    # implicit concatenation
    lit('concat-str-str', dct(d="'<' 'f8'"))
    lit('concat-str-str-nospace', dct(d="'<''f8'"))
    lit('concat-str-dq', dct(d="'<' \"f8\""))
    lit('concat-three', dct(d="'<' 'f' '8'"))
    lit('concat-str-bytes', dct(d="'<' b'f8'"))
    lit('concat-bytes-bytes', dct(d="b'<' b'f8'"))
    lit('concat-u-r', dct(d="u'<' r'f8'"))
    lit('concat-key', dct(kd="'des' 'cr'"))
    lit('concat-across-lines', dct(d="('<'\n 'f8')"))
    lit('concat-str-fstring', dct(d="'<' f'f8'"))
    # parentheses
    lit('paren-descr', dct(d="('<f8')"))
    lit('paren-descr-triple', dct(d="((('<f8')))"))
    lit('paren-fortran', dct(f='(False)'))
    lit('paren-shape', dct(s='((3,))'))
    lit('paren-shape-element', dct(s='((3),)'))
    lit('paren-key', dct(kd="('descr')"))
    lit('paren-whole-dict', '(' + dct() + ')')
    lit('paren-whole-dict-twice', '((' + dct() + '))')
    lit('paren-empty-shape-element', dct(s='((),)'))
    # comments
    lit('comment-after-dict', dct() + ' # comment')
    lit('comment-after-dict-no-space', dct() + '#x')
    lit('comment-line-before-dict', '# comment\n' + dct())
    lit('comment-inside-dict', dct(sep=', # c\n'))
    lit('comment-with-brace', dct() + " # }'\"{")
    lit('comment-only', '# just a comment')
    lit('comment-hides-close-brace', dct(end=', # }'))
    # continuation lines
    lit('backslash-inside-braces', dct(sep=', \\\n'))
    lit('backslash-after-colon', dct(d="\\\n'<f8'"))
    lit('backslash-before-dict', '\\\n' + dct())
    lit('backslash-after-dict-then-pad', dct() + ' \\\n', pad='npy')
    lit('backslash-at-end-no-newline', dct() + ' \\', pad='none')
    lit('backslash-then-blank-line', dct() + ' \\\n\n')
    lit('backslash-space-newline', dct(sep=', \\ \n'))
    lit('backslash-crlf-inside', dct(sep=', \\\r\n'))
    # whitespace and newlines
    lit('blank-lines-inside', dct(sep=',\n\n\n'))
    lit('blank-lines-after', dct() + '\n\n\n')
    lit('newlines-inside', dct(sep=',\n'))
    lit('newline-after-brace', dct(start='{\n'))
    lit('pprint-style', "{'descr': '<f8',\n 'fortran_order': False,\n "
        "'shape': (3,)}")
    lit('formfeed-before-dict', '\x0c' + dct())
    lit('formfeed-inside', dct(sep=',\x0c'))
    lit('formfeed-line-start', dct(sep=',\n\x0c'))
    lit('formfeed-after-dict', dct() + '\x0c')
    lit('tabs-between-tokens', dct(sep=',\t').replace(': ', ':\t'))
    lit('cr-newlines', dct(sep=',\r'), pad=b'  \r')
    lit('cr-newlines-npy-pad', dct(sep=',\r'))
    lit('crlf-newlines', dct(sep=',\r\n'), pad=b'  \r\n')
    lit('lone-cr-after-dict', dct() + '\r', pad='none')
    lit('leading-newline', '\n' + dct())
    lit('leading-crlf', '\r\n' + dct())
    lit('leading-spaces', '   ' + dct())
    lit('leading-tab', '\t' + dct())
    lit('leading-space-tab-mix', ' \t ' + dct())
    lit('leading-formfeed-space', '\x0c ' + dct())
    lit('leading-newline-then-spaces', '\n   ' + dct())
    lit('leading-newline-then-tab', '\n\t' + dct())
    lit('indented-line-inside-braces', dct(sep=',\n').replace(
        ",\n'shape'", ",\n  'shape'"))
    lit('indented-second-line-after-comment', '# c\n  ' + dct())
    lit('indented-second-line-after-blank', ' \n  ' + dct())
    lit('indented-second-line-after-continuation', '\\\n  ' + dct())
    lit('indented-line-after-dict', dct() + '\n  # c')
    lit('no-space-anywhere', dct(sep=',', end='}').replace(': ', ':'))
    lit('lots-of-spaces', dct(sep='  ,  ', end='  ,  }').replace(
        ': ', '  :  '))
    # commas
    lit('no-trailing-comma', dct(end='}'))
    lit('trailing-comma', dct())
    lit('double-trailing-comma', dct(end=',, }'))
    lit('double-comma-between', dct(sep=',, '))
    lit('leading-comma', dct(start='{, '))
    lit('missing-comma-between', dct(sep=' '))
    lit('missing-colon', dct().replace("'descr': ", "'descr' "))
    lit('double-colon', dct().replace("'descr': ", "'descr':: "))
    lit('empty-dict', '{}')
    lit('empty-dict-comma', '{,}')
    lit('shape-no-comma-int', dct(s='(3)'))
    lit('shape-double-comma', dct(s='(3,,)'))
    lit('shape-leading-comma', dct(s='(,3)'))
    lit('shape-space-comma', dct(s='(3 ,)'))
    lit('shape-two-trailing', dct(s='(3, 1, )'))
    lit('unclosed-brace', dct(end=', '))
    lit('unclosed-paren', dct(s='(3,'))
    lit('extra-close-brace', dct() + '}')
    lit('extra-close-paren', dct(s='(3,))'))
    lit('mismatched-bracket', dct(s='(3,]'))
    lit('brace-as-set-close', dct(end=', )'))
    # nesting depth (dict + tuple + k levels)
    for k in (1, 50, 100, 150, 190, 196, 197, 198, 199, 200, 201, 250):
        lit('nest-parens-in-shape-%d' % k,
            dct(s='(' + '(' * k + '3' + ')' * k + ',)'))
    for k in (1, 50, 190, 197, 198, 199, 200, 201):
        lit('nest-tuples-in-shape-%d' % k,
            dct(s='(' * k + '3,' + ')' * k))
    for k in (197, 198, 199, 200, 201):
        lit('nest-parens-in-descr-%d' % k,
            dct(d='(' * k + "'<f8'" + ')' * k))
    for k in (98, 99, 100):
        lit('nest-list-tuple-in-descr-%d' % k,
            dct(d='[(' * k + "'<f8'" + ')]' * k))
    # integer forms (shape (3,) unless stated)
    ints = {
        'hex': '0x3', 'hex-upper-X': '0X3', 'hex-upper-digits': '0xA',
        'octal': '0o3', 'octal-upper-O': '0O3', 'binary': '0b11',
        'binary-upper-B': '0B11', 'underscore': '1_0', 'underscore-hex': '0x_3',
        'underscore-double': '1__0', 'underscore-trailing': '10_',
        'underscore-leading': '_10', 'underscore-after-0x-end': '0x3_',
        'underscore-zero': '0_0', 'underscore-leading-zeros': '00_0',
        'zero-zero': '00', 'zero-one': '01', 'zero-zero-three': '003',
        'octal-c-style': '03', 'plus': '+3', 'plus-space': '+ 3',
        'minus-zero': '-0', 'double-minus': '--3', 'plus-minus': '+-3',
        'minus-plus': '-+3', 'double-plus': '++3', 'hex-no-digits': '0x',
        'binary-bad-digit': '0b2', 'octal-bad-digit': '0o8',
        'hex-bad-digit': '0xg', 'long-suffix-j': '3j', 'float': '3.0',
        'float-exp': '3e0', 'float-dot': '3.', 'complex-sum': '1+2j',
        'int-sum': '1+2', 'int-product': '1*3', 'int-diff': '4-1',
        'int-power': '3**1', 'int-floordiv': '6//2', 'int-shift': '3<<0',
        'int-bitor': '3|0', 'int-invert': '~-4', 'int-not': 'not 0',
        'true': 'True', 'name': 'x', 'call': 'int(3)', 'ellipsis': '...',
        'none': 'None', 'str': "'3'", 'bytes': "b'3'",
        'int-64bit-max': '9223372036854775807',
    }
    for k in sorted(ints):
        lit('int-' + k, dct(s='(%s,)' % ints[k]))
    lit('int-minus-space', dct(s='(- 3,)'), payload_len=24)
    lit('int-minus', dct(s='(-3,)'), payload_len=24)
    big = {
        '2pow64': str(2**64), '10pow30': str(10**30),
        '4300-digits': '1' + '0' * 4299, '4301-digits': '1' + '0' * 4300,
        '4300-digits-zeros': '0' * 4300, '4301-digits-zeros': '0' * 4301,
        'hex-2pow64': hex(2**64), 'hex-5000-digits': '0x' + '1' * 5000,
        'underscored-4301-digits': '1' + '_0' * 4300,
    }
    for k in sorted(big):
        lit('int-big-' + k, dct(s='(%s,)' % big[k]))
    # other expression types in the header
    lit('value-set', dct(s='{3}'))
    lit('value-list', dct(s='[3]'))
    lit('value-dict', dct(s='{3: 3}'))
    lit('value-call-tuple', dct(s='tuple([3])'))
    lit('value-call-dtype', dct(d="dtype('<f8')"))
    lit('value-name', dct(d='float64'))
    lit('value-attribute', dct(d='np.float64'))
    lit('value-subscript', dct(s='((3,),)[0]'))
    lit('value-lambda', dct(s='lambda: (3,)'))
    lit('value-walrus', dct(s='(x := (3,))'))
    lit('value-starred', dct(s='(*(3,),)'))
    lit('value-dict-unpack', "{**{'descr': '<f8'}, 'fortran_order': "
        "False, 'shape': (3,)}")
    lit('value-dict-comprehension', "{k: v for k, v in []}")
    lit('value-not-false', dct(f='not True'))
    lit('value-conditional', dct(f='False if True else True'))
    lit('value-comparison', dct(f='1 == 2'))
    lit('value-and', dct(f='False and True'))
    lit('value-string-times', dct(d="'<f8' * 1"))
    lit('value-string-plus', dct(d="'<' + 'f8'"))
    lit('value-ellipsis-shape', dct(s='...'))
    lit('value-Ellipsis-name', dct(s='Ellipsis'))
    lit('value-generator', dct(s='(i for i in (3,))'))
    lit('value-await', dct(s='await x'))
    lit('value-yield', dct(s='(yield)'))
    lit('value-bytes-key', dct(kd="b'descr'"))
    lit('value-complex-fortran', dct(f='0j'))
    # trailing statements
    lit('semicolon-after-dict', dct() + ';')
    lit('semicolon-then-expr', dct() + '; 1')
    lit('second-expression-newline', dct() + '\n1')
    lit('second-expression-name', dct() + '\nxyz')
    lit('second-dict-newline', dct() + '\n' + dct())
    lit('comma-after-dict', dct() + ',')
    lit('assignment', 'h = ' + dct())
    lit('statement-pass', 'pass')
    lit('keyword-import', 'import os')
    lit('expression-after-dict-same-line', dct() + ' 1')
    # v1 and v2 share the parse path (_filter_header + literal_eval) and
    # differ only in the length field, so v2 gets a sample; v3 skips the
    # tokenize filter and gets everything.
    v2_sample = {'double-quotes', 'comment-after-dict', 'backslash-inside-braces',
                 'backslash-before-dict', 'leading-spaces', 'leading-newline',
                 'cr-newlines', 'unclosed-brace', 'empty-dict', 'int-hex',
                 'int-underscore', 'int-big-4301-digits',
                 'nest-parens-in-shape-198', 'nest-parens-in-shape-199',
                 'prefix-f-descr', 'semicolon-after-dict', 'escape-N-named',
                 'concat-str-bytes', 'no-trailing-comma', 'pprint-style'}
    assert v2_sample <= {w for w, _, _ in L}, v2_sample - {w for w, _, _ in L}
    for what, header, kw in L:
        vs = ALLV if what in v2_sample else (V1, V3)
        addv('literal/' + what, header, versions=vs, **kw)
    # bytes that are not valid in any literal (raw, so latin1 vs utf8 differ)
    addv('literal/escape-bytes-non-ascii-raw',
         b"{'descr': [(b'\xe9', '<i4')], 'fortran_order': False, "
         b"'shape': (3,), }")


def cases_pylong():
    P = {
        'single': "(2L,)", 'space-before-L': "(2 L,)", 'two': "(1L, 2L)",
        'hex': "(0x2L,)", 'octal': "(0o2L,)", 'float': "(2.0L,)",
        'lowercase-l': "(2l,)", 'double-L': "(2LL,)", 'L-space-L': "(2L L,)",
        'after-comment': "(2 # c\nL,)", 'after-newline': "(2\nL,)",
        'after-continuation': "(2\\\nL,)", 'bare-L': "(L,)",
        'negative': "(-2L,)", 'no-comma': "(2L)", 'big': "(2L, 0L)",
        'tab-before-L': "(2\tL,)", 'exponent': "(2e0L,)", 'imag': "(2jL,)",
        'underscore': "(1_0L,)",
    }
    for k in sorted(P):
        addv('pylong/shape-' + k, hdr(shape=P[k]))
    addv('pylong/descr-subarray-shape', hdr("[('a', '<f8', (2L,))]"))
    addv('pylong/descr-subarray-int', hdr("[('a', '<f8', 2L)]"))
    addv('pylong/descr-tuple-size', hdr("('|S0', 5L)"))
    addv('pylong/fortran-0L', hdr(fortran='0L'))
    addv('pylong/fortran-FalseL', hdr(fortran='False L'))
    addv('pylong/L-in-string-untouched', hdr("'<f8L'"))
    addv('pylong/L-in-field-name', hdr("[('2L', '<f8')]"))
    addv('pylong/L-after-string', hdr("'<f8' L"))
    addv('pylong/win64python2-header',
         "{'descr': '<i8', 'fortran_order': False, 'shape': (1L, 2L), } ")


def cases_dict():
    addv('dict/list', "[('descr', '<f8'), ('fortran_order', False), "
         "('shape', (3,))]")
    addv('dict/tuple', "('<f8', False, (3,))")
    addv('dict/set', "{'descr', 'fortran_order', 'shape'}")
    addv('dict/str', "'descr'")
    addv('dict/int', "3")
    addv('dict/none', "None")
    addv('dict/bytes', "b'{}'")
    addv('dict/empty-header-text', "   ")
    add('dict/nested-in-dict', "{'h': " + GOOD + "}")
    add('dict/empty', "{}")


def cases_keys():
    for v in ALLV:
        t = v[0]
        add('keys/missing-descr@v%d' % t,
            "{'fortran_order': False, 'shape': (3,), }", version=v)
        add('keys/missing-fortran@v%d' % t,
            "{'descr': '<f8', 'shape': (3,), }", version=v)
        add('keys/missing-shape@v%d' % t,
            "{'descr': '<f8', 'fortran_order': False, }", version=v)
        add('keys/extra-key@v%d' % t,
            "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), "
            "'extra': 1, }", version=v)
    add('keys/only-extra', "{'extra': 1}")
    add('keys/only-descr', "{'descr': '<f8'}")
    add('keys/bytes-key-descr',
        "{b'descr': '<f8', 'fortran_order': False, 'shape': (3,), }")
    add('keys/all-bytes-keys',
        "{b'descr': '<f8', b'fortran_order': False, b'shape': (3,), }")
    add('keys/bytes-key-plus-str',
        "{b'descr': '<f8', 'descr': '<f8', 'fortran_order': False, "
        "'shape': (3,), }")
    add('keys/uppercase', "{'Descr': '<f8', 'fortran_order': False, "
        "'shape': (3,), }")
    add('keys/trailing-space', "{'descr ': '<f8', 'fortran_order': False, "
        "'shape': (3,), }")
    add('keys/fortran-order-dash', "{'descr': '<f8', 'fortran-order': False, "
        "'shape': (3,), }")
    add('keys/escaped-key', "{'\\x64escr': '<f8', 'fortran_order': False, "
        "'shape': (3,), }")
    # duplicates
    add('keys/dup-descr-invalid-then-valid',
        "{'descr': 'xx', 'descr': '<f8', 'fortran_order': False, "
        "'shape': (3,), }")
    add('keys/dup-descr-valid-then-invalid',
        "{'descr': '<f8', 'descr': 'xx', 'fortran_order': False, "
        "'shape': (3,), }")
    add('keys/dup-shape-invalid-then-valid',
        "{'descr': '<f8', 'fortran_order': False, 'shape': 'x', "
        "'shape': (3,), }")
    add('keys/dup-shape-valid-then-invalid',
        "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), "
        "'shape': [3], }")
    add('keys/dup-fortran-invalid-then-valid',
        "{'descr': '<f8', 'fortran_order': 0, 'fortran_order': False, "
        "'shape': (3,), }")
    add('keys/dup-fortran-valid-then-invalid',
        "{'descr': '<f8', 'fortran_order': False, 'fortran_order': 0, "
        "'shape': (3,), }")
    add('keys/dup-shape-both-valid-different',
        "{'descr': '<f8', 'fortran_order': False, 'shape': (5,), "
        "'shape': (3,), }")
    add('keys/dup-descr-unhashable-first',
        "{'descr': [('a', '<i4')], 'descr': '<f8', 'fortran_order': False, "
        "'shape': (3,), }")
    add('keys/dup-key-three-times',
        "{'shape': (1,), 'shape': (2,), 'descr': '<f8', "
        "'fortran_order': False, 'shape': (3,), }")
    add('keys/dup-via-escape',
        "{'descr': 'xx', '\\x64escr': '<f8', 'fortran_order': False, "
        "'shape': (3,), }")
    add('keys/dup-via-concat',
        "{'descr': 'xx', 'des' 'cr': '<f8', 'fortran_order': False, "
        "'shape': (3,), }")
    # order
    items = {'d': "'descr': '<f8'", 'f': "'fortran_order': False",
             's': "'shape': (3,)"}
    for perm in ('dfs', 'dsf', 'fds', 'fsd', 'sdf', 'sfd'):
        addv('keys/order-' + perm,
             '{' + ', '.join(items[c] for c in perm) + '}',
             versions=ALLV if perm == 'sfd' else (V1,))
    # mixed / unhashable / odd keys
    add('keys/mixed-int-key', "{1: 2, 'descr': '<f8', 'fortran_order': "
        "False, 'shape': (3,), }")
    add('keys/mixed-none-key', "{None: 2, 'descr': '<f8', 'fortran_order': "
        "False, 'shape': (3,), }")
    add('keys/mixed-tuple-key', "{(1,): 2, 'descr': '<f8', 'fortran_order': "
        "False, 'shape': (3,), }")
    add('keys/mixed-true-key', "{True: 2, 'descr': '<f8', "
        "'fortran_order': False, 'shape': (3,), }")
    add('keys/unhashable-list-key', "{[1]: 2, 'descr': '<f8', "
        "'fortran_order': False, 'shape': (3,), }")
    add('keys/unhashable-dict-key', "{{}: 2}")
    add('keys/unhashable-set-key', "{{1}: 2, 'descr': '<f8'}")
    add('keys/all-int-keys', "{1: 1, 2: 2, 3: 3}")


def cases_shape():
    S = {
        'empty': ('()', {}),
        'zero': ('(0,)', {}),
        'zero-five': ('(0, 5)', {}),
        'five-zero': ('(5, 0)', {}),
        'zero-five-zero': ('(0, 5, 0)', {}),
        'one': ('(1,)', {}),
        'two-three': ('(2, 3)', {}),
        'ones-32': ('(' + '1, ' * 32 + ')', {}),
        'ones-33': ('(' + '1, ' * 33 + ')', {}),
        'ones-64': ('(' + '1, ' * 64 + ')', {}),
        'ones-65': ('(' + '1, ' * 65 + ')', {}),
        'zeros-33': ('(' + '0, ' * 33 + ')', {}),
        'neg1-with-data': ('(-1,)', {'payload_len': 24}),
        'neg2-with-data': ('(-2,)', {'payload_len': 24}),
        'neg1-no-data': ('(-1,)', {'payload_len': 0}),
        'neg1-partial-item': ('(-1,)', {'payload_len': 20}),
        'neg1-2-even': ('(-1, 2)', {'payload_len': 48}),
        'neg1-2-uneven': ('(-1, 2)', {'payload_len': 40}),
        'two-neg1-2-neg1': ('(2, -1)', {'payload_len': 48}),
        'neg-big': ('(-9223372036854775808,)', {'payload_len': 24}),
        'neg-2pow63-minus-1': ('(-9223372036854775807,)',
                               {'payload_len': 24}),
        'two-negatives': ('(-1, -1)', {'payload_len': 24}),
        'two-negatives-neg1-neg2': ('(-1, -2)', {'payload_len': 24}),
        'zero-and-negative': ('(0, -1)', {'payload_len': 24}),
        'bool-true': ('(True,)', {}),
        'bool-true-2': ('(True, 2)', {}),
        'bool-2-true': ('(2, True)', {}),
        'bool-false': ('(False,)', {}),
        'bool-false-empty-data': ('(False,)', {'payload_len': 0}),
        'float': ('(3.0,)', {}),
        'float-in-second': ('(1, 3.0)', {}),
        'none': ('None', {}),
        'none-element': ('(None,)', {}),
        'list': ('[3]', {}),
        'list-empty': ('[]', {}),
        'nested-tuple': ('((3,),)', {}),
        'nested-empty-tuple': ('((),)', {}),
        'bare-int': ('3', {}),
        'bare-zero': ('0', {}),
        'str': ("'3'", {}),
        'str-element': ("('3',)", {}),
        'ellipsis': ('...', {}),
        'dict': ('{}', {}),
        'int64-max': ('(9223372036854775807,)', {}),
        '2pow63': ('(9223372036854775808,)', {}),
        '2pow64-minus-1': ('(18446744073709551615,)', {}),
        '2pow64': ('(18446744073709551616,)', {}),
        '2pow40-f8': ('(1099511627776,)', {}),
        '2pow32-2pow32': ('(4294967296, 4294967296)', {}),
        '2pow62-2': ('(4611686018427387904, 2)', {}),
        '2pow62-4': ('(4611686018427387904, 4)', {}),
        '2pow31-2pow31': ('(2147483648, 2147483648)', {}),
        '0-2pow62-4': ('(0, 4611686018427387904, 4)', {}),
        '0-int64-max': ('(0, 9223372036854775807)', {}),
        '0-2pow63': ('(0, 9223372036854775808)', {}),
        '0-2pow64': ('(0, 18446744073709551616)', {}),
        '2pow32-2pow32-0': ('(4294967296, 4294967296, 0)', {}),
        '0-2pow40': ('(0, 1099511627776)', {}),
        '2pow40-0': ('(1099511627776, 0)', {}),
        '3-3-3-overflow-mix': ('(3037000500, 3037000500)', {}),
    }
    for k in sorted(S):
        s, kw = S[k]
        add('shape/' + k, hdr(shape=s), **kw)
    for v in (V2, V3):
        add('shape/neg1-with-data@v%d' % v[0], hdr(shape='(-1,)'),
            version=v, payload_len=24)
        add('shape/ones-33@v%d' % v[0], hdr(shape='(' + '1, ' * 33 + ')'),
            version=v)
    # zero itemsize with huge shapes
    add('shape/S0-1e18', hdr("'|S0'", shape='(1000000000000000000,)'))
    add('shape/S0-int64-max', hdr("'|S0'", shape='(9223372036854775807,)'))
    add('shape/S0-2pow32-2pow32', hdr("'|S0'",
                                      shape='(4294967296, 4294967296)'))
    add('shape/S0-neg1', hdr("'|S0'", shape='(-1,)'))
    add('shape/u1-2pow40', hdr("'|u1'", shape='(1099511627776,)'))
    add('shape/u1-2pow31', hdr("'|u1'", shape='(2147483648,)'))
    add('shape/scalar-S0', hdr("'|S0'", shape='()'))
    add('shape/fortran-2-3', hdr(fortran='True', shape='(2, 3)'))
    add('shape/fortran-neg1', hdr(fortran='True', shape='(-1,)'),
        payload_len=24)
    add('shape/fortran-neg1-2', hdr(fortran='True', shape='(-1, 2)'),
        payload_len=48)


def cases_fortran():
    F = {
        'True': 'True', 'False': 'False', 'zero': '0', 'one': '1',
        'str-False': "'False'", 'str-True': "'True'", 'None': 'None',
        'zero-float': '0.0', 'paren-False': '(False)',
        'tuple-True': '(True,)', 'list-True': '[True]', 'not-False':
        'not False', 'lowercase-true': 'true', 'bytes-False': "b'False'",
        'empty-tuple': '()', 'minus-True': '-True', 'complex': '0j',
        'int-1-paren': '(1)',
    }
    for k in sorted(F):
        add('fortran/' + k + '-shape-2-3', hdr(fortran=F[k], shape='(2, 3)'))
    for v in (V2, V3):
        add('fortran/True-shape-2-3@v%d' % v[0],
            hdr(fortran='True', shape='(2, 3)'), version=v)
    add('fortran/True-scalar', hdr(fortran='True', shape='()'))
    add('fortran/True-zero-size', hdr(fortran='True', shape='(0, 3)'))
    add('fortran/True-1d', hdr(fortran='True', shape='(3,)'))
    add('fortran/True-3d', hdr(fortran='True', shape='(2, 3, 4)'))
    add('fortran/True-struct', hdr("[('a', '<i4'), ('b', '<f8')]",
                                   fortran='True', shape='(2, 2)'))
    add('fortran/True-truncated', hdr(fortran='True', shape='(2, 3)'),
        delta=-8)
    addv('fortran/0L', hdr(fortran='0L', shape='(2, 3)'))
    addv('fortran/TrueL', hdr(fortran='True L', shape='(2, 3)'))


def cases_typestr():
    kinds = ['b', 'i', 'u', 'f', 'c', 'S', 'U', 'V', 'M', 'm', 'O', 'a',
             'x', 'y', 'T']
    sizes_full = ['', '0', '1', '2', '3', '4', '8', '10', '12', '16', '32',
                  '-1']
    sizes_small = ['', '1', '8', '16']
    orders = {'lt': '<', 'gt': '>', 'pipe': '|', 'eq': '=', 'bang': '!',
              'none': ''}
    for oname in sorted(orders):
        o = orders[oname]
        if o == '<':
            sizes = sizes_full
        elif o == '!':
            sizes = ['8']
        else:
            sizes = sizes_small
        for k in kinds:
            for s in sizes:
                ts = o + k + s
                add('descr-typestr/%s-%s%s' % (oname, k, s or '(nosize)'),
                    hdr(q(ts), shape='(2,)'))
    # extreme sizes for flexible types; shape (0,) and (1,)
    for ts in ('|S2147483647', '|S2147483648', '|S4294967296',
               '|S99999999999', '|S-5', '|S-1', '<U536870911', '<U536870912',
               '<U1073741824', '<U1073741825', '<U2147483647',
               '<U2147483648', '<U4294967296', '<U-1',
               '|V2147483647', '|V2147483648', '|V-1', '|V-8'):
        for s in ('(0,)', '(1,)'):
            add('descr-typestr/size-%s-shape%s' % (ts, s.strip('(,)')),
                hdr(q(ts), shape=s))
    # whitespace, signs, zeros in the size
    W = {
        'space-in-size': '<f 8', 'plus-in-size': '<f+8',
        'leading-zero-size': '<f08', 'many-zeros-size': '<f0000008',
        'space-after-order': '< f8', 'trailing-space': '<f8 ',
        'leading-space': ' <f8', 'tab-in-size': '<f\t8', 'newline-in-size':
        '<f\n8', 'minus-zero-size': '<f-0', 'hex-size': '<f0x8',
        'space-plus': '<f +8', 'two-spaces': '<f  8', 'S-space-5': '|S 5',
        'S-plus-5': '|S+5', 'S-05': '|S05', 'S-space-plus-5': '|S +5',
        'U-space-2': '<U 2', 'i-space-4': '<i 4', 'double-order': '<<f8',
        'order-after': 'f8<', 'order-pipe-lt': '|<f8', 'trailing-junk':
        '<f8x', 'trailing-comma': '<f8,', 'size-8-0': '<f8 0',
        'underscore-size': '<f_8', 'float-size': '<f8.0',
        'fullwidth-digit': '<f\uff18', 'empty': '', 'lt-alone': '<',
        'gt-alone': '>', 'pipe-alone': '|', 'eq-alone': '=', 'space': ' ',
        'size-only': '8', 'S-trailing-space': '|S5 ',
        'M8-space-bracket': '<M8 [s]',
    }
    for k in sorted(W):
        h = hdr(q(W[k]) if '\n' not in W[k] and '\t' not in W[k]
                else repr(W[k]), shape='(2,)')
        if k == 'fullwidth-digit':
            add('descr-typestr/' + k + '@v3', h, version=V3)
            add('descr-typestr/' + k + '-escaped', hdr("'<f\\uff18'",
                                                       shape='(2,)'))
        else:
            add('descr-typestr/' + k, h)
    # names
    names = ['float64', 'float32', 'float16', 'float128', 'float96', 'int',
             'float', 'bool', 'bool_', 'int8', 'int16', 'int32', 'int64',
             'int128', 'uint8', 'uint16', 'uint32', 'uint64', 'uint', 'long',
             'ulong', 'longlong', 'ulonglong', 'complex', 'complex64',
             'complex128', 'complex256', 'complex192', 'str', 'str_',
             'unicode', 'unicode_', 'bytes', 'bytes_', 'string_', 'void',
             'object', 'object_', 'longdouble', 'longfloat', 'double',
             'single', 'half', 'short', 'ushort', 'byte', 'ubyte', 'intc',
             'uintc', 'intp', 'uintp', 'cfloat', 'cdouble', 'clongdouble',
             'csingle', 'int0', 'uint0', 'void0', 'object0', 'str0',
             'bytes0', 'bool8', 'Bytes0', 'Int8', 'Float64', 'Complex32',
             'UInt8', 'Bool', 'Void', 'Str', '<float64', '>float64',
             '|float64', '=float64', 'float64 ', ' float64', 'float_',
             'datetime64', 'timedelta64', 'datetime64[s]', '<datetime64[s]',
             'timedelta64[ms]', 'a', 'a5', '|a5', '<a5', 'S', 'U', 'V', 'O',
             'c8', 'c16', 'c32', 'f16', 'u16', 'i16', 'b1', 'b2', 'f2', 'e8',
             'str5', 'float64x', 'numpy.float64', 'np.float64']
    for n in names:
        add('descr-typestr/name-' + n.replace(' ', '_'),
            hdr(q(n), shape='(2,)'))
    for c in 'dfeglqpPbBhHiIFDG?cLQnNzSUVOMmatkKrwv':
        add('descr-typestr/char-%s' % c, hdr(q(c), shape='(2,)'))
    for c in 'dlgpPc?':
        for o, on in (('<', 'lt'), ('>', 'gt'), ('|', 'pipe')):
            add('descr-typestr/char-%s-%s' % (on, c), hdr(q(o + c),
                                                          shape='(2,)'))
    # comma strings
    C = {
        'i4,f8': 'i4,f8', 'lt-i4,lt-f8': '<i4,<f8', 'i4,space-f8': 'i4, f8',
        'i4,': 'i4,', ',i4': ',i4', 'i4,,f8': 'i4,,f8',
        'sub-2-i4,f8': '(2,)i4,f8', 'three': 'i1,i2,i4',
        'S3,U2': 'S3,U2', 'M8[s],m8[ms]': 'M8[s],m8[ms]', 'bad-member':
        'i4,x9', 'space-only': 'i4, ', 'O,i4': 'O,i4',
    }
    for k in sorted(C):
        add('descr-typestr/comma-' + k, hdr(q(C[k]), shape='(2,)'))
    # subarray strings
    SA = {
        'paren-2-lt-i4': ('(2,)<i4', '(1,)'), 'paren-1-lt-i4':
        ('(1,)<i4', '(2,)'), 'paren-0-i4-shape0': ('(0,)i4', '(0,)'),
        'paren-0-i4-shape2': ('(0,)i4', '(2,)'),
        '2i4': ('2i4', '(1,)'), '1i4': ('1i4', '(2,)'), '1-lt-i4':
        ('1<i4', '(2,)'), 'paren-2-3-f8': ('(2,3)f8', '(1,)'),
        'paren-2-lt-i4-scalar': ('(2,)<i4', '()'),
        'paren-1-1-f8': ('(1,1)f8', '(3,)'),
        'paren-space': ('(2, )i4', '(1,)'), 'neg': ('(-1,)i4', '(1,)'),
        '0i4': ('0i4', '(2,)'),
    }
    for k in sorted(SA):
        add('descr-typestr/subarray-' + k, hdr(q(SA[k][0]), shape=SA[k][1]))
    # byte order on one-byte and flexible types
    for ts in ('>u1', '<i1', '>S5', '<S5', '>V4', '<b1', '>b1', '=S5',
               '>O', '<?', '>U2', '|U2', '|f8', '=f8', '>f8', '<c16', '>c8'):
        add('descr-typestr/order-' + ts, hdr(q(ts), shape='(2,)'))
    # descr given as a non-str, non-list
    for k, d in (('int', '8'), ('none', 'None'), ('true', 'True'),
                 ('float', '8.0'), ('bytes', "b'<f8'"), ('empty-bytes', "b''"),
                 ('complex', '1j')):
        add('descr-typestr/descr-is-' + k, hdr(d, shape='(2,)'))


def cases_datetime():
    units = ['Y', 'M', 'W', 'D', 'h', 'm', 's', 'ms', 'us', 'ns', 'ps', 'fs',
             'as', 'generic']
    for k in ('M8', 'm8'):
        for u in units:
            add('descr-datetime/lt-%s-%s' % (k, u), hdr(q('<%s[%s]' % (k, u)),
                                                        shape='(2,)'))
        for u in ('s', 'ns', 'D'):
            add('descr-datetime/gt-%s-%s' % (k, u),
                hdr(q('>%s[%s]' % (k, u)), shape='(2,)'))
    X = {
        'mult-10ms': '<M8[10ms]', 'mult-0s': '<M8[0s]', 'mult-neg1s':
        '<M8[-1s]', 'mult-int-max': '<M8[2147483647s]', 'mult-2pow31':
        '<M8[2147483648s]', 'mult-huge': '<M8[99999999999999999999s]',
        'mult-plus': '<M8[+5s]', 'mult-leading-zero': '<M8[05s]',
        'div-s-10': '<M8[s/10]', 'div-D-24': '<m8[D/24]', 'div-s-0':
        '<M8[s/0]', 'div-m8-D-0': '<m8[D/0]', 'div-10s-0': '<M8[10s/0]', 'div-s-7': '<M8[s/7]', 'div-10s-10': '<M8[10s/10]',
        'div-Y-12': '<M8[Y/12]', 'div-as-10': '<M8[as/10]',
        'space-leading': '<M8[ 5s]', 'space-between': '<M8[5 s]',
        'space-trailing': '<M8[5s ]', 'space-unit-trailing': '<M8[s ]',
        'space-unit-leading': '<M8[ s]', 'empty-brackets': '<M8[]',
        'bad-unit-B': '<M8[B]', 'bad-unit-x': '<M8[x]', 'bad-unit-S':
        '<M8[S]', 'bad-unit-MS': '<M8[MS]', 'bad-unit-sec': '<M8[sec]',
        'bad-unit-y': '<M8[y]', 'bad-unit-d': '<M8[d]',
        'M4': '<M4', 'M4-s': '<M4[s]', 'M16': '<M16', 'm4': '<m4',
        'M8-generic-nobracket': '<M8', 'm8-generic-nobracket': '<m8',
        'M-nosize': '<M', 'M-nosize-s': '<M[s]', 'trailing-junk': '<M8[s]x',
        'double-close': '<M8[s]]', 'missing-close': '<M8[s',
        'missing-open': '<M8s]', 'nested-brackets': '<M8[[s]]',
        'two-brackets': '<M8[s][s]', 'no-order-M8-us': 'M8[us]',
        'pipe-M8-s': '|M8[s]', 'eq-M8-s': '=M8[s]', 'bang-M8-s': '!M8[s]',
        'name-datetime64-ns': 'datetime64[ns]', 'name-timedelta64':
        'timedelta64', 'name-lt-datetime64-D': '<datetime64[D]',
        'name-datetime64-bad': 'datetime64[x]', 'M-alone': 'M',
        'm-alone': 'm', 'uppercase-GENERIC': '<M8[GENERIC]',
        'mult-generic': '<M8[2generic]', 'mult-10us': '<m8[10us]',
        'week-mult': '<M8[3W]', 'div-no-number': '<M8[s/]',
        'div-negative': '<M8[s/-10]', 'div-leading-space': '<M8[s/ 10]',
        'minus-zero': '<M8[-0s]', 'mult-then-space': '<M8[10 ]',
    }
    for k in sorted(X):
        add('descr-datetime/' + k, hdr(q(X[k]), shape='(2,)'))
    mu = '<M8[\u03bcs]'
    add('descr-datetime/mu-s@v3', hdr(q(mu), shape='(2,)'), version=V3)
    add('descr-datetime/mu-s-utf8-bytes@v1',
        hdr(q(mu).encode('utf-8').decode('latin1'), shape='(2,)'),
        version=V1)
    add('descr-datetime/mu-s-escaped@v1', hdr("'<M8[\\u03bcs]'",
                                              shape='(2,)'), version=V1)
    add('descr-datetime/mu-s-latin1-micro@v1', hdr("'<M8[\xb5s]'",
                                                   shape='(2,)'), version=V1)
    add('descr-datetime/micro-sign-s@v3', hdr("'<M8[\xb5s]'", shape='(2,)'),
        version=V3)
    add('descr-datetime/mu-s-m8@v3', hdr(q('<m8[10\u03bcs]'), shape='(2,)'),
        version=V3)
    add('descr-datetime/in-field', hdr("[('t', '<M8[ms]'), ('d', '<m8[s]')]",
                                       shape='(2,)'))
    add('descr-datetime/in-field-div-0', hdr("[('t', '<M8[s/0]')]",
                                             shape='(2,)'))
    add('descr-datetime/in-field-bad-unit', hdr("[('t', '<M8[B]')]",
                                                shape='(2,)'))
    add('descr-datetime/subarray-field', hdr("[('t', '<M8[D]', (2,))]",
                                             shape='(2,)'))


def cases_struct():
    T = {
        'flat-two': "[('a', '<i4'), ('b', '<f8')]",
        'flat-one': "[('a', '<i4')]",
        'flat-many-types': "[('a', '|b1'), ('b', '<u2'), ('c', '<c8'), "
                           "('d', '|S3'), ('e', '<U2'), ('f', '|V2')]",
        'flat-tuple-of-fields': "(('a', '<i4'), ('b', '<f8'))",
        'nested-one': "[('a', [('b', '<i4'), ('c', '<f4')])]",
        'nested-two-levels': "[('a', [('b', [('c', '<i2')])]), ('d', '|u1')]",
        'field-list-instead-of-tuple': "[['a', '<i4']]",
        'field-list-3': "[['a', '<i4', (2,)]]",
        'field-str-2chars': "['ab']",
        'field-str-3chars': "['abc']",
        'field-str-1char': "['a']",
        'field-str-4chars': "['abcd']",
        'field-str-name-f': "['xf']",
        'field-1-tuple': "[('a',)]",
        'field-4-tuple': "[('a', '<i4', (2,), 1)]",
        'field-0-tuple': "[()]",
        'field-int': "[1]",
        'field-none': "[None]",
        'name-int': "[(1, '<i4')]",
        'name-bytes': "[(b'a', '<i4')]",
        'name-none': "[(None, '<i4')]",
        'name-float': "[(1.5, '<i4')]",
        'name-empty-str-int-type': "[('', '<i4')]",
        'names-duplicate': "[('a', '<i4'), ('a', '<f8')]",
        'names-duplicate-nested-ok': "[('a', [('a', '<i4')]), ('b', '<i4')]",
        'empty-list': "[]",
        'empty-tuple': "()",
        'nested-empty': "[('a', [])]",
        'nested-empty-two': "[('a', []), ('b', [])]",
        'dict-descr': "{'names': ['a'], 'formats': ['<i4']}",
        'dict-descr-empty': "{}",
        'dict-descr-two-keys': "{'ab': 1, 'cd': 2}",
        'set-descr': "{'<f8'}",
        'set-descr-3chars': "{'ab'}",
        'set-descr-empty-tuple': "{('a', '<i4')}",
        'list-of-str-typestr': "['<f8']",
        'bad-field-type': "[('a', 'x9')]",
        'bad-field-type-int': "[('a', 4)]",
        'field-type-none': "[('a', None)]",
        'field-type-list': "[('a', ['<i4'])]",
        'field-type-dict': "[('a', {'names': ['b'], 'formats': ['<i4']})]",
        'comma-string-field': "[('a', 'i4,f8')]",
        'field-names-unicode-escape': "[('\\u00e9', '<i4')]",
        'field-name-with-space': "[('a b', '<i4')]",
        'field-name-long': "[('" + 'n' * 300 + "', '<i4')]",
        'many-fields': '[' + ', '.join("('f%d', '|u1')" % i
                                       for i in range(100)) + ']',
        'field-object-struct-inside': "[('a', [('b', '<i4')], 2)]",
        'bytes-descr-list': "[(b'a', b'<i4')]",
        'field-typestr-bytes': "[('a', b'<i4')]",
        'field-tuple-descr': "[('a', ('<i4', (2,)))]",
        'field-tuple-descr-sized': "[('a', ('|S0', 3))]",
        'field-offsets-via-pad': "[('a', '|u1'), ('', '|V3'), ('b', '<i4')]",
        'tuple-of-one-field': "(('a', '<i4'),)",
    }
    for k in sorted(T):
        add('descr-struct/' + k, hdr(T[k], shape='(2,)'))
    for v in (V2, V3):
        add('descr-struct/flat-two@v%d' % v[0],
            hdr(T['flat-two'], shape='(2,)'), version=v)
    # nesting depth
    for depth in (10, 32, 33, 64, 98, 99, 100):
        d = "'<i4'"
        for _ in range(depth):
            d = "[('a', %s)]" % d
        add('descr-struct/nested-depth-%d' % depth, hdr(d, shape='(2,)'))
    # top-level tuple descrs
    TT = {
        'i4-1': ("('<i4', (1,))", '(1,)'),
        'i4-1-shape3': ("('<i4', (1,))", '(3,)'),
        'i4-2': ("('<i4', (2,))", '(1,)'),
        'i4-2-shape0': ("('<i4', (2,))", '(0,)'),
        'i4-0-shape0': ("('<i4', (0,))", '(0,)'),
        'i4-0-shape2': ("('<i4', (0,))", '(2,)'),
        'i4-empty': ("('<i4', ())", '(2,)'),
        'i4-int-1': ("('<i4', 1)", '(2,)'),
        'i4-int-2': ("('<i4', 2)", '(1,)'),
        'S0-5': ("('|S0', 5)", '(2,)'),
        'S-5': ("('S', 5)", '(2,)'),
        'S0-neg1': ("('|S0', -1)", '(2,)'),
        'U0-3': ("('<U0', 3)", '(2,)'),
        'V0-4': ("('|V0', 4)", '(2,)'),
        'S3-5': ("('|S3', 5)", '(2,)'),
        'i4-f4': ("('<i4', '<f4')", '(2,)'),
        'i4-f8': ("('<i4', '<f8')", '(2,)'),
        'i4-u1-struct': ("('<i4', [('a', '<u2'), ('b', '<u2')])", '(2,)'),
        'i4-1tuple': ("('<i4',)", '(2,)'),
        'i4-1-3': ("('<i4', (1,), 3)", '(1,)'),
        'i4-2-3': ("('<i4', (2,), 3)", '(1,)'),
        'i4-none': ("('<i4', None)", '(2,)'),
        'i4-dict': ("('<i4', {})", '(2,)'),
        'i4-metadata': ("('<i4', {'a': 1})", '(2,)'),
        'S3-metadata': ("('|S3', {'some': 'stuff'})", '(2,)'),
        'i4-neg': ("('<i4', (-1,))", '(2,)'),
        'i4-str-shape': ("('<i4', '2')", '(2,)'),
        'f8-float-shape': ("('<f8', 2.0)", '(1,)'),
        'nested-tuple': ("(('<i4', (1,)), (1,))", '(1,)'),
        'struct-1': ("([('a', '<i4')], (1,))", '(2,)'),
        'empty-tuple': ("()", '(2,)'),
        'bad-base': ("('x9', (1,))", '(1,)'),
    }
    for k in sorted(TT):
        add('descr-struct/top-tuple-' + k, hdr(TT[k][0], shape=TT[k][1]))


def cases_subarray():
    FS = {
        'int-2': "[('a', '<i4', 2)]",
        'int-1': "[('a', '<i4', 1)]",
        'int-0': "[('a', '<i4', 0)]",
        'int-neg1': "[('a', '<i4', -1)]",
        'tuple-2': "[('a', '<i4', (2,))]",
        'tuple-2-3': "[('a', '<i4', (2, 3))]",
        'tuple-1': "[('a', '<i4', (1,))]",
        'tuple-empty': "[('a', '<i4', ())]",
        'tuple-0': "[('a', '<i4', (0,))]",
        'tuple-0-only-field': "[('a', '<i4', (0,)), ('b', '<i4')]",
        'tuple-neg1': "[('a', '<i4', (-1,))]",
        'tuple-2-neg1': "[('a', '<i4', (2, -1))]",
        'dim-int-max-S0': "[('a', '|S0', (2147483647,))]",
        'dim-2pow31-S0': "[('a', '|S0', (2147483648,))]",
        'dim-2pow31-u1': "[('a', '|u1', (2147483648,))]",
        'dim-2pow63-u1': "[('a', '|u1', (9223372036854775808,))]",
        'dim-2pow64-u1': "[('a', '|u1', (18446744073709551616,))]",
        'metadata-as-shape': "[('a', '|S3', {'some': 'stuff'})]",
        'metadata-in-field-tuple': "[('a', ('|S3', {'some': 'stuff'}))]",
        'total-over-int-max': "[('a', '<i4', (1073741824,))]",
        'total-over-int-max-2d': "[('a', '<i4', (65536, 65536))]",
        'total-just-under': "[('a', '|u1', (1073741824,))]",
        'list-shape': "[('a', '<i4', [2])]",
        'float-shape': "[('a', '<i4', 2.0)]",
        'str-shape': "[('a', '<i4', '2')]",
        'none-shape': "[('a', '<i4', None)]",
        'bool-shape': "[('a', '<i4', True)]",
        'bool-in-tuple': "[('a', '<i4', (True,))]",
        # non-zero dims whose product passes 2**64, then a zero: an empty
        # item to numpy (npy_descr_fuzzer's harness once called it an overflow)
        'zero-after-overflowing-dims': "[('a', '<f8', (1, 11, 1010, 10, 110, 10, 101, 11, 5, 101, 11, 110, 111, 0))]",
        'zero-before-overflowing-dims': "[('a', '<f8', (0, 11, 1010, 10, 110, 10, 101, 11, 5, 101, 11, 110, 111))]",
        'nested-tuple-shape': "[('a', '<i4', ((2,),))]",
        'sub-of-sub': "[('c', ('<f8', (5,)), (2,))]",
        'sub-of-sub-int': "[('c', ('<f8', 5), 2)]",
        'sub-of-sub-of-sub': "[('c', (('<f8', (2,)), (3,)), (4,))]",
        'struct-subarray': "[('a', [('b', '<i2'), ('c', '|u1')], (3,))]",
        'dims-32': "[('a', '|u1', (" + '1, ' * 32 + "))]",
        'dims-33': "[('a', '|u1', (" + '1, ' * 33 + "))]",
        'dims-64': "[('a', '|u1', (" + '1, ' * 64 + "))]",
        'dims-65': "[('a', '|u1', (" + '1, ' * 65 + "))]",
        'S-sized-by-shape': "[('a', '|S0', 5)]",
        'U-with-shape': "[('a', '<U3', (2,))]",
    }
    for k in sorted(FS):
        if FS[k] is not None:
            add('descr-subarray/field-' + k, hdr(FS[k], shape='(2,)'))
    # huge but valid element sizes, with no elements
    for k, d in (('dim-int-max-u1', "[('a', '|u1', (2147483647,))]"),
                 ('dim-int-max-u1-2d', "[('a', '|u1', (46341, 46340))]"),
                 ('total-int-max-i4', "[('a', '<i4', (536870911,)), "
                  "('b', '|u1', (3,))]"),
                 ('total-over-int-max-two-fields',
                  "[('a', '<i4', (536870911,)), ('b', '|u1', (4,))]")):
        add('descr-subarray/field-%s-shape0' % k, hdr(d, shape='(0,)'))
    # subarray dims add to ndim
    for n_outer, n_inner in ((30, 2), (30, 3), (31, 1), (32, 1), (1, 32)):
        add('descr-subarray/ndim-%d-plus-%d' % (n_outer, n_inner),
            hdr("[('a', '|u1', (" + '1, ' * n_inner + "))]",
                shape='(' + '1, ' * n_outer + ')'))
    for k, d, s in (('top-ndim-32-plus-1', "('|u1', (1,))",
                     '(' + '1, ' * 32 + ')'),
                    ('top-ndim-31-plus-1', "('|u1', (1,))",
                     '(' + '1, ' * 31 + ')'),
                    ('top-string-2i4', "'2i4'", '(1,)'),
                    ('top-string-paren-1-i4', "'(1,)i4'", '(3,)')):
        add('descr-subarray/' + k, hdr(d, shape=s))


def cases_title():
    T = {
        'str-title': "[(('Title A', 'a'), '<i4')]",
        'two-titles': "[(('t1', 'a'), '<i4'), (('t2', 'b'), '<f8')]",
        'int-title': "[((1, 'a'), '<i4')]",
        'none-title': "[((None, 'a'), '<i4')]",
        'bytes-title': "[((b't', 'a'), '<i4')]",
        'tuple-title': "[(((1, 2), 'a'), '<i4')]",
        'list-title-unhashable': "[(([1], 'a'), '<i4')]",
        'title-equals-own-name': "[(('a', 'a'), '<i4')]",
        'title-equals-other-name': "[(('b', 'a'), '<i4'), ('b', '<f8')]",
        'title-equals-later-name': "[('b', '<f8'), (('b', 'a'), '<i4')]",
        'duplicate-title': "[(('t', 'a'), '<i4'), (('t', 'b'), '<f8')]",
        'name-tuple-3': "[(('t', 'a', 'x'), '<i4')]",
        'name-tuple-1': "[(('a',), '<i4')]",
        'name-tuple-0': "[((), '<i4')]",
        'name-list-title': "[(['t', 'a'], '<i4')]",
        'title-name-int': "[(('t', 1), '<i4')]",
        'title-empty-name': "[(('t', ''), '<i4')]",
        'title-empty-name-void': "[(('t', ''), '|V4')]",
        'title-empty-str': "[(('', 'a'), '<i4')]",
        'title-with-subarray': "[(('t', 'a'), '<i4', (2,))]",
        'title-nested': "[(('t', 'a'), [(('u', 'b'), '<i2')])]",
        'title-nonascii': "[(('\\u00e9', 'a'), '<i4')]",
        'title-equals-name-in-other-struct':
            "[(('a', 'x'), [('a', '<i4')])]",
    }
    for k in sorted(T):
        add('descr-title/' + k, hdr(T[k], shape='(2,)'))


def cases_pad():
    P = {
        'void-3': "[('a', '|u1'), ('', '|V3'), ('b', '<i4')]",
        'void-4-sub-2': "[('a', '<i4'), ('', '|V4', (2,))]",
        'void-4-sub-int-2': "[('a', '<i4'), ('', '|V4', 2)]",
        'void-leading': "[('', '|V4'), ('a', '<i4')]",
        'void-trailing': "[('a', '<i4'), ('', '|V4')]",
        'void-two-pads': "[('', '|V2'), ('a', '<i4'), ('', '|V2')]",
        'void-zero': "[('a', '<i4'), ('', '|V0')]",
        'void-nosize': "[('a', '<i4'), ('', 'V')]",
        'void-name-V8': "[('a', '<i4'), ('', 'V8')]",
        'void-name-void': "[('a', '<i4'), ('', 'void')]",
        'void-struct-pad': "[('a', '<i4'), ('', [('b', '<i4')])]",
        'void-struct-empty-pad': "[('a', '<i4'), ('', [])]",
        'void-tuple-i4-as-V': "[('a', '<i4'), ('', ('|V4', (1,)))]",
        'only-pads': "[('', '|V4')]",
        'only-pads-two': "[('', '|V4'), ('', '|V2')]",
        'empty-name-int-once': "[('', '<i4')]",
        'empty-name-int-with-other': "[('a', '<f8'), ('', '<i4')]",
        'empty-name-int-twice': "[('', '<i4'), ('', '<i4')]",
        'empty-name-S4': "[('', '|S4')]",
        'empty-name-S4-twice': "[('', '|S4'), ('', '|S4')]",
        'empty-name-int-and-void': "[('', '<i4'), ('', '|V4')]",
        'empty-name-void-and-int': "[('', '|V4'), ('', '<i4')]",
        'empty-name-bool': "[('', '|b1')]",
        'empty-name-datetime': "[('', '<M8[s]')]",
        'empty-name-with-title': "[(('t', ''), '<i4')]",
        'empty-name-U': "[('', '<U2')]",
        'pad-in-nested': "[('a', [('', '|V2'), ('b', '<i2')])]",
        'pad-pipe-less-V4': "[('a', '<i4'), ('', '<V4')]",
        # a dropped '' subarray of objects, then a field of the same type:
        # the second is an object field all the same
        'pad-object-subarray-then-object': "[('', '|O', (2,)), ('y', '|O')]",
        'pad-object-subarray-then-object-twice': "[('', '|O', (2,)), ('y', '|O'), ('z', '|O')]",
        'same-type-three-fields': "[('a', '<f8'), ('b', '<f8'), ('c', '<f8')]",
        'same-type-subarray-between': "[('a', '<f8'), ('b', '<f8', (2,)), ('c', '<f8')]",
    }
    for k in sorted(P):
        add('descr-pad/' + k, hdr(P[k], shape='(2,)'))


def cases_object():
    O = {
        'O': "'O'", 'pipe-O': "'|O'", 'pipe-O8': "'|O8'", 'pipe-O4': "'|O4'",
        'lt-O8': "'<O8'", 'O16': "'|O16'", 'O2': "'|O2'", 'object': "'object'",
        'object_': "'object_'", 'field': "[('a', '|O')]",
        'field-second': "[('a', '<i4'), ('b', '|O')]",
        'nested': "[('a', [('b', '|O')])]",
        'subarray-field': "[('a', '|O', (2,))]",
        'top-subarray': "('|O', (1,))", 'comma-string': "'O,i4'",
        'pad-object': "[('', '|O')]", 'title': "[(('t', 'a'), '|O')]",
        'deep-nested': "[('a', [('b', [('c', [('d', '|O')])])])]",
        'zero-size-subarray': "[('a', '|O', (0,))]",
    }
    for k in sorted(O):
        add('object/' + k, hdr(O[k], shape='(2,)'))
        if k in ('O', 'field', 'pipe-O8'):
            add('object/' + k + '-shape0', hdr(O[k], shape='(0,)'))
            add('object/' + k + '-scalar', hdr(O[k], shape='()'))
    for v in (V2, V3):
        add('object/pipe-O8@v%d' % v[0], hdr("'|O8'", shape='(2,)'),
            version=v)


def cases_payload():
    for v in ALLV:
        t = v[0]
        add('payload/exact@v%d' % t, GOOD, version=v)
        add('payload/truncated-1@v%d' % t, GOOD, version=v, delta=-1)
        add('payload/truncated-item@v%d' % t, GOOD, version=v, delta=-8)
        add('payload/empty@v%d' % t, GOOD, version=v, payload=b'')
        add('payload/trailing-1@v%d' % t, GOOD, version=v, delta=1)
        add('payload/trailing-100@v%d' % t, GOOD, version=v, delta=100)
        add('payload/partial-trailing-item@v%d' % t, GOOD, version=v,
            delta=5)
        add('payload/scalar-no-data@v%d' % t, hdr(shape='()'), version=v,
            payload=b'')
        add('payload/scalar-exact@v%d' % t, hdr(shape='()'), version=v)
        add('payload/zero-size-trailing@v%d' % t, hdr(shape='(0,)'),
            version=v, payload_len=16)
    P = {
        'scalar-short': (hdr(shape='()'), {'delta': -1}),
        'scalar-trailing': (hdr(shape='()'), {'delta': 3}),
        'S0-1e18': (hdr("'|S0'", shape='(1000000000000000000,)'), {}),
        'empty-struct-1e18': (hdr("[]", shape='(1000000000000000000,)'), {}),
        'V0-1e18': (hdr("'|V0'", shape='(1000000000000000000,)'), {}),
        'U0-1e18': (hdr("'<U0'", shape='(1000000000000000000,)'), {}),
        'zero-itemsize-trailing': (hdr("'|S0'", shape='(5,)'),
                                   {'payload_len': 7}),
        'u1-truncated-1': (hdr("'|u1'", shape='(10,)'), {'delta': -1}),
        'u1-exact': (hdr("'|u1'", shape='(10,)'), {}),
        'struct-truncated': (hdr("[('a', '<i4'), ('b', '<f8')]",
                                 shape='(4,)'), {'delta': -1}),
        'struct-exact': (hdr("[('a', '<i4'), ('b', '<f8')]", shape='(4,)'),
                         {}),
        'struct-partial-trailing': (hdr("[('a', '<i4'), ('b', '<f8')]",
                                        shape='(4,)'), {'delta': 11}),
        '2d-truncated-row': (hdr(shape='(2, 3)'), {'delta': -24}),
        'fortran-exact': (hdr(fortran='True', shape='(2, 3)'), {}),
        'fortran-truncated': (hdr(fortran='True', shape='(2, 3)'),
                              {'delta': -1}),
        'big-4k': (hdr("'<f8'", shape='(512,)'), {}),
        'big-4k-truncated': (hdr("'<f8'", shape='(512,)'), {'delta': -4096}),
        'U-truncated': (hdr("'<U3'", shape='(2,)'), {'delta': -4}),
        'big-endian-exact': (hdr("'>i4'", shape='(3,)'), {}),
        'M8-exact': (hdr("'<M8[s]'", shape='(3,)'), {}),
        'c16-truncated': (hdr("'<c16'", shape='(3,)'), {'delta': -8}),
    }
    for k in sorted(P):
        add('payload/' + k, P[k][0], **P[k][1])


def cases_limit():
    body = hdr(shape='(3,)')
    for v in ALLV:
        t = v[0]
        for n in (9999, 10000, 10001, 10064):
            add('limit/chars-%d@v%d' % (n, t), body, version=v,
                pad=('chars', n))
    # characters counted after decoding: v3 multi-byte names
    name3 = '\u6574' * 3000                           # 9000 bytes, 3000 chars
    h3 = hdr("[('%s', '<i4')]" % name3, shape='(1,)')
    add('limit/v3-9000-bytes-3000-chars', h3, version=V3)
    add('limit/v3-over-10000-bytes-under-10000-chars',
        hdr("[('%s', '<i4')]" % ('\u6574' * 3400), shape='(1,)'),
        version=V3)
    add('limit/v3-comment-12000-bytes-4000-chars',
        body + ' # ' + '\u6574' * 4000, version=V3)
    add('limit/v3-bytes-20000-chars-9999', body + ' # ' + '\U0001F600' * 5000,
        version=V3, pad=('chars', 9999))
    h = body + ' # ' + '\U0001F600' * 5000
    add('limit/v3-4byte-chars-10001', h, version=V3, pad=('chars', 10001))
    add('limit/v3-4byte-chars-10000', h, version=V3, pad=('chars', 10000))
    # latin1 bytes in v1/v2: one byte per character
    for v in (V1, V2):
        add('limit/latin1-comment-10000@v%d' % v[0],
            body + ' # ' + '\xe9' * 9000, version=v, pad=('chars', 10000))
        add('limit/latin1-comment-10001@v%d' % v[0],
            body + ' # ' + '\xe9' * 9000, version=v, pad=('chars', 10001))
    add('limit/v1-65535', body, version=V1, pad=('chars', 65535))
    add('limit/v2-65536', body, version=V2, pad=('chars', 65536))
    add('limit/v2-100000', body, version=V2, pad=('chars', 100000))
    add('limit/long-field-name-10001@v1',
        hdr("[('%s', '<i4')]" % ('n' * 9950), shape='(1,)'), version=V1)
    add('limit/long-field-name-under@v1',
        hdr("[('%s', '<i4')]" % ('n' * 9900), shape='(1,)'), version=V1)


def cases_align():
    for v in ALLV:
        t = v[0]
        add('align/mod64@v%d' % t, GOOD, version=v)
        add('align/mod16@v%d' % t, GOOD, version=v, pad='align16')
        add('align/no-padding@v%d' % t, GOOD, version=v, pad='none')
        add('align/newline-only@v%d' % t, GOOD, version=v, pad=b'\n')
        add('align/tabs@v%d' % t, GOOD, version=v, pad=b'\t\t\t\n')
        add('align/tabs-no-newline@v%d' % t, GOOD, version=v, pad=b'\t\t\t')
        add('align/cr@v%d' % t, GOOD, version=v, pad=b'   \r')
        add('align/crlf@v%d' % t, GOOD, version=v, pad=b'   \r\n')
        add('align/spaces-no-newline@v%d' % t, GOOD, version=v, pad=b' ' * 5)
        add('align/many-newlines@v%d' % t, GOOD, version=v, pad=b'\n\n\n\n')
        add('align/formfeed@v%d' % t, GOOD, version=v, pad=b' \x0c \n')
        add('align/vertical-tab@v%d' % t, GOOD, version=v, pad=b' \x0b \n')
        add('align/comment-then-newline@v%d' % t, GOOD, version=v,
            pad=b' # pad\n')
        add('align/nul-padding@v%d' % t, GOOD, version=v, pad=b'\x00\x00\n')
        add('align/newline-then-spaces@v%d' % t, GOOD, version=v,
            pad=b'\n    ')
        add('align/newline-then-tab@v%d' % t, GOOD, version=v, pad=b'\n\t')
        add('align/newline-then-spaces-newline@v%d' % t, GOOD, version=v,
            pad=b'\n    \n')
        add('align/odd-offset-1@v%d' % t, GOOD, version=v, pad=b' \n')
        add('align/odd-offset-3@v%d' % t, GOOD, version=v, pad=b'   \n')
        add('align/spaces-65@v%d' % t, GOOD, version=v,
            pad=b' ' * 65 + b'\n')
        add('align/spaces-128-extra@v%d' % t, GOOD, version=v,
            pad=b' ' * 128 + b'\n')
        add('align/nbsp-latin1@v%d' % t, GOOD, version=v, pad=b' \xa0\n')
        add('align/backslash-newline@v%d' % t, GOOD, version=v,
            pad=b' \\\n')
        add('align/semicolon@v%d' % t, GOOD, version=v, pad=b';\n')
    add('align/legacy-v2-mod16-plus2', GOOD, version=V2, pad='legacy-v2')
    # numpy 1.24 writer style: growth spaces after the dict
    add('align/growth-spaces@v1', GOOD + ' ' * 20, version=V1)


def cases_parity():
    """Inputs on which an earlier npyguard disagreed with numpy."""
    tail = "'fortran_order': False, 'shape': (3,), }"
    # unhashable values are built even when a later key wins
    for k, v in (('set-of-list', '{[1]}'), ('dict-list-key', '{[]: 1}'),
                 ('set-of-tuple-with-list', '{(1, [2])}'),
                 ('set-of-set-call', '{set()}'), ('dict-dict-key', '{{}: 1}')):
        addv('dict/duplicate-unhashable-' + k,
             "{'descr': %s, 'descr': '<f8', %s" % (v, tail), (V1, V3))
    add('descr-struct/set-call-descr', hdr('set()'))
    add('descr-struct/set-call-spaced', hdr('set ( )'))
    add('descr-struct/set-call-arg', hdr("set([])"))
    add('shape/set-call', hdr(shape='set()'))
    # subarray item counts and zero-size bases
    for k, d in (('empty-struct-items-2pow32', "[('a', [], (65536, 65536))]"),
                 ('empty-struct-items-int-max', "[('a', [], (2147483647,))]"),
                 ('empty-struct-items-2pow31', "[('a', [], (2147483648,))]"),
                 ('S0-items-2pow32', "[('a', '|S0', (65536, 65536))]"),
                 ('zero-sub-base-tuple', "[('a', ('<f8', (0,)), (2,))]"),
                 ('zero-sub-base-pad', "[('', ('<f8', (0,)), (2,))]"),
                 ('zero-sub-base-int', "[('a', ('<f8', (0,)), 3)]"),
                 ('zero-sub-base-empty-tuple', "[('a', ('<f8', (0,)), ())]"),
                 ('zero-struct-sub-base', "[('a', ([('b', '<i4')], (0,)), (2,))]"),
                 ('dims-33-in-field', "[('a', '<f8', (%s))]" % ('1, ' * 33)),
                 ('dims-64-in-field', "[('a', '<f8', (%s))]" % ('1, ' * 64)),
                 ('field-type-3-tuple', "[('a', ('<f8', (1,), 5))]"),
                 ('field-type-3-tuple-list', "[('a', ('<f8', (2,), [1]))]"),
                 ('field-type-4-tuple', "[('a', ('<f8', (2,), 1, 2))]"),
                 # the second item: a dtype if it reads as one, else a shape
                 ('field-type-list-shape', "[('a', ('<f8', [2]))]"),
                 ('field-type-none-8', "[('a', ('<M8', None))]"),
                 ('field-type-none-4', "[('a', ('<i4', None))]"),
                 ('field-shape-none-8', "[('a', '<f8', None)]"),
                 ('field-shape-none-V0', "[('a', '|V0', None)]"),
                 ('field-type-empty-str', "[('a', ('<i4', ''))]"),
                 ('field-type-S0-view-f8', "[('a', ('|S0', '<f8'))]"),
                 ('field-type-empty-list', "[('a', ('<i4', []))]"),
                 ('field-type-struct-none', "[('a', ([('b', '<M8')], None))]"),
                 ('zero-dim-after-big', "[('a', '<f8', (65536, 65536, 0))]"),
                 ('zero-dim-before-big', "[('a', '<f8', (0, 65536, 65536))]")):
        add('descr-subarray/' + k, hdr(d))
    add('object/in-pad-subarray', hdr("[('', '|O', (2,)), ('b', '<f8')]"))
    add('object/in-pad-nested', hdr("[('', ([('x', '|O')], (1,))), ('b', '<f8')]"))
    add('object/pad-name-not-void', hdr("[('', '|O'), ('b', '<f8')]"))
    for k, t in (('lt-M08', '<M08'), ('lt-m08', '<m08'), ('lt-M-tab-8', '<M\\t8'),
                 ('eq-M-nl-8', '=M\\n8'), ('M-space-8', 'M 8'), ('lt-M-plus-8', '<M+8'),
                 ('pipe-m-space-8', '|m 8'), ('lt-M-minus-8', '<M-8'),
                 ('lt-M-space-8-unit', '<M 8[s]'), ('lt-M008', '<M008'),
                 ('gt-m-vt-8', '>m\\x0b8'), ('lt-M8-space', '<M8 ')):
        add('descr-datetime/size-spelling-' + k, hdr("'%s'" % t))
    # CR, form feed and continuation lines in v1/v2 (numpy's token filter)
    body = "{'descr': '<f8', 'fortran_order': False, 'shape': (3%s,), }"
    for k, h in (('cr-leading-L', '\r' + body % 'L'),
                 ('cr-leading', '\r' + body % ''),
                 ('cr-continuation-L', body % ' \\\rL'),
                 ('comment-cr-dict', "#\r{'descr': '<f8', 'fortran_order': False,\n"
                                     "'shape': (3,), }"),
                 ('cr-inside-dict', "{'descr': '<f8',\r'fortran_order': False, 'shape': (3,), }"),
                 ('cr-after-dict', body % '' + '\r'),
                 ('newline-ff-dict', '\n\f' + body % ''),
                 ('comment-ff-dict', '#c\n\f' + body % ''),
                 ('crlf-ff-dict', '\r\n\f' + body % ''),
                 ('ff-first-line', '\f' + body % ''),
                 ('ff-continuation', '\f \\\n' + body % ''),
                 ('blank-indented-continuation', '\n \\\n' + body % ''),
                 ('blank-tab-continuation', '\n\t\\\n' + body % ''),
                 ('continuation-indented-dict', '\n \\\n ' + body % '')):
        addv('literal/lines-' + k, h)


def cases_branches():
    """Forms that reach the reader's rarer paths: string prefixes, escapes
    and quotes, number spellings, continuations and line ends at odd places,
    typestr and subarray edge sizes, and headers cut short (no padding)."""
    # string prefixes with a repeated or clashing letter are names
    for p in ('rr', 'bb', 'ff', 'uu', 'fb'):
        addv('literal/prefix-%s-descr' % p, hdr(p + "'<f8'"), (V1, V3))
    for k, d in (('concat-bad-prefix', "'<' xy'f8'"),
                 ('concat-bad-prefix-3', "'<' rbx'f8'"),
                 ('triple-two-quotes-inside', "[(" + "'" * 3 + "a''b" + "'" * 3 + ", '<i4')]"),
                 ('escape-octal-2-7', "[('\\234\\567', '<i4')]"),
                 ('escape-octal-then-8', "[('a\\08', '<i4')]"),
                 ('escape-octal-then-slash', "[('a\\0/', '<i4')]"),
                 ('escape-bytes-octal', "[(b'\\101', '<i4')]"),
                 ('escape-bytes-x41', "[(b'\\x41', '<i4')]"),
                 ('escape-bytes-N', "[(b'\\N{DIGIT ONE}', '<i4')]"),
                 ('escape-u-at-end', "[('a\\u', '<i4')]"),
                 ('escape-U-at-end', "[('a\\U0001', '<i4')]"),
                 ('name-with-both-quotes', "[('a\\'b\"c', '<i4')]"),
                 ('name-with-del-escape', "[('a\\x7f', '<i4')]"),
                 ('string-then-bad-continuation', "'<f8' \\ x"),
                 ('after-open-brace-bad-continuation', "{\\ x}"),
                 ('after-open-bracket-bad-continuation', "[\\ x]"),
                 ('set-call-bad-continuation', "set \\ x"),
                 ('set-call-name', "set x"),
                 ('set-call-open-bad-continuation', "set(\\ x)"),
                 ('sign-bad-continuation', "-\\ x"),
                 ('sign-on-parenthesised-sign', "[('a', '<i4', -(-3))]"),
                 ('complex-sum-bad-continuation', "[('a', '<i4', 1+\\ x)]"),
                 ('complex-sum-missing-imag', "[('a', '<i4', (1+ ,))]"),
                 ('complex-sum-signed-imag', "[('a', '<i4', 1+(-2j))]"),
                 ('complex-sum-then-bad-continuation', "[('a', '<i4', 1+2j \\ x)]"),
                 ('complex-sum-twice', "[('a', '<i4', (1+2j)+3j)]"),
                 ('at-sign', "@x"),
                 ('dot-then-name', ".x"),
                 ('dot-dot-name', "..x"),
                 ('float-leading-dot', "[('a', '<i4', .5)]"),
                 ('dict-unpack-after-item', "[{'a': 1, **x}]"),
                 ('dict-bad-continuation-after-colon', "{'a': \\ x}"),
                 ('glued-name-non-ascii', "[('a', '<i4', True\xe9)]")):
        addv('literal/' + k, hdr(d), (V1, V3))
    # CR inside strings, and backslash-CR in and out of them
    for k, d in (('triple-string-cr', "[(" + "'" * 3 + "a\rb" + "'" * 3 + ", '<i4')]"),
                 ('triple-string-crlf', "[(" + "'" * 3 + "a\r\nb" + "'" * 3 + ", '<i4')]"),
                 ('escape-backslash-cr', "'<f\\\r8'"),
                 ('escape-backslash-crlf', "'<f\\\r\n8'"),
                 ('raw-triple-backslash-cr', "[(r" + "'" * 3 + "a\\\rb" + "'" * 3 + ", '<i4')]"),
                 ('raw-backslash-non-ascii', "[(r'a\\\xe9', '<i4')]")):
        addv('literal/' + k, hdr(d), (V1, V3))
    # numbers
    ints = {'underscore-after-dot': '3._5', 'underscore-exponent': '1e_5',
            'binary-underscore-2': '0b1_2', 'octal-underscore-8': '0o1_8',
            'binary-trailing-2': '0b12', 'octal-trailing-8': '0o18',
            'exp-plus': '1e+5', 'exp-minus': '1e-5', 'exp-no-digits': '1ex',
            'big-4301-digits-dot': '1' + '0' * 4300 + '.0',
            'big-4301-digits-exp': '1' + '0' * 4300 + 'e0',
            'big-4301-digits-imag': '1' + '0' * 4300 + 'j',
            'non-ascii-glued': '3\xe9'}
    for k in sorted(ints):
        addv('literal/int-' + k, hdr(shape='(%s,)' % ints[k]), (V1, V3))
    for k, s in (('formfeed-before-L', '(2\fL,)'), ('tab-after-L', '(2L\tL,)'),
                 ('formfeed-after-L', '(2L\fL,)'), ('continuation-crlf-L', '(2\\\r\nL,)'),
                 ('continuation-cr-L', '(2\\\rL,)'), ('L-non-ascii', '(2L\xe9,)')):
        add('pylong/' + k, hdr(shape=s))
    # a bare tuple after the dict
    addv('literal/bare-tuple-dict-then-int', GOOD + ', 1', (V1, V3))
    addv('literal/bare-tuple-dict-then-close', GOOD + ', )', (V1, V3))
    addv('literal/bare-tuple-bad-continuation', GOOD + ', \\ x', (V1, V3))
    addv('literal/leading-bad-continuation', '\\ x' + GOOD, (V1, V3))
    # headers that stop short: no padding, no newline
    cut = {'comment-to-end': GOOD + ' # c',
           'string-backslash-at-end': "{'descr': '<f8\\",
           'triple-quote-short-at-end': "{'descr': " + "'" * 3 + "<f8''",
           'underscore-at-end': "{'descr': '<f8', 'shape': (1_",
           'number-backslash-at-end': "{'descr': '<f8', 'shape': (2\\",
           'L-at-end': "{'descr': '<f8', 'shape': (2L",
           'name-after-value-at-end': "{'descr': '<f8', 'shape': (3 abc",
           'name-at-end': "{'descr': '<f8', 'shape': (Tru",
           'bare-tuple-comma-at-end': GOOD + ',',
           'open-brace-cr-at-end': '{\r',
           'open-brace-continuation-cr-at-end': '{\\\r'}
    for k in sorted(cut):
        addv('literal/cut-' + k, cut[k], (V1, V3), pad='none')
    # UTF-8 cut or broken in the last bytes of a 3.0 header
    add('encoding/utf8-truncated-at-end@v3', GOOD.encode() + b' \xc3', version=V3, pad='none')
    add('encoding/utf8-bad-third-byte@v3',
        b"{'descr': [('\xe2\x82\xc0', '<i4')], 'fortran_order': False, 'shape': (3,), }",
        version=V3)
    # a raw DEL in a name: numpy's writer escapes it
    add('encoding/raw-del-in-name', "{'descr': [('a\x7f', '<i4')], 'fortran_order': False, "
        "'shape': (3,), }")
    add('descr-typestr/empty-writer-form', hdr("''"))
    # typestrs
    for k, t in (('control-char-size', '<f\\x018'), ('sign-only-size', '<f+'),
                 ('space-only-size', '<S '), ('S-size-saturates', '|S99999999999999999999999'),
                 ('U-size-times-4-overflows', '<U9999999999999999999'),
                 ('nul-escape', '<f\\x008'), ('order-then-digit', '<3i4'),
                 ('order-then-paren', '<(2,)i4'), ('comma-in-brackets', '<M8[1,s]'),
                 ('letter-then-brace', 'b~'), ('datetime-digits-only', '<M8[25]'),
                 ('datetime-tab', '<M8[\\ts]')):
        add('descr-typestr/' + k, hdr("'%s'" % t))
    for k, d in (('bytes-empty', "[('a', ('<i4', b''))]"),
                 ('dict-int-key', "[('a', ('<i4', {1: 2}))]"),
                 ('dict-names', "[('a', ('<i4', {'names': ['x'], 'formats': ['<i4']}))]"),
                 ('dict-formats', "[('a', ('<i4', {'formats': ['<i4']}))]"),
                 ('S0-bool', "[('a', ('|S0', True))]"),
                 ('negative-zero-dim', "[('a', '<i4', (-0,))]"),
                 ('items-overflow-u64', "[('a', '|u1', (2147483647, 2147483647, 2147483647))]"),
                 ('items-over-int64', "[('a', '|u1', (2147483647, 2147483647, 3))]"),
                 ('items-2pow32', "[('a', '|u1', (65536, 65536))]"),
                 ('bytes-2pow31', "[('a', '<f8', (268435456,))]")):
        add('descr-subarray/' + k, hdr(d))
    for k, d in (('duplicates-ab-ab', "[('a', '<i4'), ('b', '<i4'), ('a', '<i4'), ('b', '<i4')]"),
                 ('duplicates-ba-ba', "[('b', '<i4'), ('a', '<i4'), ('b', '<i4'), ('a', '<i4')]"),
                 ('size-over-int-max', "[('a', '|S2000000000'), ('b', '|S2000000000')]"),
                 ('set-of-1-tuple', "{('a',)}"),
                 ('set-of-4-tuple', "{('a', 'b', 'c', 'd')}")):
        add('descr-struct/' + k, hdr(d))
    add('descr-title/both-not-str', hdr("[((1, 2), '<i4')]"))
    add('shape/bytes-over-int64', hdr("'|u1'", shape='(9223372036854775807, 2)'))
    # sets and dicts past their first item, names glued to quotes
    for k, d in (('set-second-unhashable', "{1, [2]}"),
                 ('set-junk-after-item', "{1 x}"),
                 ('dict-second-key-missing-colon', "{'a': 1, 'b' 2}"),
                 ('dict-second-key-unhashable', "{'a': 1, [2]: 3}"),
                 ('name-3-letters-then-quote', "rbx'<f8'"),
                 ('name-2-letters-then-quote', "xy'<f8'"),
                 ('escape-octal-3-6-7', "[('\\3\\6\\7', '<i4')]"),
                 ('triple-string-cr-at-end', "[(" + "'" * 3 + "a\r" + "'" * 3 + ", '<i4')]")):
        addv('literal/' + k, hdr(d), (V1, V3))
    addv('literal/int-float-complex-sum', hdr(shape='(1.5+2j,)'), (V1, V3))
    addv('literal/formfeed-line-after-dict', GOOD + '\n\f\n', (V1, V3))
    add('literal/escape-backslash-cr-at-end-of-body@v3', hdr("[('a\\\r', '<i4')]"), version=V3)
    add('literal/error-before-backslash-cr@v1', "{'descr': @, \\\r 'x': 1}")
    for k, h in (('string-backslash-cr-at-end', "{'descr': '<f8\\\r"),
                 ('number-backslash-cr-at-end', "{'descr': '<f8', 'shape': (2\\\r")):
        addv('literal/cut-' + k, h, (V1, V3), pad='none')
    add('object/two-object-fields', hdr("[('a', '|O'), ('b', '|O')]"))
    add('descr-typestr/name-40-chars', hdr("'" + 'a' * 40 + "'"))
    add('encoding/v3-typestr-31-ascii-then-2-byte@v3', hdr("'" + 'a' * 31 + '\xe9' + "'"), version=V3)


def all_cases():
    for fn in (cases_magic, cases_version, cases_length, cases_encoding,
               cases_literal, cases_pylong, cases_dict, cases_keys,
               cases_shape, cases_fortran, cases_typestr, cases_datetime,
               cases_struct, cases_subarray, cases_title, cases_pad,
               cases_object, cases_payload, cases_limit, cases_align,
               cases_parity, cases_branches):
        fn()
    return sorted(CASES, key=lambda c: c.name)


def main(argv):
    # set iteration order (shown in some numpy messages) depends on string
    # hashing: pin the hash seed so that the output is reproducible
    if os.environ.get('PYTHONHASHSEED') != '0':
        env = dict(os.environ, PYTHONHASHSEED='0')
        os.execve(sys.executable, [sys.executable] + argv, env)
    out_path = argv[1] if len(argv) > 1 else DEFAULT_OUT
    cases = all_cases()
    lines = ['#' + '\t'.join(COLUMNS)]
    with tempfile.TemporaryDirectory(prefix='npyg-cases-') as tmpdir:
        for case, res in zip(cases, run_cases(cases, tmpdir, workers())):
            lines.append(row(case, res))
    data = ('\n'.join(lines) + '\n').encode('ascii')
    tmp = out_path + '.tmp'
    with open(tmp, 'wb') as fh:
        fh.write(data)
    os.replace(tmp, out_path)
    acc = sum(1 for ln in lines[1:] if ln.split('\t')[3] == 'accept')
    sys.stderr.write('%d cases (%d accept, %d reject) -> %s\n' % (
        len(cases), acc, len(cases) - acc, out_path))


if __name__ == '__main__':
    main(sys.argv)
