/* Indexing and rearranging kernels (core/cpu/tensor/gather.c, scatter.c,
 * onehot.c, cumsum.c, trilu.c, depth_space.c, constant.c's EyeLike):
 * hand-computed values (mostly the ONNX spec examples), negative indices,
 * batch dims, reductions, 1 vs 2 threads, and out-of-range indices
 * reported as errors rather than read or written. */
#include "kernel_checks.h"

static kh_case c; /* one case per test; freed by the fini hook */
static void fini(void) { kh_free(&c); }
TestSuite(gather, .fini = fini);
TestSuite(scatter, .fini = fini);
TestSuite(layout, .fini = fini);

static float seq[720]; /* 0, 1, 2, ... */
static void init_seq(void)
{
    for (int i = 0; i < 720; i++)
        seq[i] = (float)i;
}

/* ---- Gather ------------------------------------------------------------ */

Test(gather, gather)
{
    init_seq();
    int64_t idx[] = {2, -3, 0};
    kh_init(&c, "Gather", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(3, 2), seq);
    kh_input(&c, 1, KN_INT64, DIMS(3), idx);
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(3, 2));
    expect_data(&c.out[0], KN_FLOAT, (float[]){4, 5, 0, 1, 0, 1});
    kh_free(&c);
    int32_t idx32[] = {1, 0, 1, 1};
    kh_init(&c, "Gather", 13, 2, 1);
    kh_attr_int(&c, "axis", 1);
    kh_input(&c, 0, KN_UINT8, DIMS(2, 2), (uint8_t[]){10, 11, 12, 13});
    kh_input(&c, 1, KN_INT32, DIMS(2, 2), idx32);
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(2, 2, 2));
    expect_data(&c.out[0], KN_UINT8, (uint8_t[]){11, 10, 11, 11, 13, 12, 13, 13});
    kh_free(&c);
    int64_t scalar = -1; /* rank-0 index drops the axis */
    kh_init(&c, "Gather", 13, 2, 1);
    kh_attr_int(&c, "axis", -1);
    kh_input(&c, 0, KN_INT64, DIMS(2, 3), (int64_t[]){1, 2, 3, 4, 5, 6});
    kh_input(&c, 1, KN_INT64, NULL, 0, &scalar);
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(2));
    expect_data(&c.out[0], KN_INT64, (int64_t[]){3, 6});
    kh_free(&c);
    /* embedding-style lookup, big enough for two threads */
    int64_t *ids = malloc(sizeof(int64_t) * 5000);
    for (int i = 0; i < 5000; i++)
        ids[i] = (i * 37) % 120 - 60;
    kh_init(&c, "Gather", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(120, 6), seq);
    kh_input(&c, 1, KN_INT64, DIMS(5000), ids);
    run_both(&c);
    const float *o = c.out[0].data;
    for (int i = 0; i < 5000; i++)
        cr_assert_eq(o[i * 6 + 5], seq[((ids[i] + 120) % 120) * 6 + 5]);
    kh_free(&c);
    free(ids);
}

Test(gather, out_of_range)
{
    int64_t bad[] = {0, 3};
    kh_init(&c, "Gather", 13, 2, 1);
    c.inputs_constant_in_prepare = 0; /* found at run time */
    kh_input(&c, 0, KN_FLOAT, DIMS(3, 2), seq);
    kh_input(&c, 1, KN_INT64, DIMS(2), bad);
    expect_fail(&c, KN_ERR_INVALID_ARGUMENT, "index 3");
    kh_free(&c);
    int32_t neg[] = {-4};
    kh_init(&c, "Gather", 13, 2, 1); /* constant: found at prepare */
    kh_input(&c, 0, KN_FLOAT, DIMS(3, 2), seq);
    kh_input(&c, 1, KN_INT32, DIMS(1), neg);
    expect_fail(&c, KN_ERR_INVALID_ARGUMENT, "index -4");
    kh_free(&c);
    kh_init(&c, "Gather", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(3, 2), seq);
    kh_input(&c, 1, KN_FLOAT, DIMS(1), seq);
    expect_fail(&c, KN_ERR_DTYPE, "indices");
}

Test(gather, gather_elements)
{
    kh_init(&c, "GatherElements", 13, 2, 1);
    kh_attr_int(&c, "axis", 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 2), (float[]){1, 2, 3, 4});
    kh_input(&c, 1, KN_INT64, DIMS(2, 2), (int64_t[]){0, 0, 1, 0});
    run_ok(&c);
    expect_data(&c.out[0], KN_FLOAT, (float[]){1, 1, 4, 3});
    kh_free(&c);
    /* axis 0, fewer rows than data, negative index */
    kh_init(&c, "GatherElements", 13, 2, 1);
    kh_input(&c, 0, KN_INT32, DIMS(3, 3), (int32_t[]){1, 2, 3, 4, 5, 6, 7, 8, 9});
    kh_input(&c, 1, KN_INT32, DIMS(2, 3), (int32_t[]){1, 2, 0, 2, 0, -1});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(2, 3));
    expect_data(&c.out[0], KN_INT32, (int32_t[]){4, 8, 3, 7, 2, 9});
    kh_free(&c);
    kh_init(&c, "GatherElements", 13, 2, 1);
    c.inputs_constant_in_prepare = 0;
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 2), (float[]){1, 2, 3, 4});
    kh_input(&c, 1, KN_INT64, DIMS(2, 2), (int64_t[]){0, 0, 2, 0});
    expect_fail(&c, KN_ERR_INVALID_ARGUMENT, "index 2");
}

Test(gather, gather_nd)
{
    int32_t d[] = {0, 1, 2, 3};
    kh_init(&c, "GatherND", 13, 2, 1);
    kh_input(&c, 0, KN_INT32, DIMS(2, 2), d);
    kh_input(&c, 1, KN_INT64, DIMS(2, 2), (int64_t[]){0, 0, 1, 1});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(2));
    expect_data(&c.out[0], KN_INT32, (int32_t[]){0, 3});
    kh_free(&c);
    kh_init(&c, "GatherND", 13, 2, 1); /* tuples shorter than rank: slices */
    kh_input(&c, 0, KN_INT32, DIMS(2, 2), d);
    kh_input(&c, 1, KN_INT64, DIMS(2, 1), (int64_t[]){1, -2});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(2, 2));
    expect_data(&c.out[0], KN_INT32, (int32_t[]){2, 3, 0, 1});
    kh_free(&c);
    kh_init(&c, "GatherND", 13, 2, 1);
    kh_attr_int(&c, "batch_dims", 1);
    kh_input(&c, 0, KN_INT32, DIMS(2, 2, 2), (int32_t[]){0, 1, 2, 3, 4, 5, 6, 7});
    kh_input(&c, 1, KN_INT64, DIMS(2, 1), (int64_t[]){1, 0});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(2, 2));
    expect_data(&c.out[0], KN_INT32, (int32_t[]){2, 3, 4, 5});
    kh_free(&c);
    kh_init(&c, "GatherND", 13, 2, 1);
    kh_input(&c, 0, KN_INT32, DIMS(2, 2), d);
    kh_input(&c, 1, KN_INT64, DIMS(1, 2), (int64_t[]){0, 2});
    expect_fail(&c, KN_ERR_INVALID_ARGUMENT, "out of range");
}

/* ---- Scatter ----------------------------------------------------------- */

Test(scatter, scatter_elements)
{
    float zeros[9] = {0};
    kh_init(&c, "ScatterElements", 13, 3, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(3, 3), zeros);
    kh_input(&c, 1, KN_INT64, DIMS(2, 3), (int64_t[]){1, 0, 2, 0, 2, 1});
    kh_input(&c, 2, KN_FLOAT, DIMS(2, 3), (float[]){1, 1.1f, 1.2f, 2, 2.1f, 2.2f});
    run_ok(&c);
    expect_data(&c.out[0], KN_FLOAT, (float[]){2, 1.1f, 0, 1, 0, 2.2f, 0, 2.1f, 1.2f});
    kh_free(&c);
    /* duplicates combine with reduction="add" (opset 16) */
    kh_init(&c, "ScatterElements", 16, 3, 1);
    kh_attr_int(&c, "axis", 1);
    kh_attr_string(&c, "reduction", "add");
    kh_input(&c, 0, KN_INT64, DIMS(1, 5), (int64_t[]){1, 2, 3, 4, 5});
    kh_input(&c, 1, KN_INT32, DIMS(1, 3), (int32_t[]){1, -4, 4});
    kh_input(&c, 2, KN_INT64, DIMS(1, 3), (int64_t[]){10, 20, 30});
    run_ok(&c);
    expect_data(&c.out[0], KN_INT64, (int64_t[]){1, 32, 3, 4, 35});
    kh_free(&c);
    kh_init(&c, "ScatterElements", 13, 3, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(3), zeros);
    kh_input(&c, 1, KN_INT64, DIMS(1), (int64_t[]){3});
    kh_input(&c, 2, KN_FLOAT, DIMS(1), zeros);
    expect_fail(&c, KN_ERR_INVALID_ARGUMENT, "index 3");
    kh_free(&c);
    kh_init(&c, "ScatterElements", 16, 3, 1);
    kh_attr_string(&c, "reduction", "avg");
    kh_input(&c, 0, KN_FLOAT, DIMS(3), zeros);
    kh_input(&c, 1, KN_INT64, DIMS(1), (int64_t[]){0});
    kh_input(&c, 2, KN_FLOAT, DIMS(1), zeros);
    expect_fail(&c, KN_ERR_UNSUPPORTED, "avg");
}

Test(scatter, scatter_nd)
{
    kh_init(&c, "ScatterND", 13, 3, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(8), (float[]){1, 2, 3, 4, 5, 6, 7, 8});
    kh_input(&c, 1, KN_INT64, DIMS(4, 1), (int64_t[]){4, 3, 1, 7});
    kh_input(&c, 2, KN_FLOAT, DIMS(4), (float[]){9, 10, 11, 12});
    run_ok(&c);
    expect_data(&c.out[0], KN_FLOAT, (float[]){1, 11, 3, 10, 9, 6, 7, 12});
    kh_free(&c);
    /* whole rows, multiplied in (opset 16) */
    kh_init(&c, "ScatterND", 16, 3, 1);
    kh_attr_string(&c, "reduction", "mul");
    kh_input(&c, 0, KN_INT32, DIMS(2, 3), (int32_t[]){1, 2, 3, 4, 5, 6});
    kh_input(&c, 1, KN_INT64, DIMS(2, 1), (int64_t[]){-1, 1});
    kh_input(&c, 2, KN_INT32, DIMS(2, 3), (int32_t[]){2, 2, 2, 10, 0, -1});
    run_ok(&c);
    expect_data(&c.out[0], KN_INT32, (int32_t[]){1, 2, 3, 80, 0, -12});
    kh_free(&c);
    kh_init(&c, "ScatterND", 13, 3, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(8), seq);
    kh_input(&c, 1, KN_INT64, DIMS(1, 1), (int64_t[]){8});
    kh_input(&c, 2, KN_FLOAT, DIMS(1), seq);
    expect_fail(&c, KN_ERR_INVALID_ARGUMENT, "out of range");
    kh_free(&c);
    kh_init(&c, "ScatterND", 13, 3, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3), seq);
    kh_input(&c, 1, KN_INT64, DIMS(1, 1), (int64_t[]){0});
    kh_input(&c, 2, KN_FLOAT, DIMS(2), seq);
    expect_fail(&c, KN_ERR_SHAPE, "updates shape");
}

Test(scatter, onehot)
{
    float values[] = {0, 1};
    kh_init(&c, "OneHot", 11, 3, 1);
    kh_input(&c, 0, KN_INT64, DIMS(4), (int64_t[]){0, 2, -1, 5});
    kh_input(&c, 1, KN_INT64, NULL, 0, (int64_t[]){3});
    kh_input(&c, 2, KN_FLOAT, DIMS(2), values);
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(4, 3));
    expect_data(&c.out[0], KN_FLOAT, (float[]){1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0});
    kh_free(&c);
    kh_init(&c, "OneHot", 11, 3, 1);
    kh_attr_int(&c, "axis", 0);
    kh_input(&c, 0, KN_FLOAT, DIMS(2), (float[]){1, 0});
    kh_input(&c, 1, KN_FLOAT, DIMS(1), (float[]){2});
    kh_input(&c, 2, KN_INT32, DIMS(2), (int32_t[]){-1, 7});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(2, 2));
    expect_data(&c.out[0], KN_INT32, (int32_t[]){-1, 7, 7, -1});
    kh_free(&c);
    kh_init(&c, "OneHot", 11, 3, 1);
    c.inputs_constant_in_prepare = 0;
    kh_input(&c, 0, KN_INT64, DIMS(1), (int64_t[]){0});
    kh_input(&c, 1, KN_INT64, NULL, 0, (int64_t[]){3});
    kh_input(&c, 2, KN_FLOAT, DIMS(2), values);
    expect_fail(&c, KN_ERR_NEEDS_VALUE, "'depth' output shape depends on its value");
}

Test(scatter, cumsum)
{
    const float x[] = {1, 2, 3, 4, 5};
    const float want[4][5] = {{1, 3, 6, 10, 15}, {0, 1, 3, 6, 10}, {15, 14, 12, 9, 5}, {14, 12, 9, 5, 0}};
    for (int m = 0; m < 4; m++) {
        kh_init(&c, "CumSum", 14, 2, 1);
        kh_attr_int(&c, "exclusive", m & 1);
        kh_attr_int(&c, "reverse", m >> 1);
        kh_input(&c, 0, KN_FLOAT, DIMS(5), x);
        kh_input(&c, 1, KN_INT32, NULL, 0, (int32_t[]){0});
        run_ok(&c);
        expect_data(&c.out[0], KN_FLOAT, want[m]);
        kh_free(&c);
    }
    int64_t ax = -2; /* not a constant: read at run time */
    kh_init(&c, "CumSum", 14, 2, 1);
    c.inputs_constant_in_prepare = 0;
    kh_input(&c, 0, KN_INT32, DIMS(2, 2), (int32_t[]){1, 2, INT32_MAX, 4});
    kh_input(&c, 1, KN_INT64, NULL, 0, &ax);
    run_ok(&c);
    expect_data(&c.out[0], KN_INT32, (int32_t[]){1, 2, INT32_MIN, 6}); /* wraps, no UB */
    kh_free(&c);
    /* long inner rows across threads */
    float *big = malloc(sizeof(float) * 3 * 5000);
    for (int i = 0; i < 15000; i++)
        big[i] = (float)(i % 7);
    kh_init(&c, "CumSum", 14, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(3, 5000), big);
    kh_input(&c, 1, KN_INT64, NULL, 0, (int64_t[]){0});
    run_both(&c);
    const float *o = c.out[0].data;
    for (int i = 0; i < 5000; i++)
        cr_assert_eq(o[2 * 5000 + i], big[i] + big[5000 + i] + big[10000 + i]);
    kh_free(&c);
    free(big);
    kh_init(&c, "CumSum", 14, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(5), x);
    kh_input(&c, 1, KN_INT64, NULL, 0, (int64_t[]){1});
    expect_fail(&c, KN_ERR_INVALID_MODEL, "axis 1");
}

/* ---- Trilu / DepthToSpace / SpaceToDepth / EyeLike ---------------------- */

Test(layout, trilu)
{
    init_seq();
    kh_init(&c, "Trilu", 14, 1, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(3, 4), seq);
    run_ok(&c);
    expect_data(&c.out[0], KN_FLOAT, (float[]){0, 1, 2, 3, 0, 5, 6, 7, 0, 0, 10, 11});
    kh_free(&c);
    kh_init(&c, "Trilu", 14, 2, 1);
    kh_attr_int(&c, "upper", 0);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3, 2), seq);
    kh_input(&c, 1, KN_INT64, NULL, 0, (int64_t[]){-1});
    run_ok(&c);
    expect_data(&c.out[0], KN_FLOAT, (float[]){0, 0, 2, 0, 4, 5, 0, 0, 8, 0, 10, 11});
    kh_free(&c);
    kh_init(&c, "Trilu", 14, 2, 1);
    kh_input(&c, 0, KN_INT8, DIMS(2, 3), (int8_t[]){1, 2, 3, 4, 5, 6});
    kh_input(&c, 1, KN_INT64, NULL, 0, (int64_t[]){5}); /* beyond the matrix: all zero */
    run_ok(&c);
    expect_data(&c.out[0], KN_INT8, (int8_t[]){0, 0, 0, 0, 0, 0});
}

/* out[n, c, y, x] per the ONNX formulas, checked element by element. */
static void check_depth_to_space(int crd)
{
    enum { N = 2, C = 8, H = 3, W = 2, B = 2, CO = C / (B * B) };
    init_seq();
    kh_init(&c, "DepthToSpace", 13, 1, 1);
    kh_attr_int(&c, "blocksize", B);
    if (crd)
        kh_attr_string(&c, "mode", "CRD");
    kh_input(&c, 0, KN_FLOAT, DIMS(N, C, H, W), seq);
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(N, CO, H * B, W * B));
    const float *o = c.out[0].data;
    for (int n = 0; n < N; n++)
        for (int co = 0; co < CO; co++)
            for (int y = 0; y < H * B; y++)
                for (int x = 0; x < W * B; x++) {
                    int bh = y % B, bw = x % B;
                    int ch = crd ? co * B * B + bh * B + bw : (bh * B + bw) * CO + co;
                    float want = seq[((n * C + ch) * H + y / B) * W + x / B];
                    cr_assert_eq(o[((n * CO + co) * H * B + y) * W * B + x], want);
                }
    kh_free(&c);
}

Test(layout, depth_space)
{
    check_depth_to_space(0);
    check_depth_to_space(1);
    /* SpaceToDepth undoes DepthToSpace in DCR mode */
    init_seq();
    kh_init(&c, "DepthToSpace", 13, 1, 1);
    kh_attr_int(&c, "blocksize", 3);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 18, 2, 4), seq);
    run_ok(&c);
    kn_tensor mid = c.out[0];
    c.out[0].data = NULL;
    kh_free(&c);
    kh_init(&c, "SpaceToDepth", 13, 1, 1);
    kh_attr_int(&c, "blocksize", 3);
    kh_input(&c, 0, KN_FLOAT, mid.dims, mid.rank, mid.data);
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(1, 18, 2, 4));
    expect_data(&c.out[0], KN_FLOAT, seq);
    free(mid.data);
    kh_free(&c);
    kh_init(&c, "SpaceToDepth", 13, 1, 1);
    kh_attr_int(&c, "blocksize", 2);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 1, 3, 4), seq);
    expect_fail(&c, KN_ERR_SHAPE, "blocksize 2");
}

Test(layout, eyelike)
{
    kh_init(&c, "EyeLike", 9, 1, 1);
    kh_attr_int(&c, "k", 1);
    kh_attr_int(&c, "dtype", KN_INT32);
    kh_input(&c, 0, KN_FLOAT, DIMS(3, 4), seq);
    run_ok(&c);
    expect_data(&c.out[0], KN_INT32, (int32_t[]){0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
    kh_free(&c);
    kh_init(&c, "EyeLike", 9, 1, 1);
    kh_attr_int(&c, "k", -2);
    kh_input(&c, 0, KN_DOUBLE, DIMS(3, 2), seq);
    run_ok(&c);
    expect_data(&c.out[0], KN_DOUBLE, (double[]){0, 0, 0, 0, 1, 0});
}

Test(gather, missing_inputs)
{
    /* a malformed node with an empty required input fails cleanly */
    kh_init(&c, "Gather", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(3), seq);
    expect_fail(&c, KN_ERR_INVALID_MODEL, "input 1 is required");
    kh_free(&c);
    kh_init(&c, "ScatterND", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(3), seq);
    kh_input(&c, 1, KN_INT64, DIMS(1, 1), (int64_t[]){0});
    expect_fail(&c, KN_ERR_INVALID_MODEL, "input 2 is required");
}
