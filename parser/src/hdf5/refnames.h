/* SPDX-License-Identifier: BSD-3-Clause */
/* Object references named as libhdf5 names them, once per file
 * (refnames.c). Not installed. */
#ifndef NPYG_REFNAMES_H
#define NPYG_REFNAMES_H

#include "h5api.h"

typedef struct npyg__h5_refnames {
    struct npyg__h5_refname *tab; /* open addressing by address; path NULL: empty */
    size_t cap, n;
    bool built, failed;
} npyg__h5_refnames;

/* The path H5Rget_name gives the object at addr ("/" for the root), and
   its length; NULL when the file's links do not reach it or the names
   could not be gathered (the caller then asks H5Rget_name itself). The
   first call visits the file once. */
const char *npyg__h5_refname(npyg__h5_refnames *m, hid_t file, haddr_t addr, size_t *len);
void npyg__h5_refnames_free(npyg__h5_refnames *m);

#endif
