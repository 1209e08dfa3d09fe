/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The core every parser stands on, tested directly: the context's
 * refusals of invalid options and limits (npyguard.h: npyg_ctx_new
 * returns NULL), the NULL-safe accessors, the error table's lookups, the
 * escaping of error messages (control characters and bytes that are not
 * UTF-8 as \xNN, characters that reorder or hide text as \uNNNN, the
 * message cut whole-character at its 200-byte field), the arena and
 * tracked allocations at the edges of size_t, and format sniffing of no
 * buffer. It calls the library's internal steps (internal.h), so it
 * needs the static library.
 *
 *   test_core
 */
#include "../src/internal.h"
#include "testutil.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *null_malloc(void *user, size_t n) { (void)user; (void)n; return NULL; }
static void plain_free(void *user, void *p, size_t n) { (void)user; (void)n; free(p); }
static void *plain_malloc(void *user, size_t n) { (void)user; return malloc(n); }

static void context(void)
{
    tu_current = "npyg_ctx_new refusals";
    npyg_limits l;
    for (int k = 0; k < 9; k++) {
        npyg_limits_default(&l);
        switch (k) {
        case 0: l.max_header_bytes = 0; break;
        case 1: l.max_header_bytes = NPYG_MAX_HEADER_BYTES_CAP + 1; break;
        case 2: l.max_dims = 0; break;
        case 3: l.max_fields = 0; break;
        case 4: l.max_depth = 0; break;
        case 5: l.max_depth = NPYG_MAX_DEPTH_CAP + 1; break;
        case 6: l.max_alloc_bytes = 0; break;
        case 7: l.max_alloc_bytes = sizeof(npyg_ctx) - 1; /* valid limits, but not even the context fits */ break;
        case 8: l.max_alloc_bytes = sizeof(npyg_ctx); break; /* exactly the context: valid */
        }
        npyg_options o = {NPYG_PROFILE_NUMPY, &l, NULL, 0};
        npyg_ctx *ctx = npyg_ctx_new(&o);
        TU_CHECK((ctx != NULL) == (k == 8), "limits case %d: %s", k, ctx ? "accepted" : "refused");
        if (k < 7) TU_CHECK(npyg_worst_case_alloc(&l) == 0, "limits case %d: a bound of invalid limits", k);
        npyg_ctx_free(ctx);
    }
    TU_CHECK(npyg_worst_case_alloc(NULL) == 0, "a bound of no limits");

    npyg_alloc no_malloc = {NULL, plain_free, NULL}, no_free = {plain_malloc, NULL, NULL};
    npyg_options o = {NPYG_PROFILE_NUMPY, NULL, &no_malloc, 0};
    TU_CHECK(npyg_ctx_new(&o) == NULL, "an allocator without malloc");
    o.alloc = &no_free;
    TU_CHECK(npyg_ctx_new(&o) == NULL, "an allocator without free");
    npyg_alloc refuses = {null_malloc, plain_free, NULL};
    o.alloc = &refuses;
    TU_CHECK(npyg_ctx_new(&o) == NULL, "an allocator that refuses the context");
    o.alloc = NULL;
    o.profile = (npyg_profile)7;
    TU_CHECK(npyg_ctx_new(&o) == NULL, "an unknown profile");
    o.profile = NPYG_PROFILE_STRICT;
    o.flags = 1;
    TU_CHECK(npyg_ctx_new(&o) == NULL, "unknown flags");

    tu_current = "NULL contexts";
    npyg_ctx_free(NULL);
    npyg_set_payload_sink(NULL, NULL, NULL);
    TU_CHECK(npyg_last_error(NULL) == NULL, "npyg_last_error(NULL)");
    TU_CHECK(npyg_get_info(NULL) == NULL, "npyg_get_info(NULL)");
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    TU_CHECK(npyg_get_info(ctx) == NULL, "no info before a parse");
    npyg_ctx_free(ctx);
}

static void table(void)
{
    tu_current = "error table";
    TU_CHECK(!npyg_error_is_environment(NPYG_OK), "success is not a fault of the environment");
    TU_CHECK(!npyg_error_is_environment(9999) && !npyg_error_is_environment(-1), "unknown codes are not");
    TU_CHECK(npyg_error_is_environment(NPYG_EIO) && !npyg_error_is_environment(NPYG_EMAGIC), "io yes, magic no");
    TU_CHECK(!strcmp(npyg_offset_space_name(NPYG_OFFSET_FILE), "file") &&
                 !strcmp(npyg_offset_space_name(NPYG_OFFSET_ARCHIVE), "archive") &&
                 !strcmp(npyg_offset_space_name(NPYG_OFFSET_MEMBER), "member"),
             "offset space names");
    TU_CHECK(!strcmp(npyg_offset_space_name(42), "?"), "an unknown offset space is ?");
    TU_CHECK(!strcmp(npyg_error_name(9999), "?") && !strcmp(npyg_error_class(9999), "?") &&
                 !strcmp(npyg_strerror(9999), "unknown error code"),
             "an unknown code");
}

/* The message npyg__fail records for text (through "%s"). */
static const char *message(npyg_ctx *ctx, const char *text)
{
    npyg__ctx_reset(ctx);
    npyg__fail(ctx, NPYG_EDESCR, 0, "%s", text);
    return npyg_last_error(ctx)->message;
}

static void escaping(void)
{
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    static const struct {
        const char *in, *want, *what;
    } cases[] = {
        /* Unicode's bidi and invisible format characters (U+061C ARABIC
           LETTER MARK, U+200B ZERO WIDTH SPACE, U+200F RIGHT-TO-LEFT
           MARK, U+2028 LINE SEPARATOR, U+2066 LEFT-TO-RIGHT ISOLATE,
           U+FEFF BYTE ORDER MARK) */
        {"a\xd8\x9c" "b", "a\\u061cb", "U+061C"},
        {"\xe2\x80\x8b\xe2\x80\x8f", "\\u200b\\u200f", "U+200B, U+200F"},
        {"\xe2\x80\xa8|\xe2\x81\xa6|\xef\xbb\xbf", "\\u2028|\\u2066|\\ufeff", "U+2028, U+2066, U+FEFF"},
        /* letters that merely look like them stay as written */
        {"\xe2\x80\x90\xe2\x81\xb0\xd8\x9b", "\xe2\x80\x90\xe2\x81\xb0\xd8\x9b", "U+2010, U+2070, U+061B"},
        /* a 4-byte character (U+1F600) is kept; C1 U+0085 and DEL escaped */
        {"\xf0\x9f\x98\x80\xc2\x85\x7f", "\xf0\x9f\x98\x80\\x85\\x7f", "U+1F600, U+0085, DEL"},
        /* a lead byte whose sequence the text cuts: the byte alone */
        {"ok\xe2\x80", "ok\\xe2\\x80", "a cut 3-byte sequence"},
        {"\xf0\x9f", "\\xf0\\x9f", "a cut 4-byte sequence"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_current = cases[i].what;
        const char *got = message(ctx, cases[i].in);
        TU_CHECK(!strcmp(got, cases[i].want), "'%s', want '%s'", got, cases[i].want);
    }

    /* The field holds 199 bytes and a NUL: an escape or a character that
       would not fit whole is left out, never cut. */
    char in[400], want[400];
    tu_current = "message cut at the field's size";
    memset(in, 'a', 300);
    in[300] = 0;
    TU_CHECK(strlen(message(ctx, in)) == 199, "300 letters: %zu kept", strlen(message(ctx, in)));
    static const struct {
        const char *tail, *what;
        size_t keep; /* of the filler */
    } ends[] = {
        {"\x01", "\\x01 at byte 197", 197},
        {"\xe2\x80\xae", "\\u202e at byte 195", 195},
        {"\xc3\xa9", "a 2-byte letter the field cuts after its first byte", 198},
    };
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        tu_current = ends[i].what;
        memset(in, 'a', ends[i].keep);
        snprintf(in + ends[i].keep, sizeof in - ends[i].keep, "%szzzz", ends[i].tail);
        memset(want, 'a', ends[i].keep);
        want[ends[i].keep] = 0;
        const char *got = message(ctx, in);
        TU_CHECK(!strcmp(got, want), "kept %zu bytes, want the %zu letters alone", strlen(got), ends[i].keep);
    }
    /* Escapes grow the text: after 20 control bytes (80 bytes of
       escapes) the field fills with letters 140 bytes into the input. */
    for (int two = 0; two < 2; two++) {
        tu_current = two ? "escapes, then a 2-byte letter at byte 198" : "escapes, then letters to byte 199";
        size_t o = 0, w = 0;
        for (int k = 0; k < 20; k++) {
            in[o++] = 1;
            memcpy(want + w, "\\x01", 4);
            w += 4;
        }
        size_t letters = two ? 118 : 119;
        memset(in + o, 'a', letters);
        memset(want + w, 'a', letters);
        o += letters;
        w += letters;
        memcpy(in + o, two ? "\xc3\xa9" : "aa", 3);
        want[w] = 0;
        const char *got = message(ctx, in);
        TU_CHECK(!strcmp(got, want), "kept %zu bytes, want %zu", strlen(got), w);
    }
    npyg_ctx_free(ctx);
}

static void memory(void)
{
    tu_alloc ta;
    tu_alloc_init(&ta, UINT64_MAX);
    npyg_alloc al = tu_allocator(&ta);
    npyg_options o = {NPYG_PROFILE_NUMPY, NULL, &al, 0};
    npyg_ctx *ctx = npyg_ctx_new(&o);
    if (!ctx) { TU_CHECK(0, "context"); return; }
    uint64_t base = ctx->allocated;

    tu_current = "tracked allocations";
    TU_CHECK(npyg__xalloc(ctx, 0) == NULL && ctx->allocated == base, "a zero-byte request is refused");
    TU_CHECK(npyg__xalloc(ctx, SIZE_MAX) == NULL && ctx->xalloc_over_cap, "SIZE_MAX is over the cap");
    npyg__xfree(ctx, NULL, 123);
    TU_CHECK(ctx->allocated == base, "freeing NULL charges nothing");

    tu_current = "arena";
    npyg__arena *a = &ctx->arena;
    void *p = npyg__arena_alloc(a, 0);
    TU_CHECK(p != NULL && a->left == NPYG__ARENA_BLOCK - 8, "a zero-byte request gets 8 bytes: %zu left",
             a->left);
    /* Sizes whose rounding up to 8 wraps past SIZE_MAX, and sizes whose
       block header would: refused as over the cap, never a small block. */
    size_t huge[] = {SIZE_MAX, SIZE_MAX - 3, SIZE_MAX - 7, SIZE_MAX - NPYG__BLOCK_HDR + 1};
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        a->over_cap = false;
        p = npyg__arena_alloc(a, huge[i]);
        TU_CHECK(p == NULL && a->over_cap, "SIZE_MAX - %zu: %s", SIZE_MAX - huge[i],
                 p ? "a block was returned" : "not flagged as over the cap");
    }
    TU_CHECK(ctx->allocated - base == NPYG__BLOCK_HDR + NPYG__ARENA_BLOCK, "only the first block is charged");

    tu_current = "arena rewind";
    /* Everything taken after a mark is given back by a rewind: bytes in
       the current block, big blocks put behind it, new standard blocks in
       front of it. The standard ones are kept as spares (still charged),
       the big ones freed; the next request gets the bytes the first one
       after the mark got. */
    a->over_cap = false;
    uint64_t before = ctx->allocated;
    npyg__arena_mark m = npyg__arena_mark_now(a);
    void *first = npyg__arena_alloc(a, 24);
    void *big = npyg__arena_alloc(a, 2 * NPYG__ARENA_BLOCK);       /* behind the head */
    void *next = npyg__arena_alloc(a, NPYG__ARENA_BLOCK / 4 - 64); /* fits the head */
    /* The head has 4096 - 8 - 24 - 960 = 3,104 bytes left: three of these
       fit in it, the other five take two new standard blocks. */
    void *fresh = NULL;
    for (int k = 0; k < 8; k++) fresh = npyg__arena_alloc(a, NPYG__ARENA_BLOCK / 4);
    TU_CHECK(first && big && next && fresh && a->head != m.head, "allocations after the mark");
    uint32_t spares = a->nspare;
    npyg__arena_rewind(a, m);
    npyg__arena_mark back = npyg__arena_mark_now(a);
    TU_CHECK(back.head == m.head && back.next == m.next && back.cur == m.cur && back.left == m.left,
             "the marked head, its successor and free bytes are back");
    TU_CHECK(a->nspare == spares + 2, "the new standard blocks are spares: %u, was %u", a->nspare, spares);
    TU_CHECK(ctx->allocated == before + 2 * (NPYG__BLOCK_HDR + NPYG__ARENA_BLOCK),
             "charged: the spares only (%llu bytes over the mark)", (unsigned long long)(ctx->allocated - before));
    TU_CHECK(npyg__arena_alloc(a, 24) == first, "the next request reuses the bytes given back");
    npyg__arena_mark empty = {0};
    npyg__arena_rewind(a, empty);
    TU_CHECK(a->head == NULL && a->left == 0, "a mark taken on an empty arena empties it");
    /* Zero-byte requests take 8 bytes of the current block once it has one. */
    npyg__arena_alloc(a, 0);
    size_t left = a->left;
    TU_CHECK(npyg__arena_alloc(a, 0) != NULL && a->left == left - 8, "a second zero-byte request: %zu left, was %zu",
             a->left, left);
    npyg_ctx_free(ctx);

    tu_current = "spares under the cap";
    /* Blocks kept from earlier parses count against max_alloc_bytes; a
       tracked allocation that fits only without them gets them dropped. */
    npyg_limits l;
    npyg_limits_default(&l);
    npyg_options lo = {NPYG_PROFILE_NUMPY, &l, &al, 0};
    ctx = npyg_ctx_new(&lo);
    if (!ctx) { TU_CHECK(0, "context"); return; }
    a = &ctx->arena;
    for (int k = 0; k < 4; k++) npyg__arena_alloc(a, NPYG__ARENA_BLOCK);
    npyg__arena_reset(a);
    uint32_t kept = a->nspare;
    uint64_t in_use = ctx->allocated;
    l.max_alloc_bytes = in_use + NPYG__ARENA_BLOCK; /* room for one more block, not for the spares as well */
    ctx->limits.max_alloc_bytes = l.max_alloc_bytes;
    size_t want = (size_t)(kept * (NPYG__BLOCK_HDR + NPYG__ARENA_BLOCK));
    void *tracked = npyg__xalloc(ctx, want);
    TU_CHECK(kept == 4 && tracked != NULL && a->nspare == 0, "%u spares kept, then dropped for %zu bytes: %s, %u left",
             kept, want, tracked ? "allocated" : "refused", a->nspare);
    npyg__xfree(ctx, tracked, want);
    npyg_ctx_free(ctx);

    tu_current = "big blocks kept between parses";
    /* A big request's block, given back at the end of a parse, serves
       the next parse's request of that size without the allocator; the
       kept bytes stay within NPYG__ARENA_KEEP, and a tracked allocation
       that fits only without them gets them dropped. */
    npyg_limits_default(&l);
    ctx = npyg_ctx_new(&lo);
    if (!ctx) { TU_CHECK(0, "context"); return; }
    a = &ctx->arena;
    size_t bigsize = 40 * NPYG__ARENA_BLOCK;
    void *b1 = npyg__arena_alloc(a, bigsize);
    npyg__arena_reset(a);
    long calls = ta.calls;
    uint64_t held = ctx->allocated;
    void *b2 = npyg__arena_alloc(a, bigsize - 64);
    TU_CHECK(b1 && b2 == b1 && ta.calls == calls && ctx->allocated == held,
             "the kept block again: %s, %ld allocator calls", b2 == b1 ? "same" : "another", ta.calls - calls);
    void *b3 = npyg__arena_alloc(a, bigsize + 64);
    TU_CHECK(b3 && b3 != b1 && ta.calls == calls + 1, "a larger request gets a block of its own");
    npyg__arena_reset(a);
    TU_CHECK(a->kept <= NPYG__ARENA_KEEP && a->kept >= 2 * bigsize, "%llu bytes kept, at most %llu",
             (unsigned long long)a->kept, (unsigned long long)NPYG__ARENA_KEEP);
    for (int k = 0; k < 40; k++) npyg__arena_alloc(a, 10 * NPYG__ARENA_BLOCK);
    npyg__arena_reset(a);
    TU_CHECK(a->kept <= NPYG__ARENA_KEEP, "after 40 more: %llu bytes kept, at most %llu",
             (unsigned long long)a->kept, (unsigned long long)NPYG__ARENA_KEEP);
    in_use = ctx->allocated;
    ctx->limits.max_alloc_bytes = in_use - a->kept + bigsize; /* room for the request, not for the spares */
    tracked = npyg__xalloc(ctx, bigsize);
    TU_CHECK(tracked != NULL && a->kept == 0 && a->big_spare == NULL, "dropped for %zu bytes: %s, %llu kept",
             bigsize, tracked ? "allocated" : "refused", (unsigned long long)a->kept);
    npyg__xfree(ctx, tracked, bigsize);
    npyg_ctx_free(ctx);
    TU_CHECK(ta.now == 0, "%llu bytes left", (unsigned long long)ta.now);

    tu_current = "format sniffing";
    TU_CHECK(npyg_sniff_format(NULL, 64) == NPYG_FORMAT_UNKNOWN, "no buffer");
}

int main(void)
{
    context();
    table();
    escaping();
    memory();
    return tu_finish();
}
