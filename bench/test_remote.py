# SPDX-License-Identifier: BSD-3-Clause
"""bench/remote_validate.py over HTTP: a LocalCluster of two worker
processes (bounded memory each) validates a listing of objects an
aiohttp static server (which answers range requests, as object stores
do) serves on 127.0.0.1, read through fsspec's HTTP filesystem; the output is npyvalidate's records of
the same bytes, path set to the URL, in the listing's order; the exit
status is npyvalidate's 0/1/2.

    test_remote.py NPYVALIDATE CORPUS
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import remote_validate  # noqa: E402

failures = []


def fail(what):
    failures.append(what)
    print("FAIL:", what[:600])


def main():
    # Dask's worker processes start by importing this file anew: nothing
    # may run at import.
    exe, corpus = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    # Objects of every format, valid and not (the corpus manifests' groups),
    # one under a name that needs percent-encoding in its URL.
    OBJECTS = [("valid/f8-le-2d-F-v1.npy", True), ("npz/valid/savez-several.npz", True),
               ("ra/valid/" + sorted(os.listdir(os.path.join(corpus, "ra", "valid")))[0], True),
               ("hdf5/valid/mat/savemat-several.mat", True), ("invalid/dim-bool-true-v1.npy", False),
               ("npz/unsafe/pickle-member.npz", False), ("unsafe/obj-os-system-v1.npy", False)]
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "bucket")
        os.makedirs(os.path.join(root, "dir with space"))
        keys = []
        for k, (rel, ok) in enumerate(OBJECTS):
            key = ("dir with space/%d é %s" if k == 1 else "%d-%s") % (k, os.path.basename(rel))
            shutil.copyfile(os.path.join(corpus, rel), os.path.join(root, key))
            keys.append((key, ok))
        portfile, log = os.path.join(tmp, "port"), os.path.join(tmp, "access.log")
        server = subprocess.Popen([sys.executable, os.path.join(here, "remote_server.py"), root, portfile, log])
        try:
            for _ in range(200):
                if os.path.exists(portfile):
                    break
                time.sleep(0.05)
            base = "http://127.0.0.1:%s/" % open(portfile).read()
            url = {key: base + urllib.parse.quote(key) for key, _ in keys}

            # What npyvalidate says of the same bytes on disk, path aside.
            r = subprocess.run([exe, "-j1", "--json", *[os.path.join(root, k) for k, _ in keys]], stdout=subprocess.PIPE)
            direct = [json.loads(line) for line in r.stdout.decode().splitlines()]
            for rec, (key, _) in zip(direct, keys):
                rec["path"] = url[key]

            from dask.distributed import Client, LocalCluster

            cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                   memory_limit="512MiB")
            try:
                with Client(cluster) as client:
                    if len(client.scheduler_info()["workers"]) < 2:
                        fail("fewer than two worker processes")
                    for label, listing, want in (
                            ("valid", [k for k, ok in keys if ok], 0),
                            ("mixed", [k for k, _ in keys], 1),
                            ("missing", [keys[0][0], "no-such-object.npy"], 2)):
                        urls = [url.get(k, base + k) for k in listing]
                        out = open(os.path.join(tmp, label + ".jsonl"), "w+")
                        st = remote_validate.run(client, exe, urls, batch=3, out=out)
                        out.seek(0)
                        recs = [json.loads(line) for line in out]
                        if st != want:
                            fail(f"{label}: status {st}, want {want}")
                        if [r["path"] for r in recs] != urls:
                            fail(f"{label}: records not in the listing's order: {[r['path'] for r in recs]}")
                        for rec in recs:
                            d = next((x for x in direct if x["path"] == rec["path"]), None)
                            if d is not None and rec != d:
                                fail(f"{label}: {rec['path']}: {json.dumps(rec)[:300]} != npyvalidate's {json.dumps(d)[:300]}")
                        for rec, k in zip(recs, listing):
                            ok = dict(keys).get(k)
                            if ok is not None and rec["ok"] != ok:
                                fail(f"{label}: {k}: ok {rec['ok']}, the corpus says {ok}")
                        if label == "missing" and (recs[1]["format"] != "unknown" or recs[1]["error"]["name"] != "NPYG_EIO"):
                            fail(f"missing object: {recs[1]}")
            finally:
                cluster.close()
            # The stand-in answers range requests as object stores do (what
            # fsspec's random-access reads rely on), and every object was read.
            import fsspec

            head = fsspec.filesystem("http").cat_file(url[keys[0][0]], start=0, end=6)
            # the server logs a request after answering it: its line may
            # come a moment after the client has the bytes
            for _ in range(100):
                ranged = [line for line in open(log) if line.startswith("206 ")]
                if ranged:
                    break
                time.sleep(0.1)
            if head != b"\x93NUMPY" or not ranged:
                fail("the server answered no range request: %r %s" % (head, open(log).read()[-300:]))
            fetched = open(log).read()
            for key, _ in keys:
                if urllib.parse.quote(key) not in fetched:
                    fail("%s was never requested" % key)
        finally:
            server.kill()
            server.wait()

    print("remote: %d objects over HTTP through fsspec and a 2-process LocalCluster: %s"
          % (len(OBJECTS), "the CLI's records in the listing's order" if not failures else "%d failures" % len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
