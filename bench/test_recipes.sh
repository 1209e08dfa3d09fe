#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The Dask and GNU parallel recipes give the same JSON Lines, in the same
# order, as one npyvalidate run over the same list, and fail when a file
# is invalid. Registered with ctest (label slow).
#
#   bench/test_recipes.sh NPYVALIDATE CORPUS_DIR PYTHON
set -eu
exe=$1 corpus=$2 py=$3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/npyguard-recipes-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0

ls "$corpus"/valid/*.npy | head -120 > "$tmp/valid.list"
{ cat "$tmp/valid.list"; ls "$corpus"/invalid/*.npy | head -5; } > "$tmp/mixed.list"
[ "$(wc -l < "$tmp/valid.list")" -ge 100 ] || { echo "FAIL: fewer than 100 corpus files"; exit 1; }

for set in valid mixed; do
    st=0; "$exe" -j1 --json --files-from "$tmp/$set.list" > "$tmp/direct.jsonl" || st=$?
    ps=0; sh "$here/parallel_validate.sh" "$exe" "$tmp/$set.list" 2 > "$tmp/par.jsonl" || ps=$?
    ds=0; "$py" "$here/dask_validate.py" "$exe" "$tmp/$set.list" 4 > "$tmp/dask.jsonl" || ds=$?
    for r in par dask; do
        if ! cmp -s "$tmp/direct.jsonl" "$tmp/$r.jsonl"; then
            echo "FAIL: $set: $r output differs from one npyvalidate run"; fail=1
        fi
    done
    if [ "$set" = valid ]; then
        [ "$st" = 0 ] && [ "$ps" = 0 ] && [ "$ds" = 0 ] || { echo "FAIL: valid: status $st $ps $ds"; fail=1; }
    else
        [ "$st" != 0 ] && [ "$ps" != 0 ] && [ "$ds" = "$st" ] || { echo "FAIL: mixed: status $st $ps $ds"; fail=1; }
    fi
done
[ "$fail" = 0 ] && echo "recipes: same output and status as npyvalidate"
exit "$fail"
