#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ctest: the suite must fail a broken adapter, name its failures, enforce
# the timeout (killing the adapter's whole process group), write every
# report format, and honour skip files (adoption and ratchet).
# usage: run-broken.sh NPYCONFORM CONFORMANCE_DIR
set -u
runner=$1
dir=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/npyconform-broken.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
adapter="$dir/tests/broken-adapter.sh"
export BROKEN_PIDFILE="$tmp/hang.pid"
fails=0
# The per-case time limit of the runs below. Only the hanging case may hit
# it: on a loaded machine a shell adapter can take over a second to start,
# and a limit of 1 s then made quick cases time out in one run and pass in
# the next (a skip file written by one run was stale in the next).
to=5

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect_rc() { # expected actual what
    [ "$1" = "$2" ] || fail "$3: exit status $2, expected $1"
}
expect_line() { # file fixed-string
    grep -F -q -- "$2" "$1" || fail "no line with '$2' in $(basename "$1")"
}

# Counts come from the manifests (and, for the prefix group, from the
# runner's --list), never from numbers written here.
counts=$(python3 - "$dir/../corpus" <<'PY'
import json, sys
root = sys.argv[1]
files = json.load(open(root + "/manifest.json"))["files"]
n = {}
for e in files.values():
    n[e["group"]] = n.get(e["group"], 0) + 1
z = json.load(open(root + "/npz/manifest.json"))["files"]
def climbs(name):
    parts = name.replace("\\", "/").split("/")
    return name[:1] in "/\\" or (len(name) > 1 and name[1] == ":") or ".." in parts
r = json.load(open(root + "/ra/manifest.json"))["files"]
rbad = sum(1 for e in r.values() if e["group"] == "invalid")
print(n["valid"], n["invalid"], n["unsafe"], n["compat"], len(z), len(r), rbad)
PY
) || { echo "FAIL: cannot count the manifests' cases (python3)"; exit 1; }
set -- $counts
nvalid=$1 ninvalid=$2 nunsafe=$3 ncompat=$4 nnpz=$5 nra=$6 nrabad=$7
nprefix=$("$runner" --adapter true --list --only prefix | wc -l)
[ "$nprefix" -gt 0 ] || fail "the prefix group is empty"
row() { printf '%-8s %4d cases: %4d passed, %4d failed' "$1" "$2" "$3" "$4"; }
vfail=8    # the valid cases broken-adapter.sh gets wrong on purpose (no BROKEN_HOG)
total=$((nvalid + ninvalid + nunsafe + ncompat + nnpz + nprefix))
tfail=$((vfail + ninvalid + nunsafe + 1 + nnpz + nprefix))

# 1. text report
start=$(date +%s)
"$runner" --adapter "sh $adapter" -j 2 --timeout $to > "$tmp/text" 2>&1
rc=$?
end=$(date +%s)
expect_rc 1 $rc "broken adapter"
grep -F "FAIL invalid/version-4.0.npy: crash: " "$tmp/text" | grep -F -q "killed by SIGSEGV" ||
    fail "the SIGSEGV of invalid/version-4.0.npy is not reported as a crash"
expect_line "$tmp/text" "FAIL valid/f8-le-1d-C-v1.npy: timeout: timed out after $to s"
expect_line "$tmp/text" "FAIL valid/i4-le-1d-C-v1.npy: bad-output: output is not JSON"
expect_line "$tmp/text" "FAIL valid/f4-le-1d-C-v1.npy: crash: exit status 3"
expect_line "$tmp/text" "stderr:   internal error"
expect_line "$tmp/text" "FAIL valid/f8-be-1d-C-v1.npy: accepted, but read the header or payload differently"
expect_line "$tmp/text" "differs: shape: expected [7], got [8]"
expect_line "$tmp/text" 'FAIL unsafe/obj-toplevel-v1.npy: bad-output: exit status 1 with "ok": true'
expect_line "$tmp/text" "FAIL invalid/magic-92.npy: accepted an invalid file"
expect_line "$tmp/text" "FAIL unsafe/obj-os-system-v1.npy: accepted an unsafe (pickle) file"
# gaps of suite 1.0.0, each now a failure of its own kind
expect_line "$tmp/text" "FAIL valid/u1-na-1d-C-v1.npy: bad-output: no output (expected one JSON line); exit status 1, no signal"
expect_line "$tmp/text" "stderr:   ==1==ERROR: AddressSanitizer"
expect_line "$tmp/text" "FAIL compat/no-trailing-comma-v1.npy: accepted (numpy: accept), but read the header or payload differently from numpy"
expect_line "$tmp/text" "differs: shape: expected [2], got [99]"
# answers the protocol does not allow are the adapter's error, not a reading
expect_line "$tmp/text" 'FAIL valid/i8-le-1d-C-v1.npy: bad-output: ambiguous answer: "shape" without "fortran_order"'
expect_line "$tmp/text" 'FAIL valid/u2-le-1d-C-v1.npy: bad-output: ambiguous answer: "shape": shape is not a list'
expect_line "$tmp/text" 'FAIL valid/c8-le-1d-C-v1.npy: bad-output: "error_class" "unsupported" is not one of magic,'
# a 2-D prefix base (suite 1.2.0): the data offset of a v1 2-D file
expect_line "$tmp/text" "FAIL prefix/valid/f8-le-2d-C-v1.npy@128: accepted a strict prefix"
expect_line "$tmp/text" "FAIL prefix/valid/f8-le-1d-C-v1.npy@96: accepted a strict prefix (a truncated copy) of a valid file"
expect_line "$tmp/text" "FAIL npz/compat/name-dotdot.npz: accepted an archive with a member name that climbs out of its directory"
expect_line "$tmp/text" "FAIL npz/compat/name-absolute.npz: accepted an archive with a member name that climbs"
expect_line "$tmp/text" "FAIL npz/invalid/crc-wrong.npz: accepted an invalid archive"
expect_line "$tmp/text" "FAIL npz/valid/savez-several.npz: accepted, but read the header or payload differently"
expect_line "$tmp/text" "differs: members: missing or not a list"
expect_line "$tmp/text" "$(row invalid "$ninvalid" 0 "$ninvalid")"
expect_line "$tmp/text" "$(row unsafe "$nunsafe" 0 "$nunsafe")"
expect_line "$tmp/text" "$(row valid "$nvalid" $((nvalid - vfail)) $vfail)"
expect_line "$tmp/text" "$(row compat "$ncompat" $((ncompat - 1)) 1)"
# an accepted archive must list its members: this adapter lists none
expect_line "$tmp/text" "$(row npz "$nnpz" 0 "$nnpz")"
expect_line "$tmp/text" "$(row prefix "$nprefix" 0 "$nprefix")"
expect_line "$tmp/text" "$(row total "$total" $((total - tfail)) $tfail)"
expect_line "$tmp/text" "never reported, so not checked: payload_sha256, itemsize"
expect_line "$tmp/text" "result: FAIL"
[ $((end - start)) -lt 300 ] || fail "the run took $((end - start)) s: the hang was not cut short"
alive() { # a zombie (nobody reaps orphans in some containers) counts as dead
    kill -0 "$1" 2>/dev/null || return 1
    case $(ps -o stat= -p "$1" 2>/dev/null) in Z*) return 1 ;; esac
    return 0
}
# SIGKILL to the group is delivered asynchronously: on a loaded machine the
# orphaned child can take a moment to go after the runner has exited.
if [ -s "$BROKEN_PIDFILE" ]; then
    k=0
    while [ $k -lt 50 ] && alive "$(cat "$BROKEN_PIDFILE")"; do sleep 0.1; k=$((k + 1)); done
fi
if [ -s "$BROKEN_PIDFILE" ] && alive "$(cat "$BROKEN_PIDFILE")"; then
    fail "the hanging adapter's child $(cat "$BROKEN_PIDFILE") is still running"
    kill "$(cat "$BROKEN_PIDFILE")" 2>/dev/null
fi

# 1b. memory: 4 GiB written, then a correct answer. Pages are slow to
# fault in on some machines, so the time limit is wide: the verdict must be
# the memory cap (default 1 GiB), never the clock. The JSON report carries
# the peak, the exit status and the signal.
BROKEN_HOG=1 "$runner" --adapter "sh $adapter" --timeout 600 --run valid/i2-le-1d-C-v1.npy \
    --run valid/u1-na-1d-C-v1.npy --run invalid/version-4.0.npy --format json -o "$tmp/gaps.json" 2>/dev/null
expect_rc 1 $? "memory / exit-status run"
python3 - "$tmp/gaps.json" <<'PY' || fail "the JSON report does not describe the memory, exit-status and signal failures"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["max_rss_kb"] == 1024 * 1024, j["max_rss_kb"]
c = {x["name"]: x for x in j["cases"]}
m = c["valid/i2-le-1d-C-v1.npy"]
assert m["failure"] == "memory" and m["peak_rss_kb"] > 1024 * 1024, m
assert "over the cap of 1.00 GiB (--max-rss)" in m["summary"], m["summary"]
e = c["valid/u1-na-1d-C-v1.npy"]
assert e["failure"] == "bad-output" and e["exit_status"] == 1 and e["signal"] is None, e
k = c["invalid/version-4.0.npy"]
assert k["failure"] == "crash" and k["signal"] == 11, k
print("memory peak %d KiB, exit status and signal reported" % m["peak_rss_kb"])
PY
# A hog too slow to reach the cap before the timeout is still a memory
# failure, not a timeout: it is growing when the clock runs out. The
# timeout leaves a loaded machine several seconds to start the hog's
# Python and its first allocations (at 4 s, a heavily loaded machine once
# saw no growth in the last second and reported a timeout).
BROKEN_HOG=slow "$runner" --adapter "sh $adapter" --timeout 12 --run valid/i2-le-1d-C-v1.npy \
    --run valid/f8-le-1d-C-v1.npy -j 2 --format json -o "$tmp/slow.json" 2>/dev/null
expect_rc 1 $? "slow memory hog run"
python3 - "$tmp/slow.json" <<'PY' || fail "a slow memory hog is not reported as memory, or a hang not as a timeout"
import json, sys
c = {x["name"]: x for x in json.load(open(sys.argv[1]))["cases"]}
m = c["valid/i2-le-1d-C-v1.npy"]
assert m["failure"] == "memory" and "still allocating at the timeout" in m["summary"], m
h = c["valid/f8-le-1d-C-v1.npy"]
assert h["failure"] == "timeout", h
print("slow hog:", m["summary"])
PY
# the same adapter without the 4 GiB passes that case
"$runner" --adapter "sh $adapter" --timeout 60 --run valid/i2-le-1d-C-v1.npy > "$tmp/nohog" 2>&1
expect_rc 0 $? "the memory case without the allocation"

# 1c. group ra, only run when asked: invalid RawArray files must be refused,
# and an accepted valid file must have the manifest's header fields
"$runner" --adapter "sh $adapter" -j 2 --timeout $to --only ra > "$tmp/ra" 2>&1
expect_rc 1 $? "group ra"
expect_line "$tmp/ra" "FAIL ra/invalid/magic-wrong.ra: accepted an invalid RawArray file"
expect_line "$tmp/ra" "FAIL ra/valid/f32-le-2d.ra: accepted, but read the header or data differently from the manifest"
expect_line "$tmp/ra" "differs: dims: expected [3,4], got [4,3]"
expect_line "$tmp/ra" "$(row ra "$nra" $((nra - nrabad - 1)) $((nrabad + 1)))"
expect_line "$tmp/ra" "fields compared: ndims, dims; never reported, so not checked: flags, eltype, elbyte, size, data_sha256"
grep -q '^  valid ' "$tmp/ra" && fail "--only ra ran NPY cases"

# 1d. a reader that refuses every 1-D array and checks nothing else: every
# defect family is built on bases of more than one dimension too (suite
# 1.3.0), so it fails most of the invalid group, and with --check-reasons
# so do the 1-D ones it refused as "shape"
r1d="sh $dir/tests/refuses-1d-adapter.sh"
"$runner" --adapter "$r1d" -j 2 --timeout $to --only invalid --format json -o "$tmp/r1d.json" 2>/dev/null
expect_rc 1 $? "1-D refuser"
"$runner" --adapter "$r1d" -j 2 --timeout $to --only invalid --run 'invalid/magic-92*' --check-reasons \
    > "$tmp/r1d-reasons" 2>&1
expect_rc 1 $? "1-D refuser with --check-reasons"
expect_line "$tmp/r1d-reasons" "FAIL invalid/magic-92.npy: refused for another reason: error_class 'shape', the file's defect is magic"
expect_line "$tmp/r1d-reasons" "FAIL invalid/magic-92-struct-v1.npy: refused for another reason"
expect_line "$tmp/r1d-reasons" "FAIL invalid/magic-92-2d-v1.npy: accepted an invalid file"
python3 - "$tmp/r1d.json" "$dir/../corpus/manifest.json" <<'PY' || fail "the 2-D twins do not catch a reader that refuses every 1-D array"
import json, re, sys
j = json.load(open(sys.argv[1]))
files = json.load(open(sys.argv[2]))["files"]
c = {x["name"]: x for x in j["cases"]}
# every defect family built on the bases of more than one dimension
# (the manifest's base; gen_conform12.py and gen_conform13.py)
twins = [n for n, e in files.items() if e["group"] == "invalid" and e.get("base") in ("2d-v1", "2d-F-v3", "3d-be-v2")]
assert len(twins) >= 300, len(twins)
missed = [n for n in twins if c[n].get("failure") != "should-refuse"]
assert not missed, missed
s = j["summary"]["invalid"]
assert s["failed"] * 2 > s["cases"], ("the 1-D refuser fails only %d of %d invalid cases" % (s["failed"], s["cases"]))
other = j["summary"]["invalid"]["refused_for_another_reason"]
assert other > 0 and c["invalid/magic-92.npy"].get("refused_for_another_reason"), other
assert c["invalid/magic-92.npy"]["outcome"] == "pass", "a wrong reason fails only with --check-reasons"
print("1-D refuser: fails %d of %d invalid cases; all %d twins on 2-D and 3-D bases accepted (caught), "
      "%d refusals for another reason" % (s["failed"], s["cases"], len(twins), other))
PY

# 2. machine formats, on a subset
sel="--run valid/f8-* --run invalid/version-* --only valid,invalid"
for fmt in json tap junit; do
    # shellcheck disable=SC2086
    "$runner" --adapter "sh $adapter" --timeout $to $sel --format $fmt -o "$tmp/out.$fmt" 2> "$tmp/err.$fmt"
    expect_rc 1 $? "--format $fmt"
done
expect_line "$tmp/out.tap" "TAP version 13"
expect_line "$tmp/out.tap" "not ok"
expect_line "$tmp/out.tap" "- invalid/version-4.0.npy"
expect_line "$tmp/out.junit" '<testcase classname="npyconform.invalid" name="invalid/version-4.0.npy"'
expect_line "$tmp/out.junit" '<failure message="crash: '
expect_line "$tmp/out.json" "\"suite_version\": \"$(cat "$dir/VERSION")\""
ntap=$(grep -c '^not ok' "$tmp/out.tap")
nplan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$tmp/out.tap")
nok=$(grep -c '^ok' "$tmp/out.tap")
[ "$nplan" = $((ntap + nok)) ] || fail "TAP plan 1..$nplan but $((ntap + nok)) results"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$tmp" "$ntap" <<'PY' || fail "machine-readable reports do not agree"
import json, sys, xml.dom.minidom
tmp, ntap = sys.argv[1], int(sys.argv[2])
j = json.load(open(tmp + "/out.json"))
failed = j["summary"]["total"]["failed"]
x = xml.dom.minidom.parse(tmp + "/out.junit")
jf = int(x.documentElement.getAttribute("failures"))
assert not j["passed"], "json says passed"
assert failed == ntap == jf, (failed, ntap, jf)
names = {c["name"] for c in j["cases"] if c["outcome"] == "fail"}
assert "invalid/version-4.0.npy" in names and "valid/f8-le-1d-C-v1.npy" in names, names
print("json, tap and junit agree on", failed, "failures")
PY
else
    echo "note: no python3, JSON and JUnit are not parsed"
fi

# 3. adopting a skip list makes the run pass; the list names each case once
# (the prefix group is left out of these runs: it only repeats the same rule)
sub="--only valid,invalid,unsafe,compat,npz"
stotal=$((total - nprefix)) sfail=$((tfail - nprefix))
# shellcheck disable=SC2086
"$runner" --adapter "sh $adapter" -j 2 --timeout $to $sub --write-skips "$tmp/adapter.skip" > /dev/null 2>&1
expect_rc 1 $? "--write-skips run"
[ "$(grep -c -v '^#' "$tmp/adapter.skip")" = $sfail ] || fail "skip file does not list $sfail cases"
expect_line "$tmp/adapter.skip" "invalid/version-4.0.npy  crash: "
# shellcheck disable=SC2086
"$runner" --adapter "sh $adapter" -j 2 --timeout $to $sub --skip "$tmp/adapter.skip" > "$tmp/skipped" 2>&1
expect_rc 0 $? "run with the adopted skip file"
expect_line "$tmp/skipped" "$(row total "$stotal" $((stotal - sfail)) 0), $(printf '%4d' $sfail) skipped"
# in TAP a known failure is a TODO (it ran and failed), never a SKIP
"$runner" --adapter "sh $adapter" --timeout $to --only invalid --run 'invalid/version-*' \
    --skip "$tmp/adapter.skip" --format tap -o "$tmp/todo.tap" 2>/dev/null
expect_rc 0 $? "TAP run with the adopted skip file"
grep -q '# SKIP' "$tmp/todo.tap" && fail "TAP marks known failures as SKIP"
[ "$(grep -c '^not ok .* # TODO ' "$tmp/todo.tap")" = "$(grep -c '^not ok' "$tmp/todo.tap")" ] ||
    fail "a TAP failure without TODO in a run that passes"
grep -q '^not ok .* # TODO ' "$tmp/todo.tap" || fail "no TODO line in the TAP report"

# 4. ratchet: a skipped case that passes is an error, unless allowed
{ cat "$tmp/adapter.skip"; echo "valid/f8-le-2d-C-v1.npy  pretend this one is broken"; } > "$tmp/stale.skip"
# shellcheck disable=SC2086
"$runner" --adapter "sh $adapter" -j 2 --timeout $to $sub --skip "$tmp/stale.skip" > "$tmp/stale" 2>&1
expect_rc 1 $? "stale skip"
expect_line "$tmp/stale" "STALE valid/f8-le-2d-C-v1.npy: listed in a skip file (pretend this one is broken) but passes now"
# shellcheck disable=SC2086
"$runner" --adapter "sh $adapter" -j 2 --timeout $to $sub --skip "$tmp/stale.skip" --allow-stale-skips > /dev/null 2>&1
expect_rc 0 $? "--allow-stale-skips"

# 5. an adapter that cannot be run fails every case; usage errors are 2
"$runner" --adapter "$tmp/no-such-adapter" --only unsafe > "$tmp/missing" 2>&1
expect_rc 1 $? "missing adapter"
expect_line "$tmp/missing" "crash: exit status 127"
"$runner" --adapter true --only nonsense > /dev/null 2>&1
expect_rc 2 $? "--only nonsense"
"$runner" --version > "$tmp/version"
expect_line "$tmp/version" "suite $(sed -n 's/^ *"suite_version": "\([^"]*\)".*/\1/p' "$dir/../corpus/manifest.json")"
expect_line "$tmp/version" "npyconform $(cat "$dir/VERSION")"

if [ $fails -ne 0 ]; then
    echo "--- text report of the broken adapter ---"
    cat "$tmp/text"
    echo "$fails check(s) failed"
    exit 1
fi
echo "broken adapters: every check passed"
