/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * npyvalidate: check .npy files and .npz archives before they are loaded.
 *
 * Inputs are opened read-only and never written. Files are validated in
 * parallel; output stays in input order, one line (or JSON object) per
 * file. Memory is bounded: each worker has one context, and at most a
 * fixed window of finished results waits for its turn to be printed.
 *
 * Exit status: 0 every file valid, 1 some file invalid, 2 usage or I/O error.
 */
#include "npyvalidate.h"

#include <stdlib.h>

int main(int argc, char **argv)
{
    if (!npyg_version_compatible(NPYG_VERSION_NUMBER)) {
        fprintf(stderr, "npyvalidate: built for libnpyguard %s, running with %s\n", NPYG_VERSION_STRING,
                npyg_version_string());
        return 2;
    }
    options o;
    arglist args = {0};
    int status = parse_options(argc, argv, &o, &args);
    if (status >= 0) {
        free_args(&args);
        return status;
    }
    sha256_api sha;
    if (o.hash) {
        const char *why;
        if (sha256_load(&sha, &why) != 0) {
            fprintf(stderr, "npyvalidate: --hash needs OpenSSL's libcrypto: %s\n", why);
            return 2;
        }
        o.sha256 = &sha;
    }
    if (args.n == 0) {
        usage(stderr);
        return 2;
    }
    if (o.extract) {
        if (args.n != 1 || args.v[0].list || o.recursive) {
            fputs("npyvalidate: --extract takes exactly one HDF5 or MAT v7.3 file\n", stderr);
            free_args(&args);
            return 2;
        }
        status = extract_npz(&o, args.v[0].text, o.extract);
        free_args(&args);
        return status;
    }
    source src;
    source_init(&src, &o, &args);
    if (o.sarif) sarif_begin(stdout);
    status = run_all(&o, &src);
    if (o.sarif) sarif_end(stdout);
    source_free(&src);
    free_args(&args);
    free(o.include);
    if (fflush(stdout) != 0) return 2;
    return status;
}
