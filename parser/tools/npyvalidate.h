/*
 * npyvalidate's parts and what they share: the options, the text buffer a
 * report is built in, one job per input path.
 */
#ifndef NPYVALIDATE_H
#define NPYVALIDATE_H

#include "npyguard.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct options {
    bool json, hash, quiet, recursive;
    npyg_profile profile;
    npyg_limits limits;
    npyg_zip_limits zip_limits;
    int jobs;
} options;

/* ---------------- strbuf.c: growable text, JSON scalars ---------------- */
typedef struct strbuf {
    char *p;
    size_t len, cap;
} strbuf;

void die_oom(void);
void sb_put(strbuf *b, const char *s, size_t n);
void sb_puts(strbuf *b, const char *s);
void sb_printf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_json_str(strbuf *b, const char *s, size_t n);
void sb_json_u64(strbuf *b, uint64_t v);

/* ---------------- report.c: one file's report, text or JSON ---------------- */
/* What an object array's pickle would import: the scan's report (NULL
   when none was made) and, when it stopped early, its error. */
typedef struct pickle_view {
    const npyg_pickle_report *report;
    npyg_error scan_error;
} pickle_view;

/* A .npy input (or the error that stopped it); pk NULL: no scan. */
void report_npy(const options *o, strbuf *b, const char *path, npyg_ctx *ctx, int rc, const char *sha,
                const pickle_view *pk);
/* An error found before any validator ran (open, stat, kind of file). */
void report_io(const options *o, strbuf *b, const char *path, const char *what, int err);
/* An archive that could not be opened (or read at all). */
void report_archive_error(const options *o, strbuf *b, const char *path, const npyg_error *e);
/* One member, into the archive's member list. */
/* e: the member's error (rc != 0), kept before a pickle scan replaced
   the context's. */
void report_member(const options *o, strbuf *b, const char *path, npyg_ctx *ctx, const npyg_zip_entry *m, int rc,
                   const char *sha, const npyg_error *e, const pickle_view *pk);
/* The archive's line around its members' reports. */
void report_archive(const options *o, strbuf *b, const char *path, int status, size_t count, const char *members);
/* The exit status a result stands for: 0 valid, 1 invalid, 2 environment. */
int status_of(int code);

/* ---------------- check.c: one input, by its format ---------------- */
typedef struct job {
    const char *path;
    char *out;    /* the finished report */
    int status;   /* 0 valid, 1 invalid, 2 I/O */
    bool done;
} job;

void validate_one(const options *o, npyg_ctx *ctx, job *j);

/* ---------------- pool.c: ordered parallel run ---------------- */
/* Validates every job with o->jobs workers; prints reports in job order.
   Returns the worst status. */
int run_all(const options *o, job *jobs, size_t n);

/* ---------------- paths.c: the inputs ---------------- */
typedef struct pathlist {
    char **v;
    size_t n, cap;
} pathlist;

void add_path(pathlist *l, const char *p);
int walk(pathlist *l, const char *dir, int depth); /* sorted, *.npy and *.npz */
int read_list(pathlist *l, const char *file);      /* one path per line */

/* ---------------- options.c ---------------- */
/* Fills o and the path arguments. Returns -1 to go on, else the exit
   status (0 after --help/--version, 2 for a usage error). */
int parse_options(int argc, char **argv, options *o, pathlist *args);
void usage(FILE *to);

#endif
