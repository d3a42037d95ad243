/* The Reduce* family: Sum, Mean, Prod, Max, Min, L1, L2, LogSum,
 * LogSumExp, SumSquare, every opset.
 *
 * One engine serves them all. prepare() drops size-1 dims and merges
 * neighbouring dims of the same kind (kept or reduced), so any reduction
 * becomes an alternation of kept and reduced groups whose last group is
 * contiguous in memory:
 *  - last group kept (size I): each unit is a chunk of up to RD_CHUNK
 *    adjacent outputs; every reduced position adds a contiguous row of the
 *    input into a row of accumulators (vectorises, streams through memory);
 *  - last group reduced (size L): each unit is one output; every other
 *    reduced position folds a contiguous run of L inputs into one
 *    accumulator.
 * Elements are converted chunk-wise into one of two accumulator domains:
 * double (floating types, and the ops whose result is not an integer
 * operation: Mean, L2, LogSum, LogSumExp) or int64 (integer and bool
 * Sum/Prod/Max/Min/L1/SumSquare, exact and wrapping like the element type).
 * Each op is then an initial value, a combine step and a finalise step. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/simd/kernels.h"
#include "core/cpu/reduce/reduce_common.h"
#include "core/kernel/tensor_common.h"

#define RD_CHUNK 256

enum {
    RD_SUM,
    RD_MEAN,
    RD_PROD,
    RD_MAX,
    RD_MIN,
    RD_L1,
    RD_L2,
    RD_LOGSUM,
    RD_LOGSUMEXP,
    RD_SUMSQUARE,
    RD_SUMEXP /* internal: second pass of LogSumExp */
};

typedef struct reduce_state {
    int kind;
    int32_t dtype;
    int use_int;     /* accumulate in int64, else double */
    int flip;        /* uint64 Max/Min: compare with the sign bit flipped */
    int no_abs;      /* unsigned L1: |x| is x */
    int noop;        /* empty axes with noop_with_empty_axes: output = input */
    int empty;       /* the reduced set has no elements */
    int last_reduced;
    int vec_sum;     /* float Sum/Mean of contiguous rows: vector kernel */
    int64_t inner;   /* size of the last (contiguous) group */
    int64_t count;   /* elements reduced into each output (Mean) */
    int32_t n_kept, n_red; /* groups other than the last */
    int64_t kept_dims[KN_MAX_RANK], kept_strides[KN_MAX_RANK];
    int64_t red_dims[KN_MAX_RANK], red_strides[KN_MAX_RANK];
    int64_t combos;  /* product of red_dims */
    int64_t chunks;  /* per kept outer index (last group kept) */
    int64_t units;
    int64_t init_i;  /* initial value in the int64 domain */
    double init_d;
} reduce_state;

/* ---- combine steps, written once per accumulator domain ---- */

/* Integer sums and products wrap through uint64 instead of overflowing. */
#define ADD_d(a, b) ((a) + (b))
#define MUL_d(a, b) ((a) * (b))
#define ABS_d(x) fabs(x)
#define ADD_i(a, b) ((int64_t)((uint64_t)(a) + (uint64_t)(b)))
#define MUL_i(a, b) ((int64_t)((uint64_t)(a) * (uint64_t)(b)))
#define ABS_i(x) ((x) < 0 ? (int64_t)(0 - (uint64_t)(x)) : (x))
/* NaN wins a Max/Min, as in numpy. */
#define MAX_d(a, x) ((x) > (a) || (x) != (x) ? (x) : (a))
#define MIN_d(a, x) ((x) < (a) || (x) != (x) ? (x) : (a))
#define MAX_i(a, x) ((x) > (a) ? (x) : (a))
#define MIN_i(a, x) ((x) < (a) ? (x) : (a))
#define SHIFT_d(s) (isfinite(s) ? (s) : 0.0)
#define EXPS_d(x, s) exp((x) - SHIFT_d(s))
#define EXPS_i(x, s) ((void)(s), (x)) /* never used: LogSumExp runs in double */
/* uint64 Max/Min run in int64 with the sign bit flipped, which keeps the
 * order; the double domain never needs it. */
#define FLIP_i(x) ((int64_t)((uint64_t)(x) ^ (UINT64_C(1) << 63)))
#define FLIP_d(x) (x)

/* Folds buf[0..m) into a with OP through four independent lanes, so the
 * loop is not one long chain of dependent additions (a serial FP sum runs
 * at one add per latency). Lanes start at the identity ID (a itself for
 * Max/Min); the order is fixed, so results do not depend on threads. */
#define FOLD4(T, OP, ID, TERM)                                                \
    do {                                                                      \
        T l0 = a, l1 = (ID), l2 = (ID), l3 = (ID);                            \
        int64_t i = 0;                                                        \
        for (; i + 4 <= m; i += 4) {                                          \
            l0 = OP(l0, TERM(buf[i]));                                        \
            l1 = OP(l1, TERM(buf[i + 1]));                                    \
            l2 = OP(l2, TERM(buf[i + 2]));                                    \
            l3 = OP(l3, TERM(buf[i + 3]));                                    \
        }                                                                     \
        for (; i < m; i++)                                                    \
            l0 = OP(l0, TERM(buf[i]));                                        \
        l0 = OP(l0, l1);                                                      \
        l2 = OP(l2, l3);                                                      \
        a = OP(l0, l2);                                                       \
    } while (0)
#define TERM_X(x) (x)
#define TERM_SQ_d(x) ((x) * (x))
#define TERM_SQ_i(x) MUL_i(x, x)
#define TERM_EXP_d(x) EXPS_d(x, shift[0])
#define TERM_EXP_i(x) EXPS_i(x, shift[0])

/* ROWS: acc[i] combined with buf[i] (last group kept). FOLD: buf folded
 * into acc[0] (last group reduced). shift[] is the maximum found by the
 * first LogSumExp pass. */
#define DEFINE_COMBINE(S, T)                                                              \
    static void combine_rows_##S(int kind, int no_abs, T *acc, const T *buf, const T *shift, \
                                 int64_t m)                                               \
    {                                                                                     \
        switch (kind) {                                                                   \
        case RD_SUM: case RD_MEAN: case RD_LOGSUM:                                        \
            for (int64_t i = 0; i < m; i++) acc[i] = ADD_##S(acc[i], buf[i]);             \
            break;                                                                        \
        case RD_PROD:                                                                     \
            for (int64_t i = 0; i < m; i++) acc[i] = MUL_##S(acc[i], buf[i]);             \
            break;                                                                        \
        case RD_MAX: case RD_LOGSUMEXP:                                                   \
            for (int64_t i = 0; i < m; i++) acc[i] = MAX_##S(acc[i], buf[i]);             \
            break;                                                                        \
        case RD_MIN:                                                                      \
            for (int64_t i = 0; i < m; i++) acc[i] = MIN_##S(acc[i], buf[i]);             \
            break;                                                                        \
        case RD_L1:                                                                       \
            for (int64_t i = 0; i < m; i++)                                               \
                acc[i] = ADD_##S(acc[i], no_abs ? buf[i] : ABS_##S(buf[i]));              \
            break;                                                                        \
        case RD_L2: case RD_SUMSQUARE:                                                    \
            for (int64_t i = 0; i < m; i++) acc[i] = ADD_##S(acc[i], MUL_##S(buf[i], buf[i])); \
            break;                                                                        \
        case RD_SUMEXP:                                                                   \
            for (int64_t i = 0; i < m; i++) acc[i] = ADD_##S(acc[i], EXPS_##S(buf[i], shift[i])); \
            break;                                                                        \
        default: break;                                                                   \
        }                                                                                 \
    }                                                                                     \
    static void combine_fold_##S(int kind, int no_abs, T *acc, const T *buf, const T *shift, \
                                 int64_t m)                                               \
    {                                                                                     \
        T a = acc[0];                                                                     \
        (void)no_abs, (void)shift;                                                        \
        switch (kind) {                                                                   \
        case RD_SUM: case RD_MEAN: case RD_LOGSUM: FOLD4(T, ADD_##S, 0, TERM_X); break;   \
        case RD_PROD: FOLD4(T, MUL_##S, 1, TERM_X); break;                                \
        case RD_MAX: case RD_LOGSUMEXP: FOLD4(T, MAX_##S, a, TERM_X); break;              \
        case RD_MIN: FOLD4(T, MIN_##S, a, TERM_X); break;                                 \
        case RD_L1:                                                                       \
            if (no_abs)                                                                   \
                FOLD4(T, ADD_##S, 0, TERM_X);                                             \
            else                                                                          \
                FOLD4(T, ADD_##S, 0, ABS_##S);                                            \
            break;                                                                        \
        case RD_L2: case RD_SUMSQUARE: FOLD4(T, ADD_##S, 0, TERM_SQ_##S); break;          \
        case RD_SUMEXP: FOLD4(T, ADD_##S, 0, TERM_EXP_##S); break;                        \
        default: break;                                                                   \
        }                                                                                 \
        acc[0] = a;                                                                       \
    }

DEFINE_COMBINE(d, double)
DEFINE_COMBINE(i, int64_t)

/* ---- the walk over one unit ---- */

typedef struct reduce_job {
    const reduce_state *s;
    const char *x;
    char *y;
} reduce_job;

/* Input offset (elements) of kept outer index `o`. */
static int64_t kept_offset(const reduce_state *s, int64_t o)
{
    int64_t off = 0;
    for (int32_t g = s->n_kept - 1; g >= 0; g--) {
        off += (o % s->kept_dims[g]) * s->kept_strides[g];
        o /= s->kept_dims[g];
    }
    return off;
}

/* Visits every reduced position (other than the last group) in row-major
 * order, loading `m` contiguous elements from `base + position` into buf
 * and combining them into acc. */
#define LOAD_d(dt, src, buf, n) rd_to_f64(dt, src, buf, n)
#define LOAD_i(dt, src, buf, n) kn_convert(dt, src, KN_INT64, buf, n)
#define DEFINE_WALK(S, T)                                                             \
    static void walk_##S(const reduce_job *j, int kind, int64_t base, int64_t m, T *acc,   \
                         const T *shift)                                                  \
    {                                                                                     \
        const reduce_state *s = j->s;                                                     \
        size_t es = kn_dtype_size(s->dtype);                                              \
        int64_t idx[KN_MAX_RANK] = {0}, off = 0;                                          \
        T buf[RD_CHUNK];                                                                  \
        for (int64_t c = 0; c < s->combos; c++) {                                         \
            for (int64_t done = 0; done < m; done += RD_CHUNK) {                          \
                int64_t n = m - done < RD_CHUNK ? m - done : RD_CHUNK;                    \
                LOAD_##S(s->dtype, j->x + (size_t)(base + off + done) * es, buf, n);       \
                if (s->flip)                                                              \
                    for (int64_t i = 0; i < n; i++)                                       \
                        buf[i] = FLIP_##S(buf[i]);                                        \
                if (s->last_reduced)                                                      \
                    combine_fold_##S(kind, s->no_abs, acc, buf, shift, n);                \
                else                                                                      \
                    combine_rows_##S(kind, s->no_abs, acc, buf, shift, n);                \
            }                                                                             \
            for (int32_t g = s->n_red - 1; g >= 0; g--) { /* next position */            \
                off += s->red_strides[g];                                                 \
                if (++idx[g] < s->red_dims[g])                                            \
                    break;                                                                \
                off -= idx[g] * s->red_strides[g];                                        \
                idx[g] = 0;                                                               \
            }                                                                             \
        }                                                                                 \
    }

DEFINE_WALK(d, double)
DEFINE_WALK(i, int64_t)

static double finalise_d(const reduce_state *s, double a, double shift)
{
    switch (s->kind) {
    case RD_MEAN: return a / (double)s->count;
    case RD_L2: return sqrt(a);
    case RD_LOGSUM: return log(a);
    case RD_LOGSUMEXP: return log(a) + SHIFT_d(shift);
    default: return a;
    }
}

static void reduce_unit(const reduce_job *j, int64_t u)
{
    const reduce_state *s = j->s;
    int64_t o, c0, m, base, out_off;
    if (s->last_reduced) {
        o = u, c0 = 0, m = 1;
        base = kept_offset(s, o);
        out_off = u;
    } else {
        o = u / s->chunks, c0 = (u % s->chunks) * RD_CHUNK;
        m = s->inner - c0 < RD_CHUNK ? s->inner - c0 : RD_CHUNK;
        base = kept_offset(s, o) + c0;
        out_off = o * s->inner + c0;
    }
    if (s->vec_sum) {
        float v = kn_simd()->sum((const float *)j->x + base, s->inner);
        ((float *)j->y)[out_off] = s->kind == RD_MEAN ? v / (float)s->count : v;
        return;
    }
    int64_t run = s->last_reduced ? s->inner : m; /* elements per reduced position */
    if (s->empty)
        run = 0;
    char *dst = j->y + (size_t)out_off * kn_dtype_size(s->dtype);
    if (s->use_int) {
        int64_t acc[RD_CHUNK];
        for (int64_t i = 0; i < m; i++)
            acc[i] = s->init_i;
        if (run > 0)
            walk_i(j, s->kind, base, run, acc, NULL);
        if (s->flip)
            for (int64_t i = 0; i < m; i++)
                acc[i] = FLIP_i(acc[i]);
        kn_convert(KN_INT64, acc, s->dtype, dst, m);
        return;
    }
    double acc[RD_CHUNK], shift[RD_CHUNK];
    for (int64_t i = 0; i < m; i++)
        acc[i] = s->init_d, shift[i] = 0;
    if (s->kind == RD_LOGSUMEXP) {
        /* First pass finds the maximum, the second sums exp(x - max), so
         * large inputs do not overflow. */
        for (int64_t i = 0; i < m; i++)
            shift[i] = -INFINITY;
        if (run > 0)
            walk_d(j, RD_MAX, base, run, shift, NULL);
        if (run > 0)
            walk_d(j, RD_SUMEXP, base, run, acc, shift);
    } else if (run > 0) {
        walk_d(j, s->kind, base, run, acc, NULL);
    }
    for (int64_t i = 0; i < m; i++)
        acc[i] = finalise_d(s, acc[i], shift[i]);
    rd_from_f64(s->dtype, acc, dst, m);
}

static void reduce_range(void *ctx, int64_t begin, int64_t end)
{
    for (int64_t u = begin; u < end; u++)
        reduce_unit(ctx, u);
}

/* ---- prepare ---- */

/* Smallest and largest value of an integer dtype (the Max/Min of an empty
 * set when the type has no infinity). */
static void int_limits(int32_t dt, int64_t *lo, int64_t *hi)
{
    switch (dt) {
    case KN_INT8: *lo = INT8_MIN, *hi = INT8_MAX; break;
    case KN_INT16: *lo = INT16_MIN, *hi = INT16_MAX; break;
    case KN_INT32: *lo = INT32_MIN, *hi = INT32_MAX; break;
    case KN_UINT8: *lo = 0, *hi = UINT8_MAX; break;
    case KN_UINT16: *lo = 0, *hi = UINT16_MAX; break;
    case KN_UINT32: *lo = 0, *hi = UINT32_MAX; break;
    case KN_BOOL: *lo = 0, *hi = 1; break;
    /* uint64 is compared with the sign bit flipped: 0 and UINT64_MAX become these. */
    default: *lo = INT64_MIN, *hi = INT64_MAX; break;
    }
}

static int is_float_dtype(int32_t dt)
{
    return dt == KN_FLOAT || dt == KN_DOUBLE || dt == KN_FLOAT16 || dt == KN_BFLOAT16;
}

/* Reads the axes (attribute or input) into `axes`. *n = 0 means none given. */
static int reduce_axes(kn_kctx *k, int axes_input, int64_t *axes, int32_t *n)
{
    const char *op = k->node->op_type;
    *n = 0;
    if (!axes_input) {
        int32_t cnt = 0;
        const int64_t *a = kn_attr_ints(k->node, "axes", &cnt);
        if (cnt > KN_MAX_RANK)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: %d axes given, more than the rank",
                           op, (int)cnt);
        for (int32_t i = 0; i < cnt; i++)
            axes[i] = a[i];
        *n = cnt;
        return KN_OK;
    }
    const kn_tensor *t = kn_input(k, 1);
    if (!t)
        return KN_OK;
    if (t->dtype != KN_INT64 && t->dtype != KN_INT32)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: input 'axes' must be int64, not %s", op,
                       kn_dtype_name(t->dtype));
    if (t->rank > 1)
        return kn_fail(k->err, KN_ERR_SHAPE, "%s: input 'axes' must be 1-D, not rank %d", op,
                       (int)t->rank);
    int64_t cnt = kn_tensor_numel(t);
    if (cnt == 0)
        return KN_OK;
    if (cnt < 0 || cnt > KN_MAX_RANK)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: %lld axes given, more than the rank", op,
                       (long long)cnt);
    if (!t->data)
        return kn_fail(k->err, KN_ERR_NEEDS_VALUE,
                       "%s: output shape depends on the value of input 'axes'", op);
    for (int64_t i = 0; i < cnt; i++)
        axes[i] = kn_read_int(t, i);
    *n = (int32_t)cnt;
    return KN_OK;
}

static int reduce_prepare(kn_kctx *k, int kind, int axes_input)
{
    const char *op = k->node->op_type;
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    kn_tensor *y = k->out[0];
    int32_t dt = x->dtype;
    if (!kn_convert_supported(dt) || (dt == KN_BOOL && kind != RD_MAX && kind != RD_MIN))
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: input type %s is not supported", op,
                       kn_dtype_name(dt));
    int64_t axes[KN_MAX_RANK];
    int32_t n_axes = 0, norm[KN_MAX_RANK];
    if (reduce_axes(k, axes_input, axes, &n_axes) != KN_OK)
        return k->err->code;
    if (kn_norm_axes(k, axes, n_axes, x->rank, 1, norm) != KN_OK)
        return k->err->code;

    reduce_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    k->state = s;
    s->kind = kind;
    s->dtype = dt;
    int noop_attr = axes_input && kn_attr_int(k->node, "noop_with_empty_axes", 0) != 0;
    if (n_axes == 0 && noop_attr) {
        s->noop = 1;
        kn_copy_desc(y, x);
        return KN_OK;
    }
    int reduced[KN_MAX_RANK] = {0};
    for (int32_t i = 0; i < x->rank; i++)
        reduced[i] = n_axes == 0;
    for (int32_t i = 0; i < n_axes; i++)
        reduced[norm[i]] = 1;
    int keepdims = kn_attr_int(k->node, "keepdims", 1) != 0;

    y->dtype = dt;
    y->rank = 0;
    s->count = 1;
    for (int32_t i = 0; i < x->rank; i++) {
        if (reduced[i])
            s->count *= x->dims[i];
        if (!reduced[i] || keepdims)
            y->dims[y->rank++] = reduced[i] ? 1 : x->dims[i];
    }
    s->empty = s->count == 0;

    /* Groups: size-1 dims dropped, neighbours of the same kind merged. A
     * dense layout always merges: the outer dim's stride is the product of
     * the inner dims. */
    int64_t gdims[KN_MAX_RANK], gstrides[KN_MAX_RANK], stride = 1;
    int gred[KN_MAX_RANK];
    int32_t ng = 0;
    for (int32_t i = x->rank - 1; i >= 0; i--) {
        int64_t d = x->dims[i];
        if (d == 1 || (d == 0 && reduced[i]))
            continue; /* an empty reduced dim is s->empty; others merge freely */
        if (ng > 0 && gred[ng - 1] == reduced[i]) {
            gdims[ng - 1] *= d;
        } else {
            gdims[ng] = d, gstrides[ng] = stride, gred[ng] = reduced[i];
            ng++;
        }
        stride *= d;
    }
    if (ng == 0)
        gdims[0] = 1, gstrides[0] = 1, gred[0] = 0, ng = 1;
    /* gdims is innermost first; the engine wants outermost first. */
    s->last_reduced = gred[0];
    s->inner = gdims[0];
    s->combos = 1;
    for (int32_t g = ng - 1; g >= 1; g--) {
        if (gred[g]) {
            s->red_dims[s->n_red] = gdims[g];
            s->red_strides[s->n_red++] = gstrides[g];
            s->combos *= gdims[g];
        } else {
            s->kept_dims[s->n_kept] = gdims[g];
            s->kept_strides[s->n_kept++] = gstrides[g];
        }
    }
    int64_t outer = 1;
    for (int32_t g = 0; g < s->n_kept; g++)
        outer *= s->kept_dims[g];
    if (s->last_reduced) {
        s->units = outer;
    } else {
        s->chunks = (s->inner + RD_CHUNK - 1) / RD_CHUNK;
        s->units = s->inner == 0 ? 0 : outer * s->chunks;
    }

    int is_f = is_float_dtype(dt);
    s->use_int = !is_f && kind != RD_MEAN && kind != RD_L2 && kind != RD_LOGSUM &&
                 kind != RD_LOGSUMEXP;
    s->flip = dt == KN_UINT64 && (kind == RD_MAX || kind == RD_MIN);
    s->no_abs = dt == KN_BOOL || dt == KN_UINT8 || dt == KN_UINT16 || dt == KN_UINT32 ||
                dt == KN_UINT64;
    int64_t lo, hi;
    int_limits(dt, &lo, &hi);
    switch (kind) {
    case RD_PROD: s->init_i = 1, s->init_d = 1; break;
    case RD_MAX: s->init_i = lo, s->init_d = is_f ? -INFINITY : (double)lo; break;
    case RD_MIN: s->init_i = hi, s->init_d = is_f ? INFINITY : (double)hi; break;
    default: s->init_i = 0, s->init_d = 0; break;
    }
    s->vec_sum = dt == KN_FLOAT && (kind == RD_SUM || kind == RD_MEAN) && s->last_reduced &&
                 s->combos == 1 && !s->empty && !s->noop;
    return KN_OK;
}

static int reduce_run(kn_kctx *k)
{
    const reduce_state *s = k->state;
    const kn_tensor *x = k->in[0];
    kn_tensor *y = k->out[0];
    if (s->noop) {
        int64_t n = kn_tensor_numel(x);
        if (n > 0 && y->data != x->data)
            memcpy(y->data, x->data, (size_t)kn_tensor_nbytes(x));
        return KN_OK;
    }
    if (s->units <= 0)
        return KN_OK;
    reduce_job j = {s, x->data, y->data};
    int64_t per_unit = (s->empty ? 1 : s->combos) * (s->last_reduced ? s->inner : RD_CHUNK);
    kn_parallel_for(k->threads, s->units, 1 + KN_GRAIN / (per_unit > 0 ? per_unit : 1), reduce_range,
                    &j);
    return KN_OK;
}

static void reduce_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

/* Each op has two entries: axes as an attribute (up to opset 17; ReduceSum
 * up to 12) and axes as an optional input with noop_with_empty_axes. */
#define REDUCE_OP(NAME, KIND, SPLIT, MASK)                                                         \
    static int NAME##_prepare_attr(kn_kctx *k) { return reduce_prepare(k, KIND, 0); }              \
    static int NAME##_prepare_input(kn_kctx *k) { return reduce_prepare(k, KIND, 1); }             \
    const kn_op_def kn_op_##NAME##_1 = { \
    .op_type = #NAME, .since_version = 1, .until_version = SPLIT - 1, .dtypes = MASK, \
    .prepare = NAME##_prepare_attr, .run = reduce_run, .release = reduce_release \
};          \
    const kn_op_def kn_op_##NAME##_##SPLIT = { \
    .op_type = #NAME, .since_version = SPLIT, .dtypes = MASK, .prepare = NAME##_prepare_input, \
    .run = reduce_run, .release = reduce_release \
};

#define RD_MASK (KN_MASK_NUMERIC | KN_MASK_HALF)

REDUCE_OP(ReduceSum, RD_SUM, 13, RD_MASK)
REDUCE_OP(ReduceMean, RD_MEAN, 18, RD_MASK)
REDUCE_OP(ReduceProd, RD_PROD, 18, RD_MASK)
REDUCE_OP(ReduceMax, RD_MAX, 18, RD_MASK | KN_BIT(KN_BOOL))
REDUCE_OP(ReduceMin, RD_MIN, 18, RD_MASK | KN_BIT(KN_BOOL))
REDUCE_OP(ReduceL1, RD_L1, 18, RD_MASK)
REDUCE_OP(ReduceL2, RD_L2, 18, RD_MASK)
REDUCE_OP(ReduceLogSum, RD_LOGSUM, 18, RD_MASK)
REDUCE_OP(ReduceLogSumExp, RD_LOGSUMEXP, 18, RD_MASK)
REDUCE_OP(ReduceSumSquare, RD_SUMSQUARE, 18, RD_MASK)
