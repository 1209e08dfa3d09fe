# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the adapter tests. With NPYCONFORM_SAMPLE=N set, $sampled
# holds every N-th case of the suite (the first, the (N+1)-th, ...; every
# group), which the caller runs with one --run NAME each, so that a slow
# adapter (an interpreter started per case) fits a CI budget; unset, it
# is empty and the whole suite runs. Skip lines of cases not run are not
# stale. ci/test.sh sets it; the published results (make-results.sh) run
# every case.
#   sample_cases RUNNER [LIST OPTIONS...]
sample_cases() {
    _runner=$1
    shift
    sampled=
    [ -n "${NPYCONFORM_SAMPLE:-}" ] || return 0
    case $NPYCONFORM_SAMPLE in *[!0-9]* | 0) echo "NPYCONFORM_SAMPLE must be a positive integer" >&2; exit 2 ;; esac
    sampled=$("$_runner" list "$@" | awk -F'\t' -v n="$NPYCONFORM_SAMPLE" '(NR - 1) % n == 0 { print $2 }') || exit 2
    echo "every ${NPYCONFORM_SAMPLE}th case: $(echo "$sampled" | wc -l) cases"
}
