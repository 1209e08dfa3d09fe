/* SPDX-License-Identifier: BSD-3-Clause */
/* The walk's check of variable-length data: every vlen descriptor held to
 * the global heap object it names, from the file's own bytes, before
 * libhdf5 converts it. */
#define _GNU_SOURCE
#include "h5walker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A global heap object, or (index HEAP_PARSED) the mark that its
   collection was read: size 0 when it was well formed, 1 when not. */
typedef struct hobj {
    haddr_t coll;
    uint32_t idx;
    bool seen;           /* a vlen record already counted its bytes */
    uint64_t size;
} hobj;
#define HEAP_PARSED UINT32_MAX
#define HEAP_MAX_OBJECTS (UINT32_C(1) << 24)

/* A vlen element on disk is a descriptor: a 4-byte length (elements of
 * the base type, bytes for a string), then the global heap object that
 * holds them, as the address of its collection and a 4-byte index.
 * libhdf5 copies the whole heap object into a buffer of length x the base
 * size when it converts the element: if the two disagree it writes past
 * that buffer (a crash, or a heap quietly broken). So every descriptor is
 * checked against its heap object before anything converts it:
 * - the descriptors are read with a conversion to an opaque type of their
 *   own width that copies them as they are (raw_conv, registered for the
 *   walk), so libhdf5 never follows them;
 * - the collections ("GCOL", version 1, its size, then objects of index,
 *   reference count, reserved, size, data padded to 8 bytes: the HDF5
 *   file format's global heap) are read from the file's bytes with
 *   the bytes libhdf5 reads too (the child's read-only map of the input),
 *   bounded by the collection's size and the file's.
 */

static herr_t raw_conv(hid_t src, hid_t dst, H5T_cdata_t *cdata, size_t n, size_t buf_stride,
                       size_t bkg_stride, void *buf, void *bkg, hid_t dxpl)
{
    (void)n, (void)buf_stride, (void)bkg_stride, (void)buf, (void)bkg, (void)dxpl;
    if (cdata->command != H5T_CONV_INIT) return 0; /* same width: the bytes stay as they are */
    cdata->need_bkg = H5T_BKG_NO;
    if (H5Tget_class(dst) != H5T_OPAQUE) return -1;
    if (H5Tget_class(src) == H5T_STRING && H5Tis_variable_str(src) <= 0) return -1;
    return H5Tget_size(src) == H5Tget_size(dst) ? 0 : -1;
}

#define RAW_CONV_NAME "npyguard: vlen descriptors as stored"

/* Sets up the checks; without them every vlen element is refused. */
void npyg__h5w_vlen_setup(walk *w, const void *image, uint64_t size)
{
    w->raw_type = -1;
    hid_t fcpl = H5Fget_create_plist(w->file);
    hsize_t ub = 0;
    if (image && fcpl >= 0 && H5Pget_sizes(fcpl, &w->sizeof_addr, &w->sizeof_len) >= 0 &&
        H5Pget_userblock(fcpl, &ub) >= 0 && w->sizeof_addr <= 8 && w->sizeof_len <= 8) {
        hid_t vl = H5Tvlen_create(H5T_NATIVE_UCHAR), vs = H5Tcopy(H5T_C_S1);
        w->raw_type = H5Tcreate(H5T_OPAQUE, 8 + w->sizeof_addr);
        if (vl >= 0 && vs >= 0 && w->raw_type >= 0 && H5Tset_size(vs, H5T_VARIABLE) >= 0 &&
            H5Tregister(H5T_PERS_SOFT, RAW_CONV_NAME, vl, w->raw_type, raw_conv) >= 0 &&
            H5Tregister(H5T_PERS_SOFT, RAW_CONV_NAME, vs, w->raw_type, raw_conv) >= 0) {
            w->image = image;
            w->image_size = size;
            w->base = ub;
        }
        if (vl >= 0) H5Tclose(vl);
        if (vs >= 0) H5Tclose(vs);
    }
    if (fcpl >= 0) H5Pclose(fcpl);
}

void npyg__h5w_vlen_teardown(walk *w)
{
    /* libhdf5's unregister walks its whole table of conversion paths: a
       few percent of a small file's cost, for a process about to end */
    if (w->raw_type >= 0 && !w->p->exits) {
        H5Tunregister(H5T_PERS_SOFT, RAW_CONV_NAME, -1, -1, raw_conv);
        H5Tclose(w->raw_type);
    }
    free(w->heap);
}

static uint64_t get_le(const unsigned char *p, size_t n)
{
    uint64_t v = 0;
    while (n--) v = v << 8 | p[n];
    return v;
}

static uint32_t heap_slot(const walk *w, haddr_t coll, uint32_t idx)
{
    uint64_t x = ((uint64_t)coll * UINT64_C(0x9E3779B97F4A7C15)) ^ (idx * UINT64_C(0xC2B2AE3D27D4EB4F));
    uint32_t k = (uint32_t)(x >> 32) & (w->capheap - 1);
    while (w->heap[k].idx && !(w->heap[k].coll == coll && w->heap[k].idx == idx)) k = (k + 1) & (w->capheap - 1);
    return k;
}

/* Index 0 is never an object (it marks free space), so it marks a free slot. */
static hobj *heap_find(const walk *w, haddr_t coll, uint32_t idx)
{
    if (!w->capheap) return NULL;
    hobj *h = &w->heap[heap_slot(w, coll, idx)];
    return h->idx ? h : NULL;
}

static bool heap_put(walk *w, haddr_t coll, uint32_t idx, uint64_t size)
{
    if ((uint64_t)(w->nheap + 1) * 2 > w->capheap) {
        if (w->nheap >= HEAP_MAX_OBJECTS) return false;
        uint32_t cap = w->capheap ? w->capheap * 2 : 1024;
        hobj *old = w->heap;
        uint32_t oldcap = w->capheap;
        w->heap = calloc(cap, sizeof *w->heap);
        if (!w->heap) {
            w->heap = old;
            return false;
        }
        w->capheap = cap;
        for (uint32_t i = 0; i < oldcap; i++)
            if (old[i].idx) w->heap[heap_slot(w, old[i].coll, old[i].idx)] = old[i];
        free(old);
    }
    hobj *h = &w->heap[heap_slot(w, coll, idx)];
    if (h->idx) return false; /* an index twice in one collection */
    *h = (hobj){coll, idx, false, size};
    w->nheap++;
    return true;
}

/* len bytes of the file at off; false past its end. */
static bool image_read(const walk *w, void *buf, size_t len, uint64_t off)
{
    if (off > w->image_size || len > w->image_size - off) return false;
    memcpy(buf, w->image + off, len);
    return true;
}

/* Reads one collection's object headers into the table; false when it is
   not a well-formed collection inside the file. */
static bool heap_parse(walk *w, haddr_t coll)
{
    size_t L = w->sizeof_len, hdr = 8 + L;
    unsigned char b[16];
    uint64_t at, csize, end;
    if (!npyg__add_u64(w->base, coll, &at) || !image_read(w, b, hdr, at) || memcmp(b, "GCOL", 4) ||
        b[4] != 1)
        return false;
    csize = get_le(b + 8, L);
    if (csize < hdr || !npyg__add_u64(at, csize, &end) || end > w->file_size) return false;
    for (uint64_t off = hdr; off + hdr <= csize;) {
        if (!image_read(w, b, hdr, at + off)) return false;
        uint32_t idx = (uint32_t)get_le(b, 2);
        uint64_t size = get_le(b + 8, L);
        if (idx == 0) break; /* free space: the rest of the collection */
        if (size > csize - off - hdr || !heap_put(w, coll, idx, size)) return false;
        off += hdr + ((size + 7) & ~UINT64_C(7));
    }
    return true;
}

/* The size of heap object (coll, idx), or UINT64_MAX with why. */
static uint64_t heap_size(walk *w, haddr_t coll, uint32_t idx, hobj **obj, const char **why)
{
    hobj *mark = heap_find(w, coll, HEAP_PARSED);
    if (!mark) {
        bool ok = heap_parse(w, coll);
        if (!heap_put(w, coll, HEAP_PARSED, ok ? 0 : 1)) {
            *why = "too many heap objects to check";
            return UINT64_MAX;
        }
        mark = heap_find(w, coll, HEAP_PARSED);
    }
    if (mark->size) {
        *why = "its heap collection is not a well-formed global heap collection in this file";
        return UINT64_MAX;
    }
    *obj = idx && idx != HEAP_PARSED ? heap_find(w, coll, idx) : NULL;
    if (!*obj) {
        *why = "its heap collection has no object of that index";
        return UINT64_MAX;
    }
    return (*obj)->size;
}

/* Checks n descriptors in buf (each 8 + sizeof_addr bytes) of elements of
   base bytes; counts what a reader allocates for them. */
static bool check_descriptors(walk *w, const unsigned char *buf, hssize_t n, uint64_t base, const char *type,
                              const char *kind, const char *path, uint64_t stored)
{
    size_t dsz = 8 + w->sizeof_addr;
    uint64_t made = 0, fresh = 0;
    for (hssize_t i = 0; i < n; i++) {
        const unsigned char *d = buf + (size_t)i * dsz;
        uint64_t len = get_le(d, 4), want, have;
        if (len == 0) continue; /* libhdf5 reads no heap object for it */
        haddr_t coll = get_le(d + 4, w->sizeof_addr);
        uint32_t idx = (uint32_t)get_le(d + 4 + w->sizeof_addr, 4);
        const char *why = NULL;
        hobj *o = NULL;
        have = heap_size(w, coll, idx, &o, &why);
        if (!npyg__mul_u64(len, base, &want)) want = UINT64_MAX;
        if (have == UINT64_MAX) {
            npyg__h5w_hazard(w, NPYG_EHDF5_VLEN, kind, path, "element %lld (%llu elements at heap object %llu:%u): %s",
                   (long long)i, (unsigned long long)len, (unsigned long long)coll, idx, why);
            return false;
        }
        if (have != want) {
            npyg__h5w_hazard(w, NPYG_EHDF5_VLEN, kind, path,
                   "element %lld says %llu elements of %llu bytes, its heap object holds %llu bytes: %s",
                   (long long)i, (unsigned long long)len, (unsigned long long)base, (unsigned long long)have,
                   want < have ? "converting it writes past libhdf5's buffer"
                               : "a reader's conversion allocates the larger size");
            return false;
        }
        if (!npyg__add_u64(made, want, &made)) made = UINT64_MAX;
        if (!o->seen) {
            o->seen = true;
            fresh += have;
        }
    }
    if (made > w->p->max_payload) {
        npyg__h5w_hazard(w, NPYG_ELIMIT_PAYLOAD, kind, path,
               "its variable-length elements make %llu bytes in a reader, more than max_payload_bytes (%llu)",
               (unsigned long long)made, (unsigned long long)w->p->max_payload);
        return false;
    }
    int before = w->hazards;
    npyg__h5w_inflate(w, type, -1, NULL, path, "its variable-length elements make", made, stored + fresh);
    return w->hazards == before;
}

/* Does a value of type t hold variable-length data (a vlen sequence or a
   vlen string), at any depth? Types nested past 32 levels count as yes. */
static bool holds_vlen(hid_t t, int depth)
{
    if (depth > 32) return true;
    H5T_class_t cls = H5Tget_class(t);
    if (cls == H5T_VLEN) return true;
    if (cls == H5T_STRING) return H5Tis_variable_str(t) > 0;
    if (cls == H5T_ARRAY) {
        hid_t sup = H5Tget_super(t);
        bool r = sup < 0 || holds_vlen(sup, depth + 1);
        if (sup >= 0) H5Tclose(sup);
        return r;
    }
    if (cls != H5T_COMPOUND) return false;
    int n = H5Tget_nmembers(t);
    bool r = n < 0;
    for (int i = 0; !r && i < n; i++) {
        hid_t mt = H5Tget_member_type(t, (unsigned)i);
        r = mt < 0 || holds_vlen(mt, depth + 1);
        if (mt >= 0) H5Tclose(mt);
    }
    return r;
}

/* Reads the descriptors of obj's elements (all of them, or one member of
   its compound elements) and checks them. */
static bool check_vlen_part(walk *w, hid_t obj, bool attr, const char *member, hid_t vt, hssize_t np,
                            const char *kind, const char *path)
{
    /* A variable-length string has a base type too, a character of one
       byte in every file a writer makes; a reader's conversion allocates
       the stored length times the size the file gives it, whatever it is. */
    hid_t sup = H5Tget_super(vt);
    bool nested = sup < 0 || holds_vlen(sup, 0);
    uint64_t base = sup >= 0 ? H5Tget_size(sup) : 0;
    if (sup >= 0) H5Tclose(sup);
    if (nested) {
        npyg__h5w_hazard(w, NPYG_EHDF5_VLEN, kind, path,
               sup < 0 ? "variable-length data whose element type libhdf5 cannot give: not checked"
                       : "variable-length data inside variable-length data: npyguard cannot check it before a reader converts it");
        return false;
    }
    size_t dsz = 8 + w->sizeof_addr;
    hid_t mt = w->raw_type;
    if (member) {
        mt = H5Tcreate(H5T_COMPOUND, dsz);
        if (mt < 0 || H5Tinsert(mt, member, 0, w->raw_type) < 0) {
            if (mt >= 0) H5Tclose(mt);
            npyg__h5w_failed(w, kind, path, "make a type for the variable-length member");
            return false;
        }
    }
    unsigned char *buf = malloc((size_t)np * dsz + 1);
    herr_t rd = -1;
    if (buf) rd = attr ? H5Aread(obj, mt, buf) : npyg__h5_read(obj, mt, H5S_ALL, H5S_ALL, (uint64_t)np, buf);
    if (mt != w->raw_type) H5Tclose(mt);
    if (rd < 0) {
        free(buf);
        npyg__h5w_hazard(w, NPYG_EHDF5_VLEN, kind, path,
               buf ? "variable-length data whose descriptors libhdf5 cannot read as stored: not checked"
                   : "variable-length data: out of memory in the child");
        return false;
    }
    uint64_t stored = attr ? H5Aget_storage_size(obj) : H5Dget_storage_size(obj);
    bool ok = check_descriptors(w, buf, np, base, "vlen", kind, path, stored);
    free(buf);
    return ok;
}

/* Checks every vlen element of obj (a dataset or an attribute of type t)
   before anything converts it; false after a hazard. */
bool npyg__h5w_vlen_ok(walk *w, hid_t obj, bool attr, hid_t t, hssize_t np, const char *kind, const char *path)
{
    if (np <= 0 || !holds_vlen(t, 0)) return true;
    bool vs = H5Tget_class(t) == H5T_STRING;
    if (!w->image) {
        npyg__h5w_hazard(w, NPYG_EHDF5_VLEN, kind, path,
               "variable-length data, and this walk cannot read the descriptors as stored: not checked");
        return false;
    }
    H5T_class_t cls = H5Tget_class(t);
    if (cls == H5T_VLEN || vs) return check_vlen_part(w, obj, attr, NULL, t, np, kind, path);
    int n = cls == H5T_COMPOUND ? H5Tget_nmembers(t) : -1;
    bool ok = n >= 0;
    for (int i = 0; ok && i < n; i++) {
        hid_t mt = H5Tget_member_type(t, (unsigned)i);
        H5T_class_t mc = mt >= 0 ? H5Tget_class(mt) : H5T_NO_CLASS;
        bool mvs = mc == H5T_STRING && H5Tis_variable_str(mt) > 0;
        if (mc == H5T_VLEN || mvs) {
            char *name = H5Tget_member_name(t, (unsigned)i);
            ok = name && check_vlen_part(w, obj, attr, name, mt, np, kind, path);
            if (name) H5free_memory(name);
            if (!name) npyg__h5w_failed(w, kind, path, "read a compound member's name");
        } else if (mt < 0 || holds_vlen(mt, 0)) {
            n = -1;
            ok = false;
        }
        if (mt >= 0) H5Tclose(mt);
    }
    if (n < 0)
        npyg__h5w_hazard(w, NPYG_EHDF5_VLEN, kind, path,
               "variable-length data nested in arrays or inner compounds: npyguard cannot check it before a reader converts it");
    return ok;
}
