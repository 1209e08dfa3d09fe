/* SPDX-License-Identifier: BSD-3-Clause */
/* A stand-in for libcurl in the HDF5 helper (see helper.c): the functions
 * libhdf5's S3 driver links, each failing. npyguard never selects that
 * driver; if anything called these, it would get an error, not a network.
 * Loaded under libcurl's soname, with the symbol version libhdf5 asks for
 * (nocurl.map).
 */
#include <stddef.h>

enum { FAILED_INIT = 2 }; /* CURLE_FAILED_INIT */

int curl_global_init(long flags)
{
    (void)flags;
    return FAILED_INIT;
}

void curl_global_cleanup(void) {}

void *curl_easy_init(void) { return NULL; }

int curl_easy_setopt(void *handle, int option, ...)
{
    (void)handle, (void)option;
    return FAILED_INIT;
}

int curl_easy_perform(void *handle)
{
    (void)handle;
    return FAILED_INIT;
}

void curl_easy_cleanup(void *handle) { (void)handle; }

void *curl_slist_append(void *list, const char *string)
{
    (void)list, (void)string;
    return NULL;
}

void curl_slist_free_all(void *list) { (void)list; }
