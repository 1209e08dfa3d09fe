#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The Dask and GNU parallel recipes give the same JSON Lines, in the same
# order, as one npyvalidate run over the same list, and npyvalidate's exit
# status (0, 1, 2), names that are not UTF-8 included. Registered with
# ctest (label slow).
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
        [ "$st" = 1 ] && [ "$ps" = 1 ] && [ "$ds" = 1 ] || { echo "FAIL: mixed: status $st $ps $ds"; fail=1; }
    fi
done

# Statuses are npyvalidate's 0/1/2 whatever the blocks: a mixed set is 1
# (not the number of failed blocks), a missing file 2; a name that is not
# UTF-8 goes through the Dask recipe as bytes, its record as npyvalidate's.
odd=$(printf '%s/caf\351 \001.npy' "$tmp")
cp "$(head -1 "$tmp/valid.list")" "$odd"
{ head -3 "$tmp/valid.list"; ls "$corpus"/invalid/*.npy | head -3; printf '%s\n' "$odd"; } > "$tmp/odd.list"
{ cat "$tmp/odd.list"; echo "$tmp/missing.npy"; } > "$tmp/missing.list"
for set in odd missing; do
    st=0; "$exe" -j1 --json --files-from "$tmp/$set.list" > "$tmp/direct.jsonl" || st=$?
    for r in par dask; do
        rs=0
        if [ $r = par ]; then sh "$here/parallel_validate.sh" "$exe" "$tmp/$set.list" 3 > "$tmp/$r.jsonl" 2> "$tmp/$r.err" || rs=$?
        else "$py" "$here/dask_validate.py" "$exe" "$tmp/$set.list" 3 > "$tmp/$r.jsonl" 2> "$tmp/$r.err" || rs=$?; fi
        want=1; [ $set = missing ] && want=2
        [ "$st" = "$want" ] && [ "$rs" = "$want" ] || { echo "FAIL: $set: $r status $rs, npyvalidate $st, want $want"; fail=1; }
        cmp -s "$tmp/direct.jsonl" "$tmp/$r.jsonl" || { echo "FAIL: $set: $r output differs"; head -3 "$tmp/$r.err"; fail=1; }
    done
done
grep -q '"path_bytes"' "$tmp/direct.jsonl" || { echo "FAIL: the odd name has no path_bytes"; fail=1; }
[ "$fail" = 0 ] && echo "recipes: same output and status as npyvalidate"
exit "$fail"
