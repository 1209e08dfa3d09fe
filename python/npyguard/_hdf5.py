# SPDX-License-Identifier: BSD-3-Clause
"""HDF5 and MAT v7.3 files loaded through the library's sandbox.

libhdf5 runs only in the caged child of npyguard's helper; this process
gets every value as .npy bytes that the C library validated with its
own parser and limits before allocating, and builds the tree of
npyguard._h5tree from them. Nothing here touches libhdf5.
"""
import collections.abc
import operator
import os
from typing import Any, Dict, Iterator, Optional, Tuple

import numpy as np

from . import _CODES, _DTYPES, _ENOMEM, _LIMITS, _core, _dtype, _error, _os_open
from ._h5tree import Empty, Node, Ref

__all__ = ["load_tree", "load_hdf5_mapping", "HDF5Mapping", "HDF5_LIMITS", "h5py_value"]

_PROTOCOL = _CODES["NPYG_EHDF5_PROTOCOL"]
_ENOTREG = _CODES["NPYG_ENOTREG"]

# {name: (default, smallest, largest)}: the C library's table, the .npy
# parser's limits (each value is a .npy) and the HDF5 walk's and child's.
_TABLE = {k: v[:3] for k, v in _LIMITS.items() if v[3] in ("npy", "hdf5")}

#: The limits load_tree and load_hdf5_mapping accept, with their defaults.
HDF5_LIMITS: Dict[str, int] = {k: v[0] for k, v in _TABLE.items()}


def _checked(limits: Dict[str, Any]) -> Optional[Dict[str, int]]:
    """Each limit by name, an integer within the library's range."""
    out = {}
    for k, v in limits.items():
        if k not in _TABLE:
            raise TypeError("unknown limit %r; known: %s" % (k, ", ".join(_TABLE)))
        if isinstance(v, (bool, np.bool_)) or not hasattr(type(v), "__index__"):
            raise TypeError("%s must be an integer, not %s" % (k, type(v).__name__))
        v = operator.index(v)
        lo, hi = _TABLE[k][1], _TABLE[k][2]
        if not lo <= v <= hi:
            raise ValueError("%s=%d is out of range: %d..%d" % (k, v, lo, hi))
        out[k] = v
    return out or None


def _name(b: bytes) -> str:
    """A path or name as h5py gives it (UTF-8; other bytes kept)."""
    return b.decode("utf-8", "surrogateescape")


def _value(where: str, form: str, null: bool, values: list):
    """One value of the tree from the .npy arrays the child sent."""
    if null:
        return Empty(values[0].dtype if form == "array" else np.dtype(object))
    if form == "array":
        return values[0]
    lengths, data = values
    if int(lengths.sum(dtype=np.uint64)) != data.shape[0]:  # the library checks it too
        raise _error(_PROTOCOL, 0, "%s: lengths that do not sum to the data sent" % where)
    out = np.empty(lengths.shape, dtype=object)
    flat_out = out.reshape(-1)
    raw = data.tobytes() if form != "vlen" else None
    at = 0
    for i, n in enumerate(lengths.reshape(-1).tolist()):
        if form == "str":
            flat_out[i] = raw[at:at + n]
        elif form == "ref":
            flat_out[i] = Ref(_name(raw[at:at + n]))
        else:
            flat_out[i] = data[at:at + n].copy()
        at += n
    return out


def file_size(file) -> int:
    """The size of file (a path, a descriptor or a file object with one):
    what the load budget allows beyond max_load_bytes grows with it."""
    if isinstance(file, (str, bytes, os.PathLike)):
        return os.stat(file).st_size
    fd, _ = _fd_of(file)  # a file object without a descriptor: the load's own error
    return os.fstat(fd).st_size


def _fd_of(file) -> Tuple[int, bool]:
    """A descriptor for file (a path, a descriptor or a file object with
    one) and whether it is ours to close."""
    if isinstance(file, int):
        return file, False
    if isinstance(file, (str, bytes, os.PathLike)):
        return _os_open(file), True
    fileno = getattr(file, "fileno", None)
    if fileno is None:
        raise TypeError("an HDF5 file is read from a path or a regular file's descriptor")
    try:  # a BytesIO has fileno(), which says it has none
        return fileno(), False
    except (OSError, ValueError) as e:
        raise _error(_ENOTREG, 0, "an HDF5 or MAT v7.3 file is read from a path, a descriptor or a "
                                  "regular file's file object, not %s" % type(file).__name__) from e


def load_tree(file, *, strict: bool = False, helper: Optional[str] = None, **limits: int) -> Dict[str, Node]:
    """Every path of an HDF5 or MAT v7.3 file and its values, read by
    libhdf5 in npyguard's sandbox: a dict path -> Node (npyguard._h5tree).

    file     -- a path, a descriptor or a file object of a regular file.
    strict   -- the strict profile (hdf5storage attribute mistakes refuse).
    helper   -- the helper program's path (default: $NPYG_HDF5_HELPER,
                next to the library, LIBEXECDIR/npyguard).
    **limits -- any of HDF5_LIMITS: the .npy parser's (max_payload_bytes
                bounds every value) and the HDF5 walk's and child's
                (max_objects, max_paths, hdf5_memory_bytes, ...).

    A hazard, a limit, a crash of the child or a value the parser refuses
    raises the matching npyguard.Error with the object path.
    """
    checked = _checked(limits)
    fd, own = _fd_of(file)
    try:
        records = _core.hdf5_load(fd, bool(strict), checked, helper, _DTYPES, _dtype, np.empty)
    except MemoryError as e:
        # a value this process cannot allocate, though within the limits
        raise _error(_ENOMEM, 0, "cannot allocate the values of this file: %s" % (e or "out of memory")) from e
    finally:
        if own:
            os.close(fd)
    nodes: Dict[str, Node] = {}
    for kind, path, name, target, form, cset, null, values in records:
        p = _name(path)
        if kind == "attribute":
            n = _name(name)
            where = "%s@%s" % (p, n)
            node = nodes.get(p)
            if node is None or n in node.attrs:
                raise _error(_PROTOCOL, 0, "%s: an attribute out of place" % where)
            node.attrs[n] = _value(where, form, null, values)
            if cset:
                node.attr_cset[n] = cset
            continue
        if p in nodes:
            raise _error(_PROTOCOL, 0, "%s: sent twice" % p)
        if kind == "group":
            nodes[p] = Node("group")
        elif kind == "link":
            nodes[p] = Node("link", value=_name(target))
        else:
            nodes[p] = Node("dataset", value=_value(p, form, null, values), cset=cset)
    children: Dict[str, list] = {}
    for p in nodes:
        if p != "/":
            parent, _, leaf = p.rpartition("/")
            children.setdefault(parent or "/", []).append(leaf)
    for p, names in children.items():
        node = nodes.get(p)
        if node is None or node.kind != "group":
            raise _error(_PROTOCOL, 0, "%s: a path under something that is not a group" % p)
        node.children = tuple(sorted(names, key=lambda s: s.encode("utf-8", "surrogateescape")))
    return nodes


def h5py_value(value):
    """A dataset's value of the tree as h5py's ds[()] gives it: for a
    scalar dataspace the element itself (a numpy scalar such as
    numpy.int16, bytes for a string, an ndarray for a sequence), not a
    0-d array."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value[()]
    return value


class HDF5Mapping(collections.abc.Mapping):
    """Dataset paths ("/a/b") to their values, read-only, as h5py's ds[()]
    gives them (h5py_value); Empty for a null dataspace, object references
    as Ref paths."""

    def __init__(self, tree: Dict[str, Node]):
        self._data = {p: h5py_value(n.value) for p, n in tree.items() if n.kind == "dataset"}

    def __getitem__(self, path: str):
        return self._data[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return "HDF5Mapping(%s)" % ", ".join(self._data)


def load_hdf5_mapping(file, *, strict: bool = False, helper: Optional[str] = None, **limits: int) -> HDF5Mapping:
    """A plain HDF5 file's datasets, read in npyguard's sandbox: a
    read-only Mapping of dataset paths to their values. Arguments and
    errors as for load_tree."""
    return HDF5Mapping(load_tree(file, strict=strict, helper=helper, **limits))
