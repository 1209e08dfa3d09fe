/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The facts the library hands to its callers, checked against the readers
 * that define them:
 *  - npyg_zip_member_name: every member of every archive in corpus/npz
 *    that opens gives the name zipfile gave gen/gen_npz.py (the manifest's
 *    "name", zipfile's orig_filename): UTF-8 with flag bit 11, cp437
 *    without; and it writes like snprintf;
 *  - npyg_format_descr_json: every valid file in corpus/ gives numpy's
 *    dtype.descr (the manifest's "descr", recorded from numpy) with the
 *    ('', '|Vn') pads left out; names that need escapes read back as they
 *    were; dims past 2**53 are strings.
 * Usage: test_facts CORPUS_DIR
 */
#include "npyguard.h"
#include "testutil.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------- member names ---------------- */

static size_t archive_names(const char *dir, const char *name, json_t *members)
{
    char path[4096];
    size_t len, checked = 0;
    unsigned char *buf = tu_read_case(dir, name, path, &len);
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    npyg_zip *z = NULL;
    npyg_set_input_buffer(ctx, buf, len);
    if (buf && ctx && npyg_zip_open(ctx, NULL, &z) == 0) {
        TU_CHECK(npyg_zip_count(z) == json_array_size(members), "%s: %zu members, manifest %zu", name,
                 npyg_zip_count(z), json_array_size(members));
        for (size_t i = 0; i < npyg_zip_count(z) && i < json_array_size(members); i++) {
            const char *want = json_string_value(json_object_get(json_array_get(members, i), "name"));
            char got[1024];
            size_t n = npyg_zip_member_name(z, i, got, sizeof got);
            TU_CHECK(want && n == strlen(want) && strcmp(got, want) == 0, "%s: member %zu is '%s', zipfile '%s'",
                     name, i, got, want ? want : "(none)");
            checked++;
        }
    }
    npyg_zip_close(z);
    npyg_ctx_free(ctx);
    free(buf);
    return checked;
}

static void member_names(const char *corpus)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/npz", corpus);
    json_t *m = tu_load_manifest(dir);
    json_t *files = json_object_get(m, "files"), *e;
    const char *name;
    size_t want = 0, checked = 0, non_ascii = 0;
    json_object_foreach(files, name, e) {
        json_t *members = json_object_get(e, "members");
        if (strncmp(name, "valid/", 6) == 0) want += json_array_size(members);
        size_t got = archive_names(dir, name, members);
        checked += got;
        for (size_t i = 0; i < got; i++) {
            const char *s = json_string_value(json_object_get(json_array_get(members, i), "name"));
            while (s && *s && (unsigned char)*s < 0x80) s++;
            non_ascii += s && *s;
        }
    }
    TU_AT_LEAST(checked, want, "member names");
    TU_AT_LEAST(non_ascii, 3, "non-ASCII member names");
    json_decref(m);
}

/* snprintf's contract, on a name in cp437: b'caf\x82.npy' is 'caf\u00e9.npy'. */
static void member_name_buffer(const char *corpus)
{
    char path[4096];
    size_t len;
    unsigned char *buf = tu_read_case(corpus, "npz/compat/cp437-name.npz", path, &len);
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    npyg_zip *z = NULL;
    npyg_set_input_buffer(ctx, buf, len);
    TU_CHECK(buf && npyg_zip_open(ctx, NULL, &z) == 0, "cp437-name.npz opens");
    char small[5] = "xxxx";
    TU_CHECK(npyg_zip_member_name(z, 0, NULL, 0) == 9, "size 0: the length, nothing written");
    TU_CHECK(npyg_zip_member_name(z, 0, small, sizeof small) == 9 && strcmp(small, "caf\xc3") == 0,
             "cut to size - 1 bytes and NUL-terminated, as snprintf: '%s'", small);
    TU_CHECK(npyg_zip_member_name(z, 1, small, sizeof small) == 0 && small[0] == '\0', "out of range: \"\"");
    TU_CHECK(npyg_zip_member_name(NULL, 0, small, sizeof small) == 0, "NULL archive: 0");
    npyg_zip_close(z);
    npyg_ctx_free(ctx);
    free(buf);
}

/* ---------------- descr ---------------- */

static bool is_pad(json_t *field)
{
    const char *n = json_string_value(json_array_get(field, 0)), *t = json_string_value(json_array_get(field, 1));
    return json_array_size(field) == 2 && n && !*n && t && strncmp(t, "|V", 2) == 0;
}

/* numpy's dtype.descr as the manifest records it, without its pads (the
   ('', '|Vn') entries) and with a subarray type inside a field, which the
   manifest writes {"base": descr, "shape": dims}, as [descr, dims]. */
static json_t *without_pads(json_t *d)
{
    if (json_is_object(d))
        return json_pack("[o, O]", without_pads(json_object_get(d, "base")), json_object_get(d, "shape"));
    if (!json_is_array(d)) return json_incref(d);
    json_t *out = json_array();
    bool fields = json_array_size(d) > 0 && json_is_array(json_array_get(d, 0));
    size_t k;
    json_t *v;
    json_array_foreach(d, k, v) {
        if (fields && json_is_array(v)) {
            if (is_pad(v)) continue;
            json_t *f = json_array();
            size_t j;
            json_t *w;
            json_array_foreach(v, j, w) json_array_append_new(f, j == 1 ? without_pads(w) : json_incref(w));
            json_array_append_new(out, f);
        } else {
            json_array_append_new(out, json_incref(v));
        }
    }
    return out;
}

static char *descr_json(const npyg_dtype *d)
{
    size_t n = npyg_format_descr_json(d, NULL, 0);
    char *s = malloc(n + 1);
    TU_CHECK(s && npyg_format_descr_json(d, s, n + 1) == n && strlen(s) == n, "length as snprintf");
    return s;
}

static void descr_vs_numpy(const char *corpus)
{
    json_t *m = tu_load_manifest(corpus);
    json_t *files = json_object_get(m, "files"), *e;
    const char *name;
    size_t want = 0, checked = 0, structured = 0;
    json_object_foreach(files, name, e) {
        json_t *descr = json_object_get(e, "descr");
        if (strncmp(name, "valid/", 6) != 0 || !descr || json_object_get(e, "npyguard_error")) continue;
        want++;
        char path[4096];
        size_t len;
        unsigned char *buf = tu_read_case(corpus, name, path, &len);
        npyg_ctx *ctx = npyg_ctx_new(NULL);
        npyg_set_input_buffer(ctx, buf, len);
        if (buf && npyg_validate(ctx) == 0) {
            char *s = descr_json(npyg_get_info(ctx)->dtype);
            json_error_t err;
            json_t *got = json_loads(s, JSON_DECODE_ANY, &err), *exp = without_pads(descr);
            TU_CHECK(got && json_equal(got, exp), "%s: descr %s", name, s);
            checked++;
            structured += json_is_array(descr);
            json_decref(got);
            json_decref(exp);
            free(s);
        } else {
            TU_CHECK(0, "%s does not validate", name);
        }
        npyg_ctx_free(ctx);
        free(buf);
    }
    TU_AT_LEAST(checked, want, "descrs");
    TU_AT_LEAST(structured, 10, "structured descrs");
    json_decref(m);
}

/* Built by hand: a title, names a JSON writer must escape (quote,
   backslash, a control, U+0085, an astral character outside the BMP that
   Python escapes, one it prints), and a subarray dim past 2**53. */
static void descr_escapes_and_big_dims(void)
{
    npyg_dtype f8 = {.kind = NPYG_KIND_FLOAT, .byteorder = '<', .itemsize = 8, .unit_multiple = 1};
    uint64_t dims[2] = {0, (UINT64_C(1) << 53) + 1};
    npyg_dtype sub = {.kind = NPYG_KIND_SUBARRAY, .byteorder = '|', .base = &f8, .sub_ndim = 2, .sub_shape = dims};
    static const char weird[] = "q\"b\\c\x01" "d\xc2\x85" "e\xf3\xa0\x80\x81" "f\xf0\x9f\x98\x80";
    npyg_field fields[2] = {
        {.name = weird, .name_len = sizeof weird - 1, .title = "T\n", .title_len = 2, .offset = 0, .type = &f8},
        {.name = "s", .name_len = 1, .offset = 8, .type = &sub},
    };
    npyg_dtype st = {.kind = NPYG_KIND_STRUCT, .byteorder = '|', .itemsize = 8, .nfields = 2, .fields = fields};
    char *s = descr_json(&st);
    const char *want = "[[[\"T\\u000a\", \"q\\\"b\\\\c\\u0001d\\u0085e\\udb40\\udc01f\xf0\x9f\x98\x80\"], \"<f8\"], "
                       "[\"s\", \"<f8\", [0, \"9007199254740993\"]]]";
    TU_CHECK(strcmp(s, want) == 0, "escapes: %s", s);
    json_error_t err;
    json_t *back = json_loads(s, 0, &err);
    const char *name = json_string_value(json_array_get(json_array_get(json_array_get(back, 0), 0), 1));
    TU_CHECK(name && strcmp(name, weird) == 0, "the name reads back as it was");
    json_decref(back);
    free(s);
    s = descr_json(&sub);
    TU_CHECK(strcmp(s, "[\"<f8\", [0, \"9007199254740993\"]]") == 0, "a subarray alone: %s", s);
    free(s);
    TU_CHECK(npyg_format_descr_json(NULL, NULL, 0) == 0, "NULL dtype: 0");
    char cut[4];
    TU_CHECK(npyg_format_descr_json(&f8, cut, sizeof cut) == 5 && strcmp(cut, "\"<f") == 0, "truncated: %s", cut);
}

int main(int argc, char **argv)
{
    if (tu_bad_args(argc, 2, "test_facts CORPUS_DIR")) return 2;
    member_names(argv[1]);
    member_name_buffer(argv[1]);
    descr_vs_numpy(argv[1]);
    descr_escapes_and_big_dims();
    return tu_finish();
}
