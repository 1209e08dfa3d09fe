/* SPDX-License-Identifier: BSD-3-Clause */
/* libhdf5, looked up by name the first time an HDF5 file is scanned.
 *
 * Only the helper (helper.c) maps libhdf5; npyvalidate and the library
 * never do. Its dependency tree (on Debian some forty shared objects,
 * libcurl, GnuTLS and Kerberos among them) costs about 25 ms to map: the
 * helper pays it once per context, and its children inherit the table,
 * filled by dlopen/dlsym (npyg__h5_load) before the first fork, and call
 * libhdf5 exactly as a linked program would.
 *
 * The helper's code includes this header after <hdf5.h>; the macros at the end send
 * each name, including those that hdf5.h's own macros expand to (H5open,
 * H5check_version, the H5T_* and H5P_* identifiers), through the table.
 * A name the child uses and the table lacks is an undefined symbol at link
 * time, not a silent direct call.
 */
#ifndef NPYG_H5API_H
#define NPYG_H5API_H

#include "h5internal.h"

#include <hdf5.h>

/* The soname is found by CMake from the libhdf5 that pkg-config names. */
#ifndef NPYG_HDF5_SONAME
#error "NPYG_HDF5_SONAME must name the libhdf5 shared object (set by parser/CMakeLists.txt)"
#endif

#define NPYG__H5_FUNCTIONS(X) \
    X(H5Aclose) X(H5Aget_space) X(H5Aget_type) \
    X(H5Aiterate2) X(H5Aopen) X(H5Aread) \
    X(H5Dclose) X(H5Dget_create_plist) X(H5Dget_space) \
    X(H5Dget_type) X(H5Dread) X(H5Eset_auto2) \
    X(H5Ewalk2) X(H5Fopen) X(H5Gclose) \
    X(H5Gopen2) X(H5Iget_type) X(H5Iinc_ref) \
    X(H5Lexists) X(H5Lget_info) X(H5Lget_val) \
    X(H5Literate) X(H5Lunpack_elink_val) X(H5Oclose) \
    X(H5Oget_info2) X(H5Oget_info_by_name2) X(H5Oopen) X(H5Ovisit2) \
    X(H5PLset_loading_state) X(H5Pclose) X(H5Pcreate) \
    X(H5Pget_external) X(H5Pget_external_count) X(H5Pget_filter2) \
    X(H5Pget_layout) X(H5Pget_nfilters) X(H5Pget_virtual_count) \
    X(H5Pget_virtual_dsetname) X(H5Pget_virtual_filename) X(H5Pset_fapl_core) \
    X(H5Pset_file_image) X(H5Pset_file_image_callbacks) X(H5Rdereference2) X(H5Rget_region) \
    X(H5Sclose) X(H5Sget_simple_extent_dims) X(H5Sget_simple_extent_ndims) \
    X(H5Sget_simple_extent_npoints) X(H5Tclose) X(H5Tcopy) \
    X(H5Tequal) X(H5Tget_class) X(H5Tget_member_name) \
    X(H5Tget_member_type) X(H5Tget_nmembers) X(H5Tget_sign) \
    X(H5Tget_size) X(H5Tget_super) X(H5Tis_variable_str) \
    X(H5Tset_size) X(H5Tset_strpad) X(H5Zfilter_avail) \
    X(H5check_version) X(H5free_memory) X(H5open) \
    NPYG__H5_WALK_FUNCTIONS(X) NPYG__H5_LOAD_FUNCTIONS(X)

/* What the load adds (emit.c): values read in runs, their types, the
   paths references name. */
#define NPYG__H5_LOAD_FUNCTIONS(X) \
    X(H5Sselect_hyperslab) X(H5Screate_simple) \
    X(H5Sget_simple_extent_type) X(H5Rget_name) X(H5Tget_order) \
    X(H5Tget_cset) X(H5Tset_cset) X(H5Tenum_create) \
    X(H5Tenum_insert) X(H5Tenum_valueof) X(H5Tget_member_offset) \
    X(H5Dvlen_reclaim) X(H5Screate) NPYG__H5_LAYOUT_FUNCTIONS(X)

/* What the layout rule adds (layout.c): a number's bit fields, and the
   memory types h5py converts other layouts to. */
#define NPYG__H5_LAYOUT_FUNCTIONS(X) \
    X(H5Tget_fields) X(H5Tget_ebias) X(H5Tget_precision) \
    X(H5Tget_offset) X(H5Tset_fields) X(H5Tset_ebias) \
    X(H5Tset_order)

/* What the walk adds (walk.c): storage sizes and offsets, raw references inside
   compounds and attributes, vlen descriptors read without conversion, and
   conversion buffers sized to the read. */
#define NPYG__H5_WALK_FUNCTIONS(X) \
    X(H5Aget_storage_size) X(H5Dget_storage_size) X(H5Fget_filesize) \
    X(H5Fget_create_plist) X(H5Pget_userblock) X(H5Pget_sizes) \
    X(H5Tcreate) X(H5Tinsert) X(H5Tget_member_class) \
    X(H5Tdetect_class) X(H5Tregister) X(H5Tunregister) \
    X(H5Tvlen_create) X(H5Fclose) X(H5Dget_offset) \
    X(H5Pset_buffer)

/* hdf5.h's predefined type and property-list identifiers are variables. */
#define NPYG__H5_VARIABLES(X) \
    X(H5P_CLS_FILE_ACCESS_ID_g) X(H5T_C_S1_g) X(H5T_NATIVE_LLONG_g) \
    X(H5T_NATIVE_UINT64_g) X(H5T_STD_REF_DSETREG_g) X(H5T_STD_REF_OBJ_g) \
    X(H5T_NATIVE_UCHAR_g) X(H5P_CLS_DATASET_XFER_ID_g) NPYG__H5_STANDARD_TYPES(X)

/* The standard number types a value may cross unconverted as (layout.c). */
#define NPYG__H5_STANDARD_TYPES(X) \
    X(H5T_STD_I8LE_g) X(H5T_STD_I16LE_g) X(H5T_STD_I32LE_g) X(H5T_STD_I64LE_g) \
    X(H5T_STD_I8BE_g) X(H5T_STD_I16BE_g) X(H5T_STD_I32BE_g) X(H5T_STD_I64BE_g) \
    X(H5T_STD_U8LE_g) X(H5T_STD_U16LE_g) X(H5T_STD_U32LE_g) X(H5T_STD_U64LE_g) \
    X(H5T_STD_U8BE_g) X(H5T_STD_U16BE_g) X(H5T_STD_U32BE_g) X(H5T_STD_U64BE_g) \
    X(H5T_IEEE_F32LE_g) X(H5T_IEEE_F32BE_g) X(H5T_IEEE_F64LE_g) X(H5T_IEEE_F64BE_g) \
    X(H5T_NATIVE_LDOUBLE_g)

#define NPYG__H5_MEMBER(name) __typeof__(name) *name;
typedef struct npyg__h5api {
    NPYG__H5_FUNCTIONS(NPYG__H5_MEMBER)
    NPYG__H5_VARIABLES(NPYG__H5_MEMBER)
} npyg__h5api;
#undef NPYG__H5_MEMBER

/* The filled table; only after npyg__h5_load (h5internal.h) returned 0. */
const npyg__h5api *npyg__h5_api(void);

/* Everything below is for the child's code (child.c, walk.c, storage.c);
   h5api.c fills the table by these names. */
#ifndef NPYG__H5_TABLE_ONLY
#define H5Aclose (npyg__h5_api()->H5Aclose)
#define H5Aget_space (npyg__h5_api()->H5Aget_space)
#define H5Aget_type (npyg__h5_api()->H5Aget_type)
#define H5Aiterate2 (npyg__h5_api()->H5Aiterate2)
#define H5Aopen (npyg__h5_api()->H5Aopen)
#define H5Aread (npyg__h5_api()->H5Aread)
#define H5Dclose (npyg__h5_api()->H5Dclose)
#define H5Dget_create_plist (npyg__h5_api()->H5Dget_create_plist)
#define H5Dget_space (npyg__h5_api()->H5Dget_space)
#define H5Dget_type (npyg__h5_api()->H5Dget_type)
#define H5Dread (npyg__h5_api()->H5Dread)
#define H5Eset_auto2 (npyg__h5_api()->H5Eset_auto2)
#define H5Ewalk2 (npyg__h5_api()->H5Ewalk2)
#define H5Fopen (npyg__h5_api()->H5Fopen)
#define H5Gclose (npyg__h5_api()->H5Gclose)
#define H5Gopen2 (npyg__h5_api()->H5Gopen2)
#define H5Iget_type (npyg__h5_api()->H5Iget_type)
#define H5Iinc_ref (npyg__h5_api()->H5Iinc_ref)
#define H5Lexists (npyg__h5_api()->H5Lexists)
#define H5Lget_info (npyg__h5_api()->H5Lget_info)
#define H5Lget_val (npyg__h5_api()->H5Lget_val)
#define H5Literate (npyg__h5_api()->H5Literate)
#define H5Lunpack_elink_val (npyg__h5_api()->H5Lunpack_elink_val)
#define H5Oclose (npyg__h5_api()->H5Oclose)
#define H5Oget_info2 (npyg__h5_api()->H5Oget_info2)
#define H5Oget_info_by_name2 (npyg__h5_api()->H5Oget_info_by_name2)
#define H5Oopen (npyg__h5_api()->H5Oopen)
#define H5Ovisit2 (npyg__h5_api()->H5Ovisit2)
#define H5PLset_loading_state (npyg__h5_api()->H5PLset_loading_state)
#define H5Pclose (npyg__h5_api()->H5Pclose)
#define H5Pcreate (npyg__h5_api()->H5Pcreate)
#define H5Pget_external (npyg__h5_api()->H5Pget_external)
#define H5Pget_external_count (npyg__h5_api()->H5Pget_external_count)
#define H5Pget_filter2 (npyg__h5_api()->H5Pget_filter2)
#define H5Pget_layout (npyg__h5_api()->H5Pget_layout)
#define H5Pget_nfilters (npyg__h5_api()->H5Pget_nfilters)
#define H5Pget_virtual_count (npyg__h5_api()->H5Pget_virtual_count)
#define H5Pget_virtual_dsetname (npyg__h5_api()->H5Pget_virtual_dsetname)
#define H5Pget_virtual_filename (npyg__h5_api()->H5Pget_virtual_filename)
#define H5Pset_fapl_core (npyg__h5_api()->H5Pset_fapl_core)
#define H5Pset_file_image (npyg__h5_api()->H5Pset_file_image)
#define H5Pset_file_image_callbacks (npyg__h5_api()->H5Pset_file_image_callbacks)
#define H5Rdereference2 (npyg__h5_api()->H5Rdereference2)
#define H5Rget_region (npyg__h5_api()->H5Rget_region)
#define H5Sclose (npyg__h5_api()->H5Sclose)
#define H5Sget_simple_extent_dims (npyg__h5_api()->H5Sget_simple_extent_dims)
#define H5Sget_simple_extent_ndims (npyg__h5_api()->H5Sget_simple_extent_ndims)
#define H5Sget_simple_extent_npoints (npyg__h5_api()->H5Sget_simple_extent_npoints)
#define H5Tclose (npyg__h5_api()->H5Tclose)
#define H5Tcopy (npyg__h5_api()->H5Tcopy)
#define H5Tequal (npyg__h5_api()->H5Tequal)
#define H5Tget_class (npyg__h5_api()->H5Tget_class)
#define H5Tget_member_name (npyg__h5_api()->H5Tget_member_name)
#define H5Tget_member_type (npyg__h5_api()->H5Tget_member_type)
#define H5Tget_nmembers (npyg__h5_api()->H5Tget_nmembers)
#define H5Tget_sign (npyg__h5_api()->H5Tget_sign)
#define H5Tget_size (npyg__h5_api()->H5Tget_size)
#define H5Tget_super (npyg__h5_api()->H5Tget_super)
#define H5Tis_variable_str (npyg__h5_api()->H5Tis_variable_str)
#define H5Tset_size (npyg__h5_api()->H5Tset_size)
#define H5Tset_strpad (npyg__h5_api()->H5Tset_strpad)
#define H5Zfilter_avail (npyg__h5_api()->H5Zfilter_avail)
#define H5check_version (npyg__h5_api()->H5check_version)
#define H5free_memory (npyg__h5_api()->H5free_memory)
#define H5open (npyg__h5_api()->H5open)
#define H5Aget_storage_size (npyg__h5_api()->H5Aget_storage_size)
#define H5Dget_storage_size (npyg__h5_api()->H5Dget_storage_size)
#define H5Dget_offset (npyg__h5_api()->H5Dget_offset)
#define H5Fget_filesize (npyg__h5_api()->H5Fget_filesize)
#define H5Fget_create_plist (npyg__h5_api()->H5Fget_create_plist)
#define H5Pget_userblock (npyg__h5_api()->H5Pget_userblock)
#define H5Pget_sizes (npyg__h5_api()->H5Pget_sizes)
#define H5Tcreate (npyg__h5_api()->H5Tcreate)
#define H5Tinsert (npyg__h5_api()->H5Tinsert)
#define H5Tget_member_class (npyg__h5_api()->H5Tget_member_class)
#define H5Tdetect_class (npyg__h5_api()->H5Tdetect_class)
#define H5Tregister (npyg__h5_api()->H5Tregister)
#define H5Tunregister (npyg__h5_api()->H5Tunregister)
#define H5Tvlen_create (npyg__h5_api()->H5Tvlen_create)
#define H5Fclose (npyg__h5_api()->H5Fclose)
#define H5Screate (npyg__h5_api()->H5Screate)
#define H5Sselect_hyperslab (npyg__h5_api()->H5Sselect_hyperslab)
#define H5Screate_simple (npyg__h5_api()->H5Screate_simple)
#define H5Sget_simple_extent_type (npyg__h5_api()->H5Sget_simple_extent_type)
#define H5Rget_name (npyg__h5_api()->H5Rget_name)
#define H5Tget_order (npyg__h5_api()->H5Tget_order)
#define H5Tget_cset (npyg__h5_api()->H5Tget_cset)
#define H5Tset_cset (npyg__h5_api()->H5Tset_cset)
#define H5Tenum_create (npyg__h5_api()->H5Tenum_create)
#define H5Tenum_insert (npyg__h5_api()->H5Tenum_insert)
#define H5Tenum_valueof (npyg__h5_api()->H5Tenum_valueof)
#define H5Tget_member_offset (npyg__h5_api()->H5Tget_member_offset)
#define H5Dvlen_reclaim (npyg__h5_api()->H5Dvlen_reclaim)
#define H5Pset_buffer (npyg__h5_api()->H5Pset_buffer)
#define H5P_CLS_DATASET_XFER_ID_g (*npyg__h5_api()->H5P_CLS_DATASET_XFER_ID_g)
#define H5P_CLS_FILE_ACCESS_ID_g (*npyg__h5_api()->H5P_CLS_FILE_ACCESS_ID_g)
#define H5T_C_S1_g (*npyg__h5_api()->H5T_C_S1_g)
#define H5T_NATIVE_LLONG_g (*npyg__h5_api()->H5T_NATIVE_LLONG_g)
#define H5T_NATIVE_UINT64_g (*npyg__h5_api()->H5T_NATIVE_UINT64_g)
#define H5T_STD_REF_DSETREG_g (*npyg__h5_api()->H5T_STD_REF_DSETREG_g)
#define H5T_STD_REF_OBJ_g (*npyg__h5_api()->H5T_STD_REF_OBJ_g)
#define H5T_NATIVE_UCHAR_g (*npyg__h5_api()->H5T_NATIVE_UCHAR_g)

#define H5Tget_fields (npyg__h5_api()->H5Tget_fields)
#define H5Tget_ebias (npyg__h5_api()->H5Tget_ebias)
#define H5Tget_precision (npyg__h5_api()->H5Tget_precision)
#define H5Tget_offset (npyg__h5_api()->H5Tget_offset)
#define H5Tset_fields (npyg__h5_api()->H5Tset_fields)
#define H5Tset_ebias (npyg__h5_api()->H5Tset_ebias)
#define H5Tset_order (npyg__h5_api()->H5Tset_order)
#define H5T_STD_I8LE_g (*npyg__h5_api()->H5T_STD_I8LE_g)
#define H5T_STD_I16LE_g (*npyg__h5_api()->H5T_STD_I16LE_g)
#define H5T_STD_I32LE_g (*npyg__h5_api()->H5T_STD_I32LE_g)
#define H5T_STD_I64LE_g (*npyg__h5_api()->H5T_STD_I64LE_g)
#define H5T_STD_I8BE_g (*npyg__h5_api()->H5T_STD_I8BE_g)
#define H5T_STD_I16BE_g (*npyg__h5_api()->H5T_STD_I16BE_g)
#define H5T_STD_I32BE_g (*npyg__h5_api()->H5T_STD_I32BE_g)
#define H5T_STD_I64BE_g (*npyg__h5_api()->H5T_STD_I64BE_g)
#define H5T_STD_U8LE_g (*npyg__h5_api()->H5T_STD_U8LE_g)
#define H5T_STD_U16LE_g (*npyg__h5_api()->H5T_STD_U16LE_g)
#define H5T_STD_U32LE_g (*npyg__h5_api()->H5T_STD_U32LE_g)
#define H5T_STD_U64LE_g (*npyg__h5_api()->H5T_STD_U64LE_g)
#define H5T_STD_U8BE_g (*npyg__h5_api()->H5T_STD_U8BE_g)
#define H5T_STD_U16BE_g (*npyg__h5_api()->H5T_STD_U16BE_g)
#define H5T_STD_U32BE_g (*npyg__h5_api()->H5T_STD_U32BE_g)
#define H5T_STD_U64BE_g (*npyg__h5_api()->H5T_STD_U64BE_g)
#define H5T_IEEE_F32LE_g (*npyg__h5_api()->H5T_IEEE_F32LE_g)
#define H5T_IEEE_F32BE_g (*npyg__h5_api()->H5T_IEEE_F32BE_g)
#define H5T_IEEE_F64LE_g (*npyg__h5_api()->H5T_IEEE_F64LE_g)
#define H5T_IEEE_F64BE_g (*npyg__h5_api()->H5T_IEEE_F64BE_g)
#define H5T_NATIVE_LDOUBLE_g (*npyg__h5_api()->H5T_NATIVE_LDOUBLE_g)

#endif /* NPYG__H5_TABLE_ONLY */

#endif
