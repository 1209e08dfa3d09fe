#!/bin/sh
# Regenerate the corpus (gen_corpus.py), its archives (gen_npz.py) and the
# RawArray files (gen_ra.py) into
# a temporary directory and compare them byte for byte with the committed
# corpus/, corpus/npz/ and corpus/ra/. Exits 0 when identical, 1 (listing the files that
# differ) otherwise, and 0 with a skip message when the interpreter has no
# numpy.
#
# Usage: gen/check_regen.sh [CORPUSDIR]   (default: corpus/ next to gen/)
# PYTHON overrides the interpreter (default /usr/bin/python3).
set -u

here=$(cd "$(dirname "$0")" && pwd)
corpus=${1:-"$here/../corpus"}
corpus=$(cd "$corpus" 2>/dev/null && pwd) || { echo "check_regen: no corpus directory ${1:-}"; exit 2; }
python=${PYTHON:-/usr/bin/python3}

if ! "$python" -c 'import numpy' >/dev/null 2>&1; then
    echo "check_regen: SKIP: $python has no numpy; corpus not regenerated"
    exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/npyguard-regen.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

generate() {  # SCRIPT OUTDIR
    if ! "$python" "$here/$1" "$2" >"$tmp/gen.log" 2>&1; then
        echo "check_regen: FAIL: $1 failed:"
        cat "$tmp/gen.log"
        exit 1
    fi
}
generate gen_corpus.py "$tmp/corpus"
generate gen_npz.py "$tmp/corpus/npz"
generate gen_ra.py "$tmp/corpus/ra"

want=$("$python" -c 'import numpy; print(numpy.__version__)')
have=$(sed -n 's/^ *"numpy_version": "\([^"]*\)".*/\1/p' "$corpus/manifest.json" 2>/dev/null)
if [ "$want" != "$have" ]; then
    echo "check_regen: note: corpus made with numpy ${have:-?}, regenerating with numpy $want"
fi

# Only what the generators own is compared (the README.md files and
# fuzz-regressions/ are written by hand).
diffs=$(cd "$tmp/corpus" && {
    for g in valid compat invalid unsafe npz/valid npz/compat npz/invalid npz/unsafe ra/valid ra/invalid ra/limit; do
        [ -d "$g" ] && find "$g" -type f
        [ -d "$corpus/$g" ] && (cd "$corpus" && find "$g" -type f)
    done
    echo manifest.json
    echo npz/manifest.json
    echo ra/manifest.json
} | sort -u | while IFS= read -r f; do
    if [ ! -f "$tmp/corpus/$f" ]; then
        echo "  only in committed corpus: $f"
    elif [ ! -f "$corpus/$f" ]; then
        echo "  missing from committed corpus: $f"
    elif ! cmp -s "$tmp/corpus/$f" "$corpus/$f"; then
        echo "  differs: $f"
    fi
done)

if [ -n "$diffs" ]; then
    echo "check_regen: FAIL: regenerated corpus differs from $corpus:"
    echo "$diffs"
    exit 1
fi
n=$(cd "$tmp/corpus" && find valid compat invalid unsafe npz/valid npz/compat npz/invalid npz/unsafe ra/valid ra/invalid ra/limit -type f | wc -l)
echo "check_regen: OK: $n files, manifest.json, npz/manifest.json and ra/manifest.json regenerate byte for byte"
exit 0
