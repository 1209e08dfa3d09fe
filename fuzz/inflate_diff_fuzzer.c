/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The build's inflater (parser/src/inflate.h: ISA-L unless NPYG_INFLATE=zlib)
 * against zlib, the oracle, on the same raw deflate bytes. Input: one
 * configuration byte, then the stream. zlib inflates it whole, in one
 * buffer; the inflater under test is driven the way zip.c drives it, in
 * input and output pieces whose sizes the configuration byte picks, and
 * is reused across inputs with a reset, as zip.c reuses it across members.
 *
 * Required, on every input:
 *   - the same accept or refuse (the final block ends within the input
 *     and within 256 KiB of output, or not), as zip.c turns either answer
 *     into its verdict;
 *   - when accepted, the same output bytes and the same number of input
 *     bytes used (what follows is trailing data to zip.c);
 *   - when refused or cut at 256 KiB, output that agrees with zlib's for as
 *     far as both went;
 *   - the same CRC-32 of the output, taken by npyg__crc32 in pieces as
 *     zip.c takes it, as zlib's crc32 of the whole;
 *   - no stall: a step that neither takes input nor writes output while
 *     both are on offer is a fault.
 * A refusal's kind (corrupt or truncated) is not compared: zip.c reports
 * both as NPYG_EZIP_INFLATE, and the two libraries read a cut-short code
 * differently.
 */
#include "../parser/src/inflate.h"
#include "fuzz_common.h"
#include "zlib_oracle.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MAX_OUT (1u << 18)

enum { ACCEPT, REFUSE, OVER };
static const char *const verdict_name[] = {"accept", "refuse", "over 256 KiB"};

static uint8_t zout[MAX_OUT + 1], fout[MAX_OUT + 1];

static void *mem_alloc(void *user, size_t n)
{
    (void)user;
    return malloc(n);
}

static void mem_free(void *user, void *p, size_t n)
{
    (void)user;
    (void)n;
    free(p);
}

/* zlib in one call: all the input, all the room. */
static int run_zlib(const uint8_t *in, size_t len, size_t *out_len, size_t *used, const char **why)
{
    int r = fuzz_zlib_inflate(in, len, zout, MAX_OUT + 1, out_len, used, why);
    if (*out_len > MAX_OUT) return OVER;
    return r == Z_STREAM_END ? ACCEPT : REFUSE;
}

/* The one known difference, kept in corpus/fuzz-regressions/ and
   explained in fuzz/README.md: ISA-L builds a decoding table from a
   dynamic block's code lengths without zlib's check that they make a
   complete prefix code, and inflates a stream whose decoding never meets
   an unassigned code (to its end, or past the harness's output cap). */
static bool known_lax(const char *why)
{
    static const char *const sets[] = {"invalid code lengths set", "invalid literal/lengths set",
                                        "invalid distances set"};
    for (size_t k = 0; why && k < sizeof sets / sizeof *sets; k++)
        if (!strcmp(why, sets[k])) return true;
    return false;
}

static const size_t in_pieces[8] = {0, 1, 2, 7, 64, 1000, 4096, 65536};
static const size_t out_pieces[8] = {0, 1, 3, 8, 100, 4096, 32768, 65536};

static int run_fast(npyg__inflater *f, const uint8_t *in, size_t len, uint8_t cfg, size_t *out_len, size_t *used)
{
    size_t ic = in_pieces[cfg & 7] ? in_pieces[cfg & 7] : len, oc = out_pieces[cfg >> 3 & 7];
    if (!oc) oc = MAX_OUT + 1;
    size_t given = 0, avail = 0, out = 0;
    const uint8_t *p = in;
    for (;;) {
        if (avail == 0 && given < len) {
            p = in + given;
            avail = len - given < ic ? len - given : ic;
            given += avail;
        }
        size_t room = MAX_OUT + 1 - out;
        if (room == 0) break;
        if (room > oc) room = oc;
        size_t u = 0, m = 0;
        const char *msg = NULL;
        int r = npyg__inflate_step(f, p, avail, &u, fout + out, room, &m, &msg);
        FUZZ_CHECK(u <= avail && m <= room, "step took %zu of %zu, made %zu in %zu", u, avail, m, room);
        p += u;
        avail -= u;
        out += m;
        if (r == NPYG__INF_END) {
            *out_len = out;
            size_t held = npyg__inflate_unused(f);
            FUZZ_CHECK(held <= given - avail, "%zu bytes held back of %zu used", held, given - avail);
            *used = given - avail - held;
            return out > MAX_OUT ? OVER : ACCEPT;
        }
        FUZZ_CHECK(r != NPYG__INF_NOMEM, "%s asked for memory mid-stream", npyg__inflate_backend());
        if (r == NPYG__INF_BAD) {
            FUZZ_CHECK(msg && *msg, "a refusal without a reason");
            break;
        }
        FUZZ_CHECK(r == NPYG__INF_MORE, "unknown step result %d", r);
        if (u == 0 && m == 0) {
            FUZZ_CHECK(avail == 0, "%s stalls with %zu bytes in and %zu bytes of room", npyg__inflate_backend(), avail,
                       room);
            if (given == len) break; /* truncated */
        }
    }
    *out_len = out;
    *used = given - avail;
    return out > MAX_OUT ? OVER : REFUSE;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static npyg__inflater *f;
    if (!f) {
        npyg__inflate_mem mem = {mem_alloc, mem_free, NULL};
        f = npyg__inflate_new(&mem);
        FUZZ_CHECK(f != NULL, "npyg__inflate_new");
    } else {
        npyg__inflate_reset(f);
    }
    if (size == 0) return 0;
    uint8_t cfg = data[0];
    const uint8_t *in = data + 1;
    size_t len = size - 1;

    size_t zlen, zused, flen, fused;
    const char *why = NULL;
    int zv = run_zlib(in, len, &zlen, &zused, &why);
    int fv = run_fast(f, in, len, cfg, &flen, &fused);
    const char *name = npyg__inflate_backend();

    if (!(zv == REFUSE && fv != REFUSE && known_lax(why)))
        FUZZ_CHECK(zv == fv, "zlib says %s (%s), %s says %s", verdict_name[zv], why ? why : "", name,
                   verdict_name[fv]);
    size_t common = zlen < flen ? zlen : flen;
    if (zv == ACCEPT) {
        FUZZ_CHECK(zlen == flen, "zlib made %zu bytes, %s %zu", zlen, name, flen);
        FUZZ_CHECK(zused == fused, "zlib used %zu input bytes, %s %zu", zused, name, fused);
    }
    for (size_t k = 0; k < common; k++)
        FUZZ_CHECK(zout[k] == fout[k], "output differs at byte %zu of %zu (zlib %zu, %s %zu)", k, common, zlen, name,
                   flen);

    /* The CRC in the pieces zip.c would take, from the same bytes. */
    size_t piece = 1 + (size_t)(cfg * 977u) % 70000u;
    uint32_t crc = 0;
    for (size_t k = 0; k < common; k += piece)
        crc = npyg__crc32(crc, zout + k, common - k < piece ? common - k : piece);
    uint32_t zcrc = (uint32_t)crc32(0L, zout, (uInt)common);
    FUZZ_CHECK(crc == zcrc, "CRC-32 of %zu bytes: zlib %08x, %s %08x", common, zcrc, name, crc);
    return 0;
}
