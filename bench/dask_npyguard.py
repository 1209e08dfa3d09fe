# SPDX-License-Identifier: BSD-3-Clause
"""Validate (or load) many files on a Dask cluster with the Python package.

Each path is one task, `npyguard.validate(path, hash=True)` on a worker;
a file npyguard refuses raises there, and the error crosses back to the
client as the same `npyguard.Error` subclass with its code, name, offset
and message (npyguard's errors pickle whole). The output is one JSON line
per path, in input order: the fields `npyvalidate --json` prints, or the
error's.

    /usr/bin/python3 bench/dask_npyguard.py LIST                    # a local cluster
    /usr/bin/python3 bench/dask_npyguard.py --scheduler tcp://HOST:8786 LIST

LIST holds one path per line; on a real cluster every worker must see the
paths (a shared file system) and have npyguard installed. The local
cluster is Debian's python3-distributed LocalCluster, worker processes of
one thread each. Exit status: 0 when every file is valid, 1 otherwise.
bench/dask_validate.py is the same map over `npyvalidate` runs; python/tests/test_dask.py
runs this one on a local cluster.
"""
import argparse
import json
import sys

import npyguard


def check(path):
    """One file, on a worker: its Info as a dict (raises npyguard.Error)."""
    return npyguard.validate(path, hash=True)._asdict()


def validate_all(client, paths):
    """(path, info dict or npyguard.Error) for each path, in order."""
    futures = client.map(check, paths, pure=False)
    for path, fut in zip(paths, futures):
        try:
            yield path, fut.result()
        except npyguard.Error as e:
            yield path, e


def line(path, got):
    if isinstance(got, npyguard.Error):
        return {"path": path, "valid": False, "code": got.code, "error": got.name, "class": got.klass,
                "offset": got.offset, "message": got.message}
    return dict(path=path, valid=True, **got)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("list", help="file with one path per line")
    ap.add_argument("--scheduler", help="address of a running scheduler (default: a local cluster)")
    ap.add_argument("--workers", type=int, default=2, help="local cluster: worker processes")
    a = ap.parse_args(argv)
    from dask.distributed import Client, LocalCluster

    with open(a.list) as fh:
        paths = [p for p in fh.read().splitlines() if p]
    cluster = None
    if not a.scheduler:
        cluster = LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True, dashboard_address=None)
    status = 0
    try:
        with Client(a.scheduler or cluster) as client:
            for path, got in validate_all(client, paths):
                print(json.dumps(line(path, got)))
                status |= isinstance(got, npyguard.Error)
    finally:
        if cluster:
            cluster.close()
    return status


if __name__ == "__main__":
    sys.exit(main())
