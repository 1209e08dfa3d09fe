/* SPDX-License-Identifier: BSD-3-Clause */
/* Loading libhdf5 in the helper (see h5api.h for why).
 *
 * The table is the helper's: written once, under pthread_once, before its
 * first child, and only read afterwards.
 */
#define _GNU_SOURCE
#define NPYG__H5_TABLE_ONLY
#include "h5api.h"

#include "../internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* the package to install when libhdf5 will not load, as the build found it */
#ifndef NPYG_HDF5_PACKAGE
#define NPYG_HDF5_PACKAGE "libhdf5"
#endif

static npyg__h5api table;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int status = NPYG_EHDF5_UNAVAILABLE;
static char reason[256];

static void load(void)
{
    void *lib = dlopen(NPYG_HDF5_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(reason, sizeof reason, "cannot load %s (install %s): %s", NPYG_HDF5_SONAME, NPYG_HDF5_PACKAGE,
                 e ? e : "unknown error");
        return;
    }
    npyg__h5api t;
#define NPYG__H5_LOOKUP(name)                                                                      \
    *(void **)&t.name = dlsym(lib, #name);                                                         \
    if (!t.name) {                                                                                 \
        snprintf(reason, sizeof reason, "%s has no symbol %s", NPYG_HDF5_SONAME, #name);          \
        dlclose(lib);                                                                              \
        return;                                                                                    \
    }
    NPYG__H5_FUNCTIONS(NPYG__H5_LOOKUP)
    NPYG__H5_VARIABLES(NPYG__H5_LOOKUP)
#undef NPYG__H5_LOOKUP
    table = t;
    status = 0;
}

int npyg__h5_load(const char **why)
{
    pthread_once(&once, load);
    *why = reason;
    return status;
}

const npyg__h5api *npyg__h5_api(void) { return &table; }
