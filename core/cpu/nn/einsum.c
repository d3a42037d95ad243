/* Einsum (opset 12+): Einstein summation over any number of operands, with
 * implicit ("ij,jk") or explicit ("ij,jk->ik") output, ellipsis ("...")
 * broadcasting, repeated labels (diagonals, traces) and summed labels.
 *
 * prepare() parses the equation once into labels: every label gets a size
 * and, per operand, an element stride (the sum of the strides of the dims
 * carrying it, which is what makes "ii" a diagonal; 0 where a size-1 dim
 * broadcasts). The output is then
 *
 *     out[output labels] = sum over summed labels of prod_i in_i[...]
 *
 * Two ways to run it:
 *  - a contraction of two float/double operands whose every label is
 *    shared or kept (batch / M / N / K labels) becomes batched GEMM: both
 *    operands are gathered into dense [batch, M, K] and [batch, K, N]
 *    blocks with the strided copy engine, multiplied with kn_gemm, and the
 *    [batch, M, N] result is copied into the output's label order;
 *  - anything else runs a direct loop: each output element walks the
 *    summed labels with per-operand strides (double accumulation for
 *    floating types, wrapping 64-bit for integers).
 * float16/bfloat16 are staged through float copies in scratch. */
#include <stdlib.h>
#include <string.h>

#include "core/base/alloc.h"
#include "core/simd/gemm.h"
#include "core/kernel/tensor_common.h"

#define EIN_MAX_IN 16
#define EIN_LETTERS 52 /* 'A'-'Z' then 'a'-'z': ASCII order, as implicit output sorts */
#define EIN_LABELS (EIN_LETTERS + KN_MAX_RANK) /* then one label per ellipsis dim */

typedef struct ein_state {
    int32_t dtype, cdtype; /* input dtype; compute dtype (float for halves) */
    int32_t n_in;
    int64_t size[EIN_LABELS];
    int64_t stride[EIN_MAX_IN][EIN_LABELS];
    int32_t out_labels[KN_MAX_RANK], n_out;
    int32_t sum_labels[EIN_LABELS], n_sum;
    int64_t out_numel, sum_count;
    int64_t in_numel[EIN_MAX_IN];
    /* GEMM path */
    int gemm;
    int64_t batch, m, n, k;
    kn_strided_plan pack_a, pack_b, unpack;
    size_t off_a, off_b, off_c, off_ws, ws_bytes;
    /* halves: float staging of each input and of the output */
    size_t off_stage[EIN_MAX_IN], off_stage_out;
    size_t scratch;
} ein_state;

static int label_id(char ch)
{
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A';
    if (ch >= 'a' && ch <= 'z')
        return 26 + (ch - 'a');
    return -1;
}

/* kn_fail for parse_term, whose successful results are counts: -1. */
#define term_fail(...) (kn_fail(__VA_ARGS__), -1)

/* Parses one term (no spaces) into label ids per dim of an operand of
 * rank `rank`; ellipsis dims become labels EIN_LETTERS + (E - e) .. where E
 * is the widest ellipsis. Returns the number of ellipsis dims in *ell, or
 * -1 in *ell if the term has no ellipsis. Returns the dims parsed (the
 * letters, for the output term) or -1 after setting the error. */
static int parse_term(kn_kctx *k, const char *t, size_t len, int32_t rank, int32_t *labels,
                      int32_t *ell)
{
    int32_t letters = 0, ell_at = -1;
    for (size_t i = 0; i < len; i++) {
        if (t[i] == '.') {
            if (ell_at >= 0 || i + 2 >= len || t[i + 1] != '.' || t[i + 2] != '.')
                return term_fail(k->err, KN_ERR_INVALID_MODEL,
                               "Einsum: malformed ellipsis in term '%.*s'", (int)len, t);
            ell_at = letters;
            i += 2;
        } else if (label_id(t[i]) >= 0) {
            if (letters >= KN_MAX_RANK)
                return term_fail(k->err, KN_ERR_INVALID_MODEL, "Einsum: term '%.*s' is too long",
                               (int)len, t);
            labels[letters++] = label_id(t[i]);
        } else {
            return term_fail(k->err, KN_ERR_INVALID_MODEL, "Einsum: bad character '%c' in equation",
                           t[i]);
        }
    }
    if (rank < 0) { /* the output term: rank not known */
        *ell = ell_at < 0 ? -1 : ell_at;
        return letters;
    }
    int32_t e = rank - letters;
    if ((ell_at < 0 && e != 0) || e < 0)
        return term_fail(k->err, KN_ERR_SHAPE,
                         "Einsum: term '%.*s' has %d labels but its operand has rank %d",
                         (int)len, t, (int)letters, (int)rank);
    if (ell_at >= 0) {
        memmove(labels + ell_at + e, labels + ell_at, sizeof(int32_t) * (size_t)(letters - ell_at));
        for (int32_t i = 0; i < e; i++)
            labels[ell_at + i] = -2 - i; /* placeholder: i-th ellipsis dim of this operand */
    }
    *ell = ell_at < 0 ? -1 : e;
    return rank;
}

/* Plans the GEMM path; returns 0 (use the loop) when it does not apply. */
static int plan_gemm(ein_state *s, const int *in_a, const int *in_b, const int *in_out,
                     int32_t threads)
{
    if (s->n_in != 2 || (s->cdtype != KN_FLOAT && s->cdtype != KN_DOUBLE))
        return 0;
    int32_t bl[EIN_LABELS], ml[EIN_LABELS], nl[EIN_LABELS], kl[EIN_LABELS];
    int32_t nb = 0, nm = 0, nn = 0, nk = 0;
    for (int32_t l = 0; l < EIN_LABELS; l++) {
        if (!in_a[l] && !in_b[l])
            continue;
        if (in_a[l] && in_b[l] && in_out[l])
            bl[nb++] = l;
        else if (in_a[l] && in_b[l])
            kl[nk++] = l;
        else if (!in_out[l])
            return 0; /* summed inside one operand: the loop handles it */
        else if (in_a[l])
            ml[nm++] = l;
        else
            nl[nn++] = l;
    }
    int64_t dims[KN_STRIDED_MAX_RANK], sa[KN_STRIDED_MAX_RANK], sb[KN_STRIDED_MAX_RANK];
    int32_t r = 0;
    s->batch = s->m = s->n = s->k = 1;
    /* A as [batch..., m..., k...] */
    for (int32_t i = 0; i < nb; i++, r++)
        dims[r] = s->size[bl[i]], sa[r] = s->stride[0][bl[i]], s->batch *= dims[r];
    for (int32_t i = 0; i < nm; i++, r++)
        dims[r] = s->size[ml[i]], sa[r] = s->stride[0][ml[i]], s->m *= dims[r];
    for (int32_t i = 0; i < nk; i++, r++)
        dims[r] = s->size[kl[i]], sa[r] = s->stride[0][kl[i]], s->k *= dims[r];
    size_t es = kn_dtype_size(s->cdtype);
    kn_strided_init(&s->pack_a, es, r, dims, sa, 0);
    /* B as [batch..., k..., n...] */
    r = 0;
    for (int32_t i = 0; i < nb; i++, r++)
        dims[r] = s->size[bl[i]], sb[r] = s->stride[1][bl[i]];
    for (int32_t i = 0; i < nk; i++, r++)
        dims[r] = s->size[kl[i]], sb[r] = s->stride[1][kl[i]];
    for (int32_t i = 0; i < nn; i++, r++)
        dims[r] = s->size[nl[i]], sb[r] = s->stride[1][nl[i]], s->n *= dims[r];
    kn_strided_init(&s->pack_b, es, r, dims, sb, 0);
    /* C = [batch..., m..., n...] dense; the output reads it in its own order. */
    int64_t cstride[EIN_LABELS] = {0}, st = 1;
    for (int32_t i = nn - 1; i >= 0; i--)
        cstride[nl[i]] = st, st *= s->size[nl[i]];
    for (int32_t i = nm - 1; i >= 0; i--)
        cstride[ml[i]] = st, st *= s->size[ml[i]];
    for (int32_t i = nb - 1; i >= 0; i--)
        cstride[bl[i]] = st, st *= s->size[bl[i]];
    int64_t od[KN_MAX_RANK], os[KN_MAX_RANK];
    for (int32_t i = 0; i < s->n_out; i++)
        od[i] = s->size[s->out_labels[i]], os[i] = cstride[s->out_labels[i]];
    kn_strided_init(&s->unpack, es, s->n_out, od, os, 0);
    s->ws_bytes = kn_gemm_workspace_size(s->cdtype, s->m, s->n, s->k, threads);
    return 1;
}

static size_t take(size_t *at, size_t bytes)
{
    size_t off = *at;
    *at += kn_align_up(bytes, 64);
    return off;
}

static int ein_prepare(kn_kctx *k)
{
    const char *eq = kn_attr_string(k->node, "equation", NULL);
    if (!eq)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Einsum: attribute 'equation' is required");
    if (k->n_in < 1 || k->n_in > EIN_MAX_IN)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "Einsum: %d operands, 1 to %d supported",
                       (int)k->n_in, EIN_MAX_IN);
    if (kn_need_inputs(k, k->n_in) != KN_OK)
        return k->err->code;
    int32_t dt = k->in[0]->dtype;
    if (!kn_convert_supported(dt) || dt == KN_BOOL)
        return kn_fail(k->err, KN_ERR_DTYPE, "Einsum: input type %s is not supported",
                       kn_dtype_name(dt));
    for (int32_t i = 1; i < k->n_in; i++)
        if (k->in[i]->dtype != dt)
            return kn_fail(k->err, KN_ERR_DTYPE, "Einsum: operand %d is %s, operand 0 is %s",
                           (int)i, kn_dtype_name(k->in[i]->dtype), kn_dtype_name(dt));
    /* Drop spaces. */
    char buf[512];
    size_t len = 0;
    for (const char *p = eq; *p; p++)
        if (*p != ' ') {
            if (len + 1 >= sizeof buf)
                return kn_fail(k->err, KN_ERR_UNSUPPORTED, "Einsum: equation too long");
            buf[len++] = *p;
        }
    buf[len] = 0;
    const char *arrow = strstr(buf, "->");
    size_t lhs_len = arrow ? (size_t)(arrow - buf) : len;

    ein_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "Einsum: out of memory");
    k->state = s;
    s->dtype = dt;
    s->cdtype = dt == KN_FLOAT16 || dt == KN_BFLOAT16 ? KN_FLOAT : dt;
    s->n_in = k->n_in;
    for (int32_t l = 0; l < EIN_LABELS; l++)
        s->size[l] = -1;

    int32_t labels[EIN_MAX_IN][KN_MAX_RANK], ell[EIN_MAX_IN], max_ell = 0;
    int count[EIN_LABELS] = {0}, in_op[EIN_MAX_IN][EIN_LABELS];
    memset(in_op, 0, sizeof in_op);
    size_t start = 0;
    for (int32_t i = 0; i < s->n_in; i++) {
        size_t end = start;
        while (end < lhs_len && buf[end] != ',')
            end++;
        if ((i < s->n_in - 1) != (end < lhs_len))
            return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                           "Einsum: equation '%s' does not have one term per operand (%d)", eq,
                           (int)s->n_in);
        if (parse_term(k, buf + start, end - start, k->in[i]->rank, labels[i], &ell[i]) < 0)
            return k->err->code;
        if (ell[i] > max_ell)
            max_ell = ell[i];
        start = end + 1;
    }
    /* Sizes and strides; ellipsis dims right-aligned across operands. */
    for (int32_t i = 0; i < s->n_in; i++) {
        const kn_tensor *t = k->in[i];
        int64_t dst[KN_MAX_RANK];
        kn_dense_strides(t->dims, t->rank, dst);
        s->in_numel[i] = kn_tensor_numel(t);
        for (int32_t d = 0; d < t->rank; d++) {
            int32_t l = labels[i][d];
            if (l <= -2)
                l = labels[i][d] = EIN_LETTERS + (max_ell - ell[i]) + (-2 - l);
            int64_t n = t->dims[d];
            if (s->size[l] < 0 || s->size[l] == 1)
                s->size[l] = n;
            else if (n != s->size[l] && n != 1)
                return kn_fail(k->err, KN_ERR_SHAPE,
                               "Einsum: a label has size %lld in operand %d but %lld elsewhere",
                               (long long)n, (int)i, (long long)s->size[l]);
            count[l]++;
            in_op[i][l] = 1;
        }
    }
    /* Strides once sizes are final: a size-1 dim under a larger label broadcasts. */
    for (int32_t i = 0; i < s->n_in; i++) {
        const kn_tensor *t = k->in[i];
        int64_t dst[KN_MAX_RANK];
        kn_dense_strides(t->dims, t->rank, dst);
        for (int32_t d = 0; d < t->rank; d++)
            if (!(t->dims[d] == 1 && s->size[labels[i][d]] != 1))
                s->stride[i][labels[i][d]] += dst[d];
    }
    /* Output labels. */
    int in_out[EIN_LABELS] = {0};
    if (arrow) {
        int32_t ol[KN_MAX_RANK], oell;
        const char *o = arrow + 2;
        int32_t n = parse_term(k, o, strlen(o), -1, ol, &oell);
        if (n < 0)
            return k->err->code;
        for (int32_t i = 0; i < n + (oell >= 0 ? max_ell : 0); i++) {
            int32_t l;
            if (oell >= 0 && i >= oell && i < oell + max_ell)
                l = EIN_LETTERS + (i - oell);
            else
                l = ol[oell >= 0 && i >= oell ? i - max_ell : i];
            if (s->n_out >= KN_MAX_RANK || in_out[l] || (l < EIN_LETTERS && !count[l]))
                return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                               "Einsum: output of '%s' repeats a label, names one no operand has, "
                               "or is too long", eq);
            in_out[l] = 1;
            s->out_labels[s->n_out++] = l;
        }
    } else {
        for (int32_t l = EIN_LETTERS; l < EIN_LETTERS + max_ell; l++)
            in_out[l] = 1, s->out_labels[s->n_out++] = l;
        for (int32_t l = 0; l < EIN_LETTERS; l++)
            if (count[l] == 1) {
                if (s->n_out >= KN_MAX_RANK)
                    return kn_fail(k->err, KN_ERR_UNSUPPORTED, "Einsum: output rank above %d",
                                   KN_MAX_RANK);
                in_out[l] = 1, s->out_labels[s->n_out++] = l;
            }
    }
    s->sum_count = 1;
    for (int32_t l = 0; l < EIN_LABELS; l++)
        if (count[l] && !in_out[l]) {
            s->sum_labels[s->n_sum++] = l;
            s->sum_count *= s->size[l];
        }
    /* Work is out_numel * sum_count products: refuse what could not finish
     * (and whose counts would overflow) instead of hanging. */
    double work = 1;
    for (int32_t l = 0; l < EIN_LABELS; l++)
        if (count[l])
            work *= (double)s->size[l];
    if (work > 0x1p50)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED,
                       "Einsum: '%s' needs %.3g multiply-adds, more than supported", eq, work);
    kn_tensor *y = k->out[0];
    y->dtype = dt;
    y->rank = s->n_out;
    for (int32_t i = 0; i < s->n_out; i++)
        y->dims[i] = s->size[s->out_labels[i]];
    s->out_numel = kn_tensor_numel(y);

    /* Scratch: float staging for halves, then the GEMM blocks. */
    size_t at = 0;
    if (s->cdtype != s->dtype) {
        for (int32_t i = 0; i < s->n_in; i++)
            s->off_stage[i] = take(&at, (size_t)s->in_numel[i] * sizeof(float));
        s->off_stage_out = take(&at, (size_t)s->out_numel * sizeof(float));
    }
    if (s->out_numel > 0 && s->sum_count > 0 &&
        plan_gemm(s, in_op[0], in_op[1], in_out, kn_threadpool_threads(k->threads))) {
        size_t es = kn_dtype_size(s->cdtype);
        s->gemm = 1;
        s->off_a = take(&at, (size_t)(s->batch * s->m * s->k) * es);
        s->off_b = take(&at, (size_t)(s->batch * s->k * s->n) * es);
        s->off_c = take(&at, (size_t)(s->batch * s->m * s->n) * es);
        s->off_ws = take(&at, s->ws_bytes);
    }
    k->scratch_bytes = at;
    return KN_OK;
}

typedef struct ein_job {
    const ein_state *s;
    const void *in[EIN_MAX_IN];
    void *out;
} ein_job;

/* Accumulators: double for floating types, wrapping uint64 for integers. */
#define ACC_F double
#define ACC_S uint64_t
#define ACC_U uint64_t
#define CVT_F(v) ((double)(v))
#define CVT_S(v) ((uint64_t)(int64_t)(v))
#define CVT_U(v) ((uint64_t)(v))
#define BACK_F(T, U, v) ((T)(v))
#define BACK_S(T, U, v) ((T)(U)(v))
#define BACK_U BACK_S

#define EIN_LOOP(arg, C, DT, T, U)                                                      \
    static void ein_loop_##DT(const ein_job *j, int64_t begin, int64_t end)             \
    {                                                                                   \
        const ein_state *s = j->s;                                                      \
        T *y = j->out;                                                                  \
        for (int64_t o = begin; o < end; o++) {                                         \
            int64_t off[EIN_MAX_IN] = {0}, rest = o;                                    \
            for (int32_t d = s->n_out - 1; d >= 0; d--) {                               \
                int32_t l = s->out_labels[d];                                           \
                int64_t ix = rest % s->size[l];                                         \
                rest /= s->size[l];                                                     \
                for (int32_t i = 0; i < s->n_in; i++)                                   \
                    off[i] += ix * s->stride[i][l];                                     \
            }                                                                           \
            int64_t idx[EIN_LABELS] = {0};                                              \
            ACC_##C acc = 0;                                                            \
            for (int64_t c = 0; c < s->sum_count; c++) {                                \
                ACC_##C p = CVT_##C(((const T *)j->in[0])[off[0]]);                     \
                for (int32_t i = 1; i < s->n_in; i++)                                   \
                    p *= CVT_##C(((const T *)j->in[i])[off[i]]);                        \
                acc += p;                                                               \
                for (int32_t g = s->n_sum - 1; g >= 0; g--) { /* next summed index */   \
                    int32_t l = s->sum_labels[g];                                       \
                    for (int32_t i = 0; i < s->n_in; i++)                               \
                        off[i] += s->stride[i][l];                                      \
                    if (++idx[g] < s->size[l])                                          \
                        break;                                                          \
                    for (int32_t i = 0; i < s->n_in; i++)                               \
                        off[i] -= idx[g] * s->stride[i][l];                             \
                    idx[g] = 0;                                                         \
                }                                                                       \
            }                                                                           \
            y[o] = BACK_##C(T, U, acc);                                                 \
        }                                                                               \
    }
KN_TYPES_REAL(EIN_LOOP, _)

#define EIN_CASE(arg, C, DT, T, U)                                            \
    case DT: ein_loop_##DT(j, begin, end); break;

static void ein_range(void *ctx, int64_t begin, int64_t end)
{
    const ein_job *j = ctx;
    switch (j->s->cdtype) {
    KN_TYPES_REAL(EIN_CASE, _)
    default: break;
    }
}

static void ein_gemm(kn_kctx *k, const ein_job *j)
{
    const ein_state *s = k->state;
    char *scratch = k->scratch;
    size_t es = kn_dtype_size(s->cdtype);
    char *a = scratch + s->off_a, *b = scratch + s->off_b, *c = scratch + s->off_c;
    kn_strided_run(&s->pack_a, j->in[0], a, k->threads);
    kn_strided_run(&s->pack_b, j->in[1], b, k->threads);
    for (int64_t t = 0; t < s->batch; t++) {
        char *ct = c + (size_t)(t * s->m * s->n) * es;
        if (s->k == 0) {
            memset(ct, 0, (size_t)(s->m * s->n) * es);
            continue;
        }
        kn_gemm_args g = {0, 0, s->m, s->n, s->k, 1.0, 0.0,
                          a + (size_t)(t * s->m * s->k) * es, s->k,
                          b + (size_t)(t * s->k * s->n) * es, s->n, ct, s->n, NULL, NULL};
        kn_gemm(s->cdtype, k->threads, &g, scratch + s->off_ws, s->ws_bytes);
    }
    kn_strided_run(&s->unpack, c, j->out, k->threads);
}

static int ein_run(kn_kctx *k)
{
    const ein_state *s = k->state;
    if (s->out_numel <= 0)
        return KN_OK;
    char *scratch = k->scratch;
    int staged = s->cdtype != s->dtype;
    ein_job j = {.s = s, .out = staged ? scratch + s->off_stage_out : k->out[0]->data};
    for (int32_t i = 0; i < s->n_in; i++) {
        j.in[i] = k->in[i]->data;
        if (staged) {
            kn_convert(s->dtype, j.in[i], KN_FLOAT, scratch + s->off_stage[i], s->in_numel[i]);
            j.in[i] = scratch + s->off_stage[i];
        }
    }
    if (s->gemm)
        ein_gemm(k, &j);
    else
        kn_parallel_for(k->threads, s->out_numel, 1 + KN_GRAIN / (s->sum_count * s->n_in + 1),
                        ein_range, &j);
    if (staged)
        kn_convert(KN_FLOAT, j.out, s->dtype, k->out[0]->data, s->out_numel);
    return KN_OK;
}

static void ein_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

const kn_op_def kn_op_Einsum = {
    .op_type = "Einsum", .since_version = 12, .dtypes = KN_MASK_NUMERIC | KN_MASK_HALF,
    .prepare = ein_prepare, .run = ein_run, .release = ein_release
};
