#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Validation of many files over GNU parallel: the path list is cut into one
# block per job slot (--pipe-part), each block goes to one
# `npyvalidate -j1 --json --files-from -`, and the JSON Lines are kept in
# input order (--keep-order).
#
#   bench/parallel_validate.sh NPYVALIDATE LIST [JOBS] > out.jsonl
#
# Exit status: parallel's, the number of blocks whose npyvalidate failed
# (0 when every file is valid).
set -eu
exe=$1 list=$2 jobs=${3:-2}
exec parallel --will-cite --pipe-part -a "$list" --block -1 -j "$jobs" --keep-order \
    "$exe" -j1 --json --files-from -
