/* BitwiseAnd, BitwiseOr, BitwiseXor (broadcasting) and BitwiseNot
 * (opset 18) on every integer type. Bitwise results depend only on the
 * bits, so the loops work on unsigned words of the element's size: one
 * set of loops per size serves the signed and unsigned type of that size. */
#include <stdlib.h>

#include "core/kernel/tensor_common.h"

enum { BIT_AND, BIT_OR, BIT_XOR };

#define BIT_AND_EXPR(a, b) ((a) & (b))
#define BIT_OR_EXPR(a, b) ((a) | (b))
#define BIT_XOR_EXPR(a, b) ((a) ^ (b))

typedef void (*bit_loop)(const void *a, int64_t sa, const void *b, int64_t sb, void *out,
                         int64_t n);

/* out[i] = a[i * sa] OP b[i * sb] for words of type T */
#define DEFINE_BIT_LOOP(T, OP)                                                \
    static void OP##_##T(const void *pa, int64_t sa, const void *pb, int64_t sb, void *po, \
                         int64_t n)                                           \
    {                                                                         \
        const T *a = pa, *b = pb;                                             \
        T *o = po;                                                            \
        for (int64_t i = 0; i < n; i++)                                       \
            o[i] = (T)OP##_EXPR(a[i * sa], b[i * sb]);                        \
    }
#define DEFINE_BIT_OPS(T) DEFINE_BIT_LOOP(T, BIT_AND) DEFINE_BIT_LOOP(T, BIT_OR) DEFINE_BIT_LOOP(T, BIT_XOR)
DEFINE_BIT_OPS(uint8_t)
DEFINE_BIT_OPS(uint16_t)
DEFINE_BIT_OPS(uint32_t)
DEFINE_BIT_OPS(uint64_t)

/* [op][log2 of element size] */
static const bit_loop bit_loops[3][4] = {
    {BIT_AND_uint8_t, BIT_AND_uint16_t, BIT_AND_uint32_t, BIT_AND_uint64_t},
    {BIT_OR_uint8_t, BIT_OR_uint16_t, BIT_OR_uint32_t, BIT_OR_uint64_t},
    {BIT_XOR_uint8_t, BIT_XOR_uint16_t, BIT_XOR_uint32_t, BIT_XOR_uint64_t},
};

static int size_log2(size_t es) { return es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : 3; }

typedef struct bit_state {
    kn_bcast_plan plan;
    bit_loop loop;
    size_t es;
} bit_state;

static void bit_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

static int bit_binary_prepare(kn_kctx *k, int op)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    const kn_tensor *a = k->in[0], *b = k->in[1];
    kn_tensor *out = k->out[0];
    if (a->dtype != b->dtype)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: A is %s but B is %s", k->node->op_type,
                       kn_dtype_name(a->dtype), kn_dtype_name(b->dtype));
    if (kn_broadcast_shape(a, b, out, k->err) != KN_OK) {
        kn_err_prefix(k->err, "%s", k->node->op_type);
        return k->err->code;
    }
    out->dtype = a->dtype;
    bit_state *s = malloc(sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", k->node->op_type);
    const kn_tensor *ins[2] = {a, b};
    kn_bcast_init(&s->plan, out, 2, ins);
    s->es = kn_dtype_size(a->dtype);
    s->loop = bit_loops[op][size_log2(s->es)];
    k->state = s;
    return KN_OK;
}

typedef struct bit_job {
    const bit_state *s;
    const char *a, *b;
    char *out;
} bit_job;

static void bit_row(void *ctx, const int64_t *off, int64_t out_off, int64_t n)
{
    const bit_job *j = ctx;
    const bit_state *s = j->s;
    int32_t last = s->plan.rank - 1;
    s->loop(j->a + (size_t)off[0] * s->es, s->plan.strides[0][last], j->b + (size_t)off[1] * s->es,
            s->plan.strides[1][last], j->out + (size_t)out_off * s->es, n);
}

static void bit_range(void *ctx, int64_t begin, int64_t end)
{
    const bit_job *j = ctx;
    kn_bcast_walk(&j->s->plan, begin, end, bit_row, ctx);
}

static int bit_binary_run(kn_kctx *k)
{
    bit_job j = {k->state, k->in[0]->data, k->in[1]->data, k->out[0]->data};
    kn_parallel_for(k->threads, j.s->plan.numel, KN_GRAIN, bit_range, &j);
    return KN_OK;
}

static int and_prepare(kn_kctx *k) { return bit_binary_prepare(k, BIT_AND); }
static int or_prepare(kn_kctx *k) { return bit_binary_prepare(k, BIT_OR); }
static int xor_prepare(kn_kctx *k) { return bit_binary_prepare(k, BIT_XOR); }

/* ---- BitwiseNot: complementing every byte complements every word ---- */

static int bit_not_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    kn_copy_desc(k->out[0], k->in[0]);
    return KN_OK;
}

typedef struct not_job {
    const unsigned char *in;
    unsigned char *out;
} not_job;

static void not_range(void *ctx, int64_t begin, int64_t end)
{
    const not_job *j = ctx;
    for (int64_t i = begin; i < end; i++)
        j->out[i] = (unsigned char)~j->in[i];
}

static int bit_not_run(kn_kctx *k)
{
    not_job j = {k->in[0]->data, k->out[0]->data};
    kn_parallel_for(k->threads, kn_tensor_nbytes(k->out[0]), KN_GRAIN, not_range, &j);
    return KN_OK;
}

const kn_op_def kn_op_BitwiseAnd = {
    .op_type = "BitwiseAnd", .since_version = 18, .dtypes = KN_MASK_INTS,
    .flags = KN_OP_INPLACE, .prepare = and_prepare, .run = bit_binary_run,
    .release = bit_release
};
const kn_op_def kn_op_BitwiseOr = {
    .op_type = "BitwiseOr", .since_version = 18, .dtypes = KN_MASK_INTS, .flags = KN_OP_INPLACE,
    .prepare = or_prepare, .run = bit_binary_run, .release = bit_release
};
const kn_op_def kn_op_BitwiseXor = {
    .op_type = "BitwiseXor", .since_version = 18, .dtypes = KN_MASK_INTS,
    .flags = KN_OP_INPLACE, .prepare = xor_prepare, .run = bit_binary_run,
    .release = bit_release
};
const kn_op_def kn_op_BitwiseNot = {
    .op_type = "BitwiseNot", .since_version = 18, .dtypes = KN_MASK_INTS,
    .flags = KN_OP_INPLACE, .prepare = bit_not_prepare, .run = bit_not_run
};
