/*
 * The header as numpy's writer spells it, for a plain dtype:
 *
 *     {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }   \n
 *
 * Nearly every file in the wild has exactly this text, so it is recognised
 * here without the general literal parser, and turned into the very value
 * tree that parser would build (same nodes, same offsets). The checks that
 * follow (keys, shape, descr) are the shared ones. Any other text, even a
 * legal one, returns NULL and goes to the general parser; so does a failed
 * allocation, after recording it (the caller checks ctx->err first).
 */
#include "internal.h"

#include <string.h>

#define MAX_TYPESTR 32
#define MAX_DIMS 64

typedef struct cursor {
    npyg_ctx *ctx;
    const char *s;
    size_t n, i;
} cursor;

static bool take(cursor *c, const char *lit, size_t len)
{
    if (c->n - c->i < len || memcmp(c->s + c->i, lit, len) != 0) return false;
    c->i += len;
    return true;
}
#define TAKE(c, lit) take((c), (lit), sizeof(lit) - 1)

static npyg__value *node(cursor *c, npyg__vtype t, size_t at)
{
    return npyg__new_value(c->ctx, t, at);
}

static npyg__value *key(cursor *c, const char *name, size_t len, size_t at)
{
    npyg__value *k = node(c, V_STR, at);
    if (k) {
        k->s = name;
        k->len = len;
    }
    return k;
}

/* A decimal int as repr() writes it: no sign, no leading zero, no '_'. */
static npyg__value *dim(cursor *c)
{
    size_t at = c->i, digits = 0;
    uint64_t v = 0;
    while (c->i < c->n && c->s[c->i] >= '0' && c->s[c->i] <= '9') {
        if (++digits > 19) return NULL; /* larger values: the general parser */
        v = v * 10 + (uint64_t)(c->s[c->i++] - '0');
    }
    if (digits == 0 || (digits > 1 && c->s[at] == '0')) return NULL;
    npyg__value *d = node(c, V_INT, at);
    if (d) d->u = v;
    return d;
}

npyg__value *npyg__parse_writer_form(npyg_ctx *ctx, const char *text, size_t len)
{
    cursor c = {ctx, text, len, 0};
    if (!TAKE(&c, "{'descr': '")) return NULL;
    size_t ts = c.i;
    while (c.i < len && c.i - ts < MAX_TYPESTR && text[c.i] != '\'') {
        unsigned char ch = (unsigned char)text[c.i];
        if (ch < 0x20 || ch >= 0x7f || ch == '\\' || ch == '"') return NULL;
        c.i++;
    }
    size_t tlen = c.i - ts;
    if (tlen == 0 || !TAKE(&c, "', 'fortran_order': ")) return NULL;
    size_t fo_at = c.i;
    bool fortran;
    if (TAKE(&c, "False")) fortran = false;
    else if (TAKE(&c, "True")) fortran = true;
    else return NULL;
    if (!TAKE(&c, ", 'shape': (")) return NULL;
    size_t shape_at = c.i - 1;

    /* (), (n,) or (n, m, ...) */
    npyg__value *dims[MAX_DIMS];
    uint32_t nd = 0;
    if (!TAKE(&c, ")")) {
        for (;;) {
            if (nd == MAX_DIMS || !(dims[nd] = dim(&c))) return NULL;
            nd++;
            if (nd == 1 && TAKE(&c, ",)")) break;
            if (nd > 1 && TAKE(&c, ")")) break;
            if (!TAKE(&c, ", ")) return NULL;
        }
    }
    if (!TAKE(&c, ", }")) return NULL;
    static const char spaces[8] = "        ";
    while (len - c.i > 8 && memcmp(text + c.i, spaces, 8) == 0) c.i += 8;
    while (c.i < len && text[c.i] == ' ') c.i++;
    if (c.i != len - 1 || text[c.i] != '\n') return NULL;

    /* The tree the general parser builds for the same text. */
    npyg__value *top = node(&c, V_DICT, 0);
    npyg__value *kd = key(&c, "descr", 5, 1);
    npyg__value *vd = node(&c, V_STR, ts - 1);
    npyg__value *kf = key(&c, "fortran_order", 13, ts + tlen + 3);
    npyg__value *vf = node(&c, V_BOOL, fo_at);
    npyg__value *ks = key(&c, "shape", 5, shape_at - 9);
    npyg__value *vs = node(&c, V_TUPLE, shape_at);
    char *tstr = npyg__arena_alloc(&ctx->arena, tlen + 1);
    if (!tstr) npyg__nomem(ctx, ctx->base + ts);
    if (!top || !kd || !vd || !kf || !vf || !ks || !vs || !tstr) return NULL;
    memcpy(tstr, text + ts, tlen);
    tstr[tlen] = '\0';
    vd->s = tstr;
    vd->len = tlen;
    vf->u = fortran;
    for (uint32_t k = 0; k < nd; k++) dims[k]->next = k + 1 < nd ? dims[k + 1] : NULL;
    vs->child = nd ? dims[0] : NULL;
    vs->count = nd;
    top->child = kd;
    kd->next = vd;
    vd->next = kf;
    kf->next = vf;
    vf->next = ks;
    ks->next = vs;
    top->count = 3;
    ctx->writer_descr = tlen;
    return top;
}
