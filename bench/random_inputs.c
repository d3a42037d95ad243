#include "random_inputs.h"

#include <stdio.h>
#include <stdlib.h>

int bench_fail(const char *tool, const char *what)
{
    char msg[512];
    kiln_last_error(msg, sizeof msg);
    fprintf(stderr, "%s: %s: %s\n", tool, what, msg);
    return 1;
}

int bench_bind_random_inputs(const char *tool, const kiln_model *m, kiln_session *s)
{
    int32_t n = 0;
    if (kiln_model_input_count(m, &n) != KILN_OK)
        return bench_fail(tool, "inputs");
    unsigned seed = 1;
    for (int32_t i = 0; i < n; i++) {
        int32_t dtype, rank;
        int64_t dims[8], count = 1;
        if (kiln_model_input_dtype(m, i, &dtype) != KILN_OK ||
            kiln_model_input_shape(m, i, dims, 8, &rank) != KILN_OK)
            return bench_fail(tool, "input shape");
        for (int32_t d = 0; d < rank; d++)
            count *= dims[d] = dims[d] < 0 ? 1 : dims[d];
        int is_float = dtype == KILN_DTYPE_FLOAT;
        if (!is_float && dtype != KILN_DTYPE_INT64) {
            fprintf(stderr, "%s: input %d: only float and int64 inputs\n", tool, (int)i);
            return 1;
        }
        size_t bytes = (size_t)count * (is_float ? 4 : 8);
        void *data = malloc(bytes ? bytes : 1);
        if (!data)
            return 1;
        for (int64_t e = 0; e < count; e++) {
            /* a linear congruential step: the same inputs in every build */
            seed = seed * 1664525u + 1013904223u;
            if (is_float)
                ((float *)data)[e] = (float)(seed >> 8) / 8388608.0f - 1.0f;
            else
                ((int64_t *)data)[e] = (int64_t)((seed >> 8) % 10);
        }
        /* copied: the session keeps its own */
        int32_t rc = kiln_session_set_input_at(s, i, dtype, dims, rank, data, bytes, 1);
        free(data);
        if (rc != KILN_OK)
            return bench_fail(tool, "input");
    }
    return 0;
}
