/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Normalisation of the protocol's JSON values (descr, shape, integers) so
 * that two spellings with the same meaning compare equal. The rules are
 * the ones PROTOCOL.md gives under "Comparing descr".
 */
#ifndef NPYCONFORM_DESCR_H
#define NPYCONFORM_DESCR_H

#include <jansson.h>
#include <stddef.h>

/* A shape entry or other integer: a JSON integer, an integral real not
   above 2**53 in magnitude, or a string of decimal digits with an optional
   leading '-'. Returns a new reference to the canonical form (an integer
   when it fits in json_int_t, else a string without leading zeros), or
   NULL when v is not an integer. */
json_t *ncf_int_norm(const json_t *v);

/* A shape: an array of integers. NULL with a message in err when not. */
json_t *ncf_shape_norm(const json_t *shape, char *err, size_t errlen);

/* A descr in the protocol's JSON form. Returns a new reference to the
   normalised form, or NULL with a message in err when the value is not a
   descr at all. Two descrs mean the same thing iff their normal forms are
   json_equal(). */
json_t *ncf_descr_norm(const json_t *descr, char *err, size_t errlen);

/* The normalised spelling of one typestr ("=f8" -> "<f8", ">u1" -> "|u1").
   A string the rules do not recognise is returned unchanged. Writes at
   most outlen bytes including the NUL. */
void ncf_typestr_norm(const char *s, char *out, size_t outlen);

/* Rewrites every bare JSON integer literal with more than 15 digits in
   text as a JSON string ("shape": [18446744073709551615] ->
   "shape": ["18446744073709551615"]), so that jansson keeps it exactly.
   Returns a malloc'd string or NULL when memory runs out. Text inside
   strings is left alone. */
char *ncf_quote_big_ints(const char *text, size_t len);

#endif
