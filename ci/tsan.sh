#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# npyvalidate's worker pool under ThreadSanitizer: the whole corpus with
# -j 4 and -j 16, text and JSON with hashes. Fails on any race report, on
# an exit status other than -j 1's, or if the output differs from -j 1's
# (output stays in input order whatever the job count).
#
#   ci/tsan.sh        -> build/tsan/ (cmake --preset tsan)
#
# The preset builds without libhdf5: the HDF5 scan forks a child from the
# threaded process and runs libhdf5 there without exec, which
# ThreadSanitizer's runtime does not support (the child hangs or exits
# with TSan's status). HDF5 files then get NPYG_EHDF5_UNAVAILABLE at every
# job count, and the pool that this run checks is the same.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
cmake --preset tsan >/dev/null || exit 2
cmake --build --preset tsan -j"${JOBS:-2}" >/dev/null || { echo "tsan: build failed"; exit 2; }
bin=$root/build/tsan/parser/npyvalidate
work=$(mktemp -d "${TMPDIR:-/tmp}/npyguard-tsan.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1"
fail=0
for mode in "--hash" "--json --hash"; do
    # shellcheck disable=SC2086 # mode is two words on purpose
    "$bin" -r $mode -j 1 corpus >"$work/ref" 2>"$work/ref.err"
    ref_rc=$?
    # 2 is expected here: without libhdf5 the HDF5 files are an I/O verdict.
    if [ $ref_rc -gt 2 ]; then echo "tsan: FAIL: -j 1 $mode exits $ref_rc"; head -40 "$work/ref.err"; fail=1; fi
    for j in 4 16; do
        "$bin" -r $mode -j "$j" corpus >"$work/out" 2>"$work/err"
        rc=$?
        if [ $rc != $ref_rc ]; then echo "tsan: FAIL: -j $j $mode exits $rc, -j 1 exits $ref_rc"; head -40 "$work/err"; fail=1
        elif grep -q "ThreadSanitizer" "$work/err"; then echo "tsan: FAIL: -j $j $mode:"; head -40 "$work/err"; fail=1
        elif ! cmp -s "$work/ref" "$work/out"; then echo "tsan: FAIL: -j $j $mode differs from -j 1"; fail=1
        else echo "tsan: -j $j $mode: $(wc -l <"$work/out") lines, no race, same as -j 1"; fi
    done
done
exit $fail
