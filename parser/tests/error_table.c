/* SPDX-License-Identifier: BSD-3-Clause */
/* Prints the library's table of codes, one per line:
 * code, name, class, text and whether it blames the environment, separated
 * by tabs. The documents that list the codes are checked against it
 * (test_error_docs.py), so they cannot drift from errors.c. */
#include <npyguard.h>

#include <stdio.h>
#include <string.h>

int main(void)
{
    for (int code = 0; code < NPYG_STATUS_END_; code++) {
        const char *name = npyg_error_name(code);
        if (!strcmp(name, "?")) continue; /* a gap between ranges */
        printf("%d\t%s\t%s\t%s\t%d\n", code, name, npyg_error_class(code), npyg_strerror(code),
               npyg_error_is_environment(code));
    }
    return 0;
}
