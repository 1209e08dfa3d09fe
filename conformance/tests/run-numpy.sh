#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ctest: numpy must pass its own corpus, compat verdicts included.
# usage: run-numpy.sh NPYCONFORM CONFORMANCE_DIR
# Exit 77 (ctest: skipped) when /usr/bin/python3 has no numpy.
set -u
runner=$1
dir=$2
py=${NPYCONFORM_PYTHON:-/usr/bin/python3}
if ! "$py" -c 'import numpy' >/dev/null 2>&1; then
    echo "SKIP: $py cannot import numpy; the numpy adapter is not tested"
    exit 77
fi
skip=
[ -s "$dir/skips/numpy.skip" ] && skip="--skip $dir/skips/numpy.skip"
. "$(dirname "$0")/sample.sh"
sample_cases "$runner" --prefix-step 1024
set --
for c in $sampled; do set -- "$@" --run "$c"; done
# shellcheck disable=SC2086
exec "$runner" --adapter "$dir/adapters/numpy/numpy-adapter" --expect-numpy -j 2 --timeout 30 --prefix-step 1024 $skip "$@"
