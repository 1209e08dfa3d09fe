# SPDX-License-Identifier: BSD-3-Clause
"""Safe loading of untrusted NumPy ``.npy`` and ``.npz`` files, and RawArray ``.ra``.

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
import errno
import io
import json
import mmap
import operator
import os
import stat
import subprocess
import tempfile
from typing import Any, Dict, Iterator, Optional, Tuple, Union

import numpy as np

from . import _core

__all__ = [
    "load", "load_npz", "validate", "NpzFile", "LIMITS", "LIMIT_RANGES", "worst_case_alloc",
    "Error", "UsageError", "InputError", "MagicError", "HeaderError", "DescrError", "ShapeError",
    "TruncatedError", "UnsafeError", "LimitError", "StrictError", "ZipError", "RawArrayError", "PickleError", "Hdf5Error",
    "MatError", "UnsupportedError", "NotLoadableError", "load_ra", "FileMissingError", "SPOOL_DEFAULT_TOTAL",
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
      member  -- the archive member being read (its key), or None
      record  -- for a file validate() refused, npyvalidate's record of
                 it (a dict, docs/json.md); None otherwise

    Every class but InputError is also a ``ValueError`` (the file's
    content is refused, as numpy.load raises ValueError for bad files and
    pickles); InputError is also an ``OSError`` (reading failed), and
    FileMissingError a ``FileNotFoundError``: code written for numpy.load
    keeps catching them. ``args`` holds the constructor's arguments and
    the pickle carries every attribute, so an error copies and pickles
    whole (a ``multiprocessing`` worker's error reaches the parent whole).
    """

    record: Optional[Dict[str, Any]] = None

    def __init__(self, code: int, name: str, klass: str, offset: int, message: str, offset_space: str = "file",
                 member: Optional[str] = None):
        super().__init__(code, name, klass, offset, message, offset_space, member)
        self.code = code
        self.name = name
        self.klass = klass
        self.offset = offset
        self.message = message
        self.offset_space = offset_space
        self.member = member

    def __reduce__(self):
        # OSError's own would rebuild from (errno, strerror): ours are the
        # constructor's arguments, and every attribute set since (an
        # OSError's errno, strerror and filename are slots, not in the dict).
        state = dict(self.__dict__)
        if isinstance(self, OSError):
            state.update(errno=self.errno, strerror=self.strerror, filename=self.filename)
        return type(self), tuple(self.args), state

    def __setstate__(self, state):
        for k, v in state.items():
            setattr(self, k, v)

    def __str__(self) -> str:
        where = "" if self.member is None else " (member %r)" % self.member
        return f"{self.name} at byte {self.offset} of the {self.offset_space}{where}: {self.message}"


class UsageError(Error, ValueError):
    """Misuse of the library (class "usage")."""


class InputError(Error, OSError):
    """Reading the input failed, or memory ran out (class "io"). An
    ``OSError``; ``errno`` is the system's code when there is one."""


class FileMissingError(InputError, FileNotFoundError):
    """The path names no file (class "io"): a ``FileNotFoundError``."""


class MagicError(Error, ValueError):
    """Not an NPY file, unknown version, or truncated preamble (class "magic")."""


class HeaderError(Error, ValueError):
    """The header text is not a valid header literal (class "header")."""


class DescrError(Error, ValueError):
    """The dtype descriptor is invalid (class "descr")."""


class ShapeError(Error, ValueError):
    """The shape or fortran_order is invalid (class "shape")."""


class TruncatedError(Error, ValueError):
    """The payload is shorter than the header says (class "payload")."""


class UnsafeError(Error, ValueError):
    """Object dtype: the payload would be a pickle (class "unsafe").

    ``imports`` names what the pickle would import (and how it uses it),
    as ``npyvalidate`` prints it, from a scan of its opcodes that runs
    none of them; "" when it imports nothing, None when the input could
    not be read again to scan it (a stream). ``pickle_complete`` is False
    when the scan stopped early (a malformed pickle or a limit)."""

    imports: Optional[str] = None
    pickle_complete: Optional[bool] = None


class LimitError(Error, ValueError):
    """A limit was exceeded (class "limit"); see ``npyguard.LIMITS``."""


class StrictError(Error, ValueError):
    """Refused by strict=True only (class "strict")."""


class ZipError(Error, ValueError):
    """The .npz archive is malformed or unsafe (class "zip")."""


class RawArrayError(Error, ValueError):
    """The RawArray (.ra) file is malformed (class "ra")."""


class PickleError(Error, ValueError):
    """An object array's pickle is malformed (class "pickle"): what its
    scan reports. Pickles are never loaded."""


class Hdf5Error(Error, ValueError):
    """The HDF5 file is malformed or hazardous (class "hdf5")."""


class MatError(Error, ValueError):
    """The MAT file's header is malformed (class "mat")."""


class UnsupportedError(Error, ValueError):
    """A format npyguard names but does not read: MAT v5 and v4 (class
    "unsupported")."""


class NotLoadableError(Error, ValueError):
    """A file npyguard accepts but the package cannot return as an array:
    RawArray element types numpy has no dtype for, such as 128-bit
    integers or complex halves (code NPYG_ERA_ELBYTE, at the elbyte
    field); HDF5 types the sandboxed load does not carry and values
    hdf5storage itself cannot read; HDF5 and MAT v7.3 files where this
    build has no HDF5 helper (NPYG_EHDF5_UNAVAILABLE), or given as a file
    object without a descriptor. ``klass`` is the code's class."""


_CLASSES = {
    "usage": UsageError, "io": InputError, "magic": MagicError, "header": HeaderError,
    "descr": DescrError, "shape": ShapeError, "payload": TruncatedError, "unsafe": UnsafeError,
    "limit": LimitError, "strict": StrictError, "zip": ZipError, "ra": RawArrayError,
    "hdf5": Hdf5Error, "mat": MatError, "unsupported": UnsupportedError, "pickle": PickleError,
}


def _make_error(code, name, klass, offset, message, offset_space="file", member=None):
    return _CLASSES.get(klass, Error)(code, name, klass, offset, message, offset_space, member)


def _error(code: int, offset: int, message: str) -> Error:
    """An error the package finds itself, named and classed by the library."""
    name, klass = _core.error_info(code)
    return _make_error(code, name, klass, offset, message)


#: The library's codes by name (npyguard.h's npyg_status), for the errors
#: the package finds itself: its own table, through the extension.
_CODES: Dict[str, int] = _core.error_codes()
_EINVAL = _CODES["NPYG_EINVAL"]
_ENOMEM = _CODES["NPYG_ENOMEM"]
_EIO = _CODES["NPYG_EIO"]
_EMAGIC = _CODES["NPYG_EMAGIC"]
_EUNRECOGNIZED = _CODES["NPYG_EUNRECOGNIZED"]
_ESHAPE = _CODES["NPYG_ESHAPE"]
_ELIMIT_STDIN = _CODES["NPYG_ELIMIT_STDIN"]
_ERA_ELBYTE = _CODES["NPYG_ERA_ELBYTE"]
_EHDF5_UNAVAILABLE = _CODES["NPYG_EHDF5_UNAVAILABLE"]


def _io_error(e: BaseException, what: str, code: int = _EIO) -> InputError:
    """An InputError for an OSError (or any failure of a caller's file
    object): FileMissingError for a missing file; errno and strerror
    kept. The caller raises it from e."""
    name, klass = _core.error_info(code)
    cls = FileMissingError if isinstance(e, FileNotFoundError) else InputError
    err = cls(code, name, klass, 0, f"{what}: {e}" if str(e) else f"{what}: {type(e).__name__}")
    if isinstance(e, OSError):
        err.errno, err.strerror, err.filename = e.errno, e.strerror, e.filename
    return err


def _os_open(path) -> int:
    """os.open of a path to read; an OSError is raised as an InputError."""
    try:
        return os.open(path, _O_RDONLY)
    except OSError as e:
        raise _io_error(e, "cannot open the file") from e


def _not_loadable(code: int, offset: int, message: str) -> NotLoadableError:
    name, klass = _core.error_info(code)
    return NotLoadableError(code, name, klass, offset, message)


_core.set_error_factory(_make_error)

# ---------------------------------------------------------------- limits

#: The formats whose limits the package takes: those it reads (.ra files
#: share the .npy limits). The pickle scan's and HDF5's are npyvalidate's.
_FORMATS = ("npy", "npz")

# {name: (default, smallest, largest, format, npyvalidate's option)}: the C
# library's one table of every limit, read once; the package's tables below
# and in _hdf5.py and _matlab.py are views of it.
_LIMITS = _core.limits()
_TABLE = {k: v for k, v in _LIMITS.items() if v[3] in _FORMATS}

#: The limits ``load``, ``load_npz`` and ``validate`` accept as keywords,
#: with the C library's defaults: the .npy parser's (max_header_bytes,
#: max_dims, max_fields, max_depth, max_alloc_bytes, max_payload_bytes) and
#: the archive's (max_members, max_name_bytes, max_total_uncompressed,
#: max_ratio, ratio_grace_bytes, inflate_budget_bytes), as npyvalidate's
#: options set them.
LIMITS: Dict[str, int] = {k: v[0] for k, v in _TABLE.items()}

#: The range each limit may be set to, (smallest, largest), from the library.
LIMIT_RANGES: Dict[str, Tuple[int, int]] = {k: (v[1], v[2]) for k, v in _TABLE.items()}


def _limits(limits: Dict[str, Any], max_header_size: Any = None) -> Optional[Dict[str, int]]:
    """The caller's limits, each checked by name: any integral type
    (int, numpy integers), within the library's range."""
    if max_header_size is not None:  # numpy.load's name for max_header_bytes
        if "max_header_bytes" in limits:
            raise TypeError("give max_header_size or max_header_bytes, not both")
        limits = dict(limits, max_header_bytes=max_header_size)
    out = {}
    for k, v in limits.items():
        if k not in LIMITS:
            raise TypeError(f"unknown limit {k!r}; known: {', '.join(LIMITS)}")
        out[k] = _limit_value(k, v, *LIMIT_RANGES[k])
    return out or None


def _limit_value(k: str, v: Any, lo: int, hi: int) -> int:
    """One limit's value: any integral type (not bool), within lo..hi;
    TypeError or ValueError naming it otherwise."""
    if isinstance(v, (bool, np.bool_)) or not hasattr(type(v), "__index__"):
        raise TypeError(f"{k} must be an integer, not {type(v).__name__}")
    v = operator.index(v)
    if not lo <= v <= hi:
        raise ValueError(f"{k}={v} is out of range: {lo}..{hi}")
    return v


def worst_case_alloc(**limits: int) -> int:
    """The most npyguard's parser allocates at once under these limits.

    The array itself is not counted: it is allocated for exactly
    ``payload_bytes`` once the header is validated.
    """
    return _core.worst_case_alloc(_limits(limits))


def _numpy_max_dims() -> int:
    """The most dimensions this numpy's arrays may have (32 in numpy 1.x,
    64 in 2.x), asked of numpy itself."""
    for n in (64, 32):
        try:
            np.empty((1,) * n, np.uint8)
            return n
        except ValueError:
            continue
    return 32


_NUMPY_MAX_DIMS = _numpy_max_dims()


# ---------------------------------------------------------------- dtype

_DTYPES: Dict[Any, np.dtype] = {}
_empty = np.empty  # what load_path makes a validated array with


def _dtype(node) -> np.dtype:
    """A numpy dtype from npyguard's validated dtype tree (kept, keyed by
    the tree: most files share a few)."""
    try:
        dt = _DTYPES.get(node)
    except TypeError:  # a struct's fields come as a list: made each time
        return _dtype_of(node)
    if dt is None:
        dt = _dtype_of(node)
        if len(_DTYPES) < 256:
            _DTYPES[node] = dt
    return dt


def _dtype_of(node) -> np.dtype:
    kind = node[0]
    if kind == "leaf":
        return np.dtype(node[1])
    if kind == "sub":
        return np.dtype((_dtype_of(node[1]), node[2]))
    fields, itemsize = node[1], node[2]
    spec = {
        "names": [f[0] for f in fields],
        "formats": [_dtype_of(f[3]) for f in fields],
        "offsets": [f[2] for f in fields],
        "itemsize": itemsize,
    }
    if any(f[1] is not None for f in fields):
        spec["titles"] = [f[1] for f in fields]
    return np.dtype(spec)


# ---------------------------------------------------------------- inputs

_O_RDONLY = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)


def _plain_fd(file) -> Optional[int]:
    """The descriptor of a file object whose read() returns the
    descriptor's bytes as they are (FileIO, or a buffered reader over one)
    on a regular file; None otherwise (gzip, bz2 and lzma objects have the
    compressed file's descriptor; pipes and sockets are streams)."""
    raw = file.raw if isinstance(file, (io.BufferedReader, io.BufferedRandom)) else file
    if not isinstance(raw, io.FileIO):
        return None
    try:
        fd = raw.fileno()
        return fd if stat.S_ISREG(os.fstat(fd).st_mode) and file.seekable() else None
    except (OSError, ValueError):
        return None


def _is_stream(fd: int) -> bool:
    """A FIFO, socket or character device: what is read in order, as a
    stream (numpy.load reads them); a directory is left to the library,
    which refuses it (NPYG_ENOTREG)."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError as e:
        raise _io_error(e, "cannot stat the file") from e
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


def _guarded(fn, *args):
    """fn(*args) on a caller's file object: what it raises (but a
    MemoryError, or what is not an Exception, such as KeyboardInterrupt,
    which go on as they are) is an InputError, the object's failure
    kept as the cause."""
    try:
        return fn(*args)
    except MemoryError:
        raise
    except Error:
        raise
    except Exception as e:
        raise _io_error(e, "the file object failed") from e


def _in_place(file) -> bool:
    """Whether a file object can be read at offsets: it says it is
    seekable and is not a pipe, FIFO or device underneath (/dev/zero
    seeks, and has no end to seek to)."""
    try:
        fd = file.fileno()
    except Exception:
        fd = None
    if isinstance(fd, int):
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return False
        except OSError:
            pass
    seekable = getattr(file, "seekable", None)
    return seekable is not None and bool(_guarded(seekable))


def _contiguous(view: memoryview) -> memoryview:
    if not view.c_contiguous:
        raise TypeError("file: a non-contiguous memoryview; pass bytes(view) or a contiguous copy")
    return view.cast("B") if view.ndim != 1 or view.itemsize != 1 else view


class _Source:
    """One input, opened once: what the C reader gets, and how to finish.

    path        -- opened here, read with pread, closed by close();
    bytes-like  -- read in place (whole: trailing bytes are counted);
    regular file object -- its descriptor, with pread from its position;
    BytesIO, mmap -- their memory from the position, as a stream;
    other file objects (pipes, sockets, gzip, read()-only) -- readinto or
                   read, exactly as far as the array goes.
    A file object is left just past the array, as numpy leaves it.
    """

    def __init__(self, file, *, want_fd: bool = False, opened: Optional[int] = None):
        self.fd = None
        self.own_fd = False
        self.fileobj = None
        self.start = 0
        self.view = None  # a memoryview this object exported
        self.stream = False  # bytes after the array belong to the caller
        if isinstance(file, (str, os.PathLike)):
            self.fd = _os_open(file) if opened is None else opened
            self.own_fd = True
            self.arg = self.fd
            if _is_stream(self.fd):
                # A FIFO, a character device, a socket: read as a stream
                # through FileIO, whose reads give way to a signal
                # (Ctrl-C ends the load; the library's own read would wait
                # on for the writer).
                if want_fd:
                    raise _error(_EINVAL, 0, "mmap_mode needs a path or a regular file")  # UsageError, a ValueError
                self.fileobj = io.BufferedReader(io.FileIO(self.fd, "rb", closefd=False))
                self.stream = True
                self.start = None
                self.arg = self.fileobj
            return
        if isinstance(file, (bytes, bytearray, memoryview)):
            if want_fd:
                raise _error(_EINVAL, 0, "mmap_mode needs a path or a regular file")  # UsageError, a ValueError
            self.arg = _contiguous(memoryview(file))
            return
        if isinstance(file, io.TextIOBase):
            raise TypeError("file: a text-mode file object; open it in binary mode ('rb')")
        if not (hasattr(file, "readinto") or hasattr(file, "read")):
            raise TypeError(f"file: expected a path, a bytes-like object or a binary file object, "
                            f"not {type(file).__name__}")
        self.fileobj = file
        fd = _guarded(_plain_fd, file)
        if fd is not None:
            # numpy reads from the current position: the library reads the
            # descriptor from there with pread. The two seeks empty a
            # buffered reader's buffer, so that the descriptor's offset is
            # the object's position, now and after finish or close.
            try:
                self.start = file.tell()
                file.seek(0, io.SEEK_END)
                file.seek(self.start)
            except Exception as e:
                raise _io_error(e, "cannot seek the file object") from e
            self.fd = fd
            self.arg = fd
            return
        if want_fd:
            raise _error(_EINVAL, 0, "mmap_mode needs a path or a regular file")  # UsageError, a ValueError
        self.stream = True
        if type(file) is io.BytesIO or isinstance(file, mmap.mmap):
            # In place, without a copy: a BytesIO's getvalue() is the bytes
            # object it holds (the one it was made from, while unmodified),
            # where getbuffer() would copy a shared one whole.
            self.start = file.tell()
            whole = memoryview(file.getvalue() if isinstance(file, io.BytesIO) else file)
            self.view = whole
            self.arg = whole[self.start:]
            return
        self.start = None
        self.arg = file

    def head(self) -> bytes:
        """The input's first bytes, for a descriptor or bytes (b"" for a stream)."""
        if self.fd is not None and self.start is not None:
            return os.pread(self.fd, 8, self.start)
        return self.arg[:8].tobytes() if isinstance(self.arg, memoryview) else b""

    def probe_arg(self):
        """What the library's probe reads: a descriptor whose input starts
        at 0, or the bytes; None for a stream."""
        if self.fd is not None:
            return self.fd if self.start == 0 else None
        return self.arg if isinstance(self.arg, memoryview) else None

    def finish_ra(self, arr: np.ndarray) -> np.ndarray:
        """A RawArray file runs to the end of its input (metadata follows
        the data): a file object is left there."""
        if self.fileobj is not None and self.start is not None:
            _guarded(self.fileobj.seek, 0, io.SEEK_END)
            self.finished = True
        return arr

    def finish(self, end: int) -> None:
        """Leaves a file object just past the array, as numpy does (a
        stream was read that far already)."""
        if self.fileobj is not None and self.start is not None:
            _guarded(self.fileobj.seek, self.start + end)
            self.finished = True

    def close(self) -> None:
        if self.fd is not None and not self.own_fd and not getattr(self, "finished", False):
            try:  # refused: the object is left where the load began
                self.fileobj.seek(self.start)
            except Exception:
                pass
        if isinstance(self.arg, memoryview):
            self.arg.release()
        if self.view is not None:
            self.view.release()
            self.view = None
        if self.own_fd and self.fd is not None:
            os.close(self.fd)
            self.fd = None


# Above this many payload bytes, a stream of unknown length (pipe, socket,
# file object) is read into an array that grows with the bytes that
# actually arrive, not with the size the header declares.
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


def _fresh(d: Dict[str, Any], dtype: np.dtype, count: Optional[int] = None) -> np.ndarray:
    """A new one-dimensional array for the payload; a size this process
    cannot allocate is an InputError (NPYG_ENOMEM), not a bare MemoryError."""
    if len(d["shape"]) > _NUMPY_MAX_DIMS:
        raise _error(_ESHAPE, d["data_offset"] - d["header_len"],
                     f"{len(d['shape'])} dimensions: numpy holds at most {_NUMPY_MAX_DIMS}")
    n = d["count"] if count is None else count
    try:
        return np.ndarray(n, dtype=dtype)
    except MemoryError as e:
        raise _error(_ENOMEM, d["data_offset"], f"cannot allocate {n * dtype.itemsize} bytes for the payload") from e


def _fill(npy, d: Dict[str, Any], dtype: Optional[np.dtype] = None, fd: bool = False) -> np.ndarray:
    """The array of an opened input, read into memory allocated for it
    (fd: the input is a descriptor, which takes the array's own buffer;
    a file object is handed bytes)."""
    dtype = _dtype(d["descr"]) if dtype is None else dtype
    flat = _fresh(d, dtype)
    if d["payload_bytes"]:
        npy.read(flat if fd else _bytes_of(flat))
    else:
        npy.read(None)
    return _array_from(flat, d, dtype)


def _bytes_of(arr: np.ndarray):
    """A writable byte view of a fresh one-dimensional array."""
    return arr.view(np.uint8) if arr.dtype.itemsize else bytearray()


class _Growing:
    """The payload of a stream of unknown length, in an array grown (in
    place, by doubling) as its bytes arrive: memory follows what the stream
    holds, and the array owns its data in the end, as numpy's does."""

    def __init__(self, d: Dict[str, Any], dtype: np.dtype):
        self.count, self.itemsize = d["count"], dtype.itemsize
        self.arr = _fresh(d, dtype, min(self.count, max(1, _STREAM_PREALLOC // self.itemsize)))
        self.u8, self.n = self.arr.view(np.uint8), 0

    def __call__(self, chunk) -> None:
        end = self.n + len(chunk)
        if end > len(self.u8):
            want = min(self.count, max(2 * self.arr.size, -(-end // self.itemsize)))
            del self.u8  # resize below needs the only reference
            self.arr.resize(want, refcheck=False)
            self.u8 = self.arr.view(np.uint8)
        self.u8[self.n:end] = np.frombuffer(chunk, np.uint8)
        self.n = end


def load(file, mmap_mode: Optional[str] = None, allow_pickle: bool = False, fix_imports: bool = True,
         encoding: str = "ASCII", *, max_header_size: Optional[int] = None, strict: bool = False,
         **limits: int) -> Any:
    """Validate and load one ``.npy`` array (or open a ``.npz``), safely.

    A drop-in for ``numpy.load(file, mmap_mode, allow_pickle=False)``:

    file       -- a path (str or os.PathLike), a bytes-like object, or a
                  binary file object: a regular file, BytesIO, mmap, a pipe
                  or socket, a gzip/bz2/lzma file, anything with readinto()
                  or read(). A file object is read from its current position
                  exactly as far as the array goes and left just past it, as
                  numpy leaves it (arrays written one after another load one
                  after another; a stream that stays open is not waited on).
    mmap_mode  -- None, 'r' (read-only map) or 'c' (copy-on-write map) of
                  the validated payload; needs a path or a regular file.
                  'r+' and 'w+' are refused: npyguard never writes.
    allow_pickle -- must be False: object arrays are refused (UnsafeError).
    fix_imports, encoding -- accepted for numpy's signature; they concern
                  pickles only, which are never loaded.
    max_header_size -- numpy's name for max_header_bytes.
    strict     -- accept only what numpy's own writer produces.
    **limits   -- any of npyguard.LIMITS (see LIMIT_RANGES for the range of
                  each): max_header_bytes, max_dims, max_fields, max_depth,
                  max_alloc_bytes, max_payload_bytes, and for archives
                  max_members, max_name_bytes, max_total_uncompressed,
                  max_ratio, ratio_grace_bytes, inflate_budget_bytes.

    Typed ``Any``, as numpy.load is. Returns an ndarray equal to
    ``numpy.load(file, allow_pickle=False)``:
    same dtype, shape, order, flags and bytes; or, for a zip archive, an
    NpzFile (see load_npz); for a RawArray file, the array load_ra returns.
    The format is told by content, as numpy.load tells .npy from .npz; a
    MAT v7.3 file gives what loadmat returns, an HDF5 file what load_hdf5
    returns (libhdf5 runs only in npyguard's sandboxed child). For .npy,
    the header is validated, the payload size
    checked against the limits and the file, and only then is the array
    allocated and filled from the same open input.

    Raises a subclass of npyguard.Error for a file npyguard refuses, a
    ValueError as numpy.load's are: UnsafeError for object arrays (its
    imports say what the pickle would import); ShapeError for more
    dimensions than numpy holds. A failure to read is an InputError, an
    OSError (FileMissingError, a FileNotFoundError, for a missing path;
    NPYG_ENOMEM when the declared payload is valid but this process
    cannot allocate or map it). What the caller's own code raises
    (KeyboardInterrupt, SystemExit, MemoryError) arrives as it was, and
    Ctrl-C ends a load from a FIFO or of an HDF5/MAT file at once. A
    limit of the wrong type is a TypeError, out of range a ValueError,
    each naming the limit; every limit documented here is taken whatever
    the content turns out to be.
    """
    if allow_pickle:
        raise ValueError("allow_pickle=True: npyguard never loads pickles (object arrays are refused)")
    if mmap_mode not in (None, "r", "c"):
        if mmap_mode in ("r+", "w+", "readwrite", "write"):
            raise ValueError(f"mmap_mode={mmap_mode!r}: npyguard maps read-only ('r') or copy-on-write ('c') only")
        raise ValueError(f"mmap_mode must be None, 'r' or 'c', not {mmap_mode!r}")
    lim = _limits(limits, max_header_size) if limits or max_header_size is not None else None
    if mmap_mode is None and isinstance(file, (str, os.PathLike)):  # the common case, kept short
        if lim is None:  # one call: opened, validated, read into its array, closed
            try:
                arr = _core.load_path(file, strict, _DTYPES, _dtype, _empty, _NUMPY_MAX_DIMS)
            except Error:
                raise
            except OSError as e:
                raise _io_error(e, "cannot open the file") from e
            if arr is not None:
                return arr
        fd = _os_open(file)
        if _is_stream(fd):  # a FIFO, a device: a stream (below)
            return _load_source(_Source(file, opened=fd), file, None, strict, lim, limits, max_header_size)
        try:
            try:
                npy = _core.Npy(fd, strict, lim)
            except MagicError as e:
                kind = _not_npy(e, os.pread(fd, 8, 0), fd)
                if kind == _FORMAT_NPZ:
                    return NpzFile(file, strict=strict, **(lim or {}))
                if kind in (_FORMAT_HDF5, _FORMAT_MAT73):
                    return _load_hdf5_kind(kind, fd, strict, limits, max_header_size)
                return _read_ra(_core.Ra(fd, strict, lim))
            try:
                d = npy.layout()
                try:
                    dtype = _DTYPES.get(d["descr"])
                except TypeError:  # a struct: see _dtype
                    dtype = None
                if dtype is None or not d["payload_bytes"] or len(d["shape"]) > _NUMPY_MAX_DIMS:
                    return _fill(npy, d, fd=True)
                # what _fill does, written out without its calls
                try:
                    arr = np.ndarray(d["count"], dtype=dtype)
                except MemoryError:
                    return _fill(npy, d, fd=True)  # which raises it as the package's error
                npy.read(arr)
                if d["fortran_order"]:
                    arr.shape = d["shape"][::-1]
                    return arr.transpose()
                arr.shape = d["shape"]
                return arr
            finally:
                npy.close()
        finally:
            os.close(fd)
    return _load_source(_Source(file, want_fd=mmap_mode is not None), file, mmap_mode, strict, lim, limits,
                        max_header_size)


def _load_source(src: "_Source", file, mmap_mode, strict, lim, limits, max_header_size) -> Any:
    """load() of an input opened as src (which this closes)."""
    npy = None
    try:
        stream = src.stream and not isinstance(src.arg, memoryview)
        kind = _core.sniff(_stream_head(src.arg)) if stream else _FORMAT_NPY
        if kind == _FORMAT_NPZ:
            return NpzFile(src.arg, strict=strict, **(lim or {}))
        if kind == _FORMAT_RA:
            return src.finish_ra(_read_ra(_core.Ra(src.arg, strict, lim)))
        try:
            npy = _core.Npy(src.arg, strict, lim)
        except MagicError as e:
            # Not .npy: an archive is opened as numpy.load opens it.
            kind = _not_npy(e, src.head(), src.probe_arg())
            if kind == _FORMAT_NPZ:
                return NpzFile(file, strict=strict, **(lim or {}))
            if kind in (_FORMAT_HDF5, _FORMAT_MAT73):
                if src.fd is None or src.stream:
                    raise _not_loadable(_EHDF5_UNAVAILABLE, 0, "an HDF5 or MAT v7.3 file is loaded from a path, "
                                        "a descriptor or a regular file's file object") from None
                return _load_hdf5_kind(kind, src.fd, strict, limits, max_header_size)
            return src.finish_ra(_read_ra(_core.Ra(src.arg, strict, lim)))
        d = npy.info()
        dtype = _dtype(d["descr"])
        n = d["payload_bytes"]
        end = d["data_offset"] + n
        if src.stream and isinstance(src.arg, memoryview) and len(src.arg) > end:
            # BytesIO, mmap: the bytes after the array are the caller's
            npy.close()
            npy = _core.Npy(src.arg[:end], strict, lim)
        if mmap_mode is not None:
            npy.read()  # sizes and trailing bytes: nothing is read from a regular file
            arr = _map(src.fd, src.start + d["data_offset"], d, dtype, mmap_mode)
            arr.filename = os.path.abspath(os.fspath(file)) if isinstance(file, (str, os.PathLike)) else None
        elif src.stream and not isinstance(src.arg, memoryview) and n > _STREAM_PREALLOC:
            grow = _Growing(d, dtype)
            npy.read(None, grow)
            arr = _array_from(grow.arr, d, dtype)
        else:
            arr = _fill(npy, d, dtype)
        src.finish(end)
        return arr
    finally:
        if npy is not None:
            npy.close()
        src.close()


def _stream_head(file) -> bytes:
    """A stream's first bytes, looked at without moving; b"" for one that
    cannot be looked into (it is read as .npy)."""
    if isinstance(file, (io.BufferedReader, io.BufferedRandom)) and not file.seekable():
        return file.peek(8)[:8]
    try:
        if not file.seekable():
            return b""
        at = file.tell()
        head = file.read(8)
        file.seek(at)
    except MemoryError:
        raise
    except Exception:  # what the object does wrong is said when it is read
        return b""
    return head if isinstance(head, bytes) else b""


# npyg_format: what the library recognises a file as, by content
_FORMAT_NPY, _FORMAT_NPZ, _FORMAT_RA, _FORMAT_HDF5, _FORMAT_MAT73 = (
    _core.FORMAT_NPY, _core.FORMAT_NPZ, _core.FORMAT_RA, _core.FORMAT_HDF5, _core.FORMAT_MAT73)


def _not_npy(e: MagicError, head: bytes, probe_arg) -> int:
    """What a file that is not .npy is, as the library's npyg_detect tells
    every entry point (npyvalidate included): _FORMAT_NPZ, _FORMAT_RA,
    _FORMAT_HDF5 or _FORMAT_MAT73, to be loaded; a refusal (a polyglot,
    MAT v5/v4) raises its error, and content of no format raises e."""
    if e.code != _EMAGIC:
        raise e
    if probe_arg is None:  # a stream: its first bytes are all there is
        kind = _core.sniff(head)
        if kind in (_FORMAT_NPZ, _FORMAT_RA):
            return kind
        raise e
    code, kind, offset, message = _core.detect(probe_arg)
    if code == _EUNRECOGNIZED:
        raise e
    if code:
        raise _error(code, offset, message) from None
    return kind


def _load_hdf5_kind(kind: int, fd: int, strict: bool, limits: Dict[str, Any], max_header_size: Any):
    """load() of an HDF5 or MAT v7.3 file, from the descriptor already open."""
    from ._hdf5 import HDF5_LIMITS
    from ._matlab import load_hdf5, loadmat
    if max_header_size is not None:
        limits = dict(limits, max_header_bytes=max_header_size)
    # Every keyword load() documents is taken whatever the content: the
    # archive's limits have nothing to bound in an HDF5 file.
    limits = {k: v for k, v in limits.items() if k in HDF5_LIMITS}
    if kind == _FORMAT_MAT73:
        return loadmat(fd, strict=strict, **limits)
    return load_hdf5(fd, strict=strict, **limits)


_RA_KINDS = {0: "V", 1: "i", 2: "u", 3: "f", 4: "c", 5: "b"}


def _ra_dtype(d: Dict[str, Any]) -> np.dtype:
    """numpy's dtype for a RawArray element, in the file's byte order:
    what ra.py builds for int, uint, float and complex ('int16' ...), and
    for the types ra.py cannot read, numpy's own for the stored bytes:
    bool for eltype 5, raw records (V) for eltype 0 user types. A type
    numpy has no dtype for (128-bit integers, complex of two float16s,
    long doubles of a width this platform lacks) is refused."""
    spec = "%s%s%d" % (">" if d["big_endian"] else "<", _RA_KINDS[d["eltype"]], d["elbyte"])
    try:
        dtype = np.dtype(spec)
    except TypeError:
        dtype = None
    if dtype is None or dtype.itemsize != d["elbyte"]:
        raise _not_loadable(_ERA_ELBYTE, 24, f"element type {d['type']} (eltype {d['eltype']}, "
                                            f"elbyte {d['elbyte']}): numpy has no dtype for it")
    return dtype


def _read_ra(ra) -> np.ndarray:
    """The array of an opened RawArray file, as ra.py returns it: shape
    the dims as stored, Fortran order (dims[0] fastest). Allocated once
    the header is validated, for exactly data_bytes."""
    try:
        d = ra.info()
        dtype = _ra_dtype(d)
        dims = d["dims"]
        if len(dims) > _NUMPY_MAX_DIMS:
            raise _error(_ESHAPE, 40, f"{len(dims)} dimensions: numpy holds at most {_NUMPY_MAX_DIMS}")
        try:
            flat = np.ndarray(d["count"], dtype=dtype)
        except MemoryError as e:
            raise _error(_ENOMEM, d["data_offset"], f"cannot allocate {d['data_bytes']} bytes for the array") from e
        ra.read(flat.view(np.uint8) if d["data_bytes"] else None)
    finally:
        ra.close()
    return flat.reshape(dims[::-1]).T


def load_ra(file, *, strict: bool = False, **limits: int) -> np.ndarray:
    """Validate and load one RawArray (``.ra``) file, safely.

    file -- as load() takes it (a path, a bytes-like object, a binary file
            object); a file object is read to its end (the metadata after
            the data belongs to the file).
    **limits -- as for load(): max_dims, max_payload_bytes (the array's
            bytes once decompressed), max_alloc_bytes (what decoding an
            LZ4 block holds at once).

    Returns the array the format's own Python reader (ra.py) returns:
    shape the dims as stored, in Fortran order (dims[0] varies fastest),
    dtype int/uint/float/complex of elbyte bytes in the file's byte order;
    bool for eltype 5 and raw records (void) for eltype 0, which ra.py
    does not read; an LZ4 file decoded as the C reader decodes it. Raises
    RawArrayError (or LimitError) for a file npyguard refuses, and
    NotLoadableError for an element type numpy has no dtype for.
    """
    lim = _limits(limits)
    src = _Source(file)
    try:
        return src.finish_ra(_read_ra(_core.Ra(src.arg, strict, lim)))
    finally:
        src.close()


def _map(fd: int, offset: int, d: Dict[str, Any], dtype: np.dtype, mode: str) -> np.ndarray:
    if len(d["shape"]) > _NUMPY_MAX_DIMS:
        _fresh(d, dtype)  # raises the ShapeError
    if d["payload_bytes"] == 0:
        # Nothing to map: numpy's memmap maps the header's bytes before the
        # offset and makes the array over them with the file's order, so
        # its strides and flags are those of an empty array in that order,
        # writeable as the mode (ACCESS_READ for 'r') allows.
        buf = bytes(1) if mode == "r" else bytearray(1)
        arr = np.ndarray.__new__(np.memmap, tuple(d["shape"]), dtype=dtype, buffer=buf, offset=0,
                                 order="F" if d["fortran_order"] else "C")
        arr._mmap, arr.offset, arr.mode = None, offset, mode
        return arr
    gran = mmap.ALLOCATIONGRANULARITY
    start = offset - offset % gran
    access = mmap.ACCESS_READ if mode == "r" else mmap.ACCESS_COPY
    try:
        mm = mmap.mmap(fd, offset - start + d["payload_bytes"], access=access, offset=start)
    except OSError as e:  # ENOMEM under an address-space limit, ENODEV, ...
        raise _io_error(e, f"cannot map {d['payload_bytes']} bytes of the payload",
                        _ENOMEM if e.errno == errno.ENOMEM else _EIO) from e
    # An np.memmap, as numpy.load returns, over the map of the descriptor
    # that was validated (numpy's own memmap would reopen the path).
    arr = _array_from(mm, d, dtype, offset - start).view(np.memmap)
    arr._mmap, arr.offset, arr.mode = mm, offset, mode
    return arr


# Every limit of the library, by name: (smallest, largest, npyvalidate's option).
_ALL_LIMITS = {k: (v[1], v[2], v[4]) for k, v in _LIMITS.items()}


def _cli() -> str:
    """The npyvalidate validate() runs: the one built into the package
    beside the extension, else the installed one the package was built
    for (Debian's python3-npyguard: /usr/bin/npyvalidate)."""
    here = os.path.join(os.path.dirname(os.path.abspath(_core.__file__)), "npyvalidate")
    for path in (here, _core.cli_path):
        if path and os.access(path, os.X_OK):
            return path
    raise _error(_EIO, 0, f"npyvalidate is not installed: looked for {here}"
                          + (f" and {_core.cli_path}" if _core.cli_path else ""))


def _cli_args(hash: bool, strict: bool, limits: Dict[str, Any]) -> list:
    args = ["--json"] + (["--hash"] if hash else []) + (["--strict"] if strict else [])
    for k, v in limits.items():
        if k not in _ALL_LIMITS:
            raise TypeError(f"unknown limit {k!r}; known: {', '.join(_ALL_LIMITS)}")
        lo, hi, option = _ALL_LIMITS[k]
        args += ["--" + option, str(_limit_value(k, v, lo, hi))]
    return args


def _record_error(rec: Dict[str, Any]) -> Error:
    """The error a refused file's record names, as its class, the record kept."""
    e = rec.get("error") or {}
    member = None
    if rec.get("format") == "npz":
        bad = [m for m in (rec.get("npz") or {}).get("members", ()) if m.get("ok") is False]
        member = bad[0].get("name") if bad else None
    if "code" in e:
        err = _make_error(e["code"], e["name"], e["class"], e.get("offset") or 0, e["message"],
                          e.get("offset_in") or "file", member)
    else:  # a record that names no error: the format's own objects refused something
        err = _error(_EIO if rec.get("ok") is None else _EINVAL, 0, "npyvalidate refused the file")
    err.record = rec
    return err


def validate(file, *, hash: bool = False, strict: bool = False, **limits: int) -> Dict[str, Any]:
    """Check one file without loading it, whatever its format (.npy, .npz,
    .ra, HDF5, MAT v7.3, recognised by its content, as npyvalidate does);
    return npyvalidate's JSON record of it (docs/json.md; the schema is
    schema/npyvalidate-record.schema.json, "npyvalidate-record/1").

    It runs the npyvalidate built with the package, so the record is the
    CLI's, field for field: a path is checked under its own name; a file
    object with a descriptor on a regular file is read in place from its
    position (and left there); bytes, a BytesIO and any other file object
    are copied first to an anonymous temporary file (a file object no
    further than SPOOL_DEFAULT_TOTAL bytes: LimitError NPYG_ELIMIT_STDIN
    past that), and their record's path is "-".

    hash    -- payload_sha256 of each array's payload as stored (HDF5: of
               each dataset as read in the sandbox).
    strict  -- refuse what numpy's writer would not produce.
    **limits -- any of the library's limits by name (npyguard.LIMITS, and
               the pickle scan's and HDF5's: max_objects, hdf5_cpu_seconds,
               ...), passed as npyvalidate's options.

    A refused file raises its error as the npyguard.Error subclass of its
    class (a .npz's names the member), with the whole record as the
    exception's ``record``; a file that cannot be read raises InputError.
    """
    args = [_cli()] + _cli_args(hash, strict, limits)
    fd = None
    if isinstance(file, (str, os.PathLike)):
        args += ["--", os.fsdecode(file)]
    else:
        bound = SPOOL_DEFAULT_TOTAL
        if isinstance(file, (bytes, bytearray, memoryview)):
            # the caller holds these bytes already: all of them are copied
            view = _contiguous(memoryview(file))
            bound = max(bound, view.nbytes)
            file = io.BytesIO(view)
        elif isinstance(file, io.TextIOBase):
            raise TypeError("file: a text-mode file object; open it in binary mode ('rb')")
        elif not (hasattr(file, "readinto") or hasattr(file, "read")):
            raise TypeError(f"file: expected a path, a bytes-like object or a binary file object, "
                            f"not {type(file).__name__}")
        plain = _guarded(_plain_fd, file)
        if plain is not None:
            # the descriptor's offset made the object's position (the two
            # seeks empty a buffered reader's buffer); npyvalidate reads
            # it with pread from there and leaves it
            try:
                here = file.tell()
                file.seek(0, io.SEEK_END)
                file.seek(here)
            except Exception as e:
                raise _io_error(e, "cannot seek the file object") from e
            fd = os.dup(plain)
        else:
            fd = _spool(file, bound, "input")
        args += ["-"]
    try:
        r = subprocess.run(args, stdin=fd if fd is not None else subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, close_fds=True)
    except OSError as e:
        raise _io_error(e, "cannot run npyvalidate") from e
    finally:
        if fd is not None:
            os.close(fd)
    try:
        rec = json.loads(r.stdout)
    except ValueError:
        raise _error(_EIO, 0, f"npyvalidate ended with status {r.returncode} and no record: "
                              f"{r.stderr.decode('utf-8', 'replace').strip()[:400]}") from None
    if r.returncode == 0 and rec.get("ok") is True:
        return rec
    err = _record_error(rec)
    if isinstance(err, InputError) and isinstance(file, (str, os.PathLike)):
        # the OSError behind an I/O record, as load() raises it: a missing
        # path is a FileMissingError (FileNotFoundError), errno kept
        try:
            os.stat(file)
        except OSError as e:
            cause = _io_error(e, err.message)
            cause.record = rec
            raise cause from None
    raise err


# ---------------------------------------------------------------- archives

def _member_buffer(d: Optional[Dict[str, Any]], size: int):
    """What a member is read into: (the value to return, its buffer)."""
    if d is None:  # not .npy: its raw bytes, as numpy returns them
        raw = bytearray(size)
        return raw, raw
    dtype = _dtype(d["descr"])
    flat = _fresh(d, dtype)
    buf = _bytes_of(flat) if d["payload_bytes"] else None
    return _array_from(flat, d, dtype), buf


class _Bag:
    """``z.f.name``: attribute access to an archive's members, as numpy's."""

    def __init__(self, z: "NpzFile"):
        self._z = z

    def __getattribute__(self, key: str):
        z = object.__getattribute__(self, "_z")
        try:
            return z[key]
        except KeyError:
            raise AttributeError(key) from None

    def __dir__(self):
        return list(object.__getattribute__(self, "_z").files)


class _Held:
    """What an archive holds open (the library's reader, a descriptor of
    npyguard's own), shared by an NpzFile and its copies and released
    once, when the last of them closes: copy.copy(z) never closes one
    descriptor twice."""

    def __init__(self, zip_, fd: Optional[int]):
        self.zip, self.fd, self.users = zip_, fd, 1

    def release(self) -> None:
        self.users -= 1
        if self.users:
            return
        z, self.zip = self.zip, None
        if z is not None:
            z.close()
        fd, self.fd = self.fd, None
        if fd is not None:
            os.close(fd)


class _ZipView:
    """``z.zip``, as numpy's NpzFile has it: the archive's member names
    as stored (namelist), and close()."""

    def __init__(self, npz: "NpzFile", names):
        self._npz, self._names = npz, list(names)

    def namelist(self):
        return list(self._names)

    def close(self) -> None:
        self._npz.close()


#: The most bytes of archive members an unseekable stream's archive may
#: declare when the caller sets no max_total_uncompressed: what it is
#: copied to a temporary file within (a seekable file is read in place,
#: never copied). A caller who expects more says so with the limit.
SPOOL_DEFAULT_TOTAL = 256 << 20


def _spool_bound(lim: Optional[Dict[str, int]]) -> int:
    lim = dict(lim or {})
    lim.setdefault("max_total_uncompressed", min(SPOOL_DEFAULT_TOTAL, LIMITS["max_total_uncompressed"]))
    return _core.stream_bound(lim)


class NpzFile(collections.abc.Mapping):
    """A ``.npz`` archive opened by ``load_npz``: a read-only Mapping.

    Keys are member names without ``.npy``, as numpy's NpzFile has them;
    ``z["a.npy"]``, ``"a.npy" in z`` and ``z.f.a`` work as in numpy, and a
    missing key raises numpy's ``KeyError('x is not a file in the
    archive')``. The archive's structure (end record, central directory,
    every local header) is checked when it is opened; each member is
    inflated and validated when it is read, with its CRC-32 and sizes
    checked. A member that is not .npy is returned as bytes, as numpy does
    (refused with strict=True). ``z.zip`` (namelist(), close()) and
    ``z.fid`` are as in numpy, None once closed; reading or asking
    ``key in z`` for a member of a closed archive raises ValueError.
    copy.copy(z) is another view of the same open archive, released when
    the last of them closes. Threads may read members of one NpzFile at
    once; close() waits for the reads in progress. Use as a context
    manager, or call close().
    """

    zip: Optional[_ZipView] = None
    fid: Any = None
    _held: Optional[_Held] = None

    def __init__(self, file, *, strict: bool = False, **limits: int):
        lim = _limits(limits)
        fd = None
        restore = None
        arg: Any
        if isinstance(file, (bytes, bytearray, memoryview)):
            arg = _contiguous(memoryview(file))
        elif isinstance(file, (str, os.PathLike)):
            fd = _os_open(file)
            if _is_stream(fd):  # a FIFO or device: read through FileIO (Ctrl-C ends it)
                try:
                    spooled = _spool(io.FileIO(fd, "rb", closefd=False), _spool_bound(lim))
                finally:
                    os.close(fd)
                fd = spooled
            arg = fd  # a directory: the library says what it is
        elif isinstance(file, io.TextIOBase):
            raise TypeError("file: a text-mode file object; open it in binary mode ('rb')")
        elif _guarded(_plain_fd, file) is not None:
            # A descriptor of npyguard's own: the caller may close theirs,
            # and its number be reused, while the archive stays open. The
            # archive starts at the object's position; the offset the two
            # share is put back once the reader has taken it.
            own = _plain_fd(file)
            try:
                restore = (own, os.lseek(own, 0, os.SEEK_CUR))
                fd = arg = os.dup(own)
                os.lseek(arg, file.tell(), os.SEEK_SET)
            except Exception as e:
                if fd is not None:
                    os.close(fd)
                raise _io_error(e, "cannot take the file's descriptor") from e
        elif type(file) is io.BytesIO or isinstance(file, mmap.mmap):
            # in place, without a copy (see _Source)
            at = _guarded(file.tell)
            arg = memoryview(file.getvalue() if isinstance(file, io.BytesIO) else file)[at:]
        elif hasattr(file, "readinto") or hasattr(file, "read"):
            if _in_place(file):
                # Read in place, at offsets (seek, then readinto or read):
                # a remote file transfers the directory and the members
                # read, never the whole object.
                start = _guarded(file.tell)
                end = _guarded(file.seek, 0, io.SEEK_END)
                _guarded(file.seek, start)
                if not isinstance(start, int) or not isinstance(end, int) or end < start:
                    raise _error(_EIO, 0, f"the file object's tell() and seek() disagree ({start!r}, {end!r})")
                arg = (file, start, end - start)
            else:
                # An archive is read from its end: an unseekable stream is
                # copied first, to an anonymous file, within the caller's
                # limits (and SPOOL_DEFAULT_TOTAL when they set none).
                fd = arg = _spool(file, _spool_bound(lim))
        else:
            raise TypeError(f"file: expected a path, a bytes-like object or a binary file object, "
                            f"not {type(file).__name__}")
        try:
            z = _core.Zip(arg, strict, lim)
        except BaseException:
            if fd is not None:
                os.close(fd)
            raise
        finally:
            if restore is not None:
                os.lseek(*restore, os.SEEK_SET)
        self._held = _Held(z, fd)
        if isinstance(file, (str, os.PathLike)):  # numpy's fid: the file it opened itself
            self.fid = open(fd, "rb", closefd=False)
        try:
            members = z.members()
        except BaseException:
            self.close()
            raise
        self._index = {}
        for i, m in enumerate(members):  # names as zipfile decodes them, by the library
            name = m["name"]
            self._index[name] = i
            if name.endswith(".npy"):
                self._index.setdefault(name[:-4], i)
        self.files = [n[:-4] if n.endswith(".npy") else n for n in (m["name"] for m in members)]
        self.zip = _ZipView(self, (m["name"] for m in members))
        self.f = _Bag(self)

    def _reader(self):
        held = self._held
        if held is None or held.zip is None:
            raise ValueError("the archive is closed")
        return held.zip

    def __getitem__(self, key: str) -> Union[np.ndarray, bytes]:
        i = self._index.get(key) if isinstance(key, str) else None
        if i is None:
            raise KeyError("%s is not a file in the archive" % (key,))
        z = self._reader()
        try:
            got = z.read(i, _member_buffer)
        except Error as e:
            e.member = key
            raise
        return bytes(got) if isinstance(got, bytearray) else got

    def __iter__(self) -> Iterator[str]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)

    def __contains__(self, key) -> bool:
        # numpy's answers by reading the member: after close() it raises
        if not isinstance(key, str) or key not in self._index:
            return False
        self._reader()
        return True

    def __copy__(self) -> "NpzFile":
        held = self._held
        if held is None:
            raise ValueError("the archive is closed")
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        held.users += 1
        other.fid = None
        other.zip = _ZipView(other, self.zip.namelist() if self.zip else ())
        other.f = _Bag(other)
        return other

    def __deepcopy__(self, memo) -> "NpzFile":
        return self.__copy__()

    def __reduce__(self):
        raise TypeError("an NpzFile holds an open archive and cannot be pickled; pickle its arrays")

    def close(self) -> None:
        """Release the archive (and the file npyguard opened), once the
        reads in progress are done and no copy of this NpzFile uses it."""
        held, self._held = self._held, None
        self.zip = None
        fid, self.fid = self.fid, None
        if fid is not None:
            fid.close()
        if held is not None:
            held.release()

    def __enter__(self) -> "NpzFile":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        self.close()

    def __repr__(self) -> str:
        return f"<npyguard.NpzFile {len(self.files)} members>"


def _count(n, want: int, where: int, what: str) -> int:
    """A count a file object returned, checked: an int in 0..want."""
    if n is None:
        raise _error(_EIO, where, f"{what} returned None: a non-blocking stream with no data ready")
    if type(n) is not int or not 0 <= n <= want:
        raise _error(_EIO, where, f"{what} returned {n!r} for {want} bytes asked")
    return n


def _spool(file, bound: int, what: str = "archive") -> int:
    """Copies a stream to an anonymous temporary file, at most bound bytes
    (LimitError NPYG_ELIMIT_STDIN past that); returns its descriptor, at
    0. Every failure to read the stream or write the copy (a full disk,
    RLIMIT_FSIZE) is an InputError; a count no read could return (negative,
    not an int, more than asked, None) too."""
    try:
        tmp = tempfile.TemporaryFile()
    except OSError as e:
        raise _io_error(e, f"cannot make a temporary file for the {what} on a stream") from e
    try:
        chunk = bytearray(1 << 20)
        view = memoryview(chunk)
        total = 0
        readinto = getattr(file, "readinto", None)
        while True:
            want = min(len(chunk), bound - total + 1)  # one byte past the bound says it is passed
            if readinto is not None:
                n = _count(_guarded(readinto, view[:want]), want, total, "readinto")
            else:
                data = _guarded(file.read, want)
                if isinstance(data, str):
                    raise _error(_EIO, total, "read() returned str; open the file in binary mode ('rb')")
                if data is None:
                    _count(None, want, total, "read")
                try:
                    got = memoryview(data).cast("B")
                except TypeError:
                    raise _error(_EIO, total, f"read() returned {type(data).__name__}, not bytes") from None
                n = _count(got.nbytes, want, total, "read")
                view[:n] = got
            if not n:
                break
            if n > bound - total:
                raise _error(_ELIMIT_STDIN, bound,
                             f"archive on a stream is over {bound} bytes, the most the zip limits "
                             f"admit (max_total_uncompressed, {SPOOL_DEFAULT_TOTAL} bytes by default "
                             f"on a stream)" if what == "archive" else
                             f"{what} is over {bound} bytes (SPOOL_DEFAULT_TOTAL), the most "
                             f"validate() copies from a file object; pass a path")
            total += n
            try:
                tmp.write(view[:n])
            except OSError as e:
                raise _io_error(e, f"cannot write the temporary copy of the {what} on a stream") from e
        try:
            tmp.flush()
            fd = os.dup(tmp.fileno())
            os.lseek(fd, 0, os.SEEK_SET)
        except OSError as e:
            raise _io_error(e, f"cannot write the temporary copy of the {what} on a stream") from e
        return fd
    finally:
        try:
            tmp.close()
        except OSError:
            pass


def load_npz(file, *, strict: bool = False, **limits: int) -> NpzFile:
    """Open a ``.npz`` archive safely; returns an NpzFile (a read-only Mapping).

    file    -- a path, a bytes-like object or a binary file object. A
               seekable one (a regular file, BytesIO, an fsspec, S3 or
               HTTP file) is read in place, at offsets: only the directory
               and the members read are transferred. An unseekable stream
               (a pipe, a socket) is copied first to an anonymous
               temporary file, no further than the zip limits admit
               (max_total_uncompressed, else SPOOL_DEFAULT_TOTAL):
               LimitError NPYG_ELIMIT_STDIN past that, InputError when
               the copy cannot be written.
    strict  -- refuse what numpy's writer would not produce (comments,
               members that are not .npy, ...).
    **limits -- as for load().

    The archive structure is checked now (ZipError on any fault); members
    are read lazily, each validated as .npy when read:

        with npyguard.load_npz("data.npz") as z:
            w = z["weights"]
    """
    return NpzFile(file, strict=strict, **limits)


from ._hdf5 import load_hdf5_mapping, load_tree  # noqa: E402  (HDF5 and MAT v7.3 through the sandbox)
from ._matlab import load_hdf5, loadmat  # noqa: E402

__all__ += ["load_tree", "load_hdf5_mapping", "loadmat", "load_hdf5"]
