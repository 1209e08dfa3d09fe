/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * floor_whole: each deflated member inflated whole, from its compressed
 * bytes in memory into one buffer of its size, and CRC-checked: the work
 * of a load that inflates a member straight into the array's memory. The
 * engine is ISA-L (isal_inflate over the whole buffers, CRC fused), or
 * libdeflate (libdeflate_deflate_decompress, then ISA-L's CRC), or zlib
 * (one inflate call, then crc32). Only the inflate and CRC are timed (CPU
 * time of the process), so that the engines compare on the same bytes;
 * this decides which one the load path uses (bench/npz_speed.py, 6f).
 *
 *   floor_whole isal|libdeflate|zlib ARCHIVE MEMBERS
 *
 * MEMBERS as for floor_inflate. Prints {"seconds": S, "bytes_out": N};
 * exit status 1 if a member does not inflate to its size and CRC.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "floor_read.h"

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Inflates in[0..cs) into out[0..us); returns the CRC-32 of what came out,
   *ok 0 if the stream did not end at exactly us bytes. */
static uint32_t whole(const char *engine, const unsigned char *in, size_t cs, unsigned char *out, size_t us, int *ok)
{
    *ok = 0;
    if (!strcmp(engine, "isal")) {
        static struct inflate_state s;
        isal_inflate_init(&s);
        s.crc_flag = ISAL_GZIP_NO_HDR; /* raw deflate, CRC-32 of the output fused in */
        s.next_in = (uint8_t *)(uintptr_t)in;
        s.avail_in = (uint32_t)cs;
        s.next_out = out;
        s.avail_out = (uint32_t)us;
        int r = isal_inflate(&s);
        *ok = r == ISAL_DECOMP_OK && s.block_state == ISAL_BLOCK_FINISH && s.avail_out == 0;
        return s.crc;
    }
    if (!strcmp(engine, "libdeflate")) {
        static struct libdeflate_decompressor *d;
        if (!d && !(d = libdeflate_alloc_decompressor())) return 0;
        size_t got = 0;
        *ok = libdeflate_deflate_decompress(d, in, cs, out, us, &got) == LIBDEFLATE_SUCCESS && got == us;
        return crc32_gzip_refl(0, out, us);
    }
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) return 0;
    zs.next_in = (Bytef *)(uintptr_t)in;
    zs.avail_in = (uInt)cs;
    zs.next_out = out;
    zs.avail_out = (uInt)us;
    *ok = inflate(&zs, Z_FINISH) == Z_STREAM_END && zs.avail_out == 0;
    inflateEnd(&zs);
    return (uint32_t)crc32(0L, out, (uInt)us);
}

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[1], "isal") && strcmp(argv[1], "libdeflate") && strcmp(argv[1], "zlib"))) {
        fputs("usage: floor_whole isal|libdeflate|zlib ARCHIVE MEMBERS\n", stderr);
        return 2;
    }
    int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
    if (fd < 0) { perror(argv[2]); return 2; }
    FILE *mf = fopen(argv[3], "r");
    if (!mf) { perror(argv[3]); return 2; }
    uint64_t off, cs, us, total = 0;
    unsigned long want;
    double seconds = 0;
    int bad = 0;
    while (fscanf(mf, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %lu", &off, &cs, &us, &want) == 4) {
        if (cs > UINT32_MAX || us > UINT32_MAX) { fputs("floor_whole: member over 4 GiB\n", stderr); return 2; }
        unsigned char *in = malloc(cs ? cs : 1), *out = malloc(us ? us : 1);
        if (!in || !out) { fputs("floor_whole: out of memory\n", stderr); return 2; }
        if (read_at(fd, in, cs, off)) { perror("pread"); return 2; }
        memset(out, 0, us); /* the array's pages exist before the load, as np.empty's do once touched */
        int ok;
        double t = cpu_now();
        uint32_t crc = whole(argv[1], in, cs, out, us, &ok);
        seconds += cpu_now() - t;
        if (!ok || crc != want) {
            fprintf(stderr, "floor_whole: member at %" PRIu64 " does not check out\n", off);
            bad = 1;
        }
        total += us;
        free(in);
        free(out);
    }
    fclose(mf);
    close(fd);
    printf("{\"seconds\": %.6f, \"bytes_out\": %" PRIu64 "}\n", seconds, total);
    return bad;
}
