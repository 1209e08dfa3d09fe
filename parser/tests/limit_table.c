/* SPDX-License-Identifier: BSD-3-Clause */
/* Prints the library's table of limits, one per line: name, option,
 * format, default, smallest and largest value and the worst cases it
 * enters (NPYG_BOUND_* bits), separated by tabs. The documents that list
 * the limits are checked against it (test_limit_docs.py), so they cannot
 * drift from limits.c. */
#include <npyguard.h>

#include <stdio.h>

int main(void)
{
    for (int id = 0; id < NPYG_LIMIT_END_; id++) {
        const npyg_limit_desc *d = npyg_limit_info((npyg_limit)id);
        printf("%s\t%s\t%s\t%llu\t%llu\t%llu\t%u\n", d->name, d->option, d->format,
               (unsigned long long)d->default_value, (unsigned long long)d->min, (unsigned long long)d->max,
               d->bounds);
    }
    return 0;
}
