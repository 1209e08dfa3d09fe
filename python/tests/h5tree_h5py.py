# SPDX-License-Identifier: BSD-3-Clause
"""The tree of npyguard._h5tree, built by h5py from the file itself.

What the sandboxed child must send, as the real reader sees the file:
tests compare npyguard's tree with this one, and readers of the tree
(hdf5storage's conventions) can be checked against hdf5storage on the
same file.
"""
import h5py
import numpy as np

from npyguard._h5tree import Empty, Node, Ref


def _cset(dtype):
    info = h5py.check_string_dtype(dtype)
    return None if info is None else ("utf-8" if info.encoding == "utf-8" else "ascii")


def _vlen_str(dtype) -> bool:
    info = h5py.check_string_dtype(dtype)
    return info is not None and info.length is None


def _as_bytes(x):
    return x.encode("utf-8", "surrogateescape") if isinstance(x, str) else bytes(x)


def _value(f, raw, dtype, shape):
    """raw: what h5py returned; dtype and shape: the stored type and dataspace."""
    if shape is None or isinstance(raw, h5py.Empty):
        return Empty(np.dtype(dtype))
    if _vlen_str(dtype):
        out = np.empty(shape, dtype=object)
        flat = np.asarray(raw, dtype=object).reshape(shape)
        for i in np.ndindex(shape):
            out[i] = _as_bytes(flat[i])
        return out
    if h5py.check_ref_dtype(dtype) is h5py.Reference:
        out = np.empty(shape, dtype=object)
        flat = np.asarray(raw, dtype=object).reshape(shape)
        for i in np.ndindex(shape):
            out[i] = Ref(f[flat[i]].name if flat[i] else "")
        return out
    base = h5py.check_vlen_dtype(dtype)
    if base is not None:
        out = np.empty(shape, dtype=object)
        flat = np.asarray(raw, dtype=object).reshape(shape)
        for i in np.ndindex(shape):
            out[i] = np.asarray(flat[i], dtype=base)
        return out
    return np.asarray(raw, dtype=dtype).reshape(shape)


# h5py reads a big-endian complex long double ('>c32') wrongly: a value
# whose bits say 1.5 * 2**996 + 1j comes back as 1.9e-4874 + 1.1e-4893j.
# The same bytes read as its (r, i) pair of '>f16' are the file's values.
C32 = np.dtype(">c32")


def _read(read_into, read, dtype, shape):
    """read(), h5py's value, except for '>c32', read through its pair."""
    if np.dtype(dtype) != C32 or shape is None:
        return read()
    pair = np.empty(shape, dtype=[("r", ">f16"), ("i", ">f16")])
    read_into(pair)
    return pair.view(C32).reshape(shape)


def dataset_value(ds):
    """ds[()] as h5py gives it, '>c32' read through its pair."""
    v = _read(ds.read_direct, lambda: ds[()], ds.dtype, ds.shape)
    return v[()] if ds.dtype == C32 and v.shape == () else v


def _attrs(f, obj):
    values, csets = {}, {}
    for name in obj.attrs:
        aid = obj.attrs.get_id(name)
        values[name] = _value(f, _read(aid.read, lambda: obj.attrs[name], aid.dtype, aid.shape),
                              aid.dtype, aid.shape)
        cset = _cset(aid.dtype)
        if cset:
            csets[name] = cset
    return values, csets


def tree_from_h5py(filename) -> dict:
    nodes = {}
    with h5py.File(filename, "r") as f:
        def visit(path, obj):
            attrs, csets = _attrs(f, obj)
            if isinstance(obj, h5py.Dataset):
                nodes[path] = Node("dataset", attrs, csets, value=_value(f, dataset_value(obj), obj.dtype, obj.shape),
                                   cset=_cset(obj.dtype))
                return
            names = tuple(sorted(obj.keys(), key=lambda s: s.encode("utf-8")))
            nodes[path] = Node("group", attrs, csets, children=names)
            for name in names:
                child = path.rstrip("/") + "/" + name
                link = obj.get(name, getlink=True)
                if isinstance(link, h5py.SoftLink):
                    nodes[child] = Node("link", value=link.path)
                elif isinstance(link, h5py.HardLink):
                    visit(child, obj[name])
                else:
                    raise ValueError("%s: a %s" % (child, type(link).__name__))
        visit("/", f)
    return nodes
