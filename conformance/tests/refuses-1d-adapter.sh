#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A reader that checks nothing but refuses every 1-D array, naming the
# shape as its reason: it "refuses" every one-defect file built on a 1-D
# base without seeing the defect. The suite must still fail it, on the
# same defects built on 2-D bases, and with --check-reasons on the 1-D
# ones it refused for the wrong reason. Accepted files report no field.
if head -c 4096 "$1" | grep -a -q "'shape': ([0-9]*,)"; then
    echo '{"ok": false, "error": "1-D arrays are not supported", "error_class": "shape"}'
    exit 1
fi
echo '{"ok": true}'
