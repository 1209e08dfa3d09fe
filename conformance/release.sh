#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Builds the release artifact of the NPY conformance suite, one tarball:
#
#   npyconform-<version>/bin/npyconform                the runner (static when the toolchain allows)
#   npyconform-<version>/share/npyconform/corpus/      the cases and their manifests
#   npyconform-<version>/share/doc/npyconform/         conformance/ of the repository: README.md, PROTOCOL.md,
#                                                      RESULTS.md, CHANGELOG.md, VERSION, ci/ recipes, adapters/, skips/
#   npyconform-<version>/src/, Makefile                to rebuild the runner elsewhere (make; make install PREFIX=...)
#
# The runner finds the corpus beside itself (BIN/../share/npyconform/corpus),
# so the unpacked directory works wherever it is, and so does `make install`.
#
# usage: conformance/release.sh [OUTDIR]      (default: ./dist)
# Needs a C compiler ($CC, default cc), pkg-config and jansson; run it from
# a clone of the repository. Refuses when conformance/VERSION, the corpus
# manifest's suite_version and the tag npyconform-<version> (when it
# exists) disagree.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=${1:-$PWD/dist}
cc=${CC:-cc}

die() { echo "release.sh: $*" >&2; exit 1; }

version=$(cat "$here/VERSION")
printf '%s\n' "$version" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$' || die "VERSION '$version' is not X.Y.Z"
suite=$(sed -n 's/^ *"suite_version": "\([^"]*\)".*/\1/p' "$root/corpus/manifest.json")
[ "$suite" = "$version" ] || die "conformance/VERSION is $version but corpus/manifest.json says suite $suite"
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
    tag=npyconform-$version
    if git -C "$root" rev-parse -q --verify "refs/tags/$tag" >/dev/null; then
        [ "$(git -C "$root" cat-file -t "$tag")" = tag ] || die "$tag is a lightweight tag; make it annotated (git tag -a)"
        [ "$(git -C "$root" rev-parse "$tag^{commit}")" = "$(git -C "$root" rev-parse HEAD)" ] ||
            die "$tag exists but is not HEAD: version $version was released from another commit; raise VERSION"
    else
        echo "release.sh: note: no tag $tag yet (git tag -a $tag -m 'npyconform $version')" >&2
    fi
    [ -z "$(git -C "$root" status --porcelain -- conformance corpus)" ] ||
        echo "release.sh: note: conformance/ or corpus/ has uncommitted changes" >&2
fi

name=npyconform-$version
stage=$(mktemp -d "${TMPDIR:-/tmp}/npyconform-release.XXXXXX")
trap 'rm -rf "$stage"' EXIT INT TERM
d=$stage/$name
mkdir -p "$d/bin" "$d/src" "$d/share/npyconform" "$d/share/doc/npyconform/ci"

# The sources and a Makefile that rebuilds them: the same command as below.
cp "$here"/src/npyconform.c "$here"/src/descr.c "$here"/src/descr.h "$here"/src/spawn.c "$here"/src/spawn.h "$d/src/"
cat > "$d/Makefile" <<EOF
# npyconform $version: make rebuilds bin/npyconform (C11, pthreads, jansson);
# make install PREFIX=/usr/local copies the runner and its corpus.
CC ?= cc
CFLAGS ?= -O2
PREFIX ?= /usr/local
SRC = src/npyconform.c src/descr.c src/spawn.c

bin/npyconform: \$(SRC) src/descr.h src/spawn.h
	\$(CC) \$(CFLAGS) -std=c11 -D_POSIX_C_SOURCE=200809L -DNPYCONFORM_VERSION='"$version"' \\
	    \$\$(pkg-config --cflags jansson) -o \$@ \$(SRC) \$\$(pkg-config --libs jansson) -lpthread -lm

install: bin/npyconform
	mkdir -p \$(DESTDIR)\$(PREFIX)/bin \$(DESTDIR)\$(PREFIX)/share/npyconform \$(DESTDIR)\$(PREFIX)/share/doc
	cp bin/npyconform \$(DESTDIR)\$(PREFIX)/bin/
	cp -R share/npyconform/corpus \$(DESTDIR)\$(PREFIX)/share/npyconform/
	cp -R share/doc/npyconform \$(DESTDIR)\$(PREFIX)/share/doc/

.PHONY: install
EOF

# A static runner runs on any Linux of the architecture; when the static
# jansson or libc is missing, a dynamic one (needs libjansson at run time).
jc=$(pkg-config --cflags jansson) || die "pkg-config finds no jansson (Debian: libjansson-dev)"
compile() { # extra flags and libraries after the sources
    # shellcheck disable=SC2086 # $cc and $jc are word lists
    $cc -O2 -std=c11 -Wall -Wextra -D_POSIX_C_SOURCE=200809L "-DNPYCONFORM_VERSION=\"$version\"" $jc \
        -o "$d/bin/npyconform" "$d"/src/npyconform.c "$d"/src/descr.c "$d"/src/spawn.c "$@"
}
# shellcheck disable=SC2046 # pkg-config prints a word list
if compile -static $(pkg-config --static --libs jansson) -lpthread -lm 2>"$stage/static.log"; then
    link=static
else
    # shellcheck disable=SC2046
    compile $(pkg-config --libs jansson) -lpthread -lm || die "the runner does not build"
    link="dynamic (no static jansson or libc here)"
fi

# The corpus, copied by the runner itself (npyconform copy: its manifest and group directories).
"$d/bin/npyconform" --corpus "$root/corpus" copy "$d/share/npyconform/corpus" ||
    die "npyconform copy failed"
# The corpus's own READMEs, which the suite's README links to.
for f in README.md npz/README.md ra/README.md; do
    if [ -f "$root/corpus/$f" ]; then cp "$root/corpus/$f" "$d/share/npyconform/corpus/$f"; fi
done
# Everything the README and PROTOCOL name: the docs, RESULTS.md, the CI
# recipes, the adapters of the published readers (sources, package locks,
# build scripts; never node_modules), the skip files, the scripts. The
# tracked files of conformance/ when this is a clone, else the directory
# without what builds leave in it.
doc=$d/share/doc/npyconform
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
    git -C "$root" ls-files -z conformance | (cd "$root" && xargs -0 tar -cf -) | tar -C "$stage" -xf -
    cp -R "$stage/conformance/." "$doc/" && rm -rf "$stage/conformance"
else
    (cd "$here" && find . -name node_modules -prune -o -type f -print | tar -cf - -T -) | tar -C "$doc" -xf -
fi
# In the tarball the corpus is share/npyconform/corpus, not ../corpus.
find "$doc" -name '*.md' -exec sed -i 's#](\.\./corpus/#](../../npyconform/corpus/#g' {} +

# What is packed must run from where it is, and carry the version.
got=$("$d/bin/npyconform" --version | head -n 1)
[ "$got" = "npyconform $version" ] || die "the packed runner says '$got'"
n=$("$d/bin/npyconform" list | wc -l)
m=$("$d/bin/npyconform" --corpus "$root/corpus" list | wc -l)
[ "$n" = "$m" ] && [ "$n" -gt 0 ] ||
    die "the packed corpus has $n cases, the repository $m"

mkdir -p "$out"
tarball=$out/$name.tar.gz
# reproducible: sorted names, fixed owner and time
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -cf - "$name" | gzip -n > "$tarball"
(cd "$out" && sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")
echo "release.sh: $tarball ($link runner, $n cases)"
