/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * npyconform adapter for npyguard: runs `npyvalidate --json --hash` on one
 * file and rewrites its report in the protocol's form (PROTOCOL.md).
 *
 * npyvalidate is found through $NPYVALIDATE, else the path built into this
 * adapter (the build tree's npyvalidate), else "npyvalidate" on $PATH.
 * Exit status: 0 accepted, 1 refused, 2 npyvalidate could not be run or
 * could not read the file.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef NPYVALIDATE_PATH
#define NPYVALIDATE_PATH "npyvalidate"
#endif

/* npyvalidate writes a subarray as [base, shape]; the protocol writes
   {"base": ..., "shape": ...}. A list is a subarray when it has two items
   and the second is a list of integers (a struct's fields never are). */
static int is_shape(const json_t *v)
{
    if (!json_is_array(v)) return 0;
    size_t i;
    const json_t *d;
    json_array_foreach(v, i, d) {
        if (json_is_integer(d)) continue;
        if (!json_is_string(d)) return 0;
        const char *s = json_string_value(d);
        if (!*s) return 0;
        for (; *s; s++)
            if (*s < '0' || *s > '9') return 0;
    }
    return 1;
}

static json_t *convert_descr(const json_t *d)
{
    if (json_is_array(d) && json_array_size(d) == 2 && is_shape(json_array_get(d, 1)) &&
        (json_is_string(json_array_get(d, 0)) || json_is_array(json_array_get(d, 0)))) {
        json_t *o = json_object();
        json_object_set_new(o, "base", convert_descr(json_array_get(d, 0)));
        json_object_set(o, "shape", json_array_get(d, 1));
        return o;
    }
    if (json_is_array(d)) { /* struct: convert each field's type */
        json_t *out = json_array();
        size_t i;
        const json_t *f;
        json_array_foreach(d, i, f) {
            json_t *nf = json_copy((json_t *)f);
            if (json_is_array(nf) && json_array_size(nf) >= 2)
                json_array_set_new(nf, 1, convert_descr(json_array_get(f, 1)));
            json_array_append_new(out, nf);
        }
        return out;
    }
    return json_copy((json_t *)d);
}

/* Code page 437, bytes 0x80-0xFF (the zip format's default name encoding). */
static const unsigned short cp437_high[128] = {
    0x00C7, 0x00FC, 0x00E9, 0x00E2, 0x00E4, 0x00E0, 0x00E5, 0x00E7,
    0x00EA, 0x00EB, 0x00E8, 0x00EF, 0x00EE, 0x00EC, 0x00C4, 0x00C5,
    0x00C9, 0x00E6, 0x00C6, 0x00F4, 0x00F6, 0x00F2, 0x00FB, 0x00F9,
    0x00FF, 0x00D6, 0x00DC, 0x00A2, 0x00A3, 0x00A5, 0x20A7, 0x0192,
    0x00E1, 0x00ED, 0x00F3, 0x00FA, 0x00F1, 0x00D1, 0x00AA, 0x00BA,
    0x00BF, 0x2310, 0x00AC, 0x00BD, 0x00BC, 0x00A1, 0x00AB, 0x00BB,
    0x2591, 0x2592, 0x2593, 0x2502, 0x2524, 0x2561, 0x2562, 0x2556,
    0x2555, 0x2563, 0x2551, 0x2557, 0x255D, 0x255C, 0x255B, 0x2510,
    0x2514, 0x2534, 0x252C, 0x251C, 0x2500, 0x253C, 0x255E, 0x255F,
    0x255A, 0x2554, 0x2569, 0x2566, 0x2560, 0x2550, 0x256C, 0x2567,
    0x2568, 0x2564, 0x2565, 0x2559, 0x2558, 0x2552, 0x2553, 0x256B,
    0x256A, 0x2518, 0x250C, 0x2588, 0x2584, 0x258C, 0x2590, 0x2580,
    0x03B1, 0x00DF, 0x0393, 0x03C0, 0x03A3, 0x03C3, 0x00B5, 0x03C4,
    0x03A6, 0x0398, 0x03A9, 0x03B4, 0x221E, 0x03C6, 0x03B5, 0x2229,
    0x2261, 0x00B1, 0x2265, 0x2264, 0x2320, 0x2321, 0x00F7, 0x2248,
    0x00B0, 0x2219, 0x00B7, 0x221A, 0x207F, 0x00B2, 0x25A0, 0x00A0,
};

/* A member's name as the protocol wants it: the string numpy's key comes
   from. zipfile decodes a name without the UTF-8 flag as cp437, which
   npyvalidate flags with the zip warning "non_ascii_name" and prints as
   raw bytes ("name_bytes" in hex when they are not UTF-8). */
static json_t *member_name(const json_t *m)
{
    const json_t *name = json_object_get(m, "name");
    const json_t *warn = json_object_get(m, "zip_warnings");
    int cp437 = 0;
    size_t i;
    const json_t *w;
    json_array_foreach(warn, i, w) {
        if (json_is_string(w) && !strcmp(json_string_value(w), "non_ascii_name")) cp437 = 1;
    }
    if (!cp437) return json_incref((json_t *)name);
    unsigned char raw[4096];
    size_t n = 0;
    const char *hex = json_string_value(json_object_get(m, "name_bytes"));
    if (hex) {
        for (; hex[0] && hex[1] && n < sizeof raw; hex += 2) {
            unsigned v;
            if (sscanf(hex, "%2x", &v) != 1) break;
            raw[n++] = (unsigned char)v;
        }
    } else if (json_is_string(name)) {
        n = json_string_length(name);
        if (n > sizeof raw) n = sizeof raw;
        memcpy(raw, json_string_value(name), n);
    }
    char out[3 * sizeof raw + 1];
    size_t o = 0;
    for (size_t k = 0; k < n; k++) {
        unsigned cp = raw[k] < 0x80 ? raw[k] : cp437_high[raw[k] - 0x80];
        if (cp < 0x80) {
            out[o++] = (char)cp;
        } else if (cp < 0x800) {
            out[o++] = (char)(0xC0 | (cp >> 6));
            out[o++] = (char)(0x80 | (cp & 0x3F));
        } else {
            out[o++] = (char)(0xE0 | (cp >> 12));
            out[o++] = (char)(0x80 | ((cp >> 6) & 0x3F));
            out[o++] = (char)(0x80 | (cp & 0x3F));
        }
    }
    return json_stringn(out, o);
}

static int emit(json_t *o)
{
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!s) return 2;
    puts(s);
    free(s);
    return fflush(stdout) == 0 ? 0 : 2;
}

/* The protocol's fields of one array from npyvalidate's report of it. */
static void copy_fields(json_t *out, const json_t *r)
{
    json_object_set_new(out, "descr", convert_descr(json_object_get(r, "descr")));
    static const char *const copy[] = {"shape", "fortran_order", "itemsize", "payload_sha256"};
    for (size_t k = 0; k < sizeof copy / sizeof copy[0]; k++) {
        json_t *v = json_object_get(r, copy[k]);
        if (v) json_object_set(out, copy[k], v);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: npyguard-adapter FILE\n", stderr);
        return 2;
    }
    const char *tool = getenv("NPYVALIDATE");
    if (!tool || !*tool) tool = access(NPYVALIDATE_PATH, X_OK) == 0 ? NPYVALIDATE_PATH : "npyvalidate";

    int p[2];
    if (pipe(p) != 0) { perror("npyguard-adapter: pipe"); return 2; }
    pid_t pid = fork();
    if (pid < 0) { perror("npyguard-adapter: fork"); return 2; }
    if (pid == 0) {
        dup2(p[1], 1);
        close(p[0]);
        close(p[1]);
        execlp(tool, tool, "--json", "--hash", "-j", "1", "--", argv[1], (char *)NULL);
        fprintf(stderr, "npyguard-adapter: cannot run %s: %s\n", tool, strerror(errno));
        _exit(127);
    }
    close(p[1]);
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 > cap) {
            cap = cap ? cap * 2 : 8192;
            char *nb = realloc(buf, cap);
            if (!nb) { fputs("npyguard-adapter: out of memory\n", stderr); return 2; }
            buf = nb;
        }
        ssize_t n = read(p[0], buf + len, cap - len - 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        len += (size_t)n;
    }
    close(p[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (!WIFEXITED(status) || WEXITSTATUS(status) > 1) {
        fprintf(stderr, "npyguard-adapter: %s failed (status %d)\n", tool, status);
        return 2;
    }
    buf = buf ? buf : calloc(1, 1);
    buf[len] = '\0';

    json_error_t jerr;
    json_t *r = json_loads(buf, JSON_DISABLE_EOF_CHECK, &jerr);
    free(buf);
    if (!json_is_object(r)) {
        fprintf(stderr, "npyguard-adapter: unreadable npyvalidate output: %s\n", jerr.text);
        return 2;
    }
    json_t *out = json_object();
    int rc;
    /* a record keeps each format's fields under its name (schema/) */
    const char *format = json_string_value(json_object_get(r, "format"));
    if (!format) format = "";
    if (json_is_true(json_object_get(r, "ok")) && !strcmp(format, "npz")) {
        /* npz mode: one entry per .npy member npyvalidate read */
        json_object_set_new(out, "ok", json_true());
        json_t *list = json_array();
        const json_t *mem = json_object_get(json_object_get(r, "npz"), "members");
        for (size_t k = 0; k < json_array_size(mem); k++) {
            const json_t *m = json_array_get(mem, k);
            const json_t *npy = json_object_get(m, "npy");
            if (!json_is_object(npy)) continue;
            json_t *o = json_object();
            json_object_set_new(o, "name", member_name(m));
            copy_fields(o, npy);
            json_array_append_new(list, o);
        }
        json_object_set_new(out, "members", list);
        rc = 0;
    } else if (json_is_true(json_object_get(r, "ok")) && !strcmp(format, "ra")) {
        const json_t *ra = json_object_get(r, "ra");
        /* ra mode: the header as stored, and the hash of the data segment
           as stored (the LZ4 block of a compressed file) */
        json_object_set_new(out, "ok", json_true());
        static const char *const keys[] = {"flags", "eltype", "elbyte", "size", "dims"};
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
            json_t *v = json_object_get(ra, keys[k]);
            if (v) json_object_set(out, keys[k], v);
        }
        const json_t *dims = json_object_get(ra, "dims");
        if (json_is_array(dims)) json_object_set_new(out, "ndims", json_integer((json_int_t)json_array_size(dims)));
        json_t *h = json_object_get(ra, "payload_sha256");
        if (h) json_object_set(out, "data_sha256", h);
        rc = 0;
    } else if (json_is_true(json_object_get(r, "ok"))) {
        json_object_set_new(out, "ok", json_true());
        copy_fields(out, json_object_get(r, "npy"));
        rc = 0;
    } else {
        const json_t *e = json_object_get(r, "error");
        const char *name = json_string_value(json_object_get(e, "name"));
        const char *msg = json_string_value(json_object_get(e, "message"));
        if (name && !strcmp(name, "NPYG_EIO")) { /* not a verdict on the file's content */
            fprintf(stderr, "npyguard-adapter: %s\n", msg ? msg : "I/O error");
            json_decref(r);
            json_decref(out);
            return 2;
        }
        long long off = (long long)json_integer_value(json_object_get(e, "offset"));
        if (!name) name = "?";
        if (!msg) msg = "";
        int n = snprintf(NULL, 0, "%s: %s (offset %lld)", name, msg, off);
        char *text = malloc(n > 0 ? (size_t)n + 1 : 1);
        if (!text) { fputs("npyguard-adapter: out of memory\n", stderr); return 2; }
        snprintf(text, (size_t)n + 1, "%s: %s (offset %lld)", name, msg, off);
        json_object_set_new(out, "ok", json_false());
        json_object_set_new(out, "error", json_string(text));
        free(text);
        rc = 1;
    }
    json_decref(r);
    int w = emit(out);
    json_decref(out);
    return w ? w : rc;
}
