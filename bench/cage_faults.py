#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Where the page faults of the HDF5 helper's children land, from the
kernel's own tracepoint (perf, as root): per child, the faults by kind
(read or write, page present or not, instruction fetch) and by the
mapping they hit, then the writes to present pages (copies of pages the
child shares with the helper) by the function that made them.

  sudo /usr/bin/python3 bench/cage_faults.py [--pkg DIR] [--rounds N] [--helper PATH]

--pkg: the npyguard package (default build/python); --helper: the helper
(default $NPYG_HDF5_HELPER or build/release/parser/npyg-hdf5-helper).
Each file of corpus/hdf5/valid/h5 is loaded N times (default 3) in one
process, after one unmeasured pass; the helper's mappings are read then,
and a child has the same (each is a fork of it). Functions are named by
the nearest symbol nm finds below the address, which for a library's
static functions is a neighbour: read them as a place, not a name.
"""
import bisect
import collections
import os
import re
import subprocess
import sys
import tempfile

import h5_loop

FAULT = re.compile(r"^\s*(\S+)\s+(\d+)\s.*address=(0x[0-9a-f]+)\s+ip=(0x[0-9a-f]+)\s+error_code=(0x[0-9a-f]+)")


def read_maps(path):
    """The helper's pid and its mappings: (start, end, perms, name)."""
    with open(path) as f:
        pid = int(f.readline())
        maps = []
        for line in f:
            p = line.split()
            a, b = (int(x, 16) for x in p[0].split("-"))
            maps.append((a, b, p[1], p[5] if len(p) > 5 else "[anon]"))
    return pid, maps


class Symbols:
    """Nearest symbol below an address, from nm, per mapped object."""

    def __init__(self, maps):
        self.maps = maps
        self.base = {}
        for a, _, _, name in maps:
            self.base[name] = min(self.base.get(name, a), a)
        self.tables = {}

    def table(self, path):
        if path not in self.tables:
            rows = set()
            for flags in (["-D"], []):
                out = subprocess.run(["nm", "--defined-only"] + flags + [path], capture_output=True, text=True).stdout
                for line in out.splitlines():
                    p = line.split()
                    if len(p) == 3 and p[1] in "tTwW":
                        rows.add((int(p[0], 16), p[2].split("@")[0]))
            rows = sorted(rows)
            self.tables[path] = ([r[0] for r in rows], [r[1] for r in rows])
        return self.tables[path]

    def name(self, ip):
        for a, b, _, obj in self.maps:
            if a <= ip < b:
                if not obj.startswith("/"):
                    return obj
                offs, names = self.table(obj)
                i = bisect.bisect_right(offs, ip - self.base[obj]) - 1
                return "%s:%s" % (os.path.basename(obj), names[i] if i >= 0 else hex(ip - self.base[obj]))
        return "?"


def mapping(maps, addr):
    for a, b, perms, name in maps:
        if a <= addr < b:
            return "%s %s" % (os.path.basename(name), perms)
    return "(mapped after the helper's start)"


def kind(code):
    return ("write" if code & 2 else "read") + (" present" if code & 1 else "") + (" ifetch" if code & 16 else "")


def main():
    a, env = h5_loop.traced(__doc__, 3)
    with tempfile.TemporaryDirectory() as tmp:
        data, maps_file = os.path.join(tmp, "perf.data"), os.path.join(tmp, "maps")
        subprocess.run(["perf", "record", "-q", "-e", "exceptions:page_fault_user", "-o", data,
                        *h5_loop.command(a.pkg, a.rounds, "--maps", maps_file)],
                       env=env, check=True, stdout=subprocess.DEVNULL)
        out = subprocess.run(["perf", "script", "-i", data, "-F", "comm,pid,trace"],
                             capture_output=True, text=True, check=True).stdout
        helper, maps = read_maps(maps_file)
    syms = Symbols(maps)
    by_place, by_code, children = collections.Counter(), collections.Counter(), set()
    for line in out.splitlines():
        m = FAULT.match(line)
        if not m or not m.group(1).startswith("npyg") or int(m.group(2)) == helper:
            continue
        children.add(int(m.group(2)))
        code = int(m.group(5), 16)
        by_place[(kind(code), mapping(maps, int(m.group(3), 16)))] += 1
        if code & 3 == 3:
            by_code[syms.name(int(m.group(4), 16))] += 1
    # every child of the run, the unmeasured pass's included, and the two
    # spares still waiting at the end (made, no file taken)
    n = len(children)
    if not n:
        sys.exit("cage_faults: no child's faults traced (is perf allowed to trace here?)")
    print("%d children, helper %s: %.1f page faults each" % (n, a.helper, sum(by_place.values()) / n))
    for (k, where), v in by_place.most_common():
        if v / n >= 0.5:
            print("  %-22s %-45s %6.1f" % (k, where, v / n))
    print("writes to present pages, by the code that made them:")
    for name, v in by_code.most_common(15):
        print("  %-60s %6.1f" % (name, v / n))


if __name__ == "__main__":
    main()
