/* Neural-network kernels (Conv, pools, BatchNormalization, Gemm, MatMul,
 * Softmax family) checked against small naive references written here
 * independently of the kernels, on random inputs across attribute
 * combinations; plus hand-computed values from the ONNX spec examples,
 * thread-count invariance (1 vs 2 threads give identical bits) and error
 * cases. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/simd/gemm.h"
#include "kernel_harness.h"

/* ---- helpers ----------------------------------------------------------- */

static uint32_t rng_state = 12345;
static double urand(void) /* [-1, 1) */
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return (double)(rng_state >> 8) / (double)(1u << 23) - 1.0;
}

static void *rand_buf(int32_t dtype, int64_t n)
{
    void *p = malloc((size_t)(n > 0 ? n : 1) * kn_dtype_size(dtype));
    for (int64_t i = 0; i < n; i++) {
        double v = urand();
        if (dtype == KN_FLOAT)
            ((float *)p)[i] = (float)v;
        else
            ((double *)p)[i] = v;
    }
    return p;
}

static double get(const void *p, int32_t dtype, int64_t i)
{
    return dtype == KN_FLOAT ? ((const float *)p)[i] : ((const double *)p)[i];
}

static int64_t numel(const int64_t *d, int r)
{
    int64_t n = 1;
    for (int i = 0; i < r; i++)
        n *= d[i];
    return n;
}

/* Runs the case with 3, 2 and 1 threads; all must succeed with the same
 * bits in output 0 (and 1 if present). Leaves the 1-thread outputs in c. */
static void run_both(kh_case *c)
{
    kn_tensor prev[2];
    int nout = c->n_out > 1 ? 2 : 1;
    for (int threads = 3; threads >= 1; threads--) {
        int rc = kh_run(c, threads);
        cr_assert_eq(rc, KN_OK, "%s (%d threads): %s", c->node.op_type, threads, c->err.msg);
        for (int i = 0; i < nout && threads < 3; i++) {
            int64_t nb = kn_tensor_nbytes(&c->out[i]);
            cr_assert(kn_shape_equal(prev[i].dims, prev[i].rank, c->out[i].dims, c->out[i].rank));
            cr_assert(memcmp(prev[i].data, c->out[i].data, (size_t)nb) == 0,
                      "%s: %d and %d threads differ in output %d", c->node.op_type, threads + 1,
                      threads, i);
            free(prev[i].data);
        }
        if (threads > 1)
            for (int i = 0; i < nout; i++) {
                prev[i] = c->out[i];
                c->out[i].data = NULL;
            }
    }
}

static void expect_close(const kn_tensor *t, const double *ref, int64_t n, double tol,
                         const char *what)
{
    cr_assert_eq(kn_tensor_numel(t), n, "%s: %lld elements, expected %lld", what,
                 (long long)kn_tensor_numel(t), (long long)n);
    for (int64_t i = 0; i < n; i++) {
        double v = get(t->data, t->dtype, i);
        cr_assert(fabs(v - ref[i]) <= tol * (1 + fabs(ref[i])), "%s: [%lld] = %.9g, expected %.9g",
                  what, (long long)i, v, ref[i]);
    }
}

static void expect_error(kh_case *c, int code, const char *needle)
{
    int rc = kh_run(c, 1);
    cr_assert_eq(rc, code, "%s: got %d (%s), expected %d", c->node.op_type, rc, c->err.msg, code);
    cr_assert(strstr(c->err.msg, needle), "message '%s' lacks '%s'", c->err.msg, needle);
    kh_free(c);
}

/* ---- window geometry, computed independently of the kernels ------------ */

typedef struct geo {
    int nsp;
    int64_t in[3], k[3], s[3], d[3], pb[3], pe[3], out[3];
} geo;

/* auto_pad: NULL/"NOTSET" uses pads; ceil: pool ceil_mode. */
static void geo_init(geo *g, int nsp, const int64_t *in, const int64_t *k, const int64_t *s,
                     const int64_t *d, const int64_t *pads, const char *auto_pad, int ceil)
{
    g->nsp = nsp;
    for (int i = 0; i < nsp; i++) {
        int64_t ext = (k[i] - 1) * (d ? d[i] : 1) + 1, st = s ? s[i] : 1;
        g->in[i] = in[i];
        g->k[i] = k[i];
        g->s[i] = st;
        g->d[i] = d ? d[i] : 1;
        if (auto_pad && strncmp(auto_pad, "SAME", 4) == 0) {
            g->out[i] = (in[i] + st - 1) / st;
            int64_t total = (g->out[i] - 1) * st + ext - in[i];
            total = total < 0 ? 0 : total;
            int64_t small = total / 2, big = total - small;
            g->pb[i] = strcmp(auto_pad, "SAME_UPPER") == 0 ? small : big;
            g->pe[i] = total - g->pb[i];
        } else {
            int valid = auto_pad && strcmp(auto_pad, "VALID") == 0;
            g->pb[i] = pads && !valid ? pads[i] : 0;
            g->pe[i] = pads && !valid ? pads[nsp + i] : 0;
            int64_t span = in[i] + g->pb[i] + g->pe[i] - ext; /* >= 0 in these tests */
            g->out[i] = (ceil && !valid ? (span + st - 1) / st : span / st) + 1;
            if (ceil && !valid && (g->out[i] - 1) * st >= in[i] + g->pb[i])
                g->out[i]--;
        }
    }
}

static int64_t geo_out(const geo *g)
{
    return numel(g->out, g->nsp);
}

/* Odometer over an nsp-dim index. */
static int next_index(int64_t *idx, const int64_t *lim, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        if (++idx[i] < lim[i])
            return 1;
        idx[i] = 0;
    }
    return 0;
}

/* Flat input offset of output o's tap t, or -1 in padding; *in_pad says
 * whether it lies inside input + padding. */
static int64_t tap_offset(const geo *g, const int64_t *o, const int64_t *t, int *in_pad)
{
    int64_t off = 0;
    int inside = 1;
    *in_pad = 1;
    for (int i = 0; i < g->nsp; i++) {
        int64_t p = o[i] * g->s[i] - g->pb[i] + t[i] * g->d[i];
        if (p < 0 || p >= g->in[i])
            inside = 0;
        if (p >= g->in[i] + g->pe[i])
            *in_pad = 0;
        off = off * g->in[i] + p;
    }
    return inside ? off : -1;
}

/* ---- Conv -------------------------------------------------------------- */

static void ref_conv(const geo *g, const void *x, const void *w, const void *b, int32_t dt,
                     int64_t n, int64_t c, int64_t m, int64_t group, double *y)
{
    int64_t cg = c / group, mg = m / group, in_sz = numel(g->in, g->nsp), kv = numel(g->k, g->nsp);
    int64_t os = geo_out(g);
    for (int64_t b0 = 0; b0 < n; b0++)
        for (int64_t oc = 0; oc < m; oc++) {
            int64_t grp = oc / mg, o[3] = {0, 0, 0};
            do {
                double s = b ? get(b, dt, oc) : 0;
                for (int64_t ic = 0; ic < cg; ic++) {
                    int64_t t[3] = {0, 0, 0}, ti = 0;
                    do {
                        int pad;
                        int64_t off = tap_offset(g, o, t, &pad);
                        if (off >= 0)
                            s += get(x, dt, (b0 * c + grp * cg + ic) * in_sz + off) *
                                 get(w, dt, (oc * cg + ic) * kv + ti);
                        ti++;
                    } while (next_index(t, g->k, g->nsp));
                }
                int64_t oo = 0;
                for (int i = 0; i < g->nsp; i++)
                    oo = oo * g->out[i] + o[i];
                y[(b0 * m + oc) * os + oo] = s;
            } while (next_index(o, g->out, g->nsp));
        }
}

typedef struct conv_spec {
    int32_t dtype;
    int nsp;
    int64_t n, c, m, group;
    int64_t in[3], k[3], s[3], d[3], pads[6];
    const char *auto_pad;
    int bias, give_kernel_shape, hide_data;
} conv_spec;

static void conv_check(const conv_spec *p)
{
    int64_t xd[5] = {p->n, p->c}, wd[5] = {p->m, p->c / p->group}, bd[1] = {p->m};
    for (int i = 0; i < p->nsp; i++) {
        xd[2 + i] = p->in[i];
        wd[2 + i] = p->k[i];
    }
    int r = p->nsp + 2;
    void *x = rand_buf(p->dtype, numel(xd, r)), *w = rand_buf(p->dtype, numel(wd, r));
    void *b = p->bias ? rand_buf(p->dtype, p->m) : NULL;
    kh_case c;
    kh_init(&c, "Conv", 11, p->bias ? 3 : 2, 1);
    kh_input(&c, 0, p->dtype, xd, r, x);
    kh_input(&c, 1, p->dtype, wd, r, w);
    if (b)
        kh_input(&c, 2, p->dtype, bd, 1, b);
    c.inputs_constant_in_prepare = !p->hide_data;
    if (p->group != 1)
        kh_attr_int(&c, "group", p->group);
    kh_attr_ints(&c, "strides", p->s, p->nsp);
    kh_attr_ints(&c, "dilations", p->d, p->nsp);
    if (p->give_kernel_shape)
        kh_attr_ints(&c, "kernel_shape", p->k, p->nsp);
    if (p->auto_pad)
        kh_attr_string(&c, "auto_pad", p->auto_pad);
    else
        kh_attr_ints(&c, "pads", p->pads, 2 * p->nsp);
    run_both(&c);

    geo g;
    geo_init(&g, p->nsp, p->in, p->k, p->s, p->d, p->pads, p->auto_pad, 0);
    int64_t total = p->n * p->m * geo_out(&g);
    double *ref = malloc(sizeof(double) * (size_t)(total ? total : 1));
    ref_conv(&g, x, w, b, p->dtype, p->n, p->c, p->m, p->group, ref);
    cr_assert_eq(c.out[0].rank, r);
    for (int i = 0; i < p->nsp; i++)
        cr_assert_eq(c.out[0].dims[2 + i], g.out[i], "Conv: output dim %d is %lld, expected %lld",
                     i, (long long)c.out[0].dims[2 + i], (long long)g.out[i]);
    expect_close(&c.out[0], ref, total, p->dtype == KN_FLOAT ? 1e-4 : 1e-11, "Conv");
    kh_free(&c);
    free(ref);
    free(x);
    free(w);
    free(b);
}

Test(conv, spec_example_with_and_without_padding)
{
    float x[25], w[9];
    for (int i = 0; i < 25; i++)
        x[i] = (float)i;
    for (int i = 0; i < 9; i++)
        w[i] = 1;
    int64_t xd[4] = {1, 1, 5, 5}, wd[4] = {1, 1, 3, 3}, pads[4] = {1, 1, 1, 1}, ks[2] = {3, 3};
    const double padded[25] = {12, 21, 27, 33, 24, 33, 54, 63, 72, 51, 63, 99, 108,
                               117, 81, 93, 144, 153, 162, 111, 72, 111, 117, 123, 84};
    const double unpadded[9] = {54, 63, 72, 99, 108, 117, 144, 153, 162};
    kh_case c;
    kh_init(&c, "Conv", 1, 2, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 4, x);
    kh_input(&c, 1, KN_FLOAT, wd, 4, w);
    kh_attr_ints(&c, "kernel_shape", ks, 2);
    kh_attr_ints(&c, "pads", pads, 4);
    run_both(&c);
    expect_close(&c.out[0], padded, 25, 0, "Conv padded");
    kh_free(&c);
    kh_init(&c, "Conv", 11, 2, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 4, x);
    kh_input(&c, 1, KN_FLOAT, wd, 4, w);
    run_both(&c);
    cr_assert_eq(c.out[0].dims[2], 3);
    expect_close(&c.out[0], unpadded, 9, 0, "Conv unpadded");
    kh_free(&c);
}

Test(conv, random_2d_sweep)
{
    const char *pads_modes[] = {NULL, "SAME_UPPER", "SAME_LOWER", "VALID"};
    int count = 0;
    for (int dt = 0; dt < 2; dt++)
        for (int mode = 0; mode < 4; mode++)
            for (int64_t s = 1; s <= 2; s++)
                for (int64_t d = 1; d <= 2; d++)
                    for (int grp = 0; grp < 3; grp++) {
                        conv_spec p = {.dtype = dt ? KN_DOUBLE : KN_FLOAT, .nsp = 2, .n = 2};
                        p.group = grp == 0 ? 1 : grp == 1 ? 2 : 4;
                        p.c = 4;
                        p.m = grp == 2 ? 8 : 6; /* depthwise with multiplier 2 */
                        p.in[0] = 7 + s;
                        p.in[1] = 9;
                        p.k[0] = 3;
                        p.k[1] = 2 + d;
                        p.s[0] = s;
                        p.s[1] = 3 - s;
                        p.d[0] = d;
                        p.d[1] = 1;
                        int64_t pads[4] = {1, 0, 2, 1};
                        memcpy(p.pads, pads, sizeof pads);
                        p.auto_pad = pads_modes[mode];
                        p.bias = (count++ % 2) == 0;
                        p.give_kernel_shape = count % 3 == 0;
                        p.hide_data = count % 5 == 0;
                        conv_check(&p);
                    }
}

Test(conv, pointwise_depthwise_1d_3d)
{
    /* 1x1 stride 1 (no im2col), bigger than one GEMM block */
    conv_spec p = {.dtype = KN_FLOAT, .nsp = 2, .n = 1, .c = 40, .m = 70, .group = 1,
                   .in = {20, 23}, .k = {1, 1}, .s = {1, 1}, .d = {1, 1}, .bias = 1};
    conv_check(&p);
    /* 1x1 with stride 2 goes through im2col */
    conv_spec p2 = p;
    p2.s[0] = p2.s[1] = 2;
    conv_check(&p2);
    /* pure depthwise 3x3, stride 2, padded */
    conv_spec dw = {.dtype = KN_FLOAT, .nsp = 2, .n = 2, .c = 16, .m = 16, .group = 16,
                    .in = {13, 12}, .k = {3, 3}, .s = {2, 2}, .d = {1, 1}, .pads = {1, 1, 1, 1},
                    .bias = 1};
    conv_check(&dw);
    dw.s[0] = dw.s[1] = 1;
    dw.d[1] = 2;
    conv_check(&dw);
    /* 1-D and 3-D */
    conv_spec c1 = {.dtype = KN_DOUBLE, .nsp = 1, .n = 3, .c = 3, .m = 5, .group = 1, .in = {17},
                    .k = {4}, .s = {3}, .d = {2}, .pads = {2, 1}, .bias = 1};
    conv_check(&c1);
    conv_spec c3 = {.dtype = KN_FLOAT, .nsp = 3, .n = 1, .c = 4, .m = 6, .group = 2,
                    .in = {5, 6, 7}, .k = {2, 3, 3}, .s = {1, 2, 1}, .d = {2, 1, 1},
                    .pads = {0, 1, 1, 1, 0, 1}};
    conv_check(&c3);
    c3.auto_pad = "SAME_LOWER";
    conv_check(&c3);
    /* a layer-sized case that takes several GEMM tiles and parallel tasks */
    conv_spec big = {.dtype = KN_FLOAT, .nsp = 2, .n = 1, .c = 32, .m = 40, .group = 1,
                     .in = {30, 30}, .k = {3, 3}, .s = {1, 1}, .d = {1, 1}, .pads = {1, 1, 1, 1},
                     .bias = 1};
    conv_check(&big);
}

Test(conv, errors)
{
    float data[256] = {0};
    int64_t xd[4] = {1, 3, 4, 4}, wd[4] = {2, 4, 3, 3}, wd_ok[4] = {2, 3, 3, 3}, bd[1] = {3};
    kh_case c;
    kh_init(&c, "Conv", 11, 2, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 4, data);
    kh_input(&c, 1, KN_FLOAT, wd, 4, data);
    expect_error(&c, KN_ERR_SHAPE, "input channels 3 do not match weight channels 4 x group 1");

    kh_init(&c, "Conv", 11, 2, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 4, data);
    kh_input(&c, 1, KN_FLOAT, wd_ok, 4, data);
    kh_attr_int(&c, "group", 2);
    expect_error(&c, KN_ERR_INVALID_MODEL, "group 2");

    kh_init(&c, "Conv", 11, 2, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 4, data);
    kh_input(&c, 1, KN_FLOAT, wd_ok, 3, data);
    expect_error(&c, KN_ERR_SHAPE, "rank");

    kh_init(&c, "Conv", 11, 3, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 4, data);
    kh_input(&c, 1, KN_FLOAT, wd_ok, 4, data);
    kh_input(&c, 2, KN_FLOAT, bd, 1, data);
    expect_error(&c, KN_ERR_SHAPE, "bias");

    int64_t ks[2] = {2, 2};
    kh_init(&c, "Conv", 11, 2, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 4, data);
    kh_input(&c, 1, KN_FLOAT, wd_ok, 4, data);
    kh_attr_ints(&c, "kernel_shape", ks, 2);
    expect_error(&c, KN_ERR_SHAPE, "kernel_shape");

    int64_t big[4] = {2, 3, 6, 6};
    kh_init(&c, "Conv", 11, 2, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 4, data);
    kh_input(&c, 1, KN_FLOAT, big, 4, data);
    expect_error(&c, KN_ERR_SHAPE, "larger than");

    kh_init(&c, "Conv", 11, 2, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 4, data);
    kh_input(&c, 1, KN_DOUBLE, wd_ok, 4, data);
    expect_error(&c, KN_ERR_DTYPE, "W is float64");

    kh_init(&c, "Conv", 11, 2, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 4, data);
    kh_input(&c, 1, KN_FLOAT, wd_ok, 4, data);
    kh_attr_string(&c, "auto_pad", "SAME");
    expect_error(&c, KN_ERR_INVALID_MODEL, "auto_pad");
}

/* ---- MaxPool / AveragePool --------------------------------------------- */

typedef struct pool_spec {
    const char *op;
    int64_t opset;
    int32_t dtype;
    int nsp;
    int64_t n, c, in[3], k[3], s[3], d[3], pads[6];
    const char *auto_pad;
    int ceil, count_include_pad, indices, storage_order;
} pool_spec;

/* Reference: per output, reduce the taps inside the input (max; average
 * over inside taps, or over taps inside input + padding). */
static void ref_pool(const pool_spec *p, const geo *g, const void *x, double *y, int64_t *ind)
{
    int is_max = strcmp(p->op, "MaxPool") == 0;
    int64_t in_sz = numel(g->in, g->nsp), os = geo_out(g);
    for (int64_t pl = 0; pl < p->n * p->c; pl++) {
        int64_t o[3] = {0, 0, 0}, oi = 0;
        do {
            int64_t t[3] = {0, 0, 0}, best_at = -1, count = 0;
            double acc = is_max ? -INFINITY : 0;
            do {
                int pad;
                int64_t off = tap_offset(g, o, t, &pad);
                if (off >= 0) {
                    double v = p->dtype == KN_FLOAT    ? ((const float *)x)[pl * in_sz + off]
                               : p->dtype == KN_DOUBLE ? ((const double *)x)[pl * in_sz + off]
                               : p->dtype == KN_INT8   ? ((const int8_t *)x)[pl * in_sz + off]
                                                       : ((const uint8_t *)x)[pl * in_sz + off];
                    if (is_max && (best_at < 0 || v > acc)) {
                        acc = v;
                        best_at = off;
                    }
                    if (!is_max)
                        acc += v;
                }
                if (p->count_include_pad ? pad : off >= 0)
                    count++;
            } while (next_index(t, g->k, g->nsp));
            if (!is_max)
                acc /= (double)count;
            y[pl * os + oi] = acc;
            if (ind) {
                int64_t at = best_at;
                if (p->storage_order) { /* column-major spatial index */
                    int64_t rem = best_at, idx[3], mul = 1;
                    for (int i = g->nsp - 1; i >= 0; i--) {
                        idx[i] = rem % g->in[i];
                        rem /= g->in[i];
                    }
                    at = 0;
                    for (int i = 0; i < g->nsp; i++) {
                        at += idx[i] * mul;
                        mul *= g->in[i];
                    }
                }
                ind[pl * os + oi] = pl * in_sz + at;
            }
            oi++;
        } while (next_index(o, g->out, g->nsp));
    }
}

static void pool_check(const pool_spec *p)
{
    int64_t xd[5] = {p->n, p->c};
    for (int i = 0; i < p->nsp; i++)
        xd[2 + i] = p->in[i];
    int r = p->nsp + 2;
    int64_t nx = numel(xd, r);
    void *x = malloc((size_t)nx * kn_dtype_size(p->dtype));
    for (int64_t i = 0; i < nx; i++) {
        double v = urand();
        switch (p->dtype) {
        case KN_FLOAT: ((float *)x)[i] = (float)v; break;
        case KN_DOUBLE: ((double *)x)[i] = v; break;
        case KN_INT8: ((int8_t *)x)[i] = (int8_t)(v * 127); break;
        default: ((uint8_t *)x)[i] = (uint8_t)(v * 127 + 128); break;
        }
    }
    kh_case c;
    kh_init(&c, p->op, p->opset, 1, p->indices ? 2 : 1);
    kh_input(&c, 0, p->dtype, xd, r, x);
    kh_attr_ints(&c, "kernel_shape", p->k, p->nsp);
    kh_attr_ints(&c, "strides", p->s, p->nsp);
    if (p->d[0])
        kh_attr_ints(&c, "dilations", p->d, p->nsp);
    if (p->auto_pad)
        kh_attr_string(&c, "auto_pad", p->auto_pad);
    else
        kh_attr_ints(&c, "pads", p->pads, 2 * p->nsp);
    if (p->ceil)
        kh_attr_int(&c, "ceil_mode", 1);
    if (p->count_include_pad)
        kh_attr_int(&c, "count_include_pad", 1);
    if (p->storage_order)
        kh_attr_int(&c, "storage_order", 1);
    run_both(&c);

    geo g;
    geo_init(&g, p->nsp, p->in, p->k, p->s, p->d[0] ? p->d : NULL, p->pads, p->auto_pad, p->ceil);
    int64_t total = p->n * p->c * geo_out(&g);
    double *ref = malloc(sizeof(double) * (size_t)total);
    int64_t *ind = p->indices ? malloc(sizeof(int64_t) * (size_t)total) : NULL;
    ref_pool(p, &g, x, ref, ind);
    for (int i = 0; i < p->nsp; i++)
        cr_assert_eq(c.out[0].dims[2 + i], g.out[i], "%s: output dim %d is %lld, expected %lld",
                     p->op, i, (long long)c.out[0].dims[2 + i], (long long)g.out[i]);
    cr_assert_eq(kn_tensor_numel(&c.out[0]), total);
    for (int64_t i = 0; i < total; i++) {
        double v = p->dtype == KN_FLOAT    ? ((float *)c.out[0].data)[i]
                   : p->dtype == KN_DOUBLE ? ((double *)c.out[0].data)[i]
                   : p->dtype == KN_INT8   ? ((int8_t *)c.out[0].data)[i]
                                           : ((uint8_t *)c.out[0].data)[i];
        cr_assert(fabs(v - ref[i]) <= 1e-5 * (1 + fabs(ref[i])), "%s [%lld]: %g, expected %g",
                  p->op, (long long)i, v, ref[i]);
        if (ind)
            cr_assert_eq(((int64_t *)c.out[1].data)[i], ind[i],
                         "%s index [%lld]: %lld, expected %lld", p->op, (long long)i,
                         (long long)((int64_t *)c.out[1].data)[i], (long long)ind[i]);
    }
    if (ind)
        cr_assert_eq(c.out[1].dtype, KN_INT64);
    kh_free(&c);
    free(ref);
    free(ind);
    free(x);
}

Test(pool, spec_examples)
{
    float x[25];
    for (int i = 0; i < 25; i++)
        x[i] = (float)(i + 1);
    int64_t xd4[4] = {1, 1, 4, 4}, xd5[4] = {1, 1, 5, 5}, k3[2] = {3, 3}, k2[2] = {2, 2};
    int64_t s2[2] = {2, 2};
    /* test_maxpool_2d_ceil / test_averagepool_2d_ceil: 4x4 input, k3 s2 */
    const double max_ceil[4] = {11, 12, 15, 16}, avg_ceil[4] = {6, 7.5, 12, 13.5};
    for (int op = 0; op < 2; op++) {
        kh_case c;
        kh_init(&c, op ? "AveragePool" : "MaxPool", 12, 1, 1);
        kh_input(&c, 0, KN_FLOAT, xd4, 4, x);
        kh_attr_ints(&c, "kernel_shape", k3, 2);
        kh_attr_ints(&c, "strides", s2, 2);
        kh_attr_int(&c, "ceil_mode", 1);
        run_both(&c);
        expect_close(&c.out[0], op ? avg_ceil : max_ceil, 4, 0, c.node.op_type);
        kh_free(&c);
    }
    /* test_maxpool_with_argmax_2d_precomputed_strides: storage_order 1 */
    const double y[4] = {7, 9, 17, 19};
    const int64_t ind[4] = {6, 16, 8, 18};
    kh_case c;
    kh_init(&c, "MaxPool", 8, 1, 2);
    kh_input(&c, 0, KN_FLOAT, xd5, 4, x);
    kh_attr_ints(&c, "kernel_shape", k2, 2);
    kh_attr_ints(&c, "strides", s2, 2);
    kh_attr_int(&c, "storage_order", 1);
    run_both(&c);
    expect_close(&c.out[0], y, 4, 0, "MaxPool");
    cr_assert(memcmp(c.out[1].data, ind, sizeof ind) == 0);
    kh_free(&c);
}

Test(pool, random_sweep)
{
    const char *modes[] = {NULL, "SAME_UPPER", "SAME_LOWER", "VALID"};
    for (int op = 0; op < 2; op++)
        for (int mode = 0; mode < 4; mode++)
            for (int variant = 0; variant < 8; variant++) {
                pool_spec p = {.op = op ? "AveragePool" : "MaxPool", .opset = op ? 19 : 12,
                               .dtype = variant & 1 ? KN_DOUBLE : KN_FLOAT, .nsp = 2, .n = 2,
                               .c = 3, .in = {9, 8}, .k = {3, 2}, .s = {2, 1}};
                p.auto_pad = modes[mode];
                int64_t pads[4] = {1, 0, 2, 1};
                memcpy(p.pads, pads, sizeof pads);
                p.ceil = (variant >> 1) & 1;
                if (variant & 4) {
                    p.d[0] = 2;
                    p.d[1] = 1;
                }
                p.count_include_pad = op && ((variant >> 1) & 1);
                p.indices = !op;
                p.storage_order = !op && variant == 5;
                pool_check(&p);
            }
}

Test(pool, ranks_types_and_old_opsets)
{
    pool_spec m1 = {.op = "MaxPool", .opset = 1, .dtype = KN_FLOAT, .nsp = 1, .n = 2, .c = 2,
                    .in = {11}, .k = {3}, .s = {2}, .pads = {1, 1}};
    pool_check(&m1);
    pool_spec a3 = {.op = "AveragePool", .opset = 11, .dtype = KN_FLOAT, .nsp = 3, .n = 1, .c = 2,
                    .in = {5, 6, 7}, .k = {2, 3, 2}, .s = {1, 2, 2}, .pads = {1, 1, 0, 0, 1, 1},
                    .ceil = 1, .count_include_pad = 1};
    pool_check(&a3);
    a3.count_include_pad = 0;
    pool_check(&a3);
    pool_spec m3 = {.op = "MaxPool", .opset = 12, .dtype = KN_DOUBLE, .nsp = 3, .n = 1, .c = 2,
                    .in = {4, 5, 6}, .k = {2, 2, 3}, .s = {2, 1, 2}, .d = {1, 2, 1},
                    .pads = {0, 1, 1, 1, 0, 1}, .indices = 1, .storage_order = 1};
    pool_check(&m3);
    for (int t = 0; t < 2; t++) {
        pool_spec q = {.op = "MaxPool", .opset = 12, .dtype = t ? KN_UINT8 : KN_INT8, .nsp = 2,
                       .n = 1, .c = 3, .in = {7, 7}, .k = {3, 3}, .s = {2, 2},
                       .pads = {1, 1, 1, 1}, .indices = 1};
        pool_check(&q);
    }
}

Test(pool, errors)
{
    float x[64] = {0};
    int64_t xd[4] = {1, 1, 4, 4}, k3[2] = {3, 3}, k1[1] = {3}, k5[2] = {5, 5}, zero[2] = {1, 0};
    kh_case c;
    kh_init(&c, "MaxPool", 12, 1, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 4, x);
    expect_error(&c, KN_ERR_INVALID_MODEL, "kernel_shape");
    kh_init(&c, "MaxPool", 12, 1, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 4, x);
    kh_attr_ints(&c, "kernel_shape", k1, 1);
    expect_error(&c, KN_ERR_INVALID_MODEL, "kernel_shape has 1 values");
    kh_init(&c, "AveragePool", 11, 1, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 4, x);
    kh_attr_ints(&c, "kernel_shape", k5, 2);
    expect_error(&c, KN_ERR_SHAPE, "larger than");
    kh_init(&c, "AveragePool", 11, 1, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 4, x);
    kh_attr_ints(&c, "kernel_shape", k3, 2);
    kh_attr_ints(&c, "strides", zero, 2);
    expect_error(&c, KN_ERR_INVALID_MODEL, "strides[1]");
    kh_init(&c, "MaxPool", 12, 1, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 2, x);
    kh_attr_ints(&c, "kernel_shape", k3, 2);
    expect_error(&c, KN_ERR_SHAPE, "rank 2");
}

Test(pool, global)
{
    int64_t xd[5] = {2, 3, 4, 5, 3};
    int64_t n = numel(xd, 5), plane = 60;
    for (int dt = 0; dt < 2; dt++) {
        int32_t dtype = dt ? KN_DOUBLE : KN_FLOAT;
        void *x = rand_buf(dtype, n);
        double mx[6], av[6];
        for (int p = 0; p < 6; p++) {
            mx[p] = -INFINITY;
            av[p] = 0;
            for (int64_t i = 0; i < plane; i++) {
                double v = get(x, dtype, p * plane + i);
                mx[p] = v > mx[p] ? v : mx[p];
                av[p] += v / (double)plane;
            }
        }
        for (int op = 0; op < 2; op++) {
            kh_case c;
            kh_init(&c, op ? "GlobalMaxPool" : "GlobalAveragePool", 1, 1, 1);
            kh_input(&c, 0, dtype, xd, op ? 5 : 4, x);
            if (!op) /* rank 4 view of the same data: planes of 4 x 5 x 3 = 20 x 3 */
                c.in[0].dims[3] = 15;
            run_both(&c);
            cr_assert_eq(c.out[0].rank, op ? 5 : 4);
            cr_assert_eq(c.out[0].dims[2], 1);
            cr_assert_eq(c.out[0].dims[1], 3);
            expect_close(&c.out[0], op ? mx : av, 6, 1e-6, c.node.op_type);
            kh_free(&c);
        }
        free(x);
    }
}

/* ---- BatchNormalization ------------------------------------------------ */

static void bn_check(int64_t opset, int32_t dtype, int32_t pdtype, const int64_t *xd, int r,
                     int spatial0, int hide)
{
    int64_t c = xd[1], inner = numel(xd, r) / (xd[0] * c);
    int64_t pn = spatial0 ? c * inner : c, pd[1] = {pn};
    void *x = rand_buf(dtype, numel(xd, r));
    void *prm[4];
    for (int i = 0; i < 4; i++)
        prm[i] = rand_buf(pdtype, pn);
    for (int64_t i = 0; i < pn; i++) /* variance must be positive */
        if (pdtype == KN_FLOAT)
            ((float *)prm[3])[i] = fabsf(((float *)prm[3])[i]) + 0.1f;
        else
            ((double *)prm[3])[i] = fabs(((double *)prm[3])[i]) + 0.1;
    kh_case k;
    kh_init(&k, "BatchNormalization", opset, 5, 1);
    kh_input(&k, 0, dtype, xd, r, x);
    for (int i = 0; i < 4; i++)
        kh_input(&k, 1 + i, pdtype, pd, 1, prm[i]);
    kh_attr_float(&k, "epsilon", 1e-3f);
    if (spatial0)
        kh_attr_int(&k, "spatial", 0);
    k.inputs_constant_in_prepare = !hide;
    run_both(&k);
    int64_t n = numel(xd, r);
    double *ref = malloc(sizeof(double) * (size_t)n);
    for (int64_t i = 0; i < n; i++) {
        int64_t ch = (i / inner) % c, e = spatial0 ? ch * inner + i % inner : ch;
        double sc = get(prm[0], pdtype, e), b = get(prm[1], pdtype, e);
        double m = get(prm[2], pdtype, e), v = get(prm[3], pdtype, e);
        ref[i] = (get(x, dtype, i) - m) / sqrt(v + (double)1e-3f) * sc + b;
    }
    expect_close(&k.out[0], ref, n, dtype == KN_FLOAT ? 2e-6 : 1e-12, "BatchNormalization");
    kh_free(&k);
    free(ref);
    free(x);
    for (int i = 0; i < 4; i++)
        free(prm[i]);
}

Test(batchnorm, values_across_opsets_and_ranks)
{
    int64_t x4[4] = {2, 3, 5, 7}, x2[2] = {4, 6}, x5[5] = {1, 2, 3, 4, 5}, x3[3] = {2, 3, 40};
    bn_check(1, KN_FLOAT, KN_FLOAT, x4, 4, 0, 0);
    bn_check(6, KN_DOUBLE, KN_DOUBLE, x2, 2, 0, 1);
    bn_check(7, KN_FLOAT, KN_FLOAT, x3, 3, 1, 0); /* spatial=0: per-element statistics */
    bn_check(9, KN_FLOAT, KN_FLOAT, x5, 5, 0, 1);
    bn_check(14, KN_DOUBLE, KN_DOUBLE, x4, 4, 0, 0);
    bn_check(15, KN_FLOAT, KN_DOUBLE, x3, 3, 0, 0); /* T2 statistics in double */
}

Test(batchnorm, training_mode_uses_batch_statistics)
{
    /* Channel c holds c*4 + {1, 2, 3, 4}: mean c*4 + 2.5, variance 1.25. */
    float x[12], ones[3] = {1, 1, 1}, zeros[3] = {0, 0, 0};
    for (int i = 0; i < 12; i++)
        x[i] = (float)(i + 1);
    int64_t xd[4] = {1, 3, 2, 2}, pd[1] = {3};
    kh_case c;
    kh_init(&c, "BatchNormalization", 15, 5, 3);
    kh_input(&c, 0, KN_FLOAT, xd, 4, x);
    kh_input(&c, 1, KN_FLOAT, pd, 1, ones);  /* scale */
    kh_input(&c, 2, KN_FLOAT, pd, 1, zeros); /* B */
    kh_input(&c, 3, KN_FLOAT, pd, 1, zeros); /* input mean */
    kh_input(&c, 4, KN_FLOAT, pd, 1, ones);  /* input var */
    kh_attr_int(&c, "training_mode", 1);
    kh_attr_float(&c, "epsilon", 0);
    cr_assert_eq(kh_run(&c, 1), KN_OK, "%s", c.err.msg);
    const float *y = c.out[0].data, *rm = c.out[1].data, *rv = c.out[2].data;
    for (int i = 0; i < 12; i++) {
        float expect = (float)(((i % 4) + 1 - 2.5) / sqrt(1.25));
        cr_assert_float_eq(y[i], expect, 1e-5, "y[%d] = %f, expected %f", i, y[i], expect);
    }
    for (int ch = 0; ch < 3; ch++) {
        cr_assert_float_eq(rm[ch], 0.1f * (ch * 4 + 2.5f), 1e-5, "running mean %d", ch);
        cr_assert_float_eq(rv[ch], 0.9f + 0.1f * 1.25f, 1e-5, "running var %d", ch);
    }
    kh_free(&c);
}

Test(batchnorm, unsupported_training_outputs_and_bad_shapes)
{
    float d[64] = {0};
    int64_t xd[4] = {1, 3, 2, 2}, pd[1] = {3}, bad[1] = {4};
    kh_case c;

    kh_init(&c, "BatchNormalization", 9, 5, 3);
    kh_input(&c, 0, KN_FLOAT, xd, 4, d);
    for (int i = 1; i < 5; i++)
        kh_input(&c, i, KN_FLOAT, pd, 1, d);
    expect_error(&c, KN_ERR_UNSUPPORTED, "output 1");

    kh_init(&c, "BatchNormalization", 9, 5, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 4, d);
    for (int i = 1; i < 5; i++)
        kh_input(&c, i, KN_FLOAT, i == 3 ? bad : pd, 1, d);
    expect_error(&c, KN_ERR_SHAPE, "mean has 4 elements");
}

/* ---- the shared GEMM routine ------------------------------------------- */

/* Leading dims wider than the rows, bias, pre-packed A, a workspace too
 * small for packing (naive fallback) and 1 vs 2 threads, against a
 * double-precision reference. */
static void routine_check(int32_t dt, int ta, int tb, int64_t m, int64_t n, int64_t k, int pack,
                          int tiny_ws)
{
    int64_t lda = (ta ? m : k) + 3, ldb = (tb ? k : n) + 5, ldc = n + 7;
    size_t esz = kn_dtype_size(dt);
    void *a = rand_buf(dt, lda * (ta ? k : m)), *b = rand_buf(dt, ldb * (tb ? n : k));
    void *bias = rand_buf(dt, m), *c0 = rand_buf(dt, ldc * m);
    void *c[2] = {malloc(esz * (size_t)(ldc * m)), malloc(esz * (size_t)(ldc * m))};
    void *packed = NULL;
    if (pack) {
        packed = malloc(kn_gemm_packed_a_size(dt, m, k));
        kn_gemm_pack_a(dt, ta, m, k, a, lda, packed);
    }
    kn_threadpool *pool = kn_threadpool_create(2);
    for (int t = 0; t < 2; t++) {
        memcpy(c[t], c0, esz * (size_t)(ldc * m));
        size_t ws_bytes = tiny_ws ? 64 : kn_gemm_workspace_size(dt, m, n, k, t + 1);
        void *ws = aligned_alloc(64, (ws_bytes + 63) & ~(size_t)63);
        kn_gemm_args g = {.trans_a = ta, .trans_b = tb, .m = m, .n = n, .k = k, .alpha = 0.75,
                          .beta = 1.5, .a = a, .lda = lda, .b = b, .ldb = ldb, .c = c[t],
                          .ldc = ldc, .bias = bias, .packed_a = packed};
        kn_gemm(dt, t ? pool : NULL, &g, ws, ws_bytes);
        free(ws);
    }
    kn_threadpool_destroy(pool);
    cr_assert(memcmp(c[0], c[1], esz * (size_t)(ldc * m)) == 0, "GEMM: 1 and 2 threads differ");
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < ldc; j++) {
            double want = get(c0, dt, i * ldc + j); /* padding columns stay untouched */
            if (j < n) {
                double s = 0;
                for (int64_t p = 0; p < k; p++)
                    s += get(a, dt, ta ? p * lda + i : i * lda + p) *
                         get(b, dt, tb ? j * ldb + p : p * ldb + j);
                want = 0.75 * s + 1.5 * want + get(bias, dt, i);
            }
            double got = get(c[0], dt, i * ldc + j);
            cr_assert(fabs(got - want) <= (dt == KN_FLOAT ? 1e-4 : 1e-11) * (1 + fabs(want)),
                      "GEMM %s ta%d tb%d %lldx%lldx%lld: [%lld,%lld] = %g, expected %g",
                      kn_dtype_name(dt), ta, tb, (long long)m, (long long)n, (long long)k,
                      (long long)i, (long long)j, got, want);
        }
    free(a);
    free(b);
    free(bias);
    free(c0);
    free(c[0]);
    free(c[1]);
    free(packed);
}

Test(gemm, shared_routine)
{
    int64_t sizes[][3] = {{1, 1, 1}, {13, 1, 40}, {1, 70, 9}, {6, 16, 1},
                          {7, 17, 300}, {150, 40, 20}, {33, 600, 257}};
    for (int dt = 0; dt < 2; dt++)
        for (int s = 0; s < 7; s++)
            for (int t = 0; t < 4; t++)
                routine_check(dt ? KN_DOUBLE : KN_FLOAT, t & 1, t >> 1, sizes[s][0], sizes[s][1],
                              sizes[s][2], (s + t) % 2, s == 4 && t == 1);
}

/* ---- Gemm -------------------------------------------------------------- */

static void gemm_check(int64_t opset, int32_t dtype, int64_t m, int64_t n, int64_t k, int ta,
                       int tb, float alpha, float beta, const int64_t *cd, int crank)
{
    int64_t ad[2] = {ta ? k : m, ta ? m : k}, bd[2] = {tb ? n : k, tb ? k : n};
    void *a = rand_buf(dtype, m * k), *b = rand_buf(dtype, k * n);
    void *cm = cd ? rand_buf(dtype, numel(cd, crank)) : NULL;
    kh_case c;
    kh_init(&c, "Gemm", opset, cd ? 3 : 2, 1);
    kh_input(&c, 0, dtype, ad, 2, a);
    kh_input(&c, 1, dtype, bd, 2, b);
    if (cd)
        kh_input(&c, 2, dtype, cd, crank, cm);
    if (ta)
        kh_attr_int(&c, "transA", 1);
    if (tb)
        kh_attr_int(&c, "transB", 1);
    kh_attr_float(&c, "alpha", alpha);
    kh_attr_float(&c, "beta", beta);
    if (opset < 7)
        kh_attr_int(&c, "broadcast", 1);
    run_both(&c);
    double *ref = malloc(sizeof(double) * (size_t)(m * n));
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double s = 0;
            for (int64_t p = 0; p < k; p++)
                s += get(a, dtype, ta ? p * m + i : i * k + p) *
                     get(b, dtype, tb ? j * k + p : p * n + j);
            double cv = 0;
            if (cd) { /* right-aligned broadcast of C */
                int64_t c0 = crank == 2 ? cd[0] : 1, c1 = crank >= 1 ? cd[crank - 1] : 1;
                cv = get(cm, dtype, (c0 == 1 ? 0 : i) * c1 + (c1 == 1 ? 0 : j));
            }
            ref[i * n + j] = (double)alpha * s + (double)beta * cv;
        }
    cr_assert_eq(c.out[0].dims[0], m);
    cr_assert_eq(c.out[0].dims[1], n);
    expect_close(&c.out[0], ref, m * n, dtype == KN_FLOAT ? 1e-4 : 1e-11, "Gemm");
    kh_free(&c);
    free(ref);
    free(a);
    free(b);
    free(cm);
}

Test(gemm, transposes_scalars_and_c_broadcasts)
{
    int64_t sizes[][3] = {{3, 5, 4}, {1, 37, 20}, {29, 1, 33}, {70, 90, 300}, {7, 3, 0}};
    for (int s = 0; s < 5; s++)
        for (int t = 0; t < 4; t++) {
            int64_t m = sizes[s][0], n = sizes[s][1], k = sizes[s][2];
            int64_t full[2] = {m, n}, row[1] = {n}, col[2] = {m, 1}, one[1] = {1};
            int32_t dt = t == 3 ? KN_DOUBLE : KN_FLOAT;
            gemm_check(13, dt, m, n, k, t & 1, (t >> 1) & 1, 0.5f, 2.0f, full, 2);
            gemm_check(11, dt, m, n, k, t & 1, t == 0, 1.0f, 1.0f, row, 1);
            gemm_check(9, dt, m, n, k, t == 1, t & 1, -1.5f, 0.25f, col, 2);
            gemm_check(6, dt, m, n, k, 0, t & 1, 1.0f, 3.0f, one, 0 + 1);
            gemm_check(7, dt, m, n, k, t & 1, 1, 1.0f, 1.0f, one, 0); /* scalar C */
            gemm_check(13, dt, m, n, k, t & 1, 0, 2.0f, 1.0f, NULL, 0);
            gemm_check(13, dt, m, n, k, 0, 0, 1.0f, 0.0f, full, 2); /* beta 0 ignores C */
        }
}

Test(gemm, errors)
{
    float d[64] = {0};
    int64_t ad[2] = {2, 3}, bd[2] = {4, 5}, bd_ok[2] = {3, 5}, cd[1] = {4}, vec[1] = {5};
    kh_case c;
    kh_init(&c, "Gemm", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, ad, 2, d);
    kh_input(&c, 1, KN_FLOAT, bd, 2, d);
    expect_error(&c, KN_ERR_SHAPE, "A' is 2x3");
    kh_init(&c, "Gemm", 13, 3, 1);
    kh_input(&c, 0, KN_FLOAT, ad, 2, d);
    kh_input(&c, 1, KN_FLOAT, bd_ok, 2, d);
    kh_input(&c, 2, KN_FLOAT, cd, 1, d);
    expect_error(&c, KN_ERR_SHAPE, "does not broadcast");
    kh_init(&c, "Gemm", 6, 3, 1); /* broadcast=0 wants C exactly M x N */
    kh_input(&c, 0, KN_FLOAT, ad, 2, d);
    kh_input(&c, 1, KN_FLOAT, bd_ok, 2, d);
    kh_input(&c, 2, KN_FLOAT, vec, 1, d);
    expect_error(&c, KN_ERR_SHAPE, "does not broadcast");
    kh_init(&c, "Gemm", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, ad, 1, d);
    kh_input(&c, 1, KN_FLOAT, bd_ok, 2, d);
    expect_error(&c, KN_ERR_SHAPE, "2-D");
}

/* ---- MatMul ------------------------------------------------------------ */

static double int_get(const void *p, int32_t dt, int64_t i)
{
    switch (dt) {
    case KN_INT32: return ((const int32_t *)p)[i];
    case KN_INT64: return (double)((const int64_t *)p)[i];
    case KN_UINT32: return ((const uint32_t *)p)[i];
    case KN_UINT64: return (double)((const uint64_t *)p)[i];
    default: return get(p, dt, i);
    }
}

static void *matmul_buf(int32_t dt, int64_t n)
{
    if (dt == KN_FLOAT || dt == KN_DOUBLE)
        return rand_buf(dt, n);
    void *p = malloc((size_t)(n ? n : 1) * kn_dtype_size(dt));
    for (int64_t i = 0; i < n; i++) {
        int64_t v = (int64_t)(urand() * 50);
        if (dt == KN_UINT32 || dt == KN_UINT64)
            v = v < 0 ? -v : v;
        switch (dt) {
        case KN_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
        case KN_INT64: ((int64_t *)p)[i] = v; break;
        case KN_UINT32: ((uint32_t *)p)[i] = (uint32_t)v; break;
        default: ((uint64_t *)p)[i] = (uint64_t)v; break;
        }
    }
    return p;
}

/* numpy matmul reference via explicit promotion and broadcasting. */
static void matmul_check(int32_t dt, const int64_t *ad, int ar, const int64_t *bd, int br)
{
    void *a = matmul_buf(dt, numel(ad, ar)), *b = matmul_buf(dt, numel(bd, br));
    kh_case c;
    kh_init(&c, "MatMul", 13, 2, 1);
    kh_input(&c, 0, dt, ad, ar, a);
    kh_input(&c, 1, dt, bd, br, b);
    run_both(&c);
    int64_t m = ar == 1 ? 1 : ad[ar - 2], k = ad[ar - 1], n = br == 1 ? 1 : bd[br - 1];
    int ab = ar > 2 ? ar - 2 : 0, bb = br > 2 ? br - 2 : 0, rb = ab > bb ? ab : bb;
    int64_t od[8];
    int orank = 0;
    for (int i = 0; i < rb; i++) {
        int64_t da = i - (rb - ab) >= 0 ? ad[i - (rb - ab)] : 1;
        int64_t db = i - (rb - bb) >= 0 ? bd[i - (rb - bb)] : 1;
        od[orank++] = da > db ? da : db;
    }
    int64_t batches = numel(od, rb);
    if (ar > 1)
        od[orank++] = m;
    if (br > 1)
        od[orank++] = n;
    cr_assert(kn_shape_equal(c.out[0].dims, c.out[0].rank, od, orank), "MatMul: output shape");
    double *ref = malloc(sizeof(double) * (size_t)(batches * m * n + 1));
    for (int64_t bi = 0; bi < batches; bi++) {
        int64_t rem = bi, aoff = 0, boff = 0, astride = m * k, bstride = k * n;
        for (int i = rb - 1; i >= 0; i--) {
            int64_t idx = rem % od[i];
            rem /= od[i];
            int ia = i - (rb - ab), ib = i - (rb - bb);
            if (ia >= 0) {
                aoff += (ad[ia] == 1 ? 0 : idx) * astride;
                astride *= ad[ia];
            }
            if (ib >= 0) {
                boff += (bd[ib] == 1 ? 0 : idx) * bstride;
                bstride *= bd[ib];
            }
        }
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                double s = 0;
                for (int64_t p = 0; p < k; p++)
                    s += int_get(a, dt, aoff + i * k + p) * int_get(b, dt, boff + p * n + j);
                ref[(bi * m + i) * n + j] = s;
            }
    }
    int64_t total = batches * m * n;
    for (int64_t i = 0; i < total; i++) {
        double v = int_get(c.out[0].data, dt, i);
        double tol = dt == KN_FLOAT ? 1e-4 : dt == KN_DOUBLE ? 1e-11 : 0;
        cr_assert(fabs(v - ref[i]) <= tol * (1 + fabs(ref[i])), "MatMul %s [%lld]: %g vs %g",
                  kn_dtype_name(dt), (long long)i, v, ref[i]);
    }
    kh_free(&c);
    free(ref);
    free(a);
    free(b);
}

Test(matmul, numpy_shapes_and_types)
{
    int32_t types[] = {KN_FLOAT, KN_DOUBLE, KN_INT32, KN_INT64, KN_UINT32, KN_UINT64};
    for (int t = 0; t < 6; t++) {
        int32_t dt = types[t];
        int64_t a2[2] = {5, 7}, b2[2] = {7, 3}, a1[1] = {7}, b1[1] = {7};
        int64_t a3[3] = {4, 5, 7}, b3[3] = {4, 7, 3}, b3x[3] = {1, 7, 3};
        int64_t a4[4] = {2, 1, 5, 7}, b4[4] = {1, 3, 7, 6}, a1k[1] = {7};
        matmul_check(dt, a2, 2, b2, 2);
        matmul_check(dt, a1, 1, b2, 2);
        matmul_check(dt, a2, 2, b1, 1);
        matmul_check(dt, a1, 1, b1, 1);
        matmul_check(dt, a3, 3, b3, 3);
        matmul_check(dt, a3, 3, b2, 2);  /* batch folded into rows */
        matmul_check(dt, a3, 3, b3x, 3); /* B batch of 1 */
        matmul_check(dt, a2, 2, b3, 3);  /* A broadcast over B's batch */
        matmul_check(dt, a4, 4, b4, 4);
        matmul_check(dt, a1k, 1, b3, 3);
        matmul_check(dt, a3, 3, b1, 1);
    }
    /* sizes that take the packed path, several tasks and parallel batches */
    int64_t big_a[3] = {6, 40, 300}, big_b[3] = {6, 300, 50}, wide[2] = {300, 130};
    matmul_check(KN_FLOAT, big_a, 3, big_b, 3);
    matmul_check(KN_DOUBLE, big_a, 3, wide, 2);
}

Test(matmul, integer_overflow_wraps_and_errors)
{
    int32_t a[2] = {INT32_MAX, 2}, b[2] = {2, 1};
    int64_t ad[2] = {1, 2}, bd[2] = {2, 1};
    kh_case c;
    kh_init(&c, "MatMul", 13, 2, 1);
    kh_input(&c, 0, KN_INT32, ad, 2, a);
    kh_input(&c, 1, KN_INT32, bd, 2, b);
    cr_assert_eq(kh_run(&c, 1), KN_OK, "%s", c.err.msg);
    cr_assert_eq(((int32_t *)c.out[0].data)[0], (int32_t)((uint32_t)INT32_MAX * 2u + 2u));
    kh_free(&c);

    float d[64] = {0};
    int64_t x[2] = {3, 4}, y[2] = {5, 6}, x3[3] = {2, 3, 4}, y3[3] = {3, 4, 2};
    kh_init(&c, "MatMul", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, x, 2, d);
    kh_input(&c, 1, KN_FLOAT, y, 2, d);
    expect_error(&c, KN_ERR_SHAPE, "inner dims differ");
    kh_init(&c, "MatMul", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, x3, 3, d);
    kh_input(&c, 1, KN_FLOAT, y3, 3, d);
    expect_error(&c, KN_ERR_SHAPE, "do not broadcast");
    kh_init(&c, "MatMul", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, x, 2, d);
    kh_input(&c, 1, KN_DOUBLE, x, 2, d);
    expect_error(&c, KN_ERR_DTYPE, "B is float64");
}

/* ---- Softmax, LogSoftmax, Hardmax -------------------------------------- */

/* Reference over an (outer, n, inner) view. */
static void ref_smax(int kind, const void *x, int32_t dt, int64_t outer, int64_t n, int64_t inner,
                     double *y)
{
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            double mx = -INFINITY, s = 0;
            int64_t at = 0;
            for (int64_t r = 0; r < n; r++) {
                double v = get(x, dt, (o * n + r) * inner + i);
                if (v > mx) {
                    mx = v;
                    at = r;
                }
            }
            for (int64_t r = 0; r < n; r++)
                s += exp(get(x, dt, (o * n + r) * inner + i) - mx);
            for (int64_t r = 0; r < n; r++) {
                int64_t e = (o * n + r) * inner + i;
                double v = get(x, dt, e);
                y[e] = kind == 0 ? exp(v - mx) / s : kind == 1 ? v - mx - log(s) : r == at;
            }
        }
}

Test(softmax, axis_semantics_by_opset)
{
    const char *ops[] = {"Softmax", "LogSoftmax", "Hardmax"};
    int64_t xd[4] = {2, 3, 4, 5};
    for (int dt = 0; dt < 2; dt++) {
        int32_t dtype = dt ? KN_DOUBLE : KN_FLOAT;
        void *x = rand_buf(dtype, 120);
        for (int kind = 0; kind < 3; kind++)
            for (int64_t opset = 11; opset <= 13; opset += 2)
                for (int axis = -4; axis <= 4; axis++) {
                    kh_case c;
                    kh_init(&c, ops[kind], opset, 1, 1);
                    kh_input(&c, 0, dtype, xd, 4, x);
                    int64_t ax = axis == 4 ? (opset < 13 ? 1 : 3) : axis; /* 4: default */
                    if (axis != 4)
                        kh_attr_int(&c, "axis", axis);
                    run_both(&c);
                    int64_t a = ax < 0 ? ax + 4 : ax, outer = numel(xd, (int)a);
                    int64_t n = opset < 13 ? 120 / outer : xd[a], inner = 120 / outer / n;
                    double ref[120];
                    ref_smax(kind, x, dtype, outer, n, inner, ref);
                    expect_close(&c.out[0], ref, 120, dtype == KN_FLOAT ? 1e-5 : 1e-12, ops[kind]);
                    kh_free(&c);
                }
        free(x);
    }
}

Test(softmax, large_values_ties_and_errors)
{
    float x[4] = {1000, 1001, 1002, 1003}, ties[4] = {3, 1, 3, 2};
    int64_t xd[2] = {1, 4};
    kh_case c;
    kh_init(&c, "Softmax", 13, 1, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 2, x);
    run_both(&c);
    const double sm[4] = {0.0320586, 0.08714432, 0.23688282, 0.64391426};
    expect_close(&c.out[0], sm, 4, 1e-6, "Softmax");
    kh_free(&c);
    kh_init(&c, "LogSoftmax", 13, 1, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 2, x);
    run_both(&c);
    const double lsm[4] = {-3.4401896, -2.4401896, -1.4401897, -0.44018966};
    expect_close(&c.out[0], lsm, 4, 1e-6, "LogSoftmax");
    kh_free(&c);
    kh_init(&c, "Hardmax", 13, 1, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 2, ties);
    run_both(&c);
    const double hm[4] = {1, 0, 0, 0}; /* first of equal maxima */
    expect_close(&c.out[0], hm, 4, 0, "Hardmax");
    kh_free(&c);
    kh_init(&c, "Softmax", 13, 1, 1);
    kh_input(&c, 0, KN_FLOAT, xd, 2, x);
    kh_attr_int(&c, "axis", 2);
    expect_error(&c, KN_ERR_INVALID_MODEL, "axis 2 out of range");
}

/* ---- float16 and bfloat16 (core/kernel/half_path.c) ------------------------ */

/* Half kernels widen to float, run the float path and round once: their
 * output must be, bit for bit, the float kernel's output on the widened
 * inputs rounded to nearest even. */

static uint16_t to_half(int32_t dt, float v)
{
    return dt == KN_FLOAT16 ? kn_f32_to_f16(v) : kn_f32_to_bf16(v);
}

static float from_half(int32_t dt, uint16_t h)
{
    return dt == KN_FLOAT16 ? kn_f16_to_f32(h) : kn_bf16_to_f32(h);
}

/* n random values in [-scale, scale), already representable in dt. */
static uint16_t *half_buf(int32_t dt, int64_t n, double scale)
{
    uint16_t *p = malloc(sizeof(uint16_t) * (size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; i < n; i++)
        p[i] = to_half(dt, (float)(urand() * scale));
    return p;
}

/* Runs c (input 0 float16 or bfloat16) with 3, 2 and 1 threads (identical
 * bits), then the same node with every half input widened to float; each
 * half output must be the float output rounded, other outputs (MaxPool's
 * Indices) equal. */
static void half_check(kh_case *c)
{
    int32_t dt = c->in[0].dtype;
    run_both(c);
    kh_case f = *c;
    f.node.attrs = f.attrs;
    f.node.inputs = f.in_ids;
    f.node.outputs = f.out_ids;
    float *wide[KH_MAX_IO] = {0};
    for (int32_t i = 0; i < f.n_in; i++) {
        if (!f.in[i].data || f.in[i].dtype != dt)
            continue;
        int64_t n = kn_tensor_numel(&f.in[i]);
        wide[i] = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
        for (int64_t e = 0; e < n; e++)
            wide[i][e] = from_half(dt, ((const uint16_t *)c->in[i].data)[e]);
        f.in[i].dtype = KN_FLOAT;
        f.in[i].data = wide[i];
    }
    for (int32_t j = 0; j < f.n_out; j++)
        f.out[j].data = NULL;
    int rc = kh_run(&f, 1);
    cr_assert_eq(rc, KN_OK, "%s (float): %s", f.node.op_type, f.err.msg);
    for (int32_t j = 0; j < c->n_out; j++) {
        const kn_tensor *h = &c->out[j], *w = &f.out[j];
        cr_assert(kn_shape_equal(h->dims, h->rank, w->dims, w->rank), "%s: output %d shape",
                  c->node.op_type, (int)j);
        int64_t n = kn_tensor_numel(w);
        if (w->dtype != KN_FLOAT) {
            cr_assert_eq(h->dtype, w->dtype);
            cr_assert(memcmp(h->data, w->data, (size_t)kn_tensor_nbytes(w)) == 0,
                      "%s: output %d differs from the float kernel's", c->node.op_type, (int)j);
            continue;
        }
        cr_assert_eq(h->dtype, dt, "%s: output %d is %s, expected %s", c->node.op_type, (int)j,
                     kn_dtype_name(h->dtype), kn_dtype_name(dt));
        for (int64_t e = 0; e < n; e++) {
            uint16_t got = ((const uint16_t *)h->data)[e];
            uint16_t want = to_half(dt, ((const float *)w->data)[e]);
            cr_assert_eq(got, want, "%s %s opset %lld output %d [%lld]: 0x%04x (%g), expected "
                         "0x%04x (%g)", c->node.op_type, kn_dtype_name(dt), (long long)c->opset,
                         (int)j, (long long)e, got, from_half(dt, got), want,
                         from_half(dt, want));
        }
    }
    kh_free(&f);
    for (int32_t i = 0; i < KH_MAX_IO; i++)
        free(wide[i]);
}

static const int32_t half_types[2] = {KN_FLOAT16, KN_BFLOAT16};

static void half_matmul(int32_t dt, int64_t opset, int constant, const int64_t *ad, int ar,
                        const int64_t *bd, int br)
{
    uint16_t *a = half_buf(dt, numel(ad, ar), 1), *b = half_buf(dt, numel(bd, br), 1);
    kh_case c;
    kh_init(&c, "MatMul", opset, 2, 1);
    c.inputs_constant_in_prepare = constant;
    kh_input(&c, 0, dt, ad, ar, a);
    kh_input(&c, 1, dt, bd, br, b);
    half_check(&c);
    kh_free(&c);
    free(a);
    free(b);
}

Test(half, matmul_is_the_float_result_rounded)
{
    int64_t a2[2] = {5, 7}, b2[2] = {7, 3}, a1[1] = {7}, b1[1] = {7};
    int64_t a3[3] = {4, 5, 7}, b3[3] = {4, 7, 3}, a4[4] = {2, 1, 5, 7}, b4[4] = {1, 3, 7, 6};
    int64_t big_a[3] = {6, 40, 300}, big_b[3] = {6, 300, 50}, wide[2] = {300, 130};
    int64_t zero_a[2] = {0, 7};
    for (int t = 0; t < 2; t++)
        for (int constant = 0; constant < 2; constant++) {
            int32_t dt = half_types[t];
            half_matmul(dt, 13, constant, a2, 2, b2, 2);
            half_matmul(dt, 13, constant, a1, 1, b2, 2);
            half_matmul(dt, 13, constant, a2, 2, b1, 1);
            half_matmul(dt, 13, constant, a1, 1, b1, 1);
            half_matmul(dt, 13, constant, a3, 3, b3, 3);  /* batches */
            half_matmul(dt, 13, constant, a3, 3, b2, 2);  /* batch folded into rows */
            half_matmul(dt, 13, constant, a4, 4, b4, 4);  /* broadcast batches */
            half_matmul(dt, 13, constant, big_a, 3, big_b, 3); /* parallel batches */
            half_matmul(dt, 13, constant, big_a, 3, wide, 2);  /* packed, several tasks */
            half_matmul(dt, 13, constant, zero_a, 2, b2, 2);   /* empty */
        }
    half_matmul(KN_FLOAT16, 1, 1, a3, 3, b3, 3);
    half_matmul(KN_FLOAT16, 9, 0, a2, 2, b2, 2);

    /* bfloat16 from opset 13; both operands of one type */
    uint16_t d[64] = {0};
    kh_case c;
    kh_init(&c, "MatMul", 9, 2, 1);
    kh_input(&c, 0, KN_BFLOAT16, a2, 2, d);
    kh_input(&c, 1, KN_BFLOAT16, b2, 2, d);
    cr_assert_eq(kh_run(&c, 1), KN_ERR_UNSUPPORTED, "bfloat16 MatMul at opset 9: %s", c.err.msg);
    kh_free(&c);
    kh_init(&c, "MatMul", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT16, a2, 2, d);
    kh_input(&c, 1, KN_FLOAT, b2, 2, d);
    expect_error(&c, KN_ERR_DTYPE, "input 1 is float32");
    kh_init(&c, "MatMul", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT16, a2, 2, d);
    kh_input(&c, 1, KN_FLOAT16, a2, 2, d);
    expect_error(&c, KN_ERR_SHAPE, "inner dims differ");
}

static void half_conv(int32_t dt, int64_t opset, int constant, const int64_t *xd, int r,
                      const int64_t *wd, int64_t group, int bias, int64_t stride, int64_t pad)
{
    int nsp = r - 2;
    uint16_t *x = half_buf(dt, numel(xd, r), 1), *w = half_buf(dt, numel(wd, r), 0.5);
    int64_t bd[1] = {wd[0]};
    uint16_t *b = half_buf(dt, wd[0], 1);
    int64_t strides[3] = {stride, stride, stride}, pads[6] = {pad, pad, pad, pad, pad, pad};
    kh_case c;
    kh_init(&c, "Conv", opset, bias ? 3 : 2, 1);
    c.inputs_constant_in_prepare = constant;
    kh_input(&c, 0, dt, xd, r, x);
    kh_input(&c, 1, dt, wd, r, w);
    if (bias)
        kh_input(&c, 2, dt, bd, 1, b);
    kh_attr_int(&c, "group", group);
    kh_attr_ints(&c, "strides", strides, nsp);
    kh_attr_ints(&c, "pads", pads, 2 * nsp);
    half_check(&c);
    kh_free(&c);
    free(x);
    free(w);
    free(b);
}

Test(half, conv_is_the_float_result_rounded)
{
    int64_t x2[4] = {2, 4, 9, 9}, w2[4] = {6, 4, 3, 3};       /* im2col + GEMM */
    int64_t xp[4] = {1, 8, 5, 5}, wp[4] = {4, 8, 1, 1};       /* pointwise */
    int64_t xdw[4] = {1, 4, 7, 7}, wdw[4] = {4, 1, 3, 3};     /* depthwise */
    int64_t x1[3] = {2, 3, 40}, w1[3] = {5, 3, 4};            /* 1-D */
    int64_t xg[5] = {1, 4, 4, 5, 6}, wg[5] = {6, 2, 2, 3, 2}; /* 3-D, 2 groups */
    int64_t xbig[4] = {1, 16, 32, 32}, wbig[4] = {32, 16, 3, 3}; /* several blocks */
    for (int t = 0; t < 2; t++)
        for (int constant = 0; constant < 2; constant++) {
            int32_t dt = half_types[t];
            int64_t opset = dt == KN_FLOAT16 ? 11 : 22;
            half_conv(dt, opset, constant, x2, 4, w2, 1, 1, 1, 1);
            half_conv(dt, opset, constant, x2, 4, w2, 1, 0, 2, 0);
            half_conv(dt, opset, constant, xp, 4, wp, 1, 1, 1, 0);
            half_conv(dt, opset, constant, xdw, 4, wdw, 4, 1, 2, 1);
            half_conv(dt, opset, constant, x1, 3, w1, 1, 1, 1, 2);
            half_conv(dt, opset, constant, xg, 5, wg, 2, 1, 1, 1);
            half_conv(dt, opset, constant, xbig, 4, wbig, 1, 1, 1, 1);
        }
    half_conv(KN_FLOAT16, 1, 1, x2, 4, w2, 1, 1, 1, 1);

    /* bfloat16 arrived with opset 22 */
    uint16_t d[512] = {0};
    kh_case c;
    kh_init(&c, "Conv", 11, 2, 1);
    kh_input(&c, 0, KN_BFLOAT16, xdw, 4, d);
    kh_input(&c, 1, KN_BFLOAT16, wdw, 4, d);
    kh_attr_int(&c, "group", 4);
    expect_error(&c, KN_ERR_UNSUPPORTED, "bfloat16 needs opset 22");
    kh_init(&c, "Conv", 1, 2, 1);
    kh_input(&c, 0, KN_BFLOAT16, xdw, 4, d);
    kh_input(&c, 1, KN_BFLOAT16, wdw, 4, d);
    cr_assert_eq(kh_run(&c, 1), KN_ERR_UNSUPPORTED, "bfloat16 Conv at opset 1: %s", c.err.msg);
    kh_free(&c);
    kh_init(&c, "Conv", 11, 2, 1);
    kh_input(&c, 0, KN_FLOAT16, xdw, 4, d);
    kh_input(&c, 1, KN_BFLOAT16, wdw, 4, d);
    expect_error(&c, KN_ERR_DTYPE, "input 1 is bfloat16");
    kh_init(&c, "Conv", 11, 2, 1);
    kh_input(&c, 0, KN_FLOAT16, xdw, 4, d);
    kh_input(&c, 1, KN_FLOAT16, wdw, 4, d);
    kh_attr_int(&c, "group", 3);
    expect_error(&c, KN_ERR_INVALID_MODEL, "group 3 does not divide");
}

Test(half, softmax_family_is_the_float_result_rounded)
{
    const char *ops[] = {"Softmax", "LogSoftmax", "Hardmax"};
    int64_t xd[4] = {2, 3, 4, 5}, wide[2] = {3, 40}, cols[3] = {2, 7, 37};
    for (int t = 0; t < 2; t++) {
        int32_t dt = half_types[t];
        uint16_t *x = half_buf(dt, 120, 4), *y = half_buf(dt, 518, 8);
        for (int kind = 0; kind < 3; kind++)
            for (int64_t opset = 11; opset <= 13; opset += 2) {
                if (dt == KN_BFLOAT16 && opset < 13)
                    continue;
                for (int axis = -4; axis <= 4; axis++) {
                    kh_case c;
                    kh_init(&c, ops[kind], opset, 1, 1);
                    kh_input(&c, 0, dt, xd, 4, x);
                    if (axis != 4) /* 4: default */
                        kh_attr_int(&c, "axis", axis);
                    half_check(&c);
                    kh_free(&c);
                }
                kh_case c;
                kh_init(&c, ops[kind], opset, 1, 1);
                kh_input(&c, 0, dt, wide, 2, y);
                half_check(&c);
                kh_free(&c);
                kh_init(&c, ops[kind], opset, 1, 1);
                kh_input(&c, 0, dt, cols, 3, y);
                kh_attr_int(&c, "axis", 1);
                half_check(&c);
                kh_free(&c);
            }
        free(x);
        free(y);
    }
    /* a float16 softmax of large inputs: computed in float, so no overflow */
    uint16_t big[4];
    const float bigv[4] = {60000, 60001, 60002, 60003};
    for (int i = 0; i < 4; i++)
        big[i] = kn_f32_to_f16(bigv[i]);
    int64_t bd[2] = {1, 4};
    kh_case c;
    kh_init(&c, "Softmax", 13, 1, 1);
    kh_input(&c, 0, KN_FLOAT16, bd, 2, big);
    half_check(&c);
    float s = 0;
    for (int i = 0; i < 4; i++) {
        float v = kn_f16_to_f32(((uint16_t *)c.out[0].data)[i]);
        cr_assert(isfinite(v) && v >= 0, "Softmax float16 [%d] = %g", i, v);
        s += v;
    }
    cr_assert(fabsf(s - 1) < 2e-3f, "Softmax float16 sums to %g", s);
    kh_free(&c);
    kh_init(&c, "Hardmax", 11, 1, 1);
    kh_input(&c, 0, KN_BFLOAT16, bd, 2, big);
    cr_assert_eq(kh_run(&c, 1), KN_ERR_UNSUPPORTED, "bfloat16 Hardmax at opset 11: %s", c.err.msg);
    kh_free(&c);
}

Test(half, gemm_and_pools_are_the_float_result_rounded)
{
    for (int t = 0; t < 2; t++)
        for (int constant = 0; constant < 2; constant++) {
            int32_t dt = half_types[t];
            /* Gemm: transposes, alpha / beta, C broadcast along rows */
            int64_t m = 70, n = 90, k = 300;
            int64_t ad[2] = {k, m}, bd[2] = {n, k}, cd[1] = {n};
            uint16_t *a = half_buf(dt, m * k, 1), *b = half_buf(dt, k * n, 1);
            uint16_t *cm = half_buf(dt, n, 1);
            kh_case c;
            kh_init(&c, "Gemm", dt == KN_FLOAT16 ? 11 : 13, 3, 1);
            c.inputs_constant_in_prepare = constant;
            kh_input(&c, 0, dt, ad, 2, a);
            kh_input(&c, 1, dt, bd, 2, b);
            kh_input(&c, 2, dt, cd, 1, cm);
            kh_attr_int(&c, "transA", 1);
            kh_attr_int(&c, "transB", 1);
            kh_attr_float(&c, "alpha", 0.5f);
            kh_attr_float(&c, "beta", 2.0f);
            half_check(&c);
            kh_free(&c);
            free(a);
            free(b);
            free(cm);

            /* MaxPool with Indices, AveragePool with count_include_pad */
            int64_t xd[4] = {2, 3, 11, 10}, ks[2] = {3, 3}, st[2] = {2, 1}, pads[4] = {1, 1, 1, 0};
            uint16_t *x = half_buf(dt, numel(xd, 4), 3);
            int64_t pool_opset = dt == KN_FLOAT16 ? 12 : 22;
            for (int op = 0; op < 2; op++) {
                kh_init(&c, op ? "AveragePool" : "MaxPool", op ? 11 : pool_opset, 1, op ? 1 : 2);
                c.inputs_constant_in_prepare = constant;
                kh_input(&c, 0, dt, xd, 4, x);
                kh_attr_ints(&c, "kernel_shape", ks, 2);
                kh_attr_ints(&c, "strides", st, 2);
                kh_attr_ints(&c, "pads", pads, 4);
                if (op)
                    kh_attr_int(&c, "count_include_pad", 1);
                if (dt == KN_BFLOAT16 && op) /* bfloat16 AveragePool: the entry from 19 */
                    c.opset = 22;
                half_check(&c);
                if (!op)
                    cr_assert_eq(c.out[1].dtype, KN_INT64);
                kh_free(&c);
            }
            for (int op = 0; op < 2; op++) {
                kh_init(&c, op ? "GlobalMaxPool" : "GlobalAveragePool",
                        dt == KN_FLOAT16 ? 1 : 22, 1, 1);
                c.inputs_constant_in_prepare = constant;
                kh_input(&c, 0, dt, xd, 4, x);
                half_check(&c);
                kh_free(&c);
            }
            free(x);
        }
    /* bfloat16 pools need opset 22; Gemm's C has A's type */
    uint16_t d[64] = {0};
    int64_t xd[4] = {1, 1, 4, 4}, ks[2] = {2, 2}, g2[2] = {2, 2};
    kh_case c;
    kh_init(&c, "MaxPool", 12, 1, 1);
    kh_input(&c, 0, KN_BFLOAT16, xd, 4, d);
    kh_attr_ints(&c, "kernel_shape", ks, 2);
    expect_error(&c, KN_ERR_UNSUPPORTED, "bfloat16 needs opset 22");
    kh_init(&c, "GlobalAveragePool", 1, 1, 1);
    kh_input(&c, 0, KN_BFLOAT16, xd, 4, d);
    expect_error(&c, KN_ERR_UNSUPPORTED, "bfloat16 needs opset 22");
    kh_init(&c, "Gemm", 13, 3, 1);
    kh_input(&c, 0, KN_FLOAT16, g2, 2, d);
    kh_input(&c, 1, KN_FLOAT16, g2, 2, d);
    kh_input(&c, 2, KN_DOUBLE, g2, 2, d);
    expect_error(&c, KN_ERR_DTYPE, "input 2 is float64");
}
