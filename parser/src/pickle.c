/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The static pickle scanner: what an object array's payload would import,
 * read from its opcodes without unpickling anything.
 *
 * The stack and the memo hold one 32-bit tag per value: its kind (a string
 * we kept, a string we did not, an imported object, the result of calling
 * one, anything else) and, for kept strings and imports, an index. That is
 * all naming needs: STACK_GLOBAL takes its module and name from two
 * strings, usually fetched from the memo, and REDUCE, NEWOBJ, OBJ and BUILD
 * act on whatever the stack holds at a known depth. Every array grows on
 * demand through the context's allocator, up to its own limit.
 */
#include "internal.h"

#include <stdio.h>
#include <stddef.h>
#include <string.h>

#define NAME_MAX_ NPYG_PICKLE_NAME_MAX
/* A STRING or UNICODE line holds at most 10 source bytes per decoded
   byte (\U0000XXXX gives up to 4 UTF-8 bytes from 10); longer lines can
   only decode to strings we would not keep anyway. */
#define LINE_KEEP (10u * NAME_MAX_ + 2u)

enum kind {
    K_UNDEF = 0,  /* an empty memo slot */
    K_OTHER,      /* a value that is never a str nor callable from the pickle's own making */
    K_STR,        /* a string we kept: payload is its offset in the pool */
    K_STRX,       /* a string we did not keep (too long, or not identifier-like) */
    K_GLOBAL,     /* an imported object: payload is the import's index */
    K_RESULT,     /* what calling an import returned: payload is that import */
    K_OPAQUE      /* made by code outside the pickle (persistent_load, a call of a call) */
};

#define TAG(k, v) ((uint32_t)(k) | (uint32_t)(v) << 3)
#define KIND(t) ((enum kind)((t) & 7u))
#define VAL(t) ((t) >> 3)

typedef struct imp {
    uint32_t mod_off, mod_len, name_off, name_len; /* in the names pool */
    unsigned flags;
    uint32_t refs;
    uint64_t offset;
    int32_t ext;
} imp;

/* Grown arrays: bytes allocated, so that frees and growth charge right. */
typedef struct grow {
    void *p;
    size_t cap; /* bytes */
} grow;

typedef struct scan {
    npyg_ctx *ctx;
    npyg_pickle_limits lim;

    /* input: a buffer, or any other input through a chunk buffer */
    const uint8_t *buf;
    size_t len, bpos;
    npyg__input *in;
    uint8_t *chunk;
    size_t clen, cpos;
    bool eof;
    uint64_t pos;  /* pickle bytes consumed */
    uint64_t base; /* file offset of the pickle's first byte */

    grow stack, marks, memo, pool, imps, names;
    uint32_t sp, nmarks, pool_len, nimps;
    size_t names_len;
    uint64_t memo_defined;

    int protocol;
    uint64_t ops;
    unsigned flags;
    uint64_t op_at; /* offset of the current opcode */
} scan;

/* ---------------- limits ---------------- */

void npyg_pickle_limits_default(npyg_pickle_limits *l)
{
    if (l) npyg__limits_fill(NPYG__LG_PICKLE, l);
}

static bool limits_valid(const npyg_pickle_limits *l) { return npyg__limits_bad(NPYG__LG_PICKLE, l) < 0; }

/* One kept string: a length byte, the bytes, a NUL. */
#define POOL_ENTRY_MAX (NAME_MAX_ + 2u)
/* One import's names: module and attribute, each with its NUL. */
#define NAMES_PER_IMPORT (2u * (NAME_MAX_ + 1u))

typedef struct report_box {
    size_t size;
    npyg_pickle_report rep;
} report_box;

static uint64_t report_bound(uint64_t nimps, uint64_t names)
{
    return sizeof(report_box) + nimps * sizeof(npyg_pickle_import) + names;
}

uint64_t npyg_pickle_worst_case_alloc(const npyg_pickle_limits *limits)
{
    npyg_pickle_limits d;
    if (!limits) {
        npyg_pickle_limits_default(&d);
        limits = &d;
    }
    if (!limits_valid(limits)) return 0;
    uint64_t im = limits->max_imports;
    uint64_t names = im * NAMES_PER_IMPORT;
    uint64_t arrays[] = {
        (uint64_t)limits->max_stack * 4u,                        /* stack */
        (uint64_t)limits->max_stack * 4u,                        /* marks */
        (uint64_t)limits->max_memo * 4u,                         /* memo */
        (uint64_t)limits->max_string_bytes + POOL_ENTRY_MAX,     /* kept strings */
        im * sizeof(imp),                                        /* imports */
        names,                                                   /* their names */
    };
    /* Growing one array holds its old and new blocks at once: at most its
       cap twice. Only one grows at a time, but the sum of doubles is
       simpler to check and still a few MiB under the defaults. */
    uint64_t sum = NPYG__CHUNK + report_bound(im, names);
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) sum += 2 * arrays[i];
    return sum;
}

/* ---------------- errors ---------------- */

static int fail_at(scan *s, int code, uint64_t at, const char *fmt, ...) NPYG__PRINTF(4, 5);
static int fail_at(scan *s, int code, uint64_t at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = npyg__vfail(s->ctx, code, s->base + at, fmt, ap);
    va_end(ap);
    return rc;
}

#define BAD(s, ...) fail_at((s), NPYG_EPICKLE, (s)->op_at, __VA_ARGS__)

static int truncated(scan *s)
{
    return fail_at(s, NPYG_EPICKLE_TRUNC, s->pos, "the pickle ends inside an opcode or before STOP");
}

static int read_failed(scan *s)
{
    /* A callback that records its own error (a zip member) keeps it. */
    if (s->ctx->err.code) return s->ctx->err.code;
    return fail_at(s, NPYG_EIO, s->pos, "read error");
}

/* ---------------- growable arrays ---------------- */

/* Makes g at least need bytes (doubling, never past cap). */
static int reserve(scan *s, grow *g, size_t need, size_t cap)
{
    if (need <= g->cap) return 0;
    size_t n = g->cap ? g->cap : 256;
    while (n < need) n = n > cap / 2 ? cap : n * 2;
    if (n > cap) n = cap; /* small limits: never more than they allow */
    if (n < need) n = need;
    void *p = npyg__xalloc(s->ctx, n);
    if (!p) return npyg__nomem(s->ctx, s->base + s->op_at);
    if (g->cap) memcpy(p, g->p, g->cap);
    memset((char *)p + g->cap, 0, n - g->cap);
    npyg__xfree(s->ctx, g->p, g->cap);
    g->p = p;
    g->cap = n;
    return 0;
}

static void release(scan *s, grow *g)
{
    npyg__xfree(s->ctx, g->p, g->cap);
    g->p = NULL;
    g->cap = 0;
}

/* ---------------- input ---------------- */

/* Makes at least one byte available; 0 at the end, -1 on a read error. */
static int fill(scan *s)
{
    if (s->buf) return s->bpos < s->len ? 1 : 0;
    if (s->cpos < s->clen) return 1;
    if (s->eof) return 0;
    long long r = npyg__in_read_some(s->in, s->chunk, NPYG__CHUNK);
    if (r < 0) return -1;
    if (r == 0) {
        s->eof = true;
        return 0;
    }
    s->clen = (size_t)r;
    s->cpos = 0;
    return 1;
}

/* Up to n bytes at *p without copying; 0 at the end. */
static long long peek(scan *s, const uint8_t **p, size_t n)
{
    int f = fill(s);
    if (f <= 0) return f;
    size_t avail = s->buf ? s->len - s->bpos : s->clen - s->cpos;
    *p = s->buf ? s->buf + s->bpos : s->chunk + s->cpos;
    return (long long)(n < avail ? n : avail);
}

static void consume(scan *s, size_t n)
{
    if (s->buf) s->bpos += n;
    else s->cpos += n;
    s->pos += n;
}

/* The bytes limit, checked before anything is read past it. */
static int budget(scan *s, uint64_t n)
{
    if (n > s->lim.max_bytes || s->pos > s->lim.max_bytes - n)
        return fail_at(s, NPYG_ELIMIT_PICKLE_BYTES, s->op_at,
                       "the pickle runs past max_bytes (%llu)", (unsigned long long)s->lim.max_bytes);
    return 0;
}

/* Exactly n bytes into dst (NULL: skip them). */
static int take(scan *s, void *dst, uint64_t n)
{
    int rc = budget(s, n);
    if (rc) return rc;
    while (n) {
        const uint8_t *p;
        long long got = peek(s, &p, n > SIZE_MAX ? SIZE_MAX : (size_t)n);
        if (got < 0) return read_failed(s);
        if (got == 0) return truncated(s);
        if (dst) {
            memcpy(dst, p, (size_t)got);
            dst = (char *)dst + got;
        }
        consume(s, (size_t)got);
        n -= (uint64_t)got;
    }
    return 0;
}

/* Walks one line, its newline consumed, handing each piece of its text
   (without the newline) to fn. A line that runs past max_bytes is
   consumed up to the limit, whatever the chunking, so that every input
   path stops at the same byte. */
static int walk_line(scan *s, void (*fn)(void *user, const uint8_t *p, size_t n), void *user)
{
    for (;;) {
        const uint8_t *p;
        long long got = peek(s, &p, SIZE_MAX);
        if (got < 0) return read_failed(s);
        if (got == 0) return truncated(s);
        const uint8_t *nl = memchr(p, '\n', (size_t)got);
        size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)got; /* bytes to consume */
        uint64_t room = s->lim.max_bytes - s->pos;
        bool over = n > room;
        if (over) n = (size_t)room;
        fn(user, p, nl && !over ? n - 1 : n);
        consume(s, n);
        if (over) return budget(s, 1);
        if (nl) return 0;
    }
}

typedef struct {
    char *dst;
    size_t cap;
    uint64_t len;
} line_copy;

static void copy_piece(void *user, const uint8_t *p, size_t n)
{
    line_copy *c = user;
    if (c->len < c->cap) {
        size_t k = c->cap - (size_t)c->len < n ? c->cap - (size_t)c->len : n;
        memcpy(c->dst + c->len, p, k);
    }
    c->len += n;
}

/* One line: the first cap bytes into dst, *len the whole length (so
   *len > cap says it was cut). */
static int take_line(scan *s, char *dst, size_t cap, uint64_t *len)
{
    line_copy c = {dst, cap, 0};
    int rc = walk_line(s, copy_piece, &c);
    *len = c.len;
    return rc;
}

static uint64_t le(const uint8_t *b, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;) v = v << 8 | b[i];
    return v;
}

/* ---------------- the stack ---------------- */

static uint32_t *stk(scan *s) { return s->stack.p; }
static uint32_t frame_base(const scan *s) { return s->nmarks ? ((uint32_t *)s->marks.p)[s->nmarks - 1] : 0; }
static uint32_t frame_len(const scan *s) { return s->sp - frame_base(s); }

static int depth_check(scan *s)
{
    if ((uint64_t)s->sp + s->nmarks >= s->lim.max_stack)
        return fail_at(s, NPYG_ELIMIT_PICKLE_STACK, s->op_at, "stack deeper than max_stack (%u)",
                       s->lim.max_stack);
    return 0;
}

static int push(scan *s, uint32_t tag)
{
    int rc = depth_check(s);
    if (!rc) rc = reserve(s, &s->stack, ((size_t)s->sp + 1) * 4, (size_t)s->lim.max_stack * 4);
    if (rc) return rc;
    stk(s)[s->sp++] = tag;
    return 0;
}

static int need(scan *s, uint32_t n, const char *op)
{
    if (frame_len(s) < n) return BAD(s, "%s needs %u stack items, the stack has %u", op, n, frame_len(s));
    return 0;
}

static int mark(scan *s)
{
    int rc = depth_check(s);
    if (!rc) rc = reserve(s, &s->marks, ((size_t)s->nmarks + 1) * 4, (size_t)s->lim.max_stack * 4);
    if (rc) return rc;
    ((uint32_t *)s->marks.p)[s->nmarks++] = s->sp;
    return 0;
}

/* Drops the items above the last mark and the mark; *n their number. */
static int pop_mark(scan *s, const char *op, uint32_t *n)
{
    if (!s->nmarks) return BAD(s, "%s without a MARK", op);
    uint32_t b = frame_base(s);
    if (n) *n = s->sp - b;
    s->sp = b;
    s->nmarks--;
    return 0;
}

/* ---------------- strings and imports ---------------- */

/* Identifier-like: what a module or attribute name can be. Other strings
   (data) are not kept, so a large array of text does not fill the pool. */
static bool name_like(const uint8_t *p, size_t n)
{
    if (n > NAME_MAX_) return false;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        if (!(c >= 0x80 || c == '_' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
              (c >= 'A' && c <= 'Z')))
            return false;
    }
    return true;
}

static int push_string(scan *s, const uint8_t *p, size_t n)
{
    if (!name_like(p, n)) return push(s, TAG(K_STRX, 0));
    if ((uint64_t)s->pool_len + n + 2 > s->lim.max_string_bytes)
        return fail_at(s, NPYG_ELIMIT_PICKLE_STRINGS, s->op_at,
                       "strings kept for naming pass max_string_bytes (%u)", s->lim.max_string_bytes);
    int rc = reserve(s, &s->pool, (size_t)s->pool_len + n + 2, (size_t)s->lim.max_string_bytes + POOL_ENTRY_MAX);
    if (rc) return rc;
    uint8_t *d = (uint8_t *)s->pool.p + s->pool_len;
    d[0] = (uint8_t)n;
    memcpy(d + 1, p, n);
    d[n + 1] = 0;
    uint32_t off = s->pool_len;
    s->pool_len += (uint32_t)n + 2;
    return push(s, TAG(K_STR, off));
}

static const uint8_t *pool_str(const scan *s, uint32_t off, size_t *n)
{
    const uint8_t *d = (const uint8_t *)s->pool.p + off;
    *n = d[0];
    return d + 1;
}

static imp *imps(scan *s) { return s->imps.p; }

/* The import named module.name (new or seen before); *idx its index. */
static int add_import(scan *s, const char *mod, size_t ml, const char *name, size_t nl, unsigned flags,
                      int32_t ext, uint32_t *idx)
{
    const char *pool = s->names.p;
    for (uint32_t i = 0; i < s->nimps; i++) {
        imp *m = &imps(s)[i];
        if (m->ext == ext && m->mod_len == ml && m->name_len == nl &&
            (m->flags & (NPYG_PI_UNRESOLVED | NPYG_PI_TRUNCATED)) ==
                (flags & (NPYG_PI_UNRESOLVED | NPYG_PI_TRUNCATED)) &&
            memcmp(pool + m->mod_off, mod, ml) == 0 && memcmp(pool + m->name_off, name, nl) == 0) {
            m->refs++;
            *idx = i;
            return 0;
        }
    }
    if (s->nimps >= s->lim.max_imports)
        return fail_at(s, NPYG_ELIMIT_PICKLE_IMPORTS, s->op_at, "more than max_imports (%u) distinct imports",
                       s->lim.max_imports);
    size_t cap_i = (size_t)s->lim.max_imports * sizeof(imp);
    size_t cap_n = (size_t)s->lim.max_imports * NAMES_PER_IMPORT;
    int rc = reserve(s, &s->imps, ((size_t)s->nimps + 1) * sizeof(imp), cap_i);
    if (!rc) rc = reserve(s, &s->names, s->names_len + ml + nl + 2, cap_n);
    if (rc) return rc;
    char *d = (char *)s->names.p + s->names_len;
    memcpy(d, mod, ml);
    d[ml] = 0;
    memcpy(d + ml + 1, name, nl);
    d[ml + 1 + nl] = 0;
    imp *m = &imps(s)[s->nimps];
    m->mod_off = (uint32_t)s->names_len;
    m->mod_len = (uint32_t)ml;
    m->name_off = (uint32_t)(s->names_len + ml + 1);
    m->name_len = (uint32_t)nl;
    m->flags = flags;
    m->refs = 1;
    m->offset = s->base + s->op_at;
    m->ext = ext;
    s->names_len += ml + nl + 2;
    *idx = s->nimps++;
    return 0;
}

/* GLOBAL and INST: module and name on two lines. */
static int line_import(scan *s, uint32_t *idx)
{
    char mod[NAME_MAX_], name[NAME_MAX_];
    uint64_t ml, nl;
    int rc = take_line(s, mod, sizeof mod, &ml);
    if (!rc) rc = take_line(s, name, sizeof name, &nl);
    if (rc) return rc;
    unsigned fl = ml > NAME_MAX_ || nl > NAME_MAX_ ? NPYG_PI_TRUNCATED : 0;
    return add_import(s, mod, ml > NAME_MAX_ ? NAME_MAX_ : (size_t)ml, name, nl > NAME_MAX_ ? NAME_MAX_ : (size_t)nl,
                      fl, 0, idx);
}

/* BUILD gives state to an import, or to what calling one returned. */
static void build(scan *s, uint32_t tag)
{
    if (KIND(tag) == K_GLOBAL || KIND(tag) == K_RESULT) imps(s)[VAL(tag)].flags |= NPYG_PI_BUILD;
}

/* What calling tag returns, marking the use on the import. */
static uint32_t call(scan *s, uint32_t tag, unsigned flag)
{
    switch (KIND(tag)) {
    case K_GLOBAL:
        imps(s)[VAL(tag)].flags |= flag;
        return TAG(K_RESULT, VAL(tag));
    case K_RESULT:
    case K_OPAQUE:
        s->flags |= NPYG_PR_INDIRECT_CALL;
        return TAG(K_OPAQUE, 0);
    default:
        return TAG(K_OTHER, 0); /* not callable: the loader raises there */
    }
}

static int stack_global(scan *s)
{
    int rc = need(s, 2, "STACK_GLOBAL");
    if (rc) return rc;
    uint32_t name = stk(s)[s->sp - 1], mod = stk(s)[s->sp - 2];
    s->sp -= 2;
    const char *part[2] = {"?", "?"};
    size_t plen[2] = {1, 1};
    unsigned fl = 0;
    uint32_t t[2] = {mod, name};
    for (int i = 0; i < 2; i++) {
        switch (KIND(t[i])) {
        case K_STR:
            part[i] = (const char *)pool_str(s, VAL(t[i]), &plen[i]);
            break;
        case K_STRX:
        case K_GLOBAL: /* an imported object may be a str (os.sep) */
        case K_RESULT:
        case K_OPAQUE:
            fl = NPYG_PI_UNRESOLVED;
            break;
        default:
            return BAD(s, "STACK_GLOBAL on a value that is not a string");
        }
    }
    uint32_t idx;
    rc = add_import(s, part[0], plen[0], part[1], plen[1], fl, 0, &idx);
    return rc ? rc : push(s, TAG(K_GLOBAL, idx));
}

/* ---------------- the memo ---------------- */

static uint32_t *memo(scan *s) { return s->memo.p; }

static int memo_index_ok(scan *s, uint64_t i)
{
    if (i >= s->lim.max_memo)
        return fail_at(s, NPYG_ELIMIT_PICKLE_MEMO, s->op_at, "memo index %llu is at or above max_memo (%u)",
                       (unsigned long long)i, s->lim.max_memo);
    return 0;
}

static int memo_put(scan *s, uint64_t i)
{
    int rc = memo_index_ok(s, i);
    if (!rc && frame_len(s) == 0) rc = BAD(s, "memo store from an empty stack");
    if (!rc) rc = reserve(s, &s->memo, ((size_t)i + 1) * 4, (size_t)s->lim.max_memo * 4);
    if (rc) return rc;
    if (memo(s)[i] == K_UNDEF) s->memo_defined++;
    memo(s)[i] = stk(s)[s->sp - 1];
    return 0;
}

static int memo_get(scan *s, uint64_t i)
{
    int rc = memo_index_ok(s, i);
    if (rc) return rc;
    if ((i + 1) * 4 > s->memo.cap || memo(s)[i] == K_UNDEF)
        return BAD(s, "memo entry %llu was never stored", (unsigned long long)i);
    return push(s, memo(s)[i]);
}

/* The decimal argument of GET and PUT, as int() reads it (and so
   pickle.loads): ASCII whitespace around, an optional '+', digits with
   single underscores between them, leading zeros and blanks of any
   length. Read as it streams past (walk_line), so that no length makes a
   valid index malformed. */
enum { IX_LEAD, IX_SIGN, IX_DIGIT, IX_UNDER, IX_TRAIL, IX_BAD };

static bool index_blank(uint8_t c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

typedef struct {
    int st;
    uint64_t v;
    bool over;
} index_reader;

static void index_piece(void *user, const uint8_t *p, size_t n)
{
    index_reader *r = user;
    for (size_t i = 0; i < n && r->st != IX_BAD; i++) {
        uint8_t c = p[i];
        bool digit = c >= '0' && c <= '9';
        if (digit && r->st != IX_TRAIL) {
            if (r->v > (UINT64_MAX - 9) / 10) r->over = true;
            else r->v = r->v * 10 + (uint64_t)(c - '0');
            r->st = IX_DIGIT;
        } else if (index_blank(c) && (r->st == IX_LEAD || r->st == IX_DIGIT || r->st == IX_TRAIL)) {
            r->st = r->st == IX_LEAD ? IX_LEAD : IX_TRAIL;
        } else if (c == '+' && r->st == IX_LEAD) {
            r->st = IX_SIGN;
        } else if (c == '_' && r->st == IX_DIGIT) {
            r->st = IX_UNDER;
        } else {
            r->st = IX_BAD;
        }
    }
}

static int text_index(scan *s, const char *op, uint64_t *out)
{
    index_reader r = {IX_LEAD, 0, false};
    int rc = walk_line(s, index_piece, &r);
    if (rc) return rc;
    if (r.st != IX_DIGIT && r.st != IX_TRAIL) return BAD(s, "%s index is not a non-negative integer", op);
    if (r.over) return memo_index_ok(s, UINT64_MAX);
    *out = r.v;
    return 0;
}

/* ---------------- text strings ---------------- */

/* STRING: a quoted repr, decoded as codecs.escape_decode does. */
static int text_string(scan *s)
{
    char line[LINE_KEEP];
    uint64_t n;
    int rc = take_line(s, line, sizeof line, &n);
    if (rc) return rc;
    if (n > sizeof line) return push(s, TAG(K_STRX, 0)); /* quoting of a cut line is not checked */
    if (n < 2 || line[0] != line[n - 1] || (line[0] != '\'' && line[0] != '"'))
        return BAD(s, "the STRING argument must be quoted");
    uint8_t out[LINE_KEEP];
    size_t o = 0;
    for (size_t i = 1; i + 1 < n; i++) {
        uint8_t c = (uint8_t)line[i];
        if (c != '\\') { out[o++] = c; continue; }
        if (i + 2 >= n) return BAD(s, "STRING argument ends with a backslash");
        c = (uint8_t)line[++i];
        switch (c) {
        case '\\': case '\'': case '"': out[o++] = c; break;
        case 'a': out[o++] = 7; break;
        case 'b': out[o++] = 8; break;
        case 'f': out[o++] = 12; break;
        case 'n': out[o++] = 10; break;
        case 'r': out[o++] = 13; break;
        case 't': out[o++] = 9; break;
        case 'v': out[o++] = 11; break;
        case 'x': {
            int h = i + 1 + 1 < n ? npyg__hexval(line[i + 1]) : -1;
            int l = i + 2 + 1 < n ? npyg__hexval(line[i + 2]) : -1;
            if (h < 0 || l < 0) return BAD(s, "invalid \\x escape in a STRING argument");
            out[o++] = (uint8_t)(h << 4 | l);
            i += 2;
            break;
        }
        default:
            if (c >= '0' && c <= '7') {
                unsigned v = c - '0';
                for (int k = 0; k < 2 && i + 1 + 1 < n && line[i + 1] >= '0' && line[i + 1] <= '7'; k++)
                    v = v * 8 + (unsigned)(line[++i] - '0');
                out[o++] = (uint8_t)v;
            } else { /* unknown escapes stay as written */
                out[o++] = '\\';
                out[o++] = c;
            }
        }
    }
    return push_string(s, out, o);
}

static size_t utf8_put(uint8_t *d, uint32_t cp)
{
    if (cp < 0x80) { d[0] = (uint8_t)cp; return 1; }
    if (cp < 0x800) { d[0] = (uint8_t)(0xC0 | cp >> 6); d[1] = (uint8_t)(0x80 | (cp & 63)); return 2; }
    if (cp < 0x10000) {
        d[0] = (uint8_t)(0xE0 | cp >> 12);
        d[1] = (uint8_t)(0x80 | (cp >> 6 & 63));
        d[2] = (uint8_t)(0x80 | (cp & 63));
        return 3;
    }
    d[0] = (uint8_t)(0xF0 | cp >> 18);
    d[1] = (uint8_t)(0x80 | (cp >> 12 & 63));
    d[2] = (uint8_t)(0x80 | (cp >> 6 & 63));
    d[3] = (uint8_t)(0x80 | (cp & 63));
    return 4;
}

/* UNICODE: raw-unicode-escape, where only \uXXXX and \UXXXXXXXX are
   escapes (after an even run of backslashes) and other bytes are Latin-1. */
static int text_unicode(scan *s)
{
    char line[LINE_KEEP];
    uint64_t n;
    int rc = take_line(s, line, sizeof line, &n);
    if (rc) return rc;
    if (n > sizeof line) return push(s, TAG(K_STRX, 0));
    uint8_t out[4 * LINE_KEEP];
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        uint8_t c = (uint8_t)line[i];
        if (c == '\\' && i + 1 < n && (line[i + 1] == 'u' || line[i + 1] == 'U')) {
            size_t digits = line[i + 1] == 'u' ? 4 : 8;
            if (i + 2 + digits > n) return BAD(s, "truncated \\%c escape in a UNICODE argument", line[i + 1]);
            uint32_t cp = 0;
            for (size_t k = 0; k < digits; k++) {
                int h = npyg__hexval(line[i + 2 + k]);
                if (h < 0) return BAD(s, "invalid \\%c escape in a UNICODE argument", line[i + 1]);
                cp = cp << 4 | (uint32_t)h;
            }
            if (cp > 0x10FFFF) return BAD(s, "\\U escape above U+10FFFF in a UNICODE argument");
            o += utf8_put(out + o, cp);
            i += 2 + digits;
            continue;
        }
        if (c == '\\') { /* a pair of backslashes escapes nothing */
            out[o++] = c;
            i++;
            if (i < n && line[i] == '\\') { out[o++] = '\\'; i++; }
            continue;
        }
        o += utf8_put(out + o, c);
        i++;
    }
    return push_string(s, out, o);
}

/* A counted string: kept if short, else skipped without copying. */
static int counted_string(scan *s, uint64_t n, bool is_str)
{
    if (!is_str) {
        int rc = take(s, NULL, n);
        return rc ? rc : push(s, TAG(K_OTHER, 0));
    }
    if (n > NAME_MAX_) {
        int rc = take(s, NULL, n);
        return rc ? rc : push(s, TAG(K_STRX, 0));
    }
    uint8_t b[NAME_MAX_];
    int rc = take(s, b, n);
    return rc ? rc : push_string(s, b, (size_t)n);
}

/* ---------------- the opcodes ---------------- */

/* Fixed-size little-endian argument. */
static int arg(scan *s, unsigned n, uint64_t *v)
{
    uint8_t b[8];
    int rc = take(s, b, n);
    if (!rc) *v = le(b, n);
    return rc;
}

static int skip_line(scan *s)
{
    uint64_t n;
    return take_line(s, NULL, 0, &n);
}

/* One opcode; 1 after STOP. */
static int step(scan *s)
{
    uint8_t op;
    uint64_t v = 0;
    uint32_t n = 0, idx = 0;
    int rc = take(s, &op, 1);
    if (rc) return rc;
    switch (op) {
    /* -------- stack structure */
    case '(': return mark(s);                                   /* MARK */
    case '.':                                                   /* STOP */
        rc = need(s, 1, "STOP");
        return rc ? rc : 1;
    case '0':                                                   /* POP */
        if (frame_len(s)) { s->sp--; return 0; }
        return pop_mark(s, "POP", NULL);
    case '1': return pop_mark(s, "POP_MARK", NULL);             /* POP_MARK */
    case '2':                                                   /* DUP */
        rc = need(s, 1, "DUP");
        return rc ? rc : push(s, stk(s)[s->sp - 1]);

    /* -------- scalars */
    case 'I': case 'L': case 'F':                               /* INT, LONG, FLOAT */
        rc = skip_line(s);
        return rc ? rc : push(s, TAG(K_OTHER, 0));
    case 'J': case 'K': case 'M': case 'G':                     /* BININT, BININT1, BININT2, BINFLOAT */
        rc = take(s, NULL, op == 'J' ? 4 : op == 'K' ? 1 : op == 'M' ? 2 : 8);
        return rc ? rc : push(s, TAG(K_OTHER, 0));
    case 0x8a:                                                  /* LONG1 */
        rc = arg(s, 1, &v);
        if (!rc) rc = take(s, NULL, v);
        return rc ? rc : push(s, TAG(K_OTHER, 0));
    case 0x8b:                                                  /* LONG4 */
        rc = arg(s, 4, &v);
        if (rc) return rc;
        if (v & 0x80000000u) return BAD(s, "LONG4 with a negative byte count");
        rc = take(s, NULL, v);
        return rc ? rc : push(s, TAG(K_OTHER, 0));
    case 'N': case 0x88: case 0x89:                             /* NONE, NEWTRUE, NEWFALSE */
    case ']': case ')': case '}': case 0x8f:                    /* EMPTY_LIST/TUPLE/DICT/SET */
        return push(s, TAG(K_OTHER, 0));

    /* -------- strings and bytes */
    case 'S': return text_string(s);                            /* STRING */
    case 'V': return text_unicode(s);                           /* UNICODE */
    case 'T':                                                   /* BINSTRING */
        rc = arg(s, 4, &v);
        if (rc) return rc;
        if (v & 0x80000000u) return BAD(s, "BINSTRING with a negative byte count");
        return counted_string(s, v, true);
    case 'U': case 0x8c:                                        /* SHORT_BINSTRING, SHORT_BINUNICODE */
        rc = arg(s, 1, &v);
        return rc ? rc : counted_string(s, v, true);
    case 'X':                                                   /* BINUNICODE */
        rc = arg(s, 4, &v);
        return rc ? rc : counted_string(s, v, true);
    case 0x8d:                                                  /* BINUNICODE8 */
        rc = arg(s, 8, &v);
        if (rc) return rc;
        if (v > INT64_MAX) return BAD(s, "BINUNICODE8 longer than the largest size");
        return counted_string(s, v, true);
    case 'C':                                                   /* SHORT_BINBYTES */
        rc = arg(s, 1, &v);
        return rc ? rc : counted_string(s, v, false);
    case 'B':                                                   /* BINBYTES */
        rc = arg(s, 4, &v);
        return rc ? rc : counted_string(s, v, false);
    case 0x8e: case 0x96:                                       /* BINBYTES8, BYTEARRAY8 */
        rc = arg(s, 8, &v);
        if (rc) return rc;
        if (v > INT64_MAX) return BAD(s, "%s longer than the largest size", op == 0x8e ? "BINBYTES8" : "BYTEARRAY8");
        return counted_string(s, v, false);
    case 0x97:                                                  /* NEXT_BUFFER */
        s->flags |= NPYG_PR_BUFFERS;
        return push(s, TAG(K_OTHER, 0));
    case 0x98: return need(s, 1, "READONLY_BUFFER");            /* READONLY_BUFFER */

    /* -------- containers */
    case 'a': /* APPEND */
        rc = need(s, 2, "APPEND");
        if (!rc) s->sp--;
        return rc;
    case 's': /* SETITEM */
        rc = need(s, 3, "SETITEM");
        if (!rc) s->sp -= 2;
        return rc;
    case 'e': case 'u': case 0x90: {                            /* APPENDS, SETITEMS, ADDITEMS */
        const char *name = op == 'e' ? "APPENDS" : op == 'u' ? "SETITEMS" : "ADDITEMS";
        rc = pop_mark(s, name, &n);
        if (rc) return rc;
        if (op == 'u' && n % 2) return BAD(s, "SETITEMS with an odd number of items");
        return need(s, 1, name);
    }
    case 'l': case 't': case 0x91: case 'd': {                  /* LIST, TUPLE, FROZENSET, DICT */
        rc = pop_mark(s, op == 'l' ? "LIST" : op == 't' ? "TUPLE" : op == 'd' ? "DICT" : "FROZENSET", &n);
        if (rc) return rc;
        if (op == 'd' && n % 2) return BAD(s, "DICT with an odd number of items");
        return push(s, TAG(K_OTHER, 0));
    }
    case 0x85: case 0x86: case 0x87:                            /* TUPLE1, TUPLE2, TUPLE3 */
        n = (uint32_t)(op - 0x84);
        rc = need(s, n, "TUPLEn");
        if (rc) return rc;
        s->sp -= n;
        return push(s, TAG(K_OTHER, 0));

    /* -------- the memo */
    case 'p':                                                   /* PUT */
        rc = text_index(s, "PUT", &v);
        return rc ? rc : memo_put(s, v);
    case 'q':                                                   /* BINPUT */
        rc = arg(s, 1, &v);
        return rc ? rc : memo_put(s, v);
    case 'r':                                                   /* LONG_BINPUT */
        rc = arg(s, 4, &v);
        return rc ? rc : memo_put(s, v);
    case 0x94:                                                  /* MEMOIZE */
        return memo_put(s, s->memo_defined);
    case 'g':                                                   /* GET */
        rc = text_index(s, "GET", &v);
        return rc ? rc : memo_get(s, v);
    case 'h':                                                   /* BINGET */
        rc = arg(s, 1, &v);
        return rc ? rc : memo_get(s, v);
    case 'j':                                                   /* LONG_BINGET */
        rc = arg(s, 4, &v);
        return rc ? rc : memo_get(s, v);

    /* -------- imports and calls */
    case 'c':                                                   /* GLOBAL */
        rc = line_import(s, &idx);
        return rc ? rc : push(s, TAG(K_GLOBAL, idx));
    case 0x93: return stack_global(s);                          /* STACK_GLOBAL */
    case 'i':                                                   /* INST */
        rc = line_import(s, &idx);
        if (!rc) rc = pop_mark(s, "INST", NULL);
        if (rc) return rc;
        imps(s)[idx].flags |= NPYG_PI_INST;
        return push(s, TAG(K_RESULT, idx));
    case 'o': {                                                 /* OBJ */
        uint32_t b = frame_base(s);
        rc = pop_mark(s, "OBJ", &n);
        if (rc) return rc;
        if (n == 0) return BAD(s, "OBJ without a class");
        return push(s, call(s, stk(s)[b], NPYG_PI_OBJ));
    }
    case 'R':                                                   /* REDUCE */
        rc = need(s, 2, "REDUCE");
        if (rc) return rc;
        s->sp--;
        stk(s)[s->sp - 1] = call(s, stk(s)[s->sp - 1], NPYG_PI_REDUCE);
        return 0;
    case 0x81: case 0x92:                                       /* NEWOBJ, NEWOBJ_EX */
        n = op == 0x81 ? 2 : 3;
        rc = need(s, n, op == 0x81 ? "NEWOBJ" : "NEWOBJ_EX");
        if (rc) return rc;
        s->sp -= n - 1;
        stk(s)[s->sp - 1] = call(s, stk(s)[s->sp - 1], NPYG_PI_NEWOBJ);
        return 0;
    case 'b':                                                   /* BUILD */
        rc = need(s, 2, "BUILD");
        if (rc) return rc;
        s->sp--;
        build(s, stk(s)[s->sp - 1]);
        return 0;
    case 0x82: case 0x83: case 0x84: {                         /* EXT1, EXT2, EXT4 */
        unsigned w = op == 0x82 ? 1 : op == 0x83 ? 2 : 4;
        rc = arg(s, w, &v);
        if (rc) return rc;
        int64_t code = w == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
        if (code <= 0) return BAD(s, "extension code %lld is not positive", (long long)code);
        rc = add_import(s, "", 0, "", 0, NPYG_PI_EXT, (int32_t)code, &idx);
        return rc ? rc : push(s, TAG(K_GLOBAL, idx));
    }
    case 'P':                                                   /* PERSID */
        rc = skip_line(s);
        s->flags |= NPYG_PR_PERSID;
        return rc ? rc : push(s, TAG(K_OPAQUE, 0));
    case 'Q':                                                   /* BINPERSID */
        rc = need(s, 1, "BINPERSID");
        if (rc) return rc;
        s->flags |= NPYG_PR_PERSID;
        stk(s)[s->sp - 1] = TAG(K_OPAQUE, 0);
        return 0;

    /* -------- framing */
    case 0x80:                                                  /* PROTO */
        rc = arg(s, 1, &v);
        if (rc) return rc;
        if (v > 5)
            return fail_at(s, NPYG_EPICKLE_PROTO, s->op_at, "pickle protocol %u is above 5", (unsigned)v);
        s->protocol = (int)v;
        return 0;
    case 0x95:                                                  /* FRAME */
        return take(s, NULL, 8);

    default:
        return BAD(s, "unknown opcode 0x%02x", op);
    }
}

/* ---------------- the report ---------------- */

static int make_report(scan *s, int status, npyg_pickle_report **out)
{
    uint64_t size = report_bound(s->nimps, s->names_len);
    report_box *box = npyg__xalloc(s->ctx, (size_t)size);
    if (!box) {
        /* No report: say so, whatever stopped the walk. */
        memset(&s->ctx->err, 0, sizeof s->ctx->err);
        return npyg__nomem(s->ctx, s->base + s->pos);
    }
    memset(box, 0, sizeof *box);
    box->size = (size_t)size;
    npyg_pickle_import *im = (npyg_pickle_import *)(box + 1);
    char *names = (char *)(im + s->nimps);
    if (s->names_len) memcpy(names, s->names.p, s->names_len);
    for (uint32_t i = 0; i < s->nimps; i++) {
        const imp *m = &imps(s)[i];
        im[i].module = names + m->mod_off;
        im[i].module_len = m->mod_len;
        im[i].name = names + m->name_off;
        im[i].name_len = m->name_len;
        im[i].flags = m->flags;
        im[i].refs = m->refs;
        im[i].offset = m->offset;
        im[i].ext_code = m->ext;
    }
    npyg_pickle_report *r = &box->rep;
    r->status = status;
    r->protocol = s->protocol;
    r->length = s->pos;
    r->opcodes = s->ops;
    r->flags = s->flags;
    r->nimports = s->nimps;
    r->imports = s->nimps ? im : NULL;
    *out = r;
    return status;
}

void npyg_pickle_report_free(npyg_ctx *ctx, npyg_pickle_report *r)
{
    if (!ctx || !r) return;
    report_box *box = (report_box *)((char *)r - offsetof(report_box, rep));
    npyg__xfree(ctx, box, box->size);
}

/* Appends text to out, each byte outside printable ASCII (and the
   backslash) as \\xNN. */
static size_t put_escaped(char *out, size_t size, size_t o, const char *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        char e[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
        bool plain = c >= 0x20 && c < 0x7f && c != '\\';
        size_t k = plain ? 1 : 4;
        for (size_t j = 0; j < k; j++, o++)
            if (o + 1 < size) out[o] = plain ? (char)c : e[j];
    }
    return o;
}

size_t npyg_pickle_format_imports(const npyg_pickle_report *r, char *out, size_t size)
{
    size_t o = 0;
    if (!out) size = 0;
    for (uint32_t i = 0; r && i < r->nimports; i++) {
        const npyg_pickle_import *m = &r->imports[i];
        if (i) o = put_escaped(out, size, o, ", ", 2);
        if (m->flags & NPYG_PI_EXT) {
            char num[24];
            int k = snprintf(num, sizeof num, "ext:%ld", (long)m->ext_code);
            o = put_escaped(out, size, o, num, (size_t)k);
            continue;
        }
        o = put_escaped(out, size, o, m->module, m->module_len);
        o = put_escaped(out, size, o, ".", 1);
        o = put_escaped(out, size, o, m->name, m->name_len);
    }
    if (size) out[o < size ? o : size - 1] = '\0';
    return o;
}

static int run(scan *s, npyg_pickle_report **out)
{
    int rc = 0;
    if (!s->buf && !s->chunk) {
        s->chunk = npyg__xalloc(s->ctx, NPYG__CHUNK);
        if (!s->chunk) rc = npyg__nomem(s->ctx, s->base);
    }
    while (!rc) {
        s->op_at = s->pos;
        if (s->ops >= s->lim.max_ops) {
            rc = fail_at(s, NPYG_ELIMIT_PICKLE_OPS, s->pos, "more than max_ops (%llu) opcodes",
                         (unsigned long long)s->lim.max_ops);
            break;
        }
        s->ops++;
        rc = step(s);
    }
    if (rc == 1) rc = 0;
    int status = rc;
    if (rc != NPYG_ENOMEM && rc != NPYG_ELIMIT_ALLOC) {
        /* Release the walk's arrays first so that the report fits where
           they were. */
        release(s, &s->stack);
        release(s, &s->marks);
        release(s, &s->memo);
        release(s, &s->pool);
        rc = make_report(s, status, out);
    }
    release(s, &s->stack);
    release(s, &s->marks);
    release(s, &s->memo);
    release(s, &s->pool);
    release(s, &s->imps);
    release(s, &s->names);
    if (s->chunk) npyg__xfree(s->ctx, s->chunk, NPYG__CHUNK);
    return rc;
}

static int begin(scan *s, npyg_ctx *ctx, const npyg_pickle_limits *limits)
{
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    s->lim = limits ? *limits : ctx->pickle_limits;
    if (!limits_valid(&s->lim)) return npyg__fail(ctx, NPYG_EINVAL, 0, "invalid pickle limits");
    return 0;
}

/* ---------------- .npy files ---------------- */

/* The preamble in the first bytes; the data offset, or an error. */
static int npy_preamble(npyg_ctx *ctx, const uint8_t *pre, size_t got, uint64_t *data_offset)
{
    size_t m = got < NPYG__MAGIC_LEN ? got : NPYG__MAGIC_LEN;
    if (memcmp(pre, NPYG__MAGIC, m) != 0)
        return npyg__fail(ctx, NPYG_EMAGIC, 0, "not an NPY file (does not start with \\x93NUMPY)");
    if (got < 8) return npyg__fail(ctx, NPYG_ETRUNC_PREAMBLE, got, "file ends inside the magic string and version");
    if (!((pre[6] == 1 || pre[6] == 2 || pre[6] == 3) && pre[7] == 0))
        return npyg__fail(ctx, NPYG_EVERSION, 6, "format version %d.%d is not one of 1.0, 2.0, 3.0", pre[6], pre[7]);
    size_t lensize = pre[6] == 1 ? 2 : 4;
    if (got < 8 + lensize)
        return npyg__fail(ctx, NPYG_ETRUNC_PREAMBLE, got, "file ends inside the %zu-byte header length", lensize);
    uint64_t hlen = le(pre + 8, (unsigned)lensize);
    if (hlen > ctx->limits.max_header_bytes)
        return npyg__fail(ctx, NPYG_ELIMIT_HEADER, 8, "length %llu is over max_header_bytes (%llu)",
                          (unsigned long long)hlen, (unsigned long long)ctx->limits.max_header_bytes);
    *data_offset = 8 + lensize + hlen;
    return 0;
}

static int scan_buffer(scan *s, const uint8_t *b, size_t len, bool npy, npyg_pickle_report **out)
{
    uint64_t off = 0;
    int rc = npy ? npy_preamble(s->ctx, b, len < 12 ? len : 12, &off) : 0;
    if (rc) return rc;
    if (off > len) return npyg__fail(s->ctx, NPYG_ETRUNC_HEADER, len, "file ends inside the header");
    s->buf = b + off;
    s->len = len - (size_t)off;
    s->base = off;
    return run(s, out);
}

/* A .npy file read in order: the preamble, the header text skipped
   through the scanner's reader (so that a read error or an early end are
   reported as for the payload), then the pickle. */
static int scan_npy_stream(scan *s, npyg__input *in, npyg_pickle_report **out)
{
    npyg_ctx *ctx = s->ctx;
    uint8_t pre[12];
    long long got = npyg__in_read(in, pre, 10);
    if (got >= 10 && pre[6] != 1) {
        long long more = npyg__in_read(in, pre + 10, 2);
        got = more < 0 ? more : got + more;
    }
    /* A callback that records its own error (a zip member) keeps it. */
    if (got < 0) return ctx->err.code ? ctx->err.code : npyg__fail(ctx, NPYG_EIO, 0, "read error");
    uint64_t off = 0;
    int rc = npy_preamble(ctx, pre, (size_t)got, &off);
    if (rc) return rc;
    s->chunk = npyg__xalloc(ctx, NPYG__CHUNK);
    if (!s->chunk) return npyg__nomem(ctx, (uint64_t)got);
    uint64_t skip = off - (uint64_t)got;
    while (skip) {
        const uint8_t *p;
        long long k = peek(s, &p, skip > SIZE_MAX ? SIZE_MAX : (size_t)skip);
        if (k <= 0) {
            npyg__xfree(ctx, s->chunk, NPYG__CHUNK);
            if (k < 0) return ctx->err.code ? ctx->err.code : npyg__fail(ctx, NPYG_EIO, off - skip, "read error");
            return npyg__fail(ctx, NPYG_ETRUNC_HEADER, off - skip, "file ends inside the header");
        }
        consume(s, (size_t)k);
        skip -= (uint64_t)k;
    }
    s->pos = 0; /* the bytes left in the chunk are the pickle's first */
    s->base = off;
    return run(s, out);
}

/* Scans in: the whole of it as a pickle, or (npy) a .npy file's payload. */
static int scan_input(npyg_ctx *ctx, npyg__input *in, bool npy, const npyg_pickle_limits *limits,
                      npyg_pickle_report **out)
{
    scan s;
    int rc = begin(&s, ctx, limits);
    if (rc) return rc;
    if (in->buf) return scan_buffer(&s, in->buf, (size_t)in->size, npy, out);
    s.in = in;
    return npy ? scan_npy_stream(&s, in, out) : run(&s, out);
}

int npyg__pickle_scan_npy_input(npyg_ctx *ctx, npyg__input *in, const npyg_pickle_limits *limits,
                                npyg_pickle_report **out)
{
    *out = NULL;
    memset(&ctx->err, 0, sizeof ctx->err);
    return scan_input(ctx, in, true, limits, out);
}

void npyg__pickle_forget(npyg_ctx *ctx)
{
    npyg_pickle_report_free(ctx, ctx->pickle_report);
    ctx->pickle_report = NULL;
}

/* Not a reset: the result of the validation that found the object array
   stays, only the previous error and report go. handing: for the forms
   that hand the report over, where to (NULL refused once the input is
   known to be readable, as 0.1.0 did). */
static int scan_call(npyg_ctx *ctx, bool npy, const npyg_pickle_limits *limits, npyg_pickle_report ***handing)
{
    if (!ctx) return NPYG_EINVAL;
    memset(&ctx->err, 0, sizeof ctx->err);
    npyg__pickle_forget(ctx);
    npyg__input in;
    int rc = npyg__input_begin(ctx, &in, 0, NPYG_OFFSET_FILE, NULL);
    if (rc) return rc;
    if (handing && !*handing) return npyg__fail(ctx, NPYG_EINVAL, 0, "NULL report pointer");
    return scan_input(ctx, &in, npy, limits, &ctx->pickle_report);
}

int npyg_pickle_scan(npyg_ctx *ctx, const npyg_pickle_limits *limits) { return scan_call(ctx, false, limits, NULL); }

int npyg_pickle_scan_npy(npyg_ctx *ctx, const npyg_pickle_limits *limits)
{
    return scan_call(ctx, true, limits, NULL);
}

const npyg_pickle_report *npyg_get_pickle_report(const npyg_ctx *ctx) { return ctx ? ctx->pickle_report : NULL; }

/* The forms of 0.1.0: the report handed to the caller, who frees it. */
static int handed(npyg_ctx *ctx, bool npy, const npyg_pickle_limits *limits, npyg_pickle_report **out)
{
    if (out) *out = NULL;
    int rc = scan_call(ctx, npy, limits, &out);
    if (ctx && out) {
        *out = ctx->pickle_report;
        ctx->pickle_report = NULL;
    }
    return rc;
}

/* call_buffer and call_read: set the input, scan, hand the report over. */
#define HANDED_FORMS(call, npy)                                                                          \
    int call##_buffer(npyg_ctx *ctx, const void *buf, size_t len, const npyg_pickle_limits *limits,     \
                      npyg_pickle_report **out)                                                         \
    {                                                                                                    \
        npyg_set_input_buffer(ctx, buf, len);                                                            \
        return handed(ctx, npy, limits, out);                                                            \
    }                                                                                                    \
    int call##_read(npyg_ctx *ctx, npyg_read_fn fn, void *user, const npyg_pickle_limits *limits,       \
                    npyg_pickle_report **out)                                                           \
    {                                                                                                    \
        npyg_set_input_read(ctx, fn, user);                                                              \
        return handed(ctx, npy, limits, out);                                                            \
    }

HANDED_FORMS(npyg_pickle_scan, false)
HANDED_FORMS(npyg_pickle_scan_npy, true)

int npyg_pickle_scan_npy_fd(npyg_ctx *ctx, int fd, const npyg_pickle_limits *limits, npyg_pickle_report **out)
{
    npyg_set_input_fd(ctx, fd);
    return handed(ctx, true, limits, out);
}
