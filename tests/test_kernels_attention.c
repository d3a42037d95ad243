/* Attention-family kernels (Attention, FlexAttention, LinearAttention,
 * CausalConvWithState) and the small ops that came with them (BitCast,
 * CumProd, Swish, TensorScatter, DeformConv): hand-computed values, a naive
 * attention reference written here independently of the kernel, layout
 * equivalences (3-D vs 4-D, KV cache vs concatenated keys), thread-count
 * invariance, and error cases. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_harness.h"
#include "test_support.h"

/* ---- helpers ----------------------------------------------------------- */

static uint32_t rng_state = 2024;
static float *rand_floats(int64_t n) { return kt_rand_floats(&rng_state, n); }

static void expect_floats(const kn_tensor *t, const float *ref, int64_t n, double tol,
                          const char *what)
{
    cr_assert_eq(t->dtype, KN_FLOAT, "%s: dtype %d", what, (int)t->dtype);
    cr_assert_eq(kn_tensor_numel(t), n, "%s: %lld elements, expected %lld", what,
                 (long long)kn_tensor_numel(t), (long long)n);
    const float *v = t->data;
    for (int64_t i = 0; i < n; i++)
        cr_assert(fabs((double)v[i] - ref[i]) <= tol * (1 + fabs((double)ref[i])),
                  "%s: [%lld] = %.9g, expected %.9g", what, (long long)i, (double)v[i],
                  (double)ref[i]);
}

static void run_ok(kh_case *c, int threads)
{
    int rc = kh_run(c, threads);
    cr_assert_eq(rc, KN_OK, "%s (%d threads): %s", c->node.op_type, threads, c->err.msg);
}

/* Runs with 3, 2 and 1 threads; output 0 must be bit-identical. Leaves the
 * 1-thread outputs in c. */
static void run_threads(kh_case *c)
{
    void *prev = NULL;
    for (int threads = 3; threads >= 1; threads--) {
        run_ok(c, threads);
        int64_t nb = kn_tensor_nbytes(&c->out[0]);
        if (prev) {
            cr_assert(memcmp(prev, c->out[0].data, (size_t)nb) == 0,
                      "%s: %d and %d threads differ", c->node.op_type, threads + 1, threads);
            free(prev);
            prev = NULL;
        }
        if (threads > 1) {
            prev = c->out[0].data;
            c->out[0].data = NULL;
            kh_free(c);
        }
    }
}

static void expect_error(kh_case *c, int code, const char *needle)
{
    int rc = kh_run(c, 1);
    cr_assert_eq(rc, code, "%s: got %d (%s), expected %d", c->node.op_type, rc, c->err.msg, code);
    cr_assert(strstr(c->err.msg, needle), "message '%s' lacks '%s'", c->err.msg, needle);
    kh_free(c);
}

/* ---- a naive attention reference (4-D, float in, double math) ---------- */

typedef struct ref_opts {
    int causal;
    int causal_offset;    /* query i sees keys j <= i + offset (the past length) */
    double scale;         /* 0: 1/sqrt(D) */
    double softcap;
    const float *mask;    /* additive, (sq, st), may hold -INFINITY; NULL = none */
} ref_opts;

/* y (b, hq, sq, dv) from q (b, hq, sq, d), k (b, hkv, st, d), v (b, hkv, st, dv). */
static void ref_attention(const float *q, const float *k, const float *v, float *y, int b, int hq,
                          int hkv, int sq, int st, int d, int dv, const ref_opts *o)
{
    double scale = o->scale ? o->scale : 1.0 / sqrt((double)d);
    double *s = malloc(sizeof(double) * (size_t)st);
    for (int bi = 0; bi < b; bi++)
        for (int h = 0; h < hq; h++) {
            int kh = h / (hq / hkv); /* contiguous groups of query heads share a kv head */
            for (int i = 0; i < sq; i++) {
                const float *qr = q + (((size_t)bi * hq + h) * sq + i) * d;
                double mx = -INFINITY, sum = 0;
                int any = 0;
                for (int j = 0; j < st; j++) {
                    const float *kr = k + (((size_t)bi * hkv + kh) * st + j) * d;
                    double dot = 0;
                    for (int e = 0; e < d; e++)
                        dot += (double)qr[e] * kr[e];
                    dot *= scale;
                    if (o->softcap > 0)
                        dot = o->softcap * tanh(dot / o->softcap);
                    double bias = o->mask ? o->mask[i * st + j] : 0;
                    if (o->causal && j > i + o->causal_offset)
                        bias = -INFINITY;
                    any |= bias != -INFINITY;
                    s[j] = dot + bias;
                    mx = s[j] > mx ? s[j] : mx;
                }
                for (int j = 0; j < st; j++)
                    sum += s[j] = exp(s[j] - mx);
                float *yr = y + (((size_t)bi * hq + h) * sq + i) * dv;
                for (int e = 0; e < dv; e++) {
                    double acc = 0;
                    for (int j = 0; j < st && any; j++)
                        acc += s[j] / sum * v[(((size_t)bi * hkv + kh) * st + j) * dv + e];
                    yr[e] = (float)acc;
                }
            }
        }
    free(s);
}

/* ---- Attention: hand-computed ----------------------------------------- */

/* One head, two queries, two keys, D = 2: Q = K = I, V = [[1, 2], [3, 4]].
 * Scores are I / sqrt(2), so each row's softmax is (p, 1 - p) or (1 - p, p)
 * with p = 1 / (1 + exp(-1/sqrt(2))) = 0.669761... */
static const float eye[4] = {1, 0, 0, 1}, vals[4] = {1, 2, 3, 4};
static const int64_t d1122[4] = {1, 1, 2, 2};

Test(attention, one_head_by_hand)
{
    double p = 1.0 / (1.0 + exp(-1.0 / sqrt(2.0)));
    const float want[4] = {(float)(p * 1 + (1 - p) * 3), (float)(p * 2 + (1 - p) * 4),
                           (float)((1 - p) * 1 + p * 3), (float)((1 - p) * 2 + p * 4)};
    kh_case c;
    kh_init(&c, "Attention", 23, 3, 1);
    kh_input(&c, 0, KN_FLOAT, d1122, 4, eye);
    kh_input(&c, 1, KN_FLOAT, d1122, 4, eye);
    kh_input(&c, 2, KN_FLOAT, d1122, 4, vals);
    run_threads(&c);
    cr_assert(kn_shape_equal(c.out[0].dims, c.out[0].rank, d1122, 4));
    expect_floats(&c.out[0], want, 4, 1e-6, "Y");
    kh_free(&c);

    /* Causal: query 0 sees only key 0, so its row is V[0]. */
    kh_init(&c, "Attention", 23, 3, 1);
    kh_input(&c, 0, KN_FLOAT, d1122, 4, eye);
    kh_input(&c, 1, KN_FLOAT, d1122, 4, eye);
    kh_input(&c, 2, KN_FLOAT, d1122, 4, vals);
    kh_attr_int(&c, "is_causal", 1);
    run_ok(&c, 1);
    const float causal[4] = {1, 2, want[2], want[3]};
    expect_floats(&c.out[0], causal, 4, 1e-6, "causal Y");
    kh_free(&c);
}

/* qk_matmul_output in its four modes, with softcap 0.5 and a mask that
 * hides key 1 from query 0. */
Test(attention, qk_matmul_output_modes)
{
    const float mask[4] = {0, -INFINITY, 0, 0};
    const int64_t md[2] = {2, 2};
    double s = 1.0 / sqrt(2.0), cap = 0.5, sc = cap * tanh(s / cap);
    double p = 1.0 / (1.0 + exp(-sc));
    const float want[4][4] = {
        {(float)s, 0, 0, (float)s},                          /* raw QK^T (scaled) */
        {(float)sc, 0, 0, (float)sc},                        /* after softcap */
        {(float)sc, -INFINITY, 0, (float)sc},                /* after softcap + mask */
        {1, 0, (float)(1 - p), (float)p}};                   /* after softmax */
    for (int mode = 0; mode < 4; mode++) {
        kh_case c;
        kh_init(&c, "Attention", 23, 4, 4);
        kh_input(&c, 0, KN_FLOAT, d1122, 4, eye);
        kh_input(&c, 1, KN_FLOAT, d1122, 4, eye);
        kh_input(&c, 2, KN_FLOAT, d1122, 4, vals);
        kh_input(&c, 3, KN_FLOAT, md, 2, mask);
        kh_attr_int(&c, "qk_matmul_output_mode", mode);
        kh_attr_float(&c, "softcap", (float)cap);
        run_ok(&c, 1);
        const float *got = c.out[3].data;
        for (int i = 0; i < 4; i++)
            cr_assert(got[i] == want[mode][i] || fabsf(got[i] - want[mode][i]) < 1e-6f,
                      "mode %d [%d] = %g, expected %g", mode, i, (double)got[i],
                      (double)want[mode][i]);
        const float *y = c.out[0].data; /* row 0 sees only key 0 */
        cr_assert(y[0] == 1 && y[1] == 2, "masked row 0: %g %g", (double)y[0], (double)y[1]);
        kh_free(&c);
    }
}

/* Query heads 0,1 share kv head 0 and 2,3 kv head 1 (interleaved, not
 * tiled). With one key the softmax is 1, so Y[h] = V[h / 2]. */
Test(attention, gqa_head_mapping)
{
    const int64_t qd[4] = {1, 4, 1, 2}, kd[4] = {1, 2, 1, 2};
    const float q[8] = {1, 2, 3, 4, 5, 6, 7, 8}, k[4] = {1, 1, 1, 1}, v[4] = {10, 11, 20, 21};
    kh_case c;
    kh_init(&c, "Attention", 23, 3, 1);
    kh_input(&c, 0, KN_FLOAT, qd, 4, q);
    kh_input(&c, 1, KN_FLOAT, kd, 4, k);
    kh_input(&c, 2, KN_FLOAT, kd, 4, v);
    run_ok(&c, 1);
    const float want[8] = {10, 11, 10, 11, 20, 21, 20, 21};
    expect_floats(&c.out[0], want, 8, 0, "Y");
    kh_free(&c);
}

/* A bool mask with an all-false row gives zeros for it, not NaN; a mask
 * shorter than the keys hides the rest (opset 24). */
Test(attention, masks_and_padding)
{
    const uint8_t bmask[2] = {0, 0};
    const int64_t bd[2] = {1, 2};
    kh_case c;
    kh_init(&c, "Attention", 23, 4, 1);
    kh_input(&c, 0, KN_FLOAT, d1122, 4, eye);
    kh_input(&c, 1, KN_FLOAT, d1122, 4, eye);
    kh_input(&c, 2, KN_FLOAT, d1122, 4, vals);
    kh_input(&c, 3, KN_BOOL, bd, 2, bmask);
    run_ok(&c, 1);
    const float zeros[4] = {0, 0, 0, 0};
    expect_floats(&c.out[0], zeros, 4, 0, "fully masked");
    kh_free(&c);

    const uint8_t first[1] = {1};
    const int64_t fd[2] = {1, 1};
    kh_init(&c, "Attention", 24, 4, 1);
    kh_input(&c, 0, KN_FLOAT, d1122, 4, eye);
    kh_input(&c, 1, KN_FLOAT, d1122, 4, eye);
    kh_input(&c, 2, KN_FLOAT, d1122, 4, vals);
    kh_input(&c, 3, KN_BOOL, fd, 2, first);
    run_ok(&c, 1);
    const float only_key0[4] = {1, 2, 1, 2};
    expect_floats(&c.out[0], only_key0, 4, 0, "padded mask");
    kh_free(&c);

    /* nonpad_kv_seqlen = 1 hides key 1 from both queries. */
    const int64_t nonpad[1] = {1}, nd[1] = {1};
    kh_init(&c, "Attention", 24, 7, 1);
    kh_input(&c, 0, KN_FLOAT, d1122, 4, eye);
    kh_input(&c, 1, KN_FLOAT, d1122, 4, eye);
    kh_input(&c, 2, KN_FLOAT, d1122, 4, vals);
    kh_input(&c, 6, KN_INT64, nd, 1, nonpad);
    run_ok(&c, 1);
    expect_floats(&c.out[0], only_key0, 4, 0, "nonpad");
    kh_free(&c);
}

/* ---- Attention: against the naive reference --------------------------- */

Test(attention, random_gqa_causal_softcap_mask)
{
    enum { B = 2, HQ = 6, HKV = 2, SQ = 5, ST = 7, D = 8, DV = 3 };
    const int64_t qd[4] = {B, HQ, SQ, D}, kd[4] = {B, HKV, ST, D}, vd[4] = {B, HKV, ST, DV};
    const int64_t md[2] = {SQ, ST};
    float *q = rand_floats(B * HQ * SQ * D), *k = rand_floats(B * HKV * ST * D);
    float *v = rand_floats(B * HKV * ST * DV), *mask = rand_floats(SQ * ST);
    float *ref = malloc(sizeof(float) * B * HQ * SQ * DV);
    for (int variant = 0; variant < 4; variant++) {
        ref_opts o = {.causal = variant & 1, .softcap = variant & 2 ? 0.7 : 0,
                      .mask = variant == 3 ? mask : NULL, .scale = variant == 2 ? 0.3 : 0};
        ref_attention(q, k, v, ref, B, HQ, HKV, SQ, ST, D, DV, &o);
        kh_case c;
        kh_init(&c, "Attention", 23, o.mask ? 4 : 3, 1);
        kh_input(&c, 0, KN_FLOAT, qd, 4, q);
        kh_input(&c, 1, KN_FLOAT, kd, 4, k);
        kh_input(&c, 2, KN_FLOAT, vd, 4, v);
        if (o.mask)
            kh_input(&c, 3, KN_FLOAT, md, 2, mask);
        kh_attr_int(&c, "is_causal", o.causal);
        if (o.softcap)
            kh_attr_float(&c, "softcap", (float)o.softcap);
        if (o.scale)
            kh_attr_float(&c, "scale", (float)o.scale);
        run_threads(&c);
        expect_floats(&c.out[0], ref, B * HQ * SQ * DV, 2e-5, "Y");
        kh_free(&c);
    }
    free(q), free(k), free(v), free(mask), free(ref);
}

/* 3-D inputs are (batch, seq, heads * size): the same numbers as 4-D after
 * a transpose, and Y comes back the same way. */
Test(attention, layout_3d_matches_4d)
{
    enum { B = 2, HQ = 4, HKV = 2, SQ = 3, SK = 5, D = 4, DV = 6 };
    const int64_t qd[4] = {B, HQ, SQ, D}, kd[4] = {B, HKV, SK, D}, vd[4] = {B, HKV, SK, DV};
    float *q = rand_floats(B * HQ * SQ * D), *k = rand_floats(B * HKV * SK * D);
    float *v = rand_floats(B * HKV * SK * DV);
    float *q3 = malloc(sizeof(float) * B * HQ * SQ * D);
    float *k3 = malloc(sizeof(float) * B * HKV * SK * D);
    float *v3 = malloc(sizeof(float) * B * HKV * SK * DV);
    /* (b, h, s, e) -> (b, s, h * size + e) */
#define TO3D(src, dst, H, S, E)                                                                    \
    for (int b = 0; b < B; b++)                                                                    \
        for (int h = 0; h < H; h++)                                                                \
            for (int s = 0; s < S; s++)                                                            \
                for (int e = 0; e < E; e++)                                                        \
                    dst[((b * S + s) * H + h) * E + e] = src[((b * H + h) * S + s) * E + e];
    TO3D(q, q3, HQ, SQ, D)
    TO3D(k, k3, HKV, SK, D)
    TO3D(v, v3, HKV, SK, DV)
    kh_case c4, c3;
    kh_init(&c4, "Attention", 23, 3, 1);
    kh_input(&c4, 0, KN_FLOAT, qd, 4, q);
    kh_input(&c4, 1, KN_FLOAT, kd, 4, k);
    kh_input(&c4, 2, KN_FLOAT, vd, 4, v);
    kh_attr_int(&c4, "is_causal", 1);
    run_ok(&c4, 1);
    const int64_t qd3[3] = {B, SQ, HQ * D}, kd3[3] = {B, SK, HKV * D}, vd3[3] = {B, SK, HKV * DV};
    kh_init(&c3, "Attention", 23, 3, 1);
    kh_input(&c3, 0, KN_FLOAT, qd3, 3, q3);
    kh_input(&c3, 1, KN_FLOAT, kd3, 3, k3);
    kh_input(&c3, 2, KN_FLOAT, vd3, 3, v3);
    kh_attr_int(&c3, "is_causal", 1);
    kh_attr_int(&c3, "q_num_heads", HQ);
    kh_attr_int(&c3, "kv_num_heads", HKV);
    run_threads(&c3);
    const int64_t yd3[3] = {B, SQ, HQ * DV};
    cr_assert(kn_shape_equal(c3.out[0].dims, c3.out[0].rank, yd3, 3));
    float *y4 = c4.out[0].data, *y43 = malloc(sizeof(float) * B * HQ * SQ * DV);
    TO3D(y4, y43, HQ, SQ, DV)
#undef TO3D
    expect_floats(&c3.out[0], y43, B * HQ * SQ * DV, 1e-6, "3-D Y");
    kh_free(&c4), kh_free(&c3);
    free(q), free(k), free(v), free(q3), free(k3), free(v3), free(y43);
}

/* past_key/past_value + K/V gives the same Y as the concatenated keys with
 * the causal frontier shifted by the past length; present_* are the
 * concatenations. */
Test(attention, kv_cache_matches_concatenation)
{
    enum { B = 1, H = 2, SQ = 2, SP = 3, D = 4 };
    const int64_t qd[4] = {B, H, SQ, D}, pd[4] = {B, H, SP, D}, td[4] = {B, H, SP + SQ, D};
    float *q = rand_floats(B * H * SQ * D), *full_k = rand_floats(B * H * (SP + SQ) * D);
    float *full_v = rand_floats(B * H * (SP + SQ) * D);
    size_t past_bytes = sizeof(float) * B * H * SP * D, new_bytes = sizeof(float) * B * H * SQ * D;
    float *pk = malloc(past_bytes), *pv = malloc(past_bytes);
    float *nk = malloc(new_bytes), *nv = malloc(new_bytes);
    for (int h = 0; h < H; h++) {
        memcpy(pk + h * SP * D, full_k + h * (SP + SQ) * D, sizeof(float) * SP * D);
        memcpy(pv + h * SP * D, full_v + h * (SP + SQ) * D, sizeof(float) * SP * D);
        memcpy(nk + h * SQ * D, full_k + (h * (SP + SQ) + SP) * D, sizeof(float) * SQ * D);
        memcpy(nv + h * SQ * D, full_v + (h * (SP + SQ) + SP) * D, sizeof(float) * SQ * D);
    }
    float *ref = malloc(sizeof(float) * B * H * SQ * D);
    ref_opts o = {.causal = 1, .causal_offset = SP};
    ref_attention(q, full_k, full_v, ref, B, H, H, SQ, SP + SQ, D, D, &o);
    kh_case c;
    kh_init(&c, "Attention", 23, 6, 3);
    kh_input(&c, 0, KN_FLOAT, qd, 4, q);
    kh_input(&c, 1, KN_FLOAT, qd, 4, nk);
    kh_input(&c, 2, KN_FLOAT, qd, 4, nv);
    kh_input(&c, 4, KN_FLOAT, pd, 4, pk);
    kh_input(&c, 5, KN_FLOAT, pd, 4, pv);
    kh_attr_int(&c, "is_causal", 1);
    run_threads(&c);
    expect_floats(&c.out[0], ref, B * H * SQ * D, 2e-5, "Y");
    cr_assert(kn_shape_equal(c.out[1].dims, c.out[1].rank, td, 4));
    expect_floats(&c.out[1], full_k, B * H * (SP + SQ) * D, 0, "present_key");
    expect_floats(&c.out[2], full_v, B * H * (SP + SQ) * D, 0, "present_value");
    kh_free(&c);
    free(q), free(full_k), free(full_v), free(pk), free(pv), free(nk), free(nv), free(ref);
}

/* float16 runs in float with the function body's roundings: within a few
 * half ulps of the float result. */
Test(attention, float16_close_to_float)
{
    enum { N = 1 * 2 * 3 * 4 };
    const int64_t d[4] = {1, 2, 3, 4};
    float *q = rand_floats(N), *k = rand_floats(N), *v = rand_floats(N);
    uint16_t qh[N], kh16[N], vh[N];
    for (int i = 0; i < N; i++) {
        qh[i] = kn_f32_to_f16(q[i]), kh16[i] = kn_f32_to_f16(k[i]), vh[i] = kn_f32_to_f16(v[i]);
        q[i] = kn_f16_to_f32(qh[i]), k[i] = kn_f16_to_f32(kh16[i]), v[i] = kn_f16_to_f32(vh[i]);
    }
    kh_case cf, ch;
    kh_init(&cf, "Attention", 23, 3, 1);
    kh_input(&cf, 0, KN_FLOAT, d, 4, q);
    kh_input(&cf, 1, KN_FLOAT, d, 4, k);
    kh_input(&cf, 2, KN_FLOAT, d, 4, v);
    run_ok(&cf, 1);
    kh_init(&ch, "Attention", 23, 3, 1);
    kh_input(&ch, 0, KN_FLOAT16, d, 4, qh);
    kh_input(&ch, 1, KN_FLOAT16, d, 4, kh16);
    kh_input(&ch, 2, KN_FLOAT16, d, 4, vh);
    run_threads(&ch);
    cr_assert_eq(ch.out[0].dtype, KN_FLOAT16);
    const float *yf = cf.out[0].data;
    const uint16_t *yh = ch.out[0].data;
    for (int i = 0; i < N; i++)
        cr_assert(fabsf(kn_f16_to_f32(yh[i]) - yf[i]) < 4e-3f, "[%d] %g vs %g", i,
                  (double)kn_f16_to_f32(yh[i]), (double)yf[i]);
    kh_free(&cf), kh_free(&ch);
    free(q), free(k), free(v);
}

Test(attention, errors)
{
    const int64_t qd[4] = {1, 3, 2, 2}, kd[4] = {1, 2, 2, 2}, q3[3] = {1, 2, 4};
    const float data[16] = {0};
    const double dd[16] = {0};
    const int64_t np[1] = {1}, nd[1] = {1}, longm[2] = {2, 3};
    kh_case c;
    kh_init(&c, "Attention", 23, 3, 1); /* 3 query heads over 2 kv heads */
    kh_input(&c, 0, KN_FLOAT, qd, 4, data);
    kh_input(&c, 1, KN_FLOAT, kd, 4, data);
    kh_input(&c, 2, KN_FLOAT, kd, 4, data);
    expect_error(&c, KN_ERR_SHAPE, "cannot be grouped");
    kh_init(&c, "Attention", 23, 3, 1);
    kh_input(&c, 0, KN_FLOAT, d1122, 4, data);
    kh_input(&c, 1, KN_DOUBLE, d1122, 4, dd);
    kh_input(&c, 2, KN_FLOAT, d1122, 4, data);
    expect_error(&c, KN_ERR_DTYPE, "share a type");
    kh_init(&c, "Attention", 23, 3, 1);
    kh_input(&c, 0, KN_FLOAT, q3, 3, data);
    kh_input(&c, 1, KN_FLOAT, q3, 3, data);
    kh_input(&c, 2, KN_FLOAT, q3, 3, data);
    expect_error(&c, KN_ERR_INVALID_MODEL, "q_num_heads");
    kh_init(&c, "Attention", 23, 4, 1);
    kh_input(&c, 0, KN_FLOAT, d1122, 4, data);
    kh_input(&c, 1, KN_FLOAT, d1122, 4, data);
    kh_input(&c, 2, KN_FLOAT, d1122, 4, data);
    kh_input(&c, 3, KN_FLOAT, longm, 2, data);
    expect_error(&c, KN_ERR_SHAPE, "attn_mask");
    kh_init(&c, "Attention", 23, 3, 1);
    kh_input(&c, 0, KN_FLOAT, d1122, 4, data);
    kh_input(&c, 1, KN_FLOAT, d1122, 4, data);
    kh_input(&c, 2, KN_FLOAT, d1122, 4, data);
    kh_attr_int(&c, "qk_matmul_output_mode", 4);
    expect_error(&c, KN_ERR_INVALID_MODEL, "qk_matmul_output_mode");
    kh_init(&c, "Attention", 23, 5, 1);
    kh_input(&c, 0, KN_FLOAT, d1122, 4, data);
    kh_input(&c, 1, KN_FLOAT, d1122, 4, data);
    kh_input(&c, 2, KN_FLOAT, d1122, 4, data);
    kh_input(&c, 4, KN_FLOAT, d1122, 4, data);
    expect_error(&c, KN_ERR_INVALID_MODEL, "past_value");
    kh_init(&c, "Attention", 23, 7, 1);
    kh_input(&c, 0, KN_FLOAT, d1122, 4, data);
    kh_input(&c, 1, KN_FLOAT, d1122, 4, data);
    kh_input(&c, 2, KN_FLOAT, d1122, 4, data);
    kh_input(&c, 6, KN_INT64, nd, 1, np);
    expect_error(&c, KN_ERR_INVALID_MODEL, "opset 24");
    kh_init(&c, "Attention", 24, 3, 1);
    kh_input(&c, 0, KN_FLOAT, d1122, 4, data);
    kh_input(&c, 1, KN_FLOAT, d1122, 4, data);
    kh_input(&c, 2, KN_FLOAT, d1122, 4, data);
    kh_attr_int(&c, "left_window_size", 2);
    expect_error(&c, KN_ERR_UNSUPPORTED, "left_window_size");
}

/* ---- FlexAttention (ai.onnx.preview: driven directly, the harness only
 * looks up the default domain) ------------------------------------------ */

extern const kn_op_def kn_op_FlexAttention;

static int flex_run(kh_case *c, int threads)
{
    kn_tensor *in[3] = {&c->in[0], &c->in[1], &c->in[2]}, *out[1] = {&c->out[0]};
    kn_threadpool *pool = threads > 1 ? kn_threadpool_create(threads) : NULL;
    c->node.domain = "ai.onnx.preview";
    kn_kctx k = {.node = &c->node, .opset = 1, .n_in = 3, .n_out = 1, .in = in, .out = out,
                 .threads = pool, .err = &c->err};
    int rc = kn_op_FlexAttention.prepare(&k);
    if (rc == KN_OK) {
        int64_t nb = kn_tensor_nbytes(out[0]);
        out[0]->data = calloc(1, nb > 0 ? (size_t)nb : 1);
        k.scratch = aligned_alloc(64, (k.scratch_bytes + 64) & ~(size_t)63);
        rc = kn_op_FlexAttention.run(&k);
        free(k.scratch);
    }
    kn_op_FlexAttention.release(&k);
    kn_threadpool_destroy(pool);
    return rc;
}

/* FlexAttention without subgraphs is plain GQA attention. */
Test(flex_attention, matches_reference)
{
    enum { B = 2, HQ = 4, HKV = 2, L = 3, S = 5, E = 4, EV = 2 };
    const int64_t qd[4] = {B, HQ, L, E}, kd[4] = {B, HKV, S, E}, vd[4] = {B, HKV, S, EV};
    float *q = rand_floats(B * HQ * L * E), *k = rand_floats(B * HKV * S * E);
    float *v = rand_floats(B * HKV * S * EV), *ref = malloc(sizeof(float) * B * HQ * L * EV);
    ref_opts o = {.scale = 0.25};
    ref_attention(q, k, v, ref, B, HQ, HKV, L, S, E, EV, &o);
    for (int threads = 1; threads <= 3; threads++) {
        kh_case c;
        kh_init(&c, "FlexAttention", 1, 3, 1);
        kh_input(&c, 0, KN_FLOAT, qd, 4, q);
        kh_input(&c, 1, KN_FLOAT, kd, 4, k);
        kh_input(&c, 2, KN_FLOAT, vd, 4, v);
        kh_attr_float(&c, "scale", 0.25f);
        cr_assert_eq(flex_run(&c, threads), KN_OK, "%s", c.err.msg);
        expect_floats(&c.out[0], ref, B * HQ * L * EV, 2e-5, "Y");
        kh_free(&c);
    }
    kh_case c;
    kh_init(&c, "FlexAttention", 1, 3, 1);
    kh_input(&c, 0, KN_FLOAT, qd, 4, q);
    kh_input(&c, 1, KN_FLOAT, qd, 4, q); /* 4 kv heads but E checks pass: fine */
    kh_input(&c, 2, KN_FLOAT, vd, 4, v); /* V's heads differ from K's */
    cr_assert_eq(flex_run(&c, 1), KN_ERR_SHAPE, "%s", c.err.msg);
    kh_free(&c);
    free(q), free(k), free(v), free(ref);
}

/* ---- LinearAttention --------------------------------------------------- */

/* One head, d_k = d_v = 1, T = 2, scale 1: q = (1, 2), k = (1, 1),
 * v = (3, 4). linear: S = 3, 7; out = 3, 14. gated with decay ln(0.5):
 * S = 3, 3 * 0.5 + 4 = 5.5; out = 3, 11. delta with beta 1: S = 3, then
 * v' = 4 - 3 = 1, S = 4; out = 3, 8. */
Test(linear_attention, by_hand)
{
    const int64_t d[3] = {1, 2, 1};
    const float q[2] = {1, 2}, k[2] = {1, 1}, v[2] = {3, 4};
    const float decay[2] = {logf(0.5f), logf(0.5f)}, beta[2] = {1, 1};
    const char *rules[3] = {"linear", "gated", "delta"};
    const float want[3][3] = {{3, 14, 7}, {3, 11, 5.5f}, {3, 8, 4}};
    for (int r = 0; r < 3; r++) {
        kh_case c;
        kh_init(&c, "LinearAttention", 27, r == 0 ? 3 : r == 1 ? 5 : 6, 2);
        kh_input(&c, 0, KN_FLOAT, d, 3, q);
        kh_input(&c, 1, KN_FLOAT, d, 3, k);
        kh_input(&c, 2, KN_FLOAT, d, 3, v);
        if (r == 1)
            kh_input(&c, 4, KN_FLOAT, d, 3, decay);
        if (r == 2)
            kh_input(&c, 5, KN_FLOAT, d, 3, beta);
        kh_attr_string(&c, "update_rule", rules[r]);
        kh_attr_int(&c, "q_num_heads", 1);
        kh_attr_int(&c, "kv_num_heads", 1);
        kh_attr_float(&c, "scale", 1.0f);
        run_threads(&c);
        expect_floats(&c.out[0], want[r], 2, 1e-6, rules[r]);
        expect_floats(&c.out[1], want[r] + 2, 1, 1e-6, "present_state");
        kh_free(&c);
    }
    kh_case c;
    kh_init(&c, "LinearAttention", 27, 3, 2); /* gated_delta (default) needs decay */
    kh_input(&c, 0, KN_FLOAT, d, 3, q);
    kh_input(&c, 1, KN_FLOAT, d, 3, k);
    kh_input(&c, 2, KN_FLOAT, d, 3, v);
    kh_attr_int(&c, "q_num_heads", 1);
    kh_attr_int(&c, "kv_num_heads", 1);
    expect_error(&c, KN_ERR_INVALID_MODEL, "requires decay");
}

/* ---- CausalConvWithState ----------------------------------------------- */

/* weight (1, 2, 3), past (10, 20), x (1, 2, 3, 4): padded is
 * 10 20 1 2 3 4, so y = 53 28 14 20 and the new state is (3, 4). */
Test(causal_conv, by_hand)
{
    const int64_t xd[3] = {1, 1, 4}, wd[3] = {1, 1, 3}, sd[3] = {1, 1, 2};
    const float x[4] = {1, 2, 3, 4}, w[3] = {1, 2, 3}, past[2] = {10, 20};
    kh_case c;
    kh_init(&c, "CausalConvWithState", 27, 4, 2);
    kh_input(&c, 0, KN_FLOAT, xd, 3, x);
    kh_input(&c, 1, KN_FLOAT, wd, 3, w);
    kh_input(&c, 3, KN_FLOAT, sd, 3, past);
    run_threads(&c);
    const float y[4] = {53, 28, 14, 20}, state[2] = {3, 4};
    expect_floats(&c.out[0], y, 4, 0, "y");
    expect_floats(&c.out[1], state, 2, 0, "present_state");
    kh_free(&c);

    /* Input shorter than the state: the state keeps part of the past. */
    const int64_t x1[3] = {1, 1, 1};
    kh_init(&c, "CausalConvWithState", 27, 4, 2);
    kh_input(&c, 0, KN_FLOAT, x1, 3, x);
    kh_input(&c, 1, KN_FLOAT, wd, 3, w);
    kh_input(&c, 3, KN_FLOAT, sd, 3, past);
    kh_attr_string(&c, "activation", "silu");
    run_ok(&c, 1);
    const float y1[1] = {(float)(53.0 / (1.0 + exp(-53.0)))}, state1[2] = {20, 1};
    expect_floats(&c.out[0], y1, 1, 1e-6, "silu y");
    expect_floats(&c.out[1], state1, 2, 0, "short state");
    kh_free(&c);

    const int64_t bad[3] = {1, 2, 3};
    kh_init(&c, "CausalConvWithState", 27, 2, 2);
    kh_input(&c, 0, KN_FLOAT, xd, 3, x);
    kh_input(&c, 1, KN_FLOAT, bad, 3, x);
    expect_error(&c, KN_ERR_SHAPE, "weight");
}

/* ---- BitCast, CumProd, Swish ------------------------------------------- */

Test(small_ops, bitcast)
{
    const int64_t d[1] = {2};
    const float x[2] = {1.0f, -2.0f};
    kh_case c;
    kh_init(&c, "BitCast", 26, 1, 1);
    kh_input(&c, 0, KN_FLOAT, d, 1, x);
    kh_attr_int(&c, "to", KN_INT32);
    run_ok(&c, 1);
    cr_assert_eq(c.out[0].dtype, KN_INT32);
    const int32_t *y = c.out[0].data;
    cr_assert(y[0] == 0x3f800000 && (uint32_t)y[1] == 0xc0000000u);
    kh_free(&c);
    kh_init(&c, "BitCast", 26, 1, 1);
    kh_input(&c, 0, KN_FLOAT, d, 1, x);
    kh_attr_int(&c, "to", KN_INT64);
    expect_error(&c, KN_ERR_DTYPE, "width");
}

Test(small_ops, cumprod)
{
    const int64_t d[1] = {4}, ad[1] = {0};
    const double x[4] = {1, 2, 3, 4};
    const int64_t axis[1] = {0};
    const double want[4][4] = {{1, 2, 6, 24}, {1, 1, 2, 6}, {24, 24, 12, 4}, {24, 12, 4, 1}};
    for (int mode = 0; mode < 4; mode++) {
        kh_case c;
        kh_init(&c, "CumProd", 26, 2, 1);
        kh_input(&c, 0, KN_DOUBLE, d, 1, x);
        kh_input(&c, 1, KN_INT64, ad, 0, axis);
        kh_attr_int(&c, "exclusive", mode & 1);
        kh_attr_int(&c, "reverse", mode >> 1);
        run_ok(&c, 1);
        cr_assert(memcmp(c.out[0].data, want[mode], sizeof want[mode]) == 0, "mode %d", mode);
        kh_free(&c);
    }
    /* uint8 products wrap: 16 * 16 = 256 = 0 */
    const uint8_t u[2] = {16, 16};
    const int64_t ud[1] = {2};
    kh_case c;
    kh_init(&c, "CumProd", 26, 2, 1);
    kh_input(&c, 0, KN_UINT8, ud, 1, u);
    kh_input(&c, 1, KN_INT64, ad, 0, axis);
    run_ok(&c, 1);
    cr_assert(((uint8_t *)c.out[0].data)[0] == 16 && ((uint8_t *)c.out[0].data)[1] == 0);
    kh_free(&c);
    const int64_t bad_axis[1] = {3};
    kh_init(&c, "CumProd", 26, 2, 1);
    kh_input(&c, 0, KN_DOUBLE, d, 1, x);
    kh_input(&c, 1, KN_INT64, ad, 0, bad_axis);
    expect_error(&c, KN_ERR_INVALID_MODEL, "CumProd");
}

Test(small_ops, swish)
{
    const int64_t d[1] = {3};
    const float x[3] = {0, 1, -2};
    kh_case c;
    kh_init(&c, "Swish", 24, 1, 1);
    kh_input(&c, 0, KN_FLOAT, d, 1, x);
    kh_attr_float(&c, "alpha", 2.0f);
    run_ok(&c, 1);
    const float want[3] = {0, (float)(1 / (1 + exp(-2.0))), (float)(-2 / (1 + exp(4.0)))};
    expect_floats(&c.out[0], want, 3, 1e-6, "swish");
    kh_free(&c);
}

/* ---- TensorScatter ----------------------------------------------------- */

Test(small_ops, tensor_scatter)
{
    const int64_t pd[3] = {2, 4, 1}, ud[3] = {2, 2, 1}, wd[1] = {2};
    const float past[8] = {0, 1, 2, 3, 10, 11, 12, 13}, up[4] = {-1, -2, -3, -4};
    const int64_t where[2] = {1, 3};
    kh_case c;
    kh_init(&c, "TensorScatter", 24, 3, 1);
    kh_input(&c, 0, KN_FLOAT, pd, 3, past);
    kh_input(&c, 1, KN_FLOAT, ud, 3, up);
    kh_input(&c, 2, KN_INT64, wd, 1, where);
    kh_attr_string(&c, "mode", "circular");
    run_ok(&c, 1);
    const float want[8] = {0, -1, -2, 3, -4, 11, 12, -3}; /* batch 1 wraps 3, 4 -> 3, 0 */
    expect_floats(&c.out[0], want, 8, 0, "circular");
    kh_free(&c);
    kh_init(&c, "TensorScatter", 24, 3, 1); /* linear: position 3 + 2 overflows */
    kh_input(&c, 0, KN_FLOAT, pd, 3, past);
    kh_input(&c, 1, KN_FLOAT, ud, 3, up);
    kh_input(&c, 2, KN_INT64, wd, 1, where);
    expect_error(&c, KN_ERR_INVALID_ARGUMENT, "write index 3");
}

/* ---- DeformConv -------------------------------------------------------- */

/* X = 1..9 (3 x 3), a 2 x 2 kernel of ones. Zero offsets are a plain
 * convolution (window sums 12 16 24 28). Shifting every tap right by 0.5
 * samples halfway between columns, a column past the edge counting as
 * zero (window sums 14 12.5 26 21.5), and a mask of 0.5 halves that. */
Test(deform_conv, by_hand)
{
    const int64_t xd[4] = {1, 1, 3, 3}, wd[4] = {1, 1, 2, 2}, od[4] = {1, 8, 2, 2};
    const int64_t md[4] = {1, 4, 2, 2};
    const float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w[4] = {1, 1, 1, 1};
    float off[32] = {0}, mask[16];
    for (int i = 0; i < 16; i++)
        mask[i] = 0.5f;
    kh_case c;
    kh_init(&c, "DeformConv", 22, 3, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 4, x);
    kh_input(&c, 1, KN_FLOAT, wd, 4, w);
    kh_input(&c, 2, KN_FLOAT, od, 4, off);
    run_threads(&c);
    const float plain[4] = {12, 16, 24, 28};
    expect_floats(&c.out[0], plain, 4, 1e-6, "zero offsets");
    kh_free(&c);
    /* offset channels are (tap, h/w) pairs: w offsets sit at odd channels */
    for (int t = 0; t < 4; t++)
        for (int p = 0; p < 4; p++)
            off[(t * 2 + 1) * 4 + p] = 0.5f;
    kh_init(&c, "DeformConv", 22, 5, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 4, x);
    kh_input(&c, 1, KN_FLOAT, wd, 4, w);
    kh_input(&c, 2, KN_FLOAT, od, 4, off);
    kh_input(&c, 4, KN_FLOAT, md, 4, mask);
    run_ok(&c, 1);
    /* output (0, 1): taps at columns 1.5 and 2.5 of rows 0 and 1:
     * 2.5 + 0.5 * 3 + 5.5 + 0.5 * 6 = 12.5, masked to 6.25 */
    const float shifted[4] = {7, 6.25f, 13, 10.75f};
    expect_floats(&c.out[0], shifted, 4, 1e-6, "shifted, masked");
    kh_free(&c);
    const int64_t bad_off[4] = {1, 6, 2, 2};
    kh_init(&c, "DeformConv", 22, 3, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 4, x);
    kh_input(&c, 1, KN_FLOAT, wd, 4, w);
    kh_input(&c, 2, KN_FLOAT, bad_off, 4, off);
    expect_error(&c, KN_ERR_SHAPE, "offset");
}
