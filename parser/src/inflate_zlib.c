/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The inflate interface on zlib: the reference every other backend's
 * verdict is held to, and the build's choice with NPYG_INFLATE=zlib.
 */
#include "inflate.h"

#include <limits.h>
#include <string.h>
#include <zlib.h>

/* zlib's state (about 7 KiB in 1.2/1.3) and its 32 KiB window, each with
   a 16-byte size header. The corpus test holds the library to this
   through a failing-past-bound allocator. */
#define ZLIB_BUDGET (64u * 1024u)
#define ZHDR 16u

struct npyg__inflater {
    z_stream zs;
    npyg__inflate_mem mem;
};

/* zlib allocates through the context; zfree gets no size: keep it. */
static voidpf z_alloc(voidpf opaque, uInt items, uInt size)
{
    npyg__inflater *f = opaque;
    _Static_assert(UINT_MAX <= UINT32_MAX, "uInt wider than 32 bits");
    uint64_t n = (uint64_t)items * size; /* two 32-bit factors fit in 64 */
#if SIZE_MAX < UINT64_MAX
    if (n > SIZE_MAX - ZHDR) return Z_NULL;
#endif
    size_t total = (size_t)n + ZHDR;
    uint8_t *p = f->mem.alloc(f->mem.user, total);
    if (!p) return Z_NULL;
    memcpy(p, &total, sizeof total);
    return p + ZHDR;
}

static void z_free(voidpf opaque, voidpf ptr)
{
    npyg__inflater *f = opaque;
    if (!ptr) return;
    uint8_t *p = (uint8_t *)ptr - ZHDR;
    size_t total;
    memcpy(&total, p, sizeof total);
    f->mem.free(f->mem.user, p, total);
}

npyg__inflater *npyg__inflate_new(const npyg__inflate_mem *mem)
{
    npyg__inflater *f = mem->alloc(mem->user, sizeof *f);
    if (!f) return NULL;
    memset(f, 0, sizeof *f);
    f->mem = *mem;
    f->zs.zalloc = z_alloc;
    f->zs.zfree = z_free;
    f->zs.opaque = f;
    if (inflateInit2(&f->zs, -MAX_WBITS) != Z_OK) { /* raw deflate, 32 KiB window */
        mem->free(mem->user, f, sizeof *f);
        return NULL;
    }
    return f;
}

void npyg__inflate_free(npyg__inflater *f)
{
    if (!f) return;
    inflateEnd(&f->zs);
    f->mem.free(f->mem.user, f, sizeof *f);
}

void npyg__inflate_reset(npyg__inflater *f) { inflateReset(&f->zs); }

int npyg__inflate_step(npyg__inflater *f, const uint8_t *in, size_t len, size_t *used, uint8_t *out, size_t cap,
                       size_t *made, const char **msg)
{
    /* uInt counts: the caller's chunks are far below 4 GiB, but a step
       may take less than it is given. */
    uInt ilen = len > UINT_MAX ? UINT_MAX : (uInt)len, olen = cap > UINT_MAX ? UINT_MAX : (uInt)cap;
    f->zs.next_in = (Bytef *)(uintptr_t)in;
    f->zs.avail_in = ilen;
    f->zs.next_out = out;
    f->zs.avail_out = olen;
    int r = inflate(&f->zs, Z_NO_FLUSH);
    *used = ilen - f->zs.avail_in;
    *made = olen - f->zs.avail_out;
    if (r == Z_STREAM_END) return NPYG__INF_END;
    if (r == Z_OK || r == Z_BUF_ERROR) return NPYG__INF_MORE; /* Z_BUF_ERROR: no progress was possible */
    /* zlib takes its window on the first call that writes output */
    if (r == Z_MEM_ERROR) return NPYG__INF_NOMEM;
    *msg = f->zs.msg ? f->zs.msg : "error";
    return NPYG__INF_BAD;
}

size_t npyg__inflate_unused(const npyg__inflater *f)
{
    (void)f;
    return 0; /* zlib hands back every byte past the end */
}

#if defined(NPYG_CRC_ISAL)
/* ISA-L's carry-less-multiply CRC-32 gives zlib's value at memory speed;
   the inflate stays zlib's, whose verdicts it is. */
#include <isa-l/crc.h>

uint32_t npyg__crc32(uint32_t crc, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n > 0) {
        uint64_t k = n > UINT64_MAX ? UINT64_MAX : (uint64_t)n;
        crc = crc32_gzip_refl(crc, b, k);
        b += k;
        n -= (size_t)k;
    }
    return crc;
}
#else
uint32_t npyg__crc32(uint32_t crc, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n > 0) {
        uInt k = n > UINT_MAX ? UINT_MAX : (uInt)n;
        crc = (uint32_t)crc32(crc, b, k);
        b += k;
        n -= k;
    }
    return crc;
}
#endif

size_t npyg__inflate_state_bound(void) { return sizeof(npyg__inflater) + ZLIB_BUDGET; }

const char *npyg__inflate_backend(void)
{
#if defined(NPYG_CRC_ISAL)
    return "zlib (CRC-32: isa-l)";
#else
    return "zlib";
#endif
}
