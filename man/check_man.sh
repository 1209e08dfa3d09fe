#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A man page and its command's --help name the same options.
# Usage: check_man.sh COMMAND MANPAGE
# The options of --help are the -x / --xxx words before the text column of
# its indented lines; those of the man page are the words of each .TP item.
# Prints what one has and the other lacks; exits 1 if anything.
set -eu
[ $# -eq 2 ] || { echo "usage: check_man.sh COMMAND MANPAGE" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check_man.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
words() { grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z0-9-]*' | sed 's/^[ ,]//' | sort -u; }

"$1" --help >"$tmp/help"
grep -E '^[[:space:]]+-' "$tmp/help" | sed -E 's/^[[:space:]]+//; s/ {2,}.*//' | words >"$tmp/h"
awk 'prev == ".TP" && /^\\fB\\-/ { print } { prev = $0 }' "$2" |
    sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' | words >"$tmp/m"

status=0
for o in $(comm -23 "$tmp/h" "$tmp/m"); do echo "FAIL: $o is in --help but not in $2"; status=1; done
for o in $(comm -13 "$tmp/h" "$tmp/m"); do echo "FAIL: $o is in $2 but not in --help"; status=1; done
[ -s "$tmp/h" ] || { echo "FAIL: no options found in --help"; status=1; }
echo "$(wc -l <"$tmp/h") options in --help, $(wc -l <"$tmp/m") in $2"
exit $status
