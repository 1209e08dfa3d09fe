/* SPDX-License-Identifier: BSD-3-Clause */
/* A program built against an installed npyguard: validates the v1.0 file
   numpy writes for np.arange(3.0) and prints the library's version. */
#include <stdio.h>
#include <string.h>

#include "npyguard.h"

int main(void)
{
    static const char head[] = "\x93NUMPY\x01\x00\x76\x00{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }";
    unsigned char f[128 + 24];
    memset(f, ' ', sizeof f);
    memcpy(f, head, sizeof head - 1);
    f[127] = '\n';
    memset(f + 128, 0, 24);
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    npyg_set_input_buffer(ctx, f, sizeof f);
    int rc = npyg_validate(ctx);
    const npyg_info *in = npyg_get_info(ctx);
    printf("npyguard %s: %s, data at %llu\n", npyg_version_string(), rc ? npyg_error_name(rc) : "ok",
           in ? (unsigned long long)in->data_offset : 0ULL);
    npyg_ctx_free(ctx);
    return rc != 0;
}
