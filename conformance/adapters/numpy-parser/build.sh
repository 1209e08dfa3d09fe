#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Installs numpy-parser 1.2.3 from the npm registry, pinned by package-lock.json.
# usage: conformance/adapters/numpy-parser/build.sh
set -eu
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
