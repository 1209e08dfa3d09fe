# SPDX-License-Identifier: BSD-3-Clause
"""Validate a listing of remote objects (HTTP, S3, GCS: anything fsspec
opens) on a Dask cluster; print npyvalidate's JSON Lines in the
listing's order, each record's path the object's URL.

    /usr/bin/python3 bench/remote_validate.py [options] LISTING > out.jsonl

LISTING holds one URL per line. Each Dask task takes a batch of URLs:
its worker reads each object through fsspec in 1 MiB range reads into an
anonymous temporary directory (at most --max-object-bytes an object, so
a worker holds one chunk in memory whatever the object's size), runs
one `npyvalidate -j1 --json` over the batch, and sets each record's path
to its URL. The format is recognised by content, so .npy, .npz, .ra,
HDF5 and MAT objects all get the CLI's record (docs/json.md); an object
that cannot be fetched gets npyvalidate's I/O record (format "unknown",
NPYG_EIO) with the reason.

S3 and GCS: install s3fs or gcsfs on every worker and list s3://bucket/key
or gs://bucket/key URLs; credentials come from the usual places
(environment, config files), or --storage-options '{"anon": true}'.

Options: --scheduler ADDR (default: a LocalCluster of --workers
processes, one thread each, --memory-limit each), --npyvalidate PATH
(on every worker; default: npyvalidate on PATH), --batch N.
Exit status: npyvalidate's, the worst: 0 every object valid, 1 some
object invalid, 2 an object that could not be read, or a usage error.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

CHUNK = 1 << 20


def _io_record(exe, url, why):
    """npyvalidate's own record for a file it could not read, for url."""
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run([exe, "--json", os.path.join(d, "missing")], stdout=subprocess.PIPE)
    rec = json.loads(r.stdout)
    rec["path"] = url
    rec.pop("path_bytes", None)
    rec["error"]["message"] = "cannot fetch: " + why
    return rec


def _fetch(fs, path, dst, max_bytes):
    """Copies one object in CHUNK range reads; None, or why it failed."""
    n = 0
    with fs.open(path, "rb", block_size=CHUNK, cache_type="none") as src, open(dst, "wb") as out:
        while True:
            b = src.read(CHUNK)
            if not b:
                return None
            n += len(b)
            if n > max_bytes:
                return "larger than --max-object-bytes (%d)" % max_bytes
            out.write(b)


def validate_batch(exe, urls, storage_options, max_bytes):
    """On a worker: (worst status, one JSON line per URL, in order)."""
    import fsspec

    lines, status = [None] * len(urls), 0
    with tempfile.TemporaryDirectory(prefix="npyguard-remote-") as d:
        local = []
        for k, url in enumerate(urls):
            dst = os.path.join(d, "%06d" % k)
            try:
                fs, path = fsspec.core.url_to_fs(url, **storage_options)
                why = _fetch(fs, path, dst, max_bytes)
            except (OSError, ValueError) as e:  # aiohttp's errors are OSErrors through fsspec
                why = "%s: %s" % (type(e).__name__, e)
            if why:
                lines[k] = json.dumps(_io_record(exe, url, why), ensure_ascii=False)
                status = 2
            else:
                local.append((k, dst))
        if local:
            r = subprocess.run([exe, "-j1", "--json", "--files-from", "-"],
                               input="".join(p + "\n" for _, p in local).encode(), stdout=subprocess.PIPE)
            got = r.stdout.decode("utf-8").splitlines()
            if len(got) != len(local):
                raise RuntimeError("npyvalidate printed %d records for %d objects (status %d)"
                                   % (len(got), len(local), r.returncode))
            for (k, _), line in zip(local, got):
                rec = json.loads(line)
                rec["path"] = urls[k]
                rec.pop("path_bytes", None)
                lines[k] = json.dumps(rec, ensure_ascii=False)
            status = max(status, r.returncode if r.returncode in (0, 1, 2) else 2)
    return status, lines


def run(client, exe, urls, storage_options=None, batch=64, max_bytes=1 << 32, out=sys.stdout, window=16):
    """Validates urls on client's cluster, writing the lines in order as
    they come (at most `window` batches in flight); the worst status."""

    batches = [urls[k:k + batch] for k in range(0, len(urls), batch)]
    status, pending, nxt = 0, [], 0
    while nxt < len(batches) or pending:
        while nxt < len(batches) and len(pending) < window:
            pending.append(client.submit(validate_batch, exe, batches[nxt], storage_options or {}, max_bytes,
                                         pure=False))
            nxt += 1
        st, lines = pending.pop(0).result()
        for line in lines:
            out.write(line + "\n")
        status = max(status, st)
    out.flush()
    return status


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("listing", help="file with one URL per line")
    ap.add_argument("--scheduler", help="address of a running scheduler (default: a local cluster)")
    ap.add_argument("--workers", type=int, default=2, help="local cluster: worker processes")
    ap.add_argument("--memory-limit", default="1GiB", help="local cluster: memory of each worker")
    ap.add_argument("--npyvalidate", default=shutil.which("npyvalidate") or "npyvalidate")
    ap.add_argument("--batch", type=int, default=64, help="objects per task")
    ap.add_argument("--max-object-bytes", type=int, default=1 << 32)
    ap.add_argument("--storage-options", default="{}", help="JSON: keyword arguments for the fsspec filesystem")
    a = ap.parse_args(argv)
    from dask.distributed import Client, LocalCluster

    with open(a.listing) as fh:
        urls = [u for u in fh.read().splitlines() if u]
    cluster = None
    if not a.scheduler:
        cluster = LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True, dashboard_address=None,
                               memory_limit=a.memory_limit)
    try:
        with Client(a.scheduler or cluster) as client:
            return run(client, a.npyvalidate, urls, json.loads(a.storage_options), a.batch, a.max_object_bytes)
    finally:
        if cluster:
            cluster.close()


if __name__ == "__main__":
    sys.exit(main())
