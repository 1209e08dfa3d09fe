/* SPDX-License-Identifier: BSD-3-Clause */
/* npyg-hdf5-helper: the process that holds libhdf5 for one context.
 *
 * Started by scan.c with posix_spawn, an empty environment, /dev/null on
 * 0, 1 and 2 and one SOCK_SEQPACKET socket on 3, nothing else:
 *
 *   npyg-hdf5-helper zygote PARENT_PID
 *
 * It loads libhdf5 (once here rather than once per file; stand-ins take
 * the place of its network libraries), turns plugin loading off, enters
 * new user and network namespaces and Landlock where the kernel has them
 * (every child inherits them), installs its own allow list and says
 * hello. It never reads an input. Each file gets a fresh child (child.c),
 * forked before the file arrives, two kept ahead: it cages itself, makes
 * the memory libhdf5 will want and the file access list it will open
 * with, and waits. The helper hands it the input and the record pipe over
 * a socket of its own; it maps the input only then. The helper reports
 * each file's end, the child's wait status, in the order the files came,
 * and takes the next file while a child that has ended its records is
 * still being torn down. The helper ends when the parent closes the
 * socket or its process ends, and the waiting child with it.
 * It watches the parent through a pidfd of the process, not with
 * PR_SET_PDEATHSIG: that signal follows the thread that spawned the
 * helper, and a helper spawned from a worker thread would die with the
 * thread while the process goes on using it.
 */
#define _GNU_SOURCE
#include "h5api.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <seccomp.h>

#define SOCK NPYG__H5_SOCK_FD

static const char *const STAND_INS[] = {"npyg-h5-nocurl.so", "npyg-h5-nocrypto.so"};
#define PLAIN "without-stand-ins" /* argv[3]: libhdf5 did not load with them */

static void say_hello(npyg__h5_hello *h, int error, const char *why)
{
    h->magic = NPYG__H5_MAGIC;
    h->type = NPYG__H5_HELLO;
    h->error = error;
    if (why) snprintf(h->why, sizeof h->why, "%s", why);
    if (send(SOCK, h, sizeof *h, MSG_NOSIGNAL) != (ssize_t)sizeof *h || error) _exit(error ? 1 : 2);
}

/* The parent's next message, the socket being readable: TAKE_FILE with
   the request and its two descriptors, TAKE_KILL, or TAKE_END (the
   parent closed the socket, or sent anything else). */
enum { TAKE_END = -1, TAKE_FILE = 1, TAKE_KILL };

static int take(npyg__h5_request *req, int fds[2])
{
    union {
        char buf[CMSG_SPACE(2 * sizeof(int))];
        struct cmsghdr align;
    } u;
    struct iovec iov = {req, sizeof *req};
    struct msghdr m;
    ssize_t n;
    do {
        m = (struct msghdr){.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
        n = recvmsg(SOCK, &m, MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR);
    if (n == (ssize_t)sizeof *req && m.msg_controllen == 0 && req->magic == NPYG__H5_MAGIC &&
        req->type == NPYG__H5_KILL)
        return TAKE_KILL;
    int got = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (size_t i = 0; i < k; i++) {
                int fd;
                memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
                if (got < 2) fds[got++] = fd;
                else close(fd);
            }
        }
    struct stat st;
    bool ok = n == (ssize_t)sizeof *req && !(m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) && got == 2 &&
              req->magic == NPYG__H5_MAGIC && req->type == NPYG__H5_SCAN &&
              npyg__h5_limits_valid(&req->limits) && fstat(fds[0], &st) == 0 && S_ISREG(st.st_mode) &&
              req->size > 0 && req->size == (uint64_t)st.st_size;
    if (ok) return TAKE_FILE;
    for (int i = 0; i < got; i++) close(fds[i]);
    return TAKE_END;
}

/* Children forked ahead, each waiting on its socket: two, so that one is
   ready while the other is still making its memory. A slot is refilled
   when the helper has nothing else to do. Their sockets' helper ends are
   on SPARE_FD + slot until used; a file's child is moved to
   NPYG__H5_HELPER_CTL_FD, the one descriptor the helper's filter lets it
   send on. */
#define SPARES 2
#define SPARE_FD (NPYG__H5_PARENT_FD + 1)
/* the pidfds of the files' children, above every fixed descriptor */
#define PIDFD_MIN (SPARE_FD + SPARES)

typedef struct {
    pid_t pid;  /* 0: empty; -1: the fork failed, with err */
    int err;
} spare;

/* Files handed to a child and not yet reported, oldest first: the parent
   reads their ends in that order. A file whose records have ended is not
   waited for: the parent sends the next one while its child is torn down,
   so there are at most two (the one ending, the one running). */
#define RUNNING (SPARES + 1)

typedef struct {
    pid_t pid;  /* -1: no child took it, for err */
    int pidfd;  /* -1: none, the child was killed */
    int err;
} file_child;

/* Forks a child that takes a later file, its socket's other end on fd;
   pid -1 with err if it cannot. */
static spare fork_next(pid_t self, uint64_t vm, uint64_t data, int fd)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) return (spare){-1, errno};
    if (sv[1] == fd) {
        int moved = fcntl(sv[1], F_DUPFD_CLOEXEC, fd + 1);
        close(sv[1]);
        sv[1] = moved;
    }
    if (sv[1] < 0 || (sv[0] != fd && dup2(sv[0], fd) < 0)) {
        int e = errno;
        close(sv[0]);
        if (sv[1] >= 0) close(sv[1]);
        return (spare){-1, e};
    }
    if (sv[0] != fd) close(sv[0]);
    pid_t child = fork();
    if (child == 0) {
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != self) _exit(1);
        npyg__h5_child(sv[1], vm, data);
    }
    int e = errno;
    close(sv[1]);
    if (child < 0) close(fd);
    return (spare){child, e};
}

/* Every file's child still here, killed: each is reported as it exits. */
static void kill_all(const file_child *run, int nrun)
{
    for (int i = 0; i < nrun; i++)
        if (run[i].pid > 0) kill(run[i].pid, SIGKILL);
}

/* The end: the parent is gone or broke the protocol. Files' children are
   killed; the spares' die with the helper (their PDEATHSIG). */
static _Noreturn void end_all(const file_child *run, int nrun)
{
    kill_all(run, nrun);
    _exit(0);
}

static void close_pair(int fds[2])
{
    close(fds[0]);
    close(fds[1]);
}

/* The file to the slot's child (its socket on fd), which the slot no
   longer holds; the file's entry, with a pidfd of the child. */
static file_child hand(spare *s, int fd, const npyg__h5_request *req, int fds[2])
{
    file_child f = {s->pid, -1, s->err};
    s->pid = 0;
    if (f.pid > 0) {
        /* the two descriptors came to the lowest free numbers, below
           NPYG__H5_HELPER_CTL_FD; a child that cannot take the file ends,
           and its status says so */
        if (fds[0] != NPYG__H5_HELPER_CTL_FD && fds[1] != NPYG__H5_HELPER_CTL_FD &&
            dup2(fd, NPYG__H5_HELPER_CTL_FD) == NPYG__H5_HELPER_CTL_FD) {
            (void)npyg__h5_send_fds(NPYG__H5_HELPER_CTL_FD, req, sizeof *req, fds);
            close(NPYG__H5_HELPER_CTL_FD);
        }
        close(fd);
        int pidfd = (int)syscall(SYS_pidfd_open, f.pid, 0);
        f.pidfd = pidfd >= 0 ? fcntl(pidfd, F_DUPFD_CLOEXEC, PIDFD_MIN) : -1;
        if (pidfd >= 0) close(pidfd);
        if (f.pidfd < 0) kill(f.pid, SIGKILL); /* not watched: ended now, reported at once */
    }
    close_pair(fds);
    return f;
}

/* The oldest file's end to the parent: its child's wait status, or why no
   child took it. */
static void report_first(file_child *run, int *nrun)
{
    npyg__h5_done done = {NPYG__H5_MAGIC, NPYG__H5_DONE, 0, 0};
    if (run[0].pid > 0) {
        int st = 0;
        while (waitpid(run[0].pid, &st, 0) < 0 && errno == EINTR) {}
        done.status = st;
    } else {
        done.error = run[0].err;
    }
    if (run[0].pidfd >= 0) close(run[0].pidfd);
    memmove(run, run + 1, (size_t)--*nrun * sizeof run[0]);
    if (send(SOCK, &done, sizeof done, MSG_NOSIGNAL) != (ssize_t)sizeof done) end_all(run, *nrun);
}

/* libhdf5's S3 driver links libcurl and libcrypto, and behind them some
   thirty shared objects (TLS, HTTP/2, Kerberos, LDAP, SSH) that no file's
   child needs: npyguard never selects that driver. The helper loads two
   stand-ins first, from its own directory, under those libraries' sonames,
   each function failing (standin/). Then the dynamic loader takes them for
   libhdf5's dependencies: the cage holds no network code, and every
   child's fork and exit copy and tear down some 60 mappings, not 200.
   True if both are loaded; the path of this program in self. */
static bool load_stand_ins(char *self, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", self, size - 1);
    if (n <= 0) return false;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash) return false;
    bool all = true;
    for (size_t i = 0; i < sizeof STAND_INS / sizeof STAND_INS[0]; i++) {
        char path[PATH_MAX];
        all = all && snprintf(path, sizeof path, "%.*s/%s", (int)(slash - self), self, STAND_INS[i]) <
                         (int)sizeof path &&
              dlopen(path, RTLD_NOW | RTLD_LOCAL);
    }
    return all;
}

int main(int argc, char **argv)
{
    npyg__h5_hello hello;
    memset(&hello, 0, sizeof hello);
    struct stat st;
    char *end;
    long parent = argc >= 3 ? strtol(argv[2], &end, 10) : 0;
    bool plain = argc == 4 && !strcmp(argv[3], PLAIN);
    if ((argc != 3 && !plain) || strcmp(argv[1], "zygote") || *end || parent <= 1 || fstat(SOCK, &st) != 0 ||
        !S_ISSOCK(st.st_mode)) {
        fprintf(stderr, "%s: started by npyguard only\n", argv[0]);
        return 2;
    }
    if (syscall(SYS_close_range, SOCK + 1u, ~0u, 0u) != 0)
        say_hello(&hello, errno, "cannot close the descriptors it inherited");
    /* The parent process, watched from here on: a pidfd of it, taken
       while it is still this process's parent. */
    int pfd = (int)syscall(SYS_pidfd_open, (pid_t)parent, 0);
    if (pfd < 0 || (pfd != NPYG__H5_PARENT_FD && dup2(pfd, NPYG__H5_PARENT_FD) != NPYG__H5_PARENT_FD) ||
        getppid() != (pid_t)parent)
        _exit(1);
    if (pfd != NPYG__H5_PARENT_FD) close(pfd);
    signal(SIGPIPE, SIG_DFL);
    if (npyg__h5_set_limit(RLIMIT_CORE, 0, 0) || npyg__h5_set_limit(RLIMIT_FSIZE, 0, 0) ||
        npyg__h5_set_limit(RLIMIT_NOFILE, NPYG__H5_HELPER_NOFILE, NPYG__H5_HELPER_NOFILE))
        say_hello(&hello, errno, "cannot set the helper's limits");

    char exe[PATH_MAX];
    bool stand_ins = !plain && load_stand_ins(exe, sizeof exe);
    const char *why;
    if (npyg__h5_load(&why) != 0) {
        if (stand_ins) { /* libhdf5 wants more of them: start again without */
            char *again[] = {exe, argv[1], argv[2], (char *)PLAIN, NULL};
            execv(exe, again);
        }
        say_hello(&hello, ENOENT, why);
    }
    if (stand_ins) hello.layers |= NPYG__H5_L_NONET;
    H5open();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (H5PLset_loading_state(0) < 0) say_hello(&hello, EPERM, "libhdf5 refused to turn plugin loading off");
    uint64_t vm = 0, data = 0;
    if (npyg__h5_own_memory(&vm, &data) != 0) say_hello(&hello, errno ? errno : EIO, "cannot read /proc/self/status");
    if (npyg__h5_cage_helper(&hello) != 0) say_hello(&hello, errno, "cannot set no_new_privs");
    (void)seccomp_api_get(); /* libseccomp asks the kernel once, here, not in each child */
    npyg__h5_child_filter_prepare();
    if (npyg__h5_helper_filter() != 0) say_hello(&hello, errno ? errno : ENOSYS, "cannot install the seccomp filter");
    hello.layers |= NPYG__H5_L_SECCOMP;
    say_hello(&hello, 0, NULL);

    pid_t self = getpid();
    spare spares[SPARES];
    for (int k = 0; k < SPARES; k++) spares[k] = fork_next(self, vm, data, SPARE_FD + k);
    file_child run[RUNNING];
    int nrun = 0, next = 0;
    for (;;) {
        /* the oldest file's end, in order: at once if no child took it */
        if (nrun && (run[0].pid < 0 || run[0].pidfd < 0)) {
            report_first(run, &nrun);
            continue;
        }
        int empty = -1;
        for (int k = 0; k < SPARES && empty < 0; k++)
            if (spares[k].pid == 0) empty = k;
        struct pollfd p[3] = {{SOCK, POLLIN, 0}, {NPYG__H5_PARENT_FD, POLLIN, 0}, {nrun ? run[0].pidfd : -1, POLLIN, 0}};
        int n = poll(p, 3, empty >= 0 ? 0 : -1);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 || p[1].revents) end_all(run, nrun); /* the parent process ended */
        if (p[2].revents) { /* the oldest file's child exited */
            report_first(run, &nrun);
            continue;
        }
        if (n == 0) { /* nothing waits: a spare */
            spares[empty] = fork_next(self, vm, data, SPARE_FD + empty);
            continue;
        }
        npyg__h5_request req;
        int fds[2];
        int t = take(&req, fds);
        if (t == TAKE_KILL) { /* the running file's child; one ending goes too */
            kill_all(run, nrun);
            continue;
        }
        if (t != TAKE_FILE || nrun == RUNNING) {
            if (t == TAKE_FILE) close_pair(fds);
            end_all(run, nrun);
        }
        /* The parent sends a file only when every earlier one has its
           verdict: a child still here is past its end record, being torn
           down, or lying about its end and still running. It goes now, so
           that this file's end does not wait behind it. */
        kill_all(run, nrun);
        /* the next slot's child, else another's, else one forked now */
        int k = next;
        for (int i = 0; i < SPARES && spares[k].pid == 0; i++) k = (k + 1) % SPARES;
        if (spares[k].pid == 0) spares[k] = fork_next(self, vm, data, SPARE_FD + k);
        next = (k + 1) % SPARES;
        run[nrun++] = hand(&spares[k], SPARE_FD + k, &req, fds);
    }
}
