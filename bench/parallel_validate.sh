#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Validation of many files over GNU parallel: the path list is cut into one
# block per job slot (--pipe-part), each block goes to one
# `npyvalidate -j1 --json --files-from -`, and the JSON Lines are kept in
# input order (--keep-order).
#
#   bench/parallel_validate.sh NPYVALIDATE LIST [JOBS] > out.jsonl
#
# Exit status: npyvalidate's, the worst of the blocks: 0 every file valid,
# 1 some file invalid, 2 an I/O or usage error (or a block that died or
# that parallel could not run). parallel's own status counts the failed
# blocks, which would read as npyvalidate's 2 on any mixed set, so the
# blocks' statuses come from its job log instead.
set -eu
exe=$1 list=$2 jobs=${3:-2}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/npyguard-parallel-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
ps=0
parallel --will-cite --joblog "$tmp/log" --pipe-part -a "$list" --block -1 -j "$jobs" --keep-order \
    "$exe" -j1 --json --files-from - || ps=$?
# joblog columns: Seq Host Starttime JobRuntime Send Receive Exitval Signal Command
worst=$(awk -F'\t' 'NR > 1 { s = ($8 != 0 || $7 > 2) ? 2 : $7; if (s > w) w = s; n++ }
                    END { print (n ? w + 0 : -1) }' "$tmp/log")
# parallel failing without a block to blame (255, a bad option): an error
if [ "$worst" -lt 0 ] || { [ "$ps" -ne 0 ] && [ "$worst" -eq 0 ]; }; then
    [ -s "$list" ] || exit 0
    exit 2
fi
exit "$worst"
