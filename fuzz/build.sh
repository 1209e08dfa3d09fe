#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Builds the fuzz harnesses for one engine in its own build directory.
#
#   fuzz/build.sh libfuzzer   clang, libFuzzer + ASan + UBSan   -> build-fuzz-libfuzzer/fuzz/<target>
#   fuzz/build.sh afl         afl-clang-fast, persistent mode    -> build-fuzz-afl/fuzz/<target>_afl{,_cmplog}
#   fuzz/build.sh replay      any cc, ASan + UBSan replay driver -> build-fuzz-replay/fuzz/<target>_replay
#
# Optional second argument: the build directory. FUZZ_CC overrides the
# compiler, JOBS the parallelism (default 2).
set -eu

engine=${1:-}
root=$(cd "$(dirname "$0")/.." && pwd)
case $engine in
libfuzzer) cc=${FUZZ_CC:-clang} ;;
afl) cc=${FUZZ_CC:-afl-clang-fast} ;;
replay) cc=${FUZZ_CC:-cc} ;;
*)
    echo "usage: $0 libfuzzer|afl|replay [BUILD_DIR]" >&2
    exit 2
    ;;
esac
dir=${2:-$root/build-fuzz-$engine}

if ! command -v "$cc" >/dev/null 2>&1; then
    echo "$0: compiler '$cc' not found" >&2
    exit 3
fi

# The tools and unit tests need OpenSSL and jansson; the harnesses need
# neither. A library warning must not stop a fuzz build, hence no -Werror.
cmake -S "$root" -B "$dir" \
    -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DNPYG_BUILD_FUZZERS=ON \
    -DNPYG_FUZZ_ENGINE="$engine" \
    -DNPYG_BUILD_TESTS=OFF \
    -DNPYG_BUILD_TOOLS=OFF \
    -DNPYG_WERROR=OFF
# The harnesses and the instrumented library copies they link, nothing else.
cmake --build "$dir" -j"${JOBS:-2}" --target fuzz_harnesses
echo "$0: $engine harnesses in $dir/fuzz"
