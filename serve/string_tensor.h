/* BYTES tensors: the library takes string tensors as decoded TensorProto
 * values, so the server writes the protobuf bytes of one (dims, data type,
 * string_data) and decodes them into a kiln_tensor. */
#ifndef KILN_SERVE_STRING_TENSOR_H
#define KILN_SERVE_STRING_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#include "kiln.h"

typedef struct {
    const char *bytes;
    size_t len;
} sv_string_ref;

/* NULL when out of memory or the library refuses (reason from kiln_last_error). */
kiln_tensor *sv_string_tensor(const int64_t *dims, int32_t rank, const sv_string_ref *elements,
                              size_t count);

#endif
