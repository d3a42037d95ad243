/* float16 / bfloat16 through a kernel's float path; see half_path.h. */
#include "core/base/alloc.h"
#include "core/kernel/half_path.h"

#include <stdlib.h>

#include "core/kernel/tensor_common.h"

typedef struct half_state {
    void *inner;                   /* the float kernel's state */
    int32_t dtype;                 /* the node's half type */
    size_t inner_bytes;            /* the float kernel's scratch, at offset 0 */
    uint32_t widen_mask;           /* inputs widened at run into slot in_off[i] */
    uint32_t narrow_mask;          /* outputs computed in slot out_off[j], then narrowed */
    size_t in_off[KN_HALF_MAX_IO];
    size_t out_off[KN_HALF_MAX_IO];
    float *konst[KN_HALF_MAX_IO];  /* inputs widened once, in prepare */
} half_state;

int kn_is_half(int32_t dtype) { return dtype == KN_FLOAT16 || dtype == KN_BFLOAT16; }

static int half_node(const kn_kctx *k)
{
    return k->n_in > 0 && k->in[0] && kn_is_half(k->in[0]->dtype);
}

/* Bytes of a float slot for t; never 0, so every slot has its own address. */
static size_t slot_bytes(const kn_tensor *t)
{
    int64_t n = kn_tensor_numel(t);
    return kn_align_up((size_t)(n > 0 ? n : 1) * sizeof(float), 64);
}

typedef struct convert_job {
    int32_t sdt, ddt;
    const char *src;
    char *dst;
} convert_job;

static void convert_range(void *ctx, int64_t begin, int64_t end)
{
    const convert_job *j = ctx;
    kn_convert(j->sdt, j->src + (size_t)begin * kn_dtype_size(j->sdt), j->ddt,
               j->dst + (size_t)begin * kn_dtype_size(j->ddt), end - begin);
}

/* The one widen / narrow step: n elements from sdt to ddt, split across
 * the pool (elementwise, so the split does not change a bit). */
static void convert(kn_threadpool *pool, int32_t sdt, const void *src, int32_t ddt, void *dst,
                    int64_t n)
{
    convert_job j = {sdt, ddt, src, dst};
    if (n > 0)
        kn_parallel_for(pool, n, KN_GRAIN, convert_range, &j);
}

static void free_state(half_state *hs)
{
    for (int32_t i = 0; i < KN_HALF_MAX_IO; i++)
        free(hs->konst[i]);
    free(hs);
}

/* Runs f (the float kernel's prepare or run) with k showing the float
 * views, and k->state / k->scratch_bytes as the float kernel knows them. */
static int with_views(kn_kctx *k, int (*f)(kn_kctx *), kn_tensor **in, kn_tensor **out,
                      void **state, size_t *scratch_bytes)
{
    kn_tensor **save_in = k->in, **save_out = k->out;
    void *save_state = k->state;
    size_t save_bytes = k->scratch_bytes;
    k->in = in;
    k->out = out;
    k->state = *state;
    k->scratch_bytes = *scratch_bytes;
    int rc = f(k);
    *state = k->state;
    *scratch_bytes = k->scratch_bytes;
    k->in = save_in;
    k->out = save_out;
    k->state = save_state;
    k->scratch_bytes = save_bytes;
    return rc;
}

int kn_half_prepare(kn_kctx *k, const kn_half_spec *spec)
{
    if (!half_node(k))
        return spec->prepare(k);
    const char *op = k->node->op_type;
    int32_t dt = k->in[0]->dtype;
    if (dt == KN_BFLOAT16 && k->opset < spec->bf16_since)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED,
                       "%s: bfloat16 needs opset %d or later, the model uses opset %lld", op,
                       (int)spec->bf16_since, (long long)k->opset);
    if (k->n_in > KN_HALF_MAX_IO || k->n_out > KN_HALF_MAX_IO)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: %d inputs and %d outputs, expected at "
                       "most %d of each", op, (int)k->n_in, (int)k->n_out, KN_HALF_MAX_IO);
    for (int32_t i = 1; i < k->n_in; i++)
        if (((spec->widen >> i) & 1) && k->in[i] && k->in[i]->dtype != dt)
            return kn_fail(k->err, KN_ERR_DTYPE, "%s: input 0 is %s but input %d is %s", op,
                           kn_dtype_name(dt), (int)i, kn_dtype_name(k->in[i]->dtype));
    half_state *hs = calloc(1, sizeof *hs);
    if (!hs)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    hs->dtype = dt;

    kn_tensor views[KN_HALF_MAX_IO], *in[KN_HALF_MAX_IO];
    for (int32_t i = 0; i < k->n_in; i++) {
        const kn_tensor *t = k->in[i];
        in[i] = k->in[i];
        if (!t || !((spec->widen >> i) & 1))
            continue;
        views[i] = *t;
        views[i].dtype = KN_FLOAT;
        views[i].data = NULL;
        in[i] = &views[i];
        if (t->data && ((spec->widen_once >> i) & 1)) {
            int64_t n = kn_tensor_numel(t);
            hs->konst[i] = malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
            if (!hs->konst[i]) {
                free_state(hs);
                return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory widening "
                               "input %d", op, (int)i);
            }
            kn_convert(dt, t->data, KN_FLOAT, hs->konst[i], n);
            views[i].data = hs->konst[i];
        } else {
            hs->widen_mask |= 1u << i;
        }
    }

    size_t inner_bytes = 0;
    int rc = with_views(k, spec->prepare, in, k->out, &hs->inner, &inner_bytes);
    if (rc != KN_OK) {
        if (hs->inner && spec->release) { /* what the float prepare left behind */
            void *save = k->state;
            k->state = hs->inner;
            spec->release(k);
            k->state = save;
        }
        free_state(hs);
        return rc;
    }

    /* Scratch: the float kernel's, then the input slots, then the output
     * slots (output 0 may reuse input 0's when the float run is in place). */
    hs->inner_bytes = kn_align_up(inner_bytes, 64);
    size_t at = hs->inner_bytes;
    for (int32_t i = 0; i < k->n_in; i++)
        if ((hs->widen_mask >> i) & 1) {
            hs->in_off[i] = at;
            at += slot_bytes(k->in[i]);
        }
    for (int32_t j = 0; j < k->n_out; j++) {
        kn_tensor *y = k->out[j];
        if (!y || y->dtype != KN_FLOAT)
            continue;
        y->dtype = dt;
        hs->narrow_mask |= 1u << j;
        if (j == 0 && spec->inplace && (hs->widen_mask & 1) &&
            kn_tensor_numel(y) == kn_tensor_numel(k->in[0])) {
            hs->out_off[j] = hs->in_off[0];
        } else {
            hs->out_off[j] = at;
            at += slot_bytes(y);
        }
    }
    k->scratch_bytes = at;
    k->state = hs;
    return KN_OK;
}

int kn_half_run(kn_kctx *k, const kn_half_spec *spec)
{
    if (!half_node(k))
        return spec->run(k);
    half_state *hs = k->state;
    char *scratch = k->scratch;
    kn_tensor iv[KN_HALF_MAX_IO], ov[KN_HALF_MAX_IO], *in[KN_HALF_MAX_IO], *out[KN_HALF_MAX_IO];
    for (int32_t i = 0; i < k->n_in; i++) {
        const kn_tensor *t = k->in[i];
        in[i] = k->in[i];
        if (!t || !((spec->widen >> i) & 1))
            continue;
        iv[i] = *t;
        iv[i].dtype = KN_FLOAT;
        in[i] = &iv[i];
        if (hs->konst[i]) {
            iv[i].data = hs->konst[i];
        } else {
            iv[i].data = scratch + hs->in_off[i];
            convert(k->threads, hs->dtype, t->data, KN_FLOAT, iv[i].data, kn_tensor_numel(t));
        }
    }
    for (int32_t j = 0; j < k->n_out; j++) {
        out[j] = k->out[j];
        if (!((hs->narrow_mask >> j) & 1))
            continue;
        ov[j] = *k->out[j];
        ov[j].dtype = KN_FLOAT;
        ov[j].data = scratch + hs->out_off[j];
        out[j] = &ov[j];
    }
    size_t inner_bytes = hs->inner_bytes;
    void *inner = hs->inner;
    int rc = with_views(k, spec->run, in, out, &inner, &inner_bytes);
    if (rc != KN_OK)
        return rc;
    for (int32_t j = 0; j < k->n_out; j++)
        if ((hs->narrow_mask >> j) & 1)
            convert(k->threads, KN_FLOAT, ov[j].data, hs->dtype, k->out[j]->data,
                    kn_tensor_numel(k->out[j]));
    return KN_OK;
}

void kn_half_release(kn_kctx *k, const kn_half_spec *spec)
{
    if (!half_node(k)) {
        if (spec->release)
            spec->release(k);
        return;
    }
    half_state *hs = k->state;
    if (!hs)
        return;
    if (spec->release) {
        k->state = hs->inner;
        spec->release(k);
    }
    free_state(hs);
    k->state = NULL;
}
