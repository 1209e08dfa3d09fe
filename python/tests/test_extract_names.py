# SPDX-License-Identifier: BSD-3-Clause
"""npyvalidate --extract and the names of the members it writes.

Each file is made by h5py. A dataset path that cannot be a member every
reader opens the same way (a name --strict refuses: a backslash, a
control character, a leading drive letter, bytes that are not UTF-8), or
two datasets whose members collide ("/a" and "/a.npy", "/A" and "/a",
"/g" beside a group "/g.npy"), is refused with an error naming the
path(s), and no archive is written. An archive that is written passes
--strict and np.load gives h5py's values under the keys it names."""
import os
import subprocess

import numpy as np
import pytest

from corpus_files import ROOT, hdf5_helper

h5py = pytest.importorskip("h5py")
HELPER = hdf5_helper()


def _cli():
    for d in ([os.path.dirname(HELPER)] if HELPER else []) + \
             [os.path.join(ROOT, "build", p, "parser") for p in ("release", "asan")]:
        p = os.path.join(d, "npyvalidate")
        if os.access(p, os.X_OK):
            return p
    return None


CLI = _cli()
pytestmark = pytest.mark.skipif(CLI is None or HELPER is None, reason="npyvalidate or the HDF5 helper not built")


def run(*args):
    env = dict(os.environ, NPYG_HDF5_HELPER=HELPER)
    return subprocess.run([CLI, *args], capture_output=True, env=env, timeout=120)


def make(path, names):
    with h5py.File(path, "w") as f:
        for i, name in enumerate(names):
            f[name] = np.arange(i + 1, dtype=np.int16)
    return path


@pytest.mark.parametrize("name,shown", [
    ("a\\b", "/a\\x5cb"), ("a\x01b", "/a\\x01b"), ("C:x", "/C:x"), (b"x\xffy", "/x\\xffy"),
], ids=["backslash", "control", "drive-letter", "not-utf8"])
def test_a_name_strict_refuses_is_refused(tmp_path, name, shown):
    src = make(str(tmp_path / "in.h5"), ["ok", name])
    out = str(tmp_path / "out.npz")
    r = run("--extract", out, src)
    err = r.stderr.decode("utf-8", "replace")
    assert r.returncode == 1, err
    assert shown + ": a path with" in err and "cannot name an archive member" in err, err
    assert "nothing written" in err and "\x01" not in err
    assert not os.path.exists(out) and os.listdir(str(tmp_path)) == ["in.h5"]


@pytest.mark.parametrize("names,pair", [
    (["a", "a.npy"], ("/a", "/a.npy")),
    (["A", "a"], ("/A", "/a")),
    (["g", "g.npy/x"], ("/g", "/g.npy/x")),
    (["d/X", "d/x"], ("/d/X", "/d/x")),
], ids=["key-is-a-name", "case", "file-where-a-directory", "case-below-a-group"])
def test_colliding_members_are_refused(tmp_path, names, pair):
    src = make(str(tmp_path / "in.h5"), names)
    out = str(tmp_path / "out.npz")
    r = run("--extract", out, src)
    err = r.stderr.decode()
    assert r.returncode == 1, err
    assert pair[0] in err and pair[1] in err and "collide" in err and "nothing written" in err, err
    assert sorted(os.listdir(str(tmp_path))) == ["in.h5"]


def test_names_that_only_look_alike_are_written(tmp_path):
    """A key beside a directory of the same name once case is folded
    ("G.npy" and "g/x.npy": different names on every file system), a
    name that ends in another suffix and non-ASCII UTF-8 names are fine:
    the archive passes --strict and np.load gives h5py's values."""
    names = ["G", "g/x", "g/y", "h.npz", "\u00e9t\u00e9", "b/c/d"]
    src = make(str(tmp_path / "in.h5"), names)
    out = str(tmp_path / "out.npz")
    r = run("--extract", out, src)
    assert r.returncode == 0, r.stderr.decode()
    assert run("--strict", "-q", out).returncode == 0
    with h5py.File(src, "r") as f, np.load(out) as z:
        assert sorted(z.files) == sorted(names)
        for name in names:
            want = f[name][()]
            assert z[name].dtype == want.dtype and np.array_equal(z[name], want)
