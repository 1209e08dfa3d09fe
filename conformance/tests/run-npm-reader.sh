#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ctest: an npm reader's adapter against its skip list (skips/READER.skip),
# on the cases that show its bugs: the conversions (f8, i8, u1 files), the
# one-defect files on the 2-D base (the header parser) and the pickles.
# The whole corpus runs in make-results.sh; an interpreter that loads its
# package for every file makes a whole run too slow for every build.
# Fails when the reader gets worse (a new failure) or better (a stale skip).
# usage: run-npm-reader.sh NPYCONFORM CONFORMANCE_DIR READER PACKAGE
# Exit 77 (ctest: skipped) when node or the installed package is missing.
set -u
runner=$1
dir=$2
reader=$3
pkg=$4
adir="$dir/adapters/$reader"
if ! command -v node >/dev/null 2>&1; then
    echo "SKIP: node is not installed; the $reader adapter is not tested"
    exit 77
fi
if [ ! -f "$adir/node_modules/$pkg/package.json" ]; then
    echo "SKIP: $pkg is not installed; run 'npm ci' in $adir to test it"
    exit 77
fi
# the cases that show these readers' bugs (RESULTS.md), every
# NPYCONFORM_SAMPLE-th of them when that is set (sample.sh)
set -- --run 'valid/f8-le-*' --run 'valid/i8-le-*' --run 'valid/u1-*' --run 'valid/u4-le-*' \
    --run 'invalid/*-2d-v1.npy' --run 'unsafe/*'
. "$(dirname "$0")/sample.sh"
sample_cases "$runner" "$@"
if [ -n "$sampled" ]; then
    set --
    for c in $sampled; do set -- "$@" --run "$c"; done
fi
exec "$runner" --adapter "node $adir/$reader-adapter.mjs" --skip "$dir/skips/$reader.skip" -j 2 --timeout 60 "$@"
