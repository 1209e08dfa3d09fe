#!/bin/sh
# A deliberately wrong adapter, to show that the suite fails when it should.
# It accepts every file without reporting any field, except:
#   invalid/version-4.0.npy      dies of SIGSEGV
#   valid/f8-le-1d-C-v1.npy      hangs (the sleep's pid goes to $BROKEN_PIDFILE)
#   valid/i4-le-1d-C-v1.npy      prints something that is not JSON
#   valid/f4-le-1d-C-v1.npy      exits with status 3
#   valid/f8-be-1d-C-v1.npy      reports a wrong shape
#   unsafe/obj-toplevel-v1.npy   says "ok": true but exits 1
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
*)
    echo '{"ok": true}' ;;
esac
