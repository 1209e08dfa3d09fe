/*
 * Whole-file validation. The same bytes go through npyg_validate_buffer,
 * npyg_parse_header, npyg_validate_read (a callback handing out chunks of
 * pseudo-random size, optionally failing once) and, when the trailer asks,
 * npyg_validate_fd on an in-memory file; the payload sink hashes what it is
 * given. The paths must agree: same result code, same description, and the
 * sink must see exactly the payload bytes of the file, in order.
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* memfd_create */
#endif
#include "fuzz_common.h"

#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

typedef struct reader {
    const uint8_t *p;
    size_t len, pos;
    uint32_t rng;
    bool fail;          /* fail once, at fail_at */
    size_t fail_at;
    bool failed;
} reader;

static long long read_cb(void *user, void *buf, size_t len)
{
    reader *r = user;
    FUZZ_CHECK(buf != NULL && len > 0, "read callback asked for %zu bytes", len);
    if (r->fail && !r->failed && r->pos >= r->fail_at) {
        r->failed = true;
        return -1;
    }
    size_t avail = r->len - r->pos;
    uint32_t x = fuzz_rand(&r->rng);
    size_t n;
    switch (x & 3u) {
    case 0: n = 1; break;                          /* byte by byte */
    case 1: n = 1 + (x >> 8) % 16u; break;         /* small */
    case 2: n = 1 + (x >> 8) % 4096u; break;       /* medium */
    default: n = len; break;                       /* all it asked for */
    }
    if (n > len) n = len;
    if (n > avail) n = avail;
    memcpy(buf, r->p + r->pos, n);
    r->pos += n;
    return (long long)n;
}

typedef struct sink_state {
    uint64_t hash, bytes, stop;
    bool fails, refused;
    size_t calls;
} sink_state;

static int sink_cb(void *user, const void *data, size_t len)
{
    sink_state *s = user;
    FUZZ_CHECK(data != NULL && len > 0 && len <= 64u * 1024u, "sink given %zu bytes", len);
    FUZZ_CHECK(!s->refused, "sink called again after it refused");
    s->calls++;
    s->hash = fuzz_hash(s->hash, data, len);
    s->bytes += len;
    if (s->fails && s->bytes >= s->stop) {
        s->refused = true;
        return 1;
    }
    return 0;
}

static void sink_reset(sink_state *s, const fuzz_config *cfg)
{
    memset(s, 0, sizeof *s);
    s->hash = FUZZ_HASH_INIT;
    s->fails = cfg->sink_fails;
    s->stop = cfg->sink_stop;
}

/* The sink must have seen exactly the payload, or have stopped the call. */
static void check_sink(const sink_state *s, const fuzz_result *r, const uint8_t *file, size_t len,
                       const char *what)
{
    if (s->refused) {
        FUZZ_CHECK(r->rc == NPYG_EIO, "%s: the sink refused but the result is %s", what,
                   npyg_error_name(r->rc));
        return;
    }
    if (r->rc != 0) return;
    const npyg_info *in = &r->info;
    FUZZ_CHECK(s->bytes == in->payload_bytes, "%s: sink saw %llu bytes of a %llu-byte payload", what,
               (unsigned long long)s->bytes, (unsigned long long)in->payload_bytes);
    FUZZ_CHECK(in->data_offset + in->payload_bytes <= len, "%s: payload past the end", what);
    uint64_t want = fuzz_hash(FUZZ_HASH_INIT, file + in->data_offset, (size_t)in->payload_bytes);
    FUZZ_CHECK(s->hash == want, "%s: the sink saw other bytes than the payload", what);
}

/* Codes that only some input paths can produce for the same bytes. */
static bool path_dependent(int rc)
{
    /* The streaming paths copy the header and keep a read buffer; the
       buffer path needs neither, so only they can hit max_alloc_bytes. */
    return rc == NPYG_ELIMIT_ALLOC;
}

static void agree(const fuzz_result *a, const fuzz_result *b, const char *what)
{
    if (path_dependent(a->rc) || path_dependent(b->rc)) return;
    FUZZ_CHECK(a->rc == b->rc, "%s: %s by buffer, %s here (%s)", what, npyg_error_name(a->rc),
               npyg_error_name(b->rc), b->err.message);
    if (a->rc) {
        FUZZ_CHECK(a->err.offset == b->err.offset, "%s: %s at %llu by buffer, at %llu here", what,
                   npyg_error_name(a->rc), (unsigned long long)a->err.offset,
                   (unsigned long long)b->err.offset);
        return;
    }
    fuzz_same_info(a, b, true, what);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *file;
    size_t len;
    fuzz_config cfg;
    fuzz_config_parse(data, size, &file, &len, &cfg);
    fuzz_check_tables();

    fuzz_alloc fa;
    fuzz_alloc_init(&fa, &cfg.limits, cfg.fail_alloc);
    npyg_ctx *ctx = fuzz_ctx_new(&cfg, &fa);
    if (!ctx) return 0;

    sink_state ss;
    sink_reset(&ss, &cfg);
    npyg_set_payload_sink(ctx, cfg.sink ? sink_cb : NULL, &ss);

    /* 1. the buffer */
    fuzz_result rb;
    bool failed_before = fa.failed;
    int rc = npyg_validate_buffer(ctx, file, len);
    fuzz_check_result(ctx, rc, CALL_VALIDATE, len, &cfg, &cfg.limits, &rb);
    bool inject = fa.failed && !failed_before;
    if (inject) FUZZ_CHECK(rc == NPYG_ENOMEM, "allocation refused, but validate_buffer says %s", npyg_error_name(rc));
    if (cfg.sink) check_sink(&ss, &rb, file, len, "validate_buffer");
    bool sink_refused = ss.refused;

    /* 2. the header alone: same verdict on everything before the payload */
    fuzz_result rh;
    failed_before = fa.failed;
    rc = npyg_parse_header(ctx, file, len);
    fuzz_check_result(ctx, rc, CALL_HEADER, len, &cfg, &cfg.limits, &rh);
    if (fa.failed && !failed_before) {
        FUZZ_CHECK(rc == NPYG_ENOMEM, "allocation refused, but parse_header says %s", npyg_error_name(rc));
        inject = true;
    }
    if (!inject) {
        if (rh.rc == 0) {
            FUZZ_CHECK(rb.rc == 0 || rb.rc == NPYG_ETRUNC_PAYLOAD || rb.rc == NPYG_ETRAILING ||
                           (rb.rc == NPYG_EIO && sink_refused),
                       "header parses, but validate_buffer says %s", npyg_error_name(rb.rc));
            if (rb.rc == 0) fuzz_same_info(&rb, &rh, false, "parse_header");
        } else {
            FUZZ_CHECK(rb.rc == rh.rc && rb.err.offset == rh.err.offset,
                       "parse_header says %s at %llu, validate_buffer %s at %llu", npyg_error_name(rh.rc),
                       (unsigned long long)rh.err.offset, npyg_error_name(rb.rc),
                       (unsigned long long)rb.err.offset);
        }
    }

    /* 3. the read callback */
    reader rd = {file, len, 0, cfg.seed, cfg.read_error, 0, false};
    if (rd.fail) rd.fail_at = len ? (size_t)(cfg.seed % (len + 1u)) : 0;
    sink_reset(&ss, &cfg);
    fuzz_result rs;
    failed_before = fa.failed;
    rc = npyg_validate_read(ctx, read_cb, &rd);
    fuzz_check_result(ctx, rc, CALL_VALIDATE, len, &cfg, &cfg.limits, &rs);
    FUZZ_CHECK(rd.pos <= len, "read past the end");
    bool inject_s = fa.failed && !failed_before;
    if (inject_s) FUZZ_CHECK(rc == NPYG_ENOMEM, "allocation refused, but validate_read says %s", npyg_error_name(rc));
    if (rd.failed) FUZZ_CHECK(rc == NPYG_EIO, "the read callback failed, but validate_read says %s", npyg_error_name(rc));
    if (cfg.sink) check_sink(&ss, &rs, file, len, "validate_read");
    if (!inject && !inject_s && !rd.failed && ss.refused == sink_refused) agree(&rb, &rs, "validate_read");
    if (rs.rc == 0 && cfg.profile == NPYG_PROFILE_NUMPY)
        FUZZ_CHECK(rd.pos == len, "validate_read succeeded without reading to the end");

#if defined(__linux__)
    /* 4. a descriptor on an in-memory file, read from a non-zero position */
    if (cfg.use_fd) {
        int fd = memfd_create("npyg-fuzz", MFD_CLOEXEC);
        if (fd >= 0) {
            size_t skip = cfg.extra; /* the descriptor starts mid-file */
            bool ok = true;
            static const uint8_t junk[3] = {'x', 'y', 'z'};
            if (skip && write(fd, junk, skip) != (ssize_t)skip) ok = false;
            for (size_t off = 0; ok && off < len;) {
                ssize_t w = write(fd, file + off, len - off);
                if (w <= 0) ok = false;
                else off += (size_t)w;
            }
            if (ok && lseek(fd, (off_t)skip, SEEK_SET) == (off_t)skip) {
                sink_reset(&ss, &cfg);
                fuzz_result rf;
                failed_before = fa.failed;
                rc = npyg_validate_fd(ctx, fd);
                fuzz_check_result(ctx, rc, CALL_VALIDATE, len, &cfg, &cfg.limits, &rf);
                bool inject_f = fa.failed && !failed_before;
                if (inject_f) FUZZ_CHECK(rc == NPYG_ENOMEM, "allocation refused, but validate_fd says %s", npyg_error_name(rc));
                if (cfg.sink) check_sink(&ss, &rf, file, len, "validate_fd");
                if (!inject && !inject_f && ss.refused == sink_refused) agree(&rb, &rf, "validate_fd");
                FUZZ_CHECK(lseek(fd, 0, SEEK_CUR) <= (off_t)(skip + len), "descriptor moved past the end");
            }
            close(fd);
        }
    }
#endif

    npyg_ctx_free(ctx);
    fuzz_alloc_check_empty(&fa);
    return 0;
}
