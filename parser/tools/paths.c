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
#include <fcntl.h>
#include <poll.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* A list is read with read(2) into a buffer that holds the record being
   cut, so the run knows when the next record is not there yet: a batch
   then stops at what has arrived, and a worker waits for more with the
   lock released (find | npyvalidate --files-from - gives verdicts as
   paths arrive). */
#define LIST_CHUNK 65536
#define LIST_MAX_RECORD 65536 /* bytes of one path in a list, at most */

static bool list_open(source *s, const char *name)
{
    int fd = strcmp(name, "-") == 0 ? STDIN_FILENO : open(name, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st;
    s->list_fd = fd;
    s->list_name = name;
    s->list_regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (!s->list_regular) s->streamed = true;
    s->list_eof = s->list_long = false;
    s->lstart = s->lend = 0;
    return true;
}

static void list_close(source *s)
{
    if (s->list_fd > STDIN_FILENO) close(s->list_fd);
    s->list_fd = -1;
}

/* A whole record is in the buffer, or the list has ended. */
static bool list_has_record(const source *s)
{
    int delim = s->o->null_list ? '\0' : '\n';
    return s->list_eof || (s->lend > s->lstart && memchr(s->lbuf + s->lstart, delim, s->lend - s->lstart) != NULL);
}

/* More bytes into the buffer (blocking); false at the end or on an error
   (*err set). */
static bool list_fill(source *s, int *err)
{
    if (s->lstart > 0) { /* keep the record being cut at the front */
        memmove(s->lbuf, s->lbuf + s->lstart, s->lend - s->lstart);
        s->lend -= s->lstart;
        s->lstart = 0;
    }
    if (s->lcap - s->lend < LIST_CHUNK) {
        size_t cap = s->lcap ? s->lcap * 2 : 2 * LIST_CHUNK;
        char *b = realloc(s->lbuf, cap);
        if (!b) die_oom();
        s->lbuf = b;
        s->lcap = cap;
    }
    for (;;) {
        ssize_t n = read(s->list_fd, s->lbuf + s->lend, s->lcap - s->lend);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) { /* a non-blocking descriptor we were given */
            struct pollfd p = {.fd = s->list_fd, .events = POLLIN};
            poll(&p, 1, -1);
            continue;
        }
        if (n < 0) *err = errno;
        if (n <= 0) return false;
        s->lend += (size_t)n;
        return true;
    }
}

/* The next path of the list being read, or false at its end (a read
   error leaves a record). One record in memory at a time: a list of a
   hundred million paths costs its longest line, not its length. */
static bool list_next(source *s, job *j)
{
    int delim = s->o->null_list ? '\0' : '\n';
    for (;;) {
        char *rec = s->lbuf ? s->lbuf + s->lstart : NULL; /* no buffer before the first read */
        char *cut = s->lend > s->lstart ? memchr(rec, delim, s->lend - s->lstart) : NULL;
        int err = 0;
        if (!cut && s->lend - s->lstart > LIST_MAX_RECORD) {
            /* No path is this long (PATH_MAX is 4096): the record is
               dropped as it streams past, with one record saying so, and
               memory stays bounded by this length, not the list's. */
            if (!s->list_long) {
                s->list_long = true;
                *j = (job){.path = dup_or_die(s->list_name), .kind = ENTRY_LIST_LONG};
                s->lstart = s->lend = 0;
                return true;
            }
            s->lstart = s->lend = 0;
        }
        if (cut && s->list_long) { /* the end of the record being dropped */
            s->list_long = false;
            s->lstart += (size_t)(cut - rec) + 1;
            continue;
        }
        if (s->list_long && s->list_eof) {
            s->list_long = false;
            s->lstart = s->lend;
        }
        if (!cut && !s->list_eof && list_fill(s, &err)) continue;
        if (!cut && !s->list_eof) {
            s->list_eof = true;
            if (err) {
                list_close(s);
                *j = (job){.path = dup_or_die(s->list_name), .kind = ENTRY_LIST_ERROR, .err = err};
                s->lstart = s->lend = 0;
                return true;
            }
            continue;
        }
        if (!cut && s->lstart == s->lend) { /* the end */
            list_close(s);
            return false;
        }
        size_t n = cut ? (size_t)(cut - rec) : s->lend - s->lstart; /* the last record may lack its delimiter */
        s->lstart += n + (cut ? 1 : 0);
        if (!s->o->null_list)
            while (n > 0 && rec[n - 1] == '\r') n--;
        if (n == 0) continue; /* blank lines (empty records) name nothing */
        char *path = malloc(n + 1);
        if (!path) die_oom();
        memcpy(path, rec, n);
        path[n] = '\0';
        /* a NUL inside a line: not a path the list can mean */
        *j = (job){.path = path, .kind = memchr(rec, '\0', n) ? ENTRY_LIST_NUL : ENTRY_CHECK};
        return true;
    }
}

bool source_ready(const source *s)
{
    if (s->walk_pos < s->nwalked || s->list_fd < 0 || s->list_regular || list_has_record(s)) return true;
    struct pollfd p = {.fd = s->list_fd, .events = POLLIN};
    return poll(&p, 1, 0) != 0;
}

int source_wait_fd(const source *s)
{
    return source_ready(s) ? -1 : s->list_fd;
}

void source_init(source *s, const options *o, const arglist *args)
{
    *s = (source){.o = o, .args = args, .list_fd = -1};
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
        if (s->list_fd >= 0) {
            if (list_next(s, j)) return true;
            continue;
        }
        if (s->next_arg >= s->args->n) return false;
        const input_arg *a = &s->args->v[s->next_arg++];
        if (a->list) {
            if (!list_open(s, a->text)) {
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
    free(s->lbuf);
    list_close(s);
    *s = (source){.list_fd = -1};
}
