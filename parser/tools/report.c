/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One file's report, as text or as a JSON object: a .npy array, an error,
 * an archive and its members. Names, classes and warnings come from the
 * library's tables; nothing here knows a code by its number.
 */
#include "npyvalidate.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Every JSON record starts {"schema": SCHEMA_ID, "path", "format", "ok", and
   puts what only one format has under an object named for it (npy, npz, ra,
   hdf5): schema/npyvalidate-record.schema.json is the contract, and the
   number at the end of the id changes whenever a record changes shape. */
#define SCHEMA_ID "npyvalidate-record/1"

const char *format_name(npyg_format f)
{
    switch (f) {
    case NPYG_FORMAT_NPY: return "npy";
    case NPYG_FORMAT_NPZ: return "npz";
    case NPYG_FORMAT_RA: return "ra";
    case NPYG_FORMAT_HDF5: return "hdf5";
    case NPYG_FORMAT_MAT73: return "mat73";
    case NPYG_FORMAT_MAT5: return "mat5";
    case NPYG_FORMAT_MAT4: return "mat4";
    default: return "unknown";
    }
}

/* The object that holds a format's own fields; NULL for a format npyguard
   recognises only to refuse (MAT v4/v5) or not at all. */
static const char *format_object(npyg_format f)
{
    switch (f) {
    case NPYG_FORMAT_NPY: return "npy";
    case NPYG_FORMAT_NPZ: return "npz";
    case NPYG_FORMAT_RA: return "ra";
    case NPYG_FORMAT_HDF5:
    case NPYG_FORMAT_MAT73: return "hdf5";
    default: return NULL;
    }
}

/* "file:/object", each part escaped: object names are as hostile as file names. */
static void text_label(strbuf *b, const char *file, const char *object)
{
    sb_text0(b, file);
    sb_puts(b, ":");
    sb_text0(b, object);
}

/* Every warning bit set, by the library's name for it; a bit the library
   does not name is shown by number rather than dropped. */
static void json_warnings(strbuf *b, unsigned bits, npyg_warning_set set)
{
    bool first = true;
    for (unsigned k = 0; k < 32; k++) {
        unsigned bit = 1u << k;
        if (!(bits & bit)) continue;
        const npyg_warning_desc *w = npyg_warning_info(set, bit);
        if (w) sb_printf(b, "%s\"%s\"", first ? "" : ", ", w->name);
        else sb_printf(b, "%s\"bit_%u\"", first ? "" : ", ", k);
        first = false;
    }
}

static void human_warnings(strbuf *b, const char *label, unsigned bits, npyg_warning_set set)
{
    for (unsigned k = 0; k < 32; k++)
        if (bits & (1u << k)) {
            const npyg_warning_desc *w = npyg_warning_info(set, 1u << k);
            sb_text0(b, label);
            if (w) sb_printf(b, ": warning: %s\n", w->text);
            else sb_printf(b, ": warning: bit %u\n", k);
        }
}

static void sb_json_descr(strbuf *b, const npyg_dtype *d);

/* , "key": 123 (a big value as a string, as sb_json_u64 writes it) */
static void json_u64_field(strbuf *b, const char *key, uint64_t v)
{
    sb_printf(b, ", \"%s\": ", key);
    sb_json_u64(b, v);
}

/* , "warnings": [...] */
static void json_warning_list(strbuf *b, unsigned warnings, npyg_warning_set set)
{
    sb_puts(b, ", \"warnings\": [");
    json_warnings(b, warnings, set);
    sb_puts(b, "]");
}

static void json_hash(strbuf *b, const char *sha)
{
    if (sha) sb_printf(b, ", \"payload_sha256\": \"%s\"", sha);
}

static void sb_json_shape(strbuf *b, uint32_t nd, const uint64_t *dims)
{
    sb_puts(b, "[");
    for (uint32_t k = 0; k < nd; k++) {
        if (k) sb_puts(b, ", ");
        sb_json_u64(b, dims[k]);
    }
    sb_puts(b, "]");
}

/* dims as Python writes a tuple: "()", "(3,)", "(2, 3)". */
static void sb_tuple(strbuf *b, uint32_t nd, const uint64_t *dims)
{
    sb_puts(b, "(");
    for (uint32_t k = 0; k < nd; k++) sb_printf(b, "%s%llu", k ? ", " : "", (unsigned long long)dims[k]);
    sb_puts(b, nd == 1 ? ",)" : ")");
}

/* descr as JSON, as the library writes it (npyg_format_descr_json). */
static void sb_json_descr(strbuf *b, const npyg_dtype *d)
{
    char small[256];
    size_t n = npyg_format_descr_json(d, small, sizeof small);
    if (n < sizeof small) {
        sb_put(b, small, n);
        return;
    }
    char *big = malloc(n + 1);
    if (!big) die_oom();
    npyg_format_descr_json(d, big, n + 1);
    sb_put(b, big, n);
    free(big);
}

/* The error as a JSON object, the same everywhere a record has one:
   {"code", "name", "class", "offset", "offset_in", "message"}. */
static void sb_json_error_open(strbuf *b, const npyg_error *e)
{
    sb_printf(b, "{\"code\": %d, \"name\": \"%s\", \"class\": \"%s\", \"offset\": ", e->code, npyg_error_name(e->code),
              npyg_error_class(e->code));
    sb_json_u64(b, e->offset);
    sb_printf(b, ", \"offset_in\": \"%s\", \"message\": ", npyg_offset_space_name(e->offset_space));
    sb_json_str(b, e->message, strlen(e->message));
}

static void sb_json_error(strbuf *b, const npyg_error *e)
{
    sb_json_error_open(b, e);
    sb_puts(b, "}");
}

/* descr as numpy writes it; *big is malloc'd when it does not fit. */
static const char *descr_text(const npyg_info *in, char *small, size_t size, char **big)
{
    size_t need = npyg_format_descr(in->dtype, small, size);
    *big = NULL;
    if (need < size) return small;
    *big = malloc(need + 1);
    if (!*big) die_oom();
    npyg_format_descr(in->dtype, *big, need + 1);
    return *big;
}

/* A valid array's "npy" object (its warnings are beside it). */
static void sb_json_info(strbuf *b, const npyg_info *in, const char *sha)
{
    char descr[256], *big;
    const char *dtext = descr_text(in, descr, sizeof descr, &big);
    sb_printf(b, "{\"version\": \"%d.%d\", \"header_len\": %u, \"data_offset\": %llu, \"descr\": ", in->version_major,
              in->version_minor, in->header_len, (unsigned long long)in->data_offset);
    sb_json_descr(b, in->dtype);
    sb_puts(b, ", \"descr_repr\": ");
    sb_json_str(b, dtext, strlen(dtext));
    sb_puts(b, ", \"shape\": ");
    sb_json_shape(b, in->ndim, in->shape);
    sb_printf(b, ", \"fortran_order\": %s, \"itemsize\": %llu", in->fortran_order ? "true" : "false",
              (unsigned long long)in->dtype->itemsize);
    json_u64_field(b, "count", in->count);
    json_u64_field(b, "payload_bytes", in->payload_bytes);
    json_u64_field(b, "trailing_bytes", in->trailing_bytes);
    json_hash(b, sha);
    sb_puts(b, "}");
    free(big);
}

/* "label: ok <f8 shape=(3,) order=C v1.0", then one line per warning. */
static void sb_human_ok(strbuf *b, const char *label, const npyg_info *in, const char *sha)
{
    char descr[256], *big;
    const char *dtext = descr_text(in, descr, sizeof descr, &big);
    const char *shown = dtext;
    size_t slen = strlen(dtext);
    if (slen >= 2 && dtext[0] == '\'') { shown = dtext + 1; slen -= 2; } /* '<f8' -> <f8 */
    sb_text0(b, label);
    sb_puts(b, ": ok ");
    sb_text(b, shown, slen); /* a field name is repr()'d with non-ASCII kept raw */
    sb_puts(b, " shape=");
    sb_tuple(b, in->ndim, in->shape);
    sb_printf(b, " order=%s v%d.%d", in->fortran_order ? "F" : "C", in->version_major, in->version_minor);
    if (sha) sb_printf(b, " sha256=%s", sha);
    sb_puts(b, "\n");
    human_warnings(b, label, in->warnings, NPYG_WARNINGS_NPY);
    free(big);
}

/* "path:offset: class: message" */
static void human_error(strbuf *b, const char *label, const npyg_error *e)
{
    sb_text0(b, label);
    sb_printf(b, ":%llu: %s: ", (unsigned long long)e->offset, npyg_error_class(e->code));
    sb_text0(b, e->message); /* messages quote member names */
    sb_puts(b, "\n");
}

/* ": class: message" after a label, for an error at no offset in the
   file's bytes (nothing was read, or an HDF5 object, named by its path). */
static void human_error_unplaced(strbuf *b, int code, const char *message)
{
    sb_printf(b, ": %s: ", npyg_error_class(code));
    sb_text0(b, message);
    sb_puts(b, "\n");
}

/* ---------------- what a pickle imports ---------------- */

static bool has_pickle(const npyg_error *e, const pickle_view *pk)
{
    return pk && pk->report && e->code == NPYG_EOBJECT;
}

/* "path:offset: unsafe: object dtype: the payload is a pickle that imports
   posix.system, builtins.eval" (names escaped by the library). */
static void human_pickle(strbuf *b, const char *label, const npyg_error *e, const pickle_view *pk)
{
    const npyg_pickle_report *r = pk->report;
    size_t need = npyg_pickle_format_imports(r, NULL, 0);
    char *names = malloc(need + 1);
    if (!names) die_oom();
    npyg_pickle_format_imports(r, names, need + 1);
    sb_printf(b, "%s:%llu: %s: object dtype: the payload is a pickle that imports %s", label,
              (unsigned long long)e->offset, npyg_error_class(e->code), r->nimports ? names : "nothing");
    if (r->status)
        sb_printf(b, " (the scan stopped at byte %llu: %s)", (unsigned long long)pk->scan_error.offset,
                  npyg_strerror(r->status));
    sb_puts(b, "\n");
    free(names);
}

/* , "pickle": {"complete": ..., "protocol": ..., "imports": [{"module": ...,
   "name": ..., "called": ..., "built": ..., "uses": [...]}, ...], ...} */
static void json_pickle(strbuf *b, const pickle_view *pk)
{
    static const struct { unsigned bit; const char *name; } uses[] = {
        {NPYG_PI_REDUCE, "REDUCE"}, {NPYG_PI_NEWOBJ, "NEWOBJ"}, {NPYG_PI_INST, "INST"}, {NPYG_PI_OBJ, "OBJ"},
        {NPYG_PI_BUILD, "BUILD"}, {NPYG_PI_EXT, "EXT"},
    };
    const npyg_pickle_report *r = pk->report;
    sb_printf(b, ", \"pickle\": {\"complete\": %s, \"protocol\": %d, \"opcodes\": ", r->status ? "false" : "true",
              r->protocol);
    sb_json_u64(b, r->opcodes);
    if (r->status) {
        sb_puts(b, ", \"scan_error\": ");
        sb_json_error(b, &pk->scan_error);
    }
    sb_printf(b, ", \"indirect_calls\": %s, \"persistent_ids\": %s, \"imports\": [",
              r->flags & NPYG_PR_INDIRECT_CALL ? "true" : "false", r->flags & NPYG_PR_PERSID ? "true" : "false");
    for (uint32_t i = 0; i < r->nimports; i++) {
        const npyg_pickle_import *m = &r->imports[i];
        sb_puts(b, i ? ", {\"module\": " : "{\"module\": ");
        sb_json_str(b, m->module, m->module_len);
        sb_puts(b, ", \"name\": ");
        sb_json_str(b, m->name, m->name_len);
        sb_printf(b, ", \"called\": %s, \"built\": %s, \"resolved\": %s", m->flags & NPYG_PI_CALLED ? "true" : "false",
                  m->flags & NPYG_PI_BUILD ? "true" : "false",
                  m->flags & (NPYG_PI_UNRESOLVED | NPYG_PI_TRUNCATED) ? "false" : "true");
        if (m->flags & NPYG_PI_EXT) sb_printf(b, ", \"ext_code\": %ld", (long)m->ext_code);
        sb_puts(b, ", \"uses\": [");
        bool first = true;
        for (size_t k = 0; k < sizeof uses / sizeof uses[0]; k++) {
            if (!(m->flags & uses[k].bit)) continue;
            sb_printf(b, "%s\"%s\"", first ? "" : ", ", uses[k].name);
            first = false;
        }
        sb_puts(b, "]}");
    }
    sb_puts(b, "]}");
}

/* {"schema": ..., "path": ..., "format": ..., "ok": ... (the record's head,
   in this order on every record). */
static void json_head(strbuf *b, const char *path, npyg_format f, bool ok)
{
    sb_puts(b, "{\"schema\": \"" SCHEMA_ID "\", ");
    sb_json_name(b, "path", path, strlen(path));
    sb_printf(b, ", \"format\": \"%s\", \"ok\": %s", format_name(f), ok ? "true" : "false");
}

/* A refusal, as one SARIF result (sarif.c), for the file or for what in it
   `where` names ("member", "object"). */
static void sarif_of(strbuf *b, const char *path, const npyg_error *e, const char *where, const char *name,
                     size_t name_len)
{
    sarif_result(b, path, e->code, e->message, e->offset, e->offset_space, where, name, name_len);
}

/* A file that failed as a whole: the error, an empty object of its format
   (the archive's with no members), and what a pickle would import. */
static void file_error(const options *o, strbuf *b, const char *path, const npyg_error *e, npyg_format f,
                       const pickle_view *pk)
{
    if (o->sarif) {
        sarif_of(b, path, e, NULL, NULL, 0);
        return;
    }
    if (!o->json) {
        if (has_pickle(e, pk)) human_pickle(b, path, e, pk);
        else human_error(b, path, e);
        return;
    }
    json_head(b, path, f, false);
    sb_puts(b, ", \"error\": ");
    sb_json_error(b, e);
    if (has_pickle(e, pk)) json_pickle(b, pk);
    sb_puts(b, ", \"warnings\": []");
    const char *obj = format_object(f);
    if (obj) sb_printf(b, ", \"%s\": %s", obj, f == NPYG_FORMAT_NPZ ? "{\"members\": []}"
                                              : f == NPYG_FORMAT_HDF5 || f == NPYG_FORMAT_MAT73 ? "{\"objects\": []}"
                                                                                                 : "{}");
    sb_puts(b, "}\n");
}

void report_error(const options *o, strbuf *b, const char *path, const npyg_error *e, npyg_format f)
{
    file_error(o, b, path, e, f, NULL);
}

/* ---------------- HDF5 / MAT v7.3 ---------------- */


/* "a.mat:/x: ok float64 shape=(2, 3)", "a.mat:/l: unsafe: ...". */
int report_hdf5_object(void *user, const npyg_hdf5_object *obj)
{
    hdf5_report *h = user;
    strbuf *b = &h->objects;
    bool dataset = obj->kind == NPYG_HDF5_DATASET;
    if (h->o->sarif) {
        if (obj->code) {
            /* placed by the object's path, not by a byte offset */
            npyg_error e = {.code = obj->code, .offset = 0, .offset_space = -1};
            snprintf(e.message, sizeof e.message, "%s", obj->message);
            sarif_of(b, h->path, &e, "object", obj->path, strlen(obj->path));
        }
    } else if (h->o->json) {
        if (h->n) sb_puts(b, ", ");
        sb_puts(b, "{\"path\": ");
        sb_json_str(b, obj->path, strlen(obj->path));
        sb_printf(b, ", \"kind\": \"%s\", \"type\": ", npyg_hdf5_kind_name(obj->kind));
        sb_json_str(b, obj->type, strlen(obj->type));
        if (dataset) {
            sb_puts(b, ", \"shape\": ");
            sb_json_shape(b, obj->ndim, obj->shape);
        }
        const char *sha = dataset && !obj->code ? hdf5_hash_of(h->hashes, obj->path) : NULL;
        if (sha) sb_printf(b, ", \"payload_sha256\": \"%s\"", sha);
        sb_printf(b, ", \"ok\": %s", obj->code ? "false" : "true");
        if (obj->code) {
            /* an object is placed by its path: no byte offset */
            sb_printf(b, ", \"error\": {\"code\": %d, \"name\": \"%s\", \"class\": \"%s\", \"offset\": null, "
                         "\"offset_in\": \"object\", \"message\": ",
                      obj->code, npyg_error_name(obj->code), npyg_error_class(obj->code));
            sb_json_str(b, obj->message, strlen(obj->message));
            sb_puts(b, "}, \"warnings\": []}");
        } else {
            json_warning_list(b, obj->warnings, NPYG_WARNINGS_HDF5);
            if (obj->message[0]) {
                sb_puts(b, ", \"message\": ");
                sb_json_str(b, obj->message, strlen(obj->message));
            }
            sb_puts(b, "}");
        }
    } else if (obj->code) {
        text_label(b, h->path, obj->path);
        human_error_unplaced(b, obj->code, obj->message);
    } else {
        if (!h->o->quiet) {
            text_label(b, h->path, obj->path);
            sb_puts(b, ": ok ");
            sb_text0(b, obj->type);
            if (dataset) {
                sb_puts(b, " shape=");
                sb_tuple(b, obj->ndim, obj->shape);
            }
            const char *sha = dataset ? hdf5_hash_of(h->hashes, obj->path) : NULL;
            if (sha) sb_printf(b, " sha256=%s", sha);
            sb_puts(b, "\n");
        }
        if (obj->warnings) {
            text_label(b, h->path, obj->path);
            sb_puts(b, ": warning: ");
            sb_text0(b, obj->message);
            sb_puts(b, "\n");
        }
    }
    h->n++;
    if (obj->code) h->any_code = true;
    return 0;
}

void report_hdf5(const options *o, strbuf *b, const char *path, npyg_ctx *ctx, int rc, const npyg_probe_info *pi,
                 const hdf5_report *objs)
{
    const npyg_error *e = npyg_last_error(ctx);
    if (o->sarif) {
        if (objs->objects.p) sb_puts(b, objs->objects.p);
        if (rc && !objs->any_code) sarif_of(b, path, e, NULL, NULL, 0);
        return;
    }
    if (o->json) {
        json_head(b, path, pi->format, rc == 0);
        if (rc) {
            sb_puts(b, ", \"error\": ");
            sb_json_error(b, e);
        }
        json_warning_list(b, pi->warnings, NPYG_WARNINGS_PROBE);
        sb_puts(b, ", \"hdf5\": {");
        if (pi->format == NPYG_FORMAT_MAT73) {
            sb_puts(b, "\"mat_header\": ");
            sb_json_str(b, pi->text, strlen(pi->text));
            sb_puts(b, ", ");
        }
        sb_puts(b, "\"objects\": [");
        if (objs->objects.p) sb_puts(b, objs->objects.p);
        sb_puts(b, "]}}\n");
        return;
    }
    if (objs->objects.p) sb_puts(b, objs->objects.p);
    /* an error of the file as a whole (a crash, a limit of the child, a
       file libhdf5 cannot open): no object line says it */
    if (rc && !objs->any_code) {
        sb_text0(b, path);
        human_error_unplaced(b, e->code, e->message);
    }
    human_warnings(b, path, pi->warnings, NPYG_WARNINGS_PROBE);
}

int status_of(int code)
{
    return code == 0 ? 0 : npyg_error_is_environment(code) ? 2 : 1;
}

void report_io(const options *o, strbuf *b, const char *path, const char *what, int err)
{
    npyg_error e = {.code = NPYG_EIO, .offset = 0, .offset_space = NPYG_OFFSET_FILE};
    snprintf(e.message, sizeof e.message, "%s: %s", what, strerror(err));
    if (o->json || o->sarif) file_error(o, b, path, &e, NPYG_FORMAT_UNKNOWN, NULL);
    else { /* no offset: none was read */
        sb_text0(b, path);
        human_error_unplaced(b, e.code, e.message);
    }
}

void report_unchecked(const options *o, strbuf *b, const char *path, const char *kind, const npyg_error *e)
{
    if (o->sarif) {
        sarif_of(b, path, e, NULL, NULL, 0);
        return;
    }
    if (!o->json) { /* no offset: nothing was read */
        sb_text0(b, path);
        human_error_unplaced(b, e->code, e->message);
        return;
    }
    json_head(b, path, NPYG_FORMAT_UNKNOWN, false);
    sb_printf(b, ", \"not_checked\": \"%s\", \"error\": ", kind);
    sb_json_error(b, e);
    sb_puts(b, ", \"warnings\": []}\n");
}

/* Not a refusal: no SARIF result. */
void report_skipped(const options *o, strbuf *b, const char *path, const char *reason, const char *message)
{
    if (o->json) {
        sb_puts(b, "{\"schema\": \"" SCHEMA_ID "\", ");
        sb_json_name(b, "path", path, strlen(path));
        sb_printf(b, ", \"format\": \"unknown\", \"ok\": null, \"skipped\": \"%s\", \"message\": ", reason);
        sb_json_str(b, message, strlen(message));
        sb_puts(b, ", \"warnings\": []}\n");
    } else if (!o->quiet && !o->sarif) {
        sb_text0(b, path);
        sb_puts(b, ": skipped: ");
        sb_text0(b, message);
        sb_puts(b, "\n");
    }
}

void report_refused(const options *o, strbuf *b, const char *path, unsigned mode)
{
    npyg_error e = {.code = NPYG_ENOTREG, .offset = 0, .offset_space = NPYG_OFFSET_FILE};
    if (S_ISDIR((mode_t)mode))
        snprintf(e.message, sizeof e.message, "is a directory: use -r to validate the files under it");
    else
        snprintf(e.message, sizeof e.message,
                 "is %s, not a regular file: refused unopened, as reading it could block or never end "
                 "(pass its bytes on standard input instead)",
                 file_kind(mode));
    if (o->json || o->sarif) file_error(o, b, path, &e, NPYG_FORMAT_UNKNOWN, NULL);
    else {
        sb_text0(b, path);
        human_error_unplaced(b, e.code, e.message);
    }
}

void report_npy(const options *o, strbuf *b, const char *path, npyg_ctx *ctx, int rc, const char *sha,
                const pickle_view *pk, npyg_format f)
{
    if (rc) {
        file_error(o, b, path, npyg_last_error(ctx), f, pk);
        return;
    }
    if (o->sarif) return;
    const npyg_info *in = npyg_get_info(ctx);
    if (o->json) {
        json_head(b, path, NPYG_FORMAT_NPY, true);
        json_warning_list(b, in->warnings, NPYG_WARNINGS_NPY);
        sb_puts(b, ", \"npy\": ");
        sb_json_info(b, in, sha);
        sb_puts(b, "}\n");
    } else if (!o->quiet) {
        sb_human_ok(b, path, in, sha);
    }
}

/* ---------------- RawArray ---------------- */

/* "path: ok ra float32 dims=(3, 4) endian=little data=48 metadata=0"; a
   compressed file adds "lz4=<stored bytes>". dims as stored, dims[0]
   fastest. The hash is of the data segment as stored. */
void report_ra(const options *o, strbuf *b, const char *path, npyg_ctx *ctx, int rc, const char *sha)
{
    if (rc) {
        file_error(o, b, path, npyg_last_error(ctx), NPYG_FORMAT_RA, NULL);
        return;
    }
    if (o->sarif) return;
    const npyg_ra_info *ra = npyg_get_ra_info(ctx);
    char type[48];
    npyg_ra_type_name(ra, type, sizeof type);
    const char *endian = ra->big_endian ? "big" : "little";
    if (o->json) {
        json_head(b, path, NPYG_FORMAT_RA, true);
        json_warning_list(b, ra->warnings, NPYG_WARNINGS_NPY);
        sb_printf(b, ", \"ra\": {\"type\": \"%s\"", type);
        json_u64_field(b, "flags", ra->flags);
        json_u64_field(b, "eltype", ra->eltype);
        json_u64_field(b, "elbyte", ra->elbyte);
        sb_puts(b, ", \"dims\": ");
        sb_json_shape(b, ra->ndims, ra->dims);
        sb_printf(b, ", \"endianness\": \"%s\", \"compressed\": %s", endian, ra->compressed ? "true" : "false");
        json_u64_field(b, "data_offset", ra->data_offset);
        json_u64_field(b, "size", ra->size);
        json_u64_field(b, "count", ra->count);
        json_u64_field(b, "data_bytes", ra->data_bytes);
        json_u64_field(b, "metadata_bytes", ra->metadata_bytes);
        json_hash(b, sha);
        sb_puts(b, "}}\n");
        return;
    }
    if (o->quiet) return;
    sb_text0(b, path);
    sb_printf(b, ": ok ra %s dims=", type);
    sb_tuple(b, ra->ndims, ra->dims);
    sb_printf(b, " endian=%s data=%llu", endian, (unsigned long long)ra->data_bytes);
    if (ra->compressed) sb_printf(b, " lz4=%llu", (unsigned long long)ra->size);
    sb_printf(b, " metadata=%llu", (unsigned long long)ra->metadata_bytes);
    if (sha) sb_printf(b, " sha256=%s", sha);
    sb_puts(b, "\n");
    human_warnings(b, path, ra->warnings, NPYG_WARNINGS_NPY);
}

/* ---------------- archives ---------------- */

void report_archive_error(const options *o, strbuf *b, const char *path, const npyg_error *e)
{
    file_error(o, b, path, e, NPYG_FORMAT_NPZ, NULL);
}

/* Human output names what an offset is in: "a.npz:1234: zip: ..." for the
   archive, "a.npz:x.npy:10: header: ..." for the member's bytes. */
void report_member(const options *o, strbuf *b, const char *path, npyg_ctx *ctx, const npyg_zip_entry *m, int rc,
                   const char *sha, const npyg_error *e, const pickle_view *pk)
{
    if (!e) e = npyg_last_error(ctx);
    if (o->sarif) {
        if (rc) sarif_of(b, path, e, "member", m->name, m->name_len);
        return;
    }
    size_t llen = strlen(path) + m->name_len + 2;
    char *label = malloc(llen);
    if (!label) die_oom();
    snprintf(label, llen, "%s:%s", path, m->name);
    const npyg_info *in = rc ? NULL : npyg_get_info(ctx);
    if (o->json) {
        sb_puts(b, "{");
        sb_json_name(b, "name", m->name, m->name_len);
        sb_printf(b, ", \"ok\": %s, \"method\": %u", rc ? "false" : "true", m->method);
        json_u64_field(b, "compressed_size", m->compressed_size);
        json_u64_field(b, "uncompressed_size", m->uncompressed_size);
        sb_printf(b, ", \"crc32\": \"%08x\"", m->crc32);
        json_u64_field(b, "header_offset", m->header_offset);
        sb_puts(b, ", \"zip_warnings\": [");
        json_warnings(b, m->warnings, NPYG_WARNINGS_ZIP);
        sb_puts(b, "]");
        if (rc) {
            sb_puts(b, ", \"error\": ");
            sb_json_error(b, e);
            if (has_pickle(e, pk)) json_pickle(b, pk);
            sb_puts(b, ", \"warnings\": [], \"npy\": null");
        } else if (in) {
            json_warning_list(b, in->warnings, NPYG_WARNINGS_NPY);
            sb_puts(b, ", \"npy\": ");
            sb_json_info(b, in, sha);
        } else {
            sb_puts(b, ", \"warnings\": [], \"npy\": null");
        }
        sb_puts(b, "}");
    } else if (rc && has_pickle(e, pk)) {
        human_pickle(b, label, e, pk);
    } else if (rc) {
        human_error(b, e->offset_space == NPYG_OFFSET_ARCHIVE ? path : label, e);
    } else if (!o->quiet) {
        if (in) {
            sb_human_ok(b, label, in, sha);
        } else {
            sb_text0(b, label);
            sb_printf(b, ": ok not .npy (%llu bytes; numpy returns them as bytes)\n",
                      (unsigned long long)m->uncompressed_size);
        }
    }
    if (!rc && !o->json && !o->quiet) human_warnings(b, label, m->warnings, NPYG_WARNINGS_ZIP);
    free(label);
}

/* first: the first member that failed, and its error (the archive's
   top-level error, as an HDF5 file's is its first refused object's), or
   NULL when every member passed. */
void report_archive(const options *o, strbuf *b, const char *path, int status, size_t count, const char *members,
                    const npyg_zip_entry *first, const npyg_error *first_error)
{
    if (o->sarif) {
        if (members) sb_puts(b, members);
        return;
    }
    if (o->json) {
        json_head(b, path, NPYG_FORMAT_NPZ, status == 0);
        if (first && first_error) {
            sb_puts(b, ", \"error\": ");
            sb_json_error_open(b, first_error);
            sb_puts(b, ", ");
            sb_json_name(b, "member", first->name, first->name_len);
            sb_puts(b, "}");
        }
        sb_puts(b, ", \"warnings\": [], \"npz\": {\"members\": [");
        if (members) sb_puts(b, members);
        sb_puts(b, "]}}\n");
    } else {
        if (members) sb_puts(b, members);
        if (count == 0 && !o->quiet) {
            sb_text0(b, path);
            sb_puts(b, ": ok empty archive\n");
        }
    }
}
