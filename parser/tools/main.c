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
#include <string.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
    options o;
    pathlist args = {0}, paths = {0};
    int status = parse_options(argc, argv, &o, &args);
    if (status >= 0) return status;
    status = 0;
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
        if (args.n != 1 || o.recursive) {
            fputs("npyvalidate: --extract takes exactly one HDF5 or MAT v7.3 file\n", stderr);
            return 2;
        }
        status = extract_npz(&o, args.v[0], o.extract);
        free(args.v[0]);
        free(args.v);
        return status;
    }
    for (size_t k = 0; k < args.n; k++) {
        struct stat st;
        if (o.recursive && strcmp(args.v[k], "-") && stat(args.v[k], &st) == 0 && S_ISDIR(st.st_mode)) {
            int s = walk(&paths, args.v[k], 0);
            if (s > status) status = s;
            free(args.v[k]);
        } else {
            take_path(&paths, args.v[k]);
        }
    }
    free(args.v);

    job *jobs = calloc(paths.n ? paths.n : 1, sizeof *jobs);
    if (!jobs) die_oom();
    for (size_t k = 0; k < paths.n; k++) jobs[k].path = paths.v[k];
    if (o.sarif) sarif_begin(stdout);
    int s = paths.n ? run_all(&o, jobs, paths.n) : 0;
    if (o.sarif) sarif_end(stdout);
    if (s > status) status = s;
    for (size_t k = 0; k < paths.n; k++) free(paths.v[k]);
    free(paths.v);
    free(jobs);
    if (fflush(stdout) != 0) return 2;
    return status;
}
