#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Adds each reader's "Bugs found" (plain words, kept in the adapter's
README.md beside its code) under that reader's section of a RESULTS.md
written by make-results.sh; a -asan row points to its plain build's list.
Running it again replaces what it added before.

    python3 conformance/bug-notes.py RESULTS.md conformance/adapters
"""
import os
import re
import sys

HEAD = "### Bugs found, in plain words"
POINTER = "Bugs found, in plain words: see "


def bugs_of(adapters, reader):
    path = os.path.join(adapters, reader, "README.md")
    if not os.path.exists(path):
        return None
    text = open(path, encoding="utf-8").read()
    m = re.search(r"^## Bugs found\n(.*?)(?=^## |\Z)", text, flags=re.S | re.M)
    return m.group(1).strip() if m else None


def strip_added(lines):
    out, skipping = [], False
    for line in lines:
        if line.startswith(HEAD):
            skipping = True
            continue
        if skipping and (line.startswith("## ") or line.startswith("### ")):
            skipping = False
        if skipping or line.startswith(POINTER):
            continue
        out.append(line)
    # the blank line each insertion left before itself
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).split("\n")


def main():
    results, adapters = sys.argv[1], sys.argv[2]
    out = []
    for line in strip_added(open(results, encoding="utf-8").read().split("\n")):
        out.append(line)
        if not re.match(r"^Adapter: `.*`\.$", line):
            continue
        name = next(l for l in reversed(out) if l.startswith("## "))[3:].split(" ")[0]
        base = name[:-len("-asan")] if name.endswith("-asan") else name
        bugs = bugs_of(adapters, base)
        if not bugs:
            continue
        out.append("")
        if base != name:
            out.append(POINTER + "%s above (the same reader); what the sanitizers add is in the failures "
                       "listed here." % base)
        else:
            out.append(HEAD + " (from `conformance/adapters/%s/README.md`)" % base)
            out.append("")
            out.append(bugs)
    open(results, "w", encoding="utf-8").write("\n".join(out))


if __name__ == "__main__":
    main()
