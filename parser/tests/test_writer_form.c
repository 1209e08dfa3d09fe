/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The writer-form recogniser (writer.c) must give, for every text it
 * accepts, the very tree the general literal parser (literal.c) gives, and
 * must accept nothing that parser refuses: that is what lets it skip the
 * general parser without moving a verdict. Checked on the header of every
 * numpy-written case (numpy_cases.tsv, corpus/valid) and on every one-byte
 * deletion and duplication of the short ones, which probes each place the
 * recogniser could accept too much.
 *
 * Usage: test_writer_form NUMPY_CASES.TSV CORPUS_VALID_DIR
 */
#include "../src/internal.h"
#include "testutil.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static size_t matched, matched_struct, mutants_matched, canonical_matched;

/* For a text in writer form, the whole header is canonical exactly when
   its descr is (read.c checks only the descr then): the dict around it is
   numpy's own spelling. tree is the general parser's. */
static void same_canonical_verdict(npyg_ctx *ctx, const char *text, size_t len, const npyg__value *tree,
                                   npyg__span descr_text, const char *what)
{
    const npyg__value *descr = tree->child->next, *fortran = descr->next->next, *shape = fortran->next->next;
    unsigned warnings = 0;
    npyg_info info = {.version_major = ctx->info.version_major, .fortran_order = fortran->u != 0,
                      .ndim = shape->count};
    if (npyg__build_dtype(ctx, descr, &info.dtype, &warnings) != 0) return;
    uint64_t dims[64];
    if (shape->count > 64) return;
    const npyg__value *x = shape->child;
    for (uint32_t k = 0; k < shape->count; k++, x = x->next) dims[k] = x->u;
    info.shape = dims;
    bool whole = npyg__header_is_canonical(&info, text, len);
    bool part = npyg__descr_is_canonical(&info, text + descr_text.at, descr_text.len);
    TU_CHECK(whole == part, "%s: canonical as a whole %d, by its descr %d", what, whole, part);
    if (whole) canonical_matched++;
}

/* One header text through both parsers; returns whether the fast one took it. */
static bool compare(npyg_ctx *ctx, const char *text, size_t len, bool v3, const char *what)
{
    npyg__lit_opts opts = {.allow_py2long = !v3, .latin1 = !v3};
    unsigned warnings = 0;
    npyg__value *fast = NULL, *general = NULL;
    npyg__span descr_text;
    size_t bad;
    /* Neither parser sees a 3.0 header that is not UTF-8: header.c
       refuses it first (NPYG_EUTF8), and both read names as UTF-8. */
    if (v3 && npyg__utf8_check((const unsigned char *)text, len, &bad)) return false;
    ctx->base = 0;
    ctx->info.version_major = v3 ? 3 : 1; /* the recogniser copies UTF-8 names in 3.0 only */
    npyg__arena_reset(&ctx->arena);
    int frc = npyg__parse_writer_form(ctx, text, len, &fast, &descr_text);
    TU_CHECK(frc == 0, "%s: the recogniser failed (%d) on a text it should only accept or pass on", what, frc);
    if (!fast) return false;
    int grc = npyg__parse_literal(ctx, text, len, &opts, &general, &warnings);
    TU_CHECK(grc == 0, "%s: accepted by the recogniser, refused by the literal parser (%d)", what, grc);
    TU_CHECK(warnings == 0, "%s: the literal parser warns (%#x) on a writer-form text", what, warnings);
    if (grc == 0) TU_CHECK(npyg__same_tree(fast, general), "%s: the two parsers built different trees", what);
    if (grc == 0) same_canonical_verdict(ctx, text, len, general, descr_text, what);
    return true;
}

/* Every one-byte deletion and duplication of a matched header. */
static void mutate(npyg_ctx *ctx, const char *text, size_t len, bool v3, const char *what)
{
    if (len > 4096) return;
    char *buf = malloc(len + 1);
    TU_CHECK(buf != NULL, "%s", "out of memory");
    if (!buf) return;
    for (size_t k = 0; k < len; k++) {
        memcpy(buf, text, k);
        memcpy(buf + k, text + k + 1, len - k - 1);
        mutants_matched += compare(ctx, buf, len - 1, v3, what);
        memcpy(buf, text, k + 1);
        memcpy(buf + k + 1, text + k, len - k);
        mutants_matched += compare(ctx, buf, len + 1, v3, what);
    }
    free(buf);
}

static void one_image(npyg_ctx *ctx, const unsigned char *p, size_t n, const char *what)
{
    size_t len;
    int major;
    const char *text = npyg__image_header(p, n, &major, &len);
    if (!text || len == 0 || memchr(text, '\0', len)) return;
    bool v3 = major == 3;
    if (!compare(ctx, text, len, v3, what)) return;
    matched++;
    if (memmem(text, len, "'descr': [", 10)) matched_struct++;
    mutate(ctx, text, len, v3, what);
}

static void cases(npyg_ctx *ctx, const char *path)
{
    FILE *f = fopen(path, "r");
    TU_CHECK(f != NULL, "cannot open %s", path);
    if (!f) return;
    char *line = NULL;
    size_t cap = 0;
    unsigned char *img = NULL;
    while (getline(&line, &cap, f) > 0) {
        if (line[0] == '#') continue;
        char *name = line, *tab1 = strchr(line, '\t');
        char *hex = tab1 ? strchr(tab1 + 1, '\t') : NULL;
        if (!hex) continue;
        *tab1 = '\0';
        hex++;
        size_t nhex = strcspn(hex, "\t\n");
        unsigned char *grown = realloc(img, nhex / 2 + 1);
        if (!grown) break;
        img = grown;
        size_t n = tu_unhex(hex, nhex, img);
        tu_current = name;
        one_image(ctx, img, n, name);
    }
    tu_current = NULL;
    free(img);
    free(line);
    fclose(f);
}

static void corpus(npyg_ctx *ctx, const char *dir)
{
    DIR *d = opendir(dir);
    TU_CHECK(d != NULL, "cannot open %s", dir);
    if (!d) return;
    char path[4096];
    for (struct dirent *e; (e = readdir(d));) {
        size_t nl = strlen(e->d_name);
        if (nl < 4 || strcmp(e->d_name + nl - 4, ".npy") != 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t n = 0;
        unsigned char *p = tu_slurp(path, &n);
        if (!p) continue;
        tu_current = e->d_name;
        one_image(ctx, p, n, e->d_name);
        free(p);
    }
    tu_current = NULL;
    closedir(d);
}

/* In a version 3.0 header the recogniser copies a name only where repr()
   leaves every character as it is (str.isprintable(), as Python 3.11
   reports it); a name numpy would have escaped is the general parser's.
   In 1.0 and 2.0 every byte is a latin-1 character and is taken. */
static void repr_rules(npyg_ctx *ctx)
{
    static const struct {
        const char *utf8, *what;
        bool taken;
    } names[] = {
        {"a\xc3\xa9" "b", "U+00E9, printable", true},
        {"\xe6\x95\xb4", "U+6574, printable", true},
        {"\xf0\x9f\x98\x80", "U+1F600, printable", true},
        {"\xe2\x80\x8b", "U+200B, repr() writes \\u200b", false},
        {"\xc2\x85", "U+0085, repr() writes \\x85", false},
        {"\xc2\xa0", "U+00A0, repr() writes \\xa0", false},
        {"\xef\xbb\xbf", "U+FEFF, repr() writes \\ufeff", false},
        {"\xf3\xa0\x80\x81", "U+E0001, repr() writes \\U000e0001", false},
    };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char text[128];
        int n = snprintf(text, sizeof text, "{'descr': [('%s', '<f8')], 'fortran_order': False, 'shape': (3,), }\n",
                         names[k].utf8);
        bool took = compare(ctx, text, (size_t)n, true, names[k].what);
        TU_CHECK(took == names[k].taken, "%s: the recogniser %s the name", names[k].what,
                 took ? "took" : "passed on");
        /* version 1.0/2.0 text is latin-1: each byte is a character, taken
           whatever repr() would write (the descr's canonical check judges
           that) and decoded to the general parser's very tree (compare) */
        TU_CHECK(compare(ctx, text, (size_t)n, false, names[k].what), "%s: as latin-1, passed on in a version 1.0 header",
                 names[k].what);
    }
}

/* The writer's public and canonical-check edges. Expected texts are
   numpy 1.24's: np.lib.format.dtype_to_descr(np.dtype(object)) is '|O',
   and np.lib.format.write_array_header_1_0 writes
   {'descr': '<f8', 'fortran_order': False, 'shape': (3,), } padded with
   spaces to 117 bytes and '\n' for a (3,) '<f8' array. */
static void writer_edges(void)
{
    char out[128];
    tu_current = "writer edges";
    TU_CHECK(npyg_format_descr(NULL, out, sizeof out) == 0, "%s", "a NULL dtype formats as nothing");

    npyg_dtype obj = {.kind = NPYG_KIND_OBJECT, .byteorder = '|', .itemsize = 8};
    size_t n = npyg_format_descr(&obj, out, sizeof out);
    TU_CHECK(n == 4 && !strcmp(out, "'|O'"), "object dtype formats as %s, numpy '|O'", out);
    /* snprintf's contract (npyguard.h): the length needed, at most size
       bytes written, NUL included */
    TU_CHECK(npyg_format_descr(&obj, NULL, 0) == 4, "%s", "no buffer: the length needed");
    memset(out, 'x', sizeof out);
    TU_CHECK(npyg_format_descr(&obj, out, 3) == 4 && !strcmp(out, "'|") && out[3] == 'x', "a 3-byte buffer holds %s",
             out);

    /* A caller's own dtype may hold a name whose last UTF-8 sequence is
       cut short: the writer must stay inside the name (ASan checks) and
       return the length it wrote. */
    static const char cut[] = {'a', (char)0xc3};
    npyg_dtype i4 = {.kind = NPYG_KIND_INT, .byteorder = '<', .itemsize = 4};
    npyg_field fld = {.name = cut, .name_len = sizeof cut, .type = &i4};
    npyg_dtype st = {.kind = NPYG_KIND_STRUCT, .byteorder = '|', .itemsize = 4, .nfields = 1, .fields = &fld};
    n = npyg_format_descr(&st, out, sizeof out);
    TU_CHECK(n == strlen(out) && !strncmp(out, "[('a", 4) && n > 13 && !strcmp(out + n - 10, "', '<i4')]"),
             "a cut UTF-8 name: %s", out);

    npyg_dtype f8 = {.kind = NPYG_KIND_FLOAT, .byteorder = '<', .itemsize = 8};
    uint64_t dims[1] = {3};
    npyg_info info = {.version_major = 1, .dtype = &f8, .ndim = 1, .shape = dims};
    char text[118];
    static const char dict[] = "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }";
    memset(text, ' ', sizeof text);
    memcpy(text, dict, sizeof dict - 1);
    text[117] = '\n';
    TU_CHECK(npyg__header_is_canonical(&info, text, sizeof text), "%s", "numpy's own header is canonical");
    TU_CHECK(!npyg__header_is_canonical(&info, dict, sizeof dict - 1), "%s",
             "the dict without numpy's newline is not canonical");
    static const char tight[] = "{'descr':'<f8','fortran_order':False,'shape':(3,)}\n";
    TU_CHECK(!npyg__header_is_canonical(&info, tight, sizeof tight - 1), "%s",
             "a header shorter than numpy's spelling is not canonical");
    /* 32 bytes at most for a typestr: a v3 string that a 2-byte character
       takes past that is the general parser's */
    static const char longts[] = "{'descr': 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\xc3\xa9', 'fortran_order': False, 'shape': (3,), }\n";
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    npyg__value *top = NULL;
    npyg__span descr_text;
    ctx->info.version_major = 3;
    TU_CHECK(npyg__parse_writer_form(ctx, longts, sizeof longts - 1, &top, &descr_text) == 0 && top == NULL, "%s",
             "a 33-byte typestr is left to the general parser");
    npyg_ctx_free(ctx);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s NUMPY_CASES.TSV CORPUS_VALID_DIR\n", argv[0]);
        return 2;
    }
    npyg_limits lim;
    npyg_limits_default(&lim);
    lim.max_header_bytes = NPYG_MAX_HEADER_BYTES_CAP;
    npyg_options o = {.limits = &lim};
    npyg_ctx *ctx = npyg_ctx_new(&o);
    TU_CHECK(ctx != NULL, "%s", "npyg_ctx_new");
    if (!ctx) return tu_finish();
    cases(ctx, argv[1]);
    corpus(ctx, argv[2]);
    repr_rules(ctx);
    writer_edges();
    npyg_ctx_free(ctx);
    printf("writer form: %zu headers matched (%zu structured), %zu one-byte mutants matched, %zu canonical\n",
           matched, matched_struct, mutants_matched, canonical_matched);
    /* The corpus holds numpy-written structured headers of every kind the
       recogniser claims (titles, padding, subarrays, nesting). */
    TU_AT_LEAST(matched, 100, "plain and structured headers in writer form");
    TU_AT_LEAST(matched_struct, 20, "structured headers in writer form");
    /* ... and both canonical and non-canonical spellings among them */
    TU_AT_LEAST(canonical_matched, 100, "canonical headers in writer form");
    TU_AT_LEAST(matched + mutants_matched - canonical_matched, 100, "non-canonical headers in writer form");
    return tu_finish();
}
