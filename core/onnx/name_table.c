/* Open-addressing hash table from value names (slices of the input) to
 * value indices. Sized once from an upper bound on the names a graph can
 * hold, so it never grows and stays at most half full. */
#include <string.h>

#include "core/onnx/reader.h"

static uint64_t hash_name(kn_onnx_str s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < s.n; i++) {
        h ^= (unsigned char)s.p[i];
        h *= 1099511628211ull;
    }
    return h;
}

int kn_onnx_names_init(kn_onnx_ctx *c, kn_onnx_names *t, size_t max_names)
{
    size_t cap = 16;
    while (cap < 2 * max_names) {
        if (cap > SIZE_MAX / 4)
            return kn_fail(c->err, KN_ERR_LIMIT, "too many names (%zu)", max_names);
        cap *= 2;
    }
    t->slots = kn_onnx_alloc(c, c->tmp, cap, sizeof *t->slots, "the name table");
    if (!t->slots)
        return c->err->code;
    t->mask = cap - 1;
    t->count = 0;
    return KN_OK;
}

static size_t find_slot(const kn_onnx_names *t, kn_onnx_str s)
{
    size_t i = (size_t)hash_name(s) & t->mask;
    while (t->slots[i].p &&
           !(t->slots[i].n == s.n && memcmp(t->slots[i].p, s.p, s.n) == 0))
        i = (i + 1) & t->mask;
    return i;
}

int32_t kn_onnx_names_find(const kn_onnx_names *t, kn_onnx_str s)
{
    size_t i = find_slot(t, s);
    return t->slots[i].p ? t->slots[i].id : -1;
}

int32_t kn_onnx_names_add(kn_onnx_names *t, kn_onnx_str s)
{
    size_t i = find_slot(t, s);
    t->slots[i].p = s.p ? s.p : "";
    t->slots[i].n = s.n;
    t->slots[i].id = t->count;
    return t->count++;
}
