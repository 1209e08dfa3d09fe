/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which format a file is, from its first bytes: the one place a tool asks
 * before it picks a validator. A new format adds its signature here.
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
