# SPDX-License-Identifier: BSD-3-Clause
"""The documents that list limits agree with the library's table.

limit_table (built from parser/tests/limit_table.c) prints limits.c's
table through the public API. docs/cli.md's option table, npyvalidate(1),
npyvalidate --help and the Python package must give every limit with its
default (and its largest value where they name one), so that none of them
can drift from the code; and the Python package keeps no copy of a limit's
default, nor of an error code (npyguard.h), in any of its modules.

usage: test_limit_docs.py LIMIT_TABLE_BINARY NPYVALIDATE SOURCE_DIR
"""
import ast
import json
import operator
import re
import subprocess
import sys
import unittest
import zipfile
from pathlib import Path

TABLE_BIN, CLI, SRC = sys.argv[1], sys.argv[2], Path(sys.argv[3])
UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}


def library_table():
    out = subprocess.run([TABLE_BIN], check=True, capture_output=True, text=True).stdout
    rows = {}
    for line in out.splitlines():
        name, option, fmt, default, lo, hi, bounds = line.split("\t")
        rows[name] = (option, fmt, int(default), int(lo), int(hi), int(bounds))
    return rows


def numbers(text):
    """Every number the text spells, in decimal or in binary units."""
    return [int(n) * UNITS.get(u, 1) for n, u in re.findall(r"(\d+)(?: (KiB|MiB|GiB|TiB)\b)?", text)]


def stated(text, word):
    """The first number after "default" or "at most" (what a document
    calls its default and its largest value), with either spelling:
    "default 67108864, 64 MiB" and "default 64 MiB" both give 67108864."""
    m = re.search(word + r" (\d+(?: (?:KiB|MiB|GiB|TiB)\b)?)", text)
    return numbers(m.group(1))[0] if m else None


class LimitDocs(unittest.TestCase):
    lib = library_table()

    def test_the_table_is_not_empty(self):
        # a broken printer would make every comparison below vacuous
        self.assertIn("max_header_bytes", self.lib)
        self.assertGreaterEqual(len(self.lib), 25)

    def check_entries(self, where, entries):
        """entries: {option: text that documents it}."""
        for name, (option, _, default, _, hi, _) in self.lib.items():
            with self.subTest(where=where, option=option):
                self.assertIn(option, entries, f"{where} does not list --{option}")
                text = entries[option]
                self.assertEqual(stated(text, "default"), default, f"{where}: --{option}: {text!r}")
                most = stated(text, "at most")
                if most is not None:
                    self.assertEqual(most, hi, f"{where}: --{option}: {text!r}")
        self.assertEqual(set(entries) - {o for o, *_ in self.lib.values()}, set(),
                         f"{where} lists limits the library does not have")

    def test_readme_option_table(self):
        readme = (SRC / "docs/cli.md").read_text()
        entries = {m.group(1): m.group(2)
                   for m in re.finditer(r"^\| `--([\w-]+) N` \| (.*) \|$", readme, re.M)
                   if m.group(1) not in ("jobs", "files-from")}
        self.check_entries("docs/cli.md", entries)

    def test_man_page(self):
        man = (SRC / "man/npyvalidate.1").read_text()
        entries = {}
        for m in re.finditer(r"^\.TP\n\\fB\\-\\-([\w\\-]+)\\fR \\fIN\\fR\n(.*?)(?=^\.(?:TP|SH))", man, re.M | re.S):
            option = m.group(1).replace("\\-", "-")
            if option != "jobs":
                entries[option] = " ".join(m.group(2).split())
        self.check_entries("npyvalidate.1", entries)

    def test_help_text(self):
        out = subprocess.run([CLI, "--help"], check=True, capture_output=True, text=True).stdout
        entries = {m.group(1): m.group(2) for m in re.finditer(r"^ +--([\w-]+) N +.*\n +\((.*)\)$", out, re.M)}
        self.check_entries("npyvalidate --help", entries)
        for name, (option, _, _, lo, hi, _) in self.lib.items():
            rng = f"at least {lo}" if hi == 2**64 - 1 else f"{lo}..{hi}"
            self.assertIn(rng, entries[option], f"--help: --{option}")

    def test_each_option_is_accepted_at_its_ends_and_refused_past_them(self):
        for name, (option, _, _, lo, hi, _) in self.lib.items():
            for v in (lo, hi):
                r = subprocess.run([CLI, f"--{option}", str(v), "--version"], capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, f"--{option} {v}: {r.stderr}")
            for v in ([lo - 1] if lo else []) + ([hi + 1] if hi < 2**64 - 1 else []):
                r = subprocess.run([CLI, f"--{option}", str(v), "--version"], capture_output=True, text=True)
                self.assertEqual(r.returncode, 2, f"--{option} {v} accepted")
                self.assertIn(f"--{option}", r.stderr)

    def run_json(self, *args):
        r = subprocess.run([CLI, "--json", *args], capture_output=True, text=True)
        return [json.loads(line) for line in r.stdout.splitlines()]

    def test_options_reach_the_library(self):
        # the pickle scan's options are new: the scan stops at the limit
        # (PROTO and the first GLOBAL are its first two opcodes)
        o, = self.run_json("--max-pickle-ops", "2", str(SRC / "corpus/unsafe/obj-os-system-v1.npy"))
        self.assertFalse(o["pickle"]["complete"])
        self.assertEqual(o["pickle"]["scan_error"]["name"], "NPYG_ELIMIT_PICKLE_OPS")
        o, = self.run_json(str(SRC / "corpus/unsafe/obj-os-system-v1.npy"))
        self.assertTrue(o["pickle"]["complete"])
        # an archive reads its limits from the worker's context
        npz = str(SRC / "corpus/npz/valid/savez-several.npz")
        with zipfile.ZipFile(npz) as zf:
            n = len(zf.namelist())
        o, = self.run_json("--max-members", str(n - 1), npz)
        self.assertEqual(o["error"]["name"], "NPYG_ELIMIT_MEMBERS")
        o, = self.run_json("--max-members", str(n), npz)
        self.assertTrue(o["ok"])

    def test_python_keeps_no_copy(self):
        # the package's names, defaults and ranges come from the library
        # (_core.limits() reads npyg_limit_info): no name of the table is
        # spelled in the binding, no default in the package
        binding = {f.name: f.read_text() for f in sorted((SRC / "python/src").glob("*.[ch]"))}
        self.assertIn("_core.c", binding)
        init = (SRC / "python/npyguard/__init__.py").read_text()
        for name, (_, _, default, *_) in self.lib.items():
            for file, core in binding.items():
                self.assertNotIn(f'"{name}"', core)
                self.assertNotIn(f"{name}", core.replace("npyg_limit", ""), f"{file} spells {name}")
        self.assertIn("_core.limits()", init)


def library_codes():
    """{value: name} of the library's error codes, from npyguard.h's npyg_status."""
    header = (SRC / "parser/include/npyguard.h").read_text()
    body = re.search(r"typedef enum npyg_status \{(.*?)\} npyg_status;", header, re.S).group(1)
    return {int(v): n for n, v in re.findall(r"^\s*(NPYG_\w+) = (\d+),", body, re.M)}


def header_constant(name):
    m = re.search(r"^#define %s (\d+)u?$" % name, (SRC / "parser/include/npyguard.h").read_text(), re.M)
    return int(m.group(1))


def constant(node):
    """The int a constant expression spells (64 << 20 too), else None."""
    if isinstance(node, ast.Constant):
        return node.value if type(node.value) is int else None
    if isinstance(node, ast.BinOp):
        a, b = constant(node.left), constant(node.right)
        ops = {ast.LShift: operator.lshift, ast.Mult: operator.mul, ast.Add: operator.add, ast.Pow: operator.pow}
        if a is not None and b is not None and type(node.op) in ops:
            return ops[type(node.op)](a, b)
    return None


def copies(modules, codes, defaults):
    """Where the modules ({file: source}) hold a library fact as a literal:
    an error code where a code goes (the code argument of a function of the
    package or of _core.error_info, a parameter "code" of its own, a
    comparison with a code), directly or through a constant of a module;
    a limit's value under its name (a dict key, a keyword, a parameter);
    a constant named for a limit or for the load's allowance per byte
    that holds its default. defaults: {name: default}."""
    trees = {f: ast.parse(src, f) for f, src in modules.items()}
    # the constants of each module, a = 1 and a, b = 1, 2
    consts = {}
    for f, tree in trees.items():
        for node in tree.body:
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    pairs = [(t, node.value)]
                    if isinstance(t, ast.Tuple) and isinstance(node.value, ast.Tuple):
                        pairs = list(zip(t.elts, node.value.elts))
                    for name, value in pairs:
                        if isinstance(name, ast.Name) and constant(value) is not None:
                            consts.setdefault(f, {})[name.id] = constant(value)
    # where each function (or class, by its __init__) of the package takes its code
    takes = {"error_info": 0}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for d in node.body:
                    if isinstance(d, ast.FunctionDef) and d.name == "__init__":
                        names = [a.arg for a in d.args.args[1:]]
                        if "code" in names:
                            takes[node.name] = names.index("code")
            elif isinstance(node, ast.FunctionDef):
                names = [a.arg for a in node.args.args]
                if names[:1] in (["self"], ["cls"]):
                    names = names[1:]
                if "code" in names:
                    takes.setdefault(node.name, names.index("code"))
    for tree in trees.values():  # subclasses take it where their base does
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name not in takes:
                for b in node.bases:
                    if isinstance(b, ast.Name) and b.id in takes:
                        takes[node.name] = takes[b.id]
    found = []

    def code_at(f, node, what):
        if isinstance(node, ast.IfExp):  # a code or another
            code_at(f, node.body, what)
            code_at(f, node.orelse, what)
            return
        v = constant(node)
        if v is None and isinstance(node, ast.Name):
            v = consts.get(f, {}).get(node.id)
            if v is None:  # imported from another module
                v = next((c[node.id] for c in consts.values() if node.id in c), None)
        if v is not None and v in codes:
            found.append(f"{f}:{node.lineno}: {ast.unparse(node)} is {codes[v]} ({what})")

    def codeish(node):
        return ((isinstance(node, ast.Name) and node.id in ("code", "rc"))
                or (isinstance(node, ast.Attribute) and node.attr == "code")
                or (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
                    and node.slice.value == "code"))

    def limit_value(f, node, name, where):
        if name in defaults and constant(node) is not None:
            found.append(f"{f}:{node.lineno}: {name} = {ast.unparse(node)} ({where})")

    for f, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                fn = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
                if fn in takes and len(node.args) > takes[fn]:
                    code_at(f, node.args[takes[fn]], f"the code given to {fn}")
                for k in node.keywords:
                    if k.arg == "code":
                        code_at(f, k.value, f"the code given to {fn}")
                    limit_value(f, k.value, k.arg, "a keyword")
            elif isinstance(node, (ast.FunctionDef, ast.Lambda)):
                a = node.args
                for arg, d in zip((a.posonlyargs + a.args)[::-1], a.defaults[::-1]):
                    if arg.arg == "code":
                        code_at(f, d, "a parameter's default")
                    limit_value(f, d, arg.arg, "a parameter's default")
                for arg, d in zip(a.kwonlyargs, a.kw_defaults):
                    if d is not None:
                        limit_value(f, d, arg.arg, "a parameter's default")
            elif isinstance(node, ast.Compare):
                sides = [node.left] + node.comparators
                if any(codeish(x) for x in sides):
                    for x in sides:
                        if isinstance(x, ast.Tuple):
                            for e in x.elts:
                                code_at(f, e, "compared with a code")
                        elif not codeish(x):
                            code_at(f, x, "compared with a code")
            elif isinstance(node, ast.Dict):
                for k, v in zip(node.keys, node.values):
                    if isinstance(k, ast.Constant) and isinstance(k.value, str):
                        limit_value(f, v, k.value, "a dict's entry")
        for name, v in consts.get(f, {}).items():
            words = {w for w in name.lower().split("_") if len(w) > 3}
            for limit, default in defaults.items():
                if v == default and words & {w for w in limit.split("_") if len(w) > 3}:
                    found.append(f"{f}: {name} = {v}, the default of {limit}")
    return found


class PythonKeepsNoCopy(unittest.TestCase):
    """The package's Python takes the library's codes and defaults from
    the extension (_core.error_codes(), _core.limits(),
    _core.LOAD_BYTES_PER_BYTE), never as literals of its own."""

    codes = library_codes()
    defaults = dict({name: row[2] for name, row in LimitDocs.lib.items()},
                    load_bytes_per_byte=header_constant("NPYG_LOAD_BYTES_PER_BYTE"))

    def test_the_facts_are_read(self):
        self.assertEqual(self.codes[0], "NPYG_OK")
        self.assertEqual(self.codes[121], "NPYG_EHDF5_SOFTLINK")
        self.assertGreater(len(self.codes), 100)
        self.assertIn("max_ref_depth", self.defaults)

    def test_the_check_finds_copies(self):
        planted = {"m.py": (
            "_ESOFT = 121\n"
            "_A, _B = 3, 2\n"
            "_LOAD_PER_BYTE = 100\n"
            "_DEFAULTS = {'max_paths': 20000, 'max_load_bytes': 64 << 20}\n"
            "def _error(code, offset, message): pass\n"
            "class Error(Exception):\n"
            "    def __init__(self, code, name): pass\n"
            "class Sub(Error): pass\n"
            "def f(e, max_nesting=32, code=_A):\n"
            "    _error(_ESOFT, 0, 'x')\n"
            "    _error(55, 0, 'x')\n"
            "    Sub(134, 'n')\n"
            "    _core.error_info(137)\n"
            "    g(max_ref_depth=32)\n"
            "    if e.code == 16 or code in (_B, 128): pass\n"
            "    _error(_A if e else 129, 0, 'x')\n"
            "    return [x[121] for x in e], range(2), _error\n")}
        found = "\n".join(copies(planted, self.codes, self.defaults))
        for line in (":10: _ESOFT is NPYG_EHDF5_SOFTLINK", ":11: 55 is NPYG_ELIMIT_PAYLOAD", ":12: 134 is",
                     ":13: 137 is", ":9: _A is NPYG_EIO (a parameter", ":15: 16 is NPYG_EUNRECOGNIZED",
                     ":15: _B is NPYG_ENOMEM", ":15: 128 is", ":16: _A is NPYG_EIO", ":16: 129 is", "max_paths = 20000", "max_load_bytes = 64 << 20",
                     "max_nesting = 32", "max_ref_depth = 32", "_LOAD_PER_BYTE = 100"):
            self.assertIn(line, found)
        self.assertNotIn("m.py:17", found)
        self.assertEqual(len(found.splitlines()), 15, found)

    def test_every_module_of_the_package(self):
        files = sorted((SRC / "python/npyguard").rglob("*.py"))
        self.assertIn("_matlab.py", {f.name for f in files})
        modules = {str(f.relative_to(SRC)): f.read_text() for f in files}
        self.assertEqual(copies(modules, self.codes, self.defaults), [])


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=1)
