# SPDX-License-Identifier: BSD-3-Clause
"""Validation of many files over Dask: the path list is cut into
partitions, each partition is one `npyvalidate -j1 --json --files-from -`
run on a worker of a local cluster, and the JSON Lines come back in input
order.

    /usr/bin/python3 bench/dask_validate.py NPYVALIDATE LIST [PARTITIONS] > out.jsonl

Paths are bytes from end to end (a name that is not UTF-8 reaches
npyvalidate as it is, and its record carries path_bytes), and the output
is npyvalidate's, byte for byte.

Exit status: npyvalidate's, the worst of the partitions: 0 every file
valid, 1 some file invalid, 2 an I/O or usage error or a partition whose
npyvalidate died. The cluster is Debian's python3-distributed
LocalCluster, 2 worker processes of one thread each; for a real cluster,
pass a scheduler address in DASK_SCHEDULER instead.
"""
import os
import subprocess
import sys

from dask.distributed import Client, LocalCluster


def validate_partition(exe, paths):
    """One npyvalidate run over paths (bytes); its status and stdout."""
    r = subprocess.run([exe, "-j1", "--json", "--files-from", "-"], input=b"".join(p + b"\n" for p in paths),
                       stdout=subprocess.PIPE)
    return r.returncode, r.stdout


def status_of(rc):
    """npyvalidate's 0/1/2; a signal or anything else is 2."""
    return rc if rc in (0, 1, 2) else 2


def main():
    exe, lst = sys.argv[1], sys.argv[2]
    nparts = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    with open(lst, "rb") as fh:
        paths = [p for p in fh.read().split(b"\n") if p]
    step = max(1, -(-len(paths) // nparts))
    parts = [paths[k:k + step] for k in range(0, len(paths), step)]
    sched = os.environ.get("DASK_SCHEDULER")
    cluster = None if sched else LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                              dashboard_address=None)
    status = 0
    try:
        with Client(sched or cluster) as client:
            futures = client.map(validate_partition, [exe] * len(parts), parts, pure=False)
            for rc, out in client.gather(futures):
                sys.stdout.buffer.write(out)
                status = max(status, status_of(rc))
    finally:
        if cluster:
            cluster.close()
    sys.stdout.flush()
    return status


if __name__ == "__main__":
    sys.exit(main())
