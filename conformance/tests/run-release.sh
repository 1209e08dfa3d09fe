#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ctest: the release tarball is self-contained. release.sh builds it; it is
# unpacked into an empty directory, and there every relative link of every
# .md file must resolve (tests/check-links.py), every adapter, skip file and
# recipe the README and PROTOCOL name must be present, and the packed
# runner must list as many cases as the repository's corpus. A link
# planted to a missing file must be caught, or the check proves nothing.
# usage: run-release.sh CONFORMANCE_DIR
# Exit 77 (ctest: skipped) without jansson or python3.
set -u
dir=$1
py=/usr/bin/python3
pkg-config --exists jansson 2>/dev/null || { echo "SKIP: pkg-config finds no jansson"; exit 77; }
[ -x "$py" ] || { echo "SKIP: no $py"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/npyconform-release-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
version=$(cat "$dir/VERSION")
name=npyconform-$version

sh "$dir/release.sh" "$tmp/dist" 2>"$tmp/release.log" || { cat "$tmp/release.log"; echo "FAIL: release.sh"; exit 1; }
mkdir "$tmp/empty"
tar -C "$tmp/empty" -xzf "$tmp/dist/$name.tar.gz" || { echo "FAIL: the tarball does not unpack"; exit 1; }
[ "$(ls "$tmp/empty")" = "$name" ] || fail "the tarball holds more than $name/: $(ls "$tmp/empty")"
doc=$tmp/empty/$name/share/doc/npyconform
for f in README.md PROTOCOL.md RESULTS.md VERSION ci/npyconform-ci.sh ci/github-actions.yml ci/gitlab-ci.yml; do
    [ -s "$doc/$f" ] || fail "share/doc/npyconform/$f is not in the tarball"
done
[ -s "$tmp/empty/$name/share/npyconform/corpus/README.md" ] || fail "the corpus README is not in the tarball"
find "$tmp/empty" -name node_modules | grep -q . && fail "node_modules was packed"
"$py" "$dir/tests/check-links.py" "$tmp/empty" --names "$doc/README.md" "$doc/PROTOCOL.md" ||
    fail "a relative link or a named file of the tarball does not resolve"
n=$("$tmp/empty/$name/bin/npyconform" list | wc -l)
m=$("$tmp/empty/$name/bin/npyconform" --corpus "$dir/../corpus" list | wc -l)
[ "$n" = "$m" ] && [ "$n" -gt 0 ] || fail "the unpacked runner lists $n cases, the repository's corpus $m"
# the check must be able to fail
printf '\nSee [the missing file](adapters/none/README.md).\n' >> "$doc/README.md"
"$py" "$dir/tests/check-links.py" "$tmp/empty" > "$tmp/planted" 2>&1 &&
    fail "check-links.py passed a link to a missing file"
grep -q "README.md:[0-9]*: adapters/none/README.md: no such file" "$tmp/planted" ||
    { cat "$tmp/planted"; fail "the planted link is not named"; }
[ $fails = 0 ] || exit 1
echo "release: $name unpacks alone, its links and named files all resolve, $n cases"
