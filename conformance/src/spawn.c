/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fork/exec of adapter commands with captured output and a timeout.
 */
#define _DEFAULT_SOURCE 1 /* wait4 */
#include "spawn.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* pipe() and fork() under one lock: a pipe made by one thread must not leak
   into a child forked by another before it is marked close-on-exec. */
static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;

static double now_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {0, (long)ms * 1000000L};
    nanosleep(&ts, NULL);
}

static int cloexec_pipe(int fd[2])
{
    if (pipe(fd) != 0) return -1;
    for (int k = 0; k < 2; k++) {
        if (fcntl(fd[k], F_SETFD, FD_CLOEXEC) != 0) {
            close(fd[0]);
            close(fd[1]);
            return -1;
        }
    }
    return 0;
}

char *ncf_command_with_path(const char *cmd, const char *path)
{
    size_t n = strlen(cmd) + 4;
    for (const char *p = path; *p; p++) n += *p == '\'' ? 4 : 1;
    char *s = malloc(n + 1);
    if (!s) return NULL;
    size_t k = 0;
    memcpy(s, cmd, strlen(cmd));
    k = strlen(cmd);
    s[k++] = ' ';
    s[k++] = '\'';
    for (const char *p = path; *p; p++) {
        if (*p == '\'') { memcpy(s + k, "'\\''", 4); k += 4; }
        else s[k++] = *p;
    }
    s[k++] = '\'';
    s[k] = '\0';
    return s;
}

typedef struct sink {
    char *buf;
    size_t len, cap; /* cap: bytes kept */
    bool truncated;
    int fd;
} sink;

/* Reads what is available; returns 0 at EOF or error, 1 to keep going. */
static int drain(sink *s)
{
    char tmp[65536];
    for (;;) {
        ssize_t n = read(s->fd, tmp, sizeof tmp);
        if (n > 0) {
            size_t room = s->cap - s->len;
            size_t take = (size_t)n < room ? (size_t)n : room;
            memcpy(s->buf + s->len, tmp, take);
            s->len += take;
            if (take < (size_t)n) s->truncated = true;
            continue;
        }
        if (n == 0) return 0;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return 1;
        return 0;
    }
}

/* Resident KiB of the processes in group pgid: reads /proc/N/stat for every
   process (pgrp is field 5, rss in pages field 24). -1 when /proc cannot be
   read. */
static long group_rss_kb(pid_t pgid)
{
    DIR *d = opendir("/proc");
    if (!d) return -1;
    long page_kb = sysconf(_SC_PAGESIZE) / 1024;
    long total = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n <= 0) continue;
        buf[n] = '\0';
        /* the command name (field 2) may hold spaces and parentheses */
        char *p = strrchr(buf, ')');
        if (!p) continue;
        long pgrp = 0, rss = 0;
        /* fields 3..24 after the name: state ppid pgrp ... rss */
        int field = 2;
        char *save = NULL;
        for (char *tok = strtok_r(p + 1, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
            field++;
            if (field == 5) pgrp = strtol(tok, NULL, 10);
            if (field == 24) { rss = strtol(tok, NULL, 10); break; }
        }
        if (pgrp == (long)pgid && rss > 0) total += rss * page_kb;
    }
    closedir(d);
    return total;
}

static long leader_rss_kb(pid_t pid)
{
    char path[64], buf[128];
    snprintf(path, sizeof path, "/proc/%ld/statm", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = '\0';
    long size = 0, rss = 0;
    if (sscanf(buf, "%ld %ld", &size, &rss) != 2) return -1;
    return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

void ncf_proc_result_free(ncf_proc_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

int ncf_run(const char *cmd, double timeout_sec, long max_rss_kb, size_t out_cap, size_t err_cap,
            ncf_proc_result *r)
{
    memset(r, 0, sizeof *r);
    r->kind = NCF_SPAWN_FAILED;
    sink out = {malloc(out_cap + 1), 0, out_cap, false, -1};
    sink err = {malloc(err_cap + 1), 0, err_cap, false, -1};
    if (!out.buf || !err.buf) {
        free(out.buf);
        free(err.buf);
        r->code = ENOMEM;
        return -1;
    }
    double start = now_sec();
    int op[2], ep[2];
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    pid_t pid = -1;
    int spawn_errno = 0;

    pthread_mutex_lock(&fork_lock);
    if (devnull < 0 || cloexec_pipe(op) != 0) {
        spawn_errno = errno;
    } else if (cloexec_pipe(ep) != 0) {
        spawn_errno = errno;
        close(op[0]);
        close(op[1]);
    } else {
        pid = fork();
        if (pid == 0) {
            /* child: only async-signal-safe calls from here on */
            setpgid(0, 0);
            dup2(devnull, 0);
            dup2(op[1], 1);
            dup2(ep[1], 2);
            signal(SIGPIPE, SIG_DFL);
            execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
            _exit(127);
        }
        if (pid < 0) spawn_errno = errno;
        close(op[1]);
        close(ep[1]);
        if (pid < 0) {
            close(op[0]);
            close(ep[0]);
        }
    }
    pthread_mutex_unlock(&fork_lock);
    if (devnull >= 0) close(devnull);
    if (pid < 0) {
        r->code = spawn_errno;
        r->out = out.buf;
        r->out[0] = '\0';
        r->err = err.buf;
        r->err[0] = '\0';
        return 0;
    }
    setpgid(pid, pid); /* also done by the child; whichever runs first wins */

    out.fd = op[0];
    err.fd = ep[0];
    fcntl(out.fd, F_SETFL, O_NONBLOCK);
    fcntl(err.fd, F_SETFL, O_NONBLOCK);
    bool out_open = true, err_open = true, exited = false, timed_out = false, over_mem = false, growing = false;
    double deadline = start + timeout_sec, exited_at = 0, next_sample = start;
    double next_group_sample = start + 0.1;
    long sampled_kb = 0;
    /* group samples of the last ~1.6 s, for the growth at the timeout */
    enum { RING = 16 };
    double ring_t[RING];
    long ring_kb[RING];
    size_t nring = 0;

    /* The leader is only reaped at the end: while it is a zombie its pid,
       and so its process group id, cannot be reused, and kill(-pid) can
       only reach what the adapter started. */
    for (;;) {
        double t = now_sec();
        if (!exited) {
            siginfo_t si;
            memset(&si, 0, sizeof si);
            if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid) {
                exited = true;
                exited_at = t;
            }
        }
        if (exited && !out_open && !err_open) break;
        if (!exited && t >= deadline) {
            timed_out = true;
            if (max_rss_kb > 0) {
                long now_kb = group_rss_kb(pid);
                /* against the oldest sample at most a second old */
                double from_t = t;
                long from_kb = -1;
                for (size_t k = nring > RING ? nring - RING : 0; k < nring; k++)
                    if (ring_t[k % RING] >= t - 1.0) { from_t = ring_t[k % RING]; from_kb = ring_kb[k % RING]; break; }
                if (from_kb >= 0 && now_kb - from_kb >= NCF_GROWTH_KB) {
                    growing = true;
                    r->grown_kb = now_kb - from_kb;
                    r->grown_secs = t - from_t;
                }
                if (now_kb > sampled_kb) sampled_kb = now_kb;
            }
            break;
        }
        if (max_rss_kb > 0 && !exited && t >= next_sample) {
            /* the leader often (its statm is cheap to read); the whole
               group, which means a walk over /proc, every 100 ms */
            long kb = leader_rss_kb(pid);
            if (t >= next_group_sample) {
                long g = group_rss_kb(pid);
                if (g > kb) kb = g;
                ring_t[nring % RING] = t;
                ring_kb[nring % RING] = g;
                nring++;
                next_group_sample = t + 0.1;
            }
            if (kb > sampled_kb) sampled_kb = kb;
            if (kb > max_rss_kb) {
                over_mem = true;
                break;
            }
            next_sample = t + 0.005;
        }
        if (exited && t - exited_at > 0.5) break; /* something it started holds the pipes */
        struct pollfd fds[2];
        nfds_t nf = 0;
        if (out_open) fds[nf++] = (struct pollfd){out.fd, POLLIN, 0};
        if (err_open) fds[nf++] = (struct pollfd){err.fd, POLLIN, 0};
        if (nf == 0) { sleep_ms(1); continue; }
        double left = (exited ? exited_at + 0.5 : deadline) - t;
        int ms = left > 0.05 ? 50 : (int)(left * 1000) + 1;
        if (max_rss_kb > 0 && !exited && ms > 5) ms = 5;
        int pr = poll(fds, nf, ms);
        if (pr < 0 && errno != EINTR) break;
        if (out_open && !drain(&out)) out_open = false;
        if (err_open && !drain(&err)) err_open = false;
    }
    kill(-pid, SIGKILL); /* the group: a timed-out adapter, or leftovers */
    if (timed_out || over_mem) kill(pid, SIGKILL);
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {}
    /* ru_maxrss (KiB on Linux) covers the leader and every descendant it
       waited for: an exact peak, however short-lived the allocation. */
    r->peak_rss_kb = ru.ru_maxrss > sampled_kb ? ru.ru_maxrss : sampled_kb;
    if (max_rss_kb > 0 && r->peak_rss_kb > max_rss_kb) over_mem = true;
    if (out_open) drain(&out);
    if (err_open) drain(&err);
    close(out.fd);
    close(err.fd);

    r->seconds = now_sec() - start;
    out.buf[out.len] = '\0';
    err.buf[err.len] = '\0';
    r->out = out.buf;
    r->out_len = out.len;
    r->out_truncated = out.truncated;
    r->err = err.buf;
    r->err_len = err.len;
    if (over_mem) {
        r->kind = NCF_MEMORY;
        r->code = WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status);
    } else if (growing) {
        r->kind = NCF_GROWING;
        r->code = 0;
    } else if (timed_out) {
        r->kind = NCF_TIMEOUT;
        r->code = 0;
    } else if (WIFSIGNALED(status)) {
        r->kind = NCF_SIGNALED;
        r->code = WTERMSIG(status);
    } else {
        r->kind = NCF_EXITED;
        r->code = WEXITSTATUS(status);
    }
    return 0;
}
