#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The main job: install what is missing, build, and validate a few example
# files from the corpus: valid ones, a hostile header, a pickle.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" >/dev/null
npyv=build/release/parser/npyvalidate
set -x
"$npyv" --hash corpus/valid/f8-le-2d-F-v1.npy corpus/valid/struct-nested-le-1d-C-v1.npy \
  corpus/valid/U5-be-3d-C-v1.npy || true
"$npyv" corpus/invalid/hlen-4gib-v2.npy corpus/invalid/dim-bool-true-v1.npy \
  corpus/unsafe/obj-os-system-v1.npy || true
"$npyv" --json corpus/compat/trailing-bytes-v1.npy || true
# RawArray, recognised by content; a truncated one.
"$npyv" corpus/ra/valid/c128-le-2d.ra corpus/ra/invalid/trunc-data.ra || true
# A MAT v7.3 file written by hdf5storage, and HDF5 files that would make a
# reader open other files (scanned by libhdf5 in a sandboxed child).
"$npyv" corpus/hdf5/valid/mat/savemat-several.mat corpus/hdf5/hazard/external-storage.h5 \
  corpus/hdf5/hazard/external-link.h5 || true
# The same files extracted, without libhdf5 in this process: a MAT file's
# arrays as a strict .npz.
out=$(mktemp -d)
"$npyv" --extract "$out/several.npz" corpus/hdf5/valid/mat/savemat-several.mat || true
"$npyv" --strict "$out/several.npz" || true

# Python: one file of each format loaded by content, as numpy.load would
# be called on it; libhdf5 runs only in the caged child.
/usr/bin/python3 -m pip wheel -q --disable-pip-version-check --no-build-isolation --no-deps --no-index \
  -w "$out/wheel" ./python >/dev/null
/usr/bin/python3 -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps --no-index \
  --root-user-action=ignore --target "$out/py" "$out"/wheel/npyguard-*.whl >/dev/null
NPYG_HDF5_HELPER=$PWD/build/release/parser/npyg-hdf5-helper PYTHONPATH="$out/py" /usr/bin/python3 - <<'PY'
import npyguard
for path in ["corpus/valid/f8-le-2d-F-v1.npy", "corpus/npz/valid/savez-big-endian.npz",
             "corpus/ra/valid/c128-le-2d.ra", "corpus/hdf5/valid/mat/savemat-several.mat",
             "corpus/hdf5/valid/h5/bool.h5", "corpus/unsafe/obj-os-system-v1.npy",
             "corpus/hdf5/hazard/external-link.h5"]:
    try:
        v = npyguard.load(path)
        if isinstance(v, npyguard.NpzFile):
            v = {k: v[k].shape for k in v}
        elif isinstance(v, dict):
            v = {k: getattr(x, "shape", type(x).__name__) for k, x in v.items()}
        else:
            v = "%s %s" % (v.dtype, v.shape)
        print("%s: %s" % (path, v))
    except npyguard.Error as e:
        print("%s: refused: %s %s" % (path, e.name, e.message))
PY
rm -rf "$out"
