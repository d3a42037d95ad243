/* The protocol's tensor datatypes ("FP32", "INT64", "BYTES", ...) and the
 * conversions between JSON numbers and tensor elements. */
#ifndef KILN_SERVE_DATATYPES_H
#define KILN_SERVE_DATATYPES_H

#include <stddef.h>
#include <stdint.h>

#include "byte_buffer.h"

/* The protocol's name of a KILN_DTYPE_*, or NULL if the protocol has none. */
const char *sv_datatype_name(int32_t dtype);
/* KILN_DTYPE_* of a protocol name, 0 if unknown. */
int32_t sv_datatype_from_name(const char *name);
/* Bytes per element (0 for BYTES, whose elements vary). */
size_t sv_datatype_size(int32_t dtype);
/* Stores a JSON value (number or bool) as element `i` of a buffer of dtype.
 * Returns 0, or -1 when the value is not representable (a fraction for an
 * integer type, out of range, a string for a number). */
int sv_store_element(int32_t dtype, void *data, size_t i, double value, int is_bool);
/* Appends element `i` as JSON text (numbers with enough digits to round-trip
 * the element's own precision; bools as true/false). */
void sv_append_element(sv_buffer *out, int32_t dtype, const void *data, size_t i);

#endif
