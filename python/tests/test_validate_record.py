# SPDX-License-Identifier: BSD-3-Clause
"""npyguard.validate(): any format, recognised by its content, and
npyvalidate's record of it, schema and all.

The record's facts are held to the writers' readers (numpy for .npy and
.npz, h5py for HDF5 and MAT v7.3); that the record is the CLI's is held to
`npyvalidate --json` run on the same file; and every record to the schema.
"""
import glob
import hashlib
import io
import json
import os
import subprocess

import numpy as np
import pytest

import npyguard

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(ROOT, "corpus")
SCHEMA = os.path.join(ROOT, "schema", "npyvalidate-record.schema.json")


def _cli():
    path = os.environ.get("NPYG_CLI") or os.path.join(ROOT, "build", "release", "parser", "npyvalidate")
    if not os.access(path, os.X_OK):
        pytest.skip("npyvalidate is not built (set NPYG_CLI)")
    return path


def _schema_check():
    try:
        import jsonschema
    except ImportError:
        pytest.skip("jsonschema is not installed (Debian: python3-jsonschema)")
    with open(SCHEMA) as f:
        schema = json.load(f)
    return jsonschema.Draft202012Validator(schema).validate


def _corpus(pattern, step=1):
    return sorted(glob.glob(os.path.join(CORPUS, pattern), recursive=True))[::step]


# Every format and every verdict: the .npy groups sampled (every third
# file; the C tests and the CLI's own tests read them all), the rest whole.
FILES = (_corpus("valid/*.npy", 3) + _corpus("invalid/*.npy", 3) + _corpus("unsafe/*.npy")
         + _corpus("npz/*/*.npz") + _corpus("ra/*/*.ra") + _corpus("hdf5/**/*.h5") + _corpus("hdf5/**/*.mat"))


def _record(got):
    """validate()'s record, returned or carried by the error it raised."""
    try:
        return npyguard.validate(*got[0], **got[1])
    except npyguard.Error as e:
        assert e.record is not None, e
        return e.record


def test_the_clis_record_for_every_format():
    assert len(FILES) > 600
    out = subprocess.run([_cli(), "--json", "--hash", "-j", "2", "--", *FILES], capture_output=True,
                         timeout=600).stdout
    cli = [json.loads(x) for x in out.splitlines()]
    assert [r["path"] for r in cli] == FILES
    formats = set()
    for path, want in zip(FILES, cli):
        assert _record(((path,), {"hash": True})) == want, path
        formats.add((want["format"], want["ok"]))
    # every format read, each both accepted and refused
    for f in ("npy", "npz", "ra", "hdf5", "mat73"):
        assert (f, True) in formats and (f, False) in formats, (f, formats)


def test_a_refusal_raises_its_class_with_the_record():
    path = os.path.join(CORPUS, "npz", "unsafe", "pickle-member.npz")
    with pytest.raises(npyguard.UnsafeError) as ei:
        npyguard.validate(path)
    e = ei.value
    assert (e.name, e.member) == ("NPYG_EOBJECT", "obj.npy")
    assert e.record["ok"] is False and e.record["error"]["name"] == "NPYG_EOBJECT"
    bad = [m for m in e.record["npz"]["members"] if not m["ok"]]
    assert [m["name"] for m in bad] == ["obj.npy"]
    # a missing file is an InputError (an OSError), with the CLI's I/O record
    with pytest.raises(npyguard.InputError) as ei:
        npyguard.validate(os.path.join(CORPUS, "no-such-file.npy"))
    assert ei.value.record["error"]["class"] == "io"


def test_facts_are_numpys_and_h5pys(tmp_path):
    a = np.arange(24, dtype=">f4").reshape(2, 3, 4)
    np.save(tmp_path / "a.npy", a)
    r = npyguard.validate(tmp_path / "a.npy", hash=True)
    assert r["format"] == "npy" and r["npy"]["shape"] == list(a.shape) and r["npy"]["descr"] == a.dtype.str
    assert r["npy"]["payload_sha256"] == hashlib.sha256(a.tobytes()).hexdigest()
    np.savez_compressed(tmp_path / "z.npz", first=a, second=np.array([1, 2], "<i8"))
    r = npyguard.validate(tmp_path / "z.npz")
    with np.load(tmp_path / "z.npz") as z:
        assert [m["name"][:-4] for m in r["npz"]["members"]] == z.files
        assert [m["npy"]["shape"] for m in r["npz"]["members"]] == [list(z[k].shape) for k in z.files]
    h5py = pytest.importorskip("h5py")
    with h5py.File(tmp_path / "f.h5", "w") as f:
        f["x"] = np.zeros((5, 2), "<i2")
        f.create_group("g")["y"] = np.ones(3)
    r = npyguard.validate(tmp_path / "f.h5")
    with h5py.File(tmp_path / "f.h5", "r") as f:
        want = {}
        f.visititems(lambda n, o: want.update({"/" + n: list(o.shape)}) if isinstance(o, h5py.Dataset) else None)
    got = {o["path"]: o["shape"] for o in r["hdf5"]["objects"] if o["kind"] == "dataset"}
    assert r["format"] == "hdf5" and got == want


def _sources(path):
    """The same file as each kind of input validate() takes but a path."""
    data = open(path, "rb").read()
    f = open(path, "rb")
    yield "bytes", data
    yield "memoryview", memoryview(data)
    yield "BytesIO", io.BytesIO(data)
    yield "file", f
    f.close()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            os.write(w, data)
        finally:
            os._exit(0)
    os.close(w)
    with open(r, "rb", buffering=0) as pipe:
        yield "pipe", pipe
    os.waitpid(pid, 0)


@pytest.mark.parametrize("name", ["valid/f8-le-2d-C-v1.npy", "npz/valid/savez-compressed-multichunk.npz",
                                  "ra/valid/bool-2d.ra", "unsafe/obj-bare-O-v1.npy", "hdf5/valid/h5/nd-3d.h5"])
def test_inputs_without_a_name_have_the_record_of_standard_input(name):
    path = os.path.join(CORPUS, name)
    with open(path, "rb") as f:
        want = json.loads(subprocess.run([_cli(), "--json", "--hash", "-"], stdin=f, capture_output=True,
                                         timeout=60).stdout)
    check = _schema_check()
    for how, src in _sources(path):
        got = _record(((src,), {"hash": True}))
        assert got == want, how
        check(got)


def test_a_file_object_is_read_from_its_position_and_left_there(tmp_path):
    a = np.arange(10, dtype="<u2")
    p = tmp_path / "two.bin"
    with open(p, "wb") as f:
        f.write(b"x" * 100)
        np.save(f, a)
    with open(p, "rb") as f:
        f.seek(100)
        r = npyguard.validate(f)
        assert f.tell() == 100
        assert r["npy"]["shape"] == [10] and r["path"] == "-"
        np.testing.assert_array_equal(np.load(f), a)  # the caller loads what was validated


def test_a_stream_past_the_spool_bound_is_refused(monkeypatch):
    monkeypatch.setattr(npyguard, "SPOOL_DEFAULT_TOTAL", 1000)
    r, w = os.pipe()
    os.write(w, b"\x93NUMPY" + b"\0" * 2000)
    os.close(w)
    with open(r, "rb", buffering=0) as pipe, pytest.raises(npyguard.LimitError) as ei:
        npyguard.validate(pipe)
    assert ei.value.name == "NPYG_ELIMIT_STDIN" and "1000" in ei.value.message
    # bytes the caller holds are all copied, whatever their size
    big = io.BytesIO()
    np.save(big, np.zeros(500))
    assert npyguard.validate(big.getvalue())["npy"]["shape"] == [500]


def test_every_limit_is_npyvalidates_option():
    h5 = _corpus("hdf5/valid/**/*.h5")[0]
    with pytest.raises(npyguard.LimitError):
        npyguard.validate(h5, max_objects=1)
    npy = os.path.join(CORPUS, "valid", "f8-le-2d-C-v1.npy")
    with pytest.raises(npyguard.LimitError):
        npyguard.validate(npy, max_dims=1)
    with pytest.raises(TypeError, match="no_such_limit"):
        npyguard.validate(npy, no_such_limit=1)
    with pytest.raises(ValueError, match="max_nesting"):
        npyguard.validate(npy, max_nesting=0)
    with pytest.raises(TypeError, match="max_dims"):
        npyguard.validate(npy, max_dims="2")
