/* A bump allocator for objects that live exactly as long as their owner
 * (a parsed model's strings, nodes, attributes and initializer bytes).
 * Freeing the pool frees everything at once, which keeps error paths in the
 * reader simple: on failure the half-built model is dropped in one call. */
#ifndef KN_POOL_H
#define KN_POOL_H

#include <stddef.h>

typedef struct kn_pool kn_pool;

kn_pool *kn_pool_create(void);
void kn_pool_destroy(kn_pool *pool); /* NULL-safe */
/* Zeroed, 16-byte aligned memory, or NULL when out of memory or when the
 * pool's byte limit (if set) would be exceeded. */
void *kn_pool_alloc(kn_pool *pool, size_t size);
/* Copies n bytes and appends a NUL. */
char *kn_pool_strndup(kn_pool *pool, const char *s, size_t n);
char *kn_pool_strdup(kn_pool *pool, const char *s);
/* Limit on total bytes handed out (0 = none); used for max model size. */
void kn_pool_set_limit(kn_pool *pool, size_t max_bytes);
size_t kn_pool_used(const kn_pool *pool);

#endif
