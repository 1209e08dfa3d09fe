#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ctest: the release artifact and the CI recipes, end to end, as an outside
# reader's CI runs them. release.sh builds the tarball, a local HTTP server
# on 127.0.0.1 publishes it, and:
#   - ci/npyconform-ci.sh fetches it by URL (http:// and file://), checks
#     the pinned SHA-256, runs the npyjs adapter with its skip list through
#     the packed runner (which finds the packed corpus beside itself) and
#     writes JUnit; a wrong or missing pin and a failing adapter fail it;
#   - ci/github-actions.yml and ci/gitlab-ci.yml: the steps that call the
#     recipe are run as written, in a copy of a reader's repository laid
#     out as their comments say, with their own variables; only the release
#     URL, the checksum (the placeholder a user fills in) and BUILD_ADAPTER
#     (npm ci needs the registry; the modules are linked instead) are set.
# The cases are limited to keep the test short (the magic and version
# defects on every base, every defect on one base, the pickles); the whole
# run is conformance.npyjs.
# usage: run-ci-recipe.sh CONFORMANCE_DIR
# Exit 77 (ctest: skipped) without node, the npyjs package, jansson or
# PyYAML for /usr/bin/python3.
set -u
dir=$1
adir="$dir/adapters/npyjs"
py=/usr/bin/python3
command -v node >/dev/null 2>&1 || { echo "SKIP: node is not installed"; exit 77; }
[ -f "$adir/node_modules/npyjs/package.json" ] || { echo "SKIP: npyjs is not installed ('npm ci' in $adir)"; exit 77; }
pkg-config --exists jansson 2>/dev/null || { echo "SKIP: pkg-config finds no jansson"; exit 77; }
"$py" -c 'import yaml' 2>/dev/null || { echo "SKIP: $py has no yaml module (Debian: python3-yaml)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/npyconform-recipe.XXXXXX")
server=
trap '[ -z "$server" ] || kill "$server" 2>/dev/null; rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
version=$(cat "$dir/VERSION")
name=npyconform-$version

sh "$dir/release.sh" "$tmp/dist" 2>"$tmp/release.log" || { cat "$tmp/release.log"; echo "FAIL: release.sh"; exit 1; }
tarball=$tmp/dist/$name.tar.gz
[ -s "$tarball" ] && [ -s "$tarball.sha256" ] || fail "no $tarball and checksum"
sha=$(cut -d' ' -f1 "$tarball.sha256")
[ "$sha" = "$(sha256sum "$tarball" | cut -d' ' -f1)" ] || fail "the .sha256 file does not match the tarball"

# the release, published on a local port
"$py" -c '
import functools, http.server, sys
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
h.log_message = lambda *a: None
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), h)
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write(str(s.server_address[1]))
import os; os.rename(sys.argv[2] + ".tmp", sys.argv[2])
s.serve_forever()' "$tmp/dist" "$tmp/port" &
server=$!
i=0
while [ ! -s "$tmp/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$tmp/port" ] || { echo "FAIL: the local HTTP server did not start"; exit 1; }
url=http://127.0.0.1:$(cat "$tmp/port")/

recipe() { # extra npyconform arguments; the environment says the rest
    NPYCONFORM_VERSION=$version NPYCONFORM_DIR=$tmp/ci sh "$dir/ci/npyconform-ci.sh" "$@"
}
# run from elsewhere: nothing may depend on the source tree's layout
cd "$tmp" || exit 1
ADAPTER="node $adir/npyjs-adapter.mjs" SKIP="$dir/skips/npyjs.skip" JUNIT=$tmp/junit.xml \
    NPYCONFORM_URL=$url NPYCONFORM_SHA256=$sha recipe -j 2 --only invalid,unsafe --run 'invalid/magic-*' \
    --run 'invalid/version-*' --run 'invalid/*-2d-F-v3.npy' --run 'unsafe/*' > "$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] || { cat "$tmp/out" "$tmp/err"; fail "the recipe by http:// with npyjs and its skip list: exit status $rc"; }
grep -q "^npyconform $version: NPY conformance suite $version" "$tmp/out" || fail "the report does not name version $version"
grep -q "^result: PASS" "$tmp/out" || fail "no 'result: PASS'"
"$py" - "$tmp/junit.xml" "$version" <<'PY' || fail "the JUnit report is missing or says the run failed"
import sys, xml.dom.minidom
x = xml.dom.minidom.parse(sys.argv[1]).documentElement
assert x.getAttribute("name") == "npyconform suite " + sys.argv[2], x.getAttribute("name")
assert int(x.getAttribute("tests")) > 0 and x.getAttribute("failures") == "0", x.attributes.items()
print("recipe: JUnit with %s cases, %s skipped, 0 failures" % (x.getAttribute("tests"), x.getAttribute("skipped")))
PY
# file:// and the pin given in capitals
up=$(printf '%s' "$sha" | tr 'a-f' 'A-F')
ADAPTER="node $adir/npyjs-adapter.mjs" JUNIT=$tmp/junit-file.xml NPYCONFORM_URL=file://$tmp/dist \
    NPYCONFORM_SHA256=$up recipe --only unsafe > "$tmp/out-file" 2>&1
rc=$?
[ $rc = 0 ] || { cat "$tmp/out-file"; fail "the recipe by file://: exit status $rc"; }
# a pin that does not match, no pin, no release: refused before anything runs
bad=$(printf '%s' "$sha" | sed 's/^./0/; t; s/^/0/')
[ "$bad" != "$sha" ] || bad=$(printf '%s' "$sha" | sed 's/^./1/')
ADAPTER=true NPYCONFORM_URL=$url NPYCONFORM_SHA256=$bad recipe --only unsafe > "$tmp/out-bad" 2>&1
rc=$?
[ $rc = 2 ] || fail "a wrong SHA-256 pin: exit status $rc, expected 2"
grep -q "checksum mismatch for $name.tar.gz" "$tmp/out-bad" || fail "a wrong pin is not named as a checksum mismatch"
[ -e "$tmp/ci/$name/bin/npyconform" ] && [ "$tmp/ci/$name/bin/npyconform" -nt "$tmp/out-file" ] &&
    fail "a tarball that does not match was unpacked"
ADAPTER=true NPYCONFORM_URL=$url recipe --only unsafe > "$tmp/out-nopin" 2>&1
rc=$?
[ $rc = 2 ] || fail "no SHA-256 pin: exit status $rc, expected 2"
ADAPTER=true NPYCONFORM_URL=${url}missing/ NPYCONFORM_SHA256=$sha recipe --only unsafe > "$tmp/out-404" 2>&1
rc=$?
[ $rc = 2 ] || fail "a URL without the release: exit status $rc, expected 2"
# and it fails when the reader does
ADAPTER=false JUNIT=$tmp/junit2.xml NPYCONFORM_URL=$url NPYCONFORM_SHA256=$sha recipe --only unsafe > "$tmp/out2" 2>&1
rc=$?
[ $rc = 1 ] || fail "the recipe with an adapter that always exits 1 silently: exit status $rc, expected 1"

# The two CI files, as a reader's repository holds them.
repo=$tmp/repo
mkdir -p "$repo/conformance"
cp "$dir/ci/npyconform-ci.sh" "$repo/conformance/npyconform-ci.sh"
cp "$adir/npyjs-adapter.mjs" "$repo/conformance/npy-adapter.mjs"
ln -s "$adir/node_modules" "$repo/conformance/node_modules"
cp "$dir/skips/npyjs.skip" "$repo/conformance/npy.skip"
# ci-steps.py FILE KIND: the shell the recipe's job runs, its variables first
cat > "$tmp/ci-steps.py" <<'PY'
import shlex, sys, yaml
y = yaml.safe_load(open(sys.argv[1]))
if sys.argv[2] == "github":
    job = y["jobs"]["conformance"]
    env, cmds = job["env"], [s["run"] for s in job["steps"] if "npyconform-ci.sh" in s.get("run", "")]
else:
    job = y["npyconform"]
    env, cmds = job["variables"], [c for c in job["script"] if "npyconform-ci.sh" in c]
assert cmds, "no step calls npyconform-ci.sh"
for k, v in env.items():
    print("%s=%s; export %s" % (k, shlex.quote(str(v)), k))
print('[ -z "${OVERRIDE:-}" ] || { set -a; eval "$OVERRIDE"; set +a; }')
for c in cmds:
    print(c)
PY
for kind in github gitlab; do
    file=$dir/ci/$kind-actions.yml
    [ $kind = gitlab ] && file=$dir/ci/gitlab-ci.yml
    "$py" "$tmp/ci-steps.py" "$file" $kind > "$tmp/$kind.sh" || { fail "$file: no job that calls the recipe"; continue; }
    grep -q "^NPYCONFORM_VERSION=$version;" "$tmp/$kind.sh" || fail "$file does not pin version $version"
    grep -q "NPYCONFORM_REPO\|git clone" "$tmp/$kind.sh" "$file" && fail "$file still fetches the suite from a tag"
    # as written (the checksum placeholder not filled in): refused
    (cd "$repo" && OVERRIDE="NPYCONFORM_URL=$url; NPYCONFORM_DIR=$tmp/ci-$kind" sh "$tmp/$kind.sh") \
        > "$tmp/$kind-placeholder" 2>&1
    rc=$?
    [ $rc = 2 ] || fail "$file with its checksum placeholder: exit status $rc, expected 2"
    (cd "$repo" && OVERRIDE="NPYCONFORM_URL=$url; NPYCONFORM_SHA256=$sha; BUILD_ADAPTER=; NPYCONFORM_DIR=$tmp/ci-$kind;
        NPYCONFORM_ARGS='--only unsafe,invalid --run invalid/magic-* --run unsafe/*'" sh "$tmp/$kind.sh") \
        > "$tmp/$kind-out" 2>&1
    rc=$?
    [ $rc = 0 ] || { cat "$tmp/$kind-out"; fail "$file's job: exit status $rc"; }
    grep -q "^result: PASS" "$tmp/$kind-out" || fail "$file's job: no 'result: PASS'"
    [ -s "$repo/npyconform-junit.xml" ] || fail "$file's job wrote no npyconform-junit.xml"
    rm -f "$repo/npyconform-junit.xml"
done
[ $fails = 0 ] || exit 1
echo "ci recipes: every check passed"
