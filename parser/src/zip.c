/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * .npz archives: the zip container read strictly and within bounds (the
 * members are read by member.c).
 *
 * Opening reads everything that describes the archive (end record, zip64
 * records, central directory, every local header and data descriptor) and
 * cross-checks it, so that the listing a caller sees is the only reading
 * of the archive: one name per member, one byte range per member, ranges
 * that tile the archive without overlap or gap. Python's zipfile is more
 * forgiving on almost every point; each refusal is listed in
 * corpus/npz/README.md with what zipfile and numpy do instead.
 */
#include "zip.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_EOCD 0x06054b50u
#define SIG_EOCD64 0x06064b50u
#define SIG_LOC64 0x07064b50u
#define SIG_DESC 0x08074b50u

#define EOCD64_LEN 56u
#define LOC64_LEN 20u
#define CDIR_LEN 46u
#define LOCAL_LEN 30u
#define MAX_EXTRA 65535u
#define FLAG_ENCRYPTED 0x0001u
#define FLAG_DESCRIPTOR 0x0008u
#define FLAG_STRONG 0x0040u
#define FLAG_UTF8 0x0800u
#define FLAG_CDIR_ENCRYPTED 0x2000u
/* Deflate option bits 1-2, data descriptor 3, UTF-8 names 11. */
#define FLAGS_HANDLED 0x080Eu

/* The highest "version needed to extract" zipfile opens (6.3). */
#define ZIP_VERSION_MAX 63u

#define U32_MARK 0xFFFFFFFFu
#define U16_MARK 0xFFFFu

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t le64(const uint8_t *p) { return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32; }

static int znomem(npyg_ctx *ctx, uint64_t off)
{
    return npyg__nomem_in(ctx, NPYG_OFFSET_ARCHIVE, off, "reading the archive");
}

/* ---------------- limits and accounting ---------------- */

void npyg_zip_limits_default(npyg_zip_limits *l)
{
    if (l) npyg__limits_fill(NPYG__LG_ZIP, l);
}

static bool zip_limits_valid(const npyg_zip_limits *l) { return npyg__limits_bad(NPYG__LG_ZIP, l) < 0; }

/* The directory table: one entry, and one sort slot, per member, and the
   names with their NULs. */
static uint64_t table_bound(const npyg_zip_limits *l)
{
    return (uint64_t)l->max_members *
           (sizeof(npyg_zip_entry) + sizeof(npyg_zip_entry *) + l->max_name_bytes + 1u);
}

uint64_t npyg_zip_worst_case_alloc(const npyg_limits *limits, const npyg_zip_limits *zl)
{
    npyg_zip_limits def;
    if (!zl) {
        npyg_zip_limits_default(&def);
        zl = &def;
    }
    uint64_t npy = npyg_worst_case_alloc(limits);
    if (npy == 0 || !zip_limits_valid(zl)) return 0;
    uint64_t bound = npy + sizeof(npyg_zip) + SCRATCH_LEN + NPYG__CHUNK + npyg__inflate_state_bound() + table_bound(zl);
    return bound < limits->max_alloc_bytes ? bound : limits->max_alloc_bytes;
}

/* ---------------- input ---------------- */

/* Exactly n bytes at archive offset off; the caller has checked the range. */
int npyg__zip_read(npyg_zip *z, uint64_t off, void *dst, size_t n)
{
    if (off > z->size || n > z->size - off) /* the fault is where the archive ends */
        return zfail(z->ctx, NPYG_EZIP_BOUNDS, off < z->size ? off : z->size,
                     "read past the end of the archive");
    long long got = npyg__in_read_at(&z->in, off, dst, n);
    if (got != (long long)n) /* an error, or the file shrank under us */
        return zfail(z->ctx, NPYG_EIO, off + (got > 0 ? (uint64_t)got : 0), "read error");
    return 0;
}

/* ---------------- names ---------------- */

static bool utf8_ok(const uint8_t *s, size_t n)
{
    size_t bad;
    return npyg__utf8_check(s, n, &bad) == 0;
}

/* Names are keys to numpy and paths to anything that extracts the
   archive: refuse every name that could climb out of a directory, name
   the same file twice, or garble a one-line report. */
static int check_name(npyg_zip *z, npyg_zip_entry *e, uint64_t at)
{
    const uint8_t *s = (const uint8_t *)e->name;
    size_t n = e->name_len;
    npyg_ctx *ctx = z->ctx;
    if (n == 0) return zfail(ctx, NPYG_EZIP_NAME, at, "empty member name");
    bool ascii = true;
    for (size_t k = 0; k < n; k++) {
        if (s[k] == 0) return zfail(ctx, NPYG_EZIP_NAME, at, "NUL byte in a member name");
        if (s[k] == '\\') return zfail(ctx, NPYG_EZIP_NAME, at, "backslash in member name '%s'", e->name);
        if (s[k] < 0x20 || s[k] == 0x7f)
            return zfail(ctx, NPYG_EZIP_NAME, at, "control character 0x%02x in a member name", s[k]);
        if (s[k] >= 0x80) ascii = false;
    }
    if (s[0] == '/') return zfail(ctx, NPYG_EZIP_NAME, at, "absolute member name '%s'", e->name);
    if (n >= 2 && s[1] == ':' && ((s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'z'))
        return zfail(ctx, NPYG_EZIP_NAME, at, "member name '%s' starts with a drive letter", e->name);
    for (size_t k = 0; k <= n;) {
        size_t j = k;
        while (j < n && s[j] != '/') j++;
        size_t len = j - k;
        if (len == 2 && s[k] == '.' && s[k + 1] == '.')
            return zfail(ctx, NPYG_EZIP_NAME, at, "'..' in member name '%s'", e->name);
        if (len == 0 || (len == 1 && s[k] == '.'))
            return zfail(ctx, NPYG_EZIP_NAME, at, "member name '%s' has an empty or '.' component", e->name);
        k = j + 1;
    }
    if (e->flags & FLAG_UTF8) {
        if (!utf8_ok(s, n)) return zfail(ctx, NPYG_EZIP_NAME, at, "member name is not valid UTF-8");
    } else if (!ascii) {
        if (npyg__zip_strict(z))
            return zfail(ctx, NPYG_EZIP_NAME, at, "non-ASCII member name without the UTF-8 flag");
        e->warnings |= NPYG_ZW_NON_ASCII_NAME;
    }
    return 0;
}

/* Code page 437, bytes 0x80-0xFF: how zipfile decodes a name without the
   UTF-8 flag. */
static const uint16_t cp437_high[128] = {
    0x00C7, 0x00FC, 0x00E9, 0x00E2, 0x00E4, 0x00E0, 0x00E5, 0x00E7,
    0x00EA, 0x00EB, 0x00E8, 0x00EF, 0x00EE, 0x00EC, 0x00C4, 0x00C5,
    0x00C9, 0x00E6, 0x00C6, 0x00F4, 0x00F6, 0x00F2, 0x00FB, 0x00F9,
    0x00FF, 0x00D6, 0x00DC, 0x00A2, 0x00A3, 0x00A5, 0x20A7, 0x0192,
    0x00E1, 0x00ED, 0x00F3, 0x00FA, 0x00F1, 0x00D1, 0x00AA, 0x00BA,
    0x00BF, 0x2310, 0x00AC, 0x00BD, 0x00BC, 0x00A1, 0x00AB, 0x00BB,
    0x2591, 0x2592, 0x2593, 0x2502, 0x2524, 0x2561, 0x2562, 0x2556,
    0x2555, 0x2563, 0x2551, 0x2557, 0x255D, 0x255C, 0x255B, 0x2510,
    0x2514, 0x2534, 0x252C, 0x251C, 0x2500, 0x253C, 0x255E, 0x255F,
    0x255A, 0x2554, 0x2569, 0x2566, 0x2560, 0x2550, 0x256C, 0x2567,
    0x2568, 0x2564, 0x2565, 0x2559, 0x2558, 0x2552, 0x2553, 0x256B,
    0x256A, 0x2518, 0x250C, 0x2588, 0x2584, 0x258C, 0x2590, 0x2580,
    0x03B1, 0x00DF, 0x0393, 0x03C0, 0x03A3, 0x03C3, 0x00B5, 0x03C4,
    0x03A6, 0x0398, 0x03A9, 0x03B4, 0x221E, 0x03C6, 0x03B5, 0x2229,
    0x2261, 0x00B1, 0x2265, 0x2264, 0x2320, 0x2321, 0x00F7, 0x2248,
    0x00B0, 0x2219, 0x00B7, 0x221A, 0x207F, 0x00B2, 0x25A0, 0x00A0,
};

/* The next code point of a name as zipfile decodes it (UTF-8 with flag
   bit 11, already checked valid; cp437 without). */
static uint32_t name_cp(const npyg_zip_entry *e, size_t *k)
{
    const uint8_t *s = (const uint8_t *)e->name;
    uint8_t c = s[(*k)++];
    if (c < 0x80) return c;
    if (!(e->flags & FLAG_UTF8)) return cp437_high[c - 0x80];
    size_t n = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
    uint32_t cp = c & (0x3Fu >> n);
    while (n-- && *k < e->name_len) cp = (cp << 6) | (s[(*k)++] & 0x3Fu);
    return cp;
}

/* numpy's key: the name without one '.npy' suffix. */
static size_t key_len(const npyg_zip_entry *e) { return npyg__zip_ends_npy(e) ? e->name_len - 4 : e->name_len; }

/* Keys compare as the strings zipfile and numpy see: 'é' flagged UTF-8
   and 'é' in cp437 are one key. */
static int cmp_key(const void *a, const void *b)
{
    const npyg_zip_entry *x = *(const npyg_zip_entry *const *)a, *y = *(const npyg_zip_entry *const *)b;
    size_t lx = key_len(x), ly = key_len(y), i = 0, j = 0;
    while (i < lx && j < ly) {
        uint32_t cx = name_cp(x, &i), cy = name_cp(y, &j);
        if (cx != cy) return cx < cy ? -1 : 1;
    }
    return (i < lx) - (j < ly);
}

/* Ties (overlapping members) go in key order, as a stable sort of the
   key-sorted list put them, whatever order the list comes in. */
static int cmp_offset(const void *a, const void *b)
{
    const npyg_zip_entry *x = *(const npyg_zip_entry *const *)a, *y = *(const npyg_zip_entry *const *)b;
    if (x->header_offset != y->header_offset) return x->header_offset < y->header_offset ? -1 : 1;
    return cmp_key(a, b);
}

/* ---------------- end records ---------------- */

typedef struct dir_loc {
    uint64_t count, cd_offset, cd_size;
    uint64_t cd_end; /* where the directory must end: the first end record */
} dir_loc;

static int read_end_records(npyg_zip *z, dir_loc *d)
{
    npyg_ctx *ctx = z->ctx;
    if (z->size < EOCD_LEN)
        return zfail(ctx, NPYG_EZIP_EOCD, z->size, "archive of %llu bytes is too short for an end record",
                          (unsigned long long)z->size);
    size_t tail = z->size < EOCD_LEN + MAX_COMMENT ? (size_t)z->size : EOCD_LEN + MAX_COMMENT;
    uint64_t tail_at = z->size - tail;
    int rc = npyg__zip_read(z, tail_at, z->scratch, tail);
    if (rc) return rc;
    /* zipfile first tries a record without comment in the last 22 bytes;
       failing that it takes the last signature anywhere, even one too
       close to the end to be a record (and then fails). Its comment must
       then reach exactly the end of the archive. */
    size_t p = tail - EOCD_LEN;
    bool found = le32(z->scratch + p) == SIG_EOCD && le16(z->scratch + tail - 2) == 0;
    if (!found) {
        p = tail - 4 + 1;
        while (p-- > 0) {
            if (le32(z->scratch + p) == SIG_EOCD) { found = true; break; }
        }
    }
    if (!found)
        return zfail(ctx, NPYG_EZIP_EOCD, z->size, "no end-of-central-directory record in the last %zu bytes",
                     tail);
    if (p > tail - EOCD_LEN)
        return zfail(ctx, NPYG_EZIP_EOCD, tail_at + p,
                     "an end-record signature %zu bytes before the end, too close to be a record", tail - p);
    const uint8_t *r = z->scratch + p;
    uint64_t eocd = tail_at + p;
    uint16_t comment = le16(r + 20);
    if (eocd + EOCD_LEN + comment != z->size)
        return zfail(ctx, NPYG_EZIP_EOCD, eocd,
                          "the end record's %u-byte comment ends at %llu, the archive at %llu", comment,
                          (unsigned long long)(eocd + EOCD_LEN + comment), (unsigned long long)z->size);
    if (comment && npyg__zip_strict(z))
        return zfail(ctx, NPYG_EZIP_COMMENT, eocd + EOCD_LEN, "archive comment of %u bytes", comment);
    uint16_t disk = le16(r + 4), cd_disk = le16(r + 6), n_disk = le16(r + 8), n = le16(r + 10);
    uint32_t cd_size = le32(r + 12), cd_off = le32(r + 16);
    if (disk != 0 || cd_disk != 0 || n_disk != n)
        return zfail(ctx, NPYG_EZIP_MULTIDISK, eocd, "archive spans several disks (disk %u, directory on %u)",
                          disk, cd_disk);
    d->count = n;
    d->cd_size = cd_size;
    d->cd_offset = cd_off;
    d->cd_end = eocd;

    /* zipfile uses a zip64 locator whenever one sits before the record. */
    uint8_t loc[LOC64_LEN], rec[EOCD64_LEN];
    if (eocd < LOC64_LEN) return 0;
    uint64_t loc_at = eocd - LOC64_LEN;
    if ((rc = npyg__zip_read(z, loc_at, loc, LOC64_LEN))) return rc;
    if (le32(loc) != SIG_LOC64) return 0;
    if (le32(loc + 4) != 0 || le32(loc + 16) > 1)
        return zfail(ctx, NPYG_EZIP_MULTIDISK, loc_at, "zip64 locator names several disks");
    uint64_t rec_at = le64(loc + 8);
    if (loc_at < EOCD64_LEN || rec_at != loc_at - EOCD64_LEN)
        return zfail(ctx, NPYG_EZIP_ZIP64, loc_at,
                          "zip64 end record at %llu is not right before its locator", (unsigned long long)rec_at);
    if ((rc = npyg__zip_read(z, rec_at, rec, EOCD64_LEN))) return rc;
    if (le32(rec) != SIG_EOCD64 || le64(rec + 4) != EOCD64_LEN - 12)
        return zfail(ctx, NPYG_EZIP_ZIP64, rec_at, "bad zip64 end record");
    uint64_t n64 = le64(rec + 32), size64 = le64(rec + 40), off64 = le64(rec + 48);
    if (le32(rec + 16) != 0 || le32(rec + 20) != 0 || le64(rec + 24) != n64)
        return zfail(ctx, NPYG_EZIP_MULTIDISK, rec_at, "archive spans several disks");
    /* Each 16/32-bit field is either the zip64 marker or the same value. */
    if ((n != U16_MARK && n != n64) || (cd_size != U32_MARK && cd_size != size64) ||
        (cd_off != U32_MARK && cd_off != off64))
        return zfail(ctx, NPYG_EZIP_ZIP64, eocd, "end record and zip64 end record disagree");
    d->count = n64;
    d->cd_size = size64;
    d->cd_offset = off64;
    d->cd_end = rec_at;
    return 0;
}

/* ---------------- extra fields ---------------- */

typedef struct zip64_vals {
    bool present;
    uint16_t len;
    const uint8_t *data;
} zip64_vals;

/* Walks the extra records, which must fill the area exactly; finds the
   zip64 one (0x0001), which may appear once. */
static int walk_extra(npyg_zip *z, const uint8_t *x, size_t n, uint64_t at, zip64_vals *out, int code)
{
    out->present = false;
    size_t k = 0;
    while (k < n) {
        if (n - k < 4)
            return zfail(z->ctx, code, at + k, "%zu stray bytes at the end of an extra field", n - k);
        uint16_t id = le16(x + k), sz = le16(x + k + 2);
        if (sz > n - k - 4)
            return zfail(z->ctx, code, at + k, "extra record 0x%04x runs past its field", id);
        if (id == 0x0001) {
            if (out->present) return zfail(z->ctx, NPYG_EZIP_ZIP64, at + k, "two zip64 extra records");
            out->present = true;
            out->len = sz;
            out->data = x + k + 4;
        }
        k += 4u + sz;
    }
    return 0;
}

/* ---------------- the central directory ---------------- */

static int read_directory(npyg_zip *z, const dir_loc *d)
{
    npyg_ctx *ctx = z->ctx;
    uint64_t pos = d->cd_offset;
    size_t name_used = 0;
    for (uint32_t i = 0; i < z->count; i++) {
        npyg_zip_entry *e = &z->entries[i];
        uint8_t h[CDIR_LEN];
        if (d->cd_end - pos < CDIR_LEN)
            return zfail(ctx, NPYG_EZIP_CDIR, pos, "central directory ends inside entry %u of %u", i, z->count);
        int rc = npyg__zip_read(z, pos, h, CDIR_LEN);
        if (rc) return rc;
        if (le32(h) != SIG_CENTRAL)
            return zfail(ctx, NPYG_EZIP_CDIR, pos, "no central directory entry where entry %u should be", i);
        uint16_t nl = le16(h + 28), xl = le16(h + 30), cl = le16(h + 32);
        if (h[6] > ZIP_VERSION_MAX) /* zipfile reads only the low byte */
            return zfail(ctx, NPYG_EZIP_VERSION, pos + 6,
                         "entry %u needs zip version %u.%u to extract; zipfile stops at 6.3", i, h[6] / 10u,
                         h[6] % 10u);
        if ((uint64_t)CDIR_LEN + nl + xl + cl > d->cd_end - pos)
            return zfail(ctx, NPYG_EZIP_CDIR, pos, "central directory entry %u runs past the directory", i);
        if (nl > z->lim.max_name_bytes)
            return zfail(ctx, NPYG_ELIMIT_NAME, pos + CDIR_LEN, "member name of %u bytes is over max_name_bytes (%u)",
                              nl, z->lim.max_name_bytes);
        /* The pool holds what the directory leaves after count fixed-size
           entries; an early entry can still take room the later ones'
           fixed parts need (they are refused below anyway). */
        if (name_used + nl + 1u > z->names_cap)
            return zfail(ctx, NPYG_EZIP_CDIR, pos, "member names longer than the directory");
        char *name = z->names + name_used;
        if ((rc = npyg__zip_read(z, pos + CDIR_LEN, name, nl))) return rc;
        name[nl] = '\0';
        name_used += nl + 1u;
        e->name = name;
        e->name_len = nl;
        e->flags = le16(h + 8);
        e->method = le16(h + 10);
        e->crc32 = le32(h + 16);
        e->compressed_size = le32(h + 20);
        e->uncompressed_size = le32(h + 24);
        e->header_offset = le32(h + 42);
        uint32_t disk = le16(h + 34);

        if ((rc = npyg__zip_read(z, pos + CDIR_LEN + nl, z->scratch, xl))) return rc;
        zip64_vals x;
        if ((rc = walk_extra(z, z->scratch, xl, pos + CDIR_LEN + nl, &x, NPYG_EZIP_CDIR))) return rc;
        /* The zip64 record holds exactly the fields whose 32-bit slot is
           the marker, in this order; anything else has two readings. */
        unsigned need = (e->uncompressed_size == U32_MARK) + (e->compressed_size == U32_MARK) +
                        (e->header_offset == U32_MARK);
        size_t want = 8u * need + (disk == U16_MARK ? 4u : 0u);
        if (x.present || want) {
            if (!x.present || x.len != want)
                return zfail(ctx, NPYG_EZIP_ZIP64, pos + CDIR_LEN + nl,
                                  "entry %u: zip64 extra field of %u bytes where %zu are needed", i,
                                  x.present ? x.len : 0u, want);
            const uint8_t *q = x.data;
            if (e->uncompressed_size == U32_MARK) { e->uncompressed_size = le64(q); q += 8; }
            if (e->compressed_size == U32_MARK) { e->compressed_size = le64(q); q += 8; }
            if (e->header_offset == U32_MARK) { e->header_offset = le64(q); q += 8; }
            if (disk == U16_MARK) disk = le32(q);
        }
        if (disk != 0)
            return zfail(ctx, NPYG_EZIP_MULTIDISK, pos, "member '%s' starts on disk %u", e->name, disk);
        if ((rc = check_name(z, e, pos + CDIR_LEN))) return rc;
        if (e->flags & (FLAG_ENCRYPTED | FLAG_STRONG | FLAG_CDIR_ENCRYPTED))
            return zfail(ctx, NPYG_EZIP_ENCRYPTED, pos, "member '%s' is encrypted", e->name);
        if (e->method != 0 && e->method != 8)
            return zfail(ctx, NPYG_EZIP_METHOD, pos, "member '%s' uses compression method %u", e->name,
                              e->method);
        if (e->flags & ~FLAGS_HANDLED)
            return zfail(ctx, NPYG_EZIP_FLAGS, pos, "member '%s' has flag bits 0x%04x", e->name,
                              e->flags & ~FLAGS_HANDLED);
        if (e->method == 0 && e->compressed_size != e->uncompressed_size)
            return zfail(ctx, NPYG_EZIP_SIZE, pos, "stored member '%s': %llu bytes stored, %llu declared", e->name,
                              (unsigned long long)e->compressed_size, (unsigned long long)e->uncompressed_size);
        pos += CDIR_LEN + nl + xl + cl;
    }
    if (pos != d->cd_end)
        return zfail(ctx, NPYG_EZIP_CDIR, pos, "%llu bytes after the last central directory entry",
                          (unsigned long long)(d->cd_end - pos));
    return 0;
}

/* ---------------- local headers and data descriptors ---------------- */

static int read_descriptor(npyg_zip *z, npyg_zip_entry *e, uint64_t data_end, uint64_t limit, bool wide)
{
    size_t body = wide ? 20u : 12u; /* crc, then two sizes of 8 or 4 bytes */
    uint8_t b[4 + 20];
    uint64_t avail = limit - data_end;
    size_t n = avail < sizeof b ? (size_t)avail : sizeof b;
    int rc = npyg__zip_read(z, data_end, b, n);
    if (rc) return rc;
    /* The signature is optional; with it, the values follow it. */
    for (size_t skip = 4;; skip = 0) {
        bool usable = n >= skip + body && (skip == 0 || le32(b) == SIG_DESC);
        const uint8_t *q = b + skip;
        if (usable && le32(q) == e->crc32 && (wide ? le64(q + 4) : le32(q + 4)) == e->compressed_size &&
            (wide ? le64(q + 12) : le32(q + 8)) == e->uncompressed_size) {
            e->end_offset = data_end + skip + body;
            return 0;
        }
        if (skip == 0) break;
    }
    return zfail(z->ctx, NPYG_EZIP_DESCRIPTOR, data_end,
                      "member '%s': no data descriptor matching the directory after its data", e->name);
}

static int read_local(npyg_zip *z, npyg_zip_entry *e, uint64_t limit)
{
    npyg_ctx *ctx = z->ctx;
    uint64_t at = e->header_offset;
    uint8_t h[LOCAL_LEN];
    if (at > limit || limit - at < LOCAL_LEN)
        return zfail(ctx, NPYG_EZIP_BOUNDS, at < limit ? at : limit, /* where the member area ends */
                     "local header of '%s' lies past the member area", e->name);
    int rc = npyg__zip_read(z, at, h, LOCAL_LEN);
    if (rc) return rc;
    if (le32(h) != SIG_LOCAL) return zfail(ctx, NPYG_EZIP_LOCAL, at, "no local header for '%s'", e->name);
    uint16_t nl = le16(h + 26), xl = le16(h + 28);
    if ((uint64_t)LOCAL_LEN + nl + xl > limit - at)
        return zfail(ctx, NPYG_EZIP_BOUNDS, at, "local header of '%s' runs past the member area", e->name);
    unsigned flags = le16(h + 6), method = le16(h + 8);
    if (flags != e->flags)
        return zfail(ctx, NPYG_EZIP_LOCAL, at + 6, "'%s': local flags 0x%04x, directory 0x%04x", e->name, flags,
                          e->flags);
    if (method != e->method)
        return zfail(ctx, NPYG_EZIP_LOCAL, at + 8, "'%s': local method %u, directory %u", e->name, method,
                          e->method);
    if (nl != e->name_len) return zfail(ctx, NPYG_EZIP_LOCAL, at + 26, "'%s': local name differs", e->name);
    if ((rc = npyg__zip_read(z, at + LOCAL_LEN, z->scratch, nl))) return rc;
    if (memcmp(z->scratch, e->name, nl) != 0)
        return zfail(ctx, NPYG_EZIP_LOCAL, at + LOCAL_LEN, "'%s': local name differs", e->name);
    if ((rc = npyg__zip_read(z, at + LOCAL_LEN + nl, z->scratch, xl))) return rc;
    zip64_vals x;
    if ((rc = walk_extra(z, z->scratch, xl, at + LOCAL_LEN + nl, &x, NPYG_EZIP_LOCAL))) return rc;
    uint32_t crc = le32(h + 14);
    uint64_t cs = le32(h + 18), us = le32(h + 22);
    if (x.present) {
        /* A local zip64 record holds both sizes, as np.savez writes it even
           for small members, next to the real 32-bit values. */
        if (x.len != 16)
            return zfail(ctx, NPYG_EZIP_ZIP64, at + LOCAL_LEN + nl, "'%s': local zip64 record of %u bytes",
                              e->name, x.len);
        uint64_t us64 = le64(x.data), cs64 = le64(x.data + 8);
        if ((us != U32_MARK && us != us64) || (cs != U32_MARK && cs != cs64))
            return zfail(ctx, NPYG_EZIP_LOCAL, at + LOCAL_LEN + nl,
                              "'%s': local sizes and local zip64 sizes disagree", e->name);
        us = us64;
        cs = cs64;
    } else if (us == U32_MARK || cs == U32_MARK) {
        if (us != e->uncompressed_size || cs != e->compressed_size)
            return zfail(ctx, NPYG_EZIP_ZIP64, at + 18, "'%s': local sizes need a zip64 record", e->name);
    }
    bool desc = e->flags & FLAG_DESCRIPTOR;
    bool zero = crc == 0 && cs == 0 && us == 0;
    if (!(desc && zero) && (crc != e->crc32 || cs != e->compressed_size || us != e->uncompressed_size))
        return zfail(ctx, NPYG_EZIP_LOCAL, at + 14,
                          "'%s': local header says crc %08x, %llu -> %llu bytes; directory crc %08x, %llu -> %llu",
                          e->name, crc, (unsigned long long)cs, (unsigned long long)us, e->crc32,
                          (unsigned long long)e->compressed_size, (unsigned long long)e->uncompressed_size);
    e->data_offset = at + LOCAL_LEN + nl + xl;
    if (e->compressed_size > limit - e->data_offset)
        return zfail(ctx, NPYG_EZIP_BOUNDS, e->data_offset,
                          "'%s': %llu bytes of data run past the member area (%llu)", e->name,
                          (unsigned long long)e->compressed_size, (unsigned long long)limit);
    uint64_t data_end = e->data_offset + e->compressed_size;
    e->end_offset = data_end;
    if (desc) {
        bool wide = x.present || e->compressed_size >= U32_MARK || e->uncompressed_size >= U32_MARK;
        return read_descriptor(z, e, data_end, limit, wide);
    }
    return 0;
}

/* Member ranges must tile [0, directory): no overlap, no gap. */
static int check_layout(npyg_zip *z, const npyg_zip_entry **order, const dir_loc *d)
{
    npyg_ctx *ctx = z->ctx;
    /* Writers put the directory in file order; sorting only when it is
       not keeps the check linear for them. */
    bool in_order = true;
    for (uint32_t k = 0; k < z->count; k++) {
        order[k] = &z->entries[k];
        if (k && z->entries[k - 1].header_offset >= z->entries[k].header_offset) in_order = false;
    }
    if (!in_order) qsort(order, z->count, sizeof *order, cmp_offset);
    uint64_t expect = 0;
    for (uint32_t k = 0; k < z->count; k++) {
        const npyg_zip_entry *e = order[k];
        if (e->header_offset < expect)
            return zfail(ctx, NPYG_EZIP_OVERLAP, e->header_offset, "'%s' overlaps '%s'", e->name,
                              order[k - 1]->name);
        if (e->header_offset > expect)
            return zfail(ctx, NPYG_EZIP_GAP, expect, "%llu bytes before '%s' belong to no member",
                              (unsigned long long)(e->header_offset - expect), e->name);
        expect = e->end_offset;
    }
    if (expect != d->cd_offset)
        return zfail(ctx, NPYG_EZIP_GAP, expect, "%llu bytes before the central directory belong to no member",
                          (unsigned long long)(d->cd_offset - expect));
    return 0;
}

/* A key against a whole name, both as zipfile decodes them. */
static int cmp_key_name(const npyg_zip_entry *x, const npyg_zip_entry *y)
{
    size_t lx = key_len(x), ly = y->name_len, i = 0, j = 0;
    while (i < lx && j < ly) {
        uint32_t cx = name_cp(x, &i), cy = name_cp(y, &j);
        if (cx != cy) return cx < cy ? -1 : 1;
    }
    return (i < lx) - (j < ly);
}

/* A key's or a whole name's hash over the code points zipfile decodes,
   so that the two spellings of one key meet: FNV-1a, then a final mix
   for the low bits the table's modulo keeps. */
static uint32_t hash_cps(const npyg_zip_entry *e, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t k = 0; k < len;) h = (h ^ name_cp(e, &k)) * 16777619u;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    return h ^ (h >> 16);
}

/* True when the keys are shown distinct and no key is another member's
   whole name, with an open-addressing set of entry indexes over `room`
   slots (the order array's memory). Linear, where sorting the keys is
   n log n; false on any match and when probes pass a linear budget (names
   crafted to collide), and then the sorting check decides and words the
   error as it always has. */
static bool keys_distinct_fast(npyg_zip *z, uint32_t *slot, size_t room)
{
    size_t cap = 2u * (size_t)z->count; /* half full at most */
    if (room < cap) return false;
    memset(slot, 0, cap * sizeof *slot);
    size_t budget = 4u * cap;
    for (uint32_t i = 0; i < z->count; i++) {
        const npyg_zip_entry *e = &z->entries[i];
        size_t p = hash_cps(e, key_len(e)) % cap;
        for (; slot[p]; p = p + 1 == cap ? 0 : p + 1) {
            const npyg_zip_entry *x = &z->entries[slot[p] - 1];
            if (!budget-- || cmp_key(&x, &e) == 0) return false;
        }
        slot[p] = i + 1;
    }
    for (uint32_t i = 0; i < z->count; i++) {
        const npyg_zip_entry *y = &z->entries[i];
        for (size_t p = hash_cps(y, y->name_len) % cap; slot[p]; p = p + 1 == cap ? 0 : p + 1) {
            const npyg_zip_entry *x = &z->entries[slot[p] - 1];
            if (!budget-- || (x != y && cmp_key_name(x, y) == 0)) return false;
        }
    }
    return true;
}

static int check_names_unique(npyg_zip *z, const npyg_zip_entry **order)
{
    if (keys_distinct_fast(z, (uint32_t *)(void *)order, (size_t)z->count * sizeof *order / sizeof(uint32_t)))
        return 0;
    for (uint32_t k = 0; k < z->count; k++) order[k] = &z->entries[k];
    qsort(order, z->count, sizeof *order, cmp_key);
    /* numpy looks a key up as a whole name first: the key of 'a.npy.npy'
       is 'a.npy', which finds the member 'a.npy' instead. */
    for (uint32_t k = 0; k < z->count; k++) {
        const npyg_zip_entry *y = &z->entries[k];
        size_t lo = 0, hi = z->count;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            int c = cmp_key_name(order[mid], y);
            if (c == 0) {
                if (order[mid] == y) break; /* a name without '.npy' is its own key */
                return zfail(z->ctx, NPYG_EZIP_DUPNAME, order[mid]->header_offset,
                             "the key of '%s' is the name of '%s': numpy reads only the latter",
                             order[mid]->name, y->name);
            }
            if (c < 0) lo = mid + 1;
            else hi = mid;
        }
    }
    for (uint32_t k = 1; k < z->count; k++)
        if (cmp_key(&order[k - 1], &order[k]) == 0) {
            const npyg_zip_entry *a = order[k - 1], *b = order[k];
            if (a->name_len == b->name_len && memcmp(a->name, b->name, a->name_len) == 0)
                return zfail(z->ctx, NPYG_EZIP_DUPNAME, b->header_offset, "two members named '%s'", b->name);
            return zfail(z->ctx, NPYG_EZIP_DUPNAME, b->header_offset,
                              "'%s' and '%s' are the same key to numpy", a->name, b->name);
        }
    return 0;
}

/* ---------------- open / close ---------------- */

static void zip_free(npyg_zip *z)
{
    if (!z) return;
    npyg_ctx *ctx = z->ctx;
    npyg__inflate_free(z->inf);
    npyg__xfree(ctx, z->inbuf, z->inbuf ? NPYG__CHUNK : 0);
    npyg__xfree(ctx, z->scratch, z->scratch ? SCRATCH_LEN : 0);
    npyg__xfree(ctx, z->names, z->names_cap);
    npyg__xfree(ctx, z->entries, (size_t)z->count * sizeof *z->entries);
    npyg__xfree(ctx, z, sizeof *z);
}

void npyg_zip_close(npyg_zip *z) { zip_free(z); }

static int open_common(npyg_zip *z)
{
    npyg_ctx *ctx = z->ctx;
    uint8_t sig[4];
    if (z->size < 4) return zfail(ctx, NPYG_EZIP_NOTZIP, 0, "not a zip archive (%llu bytes)", (unsigned long long)z->size);
    int rc = npyg__zip_read(z, 0, sig, 4);
    if (rc) return rc;
    if (!npyg_is_zip(sig, 4)) return zfail(ctx, NPYG_EZIP_NOTZIP, 0, "does not start with PK\\3\\4 or PK\\5\\6");
    z->scratch = npyg__xalloc(ctx, SCRATCH_LEN);
    if (!z->scratch) return znomem(ctx, 0);

    dir_loc d = {0, 0, 0, 0};
    if ((rc = read_end_records(z, &d))) return rc;
    if (d.count > z->lim.max_members)
        return zfail(ctx, NPYG_ELIMIT_MEMBERS, d.cd_end, "%llu members, over max_members (%u)",
                          (unsigned long long)d.count, z->lim.max_members);
    uint64_t cd_end;
    if (!npyg__add_u64(d.cd_offset, d.cd_size, &cd_end) || cd_end != d.cd_end)
        return zfail(ctx, NPYG_EZIP_CDIR, d.cd_end,
                          "central directory is not where the end record says (%llu + %llu bytes, end record at %llu)",
                          (unsigned long long)d.cd_offset, (unsigned long long)d.cd_size,
                          (unsigned long long)d.cd_end);
    if (d.cd_size < CDIR_LEN * d.count)
        return zfail(ctx, NPYG_EZIP_CDIR, d.cd_offset, "%llu-byte central directory cannot hold %llu entries",
                          (unsigned long long)d.cd_size, (unsigned long long)d.count);
    if (d.count == 0) {
        if (d.cd_size != 0) return zfail(ctx, NPYG_EZIP_CDIR, d.cd_offset, "empty archive with a directory");
        if (d.cd_offset != 0)
            return zfail(ctx, NPYG_EZIP_GAP, 0, "%llu bytes before the end record belong to no member",
                              (unsigned long long)d.cd_offset);
        return 0;
    }
    z->count = (uint32_t)d.count;
    uint64_t name_room = d.cd_size - CDIR_LEN * d.count;
    uint64_t name_max = (uint64_t)z->count * z->lim.max_name_bytes;
    z->names_cap = (size_t)((name_room < name_max ? name_room : name_max) + z->count);
    z->entries = npyg__xalloc(ctx, (size_t)z->count * sizeof *z->entries);
    if (!z->entries) { z->count = 0; return znomem(ctx, d.cd_offset); }
    memset(z->entries, 0, (size_t)z->count * sizeof *z->entries);
    z->names = npyg__xalloc(ctx, z->names_cap);
    if (!z->names) { z->names_cap = 0; return znomem(ctx, d.cd_offset); }
    if ((rc = read_directory(z, &d))) return rc;

    uint64_t total = 0;
    for (uint32_t i = 0; i < z->count; i++) {
        npyg_zip_entry *e = &z->entries[i];
        if ((rc = read_local(z, e, d.cd_offset))) return rc;
        if (!npyg__add_u64(total, e->uncompressed_size, &total) || total > z->lim.max_total_uncompressed)
            return zfail(ctx, NPYG_ELIMIT_UNCOMPRESSED, e->header_offset,
                              "members declare more than max_total_uncompressed (%llu bytes) in all",
                              (unsigned long long)z->lim.max_total_uncompressed);
    }
    size_t order_bytes = (size_t)z->count * sizeof(const npyg_zip_entry *);
    const npyg_zip_entry **order = npyg__xalloc(ctx, order_bytes);
    if (!order) return znomem(ctx, d.cd_offset);
    rc = check_names_unique(z, order);
    if (!rc) rc = check_layout(z, order, &d);
    npyg__xfree(ctx, order, order_bytes);
    return rc;
}

static int open_finish(npyg_zip *z, npyg_zip **out)
{
    int rc = open_common(z);
    if (rc) {
        zip_free(z);
        return rc;
    }
    *out = z;
    return 0;
}

static npyg_zip *zip_new(npyg_ctx *ctx, const npyg_zip_limits *zl)
{
    npyg_zip *z = npyg__xalloc(ctx, sizeof *z);
    if (!z) return NULL;
    memset(z, 0, sizeof *z);
    z->ctx = ctx;
    z->lim = zl ? *zl : ctx->zip_limits;
    return z;
}

int npyg_zip_open(npyg_ctx *ctx, const npyg_zip_limits *zl, npyg_zip **out)
{
    if (!ctx) return NPYG_EINVAL;
    npyg__ctx_reset(ctx);
    if (!out) return zfail(ctx, NPYG_EINVAL, 0, "NULL output pointer");
    *out = NULL;
    if (zl && !zip_limits_valid(zl)) return zfail(ctx, NPYG_EINVAL, 0, "invalid zip limits");
    npyg__input in;
    int rc = npyg__input_begin(ctx, &in, NPYG__IN_RANDOM, NPYG_OFFSET_ARCHIVE,
                               "a zip archive needs a regular file (random access)");
    if (!rc) rc = npyg__refuse_polyglot(ctx, &in, NPYG_FORMAT_NPZ);
    if (rc) return rc;
    npyg_zip *z = zip_new(ctx, zl);
    if (!z) return znomem(ctx, 0);
    z->in = in;
    z->size = in.size;
    return open_finish(z, out);
}

int npyg_zip_open_buffer(npyg_ctx *ctx, const void *buf, size_t len, const npyg_zip_limits *zl, npyg_zip **out)
{
    npyg_set_input_buffer(ctx, buf, len);
    return npyg_zip_open(ctx, zl, out);
}

int npyg_zip_open_fd(npyg_ctx *ctx, int fd, const npyg_zip_limits *zl, npyg_zip **out)
{
    npyg_set_input_fd(ctx, fd);
    return npyg_zip_open(ctx, zl, out);
}

size_t npyg_zip_count(const npyg_zip *z) { return z ? z->count : 0; }

const npyg_zip_entry *npyg_zip_member(const npyg_zip *z, size_t i)
{
    return z && i < z->count ? &z->entries[i] : NULL;
}

/* The name as zipfile decodes it, in UTF-8: a flagged name is UTF-8
   already (checked when the archive was opened); without the flag a byte
   above 0x7F is its cp437 character (U+00A0 and up: two or three bytes). */
size_t npyg_zip_member_name(const npyg_zip *z, size_t i, char *buf, size_t size)
{
    const npyg_zip_entry *e = npyg_zip_member(z, i);
    size_t len = 0;
    for (size_t k = 0; e && k < e->name_len; k++) {
        unsigned char c = (unsigned char)e->name[k], u[3] = {c};
        uint32_t cp = c < 0x80 || e->flags & FLAG_UTF8 ? 0 : cp437_high[c - 0x80];
        size_t n = cp >= 0x800 ? 3 : cp ? 2 : 1;
        if (n == 3) u[0] = (unsigned char)(0xE0 | cp >> 12), u[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        if (n == 2) u[0] = (unsigned char)(0xC0 | cp >> 6);
        if (n > 1) u[n - 1] = (unsigned char)(0x80 | (cp & 0x3F));
        for (size_t j = 0; j < n; j++, len++)
            if (len + 1 < size) buf[len] = (char)u[j];
    }
    if (size) buf[len < size ? len : size - 1] = '\0';
    return len;
}
