/* Tensor-manipulation kernels (core/cpu/tensor/shape_ops.c, transpose.c,
 * concat.c, slice.c, expand.c, constant.c, cast.c, range.c): hand-computed
 * values, naive references for the strided ones, dtypes of every element
 * size, aliasing runs, 1 vs 2 threads, and error cases with their codes and
 * messages. Indexing ops (Gather*, Scatter*, OneHot, ...) are in
 * test_kernels_indexing.c, elementwise math in test_kernels_elementwise.c
 * and test_kernels_binary.c. */
#include "kernel_checks.h"

static kh_case c; /* one case per test; freed by the fini hook */
static void fini(void) { kh_free(&c); }
TestSuite(shape, .fini = fini);
TestSuite(move, .fini = fini);
TestSuite(make, .fini = fini);

static float seq[720]; /* 0, 1, 2, ... */
static void init_seq(void)
{
    for (int i = 0; i < 720; i++)
        seq[i] = (float)i;
}

/* ---- Reshape / Flatten / Squeeze / Unsqueeze / Identity ----------------- */

static void reshape(int64_t opset, const int64_t *shape, int32_t n, const int64_t *want,
                    int32_t wrank)
{
    init_seq();
    kh_init(&c, "Reshape", opset, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3, 4), seq);
    kh_input(&c, 1, KN_INT64, (int64_t[]){n}, 1, shape);
    run_ok(&c);
    expect_shape(&c.out[0], want, wrank);
    expect_data(&c.out[0], KN_FLOAT, seq);
    kh_free(&c);
}

Test(shape, reshape)
{
    reshape(13, (int64_t[]){4, -1}, 2, DIMS(4, 6));
    reshape(13, (int64_t[]){0, -1}, 2, DIMS(2, 12));      /* 0 copies the input dim */
    reshape(14, (int64_t[]){-1}, 1, DIMS(24));
    reshape(5, (int64_t[]){2, 0, 2, 2}, 4, DIMS(2, 3, 2, 2));
    /* opset 1..4: shape attribute */
    kh_init(&c, "Reshape", 4, 1, 1);
    kh_attr_ints(&c, "shape", (int64_t[]){6, 4}, 2);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3, 4), seq);
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(6, 4));
    kh_free(&c);
    /* allowzero: a 0 is a real zero */
    kh_init(&c, "Reshape", 14, 2, 1);
    kh_attr_int(&c, "allowzero", 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(0, 3), seq);
    kh_input(&c, 1, KN_INT64, DIMS(2), (int64_t[]){3, 0});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(3, 0));
}

Test(shape, reshape_errors)
{
    kh_init(&c, "Reshape", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3, 4), seq);
    kh_input(&c, 1, KN_INT64, DIMS(2), (int64_t[]){5, 5});
    expect_fail(&c, KN_ERR_SHAPE, "2x3x4");
    kh_free(&c);
    kh_init(&c, "Reshape", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3, 4), seq);
    kh_input(&c, 1, KN_INT64, DIMS(2), (int64_t[]){5, -1});
    expect_fail(&c, KN_ERR_SHAPE, "cannot reshape");
    kh_free(&c);
    kh_init(&c, "Reshape", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3, 4), seq);
    kh_input(&c, 1, KN_INT64, DIMS(2), (int64_t[]){-1, -1});
    expect_fail(&c, KN_ERR_INVALID_MODEL, "more than one -1");
    kh_free(&c);
    kh_init(&c, "Reshape", 13, 2, 1);
    c.inputs_constant_in_prepare = 0;
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3, 4), seq);
    kh_input(&c, 1, KN_INT64, DIMS(1), (int64_t[]){24});
    expect_fail(&c, KN_ERR_NEEDS_VALUE, "'shape' output shape depends on its value");
}

Test(shape, alias_runs_in_place)
{
    /* KN_OP_ALIAS: with the output on the input's memory, run() must leave
     * the bytes alone (and not memcpy onto itself). */
    init_seq();
    float data[24];
    memcpy(data, seq, sizeof data);
    kh_init(&c, "Flatten", 13, 1, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3, 4), data);
    const kn_op_def *def = kn_backend_kernel(&kn_backend_cpu, "", "Flatten", 13, KN_FLOAT);
    cr_assert(def && (def->flags & KN_OP_ALIAS));
    kn_tensor *in[] = {&c.in[0]}, *out[] = {&c.out[0]};
    kn_kctx k = {.node = &c.node, .opset = 13, .n_in = 1, .n_out = 1, .in = in, .out = out,
                 .err = &c.err};
    cr_assert_eq(def->prepare(&k), KN_OK);
    c.out[0].data = data;
    cr_assert_eq(def->run(&k), KN_OK);
    c.out[0].data = NULL;
    cr_assert(memcmp(data, seq, sizeof data) == 0);
}

Test(shape, flatten)
{
    const int64_t axes[] = {0, 1, 2, 3, -1, -3};
    const int64_t want[][2] = {{1, 24}, {2, 12}, {6, 4}, {24, 1}, {6, 4}, {1, 24}};
    for (int i = 0; i < 6; i++) {
        kh_init(&c, "Flatten", 13, 1, 1);
        kh_attr_int(&c, "axis", axes[i]);
        kh_input(&c, 0, KN_FLOAT, DIMS(2, 3, 4), seq);
        run_ok(&c);
        expect_shape(&c.out[0], want[i], 2);
        kh_free(&c);
    }
    kh_init(&c, "Flatten", 9, 1, 1); /* negative axes only from opset 11 */
    kh_attr_int(&c, "axis", -1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3, 4), seq);
    expect_fail(&c, KN_ERR_INVALID_MODEL, "axis -1");
    kh_free(&c);
    kh_init(&c, "Flatten", 13, 1, 1);
    kh_attr_int(&c, "axis", 4);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3, 4), seq);
    expect_fail(&c, KN_ERR_INVALID_MODEL, "out of range");
}

Test(shape, squeeze_unsqueeze)
{
    kh_init(&c, "Squeeze", 11, 1, 1);
    kh_attr_ints(&c, "axes", (int64_t[]){-1, 0}, 2);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 3, 1, 2, 1), seq);
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(3, 1, 2));
    kh_free(&c);
    kh_init(&c, "Squeeze", 13, 1, 1); /* no axes: every 1 goes */
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 3, 1, 2, 1), seq);
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(3, 2));
    kh_free(&c);
    kh_init(&c, "Squeeze", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 3, 1, 2, 1), seq);
    kh_input(&c, 1, KN_INT64, DIMS(1), (int64_t[]){2});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(1, 3, 2, 1));
    kh_free(&c);
    kh_init(&c, "Squeeze", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(1, 3, 1), seq);
    kh_input(&c, 1, KN_INT64, DIMS(1), (int64_t[]){1});
    expect_fail(&c, KN_ERR_SHAPE, "dim 1 has size 3");
    kh_free(&c);

    kh_init(&c, "Unsqueeze", 11, 1, 1);
    kh_attr_ints(&c, "axes", (int64_t[]){0, -1}, 2);
    kh_input(&c, 0, KN_FLOAT, DIMS(3, 2), seq);
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(1, 3, 2, 1));
    expect_data(&c.out[0], KN_FLOAT, seq);
    kh_free(&c);
    kh_init(&c, "Unsqueeze", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, NULL, 0, seq);
    kh_input(&c, 1, KN_INT64, DIMS(2), (int64_t[]){1, 0});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(1, 1));
    kh_free(&c);
    kh_init(&c, "Unsqueeze", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(3), seq);
    kh_input(&c, 1, KN_INT64, DIMS(2), (int64_t[]){2, -1});
    expect_fail(&c, KN_ERR_INVALID_MODEL, "twice");
    kh_free(&c);
    kh_init(&c, "Unsqueeze", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(3), seq);
    kh_input(&c, 1, KN_INT64, DIMS(1), (int64_t[]){3});
    expect_fail(&c, KN_ERR_INVALID_MODEL, "out of range");
}

Test(shape, identity_dropout)
{
    int64_t v[] = {7, -8, 9};
    kh_init(&c, "Identity", 16, 1, 1);
    kh_input(&c, 0, KN_INT64, DIMS(3), v);
    run_ok(&c);
    expect_data(&c.out[0], KN_INT64, v);
    kh_free(&c);
    float x[] = {1, 2, 3, 4};
    kh_init(&c, "Dropout", 13, 1, 2);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 2), x);
    run_ok(&c);
    expect_data(&c.out[0], KN_FLOAT, x);
    expect_data(&c.out[1], KN_BOOL, (uint8_t[]){1, 1, 1, 1});
    kh_free(&c);
    kh_init(&c, "Dropout", 7, 1, 2); /* mask had the input's type before 10 */
    kh_attr_float(&c, "ratio", 0.3f);
    kh_input(&c, 0, KN_FLOAT, DIMS(4), x);
    run_ok(&c);
    expect_data(&c.out[1], KN_FLOAT, (float[]){1, 1, 1, 1});
    kh_free(&c);
    float ratio = 0.5f;
    uint8_t train = 1;
    kh_init(&c, "Dropout", 13, 3, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(4), x);
    kh_input(&c, 1, KN_FLOAT, NULL, 0, &ratio);
    kh_input(&c, 2, KN_BOOL, NULL, 0, &train);
    expect_fail(&c, KN_ERR_UNSUPPORTED, "training_mode");
    kh_free(&c);
    train = 0;
    kh_init(&c, "Dropout", 13, 3, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(4), x);
    kh_input(&c, 1, KN_FLOAT, NULL, 0, &ratio);
    kh_input(&c, 2, KN_BOOL, NULL, 0, &train);
    run_ok(&c);
    expect_data(&c.out[0], KN_FLOAT, x);
}

Test(shape, shape_and_size)
{
    kh_init(&c, "Shape", 13, 1, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3, 5), seq);
    run_ok(&c);
    expect_data(&c.out[0], KN_INT64, (int64_t[]){2, 3, 5});
    kh_free(&c);
    const int64_t starts[] = {1, -1, 0, 2, -10};
    const int64_t ends[] = {3, 3, -1, 1, 10};
    const int64_t want_n[] = {2, 1, 2, 0, 3};
    const int64_t want[][3] = {{3, 5}, {5}, {2, 3}, {0}, {2, 3, 5}};
    for (int i = 0; i < 5; i++) {
        kh_init(&c, "Shape", 15, 1, 1);
        kh_attr_int(&c, "start", starts[i]);
        kh_attr_int(&c, "end", ends[i]);
        kh_input(&c, 0, KN_FLOAT, DIMS(2, 3, 5), seq);
        run_ok(&c);
        expect_shape(&c.out[0], &want_n[i], 1);
        if (want_n[i])
            expect_data(&c.out[0], KN_INT64, want[i]);
        kh_free(&c);
    }
    kh_init(&c, "Size", 13, 1, 1);
    kh_input(&c, 0, KN_UINT8, DIMS(2, 3, 5), seq);
    run_ok(&c);
    expect_shape(&c.out[0], NULL, 0);
    expect_data(&c.out[0], KN_INT64, (int64_t[]){30});
}

/* ---- Transpose / Concat / Split ---------------------------------------- */

/* out[idx] = in[idx permuted], checked element by element. */
static void check_transpose(const int64_t *dims, int32_t rank, const int64_t *perm, int32_t dtype,
                            int threads)
{
    size_t es = kn_dtype_size(dtype);
    int64_t n = kn_shape_numel(dims, rank), in_strides[KN_MAX_RANK], odims[KN_MAX_RANK];
    unsigned char *x = malloc((size_t)n * es);
    for (int64_t i = 0; i < n * (int64_t)es; i++)
        x[i] = (unsigned char)(i * 7 + i / 251);
    kh_init(&c, "Transpose", 13, 1, 1);
    if (perm)
        kh_attr_ints(&c, "perm", perm, rank);
    kh_input(&c, 0, dtype, dims, rank, x);
    if (threads > 1)
        run_both(&c);
    else
        run_ok(&c);
    int64_t s = 1;
    for (int32_t d = rank - 1; d >= 0; d--) {
        in_strides[d] = s;
        s *= dims[d];
    }
    for (int32_t d = 0; d < rank; d++)
        odims[d] = dims[perm ? perm[d] : rank - 1 - d];
    expect_shape(&c.out[0], odims, rank);
    const unsigned char *o = c.out[0].data;
    for (int64_t i = 0; i < n; i++) {
        int64_t rem = i, src = 0;
        for (int32_t d = rank - 1; d >= 0; d--) {
            src += (rem % odims[d]) * in_strides[perm ? perm[d] : rank - 1 - d];
            rem /= odims[d];
        }
        cr_assert(memcmp(o + i * (int64_t)es, x + src * (int64_t)es, es) == 0,
                  "%s: element %lld wrong", kn_dtype_name(dtype), (long long)i);
    }
    kh_free(&c);
    free(x);
}

Test(move, transpose)
{
    check_transpose(DIMS(2, 3), NULL, KN_FLOAT, 1);
    check_transpose(DIMS(2, 3, 4, 5), (int64_t[]){0, 2, 3, 1}, KN_FLOAT, 1);
    check_transpose(DIMS(2, 3, 4, 5), (int64_t[]){3, 1, 0, 2}, KN_INT8, 1);
    check_transpose(DIMS(2, 3, 4, 5), (int64_t[]){1, 0, 2, 3}, KN_INT64, 1);
    check_transpose(DIMS(2, 1, 4, 1), (int64_t[]){1, 3, 0, 2}, KN_FLOAT16, 1); /* a memcpy */
    check_transpose(DIMS(3, 5, 7), (int64_t[]){2, 0, 1}, KN_COMPLEX128, 1);
    check_transpose(DIMS(7), NULL, KN_BOOL, 1);
    /* tiled 2-D path: full and partial tiles, every element size */
    check_transpose(DIMS(64, 48, 40), (int64_t[]){2, 0, 1}, KN_FLOAT, 2);
    check_transpose(DIMS(3, 37, 50), (int64_t[]){0, 2, 1}, KN_INT16, 2);
    check_transpose(DIMS(50, 70), NULL, KN_UINT8, 1);
    check_transpose(DIMS(2, 33, 17, 3), (int64_t[]){0, 3, 2, 1}, KN_DOUBLE, 1);
    check_transpose(DIMS(2, 20, 40), (int64_t[]){0, 2, 1}, KN_COMPLEX64, 1);
    check_transpose(DIMS(3, 0, 2), NULL, KN_FLOAT, 1);
    /* narrow tiled rows: an RGB image NCHW -> NHWC, two-column outputs */
    check_transpose(DIMS(1, 3, 45, 50), (int64_t[]){0, 2, 3, 1}, KN_FLOAT, 2);
    check_transpose(DIMS(2, 2, 70), (int64_t[]){0, 2, 1}, KN_INT8, 1);

    kh_init(&c, "Transpose", 13, 1, 1);
    kh_attr_ints(&c, "perm", (int64_t[]){0, 0, 1}, 3);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3, 4), seq);
    expect_fail(&c, KN_ERR_INVALID_MODEL, "permutation");
}

Test(move, concat)
{
    int64_t a[] = {1, 2, 3, 4}, b[] = {5, 6}, e[1];
    kh_init(&c, "Concat", 13, 3, 1);
    kh_attr_int(&c, "axis", -1);
    kh_input(&c, 0, KN_INT64, DIMS(2, 2), a);
    kh_input(&c, 1, KN_INT64, DIMS(2, 1), b);
    kh_input(&c, 2, KN_INT64, DIMS(2, 0), e); /* empty inputs take no room */
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(2, 3));
    expect_data(&c.out[0], KN_INT64, (int64_t[]){1, 2, 5, 3, 4, 6});
    kh_free(&c);
    kh_init(&c, "Concat", 4, 2, 1);
    kh_attr_int(&c, "axis", 0);
    kh_input(&c, 0, KN_INT64, DIMS(2, 2), a);
    kh_input(&c, 1, KN_INT64, DIMS(1, 2), b);
    run_ok(&c);
    expect_data(&c.out[0], KN_INT64, (int64_t[]){1, 2, 3, 4, 5, 6});
    kh_free(&c);
    /* big, split over threads */
    float *big = malloc(sizeof(float) * 64 * 300);
    for (int i = 0; i < 64 * 300; i++)
        big[i] = (float)i;
    kh_init(&c, "Concat", 13, 2, 1);
    kh_attr_int(&c, "axis", 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(64, 100), big);
    kh_input(&c, 1, KN_FLOAT, DIMS(64, 200), big + 6400);
    run_both(&c);
    const float *o = c.out[0].data;
    for (int r = 0; r < 64; r++)
        for (int j = 0; j < 300; j++)
            cr_assert_eq(o[r * 300 + j], j < 100 ? big[r * 100 + j] : big[6400 + r * 200 + j - 100]);
    kh_free(&c);
    free(big);

    kh_init(&c, "Concat", 13, 2, 1);
    kh_attr_int(&c, "axis", 1);
    kh_input(&c, 0, KN_INT64, DIMS(2, 2), a);
    kh_input(&c, 1, KN_INT64, DIMS(1, 2), b);
    expect_fail(&c, KN_ERR_SHAPE, "1x2");
    kh_free(&c);
    kh_init(&c, "Concat", 13, 2, 1);
    kh_attr_int(&c, "axis", 2);
    kh_input(&c, 0, KN_INT64, DIMS(2, 2), a);
    kh_input(&c, 1, KN_INT64, DIMS(2, 2), a);
    expect_fail(&c, KN_ERR_INVALID_MODEL, "axis 2");
    kh_free(&c);
    kh_init(&c, "Concat", 13, 2, 1);
    kh_attr_int(&c, "axis", 0);
    kh_input(&c, 0, KN_INT64, DIMS(2, 2), a);
    kh_input(&c, 1, KN_INT32, DIMS(2, 2), a);
    expect_fail(&c, KN_ERR_DTYPE, "int32");
}

Test(move, split)
{
    init_seq();
    kh_init(&c, "Split", 13, 2, 2);
    kh_attr_int(&c, "axis", 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 5), seq);
    kh_input(&c, 1, KN_INT64, DIMS(2), (int64_t[]){2, 3});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(2, 2));
    expect_data(&c.out[0], KN_FLOAT, (float[]){0, 1, 5, 6});
    expect_shape(&c.out[1], DIMS(2, 3));
    expect_data(&c.out[1], KN_FLOAT, (float[]){2, 3, 4, 7, 8, 9});
    kh_free(&c);
    kh_init(&c, "Split", 11, 1, 3);
    kh_input(&c, 0, KN_FLOAT, DIMS(6), seq);
    run_ok(&c);
    expect_data(&c.out[2], KN_FLOAT, (float[]){4, 5});
    kh_free(&c);
    kh_init(&c, "Split", 11, 1, 4);
    kh_input(&c, 0, KN_FLOAT, DIMS(6), seq);
    expect_fail(&c, KN_ERR_SHAPE, "4 parts");
}

/* ---- Slice / Expand / Tile --------------------------------------------- */

static void slice13(const int64_t *dims, int32_t rank, const int64_t *starts, const int64_t *ends,
                    const int64_t *axes, const int64_t *steps, int32_t n)
{
    init_seq();
    kh_init(&c, "Slice", 13, 5, 1);
    kh_input(&c, 0, KN_FLOAT, dims, rank, seq);
    kh_input(&c, 1, KN_INT64, (int64_t[]){n}, 1, starts);
    kh_input(&c, 2, KN_INT64, (int64_t[]){n}, 1, ends);
    if (axes)
        kh_input(&c, 3, KN_INT64, (int64_t[]){n}, 1, axes);
    if (steps)
        kh_input(&c, 4, KN_INT64, (int64_t[]){n}, 1, steps);
    run_ok(&c);
}

Test(move, slice)
{
    /* [4,5]: rows 1..2, cols 0..4 step 2 */
    slice13(DIMS(4, 5), (int64_t[]){1, 0}, (int64_t[]){3, 5}, NULL, (int64_t[]){1, 2}, 2);
    expect_shape(&c.out[0], DIMS(2, 3));
    expect_data(&c.out[0], KN_FLOAT, (float[]){5, 7, 9, 10, 12, 14});
    kh_free(&c);
    /* negative step reverses; huge ends clamp */
    slice13(DIMS(4, 5), (int64_t[]){-1}, (int64_t[]){INT64_MIN}, (int64_t[]){-1},
            (int64_t[]){-2}, 1);
    expect_shape(&c.out[0], DIMS(4, 3));
    expect_data(&c.out[0], KN_FLOAT, (float[]){4, 2, 0, 9, 7, 5, 14, 12, 10, 19, 17, 15});
    kh_free(&c);
    slice13(DIMS(4, 5), (int64_t[]){1}, (int64_t[]){INT64_MAX}, (int64_t[]){0}, NULL, 1);
    expect_shape(&c.out[0], DIMS(3, 5));
    kh_free(&c);
    /* empty result */
    slice13(DIMS(4, 5), (int64_t[]){3}, (int64_t[]){1}, (int64_t[]){0}, NULL, 1);
    expect_shape(&c.out[0], DIMS(0, 5));
    kh_free(&c);
    /* opset 1: attributes */
    kh_init(&c, "Slice", 1, 1, 1);
    kh_attr_ints(&c, "starts", (int64_t[]){0, 1}, 2);
    kh_attr_ints(&c, "ends", (int64_t[]){-1, 1000}, 2);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3), seq);
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(1, 2));
    expect_data(&c.out[0], KN_FLOAT, (float[]){1, 2});
    kh_free(&c);
    kh_init(&c, "Slice", 13, 3, 1);
    c.inputs_constant_in_prepare = 0;
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3), seq);
    kh_input(&c, 1, KN_INT64, DIMS(1), (int64_t[]){0});
    kh_input(&c, 2, KN_INT64, DIMS(1), (int64_t[]){1});
    expect_fail(&c, KN_ERR_NEEDS_VALUE, "'starts' output shape depends on its value");
    kh_free(&c);
    slice13(DIMS(2, 3), (int64_t[]){0}, (int64_t[]){1}, NULL, (int64_t[]){1}, 1);
    kh_free(&c);
    kh_init(&c, "Slice", 13, 5, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2, 3), seq);
    kh_input(&c, 1, KN_INT64, DIMS(1), (int64_t[]){0});
    kh_input(&c, 2, KN_INT64, DIMS(1), (int64_t[]){1});
    kh_input(&c, 3, KN_INT64, DIMS(1), (int64_t[]){0});
    kh_input(&c, 4, KN_INT64, DIMS(1), (int64_t[]){0});
    expect_fail(&c, KN_ERR_INVALID_MODEL, "step");
}

Test(move, expand_tile)
{
    float x[] = {1, 2, 3};
    kh_init(&c, "Expand", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(3, 1), x);
    kh_input(&c, 1, KN_INT64, DIMS(3), (int64_t[]){2, 1, 2});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(2, 3, 2));
    expect_data(&c.out[0], KN_FLOAT, (float[]){1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3});
    kh_free(&c);
    kh_init(&c, "Expand", 13, 2, 1); /* shape smaller than input: input wins */
    kh_input(&c, 0, KN_FLOAT, DIMS(3, 1), x);
    kh_input(&c, 1, KN_INT64, DIMS(1), (int64_t[]){1});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(3, 1));
    kh_free(&c);
    kh_init(&c, "Expand", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(3, 1), x);
    kh_input(&c, 1, KN_INT64, DIMS(1), (int64_t[]){4});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(3, 4));
    kh_free(&c);
    kh_init(&c, "Expand", 13, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(3), x);
    kh_input(&c, 1, KN_INT64, DIMS(1), (int64_t[]){2});
    expect_fail(&c, KN_ERR_SHAPE, "broadcast");
    kh_free(&c);

    int16_t t[] = {1, 2, 3, 4};
    kh_init(&c, "Tile", 13, 2, 1);
    kh_input(&c, 0, KN_INT16, DIMS(2, 2), t);
    kh_input(&c, 1, KN_INT64, DIMS(2), (int64_t[]){2, 3});
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(4, 6));
    expect_data(&c.out[0], KN_INT16,
                (int16_t[]){1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4,
                            1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4});
    kh_free(&c);
    kh_init(&c, "Tile", 13, 2, 1);
    kh_input(&c, 0, KN_INT16, DIMS(2, 2), t);
    kh_input(&c, 1, KN_INT64, DIMS(1), (int64_t[]){2});
    expect_fail(&c, KN_ERR_SHAPE, "repeats");
}

/* ---- Constant / ConstantOfShape / Cast / Range ------------------------- */

Test(make, constant)
{
    int32_t v[] = {4, 5, 6};
    kn_tensor t = {.dtype = KN_INT32, .rank = 2, .dims = {3, 1}, .data = v};
    kh_init(&c, "Constant", 13, 0, 1);
    kh_attr_tensor(&c, "value", &t);
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(3, 1));
    expect_data(&c.out[0], KN_INT32, v);
    kh_free(&c);
    kh_init(&c, "Constant", 13, 0, 1);
    kh_attr_float(&c, "value_float", 2.5f);
    run_ok(&c);
    expect_shape(&c.out[0], NULL, 0);
    expect_data(&c.out[0], KN_FLOAT, (float[]){2.5f});
    kh_free(&c);
    kh_init(&c, "Constant", 13, 0, 1);
    kh_attr_ints(&c, "value_ints", (int64_t[]){-1, 7}, 2);
    run_ok(&c);
    expect_data(&c.out[0], KN_INT64, (int64_t[]){-1, 7});
    kh_free(&c);
    kh_init(&c, "Constant", 13, 0, 1);
    kh_attr_string(&c, "value_string", "hello");
    expect_fail(&c, KN_ERR_UNSUPPORTED, "value_string");
    kh_free(&c);

    kh_init(&c, "ConstantOfShape", 9, 1, 1);
    kh_input(&c, 0, KN_INT64, DIMS(2), (int64_t[]){2, 3});
    run_ok(&c);
    expect_data(&c.out[0], KN_FLOAT, (float[]){0, 0, 0, 0, 0, 0});
    kh_free(&c);
    int64_t seven = 7;
    kn_tensor val = {.dtype = KN_INT64, .rank = 1, .dims = {1}, .data = &seven};
    kh_init(&c, "ConstantOfShape", 9, 1, 1);
    kh_attr_tensor(&c, "value", &val);
    kh_input(&c, 0, KN_INT64, DIMS(1), (int64_t[]){3});
    run_ok(&c);
    expect_data(&c.out[0], KN_INT64, (int64_t[]){7, 7, 7});
    kh_free(&c);
    kh_init(&c, "ConstantOfShape", 9, 1, 1);
    c.inputs_constant_in_prepare = 0;
    kh_input(&c, 0, KN_INT64, DIMS(1), (int64_t[]){3});
    expect_fail(&c, KN_ERR_NEEDS_VALUE, "depends on its value");
}

static void cast(int32_t from, const void *x, int64_t n, int32_t to, const void *want)
{
    kh_init(&c, "Cast", 13, 1, 1);
    kh_attr_int(&c, "to", to);
    kh_input(&c, 0, from, (int64_t[]){n}, 1, x);
    run_ok(&c);
    expect_data(&c.out[0], to, want);
    kh_free(&c);
}

Test(make, cast)
{
    cast(KN_FLOAT, (float[]){1.9f, -1.9f, NAN, 3e9f}, 4, KN_INT32,
         (int32_t[]){1, -1, 0, (int32_t)(uint32_t)3000000000u}); /* defined, not UB */
    cast(KN_FLOAT, (float[]){300, -1, 0.5f, 255}, 4, KN_UINT8, (uint8_t[]){44, 255, 0, 255});
    cast(KN_INT64, (int64_t[]){INT64_MAX, -1, 0, 1 << 20}, 4, KN_INT32,
         (int32_t[]){-1, -1, 0, 1 << 20});
    cast(KN_INT32, (int32_t[]){0, 5, -3, 1}, 4, KN_BOOL, (uint8_t[]){0, 1, 1, 1});
    cast(KN_BOOL, (uint8_t[]){0, 1, 1, 0}, 4, KN_DOUBLE, (double[]){0, 1, 1, 0});
    cast(KN_UINT64, (uint64_t[]){UINT64_MAX, 0, 1, 2}, 4, KN_INT64, (int64_t[]){-1, 0, 1, 2});
    uint16_t h[] = {kn_f32_to_f16(1), kn_f32_to_f16(-2), kn_f32_to_f16(65504), 0};
    cast(KN_INT64, (int64_t[]){1, -2, 65504, 0}, 4, KN_FLOAT16, h); /* through double */
    cast(KN_FLOAT16, h, 4, KN_FLOAT, (float[]){1, -2, 65504, 0});
    uint16_t bf[] = {kn_f32_to_bf16(1.5f), kn_f32_to_bf16(-2), kn_f32_to_bf16(3), 0};
    cast(KN_FLOAT, (float[]){1.5f, -2, 3, 0}, 4, KN_BFLOAT16, bf);
    cast(KN_DOUBLE, (double[]){1e300, -1e300, 0.1, 2}, 4, KN_FLOAT,
         (float[]){INFINITY, -INFINITY, 0.1f, 2});

    kh_init(&c, "Cast", 1, 1, 1); /* opset 1 names the type */
    kh_attr_string(&c, "to", "INT64");
    kh_input(&c, 0, KN_FLOAT, DIMS(2), (float[]){2.5f, -7});
    run_ok(&c);
    expect_data(&c.out[0], KN_INT64, (int64_t[]){2, -7});
    kh_free(&c);
    kh_init(&c, "Cast", 13, 1, 1);
    kh_attr_int(&c, "to", KN_STRING);
    kh_input(&c, 0, KN_FLOAT, DIMS(2), seq);
    /* creating strings needs the engine's allocator (tests/test_strings.c) */
    expect_fail(&c, KN_ERR_INTERNAL, "allocate strings");
    kh_free(&c);
    /* many elements over two threads */
    enum { N = 70000 };
    int32_t *big = malloc(sizeof(int32_t) * N);
    for (int i = 0; i < N; i++)
        big[i] = i - N / 2;
    kh_init(&c, "Cast", 13, 1, 1);
    kh_attr_int(&c, "to", KN_DOUBLE);
    kh_input(&c, 0, KN_INT32, DIMS(N), big);
    run_both(&c);
    cr_assert_eq(((double *)c.out[0].data)[N - 1], N / 2 - 1);
    kh_free(&c);
    free(big);
    kh_init(&c, "CastLike", 15, 2, 1);
    kh_input(&c, 0, KN_FLOAT, DIMS(2), (float[]){2.5f, -7});
    kh_input(&c, 1, KN_INT8, DIMS(1), (int8_t[]){0});
    run_ok(&c);
    expect_data(&c.out[0], KN_INT8, (int8_t[]){2, -7});
}

Test(make, range)
{
    int64_t s = 10, l = 1, d = -3;
    kh_init(&c, "Range", 11, 3, 1);
    kh_input(&c, 0, KN_INT64, NULL, 0, &s);
    kh_input(&c, 1, KN_INT64, NULL, 0, &l);
    kh_input(&c, 2, KN_INT64, NULL, 0, &d);
    run_ok(&c);
    expect_shape(&c.out[0], DIMS(3));
    expect_data(&c.out[0], KN_INT64, (int64_t[]){10, 7, 4});
    kh_free(&c);
    float fs = 0, fl = 1, fd = 0.25f;
    kh_init(&c, "Range", 11, 3, 1);
    kh_input(&c, 0, KN_FLOAT, NULL, 0, &fs);
    kh_input(&c, 1, KN_FLOAT, NULL, 0, &fl);
    kh_input(&c, 2, KN_FLOAT, NULL, 0, &fd);
    run_ok(&c);
    expect_data(&c.out[0], KN_FLOAT, (float[]){0, 0.25f, 0.5f, 0.75f});
    kh_free(&c);
    d = 0;
    kh_init(&c, "Range", 11, 3, 1);
    kh_input(&c, 0, KN_INT64, NULL, 0, &s);
    kh_input(&c, 1, KN_INT64, NULL, 0, &l);
    kh_input(&c, 2, KN_INT64, NULL, 0, &d);
    expect_fail(&c, KN_ERR_INVALID_MODEL, "delta");
    kh_free(&c);
    d = 1;
    kh_init(&c, "Range", 11, 3, 1);
    c.inputs_constant_in_prepare = 0; /* the session then plans eagerly */
    kh_input(&c, 0, KN_INT64, NULL, 0, &s);
    kh_input(&c, 1, KN_INT64, NULL, 0, &l);
    kh_input(&c, 2, KN_INT64, NULL, 0, &d);
    expect_fail(&c, KN_ERR_NEEDS_VALUE, "'start' output shape depends on its value");
}
