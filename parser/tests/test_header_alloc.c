/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allocation failures in the header's parse: the writer-form recogniser,
 * the literal parser, the dtype builder and the shape, each refused at
 * every allocation in turn (tu_torture). The arena hands out 4 KiB blocks,
 * so a refusal only lands where a parse needs a new block; a run of filler
 * fields before the part under test, grown 4 characters at a time over a
 * whole block, moves that place across every node, string, dtype and
 * array the rest of the header needs. Each refused run must end in
 * NPYG_ENOMEM (or, past the last refusal, in the unrefused verdict) and
 * free everything.
 *
 * The unrefused verdict of every header, with no filler, 1000 and 4000
 * characters of it, in versions 1.0 and 3.0, is numpy 1.24's: with
 * np.lib.format.read_array_header_1_0 / _read_array_header (Debian
 * python3-numpy 1.24.2), "writer", "literal", "dtypes" and
 * "duplicate-descr" are read (shapes (0,), (0, 2), (0, 2), (0, 2); the
 * last as float64), "values" is refused ("Header does not
 * contain the correct keys") and "bare-tuple" too ("Header is not a
 * dictionary").
 *
 * Usage: test_header_alloc
 */
#include "npyguard.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tmpl {
    const char *name;
    const char *text; /* "@F@" is where the filler fields go */
    bool numpy_accepts;
} tmpl;

static const tmpl templates[] = {
    /* numpy's own spelling: the recogniser builds the tree (a nested list,
       a titled field with a shape, the keys, the bool and the shape) */
    {"writer",
     "{'descr': [@F@('x', [('y', '<f8')]), (('t', 'z'), '<i4', (2, 3))], 'fortran_order': False, 'shape': (0,), }",
     true},
    /* keys out of order: the literal parser (strings, numbers, tuples,
       lists, the bool, a u'' string) */
    {"literal",
     "{'descr': [@F@('x', '<f8'), ('y', [('z', '<i4')], (2,)), (u'w', '<i2')], 'shape': (0, 2), "
     "'fortran_order': True}",
     true},
    /* every dtype constructor: names, datetime spellings, a subarray and a
       nested struct, and a two-dimensional shape */
    {"dtypes",
     "{'descr': [@F@('a', 'float64'), ('b', 'datetime64'), ('c', '<M8[s]'), ('d', 'M'), ('e', '<M08'), "
     "('f', '<i4', (2,)), ('g', [('h', '<i4')])], 'fortran_order': False, 'shape': (0, 2), }",
     true},
    /* a duplicate key: the filler is parsed, then dropped for the last
       descr, a type name built after the whole tree */
    {"duplicate-descr",
     "{'descr': [@F@('x', '<f8')], 'descr': 'float64', 'fortran_order': False, 'shape': (0, 2), }", true},
    /* the values a header can hold but numpy refuses as an extra key:
       set(), Ellipsis, None, a list, a set, a complex sum */
    {"values",
     "{'descr': [@F@('x', '<f8')], 'shape': (0,), 'fortran_order': False, 'x': (set(), ..., None, [1], {2}, 1+2j)}",
     false},
    /* a bare tuple after the dict */
    {"bare-tuple", "{'descr': [@F@('x', '<f8')], 'fortran_order': False, 'shape': (0,), }, 1", false},
};

#define FILL_MAX 4096 /* characters of filler names: a whole arena block or more */
#define FILL_STEP 4

/* Distinct names of at most 200 characters each (a literal-parser string
   of that size still comes from the shared block, not a block of its own). */
static size_t put_filler(char *out, size_t chars)
{
    size_t o = 0;
    for (int k = 0; chars > 0; k++) {
        size_t n = chars < 200 ? chars : 200;
        o += (size_t)sprintf(out + o, "('");
        memset(out + o, 'a' + k % 26, n);
        o += n;
        o += (size_t)sprintf(out + o, "%d', '|u1'), ", k);
        chars -= n;
    }
    return o;
}

/* A whole .npy file: magic, version, length, the header padded with
   spaces and '\n' to a multiple of 64 as numpy pads it; no payload (every
   shape here has a zero dimension). */
static size_t build_file(unsigned char *out, const tmpl *t, size_t fill, int major)
{
    static char header[16384];
    const char *at = strstr(t->text, "@F@");
    size_t h = (size_t)(at - t->text);
    memcpy(header, t->text, h);
    h += put_filler(header + h, fill);
    strcpy(header + h, at + 3);
    h += strlen(at + 3);
    size_t pre = major == 1 ? 10 : 12;
    size_t pad = 64 - (pre + h + 1) % 64;
    memset(header + h, ' ', pad);
    h += pad;
    header[h++] = '\n';
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (unsigned char)major;
    out[7] = 0;
    if (major == 1) {
        out[8] = (unsigned char)(h & 0xff);
        out[9] = (unsigned char)(h >> 8);
    } else {
        for (int k = 0; k < 4; k++) out[8 + k] = (unsigned char)(h >> (8 * k));
    }
    memcpy(out + pre, header, h);
    return pre + h;
}

typedef struct job {
    const unsigned char *file;
    size_t len;
    int unrefused; /* the verdict with no refusal */
} job;

static int validate(npyg_ctx *ctx, tu_alloc *cnt, void *user)
{
    (void)cnt;
    const job *j = user;
    npyg_set_input_buffer(ctx, j->file, j->len);
    int rc = npyg_validate(ctx);
    /* Past the last refusal the parse ends as it does unrefused. */
    return rc == j->unrefused ? 0 : rc;
}

int main(void)
{
    static unsigned char file[16384 + 64];
    size_t runs = 0;
    for (size_t t = 0; t < sizeof templates / sizeof templates[0]; t++) {
        for (int major = 1; major <= 3; major += 2) {
            for (size_t fill = 0; fill <= FILL_MAX; fill += FILL_STEP) {
                char label[96];
                snprintf(label, sizeof label, "%s v%d.0, %zu filler characters", templates[t].name, major, fill);
                tu_current = label;
                job j = {file, build_file(file, &templates[t], fill, major), 0};
                npyg_ctx *ctx = npyg_ctx_new(NULL);
                npyg_set_input_buffer(ctx, file, j.len);
                j.unrefused = npyg_validate(ctx);
                if (templates[t].numpy_accepts)
                    TU_CHECK(j.unrefused == NPYG_OK, "numpy reads it; npyguard: %s (%s)",
                             npyg_error_name(j.unrefused), npyg_last_error(ctx)->message);
                else
                    TU_CHECK(j.unrefused != NPYG_OK && j.unrefused != NPYG_ENOMEM,
                             "numpy refuses it; npyguard: %s", npyg_error_name(j.unrefused));
                npyg_ctx_free(ctx);
                tu_torture(label, validate, &j);
                runs++;
            }
        }
    }
    tu_current = "totals";
    TU_AT_LEAST(runs, 2 * (FILL_MAX / FILL_STEP + 1) * (sizeof templates / sizeof templates[0]),
                "headers tortured");
    return tu_finish();
}
