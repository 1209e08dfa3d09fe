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

#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define BATCH 16 /* jobs a worker takes at once; the window is 64 per worker */

typedef struct progress progress;

typedef struct run {
    const options *o;
    source *src;
    job *ring;         /* window slots: job i lives in ring[i % window] */
    size_t next;       /* next job to hand out */
    size_t printed;    /* jobs printed so far */
    size_t window;     /* max jobs handed out ahead of printing */
    size_t filled;     /* jobs taken from src into the ring so far */
    bool ended;        /* src has no more */
    unsigned waiting;  /* workers waiting for room in the window */
    bool printing;     /* a worker is printing; only it moves printed */
    int status;        /* worst status printed, written by the printing worker */
    progress *p;
    pthread_mutex_t mu;
    pthread_cond_t room; /* the window moved */
} run;

static void emit(job *j, int *status, progress *p);
static void progress_tick(progress *p, size_t done, size_t total);

static job *slot(run *r, size_t i) { return &r->ring[i % r->window]; }

/* With r->mu held: job i can be had without waiting for a list's writer. */
static bool ready(run *r, size_t i) { return i < r->filled || r->ended || source_ready(r->src); }

/* With r->mu held: job i from the source into its slot, unless it is
   there already; false when the source has ended before it. The list is
   read under the lock, in order, as the window makes room. */
static bool fetch(run *r, size_t i)
{
    if (i < r->filled) return true;
    if (r->ended) return false;
    job *j = slot(r, i);
    if (!source_next(r->src, j)) {
        r->ended = true;
        return false;
    }
    r->filled++;
    return true;
}

/* With r->mu held: print every finished job in order, unless another
   worker is already doing so (it will see ours before it stops). */
static void print_ready(run *r)
{
    if (r->printing) return;
    r->printing = true;
    size_t from = r->printed;
    while (r->printed < r->next && slot(r, r->printed)->done) {
        job *j = slot(r, r->printed);
        pthread_mutex_unlock(&r->mu);
        emit(j, &r->status, r->p);
        if (r->src->streamed) fflush(stdout); /* a list from a pipe: each verdict as it comes */
        pthread_mutex_lock(&r->mu);
        r->printed++;
    }
    r->printing = false;
    if (r->printed != from) {
        progress_tick(r->p, r->printed, r->ended ? r->filled : 0);
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
        while (!(r->ended && r->next >= r->filled) && r->next >= r->printed + r->window) {
            r->waiting++;
            pthread_cond_wait(&r->room, &r->mu);
            r->waiting--;
        }
        /* A batch of consecutive jobs per lock: one lock and hand-off per
           file made the futex calls half the -j2 system time (strace -c -f:
           18,684 futex calls for 10,000 files). */
        size_t first = r->next, k = 0, room = r->printed + r->window - first;
        int fd = ready(r, first) ? -1 : source_wait_fd(r->src);
        if (fd >= 0) { /* the list's writer is slow: wait for it unlocked, so the others print */
            pthread_mutex_unlock(&r->mu);
            struct pollfd pfd = {.fd = fd, .events = POLLIN};
            poll(&pfd, 1, -1);
            pthread_mutex_lock(&r->mu);
            continue;
        }
        /* ... and a batch stops at what has arrived */
        while (k < BATCH && k < room && (k == 0 || ready(r, first + k)) && fetch(r, first + k)) k++;
        if (k == 0) break; /* the source has ended and every job is handed out */
        r->next += k;
        pthread_mutex_unlock(&r->mu);
        for (size_t i = 0; i < k; i++) validate_one(r->o, ctx, &sc, slot(r, first + i));
        pthread_mutex_lock(&r->mu);
        for (size_t i = 0; i < k; i++) slot(r, first + i)->done = true;
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

/* total: 0 while the inputs are still being listed */
static void progress_tick(progress *p, size_t done, size_t total)
{
    if (!p->on) return;
    double t = now();
    if (t - p->start > 1.0 && t - p->last > 0.2) {
        if (total) fprintf(stderr, "\r%zu/%zu files", done, total);
        else fprintf(stderr, "\r%zu files", done);
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
    free(j->path);
    *j = (job){0};
}

int run_all(const options *o, source *src)
{
    progress p = {.on = isatty(STDERR_FILENO), .comma = o->sarif, .start = now(), .last = now()};
    /* The first jobs decide: one input needs no thread at all, and a
       short run knows its total for the progress line. */
    size_t window = (size_t)o->jobs * 64;
    job *ring = calloc(window, sizeof *ring);
    if (!ring) die_oom();
    run r = {.o = o, .src = src, .ring = ring, .window = window, .p = &p};
    for (size_t k = 0; k < 3 && (k == 0 || ready(&r, k)) && fetch(&r, k); k++) continue;
    int status = 0;
    if (o->jobs <= 1 || (r.ended && r.filled <= 1)) { /* no hand-off between threads at all */
        npyg_ctx *ctx = new_context(o);
        scratch sc = SCRATCH_INIT;
        for (size_t k = 0; fetch(&r, k); k++) {
            job *j = slot(&r, k);
            validate_one(o, ctx, &sc, j);
            emit(j, &status, &p);
            if (src->streamed) fflush(stdout);
            progress_tick(&p, k + 1, r.ended ? r.filled : 0);
        }
        scratch_free(&sc);
        npyg_ctx_free(ctx);
        if (p.shown) fputs("\r\033[K", stderr);
        free(ring);
        return status;
    }

    pthread_mutex_init(&r.mu, NULL);
    pthread_cond_init(&r.room, NULL);
    int nthreads = o->jobs;
    pthread_t *th = calloc((size_t)nthreads, sizeof *th);
    if (!th) die_oom();
    for (int k = 0; k < nthreads; k++)
        if (pthread_create(&th[k], NULL, worker, &r) != 0) die_oom();
    for (int k = 0; k < nthreads; k++) pthread_join(th[k], NULL);
    /* Every job is printed: the worker that finished the last one in line
       printed it, and no worker leaves while a job is still handed out. */
    if (p.shown) fputs("\r\033[K", stderr);
    free(th);
    free(ring);
    pthread_mutex_destroy(&r.mu);
    pthread_cond_destroy(&r.room);
    return r.status;
}
