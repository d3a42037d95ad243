#include "core/base/alloc.h"
#include "core/base/bump_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct chunk {
    struct chunk *next;
    size_t cap, used;
    _Alignas(16) unsigned char data[];
} chunk;

struct kn_bump {
    chunk *head;
    chunk *spare;      /* chunks kept by kn_bump_rewind, reused before malloc */
    size_t total, limit;
};

enum { CHUNK_MIN = 64 * 1024 };

kn_bump *kn_bump_create(void) { return calloc(1, sizeof(kn_bump)); }

static void free_chunks(chunk *c)
{
    for (chunk *next; c; c = next) {
        next = c->next;
        free(c);
    }
}

void kn_bump_destroy(kn_bump *bump)
{
    if (!bump)
        return;
    free_chunks(bump->head);
    free_chunks(bump->spare);
    free(bump);
}

void kn_bump_rewind(kn_bump *bump)
{
    while (bump->head) {
        chunk *c = bump->head;
        bump->head = c->next;
        c->used = 0;
        c->next = bump->spare;
        bump->spare = c;
    }
    bump->total = 0;
}

/* The smallest spare chunk of at least cap bytes, unlinked, or NULL. */
static chunk *take_spare(kn_bump *bump, size_t cap)
{
    chunk **best = NULL;
    for (chunk **pp = &bump->spare; *pp; pp = &(*pp)->next)
        if ((*pp)->cap >= cap && (!best || (*pp)->cap < (*best)->cap))
            best = pp;
    if (!best)
        return NULL;
    chunk *c = *best;
    *best = c->next;
    return c;
}

void kn_bump_set_limit(kn_bump *bump, size_t max_bytes) { bump->limit = max_bytes; }

size_t kn_bump_used(const kn_bump *bump) { return bump->total; }

void *kn_bump_alloc_uninit(kn_bump *bump, size_t size)
{
    if (size > SIZE_MAX - 32)
        return NULL;
    size = kn_align_up(size, 16);
    if (bump->limit && (size > bump->limit || bump->total > bump->limit - size))
        return NULL;
    chunk *c = bump->head;
    if (!c || c->cap - c->used < size) {
        /* Large requests get a chunk of their own so small ones keep packing
         * into the current chunk. */
        size_t cap = size > CHUNK_MIN / 4 ? size : CHUNK_MIN;
        chunk *n = take_spare(bump, cap);
        if (!n) {
            if (!(n = malloc(sizeof(chunk) + cap)))
                return NULL;
            n->cap = cap;
        }
        n->used = 0;
        if (c && n->cap == size) { /* keep the partly used chunk at the head */
            n->next = c->next;
            c->next = n;
        } else {
            n->next = c;
            bump->head = n;
        }
        c = n;
    }
    void *p = c->data + c->used;
    c->used += size;
    bump->total += size;
    return p;
}

void *kn_bump_alloc(kn_bump *bump, size_t size)
{
    void *p = kn_bump_alloc_uninit(bump, size);
    if (p)
        memset(p, 0, kn_align_up(size, 16));
    return p;
}

char *kn_bump_strndup(kn_bump *bump, const char *s, size_t n)
{
    char *d = kn_bump_alloc(bump, n + 1);
    if (d) {
        if (n)
            memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

char *kn_bump_strdup(kn_bump *bump, const char *s) { return kn_bump_strndup(bump, s, strlen(s)); }
