# SPDX-License-Identifier: BSD-3-Clause
"""npyvalidate maps libcrypto only when a run needs it, and libhdf5 never.

libcrypto is loaded with dlopen on first use (parser/tools/sha256.c), so
that a run over .npy files does not pay for its start-up; libhdf5 is
loaded by the HDF5 helper process alone (parser/src/hdf5/h5api.c), never
by npyvalidate, whose run over an HDF5 file still succeeds. The dynamic loader's own trace (LD_DEBUG=files) says which
shared objects a run loaded.

    test_startup_libs.py NPYVALIDATE CORPUS
"""
import os
import subprocess
import sys


def loaded(argv):
    env = dict(os.environ, LD_DEBUG="files")
    p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    names = set()
    for line in p.stderr.decode("utf-8", "replace").splitlines():
        part = line.split("file=", 1)
        if len(part) == 2:
            names.add(part[1].split()[0])
    return p.returncode, p.stdout.decode(), names


def has(names, prefix):
    return any(n.startswith(prefix) for n in names)


def main():
    exe, corpus = sys.argv[1], sys.argv[2]
    npy = os.path.join(corpus, "valid", "f8-le-2d-C-v1.npy")
    h5 = os.path.join(corpus, "hdf5", "valid", "mat", "savemat-several.mat")
    failures = []

    rc, out, names = loaded([exe, npy])
    if rc != 0 or ": ok " not in out:
        failures.append("plain run did not validate %s: rc %d, %r" % (npy, rc, out))
    for lib in ("libhdf5", "libcrypto"):
        if has(names, lib):
            failures.append("a run over one .npy file loaded %s" % lib)

    rc, out, names = loaded([exe, "--hash", npy])
    if rc != 0 or "sha256=" not in out:
        failures.append("--hash run gave rc %d, %r" % (rc, out))
    if not has(names, "libcrypto"):
        failures.append("--hash did not load libcrypto (the trace cannot see loads?)")
    if has(names, "libhdf5"):
        failures.append("--hash over a .npy file loaded libhdf5")

    rc, out, names = loaded([exe, h5])
    if rc != 0 or ":/a: ok float64" not in out:
        failures.append("HDF5 run gave rc %d, %r" % (rc, out))
    if has(names, "libhdf5"):
        failures.append("a run over a MAT v7.3 file loaded libhdf5 into npyvalidate (only its helper may)")

    for f in failures:
        print("FAIL:", f)
    print("startup libs: %d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
