# SPDX-License-Identifier: BSD-3-Clause
"""Where the tests find the repository's corpus and its manifests, which
numpy, zipfile and the other real writers' generators (gen/) recorded."""
import json
import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
CORPUS = os.path.join(ROOT, "corpus")


def manifest(*parts):
    """The "files" table of corpus/<parts>/manifest.json."""
    with open(os.path.join(CORPUS, *parts, "manifest.json")) as f:
        return json.load(f)["files"]


MANIFEST = manifest()
NPZ = manifest("npz")


def hdf5_helper():
    """The HDF5 sandbox's helper program the tests run: $NPYG_HDF5_HELPER,
    else the one installed beside the extension (the wheel's), else a
    build's in the checkout, else None."""
    found = os.environ.get("NPYG_HDF5_HELPER")
    if found:
        return found
    import npyguard._core
    packaged = os.path.join(os.path.dirname(npyguard._core.__file__), "npyg-hdf5-helper")
    if os.access(packaged, os.X_OK):
        return packaged
    for preset in ("release", "asan"):
        p = os.path.join(ROOT, "build", preset, "parser", "npyg-hdf5-helper")
        if os.access(p, os.X_OK):
            return p
    return None
