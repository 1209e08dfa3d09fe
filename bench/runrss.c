/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * runrss: runs a command and writes its wall time and peak resident set
 * size to a file: "SECONDS MAXRSS_KIB EXIT_STATUS\n".
 *
 *   runrss OUTFILE COMMAND [ARG...]
 *
 * Why not the benchmark driver's own wait4: a process inherits, in its
 * ru_maxrss, the resident size of whatever forked it (the peak is carried
 * across exec), so a command started from Python reports at least
 * Python's size. Started from this small program it reports its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fputs("usage: runrss OUTFILE COMMAND [ARG...]\n", stderr);
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) { perror("fork"); return 2; }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        perror(argv[2]);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    /* The only child, so RUSAGE_CHILDREN is exactly its usage. */
    if (waitpid(pid, &status, 0) < 0 || getrusage(RUSAGE_CHILDREN, &ru) != 0) { perror("waitpid"); return 2; }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    FILE *f = fopen(argv[1], "w");
    if (!f) { perror(argv[1]); return 2; }
    fprintf(f, "%.6f %ld %d\n", (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9,
            ru.ru_maxrss, rc);
    fclose(f);
    return rc;
}
