/* Integer convolution on oneDNN (core/dnnl/dnnl_qconv.c) against Kiln's
 * CPU QLinearConv, which computes the formula in double: uint8 and int8
 * activations with non-zero zero points and padding (oneDNN's border
 * compensation), per-channel and per-tensor weight scales, bias, strides,
 * grouped and depthwise layers; the NHWC form against its CPU fallback;
 * the declines. kiln.QFusedConv and the NHWC form's epilogue (a quantized
 * residual Z as a sum post-op, an activation before the requantization)
 * against the CPU kernels' double-precision epilogue. And kiln.QAdd
 * (core/cpu/fused/fused_qadd.c) against the formula in double, with its
 * Relu, int8 and a broadcast scalar; kiln.QMulFloat against the float
 * arithmetic of the graph it replaces.
 *
 * oneDNN requantizes in float, the reference in double: results may differ
 * by one step where the exact value sits at a rounding tie, so the check
 * allows |difference| <= 1 on at most 1% of the elements, never more. */
#include "test_dnnl_util.h"

#ifdef KILN_WITH_DNNL

typedef struct qconv_spec {
    int64_t n, c, h, w, cout, k, stride, pad, group;
    int32_t x_dtype, y_dtype;
    int32_t zx, zy;
    int per_channel, bias;
} qconv_spec;

static unsigned next_rand(unsigned *seed)
{
    *seed = *seed * 1664525u + 1013904223u;
    return *seed >> 8;
}

/* Bytes of random 8-bit values of dtype (uint8 0..255, int8 -128..127). */
static void *random_q8(int64_t n, int32_t dtype, unsigned seed)
{
    unsigned char *p = malloc((size_t)n + 1);
    for (int64_t i = 0; i < n; i++)
        p[i] = (unsigned char)(next_rand(&seed) & 0xff);
    if (dtype == KN_INT8) /* weights: keep to [-127, 127] as symmetric writers do */
        for (int64_t i = 0; i < n; i++)
            if (p[i] == 0x80)
                p[i] = 0x81;
    return p;
}

static void *scalar_copy(const void *v, size_t bytes)
{
    void *p = malloc(bytes + 4);
    memcpy(p, v, bytes);
    return p;
}

static void qconv_case(kh_case *c, const qconv_spec *s, int nhwc)
{
    kh_init(c, nhwc ? "NhwcQLinearConv" : "QLinearConv", nhwc ? 1 : 10, s->bias ? 9 : 8, 1);
    if (nhwc)
        c->node.domain = "kiln";
    int64_t xd[4] = {s->n, s->c, s->h, s->w}, xd_nhwc[4] = {s->n, s->h, s->w, s->c};
    int64_t wd[4] = {s->cout, s->c / s->group, s->k, s->k};
    kh_input(c, 0, s->x_dtype, nhwc ? xd_nhwc : xd, 4,
             random_q8(kn_shape_numel(xd, 4), KN_UINT8, 11));
    float sx = 0.02f, sy = 0.05f;
    kh_input(c, 1, KN_FLOAT, NULL, 0, scalar_copy(&sx, 4));
    int8_t zx8 = (int8_t)s->zx;
    uint8_t zxu = (uint8_t)s->zx;
    kh_input(c, 2, s->x_dtype, NULL, 0,
             scalar_copy(s->x_dtype == KN_INT8 ? (void *)&zx8 : (void *)&zxu, 1));
    kh_input(c, 3, KN_INT8, wd, 4, random_q8(kn_shape_numel(wd, 4), KN_INT8, 12));
    int64_t ns = s->per_channel ? s->cout : 1;
    float *sw = malloc(sizeof(float) * (size_t)ns + 4);
    int8_t *zw = calloc((size_t)ns + 4, 1);
    for (int64_t i = 0; i < ns; i++)
        sw[i] = 0.004f + 0.0005f * (float)(i % 7);
    kh_input(c, 4, KN_FLOAT, &ns, s->per_channel ? 1 : 0, sw);
    kh_input(c, 5, KN_INT8, &ns, s->per_channel ? 1 : 0, zw);
    kh_input(c, 6, KN_FLOAT, NULL, 0, scalar_copy(&sy, 4));
    int8_t zy8 = (int8_t)s->zy;
    uint8_t zyu = (uint8_t)s->zy;
    kh_input(c, 7, s->y_dtype, NULL, 0,
             scalar_copy(s->y_dtype == KN_INT8 ? (void *)&zy8 : (void *)&zyu, 1));
    if (s->bias) {
        int32_t *b = malloc(sizeof(int32_t) * (size_t)s->cout + 4);
        unsigned seed = 13;
        for (int64_t i = 0; i < s->cout; i++)
            b[i] = (int32_t)(next_rand(&seed) % 20001) - 10000;
        kh_input(c, 8, KN_INT32, &s->cout, 1, b);
    }
    /* the harness keeps pointers to attribute arrays: they must outlive the case */
    static int64_t k2[2], st[2], pads[4];
    k2[0] = k2[1] = s->k;
    st[0] = st[1] = s->stride;
    pads[0] = pads[1] = pads[2] = pads[3] = s->pad;
    kh_attr_ints(c, "kernel_shape", k2, 2);
    kh_attr_ints(c, "strides", st, 2);
    kh_attr_ints(c, "pads", pads, 4);
    kh_attr_int(c, "group", s->group);
}

/* a and b (n bytes of dtype) differ by at most one step, on at most 1%. */
static void assert_within_one_step(const void *a, const void *b, int64_t n, int32_t dtype,
                                   const char *what)
{
    int64_t off_by_one = 0;
    for (int64_t i = 0; i < n; i++) {
        int va = dtype == KN_INT8 ? ((const int8_t *)a)[i] : ((const uint8_t *)a)[i];
        int vb = dtype == KN_INT8 ? ((const int8_t *)b)[i] : ((const uint8_t *)b)[i];
        cr_assert(abs(va - vb) <= 1, "%s: element %lld: %d vs %d", what, (long long)i, va, vb);
        off_by_one += va != vb;
    }
    cr_assert(off_by_one * 100 <= n, "%s: %lld of %lld elements one step off", what,
              (long long)off_by_one, (long long)n);
}

/* All inputs but X constant, as in a model. */
#define QCONV_CONSTS 0x1fe

static void check_qconv(const qconv_spec *s, const char *what)
{
    for (int nhwc = 0; nhwc < 2; nhwc++) {
        kh_case c;
        qconv_case(&c, s, nhwc);
        float *dn = NULL, *cpu = NULL;
        kn_tensor dd, cd;
        int rc = dt_run(&c, &kn_backend_dnnl, QCONV_CONSTS, 1, &dn, &dd);
        DT_SKIP_WITHOUT_VNNI(rc, &c);
        if (!nhwc && rc == KN_ERR_DECLINE) {
            /* oneDNN 2.6's int8 kernels read channels-last only; plain
             * QLinearConv is what runs without the layout pass, i.e.
             * without oneDNN, so declining it costs nothing */
            dt_free_inputs(&c);
            continue;
        }
        cr_assert_eq(rc, KN_OK, "%s%s: oneDNN kernel: %s (%d)", what, nhwc ? " NHWC" : "",
                     c.err.msg, rc);
        rc = dt_run(&c, &kn_backend_cpu, QCONV_CONSTS, 1, &cpu, &cd);
        cr_assert_eq(rc, KN_OK, "%s: CPU kernel: %s", what, c.err.msg);
        cr_assert(kn_shape_equal(dd.dims, dd.rank, cd.dims, cd.rank), "%s: shapes differ", what);
        cr_assert_eq(dd.dtype, s->y_dtype, "%s: output dtype", what);
        assert_within_one_step(dn, cpu, kn_tensor_numel(&cd), s->y_dtype, what);
        free(dn);
        free(cpu);
        dt_free_inputs(&c);
    }
}

Test(dnnl_qconv, against_the_cpu_reference)
{
    const qconv_spec specs[] = {
        /* uint8 with a zero point and padding: border compensation */
        {1, 16, 12, 12, 32, 3, 1, 1, 1, KN_UINT8, KN_UINT8, 128, 3, 1, 1},
        {2, 24, 9, 11, 16, 3, 2, 1, 1, KN_UINT8, KN_UINT8, 37, 0, 1, 1},
        {1, 64, 7, 7, 64, 1, 1, 0, 1, KN_UINT8, KN_UINT8, 0, 0, 0, 1}, /* per-tensor W */
        {1, 32, 10, 10, 32, 3, 1, 1, 32, KN_UINT8, KN_UINT8, 120, 5, 1, 1}, /* depthwise */
        {1, 32, 8, 8, 48, 3, 1, 1, 4, KN_UINT8, KN_UINT8, 9, 0, 1, 0}, /* grouped, no bias */
        /* int8 activations (symmetric calibration) */
        {1, 16, 9, 9, 24, 3, 1, 1, 1, KN_INT8, KN_INT8, 0, 0, 1, 1},
        {1, 16, 9, 9, 24, 5, 2, 2, 1, KN_INT8, KN_INT8, -5, 7, 1, 1},
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "case %zu", i);
        check_qconv(&specs[i], what);
    }
}

Test(dnnl_qconv, declines_what_onednn_cannot_take)
{
    const qconv_spec s = {1, 16, 8, 8, 16, 3, 1, 1, 1, KN_UINT8, KN_UINT8, 128, 0, 1, 1};
    kh_case c;
    qconv_case(&c, &s, 0);
    ((int8_t *)c.in[5].data)[3] = 2; /* a weight zero point: oneDNN 2.6 takes none */
    dt_check_declines(&c, QCONV_CONSTS, "non-zero weight zero point");
    ((int8_t *)c.in[5].data)[3] = 0;
    dt_check_declines(&c, QCONV_CONSTS & ~0x2u, "x_scale computed at run time");
    dt_free_inputs(&c);
}

/* ---- kiln.QFusedConv: residual and activation before requantization ---- */

typedef struct qfused_spec {
    qconv_spec conv;
    int with_z;
    int32_t z_dtype, zz;
    const char *act; /* "" for none */
    float act_params[2];
    int32_t n_act_params;
} qfused_spec;

static void qfused_case(kh_case *c, const qfused_spec *f, int nhwc)
{
    const qconv_spec *s = &f->conv;
    qconv_case(c, s, nhwc);
    c->node.op_type = nhwc ? "NhwcQLinearConv" : "QFusedConv";
    c->node.domain = "kiln";
    c->opset = 1;
    if (f->with_z) {
        c->n_in = c->node.n_inputs = 12;
        int64_t oh = (s->h + 2 * s->pad - s->k) / s->stride + 1,
                ow = (s->w + 2 * s->pad - s->k) / s->stride + 1;
        int64_t zd[4] = {s->n, s->cout, oh, ow}, zd_nhwc[4] = {s->n, oh, ow, s->cout};
        kh_input(c, 9, f->z_dtype, nhwc ? zd_nhwc : zd, 4,
                 random_q8(kn_shape_numel(zd, 4), KN_UINT8, 31));
        float sz = 0.04f;
        kh_input(c, 10, KN_FLOAT, NULL, 0, scalar_copy(&sz, 4));
        int8_t zz8 = (int8_t)f->zz;
        uint8_t zzu = (uint8_t)f->zz;
        kh_input(c, 11, f->z_dtype, NULL, 0,
                 scalar_copy(f->z_dtype == KN_INT8 ? (void *)&zz8 : (void *)&zzu, 1));
    }
    if (f->act[0])
        kh_attr_string(c, "activation", f->act);
    if (f->n_act_params)
        kh_attr_floats(c, "activation_params", f->act_params, f->n_act_params);
}

/* Everything but X and Z constant. */
#define QFUSED_CONSTS (QCONV_CONSTS | 0xc00u)

static void check_qfused(const qfused_spec *f, const char *what)
{
    for (int nhwc = 0; nhwc < 2; nhwc++) {
        kh_case c;
        qfused_case(&c, f, nhwc);
        float *dn = NULL, *cpu = NULL;
        kn_tensor dd, cd;
        int rc = dt_run(&c, &kn_backend_dnnl, QFUSED_CONSTS, 1, &dn, &dd);
        DT_SKIP_WITHOUT_VNNI(rc, &c);
        if (!nhwc && rc == KN_ERR_DECLINE) { /* NCHW: as plain QLinearConv above */
            dt_free_inputs(&c);
            continue;
        }
        cr_assert_eq(rc, KN_OK, "%s%s: oneDNN kernel: %s (%d)", what, nhwc ? " NHWC" : "",
                     c.err.msg, rc);
        rc = dt_run(&c, &kn_backend_cpu, QFUSED_CONSTS, 1, &cpu, &cd);
        cr_assert_eq(rc, KN_OK, "%s: CPU kernel: %s", what, c.err.msg);
        cr_assert(kn_shape_equal(dd.dims, dd.rank, cd.dims, cd.rank), "%s: shapes differ", what);
        assert_within_one_step(dn, cpu, kn_tensor_numel(&cd), f->conv.y_dtype, what);
        free(dn);
        free(cpu);
        dt_free_inputs(&c);
    }
}

Test(dnnl_qconv, residual_and_activation_epilogues)
{
    const qconv_spec u8 = {1, 16, 12, 12, 32, 3, 1, 1, 1, KN_UINT8, KN_UINT8, 128, 3, 1, 1};
    const qconv_spec s8 = {2, 24, 9, 11, 16, 1, 1, 0, 1, KN_INT8, KN_INT8, -5, 7, 1, 1};
    const qconv_spec dw = {1, 32, 10, 10, 32, 3, 2, 1, 32, KN_UINT8, KN_UINT8, 120, 60, 1, 0};
    const qfused_spec specs[] = {
        /* ResNet's block end: residual with a zero point, then Relu */
        {u8, 1, KN_UINT8, 77, "Relu", {0}, 0},
        /* MobileNet's: residual, no activation, int8 */
        {s8, 1, KN_INT8, -9, "", {0}, 0},
        /* a uint8 residual into an int8 output (same bytes, other type) */
        {s8, 1, KN_UINT8, 130, "", {0}, 0},
        /* EfficientNet's SiLU, pointwise and depthwise */
        {s8, 0, 0, 0, "Silu", {0}, 0},
        {dw, 0, 0, 0, "Silu", {0}, 0},
        /* HardSwish, and a Clip inside the output's range */
        {u8, 0, 0, 0, "HardSwish", {0}, 0},
        {u8, 0, 0, 0, "Clip", {-0.5f, 1.5f}, 2},
        /* a residual and an activation that needs real values */
        {u8, 1, KN_UINT8, 20, "Silu", {0}, 0},
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "epilogue case %zu (%s%s)", i, specs[i].with_z ? "Z " : "",
                 specs[i].act);
        check_qfused(&specs[i], what);
    }
}

/* ---- kiln.QAdd ---- */

static void check_qadd(int32_t dtype, int relu, int scalar_b, const char *what)
{
    kh_case c;
    kh_init(&c, "QAdd", 1, 8, 1);
    c.node.domain = "kiln";
    int64_t dims[4] = {1, 7, 9, 40}, one = 1;
    int64_t n = kn_shape_numel(dims, 4);
    float sa = 0.03f, sb = 0.011f, sc = 0.045f;
    int32_t za = dtype == KN_INT8 ? -3 : 120, zb = dtype == KN_INT8 ? 10 : 100,
            zc = dtype == KN_INT8 ? -20 : 90;
    kh_input(&c, 0, dtype, dims, 4, random_q8(n, KN_UINT8, 21));
    kh_input(&c, 3, dtype, scalar_b ? &one : dims, scalar_b ? 1 : 4,
             random_q8(scalar_b ? 1 : n, KN_UINT8, 22));
    const float scales[3] = {sa, sb, sc};
    const int32_t zeros[3] = {za, zb, zc};
    for (int32_t j = 0; j < 3; j++) {
        kh_input(&c, 3 * j + 1 - (j == 2), KN_FLOAT, NULL, 0, scalar_copy(&scales[j], 4));
        int8_t z8 = (int8_t)zeros[j];
        uint8_t zu = (uint8_t)zeros[j];
        kh_input(&c, 3 * j + 2 - (j == 2), dtype, NULL, 0,
                 scalar_copy(dtype == KN_INT8 ? (void *)&z8 : (void *)&zu, 1));
    }
    kh_attr_int(&c, "relu", relu);
    float *out = NULL;
    kn_tensor desc;
    int rc = dt_run(&c, &kn_backend_cpu, 0xf6, 2, &out, &desc);
    cr_assert_eq(rc, KN_OK, "%s: %s", what, c.err.msg);
    cr_assert_eq(desc.dtype, dtype, "%s: output dtype", what);
    cr_assert(kn_shape_equal(desc.dims, desc.rank, dims, 4), "%s: shape", what);
    double lo = dtype == KN_INT8 ? -128 : 0, hi = dtype == KN_INT8 ? 127 : 255;
    unsigned char *want = malloc((size_t)n);
    for (int64_t i = 0; i < n; i++) {
        const unsigned char *a = c.in[0].data, *b = c.in[3].data;
        double va = dtype == KN_INT8 ? (signed char)a[i] : a[i];
        double vb = dtype == KN_INT8 ? (signed char)b[scalar_b ? 0 : i] : b[scalar_b ? 0 : i];
        double real = sa * (va - za) + sb * (vb - zb);
        if (relu && real < 0)
            real = 0;
        double q = nearbyint(real / sc) + zc;
        q = q < lo ? lo : q > hi ? hi : q;
        want[i] = (unsigned char)(int)q;
    }
    assert_within_one_step(out, want, n, dtype, what);
    free(want);
    free(out);
    dt_free_inputs(&c);
}

Test(fused_qadd, against_the_formula)
{
    check_qadd(KN_UINT8, 0, 0, "uint8");
    check_qadd(KN_UINT8, 1, 0, "uint8 relu");
    check_qadd(KN_INT8, 1, 0, "int8 relu");
    check_qadd(KN_INT8, 0, 1, "int8, B a scalar");
}

/* ---- kiln.QMulFloat ---- */

/* A [1, 7, 9, 40] times B broadcast ([1, 1, 1, 40]: NHWC channels, or a
 * scalar), against the graph's float arithmetic: equal. */
static void check_qmul_float(int32_t dtype, int scalar_b, const char *what)
{
    kh_case c;
    kh_init(&c, "QMulFloat", 1, 6, 1);
    c.node.domain = "kiln";
    int64_t dims[4] = {1, 7, 9, 40}, bd[4] = {1, 1, 1, 40};
    int64_t n = kn_shape_numel(dims, 4), nb = scalar_b ? 1 : 40;
    float sa = 0.03f, sc = 0.021f;
    int32_t za = dtype == KN_INT8 ? -3 : 120, zc = dtype == KN_INT8 ? 10 : 90;
    kh_input(&c, 0, dtype, dims, 4, random_q8(n, KN_UINT8, 41));
    float *b = malloc(sizeof(float) * (size_t)nb);
    for (int64_t i = 0; i < nb; i++)
        b[i] = 1.5f / (1.0f + expf(-0.3f * (float)(i - 20))); /* a Sigmoid gate, scaled */
    kh_input(&c, 3, KN_FLOAT, scalar_b ? NULL : bd, scalar_b ? 0 : 4, b);
    kh_input(&c, 1, KN_FLOAT, NULL, 0, scalar_copy(&sa, 4));
    kh_input(&c, 4, KN_FLOAT, NULL, 0, scalar_copy(&sc, 4));
    int8_t za8 = (int8_t)za, zc8 = (int8_t)zc;
    uint8_t zau = (uint8_t)za, zcu = (uint8_t)zc;
    kh_input(&c, 2, dtype, NULL, 0, scalar_copy(dtype == KN_INT8 ? (void *)&za8 : (void *)&zau, 1));
    kh_input(&c, 5, dtype, NULL, 0, scalar_copy(dtype == KN_INT8 ? (void *)&zc8 : (void *)&zcu, 1));
    float *out = NULL;
    kn_tensor desc;
    int rc = dt_run(&c, &kn_backend_cpu, 0x36, 1, &out, &desc);
    cr_assert_eq(rc, KN_OK, "%s: %s", what, c.err.msg);
    cr_assert_eq(desc.dtype, dtype, "%s: output dtype", what);
    float lo = dtype == KN_INT8 ? -128 : 0, hi = dtype == KN_INT8 ? 127 : 255;
    for (int64_t i = 0; i < n; i++) {
        const unsigned char *a = c.in[0].data;
        float va = dtype == KN_INT8 ? (float)(signed char)a[i] : (float)a[i];
        volatile float x = (va - (float)za) * sa;        /* DequantizeLinear */
        volatile float m = x * b[scalar_b ? 0 : i % 40]; /* Mul */
        float q = nearbyintf(m / sc) + (float)zc;        /* QuantizeLinear */
        q = q < lo ? lo : q > hi ? hi : q;
        const unsigned char *o = (const unsigned char *)out;
        int got = dtype == KN_INT8 ? (signed char)o[i] : o[i];
        cr_assert_eq(got, (int)q, "%s: element %lld: %d, want %d", what, (long long)i, got, (int)q);
    }
    free(out);
    dt_free_inputs(&c);
}

Test(fused_qmul_float, equals_the_graphs_arithmetic)
{
    check_qmul_float(KN_UINT8, 0, "uint8, per-channel gate");
    check_qmul_float(KN_INT8, 0, "int8, per-channel gate");
    check_qmul_float(KN_INT8, 1, "int8, scalar B");
}

#else

Test(dnnl_qconv, needs_onednn)
{
    cr_skip_test("built without oneDNN (KILN_WITH_DNNL off): no integer convolution to test");
}

#endif
