/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * npyconform: run an NPY reader's adapter over the golden corpus and say
 * where it disagrees with numpy. The adapter protocol is in PROTOCOL.md.
 *
 * Exit status: 0 every case that is not skipped passed, 1 some case failed
 * (or a skipped case now passes), 2 usage, corpus or I/O error.
 */
#include "descr.h"
#include "spawn.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* conformance/VERSION, passed by the build */
#ifndef NPYCONFORM_VERSION
#error "NPYCONFORM_VERSION is not defined (the contents of conformance/VERSION)"
#endif
#define RUNNER_VERSION NPYCONFORM_VERSION
#define OUT_CAP (1u << 20)  /* adapter stdout kept */
#define ERR_CAP 4096u       /* adapter stderr kept */

/* ---------------- small helpers ---------------- */

typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("npyconform: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) die("out of memory");
    return p;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s);
    char *p = xmalloc(n + 1);
    memcpy(p, s, n + 1);
    return p;
}

static void sb_put(sbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 128;
        while (cap < b->len + n + 1) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) die("out of memory");
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_puts(sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    char *tmp = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(tmp, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb_put(b, tmp, (size_t)n);
    free(tmp);
}

static char *sb_take(sbuf *b)
{
    char *p = b->p ? b->p : xstrdup("");
    b->p = NULL;
    b->len = b->cap = 0;
    return p;
}

/* Text from an adapter, made safe for every report format: valid UTF-8
   (bad bytes become '?'), no control characters but tab and newline, at
   most max bytes (then "..."). */
static char *clean_text(const char *s, size_t n, size_t max)
{
    sbuf b = {0};
    size_t i = 0;
    while (i < n && b.len < max) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            if (c == '\n' || c == '\t' || (c >= 0x20 && c != 0x7f)) sb_put(&b, (const char *)&c, 1);
            else if (c == '\r') {}
            else sb_puts(&b, "?");
            i++;
            continue;
        }
        size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
        bool ok = len && i + len <= n;
        for (size_t k = 1; ok && k < len; k++) ok = ((unsigned char)s[i + k] & 0xC0) == 0x80;
        if (ok && len == 3) { /* no overlongs, no surrogates */
            unsigned char c1 = (unsigned char)s[i + 1];
            if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 >= 0xA0)) ok = false;
        }
        if (ok && len == 4) {
            unsigned char c1 = (unsigned char)s[i + 1];
            if ((c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 >= 0x90)) ok = false;
        }
        if (ok) { sb_put(&b, s + i, len); i += len; }
        else { sb_puts(&b, "?"); i++; }
    }
    if (i < n) sb_puts(&b, "...");
    return sb_take(&b);
}

static char *one_line(const char *s, size_t max)
{
    char *t = clean_text(s, strlen(s), max);
    for (char *p = t; *p; p++)
        if (*p == '\n' || *p == '\t') *p = ' ';
    return t;
}

static char *dump_json(const json_t *v)
{
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    if (!s) return xstrdup("?");
    char *t = xstrdup(s);
    free(s);
    return t;
}

static double now_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---------------- cases ---------------- */

/* npz: the archives of corpus/npz (each keeps its own group there, in sub);
   prefix: strict prefixes of the manifests' prefix_cases, made at run time. */
enum { G_VALID, G_INVALID, G_UNSAFE, G_COMPAT, G_NPZ, G_PREFIX, G_RA, G_COUNT };
static const char *const group_names[G_COUNT] = {"valid", "invalid", "unsafe", "compat", "npz", "prefix", "ra"};
/* RawArray is another format: an NPY reader is not run on it unless asked */
#define DEFAULT_GROUPS (((1u << G_COUNT) - 1) & ~(1u << G_RA))
#define NPZ_GROUPS 4 /* sub-groups of G_NPZ: valid, invalid, unsafe, compat */

typedef enum verdict { V_ACCEPT, V_REFUSE, V_CRASH, V_TIMEOUT, V_BADOUT, V_MEMORY } verdict;
static const char *const verdict_names[] = {"accept", "refuse", "crash", "timeout", "bad-output", "memory"};

typedef enum outcome { O_PASS, O_FAIL, O_SKIP, O_STALE } outcome;
static const char *const outcome_names[] = {"pass", "fail", "skip", "stale-skip"};

enum { F_DESCR = 1, F_SHAPE = 2, F_FORTRAN = 4, F_SHA = 8, F_ITEMSIZE = 16 };
static const char *const field_names[] = {"descr", "shape", "fortran_order", "payload_sha256", "itemsize",
                                          "flags", "eltype", "elbyte", "size", "ndims", "dims", "data_sha256"};
#define NFIELDS 12
#define NPY_FIELDS 0x1Fu   /* the .npy fields, bits 0-4 */
#define RA_FIELDS 0xFE0u   /* the RawArray fields, bits 5-11 */
#define RA_FIRST 5         /* field_names[RA_FIRST + k] is ra_int_keys[k], then dims, data_sha256 */
static const char *const ra_int_keys[] = {"flags", "eltype", "elbyte", "size", "ndims"};
/* Why a file is refused, coarsely: the manifest's refusal_classes and an
   adapter's optional error_class (PROTOCOL.md, "Refusal classes"). */
static const char *const class_names[] = {"magic", "version", "header", "descr", "shape", "payload", "pickle", "limit"};
#define NCLASSES (sizeof class_names / sizeof *class_names)
#define CLASS_BIT(name) (1u << class_index(name))

static int class_index(const char *name)
{
    for (size_t k = 0; k < NCLASSES; k++)
        if (name && !strcmp(name, class_names[k])) return (int)k;
    return -1;
}

/* numpy's reading of one array: a .npy case or one member of an archive */
typedef struct expect {
    char *name;            /* npz members: the name zipfile decodes */
    bool listed;           /* npz members: matched by the adapter's list */
    json_t *descr;         /* normalised; NULL when the manifest has none */
    json_t *shape;
    int fortran;           /* -1 unknown */
    char *sha;
    json_t *itemsize;
    json_t *ra;            /* group ra: the manifest's header fields and data_sha256 */
} expect;

typedef struct tcase {
    char *name;
    int group;
    int sub;               /* npz: the archive's group in corpus/npz (G_VALID..G_COMPAT) */
    char *path;            /* the file the adapter gets */
    bool climbing;         /* npz: a member name leaves the extraction directory */
    const char *ra_group;  /* ra: the file's group in corpus/ra (valid, invalid, limit) */
    expect *members;       /* npz: numpy's arrays, one per distinct name (the last wins) */
    size_t nmembers;
    char **byte_members;   /* npz: members numpy returns as raw bytes or fails on (not compared) */
    size_t nbyte_members;
    /* what numpy 1.24 did, from the manifest */
    bool numpy_accepts;
    char *numpy_error;
    bool limit_case;       /* a valid file numpy refuses under its default limits */
    bool platform_dependent;
    unsigned classes;      /* refusal classes that name the file's defect (bits of class_names); 0: not judged */
    expect exp;
    const char *skip_reason;
    /* the run */
    verdict v;
    int exit_code, signal_no;
    long peak_rss_kb;
    double seconds;
    char *adapter_error;   /* refusal message */
    const char *error_class; /* the adapter's class of its refusal (a class_names entry), or NULL */
    bool other_reason;     /* refused, but for a class that is not the file's defect */
    char *problem;         /* crash / bad output description */
    char *stderr_text;
    char *stdout_text;     /* only kept for bad output */
    json_t *got;           /* the adapter's JSON object */
    unsigned reported;     /* F_* the adapter gave */
    char *mismatches;      /* one line per differing field; NULL when none */
    /* the verdict of the suite */
    outcome out;
    bool agrees_numpy;     /* compat: same verdict as numpy */
    const char *fail_kind; /* crash, timeout, bad-output, mismatch, should-accept, should-refuse, numpy-verdict,
                              wrong-reason */
    char *summary;
    char *details;
} tcase;

typedef struct skip_entry {
    char *pattern;
    char *reason;
    bool used;
} skip_entry;

typedef struct config {
    const char *adapter;
    const char *corpus;
    skip_entry *skips;
    size_t nskips;
    unsigned groups;       /* bit per group */
    const char **runs;     /* --run patterns */
    size_t nruns;
    const char *format;
    const char *output;
    const char *junit;     /* a JUnit report besides the main one */
    const char *write_skips;
    int jobs;
    double timeout;
    long max_rss_kb;       /* 0: no cap */
    long prefix_step;
    bool expect_numpy;
    bool check_reasons;    /* a refusal for another class than the defect's fails */
    bool allow_stale;
    bool verbose;
} config;

static const config *cfg;
static tcase *cases;
static size_t ncases;
static size_t next_case;
static size_t done_cases;
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---------------- the manifest ---------------- */

static char *str_or_null(const json_t *v) { return json_is_string(v) ? xstrdup(json_string_value(v)) : NULL; }

static bool selected(const char *name, int group)
{
    if (!(cfg->groups & (1u << group))) return false;
    if (!cfg->nruns) return true;
    for (size_t k = 0; k < cfg->nruns; k++)
        if (fnmatch(cfg->runs[k], name, 0) == 0 || strcmp(cfg->runs[k], name) == 0) return true;
    return false;
}

static int cmp_case(const void *a, const void *b)
{
    const tcase *x = a, *y = b;
    if (x->group != y->group) return x->group - y->group;
    return strcmp(x->name, y->name);
}

static void load_expect(expect *x, const json_t *e, const char *path, const char *name)
{
    char err[256];
    const json_t *d = json_object_get(e, "descr");
    if (d && !(x->descr = ncf_descr_norm(d, err, sizeof err))) die("%s: %s: descr: %s", path, name, err);
    const json_t *s = json_object_get(e, "shape");
    if (s && !(x->shape = ncf_shape_norm(s, err, sizeof err))) die("%s: %s: %s", path, name, err);
    const json_t *fo = json_object_get(e, "fortran_order");
    x->fortran = json_is_boolean(fo) ? json_is_true(fo) : -1;
    x->sha = str_or_null(json_object_get(e, "payload_sha256"));
    const json_t *is = json_object_get(e, "itemsize");
    if (is) x->itemsize = ncf_int_norm(is);
}

static void numpy_verdict(tcase *c, const json_t *np)
{
    const char *nverdict = json_string_value(json_object_get(np, "verdict"));
    c->numpy_accepts = nverdict && !strcmp(nverdict, "accept");
    if (!c->numpy_accepts) {
        const char *ex = json_string_value(json_object_get(np, "exception"));
        const char *msg = json_string_value(json_object_get(np, "message"));
        sbuf b = {0};
        sb_printf(&b, "%s: %s", ex ? ex : "?", msg ? msg : "");
        char *t = sb_take(&b);
        c->numpy_error = one_line(t, 200);
        free(t);
    }
}

static size_t cases_cap;

static tcase *new_case(void)
{
    if (ncases == cases_cap) {
        cases_cap = cases_cap ? cases_cap * 2 : 1024;
        tcase *p = realloc(cases, cases_cap * sizeof *cases);
        if (!p) die("out of memory");
        cases = p;
    }
    tcase *c = &cases[ncases++];
    memset(c, 0, sizeof *c);
    c->exp.fortran = -1;
    return c;
}

static int group_index(const char *g)
{
    for (int k = 0; k < G_COUNT; k++)
        if (g && !strcmp(g, group_names[k])) return k;
    return -1;
}

static json_t *load_json(const char *path)
{
    json_error_t jerr;
    json_t *m = json_load_file(path, JSON_ALLOW_NUL, &jerr);
    if (!m) die("cannot read %s: %s (line %d)", path, jerr.text, jerr.line);
    if (!json_is_object(json_object_get(m, "files"))) die("%s has no \"files\" object", path);
    return m;
}

/* A member name that, used as a path, leaves the directory it is extracted
   to: absolute, a drive letter, or a '..' component ('/' and '\' both
   separate components, as they do for some unzip tools). */
static bool name_climbs(const char *n)
{
    if (n[0] == '/' || n[0] == '\\') return true;
    if (isalpha((unsigned char)n[0]) && n[1] == ':') return true;
    for (const char *p = n; *p;) {
        size_t len = strcspn(p, "/\\");
        if (len == 2 && p[0] == '.' && p[1] == '.') return true;
        p += len;
        if (*p) p++;
    }
    return false;
}

/* The .npy manifest: groups valid, invalid, unsafe, compat. */
static void load_npy_cases(const char *dir, json_t *m, size_t *total)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    const json_t *files = json_object_get(m, "files");
    const char *name;
    const json_t *e;
    json_object_foreach((json_t *)files, name, e) {
        const char *g = json_string_value(json_object_get(e, "group"));
        int group = group_index(g);
        if (group < 0 || group > G_COMPAT) { /* a newer corpus than this runner: say so, run the rest */
            fprintf(stderr, "npyconform: warning: %s: group '%s' is unknown to this runner; case not run\n", name,
                    g ? g : "(none)");
            continue;
        }
        ++*total;
        if (!selected(name, group)) continue;
        tcase *c = new_case();
        c->name = xstrdup(name);
        c->group = group;
        c->sub = group;
        snprintf(path, sizeof path, "%s/%s", dir, name);
        c->path = xstrdup(path);
        numpy_verdict(c, json_object_get(e, "numpy"));
        c->limit_case = group == G_VALID && !c->numpy_accepts && json_object_get(e, "numpy_max_header_size");
        c->platform_dependent = json_is_true(json_object_get(e, "platform_dependent"));
        size_t i;
        const json_t *cl;
        json_array_foreach(json_object_get(e, "refusal_classes"), i, cl) {
            int k = class_index(json_string_value(cl)); /* a class newer than this runner: not judged */
            if (k >= 0) c->classes |= 1u << k;
        }
        load_expect(&c->exp, e, "manifest.json", name);
    }
}

/* A case of the npz or ra manifest, named and found at <prefix>/<name>
   under the corpus: counted in total, NULL when the selection leaves it
   out. */
static tcase *manifest_case(const char *dir, const char *prefix, const char *name, int group, int sub,
                            size_t *total)
{
    ++*total;
    char cname[4200], path[4096];
    snprintf(cname, sizeof cname, "%s/%s", prefix, name);
    if (!selected(cname, group)) return NULL;
    tcase *c = new_case();
    c->name = xstrdup(cname);
    c->group = group;
    c->sub = sub;
    snprintf(path, sizeof path, "%s/%s/%s", dir, prefix, name);
    c->path = xstrdup(path);
    return c;
}

/* corpus/npz/manifest.json: every archive is one case of group npz, named
   npz/<its group>/<file>. The expected members are the arrays numpy
   returns when each key is indexed; with two members of one name, numpy
   (like zipfile) uses the last. */
static void load_npz_cases(const char *dir, json_t *m, size_t *total)
{
    const json_t *files = json_object_get(m, "files");
    const char *name;
    const json_t *e;
    json_object_foreach((json_t *)files, name, e) {
        const char *g = json_string_value(json_object_get(e, "group"));
        int sub = group_index(g);
        if (sub < 0 || sub > G_COMPAT) {
            fprintf(stderr, "npyconform: warning: npz/%s: group '%s' is unknown to this runner; case not run\n",
                    name, g ? g : "(none)");
            continue;
        }
        tcase *c = manifest_case(dir, "npz", name, G_NPZ, sub, total);
        if (!c) continue;
        numpy_verdict(c, json_object_get(e, "numpy"));
        const json_t *mem = json_object_get(e, "members");
        size_t n = json_array_size(mem);
        c->members = calloc(n + 1, sizeof *c->members);
        c->byte_members = calloc(n + 1, sizeof *c->byte_members);
        if (!c->members || !c->byte_members) die("out of memory");
        for (size_t k = 0; k < n; k++) {
            const json_t *me = json_array_get(mem, k);
            const char *mn = json_string_value(json_object_get(me, "name"));
            if (!mn) continue;
            if (name_climbs(mn)) c->climbing = true;
            const char *ret = json_string_value(json_object_get(me, "numpy_returns"));
            if (ret && !strcmp(ret, "bytes")) {
                c->byte_members[c->nbyte_members++] = xstrdup(mn);
                continue;
            }
            if (!ret || strcmp(ret, "array")) {
                /* numpy fails on this member by itself (the archive's
                   verdict may still be accept): a listed entry of that
                   name is not compared */
                c->byte_members[c->nbyte_members++] = xstrdup(mn);
                continue;
            }
            expect *x = NULL;
            for (size_t j = 0; j < c->nmembers; j++)
                if (!strcmp(c->members[j].name, mn)) x = &c->members[j];
            if (x) { /* the later member of the same name replaces it */
                json_decref(x->descr);
                json_decref(x->shape);
                json_decref(x->itemsize);
                free(x->sha);
                free(x->name);
            } else {
                x = &c->members[c->nmembers++];
            }
            memset(x, 0, sizeof *x);
            x->name = xstrdup(mn);
            load_expect(x, me, "npz/manifest.json", name);
        }
    }
}

/* corpus/ra/manifest.json: every RawArray file is one case of group ra,
   named ra/<its group>/<file>. valid files must be accepted with the
   header fields and data hash the manifest records; invalid ones refused;
   a limit file (well formed, but over npyguard's default limits) may be
   refused, and must match what the manifest records when accepted. */
static void load_ra_cases(const char *dir, json_t *m, size_t *total)
{
    const json_t *files = json_object_get(m, "files");
    const char *name;
    const json_t *e;
    json_object_foreach((json_t *)files, name, e) {
        const char *g = json_string_value(json_object_get(e, "group"));
        int sub = !g ? -1 : !strcmp(g, "valid") || !strcmp(g, "limit") ? G_VALID : !strcmp(g, "invalid") ? G_INVALID : -1;
        if (sub < 0) {
            fprintf(stderr, "npyconform: warning: ra/%s: group '%s' is unknown to this runner; case not run\n", name,
                    g ? g : "(none)");
            continue;
        }
        tcase *c = manifest_case(dir, "ra", name, G_RA, sub, total);
        if (!c) continue;
        c->ra_group = !strcmp(g, "valid") ? "valid" : !strcmp(g, "limit") ? "limit" : "invalid";
        c->limit_case = !strcmp(g, "limit");
        c->numpy_accepts = sub == G_VALID;
        json_t *x = json_object();
        for (size_t k = 0; k < sizeof ra_int_keys / sizeof *ra_int_keys; k++) {
            const json_t *v = json_object_get(e, ra_int_keys[k]);
            json_t *n = v ? ncf_int_norm(v) : NULL;
            if (v && !n) die("ra/manifest.json: %s: %s is not an integer", name, ra_int_keys[k]);
            if (n) json_object_set_new(x, ra_int_keys[k], n);
        }
        const json_t *d = json_object_get(e, "dims");
        if (d) {
            char err[256];
            json_t *nd = ncf_shape_norm(d, err, sizeof err);
            if (!nd) die("ra/manifest.json: %s: dims: %s", name, err);
            json_object_set_new(x, "dims", nd);
        }
        const json_t *h = json_object_get(e, "data_sha256");
        if (json_is_string(h)) json_object_set(x, "data_sha256", (json_t *)h);
        c->exp.ra = x;
    }
}

static bool write_file(const char *path, const unsigned char *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fwrite(p, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

static unsigned char *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    sbuf b = {0};
    char tmp[65536];
    size_t k;
    while ((k = fread(tmp, 1, sizeof tmp, f)) > 0) sb_put(&b, tmp, k);
    fclose(f);
    *n = b.len;
    return (unsigned char *)sb_take(&b);
}

static char *prefix_dir;

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* Strict prefixes of the manifest's prefix_cases, every one of which numpy
   refuses (the generator checks each). Running all of them would cost an
   adapter start per byte, so the group takes: every length up to 12 (the
   preamble), every multiple of --prefix-step, the lengths around the data
   offset of a .npy, and the file less its last byte. The files are written
   to a temporary directory, removed after the run. */
static void load_prefix_cases(const char *dir, const json_t *list, const char *sub, size_t *total)
{
    size_t n = json_array_size(list);
    for (size_t k = 0; k < n; k++) {
        const char *rel = json_string_value(json_array_get(list, k));
        if (!rel) continue;
        char src[4096];
        snprintf(src, sizeof src, "%s/%s%s", dir, sub, rel);
        size_t len = 0;
        unsigned char *data = read_file(src, &len);
        if (!data) die("cannot read prefix case %s: %s", src, strerror(errno));
        size_t *cuts = xmalloc(sizeof *cuts * (len + 16));
        size_t nc = 0;
        bool npz = strlen(rel) > 4 && !strcmp(rel + strlen(rel) - 4, ".npz");
        size_t off = 0;
        if (!npz && len >= 10 && data[6] == 1) off = 10 + (size_t)(data[8] | data[9] << 8);
        else if (!npz && len >= 12) off = 12 + (size_t)(data[8] | data[9] << 8 | (size_t)data[10] << 16 | (size_t)data[11] << 24);
        for (size_t cut = 0; cut < len; cut++) {
            bool take = cut <= 12 || cut % (size_t)cfg->prefix_step == 0 || cut == len - 1 ||
                        (off && cut + 1 >= off && cut <= off + 1);
            if (take) cuts[nc++] = cut;
        }
        qsort(cuts, nc, sizeof *cuts, cmp_size);
        for (size_t j = 0; j < nc; j++) {
            char cname[4200];
            snprintf(cname, sizeof cname, "prefix/%s%s@%zu", sub, rel, cuts[j]);
            ++*total;
            if (!selected(cname, G_PREFIX)) continue;
            if (!prefix_dir) {
                const char *t = getenv("TMPDIR");
                char tmpl[4096];
                snprintf(tmpl, sizeof tmpl, "%s/npyconform-prefix.XXXXXX", t && *t ? t : "/tmp");
                if (!mkdtemp(tmpl)) die("cannot make a temporary directory: %s", strerror(errno));
                prefix_dir = xstrdup(tmpl);
            }
            /* keep the extension: it tells the adapter .npy from .npz */
            const char *base = strrchr(rel, '/');
            base = base ? base + 1 : rel;
            char path[4500];
            snprintf(path, sizeof path, "%s/%zu-%zu-%s", prefix_dir, k, cuts[j], base);
            if (!write_file(path, data, cuts[j])) die("cannot write %s: %s", path, strerror(errno));
            tcase *c = new_case();
            c->name = xstrdup(cname);
            c->group = G_PREFIX;
            c->sub = G_INVALID;
            c->path = xstrdup(path);
            c->numpy_accepts = false;
            c->numpy_error = xstrdup("every strict prefix is refused (checked by the generator)");
            /* cut in the preamble, the header or the payload of a .npy */
            size_t pre = len >= 7 && data[6] == 1 ? 10 : 12;
            if (!npz && off)
                c->classes = cuts[j] < pre ? CLASS_BIT("magic") | CLASS_BIT("version") | CLASS_BIT("header")
                           : cuts[j] < off ? CLASS_BIT("header") : CLASS_BIT("payload");
        }
        free(cuts);
        free(data);
    }
}

static void remove_prefix_files(void)
{
    if (!prefix_dir) return;
    for (size_t k = 0; k < ncases; k++)
        if (cases[k].group == G_PREFIX) unlink(cases[k].path);
    rmdir(prefix_dir);
}

static void load_manifest(const char *dir, char *suite_version, size_t svlen, char *numpy_version, size_t nvlen,
                          size_t *total)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    json_t *m = load_json(path);
    const json_t *sv = json_object_get(m, "suite_version");
    const json_t *nv = json_object_get(m, "numpy_version");
    snprintf(suite_version, svlen, "%s", json_is_string(sv) ? json_string_value(sv) : "?");
    snprintf(numpy_version, nvlen, "%s", json_is_string(nv) ? json_string_value(nv) : "?");
    load_npy_cases(dir, m, total);
    if (cfg->groups & (1u << G_PREFIX)) load_prefix_cases(dir, json_object_get(m, "prefix_cases"), "", total);
    json_decref(m);

    snprintf(path, sizeof path, "%s/npz/manifest.json", dir);
    if (access(path, R_OK) == 0) {
        json_t *z = load_json(path);
        load_npz_cases(dir, z, total);
        if (cfg->groups & (1u << G_PREFIX))
            load_prefix_cases(dir, json_object_get(z, "prefix_cases"), "npz/", total);
        json_decref(z);
    } else if (cfg->groups & (1u << G_NPZ)) {
        fprintf(stderr, "npyconform: warning: no %s; the npz group is not run\n", path);
    }

    if (cfg->groups & (1u << G_RA)) {
        snprintf(path, sizeof path, "%s/ra/manifest.json", dir);
        if (access(path, R_OK) != 0) die("no %s: the ra group cannot be run", path);
        json_t *r = load_json(path);
        load_ra_cases(dir, r, total);
        json_decref(r);
    }
    qsort(cases, ncases, sizeof *cases, cmp_case);
}

/* ---------------- skip files ---------------- */

static void load_skips(config *c, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) die("cannot open skip file %s: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) >= 0) {
        char *p = line;
        while (*p && isspace((unsigned char)*p)) p++;
        if (!*p || *p == '#') continue;
        char *end = p;
        while (*end && !isspace((unsigned char)*end)) end++;
        char *reason = end;
        if (*reason) *reason++ = '\0';
        while (*reason && isspace((unsigned char)*reason)) reason++;
        size_t rl = strlen(reason);
        while (rl && isspace((unsigned char)reason[rl - 1])) reason[--rl] = '\0';
        if (*reason == '#') reason++; /* "case  # reason" is fine too */
        while (*reason == ' ') reason++;
        skip_entry *s = realloc(c->skips, (c->nskips + 1) * sizeof *s);
        if (!s) die("out of memory");
        c->skips = s;
        c->skips[c->nskips].pattern = xstrdup(p);
        c->skips[c->nskips].reason = xstrdup(*reason ? reason : "(no reason given)");
        c->skips[c->nskips].used = false;
        c->nskips++;
    }
    free(line);
    fclose(f);
}

static const char *skip_reason_for(const char *name)
{
    for (size_t k = 0; k < cfg->nskips; k++) {
        skip_entry *s = &cfg->skips[k];
        if (!strcmp(s->pattern, name) || fnmatch(s->pattern, name, 0) == 0) {
            s->used = true;
            return s->reason;
        }
    }
    return NULL;
}

/* ---------------- one case ---------------- */

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGPIPE: return "SIGPIPE";
    default: return "signal";
    }
}

/* Exactly one non-blank line of output, parsed; NULL with why. */
static json_t *parse_output(const char *out, size_t len, sbuf *why)
{
    const char *first = NULL, *first_end = NULL;
    int lines = 0;
    for (const char *p = out; p < out + len;) {
        const char *e = memchr(p, '\n', (size_t)(out + len - p));
        if (!e) e = out + len;
        bool blank = true;
        for (const char *q = p; q < e; q++)
            if (!isspace((unsigned char)*q)) blank = false;
        if (!blank) {
            if (!lines) { first = p; first_end = e; }
            lines++;
        }
        p = e + 1;
    }
    if (lines == 0) { sb_puts(why, "no output (expected one JSON line)"); return NULL; }
    if (lines > 1) { sb_printf(why, "%d lines of output (expected one JSON line)", lines); return NULL; }
    char *text = ncf_quote_big_ints(first, (size_t)(first_end - first));
    if (!text) die("out of memory");
    json_error_t jerr;
    json_t *v = json_loads(text, JSON_ALLOW_NUL, &jerr);
    free(text);
    if (!v) { sb_printf(why, "output is not JSON: %s", jerr.text); return NULL; }
    if (!json_is_object(v)) { sb_puts(why, "output is not a JSON object"); json_decref(v); return NULL; }
    if (!json_is_boolean(json_object_get(v, "ok"))) {
        sb_puts(why, "output has no boolean \"ok\"");
        json_decref(v);
        return NULL;
    }
    return v;
}

static void describe_expect(sbuf *b, const expect *x)
{
    const char *sep = "";
    if (x->descr) {
        char *d = dump_json(x->descr);
        sb_printf(b, "descr %s", d);
        free(d);
        sep = ", ";
    }
    if (x->shape) {
        char *s = dump_json(x->shape);
        sb_printf(b, "%sshape %s", sep, s);
        free(s);
        sep = ", ";
    }
    if (x->fortran >= 0) sb_printf(b, "%sfortran_order %s", sep, x->fortran ? "true" : "false");
}

static void describe_expected(sbuf *b, const tcase *c)
{
    if (c->group == G_RA) {
        const char *key;
        json_t *v;
        const char *sep = "";
        json_object_foreach(c->exp.ra, key, v) {
            char *t = dump_json(v);
            sb_printf(b, "%s%s %s", sep, key, t);
            free(t);
            sep = ", ";
        }
        if (!*sep) sb_puts(b, "(the manifest records no fields for it)");
        return;
    }
    if (c->group != G_NPZ) {
        describe_expect(b, &c->exp);
        return;
    }
    sb_printf(b, "%zu member%s", c->nmembers, c->nmembers == 1 ? "" : "s");
    for (size_t k = 0; k < c->nmembers && k < 8; k++) {
        char *n = one_line(c->members[k].name, 80);
        sb_printf(b, "%s'%s': ", k ? "; " : ": ", n);
        free(n);
        describe_expect(b, &c->members[k]);
    }
    if (c->nmembers > 8) sb_puts(b, "; ...");
}

/* One line into m when numpy's reading has a value and got differs. */
static void expect_json(sbuf *m, const char *pre, const char *what, const json_t *want, const json_t *got)
{
    if (!want || json_equal(got, want)) return;
    char *a = dump_json(want), *b = dump_json(got);
    sb_printf(m, "%s%s: expected %s, got %s\n", pre, what, a, b);
    free(a);
    free(b);
}

/* Compares what the adapter reported for one array with numpy's reading;
   one line per difference into m, each starting with pre. Fields the
   adapter left out are not compared. An answer the protocol does not allow
   (a field in another form, a shape without its order) goes into bad
   instead: it is the adapter's error, not a reading to compare. */
static void compare_fields(const expect *x, const json_t *g, unsigned *reported, sbuf *m, sbuf *bad,
                           const char *pre)
{
    char err[256];
    const json_t *d = json_object_get(g, "descr");
    if (d) {
        *reported |= F_DESCR;
        json_t *nd = ncf_descr_norm(d, err, sizeof err);
        if (!nd) {
            char *raw = dump_json(d);
            char *raw1 = one_line(raw, 200);
            sb_printf(bad, "%s\"descr\" is not a descr in the protocol's form (%s): %s; ", pre, err, raw1);
            free(raw);
            free(raw1);
        } else {
            expect_json(m, pre, "descr", x->descr, nd);
        }
        json_decref(nd);
    }
    const json_t *s = json_object_get(g, "shape");
    const json_t *fo = json_object_get(g, "fortran_order");
    if (s) {
        *reported |= F_SHAPE;
        json_t *ns = ncf_shape_norm(s, err, sizeof err);
        if (!ns) {
            sb_printf(bad, "%s\"shape\": %s (a list of integers; [] for a 0-d array); ", pre, err);
        } else {
            expect_json(m, pre, "shape", x->shape, ns);
        }
        json_decref(ns);
        if (!fo)
            sb_printf(bad, "%s\"shape\" without \"fortran_order\" (a library that exposes no order "
                           "hands its caller C order: report false); ", pre);
    }
    if (fo) {
        *reported |= F_FORTRAN;
        if (!json_is_boolean(fo)) sb_printf(bad, "%s\"fortran_order\" is not a boolean; ", pre);
        else if (x->fortran >= 0 && json_is_true(fo) != x->fortran)
            sb_printf(m, "%sfortran_order: expected %s, got %s\n", pre, x->fortran ? "true" : "false",
                      json_is_true(fo) ? "true" : "false");
    }
    const json_t *h = json_object_get(g, "payload_sha256");
    if (h) {
        *reported |= F_SHA;
        if (!json_is_string(h)) sb_printf(m, "%spayload_sha256: not a string\n", pre);
        else if (x->sha && strcasecmp(json_string_value(h), x->sha) != 0)
            sb_printf(m, "%spayload_sha256: expected %s, got %s\n", pre, x->sha, json_string_value(h));
    }
    const json_t *is = json_object_get(g, "itemsize");
    if (is) {
        *reported |= F_ITEMSIZE;
        json_t *ni = ncf_int_norm(is);
        if (!ni) sb_printf(m, "%sitemsize: not an integer\n", pre);
        else if (x->itemsize && !json_equal(ni, x->itemsize)) {
            char *a = dump_json(x->itemsize), *b = dump_json(ni);
            sb_printf(m, "%sitemsize: expected %s, got %s\n", pre, a, b);
            free(a);
            free(b);
        }
        json_decref(ni);
    }
}

/* ra mode: the adapter's header fields and data_sha256 against the
   manifest's; fields the adapter left out are not compared. */
static void compare_ra(tcase *c, sbuf *m)
{
    const json_t *g = c->got;
    const json_t *x = c->exp.ra;
    for (size_t k = 0; k < sizeof ra_int_keys / sizeof *ra_int_keys; k++) {
        const json_t *v = json_object_get(g, ra_int_keys[k]);
        if (!v) continue;
        c->reported |= 1u << (RA_FIRST + k);
        json_t *n = ncf_int_norm(v);
        if (!n) sb_printf(m, "%s: not an integer\n", ra_int_keys[k]);
        else expect_json(m, "", ra_int_keys[k], json_object_get(x, ra_int_keys[k]), n);
        json_decref(n);
    }
    const json_t *d = json_object_get(g, "dims");
    if (d) {
        c->reported |= 1u << (RA_FIRST + 5);
        char err[256];
        json_t *nd = ncf_shape_norm(d, err, sizeof err);
        if (!nd) sb_printf(m, "dims: %s\n", err);
        else expect_json(m, "", "dims", json_object_get(x, "dims"), nd);
        json_decref(nd);
    }
    const json_t *h = json_object_get(g, "data_sha256");
    if (h) {
        c->reported |= 1u << (RA_FIRST + 6);
        const char *want = json_string_value(json_object_get(x, "data_sha256"));
        if (!json_is_string(h)) sb_puts(m, "data_sha256: not a string\n");
        else if (want && strcasecmp(json_string_value(h), want) != 0)
            sb_printf(m, "data_sha256: expected %s, got %s\n", want, json_string_value(h));
    }
}

/* numpy's key for a member: its name without a final ".npy". */
static bool same_key(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la >= 4 && !strcmp(a + la - 4, ".npy")) la -= 4;
    if (lb >= 4 && !strcmp(b + lb - 4, ".npy")) lb -= 4;
    return la == lb && !memcmp(a, b, la);
}

/* npz mode: the adapter's "members" against numpy's arrays. A member is
   matched by its exact name, else by numpy's key (name without ".npy");
   when the adapter lists a name twice, the last entry counts, as in numpy. */
static void compare_members(tcase *c, sbuf *m, sbuf *bad)
{
    const json_t *list = json_object_get(c->got, "members");
    if (!json_is_array(list)) {
        sb_puts(m, "members: missing or not a list (an accepted archive lists the arrays it loaded)\n");
        return;
    }
    size_t n = json_array_size(list);
    for (size_t k = 0; k < c->nmembers; k++) c->members[k].listed = false;
    for (size_t i = 0; i < n; i++) {
        const json_t *g = json_array_get(list, i);
        const char *gn = json_string_value(json_object_get(g, "name"));
        if (!json_is_object(g) || !gn) {
            sb_printf(m, "members[%zu]: not an object with a string \"name\"\n", i);
            continue;
        }
        bool later = false; /* a later entry of the same name replaces this one */
        for (size_t j = i + 1; j < n; j++) {
            const char *jn = json_string_value(json_object_get(json_array_get(list, j), "name"));
            if (jn && !strcmp(jn, gn)) later = true;
        }
        if (later) continue;
        expect *x = NULL;
        for (size_t k = 0; k < c->nmembers && !x; k++)
            if (!strcmp(c->members[k].name, gn)) x = &c->members[k];
        for (size_t k = 0; k < c->nmembers && !x; k++)
            if (!c->members[k].listed && same_key(c->members[k].name, gn)) x = &c->members[k];
        char *shown = one_line(gn, 120);
        if (!x) {
            bool raw = false;
            for (size_t k = 0; k < c->nbyte_members; k++)
                raw |= !strcmp(c->byte_members[k], gn) || same_key(c->byte_members[k], gn);
            if (!raw) sb_printf(m, "member '%s': listed, but numpy loads no array of that name\n", shown);
            free(shown);
            continue;
        }
        x->listed = true;
        sbuf pre = {0};
        sb_printf(&pre, "member '%s': ", shown);
        free(shown);
        compare_fields(x, g, &c->reported, m, bad, pre.p);
        free(pre.p);
    }
    for (size_t k = 0; k < c->nmembers; k++) {
        if (c->members[k].listed) continue;
        char *shown = one_line(c->members[k].name, 120);
        sb_printf(m, "member '%s': numpy loads it, the adapter did not list it\n", shown);
        free(shown);
    }
}

static const char *human_kb(long kb, char *buf, size_t n)
{
    if (kb >= 1024L * 1024) snprintf(buf, n, "%.2f GiB", (double)kb / (1024.0 * 1024));
    else if (kb >= 1024) snprintf(buf, n, "%.1f MiB", (double)kb / 1024.0);
    else snprintf(buf, n, "%ld KiB", kb);
    return buf;
}

static void run_case(tcase *c)
{
    char *cmd = ncf_command_with_path(cfg->adapter, c->path);
    if (!cmd) die("out of memory");
    ncf_proc_result r;
    if (ncf_run(cmd, cfg->timeout, cfg->max_rss_kb, OUT_CAP, ERR_CAP, &r) != 0) die("out of memory");
    free(cmd);
    c->seconds = r.seconds;
    c->peak_rss_kb = r.peak_rss_kb;
    c->exit_code = -1;
    c->stderr_text = r.err_len ? clean_text(r.err, r.err_len, 2000) : NULL;
    sbuf why = {0};
    char kb1[32], kb2[32], kb3[32];

    switch (r.kind) {
    case NCF_SPAWN_FAILED:
        c->v = V_CRASH;
        sb_printf(&why, "could not start /bin/sh: %s", strerror(r.code));
        break;
    case NCF_MEMORY:
        c->v = V_MEMORY;
        sb_printf(&why, "peak resident memory %s, over the cap of %s (--max-rss); the process group was %s",
                  human_kb(r.peak_rss_kb, kb1, sizeof kb1), human_kb(cfg->max_rss_kb, kb2, sizeof kb2),
                  r.code == SIGKILL ? "killed" : "measured after it exited");
        break;
    case NCF_GROWING:
        c->v = V_MEMORY;
        sb_printf(&why, "still allocating at the timeout of %g s: resident memory grew by %s in the last %.1f s "
                  "(to %s; the cap is %s), so it is a memory hog however fast the machine", cfg->timeout,
                  human_kb(r.grown_kb, kb1, sizeof kb1), r.grown_secs, human_kb(r.peak_rss_kb, kb2, sizeof kb2),
                  human_kb(cfg->max_rss_kb, kb3, sizeof kb3));
        break;
    case NCF_TIMEOUT:
        c->v = V_TIMEOUT;
        sb_printf(&why, "timed out after %g s (raise --timeout if this is not a hang)", cfg->timeout);
        break;
    case NCF_SIGNALED:
        c->v = V_CRASH;
        c->signal_no = r.code;
        sb_printf(&why, "killed by %s (signal %d)", signal_name(r.code), r.code);
        break;
    case NCF_EXITED:
        c->exit_code = r.code;
        if (r.code > 128 && r.code <= 128 + 64) { /* a shell reporting its child's death */
            c->v = V_CRASH;
            c->signal_no = r.code - 128;
            sb_printf(&why, "exit status %d: killed by %s (signal %d, as a shell reports it)", r.code,
                      signal_name(r.code - 128), r.code - 128);
            break;
        }
        if (r.code != 0 && r.code != 1) {
            c->v = V_CRASH;
            sb_printf(&why, "exit status %d (only 0 = accepted and 1 = refused are allowed)", r.code);
            break;
        }
        if (r.out_truncated) {
            c->v = V_BADOUT;
            sb_printf(&why, "more than %u bytes on stdout", OUT_CAP);
            break;
        }
        c->got = parse_output(r.out, r.out_len, &why);
        if (!c->got) {
            /* a sanitizer report ends with exit status 1 and nothing on
               stdout: say how the process ended, not only what it printed */
            c->v = V_BADOUT;
            sb_printf(&why, "; exit status %d, no signal", r.code);
            break;
        }
        bool ok = json_is_true(json_object_get(c->got, "ok"));
        if (ok != (r.code == 0)) {
            c->v = V_BADOUT;
            sb_printf(&why, "exit status %d with \"ok\": %s (accepted is 0/true, refused 1/false)", r.code,
                      ok ? "true" : "false");
            break;
        }
        if (ok) {
            c->v = V_ACCEPT;
        } else {
            c->v = V_REFUSE;
            const json_t *e = json_object_get(c->got, "error");
            if (json_is_string(e)) c->adapter_error = one_line(json_string_value(e), 300);
            else if (e) { char *t = dump_json(e); c->adapter_error = one_line(t, 300); free(t); }
            else c->adapter_error = xstrdup("(no message)");
            const json_t *ec = json_object_get(c->got, "error_class");
            int k = ec ? class_index(json_string_value(ec)) : -1;
            if (k >= 0) {
                c->error_class = class_names[k];
            } else if (ec) {
                c->v = V_BADOUT;
                char *t = dump_json(ec), *t1 = one_line(t, 80);
                sb_printf(&why, "\"error_class\" %s is not one of magic, version, header, descr, shape, payload, "
                                "pickle, limit (leave it out when the reader cannot tell)", t1);
                free(t);
                free(t1);
            }
        }
        break;
    }
    /* ---- judge ---- */
    sbuf m = {0}, bad = {0};
    if (c->v == V_ACCEPT) {
        if (c->group == G_NPZ) compare_members(c, &m, &bad);
        else if (c->group == G_RA) compare_ra(c, &m);
        else compare_fields(&c->exp, c->got, &c->reported, &m, &bad, "");
    }
    if (bad.len) { /* an answer the protocol does not allow: no reading to judge */
        c->v = V_BADOUT;
        bad.p[bad.len - 2] = '\0';
        sb_printf(&why, "ambiguous answer: %s", bad.p);
        free(m.p);
        m = (sbuf){0};
    }
    free(bad.p);
    if (c->v == V_BADOUT) c->stdout_text = clean_text(r.out, r.out_len, 600);
    if (why.len) c->problem = sb_take(&why);
    ncf_proc_result_free(&r);
    if (m.len) c->mismatches = sb_take(&m);
    bool match = c->v == V_ACCEPT && !c->mismatches;
    bool fail = false;
    const char *an = c->group == G_NPZ ? "archive" : "file";
    /* a refusal whose class is not the defect's, where the case must be refused */
    c->other_reason = c->v == V_REFUSE && c->error_class && c->classes &&
                      !(c->classes & CLASS_BIT(c->error_class)) && (c->sub == G_INVALID || c->sub == G_UNSAFE);
    /* compat rule of suite 1.1: refuse, or accept and read like numpy */
    bool compat = c->sub == G_COMPAT && !(c->climbing && !cfg->expect_numpy);
    c->agrees_numpy = (c->v == V_ACCEPT) == c->numpy_accepts;
    sbuf sum = {0};
    if (c->v == V_CRASH || c->v == V_TIMEOUT || c->v == V_BADOUT || c->v == V_MEMORY) {
        fail = true;
        c->fail_kind = verdict_names[c->v];
        sb_printf(&sum, "%s: %s", verdict_names[c->v], c->problem ? c->problem : "");
    } else if (c->v == V_REFUSE && c->other_reason) {
        fail = cfg->check_reasons;
        if (fail) c->fail_kind = "wrong-reason";
        sb_printf(&sum, "refused for another reason: error_class '%s', the file's defect is ", c->error_class);
        for (size_t k = 0, n = 0; k < NCLASSES; k++)
            if (c->classes & (1u << k)) sb_printf(&sum, "%s%s", n++ ? " or " : "", class_names[k]);
        sb_printf(&sum, ": %s", c->adapter_error);
    } else if (c->group == G_PREFIX) {
        if (c->v == V_ACCEPT) { fail = true; c->fail_kind = "should-refuse"; sb_puts(&sum, "accepted a strict prefix (a truncated copy) of a valid file"); }
        else sb_printf(&sum, "refused: %s", c->adapter_error);
    } else if (c->group == G_RA) {
        if (c->v == V_ACCEPT && c->sub == G_INVALID) { fail = true; c->fail_kind = "should-refuse"; sb_puts(&sum, "accepted an invalid RawArray file"); }
        else if (c->v == V_ACCEPT && !match) { fail = true; c->fail_kind = "mismatch"; sb_puts(&sum, "accepted, but read the header or data differently from the manifest"); }
        else if (c->v == V_ACCEPT) sb_puts(&sum, "accepted, fields match");
        else if (c->sub == G_INVALID) sb_printf(&sum, "refused: %s", c->adapter_error);
        else if (c->limit_case) sb_printf(&sum, "refused (allowed: a file over npyguard's default limits): %s", c->adapter_error);
        else { fail = true; c->fail_kind = "should-accept"; sb_printf(&sum, "refused a valid file: %s", c->adapter_error); }
    } else if (c->sub == G_VALID) {
        bool numpy_rule = c->limit_case && cfg->expect_numpy;
        if (c->v == V_ACCEPT && !match) { fail = true; c->fail_kind = "mismatch"; sb_puts(&sum, "accepted, but read the header or payload differently"); }
        else if (c->v == V_ACCEPT && numpy_rule) { fail = true; c->fail_kind = "numpy-verdict"; sb_puts(&sum, "accepted; numpy refuses it under its default limits (--expect-numpy)"); }
        else if (c->v == V_REFUSE && !c->limit_case) { fail = true; c->fail_kind = "should-accept"; sb_printf(&sum, "refused a valid %s: %s", an, c->adapter_error); }
        else if (c->v == V_REFUSE) sb_printf(&sum, "refused (allowed: numpy refuses it under its default limits): %s", c->adapter_error);
        else sb_puts(&sum, "accepted, fields match");
    } else if (c->sub == G_INVALID || c->sub == G_UNSAFE || !compat) {
        if (c->v == V_ACCEPT) {
            fail = true;
            c->fail_kind = "should-refuse";
            if (c->sub == G_COMPAT)
                sb_puts(&sum, "accepted an archive with a member name that climbs out of its directory (absolute, drive or '..')");
            else
                sb_printf(&sum, "accepted %s %s", c->sub == G_UNSAFE ? "an unsafe (pickle)" : "an invalid", an);
        } else {
            sb_printf(&sum, "refused: %s", c->adapter_error);
        }
    } else { /* compat */
        const char *nv = c->numpy_accepts ? "accept" : "refuse";
        if (cfg->expect_numpy && !c->agrees_numpy) {
            fail = true;
            c->fail_kind = "numpy-verdict";
            sb_printf(&sum, "%s, numpy: %s (--expect-numpy)", c->v == V_ACCEPT ? "accepted" : "refused", nv);
        } else if (c->v == V_ACCEPT && !match) {
            fail = true;
            c->fail_kind = "mismatch";
            sb_printf(&sum, "accepted (numpy: %s), but read the header or payload differently from numpy", nv);
        } else if (c->v == V_ACCEPT) {
            sb_printf(&sum, "accepted (numpy: %s)", nv);
        } else {
            sb_printf(&sum, "refused (numpy: %s): %s", nv, c->adapter_error);
        }
    }
    c->summary = sb_take(&sum);

    sbuf det = {0};
    bool want_accept = c->group != G_PREFIX && (c->sub == G_VALID || (c->sub == G_COMPAT && c->numpy_accepts));
    if (c->sub == G_COMPAT && compat) sb_printf(&det, "numpy:    %s", c->numpy_accepts ? "accept" : "refuse");
    else if (c->sub == G_COMPAT) sb_printf(&det, "expected: refuse (numpy: %s; a path-climbing member name)", c->numpy_accepts ? "accept" : "refuse");
    else sb_printf(&det, "expected: %s", want_accept ? "accept" : "refuse");
    if (want_accept && (compat || c->sub == G_VALID)) {
        sb_puts(&det, ": ");
        describe_expected(&det, c);
        if (c->limit_case && c->group == G_RA) sb_puts(&det, " (or refuse: over npyguard's default limits)");
        else if (c->limit_case) sb_puts(&det, " (or refuse: over numpy's default max_header_size)");
    } else if (c->group == G_RA && !want_accept) {
        sb_puts(&det, " (an invalid RawArray file)");
    } else if (c->numpy_error && !want_accept) {
        sb_printf(&det, " (numpy: %s)", c->numpy_error);
    }
    sb_puts(&det, "\nadapter:  ");
    if (c->v == V_ACCEPT) {
        char *g = dump_json(c->got);
        char *g1 = one_line(g, 600);
        sb_printf(&det, "accepted: %s", g1);
        free(g);
        free(g1);
    } else if (c->v == V_REFUSE) {
        sb_printf(&det, "refused: %s", c->adapter_error);
    } else {
        sb_printf(&det, "%s: %s", verdict_names[c->v], c->problem ? c->problem : "");
    }
    if (c->mismatches) {
        for (char *p = c->mismatches; *p;) {
            char *e = strchr(p, '\n');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            sb_puts(&det, "\n  differs: ");
            sb_put(&det, p, n);
            p += n + (e ? 1 : 0);
        }
    }
    if (c->stdout_text && *c->stdout_text) sb_printf(&det, "\nstdout:   %s", c->stdout_text);
    if ((c->v == V_CRASH || c->v == V_BADOUT || c->v == V_TIMEOUT || c->v == V_MEMORY) && c->stderr_text) {
        char *e1 = one_line(c->stderr_text, 400);
        sb_printf(&det, "\nstderr:   %s", e1);
        free(e1);
    }
    if (c->platform_dependent) sb_puts(&det, "\nnote:     platform-dependent case (measured on little-endian x86-64)");
    if (c->skip_reason) sb_printf(&det, "\nskip:     %s", c->skip_reason);
    c->details = sb_take(&det);

    if (c->skip_reason) c->out = fail ? O_SKIP : (cfg->allow_stale ? O_SKIP : O_STALE);
    else c->out = fail ? O_FAIL : O_PASS;
}

static void *worker(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&queue_lock);
        size_t k = next_case++;
        pthread_mutex_unlock(&queue_lock);
        if (k >= ncases) return NULL;
        run_case(&cases[k]);
        pthread_mutex_lock(&queue_lock);
        done_cases++;
        if (isatty(2) && (done_cases % 10 == 0 || done_cases == ncases)) {
            fprintf(stderr, "\rnpyconform: %zu/%zu", done_cases, ncases);
            if (done_cases == ncases) fputs("\r\033[K", stderr);
        }
        pthread_mutex_unlock(&queue_lock);
    }
}

/* ---------------- reports ---------------- */

typedef struct tally {
    size_t cases, pass, fail, skip, stale, agree, accepted, other_reason;
} tally;

static tally tallies[G_COUNT + 1]; /* the last one is the total */
static unsigned reported_fields;
static unsigned relevant_fields; /* the fields of the formats that ran */
static bool reasons_reported;    /* some refusal carried an error_class */

static void count(void)
{
    for (size_t k = 0; k < ncases; k++) {
        tcase *c = &cases[k];
        reported_fields |= c->reported;
        reasons_reported |= c->error_class != NULL;
        relevant_fields |= c->group == G_RA ? RA_FIELDS : NPY_FIELDS;
        for (int t = 0; t < 2; t++) {
            tally *y = &tallies[t ? G_COUNT : c->group];
            y->cases++;
            if (c->out == O_PASS) y->pass++;
            else if (c->out == O_FAIL) y->fail++;
            else if (c->out == O_SKIP) y->skip++;
            else y->stale++;
            if ((c->group == G_COMPAT || c->group == G_NPZ) && c->agrees_numpy) y->agree++;
            if (c->v == V_ACCEPT) y->accepted++;
            if (c->other_reason) y->other_reason++;
        }
    }
}

static void print_indented(FILE *f, const char *text, const char *indent)
{
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        fprintf(f, "%s%.*s\n", indent, (int)n, p);
        p += n + (e ? 1 : 0);
    }
}

static void report_text(FILE *f, const char *sv, const char *nv, size_t total, double secs)
{
    fprintf(f, "npyconform %s: NPY conformance suite %s (expected results measured with numpy %s)\n", RUNNER_VERSION,
            sv, nv);
    char kb[32];
    fprintf(f, "adapter: %s\ncorpus:  %s (%zu of %zu cases selected)\nlimits:  %g s, %s resident memory per case\n\n",
            cfg->adapter, cfg->corpus, ncases, total, cfg->timeout,
            cfg->max_rss_kb ? human_kb(cfg->max_rss_kb, kb, sizeof kb) : "no cap on");
    size_t nfail = 0;
    for (size_t k = 0; k < ncases; k++) {
        tcase *c = &cases[k];
        const char *tag = c->out == O_FAIL ? "FAIL" : c->out == O_STALE ? "STALE" : NULL;
        if (!tag && cfg->verbose) tag = c->out == O_SKIP ? "SKIP" : c->other_reason ? "OTHER" : "ok";
        if (!tag) continue;
        if (c->sub == G_COMPAT && c->group != G_PREFIX && c->out == O_PASS) continue; /* in the table below */
        if (c->out == O_STALE)
            fprintf(f, "STALE %s: listed in a skip file (%s) but passes now; remove the line\n", c->name,
                    c->skip_reason);
        else
            fprintf(f, "%s %s: %s\n", tag, c->name, c->summary);
        if (c->out == O_FAIL || (cfg->verbose && c->out == O_SKIP)) print_indented(f, c->details, "    ");
        if (c->out == O_FAIL) nfail++;
    }
    if (nfail || cfg->verbose) fputc('\n', f);

    bool any_compat = false;
    for (size_t k = 0; k < ncases; k++) any_compat |= cases[k].sub == G_COMPAT && cases[k].group != G_PREFIX;
    if (any_compat) {
        fprintf(f, "compat (implementation-defined; %s): the adapter's verdict beside numpy %s's\n",
                cfg->expect_numpy ? "--expect-numpy: must match" : "any clean verdict passes", nv);
        fprintf(f, "  %-44s %-7s %-7s %s\n", "case", "numpy", "adapter", "");
        for (size_t k = 0; k < ncases; k++) {
            tcase *c = &cases[k];
            if (c->sub != G_COMPAT || c->group == G_PREFIX) continue;
            const char *av = c->v <= V_REFUSE ? verdict_names[c->v] : verdict_names[c->v];
            const char *note = c->out == O_FAIL ? "FAIL" : c->out == O_SKIP ? "skip" : c->out == O_STALE ? "STALE" : "";
            char extra[64] = "";
            if (c->v == V_ACCEPT && c->mismatches) snprintf(extra, sizeof extra, "fields differ");
            else if (c->v == V_ACCEPT && c->numpy_accepts) snprintf(extra, sizeof extra, "same reading");
            fprintf(f, "  %-44s %-7s %-7s %s%s%s%s\n", c->name, c->numpy_accepts ? "accept" : "refuse", av,
                    c->agrees_numpy ? "  " : "<>", note, *note && *extra ? " " : "", extra);
        }
        fputc('\n', f);
    }

    fprintf(f, "summary (suite %s):\n", sv);
    for (int g = 0; g <= G_COUNT; g++) {
        tally *y = &tallies[g];
        if (!y->cases) continue;
        fprintf(f, "  %-8s %4zu cases: %4zu passed, %4zu failed, %4zu skipped", g == G_COUNT ? "total" : group_names[g],
                y->cases, y->pass, y->fail, y->skip);
        if (y->stale) fprintf(f, ", %zu stale skips", y->stale);
        if (y->other_reason) fprintf(f, ", %zu refused for another reason", y->other_reason);
        if (g == G_COMPAT || g == G_NPZ)
            fprintf(f, "; %zu verdicts agree with numpy, %zu differ", y->agree, y->cases - y->agree);
        fputc('\n', f);
    }
    fputs("fields compared: ", f);
    bool first = true;
    for (int k = 0; k < NFIELDS; k++)
        if (reported_fields & (1u << k)) { fprintf(f, "%s%s", first ? "" : ", ", field_names[k]); first = false; }
    if (first) fputs("none (the adapter reported no header fields)", f);
    if (reasons_reported) fputs(", error_class", f);
    first = true;
    for (int k = 0; k < NFIELDS; k++)
        if ((relevant_fields & (1u << k)) && !(reported_fields & (1u << k))) {
            fprintf(f, "%s%s", first ? "; never reported, so not checked: " : ", ", field_names[k]);
            first = false;
        }
    fputc('\n', f);
    tally *t = &tallies[G_COUNT];
    if (t->other_reason && !cfg->check_reasons)
        fprintf(f, "%zu refusal%s named another class than the file's defect (listed with -v; --check-reasons "
                   "makes them failures)\n", t->other_reason, t->other_reason == 1 ? "" : "s");
    fprintf(f, "result: %s (%.1f s, -j %d)\n", t->fail || t->stale ? "FAIL" : "PASS", secs, cfg->jobs);
}

static json_t *jstr(const char *s) { return s ? json_string(s) : json_null(); }

static void report_json(FILE *f, const char *sv, const char *nv, double secs)
{
    json_t *root = json_object();
    json_object_set_new(root, "runner_version", json_string(RUNNER_VERSION));
    json_object_set_new(root, "suite_version", json_string(sv));
    json_object_set_new(root, "numpy_version", json_string(nv));
    json_object_set_new(root, "adapter", json_string(cfg->adapter));
    json_object_set_new(root, "corpus", json_string(cfg->corpus));
    json_object_set_new(root, "report_version", json_string("1.2"));
    json_object_set_new(root, "expect_numpy", json_boolean(cfg->expect_numpy));
    json_object_set_new(root, "check_reasons", json_boolean(cfg->check_reasons));
    json_object_set_new(root, "timeout_seconds", json_real(cfg->timeout));
    json_object_set_new(root, "max_rss_kb", json_integer((json_int_t)cfg->max_rss_kb));
    json_object_set_new(root, "seconds", json_real(secs));
    tally *t = &tallies[G_COUNT];
    json_object_set_new(root, "passed", json_boolean(!t->fail && !t->stale));
    json_t *fields = json_array();
    for (int k = 0; k < NFIELDS; k++)
        if (reported_fields & (1u << k)) json_array_append_new(fields, json_string(field_names[k]));
    if (reasons_reported) json_array_append_new(fields, json_string("error_class"));
    json_object_set_new(root, "fields_compared", fields);
    json_t *summary = json_object();
    for (int g = 0; g <= G_COUNT; g++) {
        tally *y = &tallies[g];
        json_t *o = json_object();
        json_object_set_new(o, "cases", json_integer((json_int_t)y->cases));
        json_object_set_new(o, "passed", json_integer((json_int_t)y->pass));
        json_object_set_new(o, "failed", json_integer((json_int_t)y->fail));
        json_object_set_new(o, "skipped", json_integer((json_int_t)y->skip));
        json_object_set_new(o, "stale_skips", json_integer((json_int_t)y->stale));
        json_object_set_new(o, "accepted", json_integer((json_int_t)y->accepted));
        json_object_set_new(o, "refused_for_another_reason", json_integer((json_int_t)y->other_reason));
        if (g == G_COMPAT || g == G_NPZ)
            json_object_set_new(o, "agree_with_numpy", json_integer((json_int_t)y->agree));
        json_object_set_new(summary, g == G_COUNT ? "total" : group_names[g], o);
    }
    json_object_set_new(root, "summary", summary);
    json_t *arr = json_array();
    for (size_t k = 0; k < ncases; k++) {
        tcase *c = &cases[k];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(c->name));
        json_object_set_new(o, "group", json_string(group_names[c->group]));
        if (c->group == G_NPZ) json_object_set_new(o, "npz_group", json_string(group_names[c->sub]));
        json_object_set_new(o, "outcome", json_string(outcome_names[c->out]));
        json_object_set_new(o, "verdict", json_string(verdict_names[c->v]));
        if (c->group == G_RA) json_object_set_new(o, "ra_group", json_string(c->ra_group));
        json_object_set_new(o, "numpy", c->group == G_RA ? json_null()
                                                         : json_string(c->numpy_accepts ? "accept" : "refuse"));
        json_object_set_new(o, "summary", jstr(c->summary));
        json_object_set_new(o, "details", jstr(c->details));
        if (c->fail_kind && (c->out == O_FAIL || c->out == O_SKIP))
            json_object_set_new(o, "failure", json_string(c->fail_kind));
        if (c->adapter_error) json_object_set_new(o, "error", json_string(c->adapter_error));
        if (c->error_class) json_object_set_new(o, "error_class", json_string(c->error_class));
        if (c->classes) {
            json_t *cl = json_array();
            for (size_t j = 0; j < NCLASSES; j++)
                if (c->classes & (1u << j)) json_array_append_new(cl, json_string(class_names[j]));
            json_object_set_new(o, "refusal_classes", cl);
        }
        if (c->other_reason) json_object_set_new(o, "refused_for_another_reason", json_true());
        if (c->mismatches) json_object_set_new(o, "mismatches", json_string(c->mismatches));
        if (c->got) json_object_set(o, "output", c->got);
        if (c->skip_reason) json_object_set_new(o, "skip_reason", json_string(c->skip_reason));
        if (c->platform_dependent) json_object_set_new(o, "platform_dependent", json_true());
        json_object_set_new(o, "exit_status", c->exit_code >= 0 ? json_integer(c->exit_code) : json_null());
        json_object_set_new(o, "signal", c->signal_no ? json_integer(c->signal_no) : json_null());
        json_object_set_new(o, "peak_rss_kb", json_integer((json_int_t)c->peak_rss_kb));
        json_object_set_new(o, "seconds", json_real(c->seconds));
        json_array_append_new(arr, o);
    }
    json_object_set_new(root, "cases", arr);
    json_dumpf(root, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    fputc('\n', f);
    json_decref(root);
}

static void xml_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default: fputc(*s, f);
        }
    }
}

static void report_junit(FILE *f, const char *sv, double secs)
{
    tally *t = &tallies[G_COUNT];
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fprintf(f, "<testsuites name=\"npyconform suite %s\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n",
            sv, t->cases, t->fail + t->stale, t->skip, secs);
    for (int g = 0; g < G_COUNT; g++) {
        tally *y = &tallies[g];
        if (!y->cases) continue;
        double gs = 0;
        for (size_t k = 0; k < ncases; k++)
            if (cases[k].group == g) gs += cases[k].seconds;
        fprintf(f, "  <testsuite name=\"npyconform.%s\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"%.3f\">\n",
                group_names[g], y->cases, y->fail + y->stale, y->skip, gs);
        for (size_t k = 0; k < ncases; k++) {
            tcase *c = &cases[k];
            if (c->group != g) continue;
            fputs("    <testcase classname=\"npyconform.", f);
            fputs(group_names[g], f);
            fputs("\" name=\"", f);
            xml_escape(f, c->name);
            fprintf(f, "\" time=\"%.3f\">\n", c->seconds);
            if (c->out == O_FAIL || c->out == O_STALE) {
                fputs("      <failure message=\"", f);
                xml_escape(f, c->out == O_STALE ? "listed in a skip file but passes now; remove the line" : c->summary);
                fprintf(f, "\" type=\"%s\">", c->out == O_STALE ? "stale-skip" : c->fail_kind);
                xml_escape(f, c->details);
                fputs("</failure>\n", f);
            } else if (c->out == O_SKIP) {
                fputs("      <skipped message=\"", f);
                xml_escape(f, c->skip_reason);
                fputs("\"/>\n", f);
            }
            fputs("      <system-out>", f);
            xml_escape(f, c->summary);
            fputc('\n', f);
            xml_escape(f, c->details);
            fputs("</system-out>\n    </testcase>\n", f);
        }
        fputs("  </testsuite>\n", f);
    }
    fputs("</testsuites>\n", f);
}

static void report_tap(FILE *f, const char *sv, const char *nv)
{
    fputs("TAP version 13\n", f);
    fprintf(f, "# npyconform %s, NPY conformance suite %s (numpy %s)\n", RUNNER_VERSION, sv, nv);
    fprintf(f, "1..%zu\n", ncases);
    for (size_t k = 0; k < ncases; k++) {
        tcase *c = &cases[k];
        /* A skipped case ran: it is an expected failure, TAP's TODO (not
           SKIP, which says it did not run). A TODO line that is "ok" passed
           (allowed with --allow-stale-skips). */
        bool todo = c->out == O_SKIP;
        bool ok = c->out == O_PASS || (todo && !c->fail_kind);
        fprintf(f, "%s %zu - %s", ok ? "ok" : "not ok", k + 1, c->name);
        if (todo) {
            char *r = one_line(c->skip_reason, 200);
            for (char *p = r; *p; p++)
                if (*p == '#') *p = ' ';
            fprintf(f, " # TODO %s", r);
            free(r);
        }
        fputc('\n', f);
        if (c->sub == G_COMPAT && c->group != G_PREFIX)
            fprintf(f, "# numpy: %s, adapter: %s\n", c->numpy_accepts ? "accept" : "refuse", verdict_names[c->v]);
        if (!ok && !todo) {
            fputs("  ---\n", f);
            fprintf(f, "  message: %s\n", c->out == O_STALE ? "\"listed in a skip file but passes now; remove the line\"" : "|-");
            if (c->out != O_STALE) {
                char *s = one_line(c->summary, 400);
                fprintf(f, "    %s\n", s);
                free(s);
            }
            fputs("  details: |-\n", f);
            print_indented(f, c->details, "    ");
            fputs("  ...\n", f);
        }
    }
}

static void write_skip_file(const char *path, const char *sv)
{
    FILE *f = fopen(path, "w");
    if (!f) die("cannot write %s: %s", path, strerror(errno));
    fprintf(f, "# npyconform skip list for suite %s: cases this adapter is known to fail.\n", sv);
    fprintf(f, "# Written by npyconform --write-skips for: %s\n", cfg->adapter);
    fputs("# One case per line: the case name, then the reason. Delete a line once the\n"
          "# case passes (npyconform reports such lines as stale).\n", f);
    size_t n = 0;
    for (size_t k = 0; k < ncases; k++) {
        tcase *c = &cases[k];
        if (c->out != O_FAIL && c->out != O_SKIP) continue;
        char *r = one_line(c->out == O_SKIP ? c->skip_reason : c->summary, 200);
        fprintf(f, "%s  %s\n", c->name, r);
        free(r);
        n++;
    }
    if (fclose(f) != 0) die("cannot write %s: %s", path, strerror(errno));
    fprintf(stderr, "npyconform: wrote %zu case%s to %s\n", n, n == 1 ? "" : "s", path);
}

/* ---------------- the corpus: where it is, and a copy ---------------- */

/* The corpus beside the program, so that no path of the machine it was
   built on is kept in it: <bin>/../share/npyconform/corpus (make install,
   the release tarball), else <bin>/corpus (the build tree links it
   there). NULL when neither has a manifest. */
static const char *find_corpus(void)
{
    static char found[4096];
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) return NULL;
    *slash = '\0';
    static const char *const rel[] = {"/../share/npyconform/corpus", "/corpus"};
    for (size_t k = 0; k < sizeof rel / sizeof *rel; k++) {
        char m[4200];
        if (strlen(exe) + strlen(rel[k]) >= sizeof found) return NULL;
        memcpy(found, exe, strlen(exe));
        strcpy(found + strlen(exe), rel[k]);
        snprintf(m, sizeof m, "%s/manifest.json", found);
        if (access(m, R_OK) == 0) return found;
    }
    return NULL;
}

static void copy_file(const char *from, const char *to)
{
    size_t n;
    unsigned char *data = read_file(from, &n);
    if (!data) die("cannot read %s: %s", from, strerror(errno));
    int fd = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) die("cannot create %s: %s", to, strerror(errno));
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, data + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) die("cannot write %s: %s", to, strerror(errno));
        done += (size_t)w;
    }
    if (close(fd) != 0) die("cannot write %s: %s", to, strerror(errno));
    free(data);
}

/* Copies the directory from into to (created), files and directories only:
   nothing is overwritten, nothing but regular files is followed. */
static size_t copy_tree(const char *from, const char *to)
{
    if (mkdir(to, 0755) != 0 && errno != EEXIST) die("cannot create %s: %s", to, strerror(errno));
    DIR *d = opendir(from);
    if (!d) die("cannot read %s: %s", from, strerror(errno));
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char a[4096], b[4096];
        if (snprintf(a, sizeof a, "%s/%s", from, e->d_name) >= (int)sizeof a ||
            snprintf(b, sizeof b, "%s/%s", to, e->d_name) >= (int)sizeof b)
            die("path too long under %s", from);
        struct stat st;
        if (lstat(a, &st) != 0) die("cannot stat %s: %s", a, strerror(errno));
        if (S_ISDIR(st.st_mode)) n += copy_tree(a, b);
        else if (S_ISREG(st.st_mode)) { copy_file(a, b); n++; }
    }
    closedir(d);
    return n;
}

/* `npyconform copy DIR`: the files and manifests of every group, for
   people who want the cases without the runner. */
static int copy_corpus(const char *corpus, const char *dest)
{
    if (mkdir(dest, 0755) != 0 && errno != EEXIST) die("cannot create %s: %s", dest, strerror(errno));
    static const char *const parts[] = {"valid", "invalid", "unsafe", "compat", "npz", "ra"};
    char a[4096], b[4096];
    snprintf(a, sizeof a, "%s/manifest.json", corpus);
    snprintf(b, sizeof b, "%s/manifest.json", dest);
    copy_file(a, b);
    size_t n = 1;
    for (size_t k = 0; k < sizeof parts / sizeof *parts; k++) {
        snprintf(a, sizeof a, "%s/%s", corpus, parts[k]);
        snprintf(b, sizeof b, "%s/%s", dest, parts[k]);
        if (access(a, R_OK) == 0) n += copy_tree(a, b);
    }
    fprintf(stderr, "npyconform: copied %zu files of %s to %s\n", n, corpus, dest);
    return 0;
}

/* ---------------- main ---------------- */

static void usage(FILE *f)
{
    fputs("usage: npyconform --adapter 'CMD' [options]\n"
          "       npyconform list [--only GROUP] [--run PATTERN]   (the cases, run nothing)\n"
          "       npyconform copy DIR                             (the corpus files and manifests)\n"
          "\n"
          "Runs CMD (through /bin/sh -c, with one corpus file path appended) on every\n"
          "case of the NPY conformance corpus and compares its answers with numpy's.\n"
          "The adapter protocol is described in conformance/PROTOCOL.md. The group ra\n"
          "(RawArray files, corpus/ra/) only runs when --only names it.\n"
          "\n"
          "  --adapter CMD        the adapter command (required)\n"
          "  --corpus DIR         corpus directory (default: $NPYCONFORM_CORPUS, else the one installed\n"
          "                       beside the program: BIN/../share/npyconform/corpus or BIN/corpus)\n"
          "  --skip FILE          known failures, one case per line with a reason (repeatable)\n"
          "  --only GROUP         valid, invalid, unsafe, compat, npz, prefix or ra (repeatable, or comma-separated)\n"
          "  --run PATTERN        only cases whose name matches this glob (repeatable)\n"
          "  --format FMT         text (default), json, junit or tap\n"
          "  -o, --output FILE    write the report to FILE instead of stdout\n"
          "  --junit FILE         also write a JUnit XML report to FILE\n"
          "  -j, --jobs N         run N adapter processes at once (default 1)\n"
          "  --timeout SEC        per-case time limit in seconds (default 5)\n"
          "  --max-rss SIZE       cap on the adapter's resident memory, e.g. 512M, 2G (default 1G; 0: none)\n"
          "  --prefix-step N      prefix group: cut every N bytes, besides the preamble and data offset (default 32)\n"
          "  --expect-numpy       compat cases must get numpy's verdict (and reading)\n"
          "  --check-reasons      a refusal whose error_class is not the file's defect fails\n"
          "  --write-skips FILE   write a skip file listing every case that failed\n"
          "  --allow-stale-skips  a skipped case that passes is not an error\n"
          "  -v, --verbose        list every case, not only the failures\n"
          "  --list               print the selected cases and their groups, run nothing\n"
          "  -h, --help           this text\n"
          "  --version            print the runner and suite versions\n",
          f);
}

static double parse_double(const char *opt, const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v > 0) || v > 86400) die("%s: invalid value '%s'", opt, s);
    return v;
}

/* 1G, 512M, 800K, or bytes; returns KiB (0: no cap) */
static long parse_size_kb(const char *opt, const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    double mul = 1.0 / 1024;
    if (*end == 'K' || *end == 'k') { mul = 1; end++; }
    else if (*end == 'M' || *end == 'm') { mul = 1024; end++; }
    else if (*end == 'G' || *end == 'g') { mul = 1024 * 1024; end++; }
    if (*end == 'i') end++;
    if (*end == 'B') end++;
    if (errno || end == s || *end || v < 0 || v * mul > 1e12) die("%s: invalid size '%s'", opt, s);
    return (long)(v * mul);
}

int main(int argc, char **argv)
{
    /* Static: the configuration (and what it points to) lives for the
       whole run, whichever way main returns. */
    static config c;
    c.format = "text";
    c.jobs = 1;
    c.timeout = 5;
    c.max_rss_kb = 1024L * 1024;
    c.prefix_step = 32;
    bool list = false, version = false;
    const char *copy_to = NULL;
    const char **runs = calloc((size_t)argc, sizeof *runs);
    if (!runs) die("out of memory");
    c.runs = runs;
    /* static too: --help and the other early exits leave it allocated */
    static char **skip_files;
    skip_files = calloc((size_t)argc, sizeof *skip_files);
    size_t nskip_files = 0;
    if (!skip_files) die("out of memory");

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        char name[64];
        const char *eq = strchr(a, '=');
        if (a[0] == '-' && a[1] == 'j' && a[2]) { /* -j4 */
            val = a + 2;
            a = "-j";
        }
        if (a[0] == '-' && a[1] == '-' && eq && (size_t)(eq - a) < sizeof name) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = '\0';
            val = eq + 1;
            a = name;
        }
#define VALUE() (val ? val : (i + 1 < argc ? argv[++i] : (die("%s needs a value", a), "")))
        if (!strcmp(a, "--adapter")) c.adapter = VALUE();
        else if (!strcmp(a, "--corpus")) c.corpus = VALUE();
        else if (!strcmp(a, "--skip")) skip_files[nskip_files++] = (char *)VALUE();
        else if (!strcmp(a, "--only")) {
            char *list_s = xstrdup(VALUE());
            for (char *tok = strtok(list_s, ","); tok; tok = strtok(NULL, ",")) {
                int g = -1;
                for (int k = 0; k < G_COUNT; k++)
                    if (!strcmp(tok, group_names[k])) g = k;
                if (g < 0) die("--only: unknown group '%s' (valid, invalid, unsafe, compat, npz, prefix, ra)", tok);
                c.groups |= 1u << g;
            }
            free(list_s);
        } else if (!strcmp(a, "--run")) runs[c.nruns++] = VALUE();
        else if (!strcmp(a, "--format")) c.format = VALUE();
        else if (!strcmp(a, "-o") || !strcmp(a, "--output")) c.output = VALUE();
        else if (!strcmp(a, "--junit")) c.junit = VALUE();
        else if (!strcmp(a, "-j") || !strcmp(a, "--jobs")) {
            const char *v = VALUE();
            char *end;
            long n = strtol(v, &end, 10);
            if (*end || n < 1 || n > 256) die("-j: invalid value '%s' (1..256)", v);
            c.jobs = (int)n;
        } else if (!strcmp(a, "--timeout")) c.timeout = parse_double(a, VALUE());
        else if (!strcmp(a, "--max-rss")) c.max_rss_kb = parse_size_kb(a, VALUE());
        else if (!strcmp(a, "--prefix-step")) {
            const char *v = VALUE();
            char *end;
            long n = strtol(v, &end, 10);
            if (*end || n < 1 || n > 1 << 20) die("--prefix-step: invalid value '%s'", v);
            c.prefix_step = n;
        }
        else if (!strcmp(a, "--expect-numpy")) c.expect_numpy = true;
        else if (!strcmp(a, "--check-reasons")) c.check_reasons = true;
        else if (!strcmp(a, "--write-skips")) c.write_skips = VALUE();
        else if (!strcmp(a, "--allow-stale-skips")) c.allow_stale = true;
        else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) c.verbose = true;
        else if (!strcmp(a, "--list")) list = true;
        else if (!strcmp(a, "--version")) version = true;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else if (!strcmp(a, "list")) list = true; /* the commands, among the options */
        else if (!strcmp(a, "copy")) copy_to = VALUE();
        else {
            fprintf(stderr, "npyconform: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
#undef VALUE
    }
    if (!c.groups) c.groups = DEFAULT_GROUPS;
    if (!c.corpus) c.corpus = getenv("NPYCONFORM_CORPUS");
    if (!c.corpus || !*c.corpus) c.corpus = find_corpus();
    if (!c.corpus) die("no corpus beside the program (BIN/../share/npyconform/corpus or BIN/corpus): give --corpus DIR");
    if (copy_to) return copy_corpus(c.corpus, copy_to);
    cfg = &c;
    if (strcmp(c.format, "text") && strcmp(c.format, "json") && strcmp(c.format, "junit") && strcmp(c.format, "tap"))
        die("--format: unknown format '%s' (text, json, junit, tap)", c.format);
    for (size_t k = 0; k < nskip_files; k++) load_skips(&c, skip_files[k]);
    free(skip_files);
    skip_files = NULL;
    cfg = &c;

    char sv[64], nv[64];
    size_t total = 0;
    load_manifest(c.corpus, sv, sizeof sv, nv, sizeof nv, &total);
    if (version) {
        remove_prefix_files();
        printf("npyconform %s\nsuite %s (numpy %s)\n", RUNNER_VERSION, sv, nv);
        return 0;
    }
    if (list) {
        for (size_t k = 0; k < ncases; k++) printf("%s\t%s\n", group_names[cases[k].group], cases[k].name);
        remove_prefix_files();
        return 0;
    }
    if (!c.adapter) {
        remove_prefix_files();
        fputs("npyconform: --adapter is required\n", stderr);
        usage(stderr);
        return 2;
    }
    if (ncases == 0) die("no case selected");
    for (size_t k = 0; k < ncases; k++) cases[k].skip_reason = skip_reason_for(cases[k].name);
    for (size_t k = 0; k < c.nskips; k++)
        if (!c.skips[k].used)
            fprintf(stderr, "npyconform: warning: skip entry '%s' matches no selected case\n", c.skips[k].pattern);

    signal(SIGPIPE, SIG_IGN);
    double t0 = now_sec();
    int nthreads = c.jobs < (int)ncases ? c.jobs : (int)ncases;
    pthread_t *th = xmalloc(sizeof *th * (size_t)nthreads);
    for (int k = 0; k < nthreads; k++)
        if (pthread_create(&th[k], NULL, worker, NULL) != 0) die("cannot start a thread");
    for (int k = 0; k < nthreads; k++) pthread_join(th[k], NULL);
    free(th);
    double secs = now_sec() - t0;
    remove_prefix_files();
    count();

    FILE *f = stdout;
    if (c.output && !(f = fopen(c.output, "w"))) die("cannot write %s: %s", c.output, strerror(errno));
    if (!strcmp(c.format, "text")) report_text(f, sv, nv, total, secs);
    else if (!strcmp(c.format, "json")) report_json(f, sv, nv, secs);
    else if (!strcmp(c.format, "junit")) report_junit(f, sv, secs);
    else report_tap(f, sv, nv);
    if (fflush(f) != 0 || (f != stdout && fclose(f) != 0)) die("cannot write the report: %s", strerror(errno));
    if (c.junit) {
        FILE *j = fopen(c.junit, "w");
        if (!j) die("cannot write %s: %s", c.junit, strerror(errno));
        report_junit(j, sv, secs);
        if (fclose(j) != 0) die("cannot write %s: %s", c.junit, strerror(errno));
    }
    if (c.write_skips) write_skip_file(c.write_skips, sv);
    if (strcmp(c.format, "text") && c.output == NULL) {
        /* machine formats on stdout: a one-line verdict on stderr */
    } else if (strcmp(c.format, "text")) {
        tally *t = &tallies[G_COUNT];
        fprintf(stderr, "npyconform: suite %s: %zu passed, %zu failed, %zu skipped, %zu stale skips\n", sv, t->pass,
                t->fail, t->skip, t->stale);
    }
    tally *t = &tallies[G_COUNT];
    return t->fail || t->stale ? 1 : 0;
}
