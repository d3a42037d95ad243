/* A matrix product's constant B, or a convolution's W, packed once per
 * model, not per session:
 * the oneDNN side of core/engine/weight_store.h. The store's key for a packed copy
 * is the pair of memory descriptors (the initializer's layout as the kernel
 * reads it, maybe transposed, and the packed layout), so a copy made for
 * one node serves every node and session wanting the same reorder; the
 * reorder back to `have` is exact (f32 permutation), which is what lets
 * the store give the initializer's pages away. */
#include <string.h>

#include "core/dnnl/dnnl_common.h"

#include "core/kernel/weights.h"

typedef struct packed_key {
    dnnl_memory_desc_t have, want;
} packed_key;

/* The store's conversion, on an engine of its own: a restore may come from
 * a plan without any oneDNN primitive (Kiln's CPU kernel after eviction). */
static int convert(const void *key, size_t key_len, int to_packed, const void *src, void *dst,
                   int32_t threads, kn_err *err)
{
    if (key_len != sizeof(packed_key))
        return kn_fail(err, KN_ERR_INTERNAL, "packed weights: key of %zu bytes", key_len);
    packed_key pk;
    memcpy(&pk, key, sizeof pk);
    kn_dnnl_prim p;
    memset(&p, 0, sizeof p);
    p.threads = threads > 0 ? threads : 1;
    dnnl_status_t s = dnnl_engine_create(&p.engine, dnnl_cpu, 0);
    if (s == dnnl_success)
        s = dnnl_stream_create(&p.stream, p.engine, dnnl_stream_default_flags);
    int rc = s == dnnl_success ? KN_OK : kn_dnnl_fail(err, s, "CPU engine");
    if (rc == KN_OK)
        rc = kn_dnnl_reorder(&p, to_packed ? &pk.have : &pk.want, to_packed ? &pk.want : &pk.have,
                             src, dst, err);
    kn_dnnl_prim_destroy(&p);
    return rc;
}

int kn_dnnl_add_shared_weights(kn_dnnl_prim *p, kn_kctx *k, int32_t input,
                               const dnnl_memory_desc_t *have, const dnnl_memory_desc_t *want,
                               int one_way)
{
    int rc = kn_dnnl_add_arg(p, DNNL_ARG_WEIGHTS, KN_DNNL_BIND_OWNED, 0, want, k->err);
    if (rc != KN_OK)
        return rc;
    dnnl_memory_t mem = p->args[p->n_args - 1].mem;
    int32_t value = k->node->inputs[input];
    const void *where = k->in[input]->data;
    p->store = k->weights;
    if (dnnl_memory_desc_equal(have, want)) {
        rc = kn_weight_store_acquire_raw(k->weights, value, p->threads, k->err);
        p->raw_value = value;
        p->holds_raw = rc == KN_OK;
    } else {
        /* whole descriptors, padding included, so equal keys compare equal
         * byte for byte */
        packed_key key;
        memset(&key, 0, sizeof key);
        memcpy(&key.have, have, sizeof *have);
        memcpy(&key.want, want, sizeof *want);
        rc = kn_weight_store_acquire_packed(k->weights, value, &key, sizeof key,
                                            dnnl_memory_desc_get_size(want), convert, one_way,
                                            p->threads, &where, k->err);
        if (rc == KN_OK)
            p->shared = where;
    }
    if (rc != KN_OK)
        return rc;
    dnnl_status_t s = dnnl_memory_set_data_handle(mem, (void *)where);
    return s == dnnl_success ? KN_OK : kn_dnnl_fail(k->err, s, "weights memory");
}
