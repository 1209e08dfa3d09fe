# SPDX-License-Identifier: BSD-3-Clause
"""Objects per second over many small remote objects: bench/remote_validate.py
on a two-process LocalCluster against the loop a Python user writes,
numpy.load of each URL through fsspec, over the same URLs from the same
aiohttp server on 127.0.0.1, run side by side (alternating, N runs each)
and compared by the ratio of medians.

    /usr/bin/python3 bench/remote_bench.py NPYVALIDATE [OBJECTS] [RUNS]

Defaults: 10,000 objects (numpy.save of small float64 arrays, 1 to 64
elements), 3 runs each. The cluster is started before the timing (a
real one is already up); each run is the whole listing, fetched anew.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time
import io

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import remote_validate  # noqa: E402


def numpy_loop(urls):
    """The plain loop: every object opened through fsspec and loaded."""
    import fsspec

    bad = 0
    for u in urls:
        try:
            with fsspec.open(u, "rb") as f:
                np.load(f, allow_pickle=False)
        except Exception:  # noqa: BLE001 (the loop a user writes keeps going)
            bad += 1
    return bad


def main():
    exe = os.path.abspath(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    rng = np.random.default_rng(7)
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "bucket")
        os.makedirs(root)
        for k in range(n):
            np.save(os.path.join(root, "obj-%05d.npy" % k), rng.random(1 + k % 64))
        portfile = os.path.join(tmp, "port")
        server = subprocess.Popen([sys.executable, os.path.join(here, "remote_server.py"), root, portfile])
        try:
            while not os.path.exists(portfile):
                time.sleep(0.05)
            base = "http://127.0.0.1:%s/" % open(portfile).read()
            urls = [base + "obj-%05d.npy" % k for k in range(n)]
            from dask.distributed import Client, LocalCluster

            cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                   memory_limit="512MiB")
            ours, theirs = [], []
            try:
                with Client(cluster) as client:
                    remote_validate.run(client, exe, urls[:256], batch=128, out=io.StringIO())  # warm the workers
                    for r in range(runs):
                        t = time.perf_counter()
                        out = io.StringIO()
                        st = remote_validate.run(client, exe, urls, batch=128, out=out)
                        ours.append(time.perf_counter() - t)
                        assert st == 0 and out.getvalue().count("\n") == n, (st, out.getvalue()[:200])
                        t = time.perf_counter()
                        bad = numpy_loop(urls)
                        theirs.append(time.perf_counter() - t)
                        assert bad == 0
                        print("run %d: remote_validate %.2f s, numpy.load loop %.2f s" % (r + 1, ours[-1], theirs[-1]),
                              flush=True)
            finally:
                cluster.close()
        finally:
            server.kill()
            server.wait()
    mo, mt = statistics.median(ours), statistics.median(theirs)
    print("%d objects, %d runs each: remote_validate.py (LocalCluster, 2 workers) %.0f objects/s, "
          "numpy.load loop %.0f objects/s; ratio of medians %.2fx" % (n, runs, n / mo, n / mt, mt / mo))


if __name__ == "__main__":
    main()
