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
#   NPYCONFORM_VERSION  the suite release (default 1.3.0): pin it, and raise it on purpose
#   NPYCONFORM_SHA256   the SHA-256 of npyconform-<version>.tar.gz (required): the line
#                       published beside the tarball. The tarball is refused unless it matches,
#                       so a pinned version cannot change under you.
#   the release, one of:
#   NPYCONFORM_URL      a directory URL holding npyconform-<version>.tar.gz (https://, http://,
#                       file://; fetched with curl, or wget for http(s))
#   NPYCONFORM_TARBALL  a local npyconform-<version>.tar.gz
#   NPYCONFORM_DIR      where the release is unpacked (default .npyconform)
#   NPYCONFORM_ARGS     more npyconform arguments, split on spaces (e.g. '--only invalid,unsafe')
#   JUNIT               the JUnit report (default npyconform-junit.xml)
#   TIMEOUT             per-case time limit in seconds (default 30, as the published results)
# Arguments are passed to npyconform (e.g. -j 4, --only valid,invalid).
# Exit status: npyconform's: 0 passed, 1 a failure or a stale skip line, 2 usage or setup
# (no adapter, no release, a checksum that does not match).
set -eu
version=${NPYCONFORM_VERSION:-1.3.0}
name=npyconform-$version
dir=${NPYCONFORM_DIR:-.npyconform}
junit=${JUNIT:-npyconform-junit.xml}
say() { echo "npyconform-ci: $*" >&2; }
die() { say "$*"; exit 2; }
[ -n "${ADAPTER:-}" ] || die "set ADAPTER to your adapter command"

[ -n "${NPYCONFORM_SHA256:-}" ] || die "set NPYCONFORM_SHA256 to the SHA-256 published with $name.tar.gz"
printf '%s\n' "$NPYCONFORM_SHA256" | grep -Eq '^[0-9a-fA-F]{64}$' ||
    die "NPYCONFORM_SHA256 is not 64 hex digits: $NPYCONFORM_SHA256"

fetch() { # URL FILE
    if command -v curl >/dev/null 2>&1; then curl -fsSL -o "$2" "$1"
    else case $1 in file://*) cp "${1#file://}" "$2" ;; *) wget -q -O "$2" "$1" ;; esac; fi
}

mkdir -p "$dir"
tarball=$dir/$name.tar.gz
if [ -n "${NPYCONFORM_URL:-}" ]; then
    fetch "${NPYCONFORM_URL%/}/$name.tar.gz" "$tarball" || die "cannot download ${NPYCONFORM_URL%/}/$name.tar.gz"
elif [ -n "${NPYCONFORM_TARBALL:-}" ]; then
    cp "$NPYCONFORM_TARBALL" "$tarball" || die "cannot copy $NPYCONFORM_TARBALL"
else
    die "set NPYCONFORM_URL or NPYCONFORM_TARBALL"
fi
got=$(sha256sum "$tarball" | cut -d' ' -f1)
want=$(printf '%s' "$NPYCONFORM_SHA256" | tr 'A-F' 'a-f')
[ "$got" = "$want" ] || { rm -f "$tarball"; die "checksum mismatch for $name.tar.gz: got $got, pinned $want"; }
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

# shellcheck disable=SC2086 # NPYCONFORM_ARGS is a word list
set -- --adapter "$ADAPTER" --timeout "${TIMEOUT:-30}" --junit "$junit" "$@" ${NPYCONFORM_ARGS:-}
[ -n "${SKIP:-}" ] && set -- --skip "$SKIP" "$@"
rc=0
"$runner" "$@" || rc=$?
say "JUnit report: $junit"
exit $rc
