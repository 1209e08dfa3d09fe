#!/usr/bin/env bash
# The Python package: installed with pip from ./python (offline, Debian's
# setuptools and numpy, no build isolation) into a directory of its own,
# then its pytest suite run against that installed copy.
#   usage: ci/python-test.sh [TARGET_DIR]   (default: build/python)
# The interpreter is /usr/bin/python3 (the one with Debian's numpy and
# pytest) unless NPYG_PYTHON names another.
set -euo pipefail
cd "$(dirname "$0")/.."
py=${NPYG_PYTHON:-/usr/bin/python3}
target=$(realpath -m "${1:-build/python}")
rm -rf "$target"
"$py" -m pip install --quiet --root-user-action=ignore --no-build-isolation --no-deps --no-index --target "$target" ./python
# pip builds in the source tree; leave it as it was.
rm -rf python/build python/npyguard.egg-info
cd python/tests
PYTHONPATH="$target" "$py" -m pytest -q -p no:cacheprovider .
