/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * npyguard: a strict, allocation-bounded validating parser and loader for
 * the array files people receive from strangers: NumPy .npy (format
 * versions 1.0, 2.0 and 3.0) and .npz archives, RawArray .ra files, and
 * HDF5 and MATLAB v7.3 files, whose MAT header npyguard reads itself and
 * whose HDF5 structure the real libhdf5 walks in a sandboxed child
 * process. An object array's pickle is never run: its opcodes are read
 * only to name what it would import.
 *
 * This is the only public header. Every allocation goes through the
 * allocator given to npyg_ctx_new(), and the total never exceeds
 * npyg_ctx_worst_case_alloc() of the context's limits (npyg_set_limit). No global mutable state:
 * contexts are independent, each used by one thread at a time.
 *
 * Typical use:
 *
 *     npyg_ctx *ctx = npyg_ctx_new(NULL);            // defaults
 *     npyg_set_input_fd(ctx, fd);                     // or a buffer, a callback
 *     int rc = npyg_validate(ctx);
 *     if (rc) fprintf(stderr, "%llu: %s\n",
 *                     (unsigned long long)npyg_last_error(ctx)->offset,
 *                     npyg_last_error(ctx)->message);
 *     else    use(npyg_get_info(ctx));               // shape, dtype, offset
 *     npyg_ctx_free(ctx);
 */
#ifndef NPYGUARD_H
#define NPYGUARD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(NPYG_STATIC)
#  define NPYG_API
#elif defined(_WIN32)
#  ifdef NPYG_BUILDING
#    define NPYG_API __declspec(dllexport)
#  else
#    define NPYG_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__)
#  define NPYG_API __attribute__((visibility("default")))
#else
#  define NPYG_API
#endif

/* The project's version, written here only: CMake and the Python package
   read these three lines. */
#define NPYG_VERSION_MAJOR 0
#define NPYG_VERSION_MINOR 2
#define NPYG_VERSION_PATCH 0
#define NPYG__STR_(x) #x
#define NPYG__STR(x) NPYG__STR_(x)
#define NPYG_VERSION_STRING \
    NPYG__STR(NPYG_VERSION_MAJOR) "." NPYG__STR(NPYG_VERSION_MINOR) "." NPYG__STR(NPYG_VERSION_PATCH)
/* MAJOR * 1000000 + MINOR * 1000 + PATCH (0.2.0: 2000), for comparisons. */
#define NPYG_VERSION_NUMBER (NPYG_VERSION_MAJOR * 1000000L + NPYG_VERSION_MINOR * 1000L + NPYG_VERSION_PATCH)

/* The running library's version; NPYG_VERSION_STRING and
   NPYG_VERSION_NUMBER are the header's a program was compiled with. */
NPYG_API const char *npyg_version_string(void);
NPYG_API long npyg_version_number(void);

/* ABI: the library's structs and call forms change only with its SONAME,
   which names the ABI generation: libnpyguard.so.0.MINOR from 0.3 (each
   0.x minor may change the ABI; 0.1 and 0.2 are libnpyguard.so.0),
   libnpyguard.so.MAJOR from 1.0. Within one SONAME a struct the library
   hands out (npyg_info, npyg_error, ...; the caller only ever holds a
   pointer to it) only grows at its end, and a struct the caller fills
   (npyg_options, npyg_alloc, npyg_hdf5_sink) does not change at all:
   what is new comes as a call on the context, as the limits
   (npyg_set_limit), the input and the HDF5 helper's settings do, or as a
   bit of npyg_options.flags, where an unknown bit is refused (a program
   built for a newer library fails at npyg_ctx_new, not later). The
   limits structs of 0.1 (npyg_limits, ...) are frozen as they are and go
   with the calls that take them. The dynamic linker refuses a library of
   another ABI; a program linked statically or loading the library by
   other means asks at its start:

       if (!npyg_version_compatible(NPYG_VERSION_NUMBER)) refuse();

   1 when this library serves a program compiled with the npyguard.h of
   version `built` (NPYG_VERSION_NUMBER): the same ABI generation and a
   library at least as new; 0 otherwise. */
NPYG_API int npyg_version_compatible(long built);

/* ------------------------------------------------------------------ */
/* Error codes. Stable: a code is never renumbered or reused. The      */
/* ranges leave room for new codes next to their relatives.            */
/* ------------------------------------------------------------------ */
typedef enum npyg_status {
    NPYG_OK = 0,

    /* 1-9: use of the API, resources, I/O */
    NPYG_EINVAL = 1,         /* bad argument, unknown flag bit */
    NPYG_ENOMEM = 2,         /* the allocator returned NULL */
    NPYG_EIO = 3,            /* the read callback or read(2) failed */
    NPYG_EBADSTATE = 4,      /* a call out of order: kept for the two-step load
                                API (a payload read before a successful header
                                parse, or after a fatal error); nothing else
                                returns it */
    NPYG_ENOTREG = 5,        /* fd is a device, directory or other non-stream
                                (a FIFO or socket is read as a stream; an
                                archive needs a regular file) */

    /* 10-19: framing (magic, version, length field, header bytes) */
    NPYG_EMAGIC = 10,        /* does not start with \x93NUMPY */
    NPYG_EVERSION = 11,      /* version other than 1.0, 2.0, 3.0 */
    NPYG_ETRUNC_PREAMBLE = 12, /* ends inside magic, version or length */
    NPYG_ETRUNC_HEADER = 13, /* ends inside the header text */
    NPYG_EUTF8 = 14,         /* v3 header is not valid UTF-8 */
    NPYG_ENUL = 15,          /* NUL byte in the header text */
    NPYG_EUNRECOGNIZED = 16, /* none of the formats npyguard reads (npyg_detect) */

    /* 20-29: the header as a Python literal */
    NPYG_ESYNTAX = 20,       /* not a Python literal expression */
    NPYG_ENOTLITERAL = 21,   /* a name, call or operator, not a literal */
    NPYG_ENOTDICT = 22,      /* the literal is not a dict */
    NPYG_EKEYS = 23,         /* keys are not exactly descr, fortran_order, shape */
    NPYG_EPY2LONG = 24,      /* Python-2 'L' suffix in a v3 header */
    NPYG_EUNSUPPORTED = 25,  /* legal Python npyguard refuses (DIVERGENCES.md) */

    /* 30-39: header values */
    NPYG_ESHAPE = 30,        /* shape is not a tuple of ints */
    NPYG_EDIM = 31,          /* a dimension is negative, bool or >= 2**63 */
    NPYG_EFORTRAN = 32,      /* fortran_order is not a bool */
    NPYG_EDESCR = 33,        /* descr is not a valid dtype descriptor */
    NPYG_EOBJECT = 34,       /* object dtype: the payload is a pickle */
    NPYG_EOVERFLOW = 35,     /* itemsize, count or byte size overflows */

    /* 40-49: payload and layout */
    NPYG_ETRUNC_PAYLOAD = 40, /* fewer payload bytes than the header implies */
    NPYG_ETRAILING = 41,     /* bytes after the payload (strict) */
    NPYG_ENONCANON = 42,     /* header text is not as numpy writes it (strict) */
    NPYG_EALIGN = 43,        /* data offset not a multiple of 64 (strict) */

    /* 50-59: limits (npyg_limits); each has its own code */
    NPYG_ELIMIT_HEADER = 50,
    NPYG_ELIMIT_DIMS = 51,
    NPYG_ELIMIT_FIELDS = 52,
    NPYG_ELIMIT_DEPTH = 53,
    NPYG_ELIMIT_ALLOC = 54,
    NPYG_ELIMIT_PAYLOAD = 55,

    /* 60-89: .npz archives (class "zip", and the zip limits); their
       offsets are in the archive (npyg_error.offset_space) */
    NPYG_EZIP_NOTZIP = 60,      /* does not start with PK\3\4 or PK\5\6 */
    NPYG_EZIP_EOCD = 61,        /* no valid end-of-central-directory record at the end */
    NPYG_EZIP_ZIP64 = 62,       /* bad zip64 end record, locator or extra field */
    NPYG_EZIP_MULTIDISK = 63,   /* spans several disks */
    NPYG_EZIP_CDIR = 64,        /* central directory malformed or not where it says */
    NPYG_EZIP_LOCAL = 65,       /* local header missing, malformed or disagrees with the directory */
    NPYG_EZIP_BOUNDS = 66,      /* an entry runs past the archive or into the directory */
    NPYG_EZIP_OVERLAP = 67,     /* two entries share bytes */
    NPYG_EZIP_GAP = 68,         /* bytes that belong to no entry */
    NPYG_EZIP_DUPNAME = 69,     /* two members with one name (or one key once '.npy' is dropped) */
    NPYG_EZIP_NAME = 70,        /* absolute, '..', backslash, NUL, empty or undecodable name */
    NPYG_EZIP_ENCRYPTED = 71,   /* encrypted member */
    NPYG_EZIP_METHOD = 72,      /* compression other than stored (0) and deflate (8) */
    NPYG_EZIP_FLAGS = 73,       /* general-purpose flag bits npyguard does not handle */
    NPYG_EZIP_DESCRIPTOR = 74,  /* data descriptor missing or disagrees with the directory */
    NPYG_EZIP_INFLATE = 75,     /* corrupt or truncated deflate stream */
    NPYG_EZIP_SIZE = 76,        /* member data longer or shorter than declared */
    NPYG_EZIP_CRC = 77,         /* CRC-32 of the member does not match */
    NPYG_EZIP_NOTNPY = 78,      /* member is not .npy (strict; a warning otherwise) */
    NPYG_EZIP_COMMENT = 79,     /* archive comment (strict) */
    NPYG_EZIP_VERSION = 80,     /* a member needs a zip version above 6.3 to extract */

    /* npyg_zip_limits; each has its own code */
    NPYG_ELIMIT_INFLATE = 82,   /* deflated members inflate past the archive's budget */
    NPYG_ELIMIT_STDIN = 83,     /* an archive on a stream is larger than the zip limits admit */
    NPYG_ELIMIT_MEMBERS = 85,
    NPYG_ELIMIT_NAME = 86,
    NPYG_ELIMIT_UNCOMPRESSED = 87,
    NPYG_ELIMIT_RATIO = 88,

    /* 90-109: RawArray .ra files (class "ra"; see npyg_ra_validate) */
    NPYG_ERA_MAGIC = 90,        /* does not start with "rawarray" */
    NPYG_ERA_TRUNC_HEADER = 91, /* ends inside the 48-byte fixed header */
    NPYG_ERA_FLAGS = 92,        /* flag bits other than 0 and 1 */
    NPYG_ERA_ELTYPE = 93,       /* eltype outside 0..5 */
    NPYG_ERA_ELBYTE = 94,       /* elbyte no reader can use for that eltype */
    NPYG_ERA_TRUNC_DIMS = 95,   /* ends inside the dims */
    NPYG_ERA_OVERFLOW = 96,     /* elbyte * the non-zero dims reaches 2**63 (RA.md) */
    NPYG_ERA_SIZE = 97,         /* uncompressed: size != elbyte * prod(dims) */
    NPYG_ERA_TRUNC_DATA = 98,   /* fewer than size bytes of data */
    NPYG_ERA_LZ4 = 99,          /* corrupt LZ4 block (or one that decodes past the declared length) */
    NPYG_ERA_LZ4_SIZE = 100,    /* LZ4 block decodes to fewer bytes than elbyte * prod(dims) */
    /* 110-139: MAT files and HDF5 (npyg_probe_input, npyg_hdf5_scan); the
       hazards' messages start with the HDF5 object path */

    NPYG_EMAT_V5 = 110,         /* MAT v5 (or v6/v7): not HDF5, unsupported */
    NPYG_EMAT_V4 = 111,         /* MAT v4: unsupported */
    NPYG_EMAT_HEADER = 112,     /* MAT v7.3 header malformed or not followed by HDF5 */
    NPYG_EHDF5_NOTHDF5 = 113,   /* no HDF5 superblock signature */
    NPYG_EHDF5_UNAVAILABLE = 114, /* built without libhdf5 */
    NPYG_EHDF5_OPEN = 115,      /* libhdf5 cannot open the file (corrupt, truncated) */
    NPYG_EHDF5_CRASH = 116,     /* the child died (signal): libhdf5 failed on this file */
    NPYG_EHDF5_TIMEOUT = 117,   /* the child ran past its CPU or wall-clock time */
    NPYG_EHDF5_SANDBOX = 118,   /* the child could not be set up, or broke the protocol */
    NPYG_EHDF5_OBJECT = 119,    /* libhdf5 cannot read one object's metadata */
    NPYG_EHDF5_EXTLINK = 120,   /* external link: another file */
    NPYG_EHDF5_SOFTLINK = 121,  /* soft link that dangles, loops or leaves the file */
    NPYG_EHDF5_EXTFILE = 122,   /* dataset whose raw data is in an external file */
    NPYG_EHDF5_VIRTUAL = 123,   /* virtual dataset: maps other datasets or files */
    NPYG_EHDF5_FILTER = 124,    /* filter not built into libhdf5 (a plugin lookup) */
    NPYG_EHDF5_REFCYCLE = 125,  /* references or hard links that form a cycle */
    NPYG_EHDF5_REFDANGLE = 126, /* reference that points nowhere */
    NPYG_EHDF5_UDLINK = 127,    /* user-defined link class */
    NPYG_EHDF5_FORMAT = 128,    /* hdf5storage attributes wrong or inconsistent (strict) */
    NPYG_EHDF5_PROTOCOL = 129,  /* the child broke the record protocol or reported a code not its own */
    NPYG_ELIMIT_OBJECTS = 130,  /* more links, objects, attributes or references than max_objects */
    NPYG_ELIMIT_NESTING = 131,  /* groups nested deeper than max_nesting */
    NPYG_EPOLYGLOT = 132,       /* an .npy, .npz or .ra that libhdf5 also reads as HDF5 */
    NPYG_ELIMIT_PATHS = 133,    /* a recursive reader walks more paths than max_paths */
    NPYG_ELIMIT_REFDEPTH = 134, /* references chained deeper than max_ref_depth */
    NPYG_EHDF5_VLEN = 135,      /* variable-length data that disagrees with its heap object */
    NPYG_EHDF5_INFLATE = 136,   /* filtered data that inflates past the .npz ratio budget */
    NPYG_ELIMIT_LOAD = 137,     /* a load materialises more bytes than max_load_bytes */
    /* datasets and attributes over max_payload_bytes: NPYG_ELIMIT_PAYLOAD */
    /* 140-149: the pickle scanner (npyg_pickle_scan_*); offsets are in the
       .npy file or the member, as for the payload */
    NPYG_EPICKLE = 140,              /* malformed: unknown opcode, bad argument, stack underflow, ... */
    NPYG_EPICKLE_TRUNC = 141,        /* the pickle ends before its STOP opcode */
    NPYG_EPICKLE_PROTO = 142,        /* PROTO above 5 */
    NPYG_ELIMIT_PICKLE_BYTES = 143,  /* more bytes than max_bytes before STOP */
    NPYG_ELIMIT_PICKLE_OPS = 144,    /* more opcodes than max_ops */
    NPYG_ELIMIT_PICKLE_MEMO = 145,   /* a memo index at or above max_memo */
    NPYG_ELIMIT_PICKLE_STACK = 146,  /* stack items plus marks above max_stack */
    NPYG_ELIMIT_PICKLE_STRINGS = 147, /* kept strings above max_string_bytes */
    NPYG_ELIMIT_PICKLE_IMPORTS = 148, /* more distinct imports than max_imports */

    NPYG_STATUS_END_ /* not a code; one past the highest code: loops over
                        [0, NPYG_STATUS_END_) see every code (with gaps) */
} npyg_status;

/* A short static description of a code ("header is not a dict"). */
NPYG_API const char *npyg_strerror(int code);
/* The stable symbolic name ("NPYG_ENOTDICT"); "?" for an unknown code. */
NPYG_API const char *npyg_error_name(int code);
/* The class printed in diagnostics: "ok", "usage", "io", "magic",
   "header", "shape", "descr", "unsafe", "payload", "strict", "limit",
   "zip", "ra", "unsupported", "mat", "hdf5", "pickle". */
NPYG_API const char *npyg_error_class(int code);

/* What an error's offset counts from. */
typedef enum npyg_offset_space {
    NPYG_OFFSET_FILE = 0,    /* the .npy input (a file, buffer or stream) */
    NPYG_OFFSET_ARCHIVE = 1, /* the .npz archive's bytes as stored */
    NPYG_OFFSET_MEMBER = 2   /* the decompressed bytes of the member being validated */
} npyg_offset_space;

/* "file", "archive", "member"; "?" for anything else. */
NPYG_API const char *npyg_offset_space_name(int space);

/* 1 when a code blames the environment (I/O, memory, the kind of file)
   rather than the bytes read; 0 for NPYG_OK and every other code. Tools
   map it to their exit status. */
NPYG_API int npyg_error_is_environment(int code);

typedef struct npyg_error {
    int code;            /* an npyg_status */
    uint64_t offset;     /* byte offset of the fault, in offset_space */
    char message[200];   /* one line, no trailing newline */
    int offset_space;    /* an npyg_offset_space */
} npyg_error;

/* ------------------------------------------------------------------ */
/* Warnings: accepted, but worth knowing. A bit set in info->warnings. */
/* ------------------------------------------------------------------ */
enum npyg_warning {
    NPYG_W_TRAILING = 1u << 0,      /* bytes after the payload */
    NPYG_W_ALIGN = 1u << 1,         /* data offset not a multiple of 64 */
    NPYG_W_LEGACY_ALIGN = 1u << 2,  /* 16-byte alignment of numpy <= 1.13 */
    NPYG_W_NONCANON = 1u << 3,      /* header text not as numpy writes it */
    NPYG_W_NATIVE_ORDER = 1u << 4,  /* '=', '|' or no byte order on a multi-byte type */
    NPYG_W_PY2LONG = 1u << 5,       /* Python-2 'L' suffixes were dropped */
    NPYG_W_DIMS_OVER_32 = 1u << 6,  /* more than 32 dims: numpy 1.x cannot read it */
    NPYG_W_DUPLICATE_KEY = 1u << 7, /* a key given twice; the last one wins */
    NPYG_W_LONGDOUBLE = 1u << 8,    /* f16/c32: layout depends on the platform */
    NPYG_W_ZERO_ITEMSIZE = 1u << 9, /* itemsize 0: no payload whatever the shape */
    NPYG_W_INT_SUBARRAY = 1u << 10, /* field shape 1 as a bare int (1.x: plain; 2.x: (1,)) */
    NPYG_W_LATIN1 = 1u << 11        /* non-ASCII bytes in a v1/v2 header */
};

/* The sets of warning bits, one per struct that carries them. */
typedef enum npyg_warning_set {
    NPYG_WARNINGS_NPY = 0,   /* NPYG_W_*: npyg_info, npyg_ra_info */
    NPYG_WARNINGS_ZIP = 1,   /* NPYG_ZW_*: npyg_zip_entry */
    NPYG_WARNINGS_PROBE = 2, /* NPYG_PW_*: npyg_probe_info */
    NPYG_WARNINGS_HDF5 = 3   /* NPYG_HW_*: npyg_hdf5_object */
} npyg_warning_set;

typedef struct npyg_warning_desc {
    unsigned bit;
    const char *name; /* stable, as tools print it: "trailing_bytes" */
    const char *text; /* one line: "bytes after the payload" */
} npyg_warning_desc;

/* One warning bit of a set, by its name and description; NULL for a bit
   that is not one of the set's (or more than one bit). The one call that
   names warnings, of every set. */
NPYG_API const npyg_warning_desc *npyg_warning_info(npyg_warning_set set, unsigned bit);

/* ------------------------------------------------------------------ */
/* Allocator and limits                                                */
/* ------------------------------------------------------------------ */
typedef struct npyg_alloc {
    void *(*malloc)(void *user, size_t size);
    void (*free)(void *user, void *ptr, size_t size); /* size as allocated */
    void *user;
} npyg_alloc;

/* The limits structs below (npyg_limits, npyg_zip_limits,
   npyg_pickle_limits, npyg_hdf5_limits), their *_default functions and
   the per-call struct arguments are kept for 0.x compatibility and go in
   0.3: set limits on the context (npyg_set_limit). Their defaults and
   ranges are the table's (npyg_limit_info); a struct out of range is
   refused as a whole, where npyg_set_limit names the limit. */
typedef struct npyg_limits {
    uint64_t max_header_bytes;  /* header text, as HEADER_LEN counts it */
    uint32_t max_dims;          /* entries in the shape, and in each subarray
                                   shape of the descr on its own (not summed) */
    uint32_t max_fields;        /* structured fields in the whole descr, pads included */
    uint32_t max_depth;         /* descr nesting (structs within structs, subarrays) */
    uint64_t max_alloc_bytes;   /* everything the parser allocates at once */
    uint64_t max_payload_bytes; /* count * itemsize */
} npyg_limits;

#define NPYG_DEFAULT_MAX_HEADER_BYTES 10000u     /* numpy's max_header_size */
#define NPYG_DEFAULT_MAX_DIMS 64u                /* numpy 2.x NPY_MAXDIMS */
#define NPYG_DEFAULT_MAX_FIELDS 4096u
#define NPYG_DEFAULT_MAX_DEPTH 32u
#define NPYG_DEFAULT_MAX_ALLOC_BYTES (8u << 20)  /* 8 MiB */
#define NPYG_DEFAULT_MAX_PAYLOAD_BYTES (UINT64_C(1) << 40) /* 1 TiB */

/* Upper bounds on what a limit may be set to (npyg_limit_info's max);
   npyg_ctx_new refuses more. */
#define NPYG_MAX_HEADER_BYTES_CAP (UINT64_C(1) << 28)
#define NPYG_MAX_DEPTH_CAP 64u

NPYG_API void npyg_limits_default(npyg_limits *limits);

/* The most the parser can allocate in total, at any moment, under these
   limits: never more than max_alloc_bytes, and usually much less. A caller
   may size a fixed pool by it. Returns 0 for invalid limits. Of a context:
   npyg_ctx_worst_case_alloc(ctx, NPYG_BOUND_NPY). */
NPYG_API uint64_t npyg_worst_case_alloc(const npyg_limits *limits);

/* ------------------------------------------------------------------ */
/* Context                                                             */
/* ------------------------------------------------------------------ */
typedef enum npyg_profile {
    NPYG_PROFILE_NUMPY = 0,  /* accept what numpy.load(allow_pickle=False) accepts */
    NPYG_PROFILE_STRICT = 1  /* only what numpy's own writer emits */
} npyg_profile;

typedef struct npyg_options {
    npyg_profile profile;
    const npyg_limits *limits;  /* NULL: the defaults; or npyg_set_limit after */
    const npyg_alloc *alloc;    /* NULL: malloc/free */
    unsigned flags;             /* no flags are defined yet; must be 0 */
} npyg_options;

typedef struct npyg_ctx npyg_ctx;

/* NULL options: numpy profile, default limits, malloc. Returns NULL when
   the options are invalid or memory runs out. */
NPYG_API npyg_ctx *npyg_ctx_new(const npyg_options *options);
NPYG_API void npyg_ctx_free(npyg_ctx *ctx); /* NULL is fine */

/* ------------------------------------------------------------------ */
/* Limits: one set per context, every format's, each set and read by   */
/* its id (as sqlite3_limit does). One table in the library holds each */
/* limit's name, npyvalidate option, default, range and the worst      */
/* cases it enters; the CLI's options, the Python keywords and the     */
/* documents are made from it. A context starts with the defaults (or  */
/* npyg_options.limits for the .npy ones).                             */
/*                                                                     */
/*     npyg_set_limit(ctx, NPYG_LIMIT_MAX_MEMBERS, 64);                */
/*     int id = npyg_limit_by_name("max-alloc");  // or "max_alloc_bytes" */
/* ------------------------------------------------------------------ */
typedef enum npyg_limit {
    /* .npy, and what every format shares (allocation, payload) */
    NPYG_LIMIT_MAX_HEADER_BYTES = 0,
    NPYG_LIMIT_MAX_DIMS,
    NPYG_LIMIT_MAX_FIELDS,
    NPYG_LIMIT_MAX_DEPTH,
    NPYG_LIMIT_MAX_ALLOC_BYTES,
    NPYG_LIMIT_MAX_PAYLOAD_BYTES,
    /* .npz archives */
    NPYG_LIMIT_MAX_MEMBERS,
    NPYG_LIMIT_MAX_NAME_BYTES,
    NPYG_LIMIT_MAX_TOTAL_UNCOMPRESSED,
    NPYG_LIMIT_MAX_RATIO,
    NPYG_LIMIT_RATIO_GRACE_BYTES,
    NPYG_LIMIT_INFLATE_BUDGET_BYTES,
    /* the pickle scanner */
    NPYG_LIMIT_MAX_PICKLE_BYTES,
    NPYG_LIMIT_MAX_PICKLE_OPS,
    NPYG_LIMIT_MAX_PICKLE_MEMO,
    NPYG_LIMIT_MAX_PICKLE_STACK,
    NPYG_LIMIT_MAX_PICKLE_STRING_BYTES,
    NPYG_LIMIT_MAX_PICKLE_IMPORTS,
    /* the HDF5 scan and its child */
    NPYG_LIMIT_MAX_OBJECTS,
    NPYG_LIMIT_MAX_NESTING,
    NPYG_LIMIT_MAX_PATHS,
    NPYG_LIMIT_MAX_REF_DEPTH,
    NPYG_LIMIT_HDF5_MEMORY_BYTES,
    NPYG_LIMIT_HDF5_CPU_SECONDS,
    NPYG_LIMIT_HDF5_WALL_SECONDS,
    NPYG_LIMIT_MAX_LOAD_BYTES,
    NPYG_LIMIT_END_ /* not a limit: one past the last id */
} npyg_limit;

/* Worst cases, by format: what npyg_ctx_worst_case_alloc sums, and
   those a limit enters (npyg_limit_desc.bounds: raising the limit raises
   them, unless max_alloc_bytes caps them). */
enum npyg_limit_bound {
    NPYG_BOUND_NPY = 1u << 0,    /* a .npy parse */
    NPYG_BOUND_RA = 1u << 1,     /* a .ra file, an LZ4 block decoded */
    NPYG_BOUND_ZIP = 1u << 2,    /* an archive, with a member's .npy parse */
    NPYG_BOUND_PICKLE = 1u << 3, /* a pickle scan, its report included */
    NPYG_BOUND_HDF5 = 1u << 4,   /* an HDF5 scan, in this process */
    NPYG_BOUND_ALL = 0x1Fu,      /* every format */
    NPYG_BOUND_CAP = 1u << 5     /* (a limit's bounds only) max_alloc_bytes: caps every one */
};

typedef struct npyg_limit_desc {
    const char *name;       /* "max_alloc_bytes": the Python keyword */
    const char *option;     /* "max-alloc": npyvalidate's --max-alloc */
    const char *format;     /* whose limit: "npy" (shared by all), "npz", "pickle", "hdf5" */
    const char *summary;    /* what it bounds, one line */
    uint64_t default_value;
    uint64_t min, max;      /* npyg_set_limit accepts min..max */
    unsigned bounds;        /* NPYG_BOUND_* */
} npyg_limit_desc;

/* The table's row of a limit; NULL for an id out of range. */
NPYG_API const npyg_limit_desc *npyg_limit_info(npyg_limit id);
/* The id of a limit by its name or its option ("max_alloc_bytes" or
   "max-alloc", without the dashes in front); -1 for neither. */
NPYG_API int npyg_limit_by_name(const char *name);
/* Sets one limit of the context, for the calls that follow (an archive
   already open keeps the limits it was opened with). A value out of the
   limit's range, or an unknown id: NPYG_EINVAL, the context unchanged and
   npyg_last_error() naming the limit and its range. */
NPYG_API int npyg_set_limit(npyg_ctx *ctx, npyg_limit id, uint64_t value);
/* The context's value of a limit in *value: 0; NPYG_EINVAL, *value
   untouched, for an unknown id, a NULL context or a NULL value. */
NPYG_API int npyg_limit_value(const npyg_ctx *ctx, npyg_limit id, uint64_t *value);
/* The most the context can hold at once under its limits while it reads
   the formats in the NPYG_BOUND_* mask: the sum of their bounds
   (NPYG_BOUND_ALL: whatever it reads, a member's pickle scan inside an
   open archive included), never more than max_alloc_bytes, which every
   allocation is charged against. A caller may size a fixed pool by it. */
NPYG_API uint64_t npyg_ctx_worst_case_alloc(const npyg_ctx *ctx, unsigned formats);

/* ------------------------------------------------------------------ */
/* Input: set once on the context, then call a format.                 */
/*                                                                     */
/*     npyg_set_input_fd(ctx, fd);          // or _buffer, _read, _pread */
/*     int rc = npyg_validate(ctx);         // or npyg_open, npyg_ra_*, */
/*                                          // npyg_probe_input,        */
/*                                          // npyg_zip_open, npyg_pickle_scan* */
/*                                                                     */
/* Each format call reads the input set last, from where it stands    */
/* when the call begins, and leaves the result on the context for its  */
/* getter (npyg_get_info, npyg_get_ra_info, npyg_get_probe_info,       */
/* npyg_get_pickle_report) until the next call. A call forgets the     */
/* previous result. The input stays set for further calls; what the    */
/* buffer, descriptor or callback user points to must stay valid until */
/* the last call that reads it (for npyg_open and npyg_ra_open, until  */
/* their read step; for npyg_zip_open, until npyg_zip_close).          */
/*                                                                     */
/* Kinds, and the calls that take them: a buffer or a regular file, or */
/* a positional callback, is read at any offset with its size known;   */
/* a pipe, socket or FIFO, or a read callback, is read once, in order  */
/* (npyg_probe_input and npyg_zip_open refuse those with ENOTREG).     */
/* ------------------------------------------------------------------ */

/* Returns bytes read (0 at end of input) or -1 on error. Fewer than len
   is fine: it is called again for the rest. */
typedef long long (*npyg_read_fn)(void *user, void *buf, size_t len);

/* Reads len bytes at offset; returns bytes read (short only at the end
   of the input, or called again for the rest) or -1 on error. */
typedef long long (*npyg_pread_fn)(void *user, void *buf, size_t len, uint64_t offset);

/* A whole file in memory. NULL with len > 0: NPYG_EINVAL (here, and from
   the next call, which records why). */
NPYG_API int npyg_set_input_buffer(npyg_ctx *ctx, const void *buf, size_t len);

/* A descriptor, read from its current position when each call begins,
   in bounded chunks: a regular file with pread(2), its position left
   unchanged; a pipe, socket or FIFO with read(2). Never written or
   closed. A character device or a directory is refused by the call
   (NPYG_ENOTREG), a descriptor fstat(2) refuses with NPYG_EIO. fd < 0:
   NPYG_EINVAL here, NPYG_EIO from the call. */
NPYG_API int npyg_set_input_fd(npyg_ctx *ctx, int fd);

/* A stream: fn is called for the next bytes, in order. NULL fn:
   NPYG_EINVAL here and from the next call. */
NPYG_API int npyg_set_input_read(npyg_ctx *ctx, npyg_read_fn fn, void *user);

/* Random access to an input of size bytes: fn reads at an offset, never
   past size. NULL fn: NPYG_EINVAL here and from the next call. */
NPYG_API int npyg_set_input_pread(npyg_ctx *ctx, npyg_pread_fn fn, void *user, uint64_t size);

/* ------------------------------------------------------------------ */
/* .npy: one call, or two steps (below). All return 0 or an            */
/* npyg_status; details in npyg_last_error().                          */
/* ------------------------------------------------------------------ */

/* The whole .npy input: header, payload size (the payload goes to the
   sink, if one is set), trailing bytes. npyg_get_info then describes it. */
NPYG_API int npyg_validate(npyg_ctx *ctx);

/* Header only: buf holds at least the preamble and header of a .npy file
   (it may hold the whole file). The payload is not checked. */
NPYG_API int npyg_parse_header(npyg_ctx *ctx, const void *buf, size_t len);


/* Optional: every payload byte of the next validate call is passed here,
   in order, in chunks of at most 64 KiB (e.g. to hash it). A non-zero
   return stops validation with NPYG_EIO. NULL to unset. */
typedef int (*npyg_payload_fn)(void *user, const void *data, size_t len);
NPYG_API void npyg_set_payload_sink(npyg_ctx *ctx, npyg_payload_fn fn, void *user);

NPYG_API const npyg_error *npyg_last_error(const npyg_ctx *ctx);

/* ------------------------------------------------------------------ */
/* Loading in two steps, from one input: open parses and validates the */
/* header and reads nothing past it (npyg_get_info then describes the  */
/* array); npyg_read_payload reads the payload of that same input into */
/* the caller's buffer and checks its end, with the verdicts, codes and */
/* offsets of npyg_validate. The caller allocates payload_bytes only    */
/* once the header is known to be valid and within the limits.          */
/*                                                                     */
/*     npyg_set_input_fd(ctx, fd);                                     */
/*     if (npyg_open(ctx) == 0) {                                      */
/*         const npyg_info *in = npyg_get_info(ctx);                   */
/*         void *p = malloc(in->payload_bytes ? in->payload_bytes : 1);*/
/*         int rc = npyg_read_payload(ctx, p, in->payload_bytes);      */
/*     }                                                               */
/* ------------------------------------------------------------------ */

/* The input set last. When its size is known (a buffer, a regular file,
   a positional callback) a payload it cannot hold is refused here, with
   NPYG_ETRUNC_PAYLOAD, before anything is allocated for it. The buffer,
   descriptor or callback must stay valid until npyg_read_payload; a
   regular file is read with pread(2) and its position left unchanged (a
   payload within its first 4 KiB, read with the header, is not read
   again), a pipe or callback is read in order. */
NPYG_API int npyg_open(npyg_ctx *ctx);

/* Reads the payload of the input opened last into dst, which holds
   exactly size == npyg_get_info(ctx)->payload_bytes bytes (another size:
   NPYG_EINVAL, and the payload may still be read), then checks for
   truncation and trailing bytes. dst NULL: the payload goes to the sink
   only. The sink, if set, sees the payload too. Once per successful open:
   before one, after a failed one, or a second time, NPYG_EBADSTATE. On
   failure dst holds an unspecified part of the payload. */
NPYG_API int npyg_read_payload(npyg_ctx *ctx, void *dst, size_t size);

/* ------------------------------------------------------------------ */
/* Results: valid after a successful call, until the next one or       */
/* npyg_ctx_free. Names: what a context's last call found is           */
/* npyg_get_<what>(ctx) (npyg_get_info, npyg_get_ra_info,              */
/* npyg_get_probe_info, npyg_get_pickle_report), its error             */
/* npyg_last_error(ctx); a handle's parts are npyg_<handle>_<what>     */
/* (npyg_zip_member); a table's rows npyg_<table>_info (npyg_limit_info,*/
/* npyg_warning_info).                                                 */
/* ------------------------------------------------------------------ */
typedef enum npyg_kind {
    NPYG_KIND_BOOL = 'b',
    NPYG_KIND_INT = 'i',
    NPYG_KIND_UINT = 'u',
    NPYG_KIND_FLOAT = 'f',
    NPYG_KIND_COMPLEX = 'c',
    NPYG_KIND_BYTES = 'S',
    NPYG_KIND_STR = 'U',
    NPYG_KIND_VOID = 'V',
    NPYG_KIND_DATETIME = 'M',
    NPYG_KIND_TIMEDELTA = 'm',
    NPYG_KIND_OBJECT = 'O',    /* never in a successful result */
    NPYG_KIND_STRUCT = '{',    /* fields */
    NPYG_KIND_SUBARRAY = '['   /* base repeated over shape */
} npyg_kind;

typedef enum npyg_time_unit {
    NPYG_UNIT_GENERIC = 0,
    NPYG_UNIT_Y, NPYG_UNIT_M, NPYG_UNIT_W, NPYG_UNIT_D,
    NPYG_UNIT_h, NPYG_UNIT_m, NPYG_UNIT_s, NPYG_UNIT_ms, NPYG_UNIT_us,
    NPYG_UNIT_ns, NPYG_UNIT_ps, NPYG_UNIT_fs, NPYG_UNIT_as
} npyg_time_unit;

typedef struct npyg_dtype npyg_dtype;

typedef struct npyg_field {
    const char *name;      /* UTF-8, NUL-terminated; "" is a legal name */
    size_t name_len;
    const char *title;     /* NULL when the field has no title */
    size_t title_len;
    uint64_t offset;       /* bytes from the start of the record */
    const npyg_dtype *type;
} npyg_field;

struct npyg_dtype {
    npyg_kind kind;
    char byteorder;        /* '<' or '>' for multi-byte kinds, else '|' */
    uint64_t itemsize;     /* bytes, <= INT32_MAX */
    /* NPYG_KIND_DATETIME / NPYG_KIND_TIMEDELTA */
    npyg_time_unit unit;
    uint32_t unit_multiple; /* 10 in M8[10ms]; 1 when none is written */
    /* NPYG_KIND_SUBARRAY */
    const npyg_dtype *base;
    uint32_t sub_ndim;
    const uint64_t *sub_shape;
    /* NPYG_KIND_STRUCT: named fields in order; pads are not listed but
       their bytes count in offsets and itemsize */
    uint32_t nfields;
    const npyg_field *fields;
};

typedef struct npyg_info {
    int version_major, version_minor;
    uint32_t header_len;      /* HEADER_LEN: bytes of header text */
    uint64_t data_offset;     /* where the payload starts */
    const npyg_dtype *dtype;
    uint32_t ndim;
    const uint64_t *shape;    /* ndim entries */
    int fortran_order;        /* 0 or 1 */
    uint64_t count;           /* elements: product of shape (1 for ()) */
    uint64_t payload_bytes;   /* count * itemsize */
    uint64_t trailing_bytes;  /* after the payload (validate calls only) */
    unsigned warnings;        /* NPYG_W_* bits */
} npyg_info;

NPYG_API const npyg_info *npyg_get_info(const npyg_ctx *ctx);

/* descr written back the way numpy's writer spells it ('<f8',
   "[('a', '<i4'), ('b', '|S3', (2,))]"). Returns the length needed
   without the NUL, like snprintf; writes at most size bytes. */
NPYG_API size_t npyg_format_descr(const npyg_dtype *dtype, char *out, size_t size);

/* descr in the JSON form npyvalidate --json prints: a typestr ("<f8"), a
   subarray as [descr, shape], a structured type as a list of [name, descr]
   or [name, descr, shape] with a titled name as [title, name] and pads left
   out: numpy's dtype.descr without its ('', '|Vn') pads, tuples as lists.
   Names are JSON strings (controls and what str.isprintable() refuses as
   \u escapes); a dim above 2**53 is a string. Returns and writes as
   npyg_format_descr does. */
NPYG_API size_t npyg_format_descr_json(const npyg_dtype *dtype, char *out, size_t size);

/* ------------------------------------------------------------------ */
/* .npz archives                                                       */
/*                                                                     */
/* A zip container read strictly and within bounds: the end record     */
/* (zip64 included), the central directory and every local header are  */
/* read and cross-checked when the archive is opened; a member is       */
/* inflated in bounded chunks, its CRC-32 and sizes verified, and its   */
/* bytes validated as .npy by the same parser, profile and limits.      */
/*                                                                     */
/*     npyg_zip *z;                                                    */
/*     npyg_set_input_fd(ctx, fd);                                     */
/*     int rc = npyg_zip_open(ctx, NULL, &z);          // default limits */
/*     for (size_t i = 0; !rc && i < npyg_zip_count(z); i++) {         */
/*         const npyg_zip_entry *e = npyg_zip_member(z, i);            */
/*         int mrc = npyg_zip_validate_member(z, i);                   */
/*         ...  npyg_get_info(ctx) describes member i's array          */
/*     }                                                               */
/*     npyg_zip_close(z);                                              */
/*                                                                     */
/* Error offsets: npyg_error.offset_space says whether an offset is in */
/* the archive (the container, and zlib's own needs) or in the member's */
/* decompressed bytes (the .npy parse of the member).                   */
/* ------------------------------------------------------------------ */
/* Member warnings, in npyg_zip_entry.warnings after validation. */
enum npyg_zip_warning {
    NPYG_ZW_NOT_NPY_NAME = 1u << 0, /* name does not end in .npy */
    NPYG_ZW_NOT_NPY = 1u << 1,      /* no NPY magic: numpy returns the raw bytes */
    NPYG_ZW_NON_ASCII_NAME = 1u << 2 /* non-ASCII name without the UTF-8 flag (cp437) */
};


/* For zip_limits arguments (compatibility: NULL reads the context's). */
typedef struct npyg_zip_limits {
    uint32_t max_members;            /* entries in the central directory */
    uint32_t max_name_bytes;         /* bytes of one member name */
    uint64_t max_total_uncompressed; /* sum of the members' uncompressed sizes */
    uint64_t max_ratio;              /* uncompressed / compressed, per member... */
    uint64_t ratio_grace_bytes;      /* ...once its output exceeds this */
    /* Per archive: its deflated members may inflate to at most this many
       bytes plus max_ratio times the archive's size, in all. */
    uint64_t inflate_budget_bytes;
} npyg_zip_limits;

#define NPYG_DEFAULT_MAX_MEMBERS 4096u
#define NPYG_DEFAULT_MAX_NAME_BYTES 512u
#define NPYG_DEFAULT_MAX_TOTAL_UNCOMPRESSED (UINT64_C(1) << 40) /* 1 TiB, as max_payload_bytes */
/* A member may inflate up to 64 MiB whatever its ratio (an array of zeros
   deflates about 1000:1); past that, at most 100 bytes per compressed byte,
   so that a small file cannot stand for a huge array. */
#define NPYG_DEFAULT_MAX_RATIO 100u
#define NPYG_DEFAULT_RATIO_GRACE_BYTES (UINT64_C(64) << 20)
/* The grace above is per member, so n members of zeros could make n x 64
   MiB of work from a small file. The archive gets one grace in all: the
   same 64 MiB, plus max_ratio bytes per byte of the archive, which is what
   the ratio already allows each member for its own compressed bytes. */
#define NPYG_DEFAULT_INFLATE_BUDGET_BYTES (UINT64_C(64) << 20)
/* Caps: npyg_zip_open refuses limits above them (EINVAL). */
#define NPYG_MAX_MEMBERS_CAP 1000000u
#define NPYG_MAX_NAME_BYTES_CAP 65535u

NPYG_API void npyg_zip_limits_default(npyg_zip_limits *limits);

/* Everything a context allocates at once while it reads an archive
   under these limits (NULL zip limits: the defaults): the .npy parse,
   the directory table, the buffers and zlib's state. Never more than
   limits->max_alloc_bytes, which every allocation is charged against.
   Returns 0 for invalid limits. */
NPYG_API uint64_t npyg_zip_worst_case_alloc(const npyg_limits *limits,
                                            const npyg_zip_limits *zip_limits);

/* 1 when buf starts like a zip (PK\3\4 or PK\5\6), as numpy's np.load
   decides; 0 otherwise (len < 4 included). */
NPYG_API int npyg_is_zip(const void *buf, size_t len);

/* What a file is, from its first bytes: the one place that decides which
   validator reads it. NPYG_FORMAT_UNKNOWN goes to the .npy parser, whose
   magic check then says what is wrong. NPYG_SNIFF_BYTES first bytes are
   enough (fewer at the end of a short file). */
typedef enum npyg_format {
    NPYG_FORMAT_UNKNOWN = 0,
    NPYG_FORMAT_NPY = 1,
    NPYG_FORMAT_NPZ = 2,
    NPYG_FORMAT_RA = 3,         /* RawArray: starts with "rawarray" */
    NPYG_FORMAT_HDF5 = 4,       /* plain HDF5 (maybe behind a user block): npyg_probe_input only */
    NPYG_FORMAT_MAT73 = 5,      /* MAT v7.3: MAT header, then HDF5 at 512: npyg_probe_input only */
    NPYG_FORMAT_MAT5 = 6,       /* npyg_probe_input only, with NPYG_EMAT_V5 */
    NPYG_FORMAT_MAT4 = 7        /* npyg_probe_input only, with NPYG_EMAT_V4 */
} npyg_format;
#define NPYG_SNIFF_BYTES 8u
/* The leading-magic part of npyg_detect, for a stream whose first bytes
   the caller holds and cannot read twice: it sees no HDF5 superblock
   further in and no MAT header, so a caller that can seek asks
   npyg_detect instead. */
NPYG_API npyg_format npyg_sniff_format(const void *buf, size_t len);

typedef struct npyg_zip npyg_zip;

typedef struct npyg_zip_entry {
    const char *name;           /* as stored, NUL-terminated (no NUL inside) */
    size_t name_len;
    unsigned method;            /* 0 stored, 8 deflate */
    unsigned flags;             /* general-purpose bits */
    uint32_t crc32;
    uint64_t compressed_size;
    uint64_t uncompressed_size;
    uint64_t header_offset;     /* local header, from the start of the archive */
    uint64_t data_offset;       /* first byte of the (compressed) data */
    uint64_t end_offset;        /* one past the data (and data descriptor) */
    unsigned warnings;          /* NPYG_ZW_*; complete after validation */
} npyg_zip_entry;

/* Opens the archive the input set last holds, which needs random access:
   a buffer, a regular file (pread from its current position to its end;
   never written, moved or closed) or a positional callback; a stream is
   refused with NPYG_ENOTREG. The archive is a handle, not a result on the
   context: it has many members, each validated or loaded by its own call
   that leaves its result (npyg_get_info) on the context, while the
   handle keeps the directory and its own copy of the input (which must
   stay valid until npyg_zip_close). The context holds the errors, the
   allocator and the limits; it must outlive the handle and serve one
   archive at a time. zip_limits NULL: the context's
   limits (npyg_set_limit); a struct stands in for them in this call. On failure *out is
   NULL and nothing stays allocated. */
NPYG_API int npyg_zip_open(npyg_ctx *ctx, const npyg_zip_limits *zip_limits, npyg_zip **out);

/* Members in central-directory order. NULL when i is out of range. */
NPYG_API size_t npyg_zip_count(const npyg_zip *z);
NPYG_API const npyg_zip_entry *npyg_zip_member(const npyg_zip *z, size_t i);

/* Member i's name as Python's zipfile (and so numpy) decodes it, in UTF-8:
   as stored when flag bit 11 is set, else each byte as code page 437.
   Returns the length needed without the NUL, like snprintf, and writes at
   most size bytes; 0 and "" when i is out of range. */
NPYG_API size_t npyg_zip_member_name(const npyg_zip *z, size_t i, char *buf, size_t size);

/* Inflates member i, checks its sizes and CRC-32 and validates it as .npy
   (payload to the context's sink). 0: npyg_get_info(ctx) describes the
   array, or is NULL for a member that is not .npy (numpy profile only; see
   its warnings). Any member may be validated, in any order, again. */
NPYG_API int npyg_zip_validate_member(npyg_zip *z, size_t i);

/* The two-step load of member i: npyg_zip_open_member checks the
   member's limits and name and parses its .npy header (npyg_get_info then
   describes the array, or is NULL for a member that is not .npy, numpy
   profile only), inflating no more than the header needs;
   npyg_zip_read_member reads the payload into dst of exactly
   payload_bytes (for a member that is not .npy: its uncompressed_size raw
   bytes), inflating in bounded chunks, and checks the member's end, sizes
   and CRC-32 as npyg_zip_validate_member does. dst NULL: to the sink.
   Reading with no member open, or twice: NPYG_EBADSTATE. */
NPYG_API int npyg_zip_open_member(npyg_zip *z, size_t i);
NPYG_API int npyg_zip_read_member(npyg_zip *z, void *dst, size_t size);

NPYG_API void npyg_zip_close(npyg_zip *z); /* NULL is fine */


/* ------------------------------------------------------------------ */
/* RawArray (.ra)                                                      */
/*                                                                     */
/* A fixed little-endian header of u64 fields (magic "rawarray",       */
/* flags, eltype, elbyte, size, ndims, then ndims dims), the data      */
/* segment of `size` bytes, then optional metadata to the end of the    */
/* file. Column-major: dims[0] varies fastest. Flag bit 0: big-endian   */
/* data; bit 1: the data segment is one LZ4 block, decompressed here     */
/* (through the context's allocator, within max_alloc_bytes) and its    */
/* length checked. See parser/RA.md for every rule and its source.      */
/*                                                                     */
/*     npyg_set_input_fd(ctx, fd);                                     */
/*     int rc = npyg_ra_validate(ctx);                                 */
/*     const npyg_ra_info *ra = npyg_get_ra_info(ctx);  // NULL on error */
/*                                                                     */
/* Limits: max_dims (NPYG_ELIMIT_DIMS), max_payload_bytes against the   */
/* uncompressed data bytes (NPYG_ELIMIT_PAYLOAD), max_alloc_bytes       */
/* against what a decompression holds at once (NPYG_ELIMIT_ALLOC),      */
/* each refused before anything is allocated for it. The payload sink   */
/* receives the data segment as stored (compressed bytes for an LZ4     */
/* file), never the metadata.                                           */
/* ------------------------------------------------------------------ */

/* eltype codes */
enum npyg_ra_eltype {
    NPYG_RA_USER = 0, NPYG_RA_INT = 1, NPYG_RA_UINT = 2,
    NPYG_RA_FLOAT = 3, NPYG_RA_COMPLEX = 4, NPYG_RA_BOOL = 5
};

#define NPYG_RA_FLAG_BIG_ENDIAN UINT64_C(1)
#define NPYG_RA_FLAG_COMPRESSED UINT64_C(2)

typedef struct npyg_ra_info {
    uint64_t flags;           /* as stored (only bits 0 and 1 can be set) */
    uint64_t eltype;          /* an npyg_ra_eltype */
    uint64_t elbyte;          /* bytes per element */
    uint64_t size;            /* data segment bytes as stored (compressed length for LZ4) */
    uint32_t ndims;
    const uint64_t *dims;     /* ndims entries, dims[0] varies fastest */
    int big_endian;           /* flag bit 0 */
    int compressed;           /* flag bit 1 */
    uint64_t count;           /* elements: product of dims (1 for ndims 0) */
    uint64_t data_offset;     /* 48 + 8 * ndims */
    uint64_t data_bytes;      /* elbyte * count: the array once decompressed */
    uint64_t metadata_bytes;  /* after the data segment */
    unsigned warnings;        /* NPYG_W_LONGDOUBLE for float128 / complex256 */
} npyg_ra_info;

/* 1 when buf starts with the RawArray magic "rawarray"; 0 otherwise. */
NPYG_API int npyg_is_ra(const void *buf, size_t len);

/* The whole .ra input set last (every kind, as for .npy). */
NPYG_API int npyg_ra_validate(npyg_ctx *ctx);

/* After a successful npyg_ra_validate or npyg_ra_open, until the next
   call (npyg_ra_read_data failing ends it too); else NULL. */
NPYG_API const npyg_ra_info *npyg_get_ra_info(const npyg_ctx *ctx);

/* The element type as the reference readers name it: "int16", "uint8",
   "float32", "complex64", "bool", "user80" (kind and bits). Returns the
   length needed without the NUL, like snprintf. */
NPYG_API size_t npyg_ra_type_name(const npyg_ra_info *info, char *out, size_t size);

/* The most a context allocates at once while it validates a .ra file
   under these limits: the .npy bound (the context, the read buffer), the
   dims, and for an LZ4 file its compressed and decompressed bytes
   together (an LZ4 block decodes only as a whole). Never more than
   max_alloc_bytes. Returns 0 for invalid limits. */
NPYG_API uint64_t npyg_ra_worst_case_alloc(const npyg_limits *limits);

/* Loading a .ra file in two steps from one input, as npyg_open and
   npyg_read_payload load a .npy file. npyg_ra_open validates the header
   and reads nothing past it: npyg_get_ra_info then gives eltype, elbyte,
   the dims as stored (dims[0] fastest), big_endian, compressed and
   data_bytes. When the input's size is known, data that cannot be there
   is refused now, with the code and offset of npyg_ra_validate; for an
   LZ4 file from a descriptor or callback, the room to read its block
   whole (size bytes) is checked against max_alloc_bytes. The input must
   stay valid until npyg_ra_read_data.

       npyg_set_input_fd(ctx, fd);
       if (npyg_ra_open(ctx) == 0) {
           const npyg_ra_info *ra = npyg_get_ra_info(ctx);
           void *p = malloc(ra->data_bytes ? ra->data_bytes : 1);
           int rc = npyg_ra_read_data(ctx, p, ra->data_bytes);
       }

   npyg_ra_read_data fills dst, exactly size == data_bytes bytes (another
   size: NPYG_EINVAL, and the data may still be read), with the array's
   bytes in the file's order and byte order: the stored data, or an LZ4
   block decoded straight into dst by liblz4, which never writes past
   size. It then counts the metadata, as validation does. The sink, if
   set, sees the data segment as stored. dst NULL: npyg_ra_validate's
   data step, to the sink only. Once per successful open; before one,
   after a failed one or twice: NPYG_EBADSTATE. On failure dst holds an
   unspecified part of the data. npyg_ra_open reads the input set last. */
NPYG_API int npyg_ra_open(npyg_ctx *ctx);
NPYG_API int npyg_ra_read_data(npyg_ctx *ctx, void *dst, size_t size);
/* ------------------------------------------------------------------ */
/* HDF5 and MATLAB MAT files (codes 110-139)                           */
/*                                                                     */
/* npyguard recognises formats by content (npyg_probe_input): NPY, zip, */
/* HDF5 (superblock signature at 0, 512, 1024, 2048, ...) and MAT      */
/* files. It parses the 128-byte MAT header itself; MAT v7.3 is HDF5    */
/* behind a 512-byte user block that holds that header. MAT v5 and v4   */
/* are recognised and refused as unsupported.                          */
/*                                                                     */
/* The HDF5 structure is read by libhdf5 (optional at build time:      */
/* npyg_hdf5_available()) and, for variable-length data, by the walk's */
/* own parser of the global-heap collections; both only in a child     */
/* process: forked per file, with its address space, CPU time, file    */
/* size and descriptors limited (setrlimit), plugin loading off, and a  */
/* seccomp filter installed once the input is open that kills the child */
/* if it tries to open any file or run a program. External links,      */
/* external raw-data files and virtual datasets' sources are never     */
/* opened; raw data is read only for object and region references.     */
/* A crash, a limit or a hang of the child is the file's verdict        */
/* (NPYG_EHDF5_CRASH, NPYG_EHDF5_TIMEOUT), never the caller's crash.    */
/* ------------------------------------------------------------------ */

/* Warnings of the probe (npyg_probe_info.warnings). */
enum npyg_probe_warning {
    NPYG_PW_SUBSYS = 1u << 0,    /* MAT v7.3 subsystem offset neither zeros nor spaces */
    NPYG_PW_USERBLOCK = 1u << 1, /* bytes after the MAT header in the user block are not zero */
    NPYG_PW_MAT_TEXT = 1u << 2   /* MAT v7.3 text does not end "HDF5 schema 1.00 ." */
};

typedef struct npyg_probe_info {
    npyg_format format;
    uint64_t hdf5_offset;    /* HDF5 and MAT73: where the superblock is */
    /* MAT files (v5 and v7.3): the 128-byte header */
    char text[117];          /* descriptive text, NUL-terminated, trailing spaces dropped */
    uint64_t subsys_offset;  /* as stored, in the header's byte order */
    unsigned version;        /* 0x0200 (v7.3) or 0x0100 (v5) */
    char endian[3];          /* "IM" (little-endian writer) or "MI" */
    unsigned warnings;       /* NPYG_PW_* */
} npyg_probe_info;

/* Recognises the format of the input set last, which needs random
   access (a buffer, a regular file, a positional callback; else
   NPYG_ENOTREG). 0 with npyg_get_probe_info(ctx)->format NPY, ZIP, HDF5
   or MAT73 (a MAT v7.3 header validated), or UNKNOWN; NPYG_EMAT_V5 /
   NPYG_EMAT_V4 for older MAT files (the info says which); NPYG_EPOLYGLOT
   for an NPY, ZIP or RA file that also holds an HDF5 superblock signature
   where libhdf5 looks (info->hdf5_offset: where); NPYG_EMAT_HEADER for a
   MAT v7.3 header that is malformed or not followed by HDF5 at offset
   512. Reads at most 128 bytes plus 8 at each power of two from 512 up to
   the size. Allocates nothing. */
NPYG_API int npyg_probe_input(npyg_ctx *ctx);

/* Which format the input set last is, by its content: the one decision
   every entry point takes before it picks a reader (npyvalidate, the
   Python package, the conformance adapter), so that none loads what
   another refuses. It is npyg_probe_input's answer, with one more
   refusal: 0 with *format NPY, NPZ, RA, HDF5 or MAT73; NPYG_EPOLYGLOT,
   NPYG_EMAT_V5, NPYG_EMAT_V4, NPYG_EMAT_HEADER as npyg_probe_input
   (*format says what was seen); NPYG_EUNRECOGNIZED, *format UNKNOWN,
   for an input that is none of the formats (an empty one included);
   NPYG_ENOTREG for a stream, whose first bytes npyg_sniff_format reads
   instead. The readers refuse a polyglot of their own format as well
   (npyg_validate, npyg_open, npyg_ra_validate, npyg_ra_open and
   npyg_zip_open on an input that can seek), so a caller that skips
   this call cannot load one either. format may be NULL. Allocates
   nothing; npyg_get_probe_info describes the input afterwards. */
NPYG_API int npyg_detect(npyg_ctx *ctx, npyg_format *format);

/* The info of the last npyg_probe_input once it read the input: after 0,
   and after the refusals above, with what was seen (format, offsets, the
   MAT header); NULL before, after any other error, and after any other
   call. Owned by the context. */
NPYG_API const npyg_probe_info *npyg_get_probe_info(const npyg_ctx *ctx);


typedef struct npyg_hdf5_limits {
    uint32_t max_objects;      /* links, objects, attributes and references visited */
    uint32_t max_nesting;      /* group depth below the root */
    uint64_t child_memory;     /* what the child may map beyond the memory it starts
                                  with (RLIMIT_AS and RLIMIT_DATA over its start), bytes */
    uint32_t child_cpu_seconds; /* the child's CPU time (RLIMIT_CPU) */
    uint32_t child_wall_seconds; /* killed after this long, whatever it does */
    uint64_t max_paths;        /* objects a recursive reader visits, counted along every
                                  path of hard links, soft links and references */
    uint32_t max_ref_depth;    /* references followed one after another */
    uint64_t max_load_bytes;   /* bytes a load materialises in the caller, every value
                                  counted once per path and reference that reaches it,
                                  beyond NPYG_LOAD_BYTES_PER_BYTE per byte of the file */
} npyg_hdf5_limits;

#define NPYG_DEFAULT_MAX_OBJECTS 100000u
#define NPYG_DEFAULT_MAX_NESTING 32u
#define NPYG_DEFAULT_CHILD_MEMORY (UINT64_C(1) << 30)  /* 1 GiB */
#define NPYG_DEFAULT_CHILD_CPU_SECONDS 20u
#define NPYG_DEFAULT_CHILD_WALL_SECONDS 60u
/* hdf5storage.read visits some 2000 objects per second of CPU (a DAG of
   links with 32767 paths took it 15.6 s): 20000 visits keep a reader
   within seconds. A tree has one path per object. */
#define NPYG_DEFAULT_MAX_PATHS UINT64_C(20000)
/* hdf5storage follows a cell's references by recursion, three Python
   frames a level: a chain of 330 cells ends it in RecursionError (Python's
   limit of 1000; 250 still read). MATLAB's own cells nest a few deep. */
#define NPYG_DEFAULT_MAX_REF_DEPTH 32u
/* What a load may make the caller hold: max_load_bytes plus 100 bytes
   per byte of the file (a large file holds large values; a small one
   that inflates or names one dataset through many links or references
   gets the fixed part only, as an archive's inflation budget does). A
   file whose hard links or references name one large dataset many times
   is refused before the copies are made (hdf5storage makes one per
   reference). */
#define NPYG_DEFAULT_MAX_LOAD_BYTES (UINT64_C(64) << 20)  /* 64 MiB */
#define NPYG_LOAD_BYTES_PER_BYTE 100u
#define NPYG_MAX_REF_DEPTH_CAP 10000u
#define NPYG_MAX_OBJECTS_CAP 10000000u
#define NPYG_MAX_NESTING_CAP 256u

NPYG_API void npyg_hdf5_limits_default(npyg_hdf5_limits *limits);

/* 1 when this build has the HDF5 scan and its helper program is found
   and executable, else 0. Whether libhdf5 then loads is known only when
   the helper starts (NPYG_EHDF5_UNAVAILABLE, naming the package). */
NPYG_API int npyg_hdf5_available(void);

/* Warnings of one object (npyg_hdf5_object.warnings). */
enum npyg_hdf5_warning {
    NPYG_HW_FORMAT = 1u << 0    /* hdf5storage attributes wrong or inconsistent */
};

/* What an object of the file is: one vocabulary for the scan's objects
   and the load's items. */
typedef enum npyg_hdf5_kind {
    NPYG_HDF5_FILE = 1,  /* the file as a whole (a refusal before the walk) */
    NPYG_HDF5_GROUP,
    NPYG_HDF5_DATASET,
    NPYG_HDF5_DATATYPE,  /* a committed (named) datatype */
    NPYG_HDF5_ATTRIBUTE,
    NPYG_HDF5_LINK       /* a soft, external or user-defined link, or a hard
                            link to an object already reported */
} npyg_hdf5_kind;

/* The kind's name as tools print it: "file", "group", "dataset",
   "datatype", "attribute", "link"; NULL for a value that is not one. */
NPYG_API const char *npyg_hdf5_kind_name(npyg_hdf5_kind kind);

/* One object (or link) of the file, as the scan reports it. Strings are
   NUL-terminated and printable (control bytes escaped as \xNN); they live
   until the callback returns. */
typedef struct npyg_hdf5_object {
    const char *path;      /* "/a/b"; an attribute is "/a@name" */
    npyg_hdf5_kind kind;
    const char *type;      /* "float64", "int32", "complex128", "bytes5", "object reference", ... */
    uint32_t ndim;         /* datasets: HDF5's dims (C order, as stored) */
    const uint64_t *shape;
    int code;              /* 0, or the hazard / limit / error code */
    unsigned warnings;     /* NPYG_HW_* */
    const char *message;   /* why, for a code or a warning; "" otherwise */
} npyg_hdf5_object;

/* Return non-zero to stop the scan (it then returns NPYG_EIO). */
typedef int (*npyg_hdf5_object_fn)(void *user, const npyg_hdf5_object *obj);

/* Scans the HDF5 file the input set last holds (npyg_set_input_fd: a
   regular file's descriptor, at its first byte, which the sandboxed child
   maps; never written, moved or closed; any other input is refused with
   NPYG_ENOTREG) in a sandboxed child and reports every object to fn (may be
   NULL). The whole file is walked even after a hazard. Returns 0 when it
   holds no hazard, else the first hazard's code, also in
   npyg_last_error() with its object path in the message ("/x: external
   link to 'b.h5:/y'"); NPYG_EHDF5_FORMAT only under the strict profile
   (a warning otherwise). limits NULL: the context's (npyg_set_limit). The context's
   max_payload_bytes bounds each dataset's and attribute's declared size.
   In this process the scan allocates npyg_hdf5_worst_case_alloc() bytes
   at most, through the context's allocator; the child's memory is bounded
   by limits->child_memory instead. */
NPYG_API int npyg_hdf5_scan(npyg_ctx *ctx, const npyg_hdf5_limits *limits, npyg_hdf5_object_fn fn,
                            void *user);

/* Loading: the values themselves, read by libhdf5 in the same caged
 * child, after a walk that found no hazard. The child sends every path
 * reached from the root by links (an object reached by two hard links is
 * sent twice, once per path; soft links are not followed) and every
 * attribute; each value comes as .npy bytes that this process validates
 * with npyguard's own parser under the context's limits
 * (max_header_bytes, max_dims, max_payload_bytes, ...) before the sink is
 * asked for a buffer of exactly the validated size, which the library
 * then fills straight from the pipe. Nothing is unpickled or evaluated;
 * a value that disagrees with its record is NPYG_EHDF5_PROTOCOL naming
 * the object path, one past the context's parser limits that limit's
 * code (NPYG_ELIMIT_HEADER ... _PAYLOAD). limits->child_wall_seconds
 * bounds the whole load, the sink's own time included.
 *
 * Values follow h5py's ds[()] (byte order as stored, fixed strings
 * null-padded, h5py's FALSE/TRUE enum as bool, its ('r', 'i') compounds
 * as complex, other enums as their base integer), except forms "str"
 * (variable-length strings), "ref" (object references, as the path
 * libhdf5 names; "" for a null reference) and "vlen" (variable-length
 * sequences), which come as two values: 0, the lengths ('<u8', the
 * value's shape, in elements of the data); 1, the data end to end (1-d,
 * '|u1' for str and ref, the base type for vlen), as many elements as
 * the lengths sum (checked here). A null dataspace (null_space) comes as
 * one value of shape (0,) that carries the dtype only ('|u1' for the
 * three forms above). Types npyguard does not load (arrays, region
 * references, compounds with padding, ...) end the load with
 * NPYG_EHDF5_OBJECT and the path. */
typedef struct npyg_hdf5_item {
    const char *path;      /* "/a/b": the bytes of the link names, unescaped */
    npyg_hdf5_kind kind;   /* GROUP, LINK (a soft link), DATASET or ATTRIBUTE */
    const char *name;      /* attribute: its name; else NULL */
    const char *target;    /* a soft link: the path it holds; else NULL */
    const char *form;      /* dataset, attribute: "array", "str", "ref", "vlen"; else NULL */
    const char *cset;      /* string types: "ascii" or "utf-8"; else NULL */
    int null_space;        /* 1: a null dataspace (h5py.Empty) */
    unsigned nvalues;      /* values that follow: 0, 1 or 2 */
} npyg_hdf5_item;

typedef struct npyg_hdf5_sink {
    /* Each record in order: a group before what it holds, an object's
       attributes right after it. Strings live until the next call.
       Non-zero: stop (the load returns NPYG_EIO). */
    int (*object)(void *user, const npyg_hdf5_item *item);
    /* Value index (0 or 1) of the last item, its header validated: set
       *buf to info->payload_bytes bytes the library fills (NULL allowed
       only for 0 bytes). Non-zero, or no buffer: stop. */
    int (*value)(void *user, unsigned index, const npyg_info *info, void **buf);
    /* Once, last: rc 0 when every record and value arrived, else the
       load's code: drop everything received (no partial result). */
    void (*end)(void *user, int rc);
    void *user;
} npyg_hdf5_sink;

/* Loads the HDF5 file set as the input (npyg_set_input_fd) as
   npyg_hdf5_scan scans it (the same checks, limits and verdicts; a file
   with a hazard loads nothing), then
   hands every record and value to sink (limits NULL: the context's,
   npyg_set_limit). Returns 0 or a code, as
   sink->end is told. Besides the scan's buffer this process allocates
   one .npy header buffer (max_header_bytes + 12, at most 64 KiB + 12)
   and what npyg_parse_header needs, through the context's allocator;
   the values' memory is the sink's. A child that dies or is killed
   mid-value ends the load with NPYG_EHDF5_CRASH (or _TIMEOUT) naming
   the object it was sending. */
NPYG_API int npyg_hdf5_load(npyg_ctx *ctx, const npyg_hdf5_limits *limits, const npyg_hdf5_sink *sink);

/* The scan's sandbox. Each context starts one helper process on its
   first HDF5 file (npyg-hdf5-helper, which alone loads libhdf5) and
   ends it in npyg_ctx_free; the helper forks a fresh child per file,
   caged before it reads a byte. The helper is found at the absolute path
   set here (NULL: the default), else $NPYG_HDF5_HELPER, else next to the
   library (or the program it is linked into), else in
   LIBEXECDIR/npyguard. Setting it ends a running helper. */
NPYG_API int npyg_hdf5_set_helper(npyg_ctx *ctx, const char *path);

/* While a scan or load waits for its child, fn(user) is called at least
   every NPYG_HDF5_INTERRUPT_MS and whenever a signal cuts the wait short
   (EINTR): non-zero ends the wait at once, the helper and its child
   killed (the next file starts a fresh helper), and the call returns
   NPYG_EIO, "interrupted". A binding polls its own interrupts here (the
   Python package: Ctrl-C). NULL fn: none (the default). */
#define NPYG_HDF5_INTERRUPT_MS 20
NPYG_API int npyg_hdf5_set_interrupt(npyg_ctx *ctx, int (*fn)(void *user), void *user);

/* Starts the context's helper if it is not running and writes which cage
   layers are in force for every file, e.g. "seccomp allow-list, landlock
   abi 4, user+net namespaces". A scan refuses to run (NPYG_EHDF5_SANDBOX)
   where the seccomp allow list cannot be installed. */
NPYG_API int npyg_hdf5_sandbox_info(npyg_ctx *ctx, char *out, size_t size);

/* What a context allocates in the calling process while it scans (itself
   and one 2 KiB record buffer), whatever the file; 0 for invalid limits. */
NPYG_API uint64_t npyg_hdf5_worst_case_alloc(const npyg_limits *limits,
                                             const npyg_hdf5_limits *hdf5_limits);
/* ------------------------------------------------------------------ */
/* Pickles: what an object array's payload would import                */
/*                                                                     */
/* An object array's payload is a pickle, and loading a pickle calls   */
/* whatever it names. The scanner says what that is without loading    */
/* it: a bounded walk of the opcodes of protocols 0-5 that tracks the   */
/* stack and the memo only as far as naming needs (which values are     */
/* strings, which are imported objects, which are results of calls),    */
/* and lists every GLOBAL, STACK_GLOBAL, INST, OBJ and EXT import with   */
/* how the pickle uses it. Nothing is imported, called or built.        */
/*                                                                     */
/*     npyg_set_input_fd(ctx, fd);                                     */
/*     int rc = npyg_validate(ctx);                                    */
/*     if (rc == NPYG_EOBJECT) {                                       */
/*         npyg_pickle_scan_npy(ctx, NULL);             // NULL: context */
/*         const npyg_pickle_report *r = npyg_get_pickle_report(ctx);  */
/*         char names[256];                                            */
/*         if (r) npyg_pickle_format_imports(r, names, sizeof names);  */
/*     }                                                               */
/*                                                                     */
/* The scan stops at STOP, as pickle.load does; bytes after it are not  */
/* read. What it does not check: the text of INT, LONG and FLOAT        */
/* arguments, the UTF-8 of strings and frame boundaries (a loader        */
/* refuses those before it calls anything, so no import is missed).     */
/* ------------------------------------------------------------------ */

typedef struct npyg_pickle_limits {
    uint64_t max_bytes;         /* pickle bytes read, up to STOP */
    uint64_t max_ops;           /* opcodes */
    uint32_t max_memo;          /* memo indices 0 .. max_memo-1 (pickle.dump numbers them densely) */
    uint32_t max_stack;         /* stack items plus open marks */
    uint32_t max_string_bytes;  /* short identifier-like strings kept because they may name an import */
    uint32_t max_imports;       /* distinct imports reported */
} npyg_pickle_limits;

#define NPYG_DEFAULT_PICKLE_MAX_BYTES (UINT64_C(1) << 40) /* as max_payload_bytes */
#define NPYG_DEFAULT_PICKLE_MAX_OPS (UINT64_C(1) << 32)
#define NPYG_DEFAULT_PICKLE_MAX_MEMO (1u << 18)
#define NPYG_DEFAULT_PICKLE_MAX_STACK (1u << 16)
#define NPYG_DEFAULT_PICKLE_MAX_STRING_BYTES (1u << 20)
#define NPYG_DEFAULT_PICKLE_MAX_IMPORTS 1024u
/* Caps: a scan refuses limits above them (EINVAL). */
#define NPYG_PICKLE_MAX_MEMO_CAP (1u << 26)
#define NPYG_PICKLE_MAX_STACK_CAP (1u << 26)
#define NPYG_PICKLE_MAX_STRING_BYTES_CAP (1u << 28)
#define NPYG_PICKLE_MAX_IMPORTS_CAP (1u << 20)
/* A module or attribute name longer than this is not kept: a GLOBAL or
   INST name is cut (NPYG_PI_TRUNCATED), a STACK_GLOBAL one is unresolved. */
#define NPYG_PICKLE_NAME_MAX 255u

NPYG_API void npyg_pickle_limits_default(npyg_pickle_limits *limits);

/* The most a scan allocates beyond what the context already holds,
   report included (NULL: the defaults). Every allocation is also charged
   against the context's max_alloc_bytes. 0 for invalid limits. */
NPYG_API uint64_t npyg_pickle_worst_case_alloc(const npyg_pickle_limits *limits);

/* How the pickle uses one import (npyg_pickle_import.flags). */
enum npyg_pickle_use {
    NPYG_PI_REDUCE = 1u << 0,     /* called by REDUCE: callable(*args) */
    NPYG_PI_NEWOBJ = 1u << 1,     /* cls.__new__(cls, ...) by NEWOBJ / NEWOBJ_EX */
    NPYG_PI_INST = 1u << 2,       /* named and called by INST */
    NPYG_PI_OBJ = 1u << 3,        /* called by OBJ */
    NPYG_PI_BUILD = 1u << 4,      /* BUILD gives state to it or to what calling it returned (__setstate__) */
    NPYG_PI_EXT = 1u << 5,        /* named by an extension code (EXT1/2/4): module and name are "" */
    NPYG_PI_UNRESOLVED = 1u << 6, /* STACK_GLOBAL on values the scan cannot name: "?" stands for them */
    NPYG_PI_TRUNCATED = 1u << 7   /* a GLOBAL/INST name longer than NPYG_PICKLE_NAME_MAX, cut there */
};
#define NPYG_PI_CALLED (NPYG_PI_REDUCE | NPYG_PI_NEWOBJ | NPYG_PI_INST | NPYG_PI_OBJ)

/* Whole-pickle facts (npyg_pickle_report.flags). */
enum npyg_pickle_fact {
    NPYG_PR_INDIRECT_CALL = 1u << 0, /* calls a value some call returned: not nameable statically */
    NPYG_PR_PERSID = 1u << 1,        /* persistent ids: the loader's persistent_load is called */
    NPYG_PR_BUFFERS = 1u << 2        /* out-of-band buffers (NEXT_BUFFER) */
};

typedef struct npyg_pickle_import {
    const char *module;   /* bytes as the pickle spells them, NUL-terminated */
    size_t module_len;
    const char *name;     /* the attribute, dotted for nested ones (protocol 4) */
    size_t name_len;
    unsigned flags;       /* NPYG_PI_* */
    uint32_t refs;        /* how many opcodes name it */
    uint64_t offset;      /* the first of them, as error offsets count */
    int32_t ext_code;     /* NPYG_PI_EXT: the code; else 0 */
} npyg_pickle_import;

typedef struct npyg_pickle_report {
    int status;           /* 0, or the code the scan stopped with: then the
                             imports are those before the fault */
    int protocol;         /* the last PROTO argument; 0 without one */
    uint64_t length;      /* bytes scanned, STOP included when complete */
    uint64_t opcodes;
    unsigned flags;       /* NPYG_PR_* */
    uint32_t nimports;
    const npyg_pickle_import *imports; /* distinct, in order of first use */
} npyg_pickle_report;

/* Scans the input set last as a pickle (the whole input is the pickle),
   or (npyg_pickle_scan_npy) as a whole .npy file whose payload is one: the
   preamble and header are skipped (header length held to the context's
   max_header_bytes) and the payload, from the data offset, is scanned;
   offsets are in the file. The latter is for a file npyg_validate refused
   with NPYG_EOBJECT, and keeps that call's result: only the previous
   error and report are forgotten. A descriptor is read as npyg_validate
   reads it. limits NULL: the context's
    (npyg_set_limit); a struct stands in for them in this call.

   Returns 0 or an error code (npyg_last_error: offset and message).
   npyg_get_pickle_report then gives the report whenever one could be
   made, also after a malformed pickle, a limit or a read error (its
   status says which), and NULL otherwise: EINVAL, and ENOMEM or
   ELIMIT_ALLOC when memory ran out or max_alloc_bytes was reached, in the
   walk or for the report itself (which then wins over what ended the
   walk). The report is the context's, counted in what it holds, until
   the next call. */
NPYG_API int npyg_pickle_scan(npyg_ctx *ctx, const npyg_pickle_limits *limits);
NPYG_API int npyg_pickle_scan_npy(npyg_ctx *ctx, const npyg_pickle_limits *limits);
NPYG_API const npyg_pickle_report *npyg_get_pickle_report(const npyg_ctx *ctx);

/* Frees a report handed to the caller (npyg_zip_scan_member_pickle),
   before the context it came from. NULL is fine. */
NPYG_API void npyg_pickle_report_free(npyg_ctx *ctx, npyg_pickle_report *report);

/* "os.system, builtins.eval": the imports in order of first use, each
   module.name (an unresolvable part as "?", an extension as "ext:CODE"),
   with every byte outside printable ASCII as \xNN so the text is safe on a
   terminal. Returns the length needed without the NUL, like snprintf. */
NPYG_API size_t npyg_pickle_format_imports(const npyg_pickle_report *report, char *out, size_t size);

/* Member i as a pickle scan (npyg_pickle_scan_npy on its inflated
   bytes), for a member npyg_zip_validate_member refused with NPYG_EOBJECT;
   the report is handed to the caller (*out; NULL when there is none),
   who frees it with npyg_pickle_report_free. out NULL: NPYG_EINVAL. */
NPYG_API int npyg_zip_scan_member_pickle(npyg_zip *z, size_t i, const npyg_pickle_limits *limits,
                                         npyg_pickle_report **out);

#ifdef __cplusplus
}
#endif

/* The forms of 0.1 and 0.2 (npyg_validate_buffer, npyg_ra_get_info and
   the like), deprecated: only for code that defines NPYG_COMPAT (or
   NPYG_COMPAT_INPUT_FORMS) before including this. */
#if defined(NPYG_COMPAT) || defined(NPYG_COMPAT_INPUT_FORMS)
#include "npyguard_compat.h"
#endif
#endif /* NPYGUARD_H */
