#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Builds an npyconform-style adapter around the reference RawArray C reader
# (github.com/davidssmith/ra, c/ra.c and its bundled c/lz4.c), pinned to
# one upstream commit. Nothing of upstream is kept in this repository: the
# sources are cloned into the build directory at the pinned commit.
#
#   conformance/adapters/ra-c/build.sh [BUILD_DIR]           build (default build-ra-c/)
#   conformance/adapters/ra-c/build.sh --check [BUILD_DIR]   build, then run it over corpus/ra/
#
# Result: BUILD_DIR/ra-c-adapter FILE.ra prints one JSON line, as the
# adapter protocol (conformance/PROTOCOL.md) asks:
#   {"ok": true, "flags": F, "eltype": T, "elbyte": B, "size": S, "ndims": N,
#    "dims": [...], "data_sha256": "<hex of the data segment as stored>"}
# or {"ok": false, "error": "..."} with exit status 1 when the reader
# refused the file. The reader refuses by calling err(3) with a sysexits
# code (EX_DATAERR 65, EX_IOERR 74, EX_OSERR 71, EX_CANTCREAT 73); the
# wrapper turns those exits into refusals. Anything else (a signal, an
# AddressSanitizer report, which exits 99 here) stays a failure: the driver
# is built with ASan so that reading past what the reader allocated is
# seen, not silently tolerated.
#
# The driver uses the reader's normal API the way its own tools do:
# ra_read_header() (the only call that checks the magic), then ra_read()
# (the whole file, header trusted), then ra_decompress() for an LZ4 file;
# the SHA-256 is of r.size bytes at r.data before decompression, as a
# caller of ra_read would use them. Needs git, cc, libssl-dev, and
# github.com or RA_UPSTREAM.
set -eu

# RA_UPSTREAM: another clone or mirror of the same repository (offline builds).
UPSTREAM=${RA_UPSTREAM:-https://github.com/davidssmith/ra.git}
COMMIT=5386c84d8000a678cddf58c335dff3850ef3f241   # 2019-11-10 "add diff type enum", the newest commit

check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=${1:-$root/build-ra-c}
mkdir -p "$out"
out=$(cd "$out" && pwd)

if [ ! -d "$out/ra/.git" ]; then
    git clone -q "$UPSTREAM" "$out/ra"
fi
git -C "$out/ra" -c advice.detachedHead=false checkout -q "$COMMIT"
test "$(git -C "$out/ra" rev-parse HEAD)" = "$COMMIT"

cat >"$out/driver.c" <<'EOF'
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "ra.h"

int main(int argc, char **argv)
{
    if (argc != 2) return 2;
    ra_t h, r;
    memset(&h, 0, sizeof h);
    memset(&r, 0, sizeof r);
    int fd = ra_read_header(&h, argv[1]); /* exits on a bad magic or a short read */
    close(fd);
    ra_free(&h);
    ra_read(&r, argv[1]);
    unsigned char md[32];
    unsigned int n = 0;
    EVP_Digest(r.data, r.size, md, &n, EVP_sha256(), NULL);
    uint64_t flags = r.flags, eltype = r.eltype, elbyte = r.elbyte, size = r.size, ndims = r.ndims;
    uint64_t dims[64];
    uint64_t shown = ndims < 64 ? ndims : 64;
    for (uint64_t k = 0; k < shown; k++) dims[k] = r.dims[k];
    if (r.flags & RA_FLAG_COMPRESSED) ra_decompress(&r); /* exits unless it decodes to elbyte * prod(dims) */
    printf("{\"ok\": true, \"flags\": %llu, \"eltype\": %llu, \"elbyte\": %llu, \"size\": \"%llu\", \"ndims\": %llu, \"dims\": [",
           (unsigned long long)flags, (unsigned long long)eltype, (unsigned long long)elbyte,
           (unsigned long long)size, (unsigned long long)ndims);
    for (uint64_t k = 0; k < shown; k++) printf("%s\"%llu\"", k ? ", " : "", (unsigned long long)dims[k]);
    printf("], \"data_sha256\": \"");
    for (unsigned k = 0; k < n; k++) printf("%02x", md[k]);
    printf("\"}\n");
    ra_free(&r);
    return 0;
}
EOF

san="-fsanitize=address -fno-omit-frame-pointer"
cc -std=gnu99 -O1 -g $san -w -I"$out/ra/c" -o "$out/ra-c-driver" \
    "$out/driver.c" "$out/ra/c/ra.c" "$out/ra/c/lz4.c" -lcrypto -lm

cat >"$out/ra-c-adapter" <<EOF
#!/bin/sh
# Adapter for the reference RawArray C reader at $COMMIT.
err=\$(mktemp)
ASAN_OPTIONS=exitcode=99:detect_leaks=0 "$out/ra-c-driver" "\$1" 2>"\$err"
rc=\$?
case \$rc in
65|71|73|74)
    msg=\$(tr -d '"\\\\' <"\$err" | tr '\n\t' '  ' | cut -c1-300)
    printf '{"ok": false, "error": "exit %s: %s"}\n' "\$rc" "\$msg"
    rm -f "\$err"; exit 1 ;;
esac
cat "\$err" >&2; rm -f "\$err"
exit \$rc
EOF
chmod +x "$out/ra-c-adapter"
echo "ra-c: adapter in $out/ra-c-adapter (upstream $COMMIT)" >&2

[ $check = 1 ] || exit 0
# Every corpus/ra file once: the group, the adapter's verdict, and why.
set +e
cd "$root/corpus/ra"
for f in valid/*.ra invalid/*.ra limit/*.ra; do
    res=$(timeout 10 "$out/ra-c-adapter" "$f" 2>"$out/last.err")
    rc=$?
    case $rc in
    0) v=accept ;;
    1) v=refuse ;;
    124) v=timeout ;;
    99) v="asan:$(grep -m1 -o 'ERROR: AddressSanitizer: [a-z-]*' "$out/last.err" | cut -d' ' -f3)" ;;
    *) v="exit-$rc" ;;
    esac
    printf '%s\t%s\t%s\n' "$f" "$v" "$res"
done
