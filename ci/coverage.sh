#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Line and branch coverage of parser/src from the unit tests (ctest), the
# fuzz regression corpus and the fuzz seeds, with clang's source-based
# coverage (llvm-profdata + llvm-cov). Prints the totals, each file, and the
# least-covered functions; fails below COVERAGE_MIN_LINES percent of lines
# (default 99) or COVERAGE_MIN_BRANCHES percent of branches (default 97;
# measured 99.83% and 98.88% when the gate was set).
#
#   ci/coverage.sh                 -> build-coverage/, report in build-coverage/coverage/
#   COVERAGE_MIN_LINES=90 ci/coverage.sh
#   COVERAGE_EXTRA_INPUTS=dir ci/coverage.sh   (e.g. a fuzz campaign corpus)
#   COVERAGE_BUILD_DIR=build/asan-coverage COVERAGE_CTEST_DONE=1 ci/coverage.sh
#       counts the profiles a ctest run of an instrumented build has already
#       written to DIR/coverage/profraw (ci/test.sh: the asan-coverage
#       preset, so that the sanitizer pass and the coverage pass are one)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${COVERAGE_BUILD_DIR:-$root/build-coverage}
min_lines=${COVERAGE_MIN_LINES:-99}
min_branches=${COVERAGE_MIN_BRANCHES:-97}
cc=${COVERAGE_CC:-clang}

command -v "$cc" >/dev/null 2>&1 || { echo "coverage: $cc not found (needs clang)"; exit 2; }
major=$("$cc" -dumpversion | cut -d. -f1)
pick() { for n in "$1-$major" "$1"; do command -v "$n" >/dev/null 2>&1 && { echo "$n"; return 0; }; done; return 1; }
profdata=$(pick llvm-profdata) || { echo "coverage: llvm-profdata not found"; exit 2; }
llvmcov=$(pick llvm-cov) || { echo "coverage: llvm-cov not found"; exit 2; }

prof=$dir/coverage/profraw
if [ -n "${COVERAGE_CTEST_DONE:-}" ]; then
    [ -d "$prof" ] || { echo "coverage: no profiles in $prof"; exit 2; }
    rm -rf "$dir/coverage/seeds" "$dir/coverage/html"
else
    flags="-fprofile-instr-generate -fcoverage-mapping -O0 -g"
    mkdir -p "$dir"
    cmake -S "$root" -B "$dir" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Debug \
        -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fprofile-instr-generate" \
        -DNPYG_WERROR=OFF >"$dir/configure.log" 2>&1 || { cat "$dir/configure.log"; exit 2; }
    cmake --build "$dir" -j"${JOBS:-2}" >"$dir/build.log" 2>&1 || { tail -30 "$dir/build.log"; exit 2; }

    rm -rf "$dir/coverage"
    mkdir -p "$prof"
    # cli_gate runs npyvalidate as an unprivileged user (root reads every
    # directory): its profile must be writable by that user too.
    chmod 1777 "$prof"
fi
export LLVM_PROFILE_FILE="$prof/%p-%m.profraw"

# 1. the unit tests and the corpus replays that ctest runs
# The numpy and npm adapter runs exercise Python and Node, the broken
# adapters are shell scripts, the release and CI-recipe tests run a
# release artifact, the HDF5 differential seed spends its time in h5py and
# hdf5storage, and the install test builds its own copy: none runs this
# build of parser/src.
if [ -z "${COVERAGE_CTEST_DONE:-}" ]; then
    (cd "$dir" && ctest --output-on-failure -j"${JOBS:-2}" -E "${COVERAGE_CTEST_EXCLUDE:-conformance\.(numpy|npyjs|broken-adapters|read-npy-file|tfjs-npy|release)|install_consumers|fuzz_hdf5_differential_smoke}" \
        >"$dir/coverage/ctest.log" 2>&1)
    ctest_rc=$?
    [ $ctest_rc = 0 ] || { echo "coverage: note: ctest failed (see $dir/coverage/ctest.log); counting what ran";
        sed -n '/tests FAILED/,$p' "$dir/coverage/ctest.log" | sed 's/^/  /'; }
fi

# 2. fuzz regressions and seeds (seeds carry the harness trailer), and any extra inputs
seeds=$dir/coverage/seeds
python3 "$root/fuzz/seeds.py" "$seeds" >/dev/null 2>&1 || mkdir -p "$seeds"
for bin in "$dir"/fuzz/*_fuzzer_replay; do
    t=$(basename "$bin" _replay)
    # One process for all, and when an input aborts (an open finding) one
    # process per input, so that it does not keep the rest from counting.
    set -- "$root/corpus/fuzz-regressions" "$seeds/$t"
    [ -z "${COVERAGE_EXTRA_INPUTS:-}" ] || set -- "$@" "$COVERAGE_EXTRA_INPUTS/$t"
    "$bin" -t 30 "$@" >/dev/null 2>&1 && continue
    find "$@" -type f ! -name '*.md' 2>/dev/null | while read -r f; do
        "$bin" -t 30 "$f" >/dev/null 2>&1 || echo "coverage: note: $t fails on $f"
    done
done

"$profdata" merge -sparse "$prof"/*.profraw -o "$dir/coverage/all.profdata" || exit 2
objs=""
for b in $(find "$dir" -path "$dir/coverage" -prune -o -type f -perm -u+x -print | grep -v CMakeFiles); do
    objs="$objs -object $b"
done
objs=${objs# -object }
srcs=$(ls "$root"/parser/src/*.c)

"$llvmcov" report $objs -instr-profile="$dir/coverage/all.profdata" $srcs >"$dir/coverage/report.txt" || exit 2
"$llvmcov" report -show-functions $objs -instr-profile="$dir/coverage/all.profdata" $srcs \
    >"$dir/coverage/functions.txt" 2>/dev/null
"$llvmcov" show -format=html -output-dir="$dir/coverage/html" $objs \
    -instr-profile="$dir/coverage/all.profdata" $srcs >/dev/null 2>&1

echo "== coverage of parser/src (regions, functions, lines, branches)"
sed 's/^/  /' "$dir/coverage/report.txt"

# TOTAL row: Regions Missed Cover Functions Missed Executed Lines Missed Cover Branches Missed Cover
total=$(grep '^TOTAL' "$dir/coverage/report.txt")
lines=$(echo "$total" | awk '{ print $10 }' | tr -d %)
branches=$(echo "$total" | awk '{ print $13 }' | tr -d %)
echo
echo "== least-covered functions (line cover, branch cover, missed lines and branches)"
awk '
    /^File / { file = $2; gsub(/[\047:]/, "", file); sub(".*/", "", file) }
    $1 !~ /^(Name|TOTAL|File)$/ && $1 !~ /^-/ && NF == 10 && $5 ~ /^[0-9]+$/ {
        name = $1; if (name !~ /:/) name = file ":" name
        bc = $10; if (bc == "-") bc = "100.00%"
        if ($6 > 0 || $9 > 0)
            printf "%s\t%s\t%s\t%s\t%d/%d\t%d/%d\n", $7, bc, name, "", $6, $5, $9, $8
    }' "$dir/coverage/functions.txt" | sort -t"$(printf '\t')" -k1,1n -k2,2n | head -"${COVERAGE_SHOW_FUNCTIONS:-15}" |
    awk -F'\t' '{ printf "  %-34s lines %-8s branches %-8s missed %s lines, %s branches\n", $3, $1, $2, $5, $6 }'
echo
echo "coverage: lines ${lines}% (minimum ${min_lines}%), branches ${branches}%${min_branches:+ (minimum ${min_branches}%)}"
echo "coverage: html report in $dir/coverage/html/index.html"

fail=0
awk "BEGIN { exit !($lines < $min_lines) }" && { echo "coverage: FAIL: line coverage below ${min_lines}%"; fail=1; }
awk "BEGIN { exit !($branches < $min_branches) }" && { echo "coverage: FAIL: branch coverage below ${min_branches}%"; fail=1; }
exit $fail
