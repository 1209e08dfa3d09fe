/* The text a report is built in, and JSON's strings and integers. */
#include "npyvalidate.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void die_oom(void)
{
    fputs("npyvalidate: out of memory\n", stderr);
    exit(2);
}

void sb_put(strbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) die_oom();
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void sb_puts(strbuf *b, const char *s) { sb_put(b, s, strlen(s)); }

void sb_printf(strbuf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n >= sizeof tmp) n = sizeof tmp - 1;
    sb_put(b, tmp, (size_t)n);
}

/* JSON string; bytes that are not UTF-8 are shown as their latin1 code points. */
void sb_json_str(strbuf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    sb_puts(b, "\"");
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') { char e[2] = {'\\', (char)c}; sb_put(b, e, 2); i++; continue; }
        if (c < 0x20 || c == 0x7f) {
            char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            sb_put(b, e, 6);
            i++;
            continue;
        }
        if (c < 0x80) { sb_put(b, (const char *)&c, 1); i++; continue; }
        size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
        bool ok = len && i + len <= n;
        for (size_t k = 1; ok && k < len; k++) ok = ((unsigned char)s[i + k] & 0xC0) == 0x80;
        if (ok) { sb_put(b, s + i, len); i += len; continue; }
        char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
        sb_put(b, e, 6);
        i++;
    }
    sb_puts(b, "\"");
}

/* Integers above 2**53 are strings, so that every JSON reader keeps them. */
void sb_json_u64(strbuf *b, uint64_t v)
{
    if (v > (UINT64_C(1) << 53)) sb_printf(b, "\"%llu\"", (unsigned long long)v);
    else sb_printf(b, "%llu", (unsigned long long)v);
}
