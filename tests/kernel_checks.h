/* Checks shared by the suites of the elementwise and tensor kernels
 * (test_kernels_elementwise.c, _binary.c, _tensor.c, _indexing.c): run a
 * harness case expecting success, compare 1- and 2-thread results bit for
 * bit, compare outputs with expected values, expect a failure with a given
 * code and message. Header-only (static inline) because
 * tests/CMakeLists.txt builds each test_*.c on its own. */
#ifndef KILN_TEST_KERNEL_CHECKS_H
#define KILN_TEST_KERNEL_CHECKS_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_harness.h"

/* A shape literal and its rank: DIMS(2, 3) -> (const int64_t[]){2, 3}, 2 */
#define DIMS(...) (const int64_t[]){__VA_ARGS__}, (int32_t)(sizeof((int64_t[]){__VA_ARGS__}) / 8)

static inline void run_ok(kh_case *c)
{
    int rc = kh_run(c, 1);
    cr_assert_eq(rc, KN_OK, "%s: %s", c->node.op_type, c->err.msg);
}

/* Runs with 2 threads, then 1 (leaving those outputs in c): output 0 must
 * be bit-identical. */
static inline void run_both(kh_case *c)
{
    int rc = kh_run(c, 2);
    cr_assert_eq(rc, KN_OK, "%s (2 threads): %s", c->node.op_type, c->err.msg);
    kn_tensor two = c->out[0];
    c->out[0].data = NULL;
    run_ok(c);
    cr_assert(memcmp(two.data, c->out[0].data, (size_t)kn_tensor_nbytes(&two)) == 0,
              "%s: 1 and 2 threads differ", c->node.op_type);
    free(two.data);
}

static inline void expect_shape(const kn_tensor *t, const int64_t *dims, int32_t rank)
{
    char got[128], want[128];
    kn_shape_format(t->dims, t->rank, got, sizeof got);
    kn_shape_format(dims, rank, want, sizeof want);
    cr_assert(kn_shape_equal(t->dims, t->rank, dims, rank), "shape %s, expected %s", got, want);
}

/* Exact comparison of every byte of t with want (dtype checked too). */
static inline void expect_data(const kn_tensor *t, int32_t dtype, const void *want)
{
    cr_assert_eq(t->dtype, dtype, "dtype %s, expected %s", kn_dtype_name(t->dtype),
                 kn_dtype_name(dtype));
    size_t nb = (size_t)kn_tensor_nbytes(t);
    const unsigned char *g = t->data, *w = want;
    for (size_t i = 0; i < nb; i++)
        cr_assert_eq(g[i], w[i], "byte %zu differs (element %zu)", i, i / kn_dtype_size(dtype));
}

/* Same, also checking the element count (want holds n elements). */
static inline void expect_n(const kn_tensor *t, int32_t dtype, const void *want, int64_t n)
{
    cr_assert_eq(kn_tensor_numel(t), n, "numel %lld, expected %lld", (long long)kn_tensor_numel(t),
                 (long long)n);
    expect_data(t, dtype, want);
}

/* float output against expectations with a relative tolerance; NaN and
 * infinities must match exactly. */
static inline void expect_f32(const kn_tensor *t, const float *want, int64_t n, double tol)
{
    cr_assert_eq(t->dtype, KN_FLOAT, "dtype %s, expected float", kn_dtype_name(t->dtype));
    cr_assert_eq(kn_tensor_numel(t), n, "numel %lld, expected %lld", (long long)kn_tensor_numel(t),
                 (long long)n);
    const float *v = t->data;
    for (int64_t i = 0; i < n; i++) {
        if (isnan(want[i]) || isinf(want[i]))
            cr_assert(isnan(want[i]) ? isnan(v[i]) : v[i] == want[i], "[%lld] = %g, expected %g",
                      (long long)i, v[i], want[i]);
        else
            cr_assert(fabs((double)v[i] - want[i]) <= tol * (1 + fabs(want[i])),
                      "[%lld] = %.9g, expected %.9g", (long long)i, v[i], want[i]);
    }
}

/* The case must fail with `code`, and the message must name the op and
 * contain `needle`. */
static inline void expect_fail(kh_case *c, int code, const char *needle)
{
    int rc = kh_run(c, 1);
    cr_assert_eq(rc, code, "%s: got %s (%s), expected %s", c->node.op_type, kn_status_name(rc),
                 c->err.msg, kn_status_name(code));
    cr_assert(strstr(c->err.msg, needle), "message '%s' lacks '%s'", c->err.msg, needle);
    cr_assert(strstr(c->err.msg, c->node.op_type), "message '%s' lacks the op name", c->err.msg);
}

#endif
