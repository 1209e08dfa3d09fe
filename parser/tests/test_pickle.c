/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pickle scanner against what Python's pickletools sees: the unsafe
 * files of corpus/manifest.json and corpus/npz/manifest.json (pickle_imports,
 * measured by gen/gen_corpus.py and gen/gen_npz.py), and corpus/pickle/
 * (gen/gen_pickles.py: imports, which are called and given state, and the
 * verdict on malformed pickles). Every file is scanned from a buffer, from
 * a callback in small chunks and from a descriptor, which must agree; the
 * allocation bound, every allocation failure, every read failure and each
 * limit are checked on them.
 *
 *   test_pickle CORPUSDIR
 */
#include "npyguard.h"
#include "testutil.h"

#include <fcntl.h>
#include <jansson.h>
#include <sys/socket.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *corpus;

/* "module.name" as pickletools spells it; "ext:CODE" for extensions. */
static void import_name(const npyg_pickle_import *m, char *out, size_t size)
{
    if (m->flags & NPYG_PI_EXT) snprintf(out, size, "ext:%ld", (long)m->ext_code);
    else snprintf(out, size, "%.*s.%.*s", (int)m->module_len, m->module, (int)m->name_len, m->name);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The report's imports with any of the flags in mask (0: all), sorted,
   as a JSON array, to compare with the manifest's. */
static json_t *names_of(const npyg_pickle_report *r, unsigned mask)
{
    char **v = calloc(r->nimports + 1, sizeof *v);
    size_t n = 0;
    for (uint32_t i = 0; i < r->nimports; i++) {
        if (mask && !(r->imports[i].flags & mask)) continue;
        v[n] = malloc(2 * NPYG_PICKLE_NAME_MAX + 32);
        import_name(&r->imports[i], v[n], 2 * NPYG_PICKLE_NAME_MAX + 32);
        n++;
    }
    qsort(v, n, sizeof *v, cmp_str);
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(a, json_string(v[i]));
        free(v[i]);
    }
    free(v);
    return a;
}

static char *dump(const json_t *j) { return json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY); }

static void check_list(const char *what, const json_t *want, json_t *got)
{
    char *w = dump(want), *g = dump(got);
    TU_CHECK(json_equal(want, got), "%s: pickletools %s, npyguard %s", what, w, g);
    free(w);
    free(g);
    json_decref(got);
}

/* A report's content, for comparing two input paths. */
static char *fingerprint(int rc, const npyg_pickle_report *r, uint64_t err_off)
{
    char *buf = malloc(1 << 16);
    size_t o = (size_t)snprintf(buf, 1 << 16, "rc=%d off=%llu ", rc, (unsigned long long)err_off);
    if (r) {
        o += (size_t)snprintf(buf + o, (1 << 16) - o, "st=%d p=%d len=%llu ops=%llu fl=%u n=%u ", r->status,
                              r->protocol, (unsigned long long)r->length, (unsigned long long)r->opcodes,
                              r->flags, r->nimports);
        for (uint32_t i = 0; i < r->nimports && o < (1 << 15); i++) {
            char name[600];
            import_name(&r->imports[i], name, sizeof name);
            o += (size_t)snprintf(buf + o, (1 << 16) - o, "%s/%u/%u/%llu ", name, r->imports[i].flags,
                                  r->imports[i].refs, (unsigned long long)r->imports[i].offset);
        }
    }
    return buf;
}

/* The scan of the input set last, as a fingerprint of its code, offset
   and report. */
static char *scan_fingerprint(npyg_ctx *ctx, const npyg_pickle_limits *lim, int *rc)
{
    *rc = npyg_pickle_scan_npy(ctx, lim);
    return fingerprint(*rc, npyg_get_pickle_report(ctx), *rc ? npyg_last_error(ctx)->offset : 0);
}

/* Scans the .npy bytes three ways (a descriptor, a callback in chunks of
   several sizes, the buffer last), requires the same fingerprint, and
   leaves the buffer scan's report in *out (the context's, until its next
   call). */
static int scan_three_ways(npyg_ctx *ctx, const char *path, const unsigned char *data, size_t len,
                           const npyg_pickle_limits *lim, const npyg_pickle_report **out)
{
    int fd = open(path, O_RDONLY), rc3 = 0;
    char *f3 = NULL;
    TU_CHECK(fd >= 0, "open %s", path);
    if (fd >= 0) {
        npyg_set_input_fd(ctx, fd);
        f3 = scan_fingerprint(ctx, lim, &rc3);
        TU_CHECK(lseek(fd, 0, SEEK_CUR) == 0, "the descriptor moved");
        close(fd);
    }
    char *f2[5] = {0};
    unsigned k = 0;
    for (unsigned max = 1; max <= 4096; max *= 8, k++) {
        tu_chunks ch = {data, len, 0, max * 7 + 1, max};
        npyg_set_input_read(ctx, tu_chunked_read, &ch);
        int rc2;
        f2[k] = scan_fingerprint(ctx, lim, &rc2);
    }
    npyg_set_input_buffer(ctx, data, len);
    int rc;
    char *fb = scan_fingerprint(ctx, lim, &rc);
    *out = npyg_get_pickle_report(ctx);
    TU_CHECK(rc == NPYG_ENOMEM || *out != NULL, "no report (%s)", npyg_error_name(rc));
    if (*out) TU_CHECK((*out)->status == rc, "report status %d, call %d", (*out)->status, rc);
    k = 0;
    for (unsigned max = 1; max <= 4096; max *= 8, k++) {
        TU_CHECK(strcmp(fb, f2[k]) == 0, "chunks of at most %u: %s\n  buffer: %s", max, f2[k], fb);
        free(f2[k]);
    }
    if (f3) TU_CHECK(strcmp(fb, f3) == 0, "descriptor: %s\n  buffer: %s", f3, fb);
    free(f3);
    free(fb);
    return rc;
}

/* One scan read in chunks (from seed) under limits l, NULL for the
   defaults, on a counting allocator: what it allocates beyond the
   context's own stays within npyg_pickle_worst_case_alloc(l), the next
   call frees the report (the same scan again holds what the first held),
   and freeing the context gives everything back. Returns the
   scan's code; *calls the allocations asked for, the context's included. */
static int scan_within_bound(const unsigned char *data, size_t len, const npyg_pickle_limits *l, unsigned seed,
                             long *calls)
{
    uint64_t bound = npyg_pickle_worst_case_alloc(l);
    tu_alloc ta;
    tu_alloc_init(&ta, UINT64_MAX);
    npyg_alloc al = tu_allocator(&ta);
    npyg_options o = {NPYG_PROFILE_NUMPY, NULL, &al, 0};
    npyg_ctx *ctx = npyg_ctx_new(&o);
    uint64_t base = ta.now;
    ta.peak = ta.now;
    tu_chunks ch = {data, len, 0, seed, 64};
    npyg_set_input_read(ctx, tu_chunked_read, &ch);
    int rc = npyg_pickle_scan_npy(ctx, l);
    TU_CHECK(ta.peak - base <= bound, "scan allocated %llu, bound %llu", (unsigned long long)(ta.peak - base),
             (unsigned long long)bound);
    uint64_t held = ta.now;
    ch = (tu_chunks){data, len, 0, seed, 64};
    npyg_set_input_read(ctx, tu_chunked_read, &ch);
    TU_CHECK(npyg_pickle_scan_npy(ctx, l) == rc && ta.now == held, "the same scan again holds %llu bytes, not %llu",
             (unsigned long long)(ta.now - base), (unsigned long long)(held - base));
    *calls = ta.calls;
    npyg_ctx_free(ctx);
    TU_CHECK(ta.now == 0, "%llu bytes left after the context is freed", (unsigned long long)ta.now);
    return rc;
}

/* What the bound promises, every allocation failure, every read failure. */
static void torture(const unsigned char *data, size_t len)
{
    long calls;
    int want = scan_within_bound(data, len, NULL, 99, &calls);

    /* Fail each allocation of the scan in turn. */
    tu_alloc ta;
    npyg_alloc al = tu_allocator(&ta);
    npyg_options o = {NPYG_PROFILE_NUMPY, NULL, &al, 0};
    for (long k = 0; k <= calls + 1; k++) {
        tu_alloc_init(&ta, UINT64_MAX);
        npyg_ctx *ctx = npyg_ctx_new(&o);
        ta.fail_at = ta.calls + k - 0;
        tu_chunks ch = {data, len, 0, 99, 64};
        npyg_set_input_read(ctx, tu_chunked_read, &ch);
        int rc = npyg_pickle_scan_npy(ctx, NULL);
        const npyg_pickle_report *r = npyg_get_pickle_report(ctx);
        bool failed = ta.calls > ta.fail_at;
        if (failed) {
            TU_CHECK((rc == NPYG_ENOMEM && r == NULL) || (rc == want && r != NULL),
                     "allocation %ld refused: %s (want %s or ENOMEM)", k, npyg_error_name(rc), npyg_error_name(want));
        } else {
            TU_CHECK(rc == want, "no allocation refused, yet %s", npyg_error_name(rc));
        }
        npyg_ctx_free(ctx);
        TU_CHECK(ta.now == 0, "allocation %ld refused: %llu bytes leaked", k, (unsigned long long)ta.now);
    }
}

typedef struct failing {
    const unsigned char *p;
    size_t len, pos, fail_at;
    unsigned mode; /* 0: -1 at fail_at; 1: short reads of 1 byte */
    bool failed;
} failing;

static long long failing_read(void *user, void *buf, size_t n)
{
    failing *f = user;
    if (f->mode == 0 && f->pos >= f->fail_at) {
        f->failed = true;
        return -1;
    }
    size_t k = f->len - f->pos < n ? f->len - f->pos : n;
    if (f->mode == 1 && k > 1) k = 1;
    memcpy(buf, f->p + f->pos, k);
    f->pos += k;
    return (long long)k;
}

/* A read error at every position gives EIO, never another verdict. */
static void read_faults(npyg_ctx *ctx, const unsigned char *data, size_t len, int want)
{
    for (size_t at = 0; at <= len; at++) {
        failing f = {data, len, 0, at, 0, false};
        npyg_set_input_read(ctx, failing_read, &f);
        int rc = npyg_pickle_scan_npy(ctx, NULL);
        if (f.failed) TU_CHECK(rc == NPYG_EIO, "read error at %zu: %s", at, npyg_error_name(rc));
        else TU_CHECK(rc == want, "no read error (at %zu), yet %s", at, npyg_error_name(rc));
    }
}

static void check_npy_entry(npyg_ctx *ctx, const char *dir, const char *name, const json_t *e, bool full)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    tu_current = path;
    size_t len;
    unsigned char *data = tu_slurp(path, &len);
    TU_CHECK(data != NULL, "cannot read");
    if (!data) return;
    /* gen_pickles.py's limit cases name the limits they run under. */
    npyg_pickle_limits lim;
    npyg_pickle_limits_default(&lim);
    const json_t *lj = json_object_get(e, "npyguard_limits");
    const char *lk;
    const json_t *lv;
    json_object_foreach((json_t *)lj, lk, lv) {
        uint64_t x = tu_json_u64(lv);
        if (!strcmp(lk, "max_stack")) lim.max_stack = (uint32_t)x;
        else if (!strcmp(lk, "max_bytes")) lim.max_bytes = x;
        else if (!strcmp(lk, "max_memo")) lim.max_memo = (uint32_t)x;
        else TU_CHECK(0, "unknown limit %s", lk);
    }
    if (lj) full = false; /* the torture runs under the default limits */
    const npyg_pickle_report *r = NULL;
    int rc = scan_three_ways(ctx, path, data, len, lj ? &lim : NULL, &r);

    /* gen_corpus.py / gen_npz.py mark a pickle pickletools cannot walk. */
    const json_t *want = json_object_get(e, "pickle_imports");
    json_t *clean = json_array();
    bool unparsable = false;
    size_t i;
    const json_t *v;
    json_array_foreach(want, i, v) {
        if (strncmp(json_string_value(v), "<unparsable", 11) == 0) unparsable = true;
        else json_array_append(clean, (json_t *)v);
    }
    const json_t *code = json_object_get(e, "npyguard_scan");
    if (code) {
        int c = tu_code_of(json_string_value(code));
        TU_CHECK(rc == c, "scan gives %s, expected %s (%s)", npyg_error_name(rc), json_string_value(code),
                 npyg_last_error(ctx)->message);
    } else {
        TU_CHECK(unparsable ? rc != 0 : rc == 0, "scan gives %s (%s)", npyg_error_name(rc),
                 npyg_last_error(ctx)->message);
    }
    /* npyguard's naming rule where it spells a name otherwise (the
       generator derives it from pickletools' view). */
    const json_t *rule = json_object_get(e, "npyguard_imports_in_order");
    if (rule) {
        json_decref(clean);
        clean = json_array();
        json_array_foreach(rule, i, v) json_array_append(clean, (json_t *)v);
        /* sorted, as names_of gives them */
        size_t n = json_array_size(clean);
        for (size_t a = 0; a < n; a++)
            for (size_t b = a + 1; b < n; b++)
                if (strcmp(json_string_value(json_array_get(clean, a)), json_string_value(json_array_get(clean, b))) > 0) {
                    json_t *x = json_incref(json_array_get(clean, a));
                    json_array_set(clean, a, json_array_get(clean, b));
                    json_array_set_new(clean, b, x);
                }
    }
    if (r) {
        check_list("imports", clean, names_of(r, 0));
        if (json_object_get(e, "pickle_called"))
            check_list("called", json_object_get(e, "pickle_called"), names_of(r, NPYG_PI_CALLED));
        if (json_object_get(e, "pickle_built"))
            check_list("built", json_object_get(e, "pickle_built"), names_of(r, NPYG_PI_BUILD));
        const json_t *order = rule ? rule : json_object_get(e, "pickle_imports_in_order");
        if (order) {
            /* npyg_pickle_format_imports: first-use order, ", " between. */
            char want_text[4096] = "", got[4096];
            json_array_foreach(order, i, v) {
                if (i) strcat(want_text, ", ");
                strncat(want_text, json_string_value(v), sizeof want_text - strlen(want_text) - 1);
            }
            size_t need = npyg_pickle_format_imports(r, got, sizeof got);
            TU_CHECK(strcmp(got, want_text) == 0 && need == strlen(want_text), "format: '%s', pickletools order '%s'",
                     got, want_text);
        }
    }
    json_decref(clean);
    if (full) {
        torture(data, len);
        read_faults(ctx, data, len, rc);
    }
    free(data);
}

static void check_archive(npyg_ctx *ctx, const char *path, const json_t *members_by_name, bool is_list,
                          const json_t *member_errors)
{
    tu_current = path;
    int fd = open(path, O_RDONLY);
    TU_CHECK(fd >= 0, "open");
    if (fd < 0) return;
    npyg_zip *z = NULL;
    npyg_set_input_fd(ctx, fd);
    int rc = npyg_zip_open(ctx, NULL, &z);
    TU_CHECK(rc == 0, "open archive: %s", npyg_error_name(rc));
    size_t seen = 0;
    for (size_t i = 0; z && i < npyg_zip_count(z); i++) {
        const npyg_zip_entry *m = npyg_zip_member(z, i);
        const json_t *want = NULL;
        if (is_list) {
            size_t k;
            const json_t *e;
            json_array_foreach(members_by_name, k, e)
                if (strcmp(json_string_value(json_object_get(e, "name")), m->name) == 0)
                    want = json_object_get(e, "pickle_imports");
        } else {
            want = json_object_get(members_by_name, m->name);
        }
        const char *err = json_string_value(json_object_get(member_errors, m->name));
        if (err) {
            /* The member's own error (what zipfile's zlib.error is to
               npyguard), never a bare read error. */
            seen++;
            npyg_pickle_report *r = NULL;
            rc = npyg_zip_scan_member_pickle(z, i, NULL, &r);
            TU_CHECK(rc == tu_code_of(err), "member %s: %s, expected %s", m->name, npyg_error_name(rc), err);
            TU_CHECK(!r || r->status == rc, "member %s: report status %d", m->name, r ? r->status : 0);
            npyg_pickle_report_free(ctx, r);
            continue;
        }
        if (!want) continue;
        seen++;
        TU_CHECK(npyg_zip_validate_member(z, i) == NPYG_EOBJECT, "member %s is not refused as object", m->name);
        npyg_pickle_report *r = NULL;
        rc = npyg_zip_scan_member_pickle(z, i, NULL, &r);
        TU_CHECK(rc == 0 && r, "member %s: %s (%s)", m->name, npyg_error_name(rc), npyg_last_error(ctx)->message);
        if (r) check_list(m->name, want, names_of(r, 0));
        npyg_pickle_report_free(ctx, r);
    }
    TU_CHECK(seen > 0, "no object member");
    npyg_zip_close(z);
    close(fd);
}

/* Each limit stops the scan with its own code, and the report holds what
   came before. Expected: the limit's definition in npyguard.h. */
static void limits(npyg_ctx *ctx)
{
    char path[4096];
    size_t len;
    unsigned char *data = tu_read_as("limits on stdlib-p4.npy", corpus, "pickle/stdlib-p4.npy", path, &len);
    if (!data) return;
    struct { const char *what; int code; npyg_pickle_limits l; } cases[6];
    for (int i = 0; i < 6; i++) npyg_pickle_limits_default(&cases[i].l);
    cases[0].what = "max_bytes 40"; cases[0].code = NPYG_ELIMIT_PICKLE_BYTES; cases[0].l.max_bytes = 40;
    cases[1].what = "max_ops 10"; cases[1].code = NPYG_ELIMIT_PICKLE_OPS; cases[1].l.max_ops = 10;
    cases[2].what = "max_memo 3"; cases[2].code = NPYG_ELIMIT_PICKLE_MEMO; cases[2].l.max_memo = 3;
    cases[3].what = "max_stack 4"; cases[3].code = NPYG_ELIMIT_PICKLE_STACK; cases[3].l.max_stack = 4;
    cases[4].what = "max_string_bytes 20"; cases[4].code = NPYG_ELIMIT_PICKLE_STRINGS; cases[4].l.max_string_bytes = 20;
    cases[5].what = "max_imports 2"; cases[5].code = NPYG_ELIMIT_PICKLE_IMPORTS; cases[5].l.max_imports = 2;
    for (int i = 0; i < 6; i++) {
        tu_current = cases[i].what;
        const npyg_pickle_report *r = NULL;
        int rc = scan_three_ways(ctx, path, data, len, &cases[i].l, &r);
        TU_CHECK(rc == cases[i].code, "%s, expected %s", npyg_error_name(rc), npyg_error_name(cases[i].code));
        TU_CHECK(strcmp(npyg_error_class(rc), "limit") == 0, "class %s", npyg_error_class(rc));
        TU_CHECK(r && r->status == rc, "report status");
        if (i == 5) TU_CHECK(r && r->nimports == 2, "imports before the limit");
        /* The bound holds under small limits too (arrays never outgrow them). */
        long calls;
        scan_within_bound(data, len, &cases[i].l, 5, &calls);
    }
    npyg_pickle_limits bad;
    npyg_pickle_limits_default(&bad);
    bad.max_imports = 0;
    tu_current = "invalid limits";
    npyg_set_input_buffer(ctx, data, len);
    TU_CHECK(npyg_pickle_scan_npy(ctx, &bad) == NPYG_EINVAL && npyg_get_pickle_report(ctx) == NULL, "max_imports 0");
    TU_CHECK(npyg_pickle_worst_case_alloc(&bad) == 0, "bound of invalid limits");
    TU_CHECK(npyg_pickle_worst_case_alloc(NULL) < NPYG_DEFAULT_MAX_ALLOC_BYTES,
             "the default scan fits the default max_alloc_bytes");
    free(data);
}

/* A callback that hands out more bytes than it was asked for breaks the
   read contract: an I/O error, whatever it wrote. */
typedef struct liar {
    const unsigned char *p;
    size_t len, pos, lie_at;
} liar;

static long long lying_read(void *user, void *buf, size_t n)
{
    liar *l = user;
    size_t k = l->len - l->pos < n ? l->len - l->pos : n;
    memcpy(buf, l->p + l->pos, k);
    l->pos += k;
    return l->pos > l->lie_at ? (long long)n + 1 : (long long)k;
}

/* The entry points' documented refusals (npyguard.h): NPYG_EINVAL for a
   missing argument or invalid limits, NPYG_EIO for a descriptor that
   cannot be read, NPYG_ENOTREG for one that is neither a file, a pipe
   nor a socket; and a pipe and a socket scan as the file does. */
static void api(npyg_ctx *ctx)
{
    char path[4096];
    size_t len;
    unsigned char *data = tu_read_as("api", corpus, "pickle/os-system-p2.npy", path, &len);
    if (!data) return;
    const npyg_pickle_report *r;

    /* Each limit at 0, and each capped one past its cap. */
    for (int k = 0; k < 11; k++) {
        npyg_pickle_limits l;
        npyg_pickle_limits_default(&l);
        switch (k) {
        case 0: l.max_bytes = 0; break;
        case 1: l.max_ops = 0; break;
        case 2: l.max_memo = 0; break;
        case 3: l.max_memo = NPYG_PICKLE_MAX_MEMO_CAP + 1; break;
        case 4: l.max_stack = 0; break;
        case 5: l.max_stack = NPYG_PICKLE_MAX_STACK_CAP + 1; break;
        case 6: l.max_string_bytes = 0; break;
        case 7: l.max_string_bytes = NPYG_PICKLE_MAX_STRING_BYTES_CAP + 1; break;
        case 8: l.max_imports = 0; break;
        case 9: l.max_imports = NPYG_PICKLE_MAX_IMPORTS_CAP + 1; break;
        case 10: l.max_imports = NPYG_PICKLE_MAX_IMPORTS_CAP; break; /* the cap itself is valid */
        }
        npyg_set_input_buffer(ctx, data, len);
        int rc = npyg_pickle_scan_npy(ctx, &l);
        r = npyg_get_pickle_report(ctx);
        if (k == 10) TU_CHECK(rc == 0 && r != NULL, "limits at their caps: %s", npyg_error_name(rc));
        else TU_CHECK(rc == NPYG_EINVAL && r == NULL, "invalid limits %d: %s", k, npyg_error_name(rc));
        TU_CHECK((npyg_pickle_worst_case_alloc(&l) == 0) == (k != 10), "bound of limits %d", k);
    }

    static const char stop[] = "N.";
    TU_CHECK(npyg_pickle_scan(NULL, NULL) == NPYG_EINVAL && npyg_pickle_scan_npy(NULL, NULL) == NPYG_EINVAL &&
                 npyg_get_pickle_report(NULL) == NULL,
             "NULL ctx");
    /* Each bad input: its code from the scan, and no report. */
    npyg_set_input_buffer(ctx, stop, 2);
    TU_CHECK(npyg_pickle_scan(ctx, NULL) == 0 && (r = npyg_get_pickle_report(ctx)) && r->length == 2, "N.");
    npyg_set_input_buffer(ctx, NULL, 2);
    TU_CHECK(npyg_pickle_scan(ctx, NULL) == NPYG_EINVAL && !npyg_get_pickle_report(ctx), "NULL buffer");
    npyg_set_input_buffer(ctx, NULL, 0);
    TU_CHECK(npyg_pickle_scan(ctx, NULL) == NPYG_EPICKLE_TRUNC && (r = npyg_get_pickle_report(ctx)) && r->length == 0,
             "NULL empty buffer: a pickle without STOP");
    npyg_set_input_read(ctx, NULL, NULL);
    TU_CHECK(npyg_pickle_scan(ctx, NULL) == NPYG_EINVAL && !npyg_get_pickle_report(ctx), "NULL callback");
    npyg_set_input_buffer(ctx, NULL, 2);
    TU_CHECK(npyg_pickle_scan_npy(ctx, NULL) == NPYG_EINVAL && !npyg_get_pickle_report(ctx), "npy: NULL buffer");
    npyg_set_input_buffer(ctx, NULL, 0);
    TU_CHECK(npyg_pickle_scan_npy(ctx, NULL) == NPYG_ETRUNC_PREAMBLE && !npyg_get_pickle_report(ctx),
             "npy: NULL empty buffer: ends before the preamble");
    npyg_set_input_read(ctx, NULL, NULL);
    TU_CHECK(npyg_pickle_scan_npy(ctx, NULL) == NPYG_EINVAL && !npyg_get_pickle_report(ctx), "npy: NULL callback");
    npyg_set_input_fd(ctx, -1);
    TU_CHECK(npyg_pickle_scan_npy(ctx, NULL) == NPYG_EIO && !npyg_get_pickle_report(ctx), "fd -1");
    int fd = open(path, O_RDONLY);
    close(fd);
    npyg_set_input_fd(ctx, fd);
    TU_CHECK(npyg_pickle_scan_npy(ctx, NULL) == NPYG_EIO && !npyg_get_pickle_report(ctx), "a closed descriptor");
    fd = open("/dev/null", O_RDONLY);
    npyg_set_input_fd(ctx, fd);
    TU_CHECK(npyg_pickle_scan_npy(ctx, NULL) == NPYG_ENOTREG && !npyg_get_pickle_report(ctx), "a character device");
    close(fd);
    TU_CHECK(npyg_pickle_format_imports(NULL, NULL, 0) == 0, "no report, no text");

    /* The file through a pipe and through a socket: the same imports. */
    npyg_set_input_buffer(ctx, data, len);
    TU_CHECK(npyg_pickle_scan_npy(ctx, NULL) == 0 && npyg_get_pickle_report(ctx), "buffer");
    char wtext[256] = "", gtext[256] = "";
    npyg_pickle_format_imports(npyg_get_pickle_report(ctx), wtext, sizeof wtext);
    for (int kind = 0; kind < 2; kind++) {
        int p[2];
        int ok = kind == 0 ? pipe(p) : socketpair(AF_UNIX, SOCK_STREAM, 0, p);
        TU_CHECK(ok == 0, "%s", kind ? "socketpair" : "pipe");
        if (ok) continue;
        TU_CHECK(len < 60000 && write(p[1], data, len) == (ssize_t)len, "write");
        close(p[1]);
        npyg_set_input_fd(ctx, p[0]);
        int rc = npyg_pickle_scan_npy(ctx, NULL);
        r = npyg_get_pickle_report(ctx);
        gtext[0] = 0;
        if (r) npyg_pickle_format_imports(r, gtext, sizeof gtext);
        TU_CHECK(rc == 0 && r && strcmp(gtext, wtext) == 0, "%s: %s, '%s' (buffer '%s')", kind ? "socket" : "pipe",
                 npyg_error_name(rc), gtext, wtext);
        close(p[0]);
    }

    /* A callback returning more than asked: in the preamble, in the
       header, in the pickle. */
    size_t at[] = {3, 20, len - 2};
    for (int k = 0; k < 3; k++) {
        liar l = {data, len, 0, at[k]};
        npyg_set_input_read(ctx, lying_read, &l);
        int rc = npyg_pickle_scan_npy(ctx, NULL);
        TU_CHECK(rc == NPYG_EIO, "a callback that returns more than asked, from byte %zu: %s", at[k],
                 npyg_error_name(rc));
    }
    free(data);
}

/* Names are hostile bytes: the formatted list escapes every control and
   non-ASCII byte (a GLOBAL naming "\x1b[2J" and "\xe2\x80\xae"). */
static void escaping(npyg_ctx *ctx)
{
    tu_current = "format escapes";
    static const char p[] = "c\x1b[2Jx\n\xe2\x80\xae\\y\n.";
    npyg_set_input_buffer(ctx, p, sizeof p - 1);
    int rc = npyg_pickle_scan(ctx, NULL);
    const npyg_pickle_report *r = npyg_get_pickle_report(ctx);
    TU_CHECK(rc == 0 && r && r->nimports == 1, "scan: %s", npyg_error_name(rc));
    char out[128];
    npyg_pickle_format_imports(r, out, sizeof out);
    TU_CHECK(strcmp(out, "\\x1b[2Jx.\\xe2\\x80\\xae\\x5cy") == 0, "got '%s'", out);
    char small[5];
    size_t need = npyg_pickle_format_imports(r, small, sizeof small);
    TU_CHECK(need == strlen("\\x1b[2Jx.\\xe2\\x80\\xae\\x5cy") && strcmp(small, "\\x1b") == 0, "cut: '%s' %zu", small,
             need);
}

static void error_table(void)
{
    tu_current = "error table";
    for (int c = NPYG_EPICKLE; c <= NPYG_ELIMIT_PICKLE_IMPORTS; c++) {
        TU_CHECK(strncmp(npyg_error_name(c), "NPYG_E", 6) == 0, "name of %d", c);
        TU_CHECK(strcmp(npyg_strerror(c), "unknown error code") != 0, "text of %d", c);
        const char *k = npyg_error_class(c);
        TU_CHECK(strcmp(k, c <= NPYG_EPICKLE_PROTO ? "pickle" : "limit") == 0, "class of %d: %s", c, k);
    }
    TU_CHECK(NPYG_EPICKLE == 140 && NPYG_ELIMIT_PICKLE_IMPORTS == 148, "renumbered");
}

int main(int argc, char **argv)
{
    if (tu_bad_args(argc, 2, "test_pickle CORPUSDIR")) return 2;
    corpus = argv[1];
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    error_table();

    char path[4096], dir[1024];
    int files = 0;
    /* 1. corpus/manifest.json: the unsafe .npy files */
    json_t *m = tu_load_manifest(corpus);
    const char *key;
    json_t *e;
    json_object_foreach(json_object_get(m, "files"), key, e) {
        if (!json_object_get(e, "pickle_imports")) continue;
        check_npy_entry(ctx, corpus, key, e, true);
        files++;
    }
    json_decref(m);
    /* 2. corpus/npz/manifest.json: object members */
    snprintf(dir, sizeof dir, "%s/npz", corpus);
    m = tu_load_manifest(dir);
    json_object_foreach(json_object_get(m, "files"), key, e) {
        char *text = json_dumps(e, JSON_COMPACT);
        bool has = text && strstr(text, "pickle_imports");
        free(text);
        if (!has) continue;
        snprintf(path, sizeof path, "%s/npz/%s", corpus, key);
        check_archive(ctx, path, json_object_get(e, "members"), true, NULL);
        files++;
    }
    json_decref(m);
    /* 3. corpus/pickle/manifest.json: every protocol and opcode family */
    snprintf(dir, sizeof dir, "%s/pickle", corpus);
    m = tu_load_manifest(dir);
    json_object_foreach(json_object_get(m, "files"), key, e) {
        check_npy_entry(ctx, dir, key, e, true);
        files++;
    }
    json_object_foreach(json_object_get(m, "archives"), key, e) {
        snprintf(path, sizeof path, "%s/%s", dir, key);
        check_archive(ctx, path, json_object_get(e, "members"), false, json_object_get(e, "member_errors"));
        files++;
    }
    json_decref(m);
    limits(ctx);
    escaping(ctx);
    api(ctx);
    npyg_ctx_free(ctx);
    TU_CHECK(files >= 60, "only %d files", files);
    printf("test_pickle: %d files, %d checks passed, %d failed\n", files, tu_passed, tu_failed);
    return tu_failed != 0;
}
