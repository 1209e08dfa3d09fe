"""Builds npyguard._core from the C library's own sources in ../parser.

The extension and the C library are one parser: the sources are compiled
in, not copied, so `pip install ./python` must run from a checkout of the
repository (it builds in place; no network, no build isolation needed).
"""
import glob
import os

from setuptools import Extension, setup

here = os.path.dirname(os.path.abspath(__file__))
parser = os.path.join(here, os.pardir, "parser")
# setuptools wants source paths relative to setup.py.
library = sorted(os.path.relpath(p, here) for p in glob.glob(os.path.join(parser, "src", "*.c")))
# The package loads .npy, .npz and .ra; HDF5 files are only recognised
# here (the libhdf5 scan is npyvalidate's), so the library's no-HDF5 half
# is linked and libhdf5 is not a dependency.
library += [os.path.relpath(os.path.join(parser, "src", "hdf5", f), here) for f in ("limits.c", "none.c")]
if not library:
    raise SystemExit("npyguard: ../parser/src not found; build from a checkout of the repository")

setup(
    ext_modules=[
        Extension(
            "npyguard._core",
            sources=["src/_core.c"] + library,
            include_dirs=[os.path.relpath(os.path.join(parser, "include"), here),
                          os.path.relpath(os.path.join(parser, "src"), here)],
            define_macros=[("NPYG_STATIC", "1"), ("NPYG_BUILDING", "1"), ("_POSIX_C_SOURCE", "200809L")],
            libraries=["z", "lz4"],  # zlib for .npz, liblz4 for compressed RawArray
            extra_compile_args=["-std=c11", "-fvisibility=hidden", "-Wall", "-Wextra"],
        )
    ],
)
