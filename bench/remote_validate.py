# SPDX-License-Identifier: BSD-3-Clause
"""Validate a listing of remote objects (HTTP, S3, GCS: anything fsspec
opens) on a Dask cluster; print npyvalidate's JSON Lines in the
listing's order, each record's path the object's URL.

    /usr/bin/python3 bench/remote_validate.py [options] LISTING > out.jsonl

LISTING holds one URL per line. Each Dask task takes a batch of URLs:
its worker streams the objects through fsspec into a private temporary
directory, 16 transfers in flight on an asynchronous filesystem (HTTP,
s3fs, gcsfs; others one at a time in 1 MiB range reads), each in chunks
of 1 MiB, so a worker holds a few chunks in memory whatever the objects'
size; an object over --max-object-bytes is refused. It then runs one
`npyvalidate -j1 --json` over the batch and sets each record's path to
its URL. The format is recognised by content, so .npy, .npz, .ra,
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


CONCURRENCY = 16  # transfers in flight on one worker


def _get_concurrently(fs, pairs):
    """Streams each (remote, local) pair with the filesystem's own async
    transfer, CONCURRENCY at a time; a list of None or why each failed."""
    import asyncio
    import inspect

    from fsspec.asyn import sync

    kw = {"chunk_size": CHUNK} if "chunk_size" in inspect.signature(fs._get_file).parameters else {}

    async def all_of():
        gate = asyncio.Semaphore(CONCURRENCY)

        async def one(remote, local):
            async with gate:
                try:
                    await fs._get_file(remote, local, **kw)
                    return None
                except Exception as e:  # noqa: BLE001 (each object's failure is its own record)
                    return "%s: %s" % (type(e).__name__, e)

        return await asyncio.gather(*(one(r, l) for r, l in pairs))

    return sync(fs.loop, all_of)


def validate_batch(exe, urls, storage_options, max_bytes):
    """On a worker: (worst status, one JSON line per URL, in order)."""
    import fsspec

    lines, status = [None] * len(urls), 0
    with tempfile.TemporaryDirectory(prefix="npyguard-remote-") as d:
        dst = [os.path.join(d, "%06d" % k) for k in range(len(urls))]
        why = [None] * len(urls)
        fss = []
        for k, url in enumerate(urls):
            try:
                fss.append(fsspec.core.url_to_fs(url, **storage_options))
            except (OSError, ValueError, ImportError) as e:
                fss.append(None)
                why[k] = "%s: %s" % (type(e).__name__, e)
        first = next((f for f in fss if f), None)
        if first and getattr(first[0], "async_impl", False) and all(f is None or f[0] is first[0] for f in fss):
            # one asynchronous filesystem (HTTP, s3fs, gcsfs): the batch's
            # objects in flight together, each streamed to its file
            todo = [k for k in range(len(urls)) if fss[k]]
            for k, w in zip(todo, _get_concurrently(first[0], [(fss[k][1], dst[k]) for k in todo])):
                why[k] = w
                if not w and os.path.getsize(dst[k]) > max_bytes:
                    why[k] = "larger than --max-object-bytes (%d)" % max_bytes
        else:
            for k, f in enumerate(fss):
                if f:
                    try:
                        why[k] = _fetch(f[0], f[1], dst[k], max_bytes)
                    except (OSError, ValueError) as e:
                        why[k] = "%s: %s" % (type(e).__name__, e)
        local = []
        for k, url in enumerate(urls):
            if why[k]:
                lines[k] = json.dumps(_io_record(exe, url, why[k]), ensure_ascii=False)
                status = 2
            else:
                local.append((k, dst[k]))
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
