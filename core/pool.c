#include "pool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct chunk {
    struct chunk *next;
    size_t cap, used;
    _Alignas(16) unsigned char data[];
} chunk;

struct kn_pool {
    chunk *head;
    size_t total, limit;
};

enum { CHUNK_MIN = 64 * 1024 };

kn_pool *kn_pool_create(void) { return calloc(1, sizeof(kn_pool)); }

void kn_pool_destroy(kn_pool *pool)
{
    if (!pool)
        return;
    for (chunk *c = pool->head, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(pool);
}

void kn_pool_set_limit(kn_pool *pool, size_t max_bytes) { pool->limit = max_bytes; }

size_t kn_pool_used(const kn_pool *pool) { return pool->total; }

void *kn_pool_alloc(kn_pool *pool, size_t size)
{
    if (size > SIZE_MAX - 32)
        return NULL;
    size = (size + 15) & ~(size_t)15;
    if (pool->limit && (size > pool->limit || pool->total > pool->limit - size))
        return NULL;
    chunk *c = pool->head;
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
            pool->head = n;
        }
        c = n;
    }
    void *p = c->data + c->used;
    c->used += size;
    pool->total += size;
    memset(p, 0, size);
    return p;
}

char *kn_pool_strndup(kn_pool *pool, const char *s, size_t n)
{
    char *d = kn_pool_alloc(pool, n + 1);
    if (d) {
        if (n)
            memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

char *kn_pool_strdup(kn_pool *pool, const char *s) { return kn_pool_strndup(pool, s, strlen(s)); }
