# SPDX-License-Identifier: BSD-3-Clause
"""hdf5storage's conventions, decoded from a tree of validated values.

``read_tree(tree, path)`` returns what ``hdf5storage.read(path,
filename=file)`` returns and ``loadmat_tree(tree)`` what
``hdf5storage.loadmat(file)`` returns (hdf5storage 0.1.19: its Python
attributes ``Python.*`` and MATLAB's ``MATLAB_*``), for files hdf5storage
wrote and files laid out as MATLAB writes them. The tree (npyguard._h5tree)
holds every object and attribute as plain values; nothing here opens the
file, evaluates, unpickles or imports anything a file names.

What hdf5storage would make from a declaration rather than from stored
values (``np.zeros(shape)`` for ``Python.Shape`` or ``MATLAB_empty``, a
struct array as large as its longest field) is counted before it is
made: every array the decoder creates counts against
``max_payload_bytes`` (NPYG_ELIMIT_PAYLOAD) and against the load budget,
``max_load_bytes`` plus 100 bytes per byte of the file
(NPYG_ELIMIT_LOAD: a value reached by many references is counted, and
copied, once per reference, as hdf5storage copies it), and what is made
from a declaration alone also against ``inflate_budget_bytes``
(NPYG_EHDF5_INFLATE), as the scan counts such values. Character data is
decoded with numpy operations over all strings at once, at a cost
linear in its bytes. As in the scan,
references are followed at most ``max_ref_depth`` inside one another
(NPYG_ELIMIT_REFDEPTH), groups nest at most ``max_nesting`` deep
(NPYG_ELIMIT_NESTING) and at most ``max_paths`` objects are read
(NPYG_ELIMIT_PATHS); a reference back into an object being read is a
cycle (NPYG_EHDF5_REFCYCLE), a soft link back into one or to nothing
NPYG_EHDF5_SOFTLINK, a reference to nothing NPYG_EHDF5_REFDANGLE. Each
error is of the class the library gives its code (LimitError,
UnsafeError).

Where hdf5storage itself raises on a value (a sparse logical, a char
array whose code units are not UTF-16, a struct whose MATLAB_fields names
a member it does not hold), ``read_tree`` raises NotLoadableError
(NPYG_EHDF5_FORMAT) naming the object, and ``loadmat_tree``, like
loadmat, leaves that variable out; a dict or struct member hdf5storage
cannot read is left out as hdf5storage leaves it out. Every error names
the object path first in its message and in ``member``.
"""
import collections
import contextlib
import math
import operator
import posixpath
from typing import Any, Dict, Optional

import numpy as np

from . import _CODES, _LIMITS, Error, _core
from ._h5tree import Empty, Node, Ref

__all__ = ["read_tree", "loadmat_tree", "loadmat", "load_hdf5"]

_REFS = "/#refs#"

# npyguard's codes, by their names in the library's table
_E_PAYLOAD = _CODES["NPYG_ELIMIT_PAYLOAD"]
_E_SOFTLINK = _CODES["NPYG_EHDF5_SOFTLINK"]
_E_REFCYCLE = _CODES["NPYG_EHDF5_REFCYCLE"]
_E_REFDANGLE = _CODES["NPYG_EHDF5_REFDANGLE"]
_E_FORMAT = _CODES["NPYG_EHDF5_FORMAT"]
_E_NESTING = _CODES["NPYG_ELIMIT_NESTING"]
_E_PATHS = _CODES["NPYG_ELIMIT_PATHS"]
_E_REFDEPTH = _CODES["NPYG_ELIMIT_REFDEPTH"]
_E_INFLATE = _CODES["NPYG_EHDF5_INFLATE"]
_E_NOMEM = _CODES["NPYG_ENOMEM"]
_E_LOAD = _CODES["NPYG_ELIMIT_LOAD"]
# the load budget's allowance per byte of the file (NPYG_LOAD_BYTES_PER_BYTE)
_LOAD_PER_BYTE = _core.LOAD_BYTES_PER_BYTE

# the decoder's limits, with the library's defaults (the HDF5 ones as the
# scan's, the others as load's)
_TREE_LIMITS = ("max_payload_bytes", "inflate_budget_bytes", "max_ref_depth", "max_nesting", "max_paths",
                "max_load_bytes")
_DEFAULTS = {k: v[0] for k, v in _LIMITS.items() if k in _TREE_LIMITS}
_MAX_SOFTLINK_HOPS = 16  # libhdf5's limit on nested soft links (H5L_NUM_LINKS)

# what hdf5storage takes for a numpy value in a struct's field
_NUMPY_TYPES = (np.ndarray, np.matrix, np.chararray, np.recarray, np.bool_, np.void,
                np.uint8, np.uint16, np.uint32, np.uint64, np.int8, np.int16, np.int32, np.int64,
                np.float32, np.float64, np.complex64, np.complex128, np.bytes_, np.str_, np.object_)
# The names hdf5storage and MATLAB write, as the library checks them
# (parser/src/hdf5/storage.def); what this module does with each is its own.
_RULES = _core.storage_rules()
# Python.Type -> how the value is returned; _read returns None, a list and
# a dict itself (_BY_READ); any other, numpy's, and a missing Python.Type,
# is read as a numpy value
_SCALARS = {"bool": bool, "int": int, "long": int, "float": float, "complex": complex}
_STRINGS = ("str", "bytes", "bytearray")
_SEQUENCES = {"tuple": tuple, "set": set, "frozenset": frozenset, "collections.deque": collections.deque}
_BY_READ = ("builtins.NoneType", "list", "dict")
# Python.numpy.Container -> what python_value makes ("recarray" comes from
# Python.Type numpy.recarray)
_CONTAINERS = ("scalar", "matrix", "chararray", "ndarray")
# what each kind of value accepts as "all the same" in a struct's field
_KIND_TYPES = {
    "numpy": _NUMPY_TYPES + (np.float16,),
    "scalar": (bool, int, float, complex),
    "string": (str, bytes, bytearray),
    "list": (list,),
    "sequence": (tuple, set, frozenset, collections.deque),
}
# MATLAB_class -> the dtype of an empty value and the decoding applied
_MATLAB_DTYPES = {name: np.dtype(numpy).type for name, numpy, _ in _RULES["matlab_classes"] if numpy is not None}
# attributes that make a group member more than an element of a struct array
_TYPED_ATTRS = frozenset(_RULES["string_attrs"] + _RULES["typed_attrs"])
_STRING_ATTRS = _RULES["string_attrs"]


def _check_rules(rules) -> None:
    """The Python.Type values and containers this module reads by name are
    those hdf5storage writes: every Python.Type outside numpy's has its
    reading here, and no name is read that the library does not know."""
    read = set(_SCALARS) | set(_STRINGS) | set(_SEQUENCES) | set(_BY_READ)
    written = {t for t in rules["python_types"] if not t.startswith("numpy.")}
    if read != written or "numpy.recarray" not in rules["python_types"]:
        raise ImportError("npyguard._matlab reads the Python.Type values %s, hdf5storage writes %s"
                          % (sorted(read), sorted(written)))
    if not set(_CONTAINERS) <= set(rules["containers"]):
        raise ImportError("npyguard._matlab reads containers %s, hdf5storage writes %s"
                          % (sorted(_CONTAINERS), sorted(rules["containers"])))


_check_rules(_RULES)

# what numpy raises when hdf5storage's own operation on a value fails
_VALUE_FAULTS = (ValueError, TypeError, IndexError, KeyError, AttributeError, ZeroDivisionError,
                 OverflowError, UnicodeError)


class _Fails(Exception):
    """hdf5storage raises on this object: loadmat leaves it out."""

    def __init__(self, path: str, why: str):
        super().__init__(path, why)
        self.path = path
        self.why = why


def _error(code: int, path: str, message: str, cls=None):
    """npyguard's error for code, naming the object path (in member and
    the message); cls overrides the class the library gives the code."""
    from . import _core, _make_error
    name, klass = _core.error_info(code)
    message = "%s: %s" % (path, message)
    if cls is None:
        return _make_error(code, name, klass, 0, message, "file", path)
    return cls(code, name, klass, 0, message, "file", path)


def _limit(limits: Dict[str, Any], name: str) -> int:
    v = limits.get(name)
    if v is None:
        return _DEFAULTS[name]
    if isinstance(v, (bool, np.bool_)) or not hasattr(type(v), "__index__"):
        raise TypeError("%s must be an integer, not %s" % (name, type(v).__name__))
    v = operator.index(v)
    if v < 0:
        raise ValueError("%s=%d is out of range" % (name, v))
    return v


class _Decoder:
    def __init__(self, tree: Dict[str, Node], matlab: bool, limits: Dict[str, Any], owned: bool = False,
                 file_size: int = 0):
        unknown = set(limits) - set(_TREE_LIMITS)
        if unknown:
            raise TypeError("unknown limit %r" % sorted(unknown)[0])
        self.tree = tree
        # loadmat reverses every array's dimensions (MATLAB is column-major)
        self.reverse = matlab
        self.max_payload = _limit(limits, "max_payload_bytes")
        self.max_inflate = _limit(limits, "inflate_budget_bytes")
        self.max_depth = _limit(limits, "max_ref_depth")
        self.max_nesting = _limit(limits, "max_nesting")
        self.max_paths = _limit(limits, "max_paths")
        # what the caller will hold, as the scan and the load count it
        self.max_load = _limit(limits, "max_load_bytes")
        self.load_budget = self.max_load + _LOAD_PER_BYTE * file_size
        self.made = 0        # bytes of every array made
        self.declared = 0    # bytes made from declarations alone
        self.paths = 0
        self.reading = []    # the objects being read, outermost first
        self.refs = 0        # references followed to reach the innermost
        # a tree no caller holds hands each dataset's value out once
        # without a copy; a value read again is a copy, as every read
        # of hdf5storage's is a new array
        self.owned = owned
        self.handed = set()
        self.kids: Dict[str, frozenset] = {}

    # ------------------------------------------------------------ the tree

    def resolve(self, path: str, where: str):
        """(path, node) of the object at path, soft links followed; None
        when nothing is there."""
        parts = [p for p in path.split("/") if p and p != "."]
        cur, hops = "/", 0
        if "/" not in self.tree:
            return None
        while parts:
            name = parts.pop(0)
            here = self.tree.get(cur)
            if here is None or here.kind != "group" or name not in self._children(cur, here):
                return None
            child = cur.rstrip("/") + "/" + name
            node = self.tree.get(child)
            if node is None:
                return None
            if node.kind == "link":
                hops += 1
                if hops > _MAX_SOFTLINK_HOPS or not isinstance(node.value, str):
                    raise _error(_E_SOFTLINK, where, "soft links nested deeper than %d" % _MAX_SOFTLINK_HOPS)
                target = node.value
                parts = [p for p in target.split("/") if p and p != "."] + parts
                if target.startswith("/"):
                    cur = "/"
                continue
            cur = child
        return cur, self.tree[cur]

    def _children(self, path: str, node: Node) -> frozenset:
        """A group's member names as a set, made once: a cell's N
        references each look their target up in #refs#, and a search of
        its tuple of names made that N * N."""
        kids = self.kids.get(path)
        if kids is None:
            kids = self.kids[path] = frozenset(node.children)
        return kids

    def count(self, nbytes: int, path: str, declared: int = 0):
        """nbytes about to be made, `declared` of them from no stored
        value (zeros hdf5storage makes from a shape)."""
        self.made += nbytes
        if self.made > self.max_payload:
            raise _error(_E_PAYLOAD, path, "the values made reach %d bytes, over max_payload_bytes (%d)"
                         % (self.made, self.max_payload))
        if declared:
            self.declared += declared
            if self.declared > self.max_inflate:
                raise _error(_E_INFLATE, path, "%d bytes made from declared shapes alone, over "
                             "inflate_budget_bytes (%d)" % (self.declared, self.max_inflate))
        if self.made > self.load_budget:
            raise _error(_E_LOAD, path, "the values made reach %d bytes, more than %d, this file's budget "
                         "(max_load_bytes + %d per byte of the file)" % (self.made, self.load_budget, _LOAD_PER_BYTE))

    def zeros(self, shape, dtype, path: str, declared: bool = True) -> np.ndarray:
        """np.zeros(shape, dtype), counted before it is made."""
        try:
            dims = tuple(int(d) for d in shape)
            dt = np.dtype(dtype)
        except Error:  # npyguard's own refusals are ValueErrors too: they stand
            raise
        except _VALUE_FAULTS as e:
            raise _Fails(path, "no array of shape %r: %s" % (shape, e))
        if any(d < 0 for d in dims):
            raise _Fails(path, "negative dimensions %r" % (dims,))
        n = dt.itemsize or (4 if dt.kind == "U" else 1)  # numpy makes U0 and S0 one character
        for d in dims:
            n *= d
        self.count(n, path, n if declared else 0)
        try:
            return np.zeros(shape, dtype=dtype)
        except Error:  # npyguard's own refusals are ValueErrors too: they stand
            raise
        except _VALUE_FAULTS as e:
            raise _Fails(path, str(e))

    # ----------------------------------------------------------- attributes

    def attrs(self, node: Node) -> Dict[str, Any]:
        """The attributes as h5py hands them to hdf5storage: a scalar as a
        numpy scalar (a fixed string as numpy.bytes_), variable-length
        strings as str."""
        return {k: _as_h5py(v) for k, v in node.attrs.items()}

    @staticmethod
    def text(path: str, value) -> Optional[str]:
        """A string attribute as hdf5storage reads it; None when it is no
        string."""
        if isinstance(value, str):
            return str(value)
        if isinstance(value, bytes):
            try:
                return bytes(value).decode()
            except UnicodeDecodeError as e:
                raise _Fails(path, "a string attribute that is not UTF-8: %s" % e)
        return None

    # -------------------------------------------------------------- reading

    def read(self, path: str, via_ref: bool = False):
        """hdf5storage's read of the object at path: its Python.Type first,
        then its MATLAB_class, decide how."""
        found = self.resolve(path, path)
        if found is None:
            raise _error(_E_SOFTLINK if self._through_softlink(path) else _E_FORMAT, path,
                         "no object at this path", _hdf5_error())
        where, node = found
        if where in self.reading:
            if self._through_softlink(path):
                raise _error(_E_SOFTLINK, path, "a soft link to %s, which is being read" % where)
            raise _error(_E_REFCYCLE, path, "a reference back to %s, which is being read" % where)
        self.paths += 1
        if self.paths > self.max_paths:
            raise _error(_E_PATHS, path, "more than max_paths (%d) objects read" % self.max_paths)
        if where.count("/") > self.max_nesting:
            raise _error(_E_NESTING, path, "groups nested deeper than max_nesting (%d)" % self.max_nesting)
        if self.refs + via_ref > self.max_depth:
            raise _error(_E_REFDEPTH, path, "references followed more than max_ref_depth (%d) deep"
                         % self.max_depth)
        # every object read inside another is a frame of this process's
        # stack: no deeper than the two limits together
        if len(self.reading) >= self.max_depth + self.max_nesting:
            raise _error(_E_REFDEPTH, path, "objects read more than max_ref_depth + max_nesting (%d) "
                         "inside one another" % (self.max_depth + self.max_nesting))
        self.reading.append(where)
        self.refs += via_ref
        try:
            return self._read(path, node)
        except Error:  # npyguard's own refusals are ValueErrors too: they stand
            raise
        except _VALUE_FAULTS as e:
            raise _Fails(path, "%s: %s" % (type(e).__name__, e))
        finally:
            self.reading.pop()
            self.refs -= via_ref

    def _through_softlink(self, path: str) -> bool:
        cur = ""
        for name in [p for p in path.split("/") if p]:
            cur += "/" + name
            node = self.tree.get(cur)
            if node is None:
                return False
            if node.kind == "link":
                return True
        return False

    def _read(self, path: str, node: Node):
        attrs = self.attrs(node)
        type_string = self.text(path, attrs.get("Python.Type"))
        self.text(path, attrs.get("MATLAB_class"))  # read, as hdf5storage reads it, whatever the type
        if type_string is None:
            return self.numpy(path, node, attrs, "numpy")
        if type_string == "builtins.NoneType":
            return None
        if type_string == "dict":
            return self.read_dict(path, node)
        if type_string in _SCALARS:
            data = self.numpy(path, node, attrs, "scalar")
            return _SCALARS[type_string](data.item())
        if type_string in _STRINGS:
            data = self.numpy(path, node, attrs, "string")
            if type_string == "str":
                return _to_str(data)
            return bytes(data) if type_string == "bytes" else bytearray(data)
        if type_string == "list":
            return list(self.numpy(path, node, attrs, "list"))
        if type_string in _SEQUENCES:
            return _SEQUENCES[type_string](list(self.numpy(path, node, attrs, "sequence")))
        return self.numpy(path, node, attrs, "numpy")

    def read_dict(self, path: str, node: Node) -> dict:
        if node.kind != "group":
            raise _Fails(path, "a dict that is not a group")
        out = {}
        for name in node.children:
            child = path.rstrip("/") + "/" + name
            if self._is_refs(child):
                continue
            try:
                out[name] = self.read(child)
            except _Fails:
                pass  # hdf5storage leaves out a member it cannot read
        return out

    def _member(self, path: str):
        """(path, node) of a group's member, soft links followed; None for
        the references group, which no reader returns."""
        found = self.resolve(path, path)
        if found is None:
            raise _error(_E_SOFTLINK, path, "a soft link to an object that is not in the file")
        return None if found[0] == _REFS else found

    def _is_refs(self, path: str) -> bool:
        return self._member(path) is None

    def dataset_value(self, path: str, node: Node):
        value = node.value
        if isinstance(value, Empty) or not isinstance(value, np.ndarray):
            raise _Fails(path, "a dataset with no value (null dataspace)")
        if _is_refs_array(value, node.cset):
            out = self.zeros(value.shape, object, path, declared=False)
            for index, ref in np.ndenumerate(value):
                if not isinstance(ref, Ref) or not ref:
                    raise _error(_E_REFDANGLE, path, "a null reference at %s" % (index,))
                if self.resolve(str(ref), path) is None:
                    raise _error(_E_REFDANGLE, path, "the reference at %s points at %s, which is not in the file"
                                 % (index, ref))
                out[index] = self.read(str(ref), via_ref=True)
            return out
        self.count(value.nbytes, path)
        if self.owned and id(node) not in self.handed:
            self.handed.add(id(node))
            return value
        return value.copy()

    def numpy(self, path: str, node: Node, attrs: Dict[str, Any], kind: str):
        """hdf5storage's numpy reading, which every other kind builds on."""
        s = {k: self.text(path, attrs.get(k)) for k in _STRING_ATTRS}
        type_string, underlying = s["Python.Type"], s["Python.numpy.UnderlyingType"]
        container, matlab_class = s["Python.numpy.Container"], s["MATLAB_class"]
        shape = attrs.get("Python.Shape")
        python_fields = attrs.get("Python.Fields")
        if python_fields is not None:
            python_fields = [_to_str(x) for x in _iterable(path, python_fields)]
        raw_fields = attrs.get("MATLAB_fields")
        matlab_fields = None if raw_fields is None else _FieldNames(path, raw_fields)

        if node.kind == "dataset":
            data = self.dataset_value(path, node)
        else:
            data = self.struct(path, node, kind, python_fields, matlab_fields)

        if type_string is not None and underlying is not None and shape is not None:
            return self.python_value(path, data, type_string, underlying, container, matlab_class,
                                     _shape(path, shape), _is_one(path, attrs.get("Python.Empty")),
                                     python_fields, matlab_fields)
        if matlab_class in _MATLAB_DTYPES:
            return self.matlab_value(path, data, matlab_class, _is_one(path, attrs.get("MATLAB_empty")),
                                     matlab_fields)
        return data

    def struct(self, path: str, node: Node, kind: str, python_fields, matlab_fields) -> np.ndarray:
        """A group read as a structured array, one field per member."""
        members = collections.OrderedDict()
        elements = True  # every member a reference per element: a struct array
        for name in node.children:
            child = path.rstrip("/") + "/" + name
            found = self._member(child)
            if found is None:
                continue
            cnode = found[1]
            if (cnode.kind != "dataset" or not _is_refs_array(cnode.value, cnode.cset)
                    or _TYPED_ATTRS & set(cnode.attrs)):
                elements = False
            try:
                members[name] = self.read(child)
            except _Fails:
                pass  # hdf5storage leaves out a member it cannot read
        if not elements:
            for name, v in members.items():
                one = np.empty((1,), dtype=object)
                one[0] = v
                members[name] = one
        if python_fields is not None or matlab_fields is not None:
            fields = python_fields if python_fields is not None else list(matlab_fields.names())
            fields.extend(sorted(set(members) - set(fields)))
        else:
            fields = sorted(members)
        if not fields:
            raise _Fails(path, "a struct with no fields")
        types = _KIND_TYPES[kind]
        layout = []
        for name in fields:
            if name not in members:
                why = "cannot be read" if name in node.children else "is not in the group"
                raise _Fails(path, "field %r is named but its member %s" % (name, why))
            v = members[name]
            if v.size == 0 or type(v.flat[0]) not in _NUMPY_TYPES:
                layout.append((name, "object"))
                continue
            first = v.flat[0]
            same = all(isinstance(x, types) and x.dtype == first.dtype and x.shape == first.shape
                       for x in v.flat)
            layout.append((name, first.dtype, first.shape) if same else (name, "object"))
        dt = np.dtype(layout)
        last = members[fields[-1]]
        # as long as the last field, each element as wide as all fields:
        # what the members do not hold is made from nothing
        held = sum(members[name].size * dt.fields[name][0].itemsize for name in fields)
        self.count(0, path, max(0, math.prod(last.shape) * dt.itemsize - held))
        if dt.itemsize == 0:
            data = self.zeros(last.shape, np.int8, path, declared=False).astype(dt)
        else:
            data = self.zeros(last.shape, dt, path, declared=False)
        for name, v in members.items():
            if all(data.shape) and all(v.shape):
                for index, x in np.ndenumerate(v):
                    data[name][index] = x
        return data

    def python_value(self, path, data, type_string, underlying, container, matlab_class, shape, python_empty,
                     python_fields, matlab_fields):
        """A value hdf5storage wrote with its Python attributes."""
        flip = matlab_class is not None or self.reverse
        if python_empty:
            if underlying.startswith("bytes"):
                n = 1 if underlying == "bytes" else int(int(underlying[5:]) / 8)
                data = self.zeros(shape, "S%d" % n, path)
            elif underlying.startswith("str"):
                n = 1 if underlying == "str" else int(int(underlying[3:]) / 32)
                data = self.zeros(shape, "U%d" % n, path)
            elif python_fields is not None or matlab_fields is not None:
                names = python_fields if python_fields is not None else matlab_fields.names()
                data = self.zeros(shape, [(k, "object") for k in names], path)
            else:
                data = self.zeros(shape, underlying, path)
            if flip:
                data = data.T
        if underlying.startswith("complex"):
            data = self.as_complex(path, data)
        if underlying == "bool" and data.dtype.name != "bool":
            data = np.bool_(data)
        if flip:
            data = data.T
        if underlying.startswith("bytes"):
            data = np.bytes_(b"") if underlying == "bytes" else self.to_bytes(path, data, int(underlying[5:]) // 8)
        elif underlying.startswith("str") or matlab_class == "char":
            if underlying == "str":
                data = np.str_("")
            elif underlying.startswith("str"):
                data = self.to_text(path, data, int(underlying[3:]) // 32)
            else:
                data = self.to_text(path, data, None)
        if tuple(shape) != data.shape and np.prod(shape) == np.prod(data.shape):
            data = data.reshape(tuple(shape))
        if type_string == "numpy.recarray":
            data = data.view(np.recarray)
        if container == "scalar":
            if underlying.startswith("bytes"):
                if python_empty:
                    data = np.bytes_(b"")
                elif isinstance(data, np.ndarray):
                    data = data.flatten()[0]
            elif underlying.startswith("str"):
                if python_empty:
                    data = np.str_("")
                elif isinstance(data, np.ndarray):
                    data = data.flatten()[0]
            else:
                data = data.flatten()[0]
        elif container == "matrix":
            data = np.asmatrix(data)
        elif container == "chararray":
            data = data.view(np.chararray)
        elif container == "ndarray":
            data = np.asarray(data)
        return data

    def matlab_value(self, path, data, matlab_class, matlab_empty, matlab_fields):
        """A value with MATLAB's attributes only."""
        if matlab_empty:
            dims = tuple(np.uint64(data))
            if matlab_fields is None:
                data = self.zeros(dims, _MATLAB_DTYPES[matlab_class], path)
            else:
                data = self.zeros(dims, [(k, "object") for k in matlab_fields.names()], path)
        data = data.T
        if matlab_class in ("single", "double"):
            data = self.as_complex(path, data)
        if matlab_class == "logical":
            data = np.bool_(data)
        if matlab_class == "char":
            data = self.to_text(path, data, None)
        return data

    # ---------------------------------------------------------- conversions

    def as_complex(self, path: str, data):
        """A compound of a real and an imaginary field as complex."""
        names = data.dtype.names
        if names is None or len(names) != 2:
            return data
        re_name = im_name = None
        for n in names:
            if n.lower() in ("r", "re", "real"):
                re_name = n
            elif n.lower() in ("i", "im", "imag", "imaginary"):
                im_name = n
        if re_name is None or im_name is None:
            return data
        kind = np.result_type(data[re_name].dtype, data[im_name].dtype, "complex64")
        self.count(math.prod(data.shape) * kind.itemsize, path)
        out = kind.type(data[re_name])
        out.imag = data[im_name]
        return out

    def to_text(self, path: str, data, length: Optional[int]):
        """Code units (uint8 UTF-8, uint16 UTF-16, uint32 code points) or
        bytes as numpy str, one string per `length` units of the last
        dimension (all of it when length is None)."""
        if isinstance(data, np.str_) or (isinstance(data, np.ndarray) and data.dtype.char == "U"):
            return data
        if isinstance(data, str):
            return np.str_(data)
        if isinstance(data, (bytes, bytearray)):
            return np.str_(bytes(data).decode("UTF-8"))
        if isinstance(data, (np.uint8, np.uint16)):
            return np.str_(_to_str(data))
        if isinstance(data, np.uint32):
            return np.ndarray(shape=(), dtype="U1", buffer=data.flatten().tobytes())[()]
        if not isinstance(data, np.ndarray):
            return data
        if data.dtype.char == "S":
            out = self.zeros(data.shape, "U%d" % data.dtype.itemsize, path, declared=False)
            for index, x in np.ndenumerate(data):
                out[index] = np.str_(x.decode("UTF-8"))
            return out
        if data.dtype.name not in ("uint8", "uint16", "uint32"):
            return data
        dims = list(data.shape)
        if not dims:
            return self.to_text(path, data[()], None)
        if length is None:
            length = dims[-1]
        if len(dims) == 1:
            dims = [dims[0] // length]
        else:
            dims[-1] //= length
        out = self.zeros((math.prod(dims),), "U%d" % length, path, declared=False)
        rows = out.shape[0]
        # the code units of each string, as the bytes hdf5storage decodes
        raw = np.ascontiguousarray(data).reshape(-1).view(np.uint8)[:rows * length * data.dtype.itemsize]
        out[...] = _code_points(path, raw, data.dtype.itemsize, rows, length).view(out.dtype).reshape(rows)
        return out.reshape(tuple(dims))

    def to_bytes(self, path: str, data, length: int):
        """As to_text, to numpy bytes (hdf5storage's reading of bytes<N>)."""
        if isinstance(data, np.bytes_) or (isinstance(data, np.ndarray) and data.dtype.char == "S"):
            return data
        if isinstance(data, (bytes, bytearray)):
            return np.bytes_(data)
        if isinstance(data, str):
            return np.bytes_(data.encode("UTF-8"))
        if isinstance(data, (np.uint16, np.uint32)):
            return np.bytes_(_to_str(data).encode("UTF-8"))
        if isinstance(data, np.uint8):
            return np.ndarray(shape=(), dtype="S1", buffer=data.flatten().tobytes())[()]
        if not isinstance(data, np.ndarray):
            return data
        if data.dtype.char == "U":
            out = self.zeros(data.shape, "S%d" % data.dtype.itemsize, path, declared=False)
            for index, x in np.ndenumerate(data):
                out[index] = np.bytes_(x.encode("UTF-8"))
            return out
        if data.dtype.name not in ("uint8", "uint16", "uint32"):
            return data
        dims = list(data.shape)
        if not dims:
            return self.to_bytes(path, data[()], length)
        if len(dims) == 1:
            dims = [dims[0] // length]
        else:
            dims[-1] //= length
        out = self.zeros((math.prod(dims),), "S%d" % length, path, declared=False)
        flat = data.flatten()
        for i in range(out.shape[0]):
            chunk = flat[i * length:(i + 1) * length]
            if flat.dtype.name == "uint8":
                out[i] = np.ndarray(shape=(), dtype=out.dtype, buffer=chunk.tobytes())[()]
            else:
                out[i] = np.bytes_(_to_str(chunk).encode("UTF-8"))
        return out.reshape(tuple(dims))



# ------------------------------------------------------- text, vectorised
#
# hdf5storage decodes a character array one string at a time in Python
# (bytes(...).decode for every row); a 30-million-element MATLAB char
# column is 30 million calls. These give the same strings (or refuse the
# same inputs) with numpy operations over all rows at once, at a cost
# linear in the bytes whatever the rows hold: each is a (rows, length)
# array of code points, zero-padded, which numpy views as 'U<length>'.

def _code_points(path: str, raw: np.ndarray, unit: int, rows: int, length: int) -> np.ndarray:
    """raw: rows * length code units of `unit` bytes, as stored."""
    if unit == 4:
        # the units as numpy's UCS4 in native order, as hdf5storage reads
        # them; past U+10FFFF numpy makes no str of one (SystemError)
        cp = np.ascontiguousarray(raw.view(np.uint32).reshape(rows, length))
        if cp.size and int(cp.max()) > 0x10FFFF:
            raise _Fails(path, "UTF-32 data with a unit past U+10FFFF")
        return cp
    if unit == 2:
        return _utf16_rows(path, raw.view("<u2").reshape(rows, length).astype(np.uint32))
    return _utf8_rows(path, raw.reshape(rows, length))


def _utf16_rows(path: str, u: np.ndarray) -> np.ndarray:
    """Each row decoded as bytes.decode("UTF-16") decodes it: a leading
    byte-order mark taken away (FE FF: the rest is big-endian), surrogate
    pairs joined, a lone surrogate an error."""
    rows, length = u.shape
    if not rows or not length:
        return u
    keep = np.ones(u.shape, dtype=bool)
    swapped = u[:, 0] == 0xFFFE
    if swapped.any():
        u[swapped] = ((u[swapped] & 0xFF) << 8) | (u[swapped] >> 8)
    keep[:, 0] = (u[:, 0] != 0xFEFF) & ~swapped
    sur = keep & (u >= 0xD800) & (u <= 0xDFFF)
    if not sur.any():
        return _compact(u, keep)
    hi = sur & (u <= 0xDBFF)
    lo = sur & ~hi
    lo_next = np.zeros_like(lo)
    lo_next[:, :-1] = lo[:, 1:]
    hi_before = np.zeros_like(hi)
    hi_before[:, 1:] = hi[:, :-1]
    if (hi & ~lo_next).any() or (lo & ~hi_before).any():
        raise _Fails(path, "char data that is not UTF-16: a lone surrogate")
    after = np.zeros_like(u)
    after[:, :-1] = u[:, 1:]
    u = u.copy()
    u[hi] = 0x10000 + ((u[hi] - 0xD800) << 10) + (after[hi] - 0xDC00)
    return _compact(u, keep & ~lo)


def _compact(u: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The kept code points of each row moved to its start, zeros after."""
    if keep.all():
        return np.ascontiguousarray(u)
    out = np.zeros(u.shape, dtype=np.uint32)
    r, c = np.nonzero(keep)
    out[r, np.cumsum(keep, axis=1)[r, c] - 1] = u[r, c]
    return out


def _utf8_rows(path: str, b: np.ndarray) -> np.ndarray:
    """Each row decoded as bytes.decode("UTF-8") decodes it. A row that
    starts with a continuation byte does not decode on its own; when none
    does, no character crosses a row, and decoding all rows at once
    succeeds exactly when each row would."""
    rows, length = b.shape
    if not rows or not length or int(b.max()) < 0x80:
        return b.astype(np.uint32)
    cont = (b & 0xC0) == 0x80
    if cont[:, 0].any():
        raise _Fails(path, "char data that is not UTF-8: a string starts inside a character")
    try:
        text = b.tobytes().decode("UTF-8")
    except UnicodeDecodeError as e:
        raise _Fails(path, "char data that is not UTF-8: %s" % e)
    cp = np.frombuffer(text.encode("UTF-32-LE"), dtype="<u4")
    counts = (~cont).sum(axis=1)
    r = np.repeat(np.arange(rows), counts)
    c = np.arange(cp.shape[0]) - np.repeat(np.cumsum(counts) - counts, counts)
    out = np.zeros((rows, length), dtype=np.uint32)
    out[r, c] = cp
    return out


# ------------------------------------------------------------------ helpers

class _Reference:
    """An object reference held in an attribute: no string, no number."""

    __slots__ = ("path",)

    def __init__(self, path: str):
        self.path = path


def _as_h5py(value):
    """An attribute value as h5py's attrs[name] returns it."""
    if isinstance(value, Empty) or not isinstance(value, np.ndarray):
        return value
    if value.dtype == object:
        out = np.empty(value.shape, dtype=object)
        for index, x in np.ndenumerate(value):
            if isinstance(x, Ref):
                x = _Reference(str(x))
            elif isinstance(x, bytes):
                x = x.decode("utf-8", "surrogateescape")
            out[index] = x
        return out[()] if out.ndim == 0 else out
    return value[()] if value.ndim == 0 else value


def _is_refs_array(value, cset) -> bool:
    """A reference dataset: an object array of Ref (strings have a cset)."""
    if not isinstance(value, np.ndarray) or value.dtype != object or cset is not None:
        return False
    return all(isinstance(x, Ref) for x in value.flat)


def _is_one(path: str, value) -> bool:
    """hdf5storage's `value == 1` on an attribute."""
    if value is None or isinstance(value, (Empty, str, bytes)):
        return False
    try:
        return bool(np.asarray(value == 1))
    except Error:  # npyguard's own refusals are ValueErrors too: they stand
        raise
    except _VALUE_FAULTS as e:
        raise _Fails(path, "an empty-marker attribute that is not one number: %s" % e)


def _shape(path: str, value):
    """Python.Shape, as hdf5storage takes it: a sequence of dimensions."""
    if not isinstance(value, np.ndarray) or value.ndim != 1 or value.dtype.kind not in "iu":
        raise _Fails(path, "Python.Shape is not a one-dimensional integer array")
    return tuple(value)


def _iterable(path: str, value):
    if not isinstance(value, np.ndarray) or value.ndim != 1:
        raise _Fails(path, "a list of field names that is not a one-dimensional array")
    return list(value)


class _FieldNames:
    """MATLAB_fields, decoded only where hdf5storage uses it: each entry
    a sequence of 1-byte strings."""

    def __init__(self, path: str, raw):
        self.path, self.raw = path, raw

    def names(self) -> list:
        out = []
        for x in _iterable(self.path, self.raw):
            if not isinstance(x, np.ndarray):
                raise _Fails(self.path, "a MATLAB_fields entry that is not a sequence of characters")
            try:
                out.append(x.tobytes().decode())
            except UnicodeDecodeError as e:
                raise _Fails(self.path, "a MATLAB_fields entry that is not UTF-8: %s" % e)
        return out


def _to_str(data):
    """Text from code units or numpy strings, as hdf5storage's
    convert_to_str gives it."""
    if isinstance(data, (np.ndarray, np.uint8, np.uint16, np.uint32, np.bytes_, np.str_)):
        name = data.dtype.name
        if name == "uint8":
            return data.flatten().tobytes().decode("UTF-8")
        if name == "uint16":
            return data.flatten().tobytes().decode("UTF-16")
        if name == "uint32":
            return data.flatten().tobytes().decode("UTF-32")
        if data.dtype.char == "S":
            return data.decode("UTF-8")
        if isinstance(data, np.ndarray):
            return data.flatten().tobytes().decode("UTF-32")
        return data.encode("UTF-32").decode("UTF-32")
    if isinstance(data, bytes):
        return data.decode("UTF-8")
    return data


def _hdf5_error():
    from . import Hdf5Error
    return Hdf5Error


def _raise_fails(e: _Fails):
    from . import NotLoadableError
    raise _error(_E_FORMAT, e.path, "hdf5storage cannot read this object: %s" % e.why, NotLoadableError) from None


# ------------------------------------------------------------------ the API

def read_tree(tree: Dict[str, Node], path: str = "/", *, owned: bool = False, file_size: int = 0, **limits):
    """What ``hdf5storage.read(path, filename=file)`` returns, from the
    file's tree (npyguard._h5tree).

    Keyword limits: max_payload_bytes (every array made, bytes),
    max_load_bytes (every array made, beyond 100 bytes per byte of the
    file of file_size bytes),
    inflate_budget_bytes (arrays made from declared shapes alone, bytes),
    max_ref_depth (references followed one inside another), max_nesting
    (groups below the root), max_paths (objects read). ``owned=True``
    says the caller keeps no other use of the tree: the values are then
    returned without a copy where hdf5storage would make one new array;
    by default the result shares no memory with the tree. Raises Hdf5Error or LimitError naming the object path (in
    ``member`` and the message)."""
    dec = _Decoder(tree, False, limits, owned, file_size)
    norm = posixpath.normpath(path)
    group, name = posixpath.dirname(norm) or "/", posixpath.basename(norm) or "."
    found = dec.resolve(group, group)
    if found is None or found[1].kind != "group":
        raise _error(_E_FORMAT, group, "no group at this path", _hdf5_error())
    target = found[0] if name == "." else found[0].rstrip("/") + "/" + name
    try:
        return dec.read(target)
    except _Fails as e:
        _raise_fails(e)


def loadmat_tree(tree: Dict[str, Node], *, owned: bool = False, file_size: int = 0, **limits) -> dict:
    """What ``hdf5storage.loadmat(file)`` returns, from the file's tree:
    a dict of its variables (every top-level object but ``#refs#``;
    ``#subsystem#``, where MATLAB keeps its classdef objects, is read
    like any other). A variable hdf5storage cannot read is left out, as
    loadmat leaves it out; a hazard (a reference or soft link to nothing,
    a cycle, a limit) raises. Limits and owned as for read_tree."""
    dec = _Decoder(tree, True, limits, owned, file_size)
    root = tree.get("/")
    if root is None or root.kind != "group":
        raise _error(_E_FORMAT, "/", "the file has no root group", _hdf5_error())
    out = {}
    for name in root.children:
        path = "/" + name
        if dec._is_refs(path):
            continue
        try:
            out[name] = dec.read(path)
        except _Fails:
            pass
    return out


def _written_by_hdf5storage(tree: Dict[str, Node]) -> bool:
    for node in tree.values():
        if any(k.startswith("Python.") or k.startswith("MATLAB_") for k in node.attrs):
            return True
    return False



def loadmat(file, **limits) -> dict:
    """Load a MAT v7.3 file as ``hdf5storage.loadmat(file)`` would, safely.

    ``file`` is a path, a descriptor or a file object of a regular file.
    libhdf5 reads it only in npyguard's sandboxed child, which sends every
    value as ``.npy`` bytes that npyguard validates before allocating; the
    values are then decoded here by hdf5storage's rules, with neither
    hdf5storage nor h5py nor libhdf5 in this process. Returns a dict of
    the variables, as loadmat does: MATLAB's own files included (their
    classdef objects come back as hdf5storage gives them, the stored
    uint32 arrays, and ``#subsystem#`` is a variable like any other), a
    variable hdf5storage cannot read left out.

    Keyword arguments are those of the sandboxed load (``strict``,
    ``helper``, the ``.npy`` parser's limits and the HDF5 ones:
    max_objects, max_nesting, max_paths, max_ref_depth, hdf5_memory_bytes,
    hdf5_cpu_seconds, hdf5_wall_seconds, max_load_bytes); max_payload_bytes,
    inflate_budget_bytes, max_paths, max_nesting, max_ref_depth and
    max_load_bytes also bound the decoding (see read_tree). A value this
    process cannot allocate is InputError (NPYG_ENOMEM). A file npyguard refuses, and every hazard,
    raises a subclass of ``npyguard.Error`` naming the object path.

        >>> import npyguard
        >>> m = npyguard.loadmat("results.mat")
        >>> m["x"].shape
    """
    from . import _hdf5
    size = _hdf5.file_size(file)
    with _no_memory_error():
        tree = _hdf5.load_tree(file, **limits)
        return loadmat_tree(tree, owned=True, file_size=size, **_decoder_limits(limits))


def load_hdf5(file, path: str = "/", **limits):
    """Load an HDF5 file, or the object at ``path`` in it, safely.

    A file hdf5storage (or MATLAB) wrote, which carries its ``Python.*``
    or ``MATLAB_*`` attributes, comes back as
    ``hdf5storage.read(path, filename=file)`` returns it: dicts, lists,
    tuples, sets, strings and numpy values with hdf5storage's types,
    dtypes and shapes. Any other HDF5 file comes back as a read-only
    mapping of dataset paths to arrays equal to h5py's ``ds[()]``: the
    datasets below ``path`` (every one for "/"), or the array itself when
    ``path`` names a dataset. libhdf5 runs only in npyguard's
    sandboxed child; every value is validated as a ``.npy`` array before
    it is allocated here. Arguments and errors as for ``loadmat``.

        >>> data = npyguard.load_hdf5("model.h5")               # the whole file
        >>> w = npyguard.load_hdf5("model.h5", "/weights")      # one object
    """
    from . import _hdf5
    size = _hdf5.file_size(file)
    with _no_memory_error():
        return _load_hdf5(_hdf5.load_tree(file, **limits), path, size, limits)


def _load_hdf5(tree, path, size, limits):
    from . import _hdf5
    if not _written_by_hdf5storage(tree):
        root = "/" + path.strip("/")
        node = tree.get(root)
        if node is None:
            raise _error(_E_FORMAT, root, "no object at this path", _hdf5_error())
        if node.kind == "dataset":
            return _hdf5.h5py_value(node.value)
        below = root.rstrip("/") + "/"
        return _hdf5.HDF5Mapping({p: n for p, n in tree.items() if p.startswith(below)})
    return read_tree(tree, path, owned=True, file_size=size, **_decoder_limits(limits))


@contextlib.contextmanager
def _no_memory_error():
    """A value this process cannot allocate, anywhere in a load, is
    npyguard's InputError (NPYG_ENOMEM), not a bare MemoryError."""
    try:
        yield
    except MemoryError as e:
        raise _error(_E_NOMEM, "/", "cannot allocate the values of this file: %s" % (e or "out of memory")) from e


def _decoder_limits(limits: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in limits.items() if k in _TREE_LIMITS}
