#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Where a small file's load_hdf5 spends its wall time, from the kernel's
own tracepoints (perf, as root): for each file, the medians over the run
of

  caller->helper   the request sent, the helper has it
  helper->child    the helper hands it on, the file's child has it
  child work       the child has it, its end record is out (its pipe closed)
  caller after     that end, the caller's next request (the caller reads
                   and checks the values, decodes them, opens the next file)

  sudo /usr/bin/python3 bench/cage_timeline.py [--pkg DIR] [--rounds N] [--helper PATH]

--pkg: the npyguard package (default build/python); --helper: the helper
(default $NPYG_HDF5_HELPER or build/release/parser/npyg-hdf5-helper).
Each file of corpus/hdf5/valid/h5 is loaded N times (default 20) in one
process, after one unmeasured pass. The tracepoints cost a few
microseconds each; compare builds within one run of this script's
figures, not against bench_loadmat's.
"""
import collections
import os
import re
import statistics
import subprocess
import sys
import tempfile

import h5_loop

EVENTS = ["syscalls:sys_enter_sendmsg", "syscalls:sys_exit_recvmsg", "syscalls:sys_enter_close"]
LINE = re.compile(r"\s*(\S+)\s+(\d+)/\d+\s+([\d.]+):\s+\S+:(\S+):\s*(.*)")


def events(script_out):
    """(comm, pid, microseconds, event, fields), in time order."""
    out = []
    for line in script_out.splitlines():
        m = LINE.match(line)
        if m:
            out.append((m.group(1), int(m.group(2)), float(m.group(3)) * 1e6, m.group(4), m.group(5)))
    out.sort(key=lambda e: e[2])
    return out


def segments(ev):
    """Per file, the four segments, from the caller's requests (the
    process that sends most on npyguard's socket), the helper's receipts
    (the helper process: the one that both receives and sends most) and
    each child's request and pipe close."""
    callers = collections.Counter(e[1] for e in ev if e[0].startswith("python") and e[3] == "sys_enter_sendmsg")
    helpers = collections.Counter(e[1] for e in ev if e[0].startswith("npyg") and e[3] == "sys_enter_sendmsg")
    if not callers or not helpers:
        sys.exit("cage_timeline: no requests traced (is perf allowed to trace syscalls here?)")
    caller, helper = callers.most_common(1)[0][0], helpers.most_common(1)[0][0]
    sends = [e[2] for e in ev if e[1] == caller and e[3] == "sys_enter_sendmsg"]
    got = [e[2] for e in ev if e[1] == helper and e[3] == "sys_exit_recvmsg"]
    child_got = [(e[2], e[1]) for e in ev if e[0].startswith("npyg") and e[1] != helper and e[3] == "sys_exit_recvmsg"]
    closed = {}
    for e in ev:  # the end record out: the child closes its pipe, descriptor 4
        if e[0].startswith("npyg") and e[1] != helper and e[3] == "sys_enter_close" and "fd: 0x00000004" in e[4]:
            closed.setdefault(e[1], e[2])
    seg = collections.defaultdict(list)
    gi = ci = 0
    for t, nxt in zip(sends, sends[1:]):
        while gi < len(got) and got[gi] < t:
            gi += 1
        while ci < len(child_got) and child_got[ci][0] < t:
            ci += 1
        if gi == len(got) or ci == len(child_got) or got[gi] > nxt or child_got[ci][0] > nxt:
            continue
        h, (c, pid) = got[gi], child_got[ci]
        end = closed.get(pid)
        if end is None or not c < end < nxt:
            continue
        seg["caller->helper"].append(h - t)
        seg["helper->child"].append(c - h)
        seg["child work"].append(end - c)
        seg["caller after"].append(nxt - end)
        seg["per file"].append(nxt - t)
    return seg


def main():
    a, env = h5_loop.traced(__doc__, 20)
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        cmd = ["perf", "record", "-q", "-a", "-o", data]
        for e in EVENTS:
            cmd += ["-e", e]
        subprocess.run(cmd + h5_loop.command(a.pkg, a.rounds), env=env, check=True,
                       stdout=subprocess.DEVNULL)
        out = subprocess.run(["perf", "script", "-i", data, "-F", "comm,pid,tid,time,event,trace"],
                             capture_output=True, text=True, check=True).stdout
    seg = segments(events(out))
    n = len(seg["per file"])
    print("%d files traced, helper %s" % (n, a.helper))
    for name, v in seg.items():
        print("  %-15s median %6.0f us" % (name, statistics.median(v)))


if __name__ == "__main__":
    main()
