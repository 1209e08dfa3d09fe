#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tu_passed, tu_failed;
const char *tu_current = "";

static void *tu_malloc(void *user, size_t n)
{
    tu_alloc *t = user;
    long k = t->calls++;
    if (k == t->fail_at) return NULL;
    if (t->now + n > t->cap) {
        t->refused++;
        return NULL;
    }
    t->now += n;
    if (t->now > t->peak) t->peak = t->now;
    return malloc(n);
}

static void tu_free(void *user, void *p, size_t n)
{
    tu_alloc *t = user;
    t->now -= n;
    free(p);
}

void tu_alloc_init(tu_alloc *t, uint64_t cap)
{
    memset(t, 0, sizeof *t);
    t->cap = cap;
    t->fail_at = -1;
}

npyg_alloc tu_allocator(tu_alloc *t)
{
    npyg_alloc a = {tu_malloc, tu_free, t};
    return a;
}

long long tu_chunked_read(void *user, void *buf, size_t n)
{
    tu_chunks *c = user;
    c->seed = c->seed * 1103515245u + 12345u;
    size_t k = 1 + (c->seed >> 16) % (c->max ? c->max : 7);
    if (k > n) k = n;
    if (k > c->len - c->pos) k = c->len - c->pos;
    memcpy(buf, c->p + c->pos, k);
    c->pos += k;
    return (long long)k;
}

unsigned char *tu_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(n > 0 ? (size_t)n : 1);
    if (b && n > 0 && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)(n > 0 ? n : 0);
    return b;
}

int tu_code_of(const char *name)
{
    for (int c = 0; c < 256; c++)
        if (strcmp(npyg_error_name(c), name) == 0) return c;
    return -1;
}
