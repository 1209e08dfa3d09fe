/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The inputs, one at a time and in order: paths from the command line,
 * lists read as they are consumed (never whole), and directory walks.
 * A gate fails closed: every entry a walk meets becomes a job, either a
 * file to check by its content or a record of why it was not checked
 * (a symbolic link, a special file, a directory that cannot be read, a
 * name that vanished), so nothing under a directory passes unseen.
 */
#include "npyvalidate.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_RECURSION 64

void add_arg(arglist *l, const char *text, bool list)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        input_arg *v = realloc(l->v, l->cap * sizeof *v);
        if (!v) die_oom();
        l->v = v;
    }
    char *copy = strdup(text);
    if (!copy) die_oom();
    l->v[l->n++] = (input_arg){copy, list};
}

void free_args(arglist *l)
{
    for (size_t k = 0; k < l->n; k++) free(l->v[k].text);
    free(l->v);
    *l = (arglist){0};
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

/* ---------------- directory walks ---------------- */

static void push(source *s, char *path, int kind, int err, unsigned mode)
{
    if (s->nwalked == s->walk_cap) {
        s->walk_cap = s->walk_cap ? s->walk_cap * 2 : 64;
        entry *v = realloc(s->walked, s->walk_cap * sizeof *v);
        if (!v) die_oom();
        s->walked = v;
    }
    s->walked[s->nwalked++] = (entry){path, kind, err, mode};
}

static char *dup_or_die(const char *p)
{
    char *c = strdup(p);
    if (!c) die_oom();
    return c;
}

/* --include: a walked file is checked when its name matches one of the
   globs (fnmatch, as find -name matches); with none, every file is. */
static bool included(const options *o, const char *base)
{
    if (!o->ninclude) return true;
    for (size_t k = 0; k < o->ninclude; k++)
        if (fnmatch(o->include[k], base, 0) == 0) return true;
    return false;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Sorted, symlinks not followed, depth bounded; every entry leaves a job. */
static void walk(source *s, const char *dir, int depth)
{
    if (depth > MAX_RECURSION) {
        push(s, dup_or_die(dir), ENTRY_TOO_DEEP, 0, 0);
        return;
    }
    DIR *d = opendir(dir);
    if (!d) {
        push(s, dup_or_die(dir), ENTRY_DIR_ERROR, errno, 0);
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    size_t dlen = strlen(dir);
    const char *sep = dlen && dir[dlen - 1] == '/' ? "" : "/";
    struct dirent *e;
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **v = realloc(names, cap * sizeof *v);
            if (!v) die_oom();
            names = v;
        }
        size_t len = dlen + strlen(sep) + strlen(e->d_name) + 1;
        char *p = malloc(len);
        if (!p) die_oom();
        snprintf(p, len, "%s%s%s", dir, sep, e->d_name);
        names[n++] = p;
        errno = 0;
    }
    int read_err = errno; /* readdir ends with NULL on an error too */
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    for (size_t k = 0; k < n; k++) {
        struct stat st;
        char *p = names[k];
        if (lstat(p, &st) != 0) {
            push(s, p, errno == ENOENT ? ENTRY_VANISHED : ENTRY_STAT_ERROR, errno, 0);
        } else if (S_ISDIR(st.st_mode)) {
            walk(s, p, depth + 1);
            free(p);
        } else if (S_ISLNK(st.st_mode)) {
            push(s, p, ENTRY_SYMLINK, 0, (unsigned)st.st_mode);
        } else if (!S_ISREG(st.st_mode)) {
            push(s, p, ENTRY_SPECIAL, 0, (unsigned)st.st_mode);
        } else {
            push(s, p, included(s->o, strrchr(p, '/') + 1) ? ENTRY_CHECK : ENTRY_EXCLUDED, 0, 0);
        }
    }
    free(names);
    if (read_err) push(s, dup_or_die(dir), ENTRY_DIR_ERROR, read_err, 0);
}

/* ---------------- lists ---------------- */

/* The next path of the list being read, or false at its end (a read
   error leaves a record). One record in memory at a time: a list of a
   hundred million paths costs its longest line, not its length. */
static bool list_next(source *s, job *j)
{
    int delim = s->o->null_list ? '\0' : '\n';
    for (;;) {
        errno = 0;
        ssize_t n = getdelim(&s->line, &s->line_cap, delim, s->list);
        if (n < 0) {
            int err = ferror(s->list) ? (errno ? errno : EIO) : 0;
            if (s->list != stdin) fclose(s->list);
            s->list = NULL;
            if (!err) return false;
            *j = (job){.path = dup_or_die(s->list_name), .kind = ENTRY_LIST_ERROR, .err = err};
            return true;
        }
        if (n > 0 && s->line[n - 1] == delim) s->line[--n] = '\0';
        if (!s->o->null_list)
            while (n > 0 && s->line[n - 1] == '\r') s->line[--n] = '\0';
        if (n == 0) continue; /* blank lines (empty records) name nothing */
        if (strlen(s->line) != (size_t)n) { /* a NUL inside a line: not a path the list can mean */
            *j = (job){.path = dup_or_die(s->line), .kind = ENTRY_LIST_NUL};
            return true;
        }
        *j = (job){.path = dup_or_die(s->line), .kind = ENTRY_CHECK};
        return true;
    }
}

void source_init(source *s, const options *o, const arglist *args)
{
    *s = (source){.o = o, .args = args};
}

bool source_next(source *s, job *j)
{
    for (;;) {
        if (s->walk_pos < s->nwalked) {
            entry *e = &s->walked[s->walk_pos++];
            *j = (job){.path = e->path, .kind = e->kind, .err = e->err, .mode = e->mode};
            return true;
        }
        s->walk_pos = s->nwalked = 0;
        if (s->list) {
            if (list_next(s, j)) return true;
            continue;
        }
        if (s->next_arg >= s->args->n) return false;
        const input_arg *a = &s->args->v[s->next_arg++];
        if (a->list) {
            s->list_name = a->text;
            s->list = strcmp(a->text, "-") == 0 ? stdin : fopen(a->text, "re");
            if (!s->list) {
                *j = (job){.path = dup_or_die(a->text), .kind = ENTRY_LIST_ERROR, .err = errno};
                return true;
            }
            continue;
        }
        struct stat st;
        if (s->o->recursive && strcmp(a->text, "-") && stat(a->text, &st) == 0 && S_ISDIR(st.st_mode)) {
            walk(s, a->text, 0);
            continue;
        }
        *j = (job){.path = dup_or_die(a->text), .kind = ENTRY_CHECK};
        return true;
    }
}

void source_free(source *s)
{
    for (size_t k = s->walk_pos; k < s->nwalked; k++) free(s->walked[k].path);
    free(s->walked);
    free(s->line);
    if (s->list && s->list != stdin) fclose(s->list);
    *s = (source){0};
}
