#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Regenerate what the generators own into a temporary directory and compare
# it byte for byte with what is committed. The sets:
#   corpus  gen_corpus.py, gen_npz.py and gen_ra.py: corpus/'s .npy groups,
#           corpus/npz/ and corpus/ra/ with their manifests (the README.md
#           files and fuzz-regressions/ are written by hand)
#   hdf5    gen_hdf5.py: all of corpus/hdf5/ (written without timestamps,
#           with a pinned MAT header clock and seeded #refs# names)
#   pickle  gen_pickles.py: all of corpus/pickle/
#   cases   gen_cases.py: parser/tests/data/numpy_cases.tsv
# Exits 0 when every set asked for is identical, 1 (listing what differs)
# otherwise. A set whose generator needs a module the interpreter lacks is
# skipped with a message.
#
# Usage: gen/check_regen.sh [SET...]   (default: every set)
# PYTHON overrides the interpreter (default /usr/bin/python3).
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
python=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/npyguard-regen.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0

# has MODULE...: the interpreter imports them all.
has() {
    "$python" -c "import $(echo "$@" | tr ' ' ',')" >/dev/null 2>&1
}

# generate SET SCRIPT OUT: runs one generator; its log is shown only when
# it fails.
generate() {
    if ! "$python" "$here/$2" "$3" >"$tmp/$1.log" 2>&1; then
        echo "check_regen: FAIL: $1: $2 failed:"
        cat "$tmp/$1.log"
        return 1
    fi
}

# compare SET GOT COMMITTED PATH...: every file under each PATH (a file or
# a directory, relative to both roots) is in both trees and the same.
compare() {
    set_name=$1 got=$2 committed=$3
    shift 3
    diffs=$(for p in "$@"; do
        [ -e "$got/$p" ] && (cd "$got" && find "$p" -type f)
        [ -e "$committed/$p" ] && (cd "$committed" && find "$p" -type f)
    done | sort -u | while IFS= read -r f; do
        if [ ! -f "$got/$f" ]; then
            echo "  only in the committed tree: $f"
        elif [ ! -f "$committed/$f" ]; then
            echo "  missing from the committed tree: $f"
        elif ! cmp -s "$got/$f" "$committed/$f"; then
            echo "  differs: $f"
        fi
    done)
    if [ -n "$diffs" ]; then
        echo "check_regen: FAIL: $set_name: the regenerated files differ from $committed:"
        echo "$diffs"
        # what differs in the text files (manifests, READMEs), to read in the log
        echo "$diffs" | sed -n 's/^  differs: //p' | while IFS= read -r f; do
            case $f in
            *.json | *.md | *.tsv) diff -u "$committed/$f" "$got/$f" | head -60 ;;
            esac
        done
        return 1
    fi
    n=$(for p in "$@"; do (cd "$got" && find "$p" -type f); done | wc -l)
    echo "check_regen: OK: $set_name: $n files regenerate byte for byte"
}

check_corpus() {
    has numpy || { echo "check_regen: SKIP: corpus: $python has no numpy"; return 0; }
    generate corpus gen_corpus.py "$tmp/corpus" &&
        generate corpus gen_npz.py "$tmp/corpus/npz" &&
        generate corpus gen_ra.py "$tmp/corpus/ra" || return 1
    want=$("$python" -c 'import numpy; print(numpy.__version__)')
    have=$(sed -n 's/^ *"numpy_version": "\([^"]*\)".*/\1/p' "$root/corpus/manifest.json" 2>/dev/null)
    if [ "$want" != "$have" ]; then
        echo "check_regen: note: corpus made with numpy ${have:-?}, regenerating with numpy $want"
    fi
    compare corpus "$tmp/corpus" "$root/corpus" valid compat invalid unsafe manifest.json \
        npz/valid npz/compat npz/invalid npz/unsafe npz/manifest.json ra/valid ra/invalid ra/limit ra/manifest.json
}

check_hdf5() {
    has h5py hdf5storage || { echo "check_regen: SKIP: hdf5: $python has no h5py or hdf5storage"; return 0; }
    generate hdf5 gen_hdf5.py "$tmp/hdf5" || return 1
    generate hdf5 gen_matlab_style.py "$tmp/hdf5/matlab" || return 1
    compare hdf5 "$tmp/hdf5" "$root/corpus/hdf5" .
}

check_pickle() {
    has numpy || { echo "check_regen: SKIP: pickle: $python has no numpy"; return 0; }
    generate pickle gen_pickles.py "$tmp/pickle" || return 1
    compare pickle "$tmp/pickle" "$root/corpus/pickle" .
}

check_cases() {
    has numpy || { echo "check_regen: SKIP: cases: $python has no numpy"; return 0; }
    mkdir -p "$tmp/cases"
    generate cases gen_cases.py "$tmp/cases/numpy_cases.tsv" || return 1
    compare cases "$tmp/cases" "$root/parser/tests/data" numpy_cases.tsv
}

[ $# -gt 0 ] || set -- corpus hdf5 pickle cases
for s in "$@"; do
    case $s in
    corpus | hdf5 | pickle | cases) ;;
    *)
        echo "usage: gen/check_regen.sh [corpus|hdf5|pickle|cases ...]" >&2
        exit 2
        ;;
    esac
done
# The sets are independent (each generator writes its own directory): they
# run side by side, each one process, and report in the order asked.
for s in "$@"; do
    ("check_$s" >"$tmp/$s.out" 2>&1; echo $? >"$tmp/$s.status") &
done
wait
for s in "$@"; do
    cat "$tmp/$s.out"
    [ "$(cat "$tmp/$s.status")" = 0 ] || status=1
done
exit $status
