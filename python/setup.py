# SPDX-License-Identifier: BSD-3-Clause
"""Builds npyguard._core from the C library's own sources.

The extension and the C library are one parser: the sources are compiled
in, not copied into the repository. From a checkout they are read from
../parser; a source package (`python3 setup.py sdist`) carries them in its
own parser/ folder, so it builds anywhere with a C compiler, the Python
headers, and the zlib, ISA-L and liblz4 headers (Debian: python3-dev
zlib1g-dev libisal-dev liblz4-dev; NPYG_INFLATE=zlib builds without ISA-L). No network and no build isolation are needed.
"""
import glob
import os
import re
import shutil

from setuptools import Extension, setup
from setuptools.command.sdist import sdist

here = os.path.dirname(os.path.abspath(__file__))
bundled = os.path.join(here, "parser")
parser = bundled if os.path.isdir(os.path.join(bundled, "src")) else os.path.join(here, os.pardir, "parser")
if not os.path.isdir(os.path.join(parser, "src")):
    raise SystemExit("npyguard: the C library's sources (parser/src) are missing; "
                     "build from a checkout of the repository or from its source package")


def library_version():
    """The version is written once, in npyguard.h."""
    parts = {}
    with open(os.path.join(parser, "include", "npyguard.h"), encoding="ascii") as f:
        for line in f:
            m = re.match(r"#define NPYG_VERSION_(MAJOR|MINOR|PATCH) (\d+)$", line.rstrip("\n"))
            if m:
                parts[m.group(1)] = m.group(2)
    if sorted(parts) != ["MAJOR", "MINOR", "PATCH"]:
        raise SystemExit("npyguard: parser/include/npyguard.h has no NPYG_VERSION_MAJOR/MINOR/PATCH")
    return "{MAJOR}.{MINOR}.{PATCH}".format(**parts)


# setuptools wants source paths relative to setup.py.
library = sorted(os.path.relpath(p, here) for p in glob.glob(os.path.join(parser, "src", "*.c")))
# One inflater (parser/src/inflate.h): ISA-L unless NPYG_INFLATE=zlib, as
# in the CMake build.
inflater = os.environ.get("NPYG_INFLATE", "isal")
if inflater not in ("isal", "zlib"):
    raise SystemExit("npyguard: NPYG_INFLATE must be isal or zlib, not %r" % inflater)
library = [p for p in library if not os.path.basename(p).startswith("inflate_") or p.endswith("inflate_%s.c" % inflater)]
# HDF5 files are loaded through the library's sandbox: the parent side
# (scan.c) is linked, libhdf5 is not a dependency; the helper program
# (npyg-hdf5-helper, built with the C library) is found through
# $NPYG_HDF5_HELPER, next to the extension, or in LIBEXECDIR/npyguard.
library += [os.path.relpath(os.path.join(parser, "src", "hdf5", f), here) for f in ("limits.c", "scan.c")]
libexec = os.environ.get("NPYG_HDF5_LIBEXECDIR", "/usr/local/libexec")


class sdist_with_library(sdist):
    """The source package holds the library's headers and sources (under
    parser/, where setup.py looks first), not paths into a checkout."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, [f for f in files if not f.startswith(os.pardir)])
        for sub, patterns in (("include", ("*.h",)), ("src", ("*.c", "*.h")), (os.path.join("src", "hdf5"), ("*.c", "*.h"))):
            dst = os.path.join(base_dir, "parser", sub)
            os.makedirs(dst, exist_ok=True)
            for pattern in patterns:
                for f in glob.glob(os.path.join(parser, sub, pattern)):
                    shutil.copy2(f, dst)


setup(
    version=library_version(),
    cmdclass={"sdist": sdist_with_library},
    ext_modules=[
        Extension(
            "npyguard._core",
            sources=["src/_core.c"] + library,
            include_dirs=[os.path.relpath(os.path.join(parser, "include"), here),
                          os.path.relpath(os.path.join(parser, "src"), here)],
            define_macros=[("NPYG_STATIC", "1"), ("NPYG_BUILDING", "1"), ("_POSIX_C_SOURCE", "200809L"),
                           ("NPYG_HDF5_LIBEXECDIR", '"%s"' % libexec),
                           ("NPYG_HDF5_LIBEXEC_FROM_LIB", '"../libexec"'),
                           ("NPYG_HDF5_LIBEXEC_FROM_BIN", '"../libexec"')],
            # zlib (and ISA-L) for .npz, liblz4 for compressed RawArray
            libraries=["z", "lz4"] + (["isal"] if inflater == "isal" else []),
            extra_compile_args=["-std=c11", "-fvisibility=hidden", "-Wall", "-Wextra"],
        )
    ],
)
