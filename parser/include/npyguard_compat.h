/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The call forms of 0.1 (and npyg_hdf5_load_fd of 0.2), deprecated: each
 * sets the input and calls the format's function, with the same results;
 * beside them the names of 0.2 that the getter and warning rules replaced.
 * Declared only when NPYG_COMPAT (or NPYG_COMPAT_INPUT_FORMS, its name in
 * 0.2) is defined before npyguard.h is included; a compiler then names the
 * replacement at each call. Exported through 0.x, dropped in 1.0.
 * docs/c-library.md#abi-and-versions
 */
#ifndef NPYGUARD_COMPAT_H
#define NPYGUARD_COMPAT_H

#ifndef NPYGUARD_H
#error "include npyguard.h (with NPYG_COMPAT defined), not npyguard_compat.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* NPYG_DEPRECATED(use): the compiler's deprecation, naming the replacement. */
#if defined(__GNUC__) || defined(__clang__)
#  define NPYG_DEPRECATED(use) __attribute__((deprecated("use " use)))
#elif defined(_MSC_VER)
#  define NPYG_DEPRECATED(use) __declspec(deprecated("use " use))
#else
#  define NPYG_DEPRECATED(use)
#endif

/* ---- .npy: npyg_set_input_buffer, _fd, _read, then npyg_validate or
   npyg_open. Each returns what the replacement returns. */

/* npyg_set_input_buffer(ctx, buf, len), then npyg_validate(ctx). */
NPYG_DEPRECATED("npyg_set_input_buffer, then npyg_validate")
NPYG_API int npyg_validate_buffer(npyg_ctx *ctx, const void *buf, size_t len);
/* npyg_set_input_fd(ctx, fd), then npyg_validate(ctx). */
NPYG_DEPRECATED("npyg_set_input_fd, then npyg_validate")
NPYG_API int npyg_validate_fd(npyg_ctx *ctx, int fd);
/* npyg_set_input_read(ctx, read, user), then npyg_validate(ctx). */
NPYG_DEPRECATED("npyg_set_input_read, then npyg_validate")
NPYG_API int npyg_validate_read(npyg_ctx *ctx, npyg_read_fn read, void *user);
/* npyg_set_input_buffer(ctx, buf, len), then npyg_open(ctx). */
NPYG_DEPRECATED("npyg_set_input_buffer, then npyg_open")
NPYG_API int npyg_open_buffer(npyg_ctx *ctx, const void *buf, size_t len);
/* npyg_set_input_fd(ctx, fd), then npyg_open(ctx). */
NPYG_DEPRECATED("npyg_set_input_fd, then npyg_open")
NPYG_API int npyg_open_fd(npyg_ctx *ctx, int fd);
/* npyg_set_input_read(ctx, read, user), then npyg_open(ctx). */
NPYG_DEPRECATED("npyg_set_input_read, then npyg_open")
NPYG_API int npyg_open_read(npyg_ctx *ctx, npyg_read_fn read, void *user);

/* ---- .npz */

/* npyg_set_input_fd(ctx, fd), then npyg_zip_open(ctx, zip_limits, out). */
NPYG_DEPRECATED("npyg_set_input_fd, then npyg_zip_open")
NPYG_API int npyg_zip_open_fd(npyg_ctx *ctx, int fd, const npyg_zip_limits *zip_limits, npyg_zip **out);
/* npyg_set_input_buffer(ctx, buf, len), then npyg_zip_open(ctx, zip_limits, out). */
NPYG_DEPRECATED("npyg_set_input_buffer, then npyg_zip_open")
NPYG_API int npyg_zip_open_buffer(npyg_ctx *ctx, const void *buf, size_t len, const npyg_zip_limits *zip_limits,
                                  npyg_zip **out);

/* ---- .ra */

/* npyg_set_input_buffer(ctx, buf, len), then npyg_ra_validate(ctx). */
NPYG_DEPRECATED("npyg_set_input_buffer, then npyg_ra_validate")
NPYG_API int npyg_ra_validate_buffer(npyg_ctx *ctx, const void *buf, size_t len);
/* npyg_set_input_fd(ctx, fd), then npyg_ra_validate(ctx). */
NPYG_DEPRECATED("npyg_set_input_fd, then npyg_ra_validate")
NPYG_API int npyg_ra_validate_fd(npyg_ctx *ctx, int fd);
/* npyg_set_input_read(ctx, read, user), then npyg_ra_validate(ctx). */
NPYG_DEPRECATED("npyg_set_input_read, then npyg_ra_validate")
NPYG_API int npyg_ra_validate_read(npyg_ctx *ctx, npyg_read_fn read, void *user);
/* npyg_set_input_buffer(ctx, buf, len), then npyg_ra_open(ctx). */
NPYG_DEPRECATED("npyg_set_input_buffer, then npyg_ra_open")
NPYG_API int npyg_ra_open_buffer(npyg_ctx *ctx, const void *buf, size_t len);
/* npyg_set_input_fd(ctx, fd), then npyg_ra_open(ctx). */
NPYG_DEPRECATED("npyg_set_input_fd, then npyg_ra_open")
NPYG_API int npyg_ra_open_fd(npyg_ctx *ctx, int fd);
/* npyg_set_input_read(ctx, read, user), then npyg_ra_open(ctx). */
NPYG_DEPRECATED("npyg_set_input_read, then npyg_ra_open")
NPYG_API int npyg_ra_open_read(npyg_ctx *ctx, npyg_read_fn read, void *user);

/* ---- Format recognition: the info is copied into *info (zeros when there
   is none) instead of read with npyg_get_probe_info. */

/* npyg_set_input_pread(ctx, read, user, size), then npyg_probe_input(ctx).
   info: receives a copy of the probe info. */
NPYG_DEPRECATED("npyg_set_input_pread, then npyg_probe_input and npyg_get_probe_info")
NPYG_API int npyg_probe(npyg_ctx *ctx, npyg_pread_fn read, void *user, uint64_t size, npyg_probe_info *info);
/* npyg_set_input_buffer(ctx, buf, len), then npyg_probe_input(ctx).
   info: receives a copy of the probe info. */
NPYG_DEPRECATED("npyg_set_input_buffer, then npyg_probe_input and npyg_get_probe_info")
NPYG_API int npyg_probe_buffer(npyg_ctx *ctx, const void *buf, size_t len, npyg_probe_info *info);
/* npyg_set_input_fd(ctx, fd), then npyg_probe_input(ctx).
   info: receives a copy of the probe info. */
NPYG_DEPRECATED("npyg_set_input_fd, then npyg_probe_input and npyg_get_probe_info")
NPYG_API int npyg_probe_fd(npyg_ctx *ctx, int fd, npyg_probe_info *info);

/* ---- HDF5 */

/* npyg_set_input_fd(ctx, fd), then npyg_hdf5_scan(ctx, limits, fn, user). */
NPYG_DEPRECATED("npyg_set_input_fd, then npyg_hdf5_scan")
NPYG_API int npyg_hdf5_scan_fd(npyg_ctx *ctx, int fd, const npyg_hdf5_limits *limits, npyg_hdf5_object_fn fn,
                               void *user);
/* npyg_set_input_fd(ctx, fd), then npyg_hdf5_load(ctx, limits, sink). */
NPYG_DEPRECATED("npyg_set_input_fd, then npyg_hdf5_load")
NPYG_API int npyg_hdf5_load_fd(npyg_ctx *ctx, int fd, const npyg_hdf5_limits *limits, const npyg_hdf5_sink *sink);

/* ---- Pickles: the report is handed to the caller instead of read with
   npyg_get_pickle_report. For each: out receives it (NULL when there is
   none); Owns: the caller, who frees it with npyg_pickle_report_free before
   the context; Errors: out NULL: NPYG_EINVAL. */

/* npyg_set_input_buffer(ctx, buf, len), then npyg_pickle_scan(ctx, limits). */
NPYG_DEPRECATED("npyg_set_input_buffer, then npyg_pickle_scan and npyg_get_pickle_report")
NPYG_API int npyg_pickle_scan_buffer(npyg_ctx *ctx, const void *buf, size_t len, const npyg_pickle_limits *limits,
                                     npyg_pickle_report **out);
/* npyg_set_input_read(ctx, read, user), then npyg_pickle_scan(ctx, limits). */
NPYG_DEPRECATED("npyg_set_input_read, then npyg_pickle_scan and npyg_get_pickle_report")
NPYG_API int npyg_pickle_scan_read(npyg_ctx *ctx, npyg_read_fn read, void *user, const npyg_pickle_limits *limits,
                                   npyg_pickle_report **out);
/* npyg_set_input_buffer(ctx, buf, len), then npyg_pickle_scan_npy(ctx, limits). */
NPYG_DEPRECATED("npyg_set_input_buffer, then npyg_pickle_scan_npy and npyg_get_pickle_report")
NPYG_API int npyg_pickle_scan_npy_buffer(npyg_ctx *ctx, const void *buf, size_t len,
                                         const npyg_pickle_limits *limits, npyg_pickle_report **out);
/* npyg_set_input_read(ctx, read, user), then npyg_pickle_scan_npy(ctx, limits). */
NPYG_DEPRECATED("npyg_set_input_read, then npyg_pickle_scan_npy and npyg_get_pickle_report")
NPYG_API int npyg_pickle_scan_npy_read(npyg_ctx *ctx, npyg_read_fn read, void *user,
                                       const npyg_pickle_limits *limits, npyg_pickle_report **out);
/* npyg_set_input_fd(ctx, fd), then npyg_pickle_scan_npy(ctx, limits). */
NPYG_DEPRECATED("npyg_set_input_fd, then npyg_pickle_scan_npy and npyg_get_pickle_report")
NPYG_API int npyg_pickle_scan_npy_fd(npyg_ctx *ctx, int fd, const npyg_pickle_limits *limits,
                                     npyg_pickle_report **out);

/* ---- Names of 0.2 */

/* npyg_get_ra_info under its 0.2 name. */
NPYG_DEPRECATED("npyg_get_ra_info")
NPYG_API const npyg_ra_info *npyg_ra_get_info(const npyg_ctx *ctx);
/* The context's value of a limit.
   Returns: the value; 0 for an unknown id or a NULL context (npyg_limit_value
   can tell those apart). */
NPYG_DEPRECATED("npyg_limit_value, which can say there is no such limit")
NPYG_API uint64_t npyg_get_limit(const npyg_ctx *ctx, npyg_limit id);
/* npyg_warning_info(NPYG_WARNINGS_NPY, bit)->text; "unknown warning" for
   a bit that is not one. */
NPYG_DEPRECATED("npyg_warning_info(NPYG_WARNINGS_NPY, bit)->text")
NPYG_API const char *npyg_warning_string(unsigned bit);
/* npyg_warning_info(NPYG_WARNINGS_NPY, bit)->name; NULL for a bit that is
   not one. */
NPYG_DEPRECATED("npyg_warning_info(NPYG_WARNINGS_NPY, bit)->name")
NPYG_API const char *npyg_warning_name(unsigned bit);
/* npyg_warning_info(NPYG_WARNINGS_ZIP, bit)->text; "unknown warning" for
   a bit that is not one. */
NPYG_DEPRECATED("npyg_warning_info(NPYG_WARNINGS_ZIP, bit)->text")
NPYG_API const char *npyg_zip_warning_string(unsigned bit);
/* npyg_warning_info(NPYG_WARNINGS_ZIP, bit)->name; NULL for a bit that is
   not one. */
NPYG_DEPRECATED("npyg_warning_info(NPYG_WARNINGS_ZIP, bit)->name")
NPYG_API const char *npyg_zip_warning_name(unsigned bit);
/* npyg_warning_info(NPYG_WARNINGS_PROBE, bit)->text; "unknown warning" for
   a bit that is not one. */
NPYG_DEPRECATED("npyg_warning_info(NPYG_WARNINGS_PROBE, bit)->text")
NPYG_API const char *npyg_probe_warning_string(unsigned bit);

#ifdef __cplusplus
}
#endif
#endif /* NPYGUARD_COMPAT_H */
