/* Printing a tensor's values for a person: every value when there are few,
 * the first and last ones around "..." when there are many, and for a
 * classifier-like output (one row of scores, or a few) the argmax. */
#ifndef KILN_CLI_VALUE_PRINT_H
#define KILN_CLI_VALUE_PRINT_H

#include "api.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Up to this many values are all printed; beyond it, the first and the
 * last VALUES_EDGE of them. */
#define VALUES_ALL 32
#define VALUES_EDGE 8

/* Prints "  values: ..." (and "  argmax: ..." for a numeric 1-D or 2-D
 * tensor) for data of the given dtype and shape. Dtypes without a plain
 * numeric reading (strings, 4-bit and 8-bit floats) print a note instead. */
void print_values(FILE *out, int32_t dtype, const shape *s, const void *data, size_t nbytes);

#endif
