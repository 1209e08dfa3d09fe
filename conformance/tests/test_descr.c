/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the descr / shape / integer normalisation (src/descr.c).
 */
#include "descr.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_typestr(const char *in, const char *want)
{
    char out[64];
    ncf_typestr_norm(in, out, sizeof out);
    TU_CHECK(strcmp(out, want) == 0, "typestr %s: got %s, want %s", in, out, want);
}

static json_t *parse(const char *text)
{
    json_error_t e;
    json_t *v = json_loads(text, JSON_DECODE_ANY, &e);
    if (!v) {
        printf("bad test JSON %s: %s\n", text, e.text);
        exit(2);
    }
    return v;
}

/* Two descrs (JSON text) must normalise to the same value, or not. */
static void check_same(const char *a, const char *b, int same)
{
    char err[256];
    json_t *ja = parse(a), *jb = parse(b);
    json_t *na = ncf_descr_norm(ja, err, sizeof err);
    json_t *nb = na ? ncf_descr_norm(jb, err, sizeof err) : NULL;
    TU_CHECK(na && nb, "%s / %s: not a descr: %s", a, b, err);
    if (na && nb) {
        char *sa = json_dumps(na, JSON_ENCODE_ANY | JSON_COMPACT), *sb = json_dumps(nb, JSON_ENCODE_ANY | JSON_COMPACT);
        TU_CHECK(json_equal(na, nb) == same, "%s %s %s (normalised %s and %s)", a, same ? "==" : "!=", b, sa, sb);
        free(sa);
        free(sb);
    }
    json_decref(ja);
    json_decref(jb);
    json_decref(na);
    json_decref(nb);
}

static void check_bad(const char *a)
{
    char err[256] = "";
    json_t *ja = parse(a);
    json_t *na = ncf_descr_norm(ja, err, sizeof err);
    TU_CHECK(na == NULL, "%s: accepted as a descr", a);
    json_decref(ja);
    json_decref(na);
}

static void check_quote(const char *in, const char *want)
{
    char *out = ncf_quote_big_ints(in, strlen(in));
    TU_CHECK(out && strcmp(out, want) == 0, "quote %s: got %s, want %s", in, out ? out : "(null)", want);
    free(out);
}

static void check_int(const char *in, const char *want)
{
    json_t *v = parse(in);
    json_t *n = ncf_int_norm(v);
    char *s = n ? json_dumps(n, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    TU_CHECK(want ? s && strcmp(s, want) == 0 : s == NULL, "int %s: got %s, want %s", in, s ? s : "(none)",
             want ? want : "(none)");
    free(s);
    json_decref(v);
    json_decref(n);
}

int main(void)
{
    tu_current = "descr normalisation";
    /* byte order */
    check_typestr("<f8", "<f8");
    check_typestr(">f8", ">f8");
    check_typestr("=f8", "<f8");
    check_typestr("|f8", "<f8");
    check_typestr("f8", "<f8");
    check_typestr(">u1", "|u1");
    check_typestr("<i1", "|i1");
    check_typestr("i1", "|i1");
    check_typestr("<b1", "|b1");
    check_typestr("b1", "|b1");
    check_typestr("?", "|b1");
    check_typestr("<S5", "|S5");
    check_typestr("a2", "|S2");
    check_typestr(">V8", "|V8");
    check_typestr("U5", "<U5");
    check_typestr("|U0", "<U0");
    check_typestr(">U3", ">U3");
    check_typestr("<f008", "<f8");
    /* datetimes */
    check_typestr("M8[ns]", "<M8[ns]");
    check_typestr("<M8[1s]", "<M8[s]");
    check_typestr("<M8[25s]", "<M8[25s]");
    check_typestr("<M8[generic]", "<M8");
    check_typestr("<M8", "<M8");
    check_typestr("<M", "<M8");
    check_typestr(">m8[0s]", ">m8[0s]");
    /* not understood: unchanged */
    check_typestr("b", "b");
    check_typestr("d", "d");
    check_typestr("<f8x", "<f8x");
    check_typestr("<M8[parsec]", "<M8[parsec]");
    check_typestr("", "");

    /* structures */
    check_same("[[\"a\",\"<f8\"]]", "[[\"a\",\"=f8\"]]", 1);
    check_same("[[\"a\",\"<f8\"]]", "[[\"a\",\">f8\"]]", 0);
    check_same("[[\"a\",\"<f8\"]]", "[[\"b\",\"<f8\"]]", 0);
    check_same("[[\"\",\"|V3\"],[\"a\",\"<i4\"],[\"\",\"|V1\"]]", "[[\"a\",\"<i4\"]]", 1);  /* padding */
    check_same("[[\"\",\"|V4\",[2]],[\"a\",\"<i4\"]]", "[[\"a\",\"<i4\"]]", 1);
    check_same("[[\"\",\"<i4\"],[\"a\",\"<i4\"]]", "[[\"a\",\"<i4\"]]", 0);              /* a real '' field */
    check_same("[[[\"t\",\"\"],\"|V4\"]]", "[]", 0);                                       /* titled: not padding */
    check_same("[[\"a\",\"<f8\",[]]]", "[[\"a\",\"<f8\"]]", 1);
    check_same("[[\"a\",\"<f8\",2]]", "[[\"a\",\"<f8\",[2]]]", 1);
    check_same("[[\"a\",\"<f8\",[\"2\"]]]", "[[\"a\",\"<f8\",[2]]]", 1);
    check_same("[[\"a\",\"<f8\",[1]]]", "[[\"a\",\"<f8\"]]", 0);
    check_same("[[\"c\",{\"base\":\"<f8\",\"shape\":[5]},[2]]]", "[[\"c\",\"<f8\",[2,5]]]", 1);
    check_same("[[\"c\",{\"base\":\"<f8\",\"shape\":[5]}]]", "[[\"c\",\"<f8\",[5]]]", 1);
    check_same("[[\"c\",{\"base\":{\"base\":\"<f8\",\"shape\":[3]},\"shape\":[5]},[2]]]", "[[\"c\",\"<f8\",[2,5,3]]]", 1);
    check_same("{\"base\":\"<f8\",\"shape\":[]}", "\"<f8\"", 1);
    check_same("{\"base\":\"<f8\",\"shape\":[2]}", "\"<f8\"", 0);
    check_same("[[[\"T\",\"a\"],\"<i4\"]]", "[[\"a\",\"<i4\"]]", 0);
    check_same("[[\"x\",[[\"a\",\"i1\"],[\"\",\"|V3\"]]]]", "[[\"x\",[[\"a\",\"|i1\"]]]]", 1);
    check_same("[]", "[[\"\",\"|V8\"]]", 1);
    check_bad("[[\"a\"]]");
    check_bad("[\"<f8\"]");
    check_bad("[[1,\"<f8\"]]");
    check_bad("{\"base\":\"<f8\"}");
    check_bad("[[\"a\",\"<f8\",[1.5]]]");
    check_bad("3");

    /* integers */
    check_int("7", "7");
    check_int("\"7\"", "7");
    check_int("\"007\"", "7");
    check_int("\"-1\"", "-1");
    check_int("2.0", "2");
    check_int("2.5", NULL);
    check_int("\"18446744073709551615\"", "\"18446744073709551615\"");
    check_int("\"0018446744073709551615\"", "\"18446744073709551615\"");
    check_int("\"9223372036854775807\"", "9223372036854775807");
    check_int("\"1e3\"", NULL);
    check_int("\"\"", NULL);
    check_int("true", NULL);
    check_int("null", NULL);

    /* big literals become strings, everything else stays */
    check_quote("{\"shape\": [18446744073709551615, 3]}", "{\"shape\": [\"18446744073709551615\", 3]}");
    check_quote("[-9223372036854775808]", "[\"-9223372036854775808\"]");
    check_quote("[1.5e300, 1234567890123456789.0]", "[1.5e300, 1234567890123456789.0]");
    check_quote("{\"e\": \"12345678901234567890\\\"\"}", "{\"e\": \"12345678901234567890\\\"\"}");
    check_quote("[123456789012345]", "[123456789012345]");

    return tu_finish();
}
