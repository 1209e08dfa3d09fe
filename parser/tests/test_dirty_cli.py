#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""npyvalidate gives every file the same verdict whatever it read before:
over corpus/{valid,invalid,compat,unsafe,npz,ra,pickle}, -j1 (one context
reads every file in turn) and -j2 (two contexts share them out), with the
files in order and in reverse, print the same JSON line for each file.
Under the default limits, and under --max-alloc 1 MiB with
--max-header-bytes 1 MiB, where the corpus's 66 KB header leaves a context
holding most of that MiB for the files after it.

Usage: test_dirty_cli.py NPYVALIDATE CORPUS_DIR
"""

import json
import os
import subprocess
import sys
import tempfile

GROUPS = ("valid", "invalid", "compat", "unsafe", "npz", "ra", "pickle")
SUFFIXES = (".npy", ".npz", ".ra")


def corpus_files(root):
    out = []
    for g in GROUPS:
        for d, _, names in os.walk(os.path.join(root, g)):
            out += [os.path.join(d, n) for n in names if n.endswith(SUFFIXES)]
    return sorted(out)


def run(exe, files, jobs, limits):
    with tempfile.NamedTemporaryFile("w", suffix=".list", delete=False) as f:
        f.write("\n".join(files) + "\n")
        listing = f.name
    try:
        r = subprocess.run([exe, "--json", "-j", str(jobs), *limits, "--files-from", listing],
                           capture_output=True, text=True, timeout=600)
    finally:
        os.unlink(listing)
    if r.returncode not in (0, 1):
        sys.exit("npyvalidate exited %d: %s" % (r.returncode, r.stderr[:500]))
    verdicts = {}
    for line in r.stdout.splitlines():
        verdicts[json.loads(line)["path"]] = line
    return verdicts


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    exe, root = argv[1], argv[2]
    files = corpus_files(root)
    if len(files) < 1000:
        sys.exit("only %d corpus files under %s" % (len(files), root))
    failed = 0
    for limits in ([], ["--max-alloc", str(1 << 20), "--max-header-bytes", str(1 << 20)]):
        runs = {}
        for jobs in (1, 2):
            for order in ("in order", "in reverse"):
                runs["-j%d, %s" % (jobs, order)] = run(exe, files if order == "in order" else files[::-1], jobs, limits)
        first_name, first = next(iter(runs.items()))
        if len(first) != len(files):
            print("FAIL %s: %d verdicts for %d files" % (first_name, len(first), len(files)))
            failed += 1
        for name, got in runs.items():
            diff = sorted(p for p in first if got.get(p) != first[p])
            for p in diff[:5]:
                print("FAIL %s %s, %s:\n  %s\n  %s" % (" ".join(limits) or "default limits", first_name, name,
                                                    first[p][:300], got.get(p, "(none)")[:300]))
            failed += len(diff)
        print("%s: %d files, 4 runs agree on %d" % (" ".join(limits) or "default limits", len(files),
                                                   len(files) - failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
