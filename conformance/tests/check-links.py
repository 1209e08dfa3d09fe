#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Follow every relative link in every .md file under ROOT: the target must
exist under ROOT, and a #fragment into a .md file must name one of its
headings (GitHub's anchor rule). Also, in the files named by --names, every
path in backquotes that starts with adapters/, skips/ or ci/ must exist
beside that file: the README and PROTOCOL name files without linking them.

usage: check-links.py ROOT [--names FILE...]
Prints one line per broken link and exits 1 if there is any."""

import os
import re
import sys

LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
NAMED = re.compile(r"`((?:adapters|skips|ci)/[^`\s*?]+)`")
FENCE = re.compile(r"^(```|~~~)")


def anchors(path):
    """GitHub's heading anchors of a Markdown file."""
    out, fenced = set(), False
    for line in open(path, encoding="utf-8"):
        if FENCE.match(line):
            fenced = not fenced
        m = None if fenced else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1)).strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", text).replace(" ", "-"))
    return out


def links(path):
    fenced = False
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            for m in LINK.finditer(line):
                yield n, m.group(1)


def main(argv):
    root = os.path.abspath(argv[1])
    named = argv[argv.index("--names") + 1:] if "--names" in argv else []
    bad, checked, files = [], 0, 0
    for d, dirs, names in os.walk(root):
        dirs[:] = [x for x in dirs if x != "node_modules"]
        for name in sorted(names):
            if not name.endswith(".md"):
                continue
            src = os.path.join(d, name)
            files += 1
            for n, target in links(src):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                    continue  # http:, https:, mailto:
                checked += 1
                path, _, frag = target.partition("#")
                dest = os.path.normpath(os.path.join(d, path)) if path else src
                where = "%s:%d: %s" % (os.path.relpath(src, root), n, target)
                if not (dest == root or dest.startswith(root + os.sep)):
                    bad.append(where + ": leaves the tree")
                elif not os.path.exists(dest):
                    bad.append(where + ": no such file")
                elif frag and dest.endswith(".md") and frag not in anchors(dest):
                    bad.append(where + ": no heading #" + frag)
    for src in named:
        base = os.path.dirname(os.path.abspath(src))
        for n, line in enumerate(open(src, encoding="utf-8"), 1):
            for m in NAMED.finditer(line):
                checked += 1
                if not os.path.exists(os.path.join(base, m.group(1))):
                    bad.append("%s:%d: `%s` is named but not there" % (os.path.relpath(src, root), n, m.group(1)))
    for b in bad:
        print("broken:", b)
    print("check-links: %d links and names in %d .md files, %d broken" % (checked, files, len(bad)))
    return 1 if bad or not checked else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
