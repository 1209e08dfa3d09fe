#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ctest: the npyjs adapter (npm) against its skip list. npyjs fails many
# cases; the list (skips/npyjs.skip) holds them, so this test fails when
# npyjs gets worse (a new failure) or better (a stale skip line).
# usage: run-npyjs.sh NPYCONFORM CONFORMANCE_DIR
# Exit 77 (ctest: skipped) when node or the installed package is missing.
set -u
runner=$1
dir=$2
adir="$dir/adapters/npyjs"
if ! command -v node >/dev/null 2>&1; then
    echo "SKIP: node is not installed; the npyjs adapter is not tested"
    exit 77
fi
if [ ! -f "$adir/node_modules/npyjs/package.json" ]; then
    echo "SKIP: npyjs is not installed; run 'npm ci' in $adir to test it"
    exit 77
fi
. "$(dirname "$0")/sample.sh"
sample_cases "$runner"
set --
for c in $sampled; do set -- "$@" --run "$c"; done
exec "$runner" --adapter "node $adir/npyjs-adapter.mjs" --skip "$dir/skips/npyjs.skip" -j 2 --timeout 30 "$@"
