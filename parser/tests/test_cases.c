/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * numpy's reader rules, case by case: parser/tests/data/numpy_cases.tsv
 * holds crafted .npy files and what numpy 1.24's np.load did with each
 * (gen/gen_cases.py measured it). npyguard, in the numpy profile, must give
 * the same verdict and, for accepted files, the same dtype, shape, order,
 * count and offsets — except the deliberate divergences listed in
 * divergences.tsv (explained in parser/DIVERGENCES.md).
 *
 * Each case also goes through the callback input in small random chunks,
 * which must agree with the buffer input.
 * Usage: test_cases CASES_TSV DIVERGENCES_TSV
 */
#include "npyguard.h"
#include "testutil.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Passes and failures per rule (the part of a case name before '/'). */
typedef struct rule_count {
    char rule[32];
    int passed, failed;
} rule_count;

static rule_count rules[64];
static int nrules;

static rule_count *rule_of(const char *name)
{
    char r[32];
    size_t n = strcspn(name, "/");
    if (n >= sizeof r) n = sizeof r - 1;
    memcpy(r, name, n);
    r[n] = '\0';
    for (int k = 0; k < nrules; k++)
        if (!strcmp(rules[k].rule, r)) return &rules[k];
    if (nrules == 64) return &rules[63];
    strcpy(rules[nrules].rule, r);
    return &rules[nrules++];
}

static tu_divs divs;
/* Accepted cases whose fields were compared, against the table's count. */
static size_t fields_checked;

/* ---------------- one case ---------------- */
static void check_case(npyg_ctx *ctx, char **col)
{
    const char *name = col[0];
    size_t hexlen = strlen(col[2]);
    unsigned char *file = malloc(hexlen / 2 + 1);
    size_t len = tu_unhex(col[2], hexlen, file);
    TU_CHECK(len == hexlen / 2, "the case's file is not all hex digit pairs");
    bool numpy_accepts = strcmp(col[3], "accept") == 0;
    const tu_div *d = tu_divs_find(&divs, name);
    int want = d ? d->code : numpy_accepts ? 0 : -1; /* -1: any refusal */

    npyg_set_input_buffer(ctx, file, len);
    int rc = npyg_validate(ctx);
    char got[256];
    snprintf(got, sizeof got, "%s (%s)", npyg_error_name(rc), rc ? npyg_last_error(ctx)->message : "");
    if (want < 0) TU_CHECK(rc != 0, "numpy refuses (%s), npyguard accepted", col[4]);
    else TU_CHECK(rc == want, "npyguard %s, expected %s", got, npyg_error_name(want));

    if (rc == 0 && want == 0 && numpy_accepts) {
        fields_checked++;
        const npyg_info *in = npyg_get_info(ctx);
        char buf[512], shape[256] = "";
        for (uint32_t k = 0; k < in->ndim; k++)
            snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%llu", k ? "," : "",
                     (unsigned long long)in->shape[k]);
        TU_CHECK(!strcmp(shape, col[6]), "shape %s, numpy %s", shape, col[6]);
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)in->dtype->itemsize);
        TU_CHECK(!strcmp(buf, col[5]), "itemsize %s, numpy %s", buf, col[5]);
        TU_CHECK(!strcmp(in->fortran_order ? "1" : "0", col[7]), "fortran %s, numpy %s",
               in->fortran_order ? "1" : "0", col[7]);
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)in->count);
        TU_CHECK(!strcmp(buf, col[8]), "count %s, numpy %s", buf, col[8]);
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)in->payload_bytes);
        TU_CHECK(!strcmp(buf, col[9]), "payload_bytes %s, numpy %s", buf, col[9]);
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)in->data_offset);
        TU_CHECK(!strcmp(buf, col[10]), "data_offset %s, numpy %s", buf, col[10]);
        /* A descr that meant native order comes back resolved to '<'; the
           table writes non-ASCII names as ascii() escapes. */
        if (!(in->warnings & NPYG_W_NATIVE_ORDER) && !strchr(col[11], '\\')) {
            char *descr = malloc(65536);
            npyg_format_descr(in->dtype, descr, 65536);
            TU_CHECK(!strcmp(descr, col[11]), "descr %s, numpy %s", descr, col[11]);
            free(descr);
        }
    }

    tu_chunks ch = {file, len, 0, 11, 13};
    npyg_set_input_read(ctx, tu_chunked_read, &ch);
    int rc2 = npyg_validate(ctx);
    TU_CHECK(rc2 == rc, "callback input gives %s, buffer %s", npyg_error_name(rc2), npyg_error_name(rc));
    free(file);
}

int main(int argc, char **argv)
{
    if (tu_bad_args(argc, 3, "test_cases CASES_TSV DIVERGENCES_TSV")) return 2;
    if (tu_divs_load(&divs, argv[2])) return 2;
    FILE *f = fopen(argv[1], "r");
    if (!f) { perror(argv[1]); return 2; }
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    size_t ncases = 0, nrows = 0, want_fields = 0;
    while ((n = getline(&line, &cap, f)) > 0) {
        if (line[0] == '#') continue;
        line[strcspn(line, "\n")] = '\0';
        char *col[16] = {0};
        int nc = 0;
        for (char *p = line; nc < 16;) {
            col[nc++] = p;
            char *t = strchr(p, '\t');
            if (!t) break;
            *t = '\0';
            p = t + 1;
        }
        nrows++;
        tu_current = col[0];
        TU_CHECK(nc >= 12, "%d columns", nc);
        if (nc < 12) continue;
        const tu_div *d = tu_divs_lookup(&divs, col[0]);
        if (!strcmp(col[3], "accept") && (!d || d->code == 0)) want_fields++;
        int p0 = tu_passed, f0 = tu_failed;
        rule_count *rule = rule_of(col[0]);
        check_case(ctx, col);
        rule->passed += tu_passed - p0;
        rule->failed += tu_failed - f0;
        ncases++;
    }
    free(line);
    fclose(f);
    npyg_ctx_free(ctx);
    for (int k = 0; k < nrules; k++)
        printf("%-16s %4d passed, %d failed\n", rules[k].rule, rules[k].passed, rules[k].failed);
    tu_current = "totals";
    TU_AT_LEAST(ncases, nrows, "cases in the table");
    TU_AT_LEAST(fields_checked, want_fields, "accepted cases whose numpy-read fields were compared");
    tu_divs_check_used(&divs, false);
    tu_divs_free(&divs);
    printf("cases: %zu, %zu with every field compared\n", ncases, fields_checked);
    return tu_finish();
}
