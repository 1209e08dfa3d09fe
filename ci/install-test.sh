#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs npyguard into temporary prefixes, static and shared, moves each
# installed tree elsewhere (the packages must not remember where they were
# installed), and builds ci/consumer/ against it twice: with CMake's
# find_package(npyguard) and with pkg-config. The shared library must carry
# a versioned SONAME and export only npyg_ symbols; the man pages must be
# installed. Usage: ci/install-test.sh [C_COMPILER]   (default: cc)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
cc=${1:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/npyguard-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install-test: FAIL: $*" >&2; exit 1; }
version=$(for p in MAJOR MINOR PATCH; do sed -n "s/^#define NPYG_VERSION_$p \([0-9]*\)$/\1/p" "$src/parser/include/npyguard.h"; done | paste -sd.)
want="npyguard $version: ok, data at 128"

for kind in static shared; do
  shared=OFF; [ "$kind" = shared ] && shared=ON
  echo "== $kind: build, install, move"
  cmake -S "$src" -B "$tmp/build-$kind" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$cc" \
    -DBUILD_SHARED_LIBS=$shared -DNPYG_BUILD_TESTS=OFF -DCMAKE_INSTALL_PREFIX=/nonexistent >/dev/null
  cmake --build "$tmp/build-$kind" -j2 >/dev/null
  cmake --install "$tmp/build-$kind" --prefix "$tmp/installed-$kind" >/dev/null
  mv "$tmp/installed-$kind" "$tmp/moved-$kind"
  prefix=$tmp/moved-$kind
  pcdir=$(dirname "$(find "$prefix" -name npyguard.pc)")
  [ -f "$prefix/share/man/man1/npyvalidate.1" ] || fail "$kind: npyvalidate.1 not installed"
  [ -f "$prefix/share/man/man1/npyconform.1" ] || fail "$kind: npyconform.1 not installed"
  # the HDF5 helper (with libhdf5): found by the moved npyvalidate
  if [ -n "$(find "$prefix" -name npyg-hdf5-helper)" ]; then
    LD_LIBRARY_PATH="$(ls -d "$prefix"/lib* | grep -v /libexec)" "$prefix/bin/npyvalidate" --sandbox-info >/dev/null ||
      fail "$kind: the moved npyvalidate cannot start its HDF5 helper"
  fi
  libdir=$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=libdir npyguard)
  [ "$(cd "$libdir" && pwd)" = "$(cd "$(ls -d "$prefix"/lib* | grep -v /libexec)" && pwd)" ] || fail "$kind: pkg-config libdir $libdir is not under $prefix"

  if [ "$kind" = shared ]; then
    so=$(find "$prefix" -name 'libnpyguard.so.*.*' | head -1)
    [ -n "$so" ] || fail "no versioned libnpyguard.so.X.Y.Z installed"
    soname=$(objdump -p "$so" | awk '$1 == "SONAME" {print $2}')
    # the ABI generation (docs/c-library.md): 0 for 0.1 and 0.2, then 0.MINOR through 0.x, MAJOR from 1.0
    abi=$(awk -F. '{ print ($1 > 0) ? $1 : (($2 < 3) ? 0 : $1 "." $2) }' <<<"$version")
    [ "$soname" = "libnpyguard.so.$abi" ] || fail "SONAME '$soname' is not libnpyguard.so.$abi"
    [ -e "$(dirname "$so")/$soname" ] || fail "no $soname link installed"
    exported=$(nm -D --defined-only "$so" | awk '$2 ~ /^[TDBR]$/ {print $3}')
    [ -n "$exported" ] || fail "nothing exported"
    bad=$(echo "$exported" | grep -v '^npyg_[a-z0-9]' || true)
    [ -z "$bad" ] || fail "exported beyond the npyg_ API: $(echo $bad)"
    # npyguard.h's functions and the deprecated input forms of npyguard_compat.h
    declared=$(sed -n 's/^NPYG_API[^(]*[ *]\(npyg_[a-z0-9_]*\)(.*/\1/p' "$src/parser/include/npyguard.h" \
                 "$src/parser/include/npyguard_compat.h" | sort)
    [ "$(echo "$exported" | sort)" = "$declared" ] ||
      fail "exported symbols differ from the headers' NPYG_API functions: $(diff <(echo "$exported" | sort) <(echo "$declared") | tr '\n' ' ')"
    echo "$so: SONAME $soname, $(echo "$exported" | wc -l) symbols, exactly the headers' NPYG_API functions"
  else
    [ -f "$(find "$prefix" -name libnpyguard.a | head -1)" ] || fail "no libnpyguard.a installed"
  fi

  # A static library's dependencies are named as targets its users' CMake
  # finds again (ZLIB::ZLIB, npyguard::lz4), never as the builder's paths.
  links=$(grep -h 'INTERFACE_LINK_LIBRARIES' "$prefix"/lib*/cmake/npyguard/npyguardTargets*.cmake || true)
  case $links in *'"/'*|*';/'*) fail "$kind: the CMake package links a path of the machine that built it: $links" ;; esac

  echo "== $kind: CMake find_package consumer"
  cmake -S "$src/ci/consumer" -B "$tmp/consumer-cmake-$kind" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  cmake --build "$tmp/consumer-cmake-$kind" >/dev/null
  got=$("$tmp/consumer-cmake-$kind/consumer") || fail "$kind: the CMake consumer failed: $got"
  [ "$got" = "$want" ] || fail "$kind: CMake consumer printed '$got'"

  echo "== $kind: pkg-config consumer"
  static_flag=; [ "$kind" = static ] && static_flag=--static
  flags=$(PKG_CONFIG_PATH=$pcdir pkg-config $static_flag --cflags --libs npyguard)
  # shellcheck disable=SC2086
  "$cc" -o "$tmp/consumer-pc-$kind" "$src/ci/consumer/consumer.c" $flags -Wl,-rpath,"$libdir"
  got=$("$tmp/consumer-pc-$kind") || fail "$kind: the pkg-config consumer failed: $got"
  [ "$got" = "$want" ] || fail "$kind: pkg-config consumer printed '$got'"
  # ldd's whole output first: grep -q stops reading at its match, and under
  # pipefail the SIGPIPE that ldd then gets (a long list, with libhdf5's
  # dependencies) would fail the pipe
  deps=$(ldd "$tmp/consumer-pc-$kind")
  if [ "$kind" = shared ]; then
    grep -q "libnpyguard.so.*$prefix" <<<"$deps" || fail "pkg-config consumer is not linked to the installed .so"
  else
    ! grep -q libnpyguard <<<"$deps" || fail "static consumer depends on a shared libnpyguard"
  fi
  echo "$kind: ok ($flags)"
done
echo "install-test: OK"
