/* SPDX-License-Identifier: BSD-3-Clause */
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

/* One UTF-8 sequence at s (n > 0 bytes left): its length, or 0 when it is
   not UTF-8 (a bad lead or continuation, an overlong form, a surrogate,
   past U+10FFFF, cut short). */
static size_t utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned char c = s[0];
    if (c < 0x80) { *cp = c; return 1; }
    size_t len;
    uint32_t v, min;
    if (c >= 0xC2 && c <= 0xDF) { len = 2; v = c & 0x1Fu; min = 0x80; }
    else if (c >= 0xE0 && c <= 0xEF) { len = 3; v = c & 0x0Fu; min = 0x800; }
    else if (c >= 0xF0 && c <= 0xF4) { len = 4; v = c & 0x07u; min = 0x10000; }
    else return 0;
    if (len > n) return 0;
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xC0) != 0x80) return 0;
        v = v << 6 | (s[k] & 0x3Fu);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
    *cp = v;
    return len;
}

/* What Python's str.isprintable() refuses, and so repr() escapes, as far
   as a terminal can be driven by it: controls (Cc), format characters
   (Cf: bidi embeddings, overrides and isolates, zero-width characters,
   tags), separators other than the space (Zs, Zl, Zp), private use (Co)
   and noncharacters. Unassigned code points are not tracked. */
static bool is_printable(uint32_t c)
{
    static const uint32_t no[][2] = {
        {0x00, 0x1F},       {0x7F, 0xA0},       {0xAD, 0xAD},       {0x600, 0x605},     {0x61C, 0x61C},
        {0x6DD, 0x6DD},     {0x70F, 0x70F},     {0x890, 0x891},     {0x8E2, 0x8E2},     {0x1680, 0x1680},
        {0x180E, 0x180E},   {0x2000, 0x200F},   {0x2028, 0x202F},   {0x205F, 0x2064},   {0x2066, 0x206F},
        {0x3000, 0x3000},   {0xD800, 0xF8FF},   {0xFDD0, 0xFDEF},   {0xFEFF, 0xFEFF},   {0xFFF9, 0xFFFB},
        {0x110BD, 0x110BD}, {0x110CD, 0x110CD}, {0x13430, 0x1343F}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A},
        {0xE0000, 0xE0FFF}, {0xF0000, 0x10FFFF},
    };
    if ((c & 0xFFFE) == 0xFFFE) return false; /* U+xxFFFE, U+xxFFFF */
    for (size_t k = 0; k < sizeof no / sizeof no[0]; k++)
        if (c >= no[k][0] && c <= no[k][1]) return false;
    return true;
}

/* Text a person reads: what Python's repr() would escape is written as
   \xNN, \uNNNN or \UNNNNNNNN, a byte that is not UTF-8 as \xNN, so that a
   name can neither drive a terminal (escape sequences, C1 controls, bidi
   overrides) nor start a line of its own. */
void sb_text(strbuf *b, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < n) {
        size_t run = i; /* printable ASCII, copied as one piece */
        while (run < n && s[run] >= 0x20 && s[run] < 0x7F) run++;
        if (run > i) { sb_put(b, str + i, run - i); i = run; continue; }
        uint32_t cp;
        size_t len = utf8_next(s + i, n - i, &cp);
        if (len && is_printable(cp)) sb_put(b, str + i, len);
        else if (!len) sb_printf(b, "\\x%02x", s[i]);
        else if (cp <= 0xFF) sb_printf(b, "\\x%02x", (unsigned)cp);
        else if (cp <= 0xFFFF) sb_printf(b, "\\u%04x", (unsigned)cp);
        else sb_printf(b, "\\U%08x", (unsigned)cp);
        i += len ? len : 1;
    }
}

void sb_text0(strbuf *b, const char *s) { sb_text(b, s, strlen(s)); }

void fput_text(FILE *to, const char *s)
{
    strbuf b = {0};
    sb_text0(&b, s);
    if (b.p) fputs(b.p, to);
    free(b.p);
}

/* JSON string, always valid UTF-8: a byte sequence that is not UTF-8
   becomes U+FFFD; controls and what repr() escapes are written as \u
   escapes (a JSON reader gets the character back, a terminal never sees
   it). Returns false when something was replaced, i.e. when the string
   does not give the bytes back. */
bool sb_json_str(strbuf *b, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    bool exact = true;
    sb_puts(b, "\"");
    for (size_t i = 0; i < n;) {
        size_t run = i;
        while (run < n && s[run] >= 0x20 && s[run] < 0x7F && s[run] != '"' && s[run] != '\\') run++;
        if (run > i) { sb_put(b, str + i, run - i); i = run; continue; }
        unsigned char c = s[i];
        if (c == '"' || c == '\\') { char e[2] = {'\\', (char)c}; sb_put(b, e, 2); i++; continue; }
        uint32_t cp;
        size_t len = utf8_next(s + i, n - i, &cp);
        if (!len) { sb_puts(b, "\xEF\xBF\xBD"); exact = false; i++; continue; }
        if (is_printable(cp)) sb_put(b, str + i, len);
        else if (cp <= 0xFFFF) sb_printf(b, "\\u%04x", (unsigned)cp);
        else sb_printf(b, "\\u%04x\\u%04x", (unsigned)(0xD800 + ((cp - 0x10000) >> 10)),
                       (unsigned)(0xDC00 + ((cp - 0x10000) & 0x3FF)));
        i += len;
    }
    sb_puts(b, "\"");
    return exact;
}

/* "key": "text", and when the text is not UTF-8 also "key_bytes": the
   bytes in lowercase hex, so that a reader can map the object back to
   the file or member it names. */
void sb_json_name(strbuf *b, const char *key, const char *s, size_t n)
{
    sb_printf(b, "\"%s\": ", key);
    if (sb_json_str(b, s, n)) return;
    sb_printf(b, ", \"%s_bytes\": \"", key);
    for (size_t k = 0; k < n; k++) sb_printf(b, "%02x", (unsigned char)s[k]);
    sb_puts(b, "\"");
}

/* Integers above 2**53 are strings, so that every JSON reader keeps them. */
void sb_json_u64(strbuf *b, uint64_t v)
{
    if (v > (UINT64_C(1) << 53)) sb_printf(b, "\"%llu\"", (unsigned long long)v);
    else sb_printf(b, "%llu", (unsigned long long)v);
}
