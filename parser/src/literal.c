/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The header text as a Python literal, read the way ast.literal_eval reads
 * it on CPython 3.11 (numpy's reader), without evaluating anything:
 * strings with every prefix, quote form and escape; implicit
 * concatenation; ints in every base with underscores; floats and complex
 * numbers (so that they can be refused where ints are needed); True, False,
 * None, Ellipsis; tuples, lists, dicts, sets; comments, continuation lines,
 * CPython's indentation rules; and, for v1/v2, the Python-2 'L' suffix that
 * numpy strips before parsing.
 *
 * Recursion is bounded by CPython's own limit of 200 nested brackets, and
 * every value takes at least one byte of text, so memory is bounded by the
 * header length.
 */
#include "internal.h"

#include <string.h>

typedef struct lexer {
    npyg_ctx *ctx;
    const unsigned char *s;
    size_t n;
    size_t i;
    int depth;          /* open brackets */
    const npyg__lit_opts *opts;
    unsigned *warnings;
    size_t value_end;   /* where the top-level value ends */
    size_t value_start; /* and where it starts */
} lexer;

/* How a number was written: ast.literal_eval allows a sign on a constant
   and real + imaginary, nothing more. */
enum { FORM_CONST = 0, FORM_SIGNED = 1, FORM_BINOP = 2 };

static int peek(const lexer *lx, size_t k)
{
    return lx->i + k < lx->n ? lx->s[lx->i + k] : -1;
}

static NPYG__PRINTF(4, 5) int fail(lexer *lx, int code, size_t at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = npyg__vfail(lx->ctx, code, lx->ctx->base + at, fmt, ap);
    va_end(ap);
    return rc;
}

static int syntax(lexer *lx, size_t at, const char *what)
{
    return fail(lx, NPYG_ESYNTAX, at, "%s", what);
}

bool npyg__same_tree(const npyg__value *a, const npyg__value *b)
{
    for (; a && b; a = a->next, b = b->next) {
        if (a->type != b->type || a->negative != b->negative || a->big != b->big ||
            a->py2long != b->py2long || a->offset != b->offset || a->u != b->u ||
            a->count != b->count || a->len != b->len)
            return false;
        if ((a->s || b->s) && (!a->s || !b->s || memcmp(a->s, b->s, a->len) != 0)) return false;
        if (!npyg__same_tree(a->child, b->child)) return false;
    }
    return a == NULL && b == NULL;
}

static int new_value(lexer *lx, npyg__vtype t, size_t at, npyg__value **out)
{
    return npyg__new_value(lx->ctx, t, at, 0, out);
}

static bool is_ident_start(int c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_ident_char(int c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }
static bool is_newline(int c) { return c == '\n' || c == '\r'; }

static void eat_newline(lexer *lx)
{
    if (peek(lx, 0) == '\r' && peek(lx, 1) == '\n') lx->i += 2;
    else lx->i += 1;
}

/* A backslash must be followed by a newline (line continuation). */
static int continuation(lexer *lx)
{
    if (!is_newline(peek(lx, 1)))
        return syntax(lx, lx->i, "unexpected character after line continuation character");
    lx->i++;
    eat_newline(lx);
    if (lx->i >= lx->n) return syntax(lx, lx->i, "unexpected end of header after line continuation");
    return 0;
}

static void skip_comment(lexer *lx)
{
    while (lx->i < lx->n && !is_newline(lx->s[lx->i])) lx->i++;
}

/* Skips what separates tokens. Inside brackets newlines are blanks too. */
static int skip_blank(lexer *lx)
{
    for (;;) {
        int c = peek(lx, 0);
        if (c == ' ' || c == '\t' || c == '\f') lx->i++;
        else if (c == '#') skip_comment(lx);
        else if (c == '\\') {
            int rc = continuation(lx);
            if (rc) return rc;
        } else if (is_newline(c) && lx->depth > 0) eat_newline(lx);
        else return 0;
    }
}

/* ---------------- strings ---------------- */

typedef struct str_prefix {
    bool raw, bytes, fmt;
} str_prefix;

/* Recognises a string prefix of 0-2 letters; false if s is not one. */
static bool parse_prefix(const unsigned char *p, size_t len, str_prefix *out)
{
    memset(out, 0, sizeof *out);
    bool u = false;
    for (size_t k = 0; k < len; k++) {
        switch (p[k] | 0x20) {
        case 'r': if (out->raw) return false; out->raw = true; break;
        case 'b': if (out->bytes) return false; out->bytes = true; break;
        case 'f': if (out->fmt) return false; out->fmt = true; break;
        case 'u': if (u) return false; u = true; break;
        default: return false;
        }
    }
    if (u && len != 1) return false;
    if (out->bytes && out->fmt) return false;
    return true;
}

/* Finds the end of the string body starting at lx->i (just past the
   opening quote). Returns the index of the closing quote. */
static int find_string_end(lexer *lx, int q, bool triple, size_t *end)
{
    size_t j = lx->i;
    while (j < lx->n) {
        int c = lx->s[j];
        if (c == '\\') {
            j += 1;
            if (j < lx->n && lx->s[j] == '\r' && j + 1 < lx->n && lx->s[j + 1] == '\n') j += 2;
            else if (j < lx->n) j += 1;
            continue;
        }
        if (c == q && (!triple || (j + 2 < lx->n && lx->s[j + 1] == q && lx->s[j + 2] == q))) {
            *end = j;
            return 0;
        }
        if (is_newline(c) && !triple) return syntax(lx, j, "unterminated string literal");
        j++;
    }
    return syntax(lx, lx->i, "unterminated string literal");
}

/* Decodes one string token body [b, e) into out; *written bytes. */
static int decode_body(lexer *lx, size_t b, size_t e, const str_prefix *pf, char *out, size_t *written)
{
    const unsigned char *s = lx->s;
    size_t o = 0;
    size_t j = b;
    while (j < e) {
        int c = s[j];
        if (c == '\r') { /* CPython reads \r\n and \r as \n in source */
            out[o++] = '\n';
            j += (j + 1 < e && s[j + 1] == '\n') ? 2 : 1;
            continue;
        }
        if (c >= 0x80) {
            if (pf->bytes) {
                return syntax(lx, j, "bytes can only contain ASCII literal characters");
            }
            if (lx->opts->latin1) o += npyg__utf8_put(out + o, (uint32_t)c);
            else out[o++] = (char)c; /* already valid UTF-8 */
            j++;
            continue;
        }
        if (c != '\\') { out[o++] = (char)c; j++; continue; }
        /* find_string_end steps over the character after each backslash,
           so the closing quote never follows one: j + 1 < e below. */
        if (pf->raw) { /* the backslash stays, and shields the next char */
            out[o++] = '\\';
            j++;
            if (s[j] != '\r' && s[j] < 0x80) out[o++] = (char)s[j++];
            continue;
        }
        size_t at = j;
        j++;
        int d = s[j];
        uint32_t cp;
        switch (d) {
        case '\n': j++; continue;
        case '\r': j += (j + 1 < e && s[j + 1] == '\n') ? 2 : 1; continue;
        case '\\': case '\'': case '"': out[o++] = (char)d; j++; continue;
        case 'a': out[o++] = '\a'; j++; continue;
        case 'b': out[o++] = '\b'; j++; continue;
        case 'f': out[o++] = '\f'; j++; continue;
        case 'n': out[o++] = '\n'; j++; continue;
        case 'r': out[o++] = '\r'; j++; continue;
        case 't': out[o++] = '\t'; j++; continue;
        case 'v': out[o++] = '\v'; j++; continue;
        case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7':
            cp = 0;
            for (int k = 0; k < 3 && j < e && s[j] >= '0' && s[j] <= '7'; k++) cp = cp * 8 + (uint32_t)(s[j++] - '0');
            /* Above \377 CPython 3.11 only warns; bytes keep the low byte. */
            if (pf->bytes) out[o++] = (char)(cp & 0xFF);
            else o += npyg__utf8_put(out + o, cp);
            continue;
        case 'x': {
            int h1 = j + 1 < e ? npyg__hexval(s[j + 1]) : -1;
            int h2 = j + 2 < e ? npyg__hexval(s[j + 2]) : -1;
            if (h1 < 0 || h2 < 0) {
                return syntax(lx, at, "truncated \\xXX escape");
            }
            cp = (uint32_t)(h1 * 16 + h2);
            j += 3;
            if (pf->bytes) out[o++] = (char)cp;
            else o += npyg__utf8_put(out + o, cp);
            continue;
        }
        case 'u': case 'U':
            if (pf->bytes) break;
            {
                int digits = d == 'u' ? 4 : 8;
                cp = 0;
                for (int k = 1; k <= digits; k++) {
                    int h = j + (size_t)k < e ? npyg__hexval(s[j + (size_t)k]) : -1;
                    if (h < 0) {
                        return syntax(lx, at, d == 'u' ? "truncated \\uXXXX escape" : "truncated \\UXXXXXXXX escape");
                    }
                    cp = cp * 16 + (uint32_t)h;
                }
                if (cp > 0x10FFFF) {
                    return syntax(lx, at, "illegal Unicode character in \\U escape");
                }
                if (cp >= 0xD800 && cp <= 0xDFFF) {
                    return fail(lx, NPYG_EUNSUPPORTED, at, "%s",
                         "lone surrogate escape in a string (not representable in UTF-8)");
                }
                j += (size_t)digits + 1;
                o += npyg__utf8_put(out + o, cp);
                continue;
            }
        case 'N':
            if (pf->bytes) break;
            return fail(lx, NPYG_EUNSUPPORTED, at, "%s", "\\N{...} named escapes are not supported");
        default:
            break;
        }
        /* Unknown escape: CPython keeps the backslash (with a warning). */
        out[o++] = '\\';
    }
    *written = o;
    return 0;
}

/* Length of the string prefix at the cursor if a string token starts
   there (0 for a bare quote), or -1. */
static int string_start(const lexer *lx)
{
    size_t k = 0;
    while (k < 3 && is_ident_start(peek(lx, k))) k++;
    int q = peek(lx, k);
    str_prefix pf;
    if ((q == '\'' || q == '"') && parse_prefix(lx->s + lx->i, k, &pf)) return (int)k;
    return -1;
}

/* One string token: its prefix, quoting and body [*b, *e); the cursor
   moves past it. */
static int scan_token(lexer *lx, size_t prefix_len, str_prefix *pf, size_t *b, size_t *e)
{
    size_t tok = lx->i;
    parse_prefix(lx->s + lx->i, prefix_len, pf);
    lx->i += prefix_len;
    if (pf->fmt) return fail(lx, NPYG_ENOTLITERAL, tok, "%s", "f-strings are not literals");
    int q = lx->s[lx->i];
    bool triple = peek(lx, 1) == q && peek(lx, 2) == q;
    lx->i += triple ? 3 : 1;
    *b = lx->i;
    int rc = find_string_end(lx, q, triple, e);
    if (rc) return rc;
    lx->i = *e + (triple ? 3 : 1);
    return 0;
}

/* One or more adjacent string tokens (implicit concatenation). A first
   pass checks the tokens and sizes the result, so the decoded string is
   allocated once, in space linear in the text. */
static int parse_strings(lexer *lx, size_t prefix_len, npyg__value **out)
{
    size_t start = lx->i;
    size_t body_total = 0;
    int kind = -1; /* 0 str, 1 bytes */
    for (int plen = (int)prefix_len; plen >= 0;) {
        size_t tok = lx->i, b = 0, e = 0;
        str_prefix pf;
        int rc = scan_token(lx, (size_t)plen, &pf, &b, &e);
        if (rc) return rc;
        if (kind >= 0 && kind != (int)pf.bytes)
            return syntax(lx, tok, "cannot mix bytes and nonbytes literals");
        kind = pf.bytes;
        body_total += e - b;
        rc = skip_blank(lx);
        if (rc) return rc;
        plen = string_start(lx);
    }
    size_t after = lx->i;

    /* Worst case two output bytes per input byte (latin1 to UTF-8). */
    char *buf = npyg__arena_alloc(&lx->ctx->arena, 2 * body_total + 1);
    if (!buf) return npyg__nomem(lx->ctx, lx->ctx->base + start);
    size_t len = 0;
    lx->i = start;
    for (int plen = (int)prefix_len; lx->i < after;) {
        size_t b = 0, e = 0;
        str_prefix pf;
        (void)scan_token(lx, (size_t)plen, &pf, &b, &e); /* cannot fail: the first pass passed */
        size_t w = 0;
        int rc = decode_body(lx, b, e, &pf, buf + len, &w);
        if (rc) return rc;
        len += w;
        (void)skip_blank(lx);
        plen = string_start(lx);
    }
    buf[len] = '\0';
    npyg__value *v;
    int vrc = new_value(lx, kind ? V_BYTES : V_STR, start, &v);
    if (vrc) return vrc;
    v->s = buf;
    v->len = len;
    *out = v;
    return 0;
}

/* ---------------- numbers ---------------- */

/* Consumes digits of one base with single underscores between them.
   Returns the number of digits, or -1 on a misplaced underscore. */
static long scan_digits(lexer *lx, int base, bool leading_underscore_ok,
                        uint64_t *mag, bool *big)
{
    long count = 0;
    for (;;) {
        int c = peek(lx, 0);
        if (c == '_') {
            if ((count == 0 && !leading_underscore_ok) || lx->i + 1 >= lx->n) return -1;
            int nx = lx->s[lx->i + 1];
            int dv = npyg__hexval(nx);
            if (dv < 0 || dv >= base) return -1;
            lx->i++;
            continue;
        }
        int dv = npyg__hexval(c);
        if (dv < 0 || dv >= base) return count;
        if (mag) {
            if (*mag > (UINT64_MAX - (uint64_t)dv) / (uint64_t)base) *big = true;
            else *mag = *mag * (uint64_t)base + (uint64_t)dv;
        }
        count++;
        lx->i++;
    }
}

static int parse_number(lexer *lx, npyg__value **out)
{
    size_t start = lx->i;
    uint64_t mag = 0;
    bool big = false;
    npyg__vtype t = V_INT;
    int c0 = peek(lx, 0), c1 = peek(lx, 1) | 0x20;
    if (c0 == '0' && (c1 == 'x' || c1 == 'o' || c1 == 'b')) {
        int base = c1 == 'x' ? 16 : c1 == 'o' ? 8 : 2;
        lx->i += 2;
        long nd = scan_digits(lx, base, true, &mag, &big);
        if (nd <= 0 || (peek(lx, 0) >= '0' && peek(lx, 0) <= '9'))
            return syntax(lx, start, base == 16 ? "invalid hexadecimal literal"
                                    : base == 8 ? "invalid octal literal" : "invalid binary literal");
    } else {
        long nd = 0;
        bool all_zero = true;
        if (c0 != '.') {
            size_t d0 = lx->i;
            nd = scan_digits(lx, 10, false, &mag, &big);
            if (nd < 0) return syntax(lx, start, "invalid decimal literal");
            long significant = 0;
            for (size_t k = d0; k < lx->i; k++) {
                if (lx->s[k] != '0' && lx->s[k] != '_') all_zero = false;
                if (!all_zero && lx->s[k] != '_') significant++;
            }
            /* CPython 3.11 refuses int literals of more than 4300 digits
               (leading zeros not counted). */
            if (significant > 4300 && !(peek(lx, 0) == '.' || (peek(lx, 0) | 0x20) == 'e' || (peek(lx, 0) | 0x20) == 'j'))
                return syntax(lx, start, "integer literal longer than 4300 digits");
        }
        if (peek(lx, 0) == '.') {
            t = V_FLOAT;
            lx->i++;
            if (scan_digits(lx, 10, false, NULL, NULL) < 0) return syntax(lx, start, "invalid decimal literal");
        }
        if ((peek(lx, 0) | 0x20) == 'e') {
            size_t save = lx->i;
            lx->i++;
            if (peek(lx, 0) == '+' || peek(lx, 0) == '-') lx->i++;
            long ne = scan_digits(lx, 10, false, NULL, NULL);
            if (ne <= 0) {
                lx->i = save;
                return syntax(lx, start, "invalid decimal literal");
            }
            t = V_FLOAT;
        }
        if ((peek(lx, 0) | 0x20) == 'j') {
            lx->i++;
            t = V_COMPLEX;
        }
        if (t == V_INT && !all_zero && lx->s[start] == '0')
            return syntax(lx, start, "leading zeros in decimal integer literals are not permitted");
    }

    /* An identifier glued to a number: only the Python-2 'L' of v1/v2. */
    size_t after = lx->i;
    bool py2 = false;
    {
        size_t j = lx->i;
        bool glued = true;
        for (;;) { /* spaces and continuations are not tokens for numpy's filter */
            if (j < lx->n && (lx->s[j] == ' ' || lx->s[j] == '\t' || lx->s[j] == '\f')) { j++; glued = false; }
            else if (j + 1 < lx->n && lx->s[j] == '\\' && is_newline(lx->s[j + 1])) {
                j += (lx->s[j + 1] == '\r' && j + 2 < lx->n && lx->s[j + 2] == '\n') ? 3 : 2;
                glued = false;
            } else break;
        }
        while (j < lx->n && lx->s[j] == 'L' && !(j + 1 < lx->n && (is_ident_char(lx->s[j + 1]) || lx->s[j + 1] >= 0x80))) {
            if (!lx->opts->allow_py2long)
                return fail(lx, NPYG_EPY2LONG, j, "%s",
                            "Python-2 'L' suffix is not allowed in a version 3.0 header");
            /* numpy's filter drops every 'L' name token after a number. */
            py2 = true;
            *lx->warnings |= NPYG_W_PY2LONG;
            lx->i = ++j;
            while (j < lx->n && (lx->s[j] == ' ' || lx->s[j] == '\t' || lx->s[j] == '\f')) j++;
        }
        if (!py2 && glued && lx->i < lx->n && (is_ident_char(lx->s[lx->i]) || lx->s[lx->i] >= 0x80)) {
            return syntax(lx, after, "invalid decimal literal");
        }
    }
    npyg__value *v;
    int vrc = new_value(lx, t, start, &v);
    if (vrc) return vrc;
    v->u = mag;
    v->big = big;
    v->py2long = py2;
    *out = v;
    return 0;
}

/* ---------------- expressions ---------------- */

static int parse_expr(lexer *lx, npyg__value **out, int *form);

static int open_bracket(lexer *lx)
{
    if (++lx->depth > NPYG__LITERAL_MAX_DEPTH) return syntax(lx, lx->i, "too many nested parentheses");
    lx->i++;
    return skip_blank(lx);
}

static int close_bracket(lexer *lx)
{
    lx->depth--;
    lx->i++;
    return 0;
}

static void append(npyg__value *list, npyg__value **tail, npyg__value *item)
{
    if (*tail) (*tail)->next = item;
    else list->child = item;
    *tail = item;
    list->count++;
}

/* Something follows a complete value where ',' or a bracket belongs.
   Operators, calls, subscripts and keyword expressions are Python that
   literal_eval refuses; anything else is a syntax error to CPython. */
static int unexpected_after_value(lexer *lx)
{
    int c = peek(lx, 0);
    if (c < 0) return syntax(lx, lx->i, "unexpected end of header: a bracket was never closed");
    if (strchr("+-*/%@&|^<>=!~.([", c))
        return fail(lx, NPYG_ENOTLITERAL, lx->i, "%s", "operator or expression that is not a literal");
    if (is_ident_start(c)) {
        static const char *const kw[] = {"if", "for", "and", "or", "not", "in", "is", "async"};
        size_t j = lx->i;
        while (j < lx->n && is_ident_char(lx->s[j])) j++;
        for (size_t k = 0; k < sizeof kw / sizeof kw[0]; k++)
            if (strlen(kw[k]) == j - lx->i && !memcmp(kw[k], lx->s + lx->i, j - lx->i))
                return fail(lx, NPYG_ENOTLITERAL, lx->i, "%s", "expression that is not a literal");
    }
    return syntax(lx, lx->i, "invalid syntax");
}

/* After an item inside brackets: ',' (then maybe the close) or the close.
   The item's parse_expr has already skipped the blanks after it. */
static int after_item(lexer *lx, int close, bool *done)
{
    int c = peek(lx, 0);
    if (c == close) { *done = true; return close_bracket(lx); }
    if (c == ',') {
        lx->i++;
        int rc = skip_blank(lx);
        if (rc) return rc;
        if (peek(lx, 0) == close) { *done = true; return close_bracket(lx); }
        *done = false;
        return 0;
    }
    return unexpected_after_value(lx);
}

/* Items up to the closing bracket; the opener has been consumed. */
static int parse_items(lexer *lx, npyg__value *list, npyg__value *tail, int close)
{
    bool done = false;
    while (!done) {
        npyg__value *item = NULL;
        int form = 0;
        int rc = parse_expr(lx, &item, &form);
        if (rc) return rc;
        append(list, &tail, item);
        rc = after_item(lx, close, &done);
        if (rc) return rc;
    }
    return 0;
}

static int parse_paren(lexer *lx, npyg__value **out, int *form)
{
    size_t start = lx->i;
    int rc = open_bracket(lx);
    if (rc) return rc;
    npyg__value *t;
    int vrc = new_value(lx, V_TUPLE, start, &t);
    if (vrc) return vrc;
    if (peek(lx, 0) == ')') {
        *out = t;
        return close_bracket(lx);
    }
    npyg__value *first = NULL;
    rc = parse_expr(lx, &first, form);
    if (rc) return rc;
    if (peek(lx, 0) == ')') { /* parentheses around a value make no node */
        *out = first;
        return close_bracket(lx);
    }
    *form = FORM_CONST;
    npyg__value *tail = NULL;
    append(t, &tail, first);
    *out = t;
    bool done;
    rc = after_item(lx, ')', &done);
    if (rc || done) return rc;
    return parse_items(lx, t, tail, ')');
}

/* What Python can hash: lists, dicts and sets cannot be set elements or
   dict keys, nor can a tuple holding one. literal_eval builds every set
   and dict, so this fails even where a later duplicate key wins. */
static bool hashable(const npyg__value *v)
{
    if (v->type == V_LIST || v->type == V_DICT || v->type == V_SET) return false;
    if (v->type == V_TUPLE)
        for (const npyg__value *x = v->child; x; x = x->next)
            if (!hashable(x)) return false;
    return true;
}

static int need_hashable(lexer *lx, const npyg__value *v)
{
    if (hashable(v)) return 0;
    return fail(lx, NPYG_ENOTLITERAL, v->offset, "%s", "unhashable value as a set element or dict key");
}

static int parse_brace(lexer *lx, npyg__value **out)
{
    size_t start = lx->i;
    int rc = open_bracket(lx);
    if (rc) return rc;
    npyg__value *d;
    int vrc = new_value(lx, V_DICT, start, &d);
    if (vrc) return vrc;
    *out = d;
    if (peek(lx, 0) == '}') return close_bracket(lx);
    if (peek(lx, 0) == '*')
        return fail(lx, NPYG_ENOTLITERAL, lx->i, "%s", "unpacking is not a literal");
    npyg__value *tail = NULL, *key = NULL;
    int form = 0;
    rc = parse_expr(lx, &key, &form);
    if (rc) return rc;
    if ((rc = need_hashable(lx, key))) return rc;
    if (peek(lx, 0) != ':') { /* a set display */
        d->type = V_SET;
        append(d, &tail, key);
        bool done;
        rc = after_item(lx, '}', &done);
        if (rc) return rc;
        if (done) return 0;
        rc = parse_items(lx, d, tail, '}');
        if (rc) return rc;
        for (const npyg__value *x = d->child; x; x = x->next)
            if ((rc = need_hashable(lx, x))) return rc;
        return 0;
    }
    for (;;) {
        if (peek(lx, 0) != ':') return syntax(lx, lx->i, "expected ':' after a dict key");
        lx->i++;
        rc = skip_blank(lx);
        if (rc) return rc;
        npyg__value *val = NULL;
        rc = parse_expr(lx, &val, &form);
        if (rc) return rc;
        if (tail) tail->next = key;
        else d->child = key;
        key->next = val;
        tail = val;
        d->count++;
        bool done;
        rc = after_item(lx, '}', &done);
        if (rc) return rc;
        if (done) return 0;
        if (peek(lx, 0) == '*')
            return fail(lx, NPYG_ENOTLITERAL, lx->i, "%s", "unpacking is not a literal");
        rc = parse_expr(lx, &key, &form);
        if (rc) return rc;
        if ((rc = need_hashable(lx, key))) return rc;
    }
}

static int parse_word(lexer *lx, npyg__value **out)
{
    size_t start = lx->i;
    size_t j = lx->i;
    while (j < lx->n && is_ident_char(lx->s[j])) j++;
    size_t len = j - start;
    int q = j < lx->n ? lx->s[j] : -1;
    str_prefix pf;
    if ((q == '\'' || q == '"') && len <= 2 && parse_prefix(lx->s + start, len, &pf))
        return parse_strings(lx, len, out);
    if (j < lx->n && lx->s[j] >= 0x80)
        return syntax(lx, j, "non-ASCII character outside a string");
    const char *w = (const char *)lx->s + start;
    npyg__value *v = NULL;
    int rc;
    if (len == 4 && !memcmp(w, "True", 4)) rc = new_value(lx, V_BOOL, start, &v);
    else if (len == 5 && !memcmp(w, "False", 5)) rc = new_value(lx, V_BOOL, start, &v);
    else if (len == 4 && !memcmp(w, "None", 4)) rc = new_value(lx, V_NONE, start, &v);
    else if (len == 3 && !memcmp(w, "set", 3)) {
        /* literal_eval's one call: set() with no arguments, the empty set. */
        lx->i = j;
        if ((rc = skip_blank(lx))) return rc;
        if (peek(lx, 0) != '(') return fail(lx, NPYG_ENOTLITERAL, start, "%s", "a name is not a literal");
        if ((rc = open_bracket(lx))) return rc;
        if (peek(lx, 0) != ')')
            return fail(lx, NPYG_ENOTLITERAL, start, "%s", "a call other than set() is not a literal");
        if ((rc = new_value(lx, V_SET, start, &v))) return rc;
        *out = v;
        return close_bracket(lx);
    } else return fail(lx, NPYG_ENOTLITERAL, start, "%s", "a name is not a literal");
    if (rc) return rc;
    if (len == 4 && w[0] == 'T') v->u = 1;
    lx->i = j;
    *out = v;
    return 0;
}

/* An atom: a constant or a display, without operators. */
static int parse_atom(lexer *lx, npyg__value **out, int *form)
{
    *form = FORM_CONST;
    int c = peek(lx, 0);
    if (c < 0) return syntax(lx, lx->i, "unexpected end of header");
    if ((c >= '0' && c <= '9') || (c == '.' && peek(lx, 1) >= '0' && peek(lx, 1) <= '9'))
        return parse_number(lx, out);
    if (c == '.' && peek(lx, 1) == '.' && peek(lx, 2) == '.') {
        npyg__value *v;
        int vrc = new_value(lx, V_ELLIPSIS, lx->i, &v);
        if (vrc) return vrc;
        lx->i += 3;
        *out = v;
        return 0;
    }
    if (c == '\'' || c == '"') return parse_strings(lx, 0, out);
    if (is_ident_start(c)) return parse_word(lx, out);
    if (c == '(') return parse_paren(lx, out, form);
    if (c == '[') {
        npyg__value *l;
        int vrc = new_value(lx, V_LIST, lx->i, &l);
        if (vrc) return vrc;
        int rc = open_bracket(lx);
        if (rc) return rc;
        *out = l;
        if (peek(lx, 0) == ']') return close_bracket(lx);
        return parse_items(lx, l, NULL, ']');
    }
    if (c == '{') return parse_brace(lx, out);
    if (c == '*' || c == '~' || c == '+' || c == '-' || c == '@')
        return fail(lx, NPYG_ENOTLITERAL, lx->i, "%s", "operator is not allowed here");
    if (c >= 0x80) return syntax(lx, lx->i, "non-ASCII character outside a string");
    if (c < 0x20 || c == 0x7f) return syntax(lx, lx->i, "invalid non-printable character");
    return syntax(lx, lx->i, "invalid syntax");
}

static bool is_real(const npyg__value *v) { return v->type == V_INT || v->type == V_FLOAT; }
static bool is_number(const npyg__value *v) { return is_real(v) || v->type == V_COMPLEX; }

/* A unary sign, an atom, and literal_eval's one binary form: real +/- imag. */
static int parse_expr(lexer *lx, npyg__value **out, int *form)
{
    size_t start = lx->i;
    int c = peek(lx, 0);
    npyg__value *v = NULL;
    int rc;
    if (c == '+' || c == '-') {
        lx->i++;
        rc = skip_blank(lx);
        if (rc) return rc;
        int f = 0;
        rc = parse_atom(lx, &v, &f);
        if (rc) return rc;
        if (!is_number(v) || f != FORM_CONST)
            return fail(lx, NPYG_ENOTLITERAL, start, "%s", "a sign applies only to a number");
        if (c == '-') v->negative = !v->negative;
        v->offset = (uint32_t)start;
        *form = FORM_SIGNED;
    } else {
        rc = parse_atom(lx, &v, form);
        if (rc) return rc;
    }
    rc = skip_blank(lx);
    if (rc) return rc;
    c = peek(lx, 0);
    /* A real part only: a value that already went through this sum is
       complex, parenthesised or not, so two sums never chain. */
    if ((c == '+' || c == '-') && is_real(v)) {
        size_t op = lx->i;
        lx->i++;
        rc = skip_blank(lx);
        if (rc) return rc;
        npyg__value *im = NULL;
        int f = 0;
        rc = parse_atom(lx, &im, &f);
        if (rc) return rc;
        if (im->type != V_COMPLEX || f != FORM_CONST)
            return fail(lx, NPYG_ENOTLITERAL, op, "%s", "arithmetic is not a literal");
        v->type = V_COMPLEX;
        *form = FORM_BINOP;
        rc = skip_blank(lx);
        if (rc) return rc;
    }
    *out = v;
    return 0;
}

/* ---------------- top level ---------------- */

/* Lines before the value: blank or comment lines, no indentation.
   v1/v2 headers first go through numpy's tokenize/untokenize pass, which
   rewrites what precedes a token on its line as one space per character
   (a form feed included) and drops the blanks before a backslash
   continuation; the result is then read by CPython as v3 text is. */
static int skip_leading_lines(lexer *lx)
{
    bool filtered = lx->opts->latin1;
    /* literal_eval strips spaces and tabs at the very start; for v1/v2,
       numpy's token filter has already turned the first line's form feeds
       into spaces. */
    while (peek(lx, 0) == ' ' || peek(lx, 0) == '\t' || (filtered && peek(lx, 0) == '\f')) lx->i++;
    int col = 0;
    for (;;) {
        int c = peek(lx, 0);
        if (c == ' ' || c == '\t') { col++; lx->i++; }
        else if (c == '\f') { col = filtered ? col + 1 : 0; lx->i++; }
        else if (c == '#') skip_comment(lx);
        else if (is_newline(c)) { eat_newline(lx); col = 0; }
        else if (c == '\\') {
            int rc = continuation(lx);
            if (rc) return rc;
            if (filtered) col = 0;
        } else if (c < 0) return syntax(lx, lx->i, "header is empty");
        else if (col > 0) return syntax(lx, lx->i, "unexpected indent");
        else return 0;
    }
}

/* After the value: newlines, blank and comment lines; a last line of only
   spaces or tabs is an "unexpected indent" to CPython. The blanks and
   comment on the value's own line are behind us: the value ends with
   parse_expr's skip_blank, or with one after a bare tuple's comma. */
static int check_trailing(lexer *lx)
{
    int c = peek(lx, 0);
    if (c < 0) return 0;
    if (!is_newline(c)) return unexpected_after_value(lx);
    eat_newline(lx);
    int col = 0;
    for (;;) {
        c = peek(lx, 0);
        if (c == ' ' || c == '\t') { col++; lx->i++; }
        else if (c == '\f') { col = 0; lx->i++; }
        else if (c == '#') skip_comment(lx);
        else if (is_newline(c)) { eat_newline(lx); col = 0; }
        else if (c < 0) {
            /* v1/v2: the token filter drops a last line of blanks. */
            if (col > 0 && !lx->opts->latin1) return syntax(lx, lx->i, "unexpected indent at the end of the header");
            return 0;
        } else return syntax(lx, lx->i, "unexpected text after the header value");
    }
}

static int parse_value(lexer *lx, npyg__value **out);

int npyg__parse_literal(npyg_ctx *ctx, const char *text, size_t len,
                        const npyg__lit_opts *opts, npyg__value **out,
                        unsigned *warnings)
{
    lexer lx = {ctx, (const unsigned char *)text, len, 0, 0, opts, warnings, SIZE_MAX, SIZE_MAX};
    int rc = parse_value(&lx, out);
    /* (latin1 comes with allow_py2long, both meaning v1/v2, so NPYG_EPY2LONG
       does not arise here.) */
    if (!opts->latin1 || (rc && rc != NPYG_ESYNTAX && rc != NPYG_ENOTLITERAL)) return rc;
    /* numpy's v1/v2 token filter reads lines as Python's tokenize does,
       where a CR alone ends no line; CPython's compiler, which reads the
       result, takes it as a line break. Before the value (a line that
       tokenize sees as one comment or blank line, brackets and 'L's
       included) and after a backslash (a continuation to one, not to the
       other) the readings differ, so npyguard declines those forms. */
    for (size_t cr = 0; cr < len && cr < lx.value_end; cr++) {
        if (text[cr] != '\r' || (cr + 1 < len && text[cr + 1] == '\n')) continue;
        /* cr > 0 here: the value cannot start at a CR, which
           skip_leading_lines takes as a line end. */
        if (cr >= lx.value_start && text[cr - 1] != '\\') continue;
        if (rc && ctx->err.offset < ctx->base + cr) return rc;
        memset(&ctx->err, 0, sizeof ctx->err);
        return npyg__fail(ctx, NPYG_EUNSUPPORTED, ctx->base + cr, "%s",
                          "a CR without LF before the value or after a backslash in a version 1.0/2.0 header");
    }
    return rc;
}

static int parse_value(lexer *lx, npyg__value **out)
{
    int rc = skip_leading_lines(lx);
    if (rc) return rc;
    lx->value_start = lx->i;
    npyg__value *v = NULL;
    int form = 0;
    size_t start = lx->i;
    rc = parse_expr(lx, &v, &form);
    if (rc) return rc;
    if (peek(lx, 0) == ',') { /* a bare tuple: 1, 2 */
        npyg__value *t;
        int vrc = new_value(lx, V_TUPLE, start, &t);
        if (vrc) return vrc;
        npyg__value *tail = NULL;
        append(t, &tail, v);
        while (peek(lx, 0) == ',') {
            lx->i++;
            rc = skip_blank(lx);
            if (rc) return rc;
            int c = peek(lx, 0); /* skip_blank took any comment */
            if (c < 0 || is_newline(c)) break;
            npyg__value *item = NULL;
            rc = parse_expr(lx, &item, &form);
            if (rc) return rc;
            append(t, &tail, item);
        }
        v = t;
    }
    lx->value_end = lx->i;
    rc = check_trailing(lx);
    if (rc) return rc;
    *out = v;
    return 0;
}
