/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a fresh process per file costs this machine before libhdf5 does
 * anything: fork, make the memory the HDF5 child makes before its file
 * comes (640 KiB, madvise(MADV_POPULATE_WRITE), as parser/src/hdf5/child.c
 * does), exit, and the parent's wait. The cage pays this per file; an
 * in-process reader does not. Three variants, alternating, median of the
 * rounds:
 *   bare      fork + exit + wait
 *   populate  the same with 640 KiB made in one call
 *   touch     the same with 640 KiB written a page at a time (faults)
 *
 *   cc -O2 -o /tmp/cage_floor bench/cage_floor.c && /tmp/cage_floor [ROUNDS]
 * (the build makes it too: bench/cage_floor in the build directory)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SIZE (640u << 10)
#define PER_ROUND 200
enum { BARE, POPULATE, TOUCH, KINDS };
static const char *const names[KINDS] = {"bare", "populate", "touch"};

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void child(int kind)
{
    char *p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) _exit(1);
    if (kind == POPULATE && madvise(p, SIZE, MADV_POPULATE_WRITE) != 0) _exit(1);
    if (kind == TOUCH)
        for (size_t o = 0; o < SIZE; o += 4096) p[o] = 1;
    _exit(0);
}

/* mean microseconds per fork+work+exit+wait over PER_ROUND children */
static double round_us(int kind)
{
    double t0 = now_us();
    for (int i = 0; i < PER_ROUND; i++) {
        pid_t pid = fork();
        if (pid == 0) child(kind);
        int st;
        if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
            fprintf(stderr, "cage_floor: a child failed\n");
            exit(1);
        }
    }
    return (now_us() - t0) / PER_ROUND;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 9;
    if (rounds < 1 || rounds > 1000) rounds = 9;
    double *t[KINDS];
    for (int k = 0; k < KINDS; k++)
        if (!(t[k] = calloc((size_t)rounds, sizeof *t[k]))) return 1;
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < KINDS; i++) {
            int k = (i + r) % KINDS;
            t[k][r] = round_us(k);
        }
    for (int k = 0; k < KINDS; k++) {
        qsort(t[k], (size_t)rounds, sizeof *t[k], cmp);
        printf("%-9s %7.1f us per child (median of %d rounds of %d)\n", names[k], t[k][rounds / 2], rounds,
               PER_ROUND);
    }
    return 0;
}
