# SPDX-License-Identifier: BSD-3-Clause
"""What the npyvalidate test scripts share: their two arguments, the tally
of checks, running the command, reading its JSON output and the corpus
manifests, and running every test_* function of a script in name order.

Each script is run as `SCRIPT NPYVALIDATE CORPUS_DIR` (parser/tests/
CMakeLists.txt) and imports this module from beside it.
"""
import json
import os
import shutil
import subprocess
import sys

if len(sys.argv) != 3:
    sys.exit("usage: %s NPYVALIDATE CORPUS_DIR" % os.path.basename(sys.argv[0]))
NPYV, CORPUS = sys.argv[1], sys.argv[2]

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL", what, file=sys.stderr)


def run(*args, stdin=None, timeout=120, env=None):
    return subprocess.run([NPYV, *args], input=stdin, capture_output=True, timeout=timeout, env=env)


def run_traced(log, calls, *args, timeout=120):
    """`npyvalidate ARGS` under `strace -f -y`, the system calls CALLS
    written to LOG, each line led by its thread's id and each descriptor
    followed by its path in <>. None when strace is not installed.
    LeakSanitizer cannot run under ptrace: the other tests check leaks."""
    strace = shutil.which("strace")
    if not strace:
        return None
    return subprocess.run([strace, "-f", "-qq", "-s", "4096", "-y", "-e", "trace=" + calls, "-o", log, NPYV, *args],
                          capture_output=True, timeout=timeout, env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0"))


def run_json(*args, **kw):
    """The one JSON object `npyvalidate --json ARGS` prints."""
    return json.loads(run("--json", *args, **kw).stdout)


def json_lines(out):
    """Every JSON line of an output. JSON Lines end at \\n only: a path may
    hold U+0085 or U+2028, which str.splitlines would also split at."""
    return [json.loads(line) for line in out.decode().split("\n")[:-1]]


def manifest(*sub):
    """CORPUS/SUB.../manifest.json, read."""
    with open(os.path.join(CORPUS, *sub, "manifest.json")) as f:
        return json.load(f)


def main(namespace):
    """Runs the script's test_* functions (from its globals()) in name
    order, prints the tally and exits 1 on any failure."""
    for name, fn in sorted(namespace.items()):
        if name.startswith("test_") and callable(fn):
            fn()
    print("%s: %d passed, %d failed" % (os.path.basename(sys.argv[0]), passed, failed))
    sys.exit(1 if failed else 0)
