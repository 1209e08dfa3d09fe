# SPDX-License-Identifier: BSD-3-Clause
"""Validate (or load) many files on a Dask cluster with the Python package.

Each path is one task, `npyguard.validate(path, hash=True)` on a worker,
which recognises the format by its content and returns npyvalidate's
record (docs/json.md, schema/). A file npyguard refuses raises there, and
the error crosses back to the client as the same `npyguard.Error`
subclass with its code, name, offset and message, and the record
(npyguard's errors pickle whole). The output is one record per path, in
input order, as `npyvalidate --json --hash` prints them.

    /usr/bin/python3 bench/dask_npyguard.py LIST                    # a local cluster
    /usr/bin/python3 bench/dask_npyguard.py --scheduler tcp://HOST:8786 LIST

LIST holds one path per line; on a real cluster every worker must see the
paths (a shared file system) and have npyguard installed. The local
cluster is Debian's python3-distributed LocalCluster, worker processes of
one thread each. Exit status: npyvalidate's, 0 when every file is
valid, 1 when some file is refused, 2 when some file cannot be read.
bench/dask_validate.py is the same map over `npyvalidate` runs; python/tests/test_dask.py
runs this one on a local cluster.
"""
import argparse
import json
import sys

import npyguard


def check(path):
    """One file, on a worker: its record (raises npyguard.Error)."""
    return npyguard.validate(path, hash=True)


def validate_all(client, paths):
    """(path, record or npyguard.Error) for each path, in order."""
    futures = client.map(check, paths, pure=False)
    for path, fut in zip(paths, futures):
        try:
            yield path, fut.result()
        except npyguard.Error as e:
            yield path, e


def line(got):
    """npyvalidate's record of one path (an error without one, such as
    npyvalidate missing on a worker, is raised)."""
    if isinstance(got, npyguard.Error):
        if got.record is None:
            raise got
        return got.record
    return got


def status_of(got):
    """npyvalidate's exit status for one result: 2 for an error of class
    io (the file could not be read), 1 for a refusal."""
    if not isinstance(got, npyguard.Error):
        return 0
    return 2 if got.klass == "io" else 1


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
                print(json.dumps(line(got), ensure_ascii=False))
                status = max(status, status_of(got))
    finally:
        if cluster:
            cluster.close()
    return status


if __name__ == "__main__":
    sys.exit(main())
