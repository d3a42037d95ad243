/* The CUDA suites' shared inputs and kernel-against-CPU check (cuda_cases.h). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda/half_weights.h"
#include "core/engine/tuning.h"
#include "core/kernel/backend.h"
#include "tests/cuda/cuda_cases.h"

extern const kn_backend kn_backend_cuda;

void fill(float *x, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)(seed >> 8) / 8388608.0f - 1.0f;
    }
}

void rand_input(kh_case *c, int32_t i, const int64_t *dims, int32_t rank, unsigned seed)
{
    size_t n = (size_t)kn_shape_numel(dims, rank);
    float *x = malloc(n * sizeof *x + 4);
    fill(x, n, seed);
    kh_input(c, i, KN_FLOAT, dims, rank, x);
}

void free_inputs(kh_case *c)
{
    for (int32_t i = 0; i < c->n_in; i++) {
        free(c->in[i].data);
        c->in[i].data = NULL;
    }
}

/* Output i of the CUDA kernel (host copy `got`) against the CPU's `want`. */
static void compare_output(const kn_tensor *got_t, const void *got, const kn_tensor *want_t,
                           int32_t i, double tol, const char *what)
{
    int64_t n = kn_tensor_numel(got_t), where = 0;
    cr_assert_eq(got_t->dtype, want_t->dtype, "%s: output %d's dtype", what, i);
    if (got_t->dtype != KN_FLOAT) {
        cr_assert(memcmp(got, want_t->data, (size_t)kn_tensor_nbytes(got_t)) == 0,
                  "%s: output %d differs from the CPU kernel's", what, i);
        return;
    }
    const float *g = got, *w = want_t->data;
    double worst = 0;
    for (int64_t e = 0; e < n; e++) {
        double d = fabs((double)g[e] - w[e]) / fmax(1.0, fabs(w[e]));
        if (!(d <= worst)) { /* a NaN counts as the worst */
            worst = d == d ? d : INFINITY;
            where = e;
        }
    }
    cr_assert(worst <= tol, "%s: output %d element %lld: CUDA %g, CPU %g (tolerance %g)", what, i,
              (long long)where, g[where], w[where], tol);
    cr_log_info("%s: output %d, %lld elements, worst relative error %.2e", what, i, (long long)n,
                worst);
}

void cuda_case_check(const cuda_target *t, kh_case *c, uint32_t const_mask, double tol,
                     const char *what)
{
    kh_case ref = *c;
    cr_assert_eq(kh_run_kernel(&ref, 1, &kn_backend_cpu, const_mask), KN_OK, "%s: CPU: %s", what,
                 ref.err.msg);
    int32_t dtype = c->n_in > 0 ? c->in[0].dtype : 0;
    const kn_op_def *def =
        kn_backend_kernel(&kn_backend_cuda, c->node.domain, c->node.op_type, c->opset, dtype);
    cr_assert_not_null(def, "%s: no CUDA kernel", what);

    kn_err err = {0};
    kn_tensor in_view[KH_MAX_IO], out[KH_MAX_IO], *in_ptrs[KH_MAX_IO], *out_ptrs[KH_MAX_IO];
    for (int32_t i = 0; i < c->n_in; i++) {
        in_view[i] = c->in[i];
        if (!(const_mask >> i & 1u))
            in_view[i].data = NULL;
        in_ptrs[i] = c->in[i].data ? &in_view[i] : NULL;
    }
    memset(out, 0, sizeof out);
    for (int32_t i = 0; i < c->n_out; i++)
        out_ptrs[i] = &out[i];
    kn_kctx k = {.node = &c->node,
                 .opset = c->opset,
                 .n_in = c->n_in,
                 .n_out = c->n_out,
                 .in = in_ptrs,
                 .out = out_ptrs,
                 .err = &err,
                 .device = t->device,
                 .stream = t->stream,
                 .precision = t->precision,
                 .engine_api = t->engine_api,
                 .engine = t->engine};
    int rc = def->prepare(&k);
    cr_assert_eq(rc, KN_OK, "%s: CUDA prepare returned %d: %s", what, rc, err.msg);

    for (int32_t i = 0; i < c->n_in; i++)
        if (c->in[i].data)
            in_view[i].data = t->upload(t, c->in[i].data, (size_t)kn_tensor_nbytes(&c->in[i]));
    for (int32_t i = 0; i < c->n_out; i++) {
        cr_assert(kn_shape_equal(out[i].dims, out[i].rank, ref.out[i].dims, ref.out[i].rank),
                  "%s: output %d's shape differs from the CPU kernel's", what, i);
        out[i].data = t->alloc(t, (size_t)kn_tensor_nbytes(&out[i]));
    }
    k.scratch = k.scratch_bytes ? t->alloc(t, k.scratch_bytes) : NULL;
    rc = def->run(&k);
    cr_assert_eq(rc, KN_OK, "%s: CUDA run returned %d: %s", what, rc, err.msg);

    for (int32_t i = 0; i < c->n_out; i++) {
        size_t bytes = (size_t)kn_tensor_nbytes(&out[i]);
        void *host = malloc(bytes + 4);
        t->download(t, host, out[i].data, bytes);
        compare_output(&out[i], host, &ref.out[i], i, tol, what);
        free(host);
    }
    if (def->release)
        def->release(&k);
    for (int32_t i = 0; i < c->n_in; i++)
        if (c->in[i].data)
            t->release(t, in_view[i].data);
    for (int32_t i = 0; i < c->n_out; i++)
        t->release(t, out[i].data);
    t->release(t, k.scratch);
    kh_free(&ref);
}

void cuda_tuning_begin(cuda_tuning *tu, cuda_target *t, kh_case *c, int tune, const char *cache)
{
    memset(tu, 0, sizeof *tu);
    tu->graph.nodes = &c->node;
    tu->graph.n_nodes = 1;
    tu->ir.graph = &tu->graph;
    tu->model.ir = &tu->ir;
    tu->model.graph = &tu->graph;
    tu->model.root = &tu->model;
    tu->device = (kn_plan_device){.backend = &kn_backend_cuda, .device = t->device,
                                  .stream = t->stream};
    tu->plan.model = &tu->model;
    tu->plan.options.device = &tu->device;
    kn_err err = {0};
    if (tune)
        cr_assert_eq(kn_tuner_open(&tu->plan.tuner, &tu->ir, &tu->graph, cache, 1, &err), KN_OK,
                     "%s", err.msg);
    t->engine_api = &kn_plan_engine_api;
    t->engine = &tu->plan;
}

void cuda_tuning_end(cuda_tuning *tu, cuda_target *t)
{
    kn_err err = {0};
    cr_assert_eq(kn_tuner_close(tu->plan.tuner, &err), KN_OK, "%s", err.msg);
    tu->plan.tuner = NULL;
    t->engine_api = NULL;
    t->engine = NULL;
}

/* --- cases both suites run */

void data_movement_cases(cuda_check_fn check)
{
    const int64_t x[] = {2, 3, 4, 5};
    static const int64_t perm[] = {0, 2, 3, 1};
    kh_case c;
    kh_init(&c, "Transpose", 13, 1, 1);
    kh_attr_ints(&c, "perm", perm, 4);
    rand_input(&c, 0, x, 4, 111);
    check(&c, 0, 0, "Transpose");
    free_inputs(&c);

    static int64_t starts[] = {1, -1}, ends[] = {4, -6}, axes[] = {2, 3}, steps[] = {2, -2};
    const int64_t two[] = {2};
    kh_init(&c, "Slice", 13, 5, 1);
    rand_input(&c, 0, x, 4, 112);
    kh_input(&c, 1, KN_INT64, two, 1, starts);
    kh_input(&c, 2, KN_INT64, two, 1, ends);
    kh_input(&c, 3, KN_INT64, two, 1, axes);
    kh_input(&c, 4, KN_INT64, two, 1, steps);
    check(&c, 0x1e, 0, "Slice");
    free(c.in[0].data);

    static int64_t idx[] = {2, 0, -1, 1, 1};
    static int32_t idx32[] = {1, -2, 0};
    const int64_t five[] = {5}, three[] = {3};
    kh_init(&c, "Gather", 13, 2, 1);
    kh_attr_int(&c, "axis", 2);
    rand_input(&c, 0, x, 4, 113);
    kh_input(&c, 1, KN_INT64, five, 1, idx);
    check(&c, 0, 0, "Gather int64");
    free(c.in[0].data);
    kh_init(&c, "Gather", 13, 2, 1);
    kh_attr_int(&c, "axis", -1);
    rand_input(&c, 0, x, 4, 114);
    kh_input(&c, 1, KN_INT32, three, 1, idx32);
    check(&c, 0, 0, "Gather int32");
    free(c.in[0].data);

    const int64_t y[] = {2, 1, 4, 5}, z[] = {2, 2, 4, 5};
    kh_init(&c, "Concat", 13, 3, 1);
    kh_attr_int(&c, "axis", 1);
    rand_input(&c, 0, x, 4, 115);
    rand_input(&c, 1, y, 4, 116);
    rand_input(&c, 2, z, 4, 117);
    check(&c, 0, 0, "Concat");
    free_inputs(&c);

    static int64_t parts[] = {2, 3};
    const int64_t xs[] = {2, 5, 4};
    kh_init(&c, "Split", 13, 2, 2);
    kh_attr_int(&c, "axis", 1);
    rand_input(&c, 0, xs, 3, 160);
    kh_input(&c, 1, KN_INT64, two, 1, parts);
    check(&c, 0x2, 0, "Split");
    free(c.in[0].data);

    static int64_t shape[] = {3, 1, 5};
    const int64_t small[] = {1, 4, 1};
    kh_init(&c, "Expand", 13, 2, 1);
    rand_input(&c, 0, small, 3, 118);
    kh_input(&c, 1, KN_INT64, three, 1, shape);
    check(&c, 0x2, 0, "Expand");
    free(c.in[0].data);

    static int64_t new_shape[] = {6, -1};
    kh_init(&c, "Reshape", 14, 2, 1);
    rand_input(&c, 0, x, 4, 119);
    kh_input(&c, 1, KN_INT64, two, 1, new_shape);
    check(&c, 0x2, 0, "Reshape (a copy when not aliased)");
    free(c.in[0].data);
}

void compare_where_cast_cases(cuda_check_fn check)
{
    static const char *const ops[] = {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"};
    const int64_t a[] = {3, 1, 6}, b[] = {4, 1};
    static int64_t ia[18], ib[4];
    for (int i = 0; i < 18; i++)
        ia[i] = i % 5 - 2;
    for (int i = 0; i < 4; i++)
        ib[i] = i - 1;
    for (int i = 0; i < 5; i++) {
        kh_case c;
        kh_init(&c, ops[i], 16, 2, 1);
        rand_input(&c, 0, a, 3, 141);
        rand_input(&c, 1, b, 2, 142);
        ((float *)c.in[1].data)[0] = ((float *)c.in[0].data)[0]; /* one equal pair */
        check(&c, 0, 0, ops[i]);
        free_inputs(&c);
        kh_init(&c, ops[i], 16, 2, 1);
        kh_input(&c, 0, KN_INT64, a, 3, ia);
        kh_input(&c, 1, KN_INT64, b, 2, ib);
        check(&c, 0, 0, ops[i]);
    }

    static uint8_t cond[6] = {1, 0, 0, 1, 1, 0};
    const int64_t cd[] = {6}, xd[] = {2, 1, 6}, yd[] = {3, 1};
    kh_case c;
    kh_init(&c, "Where", 16, 3, 1);
    kh_input(&c, 0, KN_BOOL, cd, 1, cond);
    rand_input(&c, 1, xd, 3, 143);
    rand_input(&c, 2, yd, 2, 144);
    check(&c, 0, 0, "Where float");
    free(c.in[1].data);
    free(c.in[2].data);
    kh_init(&c, "Where", 16, 3, 1);
    kh_input(&c, 0, KN_BOOL, cd, 1, cond);
    kh_input(&c, 1, KN_INT64, cd, 1, ia);
    kh_input(&c, 2, KN_INT64, b, 2, ib);
    check(&c, 0, 0, "Where int64");

    static const int32_t to[] = {KN_INT64, KN_INT32, KN_BOOL, KN_UINT8, KN_DOUBLE};
    const int64_t xs[] = {4, 5};
    for (size_t i = 0; i < sizeof to / sizeof to[0]; i++) {
        kh_init(&c, "Cast", 13, 1, 1);
        kh_attr_int(&c, "to", to[i]);
        rand_input(&c, 0, xs, 2, 145);
        for (int e = 0; e < 20; e++)
            ((float *)c.in[0].data)[e] *= 9.0f; /* whole parts to keep */
        ((float *)c.in[0].data)[3] = 0.0f;
        check(&c, 0, 0, "Cast from float");
        free_inputs(&c);
    }
    kh_init(&c, "Cast", 13, 1, 1);
    kh_attr_int(&c, "to", KN_FLOAT);
    kh_input(&c, 0, KN_INT64, xd, 3, ia);
    check(&c, 0, 0, "Cast int64 to float");
    kh_init(&c, "Cast", 13, 1, 1);
    kh_attr_int(&c, "to", KN_FLOAT);
    kh_input(&c, 0, KN_BOOL, cd, 1, cond);
    check(&c, 0, 0, "Cast bool to float");
}

void matmul_cases(cuda_check_fn check, double tol)
{
    struct {
        int64_t a[4], b[4];
        int32_t ra, rb;
    } cases[] = {
        {{2, 3, 5, 7}, {7, 4}, 4, 2}, {{2, 5, 7}, {2, 7, 4}, 3, 3}, {{5, 7}, {3, 7, 4}, 2, 3},
        {{7}, {7, 4}, 1, 2},          {{3, 5, 7}, {7}, 3, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kh_case c;
        kh_init(&c, "MatMul", 13, 2, 1);
        rand_input(&c, 0, cases[i].a, cases[i].ra, 1 + (unsigned)i);
        rand_input(&c, 1, cases[i].b, cases[i].rb, 11 + (unsigned)i);
        check(&c, 0x2, tol, "MatMul");
        free_inputs(&c);
    }
}

void elementwise_chain_case(cuda_check_fn check, const int64_t x[3], double tol)
{
    /* y = clip(t2 - sigmoid(x * t1 + 0.5), -0.2, 0.6): tensor and scalar
     * operands, a reversed step, activations with parameters */
    static const char *steps[] = {"Mul", "Add", "Sigmoid", "RSub", "Clip"};
    static const int64_t operands[] = {1, -1, -1, 2, -1};
    static const float params[] = {0, 0, 0.5f, 0, 0, 0, 0, 0, -0.2f, 0.6f};
    const int64_t one[] = {1};
    kh_case c;
    kh_init(&c, "ElementwiseChain", 1, 3, 1);
    c.node.domain = "kiln";
    c.attrs[c.node.n_attrs++] =
        (kn_attr){.name = "steps", .type = KN_ATTR_STRINGS, .count = 5, .strings = steps};
    kh_attr_ints(&c, "operands", operands, 5);
    kh_attr_floats(&c, "params", params, 10);
    rand_input(&c, 0, x, 3, 94);
    rand_input(&c, 1, x, 3, 95);
    rand_input(&c, 2, one, 1, 96);
    check(&c, 0, tol, "ElementwiseChain");
    free_inputs(&c);
}

void conv_case(cuda_check_fn check, const conv_spec *s, unsigned seed, double tol)
{
    int fused = strcmp(s->op, "Conv") != 0;
    int32_t n_in = s->z_rank ? 4 : s->bias ? 3 : 2;
    kh_case c;
    kh_init(&c, s->op, fused ? 1 : 11, n_in, 1);
    if (fused) {
        c.node.domain = "kiln";
        kh_attr_string(&c, "activation", s->activation);
    }
    if (s->group > 1)
        kh_attr_int(&c, "group", s->group);
    if (s->n_pads)
        kh_attr_ints(&c, "pads", s->pads, s->n_pads);
    if (s->n_strides)
        kh_attr_ints(&c, "strides", s->strides, s->n_strides);
    const int64_t channels[] = {s->w[0]};
    rand_input(&c, 0, s->x, s->rank, seed);
    rand_input(&c, 1, s->w, s->rank, seed + 1);
    if (n_in > 2)
        rand_input(&c, 2, channels, 1, seed + 2);
    if (s->z_rank)
        rand_input(&c, 3, s->z, s->z_rank, seed + 3);
    check(&c, n_in > 2 ? 0x6 : 0x2, tol, s->what);
    free_inputs(&c);
}

void pool_case(cuda_check_fn check, const pool_spec *s, unsigned seed, double tol)
{
    kh_case c;
    kh_init(&c, s->op, s->opset, 1, 1);
    if (strncmp(s->op, "Nhwc", 4) == 0)
        c.node.domain = "kiln";
    if (s->n_kernel)
        kh_attr_ints(&c, "kernel_shape", s->kernel, s->n_kernel);
    if (s->n_strides)
        kh_attr_ints(&c, "strides", s->strides, s->n_strides);
    if (s->n_pads)
        kh_attr_ints(&c, "pads", s->pads, s->n_pads);
    if (s->count_include_pad >= 0)
        kh_attr_int(&c, "count_include_pad", s->count_include_pad);
    rand_input(&c, 0, s->x, 4, seed);
    check(&c, 0, tol, s->what);
    free_inputs(&c);
}

void row_cases(cuda_check_fn check, int64_t cols, double tol)
{
    const int64_t x[] = {4, 6, cols}, d[] = {cols};
    kh_case c;
    kh_init(&c, "Softmax", 13, 1, 1);
    rand_input(&c, 0, x, 3, 121);
    check(&c, 0, tol, "Softmax");
    free_inputs(&c);

    kh_init(&c, "LogSoftmax", 11, 1, 1);
    kh_attr_int(&c, "axis", 1);
    rand_input(&c, 0, x, 3, 122);
    check(&c, 0, tol, "LogSoftmax opset 11 axis 1");
    free_inputs(&c);

    kh_init(&c, "LayerNormalization", 17, 3, 1);
    kh_attr_float(&c, "epsilon", 1e-12f);
    rand_input(&c, 0, x, 3, 123);
    rand_input(&c, 1, d, 1, 124);
    rand_input(&c, 2, d, 1, 125);
    check(&c, 0x6, 10 * tol, "LayerNormalization");
    free_inputs(&c);

    static const int64_t last[] = {-1}, middle[] = {1}, first_last[] = {0, 2};
    static const struct {
        const char *op, *what;
        const int64_t *axes;
        int32_t n_axes, keepdims;
    } reductions[] = {{"ReduceMean", "ReduceMean last axis", last, 1, 1},
                      {"ReduceSum", "ReduceSum middle axis", middle, 1, 1},
                      {"ReduceMax", "ReduceMax first and last axes", first_last, 2, 1},
                      {"ReduceMax", "ReduceMax middle axis, dropped", middle, 1, 0},
                      {"ReduceMin", "ReduceMin last axis", last, 1, 1}};
    for (size_t i = 0; i < sizeof reductions / sizeof reductions[0]; i++) {
        kh_init(&c, reductions[i].op, 11, 1, 1);
        kh_attr_ints(&c, "axes", reductions[i].axes, reductions[i].n_axes);
        kh_attr_int(&c, "keepdims", reductions[i].keepdims);
        rand_input(&c, 0, x, 3, 126 + (unsigned)i);
        int exact = strstr(reductions[i].op, "Max") || strstr(reductions[i].op, "Min");
        check(&c, 0, exact ? 0 : tol, reductions[i].what);
        free_inputs(&c);
    }
}

void fused_matmul_case(cuda_check_fn check, const char *activation, unsigned seed, double tol)
{
    static const float no_params[1];
    const int64_t a[] = {4, 6, 32}, b[] = {32, 24}, bias[] = {24};
    char what[64];
    snprintf(what, sizeof what, "FusedMatMul bias + %s", *activation ? activation : "nothing");
    kh_case c;
    kh_init(&c, "FusedMatMul", 1, 3, 1);
    c.node.domain = "kiln";
    kh_attr_string(&c, "activation", activation);
    kh_attr_floats(&c, "activation_params", no_params, 0);
    rand_input(&c, 0, a, 3, seed);
    rand_input(&c, 1, b, 2, seed + 1);
    rand_input(&c, 2, bias, 1, seed + 2);
    check(&c, 0x6, tol, what);
    free_inputs(&c);
}

void unary_cases(cuda_check_fn check, const char *const *ops, size_t n, int64_t opset,
                 const int64_t x[3], double tol)
{
    for (size_t i = 0; i < n; i++) {
        kh_case c;
        kh_init(&c, ops[i], opset, 1, 1);
        rand_input(&c, 0, x, 3, 81 + (unsigned)i);
        check(&c, 0, tol, ops[i]);
        free_inputs(&c);
    }
}

void binary_cases(cuda_check_fn check, const char *const *ops, size_t n, const int64_t a[4],
                  const int64_t *b, int32_t b_rank, double tol)
{
    for (size_t i = 0; i < n; i++) {
        kh_case c;
        kh_init(&c, ops[i], 14, 2, 1);
        rand_input(&c, 0, a, 4, 91);
        rand_input(&c, 1, b, b_rank, 92);
        if (strcmp(ops[i], "Pow") == 0) {
            float *base = c.in[0].data;
            for (int64_t e = 0; e < kn_shape_numel(a, 4); e++)
                base[e] = fabsf(base[e]) + 0.1f;
        }
        check(&c, 0, tol, ops[i]);
        free_inputs(&c);
    }
}

void clip_case(cuda_check_fn check, const int64_t *x, int32_t rank)
{
    static float lo = -0.25f, hi = 0.5f;
    const int64_t one[] = {1};
    kh_case c;
    kh_init(&c, "Clip", 13, 3, 1);
    rand_input(&c, 0, x, rank, 93);
    kh_input(&c, 1, KN_FLOAT, one, 0, &lo);
    kh_input(&c, 2, KN_FLOAT, one, 0, &hi);
    check(&c, 0x6, 0, "Clip");
    free(c.in[0].data);
}

void gemm_cases(cuda_check_fn check, double tol)
{
    const int64_t a[] = {6, 32}, at[] = {32, 6}, b[] = {32, 24}, bt[] = {24, 32};
    const int64_t row[] = {24}, full[] = {6, 24};
    for (int full_c = 0; full_c < 2; full_c++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2 - full_c; tb++) {
                kh_case c;
                kh_init(&c, "Gemm", 13, 3, 1);
                kh_attr_int(&c, "transA", ta);
                kh_attr_int(&c, "transB", tb);
                if (full_c) {
                    kh_attr_float(&c, "alpha", 0.5f);
                    kh_attr_float(&c, "beta", 2.0f);
                }
                rand_input(&c, 0, ta ? at : a, 2, 21);
                rand_input(&c, 1, tb ? bt : b, 2, 22);
                rand_input(&c, 2, full_c ? full : row, full_c ? 2 : 1, 23);
                check(&c, 0x6, tol, full_c ? "Gemm alpha, beta, full C" : "Gemm with a bias row");
                free_inputs(&c);
            }
}

void attention_case(cuda_check_fn check, const int64_t q[4], const int64_t k[4], const int64_t v[4],
                    const int64_t *mask, int32_t mask_rank, int k_transposed, float scale,
                    unsigned seed, double tol, const char *what)
{
    kh_case c;
    kh_init(&c, "Attention", 1, mask_rank ? 4 : 3, 1);
    c.node.domain = "kiln";
    kh_attr_float(&c, "scale", scale);
    kh_attr_int(&c, "k_transposed", k_transposed);
    rand_input(&c, 0, q, 4, seed);
    rand_input(&c, 1, k, 4, seed + 1);
    rand_input(&c, 2, v, 4, seed + 2);
    if (mask_rank)
        rand_input(&c, 3, mask, mask_rank, seed + 3);
    check(&c, 0, tol, what);
    free_inputs(&c);
}

static int half_is_nan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0; }

void half_conversion_case(const cuda_target *t)
{
    /* 1 + 2^-11 and 1 + 3 * 2^-11 tie between two halves (to even: down,
     * then up); 2^-25 ties between 0 and the smallest subnormal (to 0),
     * 3 * 2^-25 between two subnormals; 65519.99 rounds to 65504, 65520 to
     * inf; 2^-14 is the smallest normal */
    static const float values[] = {0.0f,         -0.0f,     1.0f,       -2.5f,       0x1.002p0f,
                                   0x1.006p0f,   0x1p-25f,  0x1.8p-24f, 0x1p-24f,    0x1p-14f,
                                   0x1.ffcp-15f, 65504.0f,  65519.99f,  65520.0f,    -1e9f,
                                   INFINITY,     -INFINITY, NAN,        3.14159265f, 1e-30f};
    enum { N = sizeof values / sizeof values[0], ALL = 65536 };
    kn_err err = {0};
    kn_kctx k = {.device = t->device, .stream = t->stream, .err = &err};
    kn_cuda_half_kernels kernels;
    cr_assert_eq(kn_cuda_half_kernels_find(&k, &kernels), KN_OK, "%s", err.msg);

    void *x = t->upload(t, values, sizeof values), *y = t->alloc(t, N * 2);
    uint16_t got[N];
    cr_assert_eq(kn_cuda_to_half(&k, &kernels, x, y, N), KN_OK, "%s", err.msg);
    t->download(t, got, y, sizeof got);
    for (int i = 0; i < N; i++) {
        uint16_t want = kn_f32_to_f16(values[i]);
        cr_expect(got[i] == want || (half_is_nan(got[i]) && half_is_nan(want)),
                  "%a to half: device 0x%04x, host 0x%04x", (double)values[i], got[i], want);
    }
    t->release(t, x);
    t->release(t, y);

    uint16_t *all = malloc(ALL * sizeof *all);
    float *back = malloc(ALL * sizeof *back);
    cr_assert(all && back);
    for (int i = 0; i < ALL; i++)
        all[i] = (uint16_t)i;
    x = t->upload(t, all, ALL * sizeof *all);
    y = t->alloc(t, ALL * sizeof *back);
    cr_assert_eq(kn_cuda_to_float(&k, &kernels, x, y, ALL), KN_OK, "%s", err.msg);
    t->download(t, back, y, ALL * sizeof *back);
    int bad = 0;
    for (int i = 0; i < ALL; i++) {
        float want = kn_f16_to_f32((uint16_t)i);
        int same = memcmp(&back[i], &want, sizeof want) == 0 || (isnan(back[i]) && isnan(want));
        if (!same && bad++ < 5)
            cr_log_error("half 0x%04x to float: device %a, host %a", i, (double)back[i],
                         (double)want);
    }
    cr_expect_eq(bad, 0, "%d of 65536 halves widen differently on the device", bad);
    t->release(t, x);
    t->release(t, y);
    free(all);
    free(back);
}
