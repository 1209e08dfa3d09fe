#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Builds the cnpy adapter from a copy of cnpy's source. cnpy is not packaged
# by Debian or any registry CI reaches, so this script fetches nothing: get
# the pinned commit yourself, e.g.
#   git clone https://github.com/rogersce/cnpy && git -C cnpy checkout 4e8810b1a8637695171ed346ce68f6984e585ef4
# and pass that directory.
#
# usage: conformance/adapters/cnpy/build.sh SRC_DIR [OUT_DIR] [--sanitize | --ndebug]
#   SRC_DIR  cnpy at commit 4e8810b1a8637695171ed346ce68f6984e585ef4
#            (2018-05-31, the head of its master branch); cnpy.cpp and cnpy.h
#            are checked against the SHA-256 sums below, so a result is never
#            published for a different source by mistake
#            (CNPY_ANY_SOURCE=1 builds another version anyway)
#   OUT_DIR  default build/adapters/cnpy; make-results.sh looks for
#            BUILD_DIR/adapters/cnpy/cnpy-adapter
#   --sanitize  ASan+UBSan (-O1 -g), for a separate OUT_DIR
#   --ndebug    -O2 -DNDEBUG, as a CMake Release build of cnpy would be
#
# By default cnpy.cpp is compiled as its own CMakeLists.txt compiles it, with
# C++11 and without NDEBUG (it sets no build type), so cnpy's assert()s stay
# live: they are its only check of the byte order and of the header's end. Needs g++, zlib (zlib1g-dev) and
# OpenSSL (libssl-dev) for the adapter's SHA-256.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { sed -n '2,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;$d' >&2; exit 2; }
src=$1
out=${2:-build/adapters/cnpy}
flags="-O2"
case "${3:-}" in
--sanitize) flags="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" ;;
--ndebug) flags="-O2 -DNDEBUG" ;;
"") ;;
*) echo "build.sh: unknown option '$3'" >&2; exit 2 ;;
esac
commit=4e8810b1a8637695171ed346ce68f6984e585ef4
if [ "${CNPY_ANY_SOURCE:-0}" != 1 ]; then
    (cd "$src" && sha256sum -c --quiet) <<SUMS || { echo "build.sh: $src is not cnpy at $commit (CNPY_ANY_SOURCE=1 to build it anyway)" >&2; exit 1; }
66ba14e7f40b4872ed34f673ff0eeb7d866fd77f69910edbbb18bf6a2f4a02f6  cnpy.cpp
68a34a847cfed2dfcc1dc8bcd495cdb51477061536d670161a62c5103547ae93  cnpy.h
SUMS
    version="git $(echo $commit | cut -c1-12) (not packaged; built from that commit)"
else
    version="unpinned source from $src"
fi
mkdir -p "$out"
# shellcheck disable=SC2086
${CXX:-g++} -std=c++11 $flags -I"$src" -o "$out/cnpy-adapter" "$here/cnpy-adapter.cpp" "$src/cnpy.cpp" -lz -lcrypto
echo "$version" > "$out/VERSION"
echo "$out/cnpy-adapter"
