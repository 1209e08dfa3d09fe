#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ctest: npyguard's own adapter over the whole suite, against its skip list.
# NPYCONFORM_SAMPLE_NPYGUARD=N runs every N-th case only (sample.sh): the
# sanitizer passes of CI set it, where each case starts an instrumented
# npyvalidate; the release pass runs every case.
# usage: run-npyguard.sh NPYCONFORM ADAPTER SKIPFILE
set -u
runner=$1
adapter=$2
skip=$3
. "$(dirname "$0")/sample.sh"
NPYCONFORM_SAMPLE=${NPYCONFORM_SAMPLE_NPYGUARD:-}
sample_cases "$runner"
set --
for c in $sampled; do set -- "$@" --run "$c"; done
exec "$runner" --adapter "$adapter" -j 2 --timeout 10 --skip "$skip" "$@"
