/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Normalisation of descr, shape and integers for comparison. See descr.h
 * and PROTOCOL.md ("Comparing descr").
 */
#include "descr.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

/* ---------------- integers ---------------- */

static json_t *int_from_digits(const char *s)
{
    const char *p = s;
    bool neg = false;
    if (*p == '-') { neg = true; p++; }
    if (!*p) return NULL;
    for (const char *q = p; *q; q++)
        if (!isdigit((unsigned char)*q)) return NULL;
    while (p[0] == '0' && p[1]) p++; /* leading zeros */
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno == 0 && *end == '\0') return json_integer((json_int_t)v);
    /* outside json_int_t: keep the canonical digits */
    size_t n = strlen(p);
    char *buf = malloc(n + 2);
    if (!buf) return NULL;
    size_t k = 0;
    if (neg && strcmp(p, "0") != 0) buf[k++] = '-';
    memcpy(buf + k, p, n + 1);
    json_t *out = json_string(buf);
    free(buf);
    return out;
}

json_t *ncf_int_norm(const json_t *v)
{
    if (json_is_integer(v)) return json_integer(json_integer_value(v));
    if (json_is_real(v)) {
        double d = json_real_value(v);
        if (!isfinite(d) || d != floor(d) || fabs(d) > 9007199254740992.0) return NULL;
        return json_integer((json_int_t)d);
    }
    if (json_is_string(v)) return int_from_digits(json_string_value(v));
    return NULL;
}

json_t *ncf_shape_norm(const json_t *shape, char *err, size_t errlen)
{
    if (!json_is_array(shape)) {
        snprintf(err, errlen, "shape is not a list");
        return NULL;
    }
    json_t *out = json_array();
    size_t i;
    const json_t *d;
    json_array_foreach(shape, i, d) {
        json_t *n = ncf_int_norm(d);
        if (!n) {
            char *txt = json_dumps(d, JSON_ENCODE_ANY | JSON_COMPACT);
            snprintf(err, errlen, "shape entry %zu is not an integer: %s", i, txt ? txt : "?");
            free(txt);
            json_decref(out);
            return NULL;
        }
        json_array_append_new(out, n);
    }
    return out;
}

/* ---------------- typestr ---------------- */

static bool unit_ok(const char *u, size_t n)
{
    static const char *const units[] = {"Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"};
    for (size_t k = 0; k < sizeof units / sizeof units[0]; k++)
        if (strlen(units[k]) == n && memcmp(units[k], u, n) == 0) return true;
    return false;
}

static void copy_out(const char *s, char *out, size_t outlen)
{
    if (!outlen) return;
    snprintf(out, outlen, "%s", s);
}

void ncf_typestr_norm(const char *s, char *out, size_t outlen)
{
    const char *p = s;
    char order = 0;
    if (*p && strchr("<>|=", *p)) order = *p++;
    char kind = *p;
    unsigned long long size = 0;
    char unit[48] = "";

    if (kind == '?' && p[1] == '\0') {
        kind = 'b';
        size = 1;
    } else {
        if (kind == 'a') kind = 'S'; /* numpy 1.x alias of S */
        if (!kind || !strchr("biufcSUVMm", kind)) { copy_out(s, out, outlen); return; }
        p++;
        if (isdigit((unsigned char)*p)) {
            errno = 0;
            char *end;
            size = strtoull(p, &end, 10);
            if (errno) { copy_out(s, out, outlen); return; }
            p = end;
        } else if (kind == 'M' || kind == 'm') {
            size = 8;
        } else {
            copy_out(s, out, outlen); /* 'b' alone is int8's char code, etc. */
            return;
        }
        if (*p == '[') {
            if (kind != 'M' && kind != 'm') { copy_out(s, out, outlen); return; }
            const char *close = strchr(p, ']');
            if (!close || close[1] != '\0') { copy_out(s, out, outlen); return; }
            const char *u = p + 1;
            unsigned long long mult = 1;
            bool had_mult = isdigit((unsigned char)*u);
            if (had_mult) {
                char *end;
                errno = 0;
                mult = strtoull(u, &end, 10);
                if (errno) { copy_out(s, out, outlen); return; }
                u = end;
            }
            size_t ulen = (size_t)(close - u);
            if (!had_mult && ulen == 7 && memcmp(u, "generic", 7) == 0) {
                unit[0] = '\0'; /* "[generic]" is the same as no unit */
            } else if (unit_ok(u, ulen)) {
                if (mult == 1) snprintf(unit, sizeof unit, "[%.*s]", (int)ulen, u); /* "[1s]" is "[s]" */
                else snprintf(unit, sizeof unit, "[%llu%.*s]", mult, (int)ulen, u);
            } else {
                copy_out(s, out, outlen);
                return;
            }
            p = close + 1;
        }
        if (*p) { copy_out(s, out, outlen); return; }
    }

    /* Byte order: it matters for multi-byte numbers, datetimes and U
       (UCS-4); '=', '|' and none mean native, taken as little-endian. For
       one-byte numbers, bool, S and V it means nothing: always '|'. */
    bool matters = kind == 'U' || kind == 'M' || kind == 'm' || (strchr("iufc", kind) && size > 1);
    if (matters) {
        if (order != '>') order = '<';
    } else {
        order = '|';
    }
    snprintf(out, outlen, "%c%c%llu%s", order, kind, size, unit);
}

/* ---------------- descr ---------------- */

static json_t *descr_norm(const json_t *d, int depth, char *err, size_t errlen);

/* Joins shapes: a then b. Both normalised arrays. New reference. */
static json_t *shape_concat(const json_t *a, const json_t *b)
{
    json_t *out = json_array();
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v) json_array_append(out, v);
    json_array_foreach(b, i, v) json_array_append(out, v);
    return out;
}

static json_t *field_shape_norm(const json_t *s, char *err, size_t errlen)
{
    if (json_is_array(s)) return ncf_shape_norm(s, err, errlen);
    json_t *n = ncf_int_norm(s); /* a bare int n means (n,) */
    if (!n) {
        snprintf(err, errlen, "field shape is neither a list nor an integer");
        return NULL;
    }
    json_t *out = json_array();
    json_array_append_new(out, n);
    return out;
}

static bool is_void_typestr(const json_t *t)
{
    if (!json_is_string(t)) return false;
    const char *s = json_string_value(t);
    return s[0] == '|' && s[1] == 'V';
}


/* A subarray type under a shape, (b, inner) under outer, becomes b under
   outer + inner: one spelling for the two ways numpy can nest them. Takes
   and leaves one reference to each of *type and *shape. */
static void flatten_subarray(json_t **type, json_t **shape)
{
    if (!json_is_object(*type)) return;
    json_t *joined = shape_concat(*shape, json_object_get(*type, "shape"));
    json_t *inner = json_incref(json_object_get(*type, "base"));
    json_decref(*type);
    json_decref(*shape);
    *type = inner;
    *shape = joined;
}
static json_t *subarray_norm(const json_t *d, int depth, char *err, size_t errlen)
{
    const json_t *base = json_object_get(d, "base");
    const json_t *shape = json_object_get(d, "shape");
    if (!base || !shape || json_object_size(d) != 2) {
        snprintf(err, errlen, "a subarray object needs exactly the keys \"base\" and \"shape\"");
        return NULL;
    }
    json_t *nb = descr_norm(base, depth + 1, err, errlen);
    if (!nb) return NULL;
    json_t *ns = ncf_shape_norm(shape, err, errlen);
    if (!ns) { json_decref(nb); return NULL; }
    flatten_subarray(&nb, &ns); /* ((b, inner), outer) is b over outer + inner */
    if (json_array_size(ns) == 0) {
        json_decref(ns);
        return nb;
    }
    json_t *out = json_object();
    json_object_set_new(out, "base", nb);
    json_object_set_new(out, "shape", ns);
    return out;
}

static json_t *struct_norm(const json_t *d, int depth, char *err, size_t errlen)
{
    json_t *out = json_array();
    size_t i;
    const json_t *f;
    json_array_foreach(d, i, f) {
        size_t n = json_array_size(f);
        if (!json_is_array(f) || n < 2 || n > 3) {
            snprintf(err, errlen, "field %zu is not [name, descr] or [name, descr, shape]", i);
            goto fail;
        }
        const json_t *name = json_array_get(f, 0);
        bool titled = json_is_array(name) && json_array_size(name) == 2 &&
                      json_is_string(json_array_get(name, 1));
        if (!json_is_string(name) && !titled) {
            snprintf(err, errlen, "field %zu: the name is neither a string nor [title, name]", i);
            goto fail;
        }
        json_t *type = descr_norm(json_array_get(f, 1), depth + 1, err, errlen);
        if (!type) goto fail;
        json_t *shape = n == 3 ? field_shape_norm(json_array_get(f, 2), err, errlen) : json_array();
        if (!shape) { json_decref(type); goto fail; }
        flatten_subarray(&type, &shape); /* [name, (b, inner), outer] is [name, b, outer + inner] */
        /* Padding: an unnamed, untitled plain void field. numpy writes the
           gaps of aligned or offset structs this way; readers may drop it. */
        if (json_is_string(name) && json_string_length(name) == 0 && is_void_typestr(type)) {
            json_decref(type);
            json_decref(shape);
            continue;
        }
        json_t *nf = json_array();
        json_array_append(nf, (json_t *)name);
        json_array_append_new(nf, type);
        if (json_array_size(shape)) json_array_append_new(nf, shape);
        else json_decref(shape);
        json_array_append_new(out, nf);
    }
    return out;
fail:
    json_decref(out);
    return NULL;
}

static json_t *descr_norm(const json_t *d, int depth, char *err, size_t errlen)
{
    if (depth > MAX_DEPTH) {
        snprintf(err, errlen, "descr nested more than %d deep", MAX_DEPTH);
        return NULL;
    }
    if (json_is_string(d)) {
        char buf[128];
        const char *s = json_string_value(d);
        if (strlen(s) >= sizeof buf) return json_string(s);
        ncf_typestr_norm(s, buf, sizeof buf);
        return json_string(buf);
    }
    if (json_is_array(d)) return struct_norm(d, depth, err, errlen);
    if (json_is_object(d)) return subarray_norm(d, depth, err, errlen);
    snprintf(err, errlen, "descr is not a string, list or subarray object");
    return NULL;
}

json_t *ncf_descr_norm(const json_t *descr, char *err, size_t errlen)
{
    return descr_norm(descr, 0, err, errlen);
}

/* ---------------- big integer literals ---------------- */

char *ncf_quote_big_ints(const char *text, size_t len)
{
    size_t cap = len + len / 4 + 16, n = 0;
    char *out = malloc(cap);
    if (!out) return NULL;
    bool in_str = false;
    for (size_t i = 0; i < len;) {
        if (n + 4 >= cap) {
            cap *= 2;
            char *p = realloc(out, cap);
            if (!p) { free(out); return NULL; }
            out = p;
        }
        char c = text[i];
        if (in_str) {
            out[n++] = c;
            if (c == '\\' && i + 1 < len) out[n++] = text[++i];
            else if (c == '"') in_str = false;
            i++;
            continue;
        }
        if (c == '"') { in_str = true; out[n++] = c; i++; continue; }
        if (c == '-' || isdigit((unsigned char)c)) {
            size_t j = i + (c == '-');
            while (j < len && isdigit((unsigned char)text[j])) j++;
            size_t digits = j - i - (c == '-');
            bool frac = j < len && (text[j] == '.' || text[j] == 'e' || text[j] == 'E');
            size_t tok = j - i;
            if (digits > 15 && !frac) {
                while (n + tok + 3 >= cap) {
                    cap *= 2;
                    char *p = realloc(out, cap);
                    if (!p) { free(out); return NULL; }
                    out = p;
                }
                out[n++] = '"';
                memcpy(out + n, text + i, tok);
                n += tok;
                out[n++] = '"';
                i = j;
                continue;
            }
            /* copy the token unchanged, including any fraction or exponent */
            while (j < len && (isdigit((unsigned char)text[j]) || strchr(".eE+-", text[j]))) j++;
            tok = j - i;
            while (n + tok + 1 >= cap) {
                cap *= 2;
                char *p = realloc(out, cap);
                if (!p) { free(out); return NULL; }
                out = p;
            }
            memcpy(out + n, text + i, tok);
            n += tok;
            i = j;
            continue;
        }
        out[n++] = c;
        i++;
    }
    out[n] = '\0';
    return out;
}
