/* Elementwise binary ops with numpy broadcasting: arithmetic (Add, Sub,
 * Mul, Div, Pow, Mod), comparisons (Equal, Less, ...), logic (And, Or,
 * Xor) and the variadic Sum/Max/Min/Mean, which fold the binary loops pair
 * by pair. Each op is one expression per dtype class (F floating, S signed,
 * U unsigned); macros expand it into a typed loop per dtype. Broadcasting
 * is planned once in prepare (broadcast.c): run walks rows whose inner
 * strides are 0 or 1, so a loop has four shapes (both streams, either one
 * a scalar, or both). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "core/simd/kernels.h"
#include "core/kernel/tensor_common.h"

/* Integer power by squaring, wrapping like the other integer ops; negative
 * exponents truncate 1/base^-e toward zero (0 unless |base| is 1). */
static inline int64_t ipow_s(int64_t base, int64_t e)
{
    if (e < 0)
        return base == 1 ? 1 : base == -1 ? ((e & 1) ? -1 : 1) : 0;
    uint64_t r = 1, b = (uint64_t)base;
    for (; e; e >>= 1, b *= b)
        if (e & 1)
            r *= b;
    return (int64_t)r;
}

static inline uint64_t ipow_u(uint64_t b, uint64_t e)
{
    uint64_t r = 1;
    for (; e; e >>= 1, b *= b)
        if (e & 1)
            r *= b;
    return r;
}

/* Python-style modulo: the result takes the divisor's sign. */
static inline int64_t imod_s(int64_t a, int64_t b)
{
    if (b == 0 || b == -1) /* x % 0 is undefined, INT_MIN % -1 overflows */
        return 0;
    int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

/* Division by zero in integer types yields 0 rather than a trap; INT_MIN /
 * -1 wraps. Max/Min propagate NaN like numpy's maximum/minimum. */
#define ARITH_OPS(X) X(Add) X(Sub) X(Mul) X(Div) X(Max) X(Min) X(Pow) X(Mod) X(Fmod) X(PRelu)
#define F_Add (a + b)
#define S_Add ((T)((U)a + (U)b))
#define F_Sub (a - b)
#define S_Sub ((T)((U)a - (U)b))
#define F_Mul (a * b)
#define S_Mul ((T)(1u * (U)a * (U)b)) /* 1u: uint16 * uint16 must not overflow int */
#define F_Div (a / b)
#define S_Div (b == 0 ? (T)0 : b == (T)-1 ? (T)(0 - (U)a) : (T)(a / b))
#define U_Div (b == 0 ? (T)0 : (T)(a / b))
#define F_Max ((a > b || a != a) ? a : b)
#define S_Max (a > b ? a : b)
#define F_Min ((a < b || a != a) ? a : b)
#define S_Min (a < b ? a : b)
#define F_Pow pow(a, b)
#define S_Pow ((T)ipow_s((int64_t)a, (int64_t)b))
#define U_Pow ((T)ipow_u((uint64_t)a, (uint64_t)b))
#define F_Mod fmod(a, b) /* unused: float Mod requires fmod=1 */
#define S_Mod ((T)imod_s((int64_t)a, (int64_t)b))
#define U_Mod (b == 0 ? (T)0 : (T)(a % b))
#define F_Fmod fmod(a, b)
#define S_Fmod (b == 0 || b == (T)-1 ? (T)0 : (T)(a % b))
#define U_Fmod U_Mod
#define F_PRelu (a < 0 ? a * b : a)
#define S_PRelu (a < 0 ? S_Mul : a)
#define U_PRelu ((void)b, a) /* never negative */
#define U_Add S_Add
#define U_Sub S_Sub
#define U_Mul S_Mul
#define U_Max S_Max
#define U_Min S_Min

/* Comparisons and logic write bool (uint8_t 0/1). */
#define CMP_OPS(X) X(Equal) X(Less) X(Greater) X(LessOrEqual) X(GreaterOrEqual)
#define C_Equal (a == b)
#define C_Less (a < b)
#define C_Greater (a > b)
#define C_LessOrEqual (a <= b)
#define C_GreaterOrEqual (a >= b)
#define C_And (a && b)
#define C_Or (a || b)
#define C_Xor ((a != 0) != (b != 0))

typedef void (*binary_loop)(const void *a, const void *b, void *out, int64_t n, int64_t sa,
                            int64_t sb);

/* ELEM is a's type (T), BELEM b's (the same except for Pow with an integer
 * base and a floating exponent), OELEM the output's. */
#define DEFINE_BINARY_B(name, ELEM, UELEM, BELEM, OELEM, EXPR)                \
    static void name(const void *pa, const void *pb, void *po, int64_t n, int64_t sa, int64_t sb) \
    {                                                                         \
        typedef ELEM T;                                                       \
        typedef UELEM U;                                                      \
        typedef BELEM TB;                                                     \
        typedef OELEM O;                                                      \
        const T *A = pa;                                                      \
        const TB *B = pb;                                                     \
        O *Y = po;                                                            \
        (void)sizeof(U);                                                      \
        if (sa && sb) {                                                       \
            for (int64_t i = 0; i < n; i++) {                                 \
                const T a = A[i];                                             \
                const TB b = B[i];                                            \
                Y[i] = (O)(EXPR);                                             \
            }                                                                 \
        } else if (sa) {                                                      \
            const TB b = B[0];                                                \
            for (int64_t i = 0; i < n; i++) {                                 \
                const T a = A[i];                                             \
                Y[i] = (O)(EXPR);                                             \
            }                                                                 \
        } else if (sb) {                                                      \
            const T a = A[0];                                                 \
            for (int64_t i = 0; i < n; i++) {                                 \
                const TB b = B[i];                                            \
                Y[i] = (O)(EXPR);                                             \
            }                                                                 \
        } else {                                                              \
            const T a = A[0];                                                 \
            const TB b = B[0];                                                \
            const O v = (O)(EXPR);                                            \
            for (int64_t i = 0; i < n; i++)                                   \
                Y[i] = v;                                                     \
        }                                                                     \
    }
#define DEFINE_BINARY(name, ELEM, UELEM, OELEM, EXPR)                         \
    DEFINE_BINARY_B(name, ELEM, UELEM, ELEM, OELEM, EXPR)

#define GEN_ARITH_TYPE(op, C, DT, T, U) DEFINE_BINARY(op##_##DT, T, U, T, C##_##op)
#define GEN_CMP_TYPE(op, C, DT, T, U) DEFINE_BINARY(op##_##DT, T, U, uint8_t, C_##op)
#define GEN_ENTRY(op, C, DT, T, U) [DT] = op##_##DT,
#define GEN_ARITH(op)                                                         \
    KN_TYPES_REAL(GEN_ARITH_TYPE, op)                                         \
    static const binary_loop op##_loops[KN_DTYPE_COUNT] = {KN_TYPES_REAL(GEN_ENTRY, op)};
#define GEN_CMP(op)                                                           \
    KN_TYPES_REAL(GEN_CMP_TYPE, op)                                           \
    DEFINE_BINARY(op##_KN_BOOL, uint8_t, uint8_t, uint8_t, C_##op)            \
    static const binary_loop op##_loops[KN_DTYPE_COUNT] = {                   \
        KN_TYPES_REAL(GEN_ENTRY, op)[KN_BOOL] = op##_KN_BOOL};
#define GEN_LOGIC(op)                                                         \
    DEFINE_BINARY(op##_KN_BOOL, uint8_t, uint8_t, uint8_t, C_##op)            \
    static const binary_loop op##_loops[KN_DTYPE_COUNT] = {[KN_BOOL] = op##_KN_BOOL};
ARITH_OPS(GEN_ARITH)

/* Integer base, floating exponent (Pow-12+): computed in double, like
 * numpy's float_power followed by a cast; the exponent arrives as double. */
static inline int64_t pow_to_int(double v)
{
    if (v != v)
        return 0;
    return v >= 9.2e18 ? INT64_MAX : v <= -9.2e18 ? INT64_MIN : (int64_t)v;
}
#define POWF_EXPR ((T)pow_to_int(pow((double)a, b)))
DEFINE_BINARY_B(PowF_KN_INT32, int32_t, uint32_t, double, int32_t, POWF_EXPR)
DEFINE_BINARY_B(PowF_KN_INT64, int64_t, uint64_t, double, int64_t, POWF_EXPR)
static const binary_loop PowF_loops[KN_DTYPE_COUNT] = {[KN_INT32] = PowF_KN_INT32,
                                                       [KN_INT64] = PowF_KN_INT64};
CMP_OPS(GEN_CMP)
GEN_LOGIC(And)
GEN_LOGIC(Or)
GEN_LOGIC(Xor)

/* BitShift, unsigned types only; shifting by the width or more gives 0
 * (C leaves it undefined). uint8/uint16 promote to int without overflow. */
#define B_Shl (b >= sizeof(T) * 8 ? (T)0 : (T)(a << b))
#define B_Shr (b >= sizeof(T) * 8 ? (T)0 : (T)(a >> b))
#define GEN_SHIFT_TYPE(op, C, DT, T, U) DEFINE_BINARY(op##_##DT, T, U, T, B_##op)
#define GEN_SHIFT(op)                                                         \
    KN_TYPES_U(GEN_SHIFT_TYPE, op)                                            \
    static const binary_loop op##_loops[KN_DTYPE_COUNT] = {KN_TYPES_U(GEN_ENTRY, op)};
GEN_SHIFT(Shl)
GEN_SHIFT(Shr)

/* ---- one binary step: out = loop(a, b) over a broadcast plan ---- */

typedef struct binary_step {
    kn_bcast_plan plan;
    binary_loop loop;
    int32_t dtype;     /* dtype of a (and b) as the loop reads them */
    int32_t b_dtype;   /* b's, when it differs (PowF: double) */
    int32_t out_dtype;
    int half;          /* float16/bfloat16: the loop is the float one */
    int vec_op;        /* float Add/Sub/Mul/Div: 1 + kn_binop, run by the vector kernel */
    int rows;          /* vec_op over rows whole (row_pattern): binary_rows serves them */
} binary_step;

static int row_pattern(const kn_bcast_plan *p);

static int is_half(int32_t dt) { return dt == KN_FLOAT16 || dt == KN_BFLOAT16; }

/* Picks the loop for dtype and plans a (op) b into out. */
static int step_init(kn_kctx *k, binary_step *s, const binary_loop *loops, int32_t dtype,
                     int bool_out, const kn_tensor *a, const kn_tensor *b, const kn_tensor *out)
{
    s->dtype = dtype;
    s->b_dtype = loops == PowF_loops ? KN_DOUBLE : dtype;
    s->half = is_half(dtype);
    s->out_dtype = bool_out ? KN_BOOL : dtype;
    s->loop = dtype > 0 && dtype < KN_DTYPE_COUNT ? loops[s->half ? KN_FLOAT : dtype] : NULL;
    if (!s->loop)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: input type %s is not supported",
                       k->node->op_type, kn_dtype_name(dtype));
    const binary_loop *vec_loops[] = {Add_loops, Sub_loops, Mul_loops, Div_loops};
    for (int op = 0; op < 4 && dtype == KN_FLOAT && !bool_out; op++)
        if (loops == vec_loops[op])
            s->vec_op = 1 + op; /* order of kn_binop */
    const kn_tensor *ins[2] = {a, b};
    kn_bcast_init(&s->plan, out, 2, ins);
    s->rows = s->vec_op && row_pattern(&s->plan);
    return KN_OK;
}

typedef struct binary_job {
    const binary_step *s;
    const char *a, *b;
    char *out;
} binary_job;

static void binary_row(void *ctx, const int64_t *off, int64_t out_off, int64_t n)
{
    const binary_job *j = ctx;
    const binary_step *s = j->s;
    const int32_t last = s->plan.rank - 1;
    const int64_t sa = s->plan.strides[0][last], sb = s->plan.strides[1][last];
    const size_t es = kn_dtype_size(s->dtype), oes = kn_dtype_size(s->out_dtype);
    if (s->vec_op) {
        kn_simd()->binary((kn_binop)(s->vec_op - 1), (float *)j->out + out_off,
                          (const float *)j->a + off[0], sa, (const float *)j->b + off[1], sb, n);
        return;
    }
    if (!s->half) {
        s->loop(j->a + (size_t)off[0] * es, j->b + (size_t)off[1] * kn_dtype_size(s->b_dtype),
                j->out + (size_t)out_off * oes, n, sa, sb);
        return;
    }
    /* Half precision: widen a chunk of each stream to float, compute,
     * narrow the result (comparisons write bool directly). */
    float ta[KN_CHUNK], tb[KN_CHUNK], to[KN_CHUNK];
    for (int64_t i = 0; i < n; i += KN_CHUNK) {
        int64_t m = n - i < KN_CHUNK ? n - i : KN_CHUNK;
        kn_convert(s->dtype, j->a + (size_t)(off[0] + i * sa) * es, KN_FLOAT, ta, sa ? m : 1);
        kn_convert(s->dtype, j->b + (size_t)(off[1] + i * sb) * es, KN_FLOAT, tb, sb ? m : 1);
        char *o = j->out + (size_t)(out_off + i) * oes;
        if (s->out_dtype == KN_BOOL) {
            s->loop(ta, tb, o, m, sa, sb);
        } else {
            s->loop(ta, tb, to, m, sa, sb);
            kn_convert(KN_FLOAT, to, s->dtype, o, m);
        }
    }
}

/* Whether the plan is rows of contiguous elements, each input reading
 * either its own row or one row for all (a per-channel operand over NHWC):
 * those go to binary_rows whole, not one short row per call. */
static int row_pattern(const kn_bcast_plan *p)
{
    if (p->rank != 2)
        return 0;
    for (int32_t i = 0; i < 2; i++)
        if (p->strides[i][1] != 1 || (p->strides[i][0] != 0 && p->strides[i][0] != p->dims[1]))
            return 0;
    return 1;
}

static void binary_range(void *ctx, int64_t begin, int64_t end)
{
    const binary_job *j = ctx;
    const kn_bcast_plan *p = &j->s->plan;
    const int64_t n = p->dims[p->rank - 1];
    int64_t r0 = (begin + n - 1) / n, r1 = end / n;
    if (!j->s->rows || r0 >= r1) {
        kn_bcast_walk(p, begin, end, binary_row, ctx);
        return;
    }
    if (begin < r0 * n)
        kn_bcast_walk(p, begin, r0 * n, binary_row, ctx);
    const int64_t ra = p->strides[0][0] != 0, rb = p->strides[1][0] != 0;
    kn_simd()->binary_rows((kn_binop)(j->s->vec_op - 1), (float *)j->out + r0 * n,
                           (const float *)j->a + r0 * ra * n, ra,
                           (const float *)j->b + r0 * rb * n, rb, r1 - r0, n);
    if (r1 * n < end)
        kn_bcast_walk(p, r1 * n, end, binary_row, ctx);
}

static void step_run(const binary_step *s, const void *a, const void *b, void *out,
                     kn_threadpool *pool)
{
    binary_job job = {s, a, b, out};
    if (s->plan.numel > 0)
        kn_parallel_for(pool, s->plan.numel, KN_GRAIN, binary_range, &job);
}

/* ---- two-input ops ---- */

typedef struct binary_state {
    binary_step step;
    int32_t b_given; /* Pow's exponent dtype, converted to step.b_dtype in scratch */
} binary_state;

/* Before opset 7, B broadcasts to A only when `broadcast` is set, as a
 * contiguous run of A's dims starting at `axis` (default: A's suffix). */
static int legacy_broadcast(kn_kctx *k, const kn_tensor *a, const kn_tensor *b, kn_tensor *bv)
{
    char sa[128], sb[128];
    kn_shape_format(a->dims, a->rank, sa, sizeof sa);
    kn_shape_format(b->dims, b->rank, sb, sizeof sb);
    *bv = *b;
    if (!kn_attr_int(k->node, "broadcast", 0)) {
        if (!kn_shape_equal(a->dims, a->rank, b->dims, b->rank))
            return kn_fail(k->err, KN_ERR_SHAPE, "%s: shapes %s and %s differ and broadcast=0",
                           k->node->op_type, sa, sb);
        return KN_OK;
    }
    int64_t axis = kn_attr_int(k->node, "axis", a->rank - b->rank);
    if (axis < 0)
        axis += a->rank;
    if (axis < 0 || axis + b->rank > a->rank)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: %s does not fit into %s at axis %lld",
                       k->node->op_type, sb, sa, (long long)axis);
    bv->rank = a->rank;
    for (int32_t d = 0; d < a->rank; d++)
        bv->dims[d] = d >= axis && d < axis + b->rank ? b->dims[d - axis] : 1;
    for (int32_t d = 0; d < b->rank; d++)
        if (b->dims[d] != 1 && b->dims[d] != a->dims[axis + d])
            return kn_fail(k->err, KN_ERR_SHAPE, "%s: %s does not fit into %s at axis %lld",
                           k->node->op_type, sb, sa, (long long)axis);
    return KN_OK;
}

enum {
    BIN_BOOL_OUT = 1, /* comparisons: the output is bool */
    BIN_MIXED_B = 2,  /* Pow-12+: the exponent may have another numeric type */
    BIN_PRELU = 4,    /* slope broadcasts to X only, no legacy attributes */
};

static int binary_prepare(kn_kctx *k, const binary_loop *loops, int flags)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    const char *op = k->node->op_type;
    const kn_tensor *a = k->in[0], *b = kn_input(k, 1);
    kn_tensor *out = k->out[0];
    if (!b)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: needs two inputs", op);
    if (b->dtype != a->dtype && !(flags & BIN_MIXED_B))
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: input types differ (%s and %s)", op,
                       kn_dtype_name(a->dtype), kn_dtype_name(b->dtype));
    kn_tensor bv = *b;
    if ((flags & BIN_PRELU) && k->opset < 7) {
        /* Before opset 7 the slope is one value or one per channel (axis 1). */
        if (kn_tensor_numel(b) == 1) {
            bv.rank = 0;
        } else if (b->rank == 1 && a->rank >= 2 && b->dims[0] == a->dims[1]) {
            bv.rank = a->rank - 1;
            for (int32_t d = 1; d < bv.rank; d++)
                bv.dims[d] = 1;
        }
    } else if (k->opset < 7 && legacy_broadcast(k, a, b, &bv) != KN_OK) {
        return k->err->code;
    }
    if (kn_broadcast_shape(a, &bv, out, k->err) != KN_OK) {
        kn_err_prefix(k->err, "%s", op);
        return k->err->code;
    }
    if ((flags & BIN_PRELU) && !kn_shape_equal(out->dims, out->rank, a->dims, a->rank))
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: slope does not broadcast to the input's shape", op);
    binary_state st = {.b_given = b->dtype};
    int int_base = (KN_BIT(a->dtype) & KN_MASK_INTS) != 0;
    int float_exp = (KN_BIT(b->dtype) & (KN_MASK_FLOATS | KN_MASK_HALF)) != 0;
    if ((flags & BIN_MIXED_B) && int_base && float_exp)
        loops = PowF_loops;
    if (step_init(k, &st.step, loops, a->dtype, flags & BIN_BOOL_OUT, a, &bv, out) != KN_OK)
        return k->err->code;
    out->dtype = st.step.out_dtype;
    if (b->dtype != st.step.b_dtype) {
        if (!kn_convert_supported(b->dtype))
            return kn_fail(k->err, KN_ERR_UNSUPPORTED, "%s: %s exponent is not supported", op,
                           kn_dtype_name(b->dtype));
        k->scratch_bytes = (size_t)kn_tensor_numel(b) * kn_dtype_size(st.step.b_dtype);
    }
    binary_state *s = malloc(sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    *s = st;
    k->state = s;
    return KN_OK;
}

static int binary_run(kn_kctx *k)
{
    const binary_state *s = k->state;
    const void *b = k->in[1]->data;
    if (s->b_given != s->step.b_dtype) {
        kn_convert(s->b_given, b, s->step.b_dtype, k->scratch, kn_tensor_numel(k->in[1]));
        b = k->scratch;
    }
    step_run(&s->step, k->in[0]->data, b, k->out[0]->data, k->threads);
    return KN_OK;
}

static void free_state(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

static int mod_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 2) != KN_OK)
        return k->err->code;
    int fmod_mode = kn_attr_int(k->node, "fmod", 0) != 0;
    int32_t dt = k->in[0]->dtype;
    if (!fmod_mode && (KN_BIT(dt) & (KN_MASK_FLOATS | KN_MASK_HALF)))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Mod: fmod must be 1 for %s inputs",
                       kn_dtype_name(dt));
    return binary_prepare(k, fmod_mode ? Fmod_loops : Mod_loops, 0);
}

static int bitshift_prepare(kn_kctx *k)
{
    const char *dir = kn_attr_string(k->node, "direction", "");
    int left = strcmp(dir, "LEFT") == 0;
    if (!left && strcmp(dir, "RIGHT") != 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                       "BitShift: direction must be \"LEFT\" or \"RIGHT\", not \"%s\"", dir);
    return binary_prepare(k, left ? Shl_loops : Shr_loops, 0);
}

#define MASK_FLOATY (KN_MASK_FLOATS | KN_MASK_HALF)
#define MASK_REAL (MASK_FLOATY | KN_MASK_INTS)
#define MASK_POW (MASK_FLOATY | KN_BIT(KN_INT32) | KN_BIT(KN_INT64))

/* Outputs the size of input 0 are computed in place safely: each element
 * of a is read before the same element of the output is written. */
#define DEF_BINARY(name, op, since, until, mask, loops, flags_arg)                \
    static int name##_prepare(kn_kctx *k) { return binary_prepare(k, loops, flags_arg); } \
    const kn_op_def kn_op_##name = { \
    .op_type = #op, .since_version = since, .until_version = until, .dtypes = mask, \
    .flags = (flags_arg) & BIN_BOOL_OUT ? 0 : KN_OP_INPLACE, .prepare = name##_prepare, \
    .run = binary_run, .release = free_state \
};

DEF_BINARY(Add, Add, 1, 0, MASK_REAL, Add_loops, 0)
DEF_BINARY(Sub, Sub, 1, 0, MASK_REAL, Sub_loops, 0)
DEF_BINARY(Mul, Mul, 1, 0, MASK_REAL, Mul_loops, 0)
DEF_BINARY(Div, Div, 1, 0, MASK_REAL, Div_loops, 0)
DEF_BINARY(Pow, Pow, 1, 11, MASK_FLOATY, Pow_loops, 0)
DEF_BINARY(Pow_12, Pow, 12, 0, MASK_POW, Pow_loops, BIN_MIXED_B)
DEF_BINARY(PRelu, PRelu, 1, 8, MASK_FLOATY, PRelu_loops, BIN_PRELU)
DEF_BINARY(PRelu_9, PRelu, 9, 0, MASK_FLOATY | KN_MASK_INTS, PRelu_loops, BIN_PRELU)
DEF_BINARY(Equal, Equal, 1, 0, MASK_REAL | KN_BIT(KN_BOOL), Equal_loops, BIN_BOOL_OUT)
DEF_BINARY(Less, Less, 1, 0, MASK_REAL, Less_loops, BIN_BOOL_OUT)
DEF_BINARY(Greater, Greater, 1, 0, MASK_REAL, Greater_loops, BIN_BOOL_OUT)
DEF_BINARY(LessOrEqual, LessOrEqual, 12, 0, MASK_REAL, LessOrEqual_loops, BIN_BOOL_OUT)
DEF_BINARY(GreaterOrEqual, GreaterOrEqual, 12, 0, MASK_REAL, GreaterOrEqual_loops, BIN_BOOL_OUT)
/* And/Or/Xor: bool in, bool out, same byte size: in-place is fine. */
DEF_BINARY(And, And, 1, 0, KN_BIT(KN_BOOL), And_loops, 0)
DEF_BINARY(Or, Or, 1, 0, KN_BIT(KN_BOOL), Or_loops, 0)
DEF_BINARY(Xor, Xor, 1, 0, KN_BIT(KN_BOOL), Xor_loops, 0)
const kn_op_def kn_op_Mod = {
    .op_type = "Mod", .since_version = 10, .dtypes = MASK_REAL, .flags = KN_OP_INPLACE,
    .prepare = mod_prepare, .run = binary_run, .release = free_state
};
#define MASK_UINTS                                                            \
    (KN_BIT(KN_UINT8) | KN_BIT(KN_UINT16) | KN_BIT(KN_UINT32) | KN_BIT(KN_UINT64))
const kn_op_def kn_op_BitShift = {
    .op_type = "BitShift", .since_version = 11, .dtypes = MASK_UINTS, .flags = KN_OP_INPLACE,
    .prepare = bitshift_prepare, .run = binary_run, .release = free_state
};

/* ---- variadic Sum / Max / Min / Mean ---- */

/* Step 0 combines inputs 0 and 1 into the output; step i combines the
 * output with input i + 1; Mean ends with a division by the count. Not
 * in-place: Sum(x, x, x) writing over input 0 would change what the later
 * steps read. */
typedef struct variadic_state {
    int32_t n_steps;
    int mean;
    unsigned char count[8]; /* Mean's divisor as an element of the dtype */
    binary_step steps[];
} variadic_state;

static int variadic_prepare(kn_kctx *k, const binary_loop *loops, int mean)
{
    const char *op = k->node->op_type;
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    kn_tensor *out = k->out[0];
    kn_copy_desc(out, k->in[0]);
    for (int32_t i = 1; i < k->n_in; i++) {
        const kn_tensor *t = k->in[i];
        if (!t)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: input %d is missing", op, (int)i);
        if (t->dtype != out->dtype)
            return kn_fail(k->err, KN_ERR_DTYPE, "%s: input %d is %s, input 0 is %s", op, (int)i,
                           kn_dtype_name(t->dtype), kn_dtype_name(out->dtype));
        if (kn_broadcast_shape(out, t, out, k->err) != KN_OK) {
            kn_err_prefix(k->err, "%s", op);
            return k->err->code;
        }
    }
    int32_t dt = out->dtype;
    if (!kn_convert_supported(dt) || !loops[is_half(dt) ? KN_FLOAT : dt])
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: input type %s is not supported", op,
                       kn_dtype_name(dt));
    int32_t n_steps = k->n_in - 1 + (mean && k->n_in > 1);
    variadic_state *s = calloc(1, sizeof *s + sizeof(binary_step) * (size_t)(n_steps + 1));
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    k->state = s;
    s->n_steps = n_steps;
    s->mean = mean && k->n_in > 1;
    for (int32_t i = 1; i < k->n_in; i++) {
        int rc = step_init(k, &s->steps[i - 1], loops, dt, 0, i == 1 ? k->in[0] : out, k->in[i], out);
        if (rc != KN_OK)
            return rc;
    }
    if (s->mean) {
        kn_tensor scalar = {.dtype = dt, .rank = 0};
        kn_scalar_from_double(dt, (double)k->n_in, s->count);
        int rc = step_init(k, &s->steps[n_steps - 1], Div_loops, dt, 0, out, &scalar, out);
        if (rc != KN_OK)
            return rc;
    }
    return KN_OK;
}

static int variadic_run(kn_kctx *k)
{
    const variadic_state *s = k->state;
    void *out = k->out[0]->data;
    if (k->n_in == 1) {
        if (out != k->in[0]->data)
            memcpy(out, k->in[0]->data, (size_t)kn_tensor_nbytes(k->out[0]));
        return KN_OK;
    }
    for (int32_t i = 1; i < k->n_in; i++)
        step_run(&s->steps[i - 1], i == 1 ? k->in[0]->data : out, k->in[i]->data, out, k->threads);
    if (s->mean)
        step_run(&s->steps[s->n_steps - 1], out, s->count, out, k->threads);
    return KN_OK;
}

#define DEF_VARIADIC(op, mask, loops, mean)                                   \
    static int op##_var_prepare(kn_kctx *k) { return variadic_prepare(k, loops, mean); } \
    const kn_op_def kn_op_##op = { \
    .op_type = #op, .since_version = 1, .dtypes = mask, .prepare = op##_var_prepare, \
    .run = variadic_run, .release = free_state \
};

DEF_VARIADIC(Sum, MASK_REAL, Add_loops, 0)
DEF_VARIADIC(Max, MASK_REAL, Max_loops, 0)
DEF_VARIADIC(Min, MASK_REAL, Min_loops, 0)
DEF_VARIADIC(Mean, MASK_FLOATY, Add_loops, 1)
