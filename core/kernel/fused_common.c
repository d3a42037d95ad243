/* Shared pieces of the fused kernels (fused_common.h). */
#include "core/kernel/backend.h"
#include "core/kernel/fused_common.h"

#include <string.h>

#include "core/simd/kernels.h"

static const char *const act_names[KN_ACT_COUNT] = {
    [KN_ACT_NONE] = "", [KN_ACT_RELU] = "Relu", [KN_ACT_CLIP] = "Clip",
    [KN_ACT_LEAKY_RELU] = "LeakyRelu", [KN_ACT_SIGMOID] = "Sigmoid",
    [KN_ACT_HARD_SIGMOID] = "HardSigmoid", [KN_ACT_TANH] = "Tanh",
    [KN_ACT_HARD_SWISH] = "HardSwish", [KN_ACT_SILU] = "Silu", [KN_ACT_GELU] = "Gelu",
};

const char *kn_fused_act_name(kn_act_kind kind)
{
    return kind >= 0 && kind < KN_ACT_COUNT ? act_names[kind] : "";
}

int kn_fused_act_from_name(const char *name)
{
    for (int k = 0; k < KN_ACT_COUNT; k++)
        if (strcmp(act_names[k], name ? name : "") == 0)
            return k;
    return -1;
}

int kn_fused_act_param_count(kn_act_kind kind)
{
    return kind == KN_ACT_CLIP || kind == KN_ACT_HARD_SIGMOID ? 2
           : kind == KN_ACT_LEAKY_RELU                        ? 1
                                                              : 0;
}

int kn_fused_activation(kn_kctx *k, kn_activation *act)
{
    memset(act, 0, sizeof *act);
    const char *name = kn_attr_string(k->node, "activation", "");
    int kind = kn_fused_act_from_name(name);
    if (kind < 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: unknown activation '%s'",
                       k->node->op_type, name);
    act->kind = (kn_act_kind)kind;
    int32_t n = 0;
    const float *p = kn_attr_floats(k->node, "activation_params", &n);
    int want = kn_fused_act_param_count(act->kind);
    /* LeakyRelu may leave its alpha out (0.01, as the ONNX op). */
    if (n != want && !(n == 0 && kind == KN_ACT_LEAKY_RELU))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "%s: activation %s takes %d activation_params, got %d", k->node->op_type,
                       name, want, (int)n);
    if (kind == KN_ACT_LEAKY_RELU)
        act->alpha = n ? p[0] : 0.01f;
    if (want == 2) {
        act->alpha = p[0];
        act->beta = p[1];
    }
    return KN_OK;
}

int kn_inner_prepare(kn_inner_op *in, kn_kctx *outer, const char *op_type, int64_t opset,
                     int32_t n_in)
{
    int32_t dtype = outer->in[0] ? outer->in[0]->dtype : KN_UNDEFINED;
    in->def = kn_backend_kernel(&kn_backend_cpu, "", op_type, opset, dtype);
    if (!in->def)
        return kn_fail(outer->err, KN_ERR_UNSUPPORTED, "%s: no %s kernel for %s",
                       outer->node->op_type, op_type, kn_dtype_name(dtype));
    in->k = *outer;
    in->k.opset = opset;
    in->k.n_in = n_in < outer->n_in ? n_in : outer->n_in;
    in->k.n_out = 1;
    in->k.state = NULL;
    in->k.scratch_bytes = 0;
    int rc = in->def->prepare(&in->k);
    outer->scratch_bytes = in->k.scratch_bytes;
    return rc;
}

int kn_inner_run(kn_inner_op *in, kn_kctx *outer)
{
    in->k.in = outer->in;
    in->k.out = outer->out;
    in->k.threads = outer->threads;
    in->k.err = outer->err;
    in->k.scratch = outer->scratch;
    return in->def->run(&in->k);
}

void kn_inner_release(kn_inner_op *in)
{
    if (in->def && in->def->release)
        in->def->release(&in->k);
    in->def = NULL;
}

enum { EPILOGUE_GRAIN = 16384 };

typedef struct act_job {
    float *y;
    const float *bias;
    int64_t n, cols;
    const kn_activation *act;
} act_job;

static void act_range(void *ctx, int64_t begin, int64_t end)
{
    const act_job *j = ctx;
    int64_t lo = begin * EPILOGUE_GRAIN, hi = end * EPILOGUE_GRAIN;
    if (hi > j->n)
        hi = j->n;
    kn_simd()->act(j->y + lo, j->y + lo, hi - lo, j->act);
}

void kn_fused_act(kn_threadpool *pool, float *y, int64_t n, const kn_activation *act)
{
    if (!act || act->kind == KN_ACT_NONE || n <= 0)
        return;
    act_job j = {y, NULL, n, 0, act};
    kn_parallel_for(pool, (n + EPILOGUE_GRAIN - 1) / EPILOGUE_GRAIN, 1, act_range, &j);
}

static void rows_range(void *ctx, int64_t begin, int64_t end)
{
    const act_job *j = ctx;
    const kn_simd_kernels *s = kn_simd();
    for (int64_t r = begin; r < end; r++) {
        float *row = j->y + r * j->cols;
        if (j->bias)
            s->binary(KN_BIN_ADD, row, row, 1, j->bias, 1, j->cols);
        if (j->act && j->act->kind != KN_ACT_NONE)
            s->act(row, row, j->cols, j->act);
    }
}

void kn_fused_bias_act_rows(kn_threadpool *pool, float *y, int64_t rows, int64_t cols,
                            const float *bias, const kn_activation *act)
{
    if (rows <= 0 || cols <= 0 || (!bias && (!act || act->kind == KN_ACT_NONE)))
        return;
    act_job j = {y, bias, rows * cols, cols, act};
    kn_parallel_for(pool, rows, 1 + EPILOGUE_GRAIN / cols, rows_range, &j);
}

typedef struct add_job {
    float *y;
    const float *z;
    const kn_tensor *shape;
    int64_t zstride[KN_MAX_RANK];
    int64_t inner;       /* trailing elements where z matches y, or is one value */
    int64_t zstep;       /* 1: z runs along with y; 0: z is one value per run */
    int64_t chunks;      /* pieces of at most EPILOGUE_GRAIN per inner run */
    const kn_activation *act;
} add_job;

/* Item = (run of `inner` elements, chunk of it): z's offset from the run's
 * multi-index. */
static void add_range(void *ctx, int64_t begin, int64_t end)
{
    const add_job *j = ctx;
    const kn_simd_kernels *s = kn_simd();
    int32_t rank = j->shape->rank;
    for (int64_t item = begin; item < end; item++) {
        int64_t r = item / j->chunks, c0 = (item % j->chunks) * EPILOGUE_GRAIN;
        int64_t len = j->inner - c0 < EPILOGUE_GRAIN ? j->inner - c0 : EPILOGUE_GRAIN;
        int64_t rem = r * j->inner, zoff = 0;
        for (int32_t d = rank - 1; d >= 0; d--) {
            int64_t i = rem % j->shape->dims[d];
            rem /= j->shape->dims[d];
            zoff += i * j->zstride[d];
        }
        float *row = j->y + r * j->inner + c0;
        s->binary(KN_BIN_ADD, row, row, 1, j->z + zoff + c0 * j->zstep, j->zstep, len);
        if (j->act && j->act->kind != KN_ACT_NONE)
            s->act(row, row, len, j->act);
    }
}

void kn_fused_add_act(kn_threadpool *pool, kn_tensor *y, const kn_tensor *z,
                      const kn_activation *act)
{
    int64_t n = kn_tensor_numel(y);
    if (n <= 0)
        return;
    add_job j = {.y = y->data, .z = z->data, .shape = y, .act = act};
    /* z's strides against y's dims (0 where z broadcasts). */
    int64_t stride = 1;
    for (int32_t d = y->rank - 1; d >= 0; d--) {
        int32_t zd = d - (y->rank - z->rank);
        int64_t zdim = zd >= 0 ? z->dims[zd] : 1;
        j.zstride[d] = zdim == 1 && y->dims[d] != 1 ? 0 : stride;
        stride *= zdim;
    }
    /* Runs: the trailing dims where z matches y exactly (contiguous), or
     * where z is broadcast (one value per run, like a [N, C, 1, 1] z). */
    j.inner = 1;
    j.zstep = y->rank > 0 && j.zstride[y->rank - 1] == 0 ? 0 : 1;
    for (int32_t d = y->rank - 1; d >= 0 && j.zstride[d] == j.inner * j.zstep; d--)
        j.inner *= y->dims[d];
    j.chunks = (j.inner + EPILOGUE_GRAIN - 1) / EPILOGUE_GRAIN;
    int64_t items = n / j.inner * j.chunks;
    kn_parallel_for(pool, items, 1 + EPILOGUE_GRAIN / (j.inner < EPILOGUE_GRAIN ? j.inner : EPILOGUE_GRAIN),
                    add_range, &j);
}
