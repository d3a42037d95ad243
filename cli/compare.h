/* Compares a computed tensor with an expected one the way the ONNX backend
 * tests do: dtype and shape exactly; floating values within
 * |got - expected| <= atol + rtol * |expected| (NaN equals NaN, infinities
 * must match exactly); integers and bools exactly. */
#ifndef KILN_CLI_COMPARE_H
#define KILN_CLI_COMPARE_H

#include "api.h"

#include <stddef.h>
#include <stdint.h>

typedef struct tensor_view {
    int32_t dtype;
    const shape *shape;
    const void *data;
    size_t nbytes;
} tensor_view;

typedef struct compare_result {
    int ok;
    /* Largest |got - expected| over element pairs that are both finite. */
    double max_abs_diff;
    /* Why the comparison failed, e.g. "max abs diff 0.0123 at index 17
     * (got 1.2, expected 1.21)"; empty when ok. */
    char reason[512];
} compare_result;

void compare_tensors(const tensor_view *got, const tensor_view *expected, double rtol,
                     double atol, compare_result *result);
/* String tensors (KILN_DTYPE_STRING handles): dtype, shape and every
 * element's bytes exactly. Returns a status for API failures. */
int32_t compare_string_tensors(const kiln_tensor *got, const kiln_tensor *expected,
                               compare_result *result);

#endif
