/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * main() for the harnesses when libFuzzer does not provide one.
 *
 * Replay (any C compiler): every file named, and every file under every
 * directory named, is run once through LLVMFuzzerTestOneInput, in sorted
 * order, with a per-input timeout. A crash, abort or timeout names the
 * input. ctest uses this to replay corpus/ and corpus/fuzz-regressions/.
 *
 *   npy_file_fuzzer_replay [-t SECONDS] [-T] [-s N] PATH...
 *     -t  per-input timeout (default 10; 0 disables), for each of -s's
 *         three runs
 *     -T  also run each file with an all-zero configuration trailer
 *         appended, so that a plain .npy file is seen whole under the
 *         default profile and limits
 *     -s  time each input (the best of three runs, so that a busy machine
 *         does not make a fast input look slow), print the N slowest, and
 *         count the slow units: inputs of 10 KB or less that take over
 *         10 ms. Meant for a build without sanitizers.
 *
 * AFL++ (built with afl-clang-fast): under afl-fuzz, afl-showmap,
 * afl-cmin or afl-tmin, persistent mode on shared-memory test cases (the
 * tools deliver through shared memory even with @@); run by hand with
 * PATHs, the replay above.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include "fuzz_common.h"

#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef __AFL_FUZZ_TESTCASE_LEN
__AFL_FUZZ_INIT();
#endif

/* Called by sanitizer runtimes just before they exit on a report. */
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static char current[4096];

static void say_current(void)
{
    static const char a[] = "\n*** failing input: ";
    ssize_t w = write(2, a, sizeof a - 1);
    w = write(2, current, strlen(current));
    w = write(2, "\n", 1);
    (void)w;
}

static void on_signal(int sig)
{
    if (sig == SIGALRM) {
        static const char t[] = "\n*** timeout";
        ssize_t w = write(2, t, sizeof t - 1);
        (void)w;
    }
    say_current();
    signal(sig, SIG_DFL);
    raise(sig == SIGALRM ? SIGABRT : sig);
}

typedef struct pathlist {
    char **v;
    size_t n, cap;
} pathlist;

static pathlist found;

static void add_path(pathlist *l, const char *p)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v) { perror("realloc"); exit(2); }
    }
    size_t n = strlen(p) + 1;
    l->v[l->n] = malloc(n);
    if (!l->v[l->n]) { perror("malloc"); exit(2); }
    memcpy(l->v[l->n++], p, n);
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    const char *base = path + ftw->base;
    if (type == FTW_F && base[0] != '.') add_path(&found, path);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

#define SLOW_UNIT_BYTES 10240
#define SLOW_UNIT_SECONDS 0.010

typedef struct timing {
    double seconds; /* best of three */
    size_t bytes;
    char *path;
} timing;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Runs one input; when timed is non-NULL, three times, keeping the best. */
static int run_file(const char *path, bool trailer, unsigned timeout, timing *timed)
{
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); return 1; }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) { perror("malloc"); exit(2); }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (len < cap) break;
        cap *= 2;
        buf = realloc(buf, cap);
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) { perror(path); free(buf); return 1; }
    /* An exact-size copy, so that an over-read is caught by ASan. */
    for (int pass = 0; pass < (trailer ? 2 : 1); pass++) {
        size_t n = len + (pass ? NPYG_FUZZ_TRAILER : 0);
        uint8_t *in = malloc(n ? n : 1);
        if (!in) { perror("malloc"); exit(2); }
        if (len) memcpy(in, buf, len);
        if (pass) memset(in + len, 0, NPYG_FUZZ_TRAILER);
        snprintf(current, sizeof current, "%s%s", path, pass ? " (with a zero trailer)" : "");
        for (int run = 0; run < (timed ? 3 : 1); run++) {
            if (timeout) alarm(timeout); /* each run: -s is three of them */
            double t0 = now_s();
            LLVMFuzzerTestOneInput(in, n);
            double dt = now_s() - t0;
            if (timed && (run == 0 || dt < timed->seconds)) timed->seconds = dt;
        }
        if (timeout) alarm(0);
        if (timed) timed->bytes = len;
        free(in);
    }
    free(buf);
    return 0;
}

static int slower_first(const void *a, const void *b)
{
    double x = ((const timing *)a)->seconds, y = ((const timing *)b)->seconds;
    return x < y ? 1 : x > y ? -1 : 0;
}

static int replay(int argc, char **argv)
{
    unsigned timeout = 10;
    bool trailer = false;
    long slowest = -1; /* -s N: how many of the slowest inputs to print */
    int opt;
    while ((opt = getopt(argc, argv, "t:Ts:")) != -1) {
        if (opt == 't') timeout = (unsigned)strtoul(optarg, NULL, 10);
        else if (opt == 'T') trailer = true;
        else if (opt == 's') slowest = strtol(optarg, NULL, 10);
        else {
            fprintf(stderr, "usage: %s [-t SECONDS] [-T] [-s N] PATH...\n", argv[0]);
            return 2;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "usage: %s [-t SECONDS] [-T] [-s N] PATH...\n", argv[0]);
        return 2;
    }
    signal(SIGALRM, on_signal);
    signal(SIGABRT, on_signal);
    signal(SIGILL, on_signal);
    /* With a sanitizer, its own handler reports a memory fault, stack
       included, and calls say_current: a harness that judges a crash by
       its stack (hdf5_walk_fuzzer's forked screen) needs that report. */
    if (__sanitizer_set_death_callback) {
        __sanitizer_set_death_callback(say_current);
    } else {
        signal(SIGSEGV, on_signal);
        signal(SIGBUS, on_signal);
        signal(SIGFPE, on_signal);
    }
    int errors = 0;
    for (int k = optind; k < argc; k++) {
        struct stat st;
        if (stat(argv[k], &st) != 0) { perror(argv[k]); errors++; continue; }
        if (S_ISDIR(st.st_mode)) {
            if (nftw(argv[k], visit, 32, FTW_PHYS) != 0) { perror(argv[k]); errors++; }
        } else {
            add_path(&found, argv[k]);
        }
    }
    if (found.n > 1) qsort(found.v, found.n, sizeof *found.v, by_name);
    timing *times = slowest >= 0 ? calloc(found.n ? found.n : 1, sizeof *times) : NULL;
    if (slowest >= 0 && !times) { perror("calloc"); exit(2); }
    for (size_t k = 0; k < found.n; k++) {
        errors += run_file(found.v[k], trailer, timeout, times ? &times[k] : NULL);
        if (times) times[k].path = found.v[k];
        else free(found.v[k]);
    }
    if (times) {
        qsort(times, found.n, sizeof *times, slower_first);
        size_t slow = 0;
        for (size_t k = 0; k < found.n; k++)
            if (times[k].bytes <= SLOW_UNIT_BYTES && times[k].seconds > SLOW_UNIT_SECONDS) slow++;
        for (size_t k = 0; k < found.n && k < (size_t)slowest; k++)
            printf("slowest: %.3f ms %zu bytes %s\n", times[k].seconds * 1e3, times[k].bytes, times[k].path);
        printf("slow units (%d bytes or less, over %.0f ms, best of 3): %zu\n", SLOW_UNIT_BYTES,
               SLOW_UNIT_SECONDS * 1e3, slow);
        for (size_t k = 0; k < found.n; k++) free(times[k].path);
        free(times);
    }
    free(found.v);
    fprintf(stderr, "%s: %zu inputs replayed%s, %d unreadable\n", argv[0], found.n,
            trailer ? " (each also with a zero trailer)" : "", errors);
    return errors ? 1 : 0;
}

int main(int argc, char **argv)
{
#ifdef __AFL_FUZZ_TESTCASE_LEN
    /* Under an AFL++ tool (afl-fuzz, afl-showmap, afl-cmin, afl-tmin) the
       test case arrives in shared memory even when @@ names a file; run by
       hand, the arguments are files to replay. */
    if (argc > 1 && !getenv("__AFL_SHM_ID")) return replay(argc, argv);
    __AFL_INIT();
    const unsigned char *shm = __AFL_FUZZ_TESTCASE_BUF;
    while (__AFL_LOOP(100000)) {
        size_t len = (size_t)__AFL_FUZZ_TESTCASE_LEN;
        /* Shared memory has no redzone: copy so that ASan sees the end. */
        uint8_t *in = malloc(len ? len : 1);
        if (!in) abort();
        if (len) memcpy(in, shm, len);
        LLVMFuzzerTestOneInput(in, len);
        free(in);
    }
    return 0;
#else
    return replay(argc, argv);
#endif
}
