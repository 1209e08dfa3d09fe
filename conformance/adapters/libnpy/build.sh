#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Builds the libnpy adapter from a copy of libnpy's source (header-only).
# libnpy is not packaged by Debian or any registry CI reaches, so this
# script fetches nothing: get the pinned commit yourself, e.g.
#   git clone https://github.com/llohse/libnpy && git -C libnpy checkout 471fe480d5f1082fd8fd0e746eaf10084a2fb82b
# and pass that directory.
#
# usage: conformance/adapters/libnpy/build.sh SRC_DIR [OUT_DIR] [--sanitize]
#   SRC_DIR  libnpy at commit 471fe480d5f1082fd8fd0e746eaf10084a2fb82b
#            (2024-03-04, version 1.0.1, the head of its master branch);
#            include/npy.hpp is checked against the SHA-256 sum below, so a
#            result is never published for a different source by mistake
#            (LIBNPY_ANY_SOURCE=1 builds another version anyway)
#   OUT_DIR  default build/adapters/libnpy; make-results.sh looks for
#            BUILD_DIR/adapters/libnpy/libnpy-adapter
#   --sanitize  ASan+UBSan (-O1 -g), for a separate OUT_DIR
#
# C++14, as libnpy's meson.build asks. Needs g++ and OpenSSL (libssl-dev)
# for the adapter's SHA-256.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { sed -n '2,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;$d' >&2; exit 2; }
src=$1
out=${2:-build/adapters/libnpy}
flags="-O2"
[ "${3:-}" = --sanitize ] && flags="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
commit=471fe480d5f1082fd8fd0e746eaf10084a2fb82b
if [ "${LIBNPY_ANY_SOURCE:-0}" != 1 ]; then
    (cd "$src" && sha256sum -c --quiet) <<SUMS || { echo "build.sh: $src is not libnpy at $commit (LIBNPY_ANY_SOURCE=1 to build it anyway)" >&2; exit 1; }
fd05f4c2b9edcf6c42048034850144138062b81129de3ea3270dd7928db63109  include/npy.hpp
SUMS
    version="1.0.1, git $(echo $commit | cut -c1-12) (not packaged; built from that commit)"
else
    version="unpinned source from $src"
fi
mkdir -p "$out"
# shellcheck disable=SC2086
${CXX:-g++} -std=c++14 $flags -I"$src/include" -o "$out/libnpy-adapter" "$here/libnpy-adapter.cpp" -lcrypto
echo "$version" > "$out/VERSION"
echo "$out/libnpy-adapter"
