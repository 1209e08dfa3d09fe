# SPDX-License-Identifier: BSD-3-Clause
"""Validate (or load) many files on a Dask cluster with the Python package.

Each path is one task, `npyguard.validate(path, hash=True)` on a worker;
a file npyguard refuses raises there, and the error crosses back to the
client as the same `npyguard.Error` subclass with its code, name, offset
and message (npyguard's errors pickle whole); a file that cannot be read
crosses back as its OSError. The output is one JSON line per path, in
input order, in npyvalidate's record (docs/json.md, schema/): the
Python package's validate() reads .npy only, so any other format is a
magic error here; bench/dask_validate.py and bench/remote_validate.py
run npyvalidate itself and recognise every format.

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
    """One file, on a worker: its Info as a dict (raises npyguard.Error)."""
    return npyguard.validate(path, hash=True)._asdict()


def validate_all(client, paths):
    """(path, info dict, npyguard.Error or OSError) for each path, in order."""
    futures = client.map(check, paths, pure=False)
    for path, fut in zip(paths, futures):
        try:
            yield path, fut.result()
        except (npyguard.Error, OSError) as e:
            yield path, e


SCHEMA = "npyvalidate-record/1"


def _code_of(name):
    """An error's code by its name, from the library's table."""
    return next(c for c in range(1, 256) if npyguard._core.error_info(c)[0] == name)


def line(path, got):
    """npyvalidate's record of one path."""
    head = {"schema": SCHEMA, "path": path}
    if isinstance(got, OSError):
        err = {"code": _code_of("NPYG_EIO"), "name": "NPYG_EIO", "class": "io", "offset": 0, "offset_in": "file",
               "message": "cannot open: %s" % (got.strerror or got)}
        return dict(head, format="unknown", ok=False, error=err, warnings=[])
    if isinstance(got, npyguard.Error):
        err = {"code": got.code, "name": got.name, "class": got.klass, "offset": got.offset,
               "offset_in": got.offset_space, "message": got.message}
        # without the magic, nothing says the file is a .npy
        if got.klass == "magic" and got.name == "NPYG_EMAGIC":
            return dict(head, format="unknown", ok=False, error=err, warnings=[])
        return dict(head, format="npy", ok=False, error=err, warnings=[], npy={})
    npy = {k: v for k, v in got.items() if k != "warnings" and (k != "payload_sha256" or v is not None)}
    npy["shape"] = list(npy["shape"])
    return dict(head, format="npy", ok=True, warnings=list(got["warnings"]), npy=npy)


def status_of(got):
    """npyvalidate's exit status for one result."""
    if isinstance(got, OSError) or (isinstance(got, npyguard.Error) and got.klass == "io"):
        return 2
    return 1 if isinstance(got, npyguard.Error) else 0


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
                print(json.dumps(line(path, got), ensure_ascii=False))
                status = max(status, status_of(got))
    finally:
        if cluster:
            cluster.close()
    return status


if __name__ == "__main__":
    sys.exit(main())
