/* The command line: options and limits, checked before any file is read. */
#include "npyvalidate.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void usage(FILE *to)
{
    fputs("usage: npyvalidate [options] PATH...\n"
          "Validate NumPy .npy files, .npz archives, RawArray .ra files and HDF5 /\n"
          "MAT v7.3 files before loading them (the format is recognised by its content). PATH may be a\n"
          "file, a directory (with -r) or - for standard input.\n"
          "\n"
          "  -r, --recursive         validate every *.npy, *.npz, *.ra, *.mat, *.h5, *.hdf5 file under directories\n"
          "      --files-from FILE   read paths from FILE, one per line (- for stdin)\n"
          "      --json              one JSON object per file (JSON Lines)\n"
          "      --hash              print the SHA-256 of each payload as stored (HDF5: of\n"
          "                            each dataset as read in the sandbox)\n"
          "      --extract OUT.npz   write one HDF5 / MAT v7.3 file's datasets, read in the\n"
          "                            sandbox, as a strict .npz (member g/x.npy for /g/x)\n"
          "      --strict            accept only what numpy's writer produces\n"
          "  -q, --quiet             print only problems\n"
          "  -j, --jobs N            files validated in parallel (default: cores)\n"
          "      --max-header-bytes N  (default 10000)\n"
          "      --max-dims N          (default 64)\n"
          "      --max-fields N        (default 4096)\n"
          "      --max-depth N         (default 32)\n"
          "      --max-alloc N         bytes the parser may allocate (default 8388608)\n"
          "      --max-payload N       payload bytes (default 1099511627776)\n"
          "      --max-members N       .npz members (default 4096)\n"
          "      --max-name-bytes N    bytes of one .npz member name (default 512)\n"
          "      --max-uncompressed N  bytes all .npz members inflate to (default 1099511627776)\n"
          "      --max-ratio N         inflated / compressed bytes of a member past its\n"
          "                            ratio grace (default 100)\n"
          "      --ratio-grace N       bytes a member may inflate to whatever its ratio\n"
          "                            (default 67108864)\n"
          "      --inflate-budget N    bytes all deflated members of an archive may inflate\n"
          "                            to, plus max-ratio x the archive's size (default\n"
          "                            67108864)\n"
          "      --max-objects N       HDF5 links, attributes and references (default 100000)\n"
          "      --max-nesting N       HDF5 group depth (default 32)\n"
          "      --max-paths N         HDF5 objects a recursive reader visits, along every\n"
          "                            path of links and references (default 20000)\n"
          "      --max-ref-depth N     HDF5 references followed in a chain (default 32)\n"
          "      --hdf5-memory N       memory the HDF5 child may add, bytes (default 1073741824)\n"
          "      --hdf5-cpu N          CPU seconds of the HDF5 child (default 20)\n"
          "      --hdf5-time N         wall-clock seconds of the HDF5 child (default 60)\n"
          "  -h, --help              this text\n"
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
                                        "--hash", "--strict", "-q", "--quiet"};
    for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
        if (!strcmp(a, flags[k])) return true;
    return false;
}

int parse_options(int argc, char **argv, options *out, pathlist *args)
{
    options o = {.profile = NPYG_PROFILE_NUMPY};
    npyg_limits_default(&o.limits);
    npyg_zip_limits_default(&o.zip_limits);
    npyg_hdf5_limits_default(&o.hdf5_limits);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o.jobs = cores > 0 ? (int)cores : 1;
    bool only_paths = false;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_paths || a[0] != '-' || strcmp(a, "-") == 0) { add_path(args, a); continue; }
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
        else if (!strcmp(a, "--hash")) o.hash = true;
        else if (!strcmp(a, "--strict")) o.profile = NPYG_PROFILE_STRICT;
        else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) o.quiet = true;
        else if (!strcmp(a, "--files-from")) {
            TAKE();
            if (read_list(args, val)) return 2;
        } else if (!strcmp(a, "--extract")) {
            TAKE();
            o.extract = val;
        } else {
            uint64_t *u64 = NULL;
            uint32_t *u32 = NULL;
            int *jobs = NULL;
            if (!strcmp(a, "-j") || !strcmp(a, "--jobs")) jobs = &o.jobs;
            else if (!strcmp(a, "--max-header-bytes")) u64 = &o.limits.max_header_bytes;
            else if (!strcmp(a, "--max-dims")) u32 = &o.limits.max_dims;
            else if (!strcmp(a, "--max-fields")) u32 = &o.limits.max_fields;
            else if (!strcmp(a, "--max-depth")) u32 = &o.limits.max_depth;
            else if (!strcmp(a, "--max-alloc")) u64 = &o.limits.max_alloc_bytes;
            else if (!strcmp(a, "--max-payload")) u64 = &o.limits.max_payload_bytes;
            else if (!strcmp(a, "--max-members")) u32 = &o.zip_limits.max_members;
            else if (!strcmp(a, "--max-name-bytes")) u32 = &o.zip_limits.max_name_bytes;
            else if (!strcmp(a, "--max-uncompressed")) u64 = &o.zip_limits.max_total_uncompressed;
            else if (!strcmp(a, "--max-ratio")) u64 = &o.zip_limits.max_ratio;
            else if (!strcmp(a, "--ratio-grace")) u64 = &o.zip_limits.ratio_grace_bytes;
            else if (!strcmp(a, "--inflate-budget")) u64 = &o.zip_limits.inflate_budget_bytes;
            else if (!strcmp(a, "--max-objects")) u32 = &o.hdf5_limits.max_objects;
            else if (!strcmp(a, "--max-nesting")) u32 = &o.hdf5_limits.max_nesting;
            else if (!strcmp(a, "--max-paths")) u64 = &o.hdf5_limits.max_paths;
            else if (!strcmp(a, "--max-ref-depth")) u32 = &o.hdf5_limits.max_ref_depth;
            else if (!strcmp(a, "--hdf5-memory")) u64 = &o.hdf5_limits.child_memory;
            else if (!strcmp(a, "--hdf5-cpu")) u32 = &o.hdf5_limits.child_cpu_seconds;
            else if (!strcmp(a, "--hdf5-time")) u32 = &o.hdf5_limits.child_wall_seconds;
            else {
                complain("unknown option ", a, "");
                usage(stderr);
                return 2;
            }
            TAKE();
            if (!parse_u64(val, &n) || (u32 && n > UINT32_MAX) || (jobs && (n < 1 || n > 256))) {
                fputs("npyvalidate: ", stderr);
                fput_text(stderr, a);
                fputs(": invalid value '", stderr);
                fput_text(stderr, val);
                fputs("'\n", stderr);
                return 2;
            }
            if (u64) *u64 = n;
            if (u32) *u32 = (uint32_t)n;
            if (jobs) *jobs = (int)n;
        }
#undef TAKE
    }
    if (npyg_worst_case_alloc(&o.limits) == 0) {
        fputs("npyvalidate: invalid limits (max-header-bytes must be 1..268435456, max-depth 1..64, others >= 1)\n", stderr);
        return 2;
    }
    if (npyg_zip_worst_case_alloc(&o.limits, &o.zip_limits) == 0) {
        fputs("npyvalidate: invalid zip limits (max-members at most 1000000, max-name-bytes 1..65535, max-ratio >= 1)\n",
              stderr);
        return 2;
    }
    if (npyg_hdf5_worst_case_alloc(&o.limits, &o.hdf5_limits) == 0) {
        fputs("npyvalidate: invalid HDF5 limits (max-objects 1..10000000, max-nesting 1..256, hdf5-memory >= 16 MiB,\n"
              "  hdf5-cpu and hdf5-time 1..86400, max-paths >= 1, max-ref-depth 1..10000)\n",
              stderr);
        return 2;
    }
    *out = o;
    return -1;
}
