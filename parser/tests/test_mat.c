/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Format recognition and the MAT header, on inputs built here from the
 * MAT-file format description (128-byte header: 116 bytes of text, 8-byte
 * subsystem offset, 2-byte version 0x0200 for v7.3 / 0x0100 for v5, and
 * the endian indicator 'IM' or 'MI'; v7.3 puts the HDF5 superblock at 512)
 * and HDF5's rule for where the superblock may be (0, 512, 1024, 2048...).
 * Also: every MAT/HDF5 code has a name, a class and a text; the HDF5
 * limits and allocation bound. (The sandbox's cage is tested through the
 * helper itself: test_hdf5_sandbox.py.) Each case is a function named for
 * its rule; main runs them in order under their labels.
 */
#include "npyguard.h"
#include "testutil.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const unsigned char SIG[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

static size_t mat_header(unsigned char *b, const char *text, unsigned version, const char *endian)
{
    memset(b, ' ', 116);
    memcpy(b, text, strlen(text));
    memset(b + 116, 0, 8);
    bool be = endian[0] == 'M';
    b[124] = (unsigned char)(be ? version >> 8 : version & 0xff);
    b[125] = (unsigned char)(be ? version & 0xff : version >> 8);
    b[126] = (unsigned char)endian[0];
    b[127] = (unsigned char)endian[1];
    return 128;
}

#define T73 "MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Tue Jan  2 03:04:05 2024 HDF5 schema 1.00 ."

/* A MAT v7.3 file: header, zeroed user block, HDF5 signature at 512. */
static unsigned char *mat73(size_t *len, unsigned version, const char *endian)
{
    unsigned char *b = calloc(1, 1024);
    mat_header(b, T73, version, endian);
    memcpy(b + 512, SIG, 8);
    *len = 1024;
    return b;
}

/* An input of zeros as long as the caller says; counts its reads. */
static long long zero_pread(void *user, void *buf, size_t len, uint64_t off)
{
    (void)off;
    ++*(long *)user;
    memset(buf, 0, len);
    return (long long)len;
}

static int probe(const void *b, size_t len, npyg_probe_info *info, npyg_error *err)
{
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    npyg_set_input_buffer(ctx, b, len);
    int rc = tu_probe(ctx, info);
    *err = *npyg_last_error(ctx);
    npyg_ctx_free(ctx);
    return rc;
}

static void mat_v7_3_little_endian_writer_im(void)
{
    npyg_probe_info in;
    npyg_error e;
    size_t len;
    unsigned char *b;

    b = mat73(&len, 0x0200, "IM");
    TU_CHECK(probe(b, len, &in, &e) == 0, "rc %d: %s", e.code, e.message);
    TU_CHECK(in.format == NPYG_FORMAT_MAT73 && in.hdf5_offset == 512, "format %d at %llu", in.format,
             (unsigned long long)in.hdf5_offset);
    TU_CHECK(in.version == 0x0200 && !strcmp(in.endian, "IM"), "version %#x endian %s", in.version, in.endian);
    TU_CHECK(!strcmp(in.text, T73), "text '%s'", in.text);
    TU_CHECK(in.warnings == 0, "warnings %#x", in.warnings);
    free(b);
}

static void mat_v7_3_big_endian_writer_mi(void)
{
    npyg_probe_info in;
    npyg_error e;
    size_t len;
    unsigned char *b;

    b = mat73(&len, 0x0200, "MI");
    TU_CHECK(probe(b, len, &in, &e) == 0 && in.format == NPYG_FORMAT_MAT73 && in.version == 0x0200,
             "rc %d version %#x", e.code, in.version);
    free(b);
}

static void version_in_the_wrong_byte_order_for_im(void)
{
    npyg_probe_info in;
    npyg_error e;
    size_t len;
    unsigned char *b;

    b = mat73(&len, 0x0200, "IM");
    b[124] = 0x02;
    b[125] = 0x00;
    TU_CHECK(probe(b, len, &in, &e) == NPYG_EMAT_HEADER && e.offset == 124, "rc %d at %llu", e.code,
             (unsigned long long)e.offset);
    free(b);
}

static void endian_indicator_xy(void)
{
    npyg_probe_info in;
    npyg_error e;
    size_t len;
    unsigned char *b;

    b = mat73(&len, 0x0200, "IM");
    b[126] = 'X';
    b[127] = 'Y';
    TU_CHECK(probe(b, len, &in, &e) == NPYG_EMAT_HEADER && e.offset == 126, "rc %d at %llu", e.code,
             (unsigned long long)e.offset);
    free(b);
}

static void v7_3_header_with_no_hdf5_at_512(void)
{
    npyg_probe_info in;
    npyg_error e;
    size_t len;
    unsigned char *b;

    b = mat73(&len, 0x0200, "IM");
    memset(b + 512, 0, 8);
    TU_CHECK(probe(b, len, &in, &e) == NPYG_EMAT_HEADER && e.offset == 512, "rc %d at %llu", e.code,
             (unsigned long long)e.offset);
    free(b);
}

static void v7_3_header_with_hdf5_at_1024_not_512(void)
{
    npyg_probe_info in;
    npyg_error e;
    unsigned char *b;

    b = calloc(1, 2048);
    mat_header(b, T73, 0x0200, "IM");
    memcpy(b + 1024, SIG, 8);
    TU_CHECK(probe(b, 2048, &in, &e) == NPYG_EMAT_HEADER, "rc %d", e.code);
    free(b);
}

static void file_ends_inside_the_mat_header(void)
{
    npyg_probe_info in;
    npyg_error e;
    size_t len;
    unsigned char *b;

    b = mat73(&len, 0x0200, "IM");
    TU_CHECK(probe(b, 100, &in, &e) == NPYG_EMAT_HEADER && e.offset == 100, "rc %d", e.code);
    free(b);
}

static void control_byte_in_the_header_text(void)
{
    npyg_probe_info in;
    npyg_error e;
    size_t len;
    unsigned char *b;

    b = mat73(&len, 0x0200, "IM");
    b[40] = '\n';
    TU_CHECK(probe(b, len, &in, &e) == NPYG_EMAT_HEADER && e.offset == 40, "rc %d at %llu", e.code,
             (unsigned long long)e.offset);
    free(b);
}

static void text_says_7_3_version_says_0x0100(void)
{
    npyg_probe_info in;
    npyg_error e;
    size_t len;
    unsigned char *b;

    b = mat73(&len, 0x0100, "IM");
    TU_CHECK(probe(b, len, &in, &e) == NPYG_EMAT_HEADER && e.offset == 124, "rc %d", e.code);
    free(b);
}

static void version_0x0200_with_v5_text(void)
{
    npyg_probe_info in;
    npyg_error e;
    size_t len;
    unsigned char *b;

    b = mat73(&len, 0x0200, "IM");
    mat_header(b, "MATLAB 5.0 MAT-file", 0x0200, "IM");
    TU_CHECK(probe(b, len, &in, &e) == NPYG_EMAT_HEADER && e.offset == 0, "rc %d", e.code);
    free(b);
}

static void odd_subsystem_offset_user_block_and_text_end(void)
{
    npyg_probe_info in;
    npyg_error e;
    size_t len;
    unsigned char *b;

    b = mat73(&len, 0x0200, "IM");
    b[116] = 1;
    b[300] = 7;
    memcpy(b, "MATLAB 7.3 MAT-file, Platform: x", 32);
    memset(b + 32, ' ', 84);
    TU_CHECK(probe(b, len, &in, &e) == 0, "rc %d", e.code);
    TU_CHECK(in.warnings == (NPYG_PW_SUBSYS | NPYG_PW_USERBLOCK | NPYG_PW_MAT_TEXT), "warnings %#x", in.warnings);
    TU_CHECK(in.subsys_offset == 1, "subsystem offset %llu", (unsigned long long)in.subsys_offset);
    free(b);
}

static void subsystem_offset_of_spaces_means_none(void)
{
    npyg_probe_info in;
    npyg_error e;
    size_t len;
    unsigned char *b;

    b = mat73(&len, 0x0200, "IM");
    memset(b + 116, ' ', 8);
    TU_CHECK(probe(b, len, &in, &e) == 0 && in.warnings == 0, "rc %d warnings %#x", e.code, in.warnings);
    free(b);
}

static void mat_v5(void)
{
    npyg_probe_info in;
    npyg_error e;
    unsigned char *b;

    b = calloc(1, 256);
    mat_header(b, "MATLAB 5.0 MAT-file, Platform: GLNXA64", 0x0100, "IM");
    TU_CHECK(probe(b, 256, &in, &e) == NPYG_EMAT_V5 && in.format == NPYG_FORMAT_MAT5, "rc %d", e.code);
    TU_CHECK(strstr(e.message, "MAT v5") != NULL, "message '%s'", e.message);
    free(b);
}

static void mat_v4_1x1_double_a_little_endian(void)
{
    npyg_probe_info in;
    npyg_error e;

    unsigned char v4[30] = {0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 'a', 0};
    TU_CHECK(probe(v4, sizeof v4, &in, &e) == NPYG_EMAT_V4 && in.format == NPYG_FORMAT_MAT4, "rc %d", e.code);
    v4[21] = 'b'; /* the name is not NUL-terminated: not v4 */
    TU_CHECK(probe(v4, sizeof v4, &in, &e) == 0 && in.format == NPYG_FORMAT_UNKNOWN, "rc %d", e.code);
}

static void mat_header_text_padded_with_nuls_not_spaces(void)
{
    npyg_probe_info in;
    npyg_error e;
    size_t len;
    unsigned char *b;

    b = mat73(&len, 0x0200, "IM");
    memset(b + 19, 0, 116 - 19);
    TU_CHECK(probe(b, len, &in, &e) == 0 && !strcmp(in.text, "MATLAB 7.3 MAT-file"), "rc %d text '%s'", e.code,
             in.text);
    TU_CHECK(in.warnings == NPYG_PW_MAT_TEXT, "warnings %#x", in.warnings);
    free(b);
}

static void a_byte_above_0x7e_in_the_header_text(void)
{
    npyg_probe_info in;
    npyg_error e;
    size_t len;
    unsigned char *b;

    b = mat73(&len, 0x0200, "IM");
    b[50] = 0xe9;
    TU_CHECK(probe(b, len, &in, &e) == NPYG_EMAT_HEADER && e.offset == 50, "rc %d at %llu", e.code,
             (unsigned long long)e.offset);
    free(b);
}

static void endian_indicators_ii_and_mm(void)
{
    npyg_probe_info in;
    npyg_error e;
    size_t len;
    unsigned char *b;

    for (int k = 0; k < 2; k++) {
        b = mat73(&len, 0x0200, "IM");
        b[126] = b[127] = k ? 'M' : 'I';
        TU_CHECK(probe(b, len, &in, &e) == NPYG_EMAT_HEADER && e.offset == 126, "%s: rc %d at %llu", k ? "MM" : "II",
                 e.code, (unsigned long long)e.offset);
        free(b);
    }
}

static void version_0x0100_and_7_3_text_no_hdf5_at_512(void)
{
    npyg_probe_info in;
    npyg_error e;
    size_t len;
    unsigned char *b;

    b = mat73(&len, 0x0100, "IM");
    memset(b + 512, 0, 8);
    TU_CHECK(probe(b, len, &in, &e) == NPYG_EMAT_HEADER && e.offset == 124 && strstr(e.message, "MATLAB 7.3"),
             "rc %d at %llu: %s", e.code, (unsigned long long)e.offset, e.message);
    free(b);
}

static void mat_v4_big_endian_and_headers_that_are_not_v4(void)
{
    npyg_probe_info in;
    npyg_error e;

    /* type MOPT, rows, cols, imagf, namlen: 1x1 double 'a' */
    unsigned char be[30] = {0, 0, 0x03, 0xe8, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 'a', 0};
    TU_CHECK(probe(be, sizeof be, &in, &e) == NPYG_EMAT_V4 && in.format == NPYG_FORMAT_MAT4, "type 1000, BE: rc %d",
             e.code);
    static const struct {
        int field;      /* which 32-bit field */
        uint32_t value; /* little-endian */
        const char *what;
    } bad[] = {
        {0, 1000, "M 1 (big-endian) written little-endian"},
        {0, 100, "O digit 1 (must be 0)"},
        {0, 60, "P digit 6 (precision 0-5)"},
        {0, 3, "T digit 3 (type 0-2)"},
        {1, 0x80000000u, "rows over INT32_MAX"},
        {2, 0x80000000u, "columns over INT32_MAX"},
        {3, 2, "imaginary flag 2"},
        {4, 1, "name length 1 (the NUL alone)"},
        {4, 4097, "name length 4097"},
        {4, 11, "name past the end of the file"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        unsigned char v4[30] = {0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 'a', 0};
        unsigned char *f = v4 + 4 * bad[k].field;
        for (int i = 0; i < 4; i++) f[i] = (unsigned char)(bad[k].value >> (8 * i));
        TU_CHECK(probe(v4, sizeof v4, &in, &e) == 0 && in.format == NPYG_FORMAT_UNKNOWN, "%s: rc %d format %d",
                 bad[k].what, e.code, in.format);
    }
}

static const char *probe_text(unsigned bit)
{
    const npyg_warning_desc *w = npyg_warning_info(NPYG_WARNINGS_PROBE, bit);
    return w ? w->text : "";
}

static void probe_warning_texts(void)
{
    unsigned bits[] = {NPYG_PW_SUBSYS, NPYG_PW_USERBLOCK, NPYG_PW_MAT_TEXT};
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < k; j++)
            TU_CHECK(strcmp(probe_text(bits[k]), probe_text(bits[j])) != 0, "bits %#x and %#x share a text",
                     bits[k], bits[j]);
    TU_CHECK(strstr(probe_text(NPYG_PW_SUBSYS), "subsystem") && strstr(probe_text(NPYG_PW_USERBLOCK), "user block") &&
                 strstr(probe_text(NPYG_PW_MAT_TEXT), "HDF5 schema 1.00"),
             "texts name what they warn of");
    TU_CHECK(npyg_warning_info(NPYG_WARNINGS_PROBE, 1u << 9) == NULL, "an unknown bit");
}

static void an_input_of_2_64_minus_1_bytes(void)
{
    npyg_probe_info in;

    /* The superblock search doubles its offset from 512; it stops at
       2**63 instead of wrapping, and reads only what the size allows. */
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    long reads = 0;
    npyg_set_input_pread(ctx, zero_pread, &reads, UINT64_MAX);
    TU_CHECK(tu_probe(ctx, &in) == 0 && in.format == NPYG_FORMAT_UNKNOWN,
             "rc %d format %d", npyg_last_error(ctx)->code, in.format);
    TU_CHECK(reads == 1 + 1 + 55, "%ld reads: the header, then offsets 0 and 2**9, 2**10, ... 2**63",
             reads);
    npyg_ctx_free(ctx);
}

static void hdf5_superblock_at_0_512_2048_not_at_768(void)
{
    npyg_probe_info in;
    npyg_error e;
    unsigned char *b;

    b = calloc(1, 4096);
    memcpy(b, SIG, 8);
    TU_CHECK(probe(b, 4096, &in, &e) == 0 && in.format == NPYG_FORMAT_HDF5 && in.hdf5_offset == 0, "at 0");
    memset(b, 'x', 8);
    memcpy(b + 2048, SIG, 8);
    TU_CHECK(probe(b, 4096, &in, &e) == 0 && in.format == NPYG_FORMAT_HDF5 && in.hdf5_offset == 2048, "at 2048");
    memcpy(b + 512, SIG, 8);
    TU_CHECK(probe(b, 4096, &in, &e) == 0 && in.hdf5_offset == 512, "the first one wins");
    memset(b + 512, 0, 8);
    memset(b + 2048, 0, 8);
    memcpy(b + 768, SIG, 8);
    TU_CHECK(probe(b, 4096, &in, &e) == 0 && in.format == NPYG_FORMAT_UNKNOWN, "768 is not a superblock place");
    TU_CHECK(probe(b + 768, 7, &in, &e) == 0 && in.format == NPYG_FORMAT_UNKNOWN, "7 bytes of signature");
    free(b);
}

static void npy_and_zip(void)
{
    npyg_probe_info in;
    npyg_error e;

    TU_CHECK(probe("\x93NUMPY\x01\x00", 8, &in, &e) == 0 && in.format == NPYG_FORMAT_NPY, "npy");
    TU_CHECK(probe("PK\x03\x04....", 8, &in, &e) == 0 && in.format == NPYG_FORMAT_NPZ, "zip");
    TU_CHECK(probe("", 0, &in, &e) == 0 && in.format == NPYG_FORMAT_UNKNOWN, "empty");
}

static void probe_null_arguments_and_unusable_descriptors(void)
{
    npyg_probe_info in;

    npyg_ctx *ctx = npyg_ctx_new(NULL);
    TU_CHECK(npyg_probe_input(NULL) == NPYG_EINVAL && npyg_get_probe_info(NULL) == NULL, "NULL ctx");
    npyg_set_input_pread(ctx, NULL, NULL, 0);
    TU_CHECK(tu_probe(ctx, &in) == NPYG_EINVAL, "NULL read function");
    npyg_set_input_buffer(ctx, NULL, 64);
    TU_CHECK(tu_probe(ctx, &in) == NPYG_EINVAL, "NULL buffer of 64 bytes");
    npyg_set_input_fd(ctx, -1);
    TU_CHECK(tu_probe(ctx, &in) == NPYG_EIO, "fd -1");
    int fd = open("/dev/null", O_RDONLY);
    npyg_set_input_fd(ctx, fd);
    TU_CHECK(tu_probe(ctx, &in) == NPYG_ENOTREG, "a character device");
    close(fd);
    npyg_set_input_fd(ctx, fd);
    TU_CHECK(tu_probe(ctx, &in) == NPYG_EIO, "a closed descriptor");
    char tmpl[] = "/tmp/npyg-mat-XXXXXX";
    fd = mkstemp(tmpl);
    TU_CHECK(fd >= 0 && write(fd, "MATLAB", 6) == 6 && lseek(fd, 100, SEEK_SET) == 100, "temp file");
    npyg_set_input_fd(ctx, fd);
    TU_CHECK(tu_probe(ctx, &in) == NPYG_EIO, "positioned past the end of the file");
    close(fd);
    unlink(tmpl);
    npyg_ctx_free(ctx);
}

static void the_fd_input_agrees_with_the_buffer(void)
{
    npyg_probe_info in;
    size_t len;
    unsigned char *b;

    char tmpl[] = "/tmp/npyg-mat-XXXXXX";
    int fd = mkstemp(tmpl);
    b = mat73(&len, 0x0200, "IM");
    TU_CHECK(fd >= 0 && write(fd, "junk", 4) == 4 && write(fd, b, len) == (ssize_t)len, "temp file");
    lseek(fd, 4, SEEK_SET);
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    npyg_set_input_fd(ctx, fd);
    TU_CHECK(tu_probe(ctx, &in) == 0 && in.format == NPYG_FORMAT_MAT73, "fd from offset 4: %s",
             npyg_last_error(ctx)->message);
    TU_CHECK(lseek(fd, 0, SEEK_CUR) == 4, "the position moved");
    npyg_ctx_free(ctx);
    close(fd);
    unlink(tmpl);
    free(b);
}

static void every_mat_hdf5_code_named_classed_described(void)
{
    for (int c = 110; c <= 131; c++) {
        TU_CHECK(strncmp(npyg_error_name(c), "NPYG_E", 6) == 0, "code %d named %s", c, npyg_error_name(c));
        TU_CHECK(strcmp(npyg_error_class(c), "?") != 0, "code %d has no class", c);
        TU_CHECK(strcmp(npyg_strerror(c), "unknown error code") != 0, "code %d has no text", c);
    }
    TU_CHECK(!strcmp(npyg_error_class(NPYG_EHDF5_EXTLINK), "unsafe"), "hazards are class unsafe");
    TU_CHECK(!strcmp(npyg_error_class(NPYG_EMAT_V5), "unsupported"), "v5 is unsupported, not bad magic");
}

static void hdf5_limits_and_the_parents_allocation_bound(void)
{
    npyg_limits lim;
    npyg_limits_default(&lim);
    npyg_hdf5_limits hl;
    npyg_hdf5_limits_default(&hl);
    uint64_t w = npyg_hdf5_worst_case_alloc(&lim, &hl);
    TU_CHECK(w > 0 && w < 65536 && w <= lim.max_alloc_bytes, "default bound %llu", (unsigned long long)w);
    TU_CHECK(npyg_hdf5_worst_case_alloc(&lim, NULL) == w, "NULL limits are the defaults");
    hl.max_nesting = 0;
    TU_CHECK(npyg_hdf5_worst_case_alloc(&lim, &hl) == 0, "invalid limits give 0");
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    int fd = open("/dev/null", O_RDONLY);
    npyg_set_input_fd(ctx, fd);
    TU_CHECK(npyg_hdf5_scan(ctx, &hl, NULL, NULL) == NPYG_EINVAL, "scan refuses invalid limits");
    npyg_hdf5_limits_default(&hl);
    npyg_set_input_fd(ctx, fd);
    TU_CHECK(npyg_hdf5_scan(ctx, &hl, NULL, NULL) == NPYG_ENOTREG, "a device is refused");
    close(fd);
    npyg_ctx_free(ctx);
    printf("npyg_hdf5_worst_case_alloc(defaults) = %llu bytes\n", (unsigned long long)w);
}

int main(void)
{
    static const struct {
        const char *label;
        void (*run)(void);
    } cases[] = {
        {"MAT v7.3, little-endian writer ('IM')", mat_v7_3_little_endian_writer_im},
        {"MAT v7.3, big-endian writer ('MI')", mat_v7_3_big_endian_writer_mi},
        {"version field in the wrong byte order for 'IM' (0x0002)", version_in_the_wrong_byte_order_for_im},
        {"endian indicator 'XY'", endian_indicator_xy},
        {"v7.3 header with no HDF5 at 512", v7_3_header_with_no_hdf5_at_512},
        {"v7.3 header with HDF5 at 1024, not 512", v7_3_header_with_hdf5_at_1024_not_512},
        {"file ends inside the MAT header", file_ends_inside_the_mat_header},
        {"control byte in the header text", control_byte_in_the_header_text},
        {"text says 7.3, version says 0x0100", text_says_7_3_version_says_0x0100},
        {"version 0x0200 with v5 text", version_0x0200_with_v5_text},
        {"subsystem offset neither zeros nor spaces; user block not zero; other text end", odd_subsystem_offset_user_block_and_text_end},
        {"subsystem offset of spaces means none", subsystem_offset_of_spaces_means_none},
        {"MAT v5", mat_v5},
        {"MAT v4: 1x1 double 'a', little-endian", mat_v4_1x1_double_a_little_endian},
        {"MAT header text padded with NULs, not spaces", mat_header_text_padded_with_nuls_not_spaces},
        {"a byte above 0x7e in the header text", a_byte_above_0x7e_in_the_header_text},
        {"endian indicators 'II' and 'MM'", endian_indicators_ii_and_mm},
        {"version 0x0100 and 7.3 text, no HDF5 at 512", version_0x0100_and_7_3_text_no_hdf5_at_512},
        {"MAT v4: big-endian (M digit 1) and headers that are not v4", mat_v4_big_endian_and_headers_that_are_not_v4},
        {"probe warning texts", probe_warning_texts},
        {"an input that says it is 2**64 - 1 bytes long", an_input_of_2_64_minus_1_bytes},
        {"HDF5 superblock at 0, 512, 2048; not at 768", hdf5_superblock_at_0_512_2048_not_at_768},
        {"NPY and zip", npy_and_zip},
        {"probe: NULL arguments, and descriptors it cannot use", probe_null_arguments_and_unusable_descriptors},
        {"the fd input agrees with the buffer", the_fd_input_agrees_with_the_buffer},
        {"error table: every MAT/HDF5 code named, classed, described", every_mat_hdf5_code_named_classed_described},
        {"HDF5 limits and the parent's allocation bound", hdf5_limits_and_the_parents_allocation_bound},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_current = cases[i].label;
        cases[i].run();
    }
    printf("test_mat: %d checks passed, %d failed\n", tu_passed, tu_failed);
    return tu_failed ? 1 : 0;
}
