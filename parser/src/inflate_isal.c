/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The inflate interface on ISA-L (igzip): streaming raw inflate several
 * times zlib's speed in the same bounded state, and a carry-less-multiply
 * CRC-32. zlib's verdict is the contract: where ISA-L's own answer could
 * differ, this file decides as zlib does (fuzz/inflate_diff_fuzzer.c
 * compares the two on every input it finds).
 */
#include "inflate.h"

#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <limits.h>
#include <string.h>

struct npyg__inflater {
    struct inflate_state s;
    npyg__inflate_mem mem;
    size_t held; /* whole bytes read ahead past the end, from earlier steps */
};

npyg__inflater *npyg__inflate_new(const npyg__inflate_mem *mem)
{
    npyg__inflater *f = mem->alloc(mem->user, sizeof *f);
    if (!f) return NULL;
    f->mem = *mem;
    npyg__inflate_reset(f);
    return f;
}

void npyg__inflate_free(npyg__inflater *f)
{
    if (f) f->mem.free(f->mem.user, f, sizeof *f);
}

void npyg__inflate_reset(npyg__inflater *f)
{
    isal_inflate_init(&f->s);
    f->s.crc_flag = ISAL_DEFLATE; /* raw: the zip directory carries the CRC, checked by the caller */
    f->s.hist_bits = 0;           /* the full 32 KiB window */
    f->held = 0;
}

static const char *isal_msg(int r)
{
    switch (r) {
    case ISAL_INVALID_BLOCK: return "invalid block";
    case ISAL_INVALID_SYMBOL: return "invalid code";
    case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
    default: return "error";
    }
}

int npyg__inflate_step(npyg__inflater *f, const uint8_t *in, size_t len, size_t *used, uint8_t *out, size_t cap,
                       size_t *made, const char **msg)
{
    struct inflate_state *s = &f->s;
    uint32_t ilen = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len, olen = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
    s->next_in = (uint8_t *)(uintptr_t)in;
    s->avail_in = ilen;
    s->next_out = out;
    s->avail_out = olen;
    int r = isal_inflate(s);
    /* On a refusal ISA-L can leave avail_in past what it was given (it
       hands back the bit buffer, read-ahead padding included): the
       count is only an offset for the message then, never trusted. */
    *used = s->avail_in <= ilen ? ilen - s->avail_in : 0;
    *made = s->avail_out <= olen ? olen - s->avail_out : 0;
    if (r < 0) {
        *msg = isal_msg(r);
        return NPYG__INF_BAD;
    }
    if (s->block_state != ISAL_BLOCK_FINISH) return NPYG__INF_MORE;
    /* ISA-L reads input a word at a time into its bit buffer and, for a
       raw stream, keeps what it read past the final block there. zlib
       counts those whole bytes as not used (trailing data, which zip.c
       refuses): hand back what came from this step's input, and count
       the rest, which came from earlier steps. */
    size_t ahead = s->read_in_length > 0 ? (size_t)s->read_in_length / 8 : 0;
    size_t back = ahead < *used ? ahead : *used;
    *used -= back;
    f->held = ahead - back;
    s->read_in = 0;
    s->read_in_length = 0;
    return NPYG__INF_END;
}

size_t npyg__inflate_unused(const npyg__inflater *f) { return f->held; }

uint32_t npyg__crc32(uint32_t crc, const void *p, size_t n)
{
    return n ? crc32_gzip_refl(crc, p, n) : crc;
}

size_t npyg__inflate_state_bound(void) { return sizeof(npyg__inflater); }

const char *npyg__inflate_backend(void) { return "isa-l"; }
