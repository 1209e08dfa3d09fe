/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The oracle of the inflate harnesses: zlib's raw inflate (windowBits -15)
 * of a whole stream in one buffer, as zip.c's verdicts are zlib's.
 */
#ifndef NPYG_FUZZ_ZLIB_ORACLE_H
#define NPYG_FUZZ_ZLIB_ORACLE_H

#include "fuzz_common.h"

#include <stdint.h>
#include <string.h>
#include <zlib.h>

/* Inflates in[0, len) into out[0, room): all the input, all the room.
   Returns zlib's last result (Z_STREAM_END: the final block ended within
   the input); *out_len is what was made, *used the input taken, *why
   zlib's reason for a refusal (a static string) or NULL. */
static inline int fuzz_zlib_inflate(const uint8_t *in, size_t len, uint8_t *out, size_t room, size_t *out_len,
                                    size_t *used, const char **why)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    FUZZ_CHECK(inflateInit2(&zs, -MAX_WBITS) == Z_OK, "zlib inflateInit2");
    zs.next_in = (Bytef *)(uintptr_t)in;
    zs.avail_in = (uInt)len;
    zs.next_out = out;
    zs.avail_out = (uInt)room;
    int r;
    do r = inflate(&zs, Z_NO_FLUSH);
    while (r == Z_OK && zs.avail_out > 0 && zs.avail_in > 0);
    *out_len = room - zs.avail_out;
    *used = len - zs.avail_in;
    *why = zs.msg;
    inflateEnd(&zs);
    FUZZ_CHECK(r != Z_MEM_ERROR && r != Z_STREAM_ERROR, "zlib: %d", r);
    return r;
}

#endif
