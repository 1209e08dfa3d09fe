/* SPDX-License-Identifier: BSD-3-Clause */
/* The inputs: paths from the command line, a list file, or a directory walk. */
#include "npyvalidate.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_RECURSION 64

void take_path(pathlist *l, char *p)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        char **v = realloc(l->v, l->cap * sizeof *v);
        if (!v) die_oom();
        l->v = v;
    }
    l->v[l->n++] = p;
}

void add_path(pathlist *l, const char *p)
{
    char *copy = strdup(p);
    if (!copy) die_oom();
    take_path(l, copy);
}

const char *file_kind(unsigned mode)
{
    mode_t m = (mode_t)mode;
    if (S_ISREG(m)) return "a regular file";
    if (S_ISDIR(m)) return "a directory";
    if (S_ISFIFO(m)) return "a FIFO (named pipe)";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISSOCK(m)) return "a socket";
    if (S_ISLNK(m)) return "a symbolic link";
    return "a special file of unknown type";
}

static bool wanted(const char *name)
{
    size_t n = strlen(name);
    /* names pick files under a directory; the content picks the format */
    static const char *const ext[] = {".npy", ".npz", ".ra", ".mat", ".h5", ".hdf5"};
    for (size_t k = 0; k < sizeof ext / sizeof ext[0]; k++) {
        size_t e = strlen(ext[k]);
        if (n >= e && strcmp(name + n - e, ext[k]) == 0) return true;
    }
    return false;
}

/* "npyvalidate: NAME: what went wrong" on stderr, the name escaped; the
   exit status of an input that could not be listed. */
static int list_error(const char *name, const char *what)
{
    fputs("npyvalidate: ", stderr);
    fput_text(stderr, name);
    fprintf(stderr, ": %s\n", what);
    return 2;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Directory walk: sorted, symlinks not followed, depth bounded. */
int walk(pathlist *l, const char *dir, int depth)
{
    if (depth > MAX_RECURSION) {
        char what[64];
        snprintf(what, sizeof what, "directories nested deeper than %d", MAX_RECURSION);
        return list_error(dir, what);
    }
    DIR *d = opendir(dir);
    if (!d) return list_error(dir, strerror(errno));
    pathlist here = {0};
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *p = malloc(len);
        if (!p) die_oom();
        snprintf(p, len, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", e->d_name);
        add_path(&here, p);
        free(p);
    }
    closedir(d);
    qsort(here.v, here.n, sizeof *here.v, cmp_str);
    int status = 0;
    for (size_t k = 0; k < here.n; k++) {
        struct stat st;
        if (lstat(here.v[k], &st) != 0) continue;
        const char *base = strrchr(here.v[k], '/') + 1;
        if (S_ISDIR(st.st_mode)) {
            int s = walk(l, here.v[k], depth + 1);
            if (s > status) status = s;
        } else if (S_ISREG(st.st_mode) && wanted(base)) {
            add_path(l, here.v[k]);
        }
        free(here.v[k]);
    }
    free(here.v);
    return status;
}

int read_list(pathlist *l, const char *file)
{
    FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
    if (!f) return list_error(file, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) > 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
        if (n > 0) add_path(l, line);
    }
    free(line);
    if (f != stdin) fclose(f);
    return 0;
}
