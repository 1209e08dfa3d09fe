#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ctest: the release artifact and the shell CI recipe, end to end, as an
# outside reader's CI runs them: release.sh builds the tarball, then
# ci/npyconform-ci.sh unpacks it, runs the npyjs adapter with its skip list
# through the packed runner (which finds the packed corpus beside itself)
# and writes JUnit. The groups are limited to keep the test short; the
# whole run is conformance.npyjs.
# usage: run-ci-recipe.sh CONFORMANCE_DIR
# Exit 77 (ctest: skipped) without node, the npyjs package, or jansson.
set -u
dir=$1
adir="$dir/adapters/npyjs"
command -v node >/dev/null 2>&1 || { echo "SKIP: node is not installed"; exit 77; }
[ -f "$adir/node_modules/npyjs/package.json" ] || { echo "SKIP: npyjs is not installed ('npm ci' in $adir)"; exit 77; }
pkg-config --exists jansson 2>/dev/null || { echo "SKIP: pkg-config finds no jansson"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/npyconform-recipe.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
version=$(cat "$dir/VERSION")

sh "$dir/release.sh" "$tmp/dist" 2>"$tmp/release.log" || { cat "$tmp/release.log"; echo "FAIL: release.sh"; exit 1; }
tarball=$tmp/dist/npyconform-$version.tar.gz
[ -s "$tarball" ] && [ -s "$tarball.sha256" ] || fail "no $tarball and checksum"

recipe() { # extra npyconform arguments; the environment says the rest
    NPYCONFORM_VERSION=$version NPYCONFORM_TARBALL=$tarball NPYCONFORM_DIR=$tmp/ci \
        sh "$dir/ci/npyconform-ci.sh" "$@"
}
# run from elsewhere: nothing may depend on the source tree's layout
cd "$tmp" || exit 1
ADAPTER="node $adir/npyjs-adapter.mjs" SKIP="$dir/skips/npyjs.skip" JUNIT=$tmp/junit.xml \
    recipe -j 2 --only invalid,unsafe > "$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] || { cat "$tmp/out" "$tmp/err"; fail "the recipe with npyjs and its skip list: exit status $rc"; }
grep -q "^npyconform $version: NPY conformance suite $version" "$tmp/out" || fail "the report does not name version $version"
grep -q "^result: PASS" "$tmp/out" || fail "no 'result: PASS'"
python3 - "$tmp/junit.xml" "$version" <<'PY' || fail "the JUnit report is missing or says the run failed"
import sys, xml.dom.minidom
x = xml.dom.minidom.parse(sys.argv[1]).documentElement
assert x.getAttribute("name") == "npyconform suite " + sys.argv[2], x.getAttribute("name")
assert int(x.getAttribute("tests")) > 0 and x.getAttribute("failures") == "0", x.attributes.items()
print("recipe: JUnit with %s cases, %s skipped, 0 failures" % (x.getAttribute("tests"), x.getAttribute("skipped")))
PY
# and it fails when the reader does
ADAPTER=false JUNIT=$tmp/junit2.xml recipe --only unsafe > "$tmp/out2" 2>&1
rc=$?
[ $rc = 1 ] || fail "the recipe with an adapter that always exits 1 silently: exit status $rc, expected 1"
[ $fails = 0 ] || exit 1
echo "ci recipe: every check passed"
