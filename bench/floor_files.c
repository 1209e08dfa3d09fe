/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * floor_files: the least any validator of many small files must do. For
 * each path: open read-only, pread the first 4 KiB, fstat (the size tells
 * whether the payload is all there), close. Nothing is parsed.
 *
 * --stat-first: the least a reader must do that, like npyvalidate, never
 * opens what is not a regular file (a device can act when opened, a FIFO
 * can block): stat the path first and open only a regular file, whose
 * size the stat gave; no fstat after.
 *
 *   floor_files [-j THREADS] [--stat-first] LIST
 *
 * LIST has one path per line, read like npyvalidate --files-from reads it.
 * Prints the number of files and of bytes read; exit status 2 if a file
 * cannot be opened or read.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct work {
    char **paths;
    size_t n;
    atomic_size_t next;
    atomic_ullong bytes;
    atomic_int failed;
    int stat_first;
} work;

static void *worker(void *arg)
{
    work *w = arg;
    unsigned char buf[4096];
    unsigned long long bytes = 0;
    for (;;) {
        size_t k = atomic_fetch_add(&w->next, 1);
        if (k >= w->n) break;
        struct stat st;
        if (w->stat_first && (stat(w->paths[k], &st) != 0 || !S_ISREG(st.st_mode))) {
            atomic_store(&w->failed, 1);
            continue;
        }
        int fd = open(w->paths[k], O_RDONLY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0) { atomic_store(&w->failed, 1); continue; }
        ssize_t got = pread(fd, buf, sizeof buf, 0);
        if (got < 0 || (!w->stat_first && fstat(fd, &st) != 0) || st.st_size < (off_t)got) atomic_store(&w->failed, 1);
        else bytes += (unsigned long long)got;
        close(fd);
    }
    atomic_fetch_add(&w->bytes, bytes);
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = 1, stat_first = 0;
    const char *list = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-j") && i + 1 < argc) threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--stat-first")) stat_first = 1;
        else list = argv[i];
    }
    if (!list || threads < 1 || threads > 256) {
        fputs("usage: floor_files [-j THREADS] [--stat-first] LIST\n", stderr);
        return 2;
    }
    FILE *f = fopen(list, "r");
    if (!f) { perror(list); return 2; }
    work w = {.stat_first = stat_first};
    size_t cap = 0;
    char *line = NULL;
    size_t lcap = 0;
    ssize_t len;
    while ((len = getline(&line, &lcap, f)) > 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
        if (!len) continue;
        if (w.n == cap) {
            cap = cap ? cap * 2 : 1024;
            char **p = realloc(w.paths, cap * sizeof *p);
            if (!p) return 2;
            w.paths = p;
        }
        w.paths[w.n] = strdup(line);
        if (!w.paths[w.n]) return 2;
        w.n++;
    }
    free(line);
    fclose(f);

    pthread_t th[256];
    for (int t = 0; t < threads; t++)
        if (pthread_create(&th[t], NULL, worker, &w) != 0) return 2;
    for (int t = 0; t < threads; t++) pthread_join(th[t], NULL);
    printf("%zu files, %llu bytes read\n", w.n, (unsigned long long)atomic_load(&w.bytes));
    for (size_t k = 0; k < w.n; k++) free(w.paths[k]);
    free(w.paths);
    return atomic_load(&w.failed) ? 2 : 0;
}
