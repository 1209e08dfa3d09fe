/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Error and warning facts, and recording an error: the one table of codes
 * (name, class, text), the warning names and texts, which codes blame the
 * environment, and npyg__fail with its message escaping. Codes are stable:
 * add, never renumber.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    int code;
    const char *name;
    const char *klass;
    const char *text;
} err_entry;

static const err_entry errors[] = {
    {NPYG_OK, "NPYG_OK", "ok", "success"},
    {NPYG_EINVAL, "NPYG_EINVAL", "usage", "invalid argument"},
    {NPYG_ENOMEM, "NPYG_ENOMEM", "io", "out of memory"},
    {NPYG_EIO, "NPYG_EIO", "io", "read error"},
    {NPYG_EBADSTATE, "NPYG_EBADSTATE", "usage", "no successful parse to report on"},
    {NPYG_ENOTREG, "NPYG_ENOTREG", "io", "not a regular file or pipe"},
    {NPYG_EMAGIC, "NPYG_EMAGIC", "magic", "not an NPY file (bad magic string)"},
    {NPYG_EVERSION, "NPYG_EVERSION", "magic", "unsupported format version"},
    {NPYG_ETRUNC_PREAMBLE, "NPYG_ETRUNC_PREAMBLE", "magic", "file ends before the header length"},
    {NPYG_ETRUNC_HEADER, "NPYG_ETRUNC_HEADER", "header", "file ends inside the header"},
    {NPYG_EUTF8, "NPYG_EUTF8", "header", "header is not valid UTF-8"},
    {NPYG_ENUL, "NPYG_ENUL", "header", "NUL byte in the header"},
    {NPYG_EUNRECOGNIZED, "NPYG_EUNRECOGNIZED", "magic", "not a format npyguard reads"},
    {NPYG_ESYNTAX, "NPYG_ESYNTAX", "header", "header is not a Python literal"},
    {NPYG_ENOTLITERAL, "NPYG_ENOTLITERAL", "header", "expression in the header is not a literal"},
    {NPYG_ENOTDICT, "NPYG_ENOTDICT", "header", "header is not a dict"},
    {NPYG_EKEYS, "NPYG_EKEYS", "header", "header keys are not exactly descr, fortran_order, shape"},
    {NPYG_EPY2LONG, "NPYG_EPY2LONG", "header", "Python-2 long suffix in a version 3.0 header"},
    {NPYG_EUNSUPPORTED, "NPYG_EUNSUPPORTED", "header", "literal form refused by npyguard"},
    {NPYG_ESHAPE, "NPYG_ESHAPE", "shape", "shape is not a tuple of ints"},
    {NPYG_EDIM, "NPYG_EDIM", "shape", "invalid dimension"},
    {NPYG_EFORTRAN, "NPYG_EFORTRAN", "header", "fortran_order is not a bool"},
    {NPYG_EDESCR, "NPYG_EDESCR", "descr", "descr is not a valid dtype descriptor"},
    {NPYG_EOBJECT, "NPYG_EOBJECT", "unsafe", "object dtype: the payload is a pickle"},
    {NPYG_EOVERFLOW, "NPYG_EOVERFLOW", "shape", "size overflows"},
    {NPYG_ETRUNC_PAYLOAD, "NPYG_ETRUNC_PAYLOAD", "payload", "payload is truncated"},
    {NPYG_ETRAILING, "NPYG_ETRAILING", "strict", "bytes after the payload"},
    {NPYG_ENONCANON, "NPYG_ENONCANON", "strict", "header is not as numpy writes it"},
    {NPYG_EALIGN, "NPYG_EALIGN", "strict", "data offset is not a multiple of 64"},
    {NPYG_ELIMIT_HEADER, "NPYG_ELIMIT_HEADER", "limit", "header longer than max_header_bytes"},
    {NPYG_ELIMIT_DIMS, "NPYG_ELIMIT_DIMS", "limit", "more dimensions than max_dims"},
    {NPYG_ELIMIT_FIELDS, "NPYG_ELIMIT_FIELDS", "limit", "more fields than max_fields"},
    {NPYG_ELIMIT_DEPTH, "NPYG_ELIMIT_DEPTH", "limit", "descr nested deeper than max_depth"},
    {NPYG_ELIMIT_ALLOC, "NPYG_ELIMIT_ALLOC", "limit", "parse needs more than max_alloc_bytes"},
    {NPYG_ELIMIT_PAYLOAD, "NPYG_ELIMIT_PAYLOAD", "limit", "payload larger than max_payload_bytes"},
    {NPYG_EZIP_NOTZIP, "NPYG_EZIP_NOTZIP", "zip", "not a zip archive"},
    {NPYG_EZIP_EOCD, "NPYG_EZIP_EOCD", "zip", "no valid end-of-central-directory record at the end"},
    {NPYG_EZIP_ZIP64, "NPYG_EZIP_ZIP64", "zip", "bad zip64 record or extra field"},
    {NPYG_EZIP_MULTIDISK, "NPYG_EZIP_MULTIDISK", "zip", "archive spans several disks"},
    {NPYG_EZIP_CDIR, "NPYG_EZIP_CDIR", "zip", "central directory is malformed or not where it says"},
    {NPYG_EZIP_LOCAL, "NPYG_EZIP_LOCAL", "zip", "local header disagrees with the central directory"},
    {NPYG_EZIP_BOUNDS, "NPYG_EZIP_BOUNDS", "zip", "entry runs past the archive"},
    {NPYG_EZIP_OVERLAP, "NPYG_EZIP_OVERLAP", "zip", "entries overlap"},
    {NPYG_EZIP_GAP, "NPYG_EZIP_GAP", "zip", "bytes that belong to no entry"},
    {NPYG_EZIP_DUPNAME, "NPYG_EZIP_DUPNAME", "zip", "duplicate member name"},
    {NPYG_EZIP_NAME, "NPYG_EZIP_NAME", "zip", "unsafe or malformed member name"},
    {NPYG_EZIP_ENCRYPTED, "NPYG_EZIP_ENCRYPTED", "zip", "encrypted member"},
    {NPYG_EZIP_METHOD, "NPYG_EZIP_METHOD", "zip", "compression method other than stored and deflate"},
    {NPYG_EZIP_FLAGS, "NPYG_EZIP_FLAGS", "zip", "unsupported general-purpose flag bits"},
    {NPYG_EZIP_DESCRIPTOR, "NPYG_EZIP_DESCRIPTOR", "zip", "data descriptor missing or disagrees"},
    {NPYG_EZIP_INFLATE, "NPYG_EZIP_INFLATE", "zip", "corrupt deflate stream"},
    {NPYG_EZIP_SIZE, "NPYG_EZIP_SIZE", "zip", "member size differs from the declared size"},
    {NPYG_EZIP_CRC, "NPYG_EZIP_CRC", "zip", "CRC-32 mismatch"},
    {NPYG_EZIP_NOTNPY, "NPYG_EZIP_NOTNPY", "zip", "member is not a .npy file"},
    {NPYG_EZIP_COMMENT, "NPYG_EZIP_COMMENT", "zip", "archive has a comment"},
    {NPYG_EZIP_VERSION, "NPYG_EZIP_VERSION", "zip", "member needs a zip version above 6.3"},
    {NPYG_ELIMIT_INFLATE, "NPYG_ELIMIT_INFLATE", "limit", "deflated members inflate to more than the archive's budget"},
    {NPYG_ELIMIT_STDIN, "NPYG_ELIMIT_STDIN", "limit", "archive on a stream is larger than the zip limits admit"},
    {NPYG_ELIMIT_MEMBERS, "NPYG_ELIMIT_MEMBERS", "limit", "more members than max_members"},
    {NPYG_ELIMIT_NAME, "NPYG_ELIMIT_NAME", "limit", "member name longer than max_name_bytes"},
    {NPYG_ELIMIT_UNCOMPRESSED, "NPYG_ELIMIT_UNCOMPRESSED", "limit", "archive inflates to more than max_total_uncompressed"},
    {NPYG_ELIMIT_RATIO, "NPYG_ELIMIT_RATIO", "limit", "member expands more than max_ratio"},
    {NPYG_ERA_MAGIC, "NPYG_ERA_MAGIC", "ra", "not a RawArray file (bad magic)"},
    {NPYG_ERA_TRUNC_HEADER, "NPYG_ERA_TRUNC_HEADER", "ra", "file ends inside the RawArray header"},
    {NPYG_ERA_FLAGS, "NPYG_ERA_FLAGS", "ra", "unknown RawArray flag bits"},
    {NPYG_ERA_ELTYPE, "NPYG_ERA_ELTYPE", "ra", "eltype is not one of 0-5"},
    {NPYG_ERA_ELBYTE, "NPYG_ERA_ELBYTE", "ra", "elbyte is not a width of the eltype"},
    {NPYG_ERA_TRUNC_DIMS, "NPYG_ERA_TRUNC_DIMS", "ra", "file ends inside the dims"},
    {NPYG_ERA_OVERFLOW, "NPYG_ERA_OVERFLOW", "ra", "elbyte times the dims overflows"},
    {NPYG_ERA_SIZE, "NPYG_ERA_SIZE", "ra", "size differs from elbyte times the dims"},
    {NPYG_ERA_TRUNC_DATA, "NPYG_ERA_TRUNC_DATA", "ra", "file ends inside the data segment"},
    {NPYG_ERA_LZ4, "NPYG_ERA_LZ4", "ra", "corrupt LZ4 block"},
    {NPYG_ERA_LZ4_SIZE, "NPYG_ERA_LZ4_SIZE", "ra", "LZ4 block decodes to the wrong length"},
    {NPYG_EMAT_V5, "NPYG_EMAT_V5", "unsupported", "MAT v5 file: only MAT v7.3 (HDF5) is supported"},
    {NPYG_EMAT_V4, "NPYG_EMAT_V4", "unsupported", "MAT v4 file: only MAT v7.3 (HDF5) is supported"},
    {NPYG_EMAT_HEADER, "NPYG_EMAT_HEADER", "mat", "MAT v7.3 header is malformed or not followed by HDF5"},
    {NPYG_EHDF5_NOTHDF5, "NPYG_EHDF5_NOTHDF5", "hdf5", "no HDF5 superblock signature"},
    {NPYG_EHDF5_UNAVAILABLE, "NPYG_EHDF5_UNAVAILABLE", "io", "libhdf5 is not available (built without it, or it does not load): HDF5 cannot be checked"},
    {NPYG_EHDF5_OPEN, "NPYG_EHDF5_OPEN", "hdf5", "the HDF5 library cannot open the file"},
    {NPYG_EHDF5_CRASH, "NPYG_EHDF5_CRASH", "unsafe", "the HDF5 library failed on this file"},
    {NPYG_EHDF5_TIMEOUT, "NPYG_EHDF5_TIMEOUT", "limit", "the HDF5 library ran past its time limit"},
    {NPYG_EHDF5_SANDBOX, "NPYG_EHDF5_SANDBOX", "io", "the HDF5 sandbox could not run"},
    {NPYG_EHDF5_OBJECT, "NPYG_EHDF5_OBJECT", "hdf5", "the HDF5 library cannot read an object"},
    {NPYG_EHDF5_EXTLINK, "NPYG_EHDF5_EXTLINK", "unsafe", "external link to another file"},
    {NPYG_EHDF5_SOFTLINK, "NPYG_EHDF5_SOFTLINK", "unsafe", "soft link dangles, loops or leaves the file"},
    {NPYG_EHDF5_EXTFILE, "NPYG_EHDF5_EXTFILE", "unsafe", "dataset stored in an external file"},
    {NPYG_EHDF5_VIRTUAL, "NPYG_EHDF5_VIRTUAL", "unsafe", "virtual dataset maps other datasets or files"},
    {NPYG_EHDF5_FILTER, "NPYG_EHDF5_FILTER", "unsafe", "filter not built into the HDF5 library"},
    {NPYG_EHDF5_REFCYCLE, "NPYG_EHDF5_REFCYCLE", "unsafe", "references or hard links form a cycle"},
    {NPYG_EHDF5_REFDANGLE, "NPYG_EHDF5_REFDANGLE", "unsafe", "reference points nowhere"},
    {NPYG_EHDF5_UDLINK, "NPYG_EHDF5_UDLINK", "unsafe", "user-defined link"},
    {NPYG_EHDF5_FORMAT, "NPYG_EHDF5_FORMAT", "strict", "hdf5storage attributes are wrong or inconsistent"},
    {NPYG_EHDF5_PROTOCOL, "NPYG_EHDF5_PROTOCOL", "unsafe", "the HDF5 child broke the record protocol"},
    {NPYG_ELIMIT_OBJECTS, "NPYG_ELIMIT_OBJECTS", "limit", "more HDF5 objects than max_objects"},
    {NPYG_ELIMIT_NESTING, "NPYG_ELIMIT_NESTING", "limit", "HDF5 groups nested deeper than max_nesting"},
    {NPYG_EPOLYGLOT, "NPYG_EPOLYGLOT", "unsafe", "file is two formats: HDF5 readers read it as HDF5"},
    {NPYG_ELIMIT_PATHS, "NPYG_ELIMIT_PATHS", "limit", "a recursive reader walks more HDF5 paths than max_paths"},
    {NPYG_ELIMIT_REFDEPTH, "NPYG_ELIMIT_REFDEPTH", "limit", "HDF5 references chained deeper than max_ref_depth"},
    {NPYG_EHDF5_VLEN, "NPYG_EHDF5_VLEN", "unsafe", "variable-length data disagrees with its heap object"},
    {NPYG_EHDF5_INFLATE, "NPYG_EHDF5_INFLATE", "limit", "filtered HDF5 data inflates past the ratio budget"},
    {NPYG_ELIMIT_LOAD, "NPYG_ELIMIT_LOAD", "limit", "an HDF5 load materialises more bytes than max_load_bytes"},
    {NPYG_EPICKLE, "NPYG_EPICKLE", "pickle", "malformed pickle"},
    {NPYG_EPICKLE_TRUNC, "NPYG_EPICKLE_TRUNC", "pickle", "pickle ends before its STOP opcode"},
    {NPYG_EPICKLE_PROTO, "NPYG_EPICKLE_PROTO", "pickle", "pickle protocol above 5"},
    {NPYG_ELIMIT_PICKLE_BYTES, "NPYG_ELIMIT_PICKLE_BYTES", "limit", "pickle longer than max_bytes"},
    {NPYG_ELIMIT_PICKLE_OPS, "NPYG_ELIMIT_PICKLE_OPS", "limit", "pickle has more opcodes than max_ops"},
    {NPYG_ELIMIT_PICKLE_MEMO, "NPYG_ELIMIT_PICKLE_MEMO", "limit", "pickle memo index at or above max_memo"},
    {NPYG_ELIMIT_PICKLE_STACK, "NPYG_ELIMIT_PICKLE_STACK", "limit", "pickle stack deeper than max_stack"},
    {NPYG_ELIMIT_PICKLE_STRINGS, "NPYG_ELIMIT_PICKLE_STRINGS", "limit", "pickle names more string bytes than max_string_bytes"},
    {NPYG_ELIMIT_PICKLE_IMPORTS, "NPYG_ELIMIT_PICKLE_IMPORTS", "limit", "pickle has more imports than max_imports"},
};

static const err_entry *find(int code)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == code) return &errors[i];
    return NULL;
}

const char *npyg_strerror(int code)
{
    const err_entry *e = find(code);
    return e ? e->text : "unknown error code";
}

const char *npyg_error_name(int code)
{
    const err_entry *e = find(code);
    return e ? e->name : "?";
}

const char *npyg_error_class(int code)
{
    const err_entry *e = find(code);
    return e ? e->klass : "?";
}

/* The class "io" is exactly the environment's faults: a tool exits with
   its I/O status for them and with "invalid" for the rest. */
int npyg_error_is_environment(int code)
{
    const err_entry *e = find(code);
    return e && code != NPYG_OK && strcmp(e->klass, "io") == 0;
}

const char *npyg_offset_space_name(int space)
{
    switch (space) {
    case NPYG_OFFSET_FILE: return "file";
    case NPYG_OFFSET_ARCHIVE: return "archive";
    case NPYG_OFFSET_MEMBER: return "member";
    default: return "?";
    }
}

/* ---------------- warnings ---------------- */

static const npyg_warning_desc npy_warnings[] = {
    {NPYG_W_TRAILING, "trailing_bytes", "bytes after the payload"},
    {NPYG_W_ALIGN, "unaligned", "data offset is not a multiple of 64"},
    {NPYG_W_LEGACY_ALIGN, "legacy_alignment", "16-byte alignment (numpy <= 1.13)"},
    {NPYG_W_NONCANON, "noncanonical_header", "header is not as numpy writes it"},
    {NPYG_W_NATIVE_ORDER, "native_byte_order", "native byte order: meaning depends on the platform"},
    {NPYG_W_PY2LONG, "python2_long", "Python-2 long suffix dropped"},
    {NPYG_W_DIMS_OVER_32, "dims_over_32", "more than 32 dimensions: numpy 1.x cannot load it"},
    {NPYG_W_DUPLICATE_KEY, "duplicate_key", "duplicate key in the header: the last one wins"},
    {NPYG_W_LONGDOUBLE, "long_double", "long double: layout depends on the platform"},
    {NPYG_W_ZERO_ITEMSIZE, "zero_itemsize", "zero itemsize"},
    {NPYG_W_INT_SUBARRAY, "int_subarray_shape",
     "field shape 1 as a bare int: numpy 1.x reads a plain field, numpy 2 a (1,) subarray"},
    {NPYG_W_LATIN1, "latin1_header", "non-ASCII bytes in a version 1.0/2.0 header"},
};

static const npyg_warning_desc zip_warnings[] = {
    {NPYG_ZW_NOT_NPY_NAME, "not_npy_name", "member name does not end in .npy"},
    {NPYG_ZW_NOT_NPY, "not_npy", "member is not .npy: numpy returns its raw bytes"},
    {NPYG_ZW_NON_ASCII_NAME, "non_ascii_name", "non-ASCII name without the UTF-8 flag (read as cp437)"},
};

static const npyg_warning_desc probe_warnings[] = {
    {NPYG_PW_SUBSYS, "mat_subsys_offset", "MAT v7.3 subsystem offset is neither zeros nor spaces"},
    {NPYG_PW_USERBLOCK, "mat_userblock", "bytes after the MAT header in the user block are not zero"},
    {NPYG_PW_MAT_TEXT, "mat_text", "MAT v7.3 header text does not end with 'HDF5 schema 1.00 .'"},
};

static const npyg_warning_desc hdf5_warnings[] = {
    {NPYG_HW_FORMAT, "storage_format", "hdf5storage attributes wrong or inconsistent"},
};

#define WARNING_SET(t) {(t), sizeof(t) / sizeof((t)[0])}

static const struct {
    const npyg_warning_desc *rows;
    size_t n;
} warning_sets[] = {
    [NPYG_WARNINGS_NPY] = WARNING_SET(npy_warnings),
    [NPYG_WARNINGS_ZIP] = WARNING_SET(zip_warnings),
    [NPYG_WARNINGS_PROBE] = WARNING_SET(probe_warnings),
    [NPYG_WARNINGS_HDF5] = WARNING_SET(hdf5_warnings),
};

const npyg_warning_desc *npyg_warning_info(npyg_warning_set set, unsigned bit)
{
    if ((unsigned)set >= sizeof warning_sets / sizeof warning_sets[0]) return NULL;
    for (size_t i = 0; i < warning_sets[set].n; i++)
        if (warning_sets[set].rows[i].bit == bit) return &warning_sets[set].rows[i];
    return NULL;
}

/* The forms of 0.2 (npyguard_compat.h). */
static const char *text_of(npyg_warning_set set, unsigned bit)
{
    const npyg_warning_desc *w = npyg_warning_info(set, bit);
    return w ? w->text : "unknown warning";
}

static const char *name_of(npyg_warning_set set, unsigned bit)
{
    const npyg_warning_desc *w = npyg_warning_info(set, bit);
    return w ? w->name : NULL;
}

const char *npyg_warning_string(unsigned bit) { return text_of(NPYG_WARNINGS_NPY, bit); }
const char *npyg_warning_name(unsigned bit) { return name_of(NPYG_WARNINGS_NPY, bit); }
const char *npyg_zip_warning_string(unsigned bit) { return text_of(NPYG_WARNINGS_ZIP, bit); }
const char *npyg_zip_warning_name(unsigned bit) { return name_of(NPYG_WARNINGS_ZIP, bit); }
const char *npyg_probe_warning_string(unsigned bit) { return text_of(NPYG_WARNINGS_PROBE, bit); }

/* ---------------- HDF5 object kinds ---------------- */

const char *npyg_hdf5_kind_name(npyg_hdf5_kind kind)
{
    switch (kind) {
    case NPYG_HDF5_FILE: return "file";
    case NPYG_HDF5_GROUP: return "group";
    case NPYG_HDF5_DATASET: return "dataset";
    case NPYG_HDF5_DATATYPE: return "datatype";
    case NPYG_HDF5_ATTRIBUTE: return "attribute";
    case NPYG_HDF5_LINK: return "link";
    }
    return NULL;
}

/* ---------------- recording an error ---------------- */

/* Characters that reorder or hide text, which a terminal shows as they
   say: bidi marks, embeddings, overrides and isolates, zero-width ones,
   line and paragraph separators, the byte-order mark. */
static bool hides_text(unsigned cp)
{
    return cp == 0x061C || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
           (cp >= 0x2060 && cp <= 0x2069) || cp == 0xFEFF;
}

/* Messages quote header text and member names, which are hostile: control
   characters (C0, DEL and the C1 range, which some terminals obey) and
   bytes that are not UTF-8 (a lone 0x9B is CSI to such a terminal) become
   \xNN, characters that reorder text \uNNNN, so a message stays one
   printable line that reads as it is. */
static void escape_message(char *out, size_t size, const char *in)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)in;
    size_t left = strlen(in);
    while (left && o + 1 < size) {
        unsigned c = *p;
        size_t len = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        size_t bad;
        bool valid = len <= left && npyg__utf8_check(p, len, &bad) == 0;
        unsigned cp = c;
        if (valid && len > 1) {
            cp = len == 2 ? c & 0x1Fu : len == 3 ? c & 0x0Fu : c & 0x07u;
            for (size_t k = 1; k < len; k++) cp = cp << 6 | (p[k] & 0x3Fu);
        }
        if (!valid || cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) {
            if (o + 4 >= size) break;
            unsigned v = valid ? cp : c;
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[v >> 4];
            out[o++] = hex[v & 15];
            len = valid ? len : 1;
        } else if (hides_text(cp)) {
            if (o + 6 >= size) break;
            out[o++] = '\\';
            out[o++] = 'u';
            for (int sh = 12; sh >= 0; sh -= 4) out[o++] = hex[(cp >> sh) & 15];
        } else {
            if (o + len >= size) break;
            memcpy(out + o, p, len);
            o += len;
        }
        p += len;
        left -= len;
    }
    out[o] = '\0';
}

int npyg__vfail_in(npyg_ctx *ctx, int space, int code, uint64_t off, const char *fmt, va_list ap)
{
    if (ctx->err.code != NPYG_OK) return ctx->err.code;
    ctx->err.code = code;
    ctx->err.offset = off;
    ctx->err.offset_space = space;
    char raw[sizeof ctx->err.message];
    vsnprintf(raw, sizeof raw, fmt, ap);
    escape_message(ctx->err.message, sizeof ctx->err.message, raw);
    return code;
}

int npyg__vfail(npyg_ctx *ctx, int code, uint64_t off, const char *fmt, va_list ap)
{
    return npyg__vfail_in(ctx, ctx->parse_space, code, off, fmt, ap);
}

int npyg__fail(npyg_ctx *ctx, int code, uint64_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = npyg__vfail(ctx, code, off, fmt, ap);
    va_end(ap);
    return rc;
}

int npyg__fail_in(npyg_ctx *ctx, int space, int code, uint64_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = npyg__vfail_in(ctx, space, code, off, fmt, ap);
    va_end(ap);
    return rc;
}

int npyg__nomem_in(npyg_ctx *ctx, int space, uint64_t off, const char *what)
{
    if (ctx->arena.over_cap || ctx->xalloc_over_cap)
        return npyg__fail_in(ctx, space, NPYG_ELIMIT_ALLOC, off, "%s needs more than max_alloc_bytes (%llu)", what,
                             (unsigned long long)ctx->limits.max_alloc_bytes);
    return npyg__fail_in(ctx, space, NPYG_ENOMEM, off, "out of memory");
}

int npyg__nomem(npyg_ctx *ctx, uint64_t off) { return npyg__nomem_in(ctx, ctx->parse_space, off, "parsing"); }
