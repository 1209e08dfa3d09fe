# SPDX-License-Identifier: BSD-3-Clause
"""An HDF5 file as the sandboxed child reads it: plain values, no libhdf5.

The child walks the file and sends every object reached from the root by
links, every attribute and every dataset's value; the parent validates
each value with npyguard's own .npy parser before it allocates, and
builds this tree. Readers of the file's conventions (hdf5storage's
MATLAB and Python marshalling, a plain mapping of datasets) work on the
tree, never on the file.

Tree: a dict from absolute path ("/", "/a", "/a/b") to Node, one entry
per path (an object reached by two hard links has two entries).

Values (a dataset's value, each attribute) follow h5py's `ds[()]`, always
as an ndarray (0-d for a scalar dataspace), with three exceptions:
- a null dataspace is Empty(dtype), as h5py's h5py.Empty;
- variable-length strings are object arrays of `bytes` (the stored
  bytes, whatever the character set; the set is in Node.cset and
  Node.attr_cset);
- object references are object arrays of Ref, the absolute path of the
  referenced object (Ref("") for a null reference);
- other variable-length sequences (MATLAB_fields is one) are object
  arrays of 1-d ndarrays of the base type, as h5py gives them.
"""
from dataclasses import dataclass, field
from typing import Dict, Optional, Tuple, Union

import numpy as np

__all__ = ["Ref", "Empty", "Node", "Value", "tree_differences"]


class Ref(str):
    """An object reference: the path of the object it points to."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Ref(%s)" % str.__repr__(self)


@dataclass(frozen=True)
class Empty:
    """A value with a null dataspace (h5py.Empty)."""

    dtype: np.dtype


Value = Union[np.ndarray, Empty]


@dataclass
class Node:
    kind: str                      # "group", "dataset" or "link" (a soft link)
    attrs: Dict[str, Value] = field(default_factory=dict)
    attr_cset: Dict[str, str] = field(default_factory=dict)   # string attributes: "ascii" or "utf-8"
    children: Tuple[str, ...] = ()   # groups: link names, sorted by their UTF-8 bytes
    value: Optional[Value] = None    # datasets: the value; soft links: the target path (str)
    cset: Optional[str] = None       # string datasets: "ascii" or "utf-8"


def _value_bytes(a: np.ndarray) -> bytes:
    """The bytes that hold a's values. An x87 long double fills 10 bytes of
    its 16 and HDF5's conversions leave the other 6 as they find them, so
    two equal values can differ there: those bytes are left out."""
    base = a.dtype.itemsize // 2 if a.dtype.kind == "c" else a.dtype.itemsize
    if a.dtype.kind not in "fc" or base != 16 or np.finfo(np.longdouble).nmant != 63:
        return a.tobytes()
    native = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("="))
    return native.view(np.uint8).reshape(-1, 16)[:, :10].tobytes()


def _value_differences(where: str, a, b) -> list:
    if type(a) is not type(b):
        return ["%s: %s against %s" % (where, type(a).__name__, type(b).__name__)]
    if isinstance(a, Empty):
        return [] if a.dtype == b.dtype else ["%s: Empty(%s) against Empty(%s)" % (where, a.dtype, b.dtype)]
    if not isinstance(a, np.ndarray):
        return [] if a == b else ["%s: %r against %r" % (where, a, b)]
    if a.dtype != b.dtype or a.shape != b.shape:
        return ["%s: %s%s against %s%s" % (where, a.dtype.str, a.shape, b.dtype.str, b.shape)]
    if a.dtype.hasobject:
        for i, (x, y) in enumerate(zip(a.ravel(), b.ravel())):
            if isinstance(x, np.ndarray) and isinstance(y, np.ndarray):
                inner = _value_differences("%s[%d]" % (where, i), x, y)
                if inner:
                    return inner
            elif type(x) is not type(y) or x != y:
                return ["%s[%d]: %r against %r" % (where, i, x, y)]
        return []
    return [] if _value_bytes(a) == _value_bytes(b) else ["%s: values differ" % where]


def tree_differences(a: Dict[str, Node], b: Dict[str, Node]) -> list:
    """What differs between two trees, as readable lines; [] when equal."""
    out = []
    for path in sorted(set(a) | set(b)):
        if path not in a or path not in b:
            out.append("%s: only in the %s tree" % (path, "first" if path in a else "second"))
            continue
        x, y = a[path], b[path]
        for name in ("kind", "children", "cset", "attr_cset"):
            if getattr(x, name) != getattr(y, name):
                out.append("%s: %s %r against %r" % (path, name, getattr(x, name), getattr(y, name)))
        out += _value_differences(path, x.value, y.value)
        for name in sorted(set(x.attrs) | set(y.attrs)):
            if name not in x.attrs or name not in y.attrs:
                out.append("%s@%s: only in one tree" % (path, name))
            else:
                out += _value_differences("%s@%s" % (path, name), x.attrs[name], y.attrs[name])
    return out
