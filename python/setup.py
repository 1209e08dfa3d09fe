# SPDX-License-Identifier: BSD-3-Clause
"""Builds npyguard._core from the C library's own sources, and the HDF5
helper (npyg-hdf5-helper and its stand-ins) and npyvalidate beside it.

The extension and the C library are one parser: the sources are compiled
in, not copied into the repository, from the list parser/sources.txt that
CMake reads too. From a checkout they are read from ../parser; a source
package (`python3 setup.py sdist`) carries them in its own parser/ folder,
so it builds anywhere with a C compiler, the Python headers, and the zlib,
liblz4, libhdf5, libseccomp and OpenSSL headers (Debian: python3-dev
zlib1g-dev liblz4-dev libhdf5-dev libseccomp-dev libssl-dev pkg-config).
No network and no build isolation are needed.

The helper is package data: the extension finds it next to itself, so an
installed wheel loads HDF5 and MAT v7.3 files with no environment
variable. libhdf5 itself is loaded by the helper at run time, by its
soname; where it is missing, the error names the package that holds it.
NPYG_WITH_HDF5=0 builds without the helper (HDF5 files are then refused
with NPYG_EHDF5_UNAVAILABLE unless one is installed in
NPYG_HDF5_LIBEXECDIR/npyguard, by default sys.prefix's libexec).
"""
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.sdist import sdist

here = os.path.dirname(os.path.abspath(__file__))
bundled = os.path.join(here, "parser")
parser = bundled if os.path.isdir(os.path.join(bundled, "src")) else os.path.join(here, os.pardir, "parser")
if not os.path.isfile(os.path.join(parser, "sources.txt")):
    raise SystemExit("npyguard: the C library's sources (parser/sources.txt, parser/src) are missing; "
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


def source_groups():
    """parser/sources.txt: GROUP FIELDS... per line (see that file)."""
    groups = {}
    with open(os.path.join(parser, "sources.txt"), encoding="ascii") as f:
        for line in f:
            fields = line.split()
            if fields and not fields[0].startswith("#"):
                groups.setdefault(fields[0], []).append(fields[1:])
    return groups


groups = source_groups()


def sources(group):
    # setuptools wants source paths relative to setup.py
    return [os.path.relpath(os.path.join(parser, f[0]), here) for f in groups[group]]


def pkg_config(*args):
    try:
        return subprocess.run(["pkg-config", *args], check=True, capture_output=True, text=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        return None


def find_library(name, pc, libdirs, missing):
    """The path of lib<name>.so (in pkg-config's -L directories for pc,
    then libdirs) and its soname, read with objdump -p; SystemExit with
    missing when there is none."""
    for d in [f[2:] for f in pkg_config("--libs-only-L", pc) or []] + libdirs:
        lib = os.path.join(d, "lib%s.so" % name)
        if os.path.exists(lib):
            break
    else:
        raise SystemExit(missing)
    dyn = subprocess.run(["objdump", "-p", lib], check=True, capture_output=True, text=True).stdout
    m = re.search(r"SONAME +(\S+)", dyn)
    if not m:
        raise SystemExit("npyguard: cannot read the soname of %s with objdump -p" % lib)
    return lib, m.group(1)


def hdf5_soname_and_package():
    """libhdf5's soname, which the helper opens with dlopen, and the
    package a user installs to get it (by dpkg, else "libhdf5")."""
    lib, soname = find_library("hdf5", "hdf5", ["/usr/lib", "/usr/local/lib"],
                               "npyguard: libhdf5.so not found (Debian: apt-get install libhdf5-dev)")
    package = "libhdf5"
    try:
        owner = subprocess.run(["dpkg-query", "-S", os.path.realpath(lib)],
                               check=True, capture_output=True, text=True).stdout
        package = re.match(r"[^:,]+", owner).group(0)
    except (OSError, subprocess.CalledProcessError, AttributeError):
        pass
    return soname, package


with_hdf5 = os.environ.get("NPYG_WITH_HDF5", "1") != "0"
# npyvalidate in the package, for validate(); NPYG_WITH_CLI=0 leaves it out,
# and NPYG_CLI_PATH names the installed one (Debian: /usr/bin/npyvalidate).
with_cli = os.environ.get("NPYG_WITH_CLI", "1") != "0"
cli_path = os.environ.get("NPYG_CLI_PATH", "")


def crypto_soname():
    """libcrypto's soname, which npyvalidate opens for --hash (tools/sha256.c)."""
    multiarch = "/usr/lib/%s" % (sysconfig.get_config_var("MULTIARCH") or "")
    return find_library("crypto", "libcrypto", [multiarch, "/usr/lib", "/usr/local/lib"],
                        "npyguard: libcrypto.so not found (Debian: apt-get install libssl-dev), "
                        "or build without npyvalidate: NPYG_WITH_CLI=0")[1]


libexec = os.environ.get("NPYG_HDF5_LIBEXECDIR", os.path.join(sys.prefix, "libexec"))


class build_ext_with_helper(build_ext):
    """The extension, then the helper and its stand-ins in the same
    directory of the package, where the extension looks first."""

    def run(self):
        super().run()
        out = os.path.dirname(self.get_ext_fullpath("npyguard._core"))
        if with_hdf5:
            self.build_helper(out)
        if with_cli:
            self.build_cli(out)

    def build_cli(self, out):
        """npyvalidate, which validate() runs: the library's sources and the
        program's (parser/sources.txt's cli group), as parser/CMakeLists.txt
        builds it; it finds the helper beside itself."""
        ext = self.extensions[0]
        macros = [m for m in ext.define_macros if m[0] != "NPYG_BUILDING"] + [
            ("NPYG_BUILDING", "1"), ("NPYG_CRYPTO_SONAME", '"%s"' % crypto_soname())]
        objects = self.compiler.compile(
            [os.path.abspath(s) for s in sources("cli") + [f for f in ext.sources if f not in binding]],
            output_dir=os.path.join(self.build_temp, "cli"), macros=macros,
            include_dirs=[os.path.abspath(d) for d in ext.include_dirs],
            extra_postargs=["-std=c11", "-Wall", "-Wextra", "-fPIE"])
        self.compiler.link_executable(
            objects, "npyvalidate", output_dir=out, libraries=ext.libraries + ["pthread", "dl"],
            extra_postargs=["-pie", "-Wl,-z,relro,-z,now"] + shlex.split(os.environ.get("LDFLAGS", "")))

    def build_helper(self, out):
        hdf5_cflags = pkg_config("--cflags", "hdf5")
        if hdf5_cflags is None or pkg_config("--exists", "libseccomp") is None:
            raise SystemExit("npyguard: the HDF5 helper needs the libhdf5 and libseccomp headers and pkg-config "
                             "(Debian: apt-get install libhdf5-dev libseccomp-dev pkg-config), "
                             "or build without it: NPYG_WITH_HDF5=0")
        soname, package = hdf5_soname_and_package()
        macros = [("NPYG_BUILDING", "1"), ("NPYG_STATIC", "1"), ("_POSIX_C_SOURCE", "200809L"),
                  ("NPYG_HDF5_SONAME", '"%s"' % soname), ("NPYG_HDF5_PACKAGE", '"%s"' % package)]
        # absolute paths: the objects land in build_temp/helper/..., apart
        # from the extension's objects of the same files (other macros)
        objects = self.compiler.compile(
            [os.path.abspath(s) for s in sources("helper")], output_dir=os.path.join(self.build_temp, "helper"),
            macros=macros,
            include_dirs=[os.path.join(parser, "include")],
            extra_postargs=["-std=c11", "-Wall", "-Wextra"] + hdf5_cflags)
        # every symbol bound in the helper once: no child resolves one
        self.compiler.link_executable(
            objects, "npyg-hdf5-helper", output_dir=out, libraries=["seccomp", "dl"],
            extra_postargs=["-pie", "-Wl,-z,relro,-z,now"] + shlex.split(os.environ.get("LDFLAGS", "")))
        cc = self.compiler.compiler_so[0]
        for name, soname_, what in groups["standin"]:
            src = os.path.join(parser, "src", "hdf5", "standin", what)
            # the same flags as parser/CMakeLists.txt's npyg_standin: nothing
            # else, since a stand-in must depend on nothing
            self.spawn([cc, "-shared", "-fPIC", "-O2", "-nostdlib", "-fstack-protector-strong", "-fcf-protection",
                        "-Wl,-z,relro,-z,now,-z,noexecstack", "-Wl,-soname," + soname_,
                        "-Wl,--version-script=" + src + ".map", "-o", os.path.join(out, name + ".so"), src + ".c"])


class sdist_with_library(sdist):
    """The source package holds the library's headers, sources and list
    (under parser/, where setup.py looks first), not paths into a checkout."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, [f for f in files if not f.startswith(os.pardir)])
        dst = os.path.join(base_dir, "parser")
        os.makedirs(dst, exist_ok=True)
        shutil.copy2(os.path.join(parser, "sources.txt"), dst)
        for sub, patterns in (("include", ("*.h",)), ("src", ("*.c", "*.h")),
                              (os.path.join("src", "hdf5"), ("*.c", "*.h", "*.def")),
                              (os.path.join("src", "hdf5", "standin"), ("*.c", "*.map")),
                              ("tools", ("*.c", "*.h"))):
            os.makedirs(os.path.join(dst, sub), exist_ok=True)
            for pattern in patterns:
                for f in sorted(glob.glob(os.path.join(parser, sub, pattern))):
                    shutil.copy2(f, os.path.join(dst, sub))


# The inflater, as parser/CMakeLists.txt picks it (NPYG_INFLATE): zlib's
# inflate by default, with ISA-L's CRC-32 where ISA-L's headers are; ISA-L's
# inflate when asked.
inflater = os.environ.get("NPYG_INFLATE", "zlib")
if inflater not in ("isal", "zlib"):
    raise SystemExit("npyguard: NPYG_INFLATE must be zlib or isal, not %r" % inflater)
isal_crc = [("NPYG_CRC_ISAL", "1")] if inflater == "zlib" and os.path.exists("/usr/include/isa-l/crc.h") else []


# The binding's own sources (src/_core.c holds the module's table; each
# type and helper its file over src/core.h); every other source is the
# library's.
binding = sorted(os.path.relpath(f, here) for f in glob.glob(os.path.join(here, "src", "*.c")))

setup(
    version=library_version(),
    cmdclass={"sdist": sdist_with_library, "build_ext": build_ext_with_helper},
    ext_modules=[
        Extension(
            "npyguard._core",
            sources=binding + sources("library") + sources("hdf5") + sources("inflate_" + inflater),
            depends=sorted(os.path.relpath(f, here) for f in glob.glob(os.path.join(here, "src", "*.h")))
            + [os.path.relpath(os.path.join(parser, "src", "hdf5", "storage.def"), here)],
            include_dirs=[os.path.relpath(os.path.join(parser, "include"), here),
                          os.path.relpath(os.path.join(parser, "src"), here)],
            define_macros=isal_crc + [("NPYG_STATIC", "1"), ("NPYG_BUILDING", "1"), ("_POSIX_C_SOURCE", "200809L"),
                           ("NPYG_HDF5_LIBEXECDIR", '"%s"' % libexec),
                           ("NPYG_HDF5_LIBEXEC_FROM_LIB", '"../libexec"'),
                           ("NPYG_HDF5_LIBEXEC_FROM_BIN", '"../libexec"'),
                           ("NPYG_CLI_PATH", '"%s"' % cli_path)],
            # zlib (ISA-L for NPYG_INFLATE=isal, and its CRC-32 where present) for .npz, liblz4 for RawArray
            libraries=["z", "lz4"] + (["isal"] if inflater == "isal" or isal_crc else []),
            extra_compile_args=["-std=c11", "-fvisibility=hidden", "-Wall", "-Wextra"],
        )
    ],
)
