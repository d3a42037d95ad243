/* Models whose shapes depend on an input's value (TopK's K fed by the
 * caller): the session plans them once per distinct value of such a small
 * input (at most 64 elements), as it does per shape, instead of planning
 * every run; a model whose shapes depend on a big input's values (NonZero
 * over 100 elements) still plans every run. Through the public API; the cached value-keyed
 * plans run without allocating. */
#include <string.h>

#include "alloc_count.h"
#include "api_helpers.h"
#include "reader_support.h"

#define N 8

/* Values, Indices = TopK(X [8] float, K [1] int64) */
static pbw topk_model(void)
{
    static const int64_t xd[] = {N}, kd[] = {1};
    pbw g = {0};
    add_node(&g, "TopK", "top", L("X", "K"), L("Values", "Indices"));
    w_str(&g, 2, "topk");
    add_vi(&g, 11, "X", 1, xd);
    pbw k = mk_vi("K", KN_INT64, 1, kd);
    w_msg(&g, 11, &k);
    pbw v = mk_vi("Values", KN_FLOAT, -1, NULL), i = mk_vi("Indices", KN_INT64, -1, NULL);
    w_msg(&g, 12, &v);
    w_msg(&g, 12, &i);
    return mk_model(&g, 11);
}

#define BIG 100 /* above the 64 elements a value input may have */

/* Y = NonZero(X [100] float): its shape depends on all of X */
static pbw nonzero_model(void)
{
    static const int64_t xd[] = {BIG};
    pbw g = {0};
    add_node(&g, "NonZero", "nz", L("X"), L("Y"));
    w_str(&g, 2, "nonzero");
    add_vi(&g, 11, "X", 1, xd);
    pbw y = mk_vi("Y", KN_INT64, -1, NULL);
    w_msg(&g, 12, &y);
    return mk_model(&g, 13);
}

static kiln_model *load_bytes(kiln_runtime *rt, pbw *bytes)
{
    kiln_model *m = NULL;
    KT_OK(kiln_model_load_memory(rt, bytes->p, bytes->n, NULL, &m));
    free(bytes->p);
    return m;
}

static const float x[N] = {0.5f, -2.0f, 7.0f, 3.0f, 0.0f, 9.0f, -1.0f, 4.0f};

/* Runs TopK with k; checks the k largest values come out in order. */
static void run_topk(kiln_session *s, int64_t k)
{
    const int64_t xd[] = {N}, kd[] = {1};
    KT_OK(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, xd, 1, x, sizeof x, 0));
    KT_OK(kiln_session_set_input(s, "K", KILN_DTYPE_INT64, kd, 1, &k, sizeof k, 0));
    KT_OK(kiln_session_run(s));
    static const float sorted[N] = {9, 7, 4, 3, 0.5f, 0, -1, -2};
    float got[N];
    size_t bytes = 0;
    KT_OK(kiln_session_output_copy(s, 0, got, sizeof got, &bytes));
    cr_assert_eq(bytes, (size_t)k * sizeof(float), "k = %lld: %zu output bytes", (long long)k,
                 bytes);
    for (int64_t i = 0; i < k; i++)
        cr_assert_eq(got[i], sorted[i], "k = %lld, value %lld", (long long)k, (long long)i);
}

static int64_t plans_built(kiln_session *s)
{
    int64_t built = -1;
    KT_OK(kiln_session_cache_info(s, NULL, &built, NULL));
    return built;
}

Test(value_inputs, a_small_input_that_decides_shapes_keys_the_plan)
{
    kiln_runtime *rt = kt_runtime(1);
    pbw bytes = topk_model();
    kiln_model *m = load_bytes(rt, &bytes);
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(m, NULL, &s));
    const int64_t order[] = {3, 3, 5, 3, 5, 1, 3};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        run_topk(s, order[i]);
    cr_assert_eq(plans_built(s), 3, "three values of K, three plans; %lld were built",
                 (long long)plans_built(s));
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

Test(value_inputs, a_big_input_that_decides_shapes_plans_every_run)
{
    kiln_runtime *rt = kt_runtime(1);
    pbw bytes = nonzero_model();
    kiln_model *m = load_bytes(rt, &bytes);
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(m, NULL, &s));
    const int64_t xd[] = {BIG};
    float big[BIG];
    for (int run = 0; run < 3; run++) {
        for (int i = 0; i < BIG; i++)
            big[i] = i % (run + 2) == 0 ? 0.0f : 1.0f;
        KT_OK(kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, xd, 1, big, sizeof big, 0));
        KT_OK(kiln_session_run(s));
        int64_t got[BIG];
        size_t nbytes = 0;
        KT_OK(kiln_session_output_copy(s, 0, got, sizeof got, &nbytes));
        int zeros = (BIG + run + 1) / (run + 2);
        cr_assert_eq(nbytes, (size_t)(BIG - zeros) * sizeof(int64_t), "run %d", run);
    }
    cr_assert_eq(plans_built(s), 3, "X is not small: every run plans (eagerly)");
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
}

Test(value_inputs, kept_value_plans_run_without_allocating)
{
#if !KT_CAN_COUNT_ALLOCS
    cr_skip_test("allocation counting is impossible under AddressSanitizer (it owns malloc)");
#else
    kiln_runtime *rt = kt_runtime(1);
    pbw bytes = topk_model();
    kiln_model *m = load_bytes(rt, &bytes);
    kiln_session *s = NULL;
    KT_OK(kiln_session_create(m, NULL, &s));
    run_topk(s, 5);
    run_topk(s, 2);
    const int64_t xd[] = {N}, kd[] = {1};
    int64_t ks[2] = {5, 2};
    atomic_store(&alloc_calls, 0);
    atomic_store(&counting, 1);
    for (int i = 0; i < 20; i++) {
        kiln_session_set_input(s, "X", KILN_DTYPE_FLOAT, xd, 1, x, sizeof x, 0);
        kiln_session_set_input(s, "K", KILN_DTYPE_INT64, kd, 1, &ks[i % 2], sizeof ks[0], 0);
        kiln_session_run(s);
    }
    atomic_store(&counting, 0);
    long calls = atomic_load(&alloc_calls);
    cr_assert_eq(calls, 0, "%ld allocations in 20 runs over two kept values of K", calls);
    cr_assert_eq(plans_built(s), 2);
    kiln_session_destroy(s);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
#endif
}
