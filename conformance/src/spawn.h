/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Running one adapter invocation: /bin/sh -c CMD in its own process group,
 * stdin from /dev/null, stdout and stderr captured (bounded), a wall-clock
 * timeout after which the whole group is killed. Safe to call from several
 * threads at once.
 */
#ifndef NPYCONFORM_SPAWN_H
#define NPYCONFORM_SPAWN_H

#include <stdbool.h>
#include <stddef.h>

typedef enum ncf_exit_kind {
    NCF_EXITED = 0,   /* code holds the exit status */
    NCF_SIGNALED,     /* code holds the signal number */
    NCF_TIMEOUT,      /* killed after the timeout */
    NCF_SPAWN_FAILED, /* could not start; code holds errno */
    NCF_MEMORY,       /* killed: the group's resident memory went over the cap */
    NCF_GROWING       /* killed at the timeout while its memory was still growing */
} ncf_exit_kind;

typedef struct ncf_proc_result {
    ncf_exit_kind kind;
    int code;
    char *out;          /* stdout, NUL-terminated, at most out_cap bytes */
    size_t out_len;
    bool out_truncated; /* the adapter wrote more than out_cap bytes */
    char *err;          /* the first err_cap bytes of stderr */
    size_t err_len;
    double seconds;     /* wall time */
    long peak_rss_kb;   /* the largest resident set seen, KiB (see ncf_run) */
    long grown_kb;      /* NCF_GROWING: growth over the last grown_secs before the kill */
    double grown_secs;
} ncf_proc_result;

/* Runs cmd; fills r (free with ncf_proc_result_free). Returns 0, or -1 when
   memory ran out (r->kind is then NCF_SPAWN_FAILED).

   max_rss_kb > 0 caps the resident memory of the adapter's process group.
   peak_rss_kb is the larger of two measurements: the kernel's own peak
   (ru_maxrss from wait4: the largest single process of the tree that was
   waited for, exact whatever the machine's speed) and the sum over the
   process group sampled every few milliseconds while it runs. The group is
   killed as soon as a sample is over the cap; an adapter that finished
   between two samples is still caught by ru_maxrss after it exits, so the
   verdict does not depend on how fast the machine is.

   A hog too slow to reach the cap before the timeout would fail as a
   timeout on a slow machine and as memory on a fast one. So at the timeout
   the group's growth over the last second is measured: NCF_GROWING when it
   grew by at least NCF_GROWTH_KB (with the growth in grown_kb), the same
   verdict whatever the speed; NCF_TIMEOUT when it sat still (a hang). */
#define NCF_GROWTH_KB (8L * 1024)
int ncf_run(const char *cmd, double timeout_sec, long max_rss_kb, size_t out_cap, size_t err_cap,
            ncf_proc_result *r);
void ncf_proc_result_free(ncf_proc_result *r);

/* cmd + " " + path quoted for /bin/sh. malloc'd; NULL when out of memory. */
char *ncf_command_with_path(const char *cmd, const char *path);

#endif
