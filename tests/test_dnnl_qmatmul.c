/* Integer matrix products on oneDNN (core/dnnl/dnnl_qmatmul.c) against
 * Kiln's CPU kernels (core/cpu/quant/ms_matmul_float.c, quant_mm's exact
 * int32 products): MatMulIntegerToFloat with its bias, and
 * kiln.QFusedMatMul with the epilogue the qmatmul_epilogue pass gives it:
 * bias, activation (GELU, Relu, Sigmoid) and the requantization to uint8
 * or int8. uint8 and int8 A with zero points, B scaled per column and per
 * tensor, A of rank 3 (leading dims folded into M), sizes off the vector
 * widths.
 *
 * Float results agree within 1e-4 of the largest (oneDNN's GELU is a
 * polynomial, its float sums run in another order); 8-bit results within
 * one step on at most 1% of the elements, the ties float rounding may
 * break either way. */
#include "test_dnnl_util.h"

#ifdef KILN_WITH_DNNL

typedef struct qmm_spec {
    int64_t batch, m, k, n;
    int32_t a_dtype, y_dtype; /* y_dtype KN_FLOAT: float output */
    int32_t za, zy;
    int per_column, bias;
    const char *activation; /* NULL: none */
    int fused;              /* kiln.QFusedMatMul, else MatMulIntegerToFloat */
} qmm_spec;

enum { IN_A, IN_B, IN_AS, IN_BS, IN_AZ, IN_BZ, IN_BIAS, IN_YS, IN_YZ };

static unsigned next_rand(unsigned *seed)
{
    *seed = *seed * 1664525u + 1013904223u;
    return *seed >> 8;
}

static void *random_bytes(int64_t n, int32_t dtype, unsigned seed)
{
    unsigned char *p = malloc((size_t)n + 1);
    for (int64_t i = 0; i < n; i++)
        p[i] = (unsigned char)(next_rand(&seed) & 0xff);
    if (dtype == KN_INT8) /* symmetric weights keep to [-127, 127] */
        for (int64_t i = 0; i < n; i++)
            if (p[i] == 0x80)
                p[i] = 0x81;
    return p;
}

static void *scalar(const void *v, size_t bytes)
{
    void *p = malloc(bytes + 4);
    memcpy(p, v, bytes);
    return p;
}

static void *q8_scalar(int32_t dtype, int32_t v)
{
    int8_t s = (int8_t)v;
    uint8_t u = (uint8_t)v;
    return scalar(dtype == KN_INT8 ? (void *)&s : (void *)&u, 1);
}

static void qmm_case(kh_case *c, const qmm_spec *s)
{
    int quantized = s->y_dtype != KN_FLOAT;
    int32_t n_in = quantized ? IN_YZ + 1 : s->bias || s->fused ? IN_BIAS + 1 : IN_BZ + 1;
    kh_init(c, s->fused ? "QFusedMatMul" : "MatMulIntegerToFloat", 1, n_in, 1);
    c->node.domain = s->fused ? "kiln" : "com.microsoft";
    int64_t ad[3] = {s->batch, s->m, s->k}, bd[2] = {s->k, s->n};
    kh_input(c, IN_A, s->a_dtype, ad, 3, random_bytes(kn_shape_numel(ad, 3), s->a_dtype, 21));
    kh_input(c, IN_B, KN_INT8, bd, 2, random_bytes(s->k * s->n, KN_INT8, 22));
    float sa = 0.013f;
    kh_input(c, IN_AS, KN_FLOAT, NULL, 0, scalar(&sa, 4));
    int64_t ns = s->per_column ? s->n : 1;
    float *sb = malloc(sizeof(float) * (size_t)ns + 4);
    for (int64_t i = 0; i < ns; i++)
        sb[i] = 0.002f + 0.00025f * (float)(i % 5);
    kh_input(c, IN_BS, KN_FLOAT, &ns, s->per_column ? 1 : 0, sb);
    kh_input(c, IN_AZ, s->a_dtype, NULL, 0, q8_scalar(s->a_dtype, s->za));
    kh_input(c, IN_BZ, KN_INT8, &ns, s->per_column ? 1 : 0, calloc((size_t)ns + 4, 1));
    if (s->bias) {
        float *b = malloc(sizeof(float) * (size_t)s->n + 4);
        unsigned seed = 23;
        for (int64_t i = 0; i < s->n; i++)
            b[i] = (float)(next_rand(&seed) % 2001) / 1000.0f - 1.0f;
        kh_input(c, IN_BIAS, KN_FLOAT, &s->n, 1, b);
    }
    if (quantized) {
        float sy = 0.031f;
        kh_input(c, IN_YS, KN_FLOAT, NULL, 0, scalar(&sy, 4));
        kh_input(c, IN_YZ, s->y_dtype, NULL, 0, q8_scalar(s->y_dtype, s->zy));
    }
    if (s->activation)
        kh_attr_string(c, "activation", s->activation);
}

/* All inputs but A constant, as in a model. */
#define QMM_CONSTS 0x1fe

static void check_qmm(const qmm_spec *s, const char *what)
{
    kh_case c;
    qmm_case(&c, s);
    void *dn = NULL, *cpu = NULL;
    kn_tensor dd, cd;
    int rc = dt_run(&c, &kn_backend_dnnl, QMM_CONSTS, 1, (float **)&dn, &dd);
    DT_SKIP_WITHOUT_VNNI(rc, &c);
    cr_assert_eq(rc, KN_OK, "%s: oneDNN kernel: %s (%d)", what, c.err.msg, rc);
    rc = dt_run(&c, &kn_backend_cpu, QMM_CONSTS, 1, (float **)&cpu, &cd);
    cr_assert_eq(rc, KN_OK, "%s: CPU kernel: %s", what, c.err.msg);
    cr_assert(kn_shape_equal(dd.dims, dd.rank, cd.dims, cd.rank), "%s: shapes differ", what);
    cr_assert_eq(dd.dtype, s->y_dtype, "%s: oneDNN output dtype", what);
    cr_assert_eq(cd.dtype, s->y_dtype, "%s: CPU output dtype", what);
    int64_t n = kn_tensor_numel(&cd), off = 0;
    if (s->y_dtype == KN_FLOAT) {
        dt_assert_close(dn, cpu, n, 1e-4, what);
    } else {
        for (int64_t i = 0; i < n; i++) {
            int va = s->y_dtype == KN_INT8 ? ((int8_t *)dn)[i] : ((uint8_t *)dn)[i];
            int vb = s->y_dtype == KN_INT8 ? ((int8_t *)cpu)[i] : ((uint8_t *)cpu)[i];
            cr_assert(abs(va - vb) <= 1, "%s: element %lld: %d vs %d", what, (long long)i, va, vb);
            off += va != vb;
        }
        cr_assert(off * 100 <= n, "%s: %lld of %lld one step off", what, (long long)off,
                  (long long)n);
    }
    free(dn);
    free(cpu);
    dt_free_inputs(&c);
    kh_free(&c);
}

Test(dnnl_qmatmul, bias_inside_matmul_integer_to_float)
{
    qmm_spec s = {.batch = 2,
                  .m = 37,
                  .k = 96,
                  .n = 70,
                  .a_dtype = KN_UINT8,
                  .y_dtype = KN_FLOAT,
                  .za = 131,
                  .per_column = 1,
                  .bias = 1};
    check_qmm(&s, "uint8 A, per-column B, bias");
    s.a_dtype = KN_INT8;
    s.za = -7;
    s.per_column = 0;
    check_qmm(&s, "int8 A, per-tensor B, bias");
}

Test(dnnl_qmatmul, fused_epilogue_float_and_requantized)
{
    /* GELU and the requantization: the FFN's first product */
    qmm_spec s = {.batch = 1,
                  .m = 45,
                  .k = 64,
                  .n = 100,
                  .a_dtype = KN_UINT8,
                  .y_dtype = KN_UINT8,
                  .za = 120,
                  .zy = 30,
                  .per_column = 1,
                  .bias = 1,
                  .activation = "Gelu",
                  .fused = 1};
    check_qmm(&s, "uint8 -> GELU -> uint8");
    s.y_dtype = KN_INT8;
    s.zy = -90;
    s.a_dtype = KN_INT8;
    s.za = 3;
    check_qmm(&s, "int8 -> GELU -> int8");
    /* bias without activation, requantized: the attention's output projection */
    s.activation = NULL;
    s.y_dtype = KN_UINT8;
    s.zy = 128;
    check_qmm(&s, "bias -> uint8");
    /* Relu without bias: 1 / y_scale joins the output scale */
    s.bias = 0;
    s.activation = "Relu";
    s.zy = 0;
    check_qmm(&s, "Relu -> uint8, no bias");
    /* float output with an activation */
    s.y_dtype = KN_FLOAT;
    s.bias = 1;
    s.activation = "Sigmoid";
    check_qmm(&s, "bias -> Sigmoid, float");
    s.activation = "Gelu";
    s.batch = 3;
    check_qmm(&s, "bias -> GELU, float, rank 3");
}

Test(dnnl_qmatmul, declines_a_computed_y_scale)
{
    qmm_spec s = {.batch = 1,
                  .m = 8,
                  .k = 32,
                  .n = 16,
                  .a_dtype = KN_UINT8,
                  .y_dtype = KN_UINT8,
                  .za = 1,
                  .zy = 2,
                  .per_column = 1,
                  .bias = 1,
                  .fused = 1};
    kh_case c;
    qmm_case(&c, &s);
    float *out = NULL;
    kn_tensor d;
    int rc = dt_run(&c, &kn_backend_dnnl, QMM_CONSTS & ~(1u << IN_YS), 1, &out, &d);
    cr_assert_eq(rc, KN_ERR_DECLINE, "a y_scale known only at run time: %s", c.err.msg);
    free(out);
    dt_free_inputs(&c);
    kh_free(&c);
}

#else

Test(dnnl_qmatmul, needs_onednn)
{
    cr_skip_test("built without oneDNN (KILN_WITH_DNNL off): no integer matrix product to test");
}

#endif
