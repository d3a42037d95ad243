/* The backend seam: a backend is its descriptor alone. This suite plugs a
 * small reference backend of its own into the list (in front of the CPU
 * backend, the way core/backends.c lists oneDNN) and checks, through the
 * public C API on the digits example model, that the planner offers it
 * the nodes it has kernels for, honours its availability probe and its
 * declines, runs the optimizer pass it contributes, names it in the
 * profile, and computes what the CPU backend computes. */
#include <math.h>
#include <string.h>

#include "api_helpers.h"
#include "core/engine/registry.h"
#include "core/kernel/backend.h"
#include "core/kernel/tensor_common.h"
#include "core/opt/rewrite.h"

/* ---- the reference backend: one kernel, Relu on float ---- */

static int ref_available = 1;  /* what its probe answers */
static int ref_declines = 0;   /* its kernel declines every node */
static int ref_relu_runs = 0;  /* runs of its kernel */
static int ref_pass_runs = 0;  /* runs of its optimizer pass */
static int ref_pass_relus = 0; /* Relu nodes its pass saw */

static int probe(void) { return ref_available; }

static int relu_prepare(kn_kctx *k)
{
    if (ref_declines)
        return kn_fail(k->err, KN_ERR_DECLINE, "ref Relu: declined by the test");
    kn_copy_desc(k->out[0], k->in[0]);
    return KN_OK;
}

static int relu_run(kn_kctx *k)
{
    const float *x = k->in[0]->data;
    float *y = k->out[0]->data;
    for (int64_t i = 0, n = kn_tensor_numel(k->in[0]); i < n; i++)
        y[i] = x[i] > 0 ? x[i] : 0.0f;
    ref_relu_runs++;
    return KN_OK;
}

static const kn_op_def ref_relu = {.op_type = "Relu",
                                   .since_version = 1,
                                   .dtypes = KN_BIT(KN_FLOAT),
                                   .prepare = relu_prepare,
                                   .run = relu_run};
static const kn_op_def *const ref_ops[] = {&ref_relu, NULL};
static const kn_op_def *const *const ref_tables[] = {ref_ops, NULL};

/* A pass that only looks: counts the Relu nodes it is shown. */
static int count_relus(kn_opt *o)
{
    ref_pass_runs++;
    for (int32_t i = 0; i < o->g->n_nodes; i++)
        ref_pass_relus += strcmp(o->g->nodes[i].op_type, "Relu") == 0;
    return KN_OK;
}

static const kn_backend_pass ref_passes[] = {
    {.name = "ref_count", .slot = KN_PASS_SLOT_LAYOUT, .level = KN_OPT_BASIC, .run = count_relus},
    {0},
};

static const kn_backend ref_backend = {
    .name = "ref",
    .available = probe,
    .kernel_tables = ref_tables,
    .passes = ref_passes,
    .memory = {.kind = KN_MEMORY_HOST},
};

static const kn_backend *const with_ref[] = {&ref_backend, &kn_backend_cpu, NULL};
static const kn_backend *const cpu_only[] = {&kn_backend_cpu, NULL};

static void reset(void)
{
    ref_available = 1;
    ref_declines = 0;
    ref_relu_runs = ref_pass_runs = ref_pass_relus = 0;
}

static void restore(void) { kn_backends_override_for_testing(NULL); }

/* Runs the digits model at optimization level 1 (Relu stays a node of its
 * own) on a fixed image, under the given backend list; the logits go to
 * out, and the number of profiled steps whose kernel is "ref" to *ref_steps. */
static void run_digits(const kn_backend *const *list, float out[10], int *ref_steps)
{
    kn_backends_override_for_testing(list);
    kiln_runtime *rt = kt_runtime(1);
    kiln_options *o = NULL;
    KT_OK(kiln_options_create(&o));
    KT_OK(kiln_options_set_int(o, KILN_OPT_OPTIMIZE, 1));
    KT_OK(kiln_options_set_int(o, KILN_OPT_PROFILE, 1));
    kiln_model *m = NULL;
    KT_OK(kiln_model_load_file(rt, kt_src_path("examples/digits/digits.onnx"), o, &m));
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(m, o, &s));
    float image[64];
    for (int i = 0; i < 64; i++)
        image[i] = (float)((i * 37) % 17) / 16.0f - 0.25f;
    const int64_t dims[4] = {1, 1, 8, 8};
    KT_OK(kiln_session_set_input(s, "image", KILN_DTYPE_FLOAT, dims, 4, image, sizeof image, 0));
    KT_OK(kiln_session_run(s));
    KT_OK(kiln_session_output_copy(s, 0, out, 10 * sizeof(float), NULL));
    int32_t steps = 0;
    KT_OK(kiln_session_profile_count(s, &steps));
    *ref_steps = 0;
    for (int32_t i = 0; i < steps; i++) {
        char kernel[32];
        KT_OK(kiln_session_profile_kernel(s, i, kernel, sizeof kernel, NULL));
        *ref_steps += strcmp(kernel, "ref") == 0;
    }
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_options_destroy(o);
    kiln_runtime_destroy(rt);
    kn_backends_override_for_testing(NULL);
}

TestSuite(backend_seam, .init = reset, .fini = restore);

Test(backend_seam, a_plugged_in_backend_serves_its_op)
{
    float want[10], got[10];
    int ref_steps = 0;
    run_digits(cpu_only, want, &ref_steps);
    cr_assert_eq(ref_steps, 0);
    cr_assert_eq(ref_pass_runs, 0, "a backend not in the list contributes no pass");

    run_digits(with_ref, got, &ref_steps);
    cr_assert_gt(ref_relu_runs, 0, "the reference Relu never ran");
    cr_assert_eq(ref_steps, ref_relu_runs, "the profile names the backend of each step");
    cr_assert_eq(ref_pass_runs, 1, "its pass runs once, at its slot");
    cr_assert_eq(ref_pass_relus, ref_steps, "the pass saw the graph the planner then planned");
    for (int i = 0; i < 10; i++)
        cr_assert_eq(got[i], want[i], "logit %d: %g with the reference Relu, %g without", i,
                     (double)got[i], (double)want[i]);
}

Test(backend_seam, an_unavailable_backend_is_skipped)
{
    ref_available = 0;
    float got[10];
    int ref_steps = 0;
    run_digits(with_ref, got, &ref_steps);
    cr_assert_eq(ref_relu_runs, 0);
    cr_assert_eq(ref_steps, 0);
    cr_assert_eq(ref_pass_runs, 0, "the pass of an unavailable backend must not run");
    cr_assert(isfinite(got[0]));
}

Test(backend_seam, a_declined_node_goes_to_the_next_backend)
{
    ref_declines = 1;
    float want[10], got[10];
    int ref_steps = 0;
    run_digits(cpu_only, want, &ref_steps);
    run_digits(with_ref, got, &ref_steps);
    cr_assert_eq(ref_relu_runs, 0);
    cr_assert_eq(ref_steps, 0, "declined steps are the CPU backend's");
    cr_assert_eq(memcmp(got, want, sizeof got), 0);
}

Test(backend_seam, the_registry_lists_and_finds_backends)
{
    kn_backends_override_for_testing(with_ref);
    cr_assert_eq(kn_backend_count(), 2);
    cr_assert_eq(kn_backend_index("ref"), 0);
    cr_assert_eq(kn_backend_index("cpu"), 1);
    cr_assert_eq(kn_backend_index("nope"), -1);
    cr_assert_eq(kn_backends_usable(0), 0x3u);
    cr_assert_eq(kn_backends_usable(0x1u), 0x2u, "switched off by the caller");
    ref_available = 0;
    cr_assert_eq(kn_backends_usable(0), 0x2u, "its probe says no");
    cr_assert_eq(kn_backend_of(&ref_relu), &ref_backend);
    cr_assert_eq(kn_backend_kernel(&ref_backend, "", "Relu", 14, KN_FLOAT), &ref_relu);
    cr_assert_null(kn_backend_kernel(&ref_backend, "", "Relu", 14, KN_DOUBLE), "float only");
    cr_assert_null(kn_backend_kernel(&ref_backend, "", "Relu", KN_MAX_OPSET + 1, KN_FLOAT));
    kn_backends_override_for_testing(NULL);
    /* the built-in list: every backend Kiln is built with, the CPU one last */
    int32_t n = kn_backend_count();
    cr_assert_geq(n, 2);
    cr_assert_eq(kn_backends()[n - 1], &kn_backend_cpu);
    cr_assert_geq(kn_backend_index("dnnl"), 0, "built or not, oneDNN has its descriptor");
}
