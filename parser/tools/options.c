/* SPDX-License-Identifier: BSD-3-Clause */
/* The command line: options and limits, checked before any file is read. */
#include "npyvalidate.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "1..64", or "at least 1" when only the type bounds it. */
static const char *range_text(const npyg_limit_desc *d, char *buf, size_t size)
{
    if (d->max == UINT64_MAX) snprintf(buf, size, "at least %llu", (unsigned long long)d->min);
    else snprintf(buf, size, "%llu..%llu", (unsigned long long)d->min, (unsigned long long)d->max);
    return buf;
}

/* One entry per limit, from the library's table: what npyvalidate
   accepts is what the library does, with its defaults and ranges. */
static void limits_usage(FILE *to)
{
    char range[64];
    for (int id = 0; id < NPYG_LIMIT_END_; id++) {
        const npyg_limit_desc *d = npyg_limit_info((npyg_limit)id);
        int w = fprintf(to, "      --%s N", d->option);
        fprintf(to, "%*s%s\n", w < 34 ? 36 - w : 2, "", d->summary);
        fprintf(to, "%36s(default %llu, %s)\n", "", (unsigned long long)d->default_value,
                range_text(d, range, sizeof range));
    }
}

void usage(FILE *to)
{
    fputs("usage: npyvalidate [options] PATH...\n"
          "Validate NumPy .npy files, .npz archives, RawArray .ra files and HDF5 /\n"
          "MAT v7.3 files before loading them (the format is recognised by its content). PATH may be a\n"
          "file, a directory (with -r) or - for standard input.\n"
          "\n"
          "  -r, --recursive         validate every regular file under directories, by its\n"
          "                            content; symbolic links, special files and unreadable\n"
          "                            directories are reported as not checked\n"
          "      --include GLOB      with -r, check only files whose name matches GLOB\n"
          "                            (repeatable; the others are reported as skipped)\n"
          "      --skip-unrecognized\n"
          "                          report files of no known format as skipped, not invalid\n"
          "      --files-from FILE   read paths from FILE, one per line (- for stdin), as\n"
          "                            they are validated\n"
          "  -0, --null              --files-from entries end with NUL, not newline\n"
          "      --json              one JSON object per file (JSON Lines; docs/json.md)\n"
          "      --sarif             one SARIF 2.1.0 log of the refused files, for code scanning\n"
          "      --hash              print the SHA-256 of each payload as stored (HDF5: of\n"
          "                            each dataset as read in the sandbox)\n"
          "      --extract OUT.npz   write one HDF5 / MAT v7.3 file's datasets, read in the\n"
          "                            sandbox, as a strict .npz (member g/x.npy for /g/x)\n"
          "      --strict            accept only what numpy's writer produces\n"
          "  -q, --quiet             print only problems\n"
          "  -j, --jobs N            files validated in parallel (default: cores)\n",
          to);
    limits_usage(to);
    fputs("  -h, --help              this text\n"
          "      --version           print the version\n"
          "      --sandbox-info      start the HDF5 sandbox and print the layers in force\n"
          "\n"
          "Exit status: 0 all valid, 1 some file invalid, 2 usage or I/O error.\n",
          to);
}

/* Decimal digits and nothing else: strtoull alone would take a sign,
   leading blanks and "0x", so "+5", " 5" and "-5" would pass. */
static bool parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s) return false;
    uint64_t v = 0;
    for (const char *c = s; *c; c++) {
        if (*c < '0' || *c > '9') return false;
        unsigned d = (unsigned)(*c - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

/* "npyvalidate: <before><arg><after>", the argument escaped: it may hold
   anything, a terminal's escape sequences included. */
static void complain(const char *before, const char *arg, const char *after)
{
    fprintf(stderr, "npyvalidate: %s", before);
    fput_text(stderr, arg);
    fprintf(stderr, "%s\n", after);
}

/* The HDF5 cage's layers, as the helper finds them on this machine. */
static int sandbox_info(void)
{
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    char info[128];
    int rc = ctx ? npyg_hdf5_sandbox_info(ctx, info, sizeof info) : NPYG_ENOMEM;
    if (rc == 0) printf("sandbox: %s\n", info);
    else fprintf(stderr, "npyvalidate: sandbox: %s\n", ctx ? npyg_last_error(ctx)->message : "out of memory");
    npyg_ctx_free(ctx);
    return rc == 0 ? 0 : 2;
}

/* The flags: "--json=1" is a usage error, not a silent --json. */
static bool takes_no_value(const char *a)
{
    static const char *const flags[] = {"--", "-h", "--help", "--version", "--sandbox-info", "-r", "--recursive", "--json",
                                        "--sarif", "--hash", "--strict", "-q", "--quiet", "-0", "--null",
                                        "--skip-unrecognized"};
    for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
        if (!strcmp(a, flags[k])) return true;
    return false;
}

int parse_options(int argc, char **argv, options *out, arglist *args)
{
    options o = {.profile = NPYG_PROFILE_NUMPY};
    for (int id = 0; id < NPYG_LIMIT_END_; id++) o.limits[id] = npyg_limit_info((npyg_limit)id)->default_value;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o.jobs = cores > 0 ? (int)cores : 1;
    bool only_paths = false;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_paths || a[0] != '-' || strcmp(a, "-") == 0) { add_arg(args, a, false); continue; }
        const char *val = NULL;
        const char *eq = strchr(a, '=');
        char name[64];
        if (eq && a[1] == '-' && (size_t)(eq - a) < sizeof name) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = '\0';
            val = eq + 1;
            a = name;
        }
        if (a[1] != '-' && a[2]) { /* short options run together: -rq, -j4, -qj 4 */
            const char *c = a + 1;
            for (; *c && *c != 'j'; c++) {
                if (*c == 'r') o.recursive = true;
                else if (*c == 'q') o.quiet = true;
                else if (*c == '0') o.null_list = true;
                else if (*c == 'h') { usage(stdout); return 0; }
                else {
                    char opt[3] = {'-', *c, '\0'};
                    complain("unknown option ", opt, "");
                    complain("  in ", a, "");
                    usage(stderr);
                    return 2;
                }
            }
            if (!*c) continue;
            if (c[1]) val = c + 1;
            a = "-j";
        }
#define TAKE()                                                                    \
    do {                                                                          \
        if (!val) {                                                               \
            if (i + 1 >= argc) {                                                  \
                complain("", a, " needs a value");                                \
                return 2;                                                         \
            }                                                                     \
            val = argv[++i];                                                      \
        }                                                                         \
    } while (0)
        uint64_t n;
        if (val && takes_no_value(a)) {
            complain("", a, " takes no value");
            usage(stderr);
            return 2;
        }
        if (!strcmp(a, "--")) only_paths = true;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else if (!strcmp(a, "--version")) { printf("npyvalidate %s\n", npyg_version_string()); return 0; }
        else if (!strcmp(a, "--sandbox-info")) return sandbox_info();
        else if (!strcmp(a, "-r") || !strcmp(a, "--recursive")) o.recursive = true;
        else if (!strcmp(a, "--json")) o.json = true;
        else if (!strcmp(a, "--sarif")) o.sarif = true;
        else if (!strcmp(a, "--hash")) o.hash = true;
        else if (!strcmp(a, "--strict")) o.profile = NPYG_PROFILE_STRICT;
        else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) o.quiet = true;
        else if (!strcmp(a, "-0") || !strcmp(a, "--null")) o.null_list = true;
        else if (!strcmp(a, "--skip-unrecognized")) o.skip_unrecognized = true;
        else if (!strcmp(a, "--files-from")) {
            TAKE();
            add_arg(args, val, true);
        } else if (!strcmp(a, "--include")) {
            TAKE();
            const char **v = realloc(o.include, (o.ninclude + 1) * sizeof *v);
            if (!v) die_oom();
            o.include = v;
            o.include[o.ninclude++] = val;
        } else if (!strcmp(a, "--extract")) {
            TAKE();
            o.extract = val;
        } else {
            int id = a[1] == '-' ? npyg_limit_by_name(a + 2) : -1;
            const npyg_limit_desc *d = npyg_limit_info((npyg_limit)id);
            bool jobs = !strcmp(a, "-j") || !strcmp(a, "--jobs");
            if (!jobs && (!d || strcmp(a + 2, d->option) != 0)) { /* options only, not Python's names */
                complain("unknown option ", a, "");
                usage(stderr);
                return 2;
            }
            TAKE();
            if (!parse_u64(val, &n) || (jobs && (n < 1 || n > 256))) {
                fputs("npyvalidate: ", stderr);
                fput_text(stderr, a);
                fputs(": invalid value '", stderr);
                fput_text(stderr, val);
                fputs("'\n", stderr);
                return 2;
            }
            if (jobs) o.jobs = (int)n;
            else if (n < d->min || n > d->max) {
                char range[64];
                fprintf(stderr, "npyvalidate: --%s: %llu is out of range: %s\n", d->option, (unsigned long long)n,
                        range_text(d, range, sizeof range));
                return 2;
            } else {
                o.limits[id] = n;
            }
        }
#undef TAKE
    }
    if (o.json && o.sarif) {
        fputs("npyvalidate: --json and --sarif are two outputs: choose one\n", stderr);
        return 2;
    }
    *out = o;
    return -1;
}

npyg_ctx *new_context(const options *o)
{
    npyg_options no = {.profile = o->profile};
    npyg_ctx *ctx = npyg_ctx_new(&no);
    if (!ctx) die_oom();
    for (int id = 0; id < NPYG_LIMIT_END_; id++)
        if (npyg_set_limit(ctx, (npyg_limit)id, o->limits[id]) != 0) abort(); /* checked in parse_options */
    return ctx;
}
