/* SPDX-License-Identifier: BSD-3-Clause */
/* The archive handle, shared by the container's reading (zip.c) and the
   members' (member.c). Not installed. */
#ifndef NPYG_ZIP_H
#define NPYG_ZIP_H

#include "inflate.h"
#include "internal.h"

#include <string.h>

#define EOCD_LEN 22u
#define MAX_COMMENT 65535u
/* Holds the end of the archive (end record plus the longest comment), or
   one extra field, or one name: each at most 64 KiB. */
#define SCRATCH_LEN (EOCD_LEN + MAX_COMMENT + 42u)

struct npyg_zip {
    npyg_ctx *ctx;
    npyg_zip_limits lim;
    npyg__input in;     /* random access: a buffer, a regular file, a pread callback */
    uint64_t size;      /* archive bytes */

    npyg_zip_entry *entries;
    uint32_t count;
    char *names;
    size_t names_cap;
    uint8_t *scratch;   /* SCRATCH_LEN */
    uint8_t *inbuf;     /* NPYG__CHUNK of compressed input */

    npyg__inflater *inf; /* made on the first deflated member, reset for each */
    const uint8_t *next_in; /* the unread part of inbuf */
    size_t avail_in;

    /* the member being streamed */
    npyg_zip_entry *cur;
    uint64_t in_done, out_done;
    uint32_t crc;
    bool stream_end, at_eof;
    uint8_t peek[NPYG__MAGIC_LEN];
    size_t peek_len, peek_pos;
    int loading;        /* npyg_zip_open_member: 0 none, 1 .npy, 2 raw bytes */

    /* the inflation work the deflated members declare, summed once */
    uint64_t deflate_total;
    bool deflate_summed;
};

/* The container's errors, the inflater's included, have archive offsets; the
   .npy parse of a member records its own in member space. */
#define zfail(ctx, ...) npyg__fail_in((ctx), NPYG_OFFSET_ARCHIVE, __VA_ARGS__)

static inline bool npyg__zip_strict(const npyg_zip *z) { return z->ctx->profile == NPYG_PROFILE_STRICT; }

/* numpy reads a member as .npy when its name ends in ".npy". */
static inline bool npyg__zip_ends_npy(const npyg_zip_entry *e)
{
    return e->name_len >= 4 && memcmp(e->name + e->name_len - 4, ".npy", 4) == 0;
}

/* Exactly n bytes at archive offset off; the caller has checked the range. */
int npyg__zip_read(npyg_zip *z, uint64_t off, void *dst, size_t n);

#endif
