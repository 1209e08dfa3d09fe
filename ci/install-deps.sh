#!/usr/bin/env bash
# Installs, on Debian 12 as root, whatever the build and tests need and the
# machine lacks. Safe to run again: it only calls apt-get when a package is
# missing. Source it or run it.
set -euo pipefail

NPYG_PACKAGES=(
  build-essential cmake pkg-config      # the build
  libssl-dev                            # SHA-256 in npyvalidate (libcrypto)
  zlib1g-dev                            # .npz inflate
  libjansson-dev libxtensor-dev                        # JSON in the tests and npyconform
  python3 python3-numpy                 # the reference reader (corpus checks)
  clang libclang-rt-14-dev llvm         # clang builds, libFuzzer, llvm-cov
  afl++                                 # AFL++ fuzz smoke
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
