/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The leading magics: which format a file's first bytes name. npyg_detect
 * (mat.c, beside the HDF5 search and the MAT header it also needs) is
 * what a caller asks; this is its first step, and a stream's whole answer.
 * A new format adds its signature here.
 */
#include "internal.h"

#include <string.h>

npyg_format npyg_sniff_format(const void *buf, size_t len)
{
    if (!buf) return NPYG_FORMAT_UNKNOWN;
    if (len >= NPYG__MAGIC_LEN && memcmp(buf, NPYG__MAGIC, NPYG__MAGIC_LEN) == 0) return NPYG_FORMAT_NPY;
    if (npyg_is_zip(buf, len)) return NPYG_FORMAT_NPZ; /* as np.load decides */
    if (npyg_is_ra(buf, len)) return NPYG_FORMAT_RA;
    return NPYG_FORMAT_UNKNOWN;
}
