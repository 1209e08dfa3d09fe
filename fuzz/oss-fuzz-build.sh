#!/bin/bash -eu
# SPDX-License-Identifier: BSD-3-Clause
# Builds every harness the way OSS-Fuzz and ClusterFuzzLite expect, from
# their environment ($CC $CFLAGS $CXX $CXXFLAGS $LIB_FUZZING_ENGINE $OUT),
# and puts seeds, dictionaries and options next to the binaries.
# A project's build.sh needs one line:
#
#     $SRC/npyguard/fuzz/oss-fuzz-build.sh
#
# Works for every engine and sanitizer OSS-Fuzz builds (libfuzzer, afl,
# honggfuzz, centipede; address, undefined, memory): it only compiles with
# the flags it is given. Needs zlib and liblz4 (RawArray) headers and
# libraries in the image (Debian: zlib1g-dev liblz4-dev).
root=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-/tmp}/npyguard-oss-fuzz
rm -rf "$work"
mkdir -p "$work" "$OUT"

common="-std=c11 -DNPYG_STATIC -I$root/parser/include"
for src in "$root"/parser/src/*.c; do
    $CC $CFLAGS $common -DNPYG_BUILDING -D_POSIX_C_SOURCE=200809L -fvisibility=hidden \
        -c "$src" -o "$work/lib-$(basename "$src" .c).o"
done
ar rcs "$work/libnpyguard.a" "$work"/lib-*.o

$CC $CFLAGS $common -c "$root/fuzz/fuzz_common.c" -o "$work/fuzz_common.o"
for src in "$root"/fuzz/*_fuzzer.c; do
    t=$(basename "$src" .c)
    extra=
    if [ "$t" = inflate_libdeflate_fuzzer ]; then
        # libdeflate against zlib: only where the image has libdeflate
        echo '#include <libdeflate.h>' | $CC $CFLAGS -E - >/dev/null 2>&1 || continue
        extra=-ldeflate
    fi
    $CC $CFLAGS $common -c "$src" -o "$work/$t.o"
    # Linked by the C++ driver even though npyguard is C (OSS-Fuzz rule).
    ${CXX:-$CC} ${CXXFLAGS:-$CFLAGS} "$work/$t.o" "$work/fuzz_common.o" "$work/libnpyguard.a" $extra -lz -llz4 \
        $LIB_FUZZING_ENGINE -o "$OUT/$t"
done

"$root/fuzz/oss-fuzz-artifacts.sh" "$OUT"
