/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The leading magics: which format a file's first bytes name. npyg_detect
 * (mat.c, beside the HDF5 search and the MAT header it also needs) is
 * what a caller asks; this is its first step, and a stream's whole answer.
 * A new format adds its signature here.
 */
#include "internal.h"

#include <string.h>

/* A zip archive starts with a local file header, or, empty, with the end
   of central directory record (APPNOTE 4.3.7, 4.3.16). */
int npyg_is_zip(const void *buf, size_t len)
{
    return buf && len >= 4 && (memcmp(buf, "PK\x03\x04", 4) == 0 || memcmp(buf, "PK\x05\x06", 4) == 0);
}

int npyg_is_ra(const void *buf, size_t len)
{
    return buf && len >= 8 && memcmp(buf, NPYG__RA_MAGIC, 8) == 0;
}

npyg_format npyg_sniff_format(const void *buf, size_t len)
{
    if (!buf) return NPYG_FORMAT_UNKNOWN;
    if (len >= NPYG__MAGIC_LEN && memcmp(buf, NPYG__MAGIC, NPYG__MAGIC_LEN) == 0) return NPYG_FORMAT_NPY;
    if (npyg_is_zip(buf, len)) return NPYG_FORMAT_NPZ; /* as np.load decides */
    if (npyg_is_ra(buf, len)) return NPYG_FORMAT_RA;
    return NPYG_FORMAT_UNKNOWN;
}
