/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libdeflate's whole-buffer inflate (libdeflate_deflate_decompress_ex)
 * against zlib, the oracle, on the same raw deflate bytes: whether
 * libdeflate would give zip.c's verdict on every member if it inflated a
 * member whole into a buffer of the size the archive declares. Input: one
 * configuration byte, then the stream.
 *
 * zlib (inflateInit2 with windowBits -15) inflates the stream whole into
 * 256 KiB + 1 of room: it accepts when the final block ends within the
 * input, refuses otherwise, and tells the output's true size. The
 * configuration byte picks the size the member declares, S: the true size
 * (the usual member), one byte less or one more (a lying directory), or
 * 256 KiB + 1 with libdeflate asked for the size it made. Required, on
 * every input:
 *   - the same verdict for that S: accepted when the stream ends within
 *     the input and makes exactly S bytes (libdeflate: LIBDEFLATE_SUCCESS,
 *     and SHORT_OUTPUT or INSUFFICIENT_SPACE otherwise), refused
 *     otherwise;
 *   - when accepted, the same output bytes and the same number of input
 *     bytes used (what follows is trailing data to zip.c);
 *   - when zlib refuses and libdeflate accepts (below), libdeflate's
 *     output starts with every byte zlib made before refusing.
 * A refusal's kind is not compared: zip.c reports every one as
 * NPYG_EZIP_INFLATE or as a size that disagrees with the directory.
 *
 * The differences found are kept in corpus/fuzz-regressions/ and told in
 * fuzz/README.md; known_lax() names them by zlib's reason, so that the
 * replay of the corpus passes while any other difference still fails.
 */
#include "fuzz_common.h"
#include "zlib_oracle.h"

#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MAX_OUT (1u << 18)

static uint8_t zout[MAX_OUT + 1], dout[MAX_OUT + 2];

/* The differences found (fuzz/README.md, "libdeflate against zlib"): each
   a stream zlib refuses with one of these reasons and libdeflate 1.14
   inflates, because libdeflate
   - takes HLIT up to 288 and HDIST up to 32 codes in a dynamic block
     header (zlib: at most 286 and 30);
   - decodes length symbols 286 and 287 as length 258 and distance
     symbols 30 and 31 as distances from 24,577, in fixed blocks or in a
     dynamic block that gives them a length;
   - lets a repeat of code lengths (16, 17, 18) run past the last code;
   - decodes the unused codeword '1' of a one-symbol literal/length or
     distance code as that symbol (zlib: an invalid code), and any bit of
     an empty distance code as distance 1 (zlib: an invalid code).
   Nothing else is excused. */
static bool known_lax(const char *why)
{
    static const char *const reasons[] = {"too many length or distance symbols", "invalid literal/length code",
                                          "invalid distance code", "invalid bit length repeat"};
    for (size_t k = 0; why && k < sizeof reasons / sizeof *reasons; k++)
        if (!strcmp(why, reasons[k])) return true;
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct libdeflate_decompressor *d;
    if (!d) {
        d = libdeflate_alloc_decompressor();
        FUZZ_CHECK(d != NULL, "libdeflate_alloc_decompressor");
    }
    if (size == 0) return 0;
    uint8_t cfg = data[0];
    const uint8_t *in = data + 1;
    size_t len = size - 1;

    size_t zlen, zused;
    const char *why = NULL;
    bool zend = fuzz_zlib_inflate(in, len, zout, MAX_OUT + 1, &zlen, &zused, &why) == Z_STREAM_END;

    /* The size the member declares, and whether libdeflate is asked for
       the size it made (the generous case) or held to S. */
    size_t S = MAX_OUT + 1;
    bool ask = true;
    switch (cfg & 3) {
    case 1: S = zlen <= MAX_OUT ? zlen : MAX_OUT; ask = false; break;
    case 2: S = zlen ? zlen - 1 : 0; ask = false; break;
    case 3: S = zlen <= MAX_OUT ? zlen + 1 : MAX_OUT + 1; ask = false; break;
    default: break;
    }
    bool zacc = zend && (ask ? zlen <= MAX_OUT : zlen == S);

    size_t dused = 0, dlen = 0;
    enum libdeflate_result r =
        libdeflate_deflate_decompress_ex(d, in, len, dout, S, &dused, ask ? &dlen : NULL);
    FUZZ_CHECK(r == LIBDEFLATE_SUCCESS || r == LIBDEFLATE_BAD_DATA || r == LIBDEFLATE_SHORT_OUTPUT ||
                   r == LIBDEFLATE_INSUFFICIENT_SPACE,
               "libdeflate: result %d", (int)r);
    if (r == LIBDEFLATE_SUCCESS && !ask) dlen = S;
    bool dacc = r == LIBDEFLATE_SUCCESS && (ask ? dlen <= MAX_OUT : true);
    FUZZ_CHECK(!dacc || dused <= len, "libdeflate used %zu of %zu bytes", dused, len);

    if (dacc && !zacc && !zend && known_lax(why)) {
        /* A documented difference: what zlib made before refusing is
           where libdeflate's output starts. */
        size_t common = zlen < dlen ? zlen : dlen;
        FUZZ_CHECK(zlen <= dlen && memcmp(zout, dout, common) == 0,
                   "zlib refused (%s) after %zu bytes, libdeflate made %zu that do not start with them", why, zlen,
                   dlen);
        return 0;
    }
    FUZZ_CHECK(zacc == dacc, "declared %zu bytes: zlib %s (%s, %zu bytes, %zu used), libdeflate %s (result %d)", S,
               zacc ? "accepts" : "refuses", why ? why : zend ? "ended" : "did not end", zlen, zused,
               dacc ? "accepts" : "refuses", (int)r);
    if (zacc) {
        FUZZ_CHECK(zlen == dlen, "zlib made %zu bytes, libdeflate %zu", zlen, dlen);
        FUZZ_CHECK(zused == dused, "zlib used %zu input bytes, libdeflate %zu", zused, dused);
        FUZZ_CHECK(memcmp(zout, dout, zlen) == 0, "the outputs differ (%zu bytes)", zlen);
    }
    return 0;
}
