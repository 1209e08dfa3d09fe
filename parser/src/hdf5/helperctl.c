/* SPDX-License-Identifier: BSD-3-Clause */
/* The context's helper process (helper.c), seen from the parent: found,
 * started on the first HDF5 file, handed each file, waited for within the
 * deadline and the caller's interrupt, and ended in npyg_ctx_free (by the
 * process that started it). */
#define _GNU_SOURCE
#include "h5parent.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int64_t npyg__h5_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#if !defined(NPYG_HDF5_LIBEXECDIR) || !defined(NPYG_HDF5_LIBEXEC_FROM_LIB) || !defined(NPYG_HDF5_LIBEXEC_FROM_BIN)
#error "parser/CMakeLists.txt sets where the helper is installed: NPYG_HDF5_LIBEXECDIR and its paths from LIBDIR and BINDIR"
#endif

/* Where the helper is: the path the caller set, else $NPYG_HDF5_HELPER,
   else next to the object that holds this code (the build tree), else
   where an install puts it relative to that object (a moved install: the
   library in LIBDIR, or a program it is linked into in BINDIR), else
   where it was installed. 0, or -1 (too long). */
static int find_helper(const npyg_ctx *ctx, char *out, size_t size)
{
    const char *set = ctx && ctx->h5_helper ? ctx->h5_helper : secure_getenv("NPYG_HDF5_HELPER");
    if (set && *set) return snprintf(out, size, "%s", set) < (int)size ? 0 : -1;
    char self[PATH_MAX] = "";
    Dl_info di;
    if (dladdr((void *)find_helper, &di) && di.dli_fname && di.dli_fname[0] == '/')
        snprintf(self, sizeof self, "%s", di.dli_fname);
    else {
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        self[n > 0 ? n : 0] = '\0';
    }
    char *slash = strrchr(self, '/');
    static const char *const near[] = {"", "/" NPYG_HDF5_LIBEXEC_FROM_LIB "/npyguard",
                                       "/" NPYG_HDF5_LIBEXEC_FROM_BIN "/npyguard"};
    for (size_t i = 0; slash && i < sizeof near / sizeof near[0]; i++)
        if (snprintf(out, size, "%.*s%s/" NPYG__H5_HELPER_NAME, (int)(slash - self), self, near[i]) < (int)size &&
            access(out, X_OK) == 0)
            return 0;
    return snprintf(out, size, "%s", NPYG_HDF5_LIBEXECDIR "/npyguard/" NPYG__H5_HELPER_NAME) < (int)size ? 0 : -1;
}

int npyg_hdf5_available(void)
{
    char path[PATH_MAX];
    return find_helper(NULL, path, sizeof path) == 0 && access(path, X_OK) == 0;
}

/* Ends the context's helper. A fork's child holds a copy of its parent's
   context: it closes its copy of the socket and leaves the helper, which
   is the parent's to use and to end, running. */
void npyg__h5_end_helper(npyg_ctx *ctx)
{
    if (ctx->h5_pid <= 0) return;
    close(ctx->h5_sock);
    if (ctx->h5_owner == (int)getpid()) {
        kill(ctx->h5_pid, SIGKILL); /* its children die with it (their PDEATHSIG) */
        while (waitpid(ctx->h5_pid, NULL, 0) < 0 && errno == EINTR) {}
    }
    ctx->h5_pid = 0;
    ctx->h5_sock = -1;
    ctx->h5_owed = 0;
}

void npyg__h5_ctx_free(npyg_ctx *ctx)
{
    npyg__h5_end_helper(ctx);
    if (ctx->h5_helper) npyg__xfree(ctx, ctx->h5_helper, strlen(ctx->h5_helper) + 1);
    ctx->h5_helper = NULL;
}

int npyg_hdf5_set_helper(npyg_ctx *ctx, const char *path)
{
    if (!ctx) return NPYG_EINVAL;
    npyg__h5_ctx_free(ctx);
    if (!path) return 0;
    size_t n = strlen(path) + 1;
    if (path[0] != '/' || n > PATH_MAX) return npyg__fail(ctx, NPYG_EINVAL, 0, "the HDF5 helper needs an absolute path");
    if (!(ctx->h5_helper = npyg__xalloc(ctx, n))) return npyg__nomem(ctx, 0);
    memcpy(ctx->h5_helper, path, n);
    return 0;
}

int npyg_hdf5_set_interrupt(npyg_ctx *ctx, int (*fn)(void *user), void *user)
{
    if (!ctx) return NPYG_EINVAL;
    ctx->h5_interrupt = fn;
    ctx->h5_interrupt_user = fn ? user : NULL;
    return 0;
}

/* How long one poll of a wait lasts: short when the caller asks to be
   interrupted, so that its answer comes within NPYG_HDF5_INTERRUPT_MS. */
int npyg__h5_wait_slice(const npyg_ctx *ctx, int64_t left)
{
    int64_t most = ctx->h5_interrupt ? NPYG_HDF5_INTERRUPT_MS : 1000;
    return left > most ? (int)most : (int)left;
}

bool npyg__h5_interrupted(const npyg_ctx *ctx)
{
    return ctx->h5_interrupt && ctx->h5_interrupt(ctx->h5_interrupt_user) != 0;
}

/* Waits for one message of exactly size bytes until deadline (ms);
   ECANCELED when the caller's interrupt says so. */
static int receive(const npyg_ctx *ctx, int sock, void *msg, size_t size, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - npyg__h5_now_ms();
        if (left <= 0) return errno = ETIMEDOUT, -1;
        struct pollfd p = {sock, POLLIN, 0};
        int pr = poll(&p, 1, npyg__h5_wait_slice(ctx, left));
        if (pr < 0 && errno != EINTR) return -1;
        if (pr <= 0 && npyg__h5_interrupted(ctx)) return errno = ECANCELED, -1;
        if (pr <= 0) continue;
        ssize_t n = recv(sock, msg, size, MSG_TRUNC);
        if (n < 0 && errno == EINTR) continue;
        if (n == (ssize_t)size) return 0;
        return errno = n < 0 ? errno : EPROTO, -1;
    }
}

/* The helper reports each file's end in order. A file whose end record
   came (and, for a scan, whose pipe then closed) has its verdict: its end
   is owed, and read only before a later one, so that its child's exit
   (its address space torn down, then reaped) costs the caller nothing.
   Owed ends are dropped whatever their status. drain: the owed ends beyond
   keep; next_done: this file's, after every owed one. A helper that does
   not answer is ended; the next file starts a fresh one. */
bool npyg__h5_is_done(const npyg__h5_done *d) { return d->magic == NPYG__H5_MAGIC && d->type == NPYG__H5_DONE; }

int npyg__h5_drain(npyg_ctx *ctx, uint32_t keep, int64_t deadline)
{
    npyg__h5_done done;
    for (; ctx->h5_owed > keep; ctx->h5_owed--)
        if (receive(ctx, ctx->h5_sock, &done, sizeof done, deadline) != 0) return -1;
        else if (!npyg__h5_is_done(&done) || done.error) return errno = EPROTO, -1;
    return 0;
}

int npyg__h5_next_done(npyg_ctx *ctx, npyg__h5_done *done, int64_t deadline)
{
    if (npyg__h5_drain(ctx, 0, deadline) != 0) return -1;
    return receive(ctx, ctx->h5_sock, done, sizeof *done, deadline);
}

/* The helper runs in an empty environment; sanitizer builds keep only
   their runtime's options (tests). */
static char **helper_env(char **env, size_t max)
{
    size_t n = 0;
#if defined(NPYG__ASAN)
    static const char *const keep[] = {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"};
    extern char **environ;
    for (char **e = environ; e && *e && n + 1 < max; e++)
        for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
            if (!strncmp(*e, keep[i], strlen(keep[i])) && (*e)[strlen(keep[i])] == '=') env[n++] = *e;
#else
    (void)max;
#endif
    env[n] = NULL;
    return env;
}

/* The context's helper, started if it has none or has only its parent
   process's (a fork's child starts its own). */
int npyg__h5_own_helper(npyg_ctx *ctx, const npyg_hdf5_limits *hl)
{
    if (ctx->h5_pid > 0 && ctx->h5_owner != (int)getpid()) npyg__h5_end_helper(ctx);
    return ctx->h5_pid > 0 ? 0 : npyg__h5_start_helper(ctx, hl);
}

int npyg__h5_start_helper(npyg_ctx *ctx, const npyg_hdf5_limits *hl)
{
    char path[PATH_MAX];
    if (find_helper(ctx, path, sizeof path) != 0)
        return npyg__fail(ctx, NPYG_EHDF5_UNAVAILABLE, 0, "the HDF5 helper's path is too long");
    if (access(path, X_OK) != 0)
        return npyg__fail(ctx, NPYG_EHDF5_UNAVAILABLE, 0, "the HDF5 helper %s cannot run: %s", path, strerror(errno));
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        return npyg__fail(ctx, NPYG_EHDF5_SANDBOX, 0, "cannot make a socket pair: %s", strerror(errno));
    char pid[24], *env[4];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    char *argv[] = {path, (char *)"zygote", pid, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    /* the socket to 3 first: the caller may have closed 0, 1 or 2 */
    posix_spawn_file_actions_adddup2(&fa, sv[1], NPYG__H5_SOCK_FD);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclosefrom_np(&fa, NPYG__H5_SOCK_FD + 1);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &all);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t child;
    int rc = posix_spawn(&child, path, &fa, &at, argv, helper_env(env, 4));
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(sv[1]);
    if (rc != 0) {
        close(sv[0]);
        return npyg__fail(ctx, NPYG_EHDF5_SANDBOX, 0, "cannot start the HDF5 helper %s: %s", path, strerror(rc));
    }
    ctx->h5_pid = child;
    ctx->h5_owner = (int)getpid();
    ctx->h5_sock = sv[0];
    npyg__h5_hello h;
    if (receive(ctx, sv[0], &h, sizeof h, npyg__h5_now_ms() + (int64_t)hl->child_wall_seconds * 1000) != 0 ||
        h.magic != NPYG__H5_MAGIC || h.type != NPYG__H5_HELLO) {
        npyg__h5_end_helper(ctx);
        return npyg__fail(ctx, NPYG_EHDF5_SANDBOX, 0, "the HDF5 helper %s did not start", path);
    }
    h.why[sizeof h.why - 1] = '\0';
    if (h.error == ENOENT) { /* the helper's word for "libhdf5 does not load" */
        npyg__h5_end_helper(ctx);
        return npyg__fail(ctx, NPYG_EHDF5_UNAVAILABLE, 0, "libhdf5 is not usable here: %s", h.why);
    }
    if (h.error || !(h.layers & NPYG__H5_L_SECCOMP)) {
        npyg__h5_end_helper(ctx);
        return npyg__fail(ctx, NPYG_EHDF5_SANDBOX, 0, "the HDF5 sandbox cannot run here, refusing to scan: %s (%s)",
                          h.why, strerror(h.error ? h.error : ENOSYS));
    }
    ctx->h5_layers = h.layers;
    ctx->h5_landlock_abi = h.landlock_abi;
    return 0;
}

/* Hands the helper the input (read-only) and the pipe's write end. */
int npyg__h5_send_scan(npyg_ctx *ctx, const npyg__h5_request *req, int in, int out)
{
    int fds[2] = {in, out};
    return npyg__h5_send_fds(ctx->h5_sock, req, sizeof *req, fds);
}

int npyg_hdf5_sandbox_info(npyg_ctx *ctx, char *out, size_t size)
{
    if (!ctx || !out || !size) return NPYG_EINVAL;
    npyg__ctx_reset(ctx);
    npyg_hdf5_limits hl;
    npyg_hdf5_limits_default(&hl);
    int rc = npyg__h5_own_helper(ctx, &hl);
    if (rc) return rc;
    char landlock[32] = "no landlock";
    if (ctx->h5_layers & NPYG__H5_L_LANDLOCK) snprintf(landlock, sizeof landlock, "landlock abi %u", ctx->h5_landlock_abi);
    snprintf(out, size, "seccomp allow-list, %s, %s, %s", landlock,
             ctx->h5_layers & NPYG__H5_L_USERNS ? "user+net namespaces" : "no namespaces",
             ctx->h5_layers & NPYG__H5_L_NONET ? "no libcurl or libcrypto" : "libcurl and libcrypto loaded");
    return 0;
}
