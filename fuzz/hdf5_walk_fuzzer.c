/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HDF5 walk (parser/src/hdf5/walk.c), the code the sandboxed child
 * runs over libhdf5, here in process so that ASan and UBSan see it: the
 * input is an HDF5 file (a MAT v7.3 file too: libhdf5 skips its user
 * block), opened as the child opens it (a file image on the core driver,
 * plugins off) and walked with small limits so that every limit is
 * reached. libhdf5 itself is not
 * instrumented (it is loaded as the scan loads it); what is fuzzed is the
 * walk's own logic: the object, edge and heap tables, the path counting,
 * soft-link resolution, the vlen descriptor checks and the records.
 * libhdf5 is not hardened: on a hostile file it may crash, in the walk or
 * when the file is closed, which is why the scan runs it in a sandboxed
 * child. So each input first runs in a forked child: a crash there whose
 * innermost frame (past the sanitizer's own; without a sanitizer the
 * child reports the fault's frames itself) is in libhdf5 is libhdf5's,
 * and so is a child still running after 20 s whose innermost frame is in
 * libhdf5 (the cage ends such a child at its CPU limit, a refusal); the
 * input is skipped. Any other failure (a frame of ours, an invariant) is
 * a finding, reported with the child's report. An
 * input the child survived runs again in process, where the engine sees
 * the walk's coverage.
 * Invariants: every record is one line of at most NPYG__H5_LINE bytes,
 * tab-separated with the protocol's field count and a code of npyguard's
 * HDF5 range (or 0, or NPYG_ELIMIT_PAYLOAD), and the last line is the end
 * record with code 0; the walk frees what it allocates (LeakSanitizer, in
 * the ASan replay of corpus/hdf5: on malformed files libhdf5 leaks by
 * itself, so the engines run this harness with leak detection off).
 */
#define _GNU_SOURCE
#include "fuzz_common.h"

#include "h5io.h"
#include "h5walk.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* libhdf5 asks for what a malformed file says, gigabytes at times (an
   attribute's "on disk image buffer", a conversion buffer). In the cage
   such a request fails against the child's memory limit and libhdf5
   reports an error; here too: an allocation past 1 GiB returns NULL,
   rather than reaching libFuzzer's malloc limit (which sees only the
   allocations that succeed) and ending the run as out-of-memory. The
   walk's own allocations are held to the same: a NULL is its "out of
   memory in the child", which the verdict carries. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "max_allocation_size_mb=1024:allocator_may_return_null=1";
}

static int code_ok(long c)
{
    return c == 0 || c == NPYG_ELIMIT_PAYLOAD || (c >= NPYG_EHDF5_SANDBOX && c <= NPYG_ELIMIT_LOAD &&
                                                   c != NPYG_EHDF5_FORMAT + 1);
}

/* Checks the records the walk wrote to fd (a memfd, at its end). */
static void check_records(int fd)
{
    off_t n = lseek(fd, 0, SEEK_END);
    FUZZ_CHECK(n >= 0, "cannot size the records");
    char *buf = malloc((size_t)n + 1);
    FUZZ_CHECK(buf && pread(fd, buf, (size_t)n, 0) == n, "cannot read the records back");
    buf[n] = '\0';
    size_t lines = 0;
    bool ended = false;
    for (char *p = buf, *nl; p < buf + n; p = nl + 1) {
        nl = memchr(p, '\n', (size_t)(buf + n - p));
        FUZZ_CHECK(nl, "a record without its newline");
        FUZZ_CHECK((size_t)(nl - p) < NPYG__H5_LINE, "a record of %zu bytes", (size_t)(nl - p));
        FUZZ_CHECK(!ended, "a record after the end record");
        size_t tabs = 0;
        for (char *q = p; q < nl; q++) {
            tabs += *q == '\t';
            FUZZ_CHECK(*q == '\t' || (*q >= 0x20 && *q < 0x7f), "an unescaped byte 0x%02x in a record",
                       (unsigned char)*q);
        }
        long code = strtol(p + 2, NULL, 10);
        if (p[0] == 'E') {
            FUZZ_CHECK(tabs == 2 && code == 0, "end record with %zu fields, code %ld", tabs + 1, code);
            ended = true;
        } else {
            FUZZ_CHECK(p[0] == 'O' && tabs == 7, "record '%c' with %zu fields", p[0], tabs + 1);
            FUZZ_CHECK(code_ok(code), "record code %ld outside the HDF5 range", code);
        }
        lines++;
    }
    FUZZ_CHECK(ended, "no end record after %zu records", lines);
    free(buf);
}

/* Opens the input as a file image (libhdf5 keeps its own copy), walks it
   to out and checks the records. */
static void walk_once(const uint8_t *data, size_t size, int out)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    hid_t file = -1;
    if (fapl >= 0 && H5Pset_fapl_core(fapl, 1 << 16, 0) >= 0 && H5Pset_file_image(fapl, (void *)data, size) >= 0)
        file = H5Fopen("/npyguard-input", H5F_ACC_RDONLY, fapl);
    if (fapl >= 0) H5Pclose(fapl);
    if (file < 0) return;
    /* the last byte picks the profile; limits small enough to reach */
    npyg__h5_params p = {64, 8, 1u << 20, data[size - 1] & 1, 200, 4, false, false, 1u << 30};
    npyg__h5_walk(file, data, size, out, &p);
    npyg__h5_send_end(out, 0, ""); /* as the child does after a walk that loads nothing */
    H5Fclose(file);
    check_records(out);
}

/* Is the innermost frame of a sanitizer report (past the sanitizer's,
   libFuzzer's and libc's own, symbolized by library or by glibc's source
   path) in libhdf5? */
static bool libhdf5_fault(const char *report)
{
    for (const char *l = strstr(report, "    #"); l; l = strstr(l + 1, "    #")) {
        const char *end = strchr(l, '\n');
        size_t n = end ? (size_t)(end - l) : strlen(l);
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), l);
        /* the sanitizer's and libFuzzer's own frames, and the allocation
           functions they replace (in the harness binary: an allocation
           libhdf5 asks for is libhdf5's) */
        if (strstr(line, "asan") || strstr(line, "sanitizer") || strstr(line, "interceptor") ||
            strstr(line, "libc.so") || strstr(line, "sysdeps/") || strstr(line, "fuzzer::") ||
            strstr(line, " in malloc ") ||
            strstr(line, " in calloc ") || strstr(line, " in realloc ") || strstr(line, " in free "))
            continue;
        return strstr(line, "libhdf5") != NULL;
    }
    return false;
}

/* The sanitizers' hook that libFuzzer sets to write a crash-* artifact;
   weak, so that builds without a sanitizer link too. */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

/* Where the child was, one line a frame in the sanitizers' form
   ("    #N in MODULE"), for the parent to judge as it judges a sanitizer's
   report: after 20 s (its alarm), and, in a build without a sanitizer,
   at a fault. glibc's backtrace, not the sanitizer's report, which would
   symbolize for longer than libFuzzer's timeout leaves; and a handler of
   our own, since libFuzzer's (inherited) lets the child run. */
static void child_where(int sig)
{
    void *frames[64];
    int n = backtrace(frames, 64);
    char line[600];
    int k = sig == SIGALRM ? snprintf(line, sizeof line, "the walk ran 20 s in the child; where it was:\n")
                           : snprintf(line, sizeof line, "the walk died of signal %d in the child; where:\n", sig);
    (void)!write(2, line, (size_t)k);
    /* from the signal's return trampoline (libc's) on: the frames above it
       are this handler and the sanitizer's wrapper of it; the next is where
       the signal came */
    bool below = false;
    for (int i = 0; i < n; i++) {
        Dl_info di;
        const char *mod = dladdr(frames[i], &di) && di.dli_fname ? di.dli_fname : "?";
        below = below || strstr(mod, "libc.so");
        if (!below) continue;
        k = snprintf(line, sizeof line, "    #%d %p in %s\n", i, frames[i], mod);
        (void)!write(2, line, (size_t)k < sizeof line ? (size_t)k : sizeof line - 1);
    }
    _exit(3);
}

/* Runs the input in a child first: true when the walk may run in process. */
static bool survives(const uint8_t *data, size_t size)
{
    int err = memfd_create("report", MFD_CLOEXEC);
    FUZZ_CHECK(err >= 0, "memfd_create failed");
    fflush(NULL);
    pid_t pid = fork();
    FUZZ_CHECK(pid >= 0, "fork failed");
    if (pid == 0) {
        /* A crash here is judged by the parent: the child must not write
           an artifact of its own for a fault that proves to be libhdf5's. */
        if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(NULL);
        dup2(err, 2);
        signal(SIGALRM, child_where);
        /* without a sanitizer to report a fault, the child does */
        if (!__sanitizer_set_death_callback) {
            static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
            for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) signal(faults[i], child_where);
        }
        alarm(20);
        int out = memfd_create("records", MFD_CLOEXEC);
        walk_once(data, size, out);
        _exit(0);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0) {}
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
        close(err);
        return true;
    }
    off_t n = lseek(err, 0, SEEK_END);
    char *rep = calloc(1, (size_t)(n > 0 ? n : 0) + 1);
    FUZZ_CHECK(rep && (n <= 0 || pread(err, rep, (size_t)n, 0) == n), "cannot read the child's report");
    close(err);
    bool theirs = libhdf5_fault(rep);
    if (!theirs) {
        fprintf(stderr, "%s", rep);
        npyg_fuzz_fail("the walk failed in the child (status %#x)", st);
    }
    free(rep);
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool loaded;
    if (!loaded) {
        const char *why;
        if (npyg__h5_load(&why) != 0) {
            fprintf(stderr, "hdf5_walk_fuzzer: %s\n", why);
            abort();
        }
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
        H5PLset_loading_state(0); /* as the child: no plugin is ever loaded */
        /* backtrace's first call loads libgcc, allocating: here, once, not
           in a child's signal handler, and not in the child alone, whose
           heap must be the process's (libhdf5 reads memory it never wrote
           on some hostile files, so a child with another heap may take
           another path than the run in process after it) */
        void *warm[1];
        (void)backtrace(warm, 1);
        loaded = true;
    }
    if (size < 8) return 0;
    if (!survives(data, size)) return 0;
    int out = memfd_create("records", MFD_CLOEXEC);
    FUZZ_CHECK(out >= 0, "memfd_create failed");
    walk_once(data, size, out);
    close(out);
    return 0;
}
