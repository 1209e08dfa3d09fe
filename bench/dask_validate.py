# SPDX-License-Identifier: BSD-3-Clause
"""Validation of many files over Dask: the path list is cut into
partitions, each partition is one `npyvalidate -j1 --json --files-from -`
run on a worker of a local cluster, and the JSON Lines come back in input
order.

    /usr/bin/python3 bench/dask_validate.py NPYVALIDATE LIST [PARTITIONS] > out.jsonl

Exit status: the worst npyvalidate status of any partition. The cluster is
Debian's python3-distributed LocalCluster, 2 worker processes of one
thread each; for a real cluster, pass a scheduler address in
DASK_SCHEDULER instead.
"""
import os
import subprocess
import sys

from dask.distributed import Client, LocalCluster


def validate_partition(exe, paths):
    r = subprocess.run([exe, "-j1", "--json", "--files-from", "-"], input="".join(p + "\n" for p in paths),
                       capture_output=True, text=True)
    return r.returncode, r.stdout


def main():
    exe, lst = sys.argv[1], sys.argv[2]
    nparts = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    with open(lst) as fh:
        paths = [p for p in fh.read().splitlines() if p]
    step = max(1, -(-len(paths) // nparts))
    parts = [paths[k:k + step] for k in range(0, len(paths), step)]
    sched = os.environ.get("DASK_SCHEDULER")
    cluster = None if sched else LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                              dashboard_address=None)
    status = 0
    with Client(sched or cluster) as client:
        futures = client.map(validate_partition, [exe] * len(parts), parts, pure=False)
        for rc, out in client.gather(futures):
            sys.stdout.write(out)
            status = max(status, rc)
    if cluster:
        cluster.close()
    return status


if __name__ == "__main__":
    sys.exit(main())
