/* Aligned heap memory for arenas and scratch (64 bytes: a cache line and
 * the widest SIMD register). */
#ifndef KN_ALLOC_H
#define KN_ALLOC_H

#include <stddef.h>

void *kn_aligned_alloc(size_t size); /* NULL on failure; size 0 gives NULL */
void kn_aligned_free(void *p);       /* NULL-safe */

#endif
