# SPDX-License-Identifier: BSD-3-Clause
"""What the corpus generators, their checker and the numpy conformance
adapter share: how an exception, a big integer and a numpy descr are
written in JSON, the .npy preamble (written and read), and the list of
globals a pickle names, found by walking its opcodes without unpickling.

Used by gen_corpus.py, gen_cases.py, gen_npz.py, verify_manifest.py and
conformance/adapters/numpy/numpy-adapter. Standard library only: the
adapter imports it before it knows whether numpy is there.
"""

import io
import pickletools
import re
import struct
import warnings

MAGIC = b"\x93NUMPY"
# JSON readers keep integers exactly only up to 2**53; past that they are strings.
JSON_SAFE_INT = 2 ** 53


def exc_name(e):
    """The exception's class: bare for builtins, module-qualified otherwise."""
    t = type(e)
    return t.__name__ if t.__module__ == "builtins" else "%s.%s" % (t.__module__, t.__qualname__)


_ADDR_RE = re.compile(r" at 0x[0-9a-fA-F]+")


def norm_message(msg):
    """An exception message without object addresses, cut to 1000 characters."""
    msg = _ADDR_RE.sub(" at 0x...", msg)
    if len(msg) > 1000:
        msg = msg[:1000] + "...[%d chars]" % len(msg)
    return msg


def numpy_verdict(src, **kw):
    """np.load(src, allow_pickle=False, **kw) -> (verdict dict, array or None,
    the warnings it gave). Any exception, MemoryError included, is a refusal."""
    import numpy as np
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            arr = np.load(src, allow_pickle=False, **kw)
        except (Exception, MemoryError) as e:
            return ({"verdict": "reject", "exception": exc_name(e),
                     "message": norm_message(str(e))}, None, caught)
    return {"verdict": "accept"}, arr, caught


def json_int(v):
    v = int(v)
    return str(v) if abs(v) > JSON_SAFE_INT else v


def _shape_json(shape):
    return [json_int(x) for x in (shape if isinstance(shape, tuple) else (shape,))]


def descr_json(d):
    """numpy's descr (dtype_to_descr) in JSON: a typestr string; a list of
    [name, descr(, shape)] for structs ([title, name] as name when titled);
    {"base": descr, "shape": [...]} for a (base, shape) subarray tuple."""
    if isinstance(d, str):
        return d
    if isinstance(d, tuple):
        base, shape = d
        return {"base": descr_json(base), "shape": _shape_json(shape)}
    if isinstance(d, list):
        out = []
        for f in d:
            name = list(f[0]) if isinstance(f[0], tuple) else f[0]
            entry = [name, descr_json(f[1])]
            if len(f) == 3:
                entry.append(_shape_json(f[2]))
            out.append(entry)
        return out
    raise AssertionError("unexpected descr %r" % (d,))


# ---------------------------------------------------------------- .npy framing

def length_format(major):
    """struct format of the header-length field of a format version, or None."""
    return {1: "<H", 2: "<I", 3: "<I"}.get(major)


def preamble(version, hlen, lenfmt=None):
    """Magic, version bytes and the header-length field (none for a version
    numpy does not know, unless lenfmt says how wide)."""
    fmt = lenfmt or length_format(version[0])
    return MAGIC + bytes(version) + (struct.pack(fmt, hlen) if fmt else b"")


def read_framing(data):
    """version, header_len and data_offset as far as the preamble can be read."""
    out = {}
    if len(data) < 8 or data[:6] != MAGIC:
        return out
    ver = (data[6], data[7])
    out["version"] = list(ver)
    fmt = length_format(ver[0]) if ver[1] == 0 else None
    if fmt is None:
        return out
    n = struct.calcsize(fmt)
    if len(data) < 8 + n:
        return out
    hlen = struct.unpack(fmt, data[8:8 + n])[0]
    out["header_len"] = hlen
    out["data_offset"] = 8 + n + hlen
    return out


# ---------------------------------------------------------------- pickles

_STRING_OPS = ("SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE",
               "SHORT_BINSTRING", "BINSTRING", "STRING")


def pickle_imports(payload):
    """module.name of every global a pickle references, sorted, by walking
    its opcodes (pickletools.genops): nothing is unpickled. STACK_GLOBAL's
    two strings are followed through the memo (PUT/MEMOIZE, then GET), as
    pickle protocol 4+ writes them; "?.?" where they are not strings, and
    "<unparsable: ...>" after what was found when the opcodes break off."""
    found, recent, memo = [], [], {}
    try:
        for op, arg, _pos in pickletools.genops(io.BytesIO(payload)):
            name = op.name
            if name in ("GLOBAL", "INST"):
                mod, _, attr = arg.partition(" ")
                found.append("%s.%s" % (mod, attr))
                recent.append(None)
            elif name == "STACK_GLOBAL":
                if len(recent) >= 2 and isinstance(recent[-2], str) and isinstance(recent[-1], str):
                    found.append("%s.%s" % (recent[-2], recent[-1]))
                else:
                    found.append("?.?")
                recent.append(None)
            elif name in _STRING_OPS:
                recent.append(arg if isinstance(arg, str) else str(arg))
            elif name == "MEMOIZE":
                memo[len(memo)] = recent[-1] if recent else None
            elif name in ("PUT", "BINPUT", "LONG_BINPUT"):
                memo[arg] = recent[-1] if recent else None
            elif name in ("GET", "BINGET", "LONG_BINGET"):
                recent.append(memo.get(arg))
            elif name in ("FRAME", "PROTO"):
                pass
            else:
                recent.append(None)
            if name == "STOP":
                break
    except Exception as e:   # a malformed pickle: report what was found so far
        found.append("<unparsable: %s>" % exc_name(e))
    return sorted(set(found))
