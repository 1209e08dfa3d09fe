#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Builds the xtensor adapter against Debian's libxtensor-dev (0.24.3 on
# Debian 12; ci/install-deps.sh installs it) and OpenSSL for SHA-256.
# usage: conformance/adapters/xtensor/build.sh [OUTDIR] [--sanitize]
#   OUTDIR defaults to build/adapters/xtensor; --sanitize adds ASan+UBSan.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-build/adapters/xtensor}
flags="-O2"
[ "${2:-}" = --sanitize ] && flags="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
[ -f /usr/include/xtensor/xnpy.hpp ] || { echo "build.sh: libxtensor-dev is not installed" >&2; exit 77; }
mkdir -p "$out"
# shellcheck disable=SC2086
${CXX:-g++} -std=c++17 $flags -o "$out/xtensor-adapter" "$here/xtensor-adapter.cpp" -lcrypto
echo "$out/xtensor-adapter"
