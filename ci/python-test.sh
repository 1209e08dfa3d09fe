#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The Python package, built and installed the ways its README gives, from
# a copy of python/ and parser/ (nothing is written into the checkout):
#  1. a wheel by `pip wheel` (offline, Debian's setuptools and numpy, no
#     build isolation), which must carry the HDF5 helper and its stand-ins;
#     installed into an empty directory, it loads a MAT file with no
#     environment variable (ci/wheel-loadmat.py, against hdf5storage), and
#     the pytest suite runs against that installed copy;
#  2. a source package (`setup.py sdist`), unpacked elsewhere and built
#     into a wheel from its own files only.
#   usage: ci/python-test.sh [TARGET_DIR] [NPYVALIDATE]   (default: build/python)
# The interpreter is /usr/bin/python3 (the one with Debian's numpy and
# pytest) unless NPYG_PYTHON names another. NPYG_REQUIRE_ALL=1 (CI) makes
# a skipped test a failure: there everything is installed.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
py=${NPYG_PYTHON:-/usr/bin/python3}
target=$(realpath -m "${1:-$src/build/python}")
cli=${2:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/npyguard-py-XXXXXX")
trap 'rm -rf "$work"' EXIT
export PYTHONDONTWRITEBYTECODE=1
pip=("$py" -m pip --disable-pip-version-check)
quiet=(--quiet --no-build-isolation --no-deps --no-index)
fail() { echo "python-test: FAIL: $*" >&2; exit 1; }

mkdir "$work/tree"
tar -C "$src" --exclude=build --exclude='*.egg-info' --exclude=__pycache__ -cf - python parser | tar -C "$work/tree" -xf -
rm -rf "$target"
"${pip[@]}" wheel "${quiet[@]}" --wheel-dir "$work/wheel" "$work/tree/python"
whl=$(ls "$work"/wheel/npyguard-*.whl)
"$py" - "$whl" <<'PY' || fail "the wheel does not carry the HDF5 helper and npyvalidate"
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
modes = {i.filename: i.external_attr >> 16 for i in z.infolist()}
for name in ("npyguard/npyg-hdf5-helper", "npyguard/npyg-h5-nocurl.so", "npyguard/npyg-h5-nocrypto.so",
             "npyguard/npyvalidate"):
    assert name in modes, name + " is not in the wheel"
for name in ("npyguard/npyg-hdf5-helper", "npyguard/npyvalidate"):
    assert modes[name] & 0o111, name + " is not executable in the wheel"
PY
"${pip[@]}" install "${quiet[@]}" --root-user-action=ignore --target "$target" "$whl"

# A clean environment: no NPYG_* variable, run from elsewhere than the
# checkout; the corpus's MAT file loads as hdf5storage.loadmat reads it.
(cd "$work" && env -i PATH=/usr/bin:/bin PYTHONPATH="$target" PYTHONDONTWRITEBYTECODE=1 \
  "$py" "$src/ci/wheel-loadmat.py" "$src/corpus/hdf5/valid/mat/savemat-several.mat")

# The source package builds on its own: no ../parser next to it.
(cd "$work/tree/python" && "$py" setup.py -q sdist --dist-dir "$work/sdist" >/dev/null 2>&1)
mkdir "$work/unpacked"
tar -xzf "$work"/sdist/npyguard-*.tar.gz -C "$work/unpacked"
"${pip[@]}" wheel "${quiet[@]}" --wheel-dir "$work/from-sdist" "$work"/unpacked/npyguard-*/
test -f "$work"/from-sdist/npyguard-*.whl

strict=()
[ "${NPYG_REQUIRE_ALL:-0}" = 1 ] && strict=(--no-skips)
cd "$src/python/tests"
NPYG_CLI=$cli PYTHONPATH="$target" "$py" -m pytest -q -rs -p no:cacheprovider "${strict[@]}" .
