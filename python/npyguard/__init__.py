"""Safe loading of untrusted NumPy ``.npy`` and ``.npz`` files.

``npyguard.load`` and ``npyguard.load_npz`` validate and load in one pass,
from one open file: the header is parsed by npyguard's C parser (strict,
allocation-bounded), the payload size is checked against the limits and
against the file, and only then is memory allocated for the array, which
is filled from the same open file. A file npyguard refuses raises a
subclass of ``npyguard.Error`` carrying the C library's ``code``, ``name``,
``offset`` and ``message``; a hostile file never raises a bare
``ValueError`` or a ``MemoryError`` for a size it declared.

    >>> import npyguard
    >>> a = npyguard.load("x.npy")                 # like numpy.load(allow_pickle=False)
    >>> info = npyguard.validate("x.npy", hash=True)
    >>> with npyguard.load_npz("x.npz") as z:
    ...     b = z["weights"]
"""

import collections.abc
import hashlib
import io
import mmap
import os
import stat
from typing import Any, Dict, Optional, Tuple

import numpy as np

from . import _core

__all__ = [
    "load", "load_npz", "validate", "Info", "NpzFile", "LIMITS", "worst_case_alloc",
    "Error", "UsageError", "InputError", "MagicError", "HeaderError", "DescrError", "ShapeError",
    "TruncatedError", "UnsafeError", "LimitError", "StrictError", "ZipError",
]

__version__ = _core.library_version


# ---------------------------------------------------------------- errors

class Error(Exception):
    """A file npyguard refuses (or a read that failed).

    Attributes, exactly as the C library reports them:
      code    -- the stable numeric code (an ``npyg_status``)
      name    -- its symbolic name, e.g. ``"NPYG_EOBJECT"``
      klass   -- the error class, e.g. ``"unsafe"``
      offset  -- byte offset of the fault, in offset_space
      message -- one line describing the fault
      offset_space -- what offset counts in: "file" (the .npy input),
                 "archive" (the .npz as stored) or "member" (the
                 decompressed bytes of an archive member)
    """

    def __init__(self, code: int, name: str, klass: str, offset: int, message: str, offset_space: str = "file"):
        super().__init__(f"{name} at byte {offset} of the {offset_space}: {message}")
        self.code = code
        self.name = name
        self.klass = klass
        self.offset = offset
        self.message = message
        self.offset_space = offset_space


class UsageError(Error):
    """Misuse of the library (class "usage")."""


class InputError(Error):
    """Reading the input failed, or memory ran out (class "io")."""


class MagicError(Error):
    """Not an NPY file, unknown version, or truncated preamble (class "magic")."""


class HeaderError(Error):
    """The header text is not a valid header literal (class "header")."""


class DescrError(Error):
    """The dtype descriptor is invalid (class "descr")."""


class ShapeError(Error):
    """The shape or fortran_order is invalid (class "shape")."""


class TruncatedError(Error):
    """The payload is shorter than the header says (class "payload")."""


class UnsafeError(Error):
    """Object dtype: the payload would be a pickle (class "unsafe")."""


class LimitError(Error):
    """A limit was exceeded (class "limit"); see ``npyguard.LIMITS``."""


class StrictError(Error):
    """Refused by strict=True only (class "strict")."""


class ZipError(Error):
    """The .npz archive is malformed or unsafe (class "zip")."""


_CLASSES = {
    "usage": UsageError, "io": InputError, "magic": MagicError, "header": HeaderError,
    "descr": DescrError, "shape": ShapeError, "payload": TruncatedError, "unsafe": UnsafeError,
    "limit": LimitError, "strict": StrictError, "zip": ZipError,
}


def _make_error(code, name, klass, offset, message, offset_space):
    return _CLASSES.get(klass, Error)(code, name, klass, offset, message, offset_space)


_core.set_error_factory(_make_error)

# ---------------------------------------------------------------- limits

#: The limits ``load``, ``load_npz`` and ``validate`` accept as keywords,
#: with the C library's defaults.
LIMITS = {
    "max_header_bytes": 10000,
    "max_dims": 64,
    "max_fields": 4096,
    "max_depth": 32,
    "max_alloc_bytes": 8 << 20,
    "max_payload_bytes": 1 << 40,
}


def _limits(limits: Dict[str, int]) -> Optional[Dict[str, int]]:
    unknown = set(limits) - set(LIMITS)
    if unknown:
        raise TypeError(f"unknown limit(s): {', '.join(sorted(unknown))}; known: {', '.join(LIMITS)}")
    for k, v in limits.items():
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise TypeError(f"limit {k} must be a non-negative int")
    return dict(limits) if limits else None


def worst_case_alloc(**limits: int) -> int:
    """The most npyguard's parser allocates at once under these limits.

    The array itself is not counted: it is allocated for exactly
    ``payload_bytes`` once the header is validated.
    """
    return _core.worst_case_alloc(_limits(limits))


# ---------------------------------------------------------------- dtype

def _dtype(node) -> np.dtype:
    """A numpy dtype from npyguard's validated dtype tree."""
    kind = node[0]
    if kind == "leaf":
        return np.dtype(node[1])
    if kind == "sub":
        return np.dtype((_dtype(node[1]), node[2]))
    fields, itemsize = node[1], node[2]
    spec = {
        "names": [f[0] for f in fields],
        "formats": [_dtype(f[3]) for f in fields],
        "offsets": [f[2] for f in fields],
        "itemsize": itemsize,
    }
    if any(f[1] is not None for f in fields):
        spec["titles"] = [f[1] for f in fields]
    return np.dtype(spec)


def _json_descr(node):
    """descr as ``npyvalidate --json`` prints it."""
    kind = node[0]
    if kind == "leaf":
        return node[1]
    if kind == "sub":
        return [_json_descr(node[1]), list(node[2])]
    out = []
    for name, title, _offset, t in node[1]:
        label = [title, name] if title is not None else name
        if t[0] == "sub":
            out.append([label, _json_descr(t[1]), list(t[2])])
        else:
            out.append([label, _json_descr(t)])
    return out


# ---------------------------------------------------------------- inputs

class Info(collections.namedtuple("Info", [
        "version", "header_len", "data_offset", "descr", "descr_repr", "shape", "fortran_order",
        "itemsize", "count", "payload_bytes", "trailing_bytes", "warnings", "payload_sha256"])):
    """What ``validate`` reports: the fields ``npyvalidate --json`` prints.

    version is "1.0", "2.0" or "3.0"; descr is the descriptor in the JSON
    form (a typestr, or lists for structured and subarray types) and
    descr_repr as numpy writes it; shape is a tuple; warnings a tuple of
    names ("trailing_bytes", "unaligned", ...); payload_sha256 is the hex
    digest when ``hash=True`` was given, else None.
    """

    __slots__ = ()


def _info(d: Dict[str, Any], sha: Optional[str] = None) -> Info:
    return Info(
        version="%d.%d" % d["version"], header_len=d["header_len"], data_offset=d["data_offset"],
        descr=_json_descr(d["descr"]), descr_repr=d["descr_repr"], shape=tuple(d["shape"]),
        fortran_order=d["fortran_order"], itemsize=d["itemsize"], count=d["count"],
        payload_bytes=d["payload_bytes"], trailing_bytes=d["trailing_bytes"],
        warnings=tuple(d["warnings"]), payload_sha256=sha)


class _Source:
    """One input, opened once: what the C reader gets, and how to finish.

    A path is opened here (and closed by close()); a regular file object is
    read through its descriptor from its current position; other file
    objects (BytesIO, pipes, sockets) through readinto; bytes-like objects
    directly.
    """

    def __init__(self, file, *, want_fd: bool = False):
        self.fd = None
        self.own_fd = False
        self.fileobj = None
        self.start = 0
        if isinstance(file, (str, os.PathLike)):
            self.fd = os.open(os.fspath(file), os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
            self.own_fd = True
            self.arg = self.fd
            return
        if isinstance(file, (bytes, bytearray, memoryview)):
            if want_fd:
                raise ValueError("mmap_mode needs a path or a regular file")
            self.arg = file
            return
        if not hasattr(file, "read"):
            raise TypeError(f"expected a path, a bytes-like object or a binary file object, not {type(file).__name__}")
        self.fileobj = file
        self.arg = file
        fd = self._regular_fd(file)
        if fd is not None:
            # numpy reads from the current position: start the descriptor
            # there (the library reads it with pread and leaves it alone).
            self.start = file.tell()
            os.lseek(fd, self.start, os.SEEK_SET)
            self.fd = fd
            self.arg = fd
        elif want_fd:
            raise ValueError("mmap_mode needs a path or a regular file")
        else:
            try:
                self.start = file.tell() if file.seekable() else None
            except (AttributeError, OSError, ValueError):
                self.start = None

    @staticmethod
    def _regular_fd(file):
        try:
            fd = file.fileno()
            if not stat.S_ISREG(os.fstat(fd).st_mode) or not file.seekable():
                return None
            if isinstance(file, io.TextIOBase):
                return None
            return fd
        except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
            return None

    def finish(self, end: int) -> None:
        """Leaves a seekable file object just past the array, as numpy does."""
        if self.fileobj is not None and self.start is not None:
            self.fileobj.seek(self.start + end)
            self.finished = True

    def close(self) -> None:
        if self.fileobj is not None and self.fd is not None and not getattr(self, "finished", False):
            # The descriptor was moved under the file object's buffer: a
            # seek puts the two back in step, where the load began.
            try:
                self.fileobj.seek(self.start)
            except (OSError, ValueError):
                pass
        if self.own_fd and self.fd is not None:
            os.close(self.fd)
            self.fd = None


# Above this many payload bytes, a stream of unknown length (pipe, socket,
# file object) is read in chunks into a growing buffer, so that memory
# follows the bytes that actually arrive, not the size the header declares.
_STREAM_PREALLOC = 16 << 20


def _array_from(raw, d: Dict[str, Any], dtype: np.dtype, offset: int = 0) -> np.ndarray:
    """The array over raw (None: a fresh one), shaped the way numpy.load
    shapes it, so that strides and flags match numpy's: one dimension of
    count items, then the shape (reversed and transposed for Fortran)."""
    count = d["count"]
    if raw is None:
        arr = np.ndarray(count, dtype=dtype)
    elif isinstance(raw, np.ndarray):
        arr = raw
    else:
        arr = np.ndarray(count, dtype=dtype, buffer=raw, offset=offset)
    shape = tuple(d["shape"])
    if d["fortran_order"]:
        arr.shape = shape[::-1]
        return arr.transpose()
    arr.shape = shape
    return arr


def _bytes_of(arr: np.ndarray):
    """A writable byte view of a fresh one-dimensional array."""
    return arr.view(np.uint8) if arr.dtype.itemsize else bytearray()


def load(file, *, mmap_mode: Optional[str] = None, strict: bool = False, **limits: int) -> np.ndarray:
    """Validate and load one ``.npy`` array, safely.

    file       -- a path (str or os.PathLike), a bytes-like object, or a
                  binary file object (read from its current position; a
                  seekable one is left just past the array, as numpy does).
    mmap_mode  -- None, 'r' (read-only map) or 'c' (copy-on-write map) of
                  the validated payload; needs a path or a regular file.
                  'r+' and 'w+' are refused: npyguard never writes.
    strict     -- accept only what numpy's own writer produces.
    **limits   -- any of npyguard.LIMITS (max_header_bytes, max_dims,
                  max_fields, max_depth, max_alloc_bytes, max_payload_bytes).

    Returns an ndarray equal to ``numpy.load(file, allow_pickle=False)``:
    same dtype, shape, order and bytes. The file is opened once; the header
    is validated, the payload size checked against the limits and the file,
    and only then is the array allocated and filled from the same open file.
    Raises a subclass of npyguard.Error for a file npyguard refuses
    (UnsafeError for object arrays: there is no allow_pickle).
    """
    if mmap_mode not in (None, "r", "c"):
        if mmap_mode in ("r+", "w+", "readwrite", "write"):
            raise ValueError(f"mmap_mode={mmap_mode!r}: npyguard maps read-only ('r') or copy-on-write ('c') only")
        raise ValueError(f"mmap_mode must be None, 'r' or 'c', not {mmap_mode!r}")
    lim = _limits(limits)
    src = _Source(file, want_fd=mmap_mode is not None)
    try:
        npy = _core.Npy(src.arg, strict, lim)
        d = npy.info()
        dtype = _dtype(d["descr"])
        n = d["payload_bytes"]
        end = d["data_offset"] + n
        if mmap_mode is not None:
            npy.read()  # sizes and trailing bytes: nothing is read from a regular file
            arr = _map(src.fd, src.start + d["data_offset"], d, dtype, mmap_mode)
            if isinstance(arr, np.memmap):
                arr.filename = os.path.abspath(os.fspath(file)) if isinstance(file, (str, os.PathLike)) else None
        elif src.fd is None and not isinstance(src.arg, (bytes, bytearray, memoryview)) and n > _STREAM_PREALLOC:
            grown = bytearray()
            npy.read(None, grown.extend)
            arr = _array_from(grown, d, dtype)
        else:
            flat = np.ndarray(d["count"], dtype=dtype)
            npy.read(_bytes_of(flat) if n else None)
            arr = _array_from(flat, d, dtype)
        src.finish(end)
        return arr
    finally:
        src.close()


def _map(fd: int, offset: int, d: Dict[str, Any], dtype: np.dtype, mode: str) -> np.ndarray:
    if d["payload_bytes"] == 0:
        return _array_from(None, d, dtype)
    gran = mmap.ALLOCATIONGRANULARITY
    start = offset - offset % gran
    access = mmap.ACCESS_READ if mode == "r" else mmap.ACCESS_COPY
    mm = mmap.mmap(fd, offset - start + d["payload_bytes"], access=access, offset=start)
    # An np.memmap, as numpy.load returns, over the map of the descriptor
    # that was validated (numpy's own memmap would reopen the path).
    arr = _array_from(mm, d, dtype, offset - start).view(np.memmap)
    arr._mmap, arr.offset, arr.mode = mm, offset, mode
    return arr


def validate(file, *, hash: bool = False, strict: bool = False, **limits: int) -> Info:
    """Validate one ``.npy`` file without loading it; return its Info.

    The fields are those ``npyvalidate --json`` prints (version,
    header_len, data_offset, descr, descr_repr, shape, fortran_order,
    itemsize, count, payload_bytes, trailing_bytes, warnings) and
    payload_sha256 when hash=True (the payload is then read and hashed;
    otherwise a regular file's payload is only measured).
    Raises a subclass of npyguard.Error for a file npyguard refuses.
    """
    lim = _limits(limits)
    src = _Source(file)
    try:
        npy = _core.Npy(src.arg, strict, lim)
        h = hashlib.sha256() if hash else None
        d = npy.read(None, h.update if h else None)
        src.finish(d["data_offset"] + d["payload_bytes"])
        return _info(d, h.hexdigest() if h else None)
    finally:
        src.close()


# ---------------------------------------------------------------- archives

class NpzFile(collections.abc.Mapping):
    """A ``.npz`` archive opened by ``load_npz``: a read-only Mapping.

    Keys are member names without ``.npy``, as numpy's NpzFile has them.
    The archive's structure (end record, central directory, every local
    header) is checked when it is opened; each member is inflated and
    validated when it is read, with its CRC-32 and sizes checked. A member
    that is not .npy is returned as bytes, as numpy does (refused with
    strict=True). Use as a context manager, or call close().
    """

    def __init__(self, file, *, strict: bool = False, **limits: int):
        lim = _limits(limits)
        self._src = None
        if isinstance(file, (bytes, bytearray, memoryview)):
            arg = file
        elif isinstance(file, (str, os.PathLike)) or _Source._regular_fd(file) is not None:
            self._src = _Source(file)
            arg = self._src.arg
        elif hasattr(file, "read"):
            # An archive needs random access: a stream is read whole first.
            arg = file.read()
        else:
            raise TypeError(f"expected a path, a bytes-like object or a binary file object, not {type(file).__name__}")
        try:
            self._zip = _core.Zip(arg, strict, lim)
            members = self._zip.members()
        except BaseException:
            self._close_src()
            raise
        self._index = {}
        for i, m in enumerate(members):
            name = m["name"].decode("utf-8" if m["flags"] & 0x800 else "cp437")
            key = name[:-4] if name.endswith(".npy") else name
            self._index[key] = i
        self.files = list(self._index)

    def _close_src(self):
        if self._src is not None:
            self._src.close()
            self._src = None

    def __getitem__(self, key: str):
        if self._zip is None:
            raise ValueError("the archive is closed")
        i = self._index[key]
        d = self._zip.open_member(i)
        if d is None:
            raw = bytearray(self._zip.members()[i]["uncompressed_size"])
            self._zip.read_member(raw)
            return bytes(raw)
        dtype = _dtype(d["descr"])
        flat = np.ndarray(d["count"], dtype=dtype)
        self._zip.read_member(_bytes_of(flat) if d["payload_bytes"] else None)
        return _array_from(flat, d, dtype)

    def __iter__(self):
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)

    def __contains__(self, key) -> bool:
        return key in self._index

    def close(self) -> None:
        """Release the archive (and the file npyguard opened)."""
        if getattr(self, "_zip", None) is not None:
            self._zip.close()
            self._zip = None
        self._close_src()

    def __enter__(self) -> "NpzFile":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        self.close()

    def __repr__(self) -> str:
        return f"<npyguard.NpzFile {len(self.files)} members>"


def load_npz(file, *, strict: bool = False, **limits: int) -> NpzFile:
    """Open a ``.npz`` archive safely; returns an NpzFile (a read-only Mapping).

    file    -- a path, a bytes-like object or a binary file object (a
               non-seekable one is read whole first).
    strict  -- refuse what numpy's writer would not produce (comments,
               members that are not .npy, ...).
    **limits -- as for load().

    The archive structure is checked now (ZipError on any fault); members
    are read lazily, each validated as .npy when read:

        with npyguard.load_npz("data.npz") as z:
            w = z["weights"]
    """
    return NpzFile(file, strict=strict, **limits)
