/* SPDX-License-Identifier: BSD-3-Clause */
/* Built only into npyg-hdf5-helper-escape, for tests: a child whose input
 * starts with "NPYG-ESCAPE <name>\n" tries that escape once the cage is
 * in force, as code running in a compromised libhdf5 would, and reports
 * what happened on its record pipe:
 *
 *   refused with an errno  E 119 "escape <name> refused: errno N"
 *   it worked              E 0   "escape <name> was not stopped"
 *   killed by the filter   (nothing: the parent sees SIGSYS)
 *
 * The last few escapes speak the record protocol wrongly instead: the
 * parent must take each as the file's verdict (NPYG_EHDF5_PROTOCOL).
 * The load-* ones send load records (h5internal.h) that lie, or die in
 * the middle of a value; load-repeat names the whole file as the value
 * of 300,000 datasets, each record well formed, so that only a budget of
 * the bytes accepted from one file can end it.
 * Targets are chosen so that a call that got through would do no harm
 * (signal 0, pid 1, paths that do not exist).
 */
#define _GNU_SOURCE
#include "h5io.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define NO "/nonexistent-npyg-escape"

/* A .npy header (version 1.0) for descr and shape, as numpy spells it. */
static size_t npy(char *out, const char *descr, const char *shape)
{
    char text[128];
    int n = snprintf(text, sizeof text, "{'descr': %s, 'fortran_order': False, 'shape': %s, }", descr, shape);
    size_t total = (10 + (size_t)n + 1 + 63) / 64 * 64, hl = total - 10;
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (char)(hl & 0xff);
    out[9] = (char)(hl >> 8);
    memcpy(out + 10, text, (size_t)n);
    memset(out + 10 + n, ' ', total - 11 - (size_t)n);
    out[total - 1] = '\n';
    return total;
}

/* 300,000 datasets, each "read from the file" at offset 0, the file's
   size long. */
static void load_repeat(uint64_t size, int out)
{
    char buf[512], shape[32];
    snprintf(shape, sizeof shape, "(%llu,)", (unsigned long long)size);
    size_t hl = npy(buf, "'|u1'", shape);
    (void)!write(out, "G\t/\n", 4);
    for (unsigned i = 0; i < 300000u; i++) {
        char line[64];
        int n = snprintf(line, sizeof line, "D\t/x%u\tarray\t-\tat:0\n", i);
        if (write(out, line, (size_t)n) != n || write(out, buf, hl) != (ssize_t)hl) _exit(0);
    }
    npyg__h5_send_end(out, 0, "");
    _exit(0);
}

/* The load records that lie or stop short; 0 when name is none of them. */
static int load_lie(const char *name, int out)
{
    char buf[4096];
    size_t o = 0;
    if (!strncmp(name, "load-", 5)) {
        /* a dataset "read from the file": past its end, or at its start */
        const char *space = !strcmp(name, "load-at-past-end") ? "at:1000000000000"
                            : !strcmp(name, "load-at-start") ? "at:0"
                                                             : "simple";
        o = (size_t)snprintf(buf, sizeof buf, "G\t/\n");
        o += (size_t)snprintf(buf + o, sizeof buf - o, "D\t/x\t%s\t-\t%s\n",
                              !strcmp(name, "load-wrong-count") ? "str" : "array", space);
    }
    if (!strcmp(name, "load-crashes") || !strcmp(name, "load-exits")) {
        o += npy(buf + o, "'<f8'", "(1000,)");
        memset(buf + o, 0, 800);
        (void)!write(out, buf, o + 800);
        if (!strcmp(name, "load-crashes")) __builtin_trap(); /* a crash, as in libhdf5 */
        _exit(0);
    }
    if (!strcmp(name, "load-wrong-count")) {
        o += npy(buf + o, "'<u8'", "(1,)");
        memcpy(buf + o, "\x05\0\0\0\0\0\0\0", 8);
        o += 8;
        o += npy(buf + o, "'|u1'", "(3,)");
        memcpy(buf + o, "abc", 3);
        o += 3;
    } else if (!strcmp(name, "load-object")) {
        o += npy(buf + o, "'|O'", "(1,)");
        memcpy(buf + o, "\x80\x04N.", 4);
        o += 4;
    } else if (!strcmp(name, "load-fortran")) {
        o += npy(buf + o, "'<f8'", "(2, 2)");
        char *t = memmem(buf, o, "False", 5);
        memcpy(t, "True, ", 6); /* "False, " becomes "True,  " */
        memset(buf + o, 0, 32);
        o += 32;
    } else if (!strcmp(name, "load-at-past-end") || !strcmp(name, "load-at-start")) {
        o += npy(buf + o, "'|u1'", "(16,)"); /* the header only: the bytes are the file's */
    } else if (!strcmp(name, "load-in-scan")) {
        o = (size_t)snprintf(buf, sizeof buf, "G\t/\n");
    } else {
        return 0;
    }
    o += (size_t)snprintf(buf + o, sizeof buf - o, "E\t0\t\n");
    (void)!write(out, buf, o);
    _exit(0);
}

static long run(const char *name, int out, uint64_t size)
{
    char byte;
    struct iovec local = {&byte, 1}, remote = {(void *)4096, 1};
    struct io_uring_params up;
    memset(&up, 0, sizeof up);
    if (!strcmp(name, "getpid")) return syscall(SYS_getpid); /* the control: allowed */
    if (!strcmp(name, "openat")) return syscall(SYS_openat, AT_FDCWD, "/etc/passwd", O_RDONLY);
    if (!strcmp(name, "open")) return syscall(SYS_open, "/etc/passwd", O_RDONLY);
    if (!strcmp(name, "io_uring_setup")) return syscall(SYS_io_uring_setup, 1, &up);
    if (!strcmp(name, "pidfd_open")) return syscall(SYS_pidfd_open, 1, 0);
    if (!strcmp(name, "pidfd_getfd")) return syscall(SYS_pidfd_getfd, 3, 0, 0);
    if (!strcmp(name, "kill")) return syscall(SYS_kill, 1, 0);
    if (!strcmp(name, "tgkill")) return syscall(SYS_tgkill, 1, 1, 0);
    if (!strcmp(name, "ptrace")) return syscall(SYS_ptrace, PTRACE_ATTACH, 1, 0, 0);
    if (!strcmp(name, "process_vm_readv")) return syscall(SYS_process_vm_readv, 1, &local, 1, &remote, 1, 0);
    if (!strcmp(name, "clone")) return syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
    if (!strcmp(name, "clone3")) return syscall(SYS_clone3, NULL, 0);
    if (!strcmp(name, "fork")) return syscall(SYS_fork);
    if (!strcmp(name, "vfork")) return syscall(SYS_vfork);
    if (!strcmp(name, "execve")) return syscall(SYS_execve, "/bin/true", NULL, NULL);
    if (!strcmp(name, "socket")) return syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
    if (!strcmp(name, "bpf")) return syscall(SYS_bpf, 0, NULL, 0);
    if (!strcmp(name, "userfaultfd")) return syscall(SYS_userfaultfd, 0);
    if (!strcmp(name, "perf_event_open")) return syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0);
    if (!strcmp(name, "keyctl")) return syscall(SYS_keyctl, 0, 0, 0, 0, 0);
    if (!strcmp(name, "mount")) return syscall(SYS_mount, "none", NO, "tmpfs", 0, NULL);
    if (!strcmp(name, "mkdir")) return syscall(SYS_mkdirat, AT_FDCWD, NO, 0700);
    if (!strcmp(name, "unlink")) return syscall(SYS_unlinkat, AT_FDCWD, NO, 0);
    if (!strcmp(name, "rename")) return syscall(SYS_renameat2, AT_FDCWD, NO, AT_FDCWD, NO "2", 0);
    if (!strcmp(name, "creat")) return syscall(SYS_creat, NO, 0600);
    if (!strcmp(name, "write-other")) return syscall(SYS_write, 1, "x", 1);
    if (!strcmp(name, "write-input")) return syscall(SYS_pwrite64, 3, "x", 1, 0);
    if (!strcmp(name, "mmap-exec"))
        return (long)syscall(SYS_mmap, NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    /* the record protocol, broken */
    static const char *const lies[][2] = {
        {"code-not-its-own", "E\t3\tfine\n"},       /* a .npy code */
        {"code-ok-then-more", "E\t0\t\nO\t0\t0\tgroup\t-\t-\t/\t\n"},
        {"garbage", "this is not a record\n"},
        {"kind-unknown", "O\t0\t0\tsoftlink\t-\t-\t/x\t\n"}, /* no kind of npyg_hdf5_kind */
    };
    for (size_t i = 0; i < sizeof lies / sizeof lies[0]; i++)
        if (!strcmp(name, lies[i][0])) {
            (void)!write(out, lies[i][1], strlen(lies[i][1]));
            _exit(0);
        }
    load_lie(name, out);
    if (!strcmp(name, "load-repeat")) load_repeat(size, out);
    if (!strcmp(name, "end-then-spin")) {
        /* an end the parent takes, the pipe closed, and no exit: the
           helper ends it when the next file comes, or that file's end
           would wait behind it */
        npyg__h5_send_end(out, 0, "");
        close(out);
        for (;;) {
        }
    }
    if (!strcmp(name, "long-line")) {
        char line[3 * NPYG__H5_LINE];
        memset(line, 'x', sizeof line);
        (void)!write(out, line, sizeof line);
        _exit(0);
    }
    errno = EINVAL;
    return -2;
}

void npyg__h5_escape(const char *image, size_t size, int out)
{
    static const char tag[] = "NPYG-ESCAPE ";
    if (size < sizeof tag || memcmp(image, tag, sizeof tag - 1)) return;
    char name[32] = "";
    for (size_t i = 0; i + 1 < sizeof name && sizeof tag - 1 + i < size; i++) {
        char c = image[sizeof tag - 1 + i];
        if (c == '\n') break;
        name[i] = c;
    }
    long rc = run(name, out, size);
    char msg[128];
    if (rc == -2) snprintf(msg, sizeof msg, "no escape named '%s'", name);
    else if (rc < 0) snprintf(msg, sizeof msg, "escape %s refused: errno %d", name, errno);
    else snprintf(msg, sizeof msg, "escape %s was not stopped", name);
    npyg__h5_send_end(out, rc < 0 ? NPYG_EHDF5_OBJECT : 0, msg);
    _exit(0);
}
