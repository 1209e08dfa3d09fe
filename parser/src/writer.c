/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * numpy's writer spelling of a header, both ways. Recognising: nearly every
 * file in the wild has exactly the text numpy writes for a plain dtype,
 *
 *     {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }   \n
 *
 * so it is matched here without the general literal parser and turned into
 * the very value tree that parser builds (same nodes, same offsets); the
 * checks that follow (keys, shape, descr) are header.c's. Writing: a descr
 * (npyg_format_descr) or the whole dict as numpy's writer spells it, which
 * the strict profile compares with the header text. Both directions use the
 * same string constants, so every offset is a sizeof, never a count.
 */
#include "internal.h"
#include "unicode_printable.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define LEN(lit) (sizeof(lit) - 1)

/* The dict numpy writes, piece by piece. Each of W_FORTRAN and W_SHAPE
   starts with the separator W_COMMA before its key. */
static const char W_OPEN[] = "{";
static const char W_DESCR[] = "'descr': ";
static const char W_FORTRAN[] = ", 'fortran_order': ";
static const char W_SHAPE[] = ", 'shape': ";
static const char W_TAIL[] = ", }";
static const char W_COMMA[] = ", ";
static const char K_DESCR[] = "descr";
static const char K_FORTRAN[] = "fortran_order";
static const char K_SHAPE[] = "shape";

#define MAX_TYPESTR 32

/* Whether repr() writes the code point as it is (str.isprintable()); the
   table holds the ranges above U+007F it escapes. */
static bool printable(uint32_t cp)
{
    size_t lo = 0, hi = sizeof npyg__nonprintable / sizeof npyg__nonprintable[0];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp < npyg__nonprintable[mid][0]) hi = mid;
        else if (cp > npyg__nonprintable[mid][1]) lo = mid + 1;
        else return false;
    }
    return true;
}

/* One UTF-8 sequence (already checked valid) at s[*k], *k moved past it. */
static uint32_t utf8_cp(const char *s, size_t n, size_t *k)
{
    unsigned char c = (unsigned char)s[*k];
    size_t cl = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    if (*k + cl > n) cl = n - *k;
    uint32_t cp = c & (0xFF >> (cl + 1));
    for (size_t j = 1; j < cl; j++) cp = (cp << 6) | ((unsigned char)s[*k + j] & 0x3F);
    *k += cl;
    return cp;
}

/* ---------------- recognising ---------------- */

/* One recursive descent over numpy's spelling that builds the tree as it
   goes. Any departure from the spelling is MISS, never an error: the walk
   is rewound and the general parser decides, so what is accepted here
   only has to give the same tree that parser gives for the same text.
   Running out of memory is an error: the nodes built so far are ones the
   general parser builds too, in the same sizes. */
#define MISS (-1)

typedef struct cursor {
    npyg_ctx *ctx;
    const char *s;
    size_t n, i;
    unsigned depth; /* open brackets, counted as the general parser counts them */
    bool utf8;      /* version 3.0: text already checked as UTF-8, copied as is */
} cursor;

/* Small steps of the walk, inlined where they are used: the memcmp of a
   constant piece then compiles to a compare or two. */
#if defined(__GNUC__)
#define STEP static inline __attribute__((always_inline))
#else
#define STEP static inline
#endif

STEP bool take(cursor *c, const char *lit, size_t len)
{
    if (c->n - c->i < len || memcmp(c->s + c->i, lit, len) != 0) return false;
    c->i += len;
    return true;
}
#define TAKE(c, lit) take((c), (lit), LEN(lit))

static bool at_char(const cursor *c, char ch) { return c->i < c->n && c->s[c->i] == ch; }

/* Past the limit the general parser must report the nesting itself. */
static bool open_bracket(cursor *c, char ch)
{
    if (!at_char(c, ch) || c->depth >= NPYG__LITERAL_MAX_DEPTH) return false;
    c->depth++;
    c->i++;
    return true;
}

static bool close_bracket(cursor *c, char ch)
{
    if (!at_char(c, ch)) return false;
    c->depth--;
    c->i++;
    return true;
}

STEP int node(cursor *c, npyg__vtype t, size_t at, npyg__value **out)
{
    return npyg__new_value(c->ctx, t, at, 0, out);
}

/* '(' at the cursor and the tuple node it opens; MISS when it is not
   there, or one bracket too deep (the general parser says so). */
STEP int open_tuple(cursor *c, npyg__value **out)
{
    size_t at = c->i;
    if (!open_bracket(c, '(')) return MISS;
    return node(c, V_TUPLE, at, out);
}

static void append(npyg__value *parent, npyg__value **tail, npyg__value *item)
{
    if (*tail) (*tail)->next = item;
    else parent->child = item;
    *tail = item;
    parent->count++;
}

/* The bytes repr() writes as they are inside single quotes: printable
   ASCII other than the quotes and the backslash. */
static const unsigned char plain_byte[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,
};

/* The escape at s[*k] (a backslash), if it is one repr() writes: \\, \',
   \t, \n, \r, \xHH, \uHHHH or \UHHHHHHHH, the last two neither a surrogate
   nor above U+10FFFF. Its code point, *k moved past it; -1 for anything
   else, which the general parser reads (or refuses). */
static long escape(const unsigned char *s, size_t n, size_t *k)
{
    size_t j = *k + 1;
    if (j >= n) return -1;
    unsigned char d = s[j];
    size_t digits = d == 'x' ? 2 : d == 'u' ? 4 : d == 'U' ? 8 : 0;
    long cp = -1;
    if (!digits) {
        cp = d == '\\' || d == '\'' ? d : d == 't' ? '\t' : d == 'n' ? '\n' : d == 'r' ? '\r' : -1;
    } else if (n - j - 1 >= digits) {
        cp = 0;
        for (size_t q = 1; q <= digits && cp >= 0; q++) {
            int h = npyg__hexval(s[j + q]);
            cp = h < 0 ? -1 : cp * 16 + h;
        }
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = -1;
    }
    if (cp >= 0) *k = j + 1 + digits;
    return cp;
}

/* A str as repr() writes it in single quotes: printable ASCII other than
   the quotes and the backslash, the escapes above and the non-ASCII
   characters repr() leaves as they are: UTF-8 in a version 3.0 header
   (copied unchanged, as the general parser copies them), latin-1 bytes
   in 1.0 and 2.0 (each written as its character's UTF-8). Names only (max
   SIZE_MAX) take escapes and latin-1. At least min and at most max bytes
   of text. Anything else (double quotes, other escapes, prefixes,
   adjacent literals) is the general parser's. */
static int str(cursor *c, size_t min, size_t max, npyg__value **out)
{
    size_t at = c->i;
    if (!at_char(c, '\'')) return MISS;
    const unsigned char *u = (const unsigned char *)c->s;
    size_t b = at + 1, e = b;
    bool escaped = false, latin1 = false;
    for (;;) {
        while (plain_byte[u[e]]) e++; /* the closing '\n' stops it */
        if (e - b > max) return MISS;
        if (u[e] == '\'') break;
        if (u[e] == '\\' && max == SIZE_MAX) {
            if (escape(u, c->n, &e) < 0) return MISS;
            escaped = true;
        } else if (u[e] >= 0x80 && !c->utf8 && max == SIZE_MAX) {
            e++; /* a 1.0 or 2.0 header is latin-1: one byte, one character */
            latin1 = true;
        } else if (u[e] < 0x80 || !c->utf8 || !printable(utf8_cp(c->s, c->n - 1, &e))) {
            return MISS; /* (bounded short of the '\n', even were the text not UTF-8) */
        }
    }
    if (e - b < min || e - b > max) return MISS;
    c->i = e + 1;
    /* The node and its text in one piece: decoded text is never longer
       than its escapes, and a latin-1 byte takes two bytes of UTF-8. */
    size_t room = latin1 ? 2 * (e - b) : e - b;
    int rc = npyg__new_value(c->ctx, V_STR, at, room + 1, out);
    if (rc) return rc;
    npyg__value *v = *out;
    char *copy = (char *)(v + 1);
    size_t len = e - b;
    if (!escaped && !latin1) {
        if (len <= 4) { /* every typestr, many names: no call */
            for (size_t k = 0; k < len; k++) copy[k] = c->s[b + k];
        } else {
            memcpy(copy, c->s + b, len);
        }
    } else {
        len = 0;
        for (size_t k = b; k < e;) {
            if (u[k] == '\\') len += npyg__utf8_put(copy + len, (uint32_t)escape(u, e, &k));
            else if (u[k] >= 0x80 && !c->utf8) len += npyg__utf8_put(copy + len, u[k++]);
            else copy[len++] = c->s[k++];
        }
    }
    copy[len] = '\0';
    v->s = copy;
    v->len = len;
    return 0;
}

/* A decimal int as repr() writes it: no sign, no leading zero, no '_'. */
static int dim(cursor *c, npyg__value **out)
{
    size_t at = c->i, digits = 0;
    uint64_t v = 0;
    while (c->s[c->i] >= '0' && c->s[c->i] <= '9') { /* the closing '\n' stops it */
        if (++digits > 19) return MISS; /* larger values: the general parser */
        v = v * 10 + (uint64_t)(c->s[c->i++] - '0');
    }
    if (digits == 0 || (digits > 1 && c->s[at] == '0')) return MISS;
    int rc = node(c, V_INT, at, out);
    if (!rc) (*out)->u = v;
    return rc;
}

/* (), (n,) or (n, m, ...); "(n)" is an int to Python, not a tuple. */
static int shape(cursor *c, npyg__value **out)
{
    npyg__value *t, *tail = NULL, *d;
    int rc = open_tuple(c, &t);
    if (rc) return rc;
    *out = t;
    if (close_bracket(c, ')')) return 0;
    for (size_t nd = 1;; nd++) {
        if ((rc = dim(c, &d))) return rc;
        append(t, &tail, d);
        if (nd == 1 && TAKE(c, ",")) {
            if (close_bracket(c, ')')) return 0;
            if (!TAKE(c, " ")) return MISS;
            continue;
        }
        if (nd > 1 && close_bracket(c, ')')) return 0;
        if (!TAKE(c, W_COMMA)) return MISS;
    }
}

static int descr(cursor *c, npyg__value **out);

/* ('name', descr) or ('name', descr, shape), the name maybe ('title', 'name'). */
static int field(cursor *c, npyg__value **out)
{
    npyg__value *t, *tail = NULL, *v;
    int rc = open_tuple(c, &t);
    if (rc) return rc;
    *out = t;
    if (at_char(c, '(')) {
        size_t tat = c->i;
        npyg__value *pair, *ptail = NULL;
        (void)open_bracket(c, '(');
        if ((rc = node(c, V_TUPLE, tat, &pair))) return rc;
        if ((rc = str(c, 0, SIZE_MAX, &v))) return rc;
        append(pair, &ptail, v);
        if (!TAKE(c, W_COMMA)) return MISS;
        if ((rc = str(c, 0, SIZE_MAX, &v))) return rc;
        append(pair, &ptail, v);
        if (!close_bracket(c, ')')) return MISS;
        append(t, &tail, pair);
    } else {
        if ((rc = str(c, 0, SIZE_MAX, &v))) return rc;
        append(t, &tail, v);
    }
    if (!TAKE(c, W_COMMA)) return MISS;
    if ((rc = descr(c, &v))) return rc;
    append(t, &tail, v);
    if (TAKE(c, W_COMMA)) {
        if ((rc = shape(c, &v))) return rc;
        append(t, &tail, v);
    }
    return close_bracket(c, ')') ? 0 : MISS;
}

/* A typestr, a structured descr as numpy's dtype.descr lists it, or a
   subarray of a subarray as it spells one: (descr, shape). */
static int descr(cursor *c, npyg__value **out)
{
    if (at_char(c, '(')) {
        npyg__value *t, *tail = NULL, *v;
        int rc = open_tuple(c, &t);
        if (rc) return rc;
        *out = t;
        if ((rc = descr(c, &v))) return rc;
        append(t, &tail, v);
        if (!TAKE(c, W_COMMA)) return MISS;
        if ((rc = shape(c, &v))) return rc;
        append(t, &tail, v);
        return close_bracket(c, ')') ? 0 : MISS;
    }
    if (!at_char(c, '[')) return str(c, 1, MAX_TYPESTR, out);
    size_t at = c->i;
    (void)open_bracket(c, '[');
    npyg__value *l, *tail = NULL, *f;
    int rc = node(c, V_LIST, at, &l);
    if (rc) return rc;
    *out = l;
    if (close_bracket(c, ']')) return 0;
    for (;;) {
        if ((rc = field(c, &f))) return rc;
        append(l, &tail, f);
        if (close_bracket(c, ']')) return 0;
        if (!TAKE(c, W_COMMA)) return MISS;
    }
}

static int str_const(cursor *c, const char *s, size_t len, size_t at, npyg__value **out)
{
    int rc = node(c, V_STR, at, out);
    if (!rc) {
        (*out)->s = s;
        (*out)->len = len;
    }
    return rc;
}

/* The whole header: the dict, the spaces numpy pads with, the newline. */
static int header(cursor *c, npyg__value **out, npyg__span *descr_text)
{
    npyg__value *top, *kd, *vd, *kf, *vf, *ks, *vs;
    int rc;
    if (!open_bracket(c, '{')) return MISS;
    if ((rc = node(c, V_DICT, 0, &top))) return rc;
    /* A key's offset is its quote, after the separator that starts its piece. */
    if (!TAKE(c, W_DESCR)) return MISS;
    if ((rc = str_const(c, K_DESCR, LEN(K_DESCR), LEN(W_OPEN), &kd))) return rc;
    descr_text->at = c->i;
    if ((rc = descr(c, &vd))) return rc;
    descr_text->len = c->i - descr_text->at;
    size_t kf_at = c->i + LEN(W_COMMA);
    if (!TAKE(c, W_FORTRAN)) return MISS;
    if ((rc = str_const(c, K_FORTRAN, LEN(K_FORTRAN), kf_at, &kf))) return rc;
    size_t fo_at = c->i;
    bool fortran;
    if (TAKE(c, "False")) fortran = false;
    else if (TAKE(c, "True")) fortran = true;
    else return MISS;
    if ((rc = node(c, V_BOOL, fo_at, &vf))) return rc;
    size_t ks_at = c->i + LEN(W_COMMA);
    if (!TAKE(c, W_SHAPE)) return MISS;
    if ((rc = str_const(c, K_SHAPE, LEN(K_SHAPE), ks_at, &ks))) return rc;
    if ((rc = shape(c, &vs))) return rc;
    if (!TAKE(c, W_TAIL)) return MISS;
    static const char spaces[8] = "        ";
    while (c->n - c->i > 8 && memcmp(c->s + c->i, spaces, 8) == 0) c->i += 8;
    while (c->i < c->n && c->s[c->i] == ' ') c->i++;
    if (c->i != c->n - 1 || c->s[c->i] != '\n') return MISS;
    vf->u = fortran;
    top->child = kd;
    kd->next = vd;
    vd->next = kf;
    kf->next = vf;
    vf->next = ks;
    ks->next = vs;
    top->count = 3;
    *out = top;
    return 0;
}

int npyg__parse_writer_form(npyg_ctx *ctx, const char *text, size_t len, npyg__value **out,
                            npyg__span *descr_text)
{
    npyg__value *top = NULL;
    *out = NULL;
    *descr_text = (npyg__span){0, 0};
    /* numpy's header ends with '\n', which no character class of the walk
       takes: its loops over names and digits stop there without a bound. */
    if (len == 0 || text[len - 1] != '\n') return 0;
    cursor c = {ctx, text, len, 0, 0, ctx->info.version_major == 3};
    npyg__arena_mark m = npyg__arena_mark_now(&ctx->arena);
    int rc = header(&c, &top, descr_text);
    if (rc == MISS) {
        /* Not numpy's spelling: the general parser starts from the arena
           as it was. */
        npyg__arena_rewind(&ctx->arena, m);
        top = NULL;
        *descr_text = (npyg__span){0, 0};
        rc = 0;
    }
    *out = top;
    return rc;
}

/* ---------------- writing ---------------- */

/* Text out, or text compared: with cmp set, every byte is checked
   against cmp[0, size) instead of stored, so the canonical check needs no
   buffer. len counts every byte either way, as snprintf does. */
typedef struct sbuf {
    char *p;
    const char *cmp;
    size_t size, len;
    bool diff;
    bool latin1; /* as a v1/v2 header holds text: one byte per code point */
    bool unfit;  /* a character latin1 cannot hold: numpy would have written 3.0 */
} sbuf;

static void put(sbuf *b, const char *s, size_t n)
{
    if (b->cmp) {
        /* A piece at a time: the canonical check runs on every header. */
        if (!b->diff && (n > b->size - b->len || memcmp(b->cmp + b->len, s, n) != 0)) b->diff = true;
        b->len += n;
        return;
    }
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

/* Python's repr() of a str (names are stored as UTF-8), then encoded as
   numpy encodes the header: latin1 for v1/v2, UTF-8 for v3. */
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
        size_t at = k;
        uint32_t cp = utf8_cp(s, n, &k);
        if (!printable(cp)) {
            char esc[10] = {'\\', cp <= 0xFF ? 'x' : cp <= 0xFFFF ? 'u' : 'U'};
            size_t digits = cp <= 0xFF ? 2 : cp <= 0xFFFF ? 4 : 8;
            for (size_t d = 0; d < digits; d++) esc[2 + d] = hex[(cp >> (4 * (digits - 1 - d))) & 15];
            put(b, esc, 2 + digits);
        } else if (!b->latin1) {
            put(b, s + at, k - at);
        } else if (cp <= 0xFF) {
            char one = (char)cp;
            put(b, &one, 1);
        } else {
            b->unfit = true;
        }
    }
    put(b, &q, 1);
}

/* Where the run of plain bytes from s[k] ends, at most n. */
static inline size_t plain_end(const char *s, size_t k, size_t n)
{
    while (k < n && plain_byte[(unsigned char)s[k]]) k++;
    return k;
}

/* Whether all n bytes at s are plain. Names of 16 bytes or more, most of
   a large header's text, are tested sixteen at a time with SSE2 (every
   x86-64): a signed compare below 0x20 also catches every byte of 0x80 and
   above, and 0x7f and the three quotes are compared one each. Out of line,
   so that the short names of small headers keep their loop inline. */
static __attribute__((noinline)) bool long_plain(const char *s, size_t n)
{
    size_t k = 0;
#if defined(__SSE2__)
    const __m128i space = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7f), sq = _mm_set1_epi8('\''),
                  dq = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
    for (; k + 16 <= n; k += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + k));
        __m128i bad = _mm_or_si128(_mm_or_si128(_mm_cmplt_epi8(x, space), _mm_cmpeq_epi8(x, del)),
                                   _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, sq), _mm_cmpeq_epi8(x, dq)),
                                                _mm_cmpeq_epi8(x, bs)));
        if (_mm_movemask_epi8(bad)) return false;
    }
#endif
    return plain_end(s, k, n) == n;
}

/* Most names are printable ASCII with no quote or backslash, which repr()
   writes as they are: one piece instead of a character at a time. */
static inline void put_name(sbuf *b, const char *s, size_t n)
{
    bool plain = n >= 16 ? long_plain(s, n) : plain_end(s, 0, n) == n;
    if (!plain) { /* a '"' too goes to put_repr */
        put_repr(b, s, n);
        return;
    }
    put(b, "'", 1);
    put(b, s, n);
    put(b, "'", 1);
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
    const npyg_dtype *last = NULL; /* the last field's dtype, spelled at last_at.. in the text */
    size_t last_at = 0, last_len = 0;
    for (uint32_t k = 0; k < d->nfields; k++) {
        const npyg_field *f = &d->fields[k];
        if (f->offset > at) put_pad(b, f->offset - at, &first);
        if (!first) puts_(b, ", ");
        first = false;
        puts_(b, "(");
        if (f->title) {
            puts_(b, "(");
            put_name(b, f->title, f->title_len);
            puts_(b, ", ");
        }
        put_name(b, f->name, f->name_len);
        if (f->title) puts_(b, ")");
        puts_(b, ", ");
        if (f->type->kind == NPYG_KIND_SUBARRAY) {
            put_descr(b, f->type->base);
            puts_(b, ", ");
            put_shape(b, f->type->sub_ndim, f->type->sub_shape);
        } else if (b->cmp && !b->diff && f->type == last) {
            /* Fields in a run share one dtype: the text must spell it
               again as it did, which it did as put_descr does (no diff). */
            put(b, b->cmp + last_at, last_len);
        } else {
            last = f->type;
            last_at = b->len;
            put_descr(b, f->type);
            last_len = b->len - last_at;
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

/* snprintf's contract for a descr writer: the length it needs, at most
   size bytes written, NUL-terminated. */
static size_t format_with(void (*put_fn)(sbuf *, const npyg_dtype *), const npyg_dtype *dtype, char *out,
                          size_t size)
{
    sbuf b = {.p = out, .size = size};
    if (!dtype) return 0;
    put_fn(&b, dtype);
    if (size) out[b.len < size ? b.len : size - 1] = '\0';
    return b.len;
}

size_t npyg_format_descr(const npyg_dtype *dtype, char *out, size_t size)
{
    return format_with(put_descr, dtype, out, size);
}

/* ---------------- the descr as JSON ---------------- */

/* A JSON string of a name (UTF-8, checked by the parser): '"' and '\\'
   escaped, and what Python's str.isprintable() refuses written as \u
   escapes, so that a reader gets the name back and a terminal never sees
   a control. */
static void put_json_str(sbuf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    put(b, "\"", 1);
    for (size_t k = 0; k < n;) {
        size_t at = k;
        uint32_t cp = (unsigned char)s[k];
        if (cp < 0x80) k++;
        else cp = utf8_cp(s, n, &k);
        if (cp == '"' || cp == '\\') {
            char esc[2] = {'\\', (char)cp};
            put(b, esc, 2);
        } else if (cp >= 0x20 && cp != 0x7f && printable(cp)) {
            put(b, s + at, k - at);
        } else {
            bool pair = cp > 0xFFFF;
            uint32_t unit[2] = {pair ? 0xD800 + ((cp - 0x10000) >> 10) : cp, 0xDC00 + (cp & 0x3FF)};
            for (size_t u = 0; u <= (size_t)pair; u++) {
                char esc[6] = {'\\', 'u', hex[unit[u] >> 12], hex[(unit[u] >> 8) & 15],
                               hex[(unit[u] >> 4) & 15], hex[unit[u] & 15]};
                put(b, esc, 6);
            }
        }
    }
    put(b, "\"", 1);
}

/* [2, 3]; a dim above 2**53 as a string, so that every JSON reader keeps it. */
static void put_json_shape(sbuf *b, uint32_t nd, const uint64_t *dims)
{
    puts_(b, "[");
    for (uint32_t k = 0; k < nd; k++) {
        bool big = dims[k] > (UINT64_C(1) << 53);
        if (k) puts_(b, ", ");
        if (big) puts_(b, "\"");
        put_u64(b, dims[k]);
        if (big) puts_(b, "\"");
    }
    puts_(b, "]");
}

static void put_json_descr(sbuf *b, const npyg_dtype *d)
{
    if (d->kind == NPYG_KIND_SUBARRAY) {
        puts_(b, "[");
        put_json_descr(b, d->base);
        puts_(b, ", ");
        put_json_shape(b, d->sub_ndim, d->sub_shape);
        puts_(b, "]");
        return;
    }
    if (d->kind != NPYG_KIND_STRUCT) {
        puts_(b, "\"");
        put_typestr(b, d);
        puts_(b, "\"");
        return;
    }
    puts_(b, "[");
    for (uint32_t k = 0; k < d->nfields; k++) {
        const npyg_field *f = &d->fields[k];
        const npyg_dtype *t = f->type;
        puts_(b, k ? ", [" : "[");
        if (f->title) {
            puts_(b, "[");
            put_json_str(b, f->title, f->title_len);
            puts_(b, ", ");
        }
        put_json_str(b, f->name, f->name_len);
        puts_(b, f->title ? "], " : ", ");
        /* a field's subarray is [name, base, shape], as in numpy's descr */
        put_json_descr(b, t->kind == NPYG_KIND_SUBARRAY ? t->base : t);
        if (t->kind == NPYG_KIND_SUBARRAY) {
            puts_(b, ", ");
            put_json_shape(b, t->sub_ndim, t->sub_shape);
        }
        puts_(b, "]");
    }
    puts_(b, "]");
}

size_t npyg_format_descr_json(const npyg_dtype *dtype, char *out, size_t size)
{
    return format_with(put_json_descr, dtype, out, size);
}

static void put_dict(sbuf *b, const npyg_info *info)
{
    put(b, W_OPEN, LEN(W_OPEN));
    put(b, W_DESCR, LEN(W_DESCR));
    put_descr(b, info->dtype);
    put(b, W_FORTRAN, LEN(W_FORTRAN));
    puts_(b, info->fortran_order ? "True" : "False");
    put(b, W_SHAPE, LEN(W_SHAPE));
    put_shape(b, info->ndim, info->shape);
    put(b, W_TAIL, LEN(W_TAIL));
}

bool npyg__descr_is_canonical(const npyg_info *info, const char *text, size_t len)
{
    sbuf b = {.cmp = text, .size = len, .latin1 = info->version_major < 3};
    put_descr(&b, info->dtype);
    return !b.diff && !b.unfit && b.len == len;
}

bool npyg__header_is_canonical(const npyg_info *info, const char *text, size_t len)
{
    sbuf b = {.cmp = text, .size = len, .latin1 = info->version_major < 3};
    put_dict(&b, info);
    if (b.diff || b.unfit || b.len >= len) return false;
    for (size_t k = b.len; k + 1 < len; k++)
        if (text[k] != ' ') return false;
    return text[len - 1] == '\n';
}
