#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The Python package, built and installed the ways its README gives:
#  1. a wheel by `pip wheel ./python` (offline, Debian's setuptools and
#     numpy, no build isolation), installed into a directory of its own,
#     and the pytest suite run against that installed copy;
#  2. a source package (`setup.py sdist`), unpacked away from the checkout
#     and built into a wheel from its own files only.
#   usage: ci/python-test.sh [TARGET_DIR]   (default: build/python)
# The interpreter is /usr/bin/python3 (the one with Debian's numpy and
# pytest) unless NPYG_PYTHON names another.
set -euo pipefail
cd "$(dirname "$0")/.."
py=${NPYG_PYTHON:-/usr/bin/python3}
target=$(realpath -m "${1:-build/python}")
work=$(mktemp -d "${TMPDIR:-/tmp}/npyguard-py-XXXXXX")
trap 'rm -rf "$work" python/build python/npyguard.egg-info' EXIT
pip=("$py" -m pip --disable-pip-version-check)
quiet=(--quiet --no-build-isolation --no-deps --no-index)
rm -rf "$target"
"${pip[@]}" wheel "${quiet[@]}" --wheel-dir "$work/wheel" ./python
"${pip[@]}" install "${quiet[@]}" --root-user-action=ignore --target "$target" "$work"/wheel/npyguard-*.whl
# The source package builds on its own: no ../parser next to it.
(cd python && "$py" setup.py -q sdist --dist-dir "$work/sdist" >/dev/null 2>&1)
tar -xzf "$work"/sdist/npyguard-*.tar.gz -C "$work"
"${pip[@]}" wheel "${quiet[@]}" --wheel-dir "$work/from-sdist" "$work"/npyguard-*/
test -f "$work"/from-sdist/npyguard-*.whl
cd python/tests
PYTHONPATH="$target" "$py" -m pytest -q -p no:cacheprovider .
