/* Normalisations over contiguous rows: LayerNormalization (17),
 * RMSNormalization (23), InstanceNormalization (1, 6) and
 * GroupNormalization (18, 21).
 *
 * Each one standardises rows of M contiguous elements and then applies a
 * scale and a bias:
 *  - Layer/RMS: rows are the dims before `axis`, M the product of the rest;
 *  - Group: rows are (n, group), M = C/G channels times the spatial size;
 *  - Instance: Group with one channel per group.
 * The per-element scale index is (row % G) * cpg + (i / div) % mod, which
 * covers per-channel (Instance, Group-21), per-group (Group-18) and any
 * scale broadcast over the normalised dims that is one contiguous block
 * (Layer/RMS: full, scalar, leading or trailing ones). It is walked in
 * blocks of `div` elements sharing one scale, so no division per element.
 *
 * Math is in double: each task converts a row into its own slot of scratch
 * (one slot per thread, rows split evenly), standardises it there (mean,
 * then variance of the differences: two passes, no cancellation), applies
 * the affine step and converts back. Scale and bias are converted to double
 * once per run, also into scratch. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/simd/kernels.h"
#include "core/cpu/reduce/reduce_common.h"
#include "core/kernel/tensor_common.h"

enum { NORM_LAYER, NORM_RMS, NORM_INSTANCE, NORM_GROUP };

/* Where element i of row r finds its scale (or bias). */
typedef struct affine_map {
    int64_t g, cpg, div, mod;
} affine_map;

typedef struct norm_state {
    int kind;
    int32_t dtype, stat_dtype;
    double eps;
    int64_t rows, m;
    affine_map scale_map, bias_map;
    int64_t scale_n, bias_n; /* elements; bias_n 0 = no bias */
    int full_affine;         /* scale (and bias) index = element index */
    int32_t tasks;
} norm_state;

/* Maps a scale of shape w onto normalised dims nd[0..nr) (unidirectional
 * broadcast, right-aligned). Supported when the dims from w's first non-1
 * dim to its last match the normalised dims exactly, so the scale index is
 * (i / div) % mod. */
static int broadcast_map(kn_kctx *k, const char *what, const kn_tensor *w, const int64_t *nd,
                         int32_t nr, affine_map *map)
{
    const char *op = k->node->op_type;
    if (w->rank > nr)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED,
                       "%s: %s has rank %d, more than the %d normalised dims", op, what,
                       (int)w->rank, (int)nr);
    int64_t wd[KN_MAX_RANK];
    int32_t first = -1, last = -1;
    for (int32_t i = 0; i < nr; i++) {
        int32_t wi = i - (nr - w->rank);
        wd[i] = wi >= 0 ? w->dims[wi] : 1;
        if (wd[i] != 1 && wd[i] != nd[i])
            return kn_fail(k->err, KN_ERR_SHAPE, "%s: %s dim %d is %lld, expected 1 or %lld", op,
                           what, (int)wi, (long long)wd[i], (long long)nd[i]);
        if (wd[i] != 1) {
            first = first < 0 ? i : first;
            last = i;
        }
    }
    for (int32_t i = first + 1; first >= 0 && i < last; i++)
        if (wd[i] != nd[i])
            return kn_fail(k->err, KN_ERR_UNSUPPORTED,
                           "%s: %s broadcasts inside the normalised dims, which is not supported",
                           op, what);
    map->g = 1, map->cpg = 0, map->div = 1, map->mod = 1;
    for (int32_t i = last + 1; first >= 0 && i < nr; i++)
        map->div *= nd[i];
    for (int32_t i = first; first >= 0 && i <= last; i++)
        map->mod *= nd[i];
    return KN_OK;
}

static int is_float(int32_t dt)
{
    return dt == KN_FLOAT || dt == KN_DOUBLE || dt == KN_FLOAT16 || dt == KN_BFLOAT16;
}

/* Mean and InvStdDev have the stash type (float by default). The math
 * itself always runs in double, at least as precise as any stash type. */
static int stash_dtype(kn_kctx *k)
{
    int64_t st = kn_attr_int(k->node, "stash_type", KN_FLOAT);
    return is_float((int32_t)st) ? (int32_t)st : KN_FLOAT;
}

static int norm_prepare(kn_kctx *k, int kind)
{
    const char *op = k->node->op_type;
    int n_req = kind == NORM_RMS || kind == NORM_LAYER ? 2 : 3;
    if (kn_need_inputs(k, n_req) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0], *scale = k->in[1], *bias = kn_input(k, 2);
    if (kind == NORM_RMS)
        bias = NULL;
    if (!is_float(x->dtype))
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: input type %s is not supported", op,
                       kn_dtype_name(x->dtype));
    if (!is_float(scale->dtype) || (bias && !is_float(bias->dtype)))
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: scale and bias must be floating point", op);
    norm_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    k->state = s;
    s->kind = kind;
    s->dtype = x->dtype;
    s->eps = kn_attr_float(k->node, "epsilon", 1e-5f);
    s->scale_n = kn_tensor_numel(scale);
    s->bias_n = bias ? kn_tensor_numel(bias) : 0;

    if (kind == NORM_LAYER || kind == NORM_RMS) {
        int64_t a = kn_attr_int(k->node, "axis", -1);
        if (a < -(int64_t)x->rank || a > x->rank)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: axis %lld out of range for rank %d",
                           op, (long long)a, (int)x->rank);
        int32_t axis = (int32_t)(a < 0 ? a + x->rank : a);
        s->rows = kn_shape_numel(x->dims, axis);
        s->m = kn_shape_numel(x->dims + axis, x->rank - axis);
        if (broadcast_map(k, "scale", scale, x->dims + axis, x->rank - axis, &s->scale_map) ||
            (bias && broadcast_map(k, "bias", bias, x->dims + axis, x->rank - axis, &s->bias_map)))
            return k->err->code;
        s->stat_dtype = stash_dtype(k);
        for (int32_t i = 1; i < 3 && kind == NORM_LAYER; i++) {
            kn_tensor *o = kn_output(k, i);
            if (!o)
                continue;
            o->dtype = s->stat_dtype;
            o->rank = x->rank;
            for (int32_t d = 0; d < x->rank; d++)
                o->dims[d] = d < axis ? x->dims[d] : 1;
        }
    } else {
        if (x->rank < 2)
            return kn_fail(k->err, KN_ERR_SHAPE, "%s: input must be (N, C, ...), got rank %d", op,
                           (int)x->rank);
        int64_t c = x->dims[1], spatial = kn_shape_numel(x->dims + 2, x->rank - 2);
        int64_t g = kind == NORM_INSTANCE ? c : kn_attr_int(k->node, "num_groups", 0);
        if (g <= 0 || (c > 0 && c % g != 0))
            return kn_fail(k->err, KN_ERR_INVALID_MODEL,
                           "%s: num_groups %lld must be positive and divide C=%lld", op,
                           (long long)g, (long long)c);
        /* GroupNormalization-18 scales per group, every other case per channel. */
        int per_group = kind == NORM_GROUP && k->opset < 21;
        int64_t want = per_group ? g : c;
        if (scale->rank != 1 || scale->dims[0] != want || bias->rank != 1 || bias->dims[0] != want)
            return kn_fail(k->err, KN_ERR_SHAPE, "%s: scale and bias must be 1-D with %lld values",
                           op, (long long)want);
        s->rows = x->dims[0] * g;
        s->m = (c / g) * spatial;
        affine_map map = {g, per_group ? 1 : c / g, per_group ? s->m : spatial,
                          per_group ? 1 : c / g};
        if (map.div == 0)
            map.div = 1;
        s->scale_map = s->bias_map = map;
    }
    s->full_affine = s->scale_map.div == 1 && s->scale_map.mod == s->m && s->scale_map.cpg == 0 &&
                     (!bias || (s->bias_map.div == 1 && s->bias_map.mod == s->m &&
                                s->bias_map.cpg == 0));
    kn_copy_desc(k->out[0], x);
    int32_t threads = kn_threadpool_threads(k->threads);
    s->tasks = s->rows < threads ? (int32_t)(s->rows > 0 ? s->rows : 1) : threads;
    k->scratch_bytes = ((size_t)s->tasks * (size_t)s->m + (size_t)s->scale_n + (size_t)s->bias_n) *
                       sizeof(double);
    return KN_OK;
}

typedef struct norm_job {
    const norm_state *s;
    const char *x;
    char *y;
    void *mean, *inv; /* LayerNorm's optional outputs */
    const double *scale, *bias;
    double *rows;     /* one row of M doubles per task */
    const float *fscale, *fbias; /* set: float LayerNorm on the vector kernel */
} norm_job;

/* z[i] *= w[idx] (or += when add) over one row. With div 1 the index runs
 * 0..mod-1 repeatedly: whole runs line up with w (vectorises); otherwise
 * blocks of div elements share one weight. */
static void apply_affine(double *z, int64_t m, int64_t row, const double *w, const affine_map *map,
                         int add)
{
    const double *wr = w + (row % map->g) * map->cpg;
    if (map->div == 1) {
        for (int64_t i0 = 0; i0 < m; i0 += map->mod) {
            int64_t n = m - i0 < map->mod ? m - i0 : map->mod;
            double *zz = z + i0;
            if (add)
                for (int64_t t = 0; t < n; t++)
                    zz[t] += wr[t];
            else
                for (int64_t t = 0; t < n; t++)
                    zz[t] *= wr[t];
        }
        return;
    }
    int64_t j = 0;
    for (int64_t i0 = 0; i0 < m; i0 += map->div) {
        double v = wr[j];
        int64_t end = i0 + map->div < m ? i0 + map->div : m;
        if (add)
            for (int64_t i = i0; i < end; i++)
                z[i] += v;
        else
            for (int64_t i = i0; i < end; i++)
                z[i] *= v;
        if (++j == map->mod)
            j = 0;
    }
}

/* Row sums run in four lanes so the additions do not form one dependent
 * chain (a serial FP sum runs at one add per latency); the order is fixed,
 * so results do not depend on threads. */
static double row_sum(const double *z, int64_t m)
{
    double l[4] = {0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 4 <= m; i += 4)
        for (int t = 0; t < 4; t++)
            l[t] += z[i + t];
    for (; i < m; i++)
        l[0] += z[i];
    return (l[0] + l[1]) + (l[2] + l[3]);
}

/* z[i] -= mean, returning the sum of the squared results. */
static double row_center_sumsq(double *z, int64_t m, double mean)
{
    double l[4] = {0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 4 <= m; i += 4)
        for (int t = 0; t < 4; t++) {
            double v = z[i + t] - mean;
            z[i + t] = v;
            l[t] += v * v;
        }
    for (; i < m; i++) {
        double v = z[i] - mean;
        z[i] = v;
        l[0] += v * v;
    }
    return (l[0] + l[1]) + (l[2] + l[3]);
}

static void norm_task(void *ctx, int64_t begin, int64_t end)
{
    const norm_job *jb = ctx;
    const norm_state *s = jb->s;
    size_t es = kn_dtype_size(s->dtype);
    if (jb->fscale) {
        /* float rows with one weight per element: float statistics are
         * enough for these row lengths and keep the data in vectors */
        const kn_simd_kernels *ks = kn_simd();
        int64_t r0 = s->rows * begin / s->tasks, r1 = s->rows * end / s->tasks;
        for (int64_t r = r0; r < r1; r++)
            ks->layernorm_row((float *)jb->y + r * s->m, (const float *)jb->x + r * s->m, s->m,
                              jb->fscale, jb->fbias, (float)s->eps,
                              jb->mean ? (float *)jb->mean + r : NULL,
                              jb->inv ? (float *)jb->inv + r : NULL);
        return;
    }
    for (int64_t t = begin; t < end; t++) {
        double *z = jb->rows + t * s->m;
        int64_t r0 = s->rows * t / s->tasks, r1 = s->rows * (t + 1) / s->tasks;
        for (int64_t r = r0; r < r1; r++) {
            rd_to_f64(s->dtype, jb->x + (size_t)(r * s->m) * es, z, s->m);
            /* RMSNormalization: no centring, var is the mean square */
            double mean = s->kind == NORM_RMS ? 0 : row_sum(z, s->m) / (double)s->m;
            double var = row_center_sumsq(z, s->m, mean) / (double)s->m;
            double inv = 1.0 / sqrt(var + s->eps);
            if (s->full_affine) {
                /* one weight per element of the row (LayerNorm's usual case) */
                const double *w = jb->scale, *b = jb->bias;
                if (s->bias_n)
                    for (int64_t i = 0; i < s->m; i++)
                        z[i] = z[i] * inv * w[i] + b[i];
                else
                    for (int64_t i = 0; i < s->m; i++)
                        z[i] = z[i] * inv * w[i];
            } else {
                for (int64_t i = 0; i < s->m; i++)
                    z[i] *= inv;
                apply_affine(z, s->m, r, jb->scale, &s->scale_map, 0);
                if (s->bias_n)
                    apply_affine(z, s->m, r, jb->bias, &s->bias_map, 1);
            }
            rd_from_f64(s->dtype, z, jb->y + (size_t)(r * s->m) * es, s->m);
            if (jb->mean)
                kn_convert(KN_DOUBLE, &mean, s->stat_dtype,
                           (char *)jb->mean + (size_t)r * kn_dtype_size(s->stat_dtype), 1);
            if (jb->inv)
                kn_convert(KN_DOUBLE, &inv, s->stat_dtype,
                           (char *)jb->inv + (size_t)r * kn_dtype_size(s->stat_dtype), 1);
        }
    }
}

static int norm_run(kn_kctx *k)
{
    const norm_state *s = k->state;
    if (s->rows <= 0)
        return KN_OK;
    double *scratch = k->scratch;
    double *scale = scratch + (size_t)s->tasks * (size_t)s->m, *bias = scale + s->scale_n;
    kn_convert(k->in[1]->dtype, k->in[1]->data, KN_DOUBLE, scale, s->scale_n);
    if (s->bias_n)
        kn_convert(k->in[2]->dtype, k->in[2]->data, KN_DOUBLE, bias, s->bias_n);
    kn_tensor *mean = s->kind == NORM_LAYER ? kn_output(k, 1) : NULL;
    kn_tensor *inv = s->kind == NORM_LAYER ? kn_output(k, 2) : NULL;
    norm_job j = {s, k->in[0]->data, k->out[0]->data, mean ? mean->data : NULL,
                  inv ? inv->data : NULL, scale, bias, scratch, NULL, NULL};
    if (s->m == 0) {
        /* Empty rows: the statistics are NaN (0/0), there is nothing to scale. */
        double nan = NAN;
        for (int64_t r = 0; r < s->rows; r++) {
            if (j.mean)
                kn_convert(KN_DOUBLE, &nan, s->stat_dtype,
                           (char *)j.mean + (size_t)r * kn_dtype_size(s->stat_dtype), 1);
            if (j.inv)
                kn_convert(KN_DOUBLE, &nan, s->stat_dtype,
                           (char *)j.inv + (size_t)r * kn_dtype_size(s->stat_dtype), 1);
        }
        return KN_OK;
    }
    if (s->kind == NORM_LAYER && s->dtype == KN_FLOAT && s->full_affine &&
        s->stat_dtype == KN_FLOAT && k->in[1]->dtype == KN_FLOAT &&
        (!s->bias_n || k->in[2]->dtype == KN_FLOAT)) {
        j.fscale = k->in[1]->data;
        j.fbias = s->bias_n ? k->in[2]->data : NULL;
    }
    kn_parallel_for(k->threads, s->tasks, 1, norm_task, &j);
    return KN_OK;
}

static void norm_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

static int layer_prepare(kn_kctx *k) { return norm_prepare(k, NORM_LAYER); }
static int rms_prepare(kn_kctx *k) { return norm_prepare(k, NORM_RMS); }
static int instance_prepare(kn_kctx *k) { return norm_prepare(k, NORM_INSTANCE); }
static int group_prepare(kn_kctx *k) { return norm_prepare(k, NORM_GROUP); }

#define NORM_MASK (KN_MASK_FLOATS | KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16))
#define NORM_OP(NAME, OP, FROM, PREPARE)                                                           \
    const kn_op_def NAME = { \
    .op_type = OP, .since_version = FROM, .dtypes = NORM_MASK, .prepare = PREPARE, \
    .run = norm_run, .release = norm_release \
};
NORM_OP(kn_op_LayerNormalization, "LayerNormalization", 17, layer_prepare)
NORM_OP(kn_op_RMSNormalization, "RMSNormalization", 23, rms_prepare)
NORM_OP(kn_op_InstanceNormalization, "InstanceNormalization", 1, instance_prepare)
NORM_OP(kn_op_GroupNormalization, "GroupNormalization", 18, group_prepare)
