#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Builds the gonpy adapter from a copy of gonpy's source, offline. gonpy is
# not packaged by Debian, and CI reaches no Go module proxy, so this script
# fetches nothing: get the pinned commit yourself, e.g.
#   git clone https://github.com/kshedden/gonpy && git -C gonpy checkout fa3c8dd8e59b9c2220c971a86ce8ad037ee15948
# and pass that directory.
#
# usage: conformance/adapters/gonpy/build.sh SRC_DIR [OUT_DIR]
#   SRC_DIR  gonpy at commit fa3c8dd8e59b9c2220c971a86ce8ad037ee15948
#            (2021-05-19, the head of its master branch); the package's .go
#            files are checked against the SHA-256 sums below, so a result
#            is never published for a different source by mistake
#            (GONPY_ANY_SOURCE=1 builds another version anyway)
#   OUT_DIR  default build/adapters/gonpy; make-results.sh looks for
#            BUILD_DIR/adapters/gonpy/gonpy-adapter
#
# gonpy has no go.mod at that commit, so the package is copied into
# OUT_DIR/src with one, and the adapter's module is built against it through
# a replace directive, with GOPROXY=off and GOFLAGS=-mod=mod. Needs Go 1.19
# or later (Debian 12: golang-go). There is no sanitizer build: Go checks
# bounds itself, and a panic is reported as a crash.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { sed -n '2,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;$d' >&2; exit 2; }
src=$(cd "$1" && pwd)
out=${2:-build/adapters/gonpy}
commit=fa3c8dd8e59b9c2220c971a86ce8ad037ee15948
files="defs_gen.go doc.go reader.go writer.go"
if [ "${GONPY_ANY_SOURCE:-0}" != 1 ]; then
    (cd "$src" && sha256sum -c --quiet) <<SUMS || { echo "build.sh: $src is not gonpy at $commit (GONPY_ANY_SOURCE=1 to build it anyway)" >&2; exit 1; }
77f70d0a5b4496e88608e6aa5bcaa381110114e4fcdb8929f8e84f933bf1e17b  defs_gen.go
dd6f80640322b64c107abb4a89a801a8332a32a05bdd59c00d732c422cfb576d  doc.go
efe88744b4223c9a979a4e6a9b3718af55ab9ab9e175c41b46ba7a93c866b321  reader.go
ecc6caf6dd5b132c07efa1e130de8fd1da8111db4a0cd1f6dd642148ba06a829  writer.go
SUMS
    version="git $(echo $commit | cut -c1-12) (not packaged; built from that commit)"
else
    version="unpinned source from $src"
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/src"
mkdir -p "$out/src/gonpy" "$out/src/adapter"
for f in $files; do cp "$src/$f" "$out/src/gonpy/"; done
printf 'module github.com/kshedden/gonpy\n\ngo 1.12\n' > "$out/src/gonpy/go.mod"
cp "$here/main.go" "$here/go.mod" "$out/src/adapter/"
export GOPROXY=off GOFLAGS=-mod=mod GO111MODULE=on GOTOOLCHAIN=local
export GOPATH="${GOPATH:-$out/gopath}" GOCACHE="${GOCACHE:-$out/gocache}"
cd "$out/src/adapter"
go mod edit -replace github.com/kshedden/gonpy=../gonpy
go build -trimpath -o "$out/gonpy-adapter" .
echo "$version" > "$out/VERSION"
echo "$out/gonpy-adapter"
