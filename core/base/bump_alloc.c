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
    size_t total, limit;
};

enum { CHUNK_MIN = 64 * 1024 };

kn_bump *kn_bump_create(void) { return calloc(1, sizeof(kn_bump)); }

void kn_bump_destroy(kn_bump *bump)
{
    if (!bump)
        return;
    for (chunk *c = bump->head, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(bump);
}

void kn_bump_set_limit(kn_bump *bump, size_t max_bytes) { bump->limit = max_bytes; }

size_t kn_bump_used(const kn_bump *bump) { return bump->total; }

void *kn_bump_alloc(kn_bump *bump, size_t size)
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
        chunk *n = malloc(sizeof(chunk) + cap);
        if (!n)
            return NULL;
        n->cap = cap;
        n->used = 0;
        if (c && cap == size) { /* keep the partly used chunk at the head */
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
    memset(p, 0, size);
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
