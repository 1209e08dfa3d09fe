/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The child's seccomp filter (parser/src/hdf5/sandbox.c). The helper
 * compiles it once with a placeholder where the child's pid goes, and each
 * child puts its own pid in; a child with no such program compiles its own
 * with libseccomp. Checked here:
 *  - for several pids, the program a child would load is, instruction for
 *    instruction, the one libseccomp compiles for that pid;
 *  - in a forked child, each way of loading it leaves what the list allows
 *    (a signal to itself) and kills what it does not (a signal to another
 *    process, a call outside the list) with SIGSYS.
 * Usage: test_hdf5_filter
 */
#define _GNU_SOURCE
#include "h5internal.h"
#include "testutil.h"

#include <linux/filter.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void same_program(pid_t pid)
{
    static struct sock_filter patched[NPYG__H5_PROGRAM_MAX], compiled[NPYG__H5_PROGRAM_MAX];
    unsigned a = npyg__h5_child_program(pid, patched, NPYG__H5_PROGRAM_MAX);
    unsigned b = npyg__h5_child_compile(pid, compiled, NPYG__H5_PROGRAM_MAX);
    TU_CHECK(b > 0, "pid %d: libseccomp compiled nothing", (int)pid);
    TU_CHECK(a == b, "pid %d: %u instructions patched, %u compiled", (int)pid, a, b);
    for (unsigned i = 0; a == b && i < a; i++)
        TU_CHECK(!memcmp(&patched[i], &compiled[i], sizeof patched[i]),
              "pid %d: instruction %u differs: code %#x k %#x against code %#x k %#x", (int)pid, i,
              patched[i].code, patched[i].k, compiled[i].code, compiled[i].k);
}

enum { SELF, OTHER, OUTSIDE };

/* A child that loads the filter and then does what (SELF: signal 0 to
   itself, allowed; OTHER: signal 0 to its parent; OUTSIDE: getuid, not on
   the child's list): its wait status. */
static int run(int what)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || npyg__h5_child_filter() != 0) _exit(3);
        switch (what) {
        case SELF:
            _exit(kill(getpid(), 0) == 0 ? 0 : 4);
        case OTHER:
            _exit(kill(parent, 0) == 0 ? 5 : 6);
        default:
            syscall(SYS_getuid);
            _exit(7);
        }
    }
    int st = -1;
    while (pid > 0 && waitpid(pid, &st, 0) < 0)
        ;
    return st;
}

static void caged(const char *how)
{
    int st = run(SELF);
    TU_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: a signal to itself: status %#x", how, st);
    st = run(OTHER);
    TU_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS, "%s: a signal to another pid: status %#x", how, st);
    st = run(OUTSIDE);
    TU_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS, "%s: getuid: status %#x", how, st);
}

int main(void)
{
    struct sock_filter none[1];
    TU_CHECK(npyg__h5_child_program(getpid(), none, 1) == 0, "a program before the helper compiled one");
    caged("compiled in the child");

    npyg__h5_child_filter_prepare();
    static struct sock_filter p[NPYG__H5_PROGRAM_MAX];
    TU_CHECK(npyg__h5_child_program(getpid(), p, NPYG__H5_PROGRAM_MAX) > 0, "no program compiled once");
    TU_CHECK(npyg__h5_child_program(getpid(), p, 1) == 0, "a program into too small a buffer");
    const pid_t pids[] = {1, 2, 300, 65535, 4194304, getpid()};
    for (size_t i = 0; i < sizeof pids / sizeof pids[0]; i++) same_program(pids[i]);
    caged("compiled once");

    return tu_finish();
}
