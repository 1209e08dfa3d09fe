# SPDX-License-Identifier: BSD-3-Clause
"""One detection for every entry point: a file that is two formats (an
.npy, .npz or .ra file that also carries an HDF5 superblock where libhdf5
looks for one, so h5py reads it as HDF5) is refused by npyguard.load and
npyguard.validate, from a path, bytes, a BytesIO and a file object, with
the code npyvalidate gives it. The expected code is the corpus manifest's
(gen/gen_hdf5.py, which checked that numpy and h5py both read the file)."""
import faulthandler
import io
import json
import os
import resource
import subprocess

import pytest

import npyguard
from corpus_files import CORPUS, ROOT, manifest

faulthandler.enable()
HDF5 = manifest("hdf5")
POLYGLOTS = sorted(n for n in HDF5 if os.path.basename(n).startswith("polyglot."))


def test_the_corpus_has_the_three_polyglots():
    assert [os.path.basename(n) for n in POLYGLOTS] == ["polyglot.npy", "polyglot.npz", "polyglot.ra"]


def sources(path):
    with open(path, "rb") as f:
        data = f.read()
    yield "path", path
    yield "pathlike", __import__("pathlib").Path(path)
    yield "bytesio", io.BytesIO(data)
    f = open(path, "rb")
    try:
        yield "file", f
    finally:
        f.close()


def refused(name, call):
    """call refuses the polyglot name from each source with the manifest's
    code; yields the source's name, the source and the error."""
    path = os.path.join(CORPUS, "hdf5", name)
    for how, src in sources(path):
        with pytest.raises(npyguard.Error) as e:
            call(src)
        assert e.value.code == HDF5[name]["error"], (how, e.value)
        yield how, src, e.value


@pytest.mark.parametrize("name", POLYGLOTS)
def test_load_refuses_a_polyglot(name):
    path = os.path.join(CORPUS, "hdf5", name)
    want = HDF5[name]["error"]
    for how, src, err in refused(name, npyguard.load):
        assert err.name == "NPYG_EPOLYGLOT", how
        with pytest.raises(npyguard.Error) as e:
            npyguard.load(src if how != "bytesio" else io.BytesIO(open(path, "rb").read()), max_dims=8)
        assert e.value.code == want, ("with limits", how, e.value)


@pytest.mark.parametrize("name", POLYGLOTS)
def test_validate_refuses_a_polyglot(name):
    assert [how for how, _, _ in refused(name, npyguard.validate)] == ["path", "pathlike", "bytesio", "file"]


def cli():
    p = os.environ.get("NPYG_CLI") or os.path.join(ROOT, "build", "release", "parser", "npyvalidate")
    return p if os.access(p, os.X_OK) else None


@pytest.mark.parametrize("name", POLYGLOTS)
def test_the_cli_gives_the_same_code(name):
    exe = cli()
    if exe is None:
        pytest.skip("npyvalidate is not built (set NPYG_CLI)")
    path = os.path.join(CORPUS, "hdf5", name)

    def cap():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))

    r = subprocess.run([exe, "--json", path], capture_output=True, timeout=60, preexec_fn=cap)
    o = json.loads(r.stdout)
    assert r.returncode == 1 and o["error"]["code"] == HDF5[name]["error"], o
    with pytest.raises(npyguard.Error) as e:
        npyguard.load(path)
    assert e.value.code == o["error"]["code"] and e.value.offset == o["error"]["offset"]


def test_detect_is_exposed():
    """The package asks the library, as npyvalidate does: npyg_detect."""
    with open(os.path.join(CORPUS, "hdf5", "hazard", "polyglot.npy"), "rb") as f:
        code, fmt, offset, message = npyguard._core.detect(f.read())
    assert code == HDF5["hazard/polyglot.npy"]["error"] and offset == 512 and "HDF5" in message
    with open(os.path.join(CORPUS, "valid", "f8-le-1d-C-v1.npy"), "rb") as f:
        assert npyguard._core.detect(f.read())[:2] == (0, 1)  # NPYG_FORMAT_NPY
