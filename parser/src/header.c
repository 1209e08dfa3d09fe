/*
 * The header dict: exactly the keys descr, fortran_order and shape, checked
 * in numpy's order (shape type, fortran_order, descr), then what numpy only
 * finds at load time (bool, negative and oversized dimensions, sizes that
 * overflow), all before a payload byte is read.
 */
#include "internal.h"

#include <string.h>

static NPYG__PRINTF(4, 5) int hfail(npyg_ctx *ctx, int code, const npyg__value *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = npyg__vfail(ctx, code, ctx->base + (at ? at->offset : 0), fmt, ap);
    va_end(ap);
    return rc;
}

static int check_keys(npyg_ctx *ctx, const npyg__value *dict, const npyg__value *vals[3], unsigned *warnings)
{
    static const char *const keys[3] = {"descr", "fortran_order", "shape"};
    for (const npyg__value *k = dict->child; k; k = k->next->next) {
        int which = -1;
        if (k->type == V_STR)
            for (int j = 0; j < 3; j++)
                if (k->len == strlen(keys[j]) && !memcmp(k->s, keys[j], k->len)) which = j;
        if (which < 0) {
            if (k->type == V_STR)
                return hfail(ctx, NPYG_EKEYS, k, "unexpected key '%s'", k->s);
            return hfail(ctx, NPYG_EKEYS, k, "%s", "keys must be the strings 'descr', 'fortran_order', 'shape'");
        }
        if (vals[which]) *warnings |= NPYG_W_DUPLICATE_KEY;
        vals[which] = k->next; /* the last one wins, as in Python */
    }
    for (int j = 0; j < 3; j++)
        if (!vals[j]) return hfail(ctx, NPYG_EKEYS, dict, "missing key '%s'", keys[j]);
    return 0;
}

static int check_shape_type(npyg_ctx *ctx, const npyg__value *shape)
{
    if (shape->type != V_TUPLE)
        return hfail(ctx, NPYG_ESHAPE, shape, "%s", "not a tuple");
    for (const npyg__value *x = shape->child; x; x = x->next)
        if (x->type != V_INT && x->type != V_BOOL) /* bool is an int to isinstance */
            return hfail(ctx, NPYG_ESHAPE, x, "%s", "element is not an int");
    return 0;
}

static int fill_shape(npyg_ctx *ctx, const npyg__value *shape, npyg_info *info)
{
    uint32_t nd = shape->count;
    if (nd > ctx->limits.max_dims)
        return hfail(ctx, NPYG_ELIMIT_DIMS, shape, "%s", "more dimensions than max_dims");
    if (nd > 32) info->warnings |= NPYG_W_DIMS_OVER_32;
    uint64_t *dims = NULL;
    if (nd) {
        dims = npyg__arena_alloc(&ctx->arena, sizeof *dims * nd);
        if (!dims) return npyg__nomem(ctx, ctx->base + shape->offset);
    }
    uint64_t count = 1;
    /* numpy's own check: itemsize times the non-zero dims must fit in
       intp, even when another dim is zero. */
    uint64_t nbytes = info->dtype->itemsize ? info->dtype->itemsize : 1;
    bool overflow = false;
    const npyg__value *x = shape->child;
    for (uint32_t k = 0; k < nd; k++, x = x->next) {
        if (x->type == V_BOOL)
            return hfail(ctx, NPYG_EDIM, x, "%s", "a bool is not a dimension");
        if (x->negative && x->u != 0)
            return hfail(ctx, NPYG_EDIM, x, "%s", "negative dimension");
        if (x->big || x->u > (uint64_t)INT64_MAX)
            return hfail(ctx, NPYG_EDIM, x, "%s", "dimension larger than 2**63-1");
        dims[k] = x->u;
        if (x->u && (!npyg__mul_u64(nbytes, x->u, &nbytes) || nbytes > (uint64_t)INT64_MAX))
            overflow = true;
        if (!npyg__mul_u64(count, x->u, &count)) overflow = true;
    }
    if (overflow)
        return hfail(ctx, NPYG_EOVERFLOW, shape, "%s", "array size in bytes overflows 2**63-1");
    info->ndim = nd;
    info->shape = dims;
    info->count = count;
    info->payload_bytes = count * info->dtype->itemsize; /* bounded by nbytes */
    if (info->payload_bytes > ctx->limits.max_payload_bytes)
        return hfail(ctx, NPYG_ELIMIT_PAYLOAD, shape, "%s", "larger than max_payload_bytes");
    return 0;
}

int npyg__parse_header_text(npyg_ctx *ctx, const char *text, size_t len)
{
    npyg_info *info = &ctx->info;
    const unsigned char *u = (const unsigned char *)text;
    bool v3 = info->version_major == 3;
    if (v3) {
        size_t bad;
        if (npyg__utf8_check(u, len, &bad))
            return npyg__fail(ctx, NPYG_EUTF8, ctx->base + bad, "invalid UTF-8 in a version 3.0 header");
    }
    const void *nul = memchr(text, '\0', len);
    if (nul)
        return npyg__fail(ctx, NPYG_ENUL, ctx->base + (uint64_t)((const char *)nul - text),
                          "NUL byte in the header");
    if (!v3) {
        uint64_t any = 0; /* the high bits of every byte, a word at a time */
        size_t k = 0;
        for (uint64_t w; k + 8 <= len; k += 8) {
            memcpy(&w, u + k, 8);
            any |= w;
        }
        for (; k < len; k++) any |= u[k];
        if (any & UINT64_C(0x8080808080808080)) info->warnings |= NPYG_W_LATIN1;
    }

    npyg__lit_opts opts = {.allow_py2long = !v3, .latin1 = !v3};
    npyg__value *top = npyg__parse_writer_form(ctx, text, len);
    if (!top && ctx->err.code) return ctx->err.code;
    int rc = top ? 0 : npyg__parse_literal(ctx, text, len, &opts, &top, &info->warnings);
    if (rc) return rc;
    if (top->type != V_DICT) return hfail(ctx, NPYG_ENOTDICT, top, "%s", "not a dict");

    const npyg__value *vals[3] = {NULL, NULL, NULL};
    rc = check_keys(ctx, top, vals, &info->warnings);
    if (rc) return rc;
    const npyg__value *descr = vals[0], *fortran = vals[1], *shape = vals[2];
    rc = check_shape_type(ctx, shape);
    if (rc) return rc;
    if (fortran->type != V_BOOL)
        return hfail(ctx, NPYG_EFORTRAN, fortran, "%s", "fortran_order is not a bool");
    info->fortran_order = fortran->u != 0;
    rc = npyg__build_dtype(ctx, descr, &info->dtype, &info->warnings);
    if (rc) return rc;
    rc = fill_shape(ctx, shape, info);
    if (rc) return rc;
    if (descr->type == V_TUPLE) {
        /* numpy folds a top-level subarray into the array; the reshape to
           'shape' then works only for one element per item, or none. */
        uint64_t elems = 1;
        const npyg_dtype *d = info->dtype;
        for (uint32_t k = 0; d->kind == NPYG_KIND_SUBARRAY && k < d->sub_ndim; k++) elems *= d->sub_shape[k];
        if (elems != 1 && info->count != 0)
            return hfail(ctx, NPYG_EDESCR, descr, "%s", "a subarray dtype does not fit the array's shape");
        return hfail(ctx, NPYG_EUNSUPPORTED, descr, "%s", "a tuple descr at the top level is not supported");
    }
    return 0;
}

/* ---------------- writing back, the way numpy's writer does ---------------- */

typedef struct sbuf {
    char *p;
    size_t size, len;
} sbuf;

static void put(sbuf *b, const char *s, size_t n)
{
    for (size_t k = 0; k < n; k++, b->len++)
        if (b->len + 1 < b->size) b->p[b->len] = s[k];
}

static void puts_(sbuf *b, const char *s) { put(b, s, strlen(s)); }

static void put_u64(sbuf *b, uint64_t v)
{
    char tmp[24];
    size_t n = 0;
    do tmp[n++] = (char)('0' + v % 10); while ((v /= 10) != 0);
    while (n) put(b, &tmp[--n], 1);
}

/* Python's repr() of a str. Non-ASCII characters are taken as printable
   except the C1 controls, U+00A0, U+00AD and the line/paragraph separators,
   which covers every name numpy writes in practice. */
static void put_repr(sbuf *b, const char *s, size_t n)
{
    bool sq = memchr(s, '\'', n) != NULL, dq = memchr(s, '"', n) != NULL;
    char q = sq && !dq ? '"' : '\'';
    put(b, &q, 1);
    static const char hex[] = "0123456789abcdef";
    for (size_t k = 0; k < n;) {
        unsigned char c = (unsigned char)s[k];
        if (c < 0x80) {
            char esc[4] = {'\\', 0, 0, 0};
            if (c == '\\' || c == (unsigned char)q) { esc[1] = (char)c; put(b, esc, 2); }
            else if (c == '\n') put(b, "\\n", 2);
            else if (c == '\r') put(b, "\\r", 2);
            else if (c == '\t') put(b, "\\t", 2);
            else if (c < 0x20 || c == 0x7f) {
                esc[1] = 'x'; esc[2] = hex[c >> 4]; esc[3] = hex[c & 15];
                put(b, esc, 4);
            } else put(b, (const char *)&c, 1);
            k++;
            continue;
        }
        size_t cl = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        if (k + cl > n) cl = n - k;
        uint32_t cp = c & (0xFF >> (cl + 1));
        for (size_t j = 1; j < cl; j++) cp = (cp << 6) | ((unsigned char)s[k + j] & 0x3F);
        if (cp <= 0xA0 || cp == 0xAD) {
            char esc[4] = {'\\', 'x', hex[(cp >> 4) & 15], hex[cp & 15]};
            put(b, esc, 4);
        } else if (cp == 0x2028 || cp == 0x2029) {
            char esc[6] = {'\\', 'u', '2', '0', '2', (char)('0' + (cp & 15))};
            put(b, esc, 6);
        } else put(b, s + k, cl);
        k += cl;
    }
    put(b, &q, 1);
}

static const char *const unit_names[] = {"generic", "Y", "M", "W", "D", "h", "m", "s",
                                         "ms", "us", "ns", "ps", "fs", "as"};

static void put_shape(sbuf *b, uint32_t nd, const uint64_t *dims)
{
    puts_(b, "(");
    for (uint32_t k = 0; k < nd; k++) {
        if (k) puts_(b, ", ");
        put_u64(b, dims[k]);
    }
    if (nd == 1) puts_(b, ",");
    puts_(b, ")");
}

static void put_typestr(sbuf *b, const npyg_dtype *d)
{
    char head[3] = {d->byteorder, (char)d->kind, 0};
    put(b, head, 2);
    if (d->kind == NPYG_KIND_DATETIME || d->kind == NPYG_KIND_TIMEDELTA) {
        puts_(b, "8");
        if (d->unit != NPYG_UNIT_GENERIC) {
            puts_(b, "[");
            if (d->unit_multiple != 1) put_u64(b, d->unit_multiple);
            puts_(b, unit_names[d->unit]);
            puts_(b, "]");
        }
        return;
    }
    if (d->kind == NPYG_KIND_OBJECT) return;
    put_u64(b, d->kind == NPYG_KIND_STR ? d->itemsize / 4 : d->itemsize);
}

static void put_descr(sbuf *b, const npyg_dtype *d);

static void put_pad(sbuf *b, uint64_t n, bool *first)
{
    if (!*first) puts_(b, ", ");
    *first = false;
    puts_(b, "('', '|V");
    put_u64(b, n);
    puts_(b, "')");
}

static void put_struct(sbuf *b, const npyg_dtype *d)
{
    puts_(b, "[");
    uint64_t at = 0;
    bool first = true;
    for (uint32_t k = 0; k < d->nfields; k++) {
        const npyg_field *f = &d->fields[k];
        if (f->offset > at) put_pad(b, f->offset - at, &first);
        if (!first) puts_(b, ", ");
        first = false;
        puts_(b, "(");
        if (f->title) {
            puts_(b, "(");
            put_repr(b, f->title, f->title_len);
            puts_(b, ", ");
        }
        put_repr(b, f->name, f->name_len);
        if (f->title) puts_(b, ")");
        puts_(b, ", ");
        if (f->type->kind == NPYG_KIND_SUBARRAY) {
            put_descr(b, f->type->base);
            puts_(b, ", ");
            put_shape(b, f->type->sub_ndim, f->type->sub_shape);
        } else {
            put_descr(b, f->type);
        }
        puts_(b, ")");
        at = f->offset + f->type->itemsize;
    }
    if (d->itemsize > at) put_pad(b, d->itemsize - at, &first);
    puts_(b, "]");
}

static void put_descr(sbuf *b, const npyg_dtype *d)
{
    if (d->kind == NPYG_KIND_STRUCT) put_struct(b, d);
    else if (d->kind == NPYG_KIND_SUBARRAY) {
        puts_(b, "(");
        put_descr(b, d->base);
        puts_(b, ", ");
        put_shape(b, d->sub_ndim, d->sub_shape);
        puts_(b, ")");
    } else {
        puts_(b, "'");
        put_typestr(b, d);
        puts_(b, "'");
    }
}

size_t npyg_format_descr(const npyg_dtype *dtype, char *out, size_t size)
{
    sbuf b = {out, size, 0};
    if (!dtype) return 0;
    put_descr(&b, dtype);
    if (size) out[b.len < size ? b.len : size - 1] = '\0';
    return b.len;
}

bool npyg__header_is_canonical(npyg_ctx *ctx, const char *text, size_t len)
{
    const npyg_info *info = &ctx->info;
    if (ctx->writer_descr) {
        /* writer_form.c matched every byte but the typestr's spelling. */
        char ts[48];
        sbuf t = {ts, sizeof ts, 0};
        put_descr(&t, info->dtype);
        return t.len == ctx->writer_descr + 2 && t.len < sizeof ts && memcmp(ts, text + 10, t.len) == 0;
    }
    /* The dict part can be no longer than the header itself. */
    char *buf = npyg__arena_alloc(&ctx->arena, len + 1);
    if (!buf) {
        npyg__nomem(ctx, ctx->base);
        return false;
    }
    sbuf b = {buf, len + 1, 0};
    puts_(&b, "{'descr': ");
    put_descr(&b, info->dtype);
    puts_(&b, info->fortran_order ? ", 'fortran_order': True, 'shape': " : ", 'fortran_order': False, 'shape': ");
    put_shape(&b, info->ndim, info->shape);
    puts_(&b, ", }");
    if (b.len >= len || memcmp(buf, text, b.len) != 0) return false;
    for (size_t k = b.len; k + 1 < len; k++)
        if (text[k] != ' ') return false;
    return text[len - 1] == '\n';
}
