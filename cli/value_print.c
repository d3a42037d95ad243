/* Printing tensor values (see value_print.h). */
#include "value_print.h"

#include "halfprec.h"
#include "util.h"

#include <string.h>

/* Element i as a double; returns 0 when the dtype has no plain reading. */
static int element(int32_t dtype, const void *data, int64_t i, double *out)
{
    const unsigned char *b = data;
    switch (dtype) {
#define READ(code, type)                                                                         \
    case code: {                                                                                 \
        type v;                                                                                  \
        memcpy(&v, b + (size_t)i * sizeof v, sizeof v);                                         \
        *out = (double)v;                                                                        \
        return 1;                                                                                \
    }
        READ(KILN_DTYPE_FLOAT, float)
        READ(KILN_DTYPE_DOUBLE, double)
        READ(KILN_DTYPE_INT8, int8_t)
        READ(KILN_DTYPE_UINT8, uint8_t)
        READ(KILN_DTYPE_INT16, int16_t)
        READ(KILN_DTYPE_UINT16, uint16_t)
        READ(KILN_DTYPE_INT32, int32_t)
        READ(KILN_DTYPE_UINT32, uint32_t)
        READ(KILN_DTYPE_INT64, int64_t)
        READ(KILN_DTYPE_UINT64, uint64_t)
        READ(KILN_DTYPE_BOOL, uint8_t)
#undef READ
    case KILN_DTYPE_FLOAT16:
    case KILN_DTYPE_BFLOAT16: {
        uint16_t h;
        memcpy(&h, b + (size_t)i * 2, 2);
        *out = dtype == KILN_DTYPE_FLOAT16 ? half_to_float(h) : bfloat16_to_float(h);
        return 1;
    }
    default:
        return 0;
    }
}

/* 64-bit integers print from their own bits: a double would round them. */
static void print_element(FILE *out, int32_t dtype, const void *data, int64_t i)
{
    const unsigned char *b = data;
    if (dtype == KILN_DTYPE_INT64) {
        int64_t v;
        memcpy(&v, b + (size_t)i * 8, 8);
        fprintf(out, " %lld", (long long)v);
    } else if (dtype == KILN_DTYPE_UINT64) {
        uint64_t v;
        memcpy(&v, b + (size_t)i * 8, 8);
        fprintf(out, " %llu", (unsigned long long)v);
    } else if (dtype == KILN_DTYPE_BOOL) {
        fprintf(out, " %s", b[i] ? "true" : "false");
    } else {
        double v = 0;
        element(dtype, data, i, &v);
        fprintf(out, " %.6g", v);
    }
}

/* Index of the largest of n elements starting at `first` (the first one
 * on ties, as numpy's argmax). */
static int64_t argmax(int32_t dtype, const void *data, int64_t first, int64_t n)
{
    int64_t best = 0;
    double best_value = 0;
    for (int64_t k = 0; k < n; k++) {
        double v = 0;
        element(dtype, data, first + k, &v);
        if (k == 0 || v > best_value) {
            best = k;
            best_value = v;
        }
    }
    return best;
}

/* Rows beyond this get no argmax line of their own: a batch of scores is
 * summarised, not listed. */
#define ARGMAX_ROWS 16

void print_values(FILE *out, int32_t dtype, const shape *s, const void *data, size_t nbytes)
{
    int64_t count = shape_elements(s);
    double probe;
    if (count < 0 || (count > 0 && !element(dtype, data, 0, &probe))) {
        fprintf(out, "  values: not shown for %s\n", dtype_name(dtype));
        return;
    }
    if (dtype_nbytes(dtype, count) > (int64_t)nbytes) {
        fprintf(out, "  values: not shown (%zu bytes for %lld elements)\n", nbytes,
                (long long)count);
        return;
    }
    fprintf(out, "  values:");
    if (count <= VALUES_ALL) {
        for (int64_t i = 0; i < count; i++)
            print_element(out, dtype, data, i);
    } else {
        for (int64_t i = 0; i < VALUES_EDGE; i++)
            print_element(out, dtype, data, i);
        fprintf(out, " ...");
        for (int64_t i = count - VALUES_EDGE; i < count; i++)
            print_element(out, dtype, data, i);
        fprintf(out, " (%lld values)", (long long)count);
    }
    fprintf(out, "\n");

    /* Scores over classes: one vector, or rows of a small batch. */
    if (dtype == KILN_DTYPE_BOOL || count < 2 || (s->rank != 1 && s->rank != 2))
        return;
    int64_t row = s->dims[s->rank - 1], rows = s->rank == 2 ? s->dims[0] : 1;
    if (row < 2 || rows > ARGMAX_ROWS)
        return;
    fprintf(out, "  argmax:");
    for (int64_t r = 0; r < rows; r++)
        fprintf(out, " %lld", (long long)argmax(dtype, data, r * row, row));
    fprintf(out, "\n");
}
