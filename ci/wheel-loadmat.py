# SPDX-License-Identifier: BSD-3-Clause
"""An installed npyguard loads a MAT v7.3 file with nothing set: the HDF5
helper is found beside the extension. The values are hdf5storage's; and
validate() gives the bundled npyvalidate's record of it."""
import os
import sys

import hdf5storage
import numpy as np

import npyguard

assert not [k for k in os.environ if k.startswith("NPYG_")], "the check must run with no NPYG_ variable"
path = sys.argv[1]
got = npyguard.loadmat(path)
want = hdf5storage.loadmat(path)


def same(a, b, where):
    if isinstance(b, dict):
        assert isinstance(a, dict) and sorted(a) == sorted(b), where
        for k in b:
            same(a[k], b[k], where + "/" + k)
    else:
        b = np.asarray(b)
        a = np.asarray(a)
        assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b), where


same(got, want, path)
rec = npyguard.validate(path)
assert rec["format"] == "mat73" and rec["ok"] is True, rec
assert sorted(o["path"][1:] for o in rec["hdf5"]["objects"] if o["path"].count("/") == 1) == sorted(want), rec
print("wheel-loadmat: %s: %d variables as hdf5storage.loadmat reads them (%s)"
      % (os.path.basename(path), len(want), os.path.dirname(npyguard.__file__)))
