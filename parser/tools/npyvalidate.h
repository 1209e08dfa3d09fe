/* SPDX-License-Identifier: BSD-3-Clause */
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

/* ---------------- sha256.c: OpenSSL's SHA-256, loaded for --hash ---------------- */
#include <openssl/evp.h>
typedef struct sha256_api {
    EVP_MD_CTX *(*ctx_new)(void);
    void (*ctx_free)(EVP_MD_CTX *);
    const EVP_MD *(*sha256)(void);
    int (*init)(EVP_MD_CTX *, const EVP_MD *, ENGINE *);
    int (*update)(EVP_MD_CTX *, const void *, size_t);
    int (*final)(EVP_MD_CTX *, unsigned char *, unsigned int *);
} sha256_api;
/* 0, or -1 with the loader's reason in *why. */
int sha256_load(sha256_api *api, const char **why);

typedef struct options {
    bool json, hash, quiet, recursive;
    bool sarif; /* one SARIF 2.1.0 log of the refusals instead of reports */
    bool skip_unrecognized; /* --skip-unrecognized: a record, not a refusal */
    bool null_list;           /* -0: list entries end with NUL, not newline */
    const char **include;     /* --include GLOB...: names a walk checks */
    size_t ninclude;
    const char *extract;      /* --extract OUT.npz */
    const sha256_api *sha256; /* set when hash */
    npyg_profile profile;
    uint64_t limits[NPYG_LIMIT_END_]; /* by npyg_limit id */
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
/* Text for people: every character Python's repr() escapes, and every
   byte that is not UTF-8, escaped (\xNN, \uNNNN, \UNNNNNNNN). */
void sb_text(strbuf *b, const char *s, size_t n);
void sb_text0(strbuf *b, const char *s);
void fput_text(FILE *to, const char *s);
/* Strict UTF-8 JSON string; false when bytes that are not UTF-8 were
   replaced by U+FFFD. */
bool sb_json_str(strbuf *b, const char *s, size_t n);
/* "key": string, plus "key_bytes": hex when the string is not UTF-8. */
void sb_json_name(strbuf *b, const char *key, const char *s, size_t n);
void sb_json_u64(strbuf *b, uint64_t v);

/* ---------------- report.c: one file's report, text or JSON ---------------- */
/* What an object array's pickle would import: the scan's report (NULL
   when none was made) and, when it stopped early, its error. */
typedef struct pickle_view {
    const npyg_pickle_report *report;
    npyg_error scan_error;
} pickle_view;

/* A .npy input (or the error that stopped it); pk NULL: no scan. */
/* f: the format sniffed (NPYG_FORMAT_UNKNOWN when the .npy validator was
   asked only to say what is wrong with the file). */
void report_npy(const options *o, strbuf *b, const char *path, npyg_ctx *ctx, int rc, const char *sha,
                const pickle_view *pk, npyg_format f);
/* An error that ended a file of format f before its validator ran. */
void report_error(const options *o, strbuf *b, const char *path, const npyg_error *e, npyg_format f);
/* "npy", "npz", "ra", "hdf5", "mat73", "mat5", "mat4", "unknown": the
   records' and the SARIF log's name of a format. */
const char *format_name(npyg_format f);
/* A RawArray .ra input (or the error that stopped it). */
void report_ra(const options *o, strbuf *b, const char *path, npyg_ctx *ctx, int rc, const char *sha);
/* A path that was not checked, as a record that counts in the exit
   status: kind is the JSON "not_checked" value ("symlink", "special",
   "unreadable_directory", "vanished", ...), e the reason. */
void report_unchecked(const options *o, strbuf *b, const char *path, const char *kind, const npyg_error *e);
/* A path skipped on the user's word (--skip-unrecognized, --include): a
   record with "ok": null and "skipped": reason; text unless -q. */
void report_skipped(const options *o, strbuf *b, const char *path, const char *reason, const char *message);
/* An error found before any validator ran (open, stat, kind of file). */
void report_io(const options *o, strbuf *b, const char *path, const char *what, int err);
/* A path that is not a regular file (st_mode), refused before it is opened. */
void report_refused(const options *o, strbuf *b, const char *path, unsigned mode);
/* An archive that could not be opened (or read at all). */
void report_archive_error(const options *o, strbuf *b, const char *path, const npyg_error *e);
/* One member, into the archive's member list. */
/* e: the member's error (rc != 0), kept before a pickle scan replaced
   the context's. */
void report_member(const options *o, strbuf *b, const char *path, npyg_ctx *ctx, const npyg_zip_entry *m, int rc,
                   const char *sha, const npyg_error *e, const pickle_view *pk);
/* The archive's line around its members' reports. */
/* first, first_error: the first member that failed and its error (NULL
   when none did), the archive's own error in the JSON record. */
void report_archive(const options *o, strbuf *b, const char *path, int status, size_t count, const char *members,
                    const npyg_zip_entry *first, const npyg_error *first_error);

/* ---------------- sarif.c: --sarif ---------------- */
/* The log around the results, written before and after the run. */
void sarif_begin(FILE *to);
void sarif_end(FILE *to);
/* One refusal as a SARIF result, after a comma when b already holds one:
   the file at path; where ("member", "object") and name say what inside
   it, or are NULL. offset_space < 0: no byte offset (an HDF5 object). */
void sarif_result(strbuf *b, const char *path, int code, const char *message, uint64_t offset, int offset_space,
                  const char *where, const char *name, size_t name_len);
/* ---------------- collect.c: an HDF5 load's datasets, one at a time ---------------- */
#define MAX_DIMS 32 /* HDF5's most */

/* One dataset's values, kept until the next record says it is complete. */
typedef struct pending {
    bool active;
    char path[1100];
    char form[8];
    bool null_space;
    unsigned n;
    void *buf[2];
    uint64_t size[2];
    char descr[4096];       /* of value 0, as numpy spells it */
    uint32_t ndim;
    uint64_t shape[MAX_DIMS];
} pending;

typedef struct collector {
    pending p;
    void *scratch;                      /* an attribute's value: not kept */
    int (*done)(struct collector *c);  /* p complete; non-zero: stop */
    char why[1400];                     /* why done() stopped */
} collector;

/* The npyg_hdf5_sink callbacks (user: the collector). */
int collect_object(void *user, const npyg_hdf5_item *it);
int collect_value(void *user, unsigned index, const npyg_info *in, void **buf);
void collect_end(void *user, int rc);

/* ---------------- hdf5hash.c: --hash of HDF5 datasets ---------------- */
/* The SHA-256 of each dataset as loaded, by the path the scan's records
   show. */
typedef struct hdf5_hash {
    char *path;
    char sha[65];
} hdf5_hash;
typedef struct hdf5_hashes {
    hdf5_hash *v;
    size_t n, cap;
} hdf5_hashes;
int hdf5_hash_datasets(const options *o, npyg_ctx *ctx, int fd, hdf5_hashes *out);
const char *hdf5_hash_of(const hdf5_hashes *h, const char *shown_path);
void hdf5_hashes_free(hdf5_hashes *h);
/* ---------------- extract.c: --extract ---------------- */
/* The datasets of path as a strict .npz at out; an exit status. */
int extract_npz(const options *o, const char *path, const char *out);

/* ---------------- report.c: an HDF5 / MAT v7.3 file's report ---------------- */
/* An HDF5 / MAT v7.3 file: one line (or JSON object) per object, as the
   scan reports them; report_hdf5_object is the scan's callback (user: an
   hdf5_report), report_hdf5 the file's report around them. */
typedef struct hdf5_report {
    const options *o;
    const char *path;
    const hdf5_hashes *hashes; /* --hash: of the datasets, when they loaded */
    strbuf objects;   /* human lines, or the JSON objects array */
    size_t n;
    bool any_code;    /* some object carried an error */
} hdf5_report;
int report_hdf5_object(void *user, const npyg_hdf5_object *obj);
void report_hdf5(const options *o, strbuf *b, const char *path, npyg_ctx *ctx, int rc, const npyg_probe_info *pi,
                 const hdf5_report *objs);
/* The exit status a result stands for: 0 valid, 1 invalid, 2 environment. */
int status_of(int code);

/* ---------------- check.c: one input, by its format ---------------- */
/* What an input is before it is opened: a file to check, or what a walk
   or a list found instead (each becomes a record, never nothing). */
enum entry_kind {
    ENTRY_CHECK = 0,   /* open it and check it by its content */
    ENTRY_SYMLINK,     /* a walk does not follow symbolic links */
    ENTRY_SPECIAL,     /* a FIFO, socket or device met by a walk */
    ENTRY_DIR_ERROR,   /* a directory that cannot be opened or read (err) */
    ENTRY_TOO_DEEP,    /* directories nested past the walk's bound */
    ENTRY_VANISHED,    /* listed by readdir, gone at lstat */
    ENTRY_STAT_ERROR,  /* lstat failed otherwise (err) */
    ENTRY_EXCLUDED,    /* a walked name no --include matches */
    ENTRY_LIST_ERROR,  /* a --files-from list that cannot be read (err) */
    ENTRY_LIST_NUL,    /* a NUL inside a newline-separated list line */
    ENTRY_LIST_LONG    /* a list record longer than any path */
};

typedef struct job {
    char *path;   /* owned, freed once printed */
    int kind;     /* enum entry_kind */
    int err;      /* errno, for the kinds that carry one */
    unsigned mode; /* st_mode, for ENTRY_SYMLINK and ENTRY_SPECIAL */
    char *out;    /* the finished report */
    int status;   /* 0 valid, 1 invalid, 2 I/O */
    bool done;
} job;

/* A worker's last directory, held open: the paths that follow in it (as a
   directory walk, find or a sorted list give them) are looked up from it,
   one name each rather than the whole path, for the stat and the open. */
typedef struct dircache {
    int fd;           /* O_PATH descriptor of dir, or -1 */
    bool open_failed; /* dir could not be opened: whole paths meanwhile */
    size_t len;       /* bytes of dir; SIZE_MAX before the first path */
    char *dir;        /* the last path up to its last '/', as written */
    size_t cap;
} dircache;
#define DIRCACHE_INIT {.fd = -1, .len = SIZE_MAX}

/* What a worker keeps from one file to the next. */
typedef struct scratch {
    dircache dir;
    unsigned char *whole; /* a small file's bytes; allocated on first use */
} scratch;
#define SCRATCH_INIT {.dir = DIRCACHE_INIT}
void scratch_free(scratch *s);

void validate_one(const options *o, npyg_ctx *ctx, scratch *s, job *j);

/* ---------------- paths.c: the inputs ---------------- */
typedef struct input_arg {
    char *text;
    bool list; /* --files-from FILE: text names a list */
} input_arg;
typedef struct arglist {
    input_arg *v;
    size_t n, cap;
} arglist;
void add_arg(arglist *l, const char *text, bool list); /* a copy of text */
void free_args(arglist *l);

typedef struct entry {
    char *path;
    int kind, err;
    unsigned mode;
} entry;

/* The jobs the arguments stand for, in order, one at a time: a list is
   read as its paths are taken, a directory (with -r) walked when it is
   reached. */
typedef struct source {
    const options *o;
    const arglist *args;
    size_t next_arg;
    entry *walked; /* the directory being handed out */
    size_t nwalked, walk_pos, walk_cap;
    int list_fd;   /* the list being read, or -1 */
    const char *list_name;
    bool list_regular, list_eof;
    bool list_long; /* dropping a record longer than any path */
    bool streamed;  /* a list came from a pipe or terminal: print as verdicts come */
    char *lbuf;     /* list bytes read, the record being cut at lstart */
    size_t lstart, lend, lcap;
} source;
void source_init(source *s, const options *o, const arglist *args);
/* The next job (path owned by it), or false when there are no more. */
bool source_next(source *s, job *j);
void source_free(source *s);
/* The next job can be taken without waiting for a list's writer. */
bool source_ready(const source *s);
/* The descriptor to poll before taking the next job, or -1 when it is
   ready. */
int source_wait_fd(const source *s);
/* What a st_mode is, for people: "a FIFO (named pipe)", "a character device". */
const char *file_kind(unsigned mode);

/* ---------------- pool.c: ordered parallel run ---------------- */
/* Validates every job src gives with o->jobs workers; prints reports in
   job order, holding at most a window of jobs at once. Returns the
   worst status. */
int run_all(const options *o, source *src);

/* ---------------- spool.c: an archive on standard input ---------------- */
/* All n bytes to fd, retried after EINTR; false on a write error. */
bool write_all(int fd, const void *buf, size_t n);
/* The largest archive the zip limits admit, in bytes. */
uint64_t spool_bound(const options *o);
/* Copies head and then the rest of the stream in into an anonymous
   temporary file, at most spool_bound() bytes; returns it at offset 0, or
   -1 with *e filled (NPYG_ELIMIT_STDIN past the bound, NPYG_EIO). */
int spool_stream(const options *o, const unsigned char *head, size_t head_len, int in, npyg_error *e);

/* ---------------- options.c ---------------- */
/* Fills o and the path arguments. Returns -1 to go on, else the exit
   status (0 after --help/--version, 2 for a usage error). */
int parse_options(int argc, char **argv, options *o, arglist *args);
void usage(FILE *to);
/* A context with the options' profile and limits (exits when memory runs out). */
npyg_ctx *new_context(const options *o);

#endif
