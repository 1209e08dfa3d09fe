/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The run: a pool of workers, each with its own context, and output in
 * input order. At most a window of finished reports waits for its turn,
 * so memory stays bounded however many files there are.
 *
 * There is no printer thread: whichever worker finishes the job next in
 * line prints every finished report from there on. A worker sleeps only
 * when the window is full; with a separate printer, every batch woke a
 * third thread on two cores (1,631 context switches for 10,000 files at
 * -j2, perf stat).
 *
 * The calling thread starts the workers and waits for them; it is not one
 * of them. When it was, the thread it had just created queued behind it
 * on its core for 1-4 ms, then filled the window and slept (up to 10 ms of
 * 40 at -j2), and perf stat counted 1.72 CPUs busy where the floor keeps
 * 1.89; waiting in pthread_join hands the core over at once (1.94).
 */
#include "npyvalidate.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define BATCH 16 /* jobs a worker takes at once; the window is 64 per worker */

typedef struct progress progress;

typedef struct run {
    const options *o;
    job *jobs;
    size_t njobs;
    size_t next;       /* next job to hand out */
    size_t printed;    /* jobs printed so far */
    size_t window;     /* max jobs handed out ahead of printing */
    unsigned waiting;  /* workers waiting for room in the window */
    bool printing;     /* a worker is printing; only it moves printed */
    int status;        /* worst status printed, written by the printing worker */
    progress *p;
    pthread_mutex_t mu;
    pthread_cond_t room; /* the window moved */
} run;

static void emit(job *j, int *status, progress *p);
static void progress_tick(progress *p, size_t done, size_t n);

/* With r->mu held: print every finished job in order, unless another
   worker is already doing so (it will see ours before it stops). */
static void print_ready(run *r)
{
    if (r->printing) return;
    r->printing = true;
    size_t from = r->printed;
    while (r->printed < r->njobs && r->jobs[r->printed].done) {
        job *j = &r->jobs[r->printed];
        pthread_mutex_unlock(&r->mu);
        emit(j, &r->status, r->p);
        pthread_mutex_lock(&r->mu);
        r->printed++;
    }
    r->printing = false;
    if (r->printed != from) {
        progress_tick(r->p, r->printed, r->njobs);
        if (r->waiting) pthread_cond_broadcast(&r->room);
    }
}

static void *worker(void *arg)
{
    run *r = arg;
    npyg_ctx *ctx = new_context(r->o);
    scratch sc = SCRATCH_INIT;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (r->next < r->njobs && r->next >= r->printed + r->window) {
            r->waiting++;
            pthread_cond_wait(&r->room, &r->mu);
            r->waiting--;
        }
        if (r->next >= r->njobs) break;
        /* A batch of consecutive jobs per lock: one lock and hand-off per
           file made the futex calls half the -j2 system time (strace -c -f:
           18,684 futex calls for 10,000 files). */
        size_t first = r->next, k = r->njobs - first, room = r->printed + r->window - first;
        if (k > BATCH) k = BATCH;
        if (k > room) k = room;
        r->next += k;
        pthread_mutex_unlock(&r->mu);
        for (size_t i = 0; i < k; i++) validate_one(r->o, ctx, &sc, &r->jobs[first + i]);
        pthread_mutex_lock(&r->mu);
        for (size_t i = 0; i < k; i++) r->jobs[first + i].done = true;
        if (first == r->printed) print_ready(r);
    }
    pthread_mutex_unlock(&r->mu);
    scratch_free(&sc);
    npyg_ctx_free(ctx);
    return NULL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A progress line on stderr, when it is a terminal and the run is long. */
struct progress {
    bool on, shown;
    bool comma; /* --sarif: results of different files are array items */
    bool any;   /* some report was printed */
    double start, last;
};

static void progress_tick(progress *p, size_t done, size_t n)
{
    if (!p->on) return;
    double t = now();
    if (t - p->start > 1.0 && t - p->last > 0.2) {
        fprintf(stderr, "\r%zu/%zu files", done, n);
        p->last = t;
        p->shown = true;
    }
}

static void emit(job *j, int *status, progress *p)
{
    if (p->shown) {
        fputs("\r\033[K", stderr);
        p->shown = false;
    }
    if (j->out && *j->out) {
        if (p->comma && p->any) fputs(",\n", stdout);
        fputs(j->out, stdout);
        p->any = true;
    }
    if (j->status > *status) *status = j->status;
    free(j->out);
    j->out = NULL;
}

int run_all(const options *o, job *jobs, size_t n)
{
    progress p = {.on = isatty(STDERR_FILENO) && n > 1, .comma = o->sarif, .start = now(), .last = now()};
    int status = 0;
    int nthreads = o->jobs < (int)n ? o->jobs : (int)n;
    if (nthreads <= 1) { /* no hand-off between threads at all */
        npyg_ctx *ctx = new_context(o);
        scratch sc = SCRATCH_INIT;
        for (size_t k = 0; k < n; k++) {
            validate_one(o, ctx, &sc, &jobs[k]);
            emit(&jobs[k], &status, &p);
            progress_tick(&p, k + 1, n);
        }
        scratch_free(&sc);
        npyg_ctx_free(ctx);
        if (p.shown) fputs("\r\033[K", stderr);
        return status;
    }

    run r = {.o = o, .jobs = jobs, .njobs = n, .window = (size_t)o->jobs * 64, .p = &p};
    pthread_mutex_init(&r.mu, NULL);
    pthread_cond_init(&r.room, NULL);
    pthread_t *th = calloc((size_t)nthreads, sizeof *th);
    if (!th) die_oom();
    for (int k = 0; k < nthreads; k++)
        if (pthread_create(&th[k], NULL, worker, &r) != 0) die_oom();
    for (int k = 0; k < nthreads; k++) pthread_join(th[k], NULL);
    /* Every job is printed: the worker that finished the last one in line
       printed it, and no worker leaves while a job is still handed out. */
    if (p.shown) fputs("\r\033[K", stderr);
    free(th);
    pthread_mutex_destroy(&r.mu);
    pthread_cond_destroy(&r.room);
    status = r.status;
    return status;
}
