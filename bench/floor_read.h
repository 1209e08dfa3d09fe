/* SPDX-License-Identifier: BSD-3-Clause */
/* The floors' one way to read a member's compressed bytes. */
#ifndef NPYG_BENCH_FLOOR_READ_H
#define NPYG_BENCH_FLOOR_READ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

/* n bytes at off of fd into dst, over as many preads as it takes; -1 on an
   error or an early end of file. */
static inline int read_at(int fd, unsigned char *dst, size_t n, uint64_t off)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, dst + got, n - got, (off_t)(off + got));
        if (r <= 0) return -1;
        got += (size_t)r;
    }
    return 0;
}

#endif
