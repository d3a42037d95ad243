/* FNV-1a, 64 bits: a cheap, stable hash of bytes (tuning-cache keys,
 * weights read back from a model file checked against the loaded ones). */
#ifndef KN_HASH_H
#define KN_HASH_H

#include <stddef.h>
#include <stdint.h>

#define KN_FNV_SEED 14695981039346656037ull

static inline uint64_t kn_fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

#endif
