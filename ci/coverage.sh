#!/bin/sh
# Line and branch coverage of parser/src from the unit tests (ctest), the
# fuzz regression corpus and the fuzz seeds, with clang's source-based
# coverage (llvm-profdata + llvm-cov). Prints the totals, each file, and the
# least-covered functions; fails below COVERAGE_MIN_LINES percent of lines
# (default 95) or, if set, COVERAGE_MIN_BRANCHES percent of branches.
#
#   ci/coverage.sh                 -> build-coverage/, report in build-coverage/coverage/
#   COVERAGE_MIN_LINES=90 ci/coverage.sh
#   COVERAGE_EXTRA_INPUTS=dir ci/coverage.sh   (e.g. a fuzz campaign corpus)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${COVERAGE_BUILD_DIR:-$root/build-coverage}
min_lines=${COVERAGE_MIN_LINES:-95}
min_branches=${COVERAGE_MIN_BRANCHES:-0}
cc=${COVERAGE_CC:-clang}

command -v "$cc" >/dev/null 2>&1 || { echo "coverage: $cc not found (needs clang)"; exit 2; }
major=$("$cc" -dumpversion | cut -d. -f1)
pick() { for n in "$1-$major" "$1"; do command -v "$n" >/dev/null 2>&1 && { echo "$n"; return 0; }; done; return 1; }
profdata=$(pick llvm-profdata) || { echo "coverage: llvm-profdata not found"; exit 2; }
llvmcov=$(pick llvm-cov) || { echo "coverage: llvm-cov not found"; exit 2; }

flags="-fprofile-instr-generate -fcoverage-mapping -O0 -g"
cmake -S "$root" -B "$dir" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fprofile-instr-generate" \
    -DNPYG_WERROR=OFF >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; exit 2; }
cmake --build "$dir" -j"${JOBS:-2}" >"$dir.build.log" 2>&1 || { tail -30 "$dir.build.log"; exit 2; }

prof=$dir/coverage/profraw
rm -rf "$dir/coverage"
mkdir -p "$prof"
export LLVM_PROFILE_FILE="$prof/%p-%m.profraw"

# 1. the unit tests and the corpus replays that ctest runs
(cd "$dir" && ctest --output-on-failure -j"${JOBS:-2}" >"$dir/coverage/ctest.log" 2>&1)
ctest_rc=$?
[ $ctest_rc = 0 ] || echo "coverage: note: ctest failed (see $dir/coverage/ctest.log); counting what ran"

# 2. fuzz regressions and seeds (seeds carry the harness trailer), and any extra inputs
seeds=$dir/coverage/seeds
python3 "$root/fuzz/seeds.py" "$seeds" >/dev/null 2>&1 || mkdir -p "$seeds"
for bin in "$dir"/fuzz/*_fuzzer_replay; do
    t=$(basename "$bin" _replay)
    # One process per input, so that an input that aborts (an open finding)
    # does not keep the rest from counting.
    find "$root/corpus/fuzz-regressions" "$seeds/$t" ${COVERAGE_EXTRA_INPUTS:+"$COVERAGE_EXTRA_INPUTS/$t"} \
        -type f ! -name '*.md' 2>/dev/null | while read -r f; do
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
echo "== least-covered functions (by lines; file: function lines missed/total)"
awk '
    /^File / { file = $2; sub(".*/", "", file) }
    NF >= 10 && $1 !~ /^(Name|TOTAL|File|-)/ && $0 !~ /^-/ {
        # Name Regions Miss Cover Lines Miss Cover Branches Miss Cover
        n = NF; lc = $(n-3); lm = $(n-4); lt = $(n-5)
        if (lt ~ /^[0-9]+$/ && lm > 0) printf "%s\t%s: %s\t%d/%d\n", lc, file, $1, lm, lt
    }' "$dir/coverage/functions.txt" | sort -n | head -"${COVERAGE_SHOW_FUNCTIONS:-15}" |
    awk -F'\t' '{ printf "  %-8s %-45s missed %s lines\n", $1, $2, $3 }'
echo
echo "coverage: lines ${lines}% (minimum ${min_lines}%), branches ${branches}%${min_branches:+ (minimum ${min_branches}%)}"
echo "coverage: html report in $dir/coverage/html/index.html"

fail=0
awk "BEGIN { exit !($lines < $min_lines) }" && { echo "coverage: FAIL: line coverage below ${min_lines}%"; fail=1; }
awk "BEGIN { exit !($branches < $min_branches) }" && { echo "coverage: FAIL: branch coverage below ${min_branches}%"; fail=1; }
exit $fail
