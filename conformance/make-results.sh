#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Regenerates conformance/RESULTS.md from real npyconform runs of every
# adapter that can run here (cnpy, libnpy and gonpy once their
# conformance/adapters/<reader>/build.sh has built them into
# BUILD_DIR/adapters/<reader>). Never edit RESULTS.md by hand: run this
# script and commit its output.
# usage: conformance/make-results.sh [BUILD_DIR]   (default: ./build)
#   ADAPTERS="npyguard xtensor ..."  run only these (default: every one found): npyguard,
#                                    npyguard-ra, numpy, npyjs, numpy-parser, loaders-gl,
#                                    ol-numpytiles, read-npy-file, tfjs-npy, xtensor, xtensor-asan (ASan+UBSan build),
#                                    ra-c, cnpy, cnpy-asan, libnpy, libnpy-asan, gonpy
#   RESULTS=FILE                     write there instead of conformance/RESULTS.md
#   REPORTS=DIR                      keep each adapter's JSON report in DIR, and reuse
#                                    the ones already there (a long regeneration resumes
#                                    where it stopped; delete DIR to measure afresh)
#   CARRY_FROM=FILE                  an earlier RESULTS.md: the rows and sections of readers
#                                    that did not run now are carried over from it, marked
#                                    with the suite version they were measured on
#   RA_C_ADAPTER=PATH                the reference RawArray reader's adapter
#                                    (default: build-ra-c/ra-c-adapter, made by
#                                    adapters/ra-c/build.sh); run on group ra only
# Needs python3 (standard library only) to render the tables.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
runner="$build/conformance/npyconform"
[ -x "$runner" ] || { echo "make-results.sh: no $runner; build first" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/npyconform-results.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
jobs=${JOBS:-2}
results=${RESULTS:-$here/RESULTS.md}
: > "$tmp/list"

wanted() { [ -z "${ADAPTERS:-}" ] || case " $ADAPTERS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

run() { # name version groups adapter-command... (groups: "" for the default ones)
    name=$1 version=$2 groups=$3
    shift 3
    wanted "$name" || return 0
    echo "make-results.sh: running $name" >&2
    if [ -n "${REPORTS:-}" ] && [ -s "$REPORTS/$name.json" ]; then
        cp "$REPORTS/$name.json" "$tmp/$name.json" # kept from an earlier run
    else
        # npyconform exits 1 when cases fail; that is a result, not an error
        # shellcheck disable=SC2086
        "$runner" --adapter "$*" ${groups:+--only $groups} -j "$jobs" --timeout 30 --format json \
            -o "$tmp/$name.json" 2>/dev/null || [ $? -eq 1 ]
        [ -z "${REPORTS:-}" ] || cp "$tmp/$name.json" "$REPORTS/$name.json"
    fi
    printf '%s\t%s\t%s\n' "$name" "$version" "$*" >> "$tmp/list"
}

if [ -x "$build/conformance/npyguard-adapter" ]; then
    v=$("$build/parser/npyvalidate" --version | sed 's/^npyvalidate //')
    run npyguard "$v" "" "$build/conformance/npyguard-adapter"
    run npyguard-ra "$v" ra "$build/conformance/npyguard-adapter"
fi
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    run numpy "$(/usr/bin/python3 -c 'import numpy; print(numpy.__version__)')" "" \
        "$here/adapters/numpy/numpy-adapter"
fi
if command -v node >/dev/null 2>&1 && [ -f "$here/adapters/npyjs/node_modules/npyjs/package.json" ]; then
    v=$(node -p 'require(process.argv[1]).version' "$here/adapters/npyjs/node_modules/npyjs/package.json")
    run npyjs "$v (node $(node --version))" "" node "$here/adapters/npyjs/npyjs-adapter.mjs"
fi
if command -v node >/dev/null 2>&1 && [ -f "$here/adapters/numpy-parser/node_modules/numpy-parser/package.json" ]; then
    v=$(node -p 'require(process.argv[1]).version' "$here/adapters/numpy-parser/node_modules/numpy-parser/package.json")
    run numpy-parser "$v (node $(node --version))" "" node "$here/adapters/numpy-parser/numpy-parser-adapter.mjs"
fi
if [ -f /usr/include/xtensor/xnpy.hpp ] && { wanted xtensor || wanted xtensor-asan; }; then
    v=$(sed -n 's/^#define XTENSOR_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' \
        /usr/include/xtensor/xtensor_config.hpp | paste -sd. -)
    sh "$here/adapters/xtensor/build.sh" "$build/adapters/xtensor" >/dev/null
    run xtensor "$v (libxtensor-dev)" "" "$build/adapters/xtensor/xtensor-adapter"
    sh "$here/adapters/xtensor/build.sh" "$build/adapters/xtensor-asan" --sanitize >/dev/null
    run xtensor-asan "$v (libxtensor-dev, ASan+UBSan build)" "" \
        env ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 "$build/adapters/xtensor-asan/xtensor-adapter"
fi
# npm readers pinned by their package-lock.json ('npm ci' in the adapter's
# directory): the package name, then the adapter directory and script.
for spec in loaders-gl:@loaders.gl/textures ol-numpytiles:@planet/ol-numpytiles read-npy-file:read-npy-file \
        tfjs-npy:tfjs-npy; do
    reader=${spec%%:*} pkg=${spec#*:}
    pj=$here/adapters/$reader/node_modules/$pkg/package.json
    if command -v node >/dev/null 2>&1 && [ -f "$pj" ]; then
        v=$(node -p 'require(process.argv[1]).version' "$pj")
        run "$reader" "$pkg $v (node $(node --version))" "" node "$here/adapters/$reader/$reader-adapter.mjs"
    fi
done
rac=${RA_C_ADAPTER:-$here/../build-ra-c/ra-c-adapter}
if [ -x "$rac" ]; then
    run ra-c "$(sed -n 's/^# Adapter for the reference RawArray C reader at \([0-9a-f]\{7\}\).*/davidssmith\/ra \1 (ASan build)/p' "$rac")" \
        ra "$rac"
fi
# Readers with no package, built by their build.sh from a pinned upstream
# commit into BUILD_DIR/adapters/<reader>/; VERSION names that commit.
# A <reader>-asan directory is its ASan+UBSan build (build.sh --sanitize).
for reader in cnpy cnpy-asan libnpy libnpy-asan gonpy; do
    bin=$build/adapters/$reader/${reader%-asan}-adapter
    if [ -x "$bin" ]; then
        v=$(cat "$build/adapters/$reader/VERSION" 2>/dev/null || echo 'unknown build')
        case $reader in
        *-asan) run "$reader" "$v, ASan+UBSan build" "" \
            env ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 "$bin" ;;
        *) run "$reader" "$v" "" "$bin" ;;
        esac
    fi
done

carry=
if [ -n "${CARRY_FROM:-}" ]; then
    cp "$CARRY_FROM" "$tmp/previous.md"
    carry=$tmp/previous.md
fi
python3 - "$tmp" "$here" "$build" "$carry" > "$tmp/RESULTS.md" <<'PY'
import json, os, re, sys
from collections import OrderedDict

tmp, here, build, carry = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
impls = []
for line in open(tmp + "/list"):
    name, version, cmd = line.rstrip("\n").split("\t")
    impls.append((name, version, json.load(open("%s/%s.json" % (tmp, name)))))
if not impls:
    sys.exit("make-results.sh: no adapter could run")
npy = [i for i in impls if "ra" not in i[2]["summary"] or i[2]["summary"]["ra"]["cases"] == 0]
ra = [i for i in impls if i not in npy]
first = impls[0][2]
groups = ["valid", "invalid", "unsafe", "compat", "npz", "prefix", "ra"]
ran = {i[0] for i in impls}

# Rows and sections of an earlier RESULTS.md, for the readers not run now.
prev_rows, prev_sections, prev_suite = {}, OrderedDict(), None
if carry:
    text = open(carry, encoding="utf-8").read()
    m = re.search(r"\(suite ([0-9.]+)", text)
    prev_suite = m.group(1) if m else "?"
    for line in text.split("\n"):
        m = re.match(r"^\| ([^ |]+) \| ([^|]*) \|", line)
        if m and m.group(1) not in ("implementation", "---") and m.group(1) not in ran:
            prev_rows.setdefault(m.group(1), []).append(line)
    for sec in re.split(r"(?m)^(?=## )", text)[1:]:
        name = sec[3:].split(" ")[0]
        if name not in ran:
            prev_sections[name] = sec.rstrip("\n")
same_suite = prev_suite == first["suite_version"]

def carried(line):
    """An earlier row, its version cell marked with the suite it ran on."""
    if same_suite:
        return line
    return re.sub(r"^(\| [^ |]+ \| )([^|]*?)( \|)", r"\1\2; suite %s run, not re-run\3" % prev_suite, line, count=1)

# Each case's base (gen_conform13.py): invalid counts per base.
manifest = json.load(open(os.path.join(here, "..", "corpus", "manifest.json")))["files"]
BASES = ["1d-v1", "2d-v1", "struct-v1", "2d-F-v3", "3d-be-v2"]
full_cases = max(i[2]["summary"]["total"]["cases"] for i in npy) if npy else 0
def base_of(name):
    e = manifest.get(name)
    return e.get("base", "other") if e else "other"

def cell(s, g):
    t = s.get(g)
    if not t or not t["cases"]:
        return "-"
    return "%d/%d" % (t["passed"], t["cases"])

def pattern(text):
    """Failure messages with the case-specific parts blanked, for grouping."""
    text = re.sub(r"(Unsupported dtype: )\S+", r"\1...", text)
    text = re.sub(r"\b\d+\b", "N", text)
    return text[:160]

def rel(cmd):
    """The adapter's command with this machine's paths taken out: a report
    kept from an earlier run (REPORTS=) may come from another checkout."""
    cmd = cmd.replace(here + "/", "conformance/").replace(build + "/", "<build>/")
    cmd = re.sub(r"/\S*/conformance/adapters/", "conformance/adapters/", cmd)
    return re.sub(r"/\S*/(build[^/\s]*/)(release/)?", "<build>/", cmd)

w = print
w("# Conformance results")
w()
w("Generated by `conformance/make-results.sh` from runs of `npyconform` over")
w("`corpus/` (suite %s, expected results measured with numpy %s)." % (first["suite_version"], first["numpy_version"]))
w("Do not edit by hand. Each cell is passed/cases for the group. A compat case")
w("passes when it is refused, or accepted and read as numpy reads it; the")
w("compat verdict column counts how many verdicts are numpy's. Times are")
w("wall-clock with `-j 2` on a shared 2-core machine (the numpy and node")
w("adapters pay interpreter start-up per file). A version cell that ends in")
w("\"N of the M cases run\" is a run over part of the corpus only (its adapter's")
w("README says which part and why); its cells count the cases run.")
w()
if npy:
    w("| implementation | version | valid | invalid | unsafe | compat | compat verdict = numpy | npz | prefix | failures | fields compared | time |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, version, r in npy:
        s = r["summary"]
        if s["total"]["cases"] < full_cases:
            # a report kept (REPORTS=) from a run over part of the corpus
            version += "; %d of the %d cases run" % (s["total"]["cases"], full_cases)
        w("| %s | %s | %s | %s | %s | %s | %d/%d | %s | %s | %d | %s | %.0f s |" % (
            name, version, cell(s, "valid"), cell(s, "invalid"), cell(s, "unsafe"), cell(s, "compat"),
            s["compat"]["agree_with_numpy"], s["compat"]["cases"], cell(s, "npz"), cell(s, "prefix"),
            s["total"]["failed"], ", ".join(r["fields_compared"]), r["seconds"]))
    npy_carried = [n for n, rows in prev_rows.items() if not any("| limit |" in l for l in rows)
                   and re.search(r"\| [0-9]+/[0-9]+ \| [0-9]+/[0-9]+ \| [0-9]+/[0-9]+ \| [0-9]+/[0-9]+ \| [0-9]+/[0-9]+ \|", rows[0])]
    for n in npy_carried:
        w(carried(prev_rows[n][0]))
    w()
    if npy_carried and not same_suite:
        w("Rows marked \"suite %s run, not re-run\" are that suite's results, carried over until the" % prev_suite)
        w("reader is run again on suite %s (by `make-results.sh` where its adapter can run); their" % first["suite_version"])
        w("counts are of that suite's corpus.")
        w()
    w("### invalid, per base")
    w()
    w("Each one-defect family is built on every base where the defect applies")
    w("(`gen/gen_conform13.py`; the manifest's `base`). Each cell is passed/cases")
    w("of the group `invalid` on that base; \"other\" holds the defects that have")
    w("no base (a file cut in its first 12 bytes, an empty dict, an item size")
    w("past a C int, ...). A reader that refuses one kind of array without")
    w("looking at the defect passes its own base and fails the others.")
    w()
    w("| implementation | " + " | ".join(BASES) + " | other |")
    w("|---|" + "---|" * (len(BASES) + 1))
    for name, version, r in npy:
        tot = OrderedDict((b, [0, 0]) for b in BASES + ["other"])
        for c in r["cases"]:
            if c["group"] != "invalid":
                continue
            t = tot[base_of(c["name"])]
            t[1] += 1
            t[0] += c["outcome"] == "pass"
        w("| %s | %s |" % (name, " | ".join("%d/%d" % tuple(v) if v[1] else "-" for v in tot.values())))
    w()
if ra:
    w("RawArray (`.ra`, group `ra`, files of `corpus/ra/`): valid files must be")
    w("accepted with the manifest's header fields and data hash, invalid ones")
    w("refused; a limit file may be refused. Each cell: accepted / refused /")
    w("crashed, hung or bad output (passed/cases).")
    w()
    w("| implementation | version | valid | invalid | limit | failures | fields compared | time |")
    w("|---|---|---|---|---|---|---|---|")
    for name, version, r in ra:
        row = []
        for g in ("valid", "invalid", "limit"):
            cs = [c for c in r["cases"] if c.get("ra_group") == g]
            acc = sum(c["verdict"] == "accept" for c in cs)
            ref = sum(c["verdict"] == "refuse" for c in cs)
            ok = sum(c["outcome"] == "pass" for c in cs)
            row.append("%d / %d / %d (%d/%d)" % (acc, ref, len(cs) - acc - ref, ok, len(cs)))
        w("| %s | %s | %s | %d | %s | %.0f s |" % (name, version, " | ".join(row), r["summary"]["total"]["failed"],
                                                  ", ".join(r["fields_compared"]), r["seconds"]))
    for n, rows in prev_rows.items():
        for l in rows:
            if re.search(r"\(\d+/\d+\) \|", l):
                w(carried(l))
    w()

for name, version, r in impls:
    cases = r["cases"]
    w("## %s %s" % (name, version))
    w()
    w("Adapter: `%s`." % rel(r["adapter"]))
    w()
    fails = [c for c in cases if c["outcome"] == "fail"]
    if not fails:
        w("Every case passes.")
        w()
    else:
        w("### Failures (%d)" % len(fails))
        w()
        by = OrderedDict()
        for c in fails:
            sub = c.get("ra_group") or c.get("npz_group") or ""
            by.setdefault((c["group"], sub, pattern(c["summary"])), []).append(c)
        for (g, sub, pat), cs in sorted(by.items(), key=lambda kv: (groups.index(kv[0][0]), kv[0][1], -len(kv[1]))):
            names = [c["name"] for c in cs]
            shown = ", ".join("`%s`" % n for n in names[:12])
            more = " and %d more" % (len(names) - 12) if len(names) > 12 else ""
            w("- **%s**, %d case%s: %s. %s%s" % (g, len(cs), "" if len(cs) == 1 else "s", pat, shown, more))
            mism = [c for c in cs if c.get("mismatches")]
            for c in mism[:12]:
                w("  - `%s`: %s" % (c["name"], c["mismatches"].strip().replace("\n", "; ")[:200]))
        w()
    comp = [c for c in cases if c["group"] == "compat"]
    if not comp:
        continue
    diff = [c for c in comp if (c["verdict"] == "accept") != (c["numpy"] == "accept")]
    odd = [c for c in comp if c["verdict"] == "accept" and c["numpy"] == "accept" and c.get("mismatches")]
    w("### compat: verdicts that differ from numpy's (%d of %d)" % (len(diff), len(comp)))
    w()
    if diff:
        w("| case | numpy | %s | %s's message |" % (name, name))
        w("|---|---|---|---|")
        for c in diff:
            msg = (c.get("error") or "(accepted)").replace("|", "\\|")
            w("| `%s` | %s | %s | %s |" % (c["name"], c["numpy"], c["verdict"], msg[:140]))
        w()
    if odd:
        w("Accepted like numpy but read differently (%d):" % len(odd))
        w()
        for c in odd:
            w("- `%s`: %s" % (c["name"], c["mismatches"].strip().replace("\n", "; ")[:300]))
        w()
for name, sec in prev_sections.items():
    lines = sec.split("\n")
    if not same_suite:
        lines[0] += " (suite %s run, not re-run)" % prev_suite
    w("\n".join(lines))
    w()
PY
# Each reader's bugs in plain words, kept in its adapter's README.md.
python3 "$here/bug-notes.py" "$tmp/RESULTS.md" "$here/adapters"
cp "$tmp/RESULTS.md" "$results"
echo "make-results.sh: wrote $results" >&2
