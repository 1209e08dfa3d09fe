#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Summarises a ci/fuzz-campaign.sh directory: for every engine and harness
# run in it, the workers, the wall time, the executions, the executions per
# second, the coverage the engine saw and the findings. With a coverage
# build (ci/coverage.sh, which leaves <target>_replay drivers compiled with
# source-based coverage), it also gives the parser/src line and branch
# coverage that each harness's merged corpus reaches on its own.
#
#   fuzz/campaign-report.sh [CAMPAIGN_DIR] [COVERAGE_BUILD_DIR]
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build-fuzz-campaign}
cov=${2:-$root/build-coverage}
[ -d "$dir" ] || { echo "campaign-report: no campaign in $dir" >&2; exit 2; }

echo "| engine | harness | workers | wall s | runs | exec/s (all workers) | engine coverage | findings |"
echo "|---|---|---|---|---|---|---|---|"

for out in "$dir"/afl-*/; do
    [ -d "$out" ] || continue
    t=$(basename "$out"); t=${t#afl-}
    n=$(ls "$dir/findings" 2>/dev/null | grep -c "^afl-$t-")
    # One fuzzer_stats per instance; edges and map cover are the best instance's.
    cat "$out"/*/fuzzer_stats 2>/dev/null | awk -v t="$t" -v n="$n" -F' *: *' '
        $1 == "run_time" { w++; if ($2 > wall) wall = $2 }
        $1 == "execs_done" { runs += $2 }
        $1 == "execs_per_sec" { eps += $2 }
        $1 == "edges_found" && $2 > edges { edges = $2 }
        $1 == "total_edges" { total = $2 }
        $1 == "bitmap_cvg" { c = $2; sub(/%/, "", c); if (c + 0 > cvg) cvg = c + 0 }
        END { if (w) printf "| AFL++ | %s | %d | %d | %.1f M | %.1f k | %d/%d edges (%.2f%% map) | %d |\n",
                t, w, wall, runs / 1e6, eps / 1e3, edges, total, cvg, n }'
done

for run in "$dir"/libfuzzer-*/; do
    [ -d "$run" ] || continue
    t=$(basename "$run"); t=${t#libfuzzer-}
    n=$(ls "$dir/findings" 2>/dev/null | grep -c "^libfuzzer-$t-")
    wall=$(awk -v t="$t" '$1 == "libfuzzer" && $2 == t { s = $4 } END { print s + 0 }' "$dir/runs.tsv" 2>/dev/null)
    # Each worker's log: the final stats (or, if it died, the last status
    # line) give its runs; the last status line its cov and ft.
    for log in "$run"/fuzz-*.log; do
        [ -f "$log" ] && awk '
            /^#[0-9]+/ { r = substr($1, 2); line = $0 }
            /^stat::number_of_executed_units:/ { final = $2 }
            END { if (line != "") print (final != "" ? final : r), line }' "$log"
    done | awk -v t="$t" -v n="$n" -v wall="$wall" '
        { w++; runs += $1
          for (i = 3; i < NF; i++) {
              if ($i == "cov:" && $(i + 1) > cov) cov = $(i + 1)
              if ($i == "ft:" && $(i + 1) > ft) ft = $(i + 1)
          } }
        END { if (w) printf "| libFuzzer | %s | %d | %d | %.1f M | %.1f k | %d cov, %d ft | %d |\n",
                t, w, wall, runs / 1e6, wall ? runs / wall / 1e3 : 0, cov, ft, n }'
done

# CPU-minutes per engine and harness over every run recorded in this
# directory (ci/fuzz-campaign.sh writes cpu.tsv; older runs have no line).
if [ -s "$dir/cpu.tsv" ]; then
    echo
    echo "| engine | harness | runs | wall minutes | CPU minutes |"
    echo "|---|---|---|---|---|"
    sort -k1,1 -k2,2 "$dir/cpu.tsv" | awk -F'\t' '
        { k = $1 "\t" $2; n[k]++; wall[k] += $4 / 60; cpu[k] += $5 / 60; if (!(k in seen)) { seen[k] = 1; order[++m] = k } }
        END { for (i = 1; i <= m; i++) { k = order[i]; split(k, a, "\t")
                  printf "| %s | %s | %d | %.1f | %.1f |\n", a[1] == "afl" ? "AFL++" : "libFuzzer", a[2], n[k], wall[k], cpu[k] } }'
fi

# The slowest input of each merged corpus, timed by the replay drivers of a
# build without sanitizers (REPLAY_BUILD, default build/release): a slow
# unit, an input of 10 KB or less taking over 10 ms, is a finding.
replay=${REPLAY_BUILD:-$root/build/release}/fuzz
if [ -d "$replay" ]; then
    echo
    echo "| harness | corpus inputs | slowest input (best of 3) | its size | slow units (≤ 10 KB, > 10 ms) |"
    echo "|---|---|---|---|---|"
    for c in "$dir"/corpus/*/; do
        t=$(basename "$c")
        [ -x "$replay/${t}_replay" ] || continue
        "$replay/${t}_replay" -t 30 -s 1 "$c" 2>/dev/null | awk -v t="$t" -v k="$(ls "$c" | wc -l)" '
            /^slowest:/ { ms = $2; b = $4 }
            /^slow units/ { n = $NF }
            END { printf "| %s | %d | %s ms | %s bytes | %s |\n", t, k, ms, b, n }'
    done
fi

# Source coverage of each harness's corpus alone, through its replay driver.
[ -d "$cov/fuzz" ] || exit 0
major=$(clang -dumpversion 2>/dev/null | cut -d. -f1)
pick() { for c in "$1-$major" "$1"; do command -v "$c" >/dev/null 2>&1 && { echo "$c"; return 0; }; done; return 1; }
profdata=$(pick llvm-profdata) && llvmcov=$(pick llvm-cov) || exit 0
echo
echo "| harness | corpus inputs | parser/src lines | parser/src branches |"
echo "|---|---|---|---|"
objs="" profs=""
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
for c in "$dir"/corpus/*/; do
    t=$(basename "$c")
    bin=$cov/fuzz/${t}_replay
    [ -x "$bin" ] || continue
    rm -f "$tmp"/*.profraw
    LLVM_PROFILE_FILE="$tmp/%p.profraw" "$bin" -t 30 "$c" >/dev/null 2>&1
    "$profdata" merge -sparse "$tmp"/*.profraw -o "$tmp/$t.profdata" 2>/dev/null || continue
    "$llvmcov" report "$bin" -instr-profile="$tmp/$t.profdata" "$root"/parser/src/*.c 2>/dev/null |
        awk -v t="$t" -v k="$(ls "$c" | wc -l)" '/^TOTAL/ { printf "| %s | %d | %s | %s |\n", t, k, $10, $13 }'
    objs="$objs -object $bin"
    profs="$profs $tmp/$t.profdata"
done
# All the corpora together (each harness reaches different code: zip.c only from npz_fuzzer).
[ -n "${profs:-}" ] || exit 0
"$profdata" merge -sparse $profs -o "$tmp/all.profdata" &&
    "$llvmcov" report ${objs# -object } -instr-profile="$tmp/all.profdata" "$root"/parser/src/*.c 2>/dev/null |
    awk '/^TOTAL/ { printf "| all harnesses | | %s | %s |\n", $10, $13 }'
