/* SPDX-License-Identifier: BSD-3-Clause */
/* The bit layout of stored numbers, and the value h5py gives for it.
 *
 * An integer or float type says how many of its bits count (precision),
 * where they start (offset), what the other bits hold (pad), and for a
 * float where its sign, exponent and mantissa lie and the exponent's
 * bias. numpy knows one layout per size and byte order. Bytes labelled
 * with a numpy descr are therefore the stored value only when the stored
 * type EQUALS the standard type of that size and order (H5Tequal against
 * H5T_STD_I32LE, H5T_IEEE_F64BE, ...); anything else is read through a
 * memory type and libhdf5 converts, as h5py does:
 *   integers: the standard integer of the stored size, sign and order
 *             (h5py's dtype ignores precision and offset);
 *   floats:   the first of float16, float32, float64, longdouble that is
 *             at least as large and whose mantissa and exponent range
 *             hold the stored ones (h5py's TypeFloatID.py_dtype), in the
 *             stored byte order.
 * A layout no numpy type holds is refused with the reason.
 */
#define _GNU_SOURCE
#include "h5walk.h"

#include <stdio.h>
#include <string.h>

static char order_char(hid_t t) { return H5Tget_order(t) == H5T_ORDER_BE ? '>' : '<'; }

/* The standard integer of t's size, sign and order; for one byte the
   little-endian one, as h5py reads every byte (numpy's '|' order is the
   native type) */
static hid_t std_int(hid_t t, bool read)
{
    bool be = H5Tget_order(t) == H5T_ORDER_BE && !(read && H5Tget_size(t) == 1), u = H5Tget_sign(t) == H5T_SGN_NONE;
    switch (H5Tget_size(t)) {
    case 1: return u ? (be ? H5T_STD_U8BE : H5T_STD_U8LE) : (be ? H5T_STD_I8BE : H5T_STD_I8LE);
    case 2: return u ? (be ? H5T_STD_U16BE : H5T_STD_U16LE) : (be ? H5T_STD_I16BE : H5T_STD_I16LE);
    case 4: return u ? (be ? H5T_STD_U32BE : H5T_STD_U32LE) : (be ? H5T_STD_I32BE : H5T_STD_I32LE);
    case 8: return u ? (be ? H5T_STD_U64BE : H5T_STD_U64LE) : (be ? H5T_STD_I64BE : H5T_STD_I64LE);
    default: return -1;
    }
}

/* numpy's float types as h5py sees them (np.typecodes["Float"] in order,
   with h5py's correction of the x87 long double's mantissa: 64 bits). */
static const struct {
    size_t size, nmant;
    long long maxexp, minexp;
} floats[] = {{2, 10, 16, -14}, {4, 23, 128, -126}, {8, 52, 1024, -1022}, {16, 64, 16384, -16382}};

/* A new float type of numpy's i-th float layout in t's byte order; -1
   when libhdf5 cannot make it. float16 is made as h5py makes it. */
static hid_t make_float(size_t i, hid_t t)
{
    hid_t m = -1;
    if (floats[i].size == 2) {
        m = H5Tcopy(H5T_IEEE_F32LE);
        if (m >= 0 && (H5Tset_fields(m, 15, 10, 5, 0, 10) < 0 || H5Tset_size(m, 2) < 0 || H5Tset_ebias(m, 15) < 0)) {
            H5Tclose(m);
            m = -1;
        }
    } else if (floats[i].size == 4) {
        m = H5Tcopy(H5T_IEEE_F32LE);
    } else if (floats[i].size == 8) {
        m = H5Tcopy(H5T_IEEE_F64LE);
    } else {
        m = H5Tcopy(H5T_NATIVE_LDOUBLE);
        /* only where long double is the x87 format h5py's table assumes */
        if (m >= 0 && H5Tget_size(m) != 16) {
            H5Tclose(m);
            m = -1;
        }
    }
    if (m >= 0 && H5Tset_order(m, H5Tget_order(t) == H5T_ORDER_BE ? H5T_ORDER_BE : H5T_ORDER_LE) < 0) {
        H5Tclose(m);
        m = -1;
    }
    return m;
}

/* The index in floats[] of the numpy type h5py reads t as; -1 if none. */
static int h5py_float(hid_t t)
{
    size_t spos, epos, esize, mpos, msize, ebias = H5Tget_ebias(t);
    if (H5Tget_fields(t, &spos, &epos, &esize, &mpos, &msize) < 0 || esize > 62 || ebias > (size_t)1 << 62)
        return -1;
    long long maxexp = (1LL << esize) - (long long)ebias - 1, minexp = 1 - (long long)ebias;
    for (size_t i = 0; i < sizeof floats / sizeof *floats; i++)
        if (floats[i].size >= H5Tget_size(t) && msize <= floats[i].nmant && maxexp <= floats[i].maxexp &&
            minexp >= floats[i].minexp)
            return (int)i;
    return -1;
}

/* Whether the number type t equals the standard type of its size, sign
   and byte order (for floats: IEEE binary16/32/64 as h5py writes them). */
static bool std_number(hid_t t)
{
    H5T_order_t order = H5Tget_order(t);
    if (order != H5T_ORDER_LE && order != H5T_ORDER_BE) return false;
    if (H5Tget_class(t) == H5T_INTEGER) {
        hid_t s = std_int(t, false);
        return s >= 0 && H5Tequal(t, s) > 0;
    }
    for (size_t i = 0; i < 3; i++) {
        if (floats[i].size != H5Tget_size(t)) continue;
        hid_t s = make_float(i, t);
        bool eq = s >= 0 && H5Tequal(t, s) > 0;
        if (s >= 0) H5Tclose(s);
        return eq;
    }
    return false;
}

hid_t npyg__h5_number_mem(hid_t t, char *descr, size_t cap, const char **why)
{
    H5T_order_t order = H5Tget_order(t);
    size_t size = H5Tget_size(t);
    if (order != H5T_ORDER_LE && order != H5T_ORDER_BE && size > 1) {
        *why = "a number in a byte order numpy has no descr for";
        return -1;
    }
    if (H5Tget_class(t) == H5T_INTEGER) {
        hid_t s = std_int(t, true);
        if (s < 0) {
            *why = "an integer of a size numpy has no type for";
            return -1;
        }
        snprintf(descr, cap, "%c%c%zu", size == 1 ? '|' : order_char(t), H5Tget_sign(t) == H5T_SGN_NONE ? 'u' : 'i',
                 size);
        return H5Tcopy(s);
    }
    int i = h5py_float(t);
    hid_t m = i >= 0 ? make_float((size_t)i, t) : -1;
    if (m < 0) {
        *why = "a float layout no numpy float type holds";
        return -1;
    }
    snprintf(descr, cap, "%cf%zu", order_char(t), floats[i].size);
    return m;
}

bool npyg__h5_standard_layout(hid_t t, char *why, size_t cap)
{
    H5T_class_t cls = H5Tget_class(t);
    bool ok = true;
    if (cls == H5T_INTEGER || cls == H5T_FLOAT) {
        ok = std_number(t);
        if (!ok)
            snprintf(why, cap, "a %zu-byte %s whose bit layout equals no standard type (%zu bits at bit %d)",
                     H5Tget_size(t), cls == H5T_INTEGER ? "integer" : "float", H5Tget_precision(t),
                     H5Tget_offset(t));
        return ok;
    }
    if (cls == H5T_COMPOUND) {
        int n = H5Tget_nmembers(t);
        for (int i = 0; ok && i < n; i++) {
            hid_t m = H5Tget_member_type(t, (unsigned)i);
            if (m < 0) snprintf(why, cap, "libhdf5 cannot read a member's type");
            ok = m >= 0 && npyg__h5_standard_layout(m, why, cap);
            if (m >= 0) H5Tclose(m);
        }
        return ok;
    }
    if (cls == H5T_ENUM || cls == H5T_VLEN || cls == H5T_ARRAY) {
        hid_t b = H5Tget_super(t);
        if (b < 0) snprintf(why, cap, "libhdf5 cannot read the base type");
        ok = b >= 0 && npyg__h5_standard_layout(b, why, cap);
        if (b >= 0) H5Tclose(b);
        return ok;
    }
    return true;
}

hid_t npyg__h5_complex_float(hid_t t, char descr[16])
{
    descr[0] = '\0';
    if (H5Tget_nmembers(t) != 2) return -1;
    char *a = H5Tget_member_name(t, 0), *b = H5Tget_member_name(t, 1);
    hid_t ta = H5Tget_member_type(t, 0), tb = H5Tget_member_type(t, 1), fa = -1, fb = -1;
    char db[16] = "";
    const char *why = NULL;
    bool c = a && b && !strcmp(a, "r") && !strcmp(b, "i") && ta >= 0 && tb >= 0 && H5Tget_class(ta) == H5T_FLOAT &&
             H5Tget_class(tb) == H5T_FLOAT;
    if (c) fa = npyg__h5_number_mem(ta, descr, 16, &why);
    if (c) fb = npyg__h5_number_mem(tb, db, sizeof db, &why);
    size_t fs = fa >= 0 ? H5Tget_size(fa) : 0;
    c = c && fb >= 0 && !strcmp(descr, db) && (fs == 4 || fs == 8 || fs == 16);
    if (a) H5free_memory(a);
    if (b) H5free_memory(b);
    if (ta >= 0) H5Tclose(ta);
    if (tb >= 0) H5Tclose(tb);
    if (fb >= 0) H5Tclose(fb);
    if (c) return fa;
    if (fa >= 0) H5Tclose(fa);
    return -1;
}

/* Whether h5py reads the compound t as a complex. */
static bool h5py_complex(hid_t t)
{
    char d[16];
    hid_t f = npyg__h5_complex_float(t, d);
    if (f < 0) return false;
    H5Tclose(f);
    return true;
}

bool npyg__h5_overlapping_fields(hid_t t)
{
    H5T_class_t cls = H5Tget_class(t);
    bool found = false;
    if (cls == H5T_COMPOUND && !h5py_complex(t)) {
        int n = H5Tget_nmembers(t);
        for (int i = 0; !found && i < n; i++) {
            hid_t m = H5Tget_member_type(t, (unsigned)i);
            if (m < 0) continue;
            if (H5Tget_class(m) == H5T_FLOAT) {
                char d[16];
                const char *why = NULL;
                hid_t mm = npyg__h5_number_mem(m, d, sizeof d, &why);
                found = mm >= 0 && H5Tget_size(mm) != H5Tget_size(m);
                if (mm >= 0) H5Tclose(mm);
            } else {
                found = npyg__h5_overlapping_fields(m);
            }
            H5Tclose(m);
        }
    } else if (cls == H5T_VLEN || cls == H5T_ARRAY) {
        hid_t b = H5Tget_super(t);
        found = b >= 0 && npyg__h5_overlapping_fields(b);
        if (b >= 0) H5Tclose(b);
    }
    return found;
}
