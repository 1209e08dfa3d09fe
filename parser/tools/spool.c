/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An archive on standard input: a zip is read from its end and out of
 * order, which a pipe cannot do, so the stream is copied to an anonymous
 * temporary file first (O_TMPFILE, or mkstemp then unlink, in $TMPDIR) and
 * validated as a file. The copy is bounded by the largest archive the zip
 * limits admit, so a stream cannot fill the disk past what a file on the
 * command line could be.
 */
#define _GNU_SOURCE /* O_TMPFILE */
#include "npyvalidate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define COPY_CHUNK (64u * 1024u)

/* Bytes of an archive that are not member data, per member: local header
   (30) and central entry (46), the name in both, an extra field in both
   and a comment (64 KiB - 1 each), a zip64 data descriptor (24); for the
   archive: the end record with its comment, the zip64 end record and
   locator. Member data is at most the declared total, plus what deflate
   adds to data it cannot compress (5 bytes per 64 KiB stored block, well
   under 1/256). */
uint64_t spool_bound(const options *o)
{
    uint64_t per_member = 30u + 46u + 2u * o->limits[NPYG_LIMIT_MAX_NAME_BYTES] + 3u * 65535u + 24u;
    uint64_t tail = 22u + 65535u + 56u + 20u;
    uint64_t data = o->limits[NPYG_LIMIT_MAX_TOTAL_UNCOMPRESSED];
    uint64_t bound = data + data / 256u + 64u;
    if (bound < data) return UINT64_MAX;
    uint64_t meta = o->limits[NPYG_LIMIT_MAX_MEMBERS] * per_member + tail;
    return bound + meta < bound ? UINT64_MAX : bound + meta;
}

static int temp_file(void)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
#endif
    size_t len = strlen(dir) + sizeof "/npyvalidate-XXXXXX";
    char *name = malloc(len);
    if (!name) die_oom();
    snprintf(name, len, "%s/npyvalidate-XXXXXX", dir);
    int t = mkstemp(name);
    if (t >= 0) {
        unlink(name); /* anonymous from here on: gone when closed */
        fcntl(t, F_SETFD, FD_CLOEXEC);
    }
    free(name);
    return t;
}

bool write_all(int fd, const void *buf, size_t n)
{
    const unsigned char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

static int spool_fail(npyg_error *e, int code, uint64_t off, const char *what, int err)
{
    e->code = code;
    e->offset = off;
    e->offset_space = NPYG_OFFSET_FILE;
    if (err) snprintf(e->message, sizeof e->message, "%s: %s", what, strerror(err));
    else snprintf(e->message, sizeof e->message, "%s", what);
    return -1;
}

int spool_stream(const options *o, const unsigned char *head, size_t head_len, int in, npyg_error *e)
{
    memset(e, 0, sizeof *e);
    uint64_t bound = spool_bound(o);
    int fd = temp_file();
    if (fd < 0) return spool_fail(e, NPYG_EIO, 0, "cannot make a temporary file to hold standard input", errno);
    unsigned char *buf = malloc(COPY_CHUNK);
    if (!buf) die_oom();
    uint64_t total = head_len;
    bool ok = total <= bound && write_all(fd, head, head_len);
    while (ok) {
        ssize_t got = read(in, buf, COPY_CHUNK);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            int err = errno;
            free(buf);
            close(fd);
            return spool_fail(e, NPYG_EIO, total, "cannot read standard input", err);
        }
        if (got == 0) break;
        if ((uint64_t)got > bound - total) { total = bound + 1; break; }
        total += (uint64_t)got;
        ok = write_all(fd, buf, (size_t)got);
    }
    int err = errno;
    free(buf);
    if (total > bound) {
        close(fd);
        char msg[160];
        snprintf(msg, sizeof msg,
                 "archive on standard input is over %llu bytes, the most the zip limits admit (see --max-uncompressed)",
                 (unsigned long long)bound);
        return spool_fail(e, NPYG_ELIMIT_STDIN, bound, msg, 0);
    }
    if (!ok) {
        close(fd);
        return spool_fail(e, NPYG_EIO, total, "cannot write standard input to a temporary file", err);
    }
    if (lseek(fd, 0, SEEK_SET) != 0) {
        err = errno;
        close(fd);
        return spool_fail(e, NPYG_EIO, 0, "cannot rewind the temporary file", err);
    }
    return fd;
}
