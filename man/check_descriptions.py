# SPDX-License-Identifier: BSD-3-Clause
"""The man page and docs/cli.md describe each option as --help does: every
word that carries meaning in an option's --help text (its file types,
nouns, numbers other than the default and range) appears in that option's
entry of npyvalidate(1) and of docs/cli.md's option table. The option
names are held by check_man.sh; the defaults and ranges of limits by
test_limit_docs.py.

usage: check_descriptions.py NPYVALIDATE MANPAGE DOCS_CLI_MD
"""
import re
import subprocess
import sys

STOP = set("""a an the of to in on at by for from with and or not no nor is are be as its it this that
than then each every one per only when where which what whose into""".split())


def words(text):
    text = text.replace("\\-", "-").replace("\\(aq", "'")
    text = re.sub(r"\\f[BIRP]", "", text)
    text = re.sub(r"\((?:default|at least|at most)[^)]*\)", " ", text)
    found = re.findall(r"\*\.[a-z0-9]+|[a-z0-9][a-z0-9'._-]*[a-z0-9]", text.lower())
    return {re.sub(r"'s$", "", w) for w in found if w not in STOP}


def help_entries(cli):
    out = subprocess.run([cli, "--help"], capture_output=True, text=True, check=False).stdout
    entries, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^  (?:-\w, )?\s*(--[\w-]+)(?: [A-Z][\w.]*)?\s{2,}(.*)$", line) or \
            re.match(r"^  (?:-\w, )?\s*(--[\w-]+)(?: [A-Z][\w.]*)?$", line)
        if m:
            cur = m.group(1)
            entries[cur] = m.group(2) if m.lastindex and m.lastindex >= 2 else ""
        elif cur and re.match(r"^\s{6,}\S", line):
            entries[cur] += " " + line.strip()
        else:
            cur = None
    return entries


def man_entries(path):
    text = open(path).read()
    entries = {}
    for m in re.finditer(r"^\.TP\n(.*?)\n(.*?)(?=^\.(?:TP|SH|PP|RE|IP))", text, re.M | re.S):
        names = re.findall(r"\\-\\-((?:\w|\\-)+)", m.group(1))
        if names:
            entries["--" + names[0].replace("\\-", "-")] = m.group(2)
    return entries


def doc_entries(path):
    entries = {}
    for m in re.finditer(r"^\| (?:`-\w`, )?`(--[\w-]+)(?: [A-Z][\w.]*)?`(?:, `-\w`)? \| (.*) \|$", open(path).read(), re.M):
        entries[m.group(1)] = m.group(2)
    return entries


def main():
    cli, man, doc = sys.argv[1:4]
    want = help_entries(cli)
    if len(want) < 10:
        print("FAIL: found only %d options in --help" % len(want))
        return 1
    bad = 0
    for where, got in (("npyvalidate(1)", man_entries(man)), ("docs/cli.md", doc_entries(doc))):
        for opt, text in sorted(want.items()):
            if opt not in got:
                continue  # the names are check_man.sh's and test_limit_docs.py's to hold
            missing = sorted(words(text) - words(got[opt]))
            if missing:
                bad += 1
                print("FAIL: %s: %s lacks %s of --help's %r" % (where, opt, ", ".join(missing), text))
    print("%d options in --help; %d descriptions differ" % (len(want), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
