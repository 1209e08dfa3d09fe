#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Writes corpus/pickle/: object-dtype .npy files whose payloads are pickles
of every protocol (0-5) and opcode family the static scanner must name,
malformed and truncated pickles, an .npz of object members and one whose
members' deflate streams break (zipfile's read raises zlib.error), with
corpus/pickle/manifest.json recording what Python's own pickletools sees in
each payload.

    /usr/bin/python3 gen/gen_pickles.py [OUTDIR]     (default: corpus/pickle)

Nothing that imports is ever unpickled (only import-free pickles, through
an Unpickler that refuses every import, where pickletools.dis is stricter
than pickle.loads). Pickles come from pickle.dumps (pickling
runs no payload) or are written opcode by opcode; each .npy header is
numpy's own (numpy.lib.format.write_array_header_1_0 / 2_0), followed by
the pickle as numpy.save writes one (pickle.dump after the header; numpy
1.24 always uses protocol 3, the other protocols are written the same way
with pickle.dump).

What pickletools sees: pickletools.genops walks the opcodes; the stack and
memo are replayed from each opcode's documented stack_before/stack_after
(pickletools.OpcodeInfo), with values that are strings, imports (GLOBAL,
STACK_GLOBAL, INST, EXT) or results of calling an import; pickletools.dis
(which checks the stack, the marks and the memo) says whether the pickle
is well formed. The manifest records, per file, the imports (module.name,
sorted), which are called (REDUCE, NEWOBJ, NEWOBJ_EX, OBJ, INST) and given
state (BUILD), and for a malformed pickle the error pickletools reports.
"""
import collections
import datetime
import decimal
import fractions
import io
import json
import os
import pickle
import pickletools
import struct
import sys
import types
import zipfile
import zlib

import numpy as np
import numpy.lib.format as npf

HERE = os.path.dirname(os.path.abspath(__file__))


# ---------------------------------------------------------------- the oracle

class Str:
    def __init__(self, s):
        self.s = s


class Imp:
    def __init__(self, name):
        self.name = name


class Result:
    def __init__(self, imp):
        self.imp = imp


class NotStr:
    """A value whose documented type (pickletools' stack_after) is not str."""


MARK = object()


def replay(payload):
    """imports, called, built and the first error, from pickletools alone."""
    imports, called, built = [], set(), set()
    stack, memo = [], {}
    err = None

    def pop():
        return stack.pop() if stack else None

    def pop_mark():
        if MARK not in stack:
            # Lib/pickle.py's pop_mark pops the metastack: IndexError.
            raise ValueError("no MARK on the stack")
        items = []
        while stack and stack[-1] is not MARK:
            items.insert(0, stack.pop())
        if stack:
            stack.pop()
        return items

    def note(name):
        if name not in imports:
            imports.append(name)
        return Imp(name)

    try:
        for op, arg, _pos in pickletools.genops(io.BytesIO(payload)):
            n = op.name
            if n in ("GLOBAL",):
                mod, _, attr = arg.partition(" ")
                stack.append(note("%s.%s" % (mod, attr)))
            elif n == "INST":
                mod, _, attr = arg.partition(" ")
                imp = note("%s.%s" % (mod, attr))
                pop_mark()
                called.add(imp.name)
                stack.append(Result(imp))
            elif n == "STACK_GLOBAL":
                name, mod = pop(), pop()
                if isinstance(name, NotStr) or isinstance(mod, NotStr):
                    # pickletools does not check it; Lib/pickle.py's load_stack_global does.
                    raise ValueError("STACK_GLOBAL requires str")
                parts = [x.s if isinstance(x, Str) else "?" for x in (mod, name)]
                stack.append(note("%s.%s" % tuple(parts)))
            elif n in ("EXT1", "EXT2", "EXT4"):
                if arg <= 0:
                    # pickletools does not check it; Lib/pickle.py's get_extension does.
                    raise ValueError("EXT specifies code <= 0")
                stack.append(note("ext:%d" % arg))
            elif n in ("STRING", "BINSTRING", "SHORT_BINSTRING", "UNICODE", "BINUNICODE",
                       "SHORT_BINUNICODE", "BINUNICODE8"):
                if n == "STRING":
                    raw = payload[_pos + 1:payload.index(b"\n", _pos + 1)]
                    if not (len(raw) >= 2 and raw[:1] == raw[-1:] and raw[:1] in (b"'", b'"')):
                        # pickletools takes a lone quote as ''; Lib/pickle.py's load_string does not.
                        raise ValueError("the STRING opcode argument must be quoted")
                stack.append(Str(arg if isinstance(arg, str) else arg.decode("latin-1")))
            elif n in ("PUT", "BINPUT", "LONG_BINPUT"):
                if arg < 0:
                    # pickletools does not check it; Lib/pickle.py's load_put does.
                    raise ValueError("negative PUT argument")
                memo[arg] = stack[-1] if stack else None
            elif n == "MEMOIZE":
                memo[len(memo)] = stack[-1] if stack else None
            elif n in ("GET", "BINGET", "LONG_BINGET"):
                stack.append(memo.get(arg))
            elif n == "DUP":
                stack.append(stack[-1] if stack else None)
            elif n in ("REDUCE", "NEWOBJ", "NEWOBJ_EX", "OBJ"):
                if n == "OBJ":
                    items = pop_mark()
                    if not items:
                        # Lib/pickle.py's load_obj does args.pop(0): IndexError.
                        raise ValueError("OBJ without a class")
                    fn = items[0] if items else None
                else:
                    for _ in range({"REDUCE": 1, "NEWOBJ": 1, "NEWOBJ_EX": 2}[n]):
                        pop()
                    fn = pop()
                if isinstance(fn, Imp):
                    called.add(fn.name)
                    stack.append(Result(fn))
                else:
                    stack.append(None)
            elif n == "BUILD":
                pop()
                top = stack[-1] if stack else None
                if isinstance(top, Imp):
                    built.add(top.name)
                elif isinstance(top, Result):
                    built.add(top.imp.name)
            elif n in ("APPEND", "SETITEM", "READONLY_BUFFER"):
                for _ in range(len(op.stack_before) - 1):
                    pop()
            elif n in ("APPENDS", "SETITEMS", "ADDITEMS"):
                if len(pop_mark()) % 2 and n == "SETITEMS":
                    # Lib/pickle.py's load_setitems indexes items[i + 1]: IndexError.
                    raise ValueError("odd number of items for SETITEMS")
            elif n == "DICT":
                if len(pop_mark()) % 2:
                    # Lib/pickle.py's load_dict indexes items[i + 1]: IndexError.
                    raise ValueError("odd number of items for DICT")
                stack.append(NotStr())
            elif n == "STOP":
                break
            elif n == "PROTO" and arg > pickle.HIGHEST_PROTOCOL:
                # pickletools does not check it; Lib/pickle.py's load_proto does.
                raise ValueError("unsupported pickle protocol: %d" % arg)
            else:
                # Everything else, from its documented stack effect.
                before = op.stack_before
                if pickletools.markobject in before:
                    pop_mark()
                    before = before[:before.index(pickletools.markobject)]
                for _ in before:
                    pop()
                for s in op.stack_after:
                    if s is pickletools.markobject:
                        stack.append(MARK)
                    else:
                        stack.append(None if s.name == "any" else NotStr())
    except ValueError as e:
        err = str(e)
    if err is None:
        try:
            pickletools.dis(payload, out=io.StringIO())
        except ValueError as e:
            err = str(e)
    return imports, sorted(called), sorted(built), err


class NoImports(pickle.Unpickler):
    """pickle.Unpickler that refuses every import and persistent id: with
    nothing callable it runs no code, so an import-free pickle can be
    loaded to see whether pickle.loads is laxer than pickletools.dis."""
    def find_class(self, module, name):
        raise pickle.UnpicklingError("import refused: %s.%s" % (module, name))

    def persistent_load(self, pid):
        raise pickle.UnpicklingError("persistent id refused")


def loads_error(payload):
    """None when pickle.loads (refusing imports) accepts payload, else its error."""
    try:
        NoImports(io.BytesIO(payload)).load()
    except Exception as e:  # what the loader raises: UnpicklingError, ValueError, EOFError, ...
        return "%s: %s" % (type(e).__name__, e)
    return None


# ---------------------------------------------------------------- objects

class Reduce:
    """Pickles as a call of fn(*args); pickling it runs nothing."""
    def __init__(self, fn, args):
        self.fn, self.args = fn, args

    def __reduce__(self):
        return (self.fn, self.args)


class Point:
    """A class with __getnewargs_ex__ (NEWOBJ_EX at protocol 4) and state."""
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __getnewargs_ex__(self):
        return (self.x,), {"y": self.y}


class Pair:
    """__getnewargs__: NEWOBJ from protocol 2, plus BUILD of its __dict__."""
    def __init__(self, a):
        self.a = a

    def __getnewargs__(self):
        return (self.a,)


# The pickler checks that a class can be found by name; a stand-in module
# lets it, and the pickles say "fixtures.Point" whoever generates them.
_fixtures = types.ModuleType("fixtures")
for _c in (Point, Pair):
    _c.__module__ = "fixtures"
    setattr(_fixtures, _c.__name__, _c)
sys.modules["fixtures"] = _fixtures


def obj_array(items):
    a = np.empty(len(items), dtype=object)
    for i, x in enumerate(items):
        a[i] = x
    return a


def npy_bytes(descr, shape, payload, version=(1, 0)):
    """numpy's own header for an object array, then the pickle."""
    f = io.BytesIO()
    header = {"descr": descr, "fortran_order": False, "shape": shape}
    if version == (1, 0):
        npf.write_array_header_1_0(f, header)
    else:
        npf.write_array_header_2_0(f, header)
    return f.getvalue() + payload


# ---------------------------------------------------------------- the cases

def cases():
    out = []

    def add(name, payload, description, error=None, descr="|O", shape=None, version=(1, 0), rule=None,
            limits=None):
        out.append((name, payload, description, error, descr, shape, version, rule, limits))

    mixed = [1, "a", None, 2.5, {"k": [1, 2]}, b"raw", (1, "t")]
    for proto in range(6):
        add("list-p%d.npy" % proto, pickle.dumps(obj_array(mixed), protocol=proto),
            "an object array of plain Python values, pickle protocol %d" % proto,
            shape=(len(mixed),))
    os_system = Reduce(os.system, ("true",))
    for proto in range(6):
        add("os-system-p%d.npy" % proto, pickle.dumps(obj_array([os_system]), protocol=proto),
            "an element that would call os.system (posix.system), protocol %d" % proto, shape=(1,))
    add("system-and-eval-p3.npy",
        pickle.dumps(obj_array([os_system, Reduce(eval, ("1",))]), protocol=3),
        "two elements: os.system and builtins.eval, protocol 3", shape=(2,))
    add("system-and-eval-p4.npy",
        pickle.dumps(obj_array([os_system, Reduce(eval, ("1",))]), protocol=4),
        "two elements: os.system and builtins.eval, protocol 4 (STACK_GLOBAL)", shape=(2,))
    stdlib = [collections.OrderedDict(a=1), collections.Counter("ab"), datetime.date(2020, 1, 2),
              datetime.timedelta(days=1), decimal.Decimal("1.5"), fractions.Fraction(1, 3),
              collections.deque([1])]
    for proto in (2, 4, 5):
        add("stdlib-p%d.npy" % proto, pickle.dumps(obj_array(stdlib), protocol=proto),
            "standard-library objects sharing modules (memoized module names), protocol %d" % proto,
            shape=(len(stdlib),))
    many = ["s%03d" % i for i in range(300)] + [collections.OrderedDict(), collections.Counter(),
                                                datetime.date(2021, 3, 4), datetime.time(1, 2)]
    add("memo-long-binget-p4.npy", pickle.dumps(obj_array(many), protocol=4),
        "300 memoized strings first, so that later module names come back by LONG_BINGET",
        shape=(len(many),))
    add("newobj-build-p2.npy", pickle.dumps(obj_array([Pair(1), Pair(2)]), protocol=2),
        "instances rebuilt by NEWOBJ (__getnewargs__) and BUILD, protocol 2", shape=(2,))
    add("newobj-ex-p4.npy", pickle.dumps(obj_array([Point(1, 2)]), protocol=4),
        "an instance rebuilt by NEWOBJ_EX (__getnewargs_ex__), protocol 4", shape=(1,))
    inner = obj_array([1, 2])
    add("nested-array-p3.npy", pickle.dumps(obj_array([inner, obj_array([inner, "x"])]), protocol=3),
        "object arrays inside an object array: nested reductions", shape=(2,))
    inner_pickle = pickle.dumps(obj_array([os_system]), protocol=2)
    add("nested-pickle-bytes-p4.npy",
        pickle.dumps(obj_array([Reduce(pickle.loads, (inner_pickle,))]), protocol=4),
        "an element that would unpickle bytes holding another pickle: the scan names the loads call,"
        " not what the inner pickle imports", shape=(1,))
    add("frame-p5.npy", pickle.dumps(obj_array([bytearray(b"x" * 100), "y" * 70000]), protocol=5),
        "protocol 5 with FRAME, BYTEARRAY8 and a 70,000-character string", shape=(2,))
    add("fortran-2d-v2.npy", pickle.dumps(obj_array(mixed[:6]).reshape(2, 3), protocol=3),
        "a 2-D object array under a version 2.0 header", shape=(2, 3), version=(2, 0))
    add("field-object.npy", pickle.dumps(np.array([(1, os_system)], dtype=[("a", "<i4"), ("b", "O")]),
                                         protocol=3),
        "a structured array with an object field holding os.system",
        descr=[("a", "<i4"), ("b", "|O")], shape=(1,))

    # Opcodes Python 3's pickler never writes, spelled by hand.
    add("inst-p0.npy", b"(S'true'\nios\nsystem\n.", "INST: os.system called with a marked argument list")
    add("obj-p1.npy", b"(cos\nsystem\nS'true'\no.", "OBJ: class and arguments after a mark")
    add("global-build-p0.npy", b"cbuiltins\nobject\n(tR(dS'a'\nI1\nsb.",
        "GLOBAL, REDUCE, then BUILD with a dict state")
    add("put-get-p0.npy", b"Vbuiltins\np0\n0Vexec\np1\n0g0\ng1\n\x93(S'1'\ntR.",
        "protocol-0 PUT/GET memo feeding STACK_GLOBAL")
    add("unicode-escape-p0.npy", b"V\\u0062uiltins\nVev\\u0061l\n\x93(S'1'\ntR.",
        "UNICODE strings with raw-unicode-escape escapes naming builtins.eval")
    add("string-escape-p0.npy", b"S'o\\x73'\nS\"sys\\164em\"\n\x93(S'true'\ntR.",
        "STRING strings with \\x and octal escapes naming os.system")
    add("ext-p2.npy", b"\x80\x02\x82\x07)R.", "EXT1: an import by extension code 7, called")
    add("persid-p0.npy", b"Pabc\n.", "a persistent id: the loader's persistent_load decides")
    add("memoize-get-p4.npy",
        b"\x80\x04\x8c\x02os\x940\x8c\x06system\x940h\x00h\x01\x93\x940h\x02\x8c\x04true\x85R.",
        "MEMOIZE and BINGET: the same import fetched twice from the memo, called once")
    add("getattr-chain-p4.npy",
        b"\x80\x04\x8c\x08builtins\x8c\x07getattr\x93\x8c\x08builtins\x8c\x0a__import__\x93"
        b"\x8c\x02os\x85R\x8c\x06system\x86R\x8c\x04true\x85R.",
        "__import__('os') then getattr(.., 'system') then a call of the result: an indirect call")
    add("stack-global-os-sep.npy",
        b"\x80\x04\x8c\x02os\x8c\x03sep\x93\x8c\x01x\x93.",
        "STACK_GLOBAL whose module is an imported object (os.sep), not a string")
    add("empty-list-p2.npy", b"\x80\x02]q\x00.", "an empty list: no import at all")

    # Every other opcode and argument form, one small pickle each.
    add("string-escapes-p0.npy",
        rb"""S'\a\b\f\n\r\t\v\'\"\\\q\101\7\x41'""" + b"\n0S\"s\\x79s\"\nS'pa\\164h'\n\x93.",
        "STRING with every escape codecs.escape_decode knows and an unknown one, then sys.path spelled"
        " with \\x and octal escapes in double and single quotes")
    add("unicode-forms-p0.npy",
        b"V\xe9\\\\u0041\n0V\\u00e9\\u20ac\\U0001f600\n0Vos\nVsystem\n\x93.",
        "UNICODE with Latin-1 bytes, a doubled backslash and \\u / \\U escapes of 2, 3 and 4 UTF-8 bytes")
    add("long-forms-p2.npy", b"\x80\x02(\x8a\x02\x01\x02\x8b\x01\x00\x00\x00\x05L12L\nI01\nF1.5\n"
        b"G?\xf8\x00\x00\x00\x00\x00\x00J\x01\x00\x00\x00K\x01M\x01\x00\x88\x89NNN\x87NN\x86N\x85t.",
        "LONG1, LONG4, LONG, INT, FLOAT, BINFLOAT, BININT*, NEWTRUE/NEWFALSE, NONE and TUPLE1-3")
    add("containers-p4.npy", b"\x80\x04(](K\x01K\x02e}(K\x01K\x02u\x8f(K\x03\x90(K\x04\x91"
        b"(K\x05K\x06d(K\x07l(K\x08t]K\x09a}K\x0aK\x0bs2t.",
        "APPENDS, SETITEMS, ADDITEMS, FROZENSET, DICT, LIST, TUPLE, APPEND, SETITEM, DUP")
    add("bytes-forms-p5.npy", b"\x80\x05(C\x01aB\x01\x00\x00\x00b\x8e\x01\x00\x00\x00\x00\x00\x00\x00c"
        b"\x96\x01\x00\x00\x00\x00\x00\x00\x00d\x98T\x01\x00\x00\x00eU\x01f"
        b"X\x01\x00\x00\x00g\x8d\x01\x00\x00\x00\x00\x00\x00\x00h\x97\x98t.",
        "SHORT_BINBYTES, BINBYTES, BINBYTES8, BYTEARRAY8, READONLY_BUFFER, BINSTRING, SHORT_BINSTRING,"
        " BINUNICODE, BINUNICODE8, NEXT_BUFFER")
    add("text-memo-p0.npy", b"Vbuiltins\np +1_0\n0Vlen\np2\n0g 10\ng2\n\x930(lp3\n0(1N.",
        "PUT and GET with blanks, a sign and an underscore in the index, POP, POP_MARK")
    add("pop-empty-frame-p1.npy", b"N(0.", "POP on an empty frame drops the MARK")
    add("ext-forms-p2.npy", b"\x80\x02\x83\x00\x01\x84\x00\x00\x01\x0000\x82\x05)\x81.",
        "EXT2, EXT4 and EXT1, the last one's class given to NEWOBJ")
    add("newobj-ex-global-p4.npy", b"\x80\x04\x8c\x08builtins\x8c\x03int\x93)}\x92)b.",
        "NEWOBJ_EX on builtins.int, then BUILD on the result")
    add("binpersid-p1.npy", b"K\x01Q)R.", "BINPERSID, then a call of what persistent_load returned")
    add("call-of-call-p2.npy", b"\x80\x02cbuiltins\ngetattr\n)R)R)R.",
        "a call of what a call returned, twice: an indirect call")
    add("reduce-other-p2.npy", b"\x80\x02N)R.", "REDUCE on None: the loader would raise TypeError, no import")
    add("global-long-name-p0.npy", b"c" + b"m" * 300 + b"\n" + b"n" * 300 + b"\n.",
        "GLOBAL with module and name of 300 bytes: cut at 255 in the report",
        rule=lambda imps: [".".join(part[:255] for part in i.split(".")) for i in imps])
    add("stack-global-long-string-p4.npy",
        b"\x80\x04X\x2c\x01\x00\x00" + b"m" * 300 + b"\x8c\x01x\x93.",
        "STACK_GLOBAL whose module is a 300-character string: unresolved",
        rule=lambda imps: ["?." + i.split(".")[1] for i in imps])
    add("stack-global-text-string-p4.npy", b"\x80\x04\x8c\x03a b\x8c\x01x\x93.",
        "STACK_GLOBAL on a string with a space, which the scan does not keep: unresolved",
        rule=lambda imps: ["?." + i.split(".")[1] for i in imps])
    add("obj-on-global-p1.npy", b"(cbuiltins\nset\no(cbuiltins\nlist\n)o0)\x81.",
        "OBJ on a class, then NEWOBJ on an empty tuple (the loader would refuse it)")

    # Argument forms and malformed arguments of the text opcodes (GET, PUT,
    # STRING, UNICODE), read as int(), codecs.escape_decode and
    # raw-unicode-escape read them.
    add("text-index-blanks-p0.npy", b"Np\t1\r\n0g\r1\t\n0g1 \n.",
        "PUT and GET indexes with a tab, a carriage return and a space around the digits (int() strips them)")
    add("text-index-padded-p0.npy",
        b"Np" + b"0" * 40 + b"1\n0cos\nsystem\n0g\x0b\x0c" + b" " * 40 + b"0_0_1\t\x0c\n.",
        "PUT 1 written with 40 leading zeros, then os.system, then GET 1 with 42 blanks (vertical tab, form feed,"
        " spaces), underscores and trailing blanks: int() reads both as 1, however long the line")
    add("put-index-digit-after-blank.npy", b"Np1 2\n.", "PUT index '1 2': int() refuses a blank inside",
        error="NPYG_EPICKLE")
    add("put-index-blank-after-sign.npy", b"Np+ 1\n.", "PUT index '+ 1': int() refuses a blank after the sign",
        error="NPYG_EPICKLE")
    add("put-index-sign-last.npy", b"Np1+\n.", "PUT index '1+'", error="NPYG_EPICKLE")
    add("put-index-cut-by-max-bytes.npy", b"Np" + b"0" * 100 + b"1\n0N.",
        "PUT 1 with 100 leading zeros: max_bytes 64 ends the scan inside the index line",
        error="NPYG_ELIMIT_PICKLE_BYTES", limits={"max_bytes": 64})
    add("build-on-global-p0.npy", b"cbuiltins\nobject\n}b.", "BUILD on builtins.object itself, never called")
    add("put-index-blank.npy", b"Np \n.", "PUT with an index of blanks only", error="NPYG_EPICKLE")
    add("put-index-negative.npy", b"Np-1\n.", "PUT -1 (Lib/pickle.py: negative PUT argument)", error="NPYG_EPICKLE")
    add("put-index-underscore-first.npy", b"Np_1\n.", "PUT index _1: int() refuses a leading underscore",
        error="NPYG_EPICKLE")
    add("put-index-underscore-last.npy", b"Np1_\n.", "PUT index 1_: int() refuses a trailing underscore",
        error="NPYG_EPICKLE")
    add("put-index-underscore-double.npy", b"Np1__0\n.", "PUT index 1__0: int() refuses a doubled underscore",
        error="NPYG_EPICKLE")
    add("put-index-too-long.npy", b"Np" + b"x" * 40 + b"\n.", "PUT with a 40-letter index", error="NPYG_EPICKLE")
    add("get-index-huge.npy", b"Ng99999999999999999999\n.",
        "GET of memo entry 10**20 - 1: never stored, and past every max_memo", error="NPYG_ELIMIT_PICKLE_MEMO")
    add("long-binget-past-memo.npy", b"\x80\x02j\xff\xff\xff\xff.",
        "LONG_BINGET 2**32 - 1: never stored, and past the default max_memo", error="NPYG_ELIMIT_PICKLE_MEMO")
    add("get-unset-below-stored.npy", b"Nq\x05h\x03.", "BINGET 3 after only BINPUT 5 stored",
        error="NPYG_EPICKLE")
    add("put-redefined-p1.npy", b"Nq\x00Nq\x000.",
        "BINPUT 0 twice: pickle.loads overwrites the entry, pickletools.dis alone refuses it", error="NPYG_OK")
    add("string-escape-forms-p0.npy", b"S'\\x4A\\x6f\\!\\1!'\n0S'\\1'\n.",
        "STRING with upper- and lower-case \\x digits, an unknown escape below '0' and octal escapes"
        " cut by the quote and by a non-digit")
    for name, arg, what in (("space", b"\\x 0", "a space"), ("upper-g", b"\\xaG", "'G'"),
                            ("letter-z", b"\\xz0", "'z'"), ("none", b"\\x", "nothing"), ("one", b"\\x1", "one digit")):
        add("string-bad-hex-%s.npy" % name, b"S'" + arg + b"'\n.",
            "STRING whose \\x escape is followed by %s (codecs.escape_decode: invalid \\x escape)" % what,
            error="NPYG_EPICKLE")
    add("string-trailing-backslash.npy", b"S'abc\\'\n.", "STRING ending in a backslash", error="NPYG_EPICKLE")
    add("string-one-quote.npy", b"S'\n.", "STRING of a single quote character", error="NPYG_EPICKLE")
    add("string-other-delimiters.npy", b"Sxabcx\n.", "STRING between two x's, not quotes", error="NPYG_EPICKLE")
    add("string-long-p0.npy", b"S'" + b"a" * 3000 + b"'\n.", "a 3000-character STRING, longer than any name")
    add("stack-global-long-text-string-p0.npy", b"S'" + b"m" * 300 + b"'\nS'x'\n\x93.",
        "STACK_GLOBAL whose module is a 300-character STRING: unresolved",
        rule=lambda imps: ["?." + i.split(".")[1] for i in imps])
    add("unicode-long-p0.npy", b"V" + b"a" * 3000 + b"\n.", "a 3000-character UNICODE string")
    add("unicode-backslashes-p0.npy", b"Va\\\n0V\\x\n.",
        "UNICODE ending in a backslash, and a backslash before x: both literal in raw-unicode-escape")
    add("unicode-short-escape.npy", b"V\\u12\n.", "UNICODE with a \\u escape of 2 digits", error="NPYG_EPICKLE")
    add("unicode-bad-escape.npy", b"V\\u12G4\n.", "UNICODE with a \\u escape holding 'G'", error="NPYG_EPICKLE")
    add("unicode-above-max.npy", b"V\\U00110000\n.", "UNICODE \\U00110000, above U+10FFFF", error="NPYG_EPICKLE")
    add("binunicode8-huge.npy", b"\x8d" + b"\xff" * 8 + b".", "BINUNICODE8 longer than any size",
        error="NPYG_EPICKLE")

    # Every opcode whose argument or data the pickle ends inside.
    for name, p in (("put", b"Np1"), ("binput", b"Nq"), ("long-binput", b"Nr\x01"), ("binget", b"h"),
                    ("long-binget", b"j\x01"), ("long1-arg", b"\x8a"), ("long1-data", b"\x8a\x05ab"),
                    ("long4-arg", b"\x8b\x01"), ("long4-data", b"\x8b\x05\x00\x00\x00ab"),
                    ("binstring-arg", b"T\x01"), ("binunicode-arg", b"X\x01"), ("binunicode8-arg", b"\x8d\x01"),
                    ("short-binbytes-arg", b"C"), ("binbytes-arg", b"B\x01"), ("binbytes8-arg", b"\x8e\x01")):
        add("truncated-%s.npy" % name, p, "the pickle ends inside the argument of its last opcode (%s)" % name,
            error="NPYG_EPICKLE_TRUNC")
    add("obj-no-mark.npy", b"o.", "OBJ with no MARK at all", error="NPYG_EPICKLE")
    add("binpersid-empty.npy", b"Q.", "BINPERSID on an empty stack", error="NPYG_EPICKLE")

    # Imports that differ only in their bytes, flags or what they come from.
    add("same-length-imports-p0.npy", b"cos\nsystem\n0cnt\nsystem\n0cos\ngetcwd\n0cos\nsystem\n.",
        "os.system, nt.system, os.getcwd, then os.system again: names of equal lengths told apart")
    add("global-cut-and-exact-p0.npy",
        b"c" + b"m" * 255 + b"\n" + b"n" * 255 + b"\n0c" + b"m" * 300 + b"\n" + b"n" * 300 + b"\n.",
        "a GLOBAL of exactly 255-byte names, then one of 300-byte names cut to the same 255: two imports",
        rule=lambda imps: [".".join(part[:255] for part in i.split(".")) for i in imps])
    add("global-long-attribute-p0.npy", b"cos\n" + b"n" * 300 + b"\n.",
        "GLOBAL with a short module and a 300-byte name: cut at 255",
        rule=lambda imps: [".".join(part[:255] for part in i.split(".")) for i in imps])
    add("build-on-none-p2.npy", b"\x80\x02N}b.", "BUILD on None: no import is given state")
    add("stack-global-from-call-p4.npy", b"\x80\x04cbuiltins\nstr\n)R\x8c\x01x\x93.",
        "STACK_GLOBAL whose module is what calling builtins.str returned: unresolved")
    add("stack-global-from-persid-p4.npy", b"\x80\x04Pabc\n\x8c\x01x\x93.",
        "STACK_GLOBAL whose module is a persistent id: unresolved")

    # Limits of the scan itself, on pickles pickletools walks cleanly.
    add("marks-40-p1.npy", b"(" * 40 + b"t" * 40 + b".",
        "40 nested MARKs, each closed by TUPLE: past max_stack 16 at the 16th MARK",
        error="NPYG_ELIMIT_PICKLE_STACK", limits={"max_stack": 16})
    add("list-200-p1.npy", b"(" + b"N" * 200 + b"l.",
        "a list of 200 Nones after one MARK: past max_stack 100, the stack grown to the limit's size",
        error="NPYG_ELIMIT_PICKLE_STACK", limits={"max_stack": 100})

    # Malformed and truncated pickles: numpy's loader gets an UnpicklingError
    # (or EOFError) from pickle.load before anything is called.
    full = pickle.dumps(obj_array([os_system, Reduce(eval, ("1",))]), protocol=4)
    for cut in (0, 1, 2, 12, len(full) // 2, len(full) - 1):
        add("truncated-%d-p4.npy" % cut, full[:cut],
            "a protocol-4 pickle cut after %d of its %d bytes" % (cut, len(full)),
            error="NPYG_EPICKLE_TRUNC")
    add("truncated-line-p0.npy", b"cos\nsys", "a GLOBAL whose name line never ends", error="NPYG_EPICKLE_TRUNC")
    add("unknown-opcode.npy", b"\x80\x02\xff.", "opcode 0xff does not exist", error="NPYG_EPICKLE")
    add("proto-6.npy", b"\x80\x06N.", "PROTO 6: above the highest protocol", error="NPYG_EPICKLE_PROTO")
    add("reduce-underflow.npy", b"\x80\x02R.", "REDUCE on an empty stack", error="NPYG_EPICKLE")
    add("get-unset-memo.npy", b"\x80\x02h\x05.", "BINGET of a memo entry never stored", error="NPYG_EPICKLE")
    add("stack-global-ints.npy", b"\x80\x04K\x01K\x02\x93.", "STACK_GLOBAL on two ints", error="NPYG_EPICKLE")
    add("pop-mark-without-mark.npy", b"\x80\x02N1.", "POP_MARK without a MARK", error="NPYG_EPICKLE")
    add("negative-binstring.npy", b"T\xff\xff\xff\xff.", "BINSTRING with a negative length",
        error="NPYG_EPICKLE")
    add("dict-odd.npy", b"(K\x01d.", "DICT with an odd number of items", error="NPYG_EPICKLE")
    add("setitems-odd.npy", b"}(K\x01u.", "SETITEMS with an odd number of items", error="NPYG_EPICKLE")
    add("obj-no-class.npy", b"(o.", "OBJ with nothing after the MARK", error="NPYG_EPICKLE")
    add("inst-no-mark.npy", b"ios\nsystem\n.", "INST without a MARK: the import is named first",
        error="NPYG_EPICKLE")
    add("string-unquoted.npy", b"Sabc\n.", "STRING argument without quotes", error="NPYG_EPICKLE")
    add("ext-zero.npy", b"\x80\x02\x82\x00.", "EXT1 with code 0", error="NPYG_EPICKLE")
    add("long4-negative.npy", b"\x8b\xff\xff\xff\xff.", "LONG4 with a negative length", error="NPYG_EPICKLE")
    add("put-empty-stack.npy", b"q\x00.", "BINPUT from an empty stack", error="NPYG_EPICKLE")
    add("get-text-bad.npy", b"Nq\x00gx\n.", "GET with an index that is not a number", error="NPYG_EPICKLE")
    add("stop-empty.npy", b".", "STOP on an empty stack", error="NPYG_EPICKLE")
    add("binbytes8-huge.npy", b"\x8e\xff\xff\xff\xff\xff\xff\xff\xff.",
        "BINBYTES8 longer than any size", error="NPYG_EPICKLE")
    add("import-then-garbage-p0.npy", b"cos\nsystem\n\xfe", "GLOBAL os.system, then an unknown opcode",
        error="NPYG_EPICKLE")
    return out


def members_npz(files):
    """An .npz of object members, written as np.savez lays them out."""
    f = io.BytesIO()
    with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED) as z:
        for name in ("os-system-p3.npy", "stdlib-p4.npy", "list-p0.npy"):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))  # fixed: regenerates byte for byte
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, files[name])
    return f.getvalue()


def deflate_broken_at(data, good):
    """A raw deflate stream holding data[:good] in stored blocks, then a
    stored block whose NLEN is not the one's complement of its LEN (RFC
    1951, 3.2.4): zlib refuses it there, after good bytes."""
    out = b""
    for i in range(0, good, 65535):
        chunk = data[i:min(i + 65535, good)]
        out += b"\x00" + struct.pack("<HH", len(chunk), len(chunk) ^ 0xFFFF) + chunk
    return out + b"\x00" + struct.pack("<HH", 5, 5)


def raw_zip(members):
    """A zip archive of (name, data, deflate stream) members, laid out as
    zipfile writes a deflated member (no data descriptor, no extras)."""
    local, central = b"", b""
    for name, data, stream in members:
        crc = zlib.crc32(data)
        fields = struct.pack("<HHHHHIIIHH", 20, 0, 8, 0, 0x21, crc, len(stream), len(data), len(name), 0)
        central += (b"PK\x01\x02" + struct.pack("<H", 20) + fields + struct.pack("<HHHII", 0, 0, 0, 0, len(local))
                    + name.encode())
        local += b"PK\x03\x04" + fields + name.encode() + stream
    eocd = b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, len(members), len(members), len(central), len(local), 0)
    return local + central + eocd


def broken_members_npz(files):
    """Object members whose deflate stream breaks in the preamble, in the
    header and inside the pickle; zipfile's read raises zlib.error on each."""
    big = npy_bytes("|O", (1,), pickle.dumps(obj_array([bytes(100000)]), protocol=3))
    members = [("break-in-preamble.npy", files["os-system-p3.npy"], 8),
               ("break-in-header.npy", files["os-system-p3.npy"], 40),
               ("break-in-pickle.npy", big, 90000)]
    blob = raw_zip([(n, d, deflate_broken_at(d, k)) for n, d, k in members])
    errors = {}
    with zipfile.ZipFile(io.BytesIO(blob)) as z:
        for n, d, k in members:
            if z.getinfo(n).file_size != len(d):
                raise SystemExit("FATAL: broken-members.npz: %s: size" % n)
            try:
                z.read(n)
            except zlib.error as e:
                errors[n] = "zlib.error: %s" % e
            else:
                raise SystemExit("FATAL: broken-members.npz: zipfile reads %s" % n)
    return blob, errors


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "corpus", "pickle")
    os.makedirs(out, exist_ok=True)
    manifest = {"python_version": "%d.%d.%d" % sys.version_info[:3], "numpy_version": np.__version__,
                "files": {}}
    files = {}
    for name, payload, description, error, descr, shape, version, rule, limits in cases():
        data = npy_bytes(descr, shape if shape is not None else (), payload, version)
        imports, called, built, perr = replay(payload)
        if error is None and perr is not None:
            raise SystemExit("FATAL: %s: pickletools says %s" % (name, perr))
        if limits is not None and perr is not None:
            raise SystemExit("FATAL: %s: a limit case must be well formed, pickletools says %s" % (name, perr))
        if error is not None and limits is None and perr is None:
            raise SystemExit("FATAL: %s: expected malformed, pickletools accepts it" % name)
        lerr = None
        if error == "NPYG_OK":
            # pickletools.dis refuses it, the scan accepts it: only where
            # pickle.loads accepts it too (import-free, so it can be loaded).
            if imports:
                raise SystemExit("FATAL: %s: loads check needs an import-free pickle" % name)
            lerr = loads_error(payload)
            if lerr is not None:
                raise SystemExit("FATAL: %s: pickle.loads refuses it: %s" % (name, lerr))
        files[name] = data
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        manifest["files"][name] = {
            "description": description,
            "data_offset": len(data) - len(payload),
            "pickle_imports": sorted(imports),
            "pickle_imports_in_order": imports,
            "pickle_called": called,
            "pickle_built": built,
            "pickletools_error": perr,
            "npyguard_scan": error or "NPYG_OK",
        }
        if error == "NPYG_OK":
            manifest["files"][name]["pickle_loads_error"] = lerr
        if limits is not None:
            manifest["files"][name]["npyguard_limits"] = limits
        if rule:
            # Where npyguard's documented naming rule (npyguard.h: names cut
            # at NPYG_PICKLE_NAME_MAX bytes; a STACK_GLOBAL string that is
            # not identifier-like or longer than that is "?") changes what
            # pickletools spells, the expected form, derived from its view.
            manifest["files"][name]["npyguard_imports_in_order"] = rule(imports)
    npz = members_npz(files)
    with open(os.path.join(out, "object-members.npz"), "wb") as f:
        f.write(npz)
    manifest["archives"] = {"object-members.npz": {
        "description": "three object members, deflated; each member's imports as its .npy above",
        "members": {n: manifest["files"][n]["pickle_imports"]
                    for n in ("os-system-p3.npy", "stdlib-p4.npy", "list-p0.npy")}}}
    broken, zerrors = broken_members_npz(files)
    with open(os.path.join(out, "broken-members.npz"), "wb") as f:
        f.write(broken)
    manifest["archives"]["broken-members.npz"] = {
        "description": "object members whose deflate stream breaks after 8 bytes (in the preamble), after 40 (in"
                       " the header) and after 90,000 (inside a pickle of 100,000 bytes): the scan reports the"
                       " archive's inflate error, not a read error",
        "members": {},
        "member_errors": {n: "NPYG_EZIP_INFLATE" for n in zerrors},
        "zipfile_errors": zerrors}
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    print("gen_pickles: %d files and 2 archives -> %s" % (len(files), out))


if __name__ == "__main__":
    main()
