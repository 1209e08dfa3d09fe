#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds every release artifact of the committed HEAD, from a clean export
# of it, into OUTDIR (default: build/dist/, beside the CMake builds):
#   npyguard-V.tar.gz           the source tree (git archive)
#   npyguard-V.sdist.tar.gz     the Python source package (setup.py sdist)
#   npyguard-V-*.whl            the Python wheel, HDF5 helper included
#   npyconform-W.tar.gz         the conformance suite, at its own version (conformance/release.sh)
#   *.deb                       the Debian packages (dpkg-buildpackage -b)
#   SHA256SUMS
# Run twice, it gives the same bytes (compare with cmp): every timestamp
# is SOURCE_DATE_EPOCH, the last commit's time; tarballs are written with
# sorted names, owner 0 and gzip -n; and everything is built under one
# fixed path (BUILDDIR, default /tmp/npyguard-release), because compilers
# write the build path into the debugging information of the .so, the
# helper and the .debs. Two runs with different BUILDDIRs differ in those.
# REV (default HEAD) names the commit to build, so that a second run can
# build the very commit of the first whatever was committed since.
#   usage: [REV=commit] release/make-release.sh [OUTDIR]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$src/build/dist}")
build=${BUILDDIR:-/tmp/npyguard-release}
py=${NPYG_PYTHON:-/usr/bin/python3}
die() { echo "make-release: $*" >&2; exit 1; }
rev=$(git -C "$src" rev-parse --verify "${REV:-HEAD}^{commit}")
if [ -z "${REV:-}" ]; then
  [ -z "$(git -C "$src" status --porcelain --untracked-files=no)" ] ||
    die "uncommitted changes: the release is built from HEAD; commit or stash them"
fi
SOURCE_DATE_EPOCH=$(git -C "$src" log -1 --format=%ct "$rev")
export SOURCE_DATE_EPOCH TZ=UTC LC_ALL=C.UTF-8 PYTHONDONTWRITEBYTECODE=1
version=$(for p in MAJOR MINOR PATCH; do
  git -C "$src" show "$rev:parser/include/npyguard.h" | sed -n "s/^#define NPYG_VERSION_$p \([0-9]*\)$/\1/p"; done | paste -sd.)
debversion=$(git -C "$src" show "$rev:debian/changelog" | dpkg-parsechangelog -l - -S Version)
[ "$debversion" = "$version" ] || die "debian/changelog is at $debversion, npyguard.h at $version"
name=npyguard-$version
# deterministic tar.gz of DIR's entry NAME: TARBALL DIR NAME
pack() {
  tar -C "$2" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime -cf - "$3" | gzip -9 -n > "$1"
}

rm -rf "$build" "$out"
mkdir -p "$build" "$out"
echo "== source tarball (git archive of $rev)"
git -C "$src" archive --format=tar --prefix="$name/" "$rev" | gzip -9 -n > "$out/$name.tar.gz"
tar -C "$build" -xzf "$out/$name.tar.gz"
tree=$build/$name

echo "== Python source package and wheel"
cp -a "$tree/python" "$tree/parser" "$build/"   # setup.py finds ../parser
(cd "$build/python" && "$py" setup.py -q sdist --dist-dir "$build/sdist" >/dev/null 2>&1)
mkdir "$build/sdist-x"
tar -C "$build/sdist-x" -xzf "$build"/sdist/npyguard-"$version".tar.gz
pack "$out/$name.sdist.tar.gz" "$build/sdist-x" "npyguard-$version"
"$py" -m pip --disable-pip-version-check wheel --quiet --no-build-isolation --no-deps --no-index \
  --wheel-dir "$out" "$build/python"

echo "== conformance tarball"
(cd "$tree" && sh conformance/release.sh "$build/conformance" >/dev/null)
cp "$build"/conformance/npyconform-*.tar.gz "$out/"

echo "== Debian packages"
(cd "$tree" && DEB_BUILD_OPTIONS="parallel=$(nproc) ${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage -us -uc -b >"$build/deb.log" 2>&1) ||
  { tail -40 "$build/deb.log"; die "dpkg-buildpackage failed (log: $build/deb.log)"; }
cp "$build"/*.deb "$out/"

(cd "$out" && sha256sum -- * > SHA256SUMS)
echo "== $out"
cat "$out/SHA256SUMS"
