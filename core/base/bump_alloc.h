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
/* The same without zeroing: for tensor data a kernel writes whole (every
 * kernel writes all of its outputs: the arena it runs in is reused across
 * runs, never cleared). */
void *kn_bump_alloc_uninit(kn_bump *bump, size_t size);
/* Copies n bytes and appends a NUL. */
char *kn_bump_strndup(kn_bump *bump, const char *s, size_t n);
char *kn_bump_strdup(kn_bump *bump, const char *s);
/* Limit on total bytes handed out (0 = none); used for max model size. */
void kn_bump_set_limit(kn_bump *bump, size_t max_bytes);
size_t kn_bump_used(const kn_bump *bump);
/* Forgets every allocation but keeps the memory for the next ones (an
 * eager plan's values, rebuilt every run: fresh pages each time cost more
 * in page faults than zeroing reused ones). The limit is kept. */
void kn_bump_rewind(kn_bump *bump);

#endif
