/* A bump allocator for objects that live exactly as long as their owner
 * (a parsed model's strings, nodes, attributes and initializer bytes).
 * Freeing the allocator frees everything at once, which keeps error paths in the
 * reader simple: on failure the half-built model is dropped in one call. */
#ifndef KN_BUMP_ALLOC_H
#define KN_BUMP_ALLOC_H

#include <stddef.h>

typedef struct kn_bump kn_bump;

kn_bump *kn_bump_create(void);
void kn_bump_destroy(kn_bump *bump); /* NULL-safe */
/* Zeroed, 16-byte aligned memory, or NULL when out of memory or when the
 * allocator's byte limit (if set) would be exceeded. */
void *kn_bump_alloc(kn_bump *bump, size_t size);
/* Copies n bytes and appends a NUL. */
char *kn_bump_strndup(kn_bump *bump, const char *s, size_t n);
char *kn_bump_strdup(kn_bump *bump, const char *s);
/* Limit on total bytes handed out (0 = none); used for max model size. */
void kn_bump_set_limit(kn_bump *bump, size_t max_bytes);
size_t kn_bump_used(const kn_bump *bump);

#endif
