# SPDX-License-Identifier: BSD-3-Clause
"""The documents that list limits agree with the library's table.

limit_table (built from parser/tests/limit_table.c) prints limits.c's
table through the public API. docs/cli.md's option table, npyvalidate(1),
npyvalidate --help and the Python package must give every limit with its
default (and its largest value where they name one), so that none of them
can drift from the code.

usage: test_limit_docs.py LIMIT_TABLE_BINARY NPYVALIDATE SOURCE_DIR
"""
import json
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


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=1)
