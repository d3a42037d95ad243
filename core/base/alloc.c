#include "core/base/alloc.h"

#include <stdint.h>
#include <stdlib.h>

void *kn_aligned_alloc(size_t size)
{
    if (size == 0 || size > SIZE_MAX - 64)
        return NULL;
    return aligned_alloc(64, kn_align_up(size, 64));
}

void kn_aligned_free(void *p) { free(p); }
