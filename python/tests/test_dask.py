# SPDX-License-Identifier: BSD-3-Clause
"""bench/dask_npyguard.py on Debian's python3-distributed LocalCluster:
files validated in worker processes, refusals back in the client as
npyguard.Error with the codes of docs/errors.md's table. Skipped only when
dask.distributed cannot be imported."""
import hashlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import npyguard

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
sys.path.insert(0, os.path.join(ROOT, "bench"))
distributed = pytest.importorskip("dask.distributed")
import dask_npyguard  # noqa: E402


def test_map_over_a_local_cluster(tmp_path):
    good, bad, pickled = tmp_path / "good.npy", tmp_path / "bad.npy", tmp_path / "obj.npy"
    np.save(good, np.arange(12, dtype="<i4").reshape(3, 4))
    bad.write_bytes(b"\x93NUMPY\x07\x00")
    np.save(pickled, np.array([None]), allow_pickle=True)
    paths = [str(good), str(bad), str(pickled)]
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        got = dict(dask_npyguard.validate_all(client, paths))
        # the worker's pid is not ours: the errors crossed a process boundary
        assert client.submit(os.getpid, pure=False).result() != os.getpid()
    assert got[str(good)]["npy"]["shape"] == [3, 4] and got[str(good)]["npy"]["descr"] == "<i4"
    assert type(got[str(bad)]) is npyguard.MagicError
    assert (got[str(bad)].code, got[str(bad)].name, got[str(bad)].offset) == (11, "NPYG_EVERSION", 6)
    assert type(got[str(pickled)]) is npyguard.UnsafeError and got[str(pickled)].code == 34
    # the refusal's record crossed with it
    assert got[str(pickled)].record["path"] == str(pickled) and got[str(pickled)].record["ok"] is False


def test_the_command(tmp_path):
    p, q = tmp_path / "a.npy", tmp_path / "t.npy"
    np.save(p, np.ones(3))
    q.write_bytes(p.read_bytes()[:-1])
    lst = tmp_path / "list"
    lst.write_text("%s\n%s\n" % (p, q))
    lines, status = _run(lst)
    assert status == 1
    assert [x["path"] for x in lines] == [str(p), str(q)]
    assert lines[0]["ok"] and lines[0]["format"] == "npy" and lines[0]["npy"]["shape"] == [3]
    assert lines[0]["npy"]["payload_sha256"] == hashlib.sha256(np.ones(3).tobytes()).hexdigest()
    assert (lines[1]["ok"], lines[1]["error"]["code"], lines[1]["error"]["name"]) == (False, 40, "NPYG_ETRUNC_PAYLOAD")
    # a missing file: npyvalidate's I/O record and status 2, not a traceback
    lst.write_text("%s\n%s\n" % (p, tmp_path / "gone.npy"))
    lines, status = _run(lst)
    assert status == 2 and [x["ok"] for x in lines] == [True, False]
    assert (lines[1]["format"], lines[1]["error"]["name"]) == ("unknown", "NPYG_EIO")


def _run(lst):
    """dask_npyguard.py over a list: its records and exit status."""
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(npyguard.__file__)))
    r = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "dask_npyguard.py"), "--workers", "1",
                        str(lst)], capture_output=True, text=True, env=env, timeout=120)
    assert "Traceback" not in r.stderr, r.stderr
    return [json.loads(x) for x in r.stdout.splitlines()], r.returncode
