/* SPDX-License-Identifier: BSD-3-Clause */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>
#include "npyguard.h"

int main(int argc, char **argv)
{
    if (argc != 2) return 2;
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) { perror(argv[1]); return 2; }
    npyg_ctx *ctx = npyg_ctx_new(NULL);   /* numpy profile, safe limits */
    npyg_set_input_fd(ctx, fd);           /* or a buffer, a callback */
    int rc = npyg_validate(ctx);
    if (rc != NPYG_OK) {
        const npyg_error *e = npyg_last_error(ctx);
        printf("%s:%" PRIu64 ": %s: %s\n", argv[1], e->offset, npyg_error_class(rc), e->message);
    } else {
        const npyg_info *in = npyg_get_info(ctx);
        printf("shape=(");
        for (uint32_t i = 0; i < in->ndim; i++) printf("%s%" PRIu64, i ? ", " : "", in->shape[i]);
        printf(") payload at byte %" PRIu64 "\n", in->data_offset);
    }
    npyg_ctx_free(ctx);
    close(fd);
    return rc != NPYG_OK;
}
