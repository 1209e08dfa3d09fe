#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs, on Debian 12 as root, whatever the build and tests need and the
# machine lacks. Safe to run again: it only calls apt-get when a package is
# missing. Source it or run it.
set -euo pipefail

NPYG_PACKAGES=(
  build-essential cmake pkg-config      # the build
  libssl-dev                            # SHA-256 in npyvalidate (libcrypto)
  zlib1g-dev                            # .npz inflate (zlib, the default NPYG_INFLATE), and the oracle of the differential harness
  libisal-dev                           # .npz CRC-32, and inflate with NPYG_INFLATE=isal (ISA-L)
  libdeflate-dev                        # bench/floor_whole: libdeflate against ISA-L on whole members
  liblz4-dev                            # RawArray (.ra) LZ4 blocks
  libjansson-dev                        # JSON in the tests and npyconform
  libxtensor-dev                        # the xtensor conformance adapter (load_npy)
  python3 python3-numpy                 # the reference reader (corpus checks)
  python3-dev python3-setuptools python3-pip python3-pytest  # the npyguard Python package
  clang libclang-rt-14-dev llvm         # clang builds, libFuzzer, llvm-cov
  afl++                                 # AFL++ fuzz smoke
  libhdf5-dev                           # HDF5 / MAT v7.3 scan (optional at build time)
  python3-h5py python3-hdf5storage      # corpus/hdf5: regenerate and compare
  libseccomp-dev                        # the HDF5 helper's allow lists (libseccomp)
  strace                                # proof that the HDF5 scan opens no other file; read-only opens (test_robustness.py)
  parallel python3-dask python3-distributed  # the many-machines recipes (bench/test_recipes.sh)
  python3-yaml                          # the conformance CI recipes (GitHub, GitLab YAML) under test
  libvips-dev                           # sharp, which the read-npy-file conformance adapter loads (via numjs)
  python3-jsonschema git                # schema/ tests: the record schema, SARIF, the CI integrations
  python3-fsspec python3-aiohttp python3-requests  # the remote recipe (bench/remote_validate.py): fsspec's HTTP filesystem
  python3-mypy                          # the package's typing checked as a user's
  debhelper dh-python python3-all-dev dpkg-dev  # the Debian packages (debian/, release/make-release.sh)
  lintian devscripts                    # lintian and hardening-check on them (ci/deb-test.sh)
)

# Node.js (for the npyjs conformance adapter) usually comes with the
# machine from outside Debian; install Debian's only when there is none.
command -v node >/dev/null && command -v npm >/dev/null || NPYG_PACKAGES+=(nodejs npm)

missing=()
for p in "${NPYG_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "error: missing packages and not root; run: apt-get install ${missing[*]}" >&2
    exit 2
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
