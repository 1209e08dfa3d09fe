/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * descr -> dtype, as numpy's descr_to_dtype reads it: a typestr, a list of
 * fields (name, type[, shape]) with titles and '' padding, or, inside a
 * field, a (type, shape) subarray. Sizes and offsets are checked against
 * numpy's C int limit; the object kind is recorded so that the caller can
 * refuse the pickle payload once the whole descr is known to be valid.
 * What numpy accepts and npyguard refuses is in parser/DIVERGENCES.md.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define ITEMSIZE_MAX INT32_MAX /* numpy keeps itemsize in a C int */

typedef struct builder {
    npyg_ctx *ctx;
    unsigned *warnings;
    uint32_t fields;  /* every field entry seen, pads included */
    bool has_object;
    uint64_t object_at;
} builder;

static NPYG__PRINTF(4, 5) int dfail(builder *b, int code, const npyg__value *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = npyg__vfail(b->ctx, code, b->ctx->base + at->offset, fmt, ap);
    va_end(ap);
    return rc;
}

static int new_dtype(builder *b, npyg_kind kind, const npyg__value *at, npyg_dtype **out)
{
    npyg_dtype *d = npyg__arena_alloc(&b->ctx->arena, sizeof *d);
    *out = d;
    if (!d) return npyg__nomem(b->ctx, b->ctx->base + at->offset);
    memset(d, 0, sizeof *d);
    d->kind = kind;
    d->byteorder = '|';
    d->unit_multiple = 1;
    return 0;
}

static bool host_little(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

/* ---------------- typestrs ---------------- */

typedef struct type_name {
    const char *name;
    char kind;
    unsigned size;
} type_name;

/* Names and one-letter codes with the same meaning on every platform.
   The platform-dependent ones (C long, pointers, long double) and the
   aliases numpy 2 removed are refused; see DIVERGENCES.md. */
static const type_name names[] = {
    {"bool", 'b', 1}, {"bool_", 'b', 1},
    {"int8", 'i', 1}, {"int16", 'i', 2}, {"int32", 'i', 4}, {"int64", 'i', 8},
    {"uint8", 'u', 1}, {"uint16", 'u', 2}, {"uint32", 'u', 4}, {"uint64", 'u', 8},
    {"byte", 'i', 1}, {"ubyte", 'u', 1}, {"short", 'i', 2}, {"ushort", 'u', 2},
    {"intc", 'i', 4}, {"uintc", 'u', 4}, {"longlong", 'i', 8}, {"ulonglong", 'u', 8},
    {"float16", 'f', 2}, {"float32", 'f', 4}, {"float64", 'f', 8},
    {"half", 'f', 2}, {"single", 'f', 4}, {"double", 'f', 8}, {"float", 'f', 8},
    {"complex64", 'c', 8}, {"complex128", 'c', 16}, {"csingle", 'c', 8},
    {"cdouble", 'c', 16}, {"complex", 'c', 16},
    {"bytes", 'S', 0}, {"bytes_", 'S', 0}, {"str", 'U', 0}, {"str_", 'U', 0},
    {"void", 'V', 0}, {"object", 'O', 8}, {"object_", 'O', 8},
};

static const type_name codes[] = {
    {"?", 'b', 1}, {"b", 'i', 1}, {"B", 'u', 1}, {"h", 'i', 2}, {"H", 'u', 2},
    {"i", 'i', 4}, {"I", 'u', 4}, {"q", 'i', 8}, {"Q", 'u', 8},
    {"e", 'f', 2}, {"f", 'f', 4}, {"d", 'f', 8}, {"F", 'c', 8}, {"D", 'c', 16},
    {"S", 'S', 0}, {"U", 'U', 0}, {"V", 'V', 0}, {"O", 'O', 8}, {"c", 'S', 1},
};

static const char *const refused_names[] = {
    "l", "L", "p", "P", "g", "G", "a", "int", "int_", "intp", "uint", "uintp",
    "long", "ulong", "longdouble", "longfloat", "clongdouble", "clongfloat",
    "longcomplex", "float128", "complex256", "int0", "uint0", "bool8",
    "object0", "bytes0", "str0", "void0", "string_", "unicode", "unicode_",
    "float_", "complex_", "cfloat", "singlecomplex",
};

static const struct { const char *name; npyg_time_unit unit; } units[] = {
    {"Y", NPYG_UNIT_Y}, {"M", NPYG_UNIT_M}, {"W", NPYG_UNIT_W}, {"D", NPYG_UNIT_D},
    {"h", NPYG_UNIT_h}, {"m", NPYG_UNIT_m}, {"s", NPYG_UNIT_s}, {"ms", NPYG_UNIT_ms},
    {"us", NPYG_UNIT_us}, {"\xce\xbcs", NPYG_UNIT_us}, {"ns", NPYG_UNIT_ns},
    {"ps", NPYG_UNIT_ps}, {"fs", NPYG_UNIT_fs}, {"as", NPYG_UNIT_as},
    {"generic", NPYG_UNIT_GENERIC},
};

static bool is_c_space(int c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* Kind + size with C strtol's leniency, as numpy parses it: leading
   whitespace and a sign are allowed. Returns false if [s, e) is not a
   whole number; *neg and *big report the odd cases. */
static bool parse_size(const char *s, const char *e, uint64_t *out, bool *neg, bool *lenient)
{
    *neg = false;
    *lenient = false;
    while (s < e && is_c_space((unsigned char)*s)) { s++; *lenient = true; }
    if (s < e && (*s == '+' || *s == '-')) { *neg = *s == '-'; s++; *lenient = true; }
    if (s == e) return false;
    if (*s == '0' && e - s > 1) *lenient = true;
    uint64_t v = 0;
    for (; s < e; s++) {
        if (*s < '0' || *s > '9') return false;
        v = v > UINT64_MAX / 10 ? UINT64_MAX : v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return true;
}

static bool numeric_size_ok(char kind, uint64_t size)
{
    switch (kind) {
    case 'b': return size == 1;
    case 'i': case 'u': return size == 1 || size == 2 || size == 4 || size == 8;
    case 'f': return size == 2 || size == 4 || size == 8 || size == 16;
    case 'c': return size == 8 || size == 16 || size == 32;
    case 'O': return size == 4 || size == 8;
    default: return false;
    }
}

/* Bytes of an S, U (4 a character) or V item of count units, or
   UINT64_MAX past ITEMSIZE_MAX (numpy keeps an itemsize in a C int). */
static uint64_t flexible_itemsize(char kind, uint64_t count)
{
    uint64_t bytes = kind == 'U' ? (count > UINT64_MAX / 4 ? UINT64_MAX : count * 4) : count;
    return bytes > ITEMSIZE_MAX ? UINT64_MAX : bytes;
}

static npyg_kind kind_of(char k)
{
    return (npyg_kind)k;
}

/* Fills in the dtype for a simple kind; order is '<', '>' or '=' */
static int finish_simple(builder *b, npyg_dtype *d, char order, const npyg__value *at)
{
    bool endian = d->itemsize > 1 && d->kind != NPYG_KIND_BYTES && d->kind != NPYG_KIND_VOID &&
                  d->kind != NPYG_KIND_OBJECT;
    if (d->kind == NPYG_KIND_STR) endian = true; /* numpy writes <U0 too */
    if (!endian) d->byteorder = '|';
    else if (order == '<' || order == '>') d->byteorder = order;
    else {
        d->byteorder = host_little() ? '<' : '>';
        *b->warnings |= NPYG_W_NATIVE_ORDER;
    }
    if ((d->kind == NPYG_KIND_FLOAT && d->itemsize == 16) || (d->kind == NPYG_KIND_COMPLEX && d->itemsize == 32))
        *b->warnings |= NPYG_W_LONGDOUBLE;
    if (d->kind == NPYG_KIND_OBJECT && !b->has_object) {
        b->has_object = true;
        b->object_at = b->ctx->base + at->offset;
    }
    return 0;
}

static int parse_datetime(builder *b, npyg_dtype *d, const char *meta, const char *end,
                          const npyg__value *at)
{
    d->itemsize = 8;
    d->unit = NPYG_UNIT_GENERIC;
    if (meta == end) return 0;
    if (*meta != '[' || end[-1] != ']' || end - meta < 3)
        return dfail(b, NPYG_EDESCR, at, "invalid datetime metadata in '%s'", at->s);
    const char *p = meta + 1, *q = end - 1;
    const char *u = p;
    while (u < q && *u >= '0' && *u <= '9') u++;
    if (u > p) {
        uint64_t mult = 0;
        for (const char *k = p; k < u; k++) {
            mult = mult * 10 + (uint64_t)(*k - '0');
            if (mult > INT32_MAX)
                return dfail(b, NPYG_EDESCR, at, "datetime multiplier out of range in '%s'", at->s);
        }
        if (mult == 0)
            return dfail(b, NPYG_EUNSUPPORTED, at, "zero datetime multiplier in '%s'", at->s);
        d->unit_multiple = (uint32_t)mult;
    }
    for (const char *k = p; k < q; k++)
        if (*k == '/' || *k == ' ' || *k == '+' || *k == '-' || *k == '\t')
            return dfail(b, NPYG_EUNSUPPORTED, at,
                         "datetime metadata form not supported (divisor, sign or space) in '%s'", at->s);
    for (size_t k = 0; k < sizeof units / sizeof units[0]; k++) {
        if ((size_t)(q - u) == strlen(units[k].name) && !memcmp(u, units[k].name, (size_t)(q - u))) {
            d->unit = units[k].unit;
            if (d->unit == NPYG_UNIT_GENERIC && u > p)
                return dfail(b, NPYG_EUNSUPPORTED, at, "generic unit with a multiplier in '%s'", at->s);
            return 0;
        }
    }
    return dfail(b, NPYG_EDESCR, at, "invalid datetime unit in '%s'", at->s);
}

/* dtype.str as numpy writes it for every simple type but datetimes: '<',
   '>' or '|', a kind letter, the size without leading zeros ('<f8',
   '|S12', '<U3'). Read straight off; anything else, or anything wrong
   with it, leaves *out NULL for the general reading below, which gives
   these strings the same dtype. */
static int build_writer_typestr(builder *b, const npyg__value *v, npyg_dtype **out)
{
    const char *s = v->s;
    *out = NULL;
    if (v->len < 3 || v->len > 11 || (s[0] != '<' && s[0] != '>' && s[0] != '|') || (s[2] == '0' && v->len > 3))
        return 0;
    uint64_t size = 0;
    for (size_t k = 2; k < v->len; k++) {
        if (s[k] < '0' || s[k] > '9') return 0;
        size = size * 10 + (uint64_t)(s[k] - '0'); /* 9 digits at most */
    }
    char kind = s[1];
    switch (kind) {
    case 'S': case 'U': case 'V':
        size = flexible_itemsize(kind, size);
        if (size == UINT64_MAX) return 0;
        break;
    case 'b': case 'i': case 'u': case 'f': case 'c': case 'O':
        if (!numeric_size_ok(kind, size)) return 0;
        break;
    default:
        return 0;
    }
    npyg_dtype *d;
    int rc = new_dtype(b, kind_of(kind), v, &d);
    if (rc) return rc;
    d->itemsize = size;
    *out = d;
    return finish_simple(b, d, s[0] == '|' ? '=' : s[0], v);
}

static int build_typestr(builder *b, const npyg__value *v, npyg_dtype **out)
{
    const char *s = v->s, *e = v->s + v->len;
    if (v->len == 0) return dfail(b, NPYG_EDESCR, v, "%s", "empty type string");
    if (memchr(s, '\0', v->len)) return dfail(b, NPYG_EDESCR, v, "%s", "NUL in type string");
    npyg_dtype *fast = NULL;
    int frc = build_writer_typestr(b, v, &fast);
    if (frc || fast) {
        *out = fast;
        return frc;
    }
    /* numpy reads digits, '(' or ',' as a comma-string struct or subarray. */
    bool comma = (*s >= '0' && *s <= '9') || *s == '(';
    if (v->len > 1 && strchr("<>|=", *s) && ((s[1] >= '0' && s[1] <= '9') || s[1] == '(')) comma = true;
    for (int depth = 0, k = 0; (size_t)k < v->len; k++) {
        if (s[k] == '[') depth++;
        else if (s[k] == ']') depth--;
        else if (s[k] == ',' && depth == 0) comma = true;
    }
    if (comma)
        return dfail(b, NPYG_EUNSUPPORTED, v, "comma-string and subarray-string dtypes ('%s') are not supported", s);

    /* A whole-string name first; names take no byte order and start with
       two letters, which no typestr written as dtype.str does. */
    bool maybe_name = v->len >= 2 && ((s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'z') &&
                      ((s[1] | 0x20) >= 'a' && (s[1] | 0x20) <= 'z');
    for (size_t k = 0; maybe_name && k < sizeof refused_names / sizeof refused_names[0]; k++)
        if (!strcmp(s, refused_names[k]))
            return dfail(b, NPYG_EUNSUPPORTED, v,
                         "type '%s' is platform-dependent or removed in numpy 2", s);
    for (size_t k = 0; maybe_name && k < sizeof names / sizeof names[0]; k++) {
        if (!strcmp(s, names[k].name)) {
            npyg_dtype *d;
            int drc = new_dtype(b, kind_of(names[k].kind), v, &d);
            if (drc) return drc;
            d->itemsize = names[k].size;
            *b->warnings |= NPYG_W_NONCANON;
            *out = d;
            return finish_simple(b, d, '=', v);
        }
    }
    if (!strcmp(s, "datetime64") || !strcmp(s, "timedelta64")) {
        npyg_dtype *d;
        int drc = new_dtype(b, s[0] == 'd' ? NPYG_KIND_DATETIME : NPYG_KIND_TIMEDELTA, v, &d);
        if (drc) return drc;
        *b->warnings |= NPYG_W_NONCANON;
        *out = d;
        d->itemsize = 8;
        return finish_simple(b, d, '=', v);
    }

    char order = '=';
    if (*s == '<' || *s == '>' || *s == '=' || *s == '|') {
        order = *s == '|' ? '=' : *s;
        s++;
    }
    size_t len = (size_t)(e - s);
    if (len == 0) return dfail(b, NPYG_EDESCR, v, "byte order without a type in '%s'", v->s);

    /* Datetime: M8 / m8 / datetime64 / timedelta64 with optional [unit]. */
    const char *meta = NULL;
    npyg_kind dk = NPYG_KIND_DATETIME;
    if (len >= 2 && s[1] == '8' && (s[0] == 'M' || s[0] == 'm')) { meta = s + 2; dk = s[0] == 'M' ? NPYG_KIND_DATETIME : NPYG_KIND_TIMEDELTA; }
    else if (len >= 10 && !strncmp(s, "datetime64", 10)) meta = s + 10;
    else if (len >= 11 && !strncmp(s, "timedelta64", 11)) { meta = s + 11; dk = NPYG_KIND_TIMEDELTA; }
    if (meta) {
        npyg_dtype *d;
        int drc = new_dtype(b, dk, v, &d);
        if (drc) return drc;
        int rc = parse_datetime(b, d, meta, e, v);
        if (rc) return rc;
        *out = d;
        return finish_simple(b, d, order, v);
    }

    char kind;
    uint64_t size;
    if (len == 1) {
        const type_name *t = NULL;
        for (size_t k = 0; k < sizeof codes / sizeof codes[0]; k++)
            if (codes[k].name[0] == s[0]) t = &codes[k];
        if (!t) {
            if (strchr("lLpPgGa", s[0]))
                return dfail(b, NPYG_EUNSUPPORTED, v,
                             "type code in '%s' is platform-dependent or removed in numpy 2", v->s);
            if (s[0] == 'M' || s[0] == 'm') {
                npyg_dtype *d;
                int drc = new_dtype(b, s[0] == 'M' ? NPYG_KIND_DATETIME : NPYG_KIND_TIMEDELTA, v, &d);
                if (drc) return drc;
                d->itemsize = 8;
                *out = d;
                *b->warnings |= NPYG_W_NONCANON;
                return finish_simple(b, d, order, v);
            }
            return dfail(b, NPYG_EDESCR, v, "unknown type '%s'", v->s);
        }
        kind = t->kind;
        size = t->size;
        if (strchr("SUV", s[0]) == NULL) *b->warnings |= NPYG_W_NONCANON;
    } else {
        kind = s[0];
        bool neg, lenient;
        if (!parse_size(s + 1, e, &size, &neg, &lenient))
            return dfail(b, NPYG_EDESCR, v, "unknown type '%s'", v->s);
        if (lenient) *b->warnings |= NPYG_W_NONCANON;
        if (kind == 'a')
            return dfail(b, NPYG_EUNSUPPORTED, v, "the 'a' type code ('%s') was removed in numpy 2", v->s);
        if ((kind == 'M' || kind == 'm') && !neg && size == 8) {
            /* '<M08', '<m 8': numpy's integer parse of the size, not its
               datetime parser, reads these, as generic units. */
            npyg_dtype *d;
            int drc = new_dtype(b, kind == 'M' ? NPYG_KIND_DATETIME : NPYG_KIND_TIMEDELTA, v, &d);
            if (drc) return drc;
            d->itemsize = 8;
            d->unit = NPYG_UNIT_GENERIC;
            *b->warnings |= NPYG_W_NONCANON;
            *out = d;
            return finish_simple(b, d, order, v);
        }
        if (kind == 'S' || kind == 'U' || kind == 'V') {
            if (neg && size != 0) return dfail(b, NPYG_EDESCR, v, "negative size in '%s'", v->s);
            size = flexible_itemsize(kind, size);
            if (size == UINT64_MAX)
                return dfail(b, NPYG_EOVERFLOW, v, "itemsize of '%s' does not fit in a C int", v->s);
        } else if (neg || !numeric_size_ok(kind, size)) {
            return dfail(b, NPYG_EDESCR, v, "unknown type '%s'", v->s);
        }
    }
    npyg_dtype *d;
    int drc = new_dtype(b, kind_of(kind), v, &d);
    if (drc) return drc;
    d->itemsize = size;
    *out = d;
    return finish_simple(b, d, order, v);
}

/* ---------------- structures and subarrays ---------------- */

static int build(builder *b, const npyg__value *v, uint32_t depth, bool in_field, npyg_dtype **out);
static int build_subarray(builder *b, npyg_dtype *base, const npyg__value *shape, uint32_t depth, npyg_dtype **out);

/* Lists of ints and tuples of ints are shapes to numpy; any other list or
   tuple it first tries to read as a dtype. v is a list or a tuple. */
static bool is_int_seq(const npyg__value *v)
{
    if (v->type == V_LIST && v->count == 0) return false; /* [] is the empty struct */
    for (const npyg__value *x = v->child; x; x = x->next)
        if (x->type != V_INT && x->type != V_BOOL) return false;
    return true;
}

/* The second item of numpy's (type, x): a dtype when x reads as one (the
   view form; None reads as float64, {} as an empty struct), else a size or
   shape. */
static int build_second(builder *b, npyg_dtype *base, const npyg__value *second, const npyg__value *at,
                        uint32_t depth, npyg_dtype **out)
{
    bool seq = second->type == V_LIST || second->type == V_TUPLE;
    if ((second->type == V_STR && second->len == 0) || second->type == V_BYTES)
        /* b'<f8' is a dtype to numpy, '' and b'' an empty shape */
        return dfail(b, NPYG_EUNSUPPORTED, second, "%s", "a bytes or empty string item in a type tuple is not supported");
    if (second->type == V_DICT && second->count) {
        /* A dict dtype spec ({'names': ..., 'formats': ...}) is a view to
           numpy; any other dict (metadata) fails as a shape. */
        for (const npyg__value *k = second->child; k; k = k->next->next)
            if (k->type == V_STR && (!strcmp(k->s, "names") || !strcmp(k->s, "formats")))
                return dfail(b, NPYG_EUNSUPPORTED, second, "%s", "a dict dtype spec in a type tuple is not supported");
        return dfail(b, NPYG_EDESCR, second, "%s", "invalid shape in fixed-type tuple");
    }
    if (second->type == V_STR || second->type == V_NONE || second->type == V_DICT || (seq && !is_int_seq(second))) {
        uint64_t size = second->type == V_DICT ? 0 : 8; /* {} reads as a struct without fields */
        if (second->type != V_NONE && second->type != V_DICT) {
            npyg_dtype *view = NULL;
            int rc = build(b, second, depth + 1, true, &view);
            if (rc) return rc;
            size = view->itemsize;
        }
        bool unsized = base->kind != NPYG_KIND_STRUCT && base->itemsize == 0; /* takes the view's size */
        if (!unsized && size != base->itemsize)
            return dfail(b, NPYG_EDESCR, at, "%s", "mismatch in size of old and new data-descriptor");
        return dfail(b, NPYG_EUNSUPPORTED, at, "%s", "the (base, view) dtype form is not supported");
    }
    return build_subarray(b, base, second, depth, out);
}

/* (type, shape) inside a field; at the top level numpy folds a subarray
   into the array, which only fits the shape with exactly one element, and
   its other tuple forms are refused here (DIVERGENCES.md). */
static int build_tuple(builder *b, const npyg__value *v, uint32_t depth, bool in_field, npyg_dtype **out)
{
    /* numpy reads the first two items and ignores any more; at the top
       level that form is refused with the other tuple forms. */
    if (v->count < 2 || (v->count > 2 && !in_field))
        return dfail(b, !in_field && v->count > 2 ? NPYG_EUNSUPPORTED : NPYG_EDESCR, v, "%s",
                     "a subarray type must be (type, shape)");
    if (v->count > 2) *b->warnings |= NPYG_W_NONCANON;
    const npyg__value *second = v->child->next;
    npyg_dtype *base = NULL;
    int rc = build(b, v->child, depth + 1, true, &base);
    if (rc) return rc;
    /* At the top level, whether numpy can use it depends on the shape, so
       npyg__parse_header_text decides once the shape is known. */
    return build_second(b, base, second, v, depth, out);
}

/* A subarray shape: an int or a tuple of ints (numpy's field shape). */
static int build_subarray(builder *b, npyg_dtype *base, const npyg__value *shape,
                          uint32_t depth, npyg_dtype **out)
{
    uint32_t nd;
    const npyg__value *dims;
    /* numpy takes every zero-size type without fields as unsized, a
       zero-item subarray too, and reads the second item as its size. */
    bool unsized = base->kind != NPYG_KIND_STRUCT && base->itemsize == 0;
    if (unsized && (shape->type == V_INT || shape->type == V_BOOL)) /* numpy: ('S0', 5) means S5 */
        return dfail(b, NPYG_EUNSUPPORTED, shape, "%s", "the (unsized type, size) form is not supported");
    if (unsized)
        return dfail(b, NPYG_EDESCR, shape, "%s", "invalid itemsize in generic type tuple");
    if (shape->type == V_LIST)
        return dfail(b, NPYG_EUNSUPPORTED, shape, "%s", "a subarray shape must be an int or a tuple, not a list");
    if (shape->type == V_INT) {
        if (!shape->negative && shape->u == 1) {
            /* numpy 1.x reads a plain field here, numpy 2 a (1,) subarray:
               the same bytes, a different shape. Follow 1.x and say so. */
            *b->warnings |= NPYG_W_INT_SUBARRAY;
            *out = base;
            return 0;
        }
        nd = 1;
        dims = shape;
    } else if (shape->type == V_TUPLE) {
        nd = shape->count;
        dims = shape->child;
        for (const npyg__value *x = dims; x; x = x->next)
            if (x->type != V_INT)
                return dfail(b, NPYG_EDESCR, x, "%s", "invalid shape in fixed-type tuple");
    } else {
        return dfail(b, NPYG_EDESCR, shape, "%s", "invalid shape in fixed-type tuple");
    }
    if (shape->type == V_TUPLE && nd == 0) { /* () means no subarray */
        *out = base;
        return 0;
    }
    if (depth + 1 > b->ctx->limits.max_depth)
        return dfail(b, NPYG_ELIMIT_DEPTH, shape, "nested deeper than max_depth (%s)", "subarray");
    if (nd > b->ctx->limits.max_dims)
        return dfail(b, NPYG_ELIMIT_DIMS, shape, "%s", "subarray has more dimensions than max_dims");
    if (nd > 32) /* numpy 1.x's NPY_MAXDIMS; numpy 2 allows 64 */
        return dfail(b, NPYG_EDESCR, shape, "%s", "subarray with more than 32 dimensions");
    uint64_t *sh = npyg__arena_alloc(&b->ctx->arena, sizeof *sh * nd);
    if (!sh) return npyg__nomem(b->ctx, b->ctx->base + shape->offset);
    uint64_t total = base->itemsize, items = 1;
    const npyg__value *x = dims;
    for (uint32_t k = 0; k < nd; k++, x = x->next) {
        if (x->negative && x->u != 0)
            return dfail(b, NPYG_EDESCR, x, "%s", "invalid shape in fixed-type tuple: dimension smaller than zero");
        if (x->big || x->u > INT32_MAX)
            return dfail(b, NPYG_EOVERFLOW, x, "%s", "subarray dimension does not fit into a C int");
        sh[k] = x->u;
    }
    /* numpy holds the item count in a C int as well as the byte size, so
       a zero-size base does not lift the bound. */
    bool wrapped = false; /* numpy's product stops at a zero, unless it overflowed intp first */
    for (uint32_t k = 0; k < nd && items; k++)
        if (sh[k] == 0) items = 0;
        else if (!npyg__mul_u64(items, sh[k], &items) || items > (uint64_t)INT64_MAX) {
            wrapped = true;
            break;
        }
    if (wrapped || items > INT32_MAX)
        return dfail(b, NPYG_EOVERFLOW, shape, "%s", "subarray item count does not fit into a C int");
    /* Both factors are at most INT32_MAX (every itemsize is held to
       ITEMSIZE_MAX), so the product fits in 64 bits. */
    total *= items;
    if (total > ITEMSIZE_MAX)
        return dfail(b, NPYG_EOVERFLOW, shape, "%s", "subarray size in bytes does not fit into a C int");
    npyg_dtype *d;
    int drc = new_dtype(b, NPYG_KIND_SUBARRAY, shape, &d);
    if (drc) return drc;
    d->base = base;
    d->sub_ndim = nd;
    d->sub_shape = sh;
    d->itemsize = total;
    *out = d;
    return 0;
}

static bool is_pad_type(const npyg_dtype *t)
{
    return t->kind == NPYG_KIND_VOID || t->kind == NPYG_KIND_SUBARRAY;
}

/* Names and titles share one namespace. They are checked once the
   struct's fields are built, as numpy does, by sorting: O(n log n) whatever
   the names, where comparing each with all before it was quadratic. */
typedef struct label {
    const npyg__value *v;
    uint32_t order; /* position among the struct's labels */
    bool title;
} label;

static int cmp_label(const void *pa, const void *pb)
{
    const label *a = pa, *b = pb;
    if (a->v->len != b->v->len) return a->v->len < b->v->len ? -1 : 1;
    int c = memcmp(a->v->s, b->v->s, a->v->len);
    if (c) return c;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* A label's hash, eight bytes at a time (FNV-1a's constants, a word for
   a byte): a few instructions a word where a byte-wise hash spent them a
   byte. */
static uint64_t label_hash(const char *s, size_t len)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325) ^ len, w;
    for (; len >= 8; s += 8, len -= 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * UINT64_C(0x100000001b3);
    }
    w = 0;
    memcpy(&w, s, len);
    h = (h ^ w) * UINT64_C(0x100000001b3);
    return h ^ (h >> 29);
}

/* Most structs have distinct labels: an open-addressing set of them
   (slot: 2n entries, allocated with the labels) shows it in linear time;
   a few are compared pairwise. false on any match and when probes pass a
   linear budget (labels crafted to collide): the sort then decides and
   finds the use to report. */
static bool labels_distinct_fast(const label *labels, uint32_t n, uint32_t *slot)
{
    if (n <= 8) {
        for (uint32_t i = 1; i < n; i++)
            for (uint32_t j = 0; j < i; j++)
                if (labels[i].v->len == labels[j].v->len && !memcmp(labels[i].v->s, labels[j].v->s, labels[i].v->len))
                    return false;
        return true;
    }
    size_t cap = 2u * (size_t)n;
    memset(slot, 0, cap * sizeof *slot);
    size_t budget = 4u * cap;
    for (uint32_t i = 0; i < n; i++) {
        const npyg__value *v = labels[i].v;
        size_t p = (size_t)(label_hash(v->s, v->len) % cap);
        for (; slot[p]; p = p + 1 == cap ? 0 : p + 1) {
            const npyg__value *x = labels[slot[p] - 1].v;
            if (!budget-- || (x->len == v->len && memcmp(x->s, v->s, v->len) == 0)) return false;
        }
        slot[p] = i + 1;
    }
    return true;
}

static int check_labels(builder *b, label *labels, uint32_t n, uint32_t *slot)
{
    if (n < 2 || labels_distinct_fast(labels, n, slot)) return 0;
    qsort(labels, n, sizeof *labels, cmp_label);
    const label *first = NULL; /* the earliest second use, as a sequential check finds it */
    for (uint32_t k = 1; k < n; k++)
        if (labels[k].v->len == labels[k - 1].v->len &&
            memcmp(labels[k].v->s, labels[k - 1].v->s, labels[k].v->len) == 0 &&
            (!first || labels[k].order < first->order))
            first = &labels[k];
    if (!first) return 0;
    return dfail(b, NPYG_EDESCR, first->v, first->title ? "title '%s' already used as a name or title"
                                                        : "field name '%s' already used as a name or title",
                 first->v->s);
}

static int build_struct(builder *b, const npyg__value *list, uint32_t depth, npyg_dtype **out)
{
    if (depth + 1 > b->ctx->limits.max_depth)
        return dfail(b, NPYG_ELIMIT_DEPTH, list, "nested deeper than max_depth (%s)", "struct");
    npyg_field *fields = NULL;
    label *labels = NULL;
    uint32_t nlabels = 0;
    if (list->count) {
        fields = npyg__arena_alloc(&b->ctx->arena, sizeof *fields * list->count);
        /* two labels a field at most (name, title), then the set's slots:
           two a label */
        labels = npyg__arena_alloc(&b->ctx->arena, (sizeof *labels + 2 * sizeof(uint32_t)) * 2 * (size_t)list->count);
        if (!fields || !labels) return npyg__nomem(b->ctx, b->ctx->base + list->offset);
    }
    uint32_t nf = 0;
    uint64_t offset = 0;
    /* numpy's writer repeats one typestr over many fields ('<f8' ...): a
       field spelled like the one before gets the dtype built for it, which
       nothing changes afterwards (a subarray is a new dtype around it).
       Not an object: building one also records where the first object is,
       which a dropped padding field may have taken back. */
    const npyg__value *last_tv = NULL;
    npyg_dtype *last_t = NULL;
    for (const npyg__value *f = list->child; f; f = f->next) {
        if (++b->fields > b->ctx->limits.max_fields)
            return dfail(b, NPYG_ELIMIT_FIELDS, f, "%s", "more fields than max_fields");
        if (f->type == V_LIST || (f->type == V_STR && (f->len == 2 || f->len == 3)))
            return dfail(b, NPYG_EUNSUPPORTED, f, "%s", "a field must be a tuple, not a list or string");
        if (f->type != V_TUPLE || f->count < 2 || f->count > 3)
            return dfail(b, NPYG_EDESCR, f, "%s", "a field must be (name, type) or (name, type, shape)");
        const npyg__value *nv = f->child, *tv = nv->next, *sv = tv->next;
        const npyg__value *title = NULL;
        if (nv->type == V_TUPLE) {
            if (nv->count != 2)
                return dfail(b, NPYG_EDESCR, nv, "%s", "a titled name must be (title, name)");
            title = nv->child;
            nv = nv->child->next;
            if (title->type != V_STR && nv->type == V_STR)
                return dfail(b, NPYG_EUNSUPPORTED, title, "%s", "field titles must be strings");
        }
        /* A title that is not a str has failed above unless the name is
           not one either. */
        if (nv->type != V_STR)
            return dfail(b, NPYG_EDESCR, nv, "%s", "field names must be strings");
        npyg_dtype *t = NULL;
        bool had_object = b->has_object;
        uint64_t object_at = b->object_at;
        if (last_tv && tv->type == V_STR && tv->len == last_tv->len && !memcmp(tv->s, last_tv->s, tv->len)) {
            t = last_t;
        } else {
            int rc = build(b, tv, depth + 1, true, &t);
            if (rc) return rc;
            if (tv->type == V_STR && t->kind != NPYG_KIND_OBJECT) {
                last_tv = tv;
                last_t = t;
            }
        }
        int rc;
        if (sv) {
            rc = build_second(b, t, sv, f, depth + 1, &t);
            if (rc) return rc;
        }
        if (nv->len == 0 && !title && is_pad_type(t)) {
            /* numpy drops '' void and subarray fields before it builds the
               dtype, keeping only their bytes: an object in one is gone. */
            b->has_object = had_object;
            b->object_at = object_at;
        } else {
            labels[nlabels] = (label){nv, nlabels, false};
            nlabels++;
            if (title) {
                labels[nlabels] = (label){title, nlabels, true};
                nlabels++;
            }
            npyg_field *fd = &fields[nf++];
            fd->name = nv->s;
            fd->name_len = nv->len;
            fd->title = title ? title->s : NULL;
            fd->title_len = title ? title->len : 0;
            fd->offset = offset;
            fd->type = t;
        }
        offset += t->itemsize; /* both at most ITEMSIZE_MAX: no wrap */
        if (offset > ITEMSIZE_MAX)
            return dfail(b, NPYG_EOVERFLOW, f, "%s", "structure size in bytes does not fit into a C int");
    }
    uint32_t *slot = labels ? (uint32_t *)(void *)(labels + 2 * (size_t)list->count) : NULL; /* none for [] */
    int rc = check_labels(b, labels, nlabels, slot);
    if (rc) return rc;
    npyg_dtype *d;
    int drc = new_dtype(b, NPYG_KIND_STRUCT, list, &d);
    if (drc) return drc;
    d->nfields = nf;
    d->fields = fields;
    d->itemsize = offset;
    *out = d;
    return 0;
}

static int build(builder *b, const npyg__value *v, uint32_t depth, bool in_field, npyg_dtype **out)
{
    switch (v->type) {
    case V_STR:
        return build_typestr(b, v, out);
    case V_LIST:
        return build_struct(b, v, depth, out);
    case V_TUPLE:
        return build_tuple(b, v, depth, in_field, out);
    case V_SET:
    case V_DICT:
    case V_BYTES: {
        /* numpy iterates anything else as fields: a set, a dict's keys, the
           ints of a bytes. It works when every element unpacks into 2 or 3
           items (a tuple, list or 2-3 character string), or there are none. */
        bool fields = true;
        if (v->type == V_BYTES) fields = v->len == 0;
        for (const npyg__value *x = v->type == V_BYTES ? NULL : v->child; x;
             x = v->type == V_DICT ? x->next->next : x->next) {
            /* Elements and keys are hashable (literal.c), so never lists. */
            bool seq = x->type == V_TUPLE && x->count >= 2 && x->count <= 3;
            bool str = x->type == V_STR && (x->len == 2 || x->len == 3);
            if (!seq && !str) fields = false;
        }
        return dfail(b, fields ? NPYG_EUNSUPPORTED : NPYG_EDESCR, v, "%s",
                     "a set, dict or bytes is not a list of fields");
    }
    default:
        return dfail(b, NPYG_EDESCR, v, "%s", "not a type string or a list of fields");
    }
}

int npyg__build_dtype(npyg_ctx *ctx, const npyg__value *descr, const npyg_dtype **out, unsigned *warnings)
{
    builder b = {ctx, warnings, 0, false, 0};
    npyg_dtype *d = NULL;
    int rc = build(&b, descr, 0, false, &d);
    if (rc) return rc;
    if (b.has_object)
        return npyg__fail(ctx, NPYG_EOBJECT, b.object_at,
                          "object dtype: the payload is a pickle and is never loaded");
    /* numpy loads such an array without reading a byte, whatever its shape. */
    if (d->itemsize == 0) *warnings |= NPYG_W_ZERO_ITEMSIZE;
    *out = d;
    return 0;
}
