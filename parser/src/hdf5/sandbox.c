/* SPDX-License-Identifier: BSD-3-Clause */
/* The cage: resource limits, namespaces, Landlock and two seccomp allow
 * lists (libseccomp), one for the helper and one for each file's child,
 * compiled once in the helper and loaded by each child with its pid.
 *
 * libhdf5 is not hardened against hostile files, so the child is assumed
 * compromised by the file it reads. What it may still do is what the
 * child's list allows: compute, manage its own memory (never executable),
 * write records to the pipe on descriptor 4, signal itself and exit. Any
 * other call kills it (SIGSYS), except open and openat, which fail with
 * EACCES: libhdf5's core driver checks that no file of the image's name
 * exists, and the answer "no" costs nothing.
 *
 * The helper never reads an input. Its own list is wider (it receives
 * descriptors, forks, builds the child's cage) but has no open, no exec
 * and no socket, and its only signal is SIGKILL, for its children; where
 * Landlock scopes signals (ABI 6), not even that leaves its domain.
 */
#define _GNU_SOURCE
#include "h5internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

int npyg__h5_set_limit(int resource, uint64_t soft, uint64_t hard)
{
    struct rlimit cur;
    if (getrlimit(resource, &cur) != 0) return -1;
    /* Never raise: an already lower limit stays. */
    if (cur.rlim_max != RLIM_INFINITY && hard > cur.rlim_max) hard = cur.rlim_max;
    if (soft > hard) soft = hard;
    struct rlimit r = {(rlim_t)soft, (rlim_t)hard};
    return setrlimit(resource, &r);
}

int npyg__h5_own_memory(uint64_t *vm, uint64_t *data)
{
    char buf[4096];
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = '\0';
    int found = 0;
    for (char *line = buf; *line;) {
        uint64_t *to = !strncmp(line, "VmSize:", 7) ? vm : !strncmp(line, "VmData:", 7) ? data : NULL;
        if (to) {
            char *end;
            unsigned long long kib = strtoull(line + 7, &end, 10);
            if (end == line + 7 || strncmp(end, " kB", 3) != 0 || kib > UINT64_MAX >> 12) return -1;
            *to = (uint64_t)kib << 10;
            found++;
        }
        char *nl = strchr(line, '\n');
        if (!nl) break;
        line = nl + 1;
    }
    return found == 2 ? 0 : -1;
}

int npyg__h5_limit_child(const npyg__h5_request *req, uint64_t base_vm, uint64_t base_data)
{
    const npyg_hdf5_limits *l = &req->limits;
    if (npyg__h5_set_limit(RLIMIT_CORE, 0, 0) || npyg__h5_set_limit(RLIMIT_FSIZE, 0, 0) ||
        npyg__h5_set_limit(RLIMIT_NOFILE, NPYG__H5_NOFILE, NPYG__H5_NOFILE) ||
        /* SIGXCPU at the soft limit, SIGKILL a second later */
        npyg__h5_set_limit(RLIMIT_CPU, l->child_cpu_seconds, (uint64_t)l->child_cpu_seconds + 1))
        return -1;
#if defined(NPYG__ASAN)
    (void)base_vm;
    (void)base_data;
#else
    /* Absolute: the helper's own size is that of a fresh process with
       libhdf5 loaded, whatever the caller holds. The input's mapping is
       read-only and file-backed; it counts in the address space only.
       (AddressSanitizer reserves terabytes of shadow: no cap there.) */
    uint64_t add = l->child_memory > UINT64_MAX >> 3 ? UINT64_MAX >> 3 : l->child_memory;
    uint64_t size = req->size > UINT64_MAX >> 3 ? UINT64_MAX >> 3 : req->size;
    if (npyg__h5_set_limit(RLIMIT_AS, base_vm + add + size + 4096, base_vm + add + size + 4096) ||
        npyg__h5_set_limit(RLIMIT_DATA, base_data + add, base_data + add))
        return -1;
#endif
    return 0;
}

/* ---------------- namespaces and Landlock ---------------- */

static int namespaces(void) { return unshare(CLONE_NEWUSER | CLONE_NEWNET); }

static int landlock_abi(void)
{
#if defined(SYS_landlock_create_ruleset)
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return abi > 0 ? (int)abi : 0;
#else
    return 0;
#endif
}

static int landlock(uint32_t abi)
{
#if defined(SYS_landlock_create_ruleset)
    /* Every access right the ABI knows is handled and none is granted:
       no file may be read, written, made or run; from ABI 4 no TCP bind or
       connect; from ABI 6 no signal or abstract socket out of the domain. */
    struct {
        uint64_t fs, net, scoped;
    } attr = {abi >= 5 ? 0xffffu : abi >= 3 ? 0x7fffu : abi >= 2 ? 0x3fffu : 0x1fffu,
              abi >= 4 ? 3u : 0u, abi >= 6 ? 3u : 0u};
    size_t size = abi >= 6 ? 24 : abi >= 4 ? 16 : 8;
    int fd = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0u);
    if (fd < 0) return -1;
    int rc = (int)syscall(SYS_landlock_restrict_self, fd, 0u);
    close(fd);
    return rc;
#else
    (void)abi;
    errno = ENOSYS;
    return -1;
#endif
}

int npyg__h5_cage_helper(npyg__h5_hello *h)
{
    /* Once, here, and inherited by every child: a network namespace
       costs the kernel about half a millisecond to make and more to tear
       down, and one empty one serves every file as well as one each. */
    if (namespaces() == 0) h->layers |= NPYG__H5_L_USERNS;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    h->landlock_abi = (uint32_t)landlock_abi();
    if (h->landlock_abi && landlock(h->landlock_abi) == 0) h->layers |= NPYG__H5_L_LANDLOCK;
    else h->landlock_abi = 0;
    return 0;
}

/* ---------------- seccomp ---------------- */

#define ALLOW(ctx, name, ...) seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(name), __VA_ARGS__)
/* argument n equals v; argument n has no PROT_EXEC bit */
#define EQ(n, v) ((struct scmp_arg_cmp){.arg = (n), .op = SCMP_CMP_EQ, .datum_a = (scmp_datum_t)(v), .datum_b = 0})
#define NOEXEC(n) ((struct scmp_arg_cmp){.arg = (n), .op = SCMP_CMP_MASKED_EQ, .datum_a = PROT_EXEC, .datum_b = 0})

/* Memory, signals to itself, time, exit: both lists have them. */
static int common(scmp_filter_ctx f, pid_t self)
{
    int rc = 0;
    /* never executable: no new code in the address space */
    rc |= ALLOW(f, mmap, 1, NOEXEC(2));
    rc |= ALLOW(f, mprotect, 1, NOEXEC(2));
    static const int plain[] = {SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(brk), SCMP_SYS(madvise),
        SCMP_SYS(exit), SCMP_SYS(exit_group), SCMP_SYS(rt_sigreturn), SCMP_SYS(rt_sigprocmask),
        SCMP_SYS(rt_sigaction), SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(clock_gettime),
        SCMP_SYS(gettimeofday),
        /* glibc's qsort sizes its buffer by the machine's memory */
        SCMP_SYS(sysinfo)};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, plain[i], 0);
    /* abort() and raise(): only this process */
    rc |= ALLOW(f, tgkill, 2, EQ(0, self), EQ(1, self));
    rc |= ALLOW(f, kill, 1, EQ(0, self));
#if defined(NPYG__ASAN)
    /* The sanitizers' runtime, tests only: its reports on stderr, its
       alternate signal stack, its look at the limits. */
    rc |= ALLOW(f, write, 1, EQ(0, 2));
    rc |= ALLOW(f, sigaltstack, 0);
    rc |= ALLOW(f, getrlimit, 0);
    rc |= ALLOW(f, prlimit64, 1, EQ(2, 0));
#endif
    return rc ? -1 : 0;
}

static int load(scmp_filter_ctx f, int rc)
{
    /* the x32 ABI and 32-bit calls do not match the native rules: kill */
    if (rc == 0) rc = seccomp_attr_set(f, SCMP_FLTATR_CTL_NNP, 1);
    if (rc == 0) rc = seccomp_load(f);
    seccomp_release(f);
    if (rc) errno = rc < 0 ? -rc : EINVAL;
    return rc ? -1 : 0;
}

/* The child's list. Its rules name the child's own pid (common()). */
static int child_rules(scmp_filter_ctx f, pid_t self)
{
    int rc = common(f, self);
    rc |= ALLOW(f, write, 1, EQ(0, NPYG__H5_OUT_FD));
    rc |= ALLOW(f, close, 1, EQ(0, NPYG__H5_OUT_FD)); /* after the end record */
    /* the request and its descriptors, once, on its own socket; then its
       own limits, which it can lower and never raise past the helper's */
    rc |= ALLOW(f, recvmsg, 1, EQ(0, NPYG__H5_CHILD_CTL_FD));
    rc |= ALLOW(f, prlimit64, 1, EQ(0, 0));
    rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(openat), 0);
    rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(open), 0);
    return rc ? -1 : 0;
}

unsigned npyg__h5_child_compile(pid_t self, struct sock_filter *out, unsigned max)
{
    /* through a pipe: libseccomp 2.5 exports to a descriptor, and the
       helper may write no file (RLIMIT_FSIZE 0); one that would not fit
       in the pipe fails rather than blocks */
    scmp_filter_ctx f = seccomp_init(SCMP_ACT_KILL_PROCESS);
    int fd[2] = {-1, -1};
    ssize_t n = -1;
    if (f && pipe2(fd, O_CLOEXEC | O_NONBLOCK) == 0 && child_rules(f, self) == 0 &&
        seccomp_export_bpf(f, fd[1]) == 0) {
        close(fd[1]);
        fd[1] = -1;
        n = read(fd[0], out, (size_t)max * sizeof *out);
    }
    for (int i = 0; i < 2; i++)
        if (fd[i] >= 0) close(fd[i]);
    if (f) seccomp_release(f);
    /* a program that filled the buffer may have been cut */
    return n > 0 && (size_t)n < (size_t)max * sizeof *out && n % sizeof *out == 0 ? (unsigned)(n / sizeof *out) : 0;
}

/* The child's program, compiled once in the helper for PLACEHOLDER: each
   child puts its own pid in those places and hands the kernel the result,
   which costs a fraction of compiling it. PLACEHOLDER is above every pid
   (PID_MAX_LIMIT is 2^22) and every other constant of the list; the
   program must compare against it exactly SELF_USES times (tgkill's two
   arguments, kill's first), else each child compiles its own. */
#define PLACEHOLDER 0x7ffffffeu
#define SELF_USES 3
static struct sock_filter program[NPYG__H5_PROGRAM_MAX];
static unsigned program_len;

static bool is_self(const struct sock_filter *i)
{
    return i->code == (BPF_JMP | BPF_JEQ | BPF_K) && i->k == PLACEHOLDER;
}

void npyg__h5_child_filter_prepare(void)
{
    unsigned n = npyg__h5_child_compile((pid_t)PLACEHOLDER, program, NPYG__H5_PROGRAM_MAX), uses = 0;
    for (unsigned i = 0; i < n; i++) uses += is_self(&program[i]);
    program_len = uses == SELF_USES ? n : 0;
}

unsigned npyg__h5_child_program(pid_t self, struct sock_filter *out, unsigned max)
{
    if (!program_len || program_len > max) return 0;
    for (unsigned i = 0; i < program_len; i++) {
        out[i] = program[i];
        if (is_self(&out[i])) out[i].k = (uint32_t)self;
    }
    return program_len;
}

int npyg__h5_child_filter(void)
{
    struct sock_filter p[NPYG__H5_PROGRAM_MAX];
    struct sock_fprog prog = {(unsigned short)npyg__h5_child_program(getpid(), p, NPYG__H5_PROGRAM_MAX), p};
    /* no_new_privs is the helper's, inherited */
    if (prog.len) return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0 ? 0 : -1;
    scmp_filter_ctx f = seccomp_init(SCMP_ACT_KILL_PROCESS);
    if (!f) return errno = ENOMEM, -1;
    return load(f, child_rules(f, getpid()));
}

int npyg__h5_helper_filter(void)
{
    scmp_filter_ctx f = seccomp_init(SCMP_ACT_KILL_PROCESS);
    if (!f) return errno = ENOMEM, -1;
    int rc = common(f, getpid());
    static const int plain[] = {SCMP_SYS(poll), SCMP_SYS(close), SCMP_SYS(wait4), SCMP_SYS(pidfd_open),
        SCMP_SYS(getppid), SCMP_SYS(fcntl), SCMP_SYS(fstat), SCMP_SYS(newfstatat), SCMP_SYS(dup2),
        SCMP_SYS(close_range), SCMP_SYS(seccomp), SCMP_SYS(set_robust_list)};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, plain[i], 0);
    /* the parent's socket, and no other */
    static const int talk[] = {SCMP_SYS(recvmsg), SCMP_SYS(sendmsg), SCMP_SYS(recvfrom), SCMP_SYS(sendto)};
    for (size_t i = 0; i < sizeof talk / sizeof talk[0]; i++)
        rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, talk[i], 1, EQ(0, NPYG__H5_SOCK_FD));
    /* each child's own socket: made here, written here, read there */
    rc |= ALLOW(f, socketpair, 1, EQ(0, AF_UNIX));
    rc |= ALLOW(f, sendmsg, 1, EQ(0, NPYG__H5_HELPER_CTL_FD));
    rc |= ALLOW(f, recvmsg, 1, EQ(0, NPYG__H5_CHILD_CTL_FD));
    /* its children: made by fork() only, killed with SIGKILL only */
    const scmp_datum_t fork_flags = CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD;
    rc |= ALLOW(f, clone, 1, EQ(0, fork_flags));
    rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    rc |= ALLOW(f, kill, 1, EQ(1, SIGKILL));
    rc |= ALLOW(f, prlimit64, 1, EQ(0, 0));
    static const int options[] = {PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS, PR_GET_SECCOMP, PR_SET_SECCOMP};
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        rc |= ALLOW(f, prctl, 1, EQ(0, options[i]));
    /* filters stack and the stricter answer wins: the child's EACCES
       for open must not become this list's kill */
    rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(openat), 0);
    rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(open), 0);
    /* a child's setup failure is reported on its record pipe */
    rc |= ALLOW(f, write, 1, EQ(0, NPYG__H5_OUT_FD));
    return load(f, rc ? -1 : 0);
}
