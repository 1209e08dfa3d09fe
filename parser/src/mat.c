/* SPDX-License-Identifier: BSD-3-Clause */
/* Format recognition by content, and the MATLAB MAT-file header.
 *
 * A MAT v5 and v7.3 file starts with a 128-byte header: 116 bytes of text
 * ("MATLAB 7.3 MAT-file, Platform: ..."), an 8-byte subsystem-data offset
 * (all zeros or all spaces when there is none), a 2-byte version (0x0100
 * for v5, 0x0200 for v7.3) and the endian indicator "IM" or "MI": the
 * characters 'M' and 'I' as the writer's 16-bit value 0x4D49, so that a
 * reader sees "IM" when the file was written little-endian and must read
 * the version in that order. A v7.3 file is an HDF5 file whose 512-byte
 * user block begins with that header; the HDF5 superblock is at 512.
 * MAT v4 has no text header: it starts with a matrix header of five
 * 32-bit integers (type MOPT, rows, columns, imaginary flag, name length).
 *
 * HDF5 puts its superblock signature at 0 or at a power of two from 512
 * on (a user block before it), as libhdf5 searches for it. An .npy, .npz
 * or .ra file with a signature there is two formats, and refused.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#define MAT_HEADER_LEN 128u
#define MAT_TEXT_LEN 116u
#define MAT73_USERBLOCK 512u

#define READ_ERROR "read error, or the input ended before its size"

static const unsigned char hdf5_sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

/* Every read of the probe is of bytes the input's size says are there,
   so a short read is an input that changed while it was read: an I/O
   error, never a reason to recognise it as something else. */
static bool read_exact(npyg__input *in, void *buf, size_t len, uint64_t off, bool *ioerr)
{
    long long n = npyg__in_read_at(in, off, buf, len);
    if (n != (long long)len) *ioerr = true;
    return n == (long long)len;
}

static bool hdf5_sig_at(npyg__input *in, uint64_t off, bool *ioerr)
{
    unsigned char b[8];
    return read_exact(in, b, sizeof b, off, ioerr) && memcmp(b, hdf5_sig, 8) == 0;
}

/* libhdf5's search: 0, then 512, 1024, 2048, ... while the signature fits. */
static bool find_hdf5(npyg__input *in, uint64_t size, uint64_t *at, bool *ioerr)
{
    for (uint64_t off = 0; off + 8 <= size && !*ioerr; off = off ? off * 2 : 512) {
        if (hdf5_sig_at(in, off, ioerr)) {
            *at = off;
            return true;
        }
        if (off > UINT64_MAX / 2) break;
    }
    return false;
}

static uint32_t get32(const unsigned char *p, bool be)
{
    return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
              : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* A v4 matrix header in the byte order its type field's M digit names
   (0 little-endian, 1 big-endian: the other orders are VAX and Cray). */
static bool is_mat4(npyg__input *in, uint64_t size, const unsigned char *h, size_t n, bool *ioerr)
{
    if (n < 20) return false;
    for (int be = 0; be < 2; be++) {
        uint32_t type = get32(h, be), rows = get32(h + 4, be), cols = get32(h + 8, be);
        uint32_t imagf = get32(h + 12, be), namlen = get32(h + 16, be);
        unsigned m = type / 1000, o = type / 100 % 10, p = type / 10 % 10, t = type % 10;
        if (type >= 5000 || m != (unsigned)be || o != 0 || p > 5 || t > 2) continue;
        if (rows > INT32_MAX || cols > INT32_MAX || imagf > 1) continue;
        if (namlen < 2 || namlen > 4096 || 20u + namlen > size) continue;
        unsigned char last = 1;
        if (!read_exact(in, &last, 1, 20u + namlen - 1u, ioerr)) return false;
        if (last != 0) continue;
        return true;
    }
    return false;
}

static void copy_text(npyg_probe_info *info, const unsigned char *h)
{
    size_t n = MAT_TEXT_LEN;
    while (n > 0 && (h[n - 1] == ' ' || h[n - 1] == '\0')) n--;
    memcpy(info->text, h, n);
    info->text[n] = '\0';
}

static int probe_mat(npyg_ctx *ctx, npyg__input *in, uint64_t size,
                     const unsigned char *h, size_t n, npyg_probe_info *info, bool *ioerr)
{
    if (n < MAT_HEADER_LEN)
        return npyg__fail(ctx, NPYG_EMAT_HEADER, n,
                          "file ends inside the 128-byte MAT header (%zu bytes)", n);
    copy_text(info, h);
    for (size_t i = 0; i < MAT_TEXT_LEN; i++)
        if ((h[i] < 0x20 || h[i] > 0x7e) && h[i] != '\0')
            return npyg__fail(ctx, NPYG_EMAT_HEADER, i,
                              "MAT header text has the non-ASCII or control byte 0x%02x", h[i]);
    bool be;
    if (h[126] == 'I' && h[127] == 'M') be = false;
    else if (h[126] == 'M' && h[127] == 'I') be = true;
    else
        return npyg__fail(ctx, NPYG_EMAT_HEADER, 126,
                          "MAT endian indicator is 0x%02x 0x%02x, not 'IM' or 'MI'", h[126], h[127]);
    memcpy(info->endian, h + 126, 2);
    info->endian[2] = '\0';
    info->version = be ? (unsigned)h[124] << 8 | h[125] : (unsigned)h[125] << 8 | h[124];
    uint64_t sub = 0;
    bool zeros = true, spaces = true;
    for (int i = 0; i < 8; i++) {
        unsigned char c = h[116 + (be ? i : 7 - i)];
        sub = sub << 8 | c;
        zeros &= h[116 + i] == 0;
        spaces &= h[116 + i] == ' ';
    }
    info->subsys_offset = sub;

    bool text73 = memcmp(h, "MATLAB 7.3 MAT-file", 19) == 0;
    bool hdf5_512 = size >= MAT73_USERBLOCK + 8 && hdf5_sig_at(in, MAT73_USERBLOCK, ioerr);
    if (*ioerr) return npyg__fail(ctx, NPYG_EIO, MAT73_USERBLOCK, READ_ERROR);
    if (info->version == 0x0100) {
        if (hdf5_512 || text73)
            return npyg__fail(ctx, NPYG_EMAT_HEADER, 124,
                              "MAT header says version 0x0100 (v5) but %s",
                              hdf5_512 ? "an HDF5 file follows at offset 512 (v7.3)"
                                       : "its text says 'MATLAB 7.3'");
        info->format = NPYG_FORMAT_MAT5;
        return npyg__fail(ctx, NPYG_EMAT_V5, 0,
                          "MAT v5 file ('%.40s'): only MAT v7.3 (HDF5) is supported", info->text);
    }
    if (info->version != 0x0200)
        return npyg__fail(ctx, NPYG_EMAT_HEADER, 124,
                          "MAT version 0x%04x: v7.3 writes 0x0200, v5 0x0100", info->version);
    if (!text73)
        return npyg__fail(ctx, NPYG_EMAT_HEADER, 0,
                          "MAT version 0x0200 but the text does not start 'MATLAB 7.3 MAT-file'");
    if (!hdf5_512)
        return npyg__fail(ctx, NPYG_EMAT_HEADER, MAT73_USERBLOCK,
                          "MAT v7.3 header but no HDF5 superblock at offset 512");
    if (!zeros && !spaces) info->warnings |= NPYG_PW_SUBSYS;
    static const char tail[] = "HDF5 schema 1.00 .";
    size_t tl = strlen(info->text);
    if (tl < sizeof tail - 1 || memcmp(info->text + tl - (sizeof tail - 1), tail, sizeof tail - 1) != 0)
        info->warnings |= NPYG_PW_MAT_TEXT;
    unsigned char rest[MAT73_USERBLOCK - MAT_HEADER_LEN];
    if (!read_exact(in, rest, sizeof rest, MAT_HEADER_LEN, ioerr))
        return npyg__fail(ctx, NPYG_EIO, MAT_HEADER_LEN, READ_ERROR);
    for (size_t i = 0; i < sizeof rest; i++)
        if (rest[i]) {
            info->warnings |= NPYG_PW_USERBLOCK;
            break;
        }
    info->format = NPYG_FORMAT_MAT73;
    info->hdf5_offset = MAT73_USERBLOCK;
    return 0;
}

/* A file of a leading-magic format that also carries an HDF5 superblock
   where libhdf5 searches for one: h5py, hdf5storage and MATLAB read it as
   HDF5 whatever its name, and what they read is not what was checked. */
static int polyglot(npyg_ctx *ctx, int space, npyg_format lead, uint64_t at)
{
    const char *name = lead == NPYG_FORMAT_NPY ? ".npy" : lead == NPYG_FORMAT_NPZ ? ".npz (zip)" : ".ra";
    return npyg__fail_in(ctx, space, NPYG_EPOLYGLOT, at,
                      "a %s file that also holds an HDF5 superblock at offset %llu: libhdf5, h5py and "
                      "hdf5storage read it as HDF5",
                      name, (unsigned long long)at);
}

int npyg__refuse_polyglot(npyg_ctx *ctx, npyg__input *in, npyg_format reader)
{
    /* Only an input of known size can be searched; a stream is read once,
       in order, and no HDF5 reader opens one. */
    if (!in->size_known) return 0;
    unsigned char h[NPYG_SNIFF_BYTES];
    size_t want = in->size < sizeof h ? (size_t)in->size : sizeof h;
    if (want == 0 || npyg__in_read_at(in, 0, h, want) != (long long)want) return 0; /* the reader says why */
    if (npyg_sniff_format(h, want) != reader) return 0; /* not this reader's file: its magic check says so */
    bool ioerr = false;
    int space = reader == NPYG_FORMAT_NPZ ? NPYG_OFFSET_ARCHIVE : NPYG_OFFSET_FILE;
    for (uint64_t off = MAT73_USERBLOCK; off + 8 <= in->size && off <= UINT64_MAX / 2; off *= 2)
        if (hdf5_sig_at(in, off, &ioerr)) return polyglot(ctx, space, reader, off);
        else if (ioerr) return npyg__fail_in(ctx, space, NPYG_EIO, off, READ_ERROR);
    return 0;
}

static int probe(npyg_ctx *ctx, npyg__input *in, npyg_probe_info *info)
{
    uint64_t size = in->size;
    unsigned char h[MAT_HEADER_LEN] = {0};
    size_t want = size < sizeof h ? (size_t)size : sizeof h;
    long long got = want ? npyg__in_read_at(in, 0, h, want) : 0;
    if (got != (long long)want) return npyg__fail(ctx, NPYG_EIO, 0, READ_ERROR);
    size_t n = (size_t)got;
    bool ioerr = false;
    /* The leading-magic formats are the sniffer's to decide (format.c);
       what it does not know may be HDF5 further in, or a MAT file. */
    npyg_format lead = npyg_sniff_format(h, n);
    if (lead != NPYG_FORMAT_UNKNOWN) {
        info->format = lead;
        if (find_hdf5(in, size, &info->hdf5_offset, &ioerr))
            return polyglot(ctx, NPYG_OFFSET_FILE, lead, info->hdf5_offset);
    } else if (n >= 6 && memcmp(h, "MATLAB", 6) == 0) {
        return probe_mat(ctx, in, size, h, n, info, &ioerr);
    } else if (find_hdf5(in, size, &info->hdf5_offset, &ioerr)) {
        info->format = NPYG_FORMAT_HDF5;
    } else if (!ioerr && is_mat4(in, size, h, n, &ioerr)) {
        info->format = NPYG_FORMAT_MAT4;
        return npyg__fail(ctx, NPYG_EMAT_V4, 0, "MAT v4 file: only MAT v7.3 (HDF5) is supported");
    }
    if (ioerr) return npyg__fail(ctx, NPYG_EIO, 0, READ_ERROR);
    return 0;
}

int npyg_probe_input(npyg_ctx *ctx)
{
    if (!ctx) return NPYG_EINVAL;
    npyg__ctx_reset(ctx);
    npyg__input in;
    int rc = npyg__input_begin(ctx, &in, NPYG__IN_RANDOM | NPYG__IN_KEEP_HEAD, NPYG_OFFSET_FILE,
                               "format recognition needs a regular file");
    if (rc) return rc;
    /* The info says what was seen also when the file is refused for it
       (MAT v5, v4, a polyglot). */
    memset(&ctx->probe_info, 0, sizeof ctx->probe_info);
    ctx->have_probe_info = true;
    return probe(ctx, &in, &ctx->probe_info);
}

int npyg_detect(npyg_ctx *ctx, npyg_format *format)
{
    if (format) *format = NPYG_FORMAT_UNKNOWN;
    int rc = npyg_probe_input(ctx);
    const npyg_probe_info *pi = npyg_get_probe_info(ctx);
    if (!pi) return rc;
    if (format) *format = pi->format;
    if (rc || pi->format != NPYG_FORMAT_UNKNOWN) return rc;
    /* None of the formats: say what the file starts with, so that an
       empty file, a text file and a corrupt array read differently. */
    npyg__input in;
    if (npyg__input_begin(ctx, &in, NPYG__IN_RANDOM, NPYG_OFFSET_FILE, NULL)) return npyg_last_error(ctx)->code;
    unsigned char h[8];
    /* a file gives what it holds whatever fstat says (/proc's say 0) */
    long long got = npyg__in_read_at(&in, 0, h, sizeof h);
    if (got < 0) return npyg__fail(ctx, NPYG_EIO, 0, READ_ERROR);
    if (got == 0)
        return npyg__fail(ctx, NPYG_EUNRECOGNIZED, 0,
                          "empty input: none of .npy, .npz, .ra, HDF5 or MAT v7.3");
    char hex[3 * sizeof h + 1];
    size_t at = 0;
    for (long long k = 0; k < got; k++) at += (size_t)snprintf(hex + at, sizeof hex - at, " %02x", h[k]);
    return npyg__fail(ctx, NPYG_EUNRECOGNIZED, 0,
                      "none of .npy, .npz, .ra, HDF5 or MAT v7.3: starts with bytes%s", hex);
}

const npyg_probe_info *npyg_get_probe_info(const npyg_ctx *ctx)
{
    return ctx && ctx->have_probe_info ? &ctx->probe_info : NULL;
}

/* The forms of 0.1.0: the info copied out (zeros when there is none). */
static int probe_into(npyg_ctx *ctx, npyg_probe_info *info)
{
    int rc = info ? npyg_probe_input(ctx) : NPYG_EINVAL;
    if (info) *info = ctx && ctx->have_probe_info ? ctx->probe_info : (npyg_probe_info){0};
    else if (ctx) {
        npyg__ctx_reset(ctx);
        npyg__fail(ctx, NPYG_EINVAL, 0, "NULL argument");
    }
    return rc;
}

int npyg_probe(npyg_ctx *ctx, npyg_pread_fn rd, void *user, uint64_t size, npyg_probe_info *info)
{
    npyg_set_input_pread(ctx, rd, user, size);
    return probe_into(ctx, info);
}

int npyg_probe_buffer(npyg_ctx *ctx, const void *buf, size_t len, npyg_probe_info *info)
{
    npyg_set_input_buffer(ctx, buf, buf ? len : 0);
    return probe_into(ctx, info);
}

int npyg_probe_fd(npyg_ctx *ctx, int fd, npyg_probe_info *info)
{
    npyg_set_input_fd(ctx, fd);
    return probe_into(ctx, info);
}
