#!/usr/bin/env bash
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
