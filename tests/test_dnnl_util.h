/* Helpers for the oneDNN kernel suites (tests/test_dnnl*.c): run one
 * kernel of a chosen backend on a kh_case (core/kernel/op.h level, no graph) and
 * compare the oneDNN kernel against Kiln's CPU kernel for the same node. */
#ifndef KILN_TEST_DNNL_UTIL_H
#define KILN_TEST_DNNL_UTIL_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel/op.h"
#include "kernel_harness.h"

static inline void dt_fill(float *x, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)(seed >> 8) / 8388608.0f - 1.0f;
    }
}

/* Input i of c, random, kept until dt_free_inputs. */
static inline float *dt_input(kh_case *c, int32_t i, const int64_t *dims, int32_t rank,
                              unsigned seed)
{
    size_t n = (size_t)kn_shape_numel(dims, rank);
    float *x = malloc(n * sizeof *x + 4);
    dt_fill(x, n, seed);
    kh_input(c, i, KN_FLOAT, dims, rank, x);
    return x;
}

static inline void dt_free_inputs(kh_case *c)
{
    for (int32_t i = 0; i < c->n_in; i++) {
        free(c->in[i].data);
        c->in[i].data = NULL;
    }
}

/* Runs the (domain, op) kernel of `backend` on c; inputs in const_mask are
 * visible to prepare() (constants). Output 0 goes to *out (malloc'd) and
 * its shape to *desc. Returns the status. */
static inline int dt_run(kh_case *c, const kn_backend *backend, uint32_t const_mask, int32_t threads,
                         float **out, kn_tensor *desc)
{
    memset(c->out, 0, sizeof c->out);
    c->err = (kn_err){0};
    int rc = kh_run_kernel(c, threads, backend, const_mask);
    *out = rc == KN_OK ? c->out[0].data : NULL;
    *desc = c->out[0];
    for (int32_t i = rc == KN_OK ? 1 : 0; i < c->n_out; i++)
        free(c->out[i].data);
    memset(c->out, 0, sizeof c->out);
    return rc;
}

/* oneDNN's int8 kernels decline on a CPU without VNNI or AMX (their 16-bit
 * pair sums saturate, core/dnnl/dnnl_int8.c): nothing of theirs to compare
 * there. */
#define DT_SKIP_WITHOUT_VNNI(rc, c)                                                         \
    do {                                                                                   \
        if ((rc) == KN_ERR_DECLINE && strstr((c)->err.msg, "without VNNI"))                \
            cr_skip_test("oneDNN's int8 kernels need VNNI or AMX on this CPU: %s",         \
                         (c)->err.msg);                                                    \
    } while (0)

/* Largest |a - b| over n, asserting each is within tol * (1 + max |b|). */
static inline double dt_assert_close(const float *a, const float *b, int64_t n, double tol,
                                     const char *what)
{
    double maxabs = 0, worst = 0;
    for (int64_t i = 0; i < n; i++)
        maxabs = fmax(maxabs, fabs((double)b[i]));
    for (int64_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        cr_assert(d <= tol * (1 + maxabs), "%s: element %lld: %.8g vs %.8g", what, (long long)i,
                  a[i], b[i]);
        worst = fmax(worst, d);
    }
    return worst;
}

/* The oneDNN kernel serves c (no decline) and agrees with the CPU kernel
 * of the same node. */
static inline void dt_check(kh_case *c, uint32_t const_mask, int32_t threads, const char *what)
{
    float *dn = NULL, *cpu = NULL;
    kn_tensor dd, cd;
    int rc = dt_run(c, &kn_backend_dnnl, const_mask, threads, &dn, &dd);
    cr_assert_eq(rc, KN_OK, "%s: oneDNN kernel: %s (%d)", what, c->err.msg, rc);
    rc = dt_run(c, &kn_backend_cpu, const_mask, threads, &cpu, &cd);
    cr_assert_eq(rc, KN_OK, "%s: CPU kernel: %s", what, c->err.msg);
    cr_assert(kn_shape_equal(dd.dims, dd.rank, cd.dims, cd.rank), "%s: shapes differ", what);
    dt_assert_close(dn, cpu, kn_tensor_numel(&cd), 2e-5, what);
    free(dn);
    free(cpu);
}

/* Whether oneDNN may use AVX-512 (avx512 set) or AVX2 here: the CPU has
 * it and ONEDNN_MAX_CPU_ISA does not cap below it. */
static inline int dt_onednn_may_use(int avx512)
{
    const char *cap = getenv("ONEDNN_MAX_CPU_ISA");
    if (avx512 ? !__builtin_cpu_supports("avx512f") : !__builtin_cpu_supports("avx2"))
        return 0;
    if (!cap || !*cap || strcmp(cap, "ALL") == 0 || strncmp(cap, "AVX512", 6) == 0)
        return 1;
    return !avx512 && strncmp(cap, "AVX2", 4) == 0;
}

/* oneDNN 2.6 has Winograd kernels on AVX-512 only. */
static inline int dt_winograd_available(void) { return dt_onednn_may_use(1); }

/* The oneDNN kernel declines c (the CPU kernel would serve it). */
static inline void dt_check_declines(kh_case *c, uint32_t const_mask, const char *what)
{
    float *dn = NULL;
    kn_tensor dd;
    int rc = dt_run(c, &kn_backend_dnnl, const_mask, 1, &dn, &dd);
    cr_assert_eq(rc, KN_ERR_DECLINE, "%s: expected a decline, got %d (%s)", what, rc, c->err.msg);
    free(dn);
}

#endif
