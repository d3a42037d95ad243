/* Row conversions to and from double for the reduction and normalisation
 * kernels, which compute in double: float and double inline (the hot
 * cases, simple loops the compiler vectorises), every other dtype through
 * kn_convert. */
#ifndef KN_CPU_REDUCE_COMMON_H
#define KN_CPU_REDUCE_COMMON_H

#include <string.h>

#include "core/kernel/tensor_common.h"

static inline void rd_to_f64(int32_t dtype, const void *src, double *dst, int64_t n)
{
    if (dtype == KN_FLOAT) {
        const float *s = src;
        for (int64_t i = 0; i < n; i++)
            dst[i] = s[i];
    } else if (dtype == KN_DOUBLE) {
        if (n > 0 && (const void *)dst != src)
            memmove(dst, src, (size_t)n * sizeof(double));
    } else {
        kn_convert(dtype, src, KN_DOUBLE, dst, n);
    }
}

static inline void rd_from_f64(int32_t dtype, const double *src, void *dst, int64_t n)
{
    if (dtype == KN_FLOAT) {
        float *d = dst;
        for (int64_t i = 0; i < n; i++)
            d[i] = (float)src[i];
    } else if (dtype == KN_DOUBLE) {
        if (n > 0 && dst != (const void *)src)
            memmove(dst, src, (size_t)n * sizeof(double));
    } else {
        kn_convert(KN_DOUBLE, src, dtype, dst, n);
    }
}

#endif
