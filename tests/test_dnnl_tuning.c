/* Kernel auto-tuning (core/engine/tuning.c through core/engine/plan.c): a plan
 * built with `tune` times the oneDNN and the CPU kernel of each node both
 * serve, and the oneDNN kernel's variants, keeps the fastest and writes the
 * choices to the tuning cache; a second plan of the same model reads them
 * and times nothing, choosing the same kernels; results match an untuned
 * plan. A cache naming a variant makes the plan build it. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/engine/model.h"
#include "core/engine/load.h"
#include "core/kernel/backend.h"
#include "core/onnx/onnx.h"
#include "core/opt/optimize.h"
#include "core/engine/plan.h"
#include "test_support.h"

#ifdef KILN_WITH_DNNL

extern const kn_backend kn_backend_dnnl;

static kn_model *load(const char *relative)
{
    size_t size = 0;
    void *bytes = kt_read_file(kt_src_path(relative), &size);
    cr_assert(bytes, "cannot read %s", relative);
    kn_err err = {0};
    kn_model *m = NULL;
    kn_load_options o = {.optimize = KN_OPT_ALL};
    cr_assert_eq(kn_model_load(bytes, size, NULL, 0, &o, &m, &err), KN_OK, "%s", err.msg);
    free(bytes);
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

/* Both plans give the same 10 outputs on one input. */
static void assert_same_outputs(kn_plan *p, kn_plan *q)
{
    static float x[2 * 3 * 64 * 64];
    float a[10], b[10];
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
        x[i] = (float)((i * 7919) % 1000) / 500.0f - 1.0f;
    run_plan(p, x, a, 10);
    run_plan(q, x, b, 10);
    for (int i = 0; i < 10; i++)
        cr_assert_float_eq(a[i], b[i], 1e-4f * (1 + fabsf(a[i])), "output %d", i);
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
    for (int32_t s = 0; s < first->n_steps; s++) {
        cr_assert_eq(second->steps[s].def, first->steps[s].def, "step %d chose another kernel",
                     (int)s);
        cr_assert_eq(second->steps[s].k.variant, first->steps[s].k.variant,
                     "step %d chose another variant", (int)s);
    }

    assert_same_outputs(untuned, second);

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

/* Rewrites every choice in the cache file to `choice`. */
static void rewrite_choices(const char *path, const char *choice)
{
    FILE *f = fopen(path, "r");
    cr_assert(f);
    char lines[64][1024];
    int n = 0;
    while (n < 64 && fgets(lines[n], sizeof lines[n], f))
        n++;
    fclose(f);
    f = fopen(path, "w");
    cr_assert(f);
    for (int i = 0; i < n; i++) {
        char *space = strrchr(lines[i], ' ');
        if (lines[i][0] != '#' && space)
            sprintf(space, " %s\n", choice);
        fputs(lines[i], f);
    }
    fclose(f);
}

/* A oneDNN convolution whose own choice (Winograd, or a preferred
 * implementation) differs from oneDNN's first has two variants: tuning
 * times both and records "dnnl#1" when oneDNN's first wins; a cache that
 * says "dnnl#1" makes the plan build variant 1, with the same results. */
Test(dnnl_tuning, variants_timed_and_read_back)
{
    char cache[512];
    snprintf(cache, sizeof cache, "%s/tuning_variants_%ld.txt", KILN_BINARY_DIR, (long)getpid());
    remove(cache);
    kn_model *m = load("tests/data/models/layout_stack.onnx");
    kn_plan *untuned = plan(m, 0, NULL, NULL);
    int with_variants = 0;
    for (int32_t s = 0; s < untuned->n_steps; s++)
        with_variants += untuned->steps[s].k.n_variants > 1;
    if (!with_variants) {
        cr_log_info("no node has variants on this CPU (no Winograd, no preference): nothing "
                    "to check");
        kn_plan_destroy(untuned);
        kn_model_destroy(m);
        return;
    }
    cr_log_info("%d nodes with variants", with_variants);
    kn_plan *tuned = plan(m, 1, cache, NULL);
    cr_assert_geq(tuned->tuning_timings, with_variants, "every node with variants is timed");
    FILE *f = fopen(cache, "r");
    cr_assert(f);
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        const char *choice = strrchr(line, ' ');
        cr_assert(line[0] == '#' || (choice && (strcmp(choice, " dnnl\n") == 0 ||
                                                strcmp(choice, " dnnl#1\n") == 0 ||
                                                strcmp(choice, " cpu\n") == 0)),
                  "unexpected cache line: %s", line);
    }
    fclose(f);

    rewrite_choices(cache, "dnnl#1");
    kn_plan *forced = plan(m, 1, cache, NULL);
    cr_assert_eq(forced->tuning_timings, 0, "every choice read from the cache");
    int forced_variants = 0;
    for (int32_t s = 0; s < forced->n_steps; s++) {
        const kn_step *st = &forced->steps[s];
        int want = st->backend == &kn_backend_dnnl && st->k.n_variants > 1;
        cr_assert_eq(st->k.variant, want ? 1 : 0, "step %d", (int)s);
        forced_variants += want;
    }
    cr_assert_eq(forced_variants, with_variants);

    assert_same_outputs(untuned, forced);
    kn_plan_destroy(forced);
    kn_plan_destroy(tuned);
    kn_plan_destroy(untuned);
    kn_model_destroy(m);
    remove(cache);
}

#else

Test(dnnl_tuning, needs_onednn)
{
    cr_skip_test("Kiln was built without oneDNN (KILN_WITH_DNNL): one kernel per node, nothing "
                 "to tune");
}

#endif
