# SPDX-License-Identifier: BSD-3-Clause
"""The documents that list error codes agree with the library's table.

error_table (built from parser/tests/error_table.c) prints errors.c's table
through the public API. docs/errors.md's table, the class list in
npyguard.h and the exit-status section of npyvalidate(1) must say the same,
so that none of them can drift from the code.

usage: test_error_docs.py ERROR_TABLE_BINARY SOURCE_DIR
"""
import re
import subprocess
import sys
import unittest
from pathlib import Path

TABLE_BIN, SRC = sys.argv[1], Path(sys.argv[2])


def library_table():
    out = subprocess.run([TABLE_BIN], check=True, capture_output=True, text=True).stdout
    rows = {}
    for line in out.splitlines():
        code, name, klass, text, env = line.split("\t")
        rows[int(code)] = (name, klass, text, env == "1")
    return rows


def section(text, title):
    start = text.index(title)
    end = text.find("\n#", start + len(title))
    return text[start:end if end >= 0 else len(text)]


class ErrorDocs(unittest.TestCase):
    lib = library_table()

    def test_the_table_is_not_empty(self):
        # a broken printer would make every comparison below vacuous
        self.assertIn(0, self.lib)
        self.assertGreater(len(self.lib), 90)

    def test_readme_table_is_the_librarys(self):
        readme = section((SRC / "docs/errors.md").read_text(), "# Error codes")
        doc = {}
        for m in re.finditer(r"^\| (\d+) \| `(\w+)` \| ([\w ]+) \| (.*) \|$", readme, re.M):
            self.assertNotIn(int(m.group(1)), doc, f"code {m.group(1)} listed twice")
            doc[int(m.group(1))] = (m.group(2), m.group(3), m.group(4))
        want = {code: row[:3] for code, row in self.lib.items()}
        for code in sorted(set(want) | set(doc)):
            self.assertEqual(doc.get(code), want.get(code), f"docs/errors.md row for code {code}")

    def test_header_names_every_class(self):
        header = (SRC / "parser/include/npyguard.h").read_text()
        m = re.search(r"/\* The class printed in diagnostics:(.*?)\*/", header, re.S)
        self.assertIsNotNone(m)
        listed = re.findall(r'"(\w+)"', m.group(1))
        self.assertEqual(sorted(listed), sorted({row[1] for row in self.lib.values()}))

    def test_man_page_names_the_environment_codes(self):
        man = (SRC / "man/npyvalidate.1").read_text()
        status = section(man, ".SH EXIT STATUS")
        two = status[status.index(".B 2"):]
        named = set(re.findall(r"NPYG_E\w+", two))
        self.assertEqual(named, {row[0] for row in self.lib.values() if row[3]})


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=1)
