#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The Debian packages, installed and used as a user would, then removed so
# the machine is left as it was (root; the packages' dependencies must
# already be installed: ci/install-deps.sh):
#   lintian reports no error and no warning that debian/ does not explain;
#   every ELF file the packages install has the hardening flags
#   (hardening-check; the stand-ins have no function that needs a stack
#   canary, so that one check is not asked of them; control-flow
#   protection is asked only of the stand-ins: the others are compiled
#   with -fcf-protection, but Debian 12's C runtime start files carry no
#   IBT/SHSTK property, so the linker leaves the mark off every program
#   and library that links them);
#   with no environment variable, npyvalidate --sandbox-info starts the
#   installed helper, npyvalidate reads a MAT file's objects as h5py
#   shapes them, python3 loads it as hdf5storage.loadmat does, and a C
#   program builds against libnpyguard-dev with pkg-config.
# usage: ci/deb-test.sh DIR   (DIR holds the .debs and the .changes,
#                              e.g. release/make-release.sh's output)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
dir=$(realpath "${1:?usage: ci/deb-test.sh DIR}")
pkgs=(libnpyguard0 libnpyguard-dev npyvalidate python3-npyguard npyconform)
fail() { echo "deb-test: FAIL: $*" >&2; exit 1; }
for p in "${pkgs[@]}"; do
  ! dpkg -s "$p" >/dev/null 2>&1 || fail "$p is installed already; this test installs and removes it"
done
debs=()
for p in "${pkgs[@]}"; do debs+=("$(ls "$dir"/"$p"_*.deb)"); done

echo "== lintian"
out=$(lintian --tag-display-limit 0 "${debs[@]}" 2>&1 | grep -E '^[EW]: ' || true)
[ -z "$out" ] || { echo "$out"; fail "lintian reports the above"; }

tmp=$(mktemp -d)
trap 'dpkg --purge "${pkgs[@]}" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
echo "== dpkg -i"
dpkg -i "${debs[@]}" >/dev/null

echo "== hardening-check"
for p in "${pkgs[@]}"; do
  for f in $(dpkg -L "$p"); do
    [ -f "$f" ] && [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
    case $f in
      */npyg-h5-no*.so) hardening-check --quiet --nostackprotector --nofortify "$f" ;;
      *) hardening-check --quiet --nocfprotection "$f" ;;
    esac || fail "$f lacks a hardening flag"
    echo "$f: hardened"
  done
done

clean=(env -i PATH=/usr/bin:/bin)
cd "$tmp"
echo "== npyvalidate"
"${clean[@]}" npyvalidate --sandbox-info
got=$("${clean[@]}" npyvalidate "$src/corpus/hdf5/valid/mat/savemat-several.mat" | sed 's/^.*savemat-several.mat://') ||
  fail "npyvalidate failed on the MAT file: $got"
want=$'/a: ok float64 shape=(3, 2)\n/b: ok uint16 shape=(4, 1)\n/c: ok group\n/c/d: ok int32 shape=(1, 1)'
[ "$got" = "$want" ] || fail "npyvalidate printed: $got"
# the record the schema describes, checked against the installed schema
"${clean[@]}" npyvalidate --json "$src/corpus/hdf5/valid/mat/savemat-several.mat" >record.json
/usr/bin/python3 -c 'import json, jsonschema; jsonschema.validate(json.load(open("record.json")), json.load(open("/usr/share/npyguard/schema/npyvalidate-record.schema.json")))' ||
  fail "the record does not match the installed schema"
echo "== python3-npyguard"
"${clean[@]}" /usr/bin/python3 "$src/ci/wheel-loadmat.py" "$src/corpus/hdf5/valid/mat/savemat-several.mat"
"${clean[@]}" /usr/bin/python3 -c 'import npyguard, sys; sys.exit(not npyguard.__file__.startswith("/usr/lib/python3/dist-packages/"))' ||
  fail "python3 did not import the packaged npyguard"
echo "== libnpyguard-dev"
# shellcheck disable=SC2046
cc -o consumer "$src/ci/consumer/consumer.c" $(pkg-config --cflags --libs npyguard)
version=$(pkg-config --modversion npyguard)
[ "$(./consumer)" = "npyguard $version: ok, data at 128" ] || fail "the pkg-config consumer printed $(./consumer)"
echo "== npyconform"
"${clean[@]}" npyconform --help >/dev/null
echo "deb-test: OK (installed, used, removed)"
