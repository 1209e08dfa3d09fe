/* SPDX-License-Identifier: BSD-3-Clause */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* memfd_create */
#endif
#include "fuzz_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

void npyg_fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("npyguard fuzz invariant violated: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fflush(stderr);
    abort();
}

uint64_t fuzz_hash(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t k = 0; k < n; k++) {
        h ^= s[k];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

uint32_t fuzz_rand(uint32_t *state)
{
    /* xorshift32; a zero state would stay zero */
    uint32_t x = *state ? *state : 0x9e3779b9u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return x;
}

/* ---------------- configuration trailer ---------------- */

static const uint64_t header_limits[8] = {0, 0, 0, 0, 16, 128, 1024, NPYG_MAX_HEADER_BYTES_CAP};
static const uint32_t dims_limits[4] = {0, 1, 3, 33};
static const uint32_t fields_limits[4] = {0, 1, 4, 64};
static const uint32_t depth_limits[4] = {0, 1, 3, NPYG_MAX_DEPTH_CAP};
static const uint64_t alloc_limits[8] = {0, 0, 0, 0, 4096, 20000, 70000, 1u << 20};
static const uint64_t payload_limits[4] = {0, 1, 64, 4096};

void fuzz_begin(const uint8_t *data, size_t size, const uint8_t **file,
                size_t *file_len, fuzz_config *cfg)
{
    fuzz_check_tables();
    uint32_t c = 0;
    if (size >= NPYG_FUZZ_TRAILER) {
        size -= NPYG_FUZZ_TRAILER;
        const uint8_t *t = data + size;
        c = (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24;
    }
    *file = data;
    *file_len = size;
    memset(cfg, 0, sizeof *cfg);
    cfg->raw = c;
    cfg->profile = (c & 1u) ? NPYG_PROFILE_STRICT : NPYG_PROFILE_NUMPY;
    npyg_limits *l = &cfg->limits;
    npyg_limits_default(l);
    if (header_limits[(c >> 1) & 7u]) l->max_header_bytes = header_limits[(c >> 1) & 7u];
    if (dims_limits[(c >> 4) & 3u]) l->max_dims = dims_limits[(c >> 4) & 3u];
    if (fields_limits[(c >> 6) & 3u]) l->max_fields = fields_limits[(c >> 6) & 3u];
    if (depth_limits[(c >> 8) & 3u]) l->max_depth = depth_limits[(c >> 8) & 3u];
    if (alloc_limits[(c >> 10) & 7u]) l->max_alloc_bytes = alloc_limits[(c >> 10) & 7u];
    /* slot 1 means a zero payload limit */
    if ((c >> 13) & 3u) l->max_payload_bytes = ((c >> 13) & 3u) == 1 ? 0 : payload_limits[(c >> 13) & 3u];
    cfg->sink = (c >> 15) & 1u;
    cfg->sink_fails = cfg->sink && ((c >> 16) & 1u);
    cfg->read_error = (c >> 17) & 1u;
    cfg->use_fd = (c >> 18) & 1u;
    cfg->fail_alloc = (c >> 19) & 7u;
    cfg->extra = (c >> 22) & 3u;
    cfg->seed = c >> 24 | 1u;
    cfg->sink_stop = (c >> 24) * 37u;
}

/* ---------------- counting allocator ---------------- */

/* Each block carries its size in front so that the size passed to free()
   can be checked against the one allocated. */
#define HDR 16u

static void *count_malloc(void *user, size_t size)
{
    fuzz_alloc *fa = user;
    fa->calls++;
    if (fa->fail_at && fa->calls == fa->fail_at) {
        fa->failed = true;
        return NULL;
    }
    FUZZ_CHECK(size > 0, "zero-byte allocation");
    FUZZ_CHECK(size <= fa->bound && fa->live_bytes <= fa->bound - size,
               "allocation bound exceeded: %llu live + %zu requested > npyg_worst_case_alloc %llu",
               (unsigned long long)fa->live_bytes, size, (unsigned long long)fa->bound);
    unsigned char *p = malloc(size + HDR);
    if (!p) return NULL;
    memcpy(p, &size, sizeof size);
    fa->live_bytes += size;
    fa->live_blocks++;
    if (fa->live_bytes > fa->peak) fa->peak = fa->live_bytes;
    return p + HDR;
}

static void count_free(void *user, void *ptr, size_t size)
{
    fuzz_alloc *fa = user;
    if (!ptr) return;
    unsigned char *p = (unsigned char *)ptr - HDR;
    size_t had;
    memcpy(&had, p, sizeof had);
    FUZZ_CHECK(had == size, "free() told %zu bytes for a block of %zu", size, had);
    FUZZ_CHECK(fa->live_blocks > 0 && fa->live_bytes >= size, "free of more than was allocated");
    fa->live_bytes -= size;
    fa->live_blocks--;
    free(p);
}

void fuzz_alloc_init(fuzz_alloc *fa, const npyg_limits *limits, uint32_t fail_at)
{
    memset(fa, 0, sizeof *fa);
    fa->alc.malloc = count_malloc;
    fa->alc.free = count_free;
    fa->alc.user = fa;
    fa->bound = npyg_worst_case_alloc(limits);
    FUZZ_CHECK(fa->bound > 0 && fa->bound <= limits->max_alloc_bytes,
               "npyg_worst_case_alloc %llu for max_alloc_bytes %llu",
               (unsigned long long)fa->bound, (unsigned long long)limits->max_alloc_bytes);
    fa->fail_at = fail_at;
}

npyg_ctx *fuzz_start(const fuzz_config *cfg, fuzz_alloc *fa, uint64_t bound)
{
    fuzz_alloc_init(fa, &cfg->limits, cfg->fail_alloc);
    if (bound) fa->bound = bound;
    npyg_options opt = {cfg->profile, &cfg->limits, &fa->alc, 0};
    npyg_ctx *ctx = npyg_ctx_new(&opt);
    if (!ctx) {
        FUZZ_CHECK(fa->failed, "npyg_ctx_new refused valid options");
        fuzz_alloc_check_empty(fa);
    }
    return ctx;
}

bool fuzz_refused(const fuzz_alloc *fa, bool failed_before, int rc, const char *what)
{
    if (!fa->failed || failed_before) return false;
    FUZZ_CHECK(rc == NPYG_ENOMEM, "allocation refused, but %s says %s", what, npyg_error_name(rc));
    return true;
}

void fuzz_alloc_check_empty(const fuzz_alloc *fa)
{
    FUZZ_CHECK(fa->live_blocks == 0 && fa->live_bytes == 0,
               "leak: %llu blocks, %llu bytes still allocated after npyg_ctx_free",
               (unsigned long long)fa->live_blocks, (unsigned long long)fa->live_bytes);
}

/* ---------------- invariants ---------------- */

/* NPYG_FUZZ_IGNORE=name[,name]: checks to skip, so that a long campaign can
   look past a finding already reported. Never set it in CI. Names:
   "message" (control characters in error messages). */
static bool fuzz_ignored(const char *name)
{
    static const char *list;
    static bool read;
    if (!read) {
        list = getenv("NPYG_FUZZ_IGNORE");
        read = true;
    }
    if (!list) return false;
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ',')) return true;
    return false;
}

static bool known_code(int rc)
{
    return rc >= 0 && rc < NPYG_STATUS_END_ && strcmp(npyg_error_name(rc), "?") != 0;
}

void fuzz_check_tables(void)
{
    static bool done;
    if (done) return;
    done = true;
    FUZZ_CHECK(npyg_version_string() && !strcmp(npyg_version_string(), NPYG_VERSION_STRING), "version string");
    for (int c = -2; c < NPYG_STATUS_END_ + 3; c++) {
        FUZZ_CHECK(npyg_strerror(c) && npyg_error_name(c) && npyg_error_class(c), "NULL string for code %d", c);
        if (known_code(c)) {
            const char *n = npyg_error_name(c);
            FUZZ_CHECK(!strncmp(n, "NPYG_", 5), "code %d named %s", c, n);
            FUZZ_CHECK(strcmp(npyg_error_class(c), "?") != 0, "code %d has no class", c);
        }
    }
    for (int set = NPYG_WARNINGS_NPY; set <= NPYG_WARNINGS_HDF5; set++)
        for (unsigned bit = 1; bit; bit <<= 1) {
            const npyg_warning_desc *w = npyg_warning_info((npyg_warning_set)set, bit);
            /* a named warning has its own bit and a text */
            FUZZ_CHECK(!w || (w->bit == bit && w->name && w->name[0] && w->text && w->text[0]),
                       "set %d warning %#x: row incomplete", set, bit);
        }
    FUZZ_CHECK(npyg_warning_info((npyg_warning_set)(NPYG_WARNINGS_HDF5 + 1), 1) == NULL, "a set past the last");
}

typedef struct walk {
    const npyg_limits *limits;
    uint64_t fields;
} walk;

static bool numeric_size(int kind, uint64_t n)
{
    switch (kind) {
    case NPYG_KIND_BOOL: return n == 1;
    case NPYG_KIND_INT: case NPYG_KIND_UINT: return n == 1 || n == 2 || n == 4 || n == 8;
    case NPYG_KIND_FLOAT: return n == 2 || n == 4 || n == 8 || n == 16;
    case NPYG_KIND_COMPLEX: return n == 8 || n == 16 || n == 32;
    default: return false;
    }
}

static void check_dtype(walk *w, const npyg_dtype *d, uint32_t depth)
{
    FUZZ_CHECK(d != NULL, "NULL dtype");
    FUZZ_CHECK(depth <= 2u * NPYG_MAX_DEPTH_CAP + 2u, "dtype tree deeper than any limit");
    FUZZ_CHECK(d->itemsize <= INT32_MAX, "itemsize %llu above INT32_MAX", (unsigned long long)d->itemsize);
    FUZZ_CHECK(d->byteorder == '<' || d->byteorder == '>' || d->byteorder == '|',
               "byteorder %#x", (unsigned)(unsigned char)d->byteorder);
    switch (d->kind) {
    case NPYG_KIND_BOOL: case NPYG_KIND_INT: case NPYG_KIND_UINT:
    case NPYG_KIND_FLOAT: case NPYG_KIND_COMPLEX:
        FUZZ_CHECK(numeric_size(d->kind, d->itemsize), "kind %c with itemsize %llu", d->kind,
                   (unsigned long long)d->itemsize);
        FUZZ_CHECK((d->itemsize == 1) == (d->byteorder == '|'), "byteorder %c on %c%llu",
                   d->byteorder, d->kind, (unsigned long long)d->itemsize);
        break;
    case NPYG_KIND_STR:
        FUZZ_CHECK(d->itemsize % 4 == 0, "U itemsize %llu", (unsigned long long)d->itemsize);
        FUZZ_CHECK(d->byteorder != '|', "U without byte order");
        break;
    case NPYG_KIND_BYTES: case NPYG_KIND_VOID:
        FUZZ_CHECK(d->byteorder == '|', "byteorder %c on %c", d->byteorder, d->kind);
        break;
    case NPYG_KIND_DATETIME: case NPYG_KIND_TIMEDELTA:
        FUZZ_CHECK(d->itemsize == 8 && d->byteorder != '|', "datetime itemsize/order");
        FUZZ_CHECK(d->unit <= NPYG_UNIT_as && d->unit_multiple >= 1 && d->unit_multiple <= INT32_MAX,
                   "datetime unit %d multiple %u", (int)d->unit, d->unit_multiple);
        FUZZ_CHECK(d->unit != NPYG_UNIT_GENERIC || d->unit_multiple == 1, "generic unit with a multiple");
        break;
    case NPYG_KIND_SUBARRAY: {
        FUZZ_CHECK(d->base && d->sub_ndim >= 1 && d->sub_shape, "subarray without base or shape");
        FUZZ_CHECK(d->sub_ndim <= w->limits->max_dims, "subarray ndim %u over max_dims", d->sub_ndim);
        check_dtype(w, d->base, depth + 1);
        /* A zero dim anywhere makes the item empty, whatever the others
           multiply to (numpy accepts (..., 10**10, 10**10, 0)). */
        bool empty = false;
        for (uint32_t k = 0; k < d->sub_ndim; k++) empty |= d->sub_shape[k] == 0;
        uint64_t n = empty ? 0 : d->base->itemsize;
        for (uint32_t k = 0; k < d->sub_ndim; k++) {
            FUZZ_CHECK(d->sub_shape[k] <= INT32_MAX, "subarray dim %llu", (unsigned long long)d->sub_shape[k]);
            FUZZ_CHECK(empty || n <= UINT64_MAX / d->sub_shape[k], "subarray size overflows");
            n *= d->sub_shape[k];
        }
        FUZZ_CHECK(n == d->itemsize, "subarray itemsize %llu != base %llu x product of shape",
                   (unsigned long long)d->itemsize, (unsigned long long)d->base->itemsize);
        break;
    }
    case NPYG_KIND_STRUCT: {
        FUZZ_CHECK(d->nfields == 0 || d->fields, "struct without fields array");
        w->fields += d->nfields;
        FUZZ_CHECK(w->fields <= w->limits->max_fields, "more fields than max_fields");
        uint64_t end = 0;
        for (uint32_t k = 0; k < d->nfields; k++) {
            const npyg_field *f = &d->fields[k];
            FUZZ_CHECK(f->name && f->name[f->name_len] == '\0', "field %u name not NUL-terminated", k);
            FUZZ_CHECK(!f->title || f->title[f->title_len] == '\0', "field %u title not NUL-terminated", k);
            FUZZ_CHECK(f->name_len > 0 || f->title || (f->type && f->type->kind != NPYG_KIND_VOID &&
                                                        f->type->kind != NPYG_KIND_SUBARRAY),
                       "field %u is a pad but is listed", k);
            check_dtype(w, f->type, depth + 1);
            FUZZ_CHECK(f->offset >= end, "field %u at %llu overlaps the previous one ending at %llu", k,
                       (unsigned long long)f->offset, (unsigned long long)end);
            end = f->offset + f->type->itemsize;
            FUZZ_CHECK(end <= d->itemsize, "field %u ends at %llu, past the record's %llu bytes", k,
                       (unsigned long long)end, (unsigned long long)d->itemsize);
        }
        break;
    }
    case NPYG_KIND_OBJECT:
        npyg_fuzz_fail("object dtype in a successful result");
    default:
        npyg_fuzz_fail("unknown kind %d", (int)d->kind);
    }
}

/* npyg_format_descr: terminates, snprintf semantics, same answer twice. */
static void check_format(const npyg_dtype *d, fuzz_result *out)
{
    size_t n = npyg_format_descr(d, NULL, 0);
    FUZZ_CHECK(n > 0 && n < (size_t)1 << 30, "npyg_format_descr length %zu", n);
    char *full = malloc(n + 1);
    FUZZ_CHECK(full != NULL, "out of memory in the harness");
    memset(full, 'X', n + 1);
    FUZZ_CHECK(npyg_format_descr(d, full, n + 1) == n, "format length changed between calls");
    FUZZ_CHECK(full[n] == '\0' && strlen(full) == n, "formatted descr not terminated at its length");
    /* cut short: same return value, a NUL-terminated prefix */
    size_t cut = n / 2 + 1;
    char small[64];
    if (cut > sizeof small) cut = sizeof small;
    memset(small, 'X', sizeof small);
    FUZZ_CHECK(npyg_format_descr(d, small, cut) == n, "format length depends on the buffer size");
    FUZZ_CHECK(small[cut - 1] == '\0' && !memcmp(small, full, cut - 1), "truncated format is not a prefix");
    out->descr_len = n;
    size_t keep = n < sizeof out->descr - 1 ? n : sizeof out->descr - 1;
    memcpy(out->descr, full, keep);
    out->descr[keep] = '\0';
    free(full);
}

void fuzz_check_error(const npyg_ctx *ctx, int rc, uint64_t max_offset)
{
    FUZZ_CHECK(rc >= 0 && strcmp(npyg_error_name(rc), "?") != 0, "result %d has no name", rc);
    FUZZ_CHECK(npyg_strerror(rc) && npyg_error_name(rc) && npyg_error_class(rc), "NULL error string");
    const npyg_error *e = npyg_last_error(ctx);
    FUZZ_CHECK(e != NULL, "npyg_last_error returned NULL");
    FUZZ_CHECK(memchr(e->message, '\0', sizeof e->message) != NULL, "error message not terminated");
    FUZZ_CHECK(e->code == rc, "npyg_last_error code %d but the call returned %d", e->code, rc);
    if (!rc) return;
    FUZZ_CHECK(e->message[0] != '\0', "%s with an empty message", npyg_error_name(rc));
    /* One line, and nothing from the file that a terminal would act on:
       the library writes every control character as \xNN, tab included. */
    for (const char *m = e->message; *m && !fuzz_ignored("message"); m++)
        FUZZ_CHECK((unsigned char)*m >= 0x20 && *m != 0x7f, "control character %#x in the message of %s: %s",
                   (unsigned)(unsigned char)*m, npyg_error_name(rc), e->message);
    FUZZ_CHECK(strcmp(npyg_offset_space_name(e->offset_space), "?") != 0, "%s in offset space %d",
               npyg_error_name(rc), e->offset_space);
    FUZZ_CHECK(e->offset <= max_offset, "%s at offset %llu, past the input's %llu bytes",
               npyg_error_name(rc), (unsigned long long)e->offset, (unsigned long long)max_offset);
}

void fuzz_check_result(const npyg_ctx *ctx, int rc, enum fuzz_call call,
                       uint64_t input_len, const fuzz_config *cfg,
                       const npyg_limits *limits, fuzz_result *out)
{
    memset(out, 0, sizeof *out);
    out->rc = rc;
    FUZZ_CHECK(known_code(rc), "result %d is not in the code table", rc);
    fuzz_check_error(ctx, rc, input_len);
    out->err = *npyg_last_error(ctx);
    const npyg_info *in = npyg_get_info(ctx);
    FUZZ_CHECK((rc == 0) == (in != NULL), "npyg_get_info %s after result %d", in ? "set" : "NULL", rc);
    if (!in) return;
    out->have_info = true;
    out->info = *in;

    FUZZ_CHECK(in->version_major >= 1 && in->version_major <= 3 && in->version_minor == 0,
               "version %d.%d", in->version_major, in->version_minor);
    uint64_t pre = in->version_major == 1 ? 10 : 12;
    FUZZ_CHECK(in->data_offset == pre + in->header_len, "data_offset %llu != preamble %llu + header_len %u",
               (unsigned long long)in->data_offset, (unsigned long long)pre, in->header_len);
    FUZZ_CHECK(in->header_len <= limits->max_header_bytes, "header_len over max_header_bytes");
    FUZZ_CHECK(in->data_offset <= input_len, "data_offset past the input");
    FUZZ_CHECK(in->fortran_order == 0 || in->fortran_order == 1, "fortran_order %d", in->fortran_order);
    FUZZ_CHECK((in->warnings & ~((NPYG_W_LATIN1 << 1) - 1u)) == 0, "unknown warning bits %#x", in->warnings);
    for (unsigned bit = 1; bit <= NPYG_W_LATIN1; bit <<= 1)
        if (in->warnings & bit)
            FUZZ_CHECK(npyg_warning_info(NPYG_WARNINGS_NPY, bit) != NULL, "warning %#x has no name", bit);

    walk w = {limits, 0};
    check_dtype(&w, in->dtype, 0);
    FUZZ_CHECK(in->dtype->kind != NPYG_KIND_SUBARRAY, "top-level subarray dtype");

    FUZZ_CHECK(in->ndim <= limits->max_dims, "ndim %u over max_dims %u", in->ndim, limits->max_dims);
    FUZZ_CHECK(in->ndim == 0 || in->shape, "shape NULL with ndim %u", in->ndim);
    uint64_t count = 1, sh = FUZZ_HASH_INIT;
    bool zero = false;
    for (uint32_t k = 0; k < in->ndim; k++) {
        uint64_t dim = in->shape[k];
        FUZZ_CHECK(dim <= (uint64_t)INT64_MAX, "dimension %llu", (unsigned long long)dim);
        if (dim == 0) zero = true;
        else if (!zero) {
            FUZZ_CHECK(count <= UINT64_MAX / dim, "count overflows but was accepted");
            count *= dim;
        }
        sh = fuzz_hash(sh, &dim, sizeof dim);
    }
    if (zero) count = 0;
    out->shape_hash = sh;
    FUZZ_CHECK(in->count == count, "count %llu != product of shape %llu", (unsigned long long)in->count,
               (unsigned long long)count);
    FUZZ_CHECK(in->dtype->itemsize == 0 || in->count <= UINT64_MAX / in->dtype->itemsize,
               "itemsize x count overflows");
    FUZZ_CHECK(in->payload_bytes == in->count * in->dtype->itemsize,
               "payload_bytes %llu != itemsize %llu x count %llu", (unsigned long long)in->payload_bytes,
               (unsigned long long)in->dtype->itemsize, (unsigned long long)in->count);
    FUZZ_CHECK(in->payload_bytes <= limits->max_payload_bytes, "payload over max_payload_bytes");

    if (call == CALL_VALIDATE) {
        FUZZ_CHECK(in->data_offset + in->payload_bytes + in->trailing_bytes == input_len,
                   "data_offset %llu + payload %llu + trailing %llu != file size %llu",
                   (unsigned long long)in->data_offset, (unsigned long long)in->payload_bytes,
                   (unsigned long long)in->trailing_bytes, (unsigned long long)input_len);
        FUZZ_CHECK((in->trailing_bytes != 0) == ((in->warnings & NPYG_W_TRAILING) != 0),
                   "trailing_bytes %llu but warning bit %d", (unsigned long long)in->trailing_bytes,
                   (in->warnings & NPYG_W_TRAILING) != 0);
    } else {
        FUZZ_CHECK(in->trailing_bytes == 0 && !(in->warnings & NPYG_W_TRAILING),
                   "trailing bytes reported by a header-only parse");
    }
    if (cfg->profile == NPYG_PROFILE_STRICT) {
        FUZZ_CHECK(in->data_offset % 64 == 0, "strict profile accepted data offset %llu",
                   (unsigned long long)in->data_offset);
        FUZZ_CHECK(!(in->warnings & (NPYG_W_TRAILING | NPYG_W_ALIGN | NPYG_W_LEGACY_ALIGN | NPYG_W_NONCANON)),
                   "strict profile accepted with warnings %#x", in->warnings);
    }
    FUZZ_CHECK(!(in->warnings & NPYG_W_ALIGN) || in->data_offset % 16 != 0, "W_ALIGN on a 16-aligned offset");
    FUZZ_CHECK(!(in->warnings & NPYG_W_LEGACY_ALIGN) || (in->data_offset % 16 == 0 && in->data_offset % 64 != 0),
               "W_LEGACY_ALIGN on offset %llu", (unsigned long long)in->data_offset);
    FUZZ_CHECK(((in->warnings & NPYG_W_DIMS_OVER_32) != 0) == (in->ndim > 32), "W_DIMS_OVER_32 with %u dims",
               in->ndim);
    FUZZ_CHECK(((in->warnings & NPYG_W_ZERO_ITEMSIZE) != 0) == (in->dtype->itemsize == 0),
               "W_ZERO_ITEMSIZE with itemsize %llu", (unsigned long long)in->dtype->itemsize);
    if (in->version_major == 3)
        FUZZ_CHECK(!(in->warnings & (NPYG_W_PY2LONG | NPYG_W_LATIN1)), "v1/v2 warning on a v3 file");
    out->itemsize = in->dtype->itemsize;
    check_format(in->dtype, out);
}

void fuzz_same_info(const fuzz_result *a, const fuzz_result *b, bool payload, const char *what)
{
    const npyg_info *x = &a->info, *y = &b->info;
    FUZZ_CHECK(a->have_info && b->have_info, "%s: missing info", what);
    FUZZ_CHECK(x->version_major == y->version_major && x->header_len == y->header_len &&
                   x->data_offset == y->data_offset,
               "%s: framing differs", what);
    FUZZ_CHECK(x->ndim == y->ndim && a->shape_hash == b->shape_hash && x->count == y->count &&
                   x->payload_bytes == y->payload_bytes && x->fortran_order == y->fortran_order,
               "%s: shape differs", what);
    FUZZ_CHECK(a->descr_len == b->descr_len && !strcmp(a->descr, b->descr), "%s: descr '%s' vs '%s'", what,
               a->descr, b->descr);
    FUZZ_CHECK(a->itemsize == b->itemsize, "%s: itemsize differs", what);
    if (payload) {
        FUZZ_CHECK(x->warnings == y->warnings, "%s: warnings %#x vs %#x", what, x->warnings, y->warnings);
        FUZZ_CHECK(x->trailing_bytes == y->trailing_bytes, "%s: trailing %llu vs %llu", what,
                   (unsigned long long)x->trailing_bytes, (unsigned long long)y->trailing_bytes);
    } else {
        unsigned mask = ~(unsigned)NPYG_W_TRAILING;
        FUZZ_CHECK((x->warnings & mask) == (y->warnings & mask), "%s: header warnings %#x vs %#x", what,
                   x->warnings, y->warnings);
    }
}

void fuzz_reader_init(fuzz_reader *r, const uint8_t *p, size_t len, const fuzz_config *cfg, fuzz_chunk_fn chunk)
{
    *r = (fuzz_reader){.p = p, .len = len, .rng = cfg->seed, .chunk = chunk, .fail = cfg->read_error};
    if (r->fail) r->fail_at = len ? (size_t)(cfg->seed % (len + 1u)) : 0;
}

long long fuzz_read_cb(void *user, void *buf, size_t len)
{
    fuzz_reader *r = user;
    FUZZ_CHECK(buf != NULL && len > 0, "read callback asked for %zu bytes", len);
    if (r->fail && !r->failed && r->pos >= r->fail_at) {
        r->failed = true;
        return -1;
    }
    size_t n = r->chunk(fuzz_rand(&r->rng), len);
    if (n > len) n = len;
    if (n > r->len - r->pos) n = r->len - r->pos;
    memcpy(buf, r->p + r->pos, n);
    r->pos += n;
    return (long long)n;
}

void fuzz_sink_reset(fuzz_sink *s, const fuzz_config *cfg)
{
    memset(s, 0, sizeof *s);
    s->hash = FUZZ_HASH_INIT;
    s->fails = cfg->sink_fails;
    s->stop = cfg->sink_stop;
}

int fuzz_sink_cb(void *user, const void *data, size_t len)
{
    fuzz_sink *s = user;
    FUZZ_CHECK(data != NULL && len > 0 && len <= 64u * 1024u, "sink given %zu bytes", len);
    FUZZ_CHECK(!s->refused, "sink called again after it refused");
    s->calls++;
    s->hash = fuzz_hash(s->hash, data, len);
    s->bytes += len;
    if (s->fails && s->bytes >= s->stop) {
        s->refused = true;
        return 1;
    }
    return 0;
}

int fuzz_memfd(const fuzz_config *cfg, const uint8_t *p, size_t len, size_t *skip_out)
{
    size_t skip = *skip_out = cfg->extra;
    if (!cfg->use_fd) return -1;
#if defined(__linux__)
    static const uint8_t junk[3] = {'x', 'y', 'z'}; /* cfg->extra is at most 3 */
    if (skip > sizeof junk) return -1;
    int fd = memfd_create("npyg-fuzz", MFD_CLOEXEC);
    if (fd < 0) return -1;
    bool ok = !skip || write(fd, junk, skip) == (ssize_t)skip;
    for (size_t off = 0; ok && off < len;) {
        ssize_t w = write(fd, p + off, len - off);
        if (w <= 0) ok = false;
        else off += (size_t)w;
    }
    if (ok && lseek(fd, (off_t)skip, SEEK_SET) == (off_t)skip) return fd;
    close(fd);
#else
    (void)p;
    (void)len;
    (void)skip;
#endif
    return -1;
}
