/* Elementwise binary kernels (core/cpu/elementwise/binary.c, where.c): broadcasting in
 * many shape combinations against a naive index-by-index reference,
 * scalars and rank 0, integer semantics (wrapping, division by zero),
 * Pow/Mod/PRelu/BitShift, comparisons and logic, the legacy opset < 7
 * broadcast attributes, variadic ops, Where, float16, in-place runs, 1 vs 2
 * threads and error cases. */
#include "kernel_checks.h"

static kh_case c; /* one case per test; freed by the fini hook */
static void fini(void) { kh_free(&c); }
TestSuite(binary, .fini = fini);

static const int64_t D4[] = {4};

/* ---- binary: broadcasting against a naive reference -------------------- */

/* Element of a right-aligned, broadcast input for an output index. */
static int64_t bcast_index(const int64_t *odims, int orank, const int64_t *dims, int rank,
                           int64_t flat)
{
    int64_t idx = 0, stride = 1;
    for (int d = orank - 1; d >= 0; d--) {
        int64_t i = flat % odims[d];
        flat /= odims[d];
        int dd = d - (orank - rank);
        if (dd >= 0) {
            idx += (dims[dd] == 1 ? 0 : i) * stride;
            stride *= dims[dd];
        }
    }
    return idx;
}

static void check_add_broadcast(const int64_t *da, int ra, const int64_t *db, int rb,
                                const int64_t *want, int rw)
{
    int64_t na = 1, nb = 1, no = 1;
    for (int i = 0; i < ra; i++)
        na *= da[i];
    for (int i = 0; i < rb; i++)
        nb *= db[i];
    for (int i = 0; i < rw; i++)
        no *= want[i];
    float *a = malloc(sizeof(float) * (size_t)(na ? na : 1));
    float *b = malloc(sizeof(float) * (size_t)(nb ? nb : 1));
    for (int64_t i = 0; i < na; i++)
        a[i] = (float)i;
    for (int64_t i = 0; i < nb; i++)
        b[i] = (float)(i * 1000);
    kh_init(&c, "Sub", 14, 2, 1);
    kh_input(&c, 0, KN_FLOAT, da, ra, a);
    kh_input(&c, 1, KN_FLOAT, db, rb, b);
    run_both(&c);
    cr_assert(kn_shape_equal(c.out[0].dims, c.out[0].rank, want, rw), "wrong output shape");
    const float *o = c.out[0].data;
    for (int64_t i = 0; i < no; i++) {
        float w = a[bcast_index(want, rw, da, ra, i)] - b[bcast_index(want, rw, db, rb, i)];
        cr_assert_eq(o[i], w, "[%lld] = %g, expected %g", (long long)i, o[i], w);
    }
    kh_free(&c);
    free(a);
    free(b);
}


Test(binary, broadcast_shapes)
{
    check_add_broadcast(DIMS(2, 3), DIMS(2, 3), DIMS(2, 3));
    check_add_broadcast(DIMS(2, 3), DIMS(3), DIMS(2, 3));
    check_add_broadcast(DIMS(2, 1), DIMS(1, 3), DIMS(2, 3));
    check_add_broadcast(DIMS(4, 1, 3), DIMS(2, 1), DIMS(4, 2, 3));
    check_add_broadcast(DIMS(1), DIMS(2, 3), DIMS(2, 3));
    check_add_broadcast(DIMS(2, 3, 5, 7), DIMS(3, 1, 1), DIMS(2, 3, 5, 7)); /* NCHW + bias */
    check_add_broadcast(DIMS(5, 1, 7), DIMS(5, 6, 1), DIMS(5, 6, 7));
    check_add_broadcast(DIMS(2, 1, 4, 1, 3), DIMS(3, 1, 2, 3), DIMS(2, 3, 4, 2, 3));
    check_add_broadcast(DIMS(0, 3), DIMS(1, 3), DIMS(0, 3));
    /* big enough to split across threads, with a broadcast inner row */
    check_add_broadcast(DIMS(64, 1, 1000), DIMS(3, 1), DIMS(64, 3, 1000));
    check_add_broadcast(DIMS(300, 200), DIMS(300, 1), DIMS(300, 200));
    /* one row over the innermost axis (a per-channel gate in NHWC), rows
     * not a vector multiple, the threads' ranges splitting rows */
    check_add_broadcast(DIMS(1, 50, 37, 24), DIMS(24), DIMS(1, 50, 37, 24));
    check_add_broadcast(DIMS(1, 1, 24), DIMS(3, 50, 37, 24), DIMS(3, 50, 37, 24));
}

Test(binary, scalars_and_rank0)
{
    float a[] = {1, 2, 3, 4}, s = 10;
    kh_init(&c, "Mul", 14, 2, 1);
    kh_input(&c, 0, KN_FLOAT, D4, 1, a);
    kh_input(&c, 1, KN_FLOAT, NULL, 0, &s);
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){10, 20, 30, 40}, 4, 0);
    kh_free(&c);
    kh_init(&c, "Div", 14, 2, 1);
    kh_input(&c, 0, KN_FLOAT, NULL, 0, &s);
    kh_input(&c, 1, KN_FLOAT, D4, 1, a);
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){10, 5, 10.0f / 3, 2.5f}, 4, 1e-7);
    kh_free(&c);
    float t = 4;
    kh_init(&c, "Add", 14, 2, 1);
    kh_input(&c, 0, KN_FLOAT, NULL, 0, &s);
    kh_input(&c, 1, KN_FLOAT, NULL, 0, &t);
    run_ok(&c);
    cr_assert_eq(c.out[0].rank, 0);
    cr_assert_eq(*(float *)c.out[0].data, 14);
}

Test(binary, integer_arithmetic)
{
    int32_t a[] = {-7, 7, INT32_MIN, 9}, b[] = {2, 0, -1, -4};
    kh_init(&c, "Div", 14, 2, 1);
    kh_input(&c, 0, KN_INT32, D4, 1, a);
    kh_input(&c, 1, KN_INT32, D4, 1, b);
    run_ok(&c);
    /* truncation; x / 0 defined as 0; INT_MIN / -1 wraps */
    expect_n(&c.out[0], KN_INT32, (int32_t[]){-3, 0, INT32_MIN, -2}, 4);
    kh_free(&c);
    uint8_t u[] = {200, 10, 255, 0}, v[] = {100, 20, 2, 1};
    kh_init(&c, "Add", 14, 2, 1);
    kh_input(&c, 0, KN_UINT8, D4, 1, u);
    kh_input(&c, 1, KN_UINT8, D4, 1, v);
    run_ok(&c);
    expect_n(&c.out[0], KN_UINT8, (uint8_t[]){44, 30, 1, 1}, 4);
    kh_free(&c);
    uint16_t p[] = {65535, 3, 0, 2}, q[] = {65535, 4, 9, 1};
    kh_init(&c, "Mul", 14, 2, 1);
    kh_input(&c, 0, KN_UINT16, D4, 1, p);
    kh_input(&c, 1, KN_UINT16, D4, 1, q);
    run_ok(&c);
    expect_n(&c.out[0], KN_UINT16, (uint16_t[]){1, 12, 0, 2}, 4);
    kh_free(&c);
    int64_t x[] = {5, -5, 0, INT64_MIN}, y[] = {3, 3, 7, 1};
    kh_init(&c, "Sub", 14, 2, 1);
    kh_input(&c, 0, KN_INT64, D4, 1, x);
    kh_input(&c, 1, KN_INT64, D4, 1, y);
    run_ok(&c);
    expect_n(&c.out[0], KN_INT64, (int64_t[]){2, -8, -7, INT64_MAX}, 4);
}

Test(binary, pow_and_mod)
{
    float a[] = {2, 9, -2, 0.5f}, b[] = {3, 0.5f, 2, -1};
    kh_init(&c, "Pow", 7, 2, 1);
    kh_input(&c, 0, KN_FLOAT, D4, 1, a);
    kh_input(&c, 1, KN_FLOAT, D4, 1, b);
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){8, 3, 4, 2}, 4, 1e-7);
    kh_free(&c);
    /* float base, int64 exponent (opset 12+) */
    int64_t e[] = {2};
    kh_init(&c, "Pow", 15, 2, 1);
    kh_input(&c, 0, KN_FLOAT, D4, 1, a);
    kh_input(&c, 1, KN_INT64, (int64_t[]){1}, 1, e);
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){4, 81, 4, 0.25f}, 4, 1e-7);
    kh_free(&c);
    int32_t ia[] = {2, 3, -2, 5}, ib[] = {10, -1, 3, 0};
    kh_init(&c, "Pow", 15, 2, 1);
    kh_input(&c, 0, KN_INT32, D4, 1, ia);
    kh_input(&c, 1, KN_INT32, D4, 1, ib);
    run_ok(&c);
    expect_n(&c.out[0], KN_INT32, (int32_t[]){1024, 0, -8, 1}, 4);
    kh_free(&c);
    /* Mod: fmod=0 takes the divisor's sign, fmod=1 the dividend's */
    int32_t ma[] = {-7, 7, 7, 5}, mb[] = {3, -3, 0, -1};
    kh_init(&c, "Mod", 13, 2, 1);
    kh_input(&c, 0, KN_INT32, D4, 1, ma);
    kh_input(&c, 1, KN_INT32, D4, 1, mb);
    run_ok(&c);
    expect_n(&c.out[0], KN_INT32, (int32_t[]){2, -2, 0, 0}, 4);
    kh_free(&c);
    kh_init(&c, "Mod", 13, 2, 1);
    kh_attr_int(&c, "fmod", 1);
    kh_input(&c, 0, KN_INT32, D4, 1, ma);
    kh_input(&c, 1, KN_INT32, D4, 1, mb);
    run_ok(&c);
    expect_n(&c.out[0], KN_INT32, (int32_t[]){-1, 1, 0, 0}, 4);
    kh_free(&c);
    float fa[] = {-7.5f, 7.5f, 1, 2}, fb[] = {2, -2, 0.75f, 3};
    kh_init(&c, "Mod", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, D4, 1, fa);
    kh_input(&c, 1, KN_FLOAT, D4, 1, fb);
    cr_assert_eq(kh_run(&c, 1), KN_ERR_INVALID_MODEL); /* floats need fmod=1 */
    kh_free(&c);
    kh_init(&c, "Mod", 13, 2, 1);
    kh_attr_int(&c, "fmod", 1);
    kh_input(&c, 0, KN_FLOAT, D4, 1, fa);
    kh_input(&c, 1, KN_FLOAT, D4, 1, fb);
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){-1.5f, 1.5f, 0.25f, 2}, 4, 0);
}

Test(binary, compare_and_logic)
{
    float a[] = {1, 2, 3, NAN}, b[] = {2};
    const char *ops[] = {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"};
    const uint8_t want[][4] = {{0, 1, 0, 0}, {1, 0, 0, 0}, {0, 0, 1, 0}, {1, 1, 0, 0}, {0, 1, 1, 0}};
    for (int i = 0; i < 5; i++) {
        kh_init(&c, ops[i], 13, 2, 1);
        kh_input(&c, 0, KN_FLOAT, D4, 1, a);
        kh_input(&c, 1, KN_FLOAT, (int64_t[]){1}, 1, b);
        run_ok(&c);
        expect_n(&c.out[0], KN_BOOL, want[i], 4);
        kh_free(&c);
    }
    uint8_t p[] = {0, 0, 1, 1}, q[] = {0, 1, 0, 1};
    const char *lops[] = {"And", "Or", "Xor", "Equal"};
    const uint8_t lwant[][4] = {{0, 0, 0, 1}, {0, 1, 1, 1}, {0, 1, 1, 0}, {1, 0, 0, 1}};
    for (int i = 0; i < 4; i++) {
        kh_init(&c, lops[i], 7 + 4 * (i == 3), 2, 1);
        kh_input(&c, 0, KN_BOOL, D4, 1, p);
        kh_input(&c, 1, KN_BOOL, D4, 1, q);
        run_ok(&c);
        expect_n(&c.out[0], KN_BOOL, lwant[i], 4);
        kh_free(&c);
    }
    int64_t x[] = {1, 5}, y[] = {5, 1};
    kh_init(&c, "Greater", 13, 2, 1);
    kh_input(&c, 0, KN_INT64, (int64_t[]){2, 1}, 2, x);
    kh_input(&c, 1, KN_INT64, (int64_t[]){2}, 1, y);
    run_ok(&c);
    expect_n(&c.out[0], KN_BOOL, (uint8_t[]){0, 0, 0, 1}, 4);
}

Test(binary, legacy_broadcast)
{
    float a[24], b[] = {100, 200, 300};
    for (int i = 0; i < 24; i++)
        a[i] = (float)i;
    kh_init(&c, "Add", 6, 2, 1);
    kh_attr_int(&c, "broadcast", 1);
    kh_attr_int(&c, "axis", 1);
    kh_input(&c, 0, KN_FLOAT, (int64_t[]){2, 3, 4}, 3, a);
    kh_input(&c, 1, KN_FLOAT, (int64_t[]){3}, 1, b);
    run_ok(&c);
    const float *o = c.out[0].data;
    for (int i = 0; i < 24; i++)
        cr_assert_eq(o[i], a[i] + b[(i / 4) % 3], "[%d]", i);
    kh_free(&c);
    /* without `broadcast` the shapes must match */
    kh_init(&c, "Mul", 6, 2, 1);
    kh_input(&c, 0, KN_FLOAT, (int64_t[]){2, 3, 4}, 3, a);
    kh_input(&c, 1, KN_FLOAT, (int64_t[]){3}, 1, b);
    cr_assert_eq(kh_run(&c, 1), KN_ERR_SHAPE);
    cr_assert(strstr(c.err.msg, "broadcast=0"), "%s", c.err.msg);
    kh_free(&c);
    /* suffix broadcast by default */
    kh_init(&c, "Sub", 1, 2, 1);
    kh_attr_int(&c, "broadcast", 1);
    kh_input(&c, 0, KN_FLOAT, (int64_t[]){2, 3, 4}, 3, a);
    kh_input(&c, 1, KN_FLOAT, (int64_t[]){4}, 1, (float[]){1, 2, 3, 4});
    run_ok(&c);
    o = c.out[0].data;
    for (int i = 0; i < 24; i++)
        cr_assert_eq(o[i], a[i] - (float)(i % 4 + 1), "[%d]", i);
}

Test(binary, errors)
{
    float a[6] = {0}, b[4] = {0};
    kh_init(&c, "Add", 14, 2, 1);
    kh_input(&c, 0, KN_FLOAT, (int64_t[]){2, 3}, 2, a);
    kh_input(&c, 1, KN_FLOAT, (int64_t[]){4}, 1, b);
    cr_assert_eq(kh_run(&c, 1), KN_ERR_SHAPE);
    cr_assert(strstr(c.err.msg, "Add") && strstr(c.err.msg, "2x3") && strstr(c.err.msg, "4"),
              "%s", c.err.msg);
    kh_free(&c);
    int32_t i[4] = {0};
    kh_init(&c, "Mul", 14, 2, 1);
    kh_input(&c, 0, KN_FLOAT, D4, 1, b);
    kh_input(&c, 1, KN_INT32, D4, 1, i);
    cr_assert_eq(kh_run(&c, 1), KN_ERR_DTYPE);
    cr_assert(strstr(c.err.msg, "float") && strstr(c.err.msg, "int32"), "%s", c.err.msg);
}

Test(binary, float16_add)
{
    uint16_t a[8], b[2];
    for (int i = 0; i < 8; i++)
        a[i] = kn_f32_to_f16((float)i * 0.5f);
    b[0] = kn_f32_to_f16(1);
    b[1] = kn_f32_to_f16(-2);
    kh_init(&c, "Add", 14, 2, 1);
    kh_input(&c, 0, KN_FLOAT16, (int64_t[]){4, 2}, 2, a);
    kh_input(&c, 1, KN_FLOAT16, (int64_t[]){2}, 1, b);
    run_ok(&c);
    for (int i = 0; i < 8; i++)
        cr_assert_eq(kn_f16_to_f32(((uint16_t *)c.out[0].data)[i]), i * 0.5f + (i % 2 ? -2 : 1));
}

Test(binary, in_place)
{
    /* out == a: rows of a are overwritten while b (broadcast) is read */
    enum { R = 300, C = 200 };
    float *a = malloc(sizeof(float) * R * C), b[C];
    for (int i = 0; i < R * C; i++)
        a[i] = (float)i;
    for (int j = 0; j < C; j++)
        b[j] = (float)-j;
    kh_init(&c, "Add", 14, 2, 1);
    kh_input(&c, 0, KN_FLOAT, (int64_t[]){R, C}, 2, a);
    kh_input(&c, 1, KN_FLOAT, (int64_t[]){C}, 1, b);
    const kn_op_def *def = kn_backend_kernel(&kn_backend_cpu, "", "Add", 14, KN_FLOAT);
    cr_assert(def && (def->flags & KN_OP_INPLACE));
    kn_tensor *in[] = {&c.in[0], &c.in[1]}, *out[] = {&c.out[0]};
    kn_threadpool *pool = kn_threadpool_create(2);
    kn_kctx k = {.node = &c.node, .opset = 14, .n_in = 2, .n_out = 1, .in = in, .out = out,
                 .threads = pool, .err = &c.err};
    cr_assert_eq(def->prepare(&k), KN_OK, "%s", c.err.msg);
    c.out[0].data = a;
    cr_assert_eq(def->run(&k), KN_OK);
    def->release(&k);
    kn_threadpool_destroy(pool);
    c.out[0].data = NULL;
    for (int i = 0; i < R * C; i++)
        cr_assert_eq(a[i], (float)i - (float)(i % C), "[%d]", i);
    free(a);
}

Test(binary, variadic)
{
    float a[] = {1, 2, 3, 4, 5, 6}, b[] = {10, 20, 30}, s = 100;
    kh_init(&c, "Sum", 13, 3, 1);
    kh_input(&c, 0, KN_FLOAT, (int64_t[]){2, 3}, 2, a);
    kh_input(&c, 1, KN_FLOAT, (int64_t[]){3}, 1, b);
    kh_input(&c, 2, KN_FLOAT, NULL, 0, &s);
    run_both(&c);
    expect_f32(&c.out[0], (float[]){111, 122, 133, 114, 125, 136}, 6, 0);
    kh_free(&c);
    kh_init(&c, "Mean", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, (int64_t[]){3}, 1, b);
    kh_input(&c, 1, KN_FLOAT, (int64_t[]){2, 3}, 2, a);
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){5.5f, 11, 16.5f, 7, 12.5f, 18}, 6, 1e-7);
    kh_free(&c);
    float m[] = {1, NAN, 5, -1};
    kh_init(&c, "Max", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, D4, 1, m);
    kh_input(&c, 1, KN_FLOAT, NULL, 0, (float[]){2});
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){2, NAN, 5, 2}, 4, 0);
    kh_free(&c);
    int32_t p[] = {3, -1}, q[] = {2, 7}, r[] = {4, 0};
    kh_init(&c, "Min", 13, 3, 1);
    kh_input(&c, 0, KN_INT32, (int64_t[]){2}, 1, p);
    kh_input(&c, 1, KN_INT32, (int64_t[]){2}, 1, q);
    kh_input(&c, 2, KN_INT32, (int64_t[]){2}, 1, r);
    run_ok(&c);
    expect_n(&c.out[0], KN_INT32, (int32_t[]){2, -1}, 2);
    kh_free(&c);
    kh_init(&c, "Sum", 13, 1, 1);
    kh_input(&c, 0, KN_INT32, (int64_t[]){2}, 1, p);
    run_ok(&c);
    expect_n(&c.out[0], KN_INT32, p, 2);
}

Test(binary, where)
{
    uint8_t cond[] = {1, 0, 0, 1};
    int64_t x[] = {1, 2}, y = -5;
    kh_init(&c, "Where", 16, 3, 1);
    kh_input(&c, 0, KN_BOOL, (int64_t[]){2, 2}, 2, cond);
    kh_input(&c, 1, KN_INT64, (int64_t[]){2}, 1, x);
    kh_input(&c, 2, KN_INT64, NULL, 0, &y);
    run_ok(&c);
    expect_n(&c.out[0], KN_INT64, (int64_t[]){1, -5, -5, 2}, 4);
    kh_free(&c);
    float fx[] = {1, 2, 3}, fy[] = {-1, -2};
    kh_init(&c, "Where", 16, 3, 1);
    kh_input(&c, 0, KN_BOOL, (int64_t[]){2, 1}, 2, (uint8_t[]){0, 1});
    kh_input(&c, 1, KN_FLOAT, (int64_t[]){1, 3}, 2, fx);
    kh_input(&c, 2, KN_FLOAT, (int64_t[]){2, 1}, 2, fy);
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){-1, -1, -1, 1, 2, 3}, 6, 0);
    kh_free(&c);
    kh_init(&c, "Where", 16, 3, 1);
    kh_input(&c, 0, KN_BOOL, (int64_t[]){3}, 1, cond);
    kh_input(&c, 1, KN_FLOAT, (int64_t[]){2}, 1, fx);
    kh_input(&c, 2, KN_FLOAT, (int64_t[]){2}, 1, fy);
    cr_assert_eq(kh_run(&c, 1), KN_ERR_SHAPE);
}

Test(binary, prelu_and_bitshift)
{
    float x[] = {-1, 2, -3, 4, -5, 6, -7, 8};
    kh_init(&c, "PRelu", 16, 2, 1); /* slope per channel of NCHW, numpy-broadcast */
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 2, 2, 2), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(2, 1, 1), (float[]){0.5f, 0.25f});
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){-0.5f, 2, -1.5f, 4, -1.25f, 6, -1.75f, 8}, 8, 0);
    kh_free(&c);
    kh_init(&c, "PRelu", 6, 2, 1); /* opset < 7: a 1-D slope is per channel */
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 2, 2, 2), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(2), (float[]){0.5f, 0.25f});
    run_ok(&c);
    expect_f32(&c.out[0], (float[]){-0.5f, 2, -1.5f, 4, -1.25f, 6, -1.75f, 8}, 8, 0);
    kh_free(&c);
    kh_init(&c, "PRelu", 16, 2, 1); /* slope must broadcast to X, not grow it */
    kh_input(&c, 0, KN_FLOAT, DIMS(2), x);
    kh_input(&c, 1, KN_FLOAT, DIMS(3, 1), x);
    expect_fail(&c, KN_ERR_SHAPE, "slope");
    kh_free(&c);

    uint8_t a[] = {16, 4, 1, 255};
    kh_init(&c, "BitShift", 11, 2, 1);
    kh_attr_string(&c, "direction", "RIGHT");
    kh_input(&c, 0, KN_UINT8, D4, 1, a);
    kh_input(&c, 1, KN_UINT8, D4, 1, (uint8_t[]){1, 2, 3, 9});
    run_ok(&c);
    expect_n(&c.out[0], KN_UINT8, (uint8_t[]){8, 1, 0, 0}, 4);
    kh_free(&c);
    uint32_t u[] = {1, 3, 0x80000000u};
    kh_init(&c, "BitShift", 11, 2, 1);
    kh_attr_string(&c, "direction", "LEFT");
    kh_input(&c, 0, KN_UINT32, DIMS(3), u);
    kh_input(&c, 1, KN_UINT32, DIMS(3), (uint32_t[]){31, 2, 1});
    run_ok(&c);
    expect_n(&c.out[0], KN_UINT32, (uint32_t[]){0x80000000u, 12, 0}, 3);
    kh_free(&c);
    kh_init(&c, "BitShift", 11, 2, 1);
    kh_attr_string(&c, "direction", "UP");
    kh_input(&c, 0, KN_UINT8, D4, 1, a);
    kh_input(&c, 1, KN_UINT8, D4, 1, a);
    expect_fail(&c, KN_ERR_INVALID_MODEL, "UP");
}
