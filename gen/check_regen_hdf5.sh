#!/bin/sh
# Regenerate corpus/hdf5/ into a temporary directory and compare it byte
# for byte with the committed one (gen_hdf5.py writes without timestamps,
# with a pinned MAT header clock and seeded #refs# names). Exits 0 when
# identical, 1 (listing what differs) otherwise, and 0 with a skip message
# when the interpreter lacks h5py or hdf5storage.
#
# Usage: gen/check_regen_hdf5.sh [CORPUS_HDF5_DIR]   (default: corpus/hdf5)
# PYTHON overrides the interpreter (default /usr/bin/python3).
set -u

here=$(cd "$(dirname "$0")" && pwd)
corpus=${1:-"$here/../corpus/hdf5"}
corpus=$(cd "$corpus" 2>/dev/null && pwd) || { echo "check_regen_hdf5: no directory ${1:-}"; exit 2; }
python=${PYTHON:-/usr/bin/python3}

if ! "$python" -c 'import h5py, hdf5storage' >/dev/null 2>&1; then
    echo "check_regen_hdf5: SKIP: $python has no h5py or hdf5storage; corpus/hdf5 not regenerated"
    exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/npyguard-regen-hdf5.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

if ! "$python" "$here/gen_hdf5.py" "$tmp/hdf5" >"$tmp/gen.log" 2>&1; then
    echo "check_regen_hdf5: FAIL: the generator failed:"
    cat "$tmp/gen.log"
    exit 1
fi
if ! diffs=$(diff -rq "$corpus" "$tmp/hdf5"); then
    diffs=""
fi
if [ -n "$diffs" ]; then
    echo "check_regen_hdf5: FAIL: regenerated corpus/hdf5 differs:"
    echo "$diffs"
    exit 1
fi
n=$(find "$tmp/hdf5" -type f | wc -l)
echo "check_regen_hdf5: OK: $n files regenerate byte for byte"
exit 0
