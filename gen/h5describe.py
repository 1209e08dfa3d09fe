# SPDX-License-Identifier: BSD-3-Clause
"""A canonical, JSON-ready description of what a reader returned.

One definition for the generators (gen_hdf5.py and gen_matlab_style.py
record what hdf5storage.read and hdf5storage.loadmat return) and for the
tests that hold npyguard's decoder to those records: two values have the
same description when they have the same structure (dict, list, tuple,
set, deque, object and structured arrays, recursively), the same Python
and numpy types, dtypes with their byte order, shapes, and the same value
bytes (a SHA-256), strings and scalars by value.

Dict items keep their order (hdf5storage returns HDF5's link order); set
and frozenset items are sorted by their description, since a set's
iteration order depends on string hashing.
"""
import hashlib
import json

import numpy as np

__all__ = ["describe", "exception_description"]

# string arrays up to this many elements also list their values
_INLINE = 64


def _dtype(dt: np.dtype):
    """dtype.str for plain dtypes; the descr list, byte orders included,
    for structured ones and subarrays. Metadata (h5py notes the encoding
    of a fixed-length string field there) is left out: numpy's dtype
    equality ignores it, and it changes no value."""
    if dt.names is None and dt.subdtype is None:
        return dt.str
    return json.loads(json.dumps(_plain(dt.descr)))


def _plain(descr):
    out = []
    for field in descr:
        fmt = field[1]
        if isinstance(fmt, tuple) and len(fmt) == 2 and isinstance(fmt[1], dict):
            fmt = fmt[0]
        elif isinstance(fmt, list):
            fmt = _plain(fmt)
        out.append((field[0], fmt) + tuple(field[2:]))
    return out


def _bytes_value(b: bytes) -> str:
    return b.decode("latin-1")


def _scalar(v: np.generic) -> dict:
    d = {"type": type(v).__name__, "dtype": _dtype(v.dtype)}
    if isinstance(v, np.void):
        d.update(_fields(v))
    elif isinstance(v, np.str_):
        d["value"] = str(v)
    elif isinstance(v, np.bytes_):
        d["value"] = _bytes_value(bytes(v))
    elif v.dtype.hasobject:
        d["value"] = describe(v.item())
    else:
        d["hex"] = v.tobytes().hex()
    return d


def _fields(v) -> dict:
    """A structured scalar (np.void): its fields in order, each described
    (an object field is the object it holds)."""
    if not v.dtype.hasobject:
        return {"sha256": hashlib.sha256(v.tobytes()).hexdigest()}
    return {"fields": [[n, describe(v[n])] for n in v.dtype.names]}


def _array(v: np.ndarray) -> dict:
    d = {"type": type(v).__name__, "dtype": _dtype(v.dtype), "shape": list(v.shape)}
    if v.dtype.hasobject:
        if v.dtype.names is None:
            d["items"] = [describe(x) for x in v.flat]
        else:
            d["items"] = [_fields(x) for x in np.asarray(v).flat]
        return d
    flat = np.ascontiguousarray(v)
    d["sha256"] = hashlib.sha256(flat.tobytes()).hexdigest()
    if v.dtype.kind == "U" and v.size <= _INLINE:
        d["values"] = [str(x) for x in np.asarray(v).flat]
    elif v.dtype.kind == "S" and v.size <= _INLINE:
        d["values"] = [_bytes_value(bytes(x)) for x in np.asarray(v).flat]
    return d


def describe(v):
    """The description of v (see the module's docstring)."""
    if isinstance(v, dict):
        return {"type": type(v).__name__, "items": [[_key(k), describe(x)] for k, x in v.items()]}
    if isinstance(v, (set, frozenset)):
        items = sorted((describe(x) for x in v), key=lambda d: json.dumps(d, sort_keys=True))
        return {"type": type(v).__name__, "items": items}
    if isinstance(v, (list, tuple)) or type(v).__name__ == "deque":
        return {"type": type(v).__name__, "items": [describe(x) for x in v]}
    if isinstance(v, np.ndarray):
        return _array(v)
    if isinstance(v, np.generic):
        return _scalar(v)
    if v is None:
        return {"type": "NoneType"}
    if isinstance(v, bool):
        return {"type": "bool", "value": v}
    if isinstance(v, int):
        return {"type": type(v).__name__, "value": str(v)}
    if isinstance(v, float):
        return {"type": type(v).__name__, "value": v.hex()}
    if isinstance(v, complex):
        return {"type": type(v).__name__, "value": [v.real.hex(), v.imag.hex()]}
    if isinstance(v, str):
        return {"type": type(v).__name__, "value": str(v)}
    if isinstance(v, (bytes, bytearray)):
        return {"type": type(v).__name__, "value": _bytes_value(bytes(v))}
    return {"type": "%s.%s" % (type(v).__module__, type(v).__qualname__), "repr": repr(v)}


def _key(k):
    return k if isinstance(k, str) else describe(k)


def exception_description(e: BaseException) -> dict:
    """What a reader raised instead of returning a value."""
    return {"exception": type(e).__name__}


def reader_descriptions(path: str) -> dict:
    """What hdf5storage.read('/') and hdf5storage.loadmat return for the
    file at path, described, or the exception each raised: measured in a
    forked child (2 GiB address space, 60 s CPU) so that a file that makes
    the reader grow or loop costs the generator nothing."""
    import os
    import resource

    rd, wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rd)
        out = {}
        try:
            resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
            resource.setrlimit(resource.RLIMIT_CPU, (60, 60))
            import hdf5storage
            for key, call in (("read", lambda: hdf5storage.read(path="/", filename=path)),
                              ("loadmat", lambda: hdf5storage.loadmat(path, appendmat=False))):
                try:
                    out[key] = describe(call())
                except Exception as e:
                    out[key] = exception_description(e)
            data = json.dumps(out).encode()
        except BaseException as e:
            data = json.dumps({"read": exception_description(e), "loadmat": exception_description(e)}).encode()
        while data:
            data = data[os.write(wr, data):]
        os._exit(0)
    os.close(wr)
    chunks = []
    while True:
        b = os.read(rd, 1 << 16)
        if not b:
            break
        chunks.append(b)
    os.close(rd)
    _, status = os.waitpid(pid, 0)
    if not chunks:
        died = {"exception": "process died: status %d" % status}
        return {"read": died, "loadmat": died}
    return json.loads(b"".join(chunks))
