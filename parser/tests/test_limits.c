/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The limits API: one table of every format's limits, set and read on a
 * context by id. The expected names, defaults and ranges are npyguard.h's
 * documented ones (NPYG_DEFAULT_*, the caps, numpy's max_header_size),
 * spelled here by hand so that the table cannot drift from them.
 *
 * usage: test_limits CORPUS_DIR
 */
#include "../src/internal.h"
#include "testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define TEST(name) static void name(const char *corpus)
#define RUN(name) (tu_current = #name, name(corpus))

#define U32 UINT64_C(0xFFFFFFFF)
#define U64 UINT64_MAX

static const struct {
    npyg_limit id;
    const char *name, *option;
    uint64_t def, min, max;
} want[] = {
    {NPYG_LIMIT_MAX_HEADER_BYTES, "max_header_bytes", "max-header-bytes", 10000, 1, UINT64_C(1) << 28},
    {NPYG_LIMIT_MAX_DIMS, "max_dims", "max-dims", 64, 1, U32},
    {NPYG_LIMIT_MAX_FIELDS, "max_fields", "max-fields", 4096, 1, U32},
    {NPYG_LIMIT_MAX_DEPTH, "max_depth", "max-depth", 32, 1, 64},
    {NPYG_LIMIT_MAX_ALLOC_BYTES, "max_alloc_bytes", "max-alloc", 8u << 20, sizeof(npyg_ctx), U64},
    {NPYG_LIMIT_MAX_PAYLOAD_BYTES, "max_payload_bytes", "max-payload", UINT64_C(1) << 40, 0, U64},
    {NPYG_LIMIT_MAX_MEMBERS, "max_members", "max-members", 4096, 0, 1000000},
    {NPYG_LIMIT_MAX_NAME_BYTES, "max_name_bytes", "max-name-bytes", 512, 1, 65535},
    {NPYG_LIMIT_MAX_TOTAL_UNCOMPRESSED, "max_total_uncompressed", "max-uncompressed", UINT64_C(1) << 40, 0, U64},
    {NPYG_LIMIT_MAX_RATIO, "max_ratio", "max-ratio", 100, 1, U64},
    {NPYG_LIMIT_RATIO_GRACE_BYTES, "ratio_grace_bytes", "ratio-grace", 64u << 20, 0, U64},
    {NPYG_LIMIT_INFLATE_BUDGET_BYTES, "inflate_budget_bytes", "inflate-budget", 64u << 20, 0, U64},
    {NPYG_LIMIT_MAX_PICKLE_BYTES, "max_pickle_bytes", "max-pickle-bytes", UINT64_C(1) << 40, 1, U64},
    {NPYG_LIMIT_MAX_PICKLE_OPS, "max_pickle_ops", "max-pickle-ops", UINT64_C(1) << 32, 1, U64},
    {NPYG_LIMIT_MAX_PICKLE_MEMO, "max_pickle_memo", "max-pickle-memo", 1u << 18, 1, 1u << 26},
    {NPYG_LIMIT_MAX_PICKLE_STACK, "max_pickle_stack", "max-pickle-stack", 1u << 16, 1, 1u << 26},
    {NPYG_LIMIT_MAX_PICKLE_STRING_BYTES, "max_pickle_string_bytes", "max-pickle-string-bytes", 1u << 20, 1, 1u << 28},
    {NPYG_LIMIT_MAX_PICKLE_IMPORTS, "max_pickle_imports", "max-pickle-imports", 1024, 1, 1u << 20},
    {NPYG_LIMIT_MAX_OBJECTS, "max_objects", "max-objects", 100000, 1, 10000000},
    {NPYG_LIMIT_MAX_NESTING, "max_nesting", "max-nesting", 32, 1, 256},
    {NPYG_LIMIT_MAX_PATHS, "max_paths", "max-paths", 20000, 1, U64},
    {NPYG_LIMIT_MAX_REF_DEPTH, "max_ref_depth", "max-ref-depth", 32, 1, 10000},
    {NPYG_LIMIT_HDF5_MEMORY_BYTES, "hdf5_memory_bytes", "hdf5-memory", UINT64_C(1) << 30, 16u << 20, U64},
    {NPYG_LIMIT_HDF5_CPU_SECONDS, "hdf5_cpu_seconds", "hdf5-cpu", 20, 1, 86400},
    {NPYG_LIMIT_HDF5_WALL_SECONDS, "hdf5_wall_seconds", "hdf5-time", 60, 1, 86400},
    {NPYG_LIMIT_MAX_LOAD_BYTES, "max_load_bytes", "max-load-bytes", 64u << 20, 0, U64},
};
#define NWANT (sizeof want / sizeof want[0])

TEST(every_limit_has_its_documented_name_default_and_range)
{
    (void)corpus;
    TU_CHECK(NWANT == NPYG_LIMIT_END_, "%zu limits expected, the enum has %d", NWANT, NPYG_LIMIT_END_);
    TU_CHECK(npyg__limits_table_ok(), "a row missing, a default out of its range or a range wider than its field");
    for (size_t k = 0; k < NWANT; k++) {
        const npyg_limit_desc *d = npyg_limit_info(want[k].id);
        TU_CHECK(d != NULL, "no row for %s", want[k].name);
        if (!d) continue;
        TU_CHECK(!strcmp(d->name, want[k].name) && !strcmp(d->option, want[k].option), "%s: named %s / %s",
                 want[k].name, d->name, d->option);
        TU_CHECK(d->default_value == want[k].def && d->min == want[k].min && d->max == want[k].max,
                 "%s: default %llu, range %llu..%llu", want[k].name, (unsigned long long)d->default_value,
                 (unsigned long long)d->min, (unsigned long long)d->max);
        TU_CHECK(d->summary && d->summary[0] && d->format && d->format[0], "%s: summary and format", want[k].name);
    }
    TU_CHECK(npyg_limit_info(NPYG_LIMIT_END_) == NULL && npyg_limit_info((npyg_limit)-1) == NULL, "ids out of range");
}

TEST(names_and_options_find_their_limit)
{
    (void)corpus;
    for (size_t k = 0; k < NWANT; k++) {
        TU_CHECK(npyg_limit_by_name(want[k].name) == (int)want[k].id, "by name %s", want[k].name);
        TU_CHECK(npyg_limit_by_name(want[k].option) == (int)want[k].id, "by option %s", want[k].option);
    }
    TU_CHECK(npyg_limit_by_name("max_bogus") == -1 && npyg_limit_by_name("") == -1 && npyg_limit_by_name(NULL) == -1,
             "unknown names");
    TU_CHECK(npyg_limit_by_name("--max-alloc") == -1, "an option with its dashes is not a name");
}

static uint64_t value_of(const npyg_ctx *ctx, npyg_limit id)
{
    uint64_t v = 0;
    int rc = npyg_limit_value(ctx, id, &v);
    TU_CHECK(rc == 0, "limit %d: %s", (int)id, npyg_error_name(rc));
    return v;
}

TEST(a_context_starts_at_the_defaults_and_takes_each_end_of_each_range)
{
    (void)corpus;
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    for (size_t k = 0; k < NWANT; k++) {
        npyg_limit id = want[k].id;
        const char *n = want[k].name;
        TU_CHECK(value_of(ctx, id) == want[k].def, "%s starts at %llu", n, (unsigned long long)value_of(ctx, id));
        TU_CHECK(npyg_set_limit(ctx, id, want[k].min) == 0 && value_of(ctx, id) == want[k].min, "%s min", n);
        TU_CHECK(npyg_set_limit(ctx, id, want[k].max) == 0 && value_of(ctx, id) == want[k].max, "%s max", n);
        for (int side = 0; side < 2; side++) {
            if (side == 0 && want[k].min == 0) continue;
            if (side == 1 && want[k].max == U64) continue;
            uint64_t bad = side == 0 ? want[k].min - 1 : want[k].max + 1;
            int rc = npyg_set_limit(ctx, id, bad);
            const npyg_error *e = npyg_last_error(ctx);
            TU_CHECK(rc == NPYG_EINVAL && e->code == NPYG_EINVAL, "%s = %llu accepted", n, (unsigned long long)bad);
            TU_CHECK(strstr(e->message, n) != NULL, "%s: message '%s' does not name it", n, e->message);
            char range[64];
            snprintf(range, sizeof range, "%llu..%llu", (unsigned long long)want[k].min,
                     (unsigned long long)want[k].max);
            TU_CHECK(strstr(e->message, range) != NULL, "%s: message '%s' does not give %s", n, e->message, range);
            TU_CHECK(value_of(ctx, id) == want[k].max, "%s changed by a refused value", n);
        }
        TU_CHECK(npyg_set_limit(ctx, id, want[k].def) == 0, "%s back to its default", n);
    }
    TU_CHECK(npyg_set_limit(ctx, NPYG_LIMIT_END_, 1) == NPYG_EINVAL, "unknown id");
    TU_CHECK(strstr(npyg_last_error(ctx)->message, "unknown limit") != NULL, "unknown id named");
    TU_CHECK(npyg_set_limit(NULL, NPYG_LIMIT_MAX_DIMS, 1) == NPYG_EINVAL, "NULL context");
    /* "no such limit" is a status, not a value: 0 and UINT64_MAX are
       values of limits (a minimum, a maximum) */
    uint64_t v = 12345;
    TU_CHECK(npyg_limit_value(ctx, NPYG_LIMIT_END_, &v) == NPYG_EINVAL && v == 12345, "an unknown id");
    TU_CHECK(npyg_limit_value(ctx, (npyg_limit)-1, &v) == NPYG_EINVAL && v == 12345, "a negative id");
    TU_CHECK(npyg_limit_value(NULL, NPYG_LIMIT_MAX_DIMS, &v) == NPYG_EINVAL && v == 12345, "a NULL context");
    TU_CHECK(npyg_limit_value(ctx, NPYG_LIMIT_MAX_DIMS, NULL) == NPYG_EINVAL, "a NULL value");
    TU_CHECK(npyg_set_limit(ctx, NPYG_LIMIT_RATIO_GRACE_BYTES, 0) == 0 &&
                 npyg_limit_value(ctx, NPYG_LIMIT_RATIO_GRACE_BYTES, &v) == 0 && v == 0,
             "a limit set to 0 reads back as a value");
    npyg_ctx_free(ctx);
}

/* A limit that enters a worst case raises the context's bound when it
   goes from its smallest value to its default; one that enters none
   leaves it alone. max_alloc_bytes, which caps them all, is set to its
   largest so that nothing else is capped. */
TEST(the_worst_case_grows_with_each_limit_that_enters_it)
{
    (void)corpus;
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    npyg_set_limit(ctx, NPYG_LIMIT_MAX_ALLOC_BYTES, U64);
    for (size_t k = 0; k < NWANT; k++) {
        npyg_limit id = want[k].id;
        if (id == NPYG_LIMIT_MAX_ALLOC_BYTES) continue;
        unsigned bounds = npyg_limit_info(id)->bounds;
        npyg_set_limit(ctx, id, want[k].min);
        uint64_t lo = npyg_ctx_worst_case_alloc(ctx, NPYG_BOUND_ALL);
        npyg_set_limit(ctx, id, want[k].def);
        uint64_t hi = npyg_ctx_worst_case_alloc(ctx, NPYG_BOUND_ALL);
        TU_CHECK(lo > 0, "%s: a bound of 0", want[k].name);
        if (bounds) TU_CHECK(hi > lo, "%s enters a bound that does not grow: %llu", want[k].name, (unsigned long long)hi);
        else TU_CHECK(hi == lo, "%s enters no bound, yet %llu -> %llu", want[k].name, (unsigned long long)lo,
                      (unsigned long long)hi);
    }
    /* the cap: the bound is never above it */
    npyg_set_limit(ctx, NPYG_LIMIT_MAX_ALLOC_BYTES, 1u << 20);
    TU_CHECK(npyg_ctx_worst_case_alloc(ctx, NPYG_BOUND_ALL) == 1u << 20, "capped by max_alloc_bytes");
    npyg_set_limit(ctx, NPYG_LIMIT_MAX_ALLOC_BYTES, NPYG_DEFAULT_MAX_ALLOC_BYTES);
    uint64_t def = npyg_ctx_worst_case_alloc(ctx, NPYG_BOUND_ALL);
    TU_CHECK(def > 1u << 20 && def <= NPYG_DEFAULT_MAX_ALLOC_BYTES, "default bound %llu", (unsigned long long)def);
    npyg_limits l;
    npyg_limits_default(&l);
    TU_CHECK(def >= npyg_worst_case_alloc(&l) && def >= npyg_zip_worst_case_alloc(&l, NULL) &&
                 def >= npyg_ra_worst_case_alloc(&l) && def >= npyg_pickle_worst_case_alloc(NULL),
             "the context's bound covers each format's");
    TU_CHECK(npyg_ctx_worst_case_alloc(ctx, NPYG_BOUND_NPY) == npyg_worst_case_alloc(&l) &&
                 npyg_ctx_worst_case_alloc(ctx, NPYG_BOUND_ZIP) == npyg_zip_worst_case_alloc(&l, NULL) &&
                 npyg_ctx_worst_case_alloc(ctx, NPYG_BOUND_PICKLE) == npyg_pickle_worst_case_alloc(NULL) &&
                 npyg_ctx_worst_case_alloc(ctx, NPYG_BOUND_HDF5) == npyg_hdf5_worst_case_alloc(&l, NULL),
             "one format's bound is that format's");
    TU_CHECK(npyg_ctx_worst_case_alloc(ctx, 0) == 0, "no format, no bound");
    TU_CHECK(npyg_ctx_worst_case_alloc(NULL, NPYG_BOUND_ALL) == 0, "NULL context");
    npyg_ctx_free(ctx);
}

static long long pickle_ops(npyg_ctx *ctx, const npyg_pickle_limits *l)
{
    /* PROTO 2, BININT1 1, STOP: three opcodes (pickletools.dis) */
    static const unsigned char p[] = {0x80, 0x02, 'K', 0x01, '.'};
    npyg_set_input_buffer(ctx, p, sizeof p);
    return npyg_pickle_scan(ctx, l);
}

static int open_zip(npyg_ctx *ctx, const char *corpus, const npyg_zip_limits *zl)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/npz/valid/savez-several.npz", corpus);
    int fd = open(path, O_RDONLY);
    TU_CHECK(fd >= 0, "open %s", path);
    npyg_zip *z = NULL;
    npyg_set_input_fd(ctx, fd);
    int rc = npyg_zip_open(ctx, zl, &z);
    npyg_zip_close(z);
    close(fd);
    return rc;
}

/* The context's limits reach every format; a per-call struct, where the
   API still takes one, stands in for them during that call only. */
TEST(every_format_reads_its_limits_from_the_context)
{
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    TU_CHECK(pickle_ops(ctx, NULL) == 0, "three opcodes under the default");
    npyg_set_limit(ctx, NPYG_LIMIT_MAX_PICKLE_OPS, 2);
    TU_CHECK(pickle_ops(ctx, NULL) == NPYG_ELIMIT_PICKLE_OPS, "max_pickle_ops 2 on the context");
    npyg_pickle_limits pl;
    npyg_pickle_limits_default(&pl);
    TU_CHECK(pickle_ops(ctx, &pl) == 0, "a per-call struct overrides the context");
    TU_CHECK(pickle_ops(ctx, NULL) == NPYG_ELIMIT_PICKLE_OPS, "for that call only");

    TU_CHECK(open_zip(ctx, corpus, NULL) == 0, "the archive under the defaults");
    npyg_set_limit(ctx, NPYG_LIMIT_MAX_MEMBERS, 1);
    TU_CHECK(open_zip(ctx, corpus, NULL) == NPYG_ELIMIT_MEMBERS, "max_members 1 on the context");
    npyg_zip_limits zl;
    npyg_zip_limits_default(&zl);
    TU_CHECK(open_zip(ctx, corpus, &zl) == 0, "a per-call struct overrides the context");

    if (npyg_hdf5_available()) {
        char path[4096];
        snprintf(path, sizeof path, "%s/hdf5/valid/mat/savemat-several.mat", corpus);
        int fd = open(path, O_RDONLY);
        npyg_set_input_fd(ctx, fd);
        TU_CHECK(npyg_hdf5_scan(ctx, NULL, NULL, NULL) == 0, "the MAT file under the defaults");
        npyg_set_limit(ctx, NPYG_LIMIT_MAX_OBJECTS, 1);
        npyg_set_input_fd(ctx, fd);
        TU_CHECK(npyg_hdf5_scan(ctx, NULL, NULL, NULL) == NPYG_ELIMIT_OBJECTS, "max_objects 1 on the context");
        close(fd);
    }
    npyg_ctx_free(ctx);
}

int main(int argc, char **argv)
{
    if (tu_bad_args(argc, 2, "test_limits CORPUS_DIR")) return 2;
    const char *corpus = argv[1];
    RUN(every_limit_has_its_documented_name_default_and_range);
    RUN(names_and_options_find_their_limit);
    RUN(a_context_starts_at_the_defaults_and_takes_each_end_of_each_range);
    RUN(the_worst_case_grows_with_each_limit_that_enters_it);
    RUN(every_format_reads_its_limits_from_the_context);
    return tu_finish();
}
