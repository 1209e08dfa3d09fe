#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The benchmarks (bench/README.md), in one command: builds a Release tree
# (gcc) and, when clang is there, the libFuzzer harnesses, generates the data
# in a temporary directory, runs every benchmark and prints a table and JSON.
#
#   ci/bench.sh                       full run (about 10 minutes on 2 cores)
#   BENCH_QUICK=1 ci/bench.sh         small sizes, a couple of minutes
#   ci/bench.sh --json out.json --markdown out.md [--only header,files,hash,npz,npzspeed,fuzz]
#
# Benchmark 6 (npzspeed: bench/npz_speed.py) loads through the Python
# package, installed here from ./python into BUILD/python, built against
# the same inflater as the tree (NPYG_INFLATE, default zlib).
#
# BENCH_BUILD_DIR: use that (already built) tree instead of build/bench;
# BENCH_FUZZ=0: leave out the fuzz figure. Needs cmake, a C compiler,
# zlib1g-dev, libssl-dev, /usr/bin/python3 with numpy, and the openssl
# command (installed with apt-get when missing and run as root).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=${JOBS:-2}

if ! command -v openssl >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "bench: installing the openssl command" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openssl >/dev/null ||
        echo "bench: could not install openssl; the hashing comparison will be skipped" >&2
fi
if ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    echo "bench: needs numpy under /usr/bin/python3 (apt-get install python3-numpy)" >&2
    exit 2
fi

if [ -z "${BENCH_BUILD_DIR:-}" ]; then
    build=$root/build/bench
    mkdir -p "$root/build"
    echo "bench: building $build (Release)" >&2
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="${CC:-gcc}" \
        -DNPYG_BUILD_TESTS=OFF >"$build.configure.log" 2>&1 || { cat "$build.configure.log" >&2; exit 2; }
    cmake --build "$build" -j"$jobs" --target npyvalidate bench_header floor_files floor_inflate runrss \
        >"$build.build.log" 2>&1 || { tail -40 "$build.build.log" >&2; exit 2; }
    cmake --build "$build" -j"$jobs" --target floor_whole >>"$build.build.log" 2>&1 ||
        echo "bench: floor_whole not built (needs libisal-dev and libdeflate-dev); no row 6f" >&2
else
    build=$BENCH_BUILD_DIR
fi

echo "bench: installing the Python package into $build/python" >&2
pywork=$(mktemp -d "${TMPDIR:-/tmp}/npyguard-bench-py-XXXXXX")
pyq="--quiet --no-build-isolation --no-deps --no-index"
# shellcheck disable=SC2086
if ! { /usr/bin/python3 -m pip --disable-pip-version-check wheel $pyq --wheel-dir "$pywork" ./python &&
       rm -rf "$build/python" &&
       /usr/bin/python3 -m pip --disable-pip-version-check install $pyq --root-user-action=ignore \
           --target "$build/python" "$pywork"/npyguard-*.whl; } >"$build.python.log" 2>&1; then
    tail -20 "$build.python.log" >&2
    rm -rf "$pywork" python/build python/npyguard.egg-info
    exit 2
fi
rm -rf "$pywork" python/build python/npyguard.egg-info

fuzz=
if [ "${BENCH_FUZZ:-1}" != 0 ] && command -v clang >/dev/null 2>&1; then
    fuzz=$root/build/bench-fuzz
    echo "bench: building the libFuzzer harnesses in $fuzz" >&2
    if ! JOBS=$jobs sh fuzz/build.sh libfuzzer "$fuzz" >"$fuzz.build.log" 2>&1; then
        echo "bench: libFuzzer build failed (see $fuzz.build.log); no fuzz figure" >&2
        fuzz=
    fi
fi

exec /usr/bin/python3 "$root/bench/bench.py" --build "$build" ${fuzz:+--fuzz "$fuzz"} "$@"
