/* The engine's half of the CUDA backend's kernel tuning, end to end through
 * sessions, on a TEST DOUBLE of a tuned device backend ("tunedev"): the
 * "testdev" double's memory hooks and kernels (support/host_test_device.h)
 * under a kernel table whose every kernel first asks the engine for its
 * tuned choice (kn_engine_api.tuned_choice), as the CUDA products and
 * convolutions do (core/cuda/cuda_tuning.h), and keeps "k1" when none is
 * cached; it counts what it was told. Checks: a session without tuning
 * answers "not tuning" and writes nothing; a tuning session keeps one line
 * per device node, keyed by the device's describe() text and the
 * precision, in the cache file; a second session reads every choice and
 * keeps nothing new; another precision is another key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_helpers.h"
#include "core/engine/registry.h"
#include "host_test_device.h"

/* What the wrapped kernels were told by the engine since the last reset. */
static int not_tuning, cached, kept;
static char last_cached[64];

static int tuned_prepare(kn_kctx *k)
{
    const kn_op_def *inner = kn_backend_kernel(&kt_host_test_device, k->node->domain,
                                               k->node->op_type, k->opset, KN_FLOAT);
    cr_assert_not_null(inner);
    char choice[64];
    int mode = k->engine_api->tuned_choice(k->engine, k, choice, sizeof choice);
    if (mode < 0) {
        not_tuning++;
    } else if (mode == 1) {
        cached++;
        snprintf(last_cached, sizeof last_cached, "%s", choice);
    } else {
        kept++;
        cr_assert_eq(k->engine_api->keep_tuned_choice(k->engine, k, "k1", k->err), KN_OK);
    }
    return inner->prepare(k);
}

static int tuned_run(kn_kctx *k)
{
    return kn_backend_kernel(&kt_host_test_device, k->node->domain, k->node->op_type, k->opset,
                             KN_FLOAT)
        ->run(k);
}

#define TUNED(name, since)                                                                         \
    static const kn_op_def tuned_##name = {.op_type = #name,                                       \
                                           .since_version = since,                                 \
                                           .dtypes = KN_BIT(KN_FLOAT),                             \
                                           .prepare = tuned_prepare,                               \
                                           .run = tuned_run}
TUNED(Relu, 6);
TUNED(Add, 7);
TUNED(MatMul, 9);
TUNED(Gemm, 11);
static const kn_op_def *const tuned_kernels[] = {&tuned_Relu, &tuned_Add, &tuned_MatMul,
                                                 &tuned_Gemm, NULL};
static const kn_op_def *const *const tuned_tables[] = {tuned_kernels, NULL};

static kn_backend tunedev;
static const kn_backend *const with_tunedev[] = {&tunedev, &kn_backend_cpu, NULL};

static void setup(void)
{
    kt_testdev_reset();
    tunedev = kt_host_test_device;
    tunedev.name = "tunedev";
    tunedev.kernel_tables = tuned_tables;
    tunedev.flags |= KN_BACKEND_TUNED;
    kn_backends_override_for_testing(with_tunedev);
}

static void teardown(void) { kn_backends_override_for_testing(NULL); }

TestSuite(cuda_tuning_engine, .init = setup, .fini = teardown);

/* One session of mlp_split.onnx (optimization level 1: Gemm and Relu
 * apart) on tunedev, run once; tune / cache / precision as given. */
static void one_session(int tune, const char *cache, int32_t precision)
{
    not_tuning = cached = kept = 0;
    kiln_runtime *rt = kt_runtime(1);
    kiln_options *o = NULL;
    kiln_model *m = NULL;
    kiln_session *s = NULL;
    KT_OK(kiln_options_create(&o));
    KT_OK(kiln_options_set_int(o, KILN_OPT_OPTIMIZE, 1));
    KT_OK(kiln_options_set_string(o, KILN_SOPT_DEVICE, "tunedev"));
    KT_OK(kiln_options_set_int(o, KILN_OPT_TUNE, tune));
    KT_OK(kiln_options_set_int(o, KILN_OPT_PRECISION, precision));
    if (cache)
        KT_OK(kiln_options_set_string(o, KILN_SOPT_TUNING_CACHE, cache));
    KT_OK(kiln_model_load_file(rt, kt_src_path("tests/data/devices/mlp_split.onnx"), o, &m));
    KT_OK(kiln_session_create(m, o, &s));
    static float x[4 * 16];
    const int64_t dims[2] = {4, 16};
    for (int i = 0; i < 4 * 16; i++)
        x[i] = (float)(i % 7) / 7.0f;
    KT_OK(kiln_session_set_input(s, "x", KILN_DTYPE_FLOAT, dims, 2, x, sizeof x, 0));
    KT_OK(kiln_session_run(s));
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_options_destroy(o);
    kiln_runtime_destroy(rt);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *text = calloc(1, 1 << 16);
    text[fread(text, 1, (1 << 16) - 1, f)] = '\0';
    fclose(f);
    return text;
}

static int count(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

static void fresh_cache(char *path)
{
    strcpy(path, "/tmp/kiln_tuning_engine_XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    remove(path);
}

Test(cuda_tuning_engine, without_tuning_kernels_are_told_not_to_tune)
{
    char path[64];
    fresh_cache(path);
    one_session(0, path, KILN_PRECISION_FP32);
    cr_assert_gt(not_tuning, 0, "no device kernel was prepared");
    cr_assert_eq(cached + kept, 0);
    char *text = read_text(path);
    cr_assert_null(text, "a session without tuning wrote a cache: %s", text ? text : "");
}

Test(cuda_tuning_engine, choices_are_kept_by_device_and_read_back_untimed)
{
    char path[64];
    fresh_cache(path);
    one_session(1, path, KILN_PRECISION_FP32);
    int nodes = kept;
    cr_assert_gt(nodes, 0, "no device kernel was tuned");
    cr_assert_eq(not_tuning + cached, 0);
    char *text = read_text(path);
    cr_assert_not_null(text, "the tuning cache was not written");
    cr_log_info("cache:\n%s", text);
    cr_assert_eq(count(text, " tunedev/k1\n"), nodes, "%s", text);
    cr_assert_eq(count(text, "|testdev_0_(host_memory,_test_double)|p0|n"), nodes, "%s", text);

    /* a second session of the model: every choice read, none kept anew */
    one_session(1, path, KILN_PRECISION_FP32);
    cr_assert_eq(cached, nodes);
    cr_assert_eq(kept, 0);
    cr_assert_str_eq(last_cached, "k1");
    char *again = read_text(path);
    cr_assert_str_eq(again, text, "the cache changed without new choices");

    /* another precision is another key: tuned afresh, lines added */
    one_session(1, path, KILN_PRECISION_FP16);
    cr_assert_eq(kept, nodes);
    char *fp16 = read_text(path);
    cr_assert_eq(count(fp16, "|p2|n"), nodes, "%s", fp16);
    cr_assert_eq(count(fp16, " tunedev/k1\n"), 2 * nodes, "%s", fp16);
    free(fp16);
    free(again);
    free(text);
    remove(path);
}
