/* kn_plan_check, the memory invariants of a finished plan: it passes on the
 * plans of real models (every debug build also runs it on every plan), and
 * it catches an arena tensor moved out of the arena or onto another live
 * one. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine/load.h"
#include "core/engine/plan.h"
#include "test_support.h"

static kn_plan *plan_of(const char *relative, const int64_t *dims, int32_t rank, int level)
{
    size_t size = 0;
    void *bytes = kt_read_file(kt_src_path(relative), &size);
    cr_assert(bytes, "cannot read %s", relative);
    kn_err err = {0};
    kn_model *m = NULL;
    kn_load_options o = {.optimize = level};
    cr_assert_eq(kn_model_load(bytes, size, NULL, 0, &o, &m, &err), KN_OK, "%s", err.msg);
    free(bytes);
    kn_tensor shape = {.dtype = KN_FLOAT, .rank = rank};
    memcpy(shape.dims, dims, sizeof(int64_t) * (size_t)rank);
    kn_plan_options po = {0};
    kn_plan *p = NULL;
    cr_assert_eq(kn_plan_build(m, &shape, NULL, &po, &p, &err), KN_OK, "%s", err.msg);
    return p;
}

static void destroy(kn_plan *p)
{
    const kn_model *m = p->model;
    kn_plan_destroy(p);
    kn_model_destroy((kn_model *)m);
}

/* an arena root other than skip, with bytes */
static int first_arena_root(const kn_plan *p, int32_t skip)
{
    for (int32_t v = 0; v < p->n_values; v++)
        if (p->kind[v] == KN_VAL_ARENA && p->root[v] == v && v != skip &&
            kn_tensor_nbytes(&p->vals[v]) > 0)
            return v;
    return -1;
}

Test(plan_check, real_plans_keep_their_invariants)
{
    const int64_t digits[4] = {4, 1, 8, 8};
    for (int level = 0; level <= 2; level++) {
        kn_plan *p = plan_of("examples/digits/digits.onnx", digits, 4, level);
        kn_err err = {0};
        cr_assert_eq(kn_plan_check(p, &err), KN_OK, "level %d: %s", level, err.msg);
        cr_assert_gt(p->arena_bytes, 0);
        destroy(p);
    }
}

Test(plan_check, a_tensor_outside_the_arena_is_caught)
{
    const int64_t digits[4] = {2, 1, 8, 8};
    kn_plan *p = plan_of("examples/digits/digits.onnx", digits, 4, 0);
    int32_t v = first_arena_root(p, -1);
    cr_assert_geq(v, 0, "the digits plan has an arena tensor");
    p->offset[v] = p->arena_bytes; /* one past the end */
    kn_err err = {0};
    cr_assert_eq(kn_plan_check(p, &err), KN_ERR_INTERNAL);
    cr_assert(strstr(err.msg, "-byte arena"), "%s", err.msg);
    destroy(p);
}

Test(plan_check, two_live_tensors_on_the_same_bytes_are_caught)
{
    const int64_t digits[4] = {2, 1, 8, 8};
    kn_plan *p = plan_of("examples/digits/digits.onnx", digits, 4, 0);
    /* a step's input and output are alive together at that step */
    int32_t in = -1, out = -1;
    for (int32_t s = 0; s < p->n_steps && out < 0; s++) {
        const kn_node *n = p->steps[s].k.node;
        int32_t x = n->inputs[0], y = n->outputs[0];
        if (x >= 0 && y >= 0 && p->kind[x] == KN_VAL_ARENA && p->kind[y] == KN_VAL_ARENA &&
            p->root[x] != p->root[y]) {
            in = p->root[x];
            out = p->root[y];
        }
    }
    cr_assert_geq(out, 0, "no step reads and writes distinct arena buffers");
    p->offset[out] = p->offset[in];
    kn_err err = {0};
    cr_assert_eq(kn_plan_check(p, &err), KN_ERR_INTERNAL);
    cr_assert(strstr(err.msg, "share arena bytes"), "%s", err.msg);
    destroy(p);
}
