/* Kernel auto-tuning (core/dnnl/tuning.c through core/plan.c): a plan
 * built with `tune` times the oneDNN and the CPU kernel of each node both
 * serve, keeps the faster and writes the choices to the tuning cache; a
 * second plan of the same model reads them and times nothing, choosing the
 * same kernels; results match an untuned plan. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/model.h"
#include "core/onnx/onnx.h"
#include "core/opt/optimize.h"
#include "core/plan.h"
#include "test_support.h"

#ifdef KILN_WITH_DNNL

static kn_model *load(const char *relative)
{
    size_t size = 0;
    void *bytes = kt_read_file(kt_src_path(relative), &size);
    cr_assert(bytes, "cannot read %s", relative);
    kn_err err = {0};
    kn_model_ir *ir = NULL;
    cr_assert_eq(kn_onnx_read_model(bytes, size, NULL, 0, &ir, &err), KN_OK, "%s", err.msg);
    free(bytes);
    cr_assert_eq(kn_optimize(ir, KN_OPT_ALL, 1, &err), KN_OK, "%s", err.msg);
    kn_model *m = NULL;
    cr_assert_eq(kn_model_create(ir, 0, &m, &err), KN_OK, "%s", err.msg);
    m->use_dnnl = 1;
    return m;
}

static kn_plan *plan(const kn_model *m, int tune, const char *cache, kn_threadpool *tp)
{
    kn_tensor shape = {.dtype = KN_FLOAT, .rank = 4, .dims = {2, 3, 64, 64}};
    kn_plan_options o = {.tune = tune, .tuning_cache = cache};
    kn_plan *p = NULL;
    kn_err err = {0};
    cr_assert_eq(kn_plan_build(m, &shape, tp, &o, &p, &err), KN_OK, "%s", err.msg);
    return p;
}

static int count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    int n = 0;
    char line[1024];
    while (f && fgets(line, sizeof line, f))
        n += line[0] != '#';
    if (f)
        fclose(f);
    return n;
}

static void run_plan(kn_plan *p, const float *x, float *y, size_t y_floats)
{
    kn_err err = {0};
    kn_plan_bind_input(p, 0, x);
    cr_assert_eq(kn_plan_execute(p, NULL, 0, &err), KN_OK, "%s", err.msg);
    const kn_tensor *out = &p->vals[p->model->graph->outputs[0]];
    cr_assert_eq((size_t)kn_tensor_numel(out), y_floats);
    memcpy(y, out->data, y_floats * sizeof(float));
}

Test(dnnl_tuning, cache_written_then_read_without_timing)
{
    char cache[512];
    snprintf(cache, sizeof cache, "%s/tuning_cache_test_%ld.txt", KILN_BINARY_DIR, (long)getpid());
    remove(cache);
    kn_threadpool *tp = kn_threadpool_create(2);
    kn_model *m = load("tests/data/models/layout_stack.onnx");

    kn_plan *untuned = plan(m, 0, cache, tp);
    cr_assert_eq(untuned->tuning_timings, 0);
    cr_assert_eq(count_lines(cache), 0, "no tuning, no cache file");

    kn_plan *first = plan(m, 1, cache, tp);
    cr_assert_gt(first->tuning_timings, 0, "the convolutions have two candidate kernels");
    cr_assert_eq(count_lines(cache), first->tuning_timings, "one cache line per timed node");
    fprintf(stderr, "tuning timed %d nodes\n", (int)first->tuning_timings);

    kn_model *again = load("tests/data/models/layout_stack.onnx");
    kn_plan *second = plan(again, 1, cache, tp);
    cr_assert_eq(second->tuning_timings, 0, "a cached model is not timed again");
    cr_assert_eq(second->n_steps, first->n_steps);
    for (int32_t s = 0; s < first->n_steps; s++)
        cr_assert_eq(second->steps[s].def, first->steps[s].def, "step %d chose another kernel",
                     (int)s);

    float x[2 * 3 * 64 * 64], a[10], b[10];
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
        x[i] = (float)((i * 7919) % 1000) / 500.0f - 1.0f;
    run_plan(untuned, x, a, 10);
    run_plan(second, x, b, 10);
    for (int i = 0; i < 10; i++)
        cr_assert_float_eq(a[i], b[i], 1e-4f * (1 + fabsf(a[i])), "output %d", i);

    /* another thread count is another machine setting: timed afresh */
    kn_plan *one = plan(again, 1, cache, NULL);
    cr_assert_gt(one->tuning_timings, 0);
    cr_assert_eq(count_lines(cache), first->tuning_timings + one->tuning_timings);

    kn_plan_destroy(one);
    kn_plan_destroy(untuned);
    kn_plan_destroy(first);
    kn_plan_destroy(second);
    kn_model_destroy(m);
    kn_model_destroy(again);
    kn_threadpool_destroy(tp);
    remove(cache);
}

#else

Test(dnnl_tuning, needs_onednn)
{
    cr_skip_test("Kiln was built without oneDNN (KILN_WITH_DNNL): one kernel per node, nothing "
                 "to tune");
}

#endif
