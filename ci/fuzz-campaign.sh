#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The long fuzz run: every harness, libFuzzer then AFL++, each engine
# using every core, then the corpora are merged and minimised.
#
#   ci/fuzz-campaign.sh                       1 hour per harness per engine
#   FUZZ_HOURS=4 FUZZ_JOBS=8 ci/fuzz-campaign.sh
#   FUZZ_ENGINES=afl FUZZ_TARGETS=npy_file_fuzzer ci/fuzz-campaign.sh
#
# State lives in FUZZ_CAMPAIGN_DIR (default build-fuzz-campaign/) and is
# reused by the next run: corpus/<target>/ is the merged corpus, findings/
# the crashes, leaks and hangs to triage into corpus/fuzz-regressions/,
# runs.tsv one line per engine and harness run, cpu.tsv the CPU seconds
# each of those runs used (engine, harness, workers, wall s, CPU s).
# fuzz/campaign-report.sh turns them into tables (runs, exec/s, coverage,
# findings; CPU-minutes per harness and engine over every run) at the end.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
hours=${FUZZ_HOURS:-1}
secs=$(awk "BEGIN { printf \"%d\", $hours * 3600 }")
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
engines=${FUZZ_ENGINES:-libfuzzer afl}
targets=${FUZZ_TARGETS:-$(cd "$root/fuzz" && ls *_fuzzer.c | sed 's/\.c$//')}
dir=${FUZZ_CAMPAIGN_DIR:-$root/build-fuzz-campaign}
mkdir -p "$dir/findings"

# CPU seconds (user + system) of the given processes and all their
# descendants: the live ones, plus what each has reaped (utime, stime,
# cutime and cstime of /proc/PID/stat). Read just before a run is stopped,
# it is the run's CPU however many processes the engine started, restarted
# or lost to the kill. Not `ps -S -o cputimes`: procps leaves the reaped
# children out there, and AFL++ runs every input in a child its fork
# server reaps (that read 15 CPU-s where the cpuacct cgroup of the same
# processes read 30, over 30 s).
tree() { # print the given PIDs and every descendant's
    ps -e -o pid=,ppid= | awk -v roots="$*" '
        BEGIN { n = split(roots, r, " "); for (i = 1; i <= n; i++) keep[r[i]] = 1 }
        { pid[NR] = $1; par[NR] = $2 }
        END { do { more = 0
                   for (i = 1; i <= NR; i++)
                       if (!(pid[i] in keep) && (par[i] in keep)) { keep[pid[i]] = 1; more = 1 }
              } while (more)
              for (p in keep) print p }'
}
tree_cpu() {
    for p in $(tree "$@"); do cat "/proc/$p/stat" 2>/dev/null; done |
        awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, "")  # past "pid (comm) ", which may hold spaces
                                           s += $12 + $13 + $14 + $15 } END { printf "%.0f\n", s / hz }'
}

python3 "$root/fuzz/seeds.py" "$dir/seeds" >/dev/null || exit 1
for t in $targets; do
    mkdir -p "$dir/corpus/$t"
    "$root/fuzz/dict.sh" "$t" >"$dir/$t.dict"
    cp -n "$dir/seeds/$t"/* "$dir/corpus/$t/" 2>/dev/null
done

for e in $engines; do
    "$root/fuzz/build.sh" "$e" "$root/build-fuzz-$e" >"$dir/build-$e.log" 2>&1 ||
        { echo "fuzz-campaign: $e build failed, see $dir/build-$e.log"; exit 1; }
done

for e in $engines; do
    for t in $targets; do
        # hdf5_walk_fuzzer is built only where libhdf5's headers are
        case $e in libfuzzer) b=$root/build-fuzz-libfuzzer/fuzz/$t ;; *) b=$root/build-fuzz-afl/fuzz/${t}_afl ;; esac
        [ -x "$b" ] || { echo "fuzz-campaign: $e $t: not built, skipped"; continue; }
        echo "fuzz-campaign: $e $t: $jobs workers for $secs s ($(date))"
        printf '%s\t%s\t%s\t%s\t%s\n' "$e" "$t" "$jobs" "$secs" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$dir/runs.tsv"
        case $e in
        libfuzzer)
            bin=$root/build-fuzz-libfuzzer/fuzz/$t
            run=$dir/libfuzzer-$t
            rm -rf "$run" && mkdir -p "$run/new"
            # -jobs: restarted after each finding; the wall clock is bounded
            # here, and the CPU read over the whole process tree before the stop.
            # libhdf5 leaks on some malformed files by itself (see fuzz-smoke.sh)
            # and those leaks add up to the RSS limit within minutes: each job
            # of that harness ends after 20000 inputs and a fresh one starts
            leaks=; runs=
            [ "$t" = hdf5_walk_fuzzer ] && { leaks="env ASAN_OPTIONS=detect_leaks=0"; runs=-runs=20000; }
            # shellcheck disable=SC2086
            (cd "$run" && exec $leaks "$bin" -jobs=$((jobs * 1000)) -workers="$jobs" -timeout=25 $runs \
                -print_final_stats=1 -rss_limit_mb=2560 -dict="$dir/$t.dict" -artifact_prefix="$dir/findings/libfuzzer-$t-" \
                "$run/new" "$dir/corpus/$t" >/dev/null 2>&1) &
            lead=$!
            sleep "$secs"
            cpu=$(tree_cpu "$lead")
            all=$(tree "$lead")
            kill -TERM $all 2>/dev/null
            # a worker inside a long library call does not reach its handler
            sleep 5
            kill -KILL $all 2>/dev/null
            wait "$lead" 2>/dev/null
            printf '%s\t%s\t%s\t%s\t%s\n' "$e" "$t" "$jobs" "$secs" "$cpu" >>"$dir/cpu.tsv"
            # Merge what was found into the corpus, keeping only inputs that add coverage.
            mkdir -p "$run/merged"
            "$bin" -merge=1 -timeout=25 -rss_limit_mb=2560 "$run/merged" "$dir/corpus/$t" "$run/new" \
                >"$run/merge.log" 2>&1 && { rm -rf "$dir/corpus/$t"; mv "$run/merged" "$dir/corpus/$t"; }
            ;;
        afl)
            bin=$root/build-fuzz-afl/fuzz/${t}_afl
            # see fuzz-smoke.sh: not in AFL++'s persistent mode
            [ "$t" = hdf5_walk_fuzzer ] && continue
            out=$dir/afl-$t
            export AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_AUTORESUME=1
            pids=""
            # Main: ASan build with CmpLog; secondaries vary power schedule and mutators.
            afl-fuzz -M main -i "$dir/corpus/$t" -o "$out" -x "$dir/$t.dict" -c "${bin}_cmplog" -l 2AT \
                -m none -t 2000+ -- "$bin" >"$out.main.log" 2>&1 &
            pids="$pids $!"
            k=1
            while [ $k -lt "$jobs" ]; do
                case $((k % 4)) in
                1) extra="-p explore" ;;
                2) extra="-p exploit -c ${bin}_cmplog" ;;
                3) extra="-L 0" ;;
                *) extra="-p rare" ;;
                esac
                afl-fuzz -S "s$k" -i "$dir/corpus/$t" -o "$out" -x "$dir/$t.dict" $extra \
                    -m none -t 2000+ -- "$bin" >"$out.s$k.log" 2>&1 &
                pids="$pids $!"
                k=$((k + 1))
            done
            sleep "$secs"
            cpu=$(tree_cpu $pids)
            for p in $pids; do kill -INT "$p" 2>/dev/null; done
            for p in $pids; do wait "$p" 2>/dev/null; done
            # afl-fuzz can leave its CmpLog fork server stopped behind it.
            pkill -KILL -xf "${bin}_cmplog" 2>/dev/null
            printf '%s\t%s\t%s\t%s\t%s\n' "$e" "$t" "$jobs" "$secs" "$cpu" >>"$dir/cpu.tsv"
            for f in "$out"/*/crashes/id:* "$out"/*/hangs/id:*; do
                [ -f "$f" ] && cp "$f" "$dir/findings/afl-$t-$(basename "$(dirname "$(dirname "$f")")")-$(basename "$(dirname "$f")")-$(basename "$f" | cut -d, -f1)"
            done
            # Minimise every instance's queue plus the old corpus into the new corpus.
            mkdir -p "$out/all"
            cp "$dir/corpus/$t"/* "$out/all/" 2>/dev/null
            for q in "$out"/*/queue; do
                for f in "$q"/id:*; do [ -f "$f" ] && cp "$f" "$out/all/$(basename "$(dirname "$q")")-$(basename "$f" | cut -d, -f1)"; done
            done
            rm -rf "$out/cmin"
            AFL_NO_UI=1 afl-cmin -m none -t 5000 -i "$out/all" -o "$out/cmin" -- "$bin" @@ >"$out.cmin.log" 2>&1 &&
                { rm -rf "$dir/corpus/$t"; mv "$out/cmin" "$dir/corpus/$t"; }
            ;;
        esac
        echo "fuzz-campaign: $e $t: corpus $(ls "$dir/corpus/$t" | wc -l) inputs"
    done
done

"$root/fuzz/campaign-report.sh" "$dir"
n=$(ls "$dir/findings" | wc -l)
echo "fuzz-campaign: done, $n findings in $dir/findings"
[ "$n" = 0 ]
