#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Writes, for every harness fuzz/<target>.c, the files OSS-Fuzz picks up
# next to the binary:
#   OUTDIR/<target>_seed_corpus.zip   seeds from corpus/ (fuzz/seeds.py)
#   OUTDIR/<target>.dict              fuzz/dict.sh <target>
#   OUTDIR/<target>.options           fuzz/<target>.options or default.options
# Needs python3 and zip.
set -eu
out=${1:?usage: oss-fuzz-artifacts.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

python3 "$here/seeds.py" "$tmp/seeds" >/dev/null
for src in "$here"/*_fuzzer.c; do
    t=$(basename "$src" .c)
    rm -f "$out/${t}_seed_corpus.zip"
    if [ -d "$tmp/seeds/$t" ]; then
        (cd "$tmp/seeds/$t" && zip -q -X -r "$out/${t}_seed_corpus.zip" .)
    fi
    "$here/dict.sh" "$t" >"$out/$t.dict"
    if [ -f "$here/$t.options" ]; then
        cp "$here/$t.options" "$out/$t.options"
    else
        cp "$here/default.options" "$out/$t.options"
    fi
done
echo "oss-fuzz artifacts in $out"
