#include "core/dnnl/dnnl_common.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/alloc.h"
#include "core/simd/kernels.h"
#include "core/kernel/weights.h"
#include "core/dnnl/dnnl_impl_choice.h"

int kn_dnnl_fail(kn_err *err, dnnl_status_t s, const char *what)
{
    if (s == dnnl_unimplemented)
        return kn_fail(err, KN_ERR_DECLINE, "oneDNN has no %s for this node", what);
    if (s == dnnl_out_of_memory)
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "oneDNN: out of memory (%s)", what);
    /* Anything else oneDNN refuses (bad arguments for its descriptors) is
     * left to the CPU kernel, which reports real model errors itself. */
    return kn_fail(err, KN_ERR_DECLINE, "oneDNN refused %s (status %d)", what, (int)s);
}

int kn_dnnl_prim_init(kn_dnnl_prim *p, kn_kctx *k)
{
    memset(p, 0, sizeof *p);
    if (!kn_dnnl_load())
        return kn_fail(k->err, KN_ERR_DECLINE, "the oneDNN library could not be loaded");
    p->threads = kn_threadpool_threads(k->threads);
    p->precision = k->precision;
    /* primitives split their work for the thread count current when they
     * are created: the runtime's, not OpenMP's default */
    omp_set_num_threads(p->threads);
    dnnl_status_t s = dnnl_engine_create(&p->engine, dnnl_cpu, 0);
    if (s == dnnl_success)
        s = dnnl_stream_create(&p->stream, p->engine, dnnl_stream_default_flags);
    return s == dnnl_success ? KN_OK : kn_dnnl_fail(k->err, s, "CPU engine");
}

void kn_dnnl_prim_destroy(kn_dnnl_prim *p)
{
    for (int32_t i = 0; i < p->n_args; i++)
        dnnl_memory_destroy(p->args[i].mem);
    p->n_args = 0;
    if (p->prim)
        dnnl_primitive_destroy(p->prim);
    if (p->stream)
        dnnl_stream_destroy(p->stream);
    if (p->engine)
        dnnl_engine_destroy(p->engine);
    kn_aligned_free(p->owned);
    kn_weight_store_release_packed(p->store, p->shared);
    if (p->holds_raw)
        kn_weight_store_release_raw(p->store, p->raw_value);
    memset(p, 0, sizeof *p);
}

dnnl_status_t kn_dnnl_append_activation(dnnl_post_ops_t po, const kn_activation *a, int *missing)
{
    *missing = 0;
    switch (a->kind) {
    case KN_ACT_NONE: return dnnl_success;
    case KN_ACT_RELU: return dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_relu, 0, 0);
    case KN_ACT_LEAKY_RELU:
        return dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_relu, a->alpha, 0);
    case KN_ACT_CLIP:
        return dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_clip_v2, a->alpha, a->beta);
    case KN_ACT_SIGMOID: return dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_logistic, 0, 0);
    case KN_ACT_TANH: return dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_tanh, 0, 0);
    case KN_ACT_SILU: return dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_swish, 1.0f, 0);
    case KN_ACT_GELU: return dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_gelu_erf, 0, 0);
    case KN_ACT_HARD_SWISH:
        /* oneDNN 2.6's hardswish is x * relu6(x + 3) / 6: ONNX's HardSwish */
        return dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_hardswish, 0, 0);
    case KN_ACT_HARD_SIGMOID: {
        /* clip(alpha * x + beta, 0, 1): linear, then clip */
        dnnl_status_t s =
            dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_linear, a->alpha, a->beta);
        return s != dnnl_success ? s
                                 : dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_clip_v2,
                                                                0.0f, 1.0f);
    }
    default: *missing = 1; return dnnl_unimplemented;
    }
}

int kn_dnnl_prepare(kn_kctx *k, size_t state_bytes, kn_dnnl_build_fn build, int a, int b)
{
    kn_dnnl_prim *p = calloc(1, state_bytes);
    if (!p)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", k->node->op_type);
    k->state = p;
    int rc = kn_dnnl_prim_init(p, k);
    if (rc == KN_OK)
        rc = build(k, p, a, b);
    if (rc != KN_OK)
        kn_dnnl_release(k);
    return rc;
}

int kn_dnnl_run(kn_kctx *k) { return kn_dnnl_execute(k->state, k); }

void kn_dnnl_release(kn_kctx *k)
{
    if (k->state)
        kn_dnnl_prim_destroy(k->state);
    free(k->state);
    k->state = NULL;
}

int kn_dnnl_decline(kn_kctx *k, const char *why)
{
    return kn_fail(k->err, KN_ERR_DECLINE, "oneDNN %s: %s", k->node->op_type, why);
}

int kn_dnnl_attr_create(const kn_activation *act, int with_sum, dnnl_primitive_attr_t *attr,
                        kn_err *err)
{
    dnnl_post_ops_t po = NULL;
    int missing = 0;
    dnnl_status_t s = dnnl_primitive_attr_create(attr);
    if (s == dnnl_success)
        s = dnnl_primitive_attr_set_scratchpad_mode(*attr, dnnl_scratchpad_mode_user);
    if (s == dnnl_success)
        s = dnnl_post_ops_create(&po);
    if (s == dnnl_success && with_sum)
        s = dnnl_post_ops_append_sum(po, 1.0f);
    if (s == dnnl_success)
        s = kn_dnnl_append_activation(po, act, &missing);
    if (s == dnnl_success)
        s = dnnl_primitive_attr_set_post_ops(*attr, po);
    if (po)
        dnnl_post_ops_destroy(po);
    if (s != dnnl_success) {
        dnnl_primitive_attr_destroy(*attr);
        *attr = NULL;
        return missing ? kn_fail(err, KN_ERR_DECLINE, "oneDNN has no post-op for this activation")
                       : kn_dnnl_fail(err, s, "primitive attributes");
    }
    return KN_OK;
}

/* SiLU: oneDNN 2.6's swish post-op costs about 0.5 ns per element, Kiln's
 * vector SiLU 0.25 even reading Y back from L3 (EfficientNet-B0 has 6 M
 * such elements per run: 12.8 -> 11.6 ms at 1 thread). GELU measured the
 * same either way (BERT's 128 x 3072 FFN product), so it stays a post-op. */
void kn_dnnl_take_activation(kn_dnnl_prim *p, kn_activation *act)
{
    if (act->kind != KN_ACT_SILU)
        return;
    p->after = *act;
    act->kind = KN_ACT_NONE;
}

enum { AFTER_BLOCK = 8192 };

typedef struct after_job {
    float *y;
    int64_t n;
    const kn_activation *a;
} after_job;

static void after_range(void *ctx, int64_t begin, int64_t end)
{
    const after_job *j = ctx;
    int64_t lo = begin * AFTER_BLOCK, hi = end * AFTER_BLOCK < j->n ? end * AFTER_BLOCK : j->n;
    kn_simd()->act(j->y + lo, j->y + lo, hi - lo, j->a);
}

static const char *impl_name(const_dnnl_primitive_desc_t pd)
{
    const char *impl = NULL;
    if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) != dnnl_success)
        return NULL;
    return impl;
}

/* The implementation `prefer` ranks best among those oneDNN offers for
 * op_desc and attr (stopping at a first-rank one), or oneDNN's first when
 * the preference names none of them. */
static dnnl_status_t pd_create_preferred(dnnl_primitive_desc_t *pd, const void *op_desc,
                                         const_dnnl_primitive_attr_t attr,
                                         const char *const *prefer, dnnl_engine_t engine)
{
    if (!prefer)
        return dnnl_primitive_desc_create(pd, op_desc, attr, engine, NULL);
    dnnl_primitive_desc_iterator_t it;
    dnnl_status_t s = dnnl_primitive_desc_iterator_create(&it, op_desc, attr, engine, NULL);
    if (s != dnnl_success)
        return s;
    int best = -1;
    do {
        dnnl_primitive_desc_t c = dnnl_primitive_desc_iterator_fetch(it);
        if (!c)
            break;
        int rank = kn_dnnl_impl_rank(prefer, impl_name(c));
        if (*pd && (rank < 0 || (best >= 0 && rank >= best))) {
            dnnl_primitive_desc_destroy(c);
            continue;
        }
        if (*pd)
            dnnl_primitive_desc_destroy(*pd);
        *pd = c;
        best = rank;
    } while (best != 0 && dnnl_primitive_desc_iterator_next(it) == dnnl_success);
    dnnl_primitive_desc_iterator_destroy(it);
    return *pd ? dnnl_success : dnnl_unimplemented;
}

int kn_dnnl_bf16_wanted(const kn_kctx *k)
{
#if defined(__x86_64__) && defined(__GNUC__)
    return k->precision == KN_PRECISION_BF16 &&
           (__builtin_cpu_supports("avx512bf16") || __builtin_cpu_supports("amx-bf16"));
#else
    (void)k;
    return 0;
#endif
}

int kn_dnnl_add_bf16_src(kn_kctx *k, kn_dnnl_prim *p, kn_dnnl_prim *to_bf16,
                         const_dnnl_primitive_desc_t pd, const dnnl_memory_desc_t *f32,
                         const dnnl_memory_desc_t *bf16, size_t *offset)
{
    size_t sp_r = 0;
    int rc = kn_dnnl_reorder_build(k, to_bf16, f32, bf16, 0, &sp_r);
    size_t sp = kn_dnnl_scratchpad_bytes(pd);
    *offset = kn_align_up(sp > sp_r ? sp : sp_r, 64);
    if (rc != KN_OK)
        return rc;
    kn_dnnl_set_scratch_offset(to_bf16, DNNL_ARG_TO, *offset);
    return kn_dnnl_add_scratch_arg(p, DNNL_ARG_SRC, *offset, bf16, k->err);
}

size_t kn_dnnl_bf16_src_scratch(size_t offset, const dnnl_memory_desc_t *bf16)
{
    return offset + kn_align_up(dnnl_memory_desc_get_size(bf16), 64);
}

int kn_dnnl_pd_create(const void *op_desc, const kn_activation *act, int with_sum,
                      const char *const *prefer, kn_dnnl_prim *p, dnnl_primitive_desc_t *pd,
                      kn_err *err)
{
    static const kn_activation none = {0};
    dnnl_primitive_attr_t attr = NULL;
    *pd = NULL;
    int rc = kn_dnnl_attr_create(act ? act : &none, with_sum, &attr, err);
    if (rc != KN_OK)
        return rc;
    /* bf16 arithmetic where the session allows it: oneDNN then runs float32
     * tensors through its bf16 kernels (AVX512-BF16, AMX) when the CPU has
     * them, and keeps float32 elsewhere */
    if (p->precision == KN_PRECISION_BF16 &&
        dnnl_primitive_attr_set_fpmath_mode(attr, dnnl_fpmath_mode_bf16) != dnnl_success) {
        dnnl_primitive_attr_destroy(attr);
        return kn_fail(err, KN_ERR_DECLINE, "oneDNN: no bf16 arithmetic mode");
    }
    rc = kn_dnnl_pd_create_attr(op_desc, attr, prefer, p, pd, err);
    dnnl_primitive_attr_destroy(attr);
    return rc;
}

int kn_dnnl_pd_create_attr(const void *op_desc, const_dnnl_primitive_attr_t attr,
                           const char *const *prefer, kn_dnnl_prim *p, dnnl_primitive_desc_t *pd,
                           kn_err *err)
{
    *pd = NULL;
    dnnl_status_t s = pd_create_preferred(pd, op_desc, attr, prefer, p->engine);
    if (s != dnnl_success) {
        if (*pd)
            dnnl_primitive_desc_destroy(*pd);
        *pd = NULL;
        return kn_dnnl_fail(err, s, "primitive");
    }
    return kn_dnnl_pd_check(pd, err);
}

int kn_dnnl_pd_check(dnnl_primitive_desc_t *pd, kn_err *err)
{
    /* The reference implementations are plain loops, slower than Kiln's own
     * kernels: leave such nodes to those. */
    const char *impl = impl_name(*pd);
    if (impl && strncmp(impl, "ref", 3) == 0) {
        dnnl_primitive_desc_destroy(*pd);
        *pd = NULL;
        return kn_fail(err, KN_ERR_DECLINE, "oneDNN has only its reference %s here", impl);
    }
    return KN_OK;
}

int kn_dnnl_add_arg(kn_dnnl_prim *p, int arg, int bind, int32_t index,
                    const dnnl_memory_desc_t *md, kn_err *err)
{
    if (p->n_args == KN_DNNL_MAX_ARGS)
        return kn_fail(err, KN_ERR_INTERNAL, "oneDNN kernel: too many arguments");
    kn_dnnl_arg *a = &p->args[p->n_args];
    dnnl_status_t s = dnnl_memory_create(&a->mem, md, p->engine, DNNL_MEMORY_NONE);
    if (s != dnnl_success)
        return kn_dnnl_fail(err, s, "memory object");
    a->arg = arg;
    a->bind = bind;
    a->index = index;
    p->exec[p->n_args] = (dnnl_exec_arg_t){arg, a->mem};
    p->n_args++;
    return KN_OK;
}

int kn_dnnl_add_scratch_arg(kn_dnnl_prim *p, int arg, size_t offset,
                            const dnnl_memory_desc_t *md, kn_err *err)
{
    int rc = kn_dnnl_add_arg(p, arg, KN_DNNL_BIND_SCRATCH, 0, md, err);
    if (rc == KN_OK)
        p->args[p->n_args - 1].offset = offset;
    return rc;
}

void kn_dnnl_set_scratch_offset(kn_dnnl_prim *p, int arg, size_t offset)
{
    for (int32_t i = 0; i < p->n_args; i++)
        if (p->args[i].arg == arg && p->args[i].bind == KN_DNNL_BIND_SCRATCH)
            p->args[i].offset = offset;
}

int kn_dnnl_reorder(kn_dnnl_prim *p, const dnnl_memory_desc_t *have, const dnnl_memory_desc_t *want,
                    const void *data, void *dst, kn_err *err)
{
    dnnl_primitive_desc_t rpd = NULL;
    dnnl_primitive_t r = NULL;
    dnnl_memory_t src = NULL, out = NULL;
    dnnl_status_t s = dnnl_reorder_primitive_desc_create(&rpd, have, p->engine, want, p->engine,
                                                         NULL);
    if (s == dnnl_success)
        s = dnnl_primitive_create(&r, rpd);
    if (s == dnnl_success)
        s = dnnl_memory_create(&src, have, p->engine, (void *)data);
    if (s == dnnl_success)
        s = dnnl_memory_create(&out, want, p->engine, dst);
    if (s == dnnl_success) {
        omp_set_num_threads(p->threads);
        dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, out}};
        s = dnnl_primitive_execute(r, p->stream, 2, args);
    }
    if (s == dnnl_success)
        s = dnnl_stream_wait(p->stream);
    dnnl_memory_destroy(src);
    dnnl_memory_destroy(out);
    if (r)
        dnnl_primitive_destroy(r);
    if (rpd)
        dnnl_primitive_desc_destroy(rpd);
    return s == dnnl_success ? KN_OK : kn_dnnl_fail(err, s, "weight reorder");
}

int kn_dnnl_add_const_weights(kn_dnnl_prim *p, const dnnl_memory_desc_t *have,
                              const dnnl_memory_desc_t *want, const void *data, kn_err *err)
{
    int rc = kn_dnnl_add_arg(p, DNNL_ARG_WEIGHTS, KN_DNNL_BIND_OWNED, 0, want, err);
    if (rc != KN_OK)
        return rc;
    dnnl_memory_t mem = p->args[p->n_args - 1].mem;
    void *where = (void *)data;
    if (!dnnl_memory_desc_equal(have, want)) {
        size_t bytes = dnnl_memory_desc_get_size(want);
        p->owned = kn_aligned_alloc(bytes ? bytes : 1);
        if (!p->owned)
            return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory reordering weights");
        rc = kn_dnnl_reorder(p, have, want, data, p->owned, err);
        if (rc != KN_OK)
            return rc;
        where = p->owned;
    }
    dnnl_status_t s = dnnl_memory_set_data_handle(mem, where);
    return s == dnnl_success ? KN_OK : kn_dnnl_fail(err, s, "weights memory");
}

int kn_dnnl_finish(kn_dnnl_prim *p, dnnl_primitive_desc_t pd, kn_kctx *k)
{
    const dnnl_memory_desc_t *sp = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    size_t bytes = sp ? dnnl_memory_desc_get_size(sp) : 0;
    int rc = KN_OK;
    if (bytes > 0) {
        rc = kn_dnnl_add_arg(p, DNNL_ARG_SCRATCHPAD, KN_DNNL_BIND_SCRATCH, 0, sp, k->err);
        k->scratch_bytes = bytes;
    }
    dnnl_status_t s = rc == KN_OK ? dnnl_primitive_create(&p->prim, pd) : dnnl_success;
    dnnl_primitive_desc_destroy(pd);
    if (rc == KN_OK && s != dnnl_success)
        rc = kn_dnnl_fail(k->err, s, "primitive");
    return rc;
}

int kn_dnnl_execute(kn_dnnl_prim *p, kn_kctx *k)
{
    for (int32_t i = 0; i < p->n_args; i++) {
        kn_dnnl_arg *a = &p->args[i];
        void *data = NULL;
        switch (a->bind) {
        case KN_DNNL_BIND_INPUT: data = k->in[a->index]->data; break;
        case KN_DNNL_BIND_OUTPUT: data = k->out[a->index]->data; break;
        case KN_DNNL_BIND_SCRATCH: data = (char *)k->scratch + a->offset; break;
        default: continue;
        }
        dnnl_status_t s = dnnl_memory_set_data_handle(a->mem, data);
        if (s != dnnl_success)
            return kn_dnnl_fail(k->err, s, "memory binding");
    }
    /* oneDNN runs on OpenMP: give it the runtime's thread count, set on
     * this thread right before each run so sessions with different
     * settings never oversubscribe each other's cores. */
    omp_set_num_threads(p->threads);
    dnnl_status_t s = dnnl_primitive_execute(p->prim, p->stream, p->n_args, p->exec);
    if (s == dnnl_success)
        s = dnnl_stream_wait(p->stream);
    if (s != dnnl_success)
        return kn_fail(k->err, KN_ERR_INTERNAL, "oneDNN execution failed (status %d)", (int)s);
    if (p->after.kind != KN_ACT_NONE) {
        after_job j = {k->out[0]->data, kn_tensor_numel(k->out[0]), &p->after};
        kn_parallel_for(k->threads, (j.n + AFTER_BLOCK - 1) / AFTER_BLOCK, 1, after_range, &j);
    }
    return KN_OK;
}

int kn_dnnl_md_plain(dnnl_memory_desc_t *md, int32_t rank, const int64_t *dims,
                     int channels_last, kn_err *err)
{
    return kn_dnnl_md_typed(md, rank, dims, dnnl_f32, channels_last, err);
}

int kn_dnnl_md_typed(dnnl_memory_desc_t *md, int32_t rank, const int64_t *dims,
                     dnnl_data_type_t type, int channels_last, kn_err *err)
{
    static const dnnl_format_tag_t plain[] = {dnnl_format_tag_undef, dnnl_a, dnnl_ab, dnnl_abc,
                                              dnnl_abcd, dnnl_abcde, dnnl_abcdef};
    static const dnnl_format_tag_t last[] = {dnnl_format_tag_undef, dnnl_a, dnnl_ab, dnnl_acb,
                                             dnnl_acdb, dnnl_acdeb};
    if (rank < 1 || rank > 6 || (channels_last && rank > 5))
        return kn_fail(err, KN_ERR_DECLINE, "oneDNN kernel: rank %d not served", (int)rank);
    dnnl_dims_t d;
    for (int32_t i = 0; i < rank; i++)
        d[i] = dims[i];
    dnnl_status_t s = dnnl_memory_desc_init_by_tag(md, rank, d, type,
                                                   channels_last ? last[rank] : plain[rank]);
    return s == dnnl_success ? KN_OK : kn_dnnl_fail(err, s, "memory descriptor");
}

size_t kn_dnnl_scratchpad_bytes(const_dnnl_primitive_desc_t pd)
{
    const dnnl_memory_desc_t *sp = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    return sp ? dnnl_memory_desc_get_size(sp) : 0;
}

int kn_dnnl_reorder_build(kn_kctx *k, kn_dnnl_prim *p, const dnnl_memory_desc_t *from,
                          const dnnl_memory_desc_t *to, int32_t input, size_t *sp_bytes)
{
    int rc = kn_dnnl_prim_init(p, k);
    if (rc != KN_OK)
        return rc;
    kn_activation none = {0};
    dnnl_primitive_attr_t attr = NULL;
    rc = kn_dnnl_attr_create(&none, 0, &attr, k->err);
    dnnl_primitive_desc_t pd = NULL;
    if (rc == KN_OK) {
        dnnl_status_t s =
            dnnl_reorder_primitive_desc_create(&pd, from, p->engine, to, p->engine, attr);
        if (s != dnnl_success)
            rc = kn_dnnl_fail(k->err, s, "layout reorder");
    }
    if (attr)
        dnnl_primitive_attr_destroy(attr);
    if (rc != KN_OK)
        return rc;
    *sp_bytes = kn_dnnl_scratchpad_bytes(pd);
    rc = input >= 0 ? kn_dnnl_add_arg(p, DNNL_ARG_FROM, KN_DNNL_BIND_INPUT, input, from, k->err)
                    : kn_dnnl_add_scratch_arg(p, DNNL_ARG_FROM, 0, from, k->err);
    if (rc == KN_OK)
        rc = input >= 0 ? kn_dnnl_add_scratch_arg(p, DNNL_ARG_TO, 0, to, k->err)
                        : kn_dnnl_add_arg(p, DNNL_ARG_TO, KN_DNNL_BIND_OUTPUT, 0, to, k->err);
    if (rc == KN_OK)
        return kn_dnnl_finish(p, pd, k);
    dnnl_primitive_desc_destroy(pd);
    return rc;
}
