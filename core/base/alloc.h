/* Aligned heap memory for arenas and scratch (64 bytes: a cache line and
 * the widest SIMD register). */
#ifndef KN_ALLOC_H
#define KN_ALLOC_H

#include <stddef.h>

void *kn_aligned_alloc(size_t size); /* NULL on failure; size 0 gives NULL */
void kn_aligned_free(void *p);       /* NULL-safe */

/* n rounded up to a multiple of align, a power of two (64 for the cache
 * line and the widest vector; 16 for what the bump allocator promises).
 * The caller keeps n far enough below SIZE_MAX. */
static inline size_t kn_align_up(size_t n, size_t align) { return (n + align - 1) & ~(align - 1); }

#endif
