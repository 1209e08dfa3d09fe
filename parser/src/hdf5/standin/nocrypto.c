/* SPDX-License-Identifier: BSD-3-Clause */
/* A stand-in for libcrypto in the HDF5 helper (see helper.c): the three
 * functions libhdf5's S3 driver links to sign requests, each failing.
 * Loaded under libcrypto's soname, with the symbol version libhdf5 asks
 * for (nocrypto.map).
 */
#include <stddef.h>

const void *EVP_sha256(void) { return NULL; }

unsigned char *HMAC(const void *md, const void *key, int key_len, const unsigned char *data, size_t n,
                    unsigned char *out, unsigned int *out_len)
{
    (void)md, (void)key, (void)key_len, (void)data, (void)n, (void)out, (void)out_len;
    return NULL;
}

unsigned char *SHA256(const unsigned char *data, size_t n, unsigned char *out)
{
    (void)data, (void)n, (void)out;
    return NULL;
}
