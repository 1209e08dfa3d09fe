#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Prints the dictionary for one harness: npy.dict, with zip.dict in front
# for the NPZ harnesses; ra.dict for the RawArray harness; mat.dict for
# the MAT header harness; pickle.dict for the pickle scanner; hdf5.dict
# for the HDF5 walk. The smoke
# run, the campaign and the OSS-Fuzz artifacts all take their
# dictionaries from here.
#
#   fuzz/dict.sh npz_fuzzer > npz_fuzzer.dict
set -eu
here=$(cd "$(dirname "$0")" && pwd)
case ${1:?usage: dict.sh TARGET} in
npz*) cat "$here/zip.dict" "$here/npy.dict" ;;
ra*) cat "$here/ra.dict" ;;
mat*) cat "$here/mat.dict" ;;
pickle*) cat "$here/pickle.dict" "$here/npy.dict" ;;
hdf5*) cat "$here/hdf5.dict" ;;
*) cat "$here/npy.dict" ;;
esac
