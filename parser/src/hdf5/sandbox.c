/* The child's cage: resource limits, descriptors, and a seccomp filter.
 *
 * libhdf5 is not hardened against hostile files, and some HDF5 features
 * exist to make the library open other files (external links, external
 * raw-data storage, virtual datasets, filter plugins). The walk never asks
 * for them; the filter makes sure that libhdf5 cannot open anything either,
 * whatever the file makes it do: once the input is open, any system call
 * that opens a file, runs a program or makes a socket kills the child
 * (SIGSYS), and the parent reports that as the file's verdict.
 *
 * A deny list, not an allow list: the C library, libhdf5 and the
 * sanitizers' runtimes use system calls that vary with their versions,
 * while the calls that reach another file are few and stable.
 */
#define _GNU_SOURCE
#include "h5internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__linux__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define NPYG__ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NPYG__ASAN 1
#endif
#endif

static int set_limit(int resource, rlim_t soft, rlim_t hard)
{
    struct rlimit cur;
    if (getrlimit(resource, &cur) != 0) return -1;
    /* Never raise: an already lower limit stays. */
    if (cur.rlim_max != RLIM_INFINITY && hard > cur.rlim_max) hard = cur.rlim_max;
    if (soft > hard) soft = hard;
    struct rlimit r = {soft, hard};
    return setrlimit(resource, &r);
}

#if !defined(NPYG__ASAN)
/* VmSize and VmData of /proc/self/status, in bytes; -1 if unreadable. */
static int own_memory(rlim_t *vm, rlim_t *data)
{
    char buf[4096];
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t n = 0;
    ssize_t r;
    while (n < sizeof buf - 1 && ((r = read(fd, buf + n, sizeof buf - 1 - n)) > 0 || (r < 0 && errno == EINTR)))
        if (r > 0) n += (size_t)r;
    close(fd);
    buf[n] = '\0';
    int found = 0;
    for (char *line = buf; *line;) {
        rlim_t *to = strncmp(line, "VmSize:", 7) == 0 ? vm : strncmp(line, "VmData:", 7) == 0 ? data : NULL;
        if (to) {
            char *end;
            unsigned long long kib = strtoull(line + 7, &end, 10);
            if (end == line + 7 || strncmp(end, " kB", 3) != 0 || kib > UINT64_MAX >> 12) return -1;
            *to = (rlim_t)kib << 10;
            found++;
        }
        char *nl = strchr(line, '\n');
        if (!nl) break;
        line = nl + 1;
    }
    return found == 2 ? 0 : -1;
}
#endif

int npyg__h5_limit_child(const npyg_hdf5_limits *limits, int *in_fd, int *out_fd)
{
    /* The two descriptors the child keeps go to 3 and 4, everything else
       above 2 is closed, so that RLIMIT_NOFILE can be small. */
    int a = fcntl(*in_fd, F_DUPFD_CLOEXEC, 64), b = fcntl(*out_fd, F_DUPFD_CLOEXEC, 64);
    if (a < 0 || b < 0) return -1;
    if (dup2(a, 3) != 3 || dup2(b, 4) != 4) return -1;
#if defined(SYS_close_range)
    if (syscall(SYS_close_range, 5u, ~0u, 0u) != 0)
#endif
    {
        long max = sysconf(_SC_OPEN_MAX);
        if (max < 0 || max > 65536) max = 65536;
        for (int fd = 5; fd < max; fd++) close(fd);
    }
    *in_fd = 3;
    *out_fd = 4;
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        /* libhdf5 must not write into the caller's output. */
        dup2(null, 0);
        dup2(null, 1);
        if (null > 4) close(null);
    }

    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (set_limit(RLIMIT_CORE, 0, 0) != 0) return -1;
    if (set_limit(RLIMIT_FSIZE, 0, 0) != 0) return -1;
    if (set_limit(RLIMIT_NOFILE, NPYG__H5_NOFILE, NPYG__H5_NOFILE) != 0) return -1;
    /* SIGXCPU at the soft limit, SIGKILL a second later. */
    if (set_limit(RLIMIT_CPU, limits->child_cpu_seconds, (rlim_t)limits->child_cpu_seconds + 1) != 0)
        return -1;
#if !defined(NPYG__ASAN)
    /* AddressSanitizer reserves terabytes of address space for its shadow
       memory, so under it the child's memory is not capped (tests only).
       Otherwise child_memory is what the child may add to the memory it
       starts with: the caller's code and libraries, its heap and, when
       the caller is threaded, every thread's stack and malloc arena. A
       cap on the whole would depend on the caller (its -j, what it holds)
       and not on the file. Both limits: a thread's malloc arena is
       reserved in advance and made writable with mprotect, which the
       address-space limit does not see and the data limit does (Linux):
       in a child forked from a worker thread, the small allocations that
       fill the arena escaped an address-space limit alone. */
    rlim_t vm, data;
    if (own_memory(&vm, &data) != 0) return -1;
    rlim_t add = limits->child_memory > UINT64_MAX >> 2 ? UINT64_MAX >> 2 : (rlim_t)limits->child_memory;
    if (set_limit(RLIMIT_AS, vm + add, vm + add) != 0) return -1;
    if (set_limit(RLIMIT_DATA, data + add, data + add) != 0) return -1;
#endif
    return 0;
}

#if defined(__linux__) && defined(SECCOMP_MODE_FILTER) && (defined(__x86_64__) || defined(__aarch64__))

#if defined(__x86_64__)
#define ARCH_NR AUDIT_ARCH_X86_64
#else
#define ARCH_NR AUDIT_ARCH_AARCH64
#endif
#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS 0x80000000U
#endif

#define DENY(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
                 BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS)

int npyg__h5_seccomp(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH_NR, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#if defined(__x86_64__)
        /* the x32 ABI's numbers would slip past the list below */
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        DENY(__NR_open), DENY(__NR_creat), DENY(__NR_fork), DENY(__NR_vfork),
        DENY(__NR_link), DENY(__NR_symlink), DENY(__NR_unlink), DENY(__NR_rename),
        DENY(__NR_mkdir), DENY(__NR_rmdir), DENY(__NR_mknod), DENY(__NR_chmod),
        DENY(__NR_truncate),
#endif
        DENY(__NR_openat), DENY(__NR_open_by_handle_at), DENY(__NR_name_to_handle_at),
#if defined(__NR_openat2)
        DENY(__NR_openat2),
#else
        DENY(437),
#endif
        DENY(__NR_execve), DENY(__NR_execveat), DENY(__NR_socket), DENY(__NR_socketpair),
        DENY(__NR_connect), DENY(__NR_bind), DENY(__NR_ptrace), DENY(__NR_process_vm_writev),
        DENY(__NR_linkat), DENY(__NR_symlinkat), DENY(__NR_unlinkat), DENY(__NR_renameat),
        DENY(__NR_renameat2), DENY(__NR_mkdirat), DENY(__NR_mknodat), DENY(__NR_fchmodat),
        DENY(__NR_memfd_create),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {(unsigned short)(sizeof f / sizeof f[0]), f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

#else

int npyg__h5_seccomp(void)
{
    /* No filter on this platform: refuse to run libhdf5 without it. */
    errno = ENOSYS;
    return -1;
}

#endif
