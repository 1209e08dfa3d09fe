/* SPDX-License-Identifier: BSD-3-Clause */
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
    int rc = npyg__vfail(ctx, code, ctx->base + at->offset, fmt, ap);
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

int npyg__parse_header_text(npyg_ctx *ctx, const char *text, size_t len, npyg__span *descr_text)
{
    *descr_text = (npyg__span){0, 0};
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
    npyg__value *top = NULL;
    int rc = npyg__parse_writer_form(ctx, text, len, &top, descr_text);
    bool writer = top != NULL;
    if (!rc && !writer) rc = npyg__parse_literal(ctx, text, len, &opts, &top, &info->warnings);
    if (rc) return rc;
    const npyg__value *vals[3] = {NULL, NULL, NULL};
    if (writer) {
        /* numpy's spelling: the three keys in its order, a tuple of ints,
           a bool. Only the descr can be spelled other than numpy would. */
        vals[0] = top->child->next;
        vals[1] = vals[0]->next->next;
        vals[2] = vals[1]->next->next;
    } else {
        if (top->type != V_DICT) return hfail(ctx, NPYG_ENOTDICT, top, "%s", "not a dict");
        rc = check_keys(ctx, top, vals, &info->warnings);
        if (rc) return rc;
        rc = check_shape_type(ctx, vals[2]);
        if (rc) return rc;
        if (vals[1]->type != V_BOOL)
            return hfail(ctx, NPYG_EFORTRAN, vals[1], "%s", "fortran_order is not a bool");
    }
    const npyg__value *descr = vals[0], *fortran = vals[1], *shape = vals[2];
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
