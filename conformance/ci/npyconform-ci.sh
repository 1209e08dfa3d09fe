#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# CI recipe: run an NPY reader's adapter against a release of the NPY
# conformance suite. Copy this file into your repository and call it from
# your CI. It fetches the release, builds your adapter, runs it with your
# skip list, prints the text report and writes a JUnit report.
#
# Settings (environment):
#   ADAPTER             the adapter command (required), e.g. 'node conformance/npy-adapter.mjs'
#   BUILD_ADAPTER       a command that builds the adapter first (optional), e.g. 'npm ci'
#   SKIP                your skip file (optional; npyconform --write-skips writes the first one)
#   NPYCONFORM_VERSION  the suite release (default 1.2.0): pin it, and raise it on purpose
#   the release, one of:
#   NPYCONFORM_TARBALL  a local npyconform-<version>.tar.gz
#   NPYCONFORM_URL      a directory URL holding npyconform-<version>.tar.gz and its .sha256
#   NPYCONFORM_REPO     a git URL of the suite's repository: the tag npyconform-<version> is
#                       cloned and its conformance/release.sh builds the tarball (needs cc, jansson)
#   NPYCONFORM_DIR      where the release is unpacked (default .npyconform)
#   JUNIT               the JUnit report (default npyconform-junit.xml)
#   TIMEOUT             per-case time limit in seconds (default 30, as the published results)
# Arguments are passed to npyconform (e.g. -j 4, --only valid,invalid).
# Exit status: npyconform's: 0 passed, 1 a failure or a stale skip line, 2 usage or setup.
set -eu
version=${NPYCONFORM_VERSION:-1.2.0}
name=npyconform-$version
dir=${NPYCONFORM_DIR:-.npyconform}
junit=${JUNIT:-npyconform-junit.xml}
say() { echo "npyconform-ci: $*" >&2; }
die() { say "$*"; exit 2; }
[ -n "${ADAPTER:-}" ] || die "set ADAPTER to your adapter command"

fetch() { # URL FILE
    if command -v curl >/dev/null 2>&1; then curl -fsSL -o "$2" "$1"
    else wget -q -O "$2" "$1"; fi
}

mkdir -p "$dir"
tarball=$dir/$name.tar.gz
if [ -n "${NPYCONFORM_TARBALL:-}" ]; then
    cp "$NPYCONFORM_TARBALL" "$tarball"
elif [ -n "${NPYCONFORM_URL:-}" ]; then
    fetch "$NPYCONFORM_URL/$name.tar.gz" "$tarball" || die "cannot download $NPYCONFORM_URL/$name.tar.gz"
    fetch "$NPYCONFORM_URL/$name.tar.gz.sha256" "$tarball.sha256" || die "cannot download the checksum"
    (cd "$dir" && sha256sum -c "$name.tar.gz.sha256") >/dev/null || die "checksum mismatch for $tarball"
elif [ -n "${NPYCONFORM_REPO:-}" ]; then
    rm -rf "$dir/src"
    git clone -q --depth 1 --branch "$name" "$NPYCONFORM_REPO" "$dir/src" || die "cannot clone tag $name"
    sh "$dir/src/conformance/release.sh" "$dir" >&2 || die "release.sh failed"
else
    die "set NPYCONFORM_TARBALL, NPYCONFORM_URL or NPYCONFORM_REPO"
fi
rm -rf "${dir:?}/$name"
tar -C "$dir" -xzf "$tarball"
runner=$dir/$name/bin/npyconform
# the packed runner is static for Linux; elsewhere, rebuild it (needs jansson)
if ! "$runner" --version >/dev/null 2>&1; then
    say "the packed runner does not run here; rebuilding it"
    rm -f "$runner"
    make -s -C "$dir/$name" >&2 || die "cannot build the runner (needs a C compiler and jansson)"
fi
say "$("$runner" --version | tr '\n' ' ')"

if [ -n "${BUILD_ADAPTER:-}" ]; then
    sh -c "$BUILD_ADAPTER" >&2 || die "BUILD_ADAPTER failed: $BUILD_ADAPTER"
fi

set -- --adapter "$ADAPTER" --timeout "${TIMEOUT:-30}" --junit "$junit" "$@"
[ -n "${SKIP:-}" ] && set -- --skip "$SKIP" "$@"
rc=0
"$runner" "$@" || rc=$?
say "JUnit report: $junit"
exit $rc
