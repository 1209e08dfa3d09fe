/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One .ra load, timed inside the process (bench/bench_ra.py runs it):
 *
 *   bench_ra npyguard FILE   npyg_set_input_fd and npyg_ra_open, then npyg_ra_read_data into a
 *                            fresh buffer of data_bytes (LZ4 decoded into it)
 *   bench_ra floor FILE      what the reference C reader does for an LZ4
 *                            file (ra_read, ra_decompress): read the file
 *                            whole, LZ4_decompress_safe into a fresh buffer
 *
 * Prints {"s": seconds, "bytes": data bytes} and touches every page of the
 * result, as a caller would. The result buffer is allocated as numpy
 * allocates an array's data (malloc, then madvise(MADV_HUGEPAGE) on the
 * whole huge pages of a block of 4 MiB or more), so that the Python
 * readers and this one pay the same page faults.
 */
#include "npyguard.h"

#include <fcntl.h>
#include <lz4.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint64_t le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--) v = v << 8 | p[k];
    return v;
}

/* numpy's PyDataMem_UserNEW and its hugepage hint (multiarray/alloc.c). */
static unsigned char *array_alloc(uint64_t n)
{
    unsigned char *p = malloc(n ? n : 1);
    if (p && n >= (4u << 20)) {
        uintptr_t a = ((uintptr_t)p + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1);
        size_t len = (size_t)(n - (a - (uintptr_t)p)) & ~(size_t)((2u << 20) - 1);
        madvise((void *)a, len, MADV_HUGEPAGE);
    }
    return p;
}

static unsigned char *with_npyguard(int fd, uint64_t *n)
{
    npyg_limits lim;
    npyg_limits_default(&lim);
    npyg_ctx *ctx = npyg_ctx_new(&(npyg_options){.limits = &lim});
    unsigned char *p = NULL;
    if (ctx && npyg_set_input_fd(ctx, fd) == 0 && npyg_ra_open(ctx) == 0) {
        *n = npyg_get_ra_info(ctx)->data_bytes;
        p = array_alloc(*n);
        if (p && npyg_ra_read_data(ctx, p, *n) != 0) {
            free(p);
            p = NULL;
        }
    }
    if (!p) fprintf(stderr, "npyguard: %s\n", ctx ? npyg_last_error(ctx)->message : "no context");
    npyg_ctx_free(ctx);
    return p;
}

static unsigned char *floor_lz4(int fd, uint64_t *n)
{
    struct stat st;
    if (fstat(fd, &st) != 0) return NULL;
    unsigned char *file = malloc((size_t)st.st_size);
    if (!file || pread(fd, file, (size_t)st.st_size, 0) != st.st_size) return NULL;
    uint64_t elbyte = le64(file + 24), size = le64(file + 32), ndims = le64(file + 40), count = 1;
    for (uint64_t k = 0; k < ndims; k++) count *= le64(file + 48 + 8 * k);
    *n = elbyte * count;
    unsigned char *out = array_alloc(*n);
    int r = LZ4_decompress_safe((const char *)file + 48 + 8 * ndims, (char *)out, (int)size, (int)*n);
    free(file);
    if (r < 0 || (uint64_t)r != *n) {
        free(out);
        return NULL;
    }
    return out;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bench_ra npyguard|floor FILE\n");
        return 2;
    }
    int fd = open(argv[2], O_RDONLY);
    if (fd < 0) return 2;
    uint64_t n = 0;
    double t = now();
    unsigned char *p = strcmp(argv[1], "floor") ? with_npyguard(fd, &n) : floor_lz4(fd, &n);
    unsigned sum = 0;
    for (uint64_t k = 0; p && k < n; k += 4096) sum += p[k];
    t = now() - t;
    close(fd);
    if (!p) return 1;
    free(p);
    printf("{\"s\": %.6f, \"bytes\": %llu, \"touch\": %u}\n", t, (unsigned long long)n, sum & 1);
    return 0;
}
