# SPDX-License-Identifier: BSD-3-Clause
"""What Python's zipfile does with each crafted archive of test_npz.

test_npz --crafted DIR writes every crafted archive to DIR and lists, in
DIR/zipfile.tsv, the zipfile verdict each case claims in its comment
column. This opens each archive with zipfile.ZipFile and reads every member
to its end (so sizes and CRCs are checked), and fails on any claim that
does not hold.

    python3 zipfile_verdicts.py TEST_NPZ
"""
import os
import subprocess
import sys
import tempfile
import zipfile


def verdict(path):
    try:
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                with z.open(info) as f:
                    while f.read(1 << 16):
                        pass
    except Exception as e:  # any refusal: BadZipFile, NotImplementedError, EOFError, ...
        return "reject", f"{type(e).__name__}: {e}"
    return "accept", ""


def main():
    exe = sys.argv[1]
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run([exe, "--crafted", d], stdout=subprocess.DEVNULL)
        if r.returncode != 0:
            print(f"{exe} --crafted failed ({r.returncode})")
            return 1
        bad = n = 0
        with open(os.path.join(d, "zipfile.tsv")) as f:
            for line in f:
                slug, claim = line.rstrip("\n").split("\t")
                got, why = verdict(os.path.join(d, slug + ".npz"))
                n += 1
                if got != claim:
                    bad += 1
                    print(f"{slug}: zipfile {got} {why}, the case says {claim}")
        print(f"{n} crafted archives, {bad} zipfile verdicts differ from the cases' claims")
        return 1 if bad or n < 50 else 0


if __name__ == "__main__":
    sys.exit(main())
