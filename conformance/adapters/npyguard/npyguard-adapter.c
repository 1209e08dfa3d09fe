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
    if (json_is_true(json_object_get(r, "ok")) && json_is_true(json_object_get(r, "archive"))) {
        /* npz mode: one entry per .npy member npyvalidate read */
        json_object_set_new(out, "ok", json_true());
        json_t *list = json_array();
        const json_t *mem = json_object_get(r, "members");
        for (size_t k = 0; k < json_array_size(mem); k++) {
            const json_t *m = json_array_get(mem, k);
            if (!json_is_true(json_object_get(m, "npy"))) continue;
            json_t *o = json_object();
            json_object_set(o, "name", json_object_get(m, "name"));
            copy_fields(o, m);
            json_array_append_new(list, o);
        }
        json_object_set_new(out, "members", list);
        rc = 0;
    } else if (json_is_true(json_object_get(r, "ok"))) {
        json_object_set_new(out, "ok", json_true());
        copy_fields(out, r);
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
