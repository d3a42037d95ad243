/* Random ops: RandomUniform, RandomNormal, RandomUniformLike,
 * RandomNormalLike (opset 1; 22 adds bfloat16), Bernoulli (15) and
 * Multinomial (7).
 *
 * Numbers come from a counter-based generator: draw i of a run is the
 * splitmix64 output for (key, counter + i), so every element is computed
 * independently (a threaded loop gives the same values as a serial one)
 * and runs continue the stream (counter advances by the draws used). The
 * key comes from the `seed` attribute, which makes a session's sequence of
 * runs reproducible; without one it mixes the clock with the kernel's
 * address. ONNX leaves the generator to the implementation, so values
 * never match another runtime's, only their distribution does.
 *
 * Normal draws use Box-Muller on two uniforms per element; Multinomial
 * samples the softmax of each row of logits by inverse CDF. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/kernel/tensor_common.h"

#define TWO_PI 6.283185307179586476925286766559

typedef struct rng_state {
    uint64_t key, counter;
    int32_t dtype;           /* output dtype */
    double a, b;             /* low/high or mean/scale */
    int normal, bernoulli;
    int64_t sample_size;     /* Multinomial */
} rng_state;

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits, for draw number i. */
static double uniform_at(uint64_t key, uint64_t i)
{
    return (double)(mix64(key + i * 0x9E3779B97F4A7C15ull) >> 11) * 0x1.0p-53;
}

static double normal_at(uint64_t key, uint64_t i)
{
    double u1 = uniform_at(key, 2 * i), u2 = uniform_at(key, 2 * i + 1);
    return sqrt(-2.0 * log(1.0 - u1)) * cos(TWO_PI * u2);
}

static void rng_release(kn_kctx *k)
{
    free(k->state);
    k->state = NULL;
}

/* Common prepare: the key and the output dtype (dtype attribute, else
 * `dflt`), which must be in `allowed`. */
static int rng_init(kn_kctx *k, int32_t dflt, uint32_t allowed)
{
    const char *op = k->node->op_type;
    int64_t dt = kn_attr_int(k->node, "dtype", dflt);
    if (dt <= 0 || dt >= 32 || !(KN_BIT(dt) & allowed))
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: output dtype %s is not supported", op,
                       kn_dtype_name((int32_t)dt));
    rng_state *s = calloc(1, sizeof *s);
    if (!s)
        return kn_fail(k->err, KN_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    k->state = s;
    s->dtype = (int32_t)dt;
    if (kn_node_attr(k->node, "seed")) {
        float seed = kn_attr_float(k->node, "seed", 0);
        uint32_t bits;
        memcpy(&bits, &seed, sizeof bits);
        s->key = mix64(bits ^ 0x5EEDull);
    } else {
        struct timespec ts;
        timespec_get(&ts, TIME_UTC);
        s->key = mix64((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) ^
                 mix64((uint64_t)(uintptr_t)s);
    }
    return KN_OK;
}

#define MASK_RANDOM_OUT (KN_MASK_FLOATS | KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16))

/* ---- RandomUniform / RandomNormal (+Like) ---- */

static int dist_params(kn_kctx *k, int normal)
{
    rng_state *s = k->state;
    s->normal = normal;
    s->a = kn_attr_float(k->node, normal ? "mean" : "low", 0);
    s->b = kn_attr_float(k->node, normal ? "scale" : "high", 1);
    return KN_OK;
}

static int random_prepare(kn_kctx *k, int normal)
{
    int32_t n;
    const int64_t *shape = kn_attr_ints(k->node, "shape", &n);
    if (!shape && !kn_node_attr(k->node, "shape"))
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: attribute shape is required",
                       k->node->op_type);
    if (n > KN_MAX_RANK)
        return kn_fail(k->err, KN_ERR_UNSUPPORTED, "%s: rank %d exceeds %d", k->node->op_type,
                       (int)n, KN_MAX_RANK);
    if (k->n_out < 1 || !k->out[0])
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: output is missing", k->node->op_type);
    int rc = rng_init(k, KN_FLOAT, MASK_RANDOM_OUT);
    if (rc != KN_OK)
        return rc;
    kn_tensor *y = k->out[0];
    y->dtype = ((rng_state *)k->state)->dtype;
    y->rank = n;
    for (int32_t i = 0; i < n; i++) {
        if (shape[i] < 0)
            return kn_fail(k->err, KN_ERR_INVALID_MODEL, "%s: shape[%d] = %lld is negative",
                           k->node->op_type, (int)i, (long long)shape[i]);
        y->dims[i] = shape[i];
    }
    return dist_params(k, normal);
}

static int random_like_prepare(kn_kctx *k, int normal)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    int32_t dflt = (KN_BIT(x->dtype) & MASK_RANDOM_OUT) ? x->dtype : KN_UNDEFINED;
    if (!kn_node_attr(k->node, "dtype") && !dflt)
        return kn_fail(k->err, KN_ERR_DTYPE, "%s: input is %s; give a float dtype attribute",
                       k->node->op_type, kn_dtype_name(x->dtype));
    int rc = rng_init(k, dflt, MASK_RANDOM_OUT);
    if (rc != KN_OK)
        return rc;
    kn_copy_desc(k->out[0], x);
    k->out[0]->dtype = ((rng_state *)k->state)->dtype;
    return dist_params(k, normal);
}

typedef struct rng_job {
    const rng_state *s;
    uint64_t counter;
    const char *p;   /* Bernoulli probabilities, or NULL */
    int32_t p_dtype;
    char *y;
} rng_job;

static void random_range(void *ctx, int64_t begin, int64_t end)
{
    const rng_job *j = ctx;
    const rng_state *s = j->s;
    size_t es = kn_dtype_size(s->dtype);
    double v[KN_CHUNK], p[KN_CHUNK];
    for (int64_t i = begin; i < end; i += KN_CHUNK) {
        int64_t m = end - i < KN_CHUNK ? end - i : KN_CHUNK;
        if (j->p)
            kn_convert(j->p_dtype, j->p + (size_t)i * kn_dtype_size(j->p_dtype), KN_DOUBLE, p, m);
        for (int64_t t = 0; t < m; t++) {
            uint64_t c = j->counter + (uint64_t)(i + t);
            if (j->p)
                v[t] = uniform_at(s->key, c) < p[t] ? 1.0 : 0.0;
            else if (s->normal)
                v[t] = s->a + s->b * normal_at(s->key, c);
            else
                v[t] = s->a + (s->b - s->a) * uniform_at(s->key, c);
        }
        kn_convert(KN_DOUBLE, v, s->dtype, j->y + (size_t)i * es, m);
    }
}

static int random_run(kn_kctx *k)
{
    rng_state *s = k->state;
    int64_t n = kn_tensor_numel(k->out[0]);
    rng_job j = {s, s->counter, NULL, 0, k->out[0]->data};
    if (s->bernoulli) {
        j.p = k->in[0]->data;
        j.p_dtype = k->in[0]->dtype;
    }
    kn_parallel_for(k->threads, n, KN_GRAIN, random_range, &j);
    /* normal draw c reads uniforms 2c and 2c + 1: streams of later runs
     * (c from counter + n on) never reuse them */
    s->counter += (uint64_t)n;
    return KN_OK;
}

static int uniform_prepare(kn_kctx *k) { return random_prepare(k, 0); }
static int normal_prepare(kn_kctx *k) { return random_prepare(k, 1); }
static int uniform_like_prepare(kn_kctx *k) { return random_like_prepare(k, 0); }
static int normal_like_prepare(kn_kctx *k) { return random_like_prepare(k, 1); }

/* ---- Bernoulli: 1 with probability p (the input), else 0 ---- */

#define MASK_BERNOULLI_OUT (KN_MASK_ALL)

static int bernoulli_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    int rc = rng_init(k, x->dtype, MASK_BERNOULLI_OUT);
    if (rc != KN_OK)
        return rc;
    rng_state *s = k->state;
    s->bernoulli = 1;
    kn_copy_desc(k->out[0], x);
    k->out[0]->dtype = s->dtype;
    return KN_OK;
}

/* ---- Multinomial: sample_size class indices per row of logits ---- */

static int multinomial_prepare(kn_kctx *k)
{
    if (kn_need_inputs(k, 1) != KN_OK)
        return k->err->code;
    const kn_tensor *x = k->in[0];
    if (x->rank != 2)
        return kn_fail(k->err, KN_ERR_SHAPE, "Multinomial: input must be [batch, classes], got "
                       "rank %d", (int)x->rank);
    int64_t samples = kn_attr_int(k->node, "sample_size", 1);
    if (samples < 0)
        return kn_fail(k->err, KN_ERR_INVALID_MODEL, "Multinomial: sample_size %lld is negative",
                       (long long)samples);
    int rc = rng_init(k, KN_INT32, KN_BIT(KN_INT32) | KN_BIT(KN_INT64));
    if (rc != KN_OK)
        return rc;
    rng_state *s = k->state;
    s->sample_size = samples;
    kn_tensor *y = k->out[0];
    y->dtype = s->dtype;
    y->rank = 2;
    y->dims[0] = x->dims[0];
    y->dims[1] = samples;
    k->scratch_bytes = (size_t)(x->dims[1] > 0 ? x->dims[1] : 1) * sizeof(double);
    return KN_OK;
}

static int multinomial_run(kn_kctx *k)
{
    rng_state *s = k->state;
    const kn_tensor *x = k->in[0];
    int64_t rows = x->dims[0], classes = x->dims[1];
    size_t es = kn_dtype_size(x->dtype);
    double *cdf = k->scratch;
    int64_t out[KN_CHUNK];
    for (int64_t r = 0; r < rows; r++) {
        /* cdf of exp(logit - max): unnormalised softmax, so any logits work */
        kn_convert(x->dtype, (const char *)x->data + (size_t)(r * classes) * es, KN_DOUBLE, cdf,
                   classes);
        double mx = -INFINITY, total = 0;
        for (int64_t c = 0; c < classes; c++)
            mx = cdf[c] > mx ? cdf[c] : mx;
        for (int64_t c = 0; c < classes; c++) {
            double e = cdf[c] == -INFINITY || mx != mx ? 0 : exp(cdf[c] - mx);
            total += e == e ? e : 0;
            cdf[c] = total;
        }
        for (int64_t t0 = 0; t0 < s->sample_size; t0 += KN_CHUNK) {
            int64_t m = s->sample_size - t0 < KN_CHUNK ? s->sample_size - t0 : KN_CHUNK;
            for (int64_t t = 0; t < m; t++) {
                double u = uniform_at(s->key, s->counter + (uint64_t)(r * s->sample_size + t0 + t));
                double target = u * total;
                int64_t lo = 0, hi = classes - 1; /* first c with cdf[c] > target */
                while (lo < hi) {
                    int64_t mid = lo + (hi - lo) / 2;
                    if (cdf[mid] > target)
                        hi = mid;
                    else
                        lo = mid + 1;
                }
                out[t] = classes > 0 ? lo : 0;
            }
            kn_convert(KN_INT64, out, s->dtype,
                       (char *)k->out[0]->data +
                           (size_t)(r * s->sample_size + t0) * kn_dtype_size(s->dtype),
                       m);
        }
    }
    s->counter += (uint64_t)(rows * s->sample_size);
    return KN_OK;
}

#define RNG_DEF(name, op, since, mask, prep, run_arg)                                                  \
    const kn_op_def kn_op_##name = { \
    .op_type = #op, .since_version = since, .dtypes = mask, .flags = KN_OP_NONDETERMINISTIC, \
    .prepare = prep, .run = run_arg, .release = rng_release \
};
#define MASK_PROBS (KN_MASK_FLOATS | KN_BIT(KN_FLOAT16) | KN_BIT(KN_BFLOAT16))
RNG_DEF(RandomUniform, RandomUniform, 1, 0, uniform_prepare, random_run)
RNG_DEF(RandomNormal, RandomNormal, 1, 0, normal_prepare, random_run)
RNG_DEF(RandomUniformLike, RandomUniformLike, 1, 0, uniform_like_prepare, random_run)
RNG_DEF(RandomNormalLike, RandomNormalLike, 1, 0, normal_like_prepare, random_run)
RNG_DEF(Bernoulli, Bernoulli, 15, MASK_PROBS, bernoulli_prepare, random_run)
RNG_DEF(Multinomial, Multinomial, 7, MASK_PROBS, multinomial_prepare, multinomial_run)
