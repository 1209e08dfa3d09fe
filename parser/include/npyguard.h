/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * npyguard: a strict, allocation-bounded validating parser and loader for
 * .npy, .npz, RawArray .ra, HDF5 and MATLAB v7.3 files. The only public
 * header: a reference. The manual, with examples: docs/c-library.md.
 */
#ifndef NPYGUARD_H
#define NPYGUARD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* NPYG_API marks the exported functions (hidden by default otherwise);
   NPYG_STATIC: linking the static library. */
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

/* ---- Versions and ABI -------------------------------------------------
   docs/c-library.md#abi-and-versions */

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

/* The running library's version, "MAJOR.MINOR.PATCH".
   Returns: a static string. NPYG_VERSION_STRING is the one of the header
   a program was compiled with. */
NPYG_API const char *npyg_version_string(void);
/* The running library's version as a number, as NPYG_VERSION_NUMBER.
   Returns: MAJOR * 1000000 + MINOR * 1000 + PATCH. NPYG_VERSION_NUMBER is
   the one of the header a program was compiled with. */
NPYG_API long npyg_version_number(void);

/* Whether this library serves a program compiled with the npyguard.h of
   version built. The dynamic linker refuses a library of another ABI; a
   program linked statically or loading the library by other means asks
   at its start: if (!npyg_version_compatible(NPYG_VERSION_NUMBER)) refuse();
   built: the program's NPYG_VERSION_NUMBER.
   Returns: 1 for the same ABI generation (SONAME) and a library at least
   as new; 0 otherwise. */
NPYG_API int npyg_version_compatible(long built);

/* ---- Error codes ------------------------------------------------------
   Stable: a code is never renumbered or reused; the ranges leave room for
   new codes next to their relatives. Table: docs/errors.md */

/* Every result code: 0 is success, the rest an npyg_status. */
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

/* A short static description of a code ("header is not a dict").
   Returns: a static string; "unknown error code" for a value that is none. */
NPYG_API const char *npyg_strerror(int code);
/* The stable symbolic name of a code ("NPYG_ENOTDICT").
   Returns: a static string; "?" for an unknown code. */
NPYG_API const char *npyg_error_name(int code);
/* The class printed in diagnostics: "ok", "usage", "io", "magic",
   "header", "shape", "descr", "unsafe", "payload", "strict", "limit",
   "zip", "ra", "unsupported", "mat", "hdf5", "pickle".
   Returns: a static string; ? for an unknown code. */
NPYG_API const char *npyg_error_class(int code);

/* What an error's offset counts from (npyg_error.offset_space). */
typedef enum npyg_offset_space {
    NPYG_OFFSET_FILE = 0,    /* the .npy input (a file, buffer or stream) */
    NPYG_OFFSET_ARCHIVE = 1, /* the .npz archive's bytes as stored */
    NPYG_OFFSET_MEMBER = 2   /* the decompressed bytes of the member being validated */
} npyg_offset_space;

/* The name of an offset space: "file", "archive", "member".
   Returns: a static string; "?" for anything else. */
NPYG_API const char *npyg_offset_space_name(int space);

/* Whether a code blames the environment (I/O, memory, the kind of file)
   rather than the bytes read. Tools map it to their exit status.
   Returns: 1 for such a code; 0 for NPYG_OK and every other code. */
NPYG_API int npyg_error_is_environment(int code);

/* The error of a context's last call (npyg_last_error). */
typedef struct npyg_error {
    int code;            /* an npyg_status */
    uint64_t offset;     /* byte offset of the fault, in offset_space */
    char message[200];   /* one line, no trailing newline */
    int offset_space;    /* an npyg_offset_space */
} npyg_error;

/* ---- Warnings ---------------------------------------------------------
   Accepted, but worth knowing: bits in a result's warnings.
   docs/c-library.md#errors-and-warnings */

/* .npy warnings (npyg_info.warnings, npyg_ra_info.warnings). */
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

/* One warning bit's name and description (npyg_warning_info). */
typedef struct npyg_warning_desc {
    unsigned bit;
    const char *name; /* stable, as tools print it: "trailing_bytes" */
    const char *text; /* one line: "bytes after the payload" */
} npyg_warning_desc;

/* One warning bit of a set, by its name and description: the one call
   that names warnings, of every set.
   Returns: a static row; NULL for a bit that is not one of the set's (or
   more than one bit). */
NPYG_API const npyg_warning_desc *npyg_warning_info(npyg_warning_set set, unsigned bit);

/* ---- Allocator and the .npy limits struct -----------------------------
   docs/c-library.md#contexts-and-limits */

/* A caller's allocator, given to npyg_ctx_new: every allocation of the
   context goes through it. free receives the size as allocated; user is
   passed to both. */
typedef struct npyg_alloc {
    void *(*malloc)(void *user, size_t size);
    void (*free)(void *user, void *ptr, size_t size); /* size as allocated */
    void *user;
} npyg_alloc;

/* The .npy limits as a struct. The limits structs (npyg_limits,
   npyg_zip_limits, npyg_pickle_limits, npyg_hdf5_limits), their *_default
   functions and the per-call struct arguments are kept for 0.x
   compatibility and go in 0.3: set limits on the context (npyg_set_limit).
   Their defaults and ranges are the table's (npyg_limit_info); a struct
   out of range is refused as a whole, where npyg_set_limit names the
   limit. */
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

/* Fills *limits with the defaults (NPYG_DEFAULT_*).
   limits: NULL does nothing. */
NPYG_API void npyg_limits_default(npyg_limits *limits);

/* The most the parser can allocate in total, at any moment, under these
   limits: never more than max_alloc_bytes, and usually much less. A caller
   may size a fixed pool by it. Of a context:
   npyg_ctx_worst_case_alloc(ctx, NPYG_BOUND_NPY).
   Returns: bytes; 0 for invalid limits. */
NPYG_API uint64_t npyg_worst_case_alloc(const npyg_limits *limits);

/* ---- Context ----------------------------------------------------------
   Profile, allocator, limits, input, last result; one thread at a time.
   docs/c-library.md#contexts-and-limits */

/* What a context accepts. */
typedef enum npyg_profile {
    NPYG_PROFILE_NUMPY = 0,  /* accept what numpy.load(allow_pickle=False) accepts */
    NPYG_PROFILE_STRICT = 1  /* only what numpy's own writer emits */
} npyg_profile;

/* npyg_ctx_new's settings. */
typedef struct npyg_options {
    npyg_profile profile;
    const npyg_limits *limits;  /* NULL: the defaults; or npyg_set_limit after */
    const npyg_alloc *alloc;    /* NULL: malloc/free */
    unsigned flags;             /* no flags are defined yet; must be 0 */
} npyg_options;

/* A context, opaque. Contexts are independent of each other. */
typedef struct npyg_ctx npyg_ctx;

/* A new context.
   options: NULL for the numpy profile, default limits, malloc; flags must
   be 0 (an unknown bit is refused, so a program built for a newer library
   fails here, not later); limits above the caps are refused.
   Returns: the context; NULL when the options are invalid or memory runs
   out.
   Owns: the caller, who frees it with npyg_ctx_free. Every allocation of
   the context goes through its allocator, and the total never exceeds
   npyg_ctx_worst_case_alloc() of its limits. */
NPYG_API npyg_ctx *npyg_ctx_new(const npyg_options *options);
/* Frees the context and what it holds, and ends its HDF5 helper if one
   runs.
   ctx: NULL is fine. */
NPYG_API void npyg_ctx_free(npyg_ctx *ctx); /* NULL is fine */

/* ---- Limits -----------------------------------------------------------
   One set per context, every format's, each set and read by its id.
   docs/c-library.md#limits */

/* The ids of the limits, by format; npyg_limit_info gives each one's
   name, option, default and range. */
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

/* One row of the library's table of limits, from which npyvalidate's
   options, the Python keywords and the documents are made. */
typedef struct npyg_limit_desc {
    const char *name;       /* "max_alloc_bytes": the Python keyword */
    const char *option;     /* "max-alloc": npyvalidate's --max-alloc */
    const char *format;     /* whose limit: "npy" (shared by all), "npz", "pickle", "hdf5" */
    const char *summary;    /* what it bounds, one line */
    uint64_t default_value;
    uint64_t min, max;      /* npyg_set_limit accepts min..max */
    unsigned bounds;        /* NPYG_BOUND_* */
} npyg_limit_desc;

/* The table's row of a limit.
   Returns: a static row; NULL for an id out of range. */
NPYG_API const npyg_limit_desc *npyg_limit_info(npyg_limit id);
/* The id of a limit by its name or its option.
   name: "max_alloc_bytes" or "max-alloc" (without the dashes in front).
   Returns: the id; -1 for neither. */
NPYG_API int npyg_limit_by_name(const char *name);
/* Sets one limit of the context, for the calls that follow (an archive
   already open keeps the limits it was opened with).
   Returns: 0 or NPYG_EINVAL.
   Errors: NPYG_EINVAL for a value out of the limit's range or an unknown
   id: the context unchanged and npyg_last_error() naming the limit and
   its range. */
NPYG_API int npyg_set_limit(npyg_ctx *ctx, npyg_limit id, uint64_t value);
/* The context's value of a limit.
   value: receives it.
   Returns: 0; NPYG_EINVAL, *value untouched, for an unknown id, a NULL
   context or a NULL value. */
NPYG_API int npyg_limit_value(const npyg_ctx *ctx, npyg_limit id, uint64_t *value);
/* The most the context can hold at once under its limits while it reads
   the formats of a mask. A caller may size a fixed pool by it.
   formats: NPYG_BOUND_* bits; NPYG_BOUND_ALL for whatever it reads, a
   member's pickle scan inside an open archive included.
   Returns: the sum of their bounds, never more than max_alloc_bytes,
   which every allocation is charged against. */
NPYG_API uint64_t npyg_ctx_worst_case_alloc(const npyg_ctx *ctx, unsigned formats);

/* ---- Input ------------------------------------------------------------
   Set once on the context, then call a format; it stays set.
   docs/c-library.md#input */

/* A stream callback (npyg_set_input_read): reads up to len bytes into buf.
   Returns: bytes read (0 at end of input) or -1 on error. Fewer than len
   is fine: it is called again for the rest. */
typedef long long (*npyg_read_fn)(void *user, void *buf, size_t len);

/* A positional callback (npyg_set_input_pread): reads len bytes at offset.
   Returns: bytes read (short only at the end of the input, or called
   again for the rest) or -1 on error. */
typedef long long (*npyg_pread_fn)(void *user, void *buf, size_t len, uint64_t offset);

/* Sets a whole file in memory as the input (read at any offset, its size
   known).
   Returns: 0 or NPYG_EINVAL.
   Owns: the caller's bytes, not copied: valid until the last call that
   reads them.
   Errors: NULL buf with len > 0: NPYG_EINVAL here, and from the next
   call, which records why. */
NPYG_API int npyg_set_input_buffer(npyg_ctx *ctx, const void *buf, size_t len);

/* Sets a descriptor as the input, read from its current position when
   each call begins, in bounded chunks: a regular file with pread(2), its
   position left unchanged (read at any offset, its size known); a pipe,
   socket or FIFO with read(2) (read once, in order).
   fd: never written or closed; open until the last call that reads it.
   Returns: 0 or NPYG_EINVAL.
   Errors: fd < 0: NPYG_EINVAL here, NPYG_EIO from the call. A character
   device or a directory is refused by the call (NPYG_ENOTREG), a
   descriptor fstat(2) refuses with NPYG_EIO. */
NPYG_API int npyg_set_input_fd(npyg_ctx *ctx, int fd);

/* Sets a stream as the input: fn is called for the next bytes, in order
   (read once; npyg_probe_input and npyg_zip_open refuse it with
   NPYG_ENOTREG).
   Returns: 0 or NPYG_EINVAL.
   Owns: what user points to stays the caller's, valid until the last call
   that reads it.
   Errors: NULL fn: NPYG_EINVAL here and from the next call. */
NPYG_API int npyg_set_input_read(npyg_ctx *ctx, npyg_read_fn fn, void *user);

/* Sets random access to an input of size bytes as the input: fn reads at
   an offset, never past size.
   Returns: 0 or NPYG_EINVAL.
   Owns: what user points to stays the caller's, valid until the last call
   that reads it.
   Errors: NULL fn: NPYG_EINVAL here and from the next call. */
NPYG_API int npyg_set_input_pread(npyg_ctx *ctx, npyg_pread_fn fn, void *user, uint64_t size);

/* ---- .npy files -------------------------------------------------------
   One call, or two steps (npyg_open, npyg_read_payload); all return 0 or
   an npyg_status. docs/c-library.md#npy-files */

/* Validates the whole .npy input set last: header, payload size (the
   payload goes to the sink, if one is set), trailing bytes.
   Returns: 0 or an npyg_status (npyg_last_error: offset and message).
   Owns: the result, npyg_get_info, is the context's until the next call.
   Errors: the .npy codes (10-55, docs/errors.md); NPYG_EOBJECT for an
   object array (npyg_pickle_scan_npy then names what it imports);
   NPYG_EPOLYGLOT for a file libhdf5 also reads, on an input that can
   seek. */
NPYG_API int npyg_validate(npyg_ctx *ctx);

/* Parses a header only; the payload is not checked.
   buf, len: at least the preamble and header of a .npy file (it may hold
   the whole file).
   Returns: 0 or an npyg_status.
   Owns: the result, npyg_get_info, is the context's until the next call. */
NPYG_API int npyg_parse_header(npyg_ctx *ctx, const void *buf, size_t len);


/* A payload sink (npyg_set_payload_sink): receives len payload bytes.
   Returns: 0 to go on; non-zero stops validation with NPYG_EIO. */
typedef int (*npyg_payload_fn)(void *user, const void *data, size_t len);
/* Optional: every payload byte of the next validate call is passed to fn,
   in order, in chunks of at most 64 KiB (e.g. to hash it).
   fn: NULL to unset.
   Errors: a non-zero return of fn stops validation with NPYG_EIO. */
NPYG_API void npyg_set_payload_sink(npyg_ctx *ctx, npyg_payload_fn fn, void *user);

/* The error of the context's last call: code, offset, offset space and a
   one-line message.
   Returns: the context's npyg_error; NULL for a NULL ctx.
   Owns: the context, until the next call or npyg_ctx_free. */
NPYG_API const npyg_error *npyg_last_error(const npyg_ctx *ctx);

/* Opens the input set last for a two-step load: parses and validates the
   header and reads nothing past it; npyg_get_info then describes the
   array. A regular file is read with pread(2) and its position left
   unchanged (a payload within its first 4 KiB, read with the header, is
   not read again); a pipe or callback is read in order.
   Returns: 0 or an npyg_status.
   Owns: the buffer, descriptor or callback must stay valid until
   npyg_read_payload.
   Errors: when the input's size is known (a buffer, a regular file, a
   positional callback), a payload it cannot hold is refused here with
   NPYG_ETRUNC_PAYLOAD, before anything is allocated for it; the header
   codes of npyg_validate. */
NPYG_API int npyg_open(npyg_ctx *ctx);

/* Reads the payload of the input opened last into dst, then checks for
   truncation and trailing bytes, with the verdicts, codes and offsets of
   npyg_validate. The sink, if set, sees the payload too.
   dst, size: exactly size == npyg_get_info(ctx)->payload_bytes bytes; dst
   NULL: the payload goes to the sink only.
   Returns: 0 or an npyg_status.
   Owns: dst, the caller's; on failure it holds an unspecified part of the
   payload.
   Errors: NPYG_EINVAL for another size (and the payload may still be
   read); NPYG_EBADSTATE before a successful open, after a failed one, or
   a second time (once per successful open). */
NPYG_API int npyg_read_payload(npyg_ctx *ctx, void *dst, size_t size);

/* ---- Results ----------------------------------------------------------
   Valid after a successful call, until the next one or npyg_ctx_free.
   Naming rules: docs/c-library.md#results */

/* A dtype's kind: numpy's kind character, '{' and '[' for the composites. */
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

/* The unit of a datetime or timedelta (M8[ms]: NPYG_UNIT_ms). */
typedef enum npyg_time_unit {
    NPYG_UNIT_GENERIC = 0,
    NPYG_UNIT_Y, NPYG_UNIT_M, NPYG_UNIT_W, NPYG_UNIT_D,
    NPYG_UNIT_h, NPYG_UNIT_m, NPYG_UNIT_s, NPYG_UNIT_ms, NPYG_UNIT_us,
    NPYG_UNIT_ns, NPYG_UNIT_ps, NPYG_UNIT_fs, NPYG_UNIT_as
} npyg_time_unit;

/* A dtype: a tree of struct npyg_dtype (below). */
typedef struct npyg_dtype npyg_dtype;

/* One named field of a structured dtype. */
typedef struct npyg_field {
    const char *name;      /* UTF-8, NUL-terminated; "" is a legal name */
    size_t name_len;
    const char *title;     /* NULL when the field has no title */
    size_t title_len;
    uint64_t offset;       /* bytes from the start of the record */
    const npyg_dtype *type;
} npyg_field;

/* A dtype node: the fields of its kind apply. */
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

/* What a .npy parse found (npyg_get_info). */
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

/* The array the context's last .npy call found (npyg_validate,
   npyg_parse_header, npyg_open, an archive member's validation or open).
   Returns: the info after a successful call; else NULL (also for a member
   that is not .npy).
   Owns: the context, until the next call or npyg_ctx_free. */
NPYG_API const npyg_info *npyg_get_info(const npyg_ctx *ctx);

/* descr written back the way numpy's writer spells it ('<f8',
   "[('a', '<i4'), ('b', '|S3', (2,))]").
   out, size: writes at most size bytes.
   Returns: the length needed without the NUL, like snprintf. */
NPYG_API size_t npyg_format_descr(const npyg_dtype *dtype, char *out, size_t size);

/* descr in the JSON form npyvalidate --json prints: a typestr ("<f8"), a
   subarray as [descr, shape], a structured type as a list of [name, descr]
   or [name, descr, shape] with a titled name as [title, name] and pads left
   out: numpy's dtype.descr without its ('', '|Vn') pads, tuples as lists.
   Names are JSON strings (controls and what str.isprintable() refuses as
   \u escapes); a dim above 2**53 is a string.
   out, size: writes at most size bytes, as npyg_format_descr.
   Returns: the length needed without the NUL, like snprintf. */
NPYG_API size_t npyg_format_descr_json(const npyg_dtype *dtype, char *out, size_t size);

/* ---- .npz archives ----------------------------------------------------
   A handle per archive; members validated or loaded one at a time.
   docs/c-library.md#npz-archives */

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
/* A member may inflate up to 64 MiB whatever its ratio; past that, at most
   100 bytes per compressed byte. Why: docs/c-library.md#limits */
#define NPYG_DEFAULT_MAX_RATIO 100u
#define NPYG_DEFAULT_RATIO_GRACE_BYTES (UINT64_C(64) << 20)
/* The archive's deflated members, in all: 64 MiB plus max_ratio bytes per
   byte of the archive. */
#define NPYG_DEFAULT_INFLATE_BUDGET_BYTES (UINT64_C(64) << 20)
/* Caps: npyg_zip_open refuses limits above them (EINVAL). */
#define NPYG_MAX_MEMBERS_CAP 1000000u
#define NPYG_MAX_NAME_BYTES_CAP 65535u

/* Fills *limits with the defaults (NPYG_DEFAULT_*).
   limits: NULL does nothing. */
NPYG_API void npyg_zip_limits_default(npyg_zip_limits *limits);

/* Everything a context allocates at once while it reads an archive
   under these limits: the .npy parse, the directory table, the buffers
   and zlib's state.
   zip_limits: NULL for the defaults.
   Returns: bytes, never more than limits->max_alloc_bytes, which every
   allocation is charged against; 0 for invalid limits. */
NPYG_API uint64_t npyg_zip_worst_case_alloc(const npyg_limits *limits,
                                            const npyg_zip_limits *zip_limits);

/* Whether buf starts like a zip (PK\3\4 or PK\5\6), as numpy's np.load
   decides.
   Returns: 1 if so; 0 otherwise (len < 4 included). */
NPYG_API int npyg_is_zip(const void *buf, size_t len);

/* What a file is, from its content (npyg_detect, npyg_sniff_format,
   npyg_probe_info.format). */
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
/* The first bytes npyg_sniff_format needs (fewer at the end of a short
   file). */
#define NPYG_SNIFF_BYTES 8u
/* The format a stream's first bytes show: the leading-magic part of
   npyg_detect, for a stream whose first bytes the caller holds and cannot
   read twice. It sees no HDF5 superblock further in and no MAT header, so
   a caller that can seek asks npyg_detect instead.
   buf, len: the first NPYG_SNIFF_BYTES bytes are enough.
   Returns: NPY, NPZ, RA or UNKNOWN. UNKNOWN goes to the .npy parser,
   whose magic check then says what is wrong. */
NPYG_API npyg_format npyg_sniff_format(const void *buf, size_t len);

/* An open archive (npyg_zip_open), opaque. */
typedef struct npyg_zip npyg_zip;

/* One member, as the central directory and its local header give it. */
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

/* Opens the archive the input set last holds: the end record (zip64
   included), the central directory and every local header are read and
   cross-checked now. It needs random access: a buffer, a regular file
   (pread from its current position to its end; never written, moved or
   closed) or a positional callback.
   zip_limits: NULL for the context's limits (npyg_set_limit); a struct
   stands in for them in this call.
   out: receives the handle; NULL on failure.
   Returns: 0 or an npyg_status.
   Owns: the handle is the caller's, closed with npyg_zip_close; it keeps
   the directory and its own copy of the input, which must stay valid
   until then. The context holds the errors, the allocator and the
   limits; it must outlive the handle and serve one archive at a time. On
   failure nothing stays allocated.
   Errors: NPYG_ENOTREG for a stream; the zip codes (60-88), offsets in
   the archive. */
NPYG_API int npyg_zip_open(npyg_ctx *ctx, const npyg_zip_limits *zip_limits, npyg_zip **out);

/* The number of members.
   Returns: the count. */
NPYG_API size_t npyg_zip_count(const npyg_zip *z);
/* Member i, in central-directory order.
   Returns: its entry; NULL when i is out of range.
   Owns: the handle, until npyg_zip_close. */
NPYG_API const npyg_zip_entry *npyg_zip_member(const npyg_zip *z, size_t i);

/* Member i's name as Python's zipfile (and so numpy) decodes it, in
   UTF-8: as stored when flag bit 11 is set, else each byte as code page
   437.
   buf, size: writes at most size bytes.
   Returns: the length needed without the NUL, like snprintf; 0 and "" when
   i is out of range. */
NPYG_API size_t npyg_zip_member_name(const npyg_zip *z, size_t i, char *buf, size_t size);

/* Inflates member i in bounded chunks, checks its sizes and CRC-32 and
   validates it as .npy with the same parser, profile and limits (payload
   to the context's sink). Any member may be validated, in any order,
   again.
   Returns: 0 or an npyg_status. After 0, npyg_get_info(ctx) describes the
   array, or is NULL for a member that is not .npy (numpy profile only; see
   its warnings).
   Errors: zip codes with offsets in the archive (the container, and
   zlib's own needs), .npy codes with offsets in the member's decompressed
   bytes (npyg_error.offset_space); NPYG_EOBJECT: see
   npyg_zip_scan_member_pickle. */
NPYG_API int npyg_zip_validate_member(npyg_zip *z, size_t i);

/* Step one of the two-step load of member i: checks the member's limits
   and name and parses its .npy header, inflating no more than the header
   needs. npyg_get_info then describes the array, or is NULL for a member
   that is not .npy (numpy profile only).
   Returns: 0 or an npyg_status. */
NPYG_API int npyg_zip_open_member(npyg_zip *z, size_t i);
/* Step two: reads the payload of the member opened last into dst,
   inflating in bounded chunks, and checks the member's end, sizes and
   CRC-32 as npyg_zip_validate_member does.
   dst, size: exactly payload_bytes (for a member that is not .npy: its
   uncompressed_size raw bytes); dst NULL: to the sink.
   Returns: 0 or an npyg_status.
   Errors: NPYG_EBADSTATE reading with no member open, or twice. */
NPYG_API int npyg_zip_read_member(npyg_zip *z, void *dst, size_t size);

/* Closes the archive and frees the handle.
   z: NULL is fine. */
NPYG_API void npyg_zip_close(npyg_zip *z); /* NULL is fine */


/* ---- RawArray (.ra) files ---------------------------------------------
   Validate, or load in two steps. Format rules: parser/RA.md; manual:
   docs/c-library.md#rawarray-ra-files */

/* eltype codes (npyg_ra_info.eltype) */
enum npyg_ra_eltype {
    NPYG_RA_USER = 0, NPYG_RA_INT = 1, NPYG_RA_UINT = 2,
    NPYG_RA_FLOAT = 3, NPYG_RA_COMPLEX = 4, NPYG_RA_BOOL = 5
};

/* Flag bits (npyg_ra_info.flags): bit 0 big-endian data, bit 1 the data
   segment is one LZ4 block. */
#define NPYG_RA_FLAG_BIG_ENDIAN UINT64_C(1)
#define NPYG_RA_FLAG_COMPRESSED UINT64_C(2)

/* What a .ra validation or open found (npyg_get_ra_info). */
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

/* Whether buf starts with the RawArray magic "rawarray".
   Returns: 1 if so; 0 otherwise. */
NPYG_API int npyg_is_ra(const void *buf, size_t len);

/* Validates the whole .ra input set last (every kind of input, as for
   .npy). An LZ4 block is decompressed through the context's allocator,
   within max_alloc_bytes, and its length checked. The payload sink
   receives the data segment as stored (compressed bytes for an LZ4 file),
   never the metadata.
   Returns: 0 or an npyg_status.
   Owns: the result, npyg_get_ra_info, is the context's until the next
   call.
   Errors: the .ra codes (90-100); NPYG_ELIMIT_DIMS (max_dims),
   NPYG_ELIMIT_PAYLOAD (max_payload_bytes against the uncompressed data
   bytes), NPYG_ELIMIT_ALLOC (max_alloc_bytes against what a decompression
   holds at once), each refused before anything is allocated for it. */
NPYG_API int npyg_ra_validate(npyg_ctx *ctx);

/* The .ra file the last npyg_ra_validate or npyg_ra_open found.
   Returns: the info after a successful one, until the next call
   (npyg_ra_read_data failing ends it too); else NULL.
   Owns: the context. */
NPYG_API const npyg_ra_info *npyg_get_ra_info(const npyg_ctx *ctx);

/* The element type as the reference readers name it: "int16", "uint8",
   "float32", "complex64", "bool", "user80" (kind and bits).
   out, size: writes at most size bytes.
   Returns: the length needed without the NUL, like snprintf. */
NPYG_API size_t npyg_ra_type_name(const npyg_ra_info *info, char *out, size_t size);

/* The most a context allocates at once while it validates a .ra file
   under these limits: the .npy bound (the context, the read buffer), the
   dims, and for an LZ4 file its compressed and decompressed bytes
   together (an LZ4 block decodes only as a whole).
   Returns: bytes, never more than max_alloc_bytes; 0 for invalid limits. */
NPYG_API uint64_t npyg_ra_worst_case_alloc(const npyg_limits *limits);

/* Opens the .ra input set last for a two-step load, as npyg_open does a
   .npy file: validates the header and reads nothing past it;
   npyg_get_ra_info then gives eltype, elbyte, the dims as stored (dims[0]
   fastest), big_endian, compressed and data_bytes.
   Returns: 0 or an npyg_status.
   Owns: the input must stay valid until npyg_ra_read_data.
   Errors: when the input's size is known, data that cannot be there is
   refused now, with the code and offset of npyg_ra_validate; for an LZ4
   file from a descriptor or callback, the room to read its block whole
   (size bytes) is checked against max_alloc_bytes. */
NPYG_API int npyg_ra_open(npyg_ctx *ctx);
/* Reads the data of the .ra file opened last into dst: the array's bytes
   in the file's order and byte order, the stored data or an LZ4 block
   decoded straight into dst by liblz4, which never writes past size. It
   then counts the metadata, as validation does. The sink, if set, sees
   the data segment as stored.
   dst, size: exactly size == data_bytes bytes; dst NULL:
   npyg_ra_validate's data step, to the sink only.
   Returns: 0 or an npyg_status.
   Owns: dst, the caller's; on failure it holds an unspecified part of the
   data.
   Errors: NPYG_EINVAL for another size (and the data may still be read);
   NPYG_EBADSTATE before a successful open, after a failed one or twice
   (once per successful open). */
NPYG_API int npyg_ra_read_data(npyg_ctx *ctx, void *dst, size_t size);
/* ---- Format detection and MAT headers ---------------------------------
   Codes 110-112. docs/c-library.md#format-detection */

/* Warnings of the probe (npyg_probe_info.warnings). */
enum npyg_probe_warning {
    NPYG_PW_SUBSYS = 1u << 0,    /* MAT v7.3 subsystem offset neither zeros nor spaces */
    NPYG_PW_USERBLOCK = 1u << 1, /* bytes after the MAT header in the user block are not zero */
    NPYG_PW_MAT_TEXT = 1u << 2   /* MAT v7.3 text does not end "HDF5 schema 1.00 ." */
};

/* What a probe found (npyg_get_probe_info). */
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

/* Recognises the format of the input set last by its content. Reads at
   most 128 bytes plus 8 at each power of two from 512 up to the size.
   Returns: 0 with npyg_get_probe_info(ctx)->format NPY, NPZ, HDF5 or
   MAT73 (a MAT v7.3 header validated), or UNKNOWN; else an npyg_status.
   Owns: allocates nothing.
   Errors: NPYG_ENOTREG for an input without random access (a buffer, a
   regular file, a positional callback have it); NPYG_EMAT_V5 /
   NPYG_EMAT_V4 for older MAT files (the info says which); NPYG_EPOLYGLOT
   for an NPY, ZIP or RA file that also holds an HDF5 superblock signature
   where libhdf5 looks (info->hdf5_offset: where); NPYG_EMAT_HEADER for a
   MAT v7.3 header that is malformed or not followed by HDF5 at offset
   512. */
NPYG_API int npyg_probe_input(npyg_ctx *ctx);

/* Which format the input set last is, by its content: the one decision
   every entry point takes before it picks a reader (npyvalidate, the
   Python package, the conformance adapter). It is npyg_probe_input's
   answer, with one more refusal.
   format: receives the format seen; may be NULL.
   Returns: 0 with *format NPY, NPZ, RA, HDF5 or MAT73; else an npyg_status.
   Owns: allocates nothing; npyg_get_probe_info describes the input
   afterwards.
   Errors: NPYG_EPOLYGLOT, NPYG_EMAT_V5, NPYG_EMAT_V4, NPYG_EMAT_HEADER as
   npyg_probe_input (*format says what was seen); NPYG_EUNRECOGNIZED,
   *format UNKNOWN, for an input that is none of the formats (an empty one
   included); NPYG_ENOTREG for a stream, whose first bytes
   npyg_sniff_format reads instead. */
NPYG_API int npyg_detect(npyg_ctx *ctx, npyg_format *format);

/* What the last npyg_probe_input (or npyg_detect) saw once it read the
   input: format, offsets, the MAT header.
   Returns: the info after 0 and after the refusals above; NULL before,
   after any other error, and after any other call.
   Owns: the context. */
NPYG_API const npyg_probe_info *npyg_get_probe_info(const npyg_ctx *ctx);


/* ---- HDF5 and MAT v7.3 ------------------------------------------------
   Scanned and loaded by libhdf5 in a caged child (codes 113-139).
   docs/c-library.md#hdf5-and-mat-v73-files; the cage: docs/hdf5.md */

/* For limits arguments of the HDF5 calls (compatibility: NULL reads the
   context's). */
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
/* A tree has one path per object. Why 20000: docs/c-library.md#limits */
#define NPYG_DEFAULT_MAX_PATHS UINT64_C(20000)
/* Why 32: docs/c-library.md#limits */
#define NPYG_DEFAULT_MAX_REF_DEPTH 32u
/* What a load may make the caller hold: max_load_bytes plus
   NPYG_LOAD_BYTES_PER_BYTE bytes per byte of the file. A file whose hard
   links or references name one large dataset many times is refused before
   the copies are made. */
#define NPYG_DEFAULT_MAX_LOAD_BYTES (UINT64_C(64) << 20)  /* 64 MiB */
#define NPYG_LOAD_BYTES_PER_BYTE 100u
#define NPYG_MAX_REF_DEPTH_CAP 10000u
#define NPYG_MAX_OBJECTS_CAP 10000000u
#define NPYG_MAX_NESTING_CAP 256u

/* Fills *limits with the defaults (NPYG_DEFAULT_*).
   limits: NULL does nothing. */
NPYG_API void npyg_hdf5_limits_default(npyg_hdf5_limits *limits);

/* Whether this build has the HDF5 scan and its helper program is found
   and executable. Whether libhdf5 then loads is known only when the
   helper starts (NPYG_EHDF5_UNAVAILABLE, naming the package).
   Returns: 1 if so, else 0. */
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
   "datatype", "attribute", "link".
   Returns: a static string; NULL for a value that is not a kind. */
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

/* The scan's callback, called for every object.
   Returns: 0 to go on; non-zero stops the scan (it then returns
   NPYG_EIO). */
typedef int (*npyg_hdf5_object_fn)(void *user, const npyg_hdf5_object *obj);

/* Scans the HDF5 file the input set last holds in a sandboxed child and
   reports every object to fn. The whole file is walked even after a
   hazard. The context's max_payload_bytes bounds each dataset's and
   attribute's declared size.
   ctx: its input must be a regular file's descriptor (npyg_set_input_fd),
   at its first byte, which the child maps; never written, moved or closed.
   limits: NULL for the context's (npyg_set_limit).
   fn: may be NULL.
   Returns: 0 when the file holds no hazard, else the first hazard's code,
   also in npyg_last_error() with its object path in the message ("/x:
   external link to 'b.h5:/y'").
   Owns: in this process the scan allocates npyg_hdf5_worst_case_alloc()
   bytes at most, through the context's allocator; the child's memory is
   bounded by limits->child_memory instead.
   Errors: NPYG_ENOTREG for any other input; the hazards and HDF5 limits
   (113-137, 55); NPYG_EHDF5_FORMAT only under the strict profile (a
   warning otherwise); NPYG_EHDF5_CRASH, _TIMEOUT: the child failed. */
NPYG_API int npyg_hdf5_scan(npyg_ctx *ctx, const npyg_hdf5_limits *limits, npyg_hdf5_object_fn fn,
                            void *user);

/* One record of a load (npyg_hdf5_sink.object); the values that follow
   take the forms of docs/c-library.md#loading-hdf5-values. */
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

/* Where a load delivers records and values (npyg_hdf5_load). */
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
   with a hazard loads nothing), then hands every record and value to
   sink. Each value's .npy header is validated under the context's limits
   before the sink is asked for a buffer of exactly its size.
   limits->child_wall_seconds bounds the whole load, the sink's own time
   included.
   limits: NULL for the context's (npyg_set_limit).
   Returns: 0 or an npyg_status, as sink->end is told.
   Owns: besides the scan's buffer this process allocates one .npy header
   buffer (max_header_bytes + 12, at most 64 KiB + 12) and what
   npyg_parse_header needs, through the context's allocator; the values'
   memory is the sink's.
   Errors: the scan's; NPYG_EHDF5_PROTOCOL, naming the object path, for a
   value that disagrees with its record; one past the context's parser
   limits, that limit's code (NPYG_ELIMIT_HEADER ... _PAYLOAD);
   NPYG_ELIMIT_LOAD; NPYG_EHDF5_OBJECT and the path for a type npyguard
   does not load; NPYG_EHDF5_CRASH (or _TIMEOUT) naming the object it was
   sending for a child that dies or is killed mid-value. */
NPYG_API int npyg_hdf5_load(npyg_ctx *ctx, const npyg_hdf5_limits *limits, const npyg_hdf5_sink *sink);

/* Sets where the context's HDF5 helper program is found (the helper
   alone loads libhdf5; docs/c-library.md#the-helper). Setting it
   ends a running helper.
   path: absolute; NULL for the default: $NPYG_HDF5_HELPER, else next to
   the library (or the program it is linked into), else in
   LIBEXECDIR/npyguard. */
NPYG_API int npyg_hdf5_set_helper(npyg_ctx *ctx, const char *path);

/* How often, at least, a waiting scan or load asks the interrupt
   callback (npyg_hdf5_set_interrupt), in milliseconds. */
#define NPYG_HDF5_INTERRUPT_MS 20
/* Sets the interrupt callback: while a scan or load waits for its child,
   fn(user) is called at least every NPYG_HDF5_INTERRUPT_MS and whenever a
   signal cuts the wait short (EINTR). A binding polls its own interrupts
   here (the Python package: Ctrl-C).
   fn: NULL for none (the default).
   Errors: a non-zero return of fn ends the wait at once, the helper and
   its child killed (the next file starts a fresh helper), and the call
   returns NPYG_EIO, "interrupted". */
NPYG_API int npyg_hdf5_set_interrupt(npyg_ctx *ctx, int (*fn)(void *user), void *user);

/* Starts the context's helper if it is not running and writes which cage
   layers are in force for every file, e.g. "seccomp allow-list, landlock
   abi 4, user+net namespaces".
   out, size: the text's buffer.
   Errors: a scan refuses to run (NPYG_EHDF5_SANDBOX) where the seccomp
   allow list cannot be installed. */
NPYG_API int npyg_hdf5_sandbox_info(npyg_ctx *ctx, char *out, size_t size);

/* What a context allocates in the calling process while it scans: itself
   and one 2 KiB record buffer, whatever the file.
   Returns: bytes; 0 for invalid limits. */
NPYG_API uint64_t npyg_hdf5_worst_case_alloc(const npyg_limits *limits,
                                             const npyg_hdf5_limits *hdf5_limits);
/* ---- Pickles ----------------------------------------------------------
   What an object array's payload would import, read without loading it.
   docs/c-library.md#pickles */

/* For limits arguments of the pickle calls (compatibility: NULL reads the
   context's). */
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

/* Fills *limits with the defaults (NPYG_DEFAULT_PICKLE_*).
   limits: NULL does nothing. */
NPYG_API void npyg_pickle_limits_default(npyg_pickle_limits *limits);

/* The most a scan allocates beyond what the context already holds,
   report included. Every allocation is also charged against the
   context's max_alloc_bytes.
   limits: NULL for the defaults.
   Returns: bytes; 0 for invalid limits. */
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

/* One import a pickle names (npyg_pickle_report.imports). */
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

/* What a pickle scan found (npyg_get_pickle_report). */
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
   up to its STOP opcode, as pickle.load reads it; bytes after it are not
   read. A descriptor is read as npyg_validate reads it.
   limits: NULL for the context's (npyg_set_limit); a struct stands in for
   them in this call.
   Returns: 0 or an npyg_status (npyg_last_error: offset and message).
   Owns: the report, npyg_get_pickle_report, is the context's, counted in
   what it holds, until the next call.
   Errors: NPYG_EPICKLE, _TRUNC, _PROTO for a malformed pickle; the pickle
   limits' codes (143-148); NPYG_EIO; NPYG_EINVAL; NPYG_ENOMEM or
   NPYG_ELIMIT_ALLOC when memory ran out or max_alloc_bytes was reached. */
NPYG_API int npyg_pickle_scan(npyg_ctx *ctx, const npyg_pickle_limits *limits);
/* Scans the input set last as a whole .npy file whose payload is a
   pickle, as npyg_pickle_scan does: the preamble and header are skipped
   (header length held to the context's max_header_bytes) and the payload,
   from the data offset, is scanned; offsets are in the file. For a file
   npyg_validate refused with NPYG_EOBJECT: it keeps that call's result
   (npyg_get_info), only the previous error and report are forgotten.
   limits: NULL for the context's (npyg_set_limit).
   Returns, Owns, Errors: as npyg_pickle_scan. */
NPYG_API int npyg_pickle_scan_npy(npyg_ctx *ctx, const npyg_pickle_limits *limits);
/* The report of the last pickle scan.
   Returns: the report whenever one could be made, also after a malformed
   pickle, a limit or a read error (its status says which); NULL otherwise:
   after NPYG_EINVAL, and after NPYG_ENOMEM or NPYG_ELIMIT_ALLOC in the walk
   or for the report itself (which then wins over what ended the walk).
   Owns: the context, counted in what it holds, until the next call. */
NPYG_API const npyg_pickle_report *npyg_get_pickle_report(const npyg_ctx *ctx);

/* Frees a report handed to the caller (npyg_zip_scan_member_pickle),
   before the context it came from.
   report: NULL is fine. */
NPYG_API void npyg_pickle_report_free(npyg_ctx *ctx, npyg_pickle_report *report);

/* The imports for a terminal, "os.system, builtins.eval": in order of
   first use, each module.name (an unresolvable part as "?", an extension
   as "ext:CODE"), with every byte outside printable ASCII as \xNN.
   out, size: writes at most size bytes.
   Returns: the length needed without the NUL, like snprintf. */
NPYG_API size_t npyg_pickle_format_imports(const npyg_pickle_report *report, char *out, size_t size);

/* Scans member i as a pickle (npyg_pickle_scan_npy on its inflated
   bytes), for a member npyg_zip_validate_member refused with
   NPYG_EOBJECT.
   out: receives the report; NULL when there is none.
   Returns: 0 or an npyg_status, as npyg_pickle_scan_npy.
   Owns: the report is the caller's, freed with npyg_pickle_report_free.
   Errors: out NULL: NPYG_EINVAL. */
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
