/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * floor_inflate: the least any validator of a .npz archive must do with
 * its members: read the compressed bytes and inflate them with zlib, in the
 * same 64 KiB chunks npyguard uses, checking each member's size and (unless
 * --no-crc) its CRC-32. No zip structure is parsed: the member table comes
 * from the benchmark's generator.
 *
 *   floor_inflate [--no-crc] ARCHIVE MEMBERS
 *
 * MEMBERS has one line per member: "data_offset compressed_size
 * uncompressed_size crc32" (decimal; method deflate). Prints the totals;
 * exit status 1 if a member does not inflate to its size and CRC.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "floor_read.h"

#define CHUNK (64u * 1024u)

int main(int argc, char **argv)
{
    int crc_on = 1, argi = 1;
    if (argi < argc && !strcmp(argv[argi], "--no-crc")) { crc_on = 0; argi++; }
    if (argc - argi != 2) {
        fputs("usage: floor_inflate [--no-crc] ARCHIVE MEMBERS\n", stderr);
        return 2;
    }
    int fd = open(argv[argi], O_RDONLY | O_CLOEXEC);
    if (fd < 0) { perror(argv[argi]); return 2; }
    FILE *mf = fopen(argv[argi + 1], "r");
    if (!mf) { perror(argv[argi + 1]); return 2; }
    static unsigned char in[CHUNK], out[CHUNK];
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) return 2;
    uint64_t off, csize, usize, total_in = 0, total_out = 0;
    unsigned long want_crc;
    int members = 0, bad = 0;
    while (fscanf(mf, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %lu", &off, &csize, &usize, &want_crc) == 4) {
        inflateReset(&zs);
        uLong crc = crc32(0L, Z_NULL, 0);
        uint64_t in_done = 0, out_done = 0;
        int r = Z_OK;
        zs.avail_in = 0;
        while (r != Z_STREAM_END) {
            if (zs.avail_in == 0 && in_done < csize) {
                size_t n = csize - in_done < CHUNK ? (size_t)(csize - in_done) : CHUNK;
                if (read_at(fd, in, n, off + in_done)) { perror("pread"); return 2; }
                in_done += n;
                zs.next_in = in;
                zs.avail_in = (uInt)n;
            }
            zs.next_out = out;
            zs.avail_out = CHUNK;
            r = inflate(&zs, Z_NO_FLUSH);
            if (r != Z_OK && r != Z_STREAM_END) break;
            size_t got = CHUNK - zs.avail_out;
            if (crc_on) crc = crc32(crc, out, (uInt)got);
            out_done += got;
        }
        if (r != Z_STREAM_END || out_done != usize || (crc_on && crc != want_crc)) {
            fprintf(stderr, "floor_inflate: member at %" PRIu64 " does not check out\n", off);
            bad = 1;
        }
        total_in += csize;
        total_out += out_done;
        members++;
    }
    fclose(mf);
    inflateEnd(&zs);
    close(fd);
    printf("%d members, %" PRIu64 " bytes in, %" PRIu64 " bytes out\n", members, total_in, total_out);
    return bad;
}
