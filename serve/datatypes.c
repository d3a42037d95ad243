#include "datatypes.h"

#include <math.h>
#include <string.h>

#include "../cli/halfprec.h"
#include "../cli/util.h"
#include "kiln.h"

/* The protocol's names; sizes come from the CLI's element-type table. */
static const struct {
    int32_t dtype;
    const char *name;
} table[] = {
    {KILN_DTYPE_BOOL, "BOOL"},     {KILN_DTYPE_UINT8, "UINT8"},   {KILN_DTYPE_UINT16, "UINT16"},
    {KILN_DTYPE_UINT32, "UINT32"}, {KILN_DTYPE_UINT64, "UINT64"}, {KILN_DTYPE_INT8, "INT8"},
    {KILN_DTYPE_INT16, "INT16"},   {KILN_DTYPE_INT32, "INT32"},   {KILN_DTYPE_INT64, "INT64"},
    {KILN_DTYPE_FLOAT16, "FP16"},  {KILN_DTYPE_FLOAT, "FP32"},    {KILN_DTYPE_DOUBLE, "FP64"},
    {KILN_DTYPE_STRING, "BYTES"},  {KILN_DTYPE_BFLOAT16, "BF16"},
};
#define TABLE_SIZE (sizeof table / sizeof table[0])

const char *sv_datatype_name(int32_t dtype)
{
    for (size_t i = 0; i < TABLE_SIZE; i++)
        if (table[i].dtype == dtype)
            return table[i].name;
    return NULL;
}

int32_t sv_datatype_from_name(const char *name)
{
    for (size_t i = 0; name && i < TABLE_SIZE; i++)
        if (strcmp(table[i].name, name) == 0)
            return table[i].dtype;
    return 0;
}

size_t sv_datatype_size(int32_t dtype)
{
    return sv_datatype_name(dtype) ? dtype_size(dtype) : 0;
}

/* Integer types: the values JSON numbers may give them. Doubles hold every
 * int32 and every int64 up to 2^53 exactly, which is what JSON numbers
 * carry anyway; the 64-bit bounds are the largest doubles inside the type. */
static const struct {
    int32_t dtype;
    double lo, hi;
} int_ranges[] = {
    {KILN_DTYPE_UINT8, 0, 255},
    {KILN_DTYPE_INT8, -128, 127},
    {KILN_DTYPE_UINT16, 0, 65535},
    {KILN_DTYPE_INT16, -32768, 32767},
    {KILN_DTYPE_UINT32, 0, 4294967295.0},
    {KILN_DTYPE_INT32, -2147483648.0, 2147483647.0},
    {KILN_DTYPE_UINT64, 0, 18446744073709549568.0},
    {KILN_DTYPE_INT64, -9223372036854775808.0, 9223372036854774784.0},
};

int sv_store_element(int32_t dtype, void *data, size_t i, double v, int is_bool)
{
    if (dtype == KILN_DTYPE_BOOL) {
        if (!is_bool && !(v == 0 || v == 1))
            return -1;
        ((uint8_t *)data)[i] = v != 0;
        return 0;
    }
    if (is_bool)
        return -1; /* true/false only for BOOL, as the protocol types them */
    for (size_t k = 0; k < sizeof int_ranges / sizeof int_ranges[0]; k++)
        if (int_ranges[k].dtype == dtype &&
            (v != floor(v) || v < int_ranges[k].lo || v > int_ranges[k].hi))
            return -1;
    switch (dtype) {
    case KILN_DTYPE_FLOAT: ((float *)data)[i] = (float)v; return 0;
    case KILN_DTYPE_DOUBLE: ((double *)data)[i] = v; return 0;
    case KILN_DTYPE_FLOAT16: ((uint16_t *)data)[i] = float_to_half((float)v); return 0;
    case KILN_DTYPE_BFLOAT16: ((uint16_t *)data)[i] = float_to_bfloat16((float)v); return 0;
    case KILN_DTYPE_UINT8: ((uint8_t *)data)[i] = (uint8_t)v; return 0;
    case KILN_DTYPE_INT8: ((int8_t *)data)[i] = (int8_t)v; return 0;
    case KILN_DTYPE_UINT16: ((uint16_t *)data)[i] = (uint16_t)v; return 0;
    case KILN_DTYPE_INT16: ((int16_t *)data)[i] = (int16_t)v; return 0;
    case KILN_DTYPE_UINT32: ((uint32_t *)data)[i] = (uint32_t)v; return 0;
    case KILN_DTYPE_INT32: ((int32_t *)data)[i] = (int32_t)v; return 0;
    case KILN_DTYPE_UINT64: ((uint64_t *)data)[i] = (uint64_t)v; return 0;
    case KILN_DTYPE_INT64: ((int64_t *)data)[i] = (int64_t)v; return 0;
    default: return -1;
    }
}

static void append_float(sv_buffer *out, double v, int digits)
{
    /* JSON has no NaN or infinity; the protocol leaves them undefined, so
     * they are written as null rather than as invalid JSON. */
    if (!isfinite(v))
        sv_buffer_puts(out, "null");
    else
        sv_buffer_printf(out, "%.*g", digits, v);
}

void sv_append_element(sv_buffer *out, int32_t dtype, const void *data, size_t i)
{
    switch (dtype) {
    case KILN_DTYPE_BOOL: sv_buffer_puts(out, ((const uint8_t *)data)[i] ? "true" : "false"); break;
    case KILN_DTYPE_FLOAT: append_float(out, ((const float *)data)[i], 9); break;
    case KILN_DTYPE_DOUBLE: append_float(out, ((const double *)data)[i], 17); break;
    case KILN_DTYPE_FLOAT16: append_float(out, half_to_float(((const uint16_t *)data)[i]), 5); break;
    case KILN_DTYPE_BFLOAT16:
        append_float(out, bfloat16_to_float(((const uint16_t *)data)[i]), 5);
        break;
    case KILN_DTYPE_UINT8: sv_buffer_printf(out, "%u", ((const uint8_t *)data)[i]); break;
    case KILN_DTYPE_INT8: sv_buffer_printf(out, "%d", ((const int8_t *)data)[i]); break;
    case KILN_DTYPE_UINT16: sv_buffer_printf(out, "%u", ((const uint16_t *)data)[i]); break;
    case KILN_DTYPE_INT16: sv_buffer_printf(out, "%d", ((const int16_t *)data)[i]); break;
    case KILN_DTYPE_UINT32: sv_buffer_printf(out, "%u", ((const uint32_t *)data)[i]); break;
    case KILN_DTYPE_INT32: sv_buffer_printf(out, "%d", ((const int32_t *)data)[i]); break;
    case KILN_DTYPE_UINT64:
        sv_buffer_printf(out, "%llu", (unsigned long long)((const uint64_t *)data)[i]);
        break;
    case KILN_DTYPE_INT64:
        sv_buffer_printf(out, "%lld", (long long)((const int64_t *)data)[i]);
        break;
    default: sv_buffer_puts(out, "null"); break;
    }
}
