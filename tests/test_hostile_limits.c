/* The resource-limit options through the public API:
 *   KILN_OPT_MAX_MODEL_MB  counts the model file and its external data;
 *   KILN_OPT_MAX_ARENA_MB  bounds the memory a session plans for a run,
 *                          including constants folded at plan time and the
 *                          per-run values of eagerly planned models.
 * An exceeded limit is KILN_ERR_LIMIT with a message, before the memory is
 * allocated, and leaves every handle usable. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api_helpers.h"
#include "reader_support.h"

enum { MIB = 1 << 20 };

static kiln_options *limit(int32_t key, int32_t mb)
{
    kiln_options *o = NULL;
    KT_OK(kiln_options_create(&o));
    KT_OK(kiln_options_set_int(o, key, mb));
    return o;
}

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    cr_assert_eq(fwrite(data, 1, n, f), n);
    fclose(f);
}

static void limit_message(void)
{
    char msg[512];
    kiln_last_error(msg, sizeof msg);
    cr_assert(strstr(msg, "limit"), "message '%s' does not mention the limit", msg);
}

/* Y = X + W, W float[n] (inline unless `location` names an external file). */
static pbw add_model(int64_t n, const float *w, const char *location)
{
    pbw g = {0}, t = {0};
    w_int(&t, 1, n);
    w_int(&t, 2, KN_FLOAT);
    w_str(&t, 8, "W");
    if (location) {
        pbw e = {0};
        w_str(&e, 1, "location");
        w_str(&e, 2, location);
        w_msg(&t, 13, &e);
        w_int(&t, 14, 1); /* data_location = EXTERNAL */
    } else {
        w_bytes(&t, 9, w, sizeof(float) * (size_t)n);
    }
    add_node(&g, "Add", "add", L("X", "W"), L("Y"));
    w_msg(&g, 5, &t);
    add_vi(&g, 11, "X", 1, &n);
    add_vi(&g, 12, "Y", 1, &n);
    return mk_model(&g, 17);
}

static char *temp_dir(void)
{
    static char dir[64];
    snprintf(dir, sizeof dir, "/tmp/kiln_limits_XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    return dir;
}

Test(limits, model_mb_counts_the_file)
{
    const int64_t n = 3 * MIB / 4; /* 3 MiB of weights */
    float *w = calloc((size_t)n, sizeof(float));
    cr_assert_not_null(w);
    w[1] = 2.5f;
    pbw m = add_model(n, w, NULL);
    char *dir = temp_dir(), path[128];
    snprintf(path, sizeof path, "%s/big.onnx", dir);
    write_bytes(path, m.p, m.n);

    kiln_runtime *rt = kt_runtime(1);
    kiln_model *model = NULL;
    kiln_options *two = limit(KILN_OPT_MAX_MODEL_MB, 2), *four = limit(KILN_OPT_MAX_MODEL_MB, 4);
    KT_FAILS(kiln_model_load_file(rt, path, two, &model), KILN_ERR_LIMIT);
    cr_assert_null(model);
    limit_message();
    KT_FAILS(kiln_model_load_memory(rt, m.p, m.n, two, &model), KILN_ERR_LIMIT);
    cr_assert_null(model);
    KT_OK(kiln_model_load_file(rt, path, four, &model));
    kiln_model_destroy(model);
    KT_OK(kiln_model_load_memory(rt, m.p, m.n, four, &model));
    kiln_model_destroy(model);
    KT_OK(kiln_model_load_memory(rt, m.p, m.n, NULL, &model)); /* no limit */
    kiln_model_destroy(model);
    kiln_options_destroy(two);
    kiln_options_destroy(four);
    kiln_runtime_destroy(rt);
    unlink(path);
    rmdir(dir);
    free(m.p);
    free(w);
}

Test(limits, model_mb_counts_external_data)
{
    const int64_t n = 3 * MIB / 4;
    float *w = calloc((size_t)n, sizeof(float));
    cr_assert_not_null(w);
    w[1] = 2.5f;
    char *dir = temp_dir(), path[128], data[128];
    snprintf(data, sizeof data, "%s/w.bin", dir);
    write_bytes(data, w, sizeof(float) * (size_t)n);
    pbw m = add_model(n, NULL, "w.bin");
    cr_assert_lt(m.n, 1024, "the model file itself is tiny");
    snprintf(path, sizeof path, "%s/ext.onnx", dir);
    write_bytes(path, m.p, m.n);

    kiln_runtime *rt = kt_runtime(1);
    kiln_model *model = NULL;
    kiln_options *two = limit(KILN_OPT_MAX_MODEL_MB, 2), *four = limit(KILN_OPT_MAX_MODEL_MB, 4);
    KT_FAILS(kiln_model_load_file(rt, path, two, &model), KILN_ERR_LIMIT);
    cr_assert_null(model);
    KT_OK(kiln_model_load_file(rt, path, four, &model));
    /* And the data arrived: Y = X + W. */
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(model, NULL, &s));
    float *x = calloc((size_t)n, sizeof(float));
    KT_OK(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, &n, 1, x, sizeof(float) * (size_t)n, 0));
    KT_OK(kiln_session_run(s));
    const float *y = NULL;
    KT_OK(kiln_session_output_view(s, 0, (const void **)&y, NULL));
    cr_assert_eq(y[1], 2.5f);
    kiln_session_destroy(s);
    kiln_model_destroy(model);
    kiln_options_destroy(two);
    kiln_options_destroy(four);
    kiln_runtime_destroy(rt);
    unlink(path);
    unlink(data);
    rmdir(dir);
    free(m.p);
    free(w);
    free(x);
}

/* Y = Relu(Expand(X[1], [1024, 1024])): a 4 MiB intermediate in the arena. */
static pbw expand_model(void)
{
    static const int64_t one = 1, two = 2, big[2] = {1024, 1024};
    pbw g = {0};
    pbw s = mk_tensor("S", KN_INT64, 1, &two, big, sizeof big);
    w_msg(&g, 5, &s);
    add_node(&g, "Expand", "expand", L("X", "S"), L("E"));
    add_node(&g, "Relu", "relu", L("E"), L("Y"));
    add_vi(&g, 11, "X", 1, &one);
    add_vi(&g, 12, "Y", 2, big);
    return mk_model(&g, 17);
}

Test(limits, arena_mb_at_session_create)
{
    kiln_runtime *rt = kt_runtime(1);
    pbw m = expand_model();
    kiln_model *model = NULL;
    KT_OK(kiln_model_load_memory(rt, m.p, m.n, NULL, &model));
    kiln_options *two = limit(KILN_OPT_MAX_ARENA_MB, 2), *eight = limit(KILN_OPT_MAX_ARENA_MB, 8);
    kiln_session *s = (kiln_session *)&m;
    KT_FAILS(kiln_session_create(model, two, &s), KILN_ERR_LIMIT);
    cr_assert_null(s);
    limit_message();
    KT_OK(kiln_session_create(model, eight, &s));
    int64_t arena = 0;
    KT_OK(kiln_session_plan_bytes(s, &arena, NULL));
    cr_assert_leq(arena, 8 * MIB);
    float x = -3.0f;
    const int64_t one = 1;
    KT_OK(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, &one, 1, &x, sizeof x, 0));
    KT_OK(kiln_session_run(s));
    kiln_session_destroy(s);
    kiln_options_destroy(two);
    kiln_options_destroy(eight);
    kiln_model_destroy(model);
    kiln_runtime_destroy(rt);
    free(m.p);
}

Test(limits, arena_mb_at_run_for_new_shapes)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *model = kt_model(rt, "tests/data/models/dynamic_mlp.onnx");
    kiln_options *one_mb = limit(KILN_OPT_MAX_ARENA_MB, 1);
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(model, one_mb, &s));
    enum { ROWS = 1 << 17 }; /* intermediates of 1.5 MiB */
    float *x = calloc((size_t)ROWS * 4, sizeof(float));
    cr_assert_not_null(x);
    const int64_t big[2] = {ROWS, 4}, small[2] = {2, 4};
    KT_OK(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, big, 2, x, sizeof(float) * 4 * ROWS, 0));
    KT_FAILS(kiln_session_run(s), KILN_ERR_LIMIT);
    limit_message();
    KT_OK(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, small, 2, x, sizeof(float) * 8, 0));
    KT_OK(kiln_session_run(s));
    kiln_session_destroy(s);
    kiln_options_destroy(one_mb);
    kiln_model_destroy(model);
    kiln_runtime_destroy(rt);
    free(x);
}

/* Y = X + ReduceSum(ConstantOfShape([n])): everything big is a constant,
 * folded while the plan is built; the arena itself stays tiny. */
static pbw folded_model(int64_t n)
{
    static const int64_t one = 1;
    pbw g = {0};
    pbw s = mk_tensor("S", KN_INT64, 1, &one, &n, sizeof n);
    w_msg(&g, 5, &s);
    add_node(&g, "ConstantOfShape", "big", L("S"), L("C"));
    add_node(&g, "ReduceSum", "sum", L("C"), L("R"));
    add_node(&g, "Add", "add", L("X", "R"), L("Y"));
    add_vi(&g, 11, "X", 1, &one);
    add_vi(&g, 12, "Y", 1, &one);
    return mk_model(&g, 17);
}

Test(limits, arena_mb_covers_folded_constants)
{
    kiln_runtime *rt = kt_runtime(1);
    pbw m = folded_model(16 * MIB); /* a 64 MiB constant */
    kiln_model *model = NULL;
    KT_OK(kiln_model_load_memory(rt, m.p, m.n, NULL, &model));
    kiln_options *eight = limit(KILN_OPT_MAX_ARENA_MB, 8);
    kiln_session *s = NULL;
    int32_t rc = kiln_session_create(model, eight, &s);
    char msg[512];
    kiln_last_error(msg, sizeof msg);
    kiln_session_destroy(s);
    cr_expect_eq(rc, KILN_ERR_LIMIT,
                 "a 64 MiB folded constant under an 8 MiB limit gave status %d (%s): constants "
                 "folded at plan time are not counted against KILN_OPT_MAX_ARENA_MB",
                 (int)rc, rc ? msg : "no error");
    /* Without a limit it works. */
    KT_OK(kiln_session_create(model, NULL, &s));
    kiln_session_destroy(s);
    kiln_options_destroy(eight);
    kiln_model_destroy(model);
    kiln_runtime_destroy(rt);
    free(m.p);
}

/* Y = ConstantOfShape(S) with S a graph input: the output shape depends on
 * a value, so the session plans eagerly, at every run. */
Test(limits, arena_mb_in_eager_mode)
{
    static const int64_t one = 1;
    pbw g = {0};
    add_node(&g, "ConstantOfShape", "cos", L("S"), L("Y"));
    pbw s_vi = mk_vi("S", KN_INT64, 1, &one);
    w_msg(&g, 11, &s_vi);
    add_vi(&g, 12, "Y", -1, NULL);
    pbw m = mk_model(&g, 17);
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *model = NULL;
    KT_OK(kiln_model_load_memory(rt, m.p, m.n, NULL, &model));
    kiln_options *eight = limit(KILN_OPT_MAX_ARENA_MB, 8);
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(model, eight, &s));
    int64_t n = 16 * MIB; /* 64 MiB of output */
    KT_OK(kiln_session_set_input(s, "S", KILN_DTYPE_INT64, &one, 1, &n, sizeof n, 0));
    int32_t rc = kiln_session_run(s);
    char msg[512];
    kiln_last_error(msg, sizeof msg);
    cr_expect_eq(rc, KILN_ERR_LIMIT,
                 "64 MiB of eagerly planned values under an 8 MiB limit gave status %d (%s)",
                 (int)rc, rc ? msg : "no error");
    n = 4;
    KT_OK(kiln_session_set_input(s, "S", KILN_DTYPE_INT64, &one, 1, &n, sizeof n, 0));
    KT_OK(kiln_session_run(s));
    kiln_session_destroy(s);
    kiln_options_destroy(eight);
    kiln_model_destroy(model);
    kiln_runtime_destroy(rt);
    free(m.p);
}

/* A 1 KB model whose Pad grows an 8x8 image by about 10^8 rows, read by an
 * AveragePool (found by fuzzing: the pool's per-row window table asked
 * for 2.4 GB before the memory plan could refuse the padded tensor). The
 * optimizer folds the Pad into the pool's pads, so the pool itself must
 * refuse its 9.6 GB output before building that table; the peak resident
 * size says it did (filling the table touched 2.4 GB). */
Test(limits, arena_mb_refuses_one_huge_tensor_before_its_readers)
{
    kiln_runtime *rt = kt_runtime(1);
    kiln_model *model = kt_model(rt, "tests/fuzz/regressions/model_run/pool_after_huge_pad.onnx");
    kiln_options *sixty_four = limit(KILN_OPT_MAX_ARENA_MB, 64);
    kiln_session *s = NULL;
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    KT_FAILS(kiln_session_create(model, sixty_four, &s), KILN_ERR_LIMIT);
    getrusage(RUSAGE_SELF, &after);
    long grown_mb = (after.ru_maxrss - before.ru_maxrss) / 1024;
    char msg[512];
    kiln_last_error(msg, sizeof msg);
    cr_expect(strstr(msg, "(AveragePool): output 0 needs 9663677184 bytes") &&
                  strstr(msg, "above the memory limit of 67108864"),
              "message '%s' does not name the pool, its output and the limit", msg);
    cr_expect_lt(grown_mb, 256, "the peak resident size grew by %ld MB while refusing", grown_mb);
    kiln_options_destroy(sixty_four);
    kiln_model_destroy(model);
    kiln_runtime_destroy(rt);
}
