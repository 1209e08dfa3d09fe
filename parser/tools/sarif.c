/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --sarif: the refusals of a run as one SARIF 2.1.0 log (OASIS), the
 * format code-scanning services take. A result for each refused file,
 * archive member or HDF5 object; the rule is the error's name, from the
 * library's table, as are its class and text.
 */
#include "npyvalidate.h"

#include <stdlib.h>
#include <string.h>

/* Codes are dense below this; the table is walked, never copied. */
#define CODE_END 256

static bool known_code(int code)
{
    const char *n = npyg_error_name(code);
    return code != 0 && n && strncmp(n, "NPYG_E", 6) == 0;
}

/* What a result's level says to a reviewer: a file proven wrong or unsafe
   is an error; one npyguard chose not to check (unsupported), could not
   read (io, usage) or that only breaks the strict profile, a warning. */
static const char *level_of(int code)
{
    const char *c = npyg_error_class(code);
    if (!strcmp(c, "strict") || !strcmp(c, "unsupported") || !strcmp(c, "io") || !strcmp(c, "usage"))
        return "warning";
    return "error";
}

static int rule_index(int code)
{
    int k = 0;
    for (int c = 1; c < code && c < CODE_END; c++) k += known_code(c);
    return k;
}

static void json_str0(FILE *to, const char *s)
{
    strbuf b = {0};
    sb_json_str(&b, s, strlen(s));
    fputs(b.p, to);
    free(b.p);
}

void sarif_begin(FILE *to)
{
    fputs("{\"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\", \"version\": \"2.1.0\", \"runs\": [{"
          "\"tool\": {\"driver\": {\"name\": \"npyvalidate\", \"version\": ",
          to);
    json_str0(to, npyg_version_string());
    fputs(", \"rules\": [", to);
    bool first = true;
    for (int c = 1; c < CODE_END; c++) {
        if (!known_code(c)) continue;
        fprintf(to, "%s\n{\"id\": \"%s\", \"shortDescription\": {\"text\": ", first ? "" : ",", npyg_error_name(c));
        json_str0(to, npyg_strerror(c));
        fprintf(to, "}, \"defaultConfiguration\": {\"level\": \"%s\"}, \"properties\": {\"code\": %d, \"class\": \"%s\"}}",
                level_of(c), c, npyg_error_class(c));
        first = false;
    }
    fputs("]}}, \"columnKind\": \"unicodeCodePoints\", \"originalUriBaseIds\": {\"%SRCROOT%\": {\"description\": "
          "{\"text\": \"the directory npyvalidate ran in\"}}}, \"results\": [\n",
          to);
}

void sarif_end(FILE *to)
{
    fputs("\n]}]}\n", to);
}

/* RFC 3986: a path's bytes as a URI reference. Unreserved characters and
   '/' stay; every other byte, non-UTF-8 ones included, is %XX. */
static void sb_uri_path(strbuf *b, const char *p, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        unsigned char c = (unsigned char)p[k];
        bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                    c == '.' || c == '_' || c == '~' || c == '/';
        if (keep) sb_put(b, (const char *)&c, 1);
        else sb_printf(b, "%%%02X", c);
    }
}

void sarif_result(strbuf *b, const char *path, int code, const char *message, uint64_t offset, int offset_space,
                  const char *where, const char *name, size_t name_len)
{
    if (b->len) sb_puts(b, ",\n");
    const char *rule = known_code(code) ? npyg_error_name(code) : "NPYG_EUNKNOWN";
    sb_printf(b, "{\"ruleId\": \"%s\", ", rule);
    if (known_code(code)) sb_printf(b, "\"ruleIndex\": %d, ", rule_index(code));
    sb_printf(b, "\"level\": \"%s\", \"message\": {\"text\": ", level_of(code));
    /* the text a person reads: what inside the file, then why */
    strbuf text = {0};
    if (where) {
        sb_printf(&text, "%s '", where);
        sb_put(&text, name, name_len);
        sb_puts(&text, "': ");
    }
    sb_puts(&text, message);
    sb_json_str(b, text.p, text.len);
    free(text.p);

    /* relative paths against the checkout (%SRCROOT%), absolute ones as
       file: URIs; "./" is not part of a file's name */
    const char *p = path;
    while (p[0] == '.' && p[1] == '/') p += 2;
    sb_puts(b, "}, \"locations\": [{\"physicalLocation\": {\"artifactLocation\": {\"uri\": \"");
    if (p[0] == '/') sb_puts(b, "file://");
    sb_uri_path(b, p, strlen(p));
    sb_puts(b, p[0] == '/' ? "\"}" : "\", \"uriBaseId\": \"%SRCROOT%\"}");
    /* a binary file has no lines; line 1 lets a viewer show the file, the
       byte offset says where when it counts the file's own bytes */
    sb_puts(b, ", \"region\": {\"startLine\": 1");
    if (offset_space == NPYG_OFFSET_FILE || offset_space == NPYG_OFFSET_ARCHIVE) {
        sb_puts(b, ", \"byteOffset\": ");
        sb_json_u64(b, offset);
    }
    sb_puts(b, "}}");
    if (where) {
        sb_printf(b, ", \"logicalLocations\": [{\"kind\": \"%s\", \"fullyQualifiedName\": ", where);
        sb_json_str(b, name, name_len);
        sb_puts(b, "}]");
    }
    /* The same refusal in the same file is the same alert from run to run:
       a viewer cannot hash the lines of a binary file, so the fingerprint
       is the rule and what inside the file it concerns. */
    strbuf fp = {0};
    sb_printf(&fp, "%s:%s:", rule, where ? where : "file");
    if (where) sb_put(&fp, name, name_len);
    sb_puts(b, "}], \"partialFingerprints\": {\"npyvalidate/v1\": ");
    sb_json_str(b, fp.p, fp.len);
    free(fp.p);
    sb_printf(b, "}, \"properties\": {\"code\": %d, \"class\": \"%s\"", code, npyg_error_class(code));
    if (offset_space >= 0) {
        sb_printf(b, ", \"offset\": ");
        sb_json_u64(b, offset);
        sb_printf(b, ", \"offset_in\": \"%s\"", npyg_offset_space_name(offset_space));
    }
    sb_puts(b, "}}");
}
