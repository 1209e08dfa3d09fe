#!/bin/sh
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
#                                answers correctly (without it: answers at once)
#   compat/no-trailing-comma-v1.npy  accepts with a wrong shape
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
    echo '{"ok": true, "shape": [8], "descr": ">f8"}' ;;
*/unsafe/obj-toplevel-v1.npy)
    echo '{"ok": true}'
    exit 1 ;;
*/valid/u1-na-1d-C-v1.npy)
    echo '==1==ERROR: AddressSanitizer: heap-buffer-overflow (pretend)' >&2
    exit 1 ;;
*/valid/i2-le-1d-C-v1.npy)
    if [ "${BROKEN_HOG:-0}" != 1 ]; then
        echo '{"ok": true, "descr": "<i2", "shape": [7]}'
        exit 0
    fi
    # every page written, so the memory is resident, not just reserved
    python3 -c 'b = b"\1" * (4 << 30); print("{\"ok\": true, \"descr\": \"<i2\", \"shape\": [7]}")' ;;
*/ra/valid/f32-le-2d.ra)
    echo '{"ok": true, "ndims": 2, "dims": [4, 3]}' ;;
*/compat/no-trailing-comma-v1.npy)
    echo '{"ok": true, "shape": [99]}' ;;
*)
    echo '{"ok": true}' ;;
esac
