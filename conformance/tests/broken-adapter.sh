#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A deliberately wrong adapter, to show that the suite fails when it should.
# It accepts every file (every archive too, listing no member) without
# reporting any field, except:
#   invalid/version-4.0.npy      dies of SIGSEGV
#   valid/f8-le-1d-C-v1.npy      hangs (the sleep's pid goes to $BROKEN_PIDFILE)
#   valid/i4-le-1d-C-v1.npy      prints something that is not JSON
#   valid/f4-le-1d-C-v1.npy      exits with status 3
#   valid/f8-be-1d-C-v1.npy      reports a wrong shape
#   unsafe/obj-toplevel-v1.npy   says "ok": true but exits 1
#   valid/u1-na-1d-C-v1.npy      exits 1 with no output (as a sanitizer abort does)
#   valid/i2-le-1d-C-v1.npy      with BROKEN_HOG=1: fills 4 GiB of memory, then
#                                answers correctly; with BROKEN_HOG=slow: takes 8 MiB
#                                every 250 ms, too slowly to reach the cap
#                                (1 GiB, 32 s) before the timeout (12 s)
#                                (without either: answers at once)
#   compat/no-trailing-comma-v1.npy  accepts with a wrong shape
#   valid/i8-le-1d-C-v1.npy      reports a shape without fortran_order (ambiguous)
#   valid/u2-le-1d-C-v1.npy      reports the shape as a string (not the protocol's list)
#   valid/c8-le-1d-C-v1.npy      refuses with an error_class the protocol does not have
#   ra/valid/f32-le-2d.ra        reports the dims reversed (row-major order)
# Accepting everything also accepts every strict prefix (group prefix) and
# the path-climbing archives of npz/compat.
case $1 in
*/invalid/version-4.0.npy)
    kill -SEGV $$ ;;
*/valid/f8-le-1d-C-v1.npy)
    sleep 60 &
    [ -n "${BROKEN_PIDFILE:-}" ] && echo $! > "$BROKEN_PIDFILE"
    wait
    echo '{"ok": true}' ;;
*/valid/i4-le-1d-C-v1.npy)
    echo 'Traceback (most recent call last): oops' ;;
*/valid/f4-le-1d-C-v1.npy)
    echo 'internal error' >&2
    exit 3 ;;
*/valid/f8-be-1d-C-v1.npy)
    echo '{"ok": true, "shape": [8], "descr": ">f8", "fortran_order": false}' ;;
*/unsafe/obj-toplevel-v1.npy)
    echo '{"ok": true}'
    exit 1 ;;
*/valid/u1-na-1d-C-v1.npy)
    echo '==1==ERROR: AddressSanitizer: heap-buffer-overflow (pretend)' >&2
    exit 1 ;;
*/valid/i2-le-1d-C-v1.npy)
    if [ "${BROKEN_HOG:-0}" = slow ]; then
        exec python3 -c 'import time
chunks = []
while len(chunks) < 512:
    chunks.append(b"\1" * (8 << 20))
    time.sleep(0.25)
print("{\"ok\": true, \"descr\": \"<i2\", \"shape\": [7], \"fortran_order\": false}")'
    fi
    if [ "${BROKEN_HOG:-0}" != 1 ]; then
        echo '{"ok": true, "descr": "<i2", "shape": [7], "fortran_order": false}'
        exit 0
    fi
    # every page written, so the memory is resident, not just reserved
    python3 -c 'b = b"\1" * (4 << 30); print("{\"ok\": true, \"descr\": \"<i2\", \"shape\": [7], \"fortran_order\": false}")' ;;
*/ra/valid/f32-le-2d.ra)
    echo '{"ok": true, "ndims": 2, "dims": [4, 3]}' ;;
*/valid/i8-le-1d-C-v1.npy)
    echo '{"ok": true, "descr": "<i8", "shape": [7]}' ;;
*/valid/u2-le-1d-C-v1.npy)
    echo '{"ok": true, "descr": "<u2", "shape": "(7,)", "fortran_order": false}' ;;
*/valid/c8-le-1d-C-v1.npy)
    echo '{"ok": false, "error": "no complex numbers", "error_class": "unsupported"}'
    exit 1 ;;
*/compat/no-trailing-comma-v1.npy)
    echo '{"ok": true, "shape": [99], "fortran_order": false}' ;;
*)
    echo '{"ok": true}' ;;
esac
